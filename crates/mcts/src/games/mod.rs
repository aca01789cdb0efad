//! The games the search plays: the interface it is written against ([`game`]), Ko shogi
//! ([`koshogi`]) with its material evaluator ([`material`]) and the root's threat answers
//! ([`threats`]), and tiny games with known answers for tests ([`toy`]).

pub mod game;
pub mod koshogi;
pub mod material;
pub mod threats;
pub mod toy;
