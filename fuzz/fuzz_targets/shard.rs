//! Replay shards (`Shard::open`, as the trainer, `koshogi diagnose` and the sampler read
//! them). The first byte picks how the rest is used:
//!
//! * even: the rest is the file, as found on disk (zip structure, CRCs, the SHA-256 check);
//! * odd: the rest is a list of members (`[name length u8][name][length u32 LE][bytes]`…)
//!   that the harness seals into a valid stored zip with the right `sha256.npy`, so the fuzzer
//!   gets past the checksum it cannot compute and exercises the `.npy` decoder, the meta JSON
//!   and the cross-column checks.
//!
//! A shard that opens must be usable: every record converts and its board decodes or is
//! refused with an error (as the trainer's sampler does), never a panic.
#![no_main]

use std::io::Write;

use koshogi_replay::format::{shard_checksum, CHECKSUM_MEMBER};
use koshogi_replay::npy::NpyArray;
use koshogi_replay::npz::entry_name;
use koshogi_replay::{decode_position, Shard};
use koshogi_rules::{Game, RulesOptions};
use libfuzzer_sys::fuzz_target;

fn members(mut data: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut members = Vec::new();
    while let Some((&name_len, rest)) = data.split_first() {
        let name_len = usize::from(name_len).min(rest.len());
        let name = String::from_utf8_lossy(&rest[..name_len]).into_owned();
        let rest = &rest[name_len..];
        let len = match rest.get(..4) {
            Some(bytes) => u32::from_le_bytes(bytes.try_into().unwrap()) as usize,
            None => 0,
        };
        let rest = rest.get(4..).unwrap_or_default();
        let len = len.min(rest.len());
        members.push((name, rest[..len].to_vec()));
        data = &rest[len..];
    }
    members
}

fn sealed_zip(mut members: Vec<(String, Vec<u8>)>) -> Option<Vec<u8>> {
    let checksum_name = entry_name(CHECKSUM_MEMBER);
    members.retain(|(name, _)| *name != checksum_name);
    let checksum = shard_checksum(members.iter().map(|(n, b)| (n.as_str(), b.as_slice())));
    members.push((
        checksum_name,
        NpyArray::from_elements(vec![32], &checksum).to_npy_bytes(),
    ));
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in &members {
        // Duplicate or unusable names are refused by the writer: nothing to read then.
        zip.start_file(name.as_str(), options).ok()?;
        zip.write_all(bytes).ok()?;
    }
    Some(zip.finish().ok()?.into_inner())
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode % 2 == 0 {
        rest.to_vec()
    } else {
        match sealed_zip(members(rest)) {
            Some(file) => file,
            None => return,
        }
    };
    let path = koshogi_fuzz::scratch_file("shard.npz", &file);
    let Ok(shard) = Shard::open(&path) else {
        return;
    };
    assert_eq!(shard.records().len(), shard.len());
    for record in shard.records() {
        let owned = record.to_owned_record();
        assert_eq!(owned.policy.len(), record.policy_moves.len());
        if let Ok(position) = decode_position(record.board, record.ply) {
            let game = Game::from_position(position, RulesOptions::default());
            let _ = game.legal_moves();
        }
    }
});
