//! Where new timestamps come from.

use std::fmt::Debug;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A source of the current time, so tests can fix it.
pub trait Clock: Debug + Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
        i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
    }
}

/// A clock that starts at a fixed time and advances one millisecond per reading.
#[derive(Debug)]
pub struct SteppingClock(AtomicI64);

impl SteppingClock {
    /// A clock whose first reading is `start_ms`.
    pub fn new(start_ms: i64) -> Self {
        Self(AtomicI64::new(start_ms))
    }
}

impl Clock for SteppingClock {
    fn now_ms(&self) -> i64 {
        self.0.fetch_add(1, Ordering::Relaxed)
    }
}
