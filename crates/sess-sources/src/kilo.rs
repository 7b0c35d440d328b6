//! Kilo Code's sessions: the Kilo CLI's `kilo.db` (rows in OpenCode's
//! shape: the Kilo CLI is a fork of OpenCode).
//!
//! # Where
//!
//! The data folder is `$XDG_DATA_HOME/kilo`, else `~/.local/share/kilo` (on
//! macOS too). The database is `$KILO_DB` when set (a path relative to the
//! data folder, or absolute), else `kilo.db` there; builds of channels other
//! than a release write `kilo-<channel>.db`, read too (such a build that
//! finds an `opencode-<channel>.db` of an older build in the data folder
//! uses that instead: not read). Kilo's `storage/` (its JSON files before
//! the database, in OpenCode's layout) is read as OpenCode's is. The names
//! tell Kilo's database from OpenCode's `opencode.db`, in a folder of its
//! own.
//!
//! # Listing, transcript, usage, edits
//!
//! As OpenCode's, by the same code (`opencode.rs` says what is read and
//! how; its `Agent` is what differs): a session is located by the database
//! and its id, subagents' and archived sessions are not listed, text Kilo
//! added to a prompt is context titled `Added by Kilo`, usage is the steps
//! of the assistant messages, and the edits are those of the `write` and
//! `edit` calls.
//!
//! # Sessions of the VS Code extension
//!
//! Kilo Code's VS Code extension (before the CLI) keeps each task as a
//! folder in Cline's shape under `globalStorage/kilocode.kilo-code/tasks/`.
//! Those are not read yet; they are a second kind of session of this source,
//! read by Cline's task reader: [`Kilo`]'s `roots`, `find` and `list` then
//! join the extension's folders to the database's, and `load`, `detect` and
//! `index` of a task's file go to that reader (`kilo/source.rs`).

mod source;

pub use source::{Kilo, SOURCE};

use crate::opencode::Agent;

/// The Kilo CLI, as an agent of OpenCode's family.
pub(crate) const KILO: Agent =
    Agent { source: SOURCE, name: "Kilo", folder: "kilo", database_var: "KILO_DB", database_stem: "kilo" };

#[cfg(test)]
#[path = "kilo/tests.rs"]
mod tests;
