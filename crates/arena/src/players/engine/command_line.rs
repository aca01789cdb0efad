//! Splitting an engine's command line into program and arguments, the way a POSIX shell
//! splits words (without expanding anything): the arena starts the program directly, with no
//! shell in between, so a path with spaces is quoted, not escaped twice.
//!
//! The `shell-words` crate does the splitting: words are separated by spaces, tabs and
//! newlines; `'…'` keeps everything literally, `"…"` keeps everything but `\"`, `\\`, `\$` and
//! `` \` ``, a backslash outside quotes keeps the next character, and a `#` that starts a word
//! begins a comment.

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CommandLineError {
    #[error("the engine command is empty")]
    Empty,
    #[error("the engine command has a quote (' or \") that is never closed")]
    UnclosedQuote,
}

/// The words of `text` (see the module docs); at least one.
pub fn split_command_line(text: &str) -> Result<Vec<String>, CommandLineError> {
    // Unclosed quotes are the only thing `shell_words::split` rejects.
    let words = shell_words::split(text).map_err(|_| CommandLineError::UnclosedQuote)?;
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
        // A lone backslash at the end stays, as in sh.
        assert_eq!(split("a\\"), ["a\\"]);
    }

    #[test]
    fn rejects_what_it_cannot_split() {
        assert_eq!(split_command_line("   "), Err(CommandLineError::Empty));
        assert_eq!(
            split_command_line("# a comment"),
            Err(CommandLineError::Empty)
        );
        assert_eq!(
            split_command_line("a 'b"),
            Err(CommandLineError::UnclosedQuote)
        );
        assert_eq!(
            split_command_line("a \"b\\\""),
            Err(CommandLineError::UnclosedQuote)
        );
        assert_eq!(
            CommandLineError::UnclosedQuote.to_string(),
            "the engine command has a quote (' or \") that is never closed"
        );
    }
}
