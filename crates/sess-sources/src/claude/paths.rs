//! Where Claude Code keeps sessions (formats.md §1.1–§1.2): the config
//! folders, the project folder named after a cwd, and which files in it are
//! sessions.

use std::path::{Path, PathBuf};

use crate::listing::FoundFiles;

/// Project folder names are cut at this many UTF-16 code units (plus a hash).
pub(super) const MAX_NAME_UNITS: usize = 200;

/// Config folders: `$CLAUDE_CONFIG_DIR` (a comma-separated list; empty entries
/// ignored) when set, else `home/.claude`.
///
/// Entries are trimmed and repeated ones dropped. A value with no non-empty
/// entry (`""`, `","`) counts as unset. The caller reads the variable and
/// expands `~`; this function reads no environment.
pub fn config_dirs(claude_config_dir: Option<&str>, home: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    for entry in claude_config_dir.unwrap_or_default().split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let dir = PathBuf::from(entry);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    if dirs.is_empty() {
        dirs.push(home.join(".claude"));
    }
    dirs
}

/// The project folder name for a cwd: every UTF-16 code unit outside ASCII
/// `[A-Za-z0-9]` becomes `-` (so an emoji gives two dashes). Returns the full
/// name (may be over 200 units).
///
/// This is the CLI's `replace(/[^a-zA-Z0-9]/g, "-")` on a JavaScript string.
/// The CLI cuts a name over 200 units and appends a hash of the path that no
/// reader reproduces; [`list`](super::list) finds those folders by prefix.
/// The result is ASCII, so its length in bytes is its length in UTF-16 units.
pub fn project_dir_name(cwd: &str) -> String {
    crate::project_folders::folder_name(cwd)
}

/// Whether a file name directly in a project folder is a session: `*.jsonl`,
/// not a subagent transcript of the old flat layout (`agent-*.jsonl`), not
/// hidden. Sessions are named by UUID, but any other stem is accepted too, so a
/// future or hand-copied session still shows; only folders hold the other
/// `.jsonl` files (`<uuid>/subagents/…`, `journal.jsonl`), and folders are not
/// searched.
pub(super) fn session_stem(file_name: &str) -> Option<&str> {
    let stem = file_name.strip_suffix(".jsonl")?;
    (!stem.is_empty() && !stem.starts_with("agent-") && !stem.starts_with('.')).then_some(stem)
}

/// The session files directly in a project folder, `(id, path)` sorted by
/// path, added to `found`; none when the folder is missing or unreadable. A
/// name that looks like a session but cannot be inspected (a dangling link) is
/// kept, so that reading it reports the problem; folders are left out; other
/// files that are not regular (a FIFO, a device) go to `found.skipped`.
pub(super) fn session_files_in(folder: &Path, found: &mut FoundFiles) {
    found.add_folder(folder, session_stem);
}

/// The project folder the CLI makes for `cwd`: [`project_dir_name`], or for a
/// name over [`MAX_NAME_UNITS`], its first units, `-` and the path's hash:
/// Java's `String.hashCode` of the path's UTF-16 units, its absolute value in
/// base 36 (what the CLI appends, checked against the folders it made).
pub(crate) fn project_folder(cwd: &str) -> String {
    let name = project_dir_name(cwd);
    if name.len() <= MAX_NAME_UNITS {
        return name;
    }
    let hash = cwd.encode_utf16().fold(0_i32, |hash, unit| hash.wrapping_mul(31).wrapping_add(i32::from(unit)));
    let mut value = hash.unsigned_abs();
    let mut digits = Vec::new();
    loop {
        digits.push(b"0123456789abcdefghijklmnopqrstuvwxyz"[(value % 36) as usize]);
        value /= 36;
        if value == 0 {
            break;
        }
    }
    digits.reverse();
    format!("{}-{}", &name[..MAX_NAME_UNITS], String::from_utf8_lossy(&digits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_folders_end_with_the_hash_the_cli_appends() {
        // Two of the folders Claude Code 2.1.332 made (fixtures/claude-code/real-2.1.332).
        let base = "/tmp/sess-claude-code/x/長い-🚀/a-rather-long-folder-name-for-the-claude-code-interop-test-1/a-rather-long-folder-name-for-the-claude-code-interop-test-2/a-rather-long-folder-name-for-the-claude-code-interop-test-3/a-rather-long-folder-name-for-the-claude-code-interop-test-4";
        assert!(project_folder(&format!("{base}/one")).ends_with("-in-y1pwji"));
        assert!(project_folder(&format!("{base}/two")).ends_with("-in-y1q0h0"));
        assert_eq!(project_folder(&format!("{base}/one")).len(), MAX_NAME_UNITS + 7);
        assert_eq!(project_folder("/home/dev/app.v2"), "-home-dev-app-v2");
    }
}
