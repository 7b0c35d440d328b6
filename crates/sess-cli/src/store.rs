//! Stores by URL, opened by the library ([`sess::store`]); the names a `dir:`
//! store skips are warned about here.

use std::sync::Arc;

use sess::store::Missing;
use sess_store::Backend;

/// Opens the store `url` names, which must exist.
pub(crate) fn open(url: &str) -> anyhow::Result<Arc<dyn Backend>> {
    open_with(url, Missing::Refused)
}

/// Opens the store `url` names; with [`Missing::Created`] a store that does
/// not exist yet is made.
pub(crate) fn open_with(url: &str, missing: Missing) -> anyhow::Result<Arc<dyn Backend>> {
    let opened = sess::store::open(url, missing)?;
    crate::output::warn_skipped(&opened.skipped);
    Ok(opened.backend)
}
