//! The model calls a usage report sums, as the library reads them
//! ([`sess::usage`]), with a progress bar over the archived sessions read
//! and their warnings printed.

use sess_archive::{ArchivedSession, Vault};
use sess_catalog::Catalog;
use sess_usage::Row;

pub(crate) use sess::usage::Scope;

use crate::env::host;
use crate::output::{Printed, Progress};

/// Archived sessions read for their calls with fewer than this show no bar.
const PROGRESS_FROM: usize = 20;

/// The calls of the catalog's sessions (with `store`'s), then those of this
/// machine's sessions in the default archive that the catalog no longer has
/// ([`sess::usage::rows`]).
pub(crate) fn rows(catalog: &Catalog, store: Option<&str>, scope: &Scope) -> anyhow::Result<Vec<Row>> {
    let mut bar = Bar::default();
    Ok(sess::usage::rows(catalog, store, scope, host(), &Printed, &mut |done, total| bar.tell(done, total))?)
}

/// The calls of the sessions of the archive `vault` that `keep` keeps
/// ([`sess::usage::archived`]).
pub(crate) fn archived(
    vault: &mut dyn Vault,
    scope: &Scope,
    keep: &dyn Fn(&ArchivedSession) -> bool,
) -> anyhow::Result<Vec<Row>> {
    let mut bar = Bar::default();
    Ok(sess::usage::archived(vault, scope, keep, &Printed, &mut |done, total| bar.tell(done, total))?)
}

/// The bar over the archived sessions read, when there are many.
#[derive(Default)]
struct Bar(Option<Progress>);

impl Bar {
    fn tell(&mut self, done: usize, total: usize) {
        if total < PROGRESS_FROM {
            return;
        }
        let bar = self.0.get_or_insert_with(|| Progress::new(total as u64, "archived sessions"));
        bar.set(done as u64);
        if done == total {
            bar.finish();
        }
    }
}
