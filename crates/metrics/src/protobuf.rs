//! Just enough of the protobuf wire format to encode TensorBoard's `Event` messages.
//!
//! Encoding is a handful of rules (varint tags, fixed-width doubles/floats, length-prefixed
//! nested messages); the four messages we emit are written out in [`crate::event`]. Doing it by
//! hand avoids a code generator, `.proto` files and a protobuf runtime for a write-only use.

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
}
