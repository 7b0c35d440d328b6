//! Which sessions are working now, as the library tells it: each agent's
//! records read by its source ([`sess_sources::state`]), and a cache so that
//! a listing reads a session again only when it was written.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use sess_sources::{STALE_AFTER, SessionState, SourceKind, Transcript};

/// How recently a session must have been written for a listing to read its
/// state: older ones carry none (a turn left open that long is not running).
pub const LISTED_WITHIN: Duration = Duration::from_secs(24 * 60 * 60);

/// The state of `source`'s session `transcript`, last written at
/// `modified_ms`.
pub fn of(source: SourceKind, transcript: &Transcript, modified_ms: i64) -> SessionState {
    let source = source.source();
    sess_sources::state(transcript, &|tool| source.asks_user(tool), quiet_since(modified_ms))
}

/// How long ago `modified_ms` was.
fn quiet_since(modified_ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(now_ms().saturating_sub(modified_ms)).unwrap_or(0))
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The states a listing read, by session and the write they were read at:
/// each as the session ended then; whether it has gone stale since is told
/// when it is asked for.
#[derive(Default)]
pub(crate) struct States(Mutex<HashMap<(String, i64), SessionState>>);

impl States {
    /// The state of the session `key` written at `modified_ms`: read with
    /// `read` (its transcript) the first time, `None` when it cannot be read
    /// or was written more than [`LISTED_WITHIN`] ago.
    pub(crate) fn get(
        &self,
        key: &str,
        source: SourceKind,
        modified_ms: i64,
        read: impl FnOnce() -> Option<Transcript>,
    ) -> Option<SessionState> {
        if quiet_since(modified_ms) > LISTED_WITHIN {
            return None;
        }
        let cached = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(key.to_owned(), modified_ms))
            .copied();
        let ended = if let Some(state) = cached {
            state
        } else {
            let transcript = read()?;
            let state = of(source, &transcript, now_ms());
            let mut states = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            // Older writes of the same session are of no more use.
            states.retain(|(k, _), _| k != key);
            states.insert((key.to_owned(), modified_ms), state);
            state
        };
        Some(if ended == SessionState::Working && quiet_since(modified_ms) >= STALE_AFTER {
            SessionState::Stale
        } else {
            ended
        })
    }
}
