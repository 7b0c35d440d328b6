//! The events a feed keeps, and its readers.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::{Change, Event};

/// The newest events, numbered, and the readers waiting for more.
pub(super) struct Ring {
    state: Mutex<State>,
    arrived: Condvar,
    /// The same, for readers that wait asynchronously.
    notify: tokio::sync::Notify,
    max_events: usize,
    max_bytes: usize,
}

struct State {
    kept: VecDeque<Kept>,
    bytes: usize,
    /// The number the next event gets.
    next_id: u64,
    /// The feed stopped: no event will come.
    closed: bool,
}

struct Kept {
    event: Arc<Event>,
    bytes: usize,
}

impl Ring {
    pub(super) fn new(max_events: usize, max_bytes: usize) -> Self {
        Ring {
            state: Mutex::new(State { kept: VecDeque::new(), bytes: 0, next_id: 1, closed: false }),
            arrived: Condvar::new(),
            notify: tokio::sync::Notify::new(),
            max_events: max_events.max(1),
            max_bytes,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Numbers `change` and keeps it, forgetting the oldest events past the
    /// limits; wakes the readers.
    pub(super) fn push(&self, change: Change) {
        let mut state = self.state();
        let event = Event::new(state.next_id, crate::state::now_ms(), change);
        let bytes = event.json().len();
        state.next_id += 1;
        state.bytes += bytes;
        state.kept.push_back(Kept { event: Arc::new(event), bytes });
        while state.kept.len() > 1 && (state.kept.len() > self.max_events || state.bytes > self.max_bytes) {
            if let Some(old) = state.kept.pop_front() {
                state.bytes -= old.bytes;
            }
        }
        drop(state);
        self.arrived.notify_all();
        self.notify.notify_waiters();
    }

    /// No event will come: wakes the readers.
    pub(super) fn close(&self) {
        self.state().closed = true;
        self.arrived.notify_all();
        self.notify.notify_waiters();
    }

    pub(super) fn subscribe(self: &Arc<Self>, after: Option<u64>) -> Subscription {
        let next_id = self.state().next_id;
        // A number from the future (another run of the feed) reads from now.
        let next = after.map_or(next_id, |seen| seen.saturating_add(1).min(next_id));
        Subscription { ring: Arc::clone(self), next }
    }
}

/// A reader of a feed's events.
pub struct Subscription {
    ring: Arc<Ring>,
    /// The number of the next event it reads.
    next: u64,
}

/// Events a reader came back for that the feed no longer keeps: it should
/// read what it shows again whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Missed {
    /// The first event missed.
    pub first: u64,
    /// The last event missed.
    pub last: u64,
}

impl Subscription {
    /// The events after those it returned before, waiting at most `within`
    /// for one; none when none came in that time or the feed stopped.
    ///
    /// # Errors
    ///
    /// [`Missed`] when events it should read next are no longer kept; the
    /// next call goes on with the oldest kept.
    pub fn wait(&mut self, within: Duration) -> std::result::Result<Vec<Arc<Event>>, Missed> {
        let deadline = Instant::now() + within;
        let ring = Arc::clone(&self.ring);
        let mut state = ring.state();
        loop {
            if let Some(read) = read(&mut self.next, &state) {
                return read;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if state.closed || left.is_zero() {
                return Ok(Vec::new());
            }
            state = ring.arrived.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// [`wait`](Self::wait) for an async reader, without a time limit: the
    /// events after those it returned before, once there is one; none when
    /// the feed stopped.
    ///
    /// # Errors
    ///
    /// As [`wait`](Self::wait).
    pub async fn next(&mut self) -> std::result::Result<Vec<Arc<Event>>, Missed> {
        let ring = Arc::clone(&self.ring);
        loop {
            // Asked for before looking, so an event pushed in between wakes it.
            let pushed = ring.notify.notified();
            {
                let state = ring.state();
                if let Some(read) = read(&mut self.next, &state) {
                    return read;
                }
                if state.closed {
                    return Ok(Vec::new());
                }
            }
            pushed.await;
        }
    }

    /// The number of the last event it read (0 before the first).
    pub fn last_read(&self) -> u64 {
        self.next.saturating_sub(1)
    }
}

/// The events after `next` (moved past them), or what was missed; `None`
/// when there are none yet.
fn read(next: &mut u64, state: &State) -> Option<std::result::Result<Vec<Arc<Event>>, Missed>> {
    if let Some(oldest) = state.kept.front().map(|kept| kept.event.id)
        && *next < oldest
    {
        let missed = Missed { first: *next, last: oldest - 1 };
        *next = oldest;
        return Some(Err(missed));
    }
    let new: Vec<Arc<Event>> =
        state.kept.iter().filter(|kept| kept.event.id >= *next).map(|kept| Arc::clone(&kept.event)).collect();
    *next = new.last()?.id + 1;
    Some(Ok(new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionCard;
    use sess_sources::SourceKind;

    fn gone(id: &str) -> Change {
        Change::Gone {
            session: SessionCard {
                id: id.to_owned(),
                source: SourceKind::native(),
                session_id: id.to_owned(),
                title: None,
                cwd: None,
                created: None,
                modified_ms: 0,
                message_count: 0,
                forkable: true,
                store: None,
                machine: None,
                original: None,
                restore_command: None,
                state: None,
            },
        }
    }

    fn ids(events: &[Arc<Event>]) -> Vec<u64> {
        events.iter().map(|e| e.id).collect()
    }

    #[test]
    fn readers_go_on_from_the_last_event_they_saw_and_are_told_what_was_forgotten() {
        let ring = Arc::new(Ring::new(3, usize::MAX));
        let mut now = ring.subscribe(None);
        assert!(now.wait(Duration::ZERO).unwrap().is_empty());
        for id in ["a", "b"] {
            ring.push(gone(id));
        }
        assert_eq!(ids(&now.wait(Duration::ZERO).unwrap()), [1, 2]);
        assert_eq!(now.last_read(), 2);

        // One that comes back after event 1 reads 2 on.
        let mut back = ring.subscribe(Some(1));
        assert_eq!(ids(&back.wait(Duration::ZERO).unwrap()), [2]);

        // Past the limit the oldest go: a reader behind is told, then goes on.
        for id in ["c", "d", "e"] {
            ring.push(gone(id));
        }
        let mut late = ring.subscribe(Some(0));
        assert_eq!(late.wait(Duration::ZERO).unwrap_err(), Missed { first: 1, last: 2 });
        assert_eq!(ids(&late.wait(Duration::ZERO).unwrap()), [3, 4, 5]);
        assert_eq!(ids(&now.wait(Duration::ZERO).unwrap()), [3, 4, 5]);
    }

    /// A thread that pushes an event after 50 ms, then stops the feed.
    fn push_then_close(ring: &Arc<Ring>) -> std::thread::JoinHandle<()> {
        let ring = Arc::clone(ring);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            ring.push(gone("a"));
            std::thread::sleep(Duration::from_millis(50));
            ring.close();
        })
    }

    #[test]
    fn an_async_reader_wakes_when_an_event_comes_and_when_the_feed_stops() {
        let ring = Arc::new(Ring::new(8, usize::MAX));
        let mut reader = ring.subscribe(None);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let pusher = push_then_close(&ring);
        let limit = Duration::from_secs(10);
        let first = runtime.block_on(async { tokio::time::timeout(limit, reader.next()).await }).unwrap();
        assert_eq!(ids(&first.unwrap()), [1]);
        let last = runtime.block_on(async { tokio::time::timeout(limit, reader.next()).await }).unwrap();
        assert!(last.unwrap().is_empty());
        pusher.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }

    #[test]
    fn a_waiting_reader_wakes_when_an_event_comes_and_when_the_feed_stops() {
        let ring = Arc::new(Ring::new(8, usize::MAX));
        let mut reader = ring.subscribe(None);
        let pusher = push_then_close(&ring);
        assert_eq!(ids(&reader.wait(Duration::from_secs(10)).unwrap()), [1]);
        let began = Instant::now();
        assert!(reader.wait(Duration::from_secs(10)).unwrap().is_empty());
        assert!(began.elapsed() < Duration::from_secs(5));
        pusher.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    }
}
