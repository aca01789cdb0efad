//! Splitting an engine's command line into program and arguments, the way a POSIX shell
//! splits words (without expanding anything): the arena starts the program directly, with no
//! shell in between, so a path with spaces is quoted, not escaped twice.
//!
//! Words are separated by whitespace; `'…'` keeps everything literally, `"…"` keeps everything
//! but `\"` and `\\`, and a backslash outside quotes keeps the next character.

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CommandLineError {
    #[error("the engine command is empty")]
    Empty,
    #[error("unterminated {0} quote in the engine command")]
    Unterminated(char),
    #[error("the engine command ends with a lone backslash")]
    TrailingBackslash,
}

/// The words of `text` (see the module docs); at least one.
pub fn split_command_line(text: &str) -> Result<Vec<String>, CommandLineError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(CommandLineError::Unterminated('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(CommandLineError::Unterminated('"')),
                        },
                        Some(c) => word.push(c),
                        None => return Err(CommandLineError::Unterminated('"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or(CommandLineError::TrailingBackslash)?);
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(CommandLineError::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<String> {
        split_command_line(text).unwrap()
    }

    #[test]
    fn splits_like_a_shell() {
        assert_eq!(split("koshogi engine"), ["koshogi", "engine"]);
        assert_eq!(
            split("  /opt/my engine/bin  --model 'run a/step-1'  "),
            ["/opt/my", "engine/bin", "--model", "run a/step-1"]
        );
        assert_eq!(
            split(r#""/opt/my engine/bin" --name "say \"hi\" \\ \n" x\ y ''"#),
            [
                "/opt/my engine/bin",
                "--name",
                r#"say "hi" \ \n"#,
                "x y",
                ""
            ]
        );
        assert_eq!(split("a'b'\"c\"d"), ["abcd"]);
    }

    #[test]
    fn rejects_what_it_cannot_split() {
        assert_eq!(split_command_line("   "), Err(CommandLineError::Empty));
        assert_eq!(
            split_command_line("a 'b"),
            Err(CommandLineError::Unterminated('\''))
        );
        assert_eq!(
            split_command_line("a \"b\\\""),
            Err(CommandLineError::Unterminated('"'))
        );
        assert_eq!(
            split_command_line("a\\"),
            Err(CommandLineError::TrailingBackslash)
        );
    }
}
