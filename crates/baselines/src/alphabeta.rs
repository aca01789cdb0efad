//! The alpha-beta baseline (`ab:<depth>`): a classical fixed-depth negamax search over material.
//!
//! Why: greedy looks one ply ahead, so it walks into every recapture; a network can beat greedy
//! and still lose to anything that looks two moves ahead. Alpha-beta over material is the
//! reference a chess or shogi player would name, needs no network, and its strength grows in
//! known steps with the depth — fixed rungs for the ladder.
//!
//! The search:
//! * negamax with alpha-beta (fail-soft) over the rules' legal moves (`Position::generate_moves`,
//!   `play`, `undo`), by iterative deepening from depth 1 to the requested depth (so that a
//!   search over its budget still has the last complete depth's move, and a found win ends it);
//! * at the horizon, a quiescence search over captures only (`Move::is_capture`: displacement,
//!   igui, shots) with stand-pat, at most [`QUIESCENCE_PLIES`] plies deep, so that the last
//!   capture of a line is not scored before its recapture;
//! * leaves are scored by the side to move's material balance
//!   ([`baseline_balance`], greedy's scale), so everything a move does counts
//!   as it does for greedy: burning, promotions, the clerk cascade, demotions;
//! * game end as greedy sees it: a side whose command is destroyed (§10.1) has lost, scored
//!   `WIN − ply` so that faster wins and slower losses are preferred; both at once per the
//!   `mutual_destruction` option; no legal move per `no_moves`;
//! * move ordering below the root: captures first, most valuable victims then least valuable
//!   mover (MVV/LVA), then quiet moves in generation order;
//! * ties at the root are broken uniformly at random with the caller's generator (in the arena,
//!   seeded by the move request), as greedy does, so that games vary: the root moves are
//!   searched in an order shuffled with that generator and the first move to reach the best
//!   score is kept (later moves that only equal it fail low). The first of a uniformly shuffled
//!   order among the tied moves is a uniform choice among them, and the search keeps its
//!   cutoffs: listing *every* tied move instead (a window just below the best score) needs a
//!   full proof for each, and in Ko shogi's quiet positions most of the ~200 moves tie —
//!   measured 20–70 times slower at depth 3.
//!
//! Bounded time: Ko shogi has about 250 legal moves and multi-capturing pieces, so each move has
//! a budget of generated moves ([`MOVE_BUDGET`], counted in moves rather than seconds so that
//! play stays reproducible). Once it is spent, quiescence stands pat, and an iteration deeper
//! than 1 is abandoned for the previous iteration's result. The costly positions are those where
//! the side to move has a capture it could as well make a move later: proving that a quiet move
//! is no better then takes a capture search after every reply (some 200 × 200 of them at depth
//! 2), so in games against greedy a few depth-2 moves take ~2 s and about one `ab:3` move in six
//! stops at depth 2.
//!
//! Not looked at inside the search: repetition (§10.5) and the game's ply cap or material
//! adjudication; a quiescence node that stands pat does not check whether it has a legal move.

use rand::seq::SliceRandom;
use rand::Rng;

use koshogi_rules::material::{baseline_balance, baseline_piece_value};
use koshogi_rules::{Game, Move, Position, RulesOptions};

use crate::game_end::{command_verdict, no_moves_verdict, Verdict};

/// Deepest search `ab:<depth>` accepts: in games depth 4 already runs into the budget on most
/// moves, and each further ply costs some 30 times more.
pub const MAX_DEPTH: u32 = 4;
/// Plies of captures searched beyond the horizon.
pub const QUIESCENCE_PLIES: u32 = 4;
/// Legal moves generated per search, which is where its time goes (every node is reached from
/// a generated move, so this also bounds the nodes): at ~30–40 M generated moves/s, about 2 s on
/// one core. Measured from the start and two mid-game positions (`koshogi bench arena`): depth 3
/// needs 0.3–0.8 M, depth 4 15–42 M; capture-rich positions need far more (module docs).
pub const MOVE_BUDGET: u64 = 64_000_000;

/// Score of a win at the root; a win `n` plies away scores `WIN − n`.
const WIN: f64 = 1.0e6;
/// Order key of a quiet move: below every capture.
const QUIET: f64 = -1.0e9;

/// How deep and how long one search may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchLimits {
    pub depth: u32,
    pub quiescence_plies: u32,
    /// See [`MOVE_BUDGET`].
    pub move_budget: u64,
}

impl SearchLimits {
    /// `depth` plies with the default quiescence depth and budget.
    pub fn depth(depth: u32) -> Self {
        Self {
            depth,
            quiescence_plies: QUIESCENCE_PLIES,
            move_budget: MOVE_BUDGET,
        }
    }
}

/// What one search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// A move of best score, chosen uniformly at random among them.
    pub best_move: Move,
    /// The best score, in pawns for the side to move.
    pub score: f64,
    /// Deepest iteration completed within the budget.
    pub depth: u32,
    /// Nodes visited and legal moves generated, all iterations together.
    pub nodes: u64,
    pub moves_generated: u64,
}

/// The alpha-beta choice: a uniformly random move among those of best score.
pub fn alphabeta_move(game: &Game, limits: &SearchLimits, rng: &mut impl Rng) -> Option<Move> {
    search(game, limits, rng).map(|result| result.best_move)
}

/// Searches the game's position, breaking ties at the root with `rng`; `None` when the side to
/// move has no legal move.
pub fn search(game: &Game, limits: &SearchLimits, rng: &mut impl Rng) -> Option<SearchResult> {
    let mut position = game.position().clone();
    let mut searcher = Searcher::new(game.options(), limits);
    let mut root_moves = Vec::new();
    searcher.generate(&position, &mut Vec::new(), &mut root_moves, false);
    if root_moves.is_empty() {
        return None;
    }
    // The random order is the tie-break (see the module docs), the same in every iteration.
    root_moves.shuffle(rng);
    let root_moves: Vec<Move> = root_moves.into_iter().map(|(_, mv)| mv).collect();
    let mut completed = None;
    for depth in 1..=limits.depth.max(1) {
        searcher.abortable = depth > 1;
        let Some((score, best_move)) = searcher.root(&mut position, depth, &root_moves) else {
            break;
        };
        completed = Some((score, best_move, depth));
        // A win found now is the fastest there is; deeper iterations cannot improve on it.
        if score > WIN / 2.0 {
            break;
        }
    }
    // Depth 1 never gives up, so some iteration completed.
    let (score, best_move, depth) = completed?;
    Some(SearchResult {
        best_move,
        score,
        depth,
        nodes: searcher.nodes,
        moves_generated: searcher.moves_generated,
    })
}

/// The search state of one move.
struct Searcher<'a> {
    options: &'a RulesOptions,
    quiescence_plies: u32,
    move_budget: u64,
    nodes: u64,
    moves_generated: u64,
    /// Whether running over the budget abandons the current iteration (not at depth 1, which
    /// must always produce a move).
    abortable: bool,
    aborted: bool,
    /// Move lists by ply, reused from node to node.
    generated: Vec<Vec<Move>>,
    ordered: Vec<Vec<(f64, Move)>>,
}

impl<'a> Searcher<'a> {
    fn new(options: &'a RulesOptions, limits: &SearchLimits) -> Self {
        Self {
            options,
            quiescence_plies: limits.quiescence_plies,
            move_budget: limits.move_budget,
            nodes: 0,
            moves_generated: 0,
            abortable: false,
            aborted: false,
            generated: Vec::new(),
            ordered: Vec::new(),
        }
    }

    /// One iteration at the root: the best score and the first move (in `root_moves` order)
    /// that reaches it, or `None` if the iteration ran over the budget.
    fn root(
        &mut self,
        position: &mut Position,
        depth: u32,
        root_moves: &[Move],
    ) -> Option<(f64, Move)> {
        let mut best = f64::NEG_INFINITY;
        let mut best_move = *root_moves.first()?;
        for mv in root_moves {
            let undo = position.play(mv, self.options);
            let score = -self.negamax(position, depth - 1, f64::NEG_INFINITY, -best, 1);
            position.undo(undo);
            if self.aborted {
                return None;
            }
            // Strictly better only: a later move that merely ties keeps the earlier choice.
            if score > best {
                best = score;
                best_move = *mv;
            }
        }
        Some((best, best_move))
    }

    /// Score of `position` for its side to move, `depth` plies and a quiescence search ahead.
    fn negamax(
        &mut self,
        position: &mut Position,
        depth: u32,
        mut alpha: f64,
        beta: f64,
        ply: usize,
    ) -> f64 {
        if depth == 0 {
            return self.quiesce(position, alpha, beta, ply, self.quiescence_plies);
        }
        if let Some(score) = decided(position, self.options, ply) {
            return score;
        }
        self.nodes += 1;
        if self.abortable && self.moves_generated >= self.move_budget {
            self.aborted = true;
            return 0.0;
        }
        let (mut generated, mut moves) = self.buffers(ply);
        self.generate(position, &mut generated, &mut moves, false);
        let mut best = if moves.is_empty() {
            no_moves(self.options, ply)
        } else {
            f64::NEG_INFINITY
        };
        for &(_, mv) in &moves {
            let undo = position.play(&mv, self.options);
            let score = -self.negamax(position, depth - 1, -beta, -alpha, ply + 1);
            position.undo(undo);
            if self.aborted {
                break;
            }
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.return_buffers(ply, generated, moves);
        best
    }

    /// Captures only, with stand-pat: the side to move may always decline to capture.
    fn quiesce(
        &mut self,
        position: &mut Position,
        mut alpha: f64,
        beta: f64,
        ply: usize,
        plies_left: u32,
    ) -> f64 {
        if let Some(score) = decided(position, self.options, ply) {
            return score;
        }
        self.nodes += 1;
        let stand_pat = baseline_balance(position, position.side_to_move());
        if stand_pat >= beta || plies_left == 0 || self.moves_generated >= self.move_budget {
            return stand_pat;
        }
        alpha = alpha.max(stand_pat);
        let (mut generated, mut captures) = self.buffers(ply);
        let any_move = self.generate(position, &mut generated, &mut captures, true);
        let mut best = if any_move {
            stand_pat
        } else {
            no_moves(self.options, ply)
        };
        for &(_, mv) in &captures {
            let undo = position.play(&mv, self.options);
            let score = -self.quiesce(position, -beta, -alpha, ply + 1, plies_left - 1);
            position.undo(undo);
            if score > best {
                best = score;
                alpha = alpha.max(score);
                if alpha >= beta {
                    break;
                }
            }
        }
        self.return_buffers(ply, generated, captures);
        best
    }

    /// [`order_moves`], counted against the budget.
    fn generate(
        &mut self,
        position: &Position,
        generated: &mut Vec<Move>,
        out: &mut Vec<(f64, Move)>,
        captures_only: bool,
    ) -> bool {
        let any_move = order_moves(position, self.options, generated, out, captures_only);
        self.moves_generated += generated.len() as u64;
        any_move
    }

    fn buffers(&mut self, ply: usize) -> (Vec<Move>, Vec<(f64, Move)>) {
        if self.generated.len() <= ply {
            self.generated.resize_with(ply + 1, Vec::new);
            self.ordered.resize_with(ply + 1, Vec::new);
        }
        (
            std::mem::take(&mut self.generated[ply]),
            std::mem::take(&mut self.ordered[ply]),
        )
    }

    fn return_buffers(&mut self, ply: usize, generated: Vec<Move>, ordered: Vec<(f64, Move)>) {
        self.generated[ply] = generated;
        self.ordered[ply] = ordered;
    }
}

/// The score for the side to move if the game is over by destroyed command (§10.1), `ply`
/// plies from the root.
fn decided(position: &Position, options: &RulesOptions, ply: usize) -> Option<f64> {
    command_verdict(position, options).map(|verdict| verdict_score(verdict, ply))
}

/// The score for a side to move without any legal move.
fn no_moves(options: &RulesOptions, ply: usize) -> f64 {
    verdict_score(no_moves_verdict(options), ply)
}

/// A win `ply` plies from the root scores `WIN − ply` (faster wins and slower losses first).
fn verdict_score(verdict: Verdict, ply: usize) -> f64 {
    verdict.score(WIN - ply as f64)
}

/// Fills `out` with the legal moves (only captures if `captures_only`), best-looking first;
/// returns whether the side to move has any legal move at all.
fn order_moves(
    position: &Position,
    options: &RulesOptions,
    generated: &mut Vec<Move>,
    out: &mut Vec<(f64, Move)>,
    captures_only: bool,
) -> bool {
    generated.clear();
    position.generate_moves(options, generated);
    out.clear();
    for &mv in generated.iter() {
        if mv.is_capture() {
            out.push((capture_order(position, &mv), mv));
        } else if !captures_only {
            out.push((QUIET, mv));
        }
    }
    // Stable: equal keys (all quiet moves) keep generation order.
    out.sort_by(|a, b| b.0.total_cmp(&a.0));
    !generated.is_empty()
}

/// MVV/LVA: the value removed first, the mover's value as tie-break (a capture by a pawn before
/// the same capture by a chariot). Always above [`QUIET`].
fn capture_order(position: &Position, mv: &Move) -> f64 {
    let mover = position.side_to_move();
    let victims: f64 = mv
        .removed_points()
        .iter()
        .filter_map(|&sq| position.piece_at(sq))
        .filter(|piece| piece.color != mover)
        .map(|piece| baseline_piece_value(piece.kind))
        .sum();
    let attacker = position
        .piece_at(mv.origin())
        .map_or(0.0, |piece| baseline_piece_value(piece.kind));
    victims * 64.0 - attacker
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::greedy::{greedy_move, move_gains};
    use crate::test_positions::{chariot_unit_takes_the_last_general, game, poisoned_pawn};
    use koshogi_rules::{Color, PieceKind, Square};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    use Color::{Black, White};
    use PieceKind::*;

    fn square(text: &str) -> Square {
        text.parse().unwrap()
    }

    fn captures_on(mv: &Move, text: &str) -> bool {
        mv.is_capture() && mv.removed_points() == [square(text)]
    }

    fn rng(seed: u64) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(seed)
    }

    /// The exact score of every root move, each searched with a full window: the slow way,
    /// for checking the tie-break.
    fn exact_scores(g: &Game, depth: u32) -> Vec<(Move, f64)> {
        let limits = SearchLimits::depth(depth);
        let mut searcher = Searcher::new(g.options(), &limits);
        let mut position = g.position().clone();
        g.legal_moves()
            .into_iter()
            .map(|mv| {
                let undo = position.play(&mv, g.options());
                let score = -searcher.negamax(
                    &mut position,
                    depth - 1,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    1,
                );
                position.undo(undo);
                (mv, score)
            })
            .collect()
    }

    #[test]
    fn depth_one_takes_a_free_piece_as_greedy_does() {
        // Black's aide de camp on 10j can take an undefended white drum diagonally on 11i.
        let g = game(
            true,
            &[
                ("19s", Black, General),
                ("1a", White, General),
                ("10j", Black, AideDeCamp),
                ("11i", White, Drum),
            ],
        );
        for seed in 0..4 {
            let greedy = greedy_move(&g, &mut rng(seed)).unwrap();
            let ab = alphabeta_move(&g, &SearchLimits::depth(1), &mut rng(seed)).unwrap();
            assert!(captures_on(&ab, "11i"), "{ab}");
            assert_eq!(ab, greedy);
        }
        let before = baseline_balance(g.position(), Black);
        let result = search(&g, &SearchLimits::depth(1), &mut rng(0)).unwrap();
        assert!(
            result.score >= before + baseline_piece_value(Drum),
            "{result:?}"
        );
    }

    #[test]
    fn depth_two_declines_a_poisoned_pawn_that_greedy_takes() {
        let g = poisoned_pawn();
        for seed in 0..6 {
            let greedy = greedy_move(&g, &mut rng(seed)).unwrap();
            assert!(captures_on(&greedy, "10i"), "greedy played {greedy}");
            let ab = alphabeta_move(&g, &SearchLimits::depth(2), &mut rng(seed)).unwrap();
            assert!(!ab.is_capture(), "ab:2 played {ab}");
        }
        // Scores are material balances, not gains: keeping the balance (−1) is best.
        let result = search(&g, &SearchLimits::depth(2), &mut rng(0)).unwrap();
        assert_eq!(
            result.score,
            baseline_balance(g.position(), Black),
            "{result:?}"
        );
        assert_eq!(result.depth, 2);
    }

    #[test]
    fn quiescence_sees_the_recapture_at_the_horizon() {
        let g = poisoned_pawn();
        // Depth 1 without quiescence is greedy: it takes the pawn and expects to keep it.
        let blind = SearchLimits {
            quiescence_plies: 0,
            ..SearchLimits::depth(1)
        };
        let result = search(&g, &blind, &mut rng(0)).unwrap();
        assert!(captures_on(&result.best_move, "10i"));
        let before = baseline_balance(g.position(), Black);
        let gains = move_gains(&g);
        let greedy_best = gains.iter().map(|&(_, g)| g).fold(f64::MIN, f64::max);
        assert!(greedy_best >= 1.0);
        assert_eq!(result.score, before + greedy_best);
        // With quiescence, the retake by the aide de camp (a capture) is searched past the
        // horizon, so the same depth declines.
        for seed in 0..6 {
            let result = search(&g, &SearchLimits::depth(1), &mut rng(seed)).unwrap();
            assert_eq!(result.score, before, "{result:?}");
            assert!(!result.best_move.is_capture(), "{result:?}");
        }
    }

    #[test]
    fn depth_two_moves_a_piece_out_of_attack() {
        // A white town brigade on 10c slides down file 10 to Black's aide de camp on 10j. The aide
        // de camp cannot reach it; stepping sideways or diagonally off the file saves it.
        let g = game(
            true,
            &[
                ("19s", Black, General),
                ("1a", White, General),
                ("10j", Black, AideDeCamp),
                ("10c", White, TownBrigade),
            ],
        );
        let white_can_capture = |mv: Move| {
            let mut after = g.clone();
            after.play(mv);
            move_gains(&after).iter().any(|(m, _)| m.is_capture())
        };
        for seed in 0..8 {
            let mv = alphabeta_move(&g, &SearchLimits::depth(2), &mut rng(seed)).unwrap();
            assert_eq!(mv.origin(), square("10j"), "{mv}");
            assert!(
                !white_can_capture(mv),
                "{mv} leaves the aide de camp en prise"
            );
        }
        // Greedy sees no gain anywhere and so, for some seed, leaves it where it stands.
        assert!((0..8).any(|seed| white_can_capture(greedy_move(&g, &mut rng(seed)).unwrap())));

        // The safe moves all score the same: the choice is uniform among exactly them.
        let scores = exact_scores(&g, 2);
        let best = scores.iter().map(|&(_, s)| s).fold(f64::MIN, f64::max);
        let tied: std::collections::HashSet<Move> = scores
            .iter()
            .filter(|&&(_, s)| s == best)
            .map(|&(m, _)| m)
            .collect();
        assert!(tied.len() >= 4, "{scores:?}");
        let mut counts = std::collections::HashMap::<Move, usize>::new();
        let draws = 40 * tied.len();
        for seed in 0..draws as u64 {
            let mv = alphabeta_move(&g, &SearchLimits::depth(2), &mut rng(seed)).unwrap();
            assert!(tied.contains(&mv), "{mv} is not among the best");
            *counts.entry(mv).or_default() += 1;
        }
        // Each of k tied moves expects 40 picks; 15 is more than 5 standard deviations below.
        assert_eq!(counts.len(), tied.len(), "{counts:?}");
        assert!(counts.values().all(|&n| n >= 15), "{counts:?}");
    }

    #[test]
    fn the_fastest_win_is_taken() {
        // Black's chariot unit on 5s can take White's only commander on 5c at once.
        let g = chariot_unit_takes_the_last_general();
        let result = search(&g, &SearchLimits::depth(3), &mut rng(0)).unwrap();
        assert_eq!(result.score, WIN - 1.0);
        assert!(captures_on(&result.best_move, "5c"));
        // The win ends the search after depth 1.
        assert_eq!(result.depth, 1);
    }

    #[test]
    fn the_budget_bounds_the_search_and_ties_vary_the_games() {
        let start = Game::new(RulesOptions::default());
        let starved = SearchLimits {
            move_budget: 1,
            ..SearchLimits::depth(3)
        };
        let result = search(&start, &starved, &mut rng(0)).unwrap();
        assert_eq!(result.depth, 1, "depth 1 always completes");
        let result = search(&start, &SearchLimits::depth(2), &mut rng(0)).unwrap();
        assert_eq!(result.depth, 2);
        assert!(result.moves_generated <= MOVE_BUDGET);
        let moves: std::collections::HashSet<Move> = (0..8)
            .map(|seed| alphabeta_move(&start, &SearchLimits::depth(2), &mut rng(seed)).unwrap())
            .collect();
        assert!(moves.len() > 1, "{moves:?}");
    }
}
