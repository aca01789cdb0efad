//! Tiny game and players for testing the match machinery (test builds only): outcomes and
//! strengths are known by construction, and a game takes microseconds.

use super::ending::Ending;
use super::game::{ArenaGame, GameEnd, Side};
use super::player::{MoveRequest, Player, PlayerError};

/// A race on a shared counter: each ply adds 0, 1 or 2; whoever brings it to 10 or more wins.
/// Passing (adding 0) lets games run long, so the ply cap matters; moving first is an
/// advantage for random play, which colour alternation must cancel.
#[derive(Clone, Debug)]
pub struct Race {
    pub counter: u32,
    pub plies: u32,
}

impl ArenaGame for Race {
    type Move = u32;
    fn legal_moves(&self, out: &mut Vec<u32>) {
        out.extend([0, 1, 2]);
    }
    fn play(&mut self, mv: u32) {
        self.counter += mv;
        self.plies += 1;
    }
    fn end(&self) -> Option<GameEnd> {
        (self.counter >= 10).then(|| GameEnd {
            // The player who just moved won.
            winner: Some(self.side_to_move().opposite()),
            ending: Ending::Other,
            reason: "reached 10".into(),
        })
    }
    fn side_to_move(&self) -> Side {
        if self.plies.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }
    fn position_text(&self) -> String {
        format!("counter {} ply {}", self.counter, self.plies)
    }
    fn move_text(&self, mv: u32, _legal: &[u32]) -> String {
        format!("+{mv}")
    }
    /// The plies played are the first player's "material" (the second's is their negative),
    /// so a test knows every material sample of a match in advance.
    fn material_balance(&self, side: Side) -> Option<f64> {
        let plies = f64::from(self.plies);
        Some(if side == Side::First { plies } else { -plies })
    }
}

pub fn race() -> Race {
    Race {
        counter: 0,
        plies: 0,
    }
}

/// Adds the same number every ply, whatever the counter.
pub struct Always {
    add: u32,
    name: &'static str,
}

impl Always {
    /// Adds 2: wins almost every race against a random mover.
    pub fn sprinter() -> Always {
        Always {
            add: 2,
            name: "sprinter",
        }
    }
    /// Adds 0: two of them play to the ply cap.
    pub fn passer() -> Always {
        Always {
            add: 0,
            name: "passer",
        }
    }
    /// Adds 7, an illegal move, to check the arena notices.
    pub fn cheater() -> Always {
        Always {
            add: 7,
            name: "cheater",
        }
    }
}

impl Player<Race> for Always {
    fn name(&self) -> String {
        self.name.into()
    }
    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Race>],
    ) -> Result<Vec<u32>, PlayerError> {
        Ok(vec![self.add; requests.len()])
    }
}

/// Wins when it can, otherwise never leaves the counter at 8 or 9 (from where the opponent
/// wins at once); random among the safe moves. Random movers walk into 8–9 often.
pub struct Careful;
impl Player<Race> for Careful {
    fn name(&self) -> String {
        "careful".into()
    }
    fn choose_moves(
        &mut self,
        requests: &[MoveRequest<'_, Race>],
    ) -> Result<Vec<u32>, PlayerError> {
        use rand::Rng;
        Ok(requests
            .iter()
            .map(|r| {
                let c = r.game.counter;
                if c + 2 >= 10 {
                    2
                } else {
                    let safe: Vec<u32> = (0..=2).filter(|m| c + m <= 7).collect();
                    safe[r.rng().random_range(0..safe.len())]
                }
            })
            .collect())
    }
}
