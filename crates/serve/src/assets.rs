//! The page's files, compiled into the binary (`include_str!`): the viewer works offline and
//! needs nothing but the `koshogi` executable.

use crate::error::ApiError;
use crate::request::ApiResponse;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// The asset at `path` with its content type.
pub fn asset(path: &str) -> Option<(&'static str, &'static str)> {
    match path {
        "/" | "/index.html" => Some(("text/html; charset=utf-8", INDEX_HTML)),
        "/app.js" => Some(("text/javascript; charset=utf-8", APP_JS)),
        "/style.css" => Some(("text/css; charset=utf-8", STYLE_CSS)),
        _ => None,
    }
}

pub fn response(path: &str) -> Result<ApiResponse, ApiError> {
    let (content_type, body) =
        asset(path).ok_or_else(|| ApiError::not_found(format!("no page {path}")))?;
    Ok(ApiResponse {
        status: 200,
        content_type,
        body: body.as_bytes().to_vec(),
    })
}
