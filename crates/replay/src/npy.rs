//! The `.npy` array format (numpy's own, version 1.0 for writing, 1.0–3.0 for reading), limited to
//! the little-endian, C-order element types the workspace uses — the one `.npy` implementation:
//! replay shards ([`crate::npz`] members), and koshogi-export's `features.npy`, encoded shards
//! and the arrays its tests exchange with Python.
//!
//! Why by hand: the header is one padded Python-dict literal, and writing it ourselves lets the
//! shard use float16 columns and flat `Vec`s without pulling in `ndarray`. Why here: export,
//! the other user, already depends on this crate, which is the lowest one both share.
//!
//! Reading treats the bytes as hostile (a shard fetched from a store, a file from anyone):
//! [`NpyHeader::parse`] is a real parser of the header's dict literal — exactly the keys
//! `descr`, `fortran_order` and `shape`, each once, with a type string, `True`/`False` and a
//! tuple of integers — and every size is bounded ([`MAX_HEADER_BYTES`], [`MAX_DIMS`], checked
//! products) before anything is allocated, so bad input is an [`NpyError`], never a panic.

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

    /// Parses `.npy` bytes ([`NpyHeader::parse`], then exactly the promised number of data
    /// bytes); any deviation from the format, or a big-endian or Fortran-order array (which the
    /// workspace never writes), is an error, never a panic.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<NpyArray, NpyError> {
        let (header, data_start) = Self::checked_header(bytes)?;
        Ok(NpyArray {
            dtype: header.dtype,
            shape: header.shape,
            data: bytes[data_start..].to_vec(),
        })
    }

    /// [`NpyArray::from_npy_bytes`] that keeps the buffer it is given as the array's data
    /// (the header is cut off in place), so a large member is never held twice.
    pub fn from_npy_vec(mut bytes: Vec<u8>) -> Result<NpyArray, NpyError> {
        let (header, data_start) = Self::checked_header(&bytes)?;
        bytes.drain(..data_start);
        Ok(NpyArray {
            dtype: header.dtype,
            shape: header.shape,
            data: bytes,
        })
    }

    /// The header and where the data starts, once the data is known to be exactly as long as
    /// the header promises.
    fn checked_header(bytes: &[u8]) -> Result<(NpyHeader, usize), NpyError> {
        let (header, data_start) = NpyHeader::parse(bytes)?;
        if header.fortran_order {
            return Err(NpyError::FortranOrder);
        }
        let expected = header.data_len()?;
        let data = bytes.get(data_start..).ok_or(NpyError::Truncated)?;
        if data.len() != expected {
            return Err(NpyError::DataLength {
                expected,
                actual: data.len(),
            });
        }
        Ok((header, data_start))
    }
}

/// The longest header read, in bytes: numpy's own reader refuses longer ones unless told
/// otherwise (`numpy.load(max_header_size=10000)`); the headers written here are 118 bytes.
pub const MAX_HEADER_BYTES: usize = 10_000;

/// The most dimensions an array may have (numpy's own limit, `NPY_MAXDIMS`, since numpy 2.0).
pub const MAX_DIMS: usize = 64;

/// Type strings and keys are quoted in errors up to this many characters.
const QUOTE_CHARS: usize = 40;

/// What a `.npy` header says about the data that follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyHeader {
    pub dtype: Dtype,
    /// Whether the data is in column-major order (numpy's `fortran_order`).
    pub fortran_order: bool,
    pub shape: Vec<usize>,
}

impl NpyHeader {
    /// Parses the preamble (magic, version 1.0, 2.0 or 3.0, header length) and the header of
    /// `.npy` bytes. Returns the header and the offset of the data. The header must be the dict
    /// literal numpy writes — `{'descr': <type string>, 'fortran_order': <True|False>,
    /// 'shape': <tuple of integers>}` in any key order, with or without a trailing comma,
    /// padded with whitespace — and at most [`MAX_HEADER_BYTES`] long.
    pub fn parse(bytes: &[u8]) -> Result<(NpyHeader, usize), NpyError> {
        if bytes.get(..MAGIC.len()) != Some(&MAGIC[..]) {
            return Err(NpyError::BadMagic);
        }
        let (major, minor) = match bytes.get(6..8) {
            Some(&[major, minor]) => (major, minor),
            _ => return Err(NpyError::Truncated),
        };
        // Version 1.0 has a u16 header length, 2.0 and 3.0 (UTF-8 header) a u32.
        let header_start = match (major, minor) {
            (1, 0) => 10,
            (2, 0) | (3, 0) => 12,
            _ => return Err(NpyError::UnsupportedVersion { major, minor }),
        };
        let length_field = bytes.get(8..header_start).ok_or(NpyError::Truncated)?;
        let header_len = length_field
            .iter()
            .rev()
            .fold(0u64, |len, &byte| len << 8 | u64::from(byte));
        if header_len > MAX_HEADER_BYTES as u64 {
            return Err(NpyError::HeaderTooLong {
                len: header_len,
                max: MAX_HEADER_BYTES,
            });
        }
        let data_start = header_start + header_len as usize;
        let header = bytes
            .get(header_start..data_start)
            .ok_or(NpyError::Truncated)?;
        Ok((parse_dict(header)?, data_start))
    }

    /// The number of data bytes the header promises (an error if that overflows).
    pub fn data_len(&self) -> Result<usize, NpyError> {
        self.shape
            .iter()
            .try_fold(self.dtype.size(), |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| NpyError::BadHeader("the shape's byte count overflows".into()))
    }
}

/// The header's dict literal (see [`NpyHeader::parse`]).
fn parse_dict(header: &[u8]) -> Result<NpyHeader, NpyError> {
    if !header.is_ascii() {
        return Err(NpyError::BadHeader("header is not ASCII".into()));
    }
    let mut cursor = Cursor {
        text: header,
        at: 0,
    };
    let (mut dtype, mut fortran_order, mut shape) = (None, None, None);
    cursor.expect(b'{', "'{'")?;
    if !cursor.eat(b'}') {
        loop {
            let key = cursor.string()?;
            cursor.expect(b':', "':'")?;
            match key {
                "descr" => set_once(&mut dtype, key, cursor.dtype()?)?,
                "fortran_order" => set_once(&mut fortran_order, key, cursor.boolean()?)?,
                "shape" => set_once(&mut shape, key, cursor.shape()?)?,
                other => {
                    return Err(NpyError::BadHeader(format!(
                        "unexpected key {:?}",
                        quote(other)
                    )))
                }
            }
            if cursor.eat(b'}') {
                break;
            }
            cursor.expect(b',', "',' or '}'")?;
            if cursor.eat(b'}') {
                break;
            }
        }
    }
    cursor.skip_whitespace();
    if cursor.at != header.len() {
        return Err(cursor.error("only padding after the dictionary"));
    }
    let missing = |key: &str| NpyError::BadHeader(format!("no '{key}' key"));
    Ok(NpyHeader {
        dtype: dtype.ok_or_else(|| missing("descr"))?,
        fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
        shape: shape.ok_or_else(|| missing("shape"))?,
    })
}

fn set_once<T>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), NpyError> {
    if slot.replace(value).is_some() {
        return Err(NpyError::BadHeader(format!("key '{key}' appears twice")));
    }
    Ok(())
}

/// At most [`QUOTE_CHARS`] characters of untrusted text, for an error message.
fn quote(text: &str) -> String {
    text.chars().take(QUOTE_CHARS).collect()
}

/// A position in the (ASCII) header text; every method skips leading whitespace.
struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn error(&self, expected: &str) -> NpyError {
        NpyError::BadHeader(format!("expected {expected} at byte {}", self.at))
    }

    /// Consumes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, byte: u8, what: &str) -> Result<(), NpyError> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error(what))
        }
    }

    /// A Python string literal in single or double quotes, without escapes.
    fn string(&mut self) -> Result<&'a str, NpyError> {
        self.skip_whitespace();
        let quote_byte = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(self.error("a quoted string")),
        };
        let start = self.at + 1;
        let rest = self.text.get(start..).unwrap_or_default();
        let len = rest.iter().position(|&b| b == quote_byte).ok_or_else(|| {
            NpyError::BadHeader(format!("unterminated string at byte {}", self.at))
        })?;
        let content = &rest[..len];
        if content.contains(&b'\\') {
            return Err(NpyError::BadHeader(format!(
                "escape in the string at byte {}",
                self.at
            )));
        }
        self.at = start + len + 1;
        // The header was checked to be ASCII.
        std::str::from_utf8(content).map_err(|_| NpyError::BadHeader("header is not ASCII".into()))
    }

    /// The `descr` value: a type string this module knows ([`Dtype`]).
    fn dtype(&mut self) -> Result<Dtype, NpyError> {
        self.skip_whitespace();
        if self.peek() == Some(b'[') {
            return Err(NpyError::UnsupportedDtype("a structured type".into()));
        }
        let descr = self.string()?;
        Dtype::from_descr(descr).ok_or_else(|| NpyError::UnsupportedDtype(quote(descr)))
    }

    fn boolean(&mut self) -> Result<bool, NpyError> {
        self.skip_whitespace();
        let rest = self.text.get(self.at..).unwrap_or_default();
        let word_len = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let value = match &rest[..word_len] {
            b"True" => true,
            b"False" => false,
            _ => return Err(self.error("True or False")),
        };
        self.at += word_len;
        Ok(value)
    }

    /// A tuple of at most [`MAX_DIMS`] non-negative integers: `()`, `(n,)`, `(n, m)`, `(n, m,)`.
    fn shape(&mut self) -> Result<Vec<usize>, NpyError> {
        self.expect(b'(', "a tuple")?;
        let mut dims = Vec::new();
        if self.eat(b')') {
            return Ok(dims);
        }
        loop {
            if dims.len() == MAX_DIMS {
                return Err(NpyError::BadHeader(format!(
                    "more than {MAX_DIMS} dimensions"
                )));
            }
            dims.push(self.dimension()?);
            if self.eat(b')') {
                if dims.len() == 1 {
                    // `(3)` is the integer 3 in Python, not a tuple.
                    return Err(self.error("',' in a one-element tuple"));
                }
                return Ok(dims);
            }
            self.expect(b',', "',' or ')'")?;
            if self.eat(b')') {
                return Ok(dims);
            }
        }
    }

    /// A decimal integer that fits a `usize` (Python 2's `L` suffix allowed, as numpy once wrote).
    fn dimension(&mut self) -> Result<usize, NpyError> {
        self.skip_whitespace();
        let start = self.at;
        let mut value: usize = 0;
        while let Some(digit @ b'0'..=b'9') = self.peek() {
            value = value
                .checked_mul(10)
                .and_then(|v| v.checked_add(usize::from(digit - b'0')))
                .ok_or_else(|| {
                    NpyError::BadHeader(format!("dimension at byte {start} is too large"))
                })?;
            self.at += 1;
        }
        if self.at == start {
            return Err(self.error("a non-negative integer"));
        }
        if self.peek() == Some(b'L') {
            self.at += 1;
        }
        Ok(value)
    }
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

    /// Unsigned integer elements as `u32`, whatever unsigned width was stored, read straight
    /// from the stored bytes (no wider copy in between); `Err` holds the first value too large
    /// for `u32`, `None` means the array is not unsigned.
    pub fn unsigned_elements_u32(&self) -> Option<Result<Vec<u32>, u64>> {
        let size = self.dtype.size();
        let widen: fn(&[u8]) -> u64 = match self.dtype {
            Dtype::U8 => |b| u64::from(u8::read_le(b)),
            Dtype::U16 => |b| u64::from(u16::read_le(b)),
            Dtype::U32 => |b| u64::from(u32::read_le(b)),
            Dtype::U64 => u64::read_le,
            _ => return None,
        };
        Some(
            self.data
                .chunks_exact(size)
                .map(|chunk| {
                    let value = widen(chunk);
                    u32::try_from(value).map_err(|_| value)
                })
                .collect(),
        )
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

    /// `.npy` version 1.0 bytes with `header` (padded as numpy pads it) and `data`.
    fn npy_with_header(header: &str, data: &[u8]) -> Vec<u8> {
        let mut text = header.to_string();
        text.push_str(&" ".repeat((64 - (10 + text.len() + 1) % 64) % 64));
        text.push('\n');
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(text.len() as u16).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(data);
        bytes
    }

    fn parse_header(header: &str) -> Result<NpyHeader, NpyError> {
        NpyHeader::parse(&npy_with_header(header, &[])).map(|(header, _)| header)
    }

    #[test]
    fn the_header_parser_reads_every_spelling_numpy_uses() {
        let expected = |shape: Vec<usize>| NpyHeader {
            dtype: Dtype::F32,
            fortran_order: false,
            shape,
        };
        for (text, shape) in [
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                vec![2, 3],
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}",
                vec![2, 3],
            ),
            (
                "{\"shape\": (7,), \"fortran_order\": False, \"descr\": \"<f4\"}",
                vec![7],
            ),
            ("{'descr':'<f4','fortran_order':False,'shape':()}", vec![]),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2L, 3L,), }",
                vec![2, 3],
            ),
            (
                "\t{ 'descr' : '<f4' ,\n 'fortran_order' : False , 'shape' : ( 4 , ) }",
                vec![4],
            ),
        ] {
            assert_eq!(parse_header(text).unwrap(), expected(shape), "{text}");
        }
        let header = parse_header("{'descr': '|b1', 'fortran_order': True, 'shape': (0,)}");
        assert_eq!(
            header.unwrap(),
            NpyHeader {
                dtype: Dtype::Bool,
                fortran_order: true,
                shape: vec![0],
            }
        );
        // Versions 2.0 and 3.0 have a four-byte header length.
        let text = "{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }\n";
        for major in [2u8, 3] {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&[major, 0]);
            bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
            bytes.extend_from_slice(text.as_bytes());
            bytes.extend_from_slice(&[7, 0]);
            let array = NpyArray::from_npy_bytes(&bytes).unwrap();
            assert_eq!(array.elements::<u16>().unwrap(), vec![7]);
        }
    }

    #[test]
    fn hostile_headers_are_errors() {
        let bad_header = |text: &str| {
            let result = parse_header(text);
            assert!(
                matches!(result, Err(NpyError::BadHeader(_))),
                "{text}: {result:?}"
            );
        };
        // Keys missing, repeated, unknown, or hidden inside a value.
        bad_header("{'descr': '<f4', 'fortran_order': False}");
        bad_header("{'descr': '<f4', 'shape': (1,)}");
        bad_header("{'fortran_order': False, 'shape': (1,)}");
        bad_header("{}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'shape': (2,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'note': 'shape': (1,)}");
        // Values of the wrong kind.
        bad_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}");
        bad_header("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (1,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': [1]}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': 3}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1.5,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': ((1,),)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}");
        bad_header(&format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': ({})}}",
            "1,".repeat(MAX_DIMS + 1)
        ));
        bad_header(&format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': {}}}",
            "(".repeat(5000)
        ));
        // Broken syntax.
        bad_header("");
        bad_header("'descr': '<f4', 'fortran_order': False, 'shape': (1,)");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)");
        bad_header("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}");
        bad_header("{'descr: '<f4', 'fortran_order': False, 'shape': (1,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}}");
        bad_header("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (1,)}");
        bad_header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'ü': 1}");
        // Types this module does not read.
        for descr in ["'>f4'", "'<f8'", "'<U3'", "'O'", "''", "[('a', '<f4')]"] {
            let text = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': (1,)}}");
            let result = parse_header(&text);
            assert!(
                matches!(result, Err(NpyError::UnsupportedDtype(_))),
                "{text}: {result:?}"
            );
        }
        // A long unknown type is quoted only in part.
        let long = format!(
            "{{'descr': '{}', 'fortran_order': False, 'shape': (1,)}}",
            "x".repeat(500)
        );
        match parse_header(&long) {
            Err(NpyError::UnsupportedDtype(quoted)) => assert_eq!(quoted.len(), QUOTE_CHARS),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn hostile_sizes_are_errors_before_any_allocation() {
        let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
        // Claimed header lengths beyond the limit (v1 and v2 length fields), or beyond the input.
        let mut long_v1 = npy_with_header(header, &[0; 8]);
        long_v1[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(matches!(
            NpyArray::from_npy_bytes(&long_v1),
            Err(NpyError::HeaderTooLong { len: 65535, .. })
        ));
        let mut long_v2 = MAGIC.to_vec();
        long_v2.extend_from_slice(&[2, 0]);
        long_v2.extend_from_slice(&u32::MAX.to_le_bytes());
        long_v2.extend_from_slice(header.as_bytes());
        assert!(matches!(
            NpyArray::from_npy_bytes(&long_v2),
            Err(NpyError::HeaderTooLong { .. })
        ));
        let mut past_end = npy_with_header(header, &[]);
        past_end[8..10].copy_from_slice(&1000u16.to_le_bytes());
        assert!(matches!(
            NpyArray::from_npy_bytes(&past_end),
            Err(NpyError::Truncated)
        ));
        // A shape whose byte count overflows, or that promises far more than is there.
        let overflow = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}",
            usize::MAX / 2,
            3
        );
        assert!(matches!(
            NpyArray::from_npy_bytes(&npy_with_header(&overflow, &[])),
            Err(NpyError::BadHeader(_))
        ));
        let huge = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': ({},), }}",
            1u64 << 40
        );
        assert!(matches!(
            NpyArray::from_npy_bytes(&npy_with_header(&huge, &[0; 8])),
            Err(NpyError::DataLength { actual: 8, .. })
        ));
        // Fortran order, other versions.
        let fortran = "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }";
        assert!(matches!(
            NpyArray::from_npy_bytes(&npy_with_header(fortran, &[0; 8])),
            Err(NpyError::FortranOrder)
        ));
        for version in [[0u8, 0], [1, 1], [4, 0], [255, 0]] {
            let mut bytes = npy_with_header(header, &[0; 8]);
            bytes[6..8].copy_from_slice(&version);
            assert!(matches!(
                NpyArray::from_npy_bytes(&bytes),
                Err(NpyError::UnsupportedVersion { .. })
            ));
        }
    }

    #[test]
    fn every_truncation_and_byte_flip_is_an_answer_not_a_panic() {
        let array = NpyArray::from_elements(vec![2, 3], &[1.5f32, 2.0, -1.0, 0.0, 4.0, 8.0]);
        let bytes = array.to_npy_bytes();
        for cut in 0..bytes.len() {
            assert!(
                NpyArray::from_npy_bytes(&bytes[..cut]).is_err(),
                "cut {cut}"
            );
        }
        for at in 0..bytes.len() {
            for value in [
                0u8, b' ', b'\'', b'(', b')', b',', b'}', b'9', b'\\', 0x80, 0xff,
            ] {
                let mut changed = bytes.clone();
                changed[at] = value;
                // Ok (a byte of the data or the padding) or an error; never a panic.
                if let Ok(read) = NpyArray::from_npy_bytes(&changed) {
                    assert_eq!(read.data.len(), read.len() * read.dtype.size());
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_headers_never_panic(header in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300),
                                         text in "[{}()'\":, 0-9a-z_<|TrueFals]{0,120}") {
            let _ = NpyArray::from_npy_bytes(&npy_with_header(&String::from_utf8_lossy(&header), &[0; 16]));
            let _ = NpyArray::from_npy_bytes(&npy_with_header(&text, &[0; 16]));
        }
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
