//! When a search gives up: at the end of its time budget, or when its caller
//! raises a flag (the client that asked went away). SQLite is told through
//! the connection's progress handler, so a query is stopped, not merely
//! abandoned: its thread is free at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::Connection;

/// How many SQLite virtual-machine steps pass between two looks at a
/// [`Stop`]: a few microseconds of work.
const STEPS: i32 = 1_000;

/// When a search stops before it is done. [`Stop::never`] by default.
#[derive(Clone, Debug, Default)]
pub struct Stop {
    /// When its budget ends, and the budget.
    deadline: Option<(Instant, Duration)>,
    /// Raised by the caller: the answer is no longer wanted.
    flag: Option<Arc<AtomicBool>>,
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// It ran for its whole budget.
    OutOfTime {
        /// The budget.
        budget: Duration,
    },
    /// Its caller no longer wanted the answer.
    Cancelled,
}

impl Stop {
    /// A search that runs to its end.
    pub fn never() -> Self {
        Self::default()
    }

    /// A search that stops once it has run for `budget`, counted from now.
    pub fn after(budget: Duration) -> Self {
        Self { deadline: Some((Instant::now() + budget, budget)), flag: None }
    }

    /// This, and a stop as soon as `flag` is raised.
    #[must_use]
    pub fn or_when(self, flag: Arc<AtomicBool>) -> Self {
        Self { flag: Some(flag), ..self }
    }

    /// Why the search must stop now, if it must.
    pub fn reason(&self) -> Option<Stopped> {
        if self.flag.as_ref().is_some_and(|f| f.load(Ordering::Relaxed)) {
            return Some(Stopped::Cancelled);
        }
        self.deadline.filter(|(at, _)| Instant::now() >= *at).map(|(_, budget)| Stopped::OutOfTime { budget })
    }

    /// How long the search may still run, when its budget says.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|(at, _)| at.saturating_duration_since(Instant::now()))
    }

    /// `Err` when the search must stop now.
    pub(crate) fn check(&self) -> crate::Result<()> {
        self.reason().map_or(Ok(()), |reason| Err(crate::Error::Stopped { reason }))
    }
}

/// The [`Stop`] of the search a connection runs, which its progress handler
/// looks at ([`Slot::install`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Slot(Arc<Mutex<Stop>>);

impl Slot {
    /// Makes `conn` stop its statements when the stop in this slot says so.
    pub(crate) fn install(&self, conn: &mut Connection) -> rusqlite::Result<()> {
        let slot = Arc::clone(&self.0);
        conn.progress_handler(STEPS, Some(move || slot.lock().is_ok_and(|stop| stop.reason().is_some())))
    }

    /// Puts `stop` in the slot until the guard is dropped; then the
    /// connection runs to the end again.
    pub(crate) fn hold(&self, stop: &Stop) -> Held<'_> {
        self.set(stop.clone());
        Held(self)
    }

    fn set(&self, stop: Stop) {
        // A poisoned slot (a panic while it was held) is replaced.
        match self.0.lock() {
            Ok(mut slot) => *slot = stop,
            Err(poisoned) => *poisoned.into_inner() = stop,
        }
    }
}

/// A [`Stop`] in its [`Slot`], until this is dropped.
pub(crate) struct Held<'a>(&'a Slot);

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.set(Stop::never());
    }
}

/// `error` as the stop it was, when SQLite was interrupted because `stop`
/// said so.
pub(crate) fn stopped(stop: &Stop, error: crate::Error) -> crate::Error {
    match (&error, stop.reason()) {
        (crate::Error::Sql(rusqlite::Error::SqliteFailure(e, _)), Some(reason))
            if e.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            crate::Error::Stopped { reason }
        }
        _ => error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_say_why() {
        assert_eq!(Stop::never().reason(), None);
        assert_eq!(Stop::after(Duration::from_secs(3600)).reason(), None);
        assert_eq!(Stop::after(Duration::ZERO).reason(), Some(Stopped::OutOfTime { budget: Duration::ZERO }));
        let flag = Arc::new(AtomicBool::new(false));
        let stop = Stop::after(Duration::from_secs(3600)).or_when(Arc::clone(&flag));
        assert_eq!(stop.reason(), None);
        flag.store(true, Ordering::Relaxed);
        assert_eq!(stop.reason(), Some(Stopped::Cancelled));
    }
}
