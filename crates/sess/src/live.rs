//! The change feed: every agent's sessions followed as the agents write
//! them.
//!
//! A [`Feed`] watches every source's folders and databases
//! ([`watch`](crate::watch)), folds a burst of writes into one look, brings
//! the search catalog up to date for just the files that changed (an agent's
//! whole listing only when a file it did not know appears or goes, or its
//! database changes), and publishes what changed as [`Event`]s: a session
//! appeared, a session was written (with its new messages), a session is
//! gone. A file an agent rewrites whole (Copilot's, the Gemini CLI's JSON)
//! and a database row (OpenCode's) are changes like an appended line.
//!
//! One feed serves every reader of a process: each [`Subscription`] reads
//! the same events, numbered from 1, and one that names the last event it
//! saw goes on from there (the feed keeps the newest [`KEPT`] events, at most
//! [`KEPT_BYTES`] of them).

mod follow;
mod ring;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;
use sess_sources::Message;

use crate::{Host, Result, SessionCard, Tell};

pub use ring::{Missed, Subscription};

/// How many events a feed keeps for readers that come back.
pub const KEPT: usize = 4096;
/// How many bytes of events (as JSON) a feed keeps at most.
pub const KEPT_BYTES: usize = 32 << 20;

/// What changed, and when.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Its number: 1 for a feed's first event, one more for each.
    pub id: u64,
    /// When the feed saw it, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// What changed.
    #[serde(flatten)]
    pub change: Change,
    /// Its JSON, written once for every reader.
    #[serde(skip)]
    json: std::sync::OnceLock<String>,
}

impl Event {
    fn new(id: u64, at_ms: i64, change: Change) -> Event {
        Event { id, at_ms, change, json: std::sync::OnceLock::new() }
    }

    /// The event as JSON (what `Serialize` writes), written the first time
    /// it is asked for.
    pub fn json(&self) -> &str {
        self.json.get_or_init(|| serde_json::to_string(self).unwrap_or_default())
    }
}

/// A change to one session.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Change {
    /// A session that was not there.
    Appeared {
        /// It, as a listing shows it.
        session: SessionCard,
    },
    /// A session that was written.
    #[serde(rename_all = "camelCase")]
    Changed {
        /// It, as a listing shows it now.
        session: SessionCard,
        /// The index of the first of `messages` among its messages: the
        /// last one it had before, which may have grown, then the new ones.
        from: usize,
        /// Its messages from `from` on.
        messages: Vec<Message>,
        /// How many messages it has that it did not have before.
        new: usize,
    },
    /// A session whose file (or row) is gone.
    Gone {
        /// It, as it was last listed.
        session: SessionCard,
    },
}

impl Change {
    /// The session it is about.
    pub fn session(&self) -> &SessionCard {
        match self {
            Change::Appeared { session } | Change::Changed { session, .. } | Change::Gone { session } => session,
        }
    }
}

/// Every agent's sessions on a machine, followed; stops when dropped.
pub struct Feed {
    events: Arc<ring::Ring>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    polling: bool,
    run: u64,
}

impl Feed {
    /// Brings the catalog at `catalog` up to date and follows every agent's
    /// sessions in `host` from there on; what it notices on the way (a file
    /// it cannot read, folders it cannot watch) goes to `tell`.
    ///
    /// # Errors
    ///
    /// [`Error::Catalog`](crate::Error::Catalog) when the catalog cannot be
    /// opened or brought up to date.
    pub fn start(host: &Host, catalog: &Path, tell: Arc<dyn Tell>) -> Result<Feed> {
        Self::begin(follow::Follower::start(host.clone(), catalog, None, tell)?)
    }

    /// [`start`](Self::start) without the system's events: every folder is
    /// looked at every `every` (for folders on a file system that gives no
    /// events, such as a network mount).
    ///
    /// # Errors
    ///
    /// As [`start`](Self::start).
    pub fn start_polling(host: &Host, catalog: &Path, every: std::time::Duration, tell: Arc<dyn Tell>) -> Result<Feed> {
        Self::begin(follow::Follower::start(host.clone(), catalog, Some(every), tell)?)
    }

    fn begin(mut follower: follow::Follower) -> Result<Feed> {
        let events = Arc::new(ring::Ring::new(KEPT, KEPT_BYTES));
        let stop = Arc::new(AtomicBool::new(false));
        let polling = follower.polling();
        let thread = {
            let events = Arc::clone(&events);
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("sess-feed".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        for change in follower.next(STOP_CHECK) {
                            events.push(change);
                        }
                    }
                })
                .map_err(|e| crate::Error::Failed(Box::new(e)))?
        };
        let run = u64::try_from(crate::state::now_ms()).unwrap_or(0);
        Ok(Feed { events, stop, thread: Some(thread), polling, run })
    }

    /// Reads its events: those after the event numbered `after` (a reader
    /// that comes back names the last it saw), or from now on.
    pub fn subscribe(&self, after: Option<u64>) -> Subscription {
        self.events.subscribe(after)
    }

    /// This run of the feed, told apart from others (the millisecond it
    /// started): its events' numbers mean nothing to another run.
    pub fn run(&self) -> u64 {
        self.run
    }

    /// Whether it looks at the folders every few seconds, for want of the
    /// system's events.
    pub fn polling(&self) -> bool {
        self.polling
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        self.events.close();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// How often the feed's thread looks whether it should stop.
const STOP_CHECK: Duration = Duration::from_millis(200);
