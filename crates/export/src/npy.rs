//! Float32 `.npy` files: what `encode` writes for the input tensor and what the export tests
//! exchange with Python. Only the file handling is here — an atomic write, a bounded read and
//! errors naming the file; the format itself (writer and header parser) is
//! `koshogi_replay::npy`, the workspace's one `.npy` implementation.

use std::path::Path;

use koshogi_files::atomic::write_atomic;
use koshogi_files::small_file::read_bounded;
use koshogi_replay::npy::{Dtype, NpyArray};

use crate::error::ExportError;

/// The largest `.npy` file [`read_f32`] reads (the arrays exchanged with Python are a few MB).
pub const MAX_NPY_BYTES: u64 = 1 << 30;

/// The bytes of a `.npy` file holding `data` with `shape` (row-major).
pub fn to_bytes(data: &[f32], shape: &[usize]) -> Vec<u8> {
    NpyArray::from_elements(shape.to_vec(), data).to_npy_bytes()
}

/// Writes a float32 array atomically (a reader never sees a half-written file).
pub fn write_f32(path: &Path, data: &[f32], shape: &[usize]) -> Result<(), ExportError> {
    debug_assert_eq!(shape.iter().product::<usize>(), data.len());
    write_atomic(path, &to_bytes(data, shape)).map_err(ExportError::io(path))
}

/// Reads a float32 `.npy` file (little-endian, C order) written by numpy or [`write_f32`]:
/// (data, shape).
pub fn read_f32(path: &Path) -> Result<(Vec<f32>, Vec<usize>), ExportError> {
    let bad = |reason: String| ExportError::BadFile {
        path: path.to_path_buf(),
        reason,
    };
    let bytes = read_bounded(path, MAX_NPY_BYTES).map_err(|error| {
        if error.kind() == std::io::ErrorKind::InvalidData {
            bad(format!("larger than {MAX_NPY_BYTES} bytes"))
        } else {
            ExportError::io(path)(error)
        }
    })?;
    let array = NpyArray::from_npy_bytes(&bytes).map_err(|e| bad(e.to_string()))?;
    let data = array.elements::<f32>().ok_or_else(|| {
        bad(format!(
            "holds {}, not float32 ({})",
            array.dtype.descr(),
            Dtype::F32.descr()
        ))
    })?;
    Ok((data, array.shape))
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
    fn bytes_are_numpys_own() {
        // What numpy 2.x writes for np.array([1.0], dtype='<f4') (`np.save`), byte for byte.
        let mut expected = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
        expected.extend_from_slice(header.as_bytes());
        expected.extend_from_slice(&[b' '; 118 - 57 - 1]);
        expected.push(b'\n');
        expected.extend_from_slice(&1.0f32.to_le_bytes());
        assert_eq!(to_bytes(&[1.0], &[1]), expected);
    }

    #[test]
    fn garbage_and_other_types_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npy");
        std::fs::write(&path, b"hello").unwrap();
        assert!(read_f32(&path).is_err());
        std::fs::write(
            &path,
            NpyArray::from_elements(vec![2], &[1u32, 2]).to_npy_bytes(),
        )
        .unwrap();
        let error = read_f32(&path).unwrap_err().to_string();
        assert!(error.contains("not float32"), "{error}");
    }
}
