//! How an async front-end calls the [`Library`]: on tokio's blocking pool
//! (its calls may wait on disk), and for a search, within a time budget and
//! cancelled when nobody waits for its answer any more.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::{Error, Library, Result, SearchHit, SearchParams};

/// Raised when the answer of a library call is no longer wanted: its client
/// went away, or the call ran out of its time budget. A library that runs a
/// long query looks at it ([`Cancel::is_cancelled`]) or hands its
/// [`flag`](Cancel::flag) to what runs the query, and then returns
/// [`Error::Cancelled`].
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A call nobody has cancelled yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Says the answer is no longer wanted.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the answer is no longer wanted.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag [`cancel`](Self::cancel) raises.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}

/// Cancels when dropped: when the future that waits for the answer is
/// dropped because its client went away, the call is told.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Runs `call` on the blocking pool: library calls may wait on disk. A call
/// that fails with [`Error::Failed`] is also told to the library
/// ([`Library::report`]).
pub async fn blocking<T: Send + 'static>(
    library: &Arc<dyn Library>,
    call: impl FnOnce(&dyn Library) -> Result<T> + Send + 'static,
) -> Result<T> {
    let shared = Arc::clone(library);
    let answer = tokio::task::spawn_blocking(move || call(shared.as_ref()))
        .await
        .unwrap_or_else(|e| Err(Error::Failed(Box::new(e))));
    if let Err(error @ Error::Failed(_)) = &answer {
        library.report(error);
    }
    answer
}

/// [`Library::search`] on the blocking pool, cancelled when it has run for
/// `budget` ([`Error::OutOfTime`]) or when this future is dropped (the
/// client went away): a slow query never keeps a thread, or the library,
/// busy for nobody.
pub async fn search_within(
    library: &Arc<dyn Library>,
    params: SearchParams,
    budget: Duration,
) -> Result<Vec<SearchHit>> {
    let cancel = Cancel::new();
    let on_drop = CancelOnDrop(cancel.clone());
    let call = blocking(library, move |l| l.search(&params, &cancel));
    let answer = match tokio::time::timeout(budget, call).await {
        Ok(answer) => answer,
        Err(_) => Err(Error::OutOfTime { budget }),
    };
    drop(on_drop);
    answer
}
