//! The position: 361 points, side to move and ply, with the incremental Zobrist hash and the
//! bookkeeping the move generator needs (per-side occupancy bitsets over the mailbox and piece
//! counts per type, from which "Taoist priest lost" and "drum lost" are read, §13.1).

use crate::mailbox::{self, CELLS, EMPTY, OFF_BOARD};
use crate::options::{NetScope, Reach};
use crate::{zobrist, Color, Piece, PieceKind, RulesOptions, Square};

/// Number of u64 words covering the mailbox.
pub(crate) const OCC_WORDS: usize = CELLS.div_ceil(64);

/// A Ko shogi position (no history: see [`crate::Game`] for repetition).
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    pub(crate) board: [u8; CELLS],
    pub(crate) occ: [[u64; OCC_WORDS]; 2],
    pub(crate) counts: [[u16; PieceKind::COUNT]; 2],
    pub(crate) side: Color,
    pub(crate) ply: u32,
    pub(crate) hash: u64,
}

/// The start position of §3 in KSFEN (§14.1).
pub const START_KSFEN: &str = "fd,tb,en,cs,gh,sr,wr,a,pl,g,sc,a,wr,sr,gh,cs,en,sm,fd/r,fh,1,q,1,du,1,sn,b,ma,d,sn,1,du,1,q,1,fh,r/e,c,sb,lb,e,c,sb,lb,e,fw,e,lb,sb,c,e,lb,sb,c,e/ca,1,hs,1,hs,1,hs,1,hs,1,hs,1,hs,1,hs,1,hs,1,ca/1,pu,1,p,1,p,1,p,1,pu,1,p,1,p,1,p,1,pu,1/cu,su,ch,sp,ch,sp,ch,sp,ch,su,ch,sp,ch,sp,ch,sp,ch,su,cu/9,va,9/19/19/19/19/19/9,VA,9/CU,SU,CH,SP,CH,SP,CH,SP,CH,SU,CH,SP,CH,SP,CH,SP,CH,SU,CU/1,PU,1,P,1,P,1,P,1,PU,1,P,1,P,1,P,1,PU,1/CA,1,HS,1,HS,1,HS,1,HS,1,HS,1,HS,1,HS,1,HS,1,CA/E,C,SB,LB,E,C,SB,LB,E,FW,E,LB,SB,C,E,LB,SB,C,E/R,FH,1,Q,1,DU,1,SN,D,MA,B,SN,1,DU,1,Q,1,FH,R/FD,SM,EN,CS,GH,SR,WR,A,SC,G,PL,A,WR,SR,GH,CS,EN,TB,FD b 1";

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_ksfen(true))
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::empty(Color::Black)
    }
}

impl Position {
    /// An empty board with `side` to move at move number 1 (ply 0 or 1), for setting up positions.
    pub fn empty(side: Color) -> Position {
        let mut board = [OFF_BOARD; CELLS];
        for i in 0..Square::COUNT {
            board[mailbox::to_mb(i)] = EMPTY;
        }
        let hash = if side == Color::White {
            zobrist::WHITE_TO_MOVE
        } else {
            0
        };
        Position {
            board,
            occ: [[0; OCC_WORDS]; 2],
            counts: [[0; PieceKind::COUNT]; 2],
            side,
            ply: side.index() as u32,
            hash,
        }
    }

    /// The start position of §3.
    pub fn startpos() -> Position {
        Position::from_ksfen(START_KSFEN).expect("the start KSFEN is valid")
    }

    /// Side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Half-moves since the game's first move (KSFEN move number m, side s ⇒ 2(m−1) + s).
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// Zobrist hash of pieces and side to move (not the ply), maintained incrementally.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash recomputed from scratch (tests compare it with [`Position::hash`]).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Color::White {
            zobrist::WHITE_TO_MOVE
        } else {
            0
        };
        for sq in Square::all() {
            let mb = mailbox::to_mb(sq.index());
            if self.board[mb] != EMPTY {
                h ^= zobrist::piece_key(mb, self.board[mb]);
            }
        }
        h
    }

    /// The piece on `sq`, if any.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let cell = self.board[mailbox::to_mb(sq.index())];
        (cell != EMPTY).then(|| Piece::from_cell(cell))
    }

    /// Puts `piece` on `sq` (or empties it), keeping hash and bookkeeping consistent.
    pub fn set_piece(&mut self, sq: Square, piece: Option<Piece>) {
        self.set_cell(
            mailbox::to_mb(sq.index()),
            piece.map_or(EMPTY, Piece::to_cell),
        );
    }

    /// Sets the side to move (keeps the hash consistent; the ply takes the side's parity).
    pub fn set_side_to_move(&mut self, side: Color) {
        if side != self.side {
            self.side = side;
            self.hash ^= zobrist::WHITE_TO_MOVE;
            self.ply = (self.ply & !1) | side.index() as u32;
        }
    }

    /// Sets the ply counter (KSFEN keeps only the move number `ply / 2 + 1`, so give it the parity
    /// of the side to move if the text form must round-trip).
    pub fn set_ply(&mut self, ply: u32) {
        self.ply = ply;
    }

    /// Every piece with its point, in ascending point order (read from the occupancy bits, so
    /// an evaluation pays for the pieces, not for the 361 points).
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        let mut words = [0u64; OCC_WORDS];
        for (i, word) in words.iter_mut().enumerate() {
            *word = self.occ[0][i] | self.occ[1][i];
        }
        // Mailbox cells are row-major like points, so ascending cells are ascending points.
        BitIter { words, word: 0 }
            .map(move |mb| (mailbox::to_sq(mb), Piece::from_cell(self.board[mb])))
    }

    /// How many pieces of `color` currently have type `kind`.
    #[inline]
    pub fn count(&self, color: Color, kind: PieceKind) -> u32 {
        self.counts[color.index()][kind.index()] as u32
    }

    /// Total number of pieces of `color`.
    pub fn piece_count(&self, color: Color) -> u32 {
        self.occ[color.index()].iter().map(|w| w.count_ones()).sum()
    }

    /// §8.6: the side's Taoist priest (as TB or FG) is no longer on the board.
    pub fn taoist_priest_lost(&self, color: Color) -> bool {
        self.count(color, PieceKind::TaoistPriest) + self.count(color, PieceKind::FiveLiFog) == 0
    }

    /// §8.7: the side's drum (D, or TC) is no longer on the board (KS-default reading).
    pub fn drum_lost(&self, color: Color) -> bool {
        !self.drum_present(color, &RulesOptions::default())
    }

    /// Whether the side's pawns may still step forward (§8.7 with options AMB-13/AMB-15).
    pub(crate) fn drum_present(&self, color: Color, opts: &RulesOptions) -> bool {
        self.count(color, PieceKind::Drum) > 0
            || (opts.thunderclap_keeps_pawns && self.count(color, PieceKind::Thunderclap) > 0)
            || (opts.kiko_substitutes && self.count(color, PieceKind::BannerAndDrum) > 0)
    }

    /// §10.1: the side still has a general, a governor, or the middle-troop-and-banner pair.
    pub fn survives(&self, color: Color, opts: &RulesOptions) -> bool {
        let c = |k| self.count(color, k) > 0;
        let banner = c(PieceKind::Banner)
            || (opts.promoted_banner_commands && c(PieceKind::FlagWaver))
            || (opts.kiko_substitutes && c(PieceKind::BannerAndDrum));
        c(PieceKind::General) || c(PieceKind::Governor) || (c(PieceKind::MiddleTroop) && banner)
    }

    /// §10.5: the side's survival rests on exactly one piece.
    pub fn rests_on_sole_target(&self, color: Color, opts: &RulesOptions) -> bool {
        let commanders =
            self.count(color, PieceKind::General) + self.count(color, PieceKind::Governor);
        let c = |k| self.count(color, k) > 0;
        let banner = c(PieceKind::Banner)
            || (opts.promoted_banner_commands && c(PieceKind::FlagWaver))
            || (opts.kiko_substitutes && c(PieceKind::BannerAndDrum));
        commanders == 1 && !(c(PieceKind::MiddleTroop) && banner)
    }

    /// §4.9 under KS-default: the piece on `sq` is frozen by an enemy net.
    pub fn is_immobilized(&self, sq: Square) -> bool {
        self.is_immobilized_with(sq, &RulesOptions::default())
    }

    /// §4.9 with the given options.
    pub fn is_immobilized_with(&self, sq: Square, opts: &RulesOptions) -> bool {
        let mb = mailbox::to_mb(sq.index());
        let cell = self.board[mb];
        if cell == EMPTY {
            return false;
        }
        let owner = Piece::from_cell(cell).color;
        let frozen = self.immobilized_set(owner, opts.net_scope);
        frozen[mb / 64] & (1u64 << (mb % 64)) != 0
    }

    /// All of `victim`'s pieces frozen by the other side's nets (§4.9), in ascending point order —
    /// one pass over the nets, for feature extraction.
    pub fn immobilized_points(&self, victim: Color, opts: &RulesOptions) -> Vec<Square> {
        BitIter {
            words: self.immobilized_set(victim, opts.net_scope),
            word: 0,
        }
        .map(mailbox::to_sq)
        .collect()
    }

    /// Mailbox bitset of `victim`'s pieces frozen by the other side's nets.
    pub(crate) fn immobilized_set(&self, victim: Color, scope: NetScope) -> [u64; OCC_WORDS] {
        let mut frozen = [0u64; OCC_WORDS];
        let netter = victim.opposite();
        let fwd = crate::movegen::tables::forward(netter);
        let nets = [
            (PieceKind::SkywardNet, fwd),
            (PieceKind::EarthwardNet, -fwd),
        ];
        for (net, ahead) in nets {
            for square in self.squares_of(netter, net) {
                self.freeze_net_rays(
                    mailbox::to_mb(square.index()),
                    ahead,
                    victim,
                    scope,
                    &mut frozen,
                );
            }
        }
        frozen
    }

    /// Marks in `frozen` the pieces of `victim` on the four rays of the net on mailbox cell
    /// `mb` (the two diagonals toward `ahead` and the two sideways ones), as far as `scope` says.
    fn freeze_net_rays(
        &self,
        mb: usize,
        ahead: i32,
        victim: Color,
        scope: NetScope,
        frozen: &mut [u64; OCC_WORDS],
    ) {
        let rays = [(1, ahead), (-1, ahead), (1, 0), (-1, 0)];
        for (df, dr) in rays {
            let off = mailbox::offset(df, dr);
            let mut t = mb as i32 + off;
            loop {
                let cell = self.board[t as usize];
                if cell == OFF_BOARD {
                    break;
                }
                if cell != EMPTY {
                    let is_victim = Piece::from_cell(cell).color == victim;
                    if is_victim {
                        frozen[t as usize / 64] |= 1u64 << (t as usize % 64);
                    }
                    match scope {
                        NetScope::FirstPiece => break,
                        NetScope::WholeRay => {}
                        NetScope::UntilFriendly => {
                            if !is_victim {
                                break;
                            }
                        }
                    }
                }
                t += off;
            }
        }
    }

    /// §4.7.5 under KS-default: an artillery piece of `shooter` landing on `landing` may not shoot.
    pub fn is_fog_suppressed(&self, landing: Square, shooter: Color) -> bool {
        self.is_fog_suppressed_with(landing, shooter, &RulesOptions::default())
    }

    /// §4.7.5 with the given options.
    pub fn is_fog_suppressed_with(
        &self,
        landing: Square,
        shooter: Color,
        opts: &RulesOptions,
    ) -> bool {
        if self.count(shooter.opposite(), PieceKind::FiveLiFog) == 0 {
            return false;
        }
        let l = mailbox::to_mb(landing.index());
        self.occupied(shooter.opposite())
            .filter(|&mb| Piece::from_cell(self.board[mb]).kind == PieceKind::FiveLiFog)
            .any(|fog| self.within_aura(l, fog, opts.fog_reach, usize::MAX))
    }

    /// Whether points `a` and `b` are "within five intersections" under `reach`; `vacated` is a
    /// point to treat as free (the mover's origin) when line of sight matters.
    pub(crate) fn within_aura(&self, a: usize, b: usize, reach: Reach, vacated: usize) -> bool {
        let (fa, ra) = mailbox::file_rank(a);
        let (fb, rb) = mailbox::file_rank(b);
        let (df, dr) = (fb - fa, rb - ra);
        let dist = df.abs().max(dr.abs());
        if dist == 0 || dist > 5 {
            return false;
        }
        if reach == Reach::Area {
            return true;
        }
        if !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
            return false;
        }
        if reach == Reach::Lines {
            return true;
        }
        let step = mailbox::offset(df.signum(), dr.signum());
        let mut t = a as i32 + step;
        while t as usize != b {
            if self.board[t as usize] != EMPTY && t as usize != vacated {
                return false;
            }
            t += step;
        }
        true
    }

    // ---- internal board editing -------------------------------------------------------------

    /// Mailbox indices of `color`'s pieces in ascending order.
    #[inline]
    pub(crate) fn occupied(&self, color: Color) -> impl Iterator<Item = usize> + '_ {
        BitIter {
            words: self.occ[color.index()],
            word: 0,
        }
    }

    /// Replaces the content of a mailbox cell, updating hash, occupancy and counts.
    #[inline]
    pub(crate) fn set_cell(&mut self, mb: usize, new: u8) {
        let old = self.board[mb];
        debug_assert!(old != OFF_BOARD && new != OFF_BOARD);
        if old == new {
            return;
        }
        if old != EMPTY {
            self.hash ^= zobrist::piece_key(mb, old);
            let c = (old - 1) as usize;
            self.occ[c & 1][mb / 64] &= !(1u64 << (mb % 64));
            self.counts[c & 1][c >> 2] -= 1;
        }
        if new != EMPTY {
            self.hash ^= zobrist::piece_key(mb, new);
            let c = (new - 1) as usize;
            self.occ[c & 1][mb / 64] |= 1u64 << (mb % 64);
            self.counts[c & 1][c >> 2] += 1;
        }
        self.board[mb] = new;
    }
}

/// Iterator over set bits of a copied bitset.
pub(crate) struct BitIter {
    pub(crate) words: [u64; OCC_WORDS],
    pub(crate) word: usize,
}

impl Iterator for BitIter {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.word < OCC_WORDS {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(self.word * 64 + w.trailing_zeros() as usize);
            }
            self.word += 1;
        }
        None
    }
}
