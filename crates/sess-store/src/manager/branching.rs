//! Moving the leaf and starting sessions from parts of this one: `branch`,
//! `reset_leaf`, `branch_with_summary`, `create_branched_session`, `fork`,
//! `move_to`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sess_core::{Entry, EntryId, EntryKind};

use super::SessionManager;
use super::append::BaseFields;
use crate::error::{Error, Result};

impl SessionManager {
    /// Moves the leaf to an existing entry; the next append branches there.
    /// Nothing is written.
    pub fn branch(&mut self, id: &str) -> Result<()> {
        let entry = self.entry(id).ok_or_else(|| Error::EntryNotFound { id: id.to_owned() })?;
        self.leaf = Some(entry.id().clone());
        // Branching from a past state is a past fork: a new segment, always allowed.
        self.read_only = None;
        Ok(())
    }

    /// Sets the leaf to `null`: the next append starts a new root.
    pub fn reset_leaf(&mut self) {
        self.leaf = None;
        self.read_only = None;
    }

    /// Moves the leaf to `from` (`None`: the root) and appends a `branch_summary`
    /// of the branch being left.
    pub fn branch_with_summary(
        &mut self,
        from: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_extension: Option<bool>,
    ) -> Result<EntryId> {
        match from {
            Some(id) => self.branch(id)?,
            None => self.reset_leaf(),
        }
        let mut fields = vec![("fromId", from.unwrap_or("root").into()), ("summary", summary.into())];
        if let Some(details) = details {
            fields.push(("details", details));
        }
        if let Some(flag) = from_extension {
            fields.push(("fromExtension", flag.into()));
        }
        self.append_entry("branch_summary", fields, BaseFields::First)
    }

    /// Starts a new session holding the path from the root to `leaf_id`, and
    /// switches to it. Labels are not copied as entries: each label on an entry
    /// of the path is written again at the end (same text and time, new id). An
    /// entry whose parent was a label entry of the path hangs under the nearest
    /// entry kept before it, and a compaction kept from one keeps from the next
    /// kept entry, so the chain and the context stay whole. The header's
    /// `parentSession` is the old session file. A session with a title slot
    /// gives the new one its name, in a slot and in the header's `title` and
    /// `titleSource`, as oh-my-pi's `createBranchedSession` does; any other
    /// session's title stays behind. A persisted session is written
    /// at once, atomically; returns its path (`None` for a session in memory or
    /// in a backend, whose id is then [`session_id`](Self::session_id)).
    pub fn create_branched_session(&mut self, leaf_id: &str) -> Result<Option<PathBuf>> {
        self.create_branched_session_in(leaf_id, None)
    }

    /// [`create_branched_session`](Self::create_branched_session) into another
    /// directory (`None`: this session's directory).
    pub fn create_branched_session_in(&mut self, leaf_id: &str, dir: Option<&Path>) -> Result<Option<PathBuf>> {
        let path = without_labels(&self.branch_entries(Some(leaf_id)))?;
        if path.is_empty() {
            return Err(Error::EntryNotFound { id: leaf_id.to_owned() });
        }
        let labels = self.labels_on(&path);
        let parent_session = if self.persist { self.file.as_ref().map(|f| f.display().to_string()) } else { None };
        let dir = dir.map(Path::to_path_buf).or_else(|| self.session_dir.clone());
        let title = self.carried_title();
        self.new_session(dir.as_deref(), parent_session.as_deref())?;
        if title.has_slot() {
            self.carry_title(title, super::title::Place::BeforeParent);
        }
        self.install_entries(path);
        for (target, text, timestamp) in labels {
            let id = self.next_entry_id();
            let parent = self.leaf.as_ref().map_or(Value::Null, |p| p.as_str().into());
            let object = serde_json::json!({
                "type": "label", "id": id.as_str(), "parentId": parent, "timestamp": timestamp,
                "targetId": target.as_str(), "label": text,
            });
            let entry = Entry::parse(&object.to_string()).map_err(|e| Error::InvalidEntry { reason: e.to_string() })?;
            self.remember(entry);
            self.leaf = Some(id);
        }
        if !self.persist {
            return Ok(None);
        }
        self.disk.ensured_on_disk = true;
        if self.stored.is_some() {
            self.restart_stored();
            self.persist_pending()?;
            return Ok(None);
        }
        self.rewrite_entries()?;
        self.write_breadcrumb();
        Ok(self.file.clone())
    }

    /// `(target, label, time)` of each labelled entry of `path`, in path order,
    /// with the time of the label entry that set it.
    fn labels_on(&self, path: &[Entry]) -> Vec<(EntryId, String, Value)> {
        path.iter()
            .filter_map(|entry| {
                let text = self.index.label(entry.id().as_str())?;
                let timestamp = self
                    .entries
                    .iter()
                    .rev()
                    .find_map(|e| match e.kind() {
                        EntryKind::Label(l) if l.target_id.as_ref() == Some(entry.id()) => Some(e.timestamp()),
                        _ => None,
                    })
                    .flatten()
                    .map_or(Value::Null, Into::into);
                Some((entry.id().clone(), text.to_owned(), timestamp))
            })
            .collect()
    }

    /// Copies the whole session (same entries and ids) into a new session file
    /// in the same directory, whose `parentSession` is this session's id, and
    /// switches to it; its header has the session's name and `titleSource`,
    /// and a session with a title slot gives it a slot with the name. Returns
    /// the old and the new file.
    pub fn fork(&mut self) -> Result<(PathBuf, PathBuf)> {
        let (Some(old_file), true) = (self.file.clone(), self.persist) else {
            return Err(Error::NotPersisted { operation: "fork" });
        };
        let old_id = self.header.id().to_owned();
        let title = self.carried_title();
        let entries = std::mem::take(&mut self.entries);
        let leaf = self.leaf.clone();
        let dir = self.session_dir.clone();
        self.new_session(dir.as_deref(), Some(&old_id))?;
        self.carry_title(title, super::title::Place::Last);
        self.install_entries(entries);
        self.leaf = leaf;
        self.disk.ensured_on_disk = true;
        self.rewrite_entries()?;
        self.write_breadcrumb();
        let new_file = self.file.clone().unwrap_or_default();
        Ok((old_file, new_file))
    }

    /// Moves the session to a new working directory: the file and its artifacts
    /// directory (the file's path without `.jsonl`) move to `new_session_dir`, and
    /// the header's `cwd` is updated. On failure everything is moved back.
    pub fn move_to(&mut self, new_cwd: &str, new_session_dir: &Path) -> Result<()> {
        let Some(old_file) = self.file.clone() else { return Err(Error::NotPersisted { operation: "move" }) };
        let name = old_file.file_name().map(PathBuf::from).unwrap_or_default();
        let new_file = new_session_dir.join(&name);
        let old_artifacts = old_file.with_extension("");
        let new_artifacts = new_file.with_extension("");
        let storage = self.storage.clone();
        storage.create_dir_all(new_session_dir).map_err(|e| Error::io("creating", new_session_dir, e))?;

        let file_existed = storage.exists(&old_file);
        if file_existed && old_file != new_file {
            storage.rename(&old_file, &new_file).map_err(|e| Error::io("moving", &old_file, e))?;
        }
        let artifacts_moved = storage.stat(&old_artifacts).is_ok_and(|s| s.is_dir) && old_artifacts != new_artifacts;
        if artifacts_moved && let Err(e) = storage.rename_dir(&old_artifacts, &new_artifacts) {
            if file_existed && old_file != new_file {
                let _ = storage.rename(&new_file, &old_file);
            }
            return Err(Error::io("moving", &old_artifacts, e));
        }
        let (old_header, old_cwd, old_dir) = (self.header.clone(), self.cwd.clone(), self.session_dir.clone());
        self.header = self.header.with("cwd", new_cwd.into());
        new_cwd.clone_into(&mut self.cwd);
        self.session_dir = Some(new_session_dir.to_owned());
        self.file = Some(new_file.clone());
        if file_existed || self.has_assistant {
            self.disk.ensured_on_disk |= file_existed;
            if let Err(err) = self.rewrite_file(&new_file) {
                if artifacts_moved {
                    let _ = storage.rename_dir(&new_artifacts, &old_artifacts);
                }
                if file_existed && old_file != new_file {
                    let _ = storage.rename(&new_file, &old_file);
                }
                (self.header, self.cwd, self.session_dir, self.file) = (old_header, old_cwd, old_dir, Some(old_file));
                return Err(err);
            }
        }
        self.write_breadcrumb();
        Ok(())
    }

    /// Branches at turn `n` of the current path (see
    /// [`sess_core::turn::branch_point`]): the next append keeps turns `1..=n`.
    pub fn branch_at_turn(&mut self, turn: usize) -> Result<()> {
        let point = {
            let path = self.branch_entries(None);
            let point = sess_core::turn::branch_point(&path, turn)
                .map_err(|e| Error::InvalidEntry { reason: e.to_string() })?;
            point.map(|index| path[index].id().clone())
        };
        if let Some(id) = point {
            self.branch(id.as_str())
        } else {
            self.reset_leaf();
            Ok(())
        }
    }
}

/// `path` (root first) without its `label` entries, its chain kept whole.
///
/// An entry whose parent was a dropped label hangs under the nearest entry kept
/// before it (`null` when there is none), and a compaction whose
/// `firstKeptEntryId` named a dropped label of the path keeps from the first
/// entry kept after that label. Labels add nothing to the context, so the
/// context at every kept entry is the one it had. (pi-mono 0.73.1 drops the
/// labels the same way but leaves those fields naming entries that are not in
/// the new file, which then starts after the last dropped label.)
fn without_labels(path: &[&Entry]) -> Result<Vec<Entry>> {
    let is_label = |e: &Entry| matches!(e.kind(), EntryKind::Label(_));
    let kept_ids: HashSet<&EntryId> = path.iter().filter(|e| !is_label(e)).map(|e| e.id()).collect();
    let dropped = |id: &EntryId| !kept_ids.contains(id);
    // Each dropped label of the path, with the first entry kept after it.
    let mut next_kept: HashMap<&EntryId, &EntryId> = HashMap::new();
    let mut waiting: Vec<&EntryId> = Vec::new();
    let mut last_kept: Option<&EntryId> = None;
    let mut kept = Vec::with_capacity(kept_ids.len());
    for &entry in path {
        if is_label(entry) {
            waiting.push(entry.id());
            continue;
        }
        next_kept.extend(waiting.drain(..).map(|label| (label, entry.id())));
        let mut entry_out = std::borrow::Cow::Borrowed(entry);
        if entry.parent_id().is_some_and(|p| dropped(p) && next_kept.contains_key(p)) {
            entry_out = std::borrow::Cow::Owned(entry.with_parent_id(last_kept).map_err(invalid)?);
        }
        if let EntryKind::Compaction(compaction) = entry.kind()
            && let Some(first) = compaction.first_kept_entry_id.as_ref().filter(|f| dropped(f))
            && let Some(&next) = next_kept.get(first)
        {
            entry_out = std::borrow::Cow::Owned(entry_out.with_first_kept_entry_id(next).map_err(invalid)?);
        }
        kept.push(entry_out.into_owned());
        last_kept = Some(entry.id());
    }
    Ok(kept)
}

#[allow(clippy::needless_pass_by_value)] // Used with `map_err`.
fn invalid(err: sess_core::EntryError) -> Error {
    Error::InvalidEntry { reason: err.to_string() }
}
