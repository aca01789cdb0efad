//! `.npy` arrays as the replay shards' members and koshogi-export's files are read: the header
//! (`koshogi_replay::npy::NpyHeader::parse`: magic, version 1.0–3.0, header length, the dict
//! literal), then the whole array (`NpyArray::from_npy_bytes`). The shard target reaches the
//! same code only behind a zip and a checksum; here the fuzzer works on the header itself.
//!
//! Never a panic: a header that parses lies within the input and names at most `MAX_DIMS`
//! dimensions; an array that decodes has exactly its header's type and shape and the data
//! length the header promises, its element count computes, and written again (`to_npy_bytes`)
//! it reads back the same.
#![no_main]

use koshogi_replay::npy::{NpyArray, NpyHeader, MAX_DIMS, MAX_HEADER_BYTES};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let decoded = NpyArray::from_npy_bytes(data);
    let Ok((header, data_start)) = NpyHeader::parse(data) else {
        assert!(decoded.is_err(), "an array decoded without a header");
        return;
    };
    assert!(data_start <= data.len(), "the header ends past the input");
    assert!(
        data_start <= 12 + MAX_HEADER_BYTES,
        "a header over its bound"
    );
    assert!(header.shape.len() <= MAX_DIMS);
    let data_len = header.data_len();
    let Ok(array) = decoded else {
        return;
    };
    assert!(!header.fortran_order, "a Fortran-order array decoded");
    assert_eq!((array.dtype, &array.shape), (header.dtype, &header.shape));
    assert_eq!(data_len.ok(), Some(array.data.len()));
    assert_eq!(data_start + array.data.len(), data.len());
    assert_eq!(array.len() * array.dtype.size(), array.data.len());
    if let Some(values) = array.unsigned_elements() {
        assert_eq!(values.len(), array.len());
    }

    let written = array.to_npy_bytes();
    let (again, again_start) = NpyHeader::parse(&written).expect("a written header parses");
    assert_eq!(again, header);
    assert_eq!(
        again_start % 64,
        0,
        "a written header is padded to 64 bytes"
    );
    let back = NpyArray::from_npy_bytes(&written).expect("a written array reads back");
    assert_eq!(back, array);
});
