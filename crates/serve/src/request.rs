//! The transport-free request and response: [`ApiRequest`] in (method, decoded path and query,
//! body), [`ApiResponse`] out. The HTTP layer ([`crate::server`]) only converts to and from
//! these, so every handler is tested by building requests in memory.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::ApiError;

/// Largest request body accepted (moves and settings are a few hundred bytes).
pub const MAX_BODY_BYTES: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Other,
}

/// One request: method, decoded path, query parameters (percent-decoded), body.
#[derive(Clone, Debug)]
pub struct ApiRequest {
    pub method: Method,
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl ApiRequest {
    /// A request for `url` (`/path?a=1&b=x%20y`) with an empty body.
    pub fn new(method: Method, url: &str) -> ApiRequest {
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let query = query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (percent_decode(name), percent_decode(value))
            })
            .collect();
        ApiRequest {
            method,
            path: percent_decode(path),
            query,
            body: Vec::new(),
        }
    }

    pub fn get(url: &str) -> ApiRequest {
        ApiRequest::new(Method::Get, url)
    }

    /// A POST of a JSON value (how the page sends moves and settings).
    pub fn post_json(url: &str, body: &serde_json::Value) -> ApiRequest {
        let mut request = ApiRequest::new(Method::Post, url);
        request.body = body.to_string().into_bytes();
        request
    }

    /// The first value of a query parameter.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn required(&self, name: &str) -> Result<&str, ApiError> {
        self.param(name)
            .ok_or_else(|| ApiError::bad_request(format!("missing query parameter `{name}`")))
    }

    /// A query parameter parsed as `T` (`None` when absent).
    pub fn parsed<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiError> {
        self.param(name)
            .map(|text| {
                text.parse::<T>().map_err(|_| {
                    ApiError::bad_request(format!("query parameter `{name}`: cannot read {text:?}"))
                })
            })
            .transpose()
    }

    /// The body as JSON of type `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| ApiError::bad_request(format!("request body: {e}")))
    }
}

/// `%XX` escapes and `+` (a space in query strings); malformed escapes are kept as written.
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What to send back.
#[derive(Clone, Debug, PartialEq)]
pub struct ApiResponse {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl ApiResponse {
    pub fn json(value: &impl Serialize) -> ApiResponse {
        match serde_json::to_vec(value) {
            Ok(body) => ApiResponse {
                status: 200,
                content_type: "application/json",
                body,
            },
            Err(e) => ApiResponse::error(&ApiError::internal(format!("encoding JSON: {e}"))),
        }
    }

    /// `{"error": "<message>"}` with the error's status.
    pub fn error(error: &ApiError) -> ApiResponse {
        ApiResponse {
            status: error.status,
            content_type: "application/json",
            body: serde_json::json!({ "error": error.message })
                .to_string()
                .into_bytes(),
        }
    }

    /// The body parsed as JSON (tests and clients).
    pub fn json_value(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split_into_a_decoded_path_and_query() {
        let request = ApiRequest::get("/api/game?name=games%2Fgame-1.txt&ply=12&x=a+b&flag");
        assert_eq!(request.path, "/api/game");
        assert_eq!(request.param("name"), Some("games/game-1.txt"));
        assert_eq!(request.parsed::<usize>("ply").unwrap(), Some(12));
        assert_eq!(request.param("x"), Some("a b"));
        assert_eq!(request.param("flag"), Some(""));
        assert_eq!(request.param("missing"), None);
        assert_eq!(request.required("missing").unwrap_err().status, 400);
        assert_eq!(request.parsed::<usize>("x").unwrap_err().status, 400);
    }

    #[test]
    fn malformed_escapes_are_kept_as_written() {
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%2e%2E%2f"), "../");
        assert_eq!(percent_decode("%E7%8E%89"), "玉");
    }
}
