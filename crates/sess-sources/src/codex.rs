//! Codex sessions: `sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]` under the Codex home.
//!
//! # Files
//!
//! A thread is one rollout file, `rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl`,
//! possibly compressed by Codex to `….jsonl.zst`; when both exist the plain
//! file wins. [`list`] and [`session_files`] read `<codex home>/sessions/` only:
//! `archived_sessions/` holds the threads the user put away, and Codex's own
//! listing leaves them out too. [`load`] reads any rollout, archived ones
//! included. Thread names come from `<codex home>/session_index.jsonl`, where
//! the entry last in file order wins (Codex scans it from the end); blank
//! names are ignored.
//!
//! # From lines to a transcript
//!
//! Every line is `{"timestamp", "type", "payload"}`. Unknown line types,
//! payload types and event kinds are skipped silently; a line that is not JSON,
//! or whose payload does not have the shape its type promises, is skipped and
//! reported in [`Transcript::issues`] (a cut last line is the usual case).
//!
//! - **Messages:** `response_item` `message` with role `user` becomes a user
//!   message of text and image blocks (`input_text`, `input_image`; a base64
//!   data URL is split into media type and data, other URLs are kept as
//!   URLs; the `<image name=[Image #1] path="…">` and `</image>` texts Codex
//!   puts around an attached image for the model are left out). Role `assistant` adds text blocks (`output_text`). Roles
//!   `developer` and `system`, and user messages whose text starts with one of
//!   the injected-context markers (`<environment_context>`,
//!   `<user_instructions>`, `# AGENTS.md`, `<permissions instructions>`,
//!   `<turn_aborted>`, … — one list, in `codex/injected.rs`) are hidden.
//! - **Each text is kept once.** Codex writes prompts, assistant messages and
//!   reasoning summaries twice: as a `response_item` and as an `event_msg`
//!   (`user_message`, `agent_message`, `agent_reasoning`). Two copies of the
//!   same kind and text, one of each origin, within one exchange (up to the
//!   next user text; a prompt pairs only with the copy right next to it) are
//!   one; a copy without a partner is kept, whichever origin it has, so files
//!   with only items (older builds, forked copies) or only an event (an
//!   interrupted turn) lose nothing. When the event came first, the user
//!   message takes the item's content (what the model saw).
//! - **Reasoning:** each non-blank `summary_text` of a `reasoning` item is a
//!   thinking block (the raw `content` parts when there is no summary);
//!   encrypted reasoning shows nothing. `agent_reasoning_raw_content` events
//!   are not shown.
//! - **One assistant bubble per exchange:** reasoning, text, tool calls and
//!   errors go to the last message while it is the assistant's, else open a
//!   new assistant message. Text → tool call → result → text is one message
//!   until the next user text or system notice.
//! - **Tool calls:** `function_call` (input = the JSON in `arguments`, or the
//!   raw string when it is not JSON), `custom_tool_call` (input = the raw
//!   `input` string) and `local_shell_call` (input = its `action`, name
//!   `local_shell`) open a running call, `started_at` = the line's timestamp;
//!   the `function_call_output` / `custom_tool_call_output` with the same
//!   `call_id` completes it (`ended_at` = its timestamp). The result text and
//!   the failed status follow `codex/output.rs`: a JSON text
//!   `{"output","metadata":{"exit_code"}}` gives the inner output and fails
//!   on a non-zero exit code; so does a first line `Exit code: N`, or a
//!   header line `Process exited with code N` (`exec_command`); an
//!   `{"content","success":false}` object fails, and so does a text that
//!   starts with `apply_patch verification failed`. An output without a call is
//!   dropped. `web_search_call` is a call named `web_search` (input = its
//!   `action`, id = its line number), done when its status is `completed`,
//!   failed when `failed`. Calls still running at a `turn_aborted` or at the
//!   end of the file become pending.
//! - **System notices** (each a system message, which also closes the
//!   assistant bubble): `compacted` → a summary block with its `message`
//!   (without the preamble for the next model that Codex 0.171 puts first), or
//!   `Context compacted` when the summary is only kept encrypted; the earlier
//!   messages stay shown. The model's answer to the compaction request, an
//!   item whose line has `metadata.compaction_output` (Codex 0.171), is not
//!   shown: the `compacted` line carries it. `thread_rolled_back` → text `Rolled back N turn(s)`;
//!   the rolled-back turns stay shown. `turn_aborted` → text `Turn aborted
//!   (<reason>)`: an interrupt is the user's choice, not an error.
//!   An `error` event (persisted by some builds), or the `error` of a
//!   `task_complete` (how Codex 0.171 records a turn whose model request
//!   failed; once, when both say the same), is an error block in the
//!   assistant bubble.
//! - **Ids and times:** Codex lines have no ids; a message's id is the
//!   1-based position of the line that opened it (stable: rollouts are
//!   append-only): its `ordinal` + 1 when it has one (Codex 0.171 numbers
//!   every line, on across the rollouts of a fork), else its line number. Its
//!   timestamp is that line's timestamp.
//! - **Forks:** older builds start a forked rollout with its own
//!   `session_meta` (`forked_from_id`) followed by copies of the parent's
//!   items with their old timestamps. They are the conversation the fork
//!   continues, so they are shown like any other line. Only the first
//!   `session_meta` counts. Codex 0.171 copies nothing: the fork's
//!   `session_meta.history_base` names the rollout it continues (by the UUID
//!   in its file name) and where in it the history ends (`ordinal`s below
//!   `end_ordinal_exclusive`, bytes before `end_byte_offset`). [`load`] and
//!   [`list`] read that history, and its own bases in turn, from the same
//!   Codex home (archived rollouts included) and show it before the fork's own
//!   lines; when a base cannot be read, a system notice says so in its place.
//!   A fork is titled by its own first prompt, as Codex titles it.
//!
//! # Turns and checks
//!
//! [`turns`] gives a thread as its line of turns (`codex/turns.rs`: a turn per
//! prompt of the transcript, rollbacks and aborts marked, compactions placed), and
//! [`verify`] the lines a transcript had to skip.
//!
//! # Usage
//!
//! The model calls the catalog keeps are those of the `token_count` events,
//! each response once (`codex/usage.rs`).

pub(crate) mod compression;
mod echo;
mod edits;
mod files;
mod handoff;
mod index;
mod injected;
mod line;
mod lineage;
mod output;
mod rollout;
mod source;
mod turns;
mod usage;
mod verify;

use std::path::{Path, PathBuf};

pub use source::{Codex, SOURCE};
pub use turns::{Compaction, Turn, Turns, turns, turns_of};
pub use verify::verify;

use crate::error::{Error, Result};
use crate::listing::{Catalogued, FoundFiles, Listed, Listing, Scope, SessionInfo, active_ms, modified_ms};
use crate::transcript::Transcript;

/// The Codex home: `$CODEX_HOME` when set and non-empty, else `home/.codex`.
///
/// The caller reads the environment and passes `codex_home` (the value of
/// `CODEX_HOME`) and `home` (the user's home directory).
pub fn home_dir(codex_home: Option<&str>, home: &Path) -> PathBuf {
    match codex_home {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => home.join(".codex"),
    }
}

/// Sessions under `<codex_home>/sessions/YYYY/MM/DD/rollout-*.jsonl` and
/// `rollout-*.jsonl.zst` (when both exist, the plain `.jsonl` is read and the
/// `.zst` is not listed twice). `archived_sessions/` is not listed (see the
/// module docs).
///
/// [`Scope::Project`] keeps the sessions whose `session_meta.cwd` is that
/// directory (compared as paths, without resolving links), reading only the
/// first line of the others; [`Scope::All`] keeps all. A missing or unreadable folder lists as empty; a file that
/// cannot be read or decompressed goes to [`Listing::problems`]. Titles come
/// from `<codex_home>/session_index.jsonl`, else the first prompt (of a fork
/// by reference: its own first prompt). Message counts include the history a
/// fork continues. Sessions are in path order (by date, then time).
pub fn list(codex_home: &Path, scope: Scope<'_>) -> Listing {
    let titles = index::Titles::read(codex_home);
    let rollouts = std::cell::OnceCell::new();
    let all = || rollouts.get_or_init(|| lineage::Rollouts::of_home(codex_home));
    let mut listing = Listing::default();
    let found = find_session_files(codex_home);
    for (path, kind) in found.skipped {
        listing.problems.push(Error::NotASessionFile { path, kind });
    }
    for (file_id, path) in found.files {
        match session_info(&path, file_id, scope, &titles, all) {
            Ok(Some(info)) => listing.sessions.push(info),
            Ok(None) => {}
            Err(err) => listing.problems.push(err),
        }
    }
    listing
}

/// Session files only, cheaply (no parsing beyond the file name): the thread
/// id from the file name `rollout-YYYY-MM-DDThh-mm-ss-<uuid>.jsonl[.zst]` and
/// the path, for every rollout [`list`] would read, in path order.
pub fn session_files(codex_home: &Path) -> Vec<(String, PathBuf)> {
    find_session_files(codex_home).files
}

/// [`session_files`], and the rollout names that are not regular files
/// (skipped, never opened).
pub fn find_session_files(codex_home: &Path) -> FoundFiles {
    let mut skipped = Vec::new();
    let files = files::rollouts_under(&codex_home.join(files::SESSIONS_DIR), &mut skipped);
    FoundFiles { files, skipped, rows: Vec::new() }
}

/// Loads one rollout (plain or zstd) as a full transcript; the caller trims it
/// with [`Transcript::keep_newest`].
///
/// The id is the UUID in the file name (what Codex and every verb of `sess`
/// find the thread by, even when a copied or renamed rollout's `session_meta`
/// names another), else `session_meta.id`, else the rest of the file name
/// after `rollout-`; the cwd comes
/// from `session_meta`; the title from the `session_index.jsonl` of the Codex
/// home the file lives in (the folder above its `sessions` or
/// `archived_sessions` ancestor), when it names the thread, else its own first
/// prompt (for a fork, not the one of the history it continues). A fork by reference starts with the history it
/// continues, read from that home. A
/// plain path that no longer exists is read from its `.zst` twin when there is
/// one.
pub fn load(path: &Path) -> Result<Transcript> {
    load_counting_inherited(path).map(|(transcript, _)| transcript)
}

/// [`load`], and how many of the transcript's first messages are the history
/// a fork by reference continues (read from other rollouts; 0 for a rollout
/// that is not such a fork).
pub fn load_counting_inherited(path: &Path) -> Result<(Transcript, usize)> {
    let bytes = compression::read_rollout(path)?;
    Ok(read_counting_inherited(path, &bytes))
}

/// Checks the rollout at `path` ([`verify`]).
pub fn verify_file(path: &Path) -> Result<crate::Checked> {
    Ok(verify(&compression::read_rollout(path)?))
}

/// The (decompressed) bytes of the rollout at `path`: a `.zst` file is
/// decompressed, and a plain path that no longer exists is read from its
/// `.zst` twin when there is one.
pub fn read_rollout(path: &Path) -> Result<Vec<u8>> {
    compression::read_rollout(path)
}

/// [`load_counting_inherited`] of `bytes`, read from `path` with
/// [`read_rollout`] (whole, or cut after a line): `path` names the Codex home
/// for the title and the history of a fork.
pub fn read_counting_inherited(path: &Path, bytes: &[u8]) -> (Transcript, usize) {
    let rollouts = std::cell::OnceCell::new();
    let all = || files::home_of(path).map(lineage::Rollouts::of_home).unwrap_or_default();
    let rollout = read_thread(path, bytes, || rollouts.get_or_init(all));
    // Without a name in the index, a thread is titled by its own first prompt
    // (a fork by reference: not the one of the history it continues), as in
    // listings.
    let own_title = rollout.own_first_prompt().map(ToOwned::to_owned);
    let inherited = rollout.inherited;
    let mut transcript = rollout.transcript;
    if let Some(id) = files::thread_id_of(path) {
        transcript.id = id;
    }
    if let Some(home) = files::home_of(path) {
        transcript.title = index::Titles::read(home).get(&transcript.id).map(ToOwned::to_owned);
    }
    transcript.title = transcript.title.or(own_title);
    (transcript, inherited)
}

/// The pure part: a transcript from the (decompressed) bytes of a rollout,
/// with the id and cwd of its `session_meta` and no title. A fork by
/// reference shows only its own lines (its history is in other files).
pub fn parse(bytes: &[u8]) -> Transcript {
    rollout::read(bytes).transcript
}

/// [`parse`] of lines that follow the first `lines_before` lines of a rollout
/// (lines appended since an earlier read): message ids that are line numbers,
/// and issues, keep the file's numbering.
pub fn parse_after(bytes: &[u8], lines_before: usize) -> Transcript {
    rollout::read_after(bytes, lines_before).transcript
}

/// The rollout at `path`, whose bytes are `bytes`, with the history it
/// continues when it is a fork by reference (looked up in `rollouts`, asked
/// for only then).
fn read_thread<'a>(path: &Path, bytes: &[u8], rollouts: impl FnOnce() -> &'a lineage::Rollouts) -> rollout::Rollout {
    match rollout::meta(bytes).and_then(|meta| meta.history_base) {
        None => rollout::read(bytes),
        Some(base) => {
            let own_id = path.file_name().and_then(|n| n.to_str()).and_then(files::thread_id_from_name);
            let inherited = lineage::inherited(own_id.as_deref(), base, rollouts());
            rollout::read_continuing(&inherited, bytes)
        }
    }
}

/// How much of a rollout's first line a project listing reads to find its
/// cwd (the `session_meta` line holds the base instructions: tens of KB);
/// a longer line is found by reading the whole file.
pub(crate) const HEAD_LIMIT: u64 = 1 << 20;

fn session_info<'a>(
    path: &Path,
    file_id: String,
    scope: Scope<'_>,
    titles: &index::Titles,
    rollouts: impl FnOnce() -> &'a lineage::Rollouts,
) -> Result<Option<SessionInfo>> {
    let metadata = std::fs::metadata(path).map_err(|err| Error::io(path, err))?;
    if let Scope::Project(dir) = scope {
        // The first line is the `session_meta`, in practice: most files of
        // other projects are left after reading it alone.
        let head = compression::read_first_line(path, HEAD_LIMIT)?;
        let cwd = match rollout::meta_cwd(&head) {
            Some(cwd) => Some(cwd),
            None => rollout::meta_cwd(&compression::read_rollout(path)?),
        };
        if cwd.is_none_or(|cwd| Path::new(&cwd) != dir) {
            return Ok(None);
        }
    }
    let bytes = compression::read_rollout(path)?;
    let mut listed = listed(path, &bytes, file_id, rollouts);
    listed.title = titled(titles, &listed);
    Ok(Some(listed.info(SOURCE, path.to_owned(), modified_ms(&metadata))))
}

/// What a listing says of the rollout at `path`, whose bytes are `bytes`,
/// apart from its time, titled by its first prompt (a listing names it by
/// `session_index.jsonl` when that names it: [`titled`]). `file_id` is the
/// thread id its name gives; `rollouts` the Codex home's rollouts, asked for
/// only for a fork by reference.
fn listed<'a>(path: &Path, bytes: &[u8], file_id: String, rollouts: impl FnOnce() -> &'a lineage::Rollouts) -> Listed {
    let rollout = read_thread(path, bytes, rollouts);
    // A fork by reference is titled by its own first prompt, as Codex titles
    // it; its messages count the history it continues too.
    let first_message = rollout.own_first_prompt().or_else(|| rollout.transcript.first_prompt()).map(ToOwned::to_owned);
    let transcript = rollout.transcript;
    // The id in the file name, as `load` gives it: the one every verb finds it by.
    let id = if file_id.is_empty() { transcript.id.clone() } else { file_id };
    Listed {
        title: first_message.clone(),
        id,
        active_ms: active_ms(&transcript, rollout.created.as_deref()),
        cwd: transcript.cwd,
        created: rollout.created,
        message_count: transcript.messages.len(),
        first_message,
        parent_session: rollout.forked_from,
        ..Listed::default()
    }
}

/// A listed thread's title: its name in `session_index.jsonl`, else its
/// first prompt.
fn titled(titles: &index::Titles, listed: &Listed) -> Option<String> {
    titles.get(&listed.id).map(ToOwned::to_owned).or_else(|| listed.first_message.clone())
}

/// [`listed`] of the rollout at `path`, whose bytes (decompressed) are
/// `bytes`, with the rollouts of its Codex home.
pub(crate) fn listed_file(path: &Path, bytes: &[u8]) -> Listed {
    let file_id = path.file_name().and_then(|n| n.to_str()).and_then(files::thread_id_from_name).unwrap_or_default();
    let rollouts = std::cell::OnceCell::new();
    let all = || files::home_of(path).map(lineage::Rollouts::of_home).unwrap_or_default();
    listed(path, bytes, file_id, || rollouts.get_or_init(all))
}

/// [`list`] from what the catalog holds (`catalogued`): titled by the
/// home's `session_index.jsonl` as it is now; a project's sessions are those
/// whose `session_meta.cwd` is its directory.
pub fn list_catalogued(codex_home: &Path, scope: Scope<'_>, catalogued: Catalogued) -> Listing {
    let titles = index::Titles::read(codex_home);
    let mut listing = catalogued.into_listing(
        |info| match scope {
            Scope::All => true,
            Scope::Project(dir) => info.cwd.as_deref().is_some_and(|cwd| Path::new(cwd) == dir),
        },
        |_| true,
    );
    for info in &mut listing.sessions {
        let listed = Listed { id: info.id.clone(), first_message: info.first_message.clone(), ..Listed::default() };
        info.title = titled(&titles, &listed);
    }
    listing
}

#[cfg(test)]
#[path = "codex/codex_tests.rs"]
mod tests;
