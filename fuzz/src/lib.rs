//! Shared helpers of the fuzz targets: a few fixed game positions for the move parsers and a
//! scratch file for the parsers that read paths.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use koshogi_rules::{Game, Move, RulesOptions};

/// Games the move parsers are tried against: the start, one ply in (White to move), and
/// positions 30, 120 and 400 plies into a fixed pseudo-random game (captures and promotions
/// behind them; fewer if that game ends first), each with its legal moves. The first input
/// byte picks one.
pub fn games() -> &'static [(Game, Vec<Move>)] {
    static GAMES: OnceLock<Vec<(Game, Vec<Move>)>> = OnceLock::new();
    GAMES.get_or_init(|| {
        let mut games = vec![Game::new(RulesOptions::default())];
        let mut game = Game::new(RulesOptions::default());
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for ply in 1..=400 {
            let legal = game.legal_moves();
            if legal.is_empty() || game.outcome().is_some() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            game.play(legal[(state % legal.len() as u64) as usize]);
            if matches!(ply, 1 | 30 | 120 | 400) {
                games.push(game.clone());
            }
        }
        games
            .into_iter()
            .map(|game| {
                let legal = game.legal_moves();
                (game, legal)
            })
            .collect()
    })
}

/// The game picked by `selector` and the rest of the input as text (lossy UTF-8, as a line
/// from a socket or a file would be decoded).
pub fn game_and_text(data: &[u8]) -> Option<(&'static Game, &'static [Move], String)> {
    let (&selector, rest) = data.split_first()?;
    let games = games();
    let (game, legal) = &games[usize::from(selector) % games.len()];
    Some((game, legal, String::from_utf8_lossy(rest).into_owned()))
}

/// The scratch directory for the parsers whose entry point takes a path: `$KOSHOGI_FUZZ_SCRATCH`
/// (scripts/fuzz.sh sets it and removes it afterwards), else a per-process directory in memory
/// (`/dev/shm` when present).
pub fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = match std::env::var_os("KOSHOGI_FUZZ_SCRATCH") {
            Some(dir) => PathBuf::from(dir),
            None => {
                let base = if Path::new("/dev/shm").is_dir() {
                    PathBuf::from("/dev/shm")
                } else {
                    std::env::temp_dir()
                };
                base.join(format!("koshogi-fuzz-{}", std::process::id()))
            }
        };
        std::fs::create_dir_all(&dir).expect("creating the fuzz scratch directory");
        dir
    })
}

/// Writes `bytes` to the scratch file `name` and returns its path.
pub fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch_dir().join(name);
    std::fs::write(&path, bytes).expect("writing a fuzz scratch file");
    path
}
