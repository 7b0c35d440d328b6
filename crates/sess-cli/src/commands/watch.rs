//! `sess archive --watch`: archive again within seconds of a change to the
//! agents' folders, until stopped.
//!
//! The folders are watched (inotify, through `notify`); a burst of changes
//! is archived once it has been quiet for a second (or after three seconds
//! of steady writing). When the system runs out of watches, or a folder
//! cannot be watched, it says so and looks every few seconds instead (a run
//! over unchanged files reads none of them). Folders that appear later are
//! picked up by a run every minute. A run that fails is said, and the next
//! one tries again.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher as _};
use sess_sources::SourceKind;

use crate::Outcome;
use crate::env::sources_env;
use crate::output::{note, warn};

/// How long a change must be followed by quiet before it is archived.
const QUIET: Duration = Duration::from_secs(1);
/// The longest a change waits while writes go on.
const AT_MOST: Duration = Duration::from_secs(3);
/// How often it looks without a watch.
const POLL: Duration = Duration::from_secs(5);
/// How often it archives anyway (folders that did not exist yet).
const SWEEP: Duration = Duration::from_secs(60);

/// Calls `archive` whenever the folders of `kinds` change; never returns (a
/// failed run is said and tried again).
pub(crate) fn run(kinds: &[SourceKind], archive: &mut dyn FnMut() -> anyhow::Result<()>) -> anyhow::Result<Outcome> {
    let (sender, events) = mpsc::channel::<()>();
    let roots: Vec<PathBuf> =
        kinds.iter().flat_map(|kind| kind.source().roots(sources_env())).filter(|root| root.exists()).collect();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if event.is_ok_and(|e| !e.kind.is_access()) {
            let _ = sender.send(());
        }
    });
    let mut polling = false;
    let mut watcher = match watcher {
        Ok(watcher) => Some(watcher),
        Err(err) => {
            warn(format_args!("cannot watch the agents' folders ({err}); looking every {} s", POLL.as_secs()));
            polling = true;
            None
        }
    };
    if let Some(w) = watcher.as_mut() {
        for root in &roots {
            // A database file is watched with its folder (its log is beside it).
            let target = if root.is_file() { root.parent().map_or(root.clone(), PathBuf::from) } else { root.clone() };
            if let Err(err) = w.watch(&target, RecursiveMode::Recursive) {
                warn(format_args!(
                    "cannot watch `{}` ({err}); looking every {} s (raise fs.inotify.max_user_watches to watch)",
                    target.display(),
                    POLL.as_secs()
                ));
                polling = true;
                break;
            }
        }
    }
    note(format_args!("watching {} folders; Ctrl-C stops", roots.len()));
    let mut last = Instant::now();
    loop {
        let wait = if polling { POLL } else { SWEEP.saturating_sub(last.elapsed()) };
        match events.recv_timeout(wait) {
            Ok(()) => {
                let first = Instant::now();
                // Until it is quiet, or has waited long enough.
                while first.elapsed() < AT_MOST && events.recv_timeout(QUIET).is_ok() {}
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => polling = true,
        }
        // A run that fails (a database that went away) is said, and the
        // next change or sweep tries again.
        if let Err(err) = archive() {
            warn(format_args!("{err:#}; trying again at the next change"));
        }
        last = Instant::now();
    }
}
