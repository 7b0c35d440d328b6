//! Watching the agents' folders: the paths that changed, a burst of writes
//! folded into one batch.
//!
//! The folders are watched through the operating system's events (inotify,
//! `FSEvents`, through `notify`); a burst is handed over once it has been
//! quiet for [`Timing::quiet`], or after [`Timing::at_most`] of steady
//! writing. When the system gives no events (it ran out of watches, a folder
//! cannot be watched), the caller is told so once and asked every
//! [`Timing::poll`] to look at everything itself ([`Batch::Look`]). A folder
//! that did not exist when the watch began is watched from the first
//! [`Timing::sweep`] after it appears, and the caller is asked to look then.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::Tell;

/// How changes are folded and how often the folders are looked at without
/// events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// How long a change must be followed by quiet before it is handed over.
    pub quiet: Duration,
    /// The longest a change waits while writes go on.
    pub at_most: Duration,
    /// How often to look at everything when there are no events.
    pub poll: Duration,
    /// How often to look for folders that did not exist.
    pub sweep: Duration,
}

impl Timing {
    /// For work that is heavy and need not be prompt (`sess archive
    /// --watch`): a burst once it has been quiet for a second.
    pub const SETTLED: Timing = Timing {
        quiet: Duration::from_secs(1),
        at_most: Duration::from_secs(3),
        poll: Duration::from_secs(5),
        sweep: Duration::from_secs(60),
    };

    /// For following agents as they write: a burst within a few tens of
    /// milliseconds.
    pub const LIVE: Timing = Timing {
        quiet: Duration::from_millis(25),
        at_most: Duration::from_millis(150),
        poll: Duration::from_secs(2),
        sweep: Duration::from_secs(60),
    };
}

/// What changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Batch {
    /// These paths (files or folders) were written, made or removed.
    Changed(Vec<PathBuf>),
    /// Look at everything: there are no events to say what changed, or a
    /// folder that did not exist is watched now.
    Look,
}

/// The agents' folders, watched.
pub struct Folders {
    events: mpsc::Receiver<Vec<PathBuf>>,
    /// Kept for its events; `None` when the system gives none.
    watcher: Option<RecommendedWatcher>,
    /// The folders not watched yet (they did not exist).
    waiting: Vec<PathBuf>,
    timing: Timing,
    last_look: Instant,
    last_sweep: Instant,
}

impl Folders {
    /// Watches `roots` (folders, or files: a file is watched with its folder,
    /// where its database's log is too). What cannot be watched is told to
    /// `tell`, and then every folder is looked at every [`Timing::poll`].
    pub fn watch(roots: &[PathBuf], timing: Timing, tell: &dyn Tell) -> Folders {
        let (sender, events) = mpsc::channel::<Vec<PathBuf>>();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event
                && !event.kind.is_access()
            {
                let _ = sender.send(event.paths);
            }
        });
        let mut folders = Folders { events, ..Folders::poll(timing) };
        match watcher {
            Ok(watcher) => folders.watcher = Some(watcher),
            Err(err) => {
                tell.warning(&format!(
                    "cannot watch the agents' folders ({err}); looking every {} s",
                    timing.poll.as_secs_f64()
                ));
                return folders;
            }
        }
        let mut targets: Vec<PathBuf> = roots.iter().map(|root| target(root)).collect();
        targets.sort();
        targets.dedup();
        for target in targets {
            if !target.exists() {
                folders.waiting.push(target);
            } else if let Err(err) = folders.add(&target) {
                tell.warning(&format!(
                    "cannot watch `{}` ({err}); looking every {} s (raise fs.inotify.max_user_watches to watch)",
                    target.display(),
                    timing.poll.as_secs_f64()
                ));
                folders.watcher = None;
                break;
            }
        }
        folders
    }

    /// No watch: the caller is asked to look at everything every
    /// [`Timing::poll`] (folders on a file system that gives no events).
    pub fn poll(timing: Timing) -> Folders {
        let (_, events) = mpsc::channel::<Vec<PathBuf>>();
        Folders {
            events,
            watcher: None,
            waiting: Vec::new(),
            timing,
            last_look: Instant::now(),
            last_sweep: Instant::now(),
        }
    }

    /// Whether it looks every [`Timing::poll`] for want of events.
    pub fn polling(&self) -> bool {
        self.watcher.is_none()
    }

    /// The next batch, waiting for it at most `within`; `None` when nothing
    /// changed in that time.
    pub fn next(&mut self, within: Duration) -> Option<Batch> {
        let started = Instant::now();
        loop {
            let now = Instant::now();
            if self.polling() && now.duration_since(self.last_look) >= self.timing.poll {
                self.last_look = now;
                return Some(Batch::Look);
            }
            if now.duration_since(self.last_sweep) >= self.timing.sweep {
                self.last_sweep = now;
                if self.sweep() {
                    return Some(Batch::Look);
                }
            }
            let left = within.saturating_sub(now.duration_since(started));
            if left.is_zero() {
                return None;
            }
            let wait = if self.polling() {
                left.min(self.timing.poll.saturating_sub(now.duration_since(self.last_look)))
            } else {
                left.min(self.timing.sweep.saturating_sub(now.duration_since(self.last_sweep)))
            };
            match self.events.recv_timeout(wait) {
                Ok(paths) => return Some(self.fold(paths)),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.watcher = None;
                }
            }
        }
    }

    /// `first` and the paths of the events that follow it until it is
    /// quiet, or it has waited long enough.
    fn fold(&mut self, first: Vec<PathBuf>) -> Batch {
        let began = Instant::now();
        let mut paths: BTreeSet<PathBuf> = first.into_iter().collect();
        while began.elapsed() < self.timing.at_most {
            let wait = self.timing.quiet.min(self.timing.at_most.saturating_sub(began.elapsed()));
            match self.events.recv_timeout(wait) {
                Ok(more) => paths.extend(more),
                Err(_) => break,
            }
        }
        Batch::Changed(paths.into_iter().collect())
    }

    /// Watches the folders that appeared; whether there were any.
    fn sweep(&mut self) -> bool {
        if self.watcher.is_none() {
            return false;
        }
        let appeared: Vec<PathBuf> = self.waiting.iter().filter(|dir| dir.exists()).cloned().collect();
        if appeared.is_empty() {
            return false;
        }
        self.waiting.retain(|dir| !appeared.contains(dir));
        for dir in &appeared {
            if self.add(dir).is_err() {
                self.watcher = None;
                break;
            }
        }
        true
    }

    fn add(&mut self, target: &Path) -> notify::Result<()> {
        match self.watcher.as_mut() {
            Some(watcher) => watcher.watch(target, RecursiveMode::Recursive),
            None => Ok(()),
        }
    }
}

/// What watching `root` watches: a folder itself, a file with its folder.
fn target(root: &Path) -> PathBuf {
    if root.is_file() { root.parent().map_or_else(|| root.to_owned(), Path::to_owned) } else { root.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods, reason = "a test writes into its own folder")]
    fn a_burst_of_writes_is_one_batch_and_a_folder_made_later_is_watched_at_the_sweep() {
        let dir = tempfile::tempdir().unwrap();
        let watched = dir.path().join("watched");
        std::fs::create_dir(&watched).unwrap();
        let later = dir.path().join("later");
        let timing = Timing { sweep: Duration::from_millis(300), ..Timing::LIVE };
        let mut folders = Folders::watch(&[watched.clone(), later.clone()], timing, &crate::Quiet);
        assert!(!folders.polling());
        assert_eq!(folders.next(Duration::from_millis(50)), None);

        let file = watched.join("a.jsonl");
        for line in 0..5 {
            std::fs::write(&file, format!("{line}\n")).unwrap();
        }
        match folders.next(Duration::from_secs(5)) {
            Some(Batch::Changed(paths)) => assert_eq!(paths, std::slice::from_ref(&file)),
            other => panic!("expected the file's change, got {other:?}"),
        }

        std::fs::create_dir(&later).unwrap();
        assert_eq!(folders.next(Duration::from_secs(5)), Some(Batch::Look));
        let made = later.join("b.jsonl");
        std::fs::write(&made, "{}\n").unwrap();
        match folders.next(Duration::from_secs(5)) {
            Some(Batch::Changed(paths)) => assert!(paths.contains(&made), "{paths:?}"),
            other => panic!("expected the new folder's file, got {other:?}"),
        }
    }
}
