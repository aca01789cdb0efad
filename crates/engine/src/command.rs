//! One protocol input line as a [`Command`]. Parsing is pure and total: any text yields a
//! command or an error message, never a panic (docs/engine-protocol.md lists the grammar).

pub use crate::go_limits::{parse_go, GoClock, GoLimits};

/// Where `position` starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionSpec {
    StartPos,
    /// A KSFEN string (`<board> <side> [<move number>]`).
    Ksfen(String),
}

/// Which handshake a client used: the reply ends with `koshogiok`, `usiok` or `uciok`, so a
/// USI or UCI client finds the word it waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Koshogi,
    Usi,
    Uci,
}

impl Dialect {
    /// The line that ends the identification.
    pub fn ok_line(self) -> &'static str {
        match self {
            Dialect::Koshogi => "koshogiok",
            Dialect::Usi => "usiok",
            Dialect::Uci => "uciok",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `koshogi` (or `usi`, `uci`): identify and list the options.
    Hello(Dialect),
    IsReady,
    /// `usinewgame` / `ucinewgame`: accepted; the engine keeps nothing between searches.
    NewGame,
    /// `gameover win|lose|draw` (USI): accepted, nothing to do.
    GameOver,
    SetOption {
        name: String,
        value: String,
    },
    Position {
        start: PositionSpec,
        moves: Vec<String>,
    },
    Go(GoLimits),
    Stop,
    /// The opponent played the move a `go ponder` search assumed.
    PonderHit,
    Quit,
}

/// Parses one line; `Ok(None)` for a blank line.
pub fn parse_command(line: &str) -> Result<Option<Command>, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&head, rest)) = words.split_first() else {
        return Ok(None);
    };
    let command = match head {
        "koshogi" => Command::Hello(Dialect::Koshogi),
        "usi" => Command::Hello(Dialect::Usi),
        "uci" => Command::Hello(Dialect::Uci),
        "isready" => Command::IsReady,
        "usinewgame" | "ucinewgame" => Command::NewGame,
        "gameover" => match rest {
            [result] if ["win", "lose", "draw"].contains(result) => {
                return Ok(Some(Command::GameOver))
            }
            _ => return Err("usage: gameover win|lose|draw".into()),
        },
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "setoption" => parse_setoption(line)?,
        "position" => parse_position(rest)?,
        "go" => Command::Go(parse_go(rest)?),
        _ => return Err(format!("unknown command {head:?}")),
    };
    if matches!(
        command,
        Command::Hello(_)
            | Command::IsReady
            | Command::NewGame
            | Command::Stop
            | Command::PonderHit
            | Command::Quit
    ) && !rest.is_empty()
    {
        return Err(format!("{head} takes no arguments"));
    }
    Ok(Some(command))
}

/// `setoption name <name> value <value…>`: the value is the rest of the line (it may hold
/// spaces, e.g. a JSON object or a path).
fn parse_setoption(line: &str) -> Result<Command, String> {
    let usage =
        "usage: setoption name <model|simulations|threads|rules|multipv|overhead> value <value>";
    let after = line
        .trim_start()
        .strip_prefix("setoption")
        .unwrap_or_default()
        .trim_start();
    let after_name = after.strip_prefix("name ").ok_or(usage)?.trim_start();
    let (name, value) = match after_name.find(" value") {
        Some(i) => {
            let value = &after_name[i + " value".len()..];
            if !(value.is_empty() || value.starts_with(char::is_whitespace)) {
                return Err(usage.into());
            }
            (after_name[..i].trim(), value.trim())
        }
        None => (after_name.trim(), ""),
    };
    if name.is_empty() {
        return Err(usage.into());
    }
    Ok(Command::SetOption {
        name: name.to_ascii_lowercase(),
        value: value.to_string(),
    })
}

/// `position startpos [moves …]` | `position ksfen <KSFEN fields> [moves …]`.
fn parse_position(words: &[&str]) -> Result<Command, String> {
    let usage = "usage: position startpos|ksfen <KSFEN> [moves <m1> <m2> ...]";
    let split = words.iter().position(|&w| w == "moves");
    let (head, moves) = match split {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let start = match head.split_first() {
        Some((&"startpos", [])) => PositionSpec::StartPos,
        Some((&"ksfen", fields)) if !fields.is_empty() => PositionSpec::Ksfen(fields.join(" ")),
        _ => return Err(usage.into()),
    };
    Ok(Command::Position {
        start,
        moves: moves.iter().map(|m| m.to_string()).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn well_formed_commands_parse() {
        assert_eq!(
            parse_command("koshogi"),
            Ok(Some(Command::Hello(Dialect::Koshogi)))
        );
        assert_eq!(parse_command("usi"), Ok(Some(Command::Hello(Dialect::Usi))));
        assert_eq!(parse_command("uci"), Ok(Some(Command::Hello(Dialect::Uci))));
        assert_eq!(parse_command("usinewgame"), Ok(Some(Command::NewGame)));
        assert_eq!(parse_command("ponderhit"), Ok(Some(Command::PonderHit)));
        assert_eq!(parse_command("gameover lose"), Ok(Some(Command::GameOver)));
        assert_eq!(
            parse_command("position startpos moves"),
            Ok(Some(Command::Position {
                start: PositionSpec::StartPos,
                moves: vec![]
            }))
        );
        assert_eq!(parse_command("  isready  "), Ok(Some(Command::IsReady)));
        assert_eq!(parse_command(""), Ok(None));
        assert_eq!(
            parse_command("setoption name Rules value {\"allow_pass\": false}"),
            Ok(Some(Command::SetOption {
                name: "rules".into(),
                value: "{\"allow_pass\": false}".into()
            }))
        );
        assert_eq!(
            parse_command("setoption name model value"),
            Ok(Some(Command::SetOption {
                name: "model".into(),
                value: String::new()
            }))
        );
        assert_eq!(
            parse_command("position ksfen a/b/c b 3 moves 10m-10h Px10l"),
            Ok(Some(Command::Position {
                start: PositionSpec::Ksfen("a/b/c b 3".into()),
                moves: vec!["10m-10h".into(), "Px10l".into()]
            }))
        );
        assert_eq!(
            parse_command("go visits 30 movetime 500"),
            Ok(Some(Command::Go(GoLimits {
                visits: Some(30),
                movetime: Some(Duration::from_millis(500)),
                ..GoLimits::default()
            })))
        );
        assert_eq!(
            parse_command("go"),
            Ok(Some(Command::Go(GoLimits::default())))
        );
        let Ok(Some(Command::Go(limits))) =
            parse_command("go nodes 64 btime 2000 wtime 1000 binc 100 winc 100")
        else {
            panic!("go with nodes and a clock")
        };
        assert_eq!(limits.visits, Some(64));
        assert_eq!(limits.clock.wtime, Some(Duration::from_millis(1000)));
        assert!(matches!(
            parse_command("go infinite"),
            Ok(Some(Command::Go(GoLimits { infinite: true, .. })))
        ));
    }

    #[test]
    fn malformed_commands_are_errors() {
        for bad in [
            "hello",
            "go visits",
            "go visits -3",
            "go visits 0",
            "go depth 3",
            "position",
            "position ksfen",
            "position startpos extra",
            "position startpos moves",
            "setoption",
            "setoption model 3",
            "setoption name",
            "setoption name x valuey 3",
            "quit now",
            "usi please",
            "ponderhit now",
            "gameover",
            "gameover maybe",
            "go nodes",
            "go infinite 5",
        ] {
            let parsed = parse_command(bad);
            // `position startpos moves` with no moves is fine (an empty move list).
            if bad == "position startpos moves" {
                assert!(parsed.is_ok());
                continue;
            }
            assert!(parsed.is_err(), "{bad:?} parsed as {parsed:?}");
        }
    }
}
