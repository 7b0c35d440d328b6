#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::FileEdit;
use crate::transcript::Role::{Assistant as A, System as S, User as U};
use crate::transcript::{Block, Message, Role, ToolCall, ToolStatus};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/aider/real-0.86.2")
}

fn repo_history() -> PathBuf {
    fixtures().join("repo").join(HISTORY)
}

/// An environment whose project folders are `dirs` alone.
fn env_of(dirs: &[PathBuf]) -> Env {
    let list = std::env::join_paths(dirs).unwrap();
    Env::new("/nonexistent-home", [(crate::projects::PROJECT_DIRS.to_owned(), list)]).with_session_cwds(Vec::new())
}

fn calls(messages: &[Message]) -> Vec<&ToolCall> {
    messages
        .iter()
        .flat_map(|m| &m.blocks)
        .filter_map(|b| if let Block::ToolCall(call) = b { Some(call) } else { None })
        .collect()
}

fn iso(started: &str) -> String {
    format_iso_millis(started_ms(started).unwrap())
}

#[test]
fn every_run_is_a_session_of_its_history() {
    let env = env_of(&[fixtures().join("repo/sub"), fixtures().join("plain"), fixtures().join("moved/chat.md")]);
    let mut sessions = list(&env, Scope::All).sessions;
    sessions.sort_by(|a, b| a.created.cmp(&b.created));
    let got: Vec<(&str, &str, Option<&str>, usize)> = sessions
        .iter()
        .map(|s| {
            (
                s.path.file_name().unwrap().to_str().unwrap(),
                s.cwd.as_deref().unwrap(),
                s.first_message.as_deref(),
                s.message_count,
            )
        })
        .collect();
    let plain = fixtures().join("plain").to_string_lossy().into_owned();
    let moved = fixtures().join("moved").to_string_lossy().into_owned();
    assert_eq!(
        got,
        [
            (HISTORY, "/home/dev/repo/sub", Some("Say hello in one short sentence."), 12),
            (HISTORY, "/home/dev/repo/sub", Some("Summarize what you did in one line."), 3),
            (HISTORY, plain.as_str(), Some("Say hello from a folder without git."), 3),
            ("chat.md", moved.as_str(), Some("Say hello with the history moved."), 3),
        ]
    );
    let tag = path_tag(&repo_history());
    assert_eq!(sessions[0].id, format!("20261202T025147-{tag}"));
    assert_eq!(sessions[1].id, format!("20261202T025152-{tag}"));
    assert_eq!(sessions[0].created.as_deref(), Some(iso("2026-12-02 02:51:47").as_str()));
    // Aider's resume is a new run that restored the one before.
    assert_eq!(sessions[1].parent_session.as_deref(), Some(sessions[0].id.as_str()));
    assert_eq!(sessions[0].parent_session, None);
    assert!(sessions.iter().all(|s| s.title.is_none()));
    // Only the file's last run was active until the file changed.
    assert_eq!(sessions[0].modified_ms, started_ms("2026-12-02 02:51:47").unwrap());
    assert!(sessions[1].modified_ms >= started_ms("2026-12-02 02:51:52").unwrap());

    let project = list(&env, Scope::Project(Path::new("/home/dev/repo/sub")));
    assert_eq!(project.sessions.len(), 2);
    assert!(list(&env, Scope::Project(Path::new("/home/dev/repo"))).sessions.is_empty());
}

#[test]
fn the_runs_are_found_as_rows_of_their_history() {
    let env = env_of(&[fixtures().join("repo/sub"), fixtures().join("repo"), fixtures().join("plain")]);
    let found = SOURCE.source().find(&env);
    assert!(found.files.is_empty());
    let got: Vec<(String, &str)> = found
        .rows
        .iter()
        .map(|r| (r.id.clone(), r.database.parent().unwrap().file_name().unwrap().to_str().unwrap()))
        .collect();
    let tag = path_tag(&repo_history());
    assert_eq!(got[..2], [(format!("20261202T025147-{tag}"), "repo"), (format!("20261202T025152-{tag}"), "repo")]);
    assert_eq!(got.len(), 3, "the repository's history is found once");
    assert_eq!(found.rows[0].version, started_ms("2026-12-02 02:51:47").unwrap());
    let ids: Vec<String> = found.rows.iter().take(2).map(|r| r.id.clone()).collect();
    assert_eq!(SOURCE.source().row_ids(&repo_history()).unwrap(), ids);
    assert_eq!(SOURCE.source().roots(&env).len(), 2);
}

#[test]
fn a_run_reads_as_its_prompts_answers_commands_and_edits() {
    let id = SOURCE.source().row_ids(&repo_history()).unwrap()[0].clone();
    let transcript = SOURCE.source().load_row(&repo_history(), &id).unwrap();
    assert_eq!(transcript.cwd.as_deref(), Some("/home/dev/repo/sub"));
    assert_eq!(transcript.title, None);
    let roles: Vec<Role> = transcript.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [S, U, A, U, U, U, A, U, A, A, U, A]);
    let opening = &transcript.messages[0];
    assert_eq!(opening.timestamp.as_deref(), Some(iso("2026-12-02 02:51:47").as_str()));
    let Block::Context { title, text } = &opening.blocks[0] else { panic!("{opening:?}") };
    assert_eq!(title, "Aider");
    assert!(text.contains("Model: openai/fake-model with diff edit format"), "{text}");
    assert!(text.contains("Cur working dir: /home/dev/repo/sub"), "{text}");
    assert_eq!(transcript.messages[2].blocks, [Block::text("Hello from the fake model!")]);

    let calls = calls(&transcript.messages);
    let got: Vec<(&str, ToolStatus)> = calls.iter().map(|c| (c.name.as_str(), c.status)).collect();
    assert_eq!(
        got,
        [
            ("run", ToolStatus::Succeeded),
            ("run", ToolStatus::Succeeded),
            ("edit", ToolStatus::Succeeded),
            ("edit", ToolStatus::Failed),
        ]
    );
    assert_eq!(calls[0].input, json!({"command": "echo hi"}));
    assert_eq!(calls[1].input, json!({"command": "cat missing.txt"}));
    assert_eq!(
        calls[1].result.as_deref(),
        Some("Add 0.0k tokens of command output to the chat? (Y)es/(N)o [Yes]: y\nAdded 1 line of output to the chat.")
    );
    assert_eq!(calls[2].input, json!({"path": "greet.txt", "search": "hello world\n", "replace": "goodbye world\n"}));
    assert_eq!(calls[2].result.as_deref(), Some("Applied edit to greet.txt"));
    let report = calls[3].result.as_deref().unwrap();
    assert!(report.starts_with("# 1 SEARCH/REPLACE block failed to match!"), "{report}");
    assert!(report.ends_with("docstrings, etc"), "{report}");

    // The answer with the edit: its prose, then the block as a call.
    let edit = &transcript.messages[6];
    assert_eq!(edit.blocks[0], Block::text("I will change the greeting."));
    assert_eq!(edit.blocks.len(), 2);
    // The failed block: Aider's error, and the model's answer to the report.
    let failed = &transcript.messages[8];
    assert!(failed.blocks.contains(&Block::Error { text: "The LLM did not conform to the edit format.".into() }));
    assert_eq!(
        transcript.messages[9].blocks,
        [Block::text("There is no moon in greet.txt, so there is nothing to change.")]
    );
    // The shell command the model proposed, and Aider's question, declined.
    let last = transcript.messages.last().unwrap();
    assert_eq!(last.blocks[0], Block::text("This lists them:\n\n```bash\nls -a\n```"));
    assert_eq!(
        last.blocks[1],
        Block::Context {
            title: "Aider".into(),
            text: "ls -a\nRun shell command? (Y)es/(N)o/(D)on't ask again [Yes]: n".into()
        }
    );
}

#[test]
fn an_edit_that_applied_shows_as_a_diff() {
    let mut transcript =
        SOURCE.source().load_row(&repo_history(), &SOURCE.source().row_ids(&repo_history()).unwrap()[0]).unwrap();
    crate::add_diffs(&mut transcript);
    let calls = calls(&transcript.messages);
    let edit = calls.iter().find(|c| c.status == ToolStatus::Succeeded && c.name == "edit").unwrap();
    assert_eq!(edit.diffs.len(), 1);
    assert_eq!(edit.diffs[0].path, "greet.txt");
    let edits = SOURCE.source().edits(edit);
    assert_eq!(edits, [FileEdit::replace("greet.txt", "hello world\n", "goodbye world\n", false)]);
    let new_file = ToolCall::running("edit-1", "edit", json!({"path": "new.py", "search": "", "replace": "x = 1\n"}));
    assert_eq!(SOURCE.source().edits(&new_file), [FileEdit::write("new.py", "x = 1\n")]);
}

#[test]
fn the_token_lines_are_the_model_calls() {
    let ids = SOURCE.source().row_ids(&repo_history()).unwrap();
    let indexed = SOURCE.source().index_row(&repo_history(), &ids[0]).unwrap();
    let got: Vec<(u64, u64, Option<&str>)> =
        indexed.usage.iter().map(|c| (c.input, c.output, c.model.as_deref())).collect();
    let model = Some("openai/fake-model");
    assert_eq!(got, [(2400, 6, model), (2500, 28, model), (2500, 26, model), (2700, 15, model), (2700, 13, model)]);
    assert_eq!(indexed.usage[0].timestamp.as_deref(), Some(iso("2026-12-02 02:51:47").as_str()));
    assert_eq!(indexed.title.as_deref(), Some("Say hello in one short sentence."));
    assert!(!indexed.title_explicit);

    let call = convert::convert(
        &[history::Item::Output(
            "Tokens: 12k sent, 1.5k cache write, 3.0k cache hit, 245 received. Cost: $0.05 message, $0.12 session."
                .into(),
        )],
        None,
    )
    .usage;
    assert_eq!(call[0].input, 7500);
    assert_eq!((call[0].cache_creation, call[0].cache_read, call[0].output), (1500, 3000, 245));
    assert_eq!(call[0].cost, Some(0.05));
}

#[test]
fn a_history_is_recognised_by_its_name_or_its_first_header() {
    for path in [repo_history(), fixtures().join("moved/chat.md")] {
        let head = std::fs::read(&path).unwrap();
        assert_eq!(crate::detect(&path, &head), Some(SOURCE), "{}", path.display());
    }
    assert_eq!(crate::detect(Path::new("/x/notes.md"), b"# notes\n"), None);
    let moved = fixtures().join("moved/chat.md");
    let transcript = SOURCE.source().load(&moved).unwrap();
    assert_eq!(transcript.messages.last().unwrap().blocks, [Block::text("Hello from the moved history!")]);
}

#[test]
fn a_history_is_found_at_the_git_root_above_a_session_folder() {
    let home = tempfile::tempdir().unwrap();
    let repo = home.path().join("work/repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub/deeper")).unwrap();
    std::fs::copy(repo_history(), repo.join(HISTORY)).unwrap();
    // Above the repository's root: not looked at.
    std::fs::copy(repo_history(), home.path().join("work").join(HISTORY)).unwrap();
    let env = Env::new(home.path(), std::iter::empty::<(String, OsString)>())
        .with_session_cwds(vec![repo.join("sub/deeper").to_string_lossy().into_owned()]);
    assert_eq!(history_files(&env), [repo.join(HISTORY)]);
    assert_eq!(SOURCE.source().list(&env, Scope::All).sessions.len(), 2);
    // Without a catalog's directories, every other agent's listing names them.
    let env = Env::new(home.path(), std::iter::empty::<(String, OsString)>());
    assert!(history_files(&env).is_empty());
}

#[test]
fn damaged_histories_read_what_they_can() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(HISTORY);
    let mut bytes =
        b"stray line before any run\n\n# aider chat started at not a time\n\n#### hi  \n\nan answer \xff cut".to_vec();
    bytes.extend_from_slice(
        b"\n\n# aider chat started at 2026-12-02 02:51:47\n\n> Tokens: many sent, 6 received.  \n#### ",
    );
    std::fs::write(&path, &bytes).unwrap();
    let ids = SOURCE.source().row_ids(&path).unwrap();
    assert!(ids[0].starts_with("run27-"), "{ids:?}");
    assert!(ids[1].starts_with("20261202T025147-"), "{ids:?}");
    let first = SOURCE.source().load_row(&path, &ids[0]).unwrap();
    assert_eq!(first.messages.len(), 2);
    assert_eq!(first.messages[1].blocks, [Block::text("an answer \u{fffd} cut")]);
    let second = SOURCE.source().index_row(&path, &ids[1]).unwrap();
    assert!(second.usage.is_empty(), "a count that is not one is no call");
    let roles: Vec<Role> = second.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [S, U]);
    assert!(SOURCE.source().load_row(&path, "nope").is_err());

    let empty = dir.path().join("empty.md");
    std::fs::write(&empty, "just notes\n").unwrap();
    assert!(SOURCE.source().load(&empty).is_err());
    assert!(SOURCE.source().row_ids(&empty).unwrap().is_empty());
}

#[test]
fn two_runs_started_in_the_same_second_get_their_own_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(HISTORY);
    let run = "\n# aider chat started at 2026-12-02 02:51:47\n\n#### hi  \n\nhello\n";
    std::fs::write(&path, run.repeat(3)).unwrap();
    let ids = SOURCE.source().row_ids(&path).unwrap();
    let tag = path_tag(&path);
    let base = format!("20261202T025147-{tag}");
    assert_eq!(ids, [base.clone(), format!("{base}-2"), format!("{base}-3")]);
}

#[test]
fn a_copy_of_a_run_reads_back_as_the_same_session() {
    let ids = SOURCE.source().row_ids(&repo_history()).unwrap();
    let dump = SOURCE.source().rows(&repo_history(), &ids[1]).unwrap();
    assert_eq!(dump.tables[0].name, "aider_runs");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    dump.write_database(&copy).unwrap();
    let original = SOURCE.source().load_row(&repo_history(), &ids[1]).unwrap();
    assert_eq!(SOURCE.source().load_row(&copy, &ids[1]).unwrap(), original);
    let text = std::fs::read_to_string(repo_history()).unwrap();
    let crate::Cell::Text(run) = &dump.tables[0].rows[0][4] else { panic!() };
    assert!(text.ends_with(run.as_str()));
}

#[test]
fn a_header_is_local_time_in_the_zone_given() {
    let paris_winter = jiff::tz::TimeZone::fixed(jiff::tz::offset(1));
    let ms = started_ms_in("2026-12-02 02:51:47", &paris_winter).unwrap();
    assert_eq!(format_iso_millis(ms), "2026-12-02T01:51:47.000Z");
    assert_eq!(started_ms_in("yesterday", &paris_winter), None);
}

#[test]
fn search_replace_blocks_without_a_fence_or_name_take_the_last_file() {
    let text = "Two changes.\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n```\nDone.";
    let converted = convert::convert(&[history::Item::Input("go".into()), history::Item::Answer(text.into())], None);
    let blocks = &converted.messages[1].blocks;
    assert_eq!(blocks.len(), 4, "{blocks:?}");
    let calls = calls(&converted.messages);
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.input["path"] == "a.py" && c.status == ToolStatus::Pending));
    assert_eq!(blocks[3], Block::text("Done."));
}

#[test]
fn multi_line_inputs_and_outputs_are_one_item_each() {
    let body = "\n#### first line  \n#### second line  \n\n> # 1 report\n\nmore of it\nend  \n\nThe answer.\n\n> quoted by the model\nstill the answer\n";
    let items = history::items(body);
    assert_eq!(
        items,
        [
            history::Item::Input("first line\nsecond line".into()),
            history::Item::Output("# 1 report\n\nmore of it\nend".into()),
            history::Item::Answer("The answer.".into()),
            history::Item::Output("quoted by the model".into()),
            history::Item::Answer("still the answer".into()),
        ]
    );
}
