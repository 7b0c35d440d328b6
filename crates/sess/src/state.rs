//! Which sessions are working now, as the library tells it: each agent's
//! records read by its source ([`sess_sources::state`]), and a cache so that
//! a listing reads a session again only when it was written.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use sess_sources::{SessionState, SourceKind, Transcript};
use sess_store::Clock as _;

/// How recently a session must have been written for a listing to read its
/// state: older ones carry none (a turn left open that long is not running).
pub const LISTED_WITHIN: Duration = Duration::from_secs(24 * 60 * 60);

/// The state of `source`'s session `transcript`, last written at
/// `modified_ms`.
pub fn of(source: SourceKind, transcript: &Transcript, modified_ms: i64) -> SessionState {
    ended(source, transcript).aged(quiet_since(modified_ms))
}

/// The state `source`'s session `transcript` was in when its agent wrote
/// its end.
fn ended(source: SourceKind, transcript: &Transcript) -> SessionState {
    let source = source.source();
    sess_sources::state(transcript, &|tool| source.asks_user(tool), Duration::ZERO)
}

/// How long ago `modified_ms` was.
fn quiet_since(modified_ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(now_ms().saturating_sub(modified_ms)).unwrap_or(0))
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    sess_store::SystemClock.now_ms()
}

/// The states a listing read, by session: each as the session ended at the
/// write it was read at; whether it has gone stale since is told when it is
/// asked for.
#[derive(Default)]
pub(crate) struct States(Mutex<HashMap<String, (i64, SessionState)>>);

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
        let quiet = quiet_since(modified_ms);
        if quiet > LISTED_WITHIN {
            return None;
        }
        let states = || self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let cached = states().get(key).filter(|(at, _)| *at == modified_ms).map(|(_, state)| *state);
        let ended = if let Some(state) = cached {
            state
        } else {
            let state = ended(source, &read()?);
            states().insert(key.to_owned(), (modified_ms, state));
            state
        };
        Some(ended.aged(quiet))
    }
}
