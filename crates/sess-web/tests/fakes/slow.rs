//! A [`Library`] whose search runs until it is cancelled: the fake the
//! tests of `sess serve`'s and `sess mcp`'s cancellation share
//! (`#[path]`-included by each).

use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use sess::{
    Cancel, Error, Forked, Library, ProjectCard, Result, SearchHit, SearchParams, SessionList, SessionPage,
    SessionsParams,
};

/// A library whose search runs until it is cancelled (or a minute passes).
pub(crate) struct Slow {
    /// Told `started` when a search begins, `cancelled` when it is cancelled.
    pub(crate) events: Mutex<Sender<&'static str>>,
}

impl Library for Slow {
    fn projects(&self) -> Result<Vec<ProjectCard>> {
        Ok(Vec::new())
    }
    fn sessions(&self, _: &SessionsParams) -> Result<SessionList> {
        Ok(SessionList::default())
    }
    fn session(&self, id: &str, _: Option<&str>) -> Result<SessionPage> {
        Err(Error::NotFound { what: id.into() })
    }
    fn search(&self, _: &SearchParams, cancel: &Cancel) -> Result<Vec<SearchHit>> {
        let events = self.events.lock().unwrap().clone();
        events.send("started").unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(60) {
            if cancel.is_cancelled() {
                events.send("cancelled").unwrap();
                return Err(Error::Cancelled);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(Vec::new())
    }
    fn fork(&self, id: &str, _: &str) -> Result<Forked> {
        Err(Error::NotFound { what: id.into() })
    }
}
