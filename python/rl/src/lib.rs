//! `koshogi._koshogi`: the native half of the `koshogi` Python package (the Python half,
//! `koshogi/`, adds numpy views, the PettingZoo environment and the OpenSpiel game).
//!
//! Everything here is a thin layer over the workspace's crates — the rules
//! (`koshogi-rules`), the network's input planes and policy legs (`koshogi-encoding`, the code
//! the network, the trainer and `koshogi encode` use) and the text/SVG boards
//! (`koshogi-viewer`), the classical players (`koshogi-baselines`: greedy, alpha-beta, their
//! material balance) — so Python sees exactly the moves, planes and numbering of the Rust side.
//!
//! Errors cross into Python as exceptions carrying the Rust message ([`KoshogiError`], a
//! `ValueError`; `IndexError` for an index out of range), never as a panic: moves are played
//! only after they were found among the legal moves, and every parse returns a `Result`.

use koshogi_encoding::features::{encode_position, FeatureInput, FEATURE_LEN, INPUT_PLANES};
use koshogi_encoding::geometry::{BOARD_SIZE, POINTS};
use koshogi_encoding::move_encoding::{encode_move, POLICY_PLANES};
use koshogi_encoding::{FEATURE_VERSION, MOVE_ENCODING_VERSION};
use koshogi_rules::notation::{format_hodges, parse_move};
use koshogi_rules::{Color, Game as RulesGame, Move, Outcome, Position, RulesOptions};
use pyo3::create_exception;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyString};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

create_exception!(
    _koshogi,
    KoshogiError,
    PyValueError,
    "A rules error: a bad KSFEN, rules option or move text, an illegal move, a move after the \
     end of the game. The message is the Rust side's."
);

fn rules_error(message: impl std::fmt::Display) -> PyErr {
    KoshogiError::new_err(message.to_string())
}

/// `startpos` or a KSFEN (`<board> <side> [<move number>]`), as `koshogi moves` reads it.
fn parse_position(text: &str) -> PyResult<Position> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("startpos") {
        return Ok(Position::startpos());
    }
    Position::from_ksfen(text).map_err(|e| rules_error(format!("invalid position {text:?}: {e}")))
}

/// The §12 options from `None` (KS-default), a JSON text or anything `json.dumps` takes (a
/// dict); missing keys keep their default, unknown keys are refused (as `--rules` does).
fn parse_rules(py: Python<'_>, rules: Option<&Bound<'_, PyAny>>) -> PyResult<RulesOptions> {
    let Some(rules) = rules else {
        return Ok(RulesOptions::default());
    };
    if rules.is_none() {
        return Ok(RulesOptions::default());
    }
    let text: String = if rules.is_instance_of::<PyString>() {
        rules.extract()?
    } else {
        PyModule::import(py, "json")?
            .call_method1("dumps", (rules,))?
            .extract()?
    };
    serde_json::from_str(&text).map_err(|e| rules_error(format!("invalid rules {text:?}: {e}")))
}

fn parse_color(text: &str) -> PyResult<Color> {
    match text.to_ascii_lowercase().as_str() {
        "black" | "b" => Ok(Color::Black),
        "white" | "w" => Ok(Color::White),
        _ => Err(rules_error(format!(
            "unknown colour {text:?} (black or white)"
        ))),
    }
}

fn outcome_tuple(outcome: Option<Outcome>) -> Option<(Option<String>, String)> {
    outcome.map(|o| match o {
        Outcome::Win { winner, reason } => (Some(winner.to_string()), format!("{reason:?}")),
        Outcome::Draw(reason) => (None, format!("{reason:?}")),
    })
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(values.len() * 4);
    for value in values {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

/// A game: position, §12 options, history (for repetition and undo), the optional ply cap
/// with material adjudication. Legal moves are generated once per position and kept until the
/// next play or undo, so asking for them as text, as legs and by index costs one generation.
/// The outcome (which generates the moves again, in the rules crate) is kept per position of
/// the history, so a search's play/undo does not recompute the outcome of the position it
/// returns to.
#[pyclass(module = "koshogi._koshogi", subclass)]
#[derive(Clone)]
pub struct Game {
    game: RulesGame,
    cap_material: Option<u32>,
    legal: Option<Vec<Move>>,
    /// The current position's outcome once asked for.
    outcome: Option<Option<Outcome>>,
    /// `outcome` of each earlier position of the history, restored by undo.
    earlier_outcomes: Vec<Option<Option<Outcome>>>,
}

impl Game {
    fn legal(&mut self) -> &[Move] {
        if self.legal.is_none() {
            self.legal = Some(self.game.legal_moves());
        }
        self.legal.as_deref().unwrap_or_default()
    }

    fn current_outcome(&mut self) -> Option<Outcome> {
        *self.outcome.get_or_insert_with(|| self.game.outcome())
    }

    fn check_not_over(&mut self) -> PyResult<()> {
        match self.current_outcome() {
            Some(outcome) => Err(rules_error(format!("the game is over ({outcome:?})"))),
            None => Ok(()),
        }
    }

    fn play_move(&mut self, mv: Move) -> String {
        self.game.play(mv);
        self.legal = None;
        self.earlier_outcomes.push(self.outcome.take());
        mv.to_string()
    }

    /// The move `index` (an int among the legal moves, in generation order) or `text`
    /// (canonical or Hodges notation) names.
    fn find_move(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<Move> {
        if let Ok(index) = mv.extract::<i64>() {
            let legal = self.legal();
            return usize::try_from(index)
                .ok()
                .and_then(|i| legal.get(i).copied())
                .ok_or_else(|| {
                    PyIndexError::new_err(format!(
                        "move index {index} out of range: {} legal moves",
                        legal.len()
                    ))
                });
        }
        let text: String = mv.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "a move is a legal-move index (int) or a move text (str)",
            )
        })?;
        parse_move(&self.game, &text).map_err(rules_error)
    }
}

#[pymethods]
impl Game {
    /// `Game(position="startpos", rules=None, max_plies=None, cap_material=None)`: a game
    /// from `startpos` or a KSFEN, under the §12 `rules` (dict or JSON; default KS-default).
    /// With `max_plies` the game ends after that many moves of this game, a draw, or with
    /// `cap_material` a win for a side that many pieces ahead (engine adjudication, not a rule).
    #[new]
    #[pyo3(signature = (position="startpos", rules=None, max_plies=None, cap_material=None))]
    fn new(
        py: Python<'_>,
        position: &str,
        rules: Option<&Bound<'_, PyAny>>,
        max_plies: Option<u32>,
        cap_material: Option<u32>,
    ) -> PyResult<Self> {
        let position = parse_position(position)?;
        let options = parse_rules(py, rules)?;
        if cap_material.is_some() && max_plies.is_none() {
            return Err(rules_error(
                "cap_material scores games stopped at max_plies: give max_plies too",
            ));
        }
        let game = RulesGame::from_position(position, options)
            .with_max_plies(max_plies)
            .with_material_adjudication(cap_material);
        Ok(Game {
            game,
            cap_material,
            legal: None,
            outcome: None,
            earlier_outcomes: Vec::new(),
        })
    }

    /// The legal moves in canonical notation (§11), in move-generation order: the order of
    /// `legal_legs`, of move indices, and of `koshogi encode`'s moves.json.
    fn legal_moves(&mut self) -> Vec<String> {
        self.legal().iter().map(|m| m.to_string()).collect()
    }

    /// The legal moves in Hodges-style notation, in the same order.
    fn legal_moves_hodges(&mut self) -> Vec<String> {
        self.legal();
        let legal = self.legal.as_deref().unwrap_or_default();
        let position = self.game.position();
        legal
            .iter()
            .map(|m| format_hodges(position, legal, m))
            .collect()
    }

    /// How many legal moves the side to move has.
    fn num_legal_moves(&mut self) -> usize {
        self.legal().len()
    }

    /// The policy legs of every legal move as little-endian bytes `(offsets, legs)`: int64
    /// offsets [M+1] and int32 flat entries `plane · 361 + point` [L] (`Game.legal_policy` in
    /// Python gives the numpy arrays).
    fn _legal_legs_bytes<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        self.legal();
        let legal = self.legal.as_deref().unwrap_or_default();
        let position = self.game.position();
        let mut offsets: Vec<u8> = Vec::with_capacity((legal.len() + 1) * 8);
        let mut legs: Vec<u8> = Vec::with_capacity(legal.len() * 4 * 2);
        let mut count: i64 = 0;
        offsets.extend_from_slice(&count.to_le_bytes());
        for mv in legal {
            let encoded = encode_move(position, mv).map_err(rules_error)?;
            for entry in encoded.iter() {
                legs.extend_from_slice(&(entry as i32).to_le_bytes());
            }
            count += encoded.len() as i64;
            offsets.extend_from_slice(&count.to_le_bytes());
        }
        Ok((PyBytes::new(py, &offsets), PyBytes::new(py, &legs)))
    }

    /// The input planes of the current position as little-endian float32 bytes (142 × 361,
    /// plane-major; `Game.planes` in Python gives the numpy array), with this game's
    /// repetition count and ply fraction (plies played / `max_plies`; 0 without a cap). Seen
    /// by the side to move, or by `perspective` (`"black"`/`"white"`): the planes that side
    /// would get were it to move here (what an environment shows the waiting player). The
    /// attack planes (140, 141) are filled only with `attack_planes`.
    #[pyo3(signature = (perspective=None, attack_planes=false))]
    fn _planes_bytes<'py>(
        &self,
        py: Python<'py>,
        perspective: Option<&str>,
        attack_planes: bool,
    ) -> PyResult<Bound<'py, PyByteArray>> {
        let mut features = vec![0f32; FEATURE_LEN];
        let mut input = FeatureInput::from_game(&self.game).with_attack_planes(attack_planes);
        let turned;
        if let Some(color) = perspective {
            let color = parse_color(color)?;
            if color != self.game.position().side_to_move() {
                let mut position = self.game.position().clone();
                position.set_side_to_move(color);
                turned = position;
                input.position = &turned;
            }
        }
        encode_position(&input, &mut features).map_err(rules_error)?;
        // A bytearray, so the numpy array over it is writable (torch.from_numpy warns otherwise).
        Ok(PyByteArray::new(py, &f32_bytes(&features)))
    }

    /// Plays a move — a legal-move index (int) or a text in canonical or Hodges notation (any
    /// path with a legal effect) — and returns it in canonical notation.
    fn play(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<String> {
        self.check_not_over()?;
        let mv = self.find_move(mv)?;
        Ok(self.play_move(mv))
    }

    /// Takes back the last move and returns it (canonical notation).
    fn undo(&mut self) -> PyResult<String> {
        let mv = self
            .game
            .undo()
            .ok_or_else(|| PyIndexError::new_err("no move to undo"))?;
        self.legal = None;
        self.outcome = self.earlier_outcomes.pop().flatten();
        Ok(mv.to_string())
    }

    /// A move (index or text) in canonical notation, without playing it.
    fn canonical(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<String> {
        Ok(self.find_move(mv)?.to_string())
    }

    /// A move (index or text) in Hodges-style notation, without playing it.
    fn hodges(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<String> {
        let mv = self.find_move(mv)?;
        let legal = self.legal().to_vec();
        Ok(format_hodges(self.game.position(), &legal, &mv))
    }

    /// The index of a legal move given as text (canonical or Hodges) among the legal moves.
    fn move_index(&mut self, text: &str) -> PyResult<usize> {
        let mv = parse_move(&self.game, text).map_err(rules_error)?;
        self.legal()
            .iter()
            .position(|m| *m == mv)
            .ok_or_else(|| rules_error(format!("move {text:?} is not legal in this position")))
    }

    /// `None` while the game goes on, else `(winner, reason)`: winner `"black"`, `"white"` or
    /// `None` for a draw, reason as the rules name it (`CommandDestroyed`, `Repetition`,
    /// `MaxPlies`, `MaterialAdjudication`, …).
    fn outcome(&mut self) -> Option<(Option<String>, String)> {
        outcome_tuple(self.current_outcome())
    }

    /// Whether the game has ended (§10, or the ply cap).
    fn is_over(&mut self) -> bool {
        self.current_outcome().is_some()
    }

    /// §10.3: whether `color` would have a move, were it its turn, after which the other side
    /// no longer survives (the rules crate's `gives_check`).
    fn gives_check(&self, color: &str) -> PyResult<bool> {
        let color = parse_color(color)?;
        Ok(koshogi_rules::gives_check(
            self.game.position(),
            color,
            self.game.options(),
        ))
    }

    /// +1, 0 or −1 for `color` if the game is over, else `None`.
    fn score(&mut self, color: &str) -> PyResult<Option<i32>> {
        let color = parse_color(color)?;
        Ok(self.current_outcome().map(|o| o.score_for(color)))
    }

    /// `"black"` or `"white"`.
    #[getter]
    fn side_to_move(&self) -> String {
        self.game.position().side_to_move().to_string()
    }

    /// Moves played in this game.
    #[getter]
    fn plies_played(&self) -> u32 {
        self.game.plies_played()
    }

    /// The ply cap, if any.
    #[getter]
    fn max_plies(&self) -> Option<u32> {
        self.game.max_plies()
    }

    /// The material margin that decides a capped game, if any.
    #[getter]
    fn cap_material(&self) -> Option<u32> {
        self.cap_material
    }

    /// The §12 options in force, as JSON.
    fn rules_json(&self) -> PyResult<String> {
        serde_json::to_string(self.game.options()).map_err(rules_error)
    }

    /// How often the current position has occurred in this game (1 = the first time).
    #[getter]
    fn repetition_count(&self) -> u32 {
        self.game.repetition_count()
    }

    /// The position this game started from, as KSFEN (with its move number): with the rules,
    /// the cap and `history()` it rebuilds the game (what pickling does).
    fn initial_ksfen(&self) -> String {
        let mut start = self.game.clone();
        while start.undo().is_some() {}
        start.position().to_ksfen(true)
    }

    /// The moves played so far, in canonical notation.
    fn history(&self) -> Vec<String> {
        self.game.moves().map(|m| m.to_string()).collect()
    }

    /// The current position as KSFEN (with the move number unless `move_number=False`).
    #[pyo3(signature = (move_number=true))]
    fn ksfen(&self, move_number: bool) -> String {
        self.game.position().to_ksfen(move_number)
    }

    /// Leaf count `depth` plies below the current position (§14.2; repetition ignored).
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        if depth > 6 {
            return Err(rules_error(format!(
                "perft depth {depth} is out of reach (at most 6)"
            )));
        }
        let position = self.game.position().clone();
        let options = *self.game.options();
        Ok(py.detach(|| koshogi_rules::perft::perft(&position, depth, &options)))
    }

    /// Plays `plies` uniformly random legal moves (or until the game ends) with a seeded
    /// generator, all in Rust: the batched form of `play` for fast rollouts. Returns the
    /// number of moves played.
    #[pyo3(signature = (plies, seed))]
    fn play_random(&mut self, plies: u32, seed: u64) -> u32 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut played = 0;
        while played < plies && self.current_outcome().is_none() {
            let legal = self.legal();
            let mv = legal[rng.random_range(0..legal.len())];
            self.play_move(mv);
            played += 1;
        }
        played
    }

    /// The index (among the legal moves) of the move the `greedy` baseline picks: the best
    /// immediate material gain, ties broken by a generator seeded with `seed`
    /// (koshogi-baselines, as `koshogi arena` plays it). `None` when there is no legal move.
    #[pyo3(signature = (seed=0))]
    fn greedy_move(&mut self, seed: u64) -> Option<usize> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mv = koshogi_baselines::greedy_move(&self.game, &mut rng)?;
        self.legal().iter().position(|m| *m == mv)
    }

    /// The index of the move alpha-beta at `depth` plies (1 to the baselines' `MAX_DEPTH`) picks, ties broken by
    /// `seed` (koshogi-baselines' `ab:<depth>`). `None` when there is no legal move.
    #[pyo3(signature = (depth, seed=0))]
    fn alphabeta_move(&mut self, py: Python<'_>, depth: u32, seed: u64) -> PyResult<Option<usize>> {
        let max = koshogi_baselines::MAX_DEPTH;
        if !(1..=max).contains(&depth) {
            return Err(rules_error(format!("alpha-beta depth {depth}: 1 to {max}")));
        }
        let game = self.game.clone();
        let mv = py.detach(|| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            koshogi_baselines::alphabeta_move(
                &game,
                &koshogi_baselines::SearchLimits::depth(depth),
                &mut rng,
            )
        });
        Ok(mv.and_then(|mv| self.legal().iter().position(|m| *m == mv)))
    }

    /// `color`'s material minus its opponent's on the baselines' scale (general 50, pawn 1).
    fn material_balance(&self, color: &str) -> PyResult<f64> {
        let color = parse_color(color)?;
        Ok(koshogi_rules::material::baseline_balance(
            self.game.position(),
            color,
        ))
    }

    /// The board as text (files 19…1 across, ranks a…s down; Black upper case).
    fn board_text(&self) -> String {
        koshogi_viewer::board_diagram(self.game.position())
    }

    /// The board as the SVG picture the web viewer draws, with the last move highlighted.
    fn svg(&self) -> String {
        let mut before = self.game.clone();
        let last = before.undo();
        let last = last.map(|mv| koshogi_viewer::LastMove {
            before: before.position(),
            mv,
        });
        koshogi_viewer::render_svg(self.game.position(), last)
    }

    /// An independent copy (history, options and cap included), of the caller's class (the
    /// Python `koshogi.Game` subclass stays itself).
    fn copy<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let clone = slf.get_type().call0()?;
        let state = slf.borrow().clone();
        *clone.cast::<Game>()?.borrow_mut() = state;
        Ok(clone)
    }

    fn __copy__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        Game::copy(slf)
    }

    fn __deepcopy__<'py>(
        slf: &Bound<'py, Self>,
        _memo: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        Game::copy(slf)
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, plies_played={})",
            self.game.position().to_ksfen(true),
            self.game.plies_played()
        )
    }
}

/// The native module: [`Game`], [`KoshogiError`], `perft` and the layout constants.
#[pymodule]
fn _koshogi(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add("KoshogiError", m.py().get_type::<KoshogiError>())?;
    m.add("INPUT_PLANES", INPUT_PLANES)?;
    m.add("POLICY_PLANES", POLICY_PLANES)?;
    m.add("BOARD_SIZE", BOARD_SIZE)?;
    m.add("POINTS", POINTS)?;
    m.add("FEATURE_VERSION", FEATURE_VERSION)?;
    m.add("MOVE_ENCODING_VERSION", MOVE_ENCODING_VERSION)?;
    m.add("START_KSFEN", koshogi_rules::START_KSFEN)?;
    Ok(())
}
