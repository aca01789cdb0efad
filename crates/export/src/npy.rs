//! Float32 `.npy` files (numpy's format version 1.0, little-endian, C order): what `encode`
//! writes for the input tensor and what the export tests exchange with Python. Only `<f4` is
//! needed, so this stays a few lines instead of a dependency.

use std::path::Path;

use koshogi_files::atomic::write_atomic;

use crate::error::ExportError;

const MAGIC: &[u8] = b"\x93NUMPY";

/// The bytes of a `.npy` file holding `data` with `shape` (row-major).
pub fn to_bytes(data: &[f32], shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {dims}, }}");
    // Magic (6) + version (2) + length (2) + header + '\n' must be a multiple of 64.
    let unpadded = MAGIC.len() + 4 + header.len() + 1;
    header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    header.push('\n');
    let mut bytes = Vec::with_capacity(10 + header.len() + 4 * data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&[1, 0]);
    bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
    bytes.extend_from_slice(header.as_bytes());
    for value in data {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

/// Writes a float32 array atomically (a reader never sees a half-written file).
pub fn write_f32(path: &Path, data: &[f32], shape: &[usize]) -> Result<(), ExportError> {
    debug_assert_eq!(shape.iter().product::<usize>(), data.len());
    write_atomic(path, &to_bytes(data, shape)).map_err(ExportError::io(path))
}

/// Reads a float32 `.npy` file written by numpy or [`write_f32`]: (data, shape).
pub fn read_f32(path: &Path) -> Result<(Vec<f32>, Vec<usize>), ExportError> {
    let bytes = std::fs::read(path).map_err(ExportError::io(path))?;
    let bad = |reason: &str| ExportError::BadFile {
        path: path.to_path_buf(),
        reason: reason.to_string(),
    };
    if bytes.len() < 10 || &bytes[..6] != MAGIC {
        return Err(bad("not a .npy file"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(bad("unsupported .npy version")),
    };
    let header = bytes
        .get(start..start + header_len)
        .and_then(|h| std::str::from_utf8(h).ok())
        .ok_or_else(|| bad("truncated header"))?;
    if !header.contains("'<f4'") || header.contains("'fortran_order': True") {
        return Err(bad("only little-endian float32 in C order is supported"));
    }
    let dims = header
        .split("'shape':")
        .nth(1)
        .and_then(|rest| rest.split('(').nth(1))
        .and_then(|rest| rest.split(')').next())
        .ok_or_else(|| bad("no shape in header"))?;
    let shape = dims
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(|d| d.parse::<usize>().map_err(|_| bad("bad shape")))
        .collect::<Result<Vec<_>, _>>()?;
    let body = &bytes[start + header_len..];
    let count: usize = shape.iter().product();
    if body.len() != 4 * count {
        return Err(bad("data length does not match the shape"));
    }
    let data = body
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((data, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_padded_to_64_bytes_and_data_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.npy");
        let data: Vec<f32> = (0..24).map(|i| i as f32 * 0.5 - 3.0).collect();
        write_f32(&path, &data, &[2, 3, 4]).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + header_len) % 64, 0);
        assert_eq!(bytes[10 + header_len - 1], b'\n');
        assert_eq!(read_f32(&path).unwrap(), (data, vec![2, 3, 4]));
    }

    #[test]
    fn one_dimensional_shape_has_numpy_tuple_syntax() {
        let bytes = to_bytes(&[1.0], &[1]);
        let text = String::from_utf8_lossy(&bytes[10..]);
        assert!(text.contains("'shape': (1,)"), "{text}");
    }

    #[test]
    fn garbage_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npy");
        std::fs::write(&path, b"hello").unwrap();
        assert!(read_f32(&path).is_err());
    }
}
