//! `--set KEY=VALUE`: one key of the run configuration changed on the command line, so that a
//! second seed or one changed lever needs no copy of a whole configuration file. The change is
//! made in the TOML text itself (comments and layout kept), so the copy a new run directory
//! keeps is the configuration the run really used, with a first line that says what was set.

use std::fmt;
use std::str::FromStr;

use toml_edit::{DocumentMut, Item, Value};

/// The longest key taken (`section.key`): a typo, not a path, is what a longer one would be.
const MAX_KEY_LEN: usize = 128;

/// One `--set section.key=value`. The value is read as TOML (`2`, `0.5`, `true`, `"cuda"`);
/// text that is not a TOML value is taken as a string (`inference.device=cuda`).
#[derive(Debug, Clone)]
pub struct ConfigOverride {
    path: Vec<String>,
    /// The value as given, for messages and the kept file's first line.
    text: String,
    value: Value,
}

/// Why a `--set` was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OverrideError {
    #[error("`{0}` is not KEY=VALUE (e.g. train.seed=2)")]
    NoEquals(String),
    #[error(
        "`{0}` is not a key of the run configuration: dotted names of letters, digits, `_` and \
         `-`, at most {MAX_KEY_LEN} characters (e.g. train.seed)"
    )]
    BadKey(String),
    #[error("the configuration text is not TOML: {0}")]
    NotToml(String),
    #[error("--set {key}: `{table}` is a value, not a section")]
    NotATable { key: String, table: String },
}

impl ConfigOverride {
    /// The dotted key, e.g. `train.seed`.
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

impl fmt::Display for ConfigOverride {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.key(), self.text)
    }
}

impl FromStr for ConfigOverride {
    type Err = OverrideError;

    fn from_str(arg: &str) -> Result<Self, Self::Err> {
        let (key, text) = arg
            .split_once('=')
            .ok_or_else(|| OverrideError::NoEquals(arg.to_string()))?;
        let key = key.trim();
        let bare = |part: &str| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        if key.len() > MAX_KEY_LEN || !key.split('.').all(bare) {
            return Err(OverrideError::BadKey(key.to_string()));
        }
        let text = text.trim();
        let value = text.parse::<Value>().unwrap_or_else(|_| Value::from(text));
        Ok(ConfigOverride {
            path: key.split('.').map(str::to_string).collect(),
            text: text.to_string(),
            value,
        })
    }
}

/// `text` with every override made, in order (the caller says where the text came from and what
/// was set). Whether the keys exist and the values fit is the configuration parser's to say (it
/// rejects unknown keys).
pub fn apply_overrides(text: &str, overrides: &[ConfigOverride]) -> Result<String, OverrideError> {
    let mut document = text
        .parse::<DocumentMut>()
        .map_err(|error| OverrideError::NotToml(error.to_string()))?;
    for change in overrides {
        let (last, tables) = change
            .path
            .split_last()
            .expect("a key has one part at least");
        let mut table = document.as_table_mut() as &mut dyn toml_edit::TableLike;
        for (depth, name) in tables.iter().enumerate() {
            let not_a_table = || OverrideError::NotATable {
                key: change.key(),
                table: change.path[..=depth].join("."),
            };
            let item = table.entry(name).or_insert_with(toml_edit::table);
            table = item.as_table_like_mut().ok_or_else(not_a_table)?;
        }
        let mut value = change.value.clone();
        value
            .decor_mut()
            .set_suffix("  # --set on the command line");
        table.insert(last, Item::Value(value));
    }
    Ok(document.to_string())
}

/// Where a configuration came from and what `--set` changed in it, as errors, the kept file's
/// first line and progress output name it: `a.toml with --set a=1 --set b=2`, or `place` alone.
pub fn place_with_overrides(place: &str, overrides: &[ConfigOverride]) -> String {
    match overrides {
        [] => place.to_string(),
        _ => format!("{place} with {}", overrides_in_words(overrides)),
    }
}

/// `--set a=1 --set b=2`.
fn overrides_in_words(overrides: &[ConfigOverride]) -> String {
    let words: Vec<String> = overrides.iter().map(|o| format!("--set {o}")).collect();
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(arg: &str) -> ConfigOverride {
        arg.parse().unwrap()
    }

    #[test]
    fn values_are_toml_and_bare_text_is_a_string() {
        let text =
            "[train]\nseed = 1 # the trainer's\nlr = 0.01\n\n[inference]\ndevice = \"cpu\"\n";
        let changes = [
            set("train.seed=2"),
            set("inference.device=cuda"),
            set("train.lr = 2e-3"),
        ];
        let changed = apply_overrides(text, &changes).unwrap();
        let table: toml::Table = toml::from_str(&changed).unwrap();
        assert_eq!(table["train"]["seed"].as_integer(), Some(2));
        assert_eq!(table["train"]["lr"].as_float(), Some(2e-3));
        assert_eq!(table["inference"]["device"].as_str(), Some("cuda"));
        assert_eq!(
            overrides_in_words(&changes),
            "--set train.seed=2 --set inference.device=cuda --set train.lr=2e-3"
        );
        // The rest of the text is kept as it was.
        assert!(changed.contains("[inference]\n"));
        assert!(!changed.contains("the trainer's"), "{changed}");
    }

    #[test]
    fn a_missing_section_or_key_is_added_for_the_parser_to_judge() {
        let changed = apply_overrides("[train]\nseed = 1\n", &[set("search.c_puct=2.5")]).unwrap();
        let table: toml::Table = toml::from_str(&changed).unwrap();
        assert_eq!(table["search"]["c_puct"].as_float(), Some(2.5));
        assert_eq!(table["train"]["seed"].as_integer(), Some(1));
    }

    #[test]
    fn bad_arguments_are_refused_with_what_was_wrong() {
        for (arg, want) in [
            ("train.seed", OverrideError::NoEquals("train.seed".into())),
            ("=2", OverrideError::BadKey(String::new())),
            ("train..seed=2", OverrideError::BadKey("train..seed".into())),
            ("train.se ed=2", OverrideError::BadKey("train.se ed".into())),
            ("tráin.seed=2", OverrideError::BadKey("tráin.seed".into())),
        ] {
            assert_eq!(arg.parse::<ConfigOverride>().err(), Some(want), "{arg}");
        }
        let long = format!("{}=1", "a".repeat(MAX_KEY_LEN + 1));
        assert!(matches!(
            long.parse::<ConfigOverride>(),
            Err(OverrideError::BadKey(_))
        ));
        assert_eq!(
            apply_overrides("[train]\nseed = 1\n", &[set("train.seed.x=2")]),
            Err(OverrideError::NotATable {
                key: "train.seed.x".into(),
                table: "train.seed".into()
            })
        );
        assert!(matches!(
            apply_overrides("[train\n", &[set("train.seed=2")]),
            Err(OverrideError::NotToml(_))
        ));
    }

    proptest::proptest! {
        /// Any argument on any text: made or refused, never a panic; a change that is made
        /// leaves TOML with the value under the key.
        #[test]
        fn any_argument_on_any_text_is_made_or_refused(
            key in "[a-c]{1,2}(\\.[a-c]{1,2}){0,2}",
            value in "[a-c0-9\"\\[\\], .e+-]{0,8}",
            garbage in "[a-c_.=\\[\\]\" 0-9-]{0,16}",
            text in "(\\[[a-c.]{0,4}\\]\n|[a-c]{1,2} = [0-9]{1,2}\n|# .{0,8}\n){0,6}",
        ) {
            for arg in [format!("{key}={value}"), garbage.clone()] {
                let Ok(change) = arg.parse::<ConfigOverride>() else { continue };
                let Ok(changed) = apply_overrides(&text, std::slice::from_ref(&change)) else { continue };
                let table: toml::Table = toml::from_str(&changed).unwrap();
                let mut item = &toml::Value::Table(table);
                for part in &change.path {
                    item = &item[part.as_str()];
                }
                let alone: toml::Table = toml::from_str(&format!("v = {}", change.value)).unwrap();
                proptest::prop_assert_eq!(item.to_string(), alone["v"].to_string());
            }
        }
    }
}
