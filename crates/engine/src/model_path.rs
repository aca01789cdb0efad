//! Where a checkpoint's model card is, given what a user types: the card itself
//! (`…/step-000001000/model.json`) or the step directory holding it.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ModelPathError {
    #[error("{0}: no such checkpoint file or directory")]
    Missing(PathBuf),
    #[error("{0}: no model card (model.json or a single *.json) in this directory")]
    NoCard(PathBuf),
    #[error("{dir}: several model cards, name one of {cards:?}")]
    Ambiguous { dir: PathBuf, cards: Vec<PathBuf> },
}

/// The model card of a checkpoint given as a card file or a directory. In a directory,
/// `model.json` wins; otherwise there must be exactly one `*.json` file.
pub fn resolve_card(path: &Path) -> Result<PathBuf, ModelPathError> {
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    if !path.is_dir() {
        return Err(ModelPathError::Missing(path.to_path_buf()));
    }
    let preferred = path.join("model.json");
    if preferred.is_file() {
        return Ok(preferred);
    }
    let mut cards: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|_| ModelPathError::Missing(path.to_path_buf()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().and_then(|e| e.to_str()) == Some("json"))
        .collect();
    cards.sort();
    match cards.len() {
        0 => Err(ModelPathError::NoCard(path.to_path_buf())),
        1 => Ok(cards.remove(0)),
        _ => Err(ModelPathError::Ambiguous {
            dir: path.to_path_buf(),
            cards,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_resolves_to_its_model_json_and_a_missing_path_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            resolve_card(dir.path()),
            Err(ModelPathError::NoCard(_))
        ));
        std::fs::write(dir.path().join("other.json"), "{}").unwrap();
        assert_eq!(
            resolve_card(dir.path()).unwrap(),
            dir.path().join("other.json")
        );
        std::fs::write(dir.path().join("third.json"), "{}").unwrap();
        assert!(matches!(
            resolve_card(dir.path()),
            Err(ModelPathError::Ambiguous { .. })
        ));
        std::fs::write(dir.path().join("model.json"), "{}").unwrap();
        assert_eq!(
            resolve_card(dir.path()).unwrap(),
            dir.path().join("model.json")
        );
        assert!(matches!(
            resolve_card(&dir.path().join("nope")),
            Err(ModelPathError::Missing(_))
        ));
    }
}
