//! Kilo Code's sessions: the Kilo CLI's `kilo.db` (rows in OpenCode's
//! shape: the Kilo CLI is a fork of OpenCode), and the task folders of Kilo
//! Code's legacy VS Code extension (in Cline's shape: the extension is a fork
//! of Roo Code, itself a fork of Cline).
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
//! # The CLI's listing, transcript, usage, edits
//!
//! As OpenCode's, by the same code (`opencode.rs` says what is read and
//! how; its `Agent` is what differs): a session is located by the database
//! and its id, subagents' and archived sessions are not listed, text Kilo
//! added to a prompt is context titled `Added by Kilo`, usage is the steps
//! of the assistant messages, and the edits are those of the `write` and
//! `edit` calls.
//!
//! # Tasks of the VS Code extension
//!
//! Kilo Code's VS Code extension (before the CLI) keeps each task as a
//! folder in Cline's shape, `globalStorage/kilocode.kilo-code/tasks/<task
//! id>/`, in the user folder of VS Code, Code - Insiders, Cursor, Windsurf
//! or `VSCodium`, or of the VS Code server (as for Cline's and Roo Code's):
//! `api_conversation_history.json` (the session's file), `ui_messages.json`
//! and `task_metadata.json`; the task's history is in VS Code's state, not a
//! file, so the cwd is the `# Current Workspace Directory (…)` line of the
//! first message. They are read by Cline's task reader ([`crate::cline`]
//! says what is read and how), under this source: the roots, `find` and the
//! listing join the extension's folders to the CLI's database, and a task's
//! file is loaded, indexed and archived (with its companions) by that
//! reader, a database by OpenCode's; the edits are those of either's edit
//! tools.
//!
//! A task's file is told from Roo Code's and Cline's by its path (the
//! storage folder `kilocode.kilo-code`): its environment details name the
//! mode by its `<slug>`, as Roo Code's do, so a copy outside that folder is
//! taken for Roo Code's.

mod source;

pub(crate) use source::TASKS;
pub use source::{Kilo, SOURCE};

use crate::opencode::Agent;

/// The legacy VS Code extension's id: the name of its storage folder.
pub(crate) const EXTENSION_ID: &str = "kilocode.kilo-code";

/// The Kilo CLI, as an agent of OpenCode's family.
pub(crate) const KILO: Agent =
    Agent { source: SOURCE, name: "Kilo", folder: "kilo", database_var: "KILO_DB", database_stem: "kilo" };

#[cfg(test)]
#[path = "kilo/tests.rs"]
mod tests;
