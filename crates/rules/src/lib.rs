//! Ko shogi rules as written in `docs/rules.md` (cited throughout as `§n.m` and `AMB-nn`): board,
//! pieces, KSFEN, legal moves with canonical notation, make/undo with an incremental Zobrist hash,
//! and game end.
//!
//! # Public API (the contract other crates code against)
//! * [`Square`] (public index `(rank-1)*19 + (file-1)`, `Display`/`FromStr` as `10j`),
//!   [`Color`], [`PieceKind`] (57 types, §2 order), [`Piece`].
//! * [`Move`] — one per effect (§4.10), canonical path (§11.2); `Display` is canonical notation.
//!   Capture-triggered (mandatory) promotions carry [`Promotion::Promote`] and print `+`;
//!   [`Promotion::Decline`] (`=`) only exists where the promotion was optional.
//!   [`Move::from_parts`] builds a move from a parsed path; [`Move::same_effect`] compares effects.
//!   `legs()` is empty only for a stationary shot (`17q*16m`), which exists only under the
//!   non-default `shoot_mode = stationary_only | either` (AMB-01); `destination()` is then the
//!   origin.
//! * [`RulesOptions`] — §12 switches (serde, `Default` = KS-default, unknown keys rejected).
//! * [`Position`] — `startpos`, `empty`, `from_ksfen`/`to_ksfen`, `piece_at`, `set_piece`,
//!   `hash`/`compute_hash`, `ply`, `generate_moves(&opts, &mut Vec<Move>)` (appends) /
//!   `legal_moves(&opts)`, `play(&Move, &opts) -> Undo` and `undo(Undo)` (exact restore, hash
//!   included; `play` trusts that the move is legal), `after`, derived state: `is_immobilized`,
//!   `immobilized_points`, `is_fog_suppressed`, `taoist_priest_lost`, `drum_lost`, `survives`,
//!   `rests_on_sole_target`; for hand-written evaluations `sum_piece_ranks` (a
//!   [`PieceRankTable`] summed over the board) and `squares_of`.
//! * [`Game`] — position + options + history: `legal_moves`, `generate_legal_moves` (clears the
//!   buffer first), `play`, `try_play` (accepts any path with a legal effect), `undo`, `outcome`,
//!   `repetition_count`, `with_max_plies` (counts moves played in this game).
//! * [`gives_check`] — §10.3, used for perpetual check.
//! * [`material`] — what each piece type is worth (on the search's and the baselines' scale),
//!   the material balance on each scale, and a balance's value (`tanh(balance / 10)`).
//!
//! # Tests
//! Unit tests sit with the code; `tests/` holds the tests against the public API (one file per
//! topic of `docs/rules.md` §13.3). Reference positions with their expected moves, the
//! hand-counted moves of every type alone, §5.12a's movement table and the perft counts are text
//! fixtures in the workspace's `data/rules/` (format in `data/README.md`), run by
//! `tests/movegen_fixtures.rs`, `tests/pieces_alone.rs`, `tests/movement_table.rs` and
//! `tests/perft_counts.rs`.

mod color;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
mod game;
pub mod game_record;
mod ksfen;
pub(crate) mod mailbox;
pub mod material;
pub(crate) mod movegen;
mod moves;
pub mod notation;
mod options;
mod outcome;
pub mod perft;
mod piece;
mod piece_kind;
mod piece_rank_table;
mod play;
mod position;
mod square;
#[cfg(test)]
mod testutil;
mod zobrist;

pub use color::Color;
pub use game::{capped_material_winner, gives_check, Game, PlayError};
pub use ksfen::KsfenError;
pub use moves::{Move, MoveBuildError, Promotion, MAX_LEGS, MAX_SHOTS};
pub use options::{
    BurnExempt, FlameMode, FortressMove, GuardsPromote, MutualDestruction, NetScope, NoMoves,
    PerpetualCheck, Reach, RulesOptions, ShootMode, ShotAfterCapture, ShotRange, ThunderclapMode,
    ZonePromotion, ZoneTrigger,
};
pub use outcome::{DrawReason, Outcome, WinReason};
pub use piece::Piece;
pub use piece_kind::PieceKind;
pub use piece_rank_table::PieceRankTable;
pub use play::Undo;
pub use position::{Position, START_KSFEN};
pub use square::{Square, SquareParseError, BOARD_SIZE};

impl Position {
    /// Appends every legal move of the side to move to `out` (one per effect, canonical path).
    /// A position in which either side no longer survives has no legal moves (§14.2).
    pub fn generate_moves(&self, opts: &RulesOptions, out: &mut Vec<Move>) {
        movegen::generate(self, opts, out);
    }

    /// Appends the legal moves of the side to move that remove an enemy piece
    /// ([`Move::is_capture`]): the capturing subset of [`Position::generate_moves`], in the same
    /// order, without generating the rest (for quiescence searches and exchange evaluation).
    pub fn generate_captures(&self, opts: &RulesOptions, out: &mut Vec<Move>) {
        movegen::generate_captures(self, opts, out);
    }

    /// Appends the legal captures `side` could make now, were it its turn (for the other side
    /// to move, a null move first): the threats a player must answer, and what the network's
    /// attack planes mark. [`Position::generate_captures`] when `side` is to move.
    pub fn generate_captures_for(&self, side: Color, opts: &RulesOptions, out: &mut Vec<Move>) {
        if side == self.side_to_move() {
            return self.generate_captures(opts, out);
        }
        let mut turned = self.clone();
        turned.set_side_to_move(side);
        turned.generate_captures(opts, out);
    }

    /// Appends the legal moves of the side to move that remove the enemy piece on `target`
    /// ([`Move::removes`]): that subset of [`Position::generate_moves`], in the same order,
    /// walking only the pieces that could reach `target` (for exchange evaluation).
    pub fn generate_captures_removing(
        &self,
        target: Square,
        opts: &RulesOptions,
        out: &mut Vec<Move>,
    ) {
        movegen::generate_captures_removing(self, opts, target, out);
    }

    /// The legal moves of the side to move.
    pub fn legal_moves(&self, opts: &RulesOptions) -> Vec<Move> {
        let mut v = Vec::with_capacity(256);
        self.generate_moves(opts, &mut v);
        v
    }
}
