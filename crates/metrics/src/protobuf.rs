//! Just enough of the protobuf wire format to encode TensorBoard's `Event` messages, and to walk
//! the fields of one when reading scalars back ([`crate::event_reader`]).
//!
//! The wire format is a handful of rules (varint tags, fixed-width doubles/floats,
//! length-prefixed nested messages); the messages we emit are written out in
//! [`crate::event_writer`]. Doing it by hand avoids a code generator, `.proto` files and a
//! protobuf runtime for the few messages we need.

/// Wire types (the low three bits of a field key).
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LENGTH_DELIMITED: u8 = 2;
const FIXED32: u8 = 5;

/// A protobuf message under construction; fields are appended in the order written.
#[derive(Debug, Default, Clone)]
pub struct Message {
    bytes: Vec<u8>,
}

impl Message {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    fn key(&mut self, field: u32, wire_type: u8) {
        push_varint(
            &mut self.bytes,
            (u64::from(field) << 3) | u64::from(wire_type),
        );
    }

    /// `double` field.
    pub fn double(&mut self, field: u32, value: f64) -> &mut Self {
        self.key(field, FIXED64);
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// `float` field.
    pub fn float(&mut self, field: u32, value: f32) -> &mut Self {
        self.key(field, FIXED32);
        self.bytes.extend_from_slice(&value.to_le_bytes());
        self
    }

    /// `int64` field (negative values take ten bytes, as the protobuf spec requires).
    pub fn int64(&mut self, field: u32, value: i64) -> &mut Self {
        self.key(field, VARINT);
        push_varint(&mut self.bytes, value as u64);
        self
    }

    /// `enum`/`int32` field with a non-negative value.
    pub fn uint(&mut self, field: u32, value: u64) -> &mut Self {
        self.key(field, VARINT);
        push_varint(&mut self.bytes, value);
        self
    }

    /// `string` or `bytes` field.
    pub fn bytes(&mut self, field: u32, value: &[u8]) -> &mut Self {
        self.key(field, LENGTH_DELIMITED);
        push_varint(&mut self.bytes, value.len() as u64);
        self.bytes.extend_from_slice(value);
        self
    }

    /// Embedded message field.
    pub fn message(&mut self, field: u32, value: &Message) -> &mut Self {
        self.bytes(field, &value.bytes)
    }

    /// `repeated double` field, packed (the proto3 default and what TensorFlow declares).
    pub fn packed_doubles(&mut self, field: u32, values: &[f64]) -> &mut Self {
        let payload: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.bytes(field, &payload)
    }
}

/// One field of an encoded message, as [`Fields`] yields it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue<'a> {
    Varint(u64),
    Fixed64([u8; 8]),
    Fixed32([u8; 4]),
    /// Strings, bytes, nested messages and packed repeated fields.
    LengthDelimited(&'a [u8]),
}

/// Why bytes are not a well-formed protobuf message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("message ends inside a field")]
    Truncated,
    #[error("varint longer than ten bytes")]
    VarintTooLong,
    #[error("unsupported wire type {0}")]
    WireType(u8),
}

/// Iterates over the `(field number, value)` pairs of an encoded message, in wire order.
/// Stops at the first malformed field (yielding its error).
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    rest: &'a [u8],
}

impl<'a> Fields<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Fields { rest: bytes }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if self.rest.len() < n {
            return Err(DecodeError::Truncated);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        for i in 0..10 {
            let byte = *self.take(1)?.first().expect("one byte");
            value |= u64::from(byte & 0x7f) << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(DecodeError::VarintTooLong)
    }

    fn field(&mut self) -> Result<(u32, FieldValue<'a>), DecodeError> {
        let key = self.varint()?;
        let number = (key >> 3) as u32;
        let value = match (key & 7) as u8 {
            VARINT => FieldValue::Varint(self.varint()?),
            FIXED64 => FieldValue::Fixed64(self.take(8)?.try_into().expect("8 bytes")),
            FIXED32 => FieldValue::Fixed32(self.take(4)?.try_into().expect("4 bytes")),
            LENGTH_DELIMITED => {
                let length = usize::try_from(self.varint()?).map_err(|_| DecodeError::Truncated)?;
                FieldValue::LengthDelimited(self.take(length)?)
            }
            other => return Err(DecodeError::WireType(other)),
        };
        Ok((number, value))
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<(u32, FieldValue<'a>), DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.rest = &[];
        }
        Some(field)
    }
}

pub(crate) fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_match_the_protobuf_spec_examples() {
        // From the protobuf encoding guide: 1 -> 01, 150 -> 96 01, 300 -> ac 02.
        for (value, expected) in [
            (1u64, vec![0x01]),
            (150, vec![0x96, 0x01]),
            (300, vec![0xac, 0x02]),
        ] {
            let mut out = Vec::new();
            push_varint(&mut out, value);
            assert_eq!(out, expected);
        }
        let mut out = Vec::new();
        push_varint(&mut out, u64::MAX);
        assert_eq!(out.len(), 10);
    }

    #[test]
    fn fields_have_the_right_keys() {
        // Guide example: message Test1 { int32 a = 1; } with a = 150 encodes as 08 96 01.
        assert_eq!(
            Message::new().uint(1, 150).clone().into_bytes(),
            vec![0x08, 0x96, 0x01]
        );
        // Test2 { string b = 2; } with b = "testing" encodes as 12 07 74 65 73 74 69 6e 67.
        let mut expected = vec![0x12, 0x07];
        expected.extend_from_slice(b"testing");
        assert_eq!(
            Message::new().bytes(2, b"testing").clone().into_bytes(),
            expected
        );
        let double = Message::new().double(1, 1.0).clone().into_bytes();
        assert_eq!(double[0], 0x09);
        assert_eq!(&double[1..], &1.0f64.to_le_bytes());
        let float = Message::new().float(2, 0.5).clone().into_bytes();
        assert_eq!(float[0], 0x15);
        assert_eq!(Message::new().int64(2, -1).clone().into_bytes().len(), 11);
    }

    #[test]
    fn fields_decode_what_message_encodes() {
        let mut inner = Message::new();
        inner.bytes(1, b"tag").float(2, 0.25);
        let mut outer = Message::new();
        outer
            .double(1, 1.5)
            .int64(2, -7)
            .uint(3, 300)
            .message(5, &inner);
        let bytes = outer.into_bytes();
        let fields: Vec<_> = Fields::new(&bytes).collect::<Result<_, _>>().unwrap();
        assert_eq!(fields.len(), 4);
        assert_eq!(fields[0], (1, FieldValue::Fixed64(1.5f64.to_le_bytes())));
        assert_eq!(fields[1], (2, FieldValue::Varint(-7i64 as u64)));
        assert_eq!(fields[2], (3, FieldValue::Varint(300)));
        let FieldValue::LengthDelimited(nested) = fields[3].1 else {
            panic!("field 5 is a nested message");
        };
        let nested: Vec<_> = Fields::new(nested).collect::<Result<_, _>>().unwrap();
        assert_eq!(nested[0], (1, FieldValue::LengthDelimited(b"tag")));
        assert_eq!(nested[1], (2, FieldValue::Fixed32(0.25f32.to_le_bytes())));
    }

    #[test]
    fn malformed_messages_are_errors_not_panics() {
        // Key of a double field with only three of its eight bytes.
        assert_eq!(
            Fields::new(&[0x09, 1, 2, 3]).next(),
            Some(Err(DecodeError::Truncated))
        );
        // A string field claiming 100 bytes.
        assert_eq!(
            Fields::new(&[0x0a, 100, b'x']).next(),
            Some(Err(DecodeError::Truncated))
        );
        // Wire type 3 (groups) is not supported.
        assert_eq!(
            Fields::new(&[0x0b]).next(),
            Some(Err(DecodeError::WireType(3)))
        );
        assert_eq!(
            Fields::new(&[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
                .next(),
            Some(Err(DecodeError::VarintTooLong))
        );
        // After an error the iterator ends.
        let mut fields = Fields::new(&[0x0b, 0x08, 0x01]);
        assert!(fields.next().unwrap().is_err());
        assert_eq!(fields.next(), None);
    }
}
