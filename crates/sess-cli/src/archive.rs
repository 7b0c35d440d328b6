//! The archive of the library ([`sess::archive`]) in this process's
//! environment: its data folder and host name.

use std::path::PathBuf;

use sess_archive::Machine;

use crate::env::environment;

/// `$XDG_DATA_HOME/sess` (`~/.local/share/sess`): the archive, the machine
/// file and the catalog.
pub(crate) fn data_dir() -> PathBuf {
    let env = environment();
    sess::archive::data_dir(env.xdg_data_home, &env.home)
}

/// The default archive: `sqlite:$XDG_DATA_HOME/sess/archive.sqlite`.
pub(crate) fn default_url() -> String {
    sess::archive::default_url(&data_dir())
}

/// The default archive's URL when it exists (for the verbs that include it
/// without `--store`).
pub(crate) fn default_present() -> Option<String> {
    sess::archive::default_present(&data_dir())
}

/// This machine: made once in the data folder.
pub(crate) fn machine() -> sess::Result<Machine> {
    sess::archive::machine(&data_dir(), std::env::var("HOSTNAME").ok().as_deref())
}

pub(crate) use sess::archive::{existing, find, load, open, original, required};
