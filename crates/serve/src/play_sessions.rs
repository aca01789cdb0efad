//! The games played from the page, by id: at most [`MAX_SESSIONS`] at once, the least recently
//! used dropped beyond that. Why a file of its own: the server's state ([`crate::app`]) holds
//! them and the play handlers ([`crate::api_play`]) change them; neither imports the other.

use std::collections::HashMap;

use koshogi_rules::{Color, Game};

use crate::error::ApiError;
use crate::network_worker::{EngineMove, Opponent};

/// Sessions kept at once; the least recently used is dropped beyond this.
pub const MAX_SESSIONS: usize = 16;
/// The games being played, by id.
#[derive(Default)]
pub struct PlaySessions {
    next_id: u64,
    clock: u64,
    sessions: HashMap<u64, Session>,
}

pub(crate) struct Session {
    pub(crate) game: Game,
    pub(crate) human: Color,
    pub(crate) opponent: Opponent,
    pub(crate) opponent_name: String,
    pub(crate) simulations: u32,
    pub(crate) last_used: u64,
    pub(crate) last_engine: Option<(EngineMove, usize)>,
}

impl PlaySessions {
    pub(crate) fn insert(&mut self, mut session: Session) -> u64 {
        self.next_id += 1;
        self.clock += 1;
        let id = self.next_id;
        session.last_used = self.clock;
        self.sessions.insert(id, session);
        while self.sessions.len() > MAX_SESSIONS {
            let oldest = self
                .sessions
                .iter()
                .min_by_key(|(_, s)| s.last_used)
                .map(|(&id, _)| id)
                .expect("not empty");
            self.sessions.remove(&oldest);
        }
        id
    }

    pub(crate) fn get(&mut self, id: u64) -> Result<&mut Session, ApiError> {
        self.clock += 1;
        let clock = self.clock;
        let session = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| ApiError::not_found(format!("no game {id} (it may have expired)")))?;
        session.last_used = clock;
        Ok(session)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use koshogi_rules::RulesOptions;

    fn session() -> Session {
        Session {
            game: Game::new(RulesOptions::default()),
            human: Color::Black,
            opponent: Opponent::Material,
            opponent_name: "material".into(),
            simulations: 1,
            last_used: 0,
            last_engine: None,
        }
    }

    #[test]
    fn the_least_recently_used_session_is_dropped_beyond_the_limit() {
        let mut sessions = PlaySessions::default();
        let first = sessions.insert(session());
        let second = sessions.insert(session());
        for _ in 2..MAX_SESSIONS {
            sessions.insert(session());
        }
        // Touch the first one: the second is now the oldest.
        sessions.get(first).unwrap();
        let newest = sessions.insert(session());
        assert_eq!(sessions.sessions.len(), MAX_SESSIONS);
        assert!(sessions.get(first).is_ok());
        assert!(sessions.get(newest).is_ok());
        assert_eq!(sessions.get(second).err().map(|e| e.status), Some(404));
    }
}
