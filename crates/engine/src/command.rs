//! One protocol input line as a [`Command`]. Parsing is pure and total: any text yields a
//! command or an error message, never a panic (docs/engine-protocol.md lists the grammar).

use std::time::Duration;

/// Where `position` starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionSpec {
    StartPos,
    /// A KSFEN string (`<board> <side> [<move number>]`).
    Ksfen(String),
}

/// Limits of one `go`; the search ends at whichever comes first. Neither given: the
/// `simulations` option.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GoLimits {
    pub visits: Option<u32>,
    pub movetime: Option<Duration>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `koshogi`: identify and list the options.
    Hello,
    IsReady,
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
    Quit,
}

/// Parses one line; `Ok(None)` for a blank line.
pub fn parse_command(line: &str) -> Result<Option<Command>, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&head, rest)) = words.split_first() else {
        return Ok(None);
    };
    let command = match head {
        "koshogi" => Command::Hello,
        "isready" => Command::IsReady,
        "stop" => Command::Stop,
        "quit" => Command::Quit,
        "setoption" => parse_setoption(line)?,
        "position" => parse_position(rest)?,
        "go" => Command::Go(parse_go(rest)?),
        _ => return Err(format!("unknown command {head:?}")),
    };
    if matches!(
        command,
        Command::Hello | Command::IsReady | Command::Stop | Command::Quit
    ) && !rest.is_empty()
    {
        return Err(format!("{head} takes no arguments"));
    }
    Ok(Some(command))
}

/// `setoption name <name> value <value…>`: the value is the rest of the line (it may hold
/// spaces, e.g. a JSON object or a path).
fn parse_setoption(line: &str) -> Result<Command, String> {
    let usage = "usage: setoption name <model|simulations|threads|rules> value <value>";
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

/// `go [visits N] [movetime MS]`.
fn parse_go(words: &[&str]) -> Result<GoLimits, String> {
    let mut limits = GoLimits::default();
    let mut i = 0;
    while i < words.len() {
        let value = words.get(i + 1).copied();
        let number = |what: &str| -> Result<u64, String> {
            value
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("go {what} needs a positive whole number"))
        };
        match words[i] {
            "visits" => limits.visits = Some(number("visits")?.min(u32::MAX as u64) as u32),
            "movetime" => limits.movetime = Some(Duration::from_millis(number("movetime")?)),
            other => {
                return Err(format!(
                    "unknown go argument {other:?} (visits N, movetime MS)"
                ))
            }
        }
        i += 2;
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_commands_parse() {
        assert_eq!(parse_command("koshogi"), Ok(Some(Command::Hello)));
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
                movetime: Some(Duration::from_millis(500))
            })))
        );
        assert_eq!(
            parse_command("go"),
            Ok(Some(Command::Go(GoLimits::default())))
        );
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
