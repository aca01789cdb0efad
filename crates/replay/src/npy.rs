//! The `.npy` array format (numpy's own, version 1.0 for writing, 1.0–3.0 for reading), limited to
//! the little-endian, C-order element types a shard uses.
//!
//! Why by hand: the header is one padded Python-dict literal, and writing it ourselves lets the
//! shard use float16 columns and flat `Vec`s without pulling in `ndarray`; the zip container,
//! compression and CRCs come from the `zip` crate.

use crate::error::NpyError;

/// Element types a shard member may have (numpy `descr` strings in [`Dtype::descr`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    Bool,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    F32,
}

impl Dtype {
    const ALL: [Dtype; 11] = [
        Dtype::Bool,
        Dtype::U8,
        Dtype::I8,
        Dtype::U16,
        Dtype::I16,
        Dtype::U32,
        Dtype::I32,
        Dtype::U64,
        Dtype::I64,
        Dtype::F16,
        Dtype::F32,
    ];

    /// The numpy type string (`np.dtype(descr)`).
    pub fn descr(self) -> &'static str {
        match self {
            Dtype::Bool => "|b1",
            Dtype::U8 => "|u1",
            Dtype::I8 => "|i1",
            Dtype::U16 => "<u2",
            Dtype::I16 => "<i2",
            Dtype::U32 => "<u4",
            Dtype::I32 => "<i4",
            Dtype::U64 => "<u8",
            Dtype::I64 => "<i8",
            Dtype::F16 => "<f2",
            Dtype::F32 => "<f4",
        }
    }

    pub fn size(self) -> usize {
        match self {
            Dtype::Bool | Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 | Dtype::F16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 => 8,
        }
    }

    fn from_descr(descr: &str) -> Option<Dtype> {
        // numpy writes single-byte types as "|u1" but accepts "<u1"; be as liberal.
        let normalised = match descr.as_bytes().first() {
            Some(b'<') | Some(b'|') | Some(b'=') => &descr[1..],
            _ => return None,
        };
        Dtype::ALL
            .into_iter()
            .find(|d| &d.descr()[1..] == normalised)
    }
}

/// One decoded array: element type, shape and the raw little-endian element bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct NpyArray {
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

const MAGIC: &[u8; 6] = b"\x93NUMPY";

impl NpyArray {
    /// Number of elements (product of the shape; 1 for a 0-d array).
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Serialises to `.npy` version 1.0 bytes (header padded to a multiple of 64 bytes, as numpy
    /// itself does, so the data is aligned when memory-mapped).
    pub fn to_npy_bytes(&self) -> Vec<u8> {
        let shape = match self.shape.as_slice() {
            [n] => format!("({n},)"),
            dims => format!(
                "({})",
                dims.iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut header = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
            self.dtype.descr(),
            shape
        );
        let unpadded = MAGIC.len() + 2 + 2 + header.len() + 1;
        header.push_str(&" ".repeat((64 - unpadded % 64) % 64));
        header.push('\n');
        let mut out = Vec::with_capacity(MAGIC.len() + 4 + header.len() + self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&self.data);
        out
    }

    /// Parses `.npy` bytes; any deviation from the format (or a big-endian / Fortran-order array,
    /// which shards never contain) is an error, never a panic.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<NpyArray, NpyError> {
        if bytes.len() < 10 || &bytes[..6] != MAGIC {
            return Err(NpyError::BadMagic);
        }
        let major = bytes[6];
        let (header_len, header_start) = match major {
            1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
            2 | 3 => {
                if bytes.len() < 12 {
                    return Err(NpyError::Truncated);
                }
                (
                    u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
                    12,
                )
            }
            other => return Err(NpyError::UnsupportedVersion(other)),
        };
        let data_start = header_start
            .checked_add(header_len)
            .filter(|&end| end <= bytes.len())
            .ok_or(NpyError::Truncated)?;
        let header = std::str::from_utf8(&bytes[header_start..data_start])
            .map_err(|_| NpyError::BadHeader("header is not UTF-8".into()))?;
        let descr = dict_value(header, "descr")?;
        let descr = descr.trim_matches(|c| c == '\'' || c == '"');
        let dtype = Dtype::from_descr(descr)
            .ok_or_else(|| NpyError::UnsupportedDtype(descr.to_string()))?;
        if dict_value(header, "fortran_order")? != "False" {
            return Err(NpyError::BadHeader(
                "Fortran-order arrays are not supported".into(),
            ));
        }
        let shape = parse_shape(dict_value(header, "shape")?)?;
        let expected = shape
            .iter()
            .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| NpyError::BadHeader("shape overflows".into()))?;
        let data = &bytes[data_start..];
        if data.len() != expected {
            return Err(NpyError::DataLength {
                expected,
                actual: data.len(),
            });
        }
        Ok(NpyArray {
            dtype,
            shape,
            data: data.to_vec(),
        })
    }
}

/// The text of a value in the header's dict literal, up to the next top-level comma or brace.
fn dict_value<'a>(header: &'a str, key: &str) -> Result<&'a str, NpyError> {
    let missing = || NpyError::BadHeader(format!("no '{key}' key"));
    let quoted = [format!("'{key}'"), format!("\"{key}\"")];
    let key_pos = quoted
        .iter()
        .find_map(|k| header.find(k.as_str()).map(|p| p + k.len()))
        .ok_or_else(missing)?;
    let rest = header[key_pos..].trim_start();
    let rest = rest.strip_prefix(':').ok_or_else(missing)?.trim_start();
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                if depth == 0 {
                    return Ok(rest[..i].trim());
                }
                depth -= 1;
                if depth == 0 {
                    return Ok(rest[..=i].trim());
                }
            }
            ',' | '}' if depth == 0 => return Ok(rest[..i].trim()),
            _ => {}
        }
    }
    Err(missing())
}

fn parse_shape(text: &str) -> Result<Vec<usize>, NpyError> {
    let inner = text
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| NpyError::BadHeader(format!("shape {text:?} is not a tuple")))?;
    inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.trim_end_matches('L')
                .parse::<usize>()
                .map_err(|_| NpyError::BadHeader(format!("bad dimension {s:?} in shape")))
        })
        .collect()
}

/// Rust element types that map one-to-one to a [`Dtype`].
pub trait Element: Copy {
    const DTYPE: Dtype;
    fn write_le(self, out: &mut Vec<u8>);
    fn read_le(bytes: &[u8]) -> Self;
}

macro_rules! element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: Dtype = $d;
            fn write_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
            fn read_le(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                raw.copy_from_slice(bytes);
                <$t>::from_le_bytes(raw)
            }
        }
    };
}

element!(u8, Dtype::U8);
element!(i8, Dtype::I8);
element!(u16, Dtype::U16);
element!(i16, Dtype::I16);
element!(u32, Dtype::U32);
element!(i32, Dtype::I32);
element!(u64, Dtype::U64);
element!(i64, Dtype::I64);
element!(half::f16, Dtype::F16);
element!(f32, Dtype::F32);

impl Element for bool {
    const DTYPE: Dtype = Dtype::Bool;
    fn write_le(self, out: &mut Vec<u8>) {
        out.push(self as u8);
    }
    fn read_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

impl NpyArray {
    /// Builds an array from typed elements.
    pub fn from_elements<T: Element>(shape: Vec<usize>, values: &[T]) -> NpyArray {
        debug_assert_eq!(shape.iter().product::<usize>(), values.len());
        let mut data = Vec::with_capacity(values.len() * T::DTYPE.size());
        for &v in values {
            v.write_le(&mut data);
        }
        NpyArray {
            dtype: T::DTYPE,
            shape,
            data,
        }
    }

    /// Typed elements, if the stored type is exactly `T`.
    pub fn elements<T: Element>(&self) -> Option<Vec<T>> {
        (self.dtype == T::DTYPE).then(|| {
            self.data
                .chunks_exact(T::DTYPE.size())
                .map(T::read_le)
                .collect()
        })
    }

    /// Unsigned integer elements widened to `u64`, whatever unsigned width was stored.
    pub fn unsigned_elements(&self) -> Option<Vec<u64>> {
        match self.dtype {
            Dtype::U8 => self
                .elements::<u8>()
                .map(|v| v.into_iter().map(u64::from).collect()),
            Dtype::U16 => self
                .elements::<u16>()
                .map(|v| v.into_iter().map(u64::from).collect()),
            Dtype::U32 => self
                .elements::<u32>()
                .map(|v| v.into_iter().map(u64::from).collect()),
            Dtype::U64 => self.elements::<u64>(),
            _ => None,
        }
    }

    /// Unsigned values stored in the narrowest of u8/u16/u32/u64 that holds them all, so that
    /// counts and indices cost as few compressed bytes as their range allows.
    pub fn narrowest_unsigned(shape: Vec<usize>, values: &[u64]) -> NpyArray {
        let max = values.iter().copied().max().unwrap_or(0);
        if max <= u8::MAX as u64 {
            let v: Vec<u8> = values.iter().map(|&x| x as u8).collect();
            NpyArray::from_elements(shape, &v)
        } else if max <= u16::MAX as u64 {
            let v: Vec<u16> = values.iter().map(|&x| x as u16).collect();
            NpyArray::from_elements(shape, &v)
        } else if max <= u32::MAX as u64 {
            let v: Vec<u32> = values.iter().map(|&x| x as u32).collect();
            NpyArray::from_elements(shape, &v)
        } else {
            NpyArray::from_elements(shape, values)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_padded_to_64_bytes_and_round_trips() {
        for shape in [vec![0], vec![3], vec![2, 362], vec![1, 2, 3]] {
            let n: usize = shape.iter().product();
            let values: Vec<u16> = (0..n as u16).collect();
            let array = NpyArray::from_elements(shape.clone(), &values);
            let bytes = array.to_npy_bytes();
            let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!((10 + header_len) % 64, 0);
            assert_eq!(bytes[10 + header_len - 1], b'\n');
            let back = NpyArray::from_npy_bytes(&bytes).unwrap();
            assert_eq!(back, array);
            assert_eq!(back.elements::<u16>().unwrap(), values);
        }
    }

    #[test]
    fn parses_header_written_by_numpy() {
        // Exactly what numpy 2.x writes for np.arange(3, dtype='<i8').
        let mut bytes = b"\x93NUMPY\x01\x00v\x00".to_vec();
        let mut header = "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }".to_string();
        header.push_str(&" ".repeat(118 - header.len() - 1));
        header.push('\n');
        bytes.extend_from_slice(header.as_bytes());
        for v in [0i64, 1, 2] {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        let array = NpyArray::from_npy_bytes(&bytes).unwrap();
        assert_eq!(array.dtype, Dtype::I64);
        assert_eq!(array.shape, vec![3]);
        assert_eq!(array.elements::<i64>().unwrap(), vec![0, 1, 2]);
    }

    #[test]
    fn rejects_truncated_and_malformed_input() {
        let array = NpyArray::from_elements(vec![4], &[1u32, 2, 3, 4]);
        let bytes = array.to_npy_bytes();
        for cut in [0, 5, 9, 20, bytes.len() - 1] {
            assert!(
                NpyArray::from_npy_bytes(&bytes[..cut]).is_err(),
                "cut {cut}"
            );
        }
        let mut wrong_magic = bytes.clone();
        wrong_magic[1] = b'X';
        assert!(matches!(
            NpyArray::from_npy_bytes(&wrong_magic),
            Err(NpyError::BadMagic)
        ));
        let mut big_endian = bytes.clone();
        let at = big_endian.windows(3).position(|w| w == b"<u4").unwrap();
        big_endian[at] = b'>';
        assert!(matches!(
            NpyArray::from_npy_bytes(&big_endian),
            Err(NpyError::UnsupportedDtype(_))
        ));
    }

    #[test]
    fn narrowest_unsigned_picks_the_smallest_width() {
        assert_eq!(
            NpyArray::narrowest_unsigned(vec![2], &[0, 255]).dtype,
            Dtype::U8
        );
        assert_eq!(
            NpyArray::narrowest_unsigned(vec![2], &[0, 256]).dtype,
            Dtype::U16
        );
        assert_eq!(
            NpyArray::narrowest_unsigned(vec![1], &[70_000]).dtype,
            Dtype::U32
        );
        assert_eq!(
            NpyArray::narrowest_unsigned(vec![1], &[1 << 40]).dtype,
            Dtype::U64
        );
        let a = NpyArray::narrowest_unsigned(vec![3], &[1, 300, 7]);
        assert_eq!(a.unsigned_elements().unwrap(), vec![1, 300, 7]);
    }
}
