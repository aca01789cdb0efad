//! The classical engine's search: iterative deepening of a principal-variation alpha-beta
//! search under a time, node or depth limit.
//!
//! What each part is for (the methods of chess and shogi engines, on the rules crate's
//! make/undo and Zobrist hash):
//! * **iterative deepening**: depth 1, 2, 3, … until the limit; each iteration orders the next
//!   (the previous best move first) and a search stopped by its limit plays the best move of
//!   the deepest iteration, or of the interrupted one if it already found a better move;
//! * **principal-variation search**: the first move with the full window, the others with a
//!   null window that only proves them worse, re-searched when the proof fails;
//! * **transposition table** ([`super::table`]): bounds and best moves of positions seen before;
//! * **null-move pruning**: if handing the opponent a free move still leaves the side to move
//!   above beta, the position is cut with a search `R` plies shallower. Ko shogi allows real
//!   passes (§4.6, lion-like pieces), so giving up a move is not the anomaly it is in chess;
//!   the null move is not tried in principal-variation nodes, twice in a row, below depth 2
//!   ([`NULL_MOVE_MIN_DEPTH`]), or by a side with nothing but its commanders (zugzwang-like
//!   endings);
//! * **futility pruning** at the frontier: a quiet move that changes no material is not
//!   searched where the static evaluation plus a margin cannot reach alpha
//!   ([`FUTILITY_MARGIN`]);
//! * **threats** ([`super::threats`]): at every interior node, the pieces the opponent could
//!   capture now; moving one of them away is an evasion, ordered before the other quiet moves
//!   and never reduced or pruned;
//! * **killer and history ordering** ([`super::ordering`]);
//! * **late-move reductions**: quiet moves late in the order (not the table move, captures,
//!   evasions or killers) are searched one or two plies shallower first, and again at full
//!   depth only if they beat alpha;
//! * **late-move pruning** near the frontier: in a non-PV node with one or two plies left,
//!   only the first [`LATE_MOVE_QUIET_MOVES`] × depth plain quiet moves (by history) are
//!   searched. A position has ~250 moves and few of them matter a ply from the horizon: the
//!   captures, the evasions and the moves that cut off before, which are all kept;
//! * **quiescence search** at the horizon: captures only (the rules' captures-only generator,
//!   [`Position::generate_captures`], so a node does not pay for the ~250 quiet moves), with
//!   stand-pat (with `hanging`, less the second of two threatened pieces, which one move cannot
//!   both save), skipping captures that lose material by static exchange ([`super::exchange`])
//!   or cannot reach alpha even with their victims (delta pruning); a quiescence node does not
//!   look at whether its side has a legal move at all;
//! * **evaluation** ([`super::eval`]): material, advance, promotion zone, royal safety.
//!
//! Game end inside the search: a side whose command is destroyed (§10.1) has lost, scored
//! `WIN − ply` so that faster wins are preferred; no legal move per `no_moves`; a position that
//! occurred before in the game or earlier on the searched line scores as a draw, a little below
//! zero for the searching side (contempt), which keeps the engine from repeating and is right
//! for fourfold repetition (§10.4) without its perpetual-check exception. The game's ply cap and
//! material adjudication are looked at only with `cap` ([`super::cap`]): a line that reaches the
//! cap ends with the cap's result, and the evaluation near it pays for the piece lead.
//!
//! Bounded memory: the table (set in bytes), the history table (2 × 361² × 4 bytes ≈ 1 MiB),
//! and move lists per ply of the current line (at most [`MAX_PLY`] plies).

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::Rng;

use koshogi_rules::material::piece_count_balance;
use koshogi_rules::{Color, Game, Move, Position, Promotion, RulesOptions};

use crate::game_end::{command_verdict, no_moves_verdict, Verdict};

use super::cap::CapRule;
use super::eval::{evaluate, material_for_black, EvalTerms};
use super::exchange::static_exchange;
use super::ordering::{is_quiet_key, victims_centipawns, MoveOrdering};
use super::table::{Bound, TranspositionTable, DEFAULT_TABLE_BYTES};
use super::threats::{opponent_threats, second_threatened_loss, Threats};
use super::values::{PieceValues, DEFAULT_ARTILLERY_PERCENT};

/// Score of a win at the root; a win `n` plies away scores `WIN − n`.
pub const WIN: i32 = 1_000_000;
/// Scores beyond this (either sign) are wins or losses.
const WIN_BOUND: i32 = WIN - 10_000;
const INFINITY: i32 = WIN + 1;
/// Deepest line searched (iterations, plus quiescence and extensions).
pub const MAX_PLY: usize = 96;
/// Deepest iteration.
pub const MAX_DEPTH: u32 = 64;
/// Plies of captures searched beyond the horizon.
const QUIESCENCE_PLIES: u32 = 6;
/// Quiescence: a capture whose victims cannot lift the score this close to alpha is skipped.
const DELTA_MARGIN: i32 = 200;
/// What a draw by repetition is worth to the side that searches, in centipawns: a little less
/// than nothing, so that the engine plays on rather than repeat an equal position (a yardstick
/// should win its games, not share them).
const CONTEMPT: i32 = 30;
/// Shallowest node that tries a null move. At depth 2 the null move's reply is a quiescence
/// search (the opponent's captures only): a cheap proof, beside the ~250 moves a depth-2 cut
/// node would otherwise generate, that the side to move stands well enough without moving.
const NULL_MOVE_MIN_DEPTH: i32 = 2;
/// Futility pruning: at the frontier (one ply left) of a non-PV node whose static evaluation
/// is this far below alpha, a quiet move that changes no material is not searched. Its
/// quiescence score is at most the evaluation after it (the opponent may stand pat), and a
/// quiet move changes the positional terms by less than this (the largest: a long-range foot
/// soldier's advance, a piece arriving next to the enemy commander).
const FUTILITY_MARGIN: i32 = 250;
/// Late-move pruning: plain quiet moves searched per ply of depth left (depth 1 or 2) in a
/// non-PV node; the rest are skipped.
const LATE_MOVE_QUIET_MOVES: usize = 8;
/// Deepest node where late-move pruning applies.
const LATE_MOVE_PRUNING_DEPTH: i32 = 2;
/// How many nodes pass between looks at the clock and the stop flag.
const CHECK_INTERVAL: u64 = 256;

/// Which of the search's methods are on (all but threats, late-move pruning and the hanging
/// stand-pat by default; each can be switched for measurements).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClassicConfig {
    pub eval: EvalTerms,
    pub null_move: bool,
    pub late_move_reductions: Reductions,
    pub exchange_pruning: bool,
    /// Futility pruning of quiet moves at the frontier (see [`FUTILITY_MARGIN`]).
    pub futility: bool,
    /// Threat detection for ordering (evasions first, never reduced or pruned).
    pub threats: bool,
    /// Late-move pruning near the frontier (see [`LATE_MOVE_QUIET_MOVES`]).
    pub late_move_pruning: bool,
    /// Quiescence stand-pat pays for the second of two threatened pieces
    /// ([`super::threats::second_threatened_loss`]).
    pub hanging: bool,
    /// The game's ply cap and material adjudication ([`super::cap`]).
    pub cap: bool,
    /// Weight of the artillery's values, in percent of the baselines' scale
    /// ([`PieceValues::with_artillery`]).
    pub artillery_percent: u16,
    /// Size of the transposition table in bytes.
    pub table_bytes: usize,
}

impl ClassicConfig {
    /// What the engine counts each piece as under this configuration.
    pub fn piece_values(&self) -> PieceValues {
        PieceValues::with_artillery(self.artillery_percent)
    }
}

impl Default for ClassicConfig {
    fn default() -> Self {
        Self {
            eval: EvalTerms::Full,
            null_move: true,
            late_move_reductions: Reductions::Fixed,
            exchange_pruning: true,
            futility: true,
            // Off until a match at equal time on a quiet machine shows they help: they search
            // deeper (docs/arena.md) but have not yet been measured against `ab:3`.
            threats: false,
            late_move_pruning: false,
            hanging: false,
            cap: false,
            artillery_percent: DEFAULT_ARTILLERY_PERCENT,
            table_bytes: DEFAULT_TABLE_BYTES,
        }
    }
}

/// Asked now and then during a search: `true` ends it at once (the engine protocol's `stop`
/// and deadline, for instance).
pub type StopCheck = Arc<dyn Fn() -> bool + Send + Sync>;

/// When one search stops: the first limit reached. With none, it searches to [`MAX_DEPTH`].
#[derive(Clone, Default)]
pub struct ClassicLimits {
    /// Time for this move; iterations stop starting once half of it is gone.
    pub movetime: Option<Duration>,
    /// Nodes (positions visited, quiescence included) for this move.
    pub nodes: Option<u64>,
    /// Deepest iteration.
    pub depth: Option<u32>,
    /// Asked every few hundred nodes whether to stop at once.
    pub stop: Option<StopCheck>,
}

impl fmt::Debug for ClassicLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClassicLimits")
            .field("movetime", &self.movetime)
            .field("nodes", &self.nodes)
            .field("depth", &self.depth)
            .field("stop", &self.stop.is_some())
            .finish()
    }
}

/// What a completed iteration found, for progress output (`info` lines).
#[derive(Clone, Debug)]
pub struct IterationInfo {
    pub depth: u32,
    /// Centipawns for the side to move, or a win/loss score (see [`win_distance`]).
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub principal_variation: Vec<Move>,
}

/// The result of one search.
#[derive(Clone, Debug)]
pub struct ClassicResult {
    pub best_move: Move,
    pub score: i32,
    /// Deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    /// Legal moves generated, all iterations together (full generations and the captures-only
    /// ones of quiescence and exchange evaluation).
    pub moves_generated: u64,
    pub elapsed: Duration,
    pub principal_variation: Vec<Move>,
}

/// Plies to a forced win (positive) or loss (negative), if `score` is one.
pub fn win_distance(score: i32) -> Option<i32> {
    if score > WIN_BOUND {
        Some(WIN - score)
    } else if score < -WIN_BOUND {
        Some(-(WIN + score))
    } else {
        None
    }
}

/// The classical engine: its configuration and what it keeps from move to move of a game (the
/// transposition table, killers and history).
pub struct ClassicEngine {
    config: ClassicConfig,
    table: TranspositionTable,
    ordering: MoveOrdering,
}

impl ClassicEngine {
    pub fn new(config: ClassicConfig) -> Self {
        Self {
            table: TranspositionTable::with_bytes(config.table_bytes),
            ordering: MoveOrdering::new(config.piece_values()),
            config,
        }
    }

    pub fn config(&self) -> &ClassicConfig {
        &self.config
    }

    /// Bytes the engine holds (table and history), for memory reports.
    pub fn memory_bytes(&self) -> usize {
        self.table.bytes() + MoveOrdering::HISTORY_BYTES
    }

    /// Forgets what earlier searches learnt (a new game).
    pub fn new_game(&mut self) {
        self.table.clear();
        self.ordering = MoveOrdering::new(self.config.piece_values());
    }

    /// Searches the game's current position; ties among equally ordered root moves are broken
    /// by `rng`. `None` when the side to move has no legal move. `on_iteration` hears of every
    /// completed iteration.
    pub fn search(
        &mut self,
        game: &Game,
        limits: &ClassicLimits,
        rng: &mut impl Rng,
        on_iteration: &mut dyn FnMut(&IterationInfo),
    ) -> Option<ClassicResult> {
        let start = Instant::now();
        self.table.new_search();
        self.ordering.new_search();
        let mut searcher = Searcher {
            options: game.options(),
            config: self.config,
            values: self.config.piece_values(),
            table: &mut self.table,
            ordering: &mut self.ordering,
            start,
            movetime: limits.movetime,
            node_limit: limits.nodes,
            stop: limits.stop.clone(),
            nodes: 0,
            moves_generated: 0,
            aborted: false,
            can_abort: false,
            improved_in_interrupted_iteration: false,
            earlier: game.position_hashes().iter().copied().collect(),
            root_side: game.position().side_to_move(),
            cap: if self.config.cap {
                CapRule::of_game(game)
            } else {
                None
            },
            piece_leads: Vec::with_capacity(MAX_PLY + 1),
            line: Vec::with_capacity(MAX_PLY),
            move_lists: Vec::new(),
            ordered_lists: Vec::new(),
            principal: vec![Vec::new(); MAX_PLY + 1],
            exchange_buffer: Vec::new(),
            threat_buffer: Vec::new(),
        };
        let mut position = game.position().clone();
        let mut root_moves = Vec::new();
        position.generate_moves(game.options(), &mut root_moves);
        searcher.moves_generated += root_moves.len() as u64;
        if root_moves.is_empty() {
            return None;
        }
        // The shuffle is the tie-break among moves the ordering cannot tell apart.
        root_moves.shuffle(rng);
        let mut ordered = Vec::new();
        if searcher.cap.is_some() {
            // The root's lead, which the cap's result reads for a line that reaches it in one ply.
            searcher
                .piece_leads
                .push(piece_count_balance(&position, Color::Black));
        }
        let table_move = searcher
            .table
            .probe(searcher.table_key(&position, 0))
            .and_then(|e| e.best_move);
        let threats = searcher.threats(&mut position);
        searcher.ordering.order(
            &position,
            &root_moves,
            table_move,
            0,
            &threats,
            &mut ordered,
        );
        let mut root: Vec<(i64, Move)> = ordered;

        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut best: Option<(Move, i32, u32, Vec<Move>)> = None;
        for depth in 1..=max_depth {
            let outcome = searcher.root(&mut position, depth as i32, &mut root);
            let completed = !searcher.aborted;
            if let Some((mv, score)) = outcome {
                if completed || best.is_none() || searcher.improved_in_interrupted_iteration {
                    let pv = searcher.principal[0].clone();
                    let reached = if completed { depth } else { depth - 1 };
                    best = Some((mv, score, reached.max(1), pv));
                }
            }
            if !completed {
                break;
            }
            if let Some((_, score, _, pv)) = &best {
                on_iteration(&IterationInfo {
                    depth,
                    score: *score,
                    nodes: searcher.nodes,
                    elapsed: start.elapsed(),
                    principal_variation: pv.clone(),
                });
                if win_distance(*score).is_some() {
                    break;
                }
            }
            if let Some(movetime) = limits.movetime {
                // The next iteration takes several times longer than this one.
                if start.elapsed() * 2 >= movetime {
                    break;
                }
            }
        }
        let (best_move, score, depth, principal_variation) = best?;
        Some(ClassicResult {
            best_move,
            score,
            depth,
            nodes: searcher.nodes,
            moves_generated: searcher.moves_generated,
            elapsed: start.elapsed(),
            principal_variation,
        })
    }
}

/// The state of one search.
struct Searcher<'a> {
    options: &'a RulesOptions,
    config: ClassicConfig,
    /// The pieces' values, from `config`.
    values: PieceValues,
    table: &'a mut TranspositionTable,
    ordering: &'a mut MoveOrdering,
    start: Instant,
    movetime: Option<Duration>,
    node_limit: Option<u64>,
    stop: Option<StopCheck>,
    nodes: u64,
    moves_generated: u64,
    aborted: bool,
    /// False until the first root move of depth 1 is searched, so there is always a move.
    can_abort: bool,
    /// Whether the current iteration found a better move than the previous iteration's best
    /// (which it searches first), so that an interrupted iteration's choice is worth taking.
    improved_in_interrupted_iteration: bool,
    /// Positions of the game before the root.
    earlier: HashSet<u64>,
    /// The side to move at the root (whose draws are worth [`CONTEMPT`] less).
    root_side: Color,
    /// The game's cap, with `cap` on.
    cap: Option<CapRule>,
    /// Black's piece lead at each ply of the searched line (with `cap` on): the cap's result
    /// reads the last two.
    piece_leads: Vec<i16>,
    /// Hashes of the positions on the searched line, the root's first.
    line: Vec<u64>,
    move_lists: Vec<Vec<Move>>,
    ordered_lists: Vec<Vec<(i64, Move)>>,
    /// Triangular principal-variation table: the line from each ply on.
    principal: Vec<Vec<Move>>,
    exchange_buffer: Vec<Move>,
    threat_buffer: Vec<Move>,
}

impl Searcher<'_> {
    /// One iteration at the root. Returns the best move and score found (of the whole
    /// iteration, or of the moves searched before the limit stopped it), and reorders `root`
    /// for the next iteration: the best move first, then by this iteration's scores.
    fn root(
        &mut self,
        position: &mut Position,
        depth: i32,
        root: &mut [(i64, Move)],
    ) -> Option<(Move, i32)> {
        self.improved_in_interrupted_iteration = false;
        let mut alpha = -INFINITY;
        let beta = INFINITY;
        let mut best: Option<(Move, i32)> = None;
        let mut scores = vec![-INFINITY; root.len()];
        self.line.clear();
        self.line.push(position.hash());
        for (index, &(_, mv)) in root.iter().enumerate() {
            let undo = position.play(&mv, self.options);
            self.line.push(position.hash());
            let score = if index == 0 {
                -self.negamax(position, depth - 1, -beta, -alpha, 1, true)
            } else {
                let mut score = -self.negamax(position, depth - 1, -alpha - 1, -alpha, 1, true);
                if score > alpha && !self.aborted {
                    score = -self.negamax(position, depth - 1, -beta, -alpha, 1, true);
                }
                score
            };
            self.line.pop();
            position.undo(undo);
            self.can_abort = true;
            if self.aborted {
                break;
            }
            scores[index] = score;
            if score > alpha {
                alpha = score;
                best = Some((mv, score));
                self.update_principal(0, mv);
                if index > 0 {
                    self.improved_in_interrupted_iteration = true;
                }
            }
        }
        // None only if the first move was interrupted (every score is above -INFINITY).
        best?;
        if !self.aborted {
            let mut keyed: Vec<(i32, usize)> = scores.iter().copied().zip(0..).collect();
            keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let reordered: Vec<(i64, Move)> = keyed.iter().map(|&(_, i)| root[i]).collect();
            root.copy_from_slice(&reordered);
            self.improved_in_interrupted_iteration = false;
        }
        best
    }

    /// Whether the limits are reached (looked at every [`CHECK_INTERVAL`] nodes).
    fn out_of_time(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if !self.can_abort || !self.nodes.is_multiple_of(CHECK_INTERVAL) {
            return false;
        }
        let over = self.node_limit.is_some_and(|limit| self.nodes >= limit)
            || self
                .movetime
                .is_some_and(|movetime| self.start.elapsed() >= movetime)
            || self.stop.as_ref().is_some_and(|stop| stop());
        self.aborted = over;
        over
    }

    /// The side to move's attacked pieces, or none if threat detection is off.
    fn threats(&mut self, position: &mut Position) -> Threats {
        if !self.config.threats {
            return Threats::NONE;
        }
        opponent_threats(
            &self.values,
            position,
            self.options,
            &mut self.threat_buffer,
            &mut self.moves_generated,
        )
    }

    /// With `cap` on, the score of a node at the game's cap (the line ends there) and, on the
    /// way, the node's piece lead for its children; `None` before the cap or without the option.
    fn capped(&mut self, position: &Position, ply: usize) -> Option<i32> {
        let cap = self.cap?;
        let lead = piece_count_balance(position, Color::Black);
        // The leads form a stack along the line: this node's replaces any deeper one left over.
        self.piece_leads.truncate(ply);
        self.piece_leads.push(lead);
        if ply == 0 || cap.plies_left(ply) > 0 {
            return None;
        }
        Some(
            match cap.verdict(position.side_to_move(), lead, self.piece_leads[ply - 1]) {
                Verdict::Draw => self.draw_score(position),
                verdict => verdict_score(verdict, ply),
            },
        )
    }

    /// The static evaluation of a node `ply` plies below the root, with the cap's piece term
    /// when `cap` is on (on the lead [`Searcher::capped`] recorded when the node was entered).
    fn evaluate(&self, position: &Position, ply: usize) -> i32 {
        let score = evaluate(position, self.config.eval, &self.values);
        match self.cap {
            Some(cap) => {
                score + cap.piece_term(ply, position.side_to_move(), self.piece_leads[ply])
            }
            None => score,
        }
    }

    /// The transposition-table key of a node `ply` plies below the root: the position's hash,
    /// salted near the cap with the distance to it.
    fn table_key(&self, position: &Position, ply: usize) -> u64 {
        position.hash() ^ self.cap.map_or(0, |cap| cap.table_salt(ply))
    }

    fn update_principal(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.principal.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(mv);
        if let Some(rest) = tail.first() {
            line.extend_from_slice(rest);
        }
    }

    /// A repetition's score for the side to move of `position`: [`CONTEMPT`] below zero for
    /// the side that searches, as much above for its opponent.
    fn draw_score(&self, position: &Position) -> i32 {
        if position.side_to_move() == self.root_side {
            -CONTEMPT
        } else {
            CONTEMPT
        }
    }

    /// Whether the current position (last on the line) occurred before.
    fn repeats(&self) -> bool {
        let Some((&current, before)) = self.line.split_last() else {
            return false;
        };
        // Positions of the line repeat only with the same side to move: every second one.
        self.earlier.contains(&current)
            || before
                .iter()
                .rev()
                .skip(1)
                .step_by(2)
                .any(|&h| h == current)
    }

    fn lists(&mut self, ply: usize) -> (Vec<Move>, Vec<(i64, Move)>) {
        if self.move_lists.len() <= ply {
            self.move_lists.resize_with(ply + 1, Vec::new);
            self.ordered_lists.resize_with(ply + 1, Vec::new);
        }
        (
            std::mem::take(&mut self.move_lists[ply]),
            std::mem::take(&mut self.ordered_lists[ply]),
        )
    }

    fn give_back(&mut self, ply: usize, moves: Vec<Move>, ordered: Vec<(i64, Move)>) {
        self.move_lists[ply] = moves;
        self.ordered_lists[ply] = ordered;
    }

    /// The score of `position` for its side to move, `depth` plies and a quiescence search
    /// ahead, within the window (alpha, beta).
    fn negamax(
        &mut self,
        position: &mut Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        allow_null: bool,
    ) -> i32 {
        self.principal[ply].clear();
        if let Some(score) = decided(position, self.options, ply) {
            return score;
        }
        if self.repeats() {
            return self.draw_score(position);
        }
        if let Some(score) = self.capped(position, ply) {
            return score;
        }
        if depth <= 0 || ply >= MAX_PLY - QUIESCENCE_PLIES as usize - 1 {
            return self.quiesce(position, alpha, beta, ply, QUIESCENCE_PLIES);
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let principal_node = beta - alpha > 1;
        let key = self.table_key(position, ply);
        let mut table_move = None;
        if let Some(entry) = self.table.probe(key) {
            table_move = entry.best_move;
            if !principal_node && i32::from(entry.depth) >= depth {
                let score = score_from_table(entry.score, ply);
                let usable = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }

        if self.config.null_move
            && allow_null
            && !principal_node
            && depth >= NULL_MOVE_MIN_DEPTH
            && beta.abs() < WIN_BOUND
            && has_more_than_commanders(position)
            && self.evaluate(position, ply) >= beta
        {
            let reduction = 2 + depth / 6;
            let me = position.side_to_move();
            position.set_side_to_move(me.opposite());
            self.line.push(position.hash());
            let score = -self.negamax(
                position,
                depth - 1 - reduction,
                -beta,
                -beta + 1,
                ply + 1,
                false,
            );
            self.line.pop();
            position.set_side_to_move(me);
            if self.aborted {
                return 0;
            }
            if score >= beta {
                return if score > WIN_BOUND { beta } else { score };
            }
        }

        // Futility pruning (see [`FUTILITY_MARGIN`]): the bound a pruned quiet move scores, and
        // the material it must leave unchanged.
        let futility =
            if self.config.futility && !principal_node && depth == 1 && alpha.abs() < WIN_BOUND {
                let bound = self.evaluate(position, ply) + FUTILITY_MARGIN;
                (bound <= alpha).then(|| (bound, material_for_black(position, &self.values)))
            } else {
                None
            };

        let (mut moves, mut ordered) = self.lists(ply);
        moves.clear();
        position.generate_moves(self.options, &mut moves);
        self.moves_generated += moves.len() as u64;
        if moves.is_empty() {
            self.give_back(ply, moves, ordered);
            return no_moves(self.options, ply);
        }
        let threats = self.threats(position);
        self.ordering
            .order(position, &moves, table_move, ply, &threats, &mut ordered);

        // Late-move pruning (see [`LATE_MOVE_QUIET_MOVES`]): how many plain quiet moves this
        // node searches.
        let quiet_move_limit = (self.config.late_move_pruning
            && !principal_node
            && depth <= LATE_MOVE_PRUNING_DEPTH
            && alpha.abs() < WIN_BOUND)
            .then(|| LATE_MOVE_QUIET_MOVES * depth as usize);
        let mut quiet_searched = 0;

        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        for (searched, &(order_key, mv)) in ordered.iter().enumerate() {
            let quiet = is_quiet_key(order_key);
            if quiet {
                if searched > 0
                    && mv.promotion() != Promotion::Promote
                    && quiet_move_limit.is_some_and(|limit| quiet_searched >= limit)
                {
                    continue;
                }
                quiet_searched += 1;
            }
            let undo = position.play(&mv, self.options);
            if let Some((bound, material)) = futility {
                if searched > 0
                    && quiet
                    && mv.promotion() != Promotion::Promote
                    && material_for_black(position, &self.values) == material
                {
                    position.undo(undo);
                    best = best.max(bound);
                    continue;
                }
            }
            self.line.push(position.hash());
            let mut score;
            if searched == 0 {
                score = -self.negamax(position, depth - 1, -beta, -alpha, ply + 1, true);
            } else {
                let reduction = if quiet && depth >= 3 && searched >= 3 {
                    self.config.late_move_reductions.plies(depth, searched)
                } else {
                    0
                };
                score = -self.negamax(
                    position,
                    depth - 1 - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    true,
                );
                if score > alpha && reduction > 0 && !self.aborted {
                    score = -self.negamax(position, depth - 1, -alpha - 1, -alpha, ply + 1, true);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(position, depth - 1, -beta, -alpha, ply + 1, true);
                }
            }
            self.line.pop();
            position.undo(undo);
            if self.aborted {
                self.give_back(ply, moves, ordered);
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_principal(ply, mv);
                    if alpha >= beta {
                        if !mv.is_capture() {
                            self.ordering
                                .record_cutoff(position.side_to_move(), mv, ply, depth);
                        }
                        break;
                    }
                }
            }
        }
        self.give_back(ply, moves, ordered);
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.table.store(
            key,
            best_move,
            score_to_table(best, ply),
            depth as i16,
            bound,
        );
        best
    }

    /// Captures only, with stand-pat: the side to move may always decline to capture.
    fn quiesce(
        &mut self,
        position: &mut Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        plies_left: u32,
    ) -> i32 {
        self.principal[ply].clear();
        if let Some(score) = decided(position, self.options, ply) {
            return score;
        }
        if let Some(score) = self.capped(position, ply) {
            return score;
        }
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let mut stand_pat = self.evaluate(position, ply);
        if self.config.hanging && stand_pat > alpha {
            // Only where standing pat could raise alpha or cut: below it the bound is loose
            // but right, and most quiescence nodes are spared the opponent's generation.
            stand_pat -= second_threatened_loss(
                &self.values,
                position,
                self.options,
                &mut self.threat_buffer,
                &mut self.moves_generated,
            );
        }
        if stand_pat >= beta || plies_left == 0 {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let (mut moves, mut ordered) = self.lists(ply);
        moves.clear();
        // Captures only (a side without any capture stands pat; whether it has a legal move at
        // all is not looked at here, as in `ab:<depth>`'s quiescence).
        position.generate_captures(self.options, &mut moves);
        self.moves_generated += moves.len() as u64;
        self.ordering
            .order(position, &moves, None, ply, &Threats::NONE, &mut ordered);
        let mut best = stand_pat;
        for &(_, mv) in ordered.iter() {
            let victims = victims_centipawns(&self.values, position, &mv);
            let promotes = mv.promotion() == Promotion::Promote;
            if !promotes && stand_pat + victims + DELTA_MARGIN <= alpha {
                continue;
            }
            if self.config.exchange_pruning {
                let mover = position
                    .piece_at(mv.origin())
                    .map_or(0, |piece| self.values.of(piece.kind));
                if mover > victims {
                    let mut buffer = std::mem::take(&mut self.exchange_buffer);
                    let exchange = static_exchange(
                        &self.values,
                        position,
                        self.options,
                        &mv,
                        &mut buffer,
                        &mut self.moves_generated,
                    );
                    self.exchange_buffer = buffer;
                    if exchange < 0 {
                        continue;
                    }
                }
            }
            let undo = position.play(&mv, self.options);
            let score = -self.quiesce(position, -beta, -alpha, ply + 1, plies_left - 1);
            position.undo(undo);
            if self.aborted {
                self.give_back(ply, moves, ordered);
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_principal(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        self.give_back(ply, moves, ordered);
        best
    }
}

/// How late quiet moves are reduced (`lmr=off|on|log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reductions {
    Off,
    /// One ply, two from the 12th move at depth 6 and more.
    Fixed,
    /// `ln(depth) · ln(moves searched) / 2` plies, at least one, and never so many that the
    /// move skips the full-width search altogether (the table of chess engines such as
    /// Stockfish, in its simplest form). A Ko shogi position has ~250 moves, so the 100th quiet
    /// move at depth 5 is searched 3 plies shallower, where the fixed reduction takes 1.
    Logarithmic,
}

impl Reductions {
    /// Plies the `searched`-th move (counted from 0) of a node `depth` plies from the horizon
    /// is reduced by, if it is a late quiet move.
    fn plies(self, depth: i32, searched: usize) -> i32 {
        match self {
            Reductions::Off => 0,
            Reductions::Fixed if depth >= 6 && searched >= 12 => 2,
            Reductions::Fixed => 1,
            Reductions::Logarithmic => {
                let plies = (f64::from(depth).ln() * (searched as f64).ln() / 2.0) as i32;
                plies.clamp(1, (depth - 2).max(1))
            }
        }
    }
}

/// Whether the side to move has a piece besides its general and governor.
fn has_more_than_commanders(position: &Position) -> bool {
    let me = position.side_to_move();
    let commanders = position.count(me, koshogi_rules::PieceKind::General)
        + position.count(me, koshogi_rules::PieceKind::Governor);
    position.piece_count(me) > commanders
}

/// Win scores are stored relative to the stored position, so they stay right wherever it is
/// found again.
fn score_to_table(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_table(score: i32, ply: usize) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The score for the side to move if the game is over by destroyed command (§10.1).
fn decided(position: &Position, options: &RulesOptions, ply: usize) -> Option<i32> {
    command_verdict(position, options).map(|verdict| verdict_score(verdict, ply))
}

/// The score for a side to move without any legal move.
fn no_moves(options: &RulesOptions, ply: usize) -> i32 {
    verdict_score(no_moves_verdict(options), ply)
}

/// A win `ply` plies from the root scores `WIN − ply` (faster wins and slower losses first).
fn verdict_score(verdict: Verdict, ply: usize) -> i32 {
    verdict.score(WIN - ply as i32)
}
