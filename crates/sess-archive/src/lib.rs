//! The archive: every agent's sessions kept in a `sess` store, losslessly
//! and incrementally, with the machine they came from.
//!
//! The catalog is a cache of files that may vanish; the archive is a store.
//! [`archive`] copies every session every [`Source`](sess_sources::Source)
//! finds into a [`Vault`] — an SQLite file ([`SqliteVault`], the default) or
//! a PostgreSQL schema a fleet shares ([`PostgresVault`]) — keeping the exact
//! bytes of every line (agents that append lines), of every version of a
//! file (agents that rewrite it), or a session's rows of an agent's database
//! (as a [`RowDump`](sess_sources::RowDump)), with the source, the
//! [`Machine`], the original path and times. A session whose original is
//! gone is marked, never removed. [`load`] reads an archived session with
//! its agent's own reader; [`restore`] writes its files back.

mod archiver;
mod batch;
mod contents;
mod error;
mod machine;
mod postgres;
mod read;
mod sqlite;
mod tsvector;
mod vault;
mod vectors;

pub use archiver::{Report, archive};
pub use contents::{Restored, load, restore, usage};
pub use error::{Error, Result};
pub use machine::{MACHINE_FILE, Machine, host_name};
pub use postgres::PostgresVault;
pub use sqlite::SqliteVault;
pub use vault::{
    ArchivedSession, Doc, DocKey, FileWrite, Filter, Grown, Hit, Kind, KnownFile, Meta, SessionChange, SessionWrite,
    Stored, StoredFile, Vault, Vectors,
};
pub use vectors::{embed, search_meaning};
