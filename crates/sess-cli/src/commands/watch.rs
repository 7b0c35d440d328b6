//! `sess archive --watch`: archive again within seconds of a change to the
//! agents' folders, until stopped.
//!
//! The folders are watched ([`sess::watch`]); a burst of changes is archived
//! once it has been quiet for a second (or after three seconds of steady
//! writing). When the system runs out of watches, or a folder cannot be
//! watched, it says so and looks every few seconds instead (a run over
//! unchanged files reads none of them). A folder that appears later is
//! watched, and archived, within a minute. A run that fails is said, and the
//! next one tries again.

use std::path::PathBuf;
use std::time::Duration;

use sess::watch::{Folders, Timing};
use sess_sources::SourceKind;

use crate::Outcome;
use crate::env::sources_env;
use crate::output::{Printed, note, warn};

/// Calls `archive` whenever the folders of `kinds` change; never returns (a
/// failed run is said and tried again).
pub(crate) fn run(kinds: &[SourceKind], archive: &mut dyn FnMut() -> anyhow::Result<()>) -> anyhow::Result<Outcome> {
    let roots: Vec<PathBuf> = kinds.iter().flat_map(|kind| kind.source().roots(sources_env())).collect();
    let mut folders = Folders::watch(&roots, Timing::SETTLED, &Printed);
    note(format_args!("watching {} folders; Ctrl-C stops", roots.iter().filter(|root| root.exists()).count()));
    loop {
        if folders.next(Duration::from_secs(3600)).is_none() {
            continue;
        }
        // A run that fails (a database that went away) is said, and the
        // next change tries again.
        if let Err(err) = archive() {
            warn(format_args!("{err:#}; trying again at the next change"));
        }
    }
}
