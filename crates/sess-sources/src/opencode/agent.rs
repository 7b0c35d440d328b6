//! What tells apart the agents that keep their sessions in OpenCode's shape:
//! OpenCode itself, and Kilo (the Kilo CLI, a fork of OpenCode; `kilo.rs`).
//! Each has its data folder, its database's name and the variable that
//! moves it, and its name; the rows, the files of `storage/`, the
//! transcript, the usage and the edits are read by the same code for all
//! of them (the rest of `opencode/`).

use crate::source::SourceKind;

/// An agent of OpenCode's family.
pub(crate) struct Agent {
    /// The source its sessions are listed and loaded as.
    pub(crate) source: SourceKind,
    /// Its name in what a transcript shows (`Added by OpenCode`) and in
    /// errors.
    pub(crate) name: &'static str,
    /// Its data folder's name in `$XDG_DATA_HOME` (`opencode`).
    pub(crate) folder: &'static str,
    /// The environment variable that names its database (`OPENCODE_DB`).
    pub(crate) database_var: &'static str,
    /// Its database's name without `.db` (`opencode`); builds of other
    /// release channels write `<stem>-<channel>.db`.
    pub(crate) database_stem: &'static str,
}

/// OpenCode.
pub(crate) const OPENCODE: Agent = Agent {
    source: super::SOURCE,
    name: "OpenCode",
    folder: "opencode",
    database_var: "OPENCODE_DB",
    database_stem: "opencode",
};
