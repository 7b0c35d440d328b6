//! The machine sessions are archived from: an id made once and kept in the
//! data folder, and a name (the host's, unless the file says otherwise).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The file in the data folder that holds the machine.
pub const MACHINE_FILE: &str = "machine.json";

/// This machine, as the archive knows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// A random id made the first time, kept in [`MACHINE_FILE`]: stable
    /// across host renames, different on two machines.
    pub id: String,
    /// Its name in listings and filters: the host name when the file was
    /// made (edit the file to change it).
    pub name: String,
}

impl Machine {
    /// The machine kept in `data_dir` (`$XDG_DATA_HOME/sess`), made and
    /// saved the first time with a new id and `host` as its name.
    pub fn load_or_make(data_dir: &Path, host: &str) -> Result<Self> {
        let path = data_dir.join(MACHINE_FILE);
        match sess_sources::jsonl::read_file(&path) {
            Ok(bytes) => {
                serde_json::from_slice::<Self>(&bytes).ok().filter(|m| !m.id.trim().is_empty()).ok_or_else(|| {
                    Error::Invalid {
                        path: path.clone(),
                        message: "not a machine file (`{\"id\": …, \"name\": …}`); fix or remove it".to_owned(),
                    }
                })
            }
            Err(sess_sources::Error::NotFound { .. }) => {
                let machine = Self { id: uuid::Uuid::new_v4().to_string(), name: host.to_owned() };
                std::fs::create_dir_all(data_dir).map_err(|e| Error::io("making", data_dir, e))?;
                let mut text = serde_json::to_string_pretty(&machine).unwrap_or_default();
                text.push('\n');
                sess_store::durable::write_atomic(&path, text.as_bytes())
                    .map_err(|e| Error::Invalid { path: path.clone(), message: e.to_string() })?;
                Ok(machine)
            }
            Err(sess_sources::Error::Io { source, .. }) => Err(Error::io("reading", path, source)),
            Err(sess_sources::Error::NotASessionFile { kind, .. }) => {
                Err(Error::Invalid { path, message: format!("this is {kind}, not the machine file; remove it") })
            }
            Err(err) => Err(Error::Invalid { path, message: err.to_string() }),
        }
    }
}

/// The host's name: `/proc/sys/kernel/hostname` or `/etc/hostname`, else
/// `$HOSTNAME`, else `localhost`.
pub fn host_name(hostname_var: Option<&str>) -> String {
    let from_file = |path: &str| std::fs::read_to_string(PathBuf::from(path)).ok();
    from_file("/proc/sys/kernel/hostname")
        .or_else(|| from_file("/etc/hostname"))
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .or_else(|| hostname_var.map(str::to_owned).filter(|name| !name.is_empty()))
        .unwrap_or_else(|| "localhost".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_is_made_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("sess");
        let made = Machine::load_or_make(&data, "box").unwrap();
        assert_eq!(made.name, "box");
        let again = Machine::load_or_make(&data, "renamed").unwrap();
        assert_eq!(again, made);
        let other = Machine::load_or_make(&dir.path().join("other"), "box").unwrap();
        assert_ne!(other.id, made.id);
    }

    #[test]
    fn a_damaged_machine_file_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        sess_store::durable::write_atomic(&dir.path().join(MACHINE_FILE), b"{oops").unwrap();
        let err = Machine::load_or_make(dir.path(), "box").unwrap_err().to_string();
        assert!(err.contains(MACHINE_FILE), "{err}");
    }
}
