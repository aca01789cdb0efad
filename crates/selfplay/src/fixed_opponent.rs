//! The baseline that plays one side of a share of self-play games (`selfplay.fixed_opponent`).
//!
//! Self-play between two young networks rarely attacks, so a network that never met an attack
//! loses its pieces to the first player that takes them. Letting a fixed classical player take
//! one side of some games shows the network attacks (and what its blunders cost) from the start.
//! `greedy` takes the biggest capture; `ab:<depth>` also sees the reply (alpha-beta over
//! material with captures searched past the horizon), so it punishes hanging pieces and
//! unprotected captures. Depth 1 costs ~1 ms a move on one core; depth 2 ~50 ms, which stalls
//! a worker's other games while it thinks. `classic@nodes=N` is the classical engine
//! (iterative deepening, transposition table, positional evaluation) at N nodes a move
//! (~5 µs a node), with a fresh table each move.
//!
//! The players and their names are koshogi-baselines' ([`BaselineSpec`], the arena's parser as
//! well), so a setting reads exactly as `koshogi arena` reads the same name; `random` is
//! refused, since it does not attack, which is what this opponent is for.
//!
//! `pool` (or `pool:last=K`) is not a classical player: each such game picks one of the run's
//! last K published checkpoints (8 by default), which plays with the cheap search
//! ([`crate::pool_opponent`]). A classical player the network already beats teaches little;
//! its own recent past keeps the opponent about as strong as the learner.

use std::fmt;
use std::str::FromStr;

use koshogi_baselines::alphabeta::{alphabeta_move, SearchLimits, MAX_DEPTH};
use koshogi_baselines::greedy::greedy_move;
use koshogi_baselines::{classic_move, BaselineSpec, BaselineSpecError, ClassicSpec};
use koshogi_rules::{Game, Move};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// A classical player for self-play games, written as in the arena: `greedy`, `ab:<depth>` or
/// `classic[@…]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum FixedOpponent {
    /// One ply: the largest immediate material gain.
    #[default]
    Greedy,
    /// Alpha-beta over material at this depth (1 to 4), captures extended.
    AlphaBeta { depth: u32 },
    /// The classical engine with these settings (`classic@nodes=2000`).
    Classic(ClassicSpec),
    /// One of the run's last `last` checkpoints, picked per game (`pool:last=8`).
    Pool { last: u32 },
}

/// Checkpoints a `pool` opponent picks from when `pool` names no count.
pub const DEFAULT_POOL_SIZE: u32 = 8;
/// The most checkpoints `pool:last=K` may name (each loaded one is held in memory).
pub const MAX_POOL_SIZE: u32 = 64;

impl FixedOpponent {
    /// The classical opponent's move, `None` when it has no legal move or when this is the
    /// pool, whose moves come from a network ([`crate::pool_opponent::PoolPlayer`]).
    pub fn choose_move(&self, game: &Game, rng: &mut impl Rng) -> Option<Move> {
        match *self {
            FixedOpponent::Pool { .. } => None,
            FixedOpponent::Greedy => greedy_move(game, rng),
            FixedOpponent::AlphaBeta { depth } => {
                alphabeta_move(game, &SearchLimits::depth(depth), rng)
            }
            FixedOpponent::Classic(spec) => classic_move(game, &spec, rng),
        }
    }
}

impl FixedOpponent {
    /// The arena's name of a classical opponent (`None` for the pool).
    pub fn baseline(&self) -> Option<BaselineSpec> {
        match *self {
            FixedOpponent::Greedy => Some(BaselineSpec::Greedy),
            FixedOpponent::AlphaBeta { depth } => Some(BaselineSpec::AlphaBeta { depth }),
            FixedOpponent::Classic(spec) => Some(BaselineSpec::Classic(spec)),
            FixedOpponent::Pool { .. } => None,
        }
    }
}

impl fmt::Display for FixedOpponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self, self.baseline()) {
            (_, Some(baseline)) => baseline.fmt(f),
            (FixedOpponent::Pool { last }, None) => write!(f, "pool:last={last}"),
            (_, None) => unreachable!("only the pool has no baseline name"),
        }
    }
}

/// `pool` or `pool:last=K`; `None` when `text` does not name the pool.
fn parse_pool(text: &str, shown: &str) -> Option<Result<FixedOpponent, String>> {
    let text = text.trim();
    let rest = text.strip_prefix("pool")?;
    if rest.is_empty() {
        return Some(Ok(FixedOpponent::Pool {
            last: DEFAULT_POOL_SIZE,
        }));
    }
    let count = rest.strip_prefix(":last=")?;
    Some(match count.parse::<u32>() {
        Ok(last) if (1..=MAX_POOL_SIZE).contains(&last) => Ok(FixedOpponent::Pool { last }),
        _ => Err(format!(
            "`{shown}`: pool:last=K needs a whole number K from 1 to {MAX_POOL_SIZE}"
        )),
    })
}

/// Read as the arena reads a player ([`BaselineSpec`]); `greedy`, `ab:<depth>` and
/// `classic[@…]` are accepted. The error quotes at most 40 characters of the text (a config value may be anything).
impl FromStr for FixedOpponent {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let shown: String = text.trim().chars().take(40).collect();
        if let Some(pool) = parse_pool(text, &shown) {
            return pool;
        }
        match text.parse::<BaselineSpec>() {
            Ok(BaselineSpec::Greedy) => Ok(FixedOpponent::Greedy),
            Ok(BaselineSpec::AlphaBeta { depth }) => Ok(FixedOpponent::AlphaBeta { depth }),
            Ok(BaselineSpec::Classic(spec)) => Ok(FixedOpponent::Classic(spec)),
            Err(BaselineSpecError::BadDepth(_)) => Err(format!(
                "`{shown}`: the depth must be a whole number from 1 to {MAX_DEPTH}"
            )),
            Err(BaselineSpecError::BadClassic(_, error)) => Err(format!("`{shown}`: {error}")),
            _ => Err(format!(
                "unknown opponent `{shown}`: expected greedy, ab:<depth> (1 to {MAX_DEPTH}), \
                 classic[@<settings>] or pool[:last=<checkpoints>]"
            )),
        }
    }
}

impl TryFrom<String> for FixedOpponent {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        text.parse()
    }
}

impl From<FixedOpponent> for String {
    fn from(opponent: FixedOpponent) -> String {
        opponent.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn parses_and_prints_the_arena_names() {
        for (text, opponent) in [
            ("greedy", FixedOpponent::Greedy),
            ("ab:1", FixedOpponent::AlphaBeta { depth: 1 }),
            (" ab:4 ", FixedOpponent::AlphaBeta { depth: 4 }),
            (
                "classic@nodes=2000",
                FixedOpponent::Classic(ClassicSpec {
                    nodes: Some(2000),
                    ..ClassicSpec::default()
                }),
            ),
            ("pool", FixedOpponent::Pool { last: 8 }),
            ("pool:last=3", FixedOpponent::Pool { last: 3 }),
        ] {
            assert_eq!(text.parse::<FixedOpponent>(), Ok(opponent));
            assert_eq!(opponent.to_string().parse::<FixedOpponent>(), Ok(opponent));
        }
        for bad in [
            "",
            "ab:0",
            "ab:5",
            "ab:x",
            "random",
            "policy:1",
            "classic@nodes=0",
            "pool:last=0",
            "pool:last=65",
            "pool:last=x",
            "pool:3",
            "pools",
        ] {
            assert!(bad.parse::<FixedOpponent>().is_err(), "{bad}");
        }
        assert_eq!(
            "ab:5".parse::<FixedOpponent>(),
            Err("`ab:5`: the depth must be a whole number from 1 to 4".into())
        );
        assert_eq!(
            " random".parse::<FixedOpponent>(),
            Err(
                "unknown opponent `random`: expected greedy, ab:<depth> (1 to 4), \
                 classic[@<settings>] or pool[:last=<checkpoints>]"
                    .into()
            )
        );
        let long = "x".repeat(10_000);
        assert!(long.parse::<FixedOpponent>().unwrap_err().len() < 200);
    }

    #[test]
    fn each_opponent_plays_a_legal_move() {
        let game = Game::new(Default::default());
        let legal = game.legal_moves();
        for opponent in [
            FixedOpponent::Greedy,
            FixedOpponent::AlphaBeta { depth: 1 },
            "classic@nodes=500".parse().unwrap(),
        ] {
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let mv = opponent.choose_move(&game, &mut rng).unwrap();
            assert!(legal.contains(&mv), "{opponent}: {mv:?}");
        }
    }
}
