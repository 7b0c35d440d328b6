//! A handoff written by each target and read back by that agent's own
//! reader in `sess`: every kind of turn comes back in order, and a file is
//! never replaced.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::path::PathBuf;

use serde_json::json;
use sess_sources::handoff::{Handoff, NO_RESULT, Origin};
use sess_sources::{Block, Env, Image, Message, Role, SourceKind, ToolCall, ToolStatus, Transcript};

/// A session with every kind of turn a handoff carries over.
fn session() -> Transcript {
    let mut done = ToolCall::running("call:1", "exec", json!({"cmd": "ls"}));
    done.complete(Some("a\nb".into()), false, None);
    let mut failed = ToolCall::running("call:2", "exec", json!({"cmd": "cat x"}));
    failed.complete(Some("no such file".into()), true, None);
    let mut pending = ToolCall::running("call:3", "exec", json!({"cmd": "sleep 9"}));
    pending.status = ToolStatus::Pending;
    let image = Image { media_type: Some("image/png".into()), data: Some("iVBORw0KGgo=".into()), url: None };
    let mut transcript = Transcript::new(sess_sources::codex::SOURCE, "source-id");
    transcript.cwd = Some("/home/dev/app".into());
    transcript.messages = vec![
        Message::new(Role::User).with(Block::text("an old question")),
        Message::new(Role::System).with(Block::Summary { text: "Earlier: we set up the app.".into() }),
        Message::new(Role::User).with(Block::text("List the files.")).with(Block::Image(image)),
        Message::new(Role::Assistant)
            .with(Block::Thinking { text: "Start with ls.".into() })
            .with(Block::text("Listing."))
            .with(Block::ToolCall(done))
            .with(Block::ToolCall(failed))
            .with(Block::text("One failed."))
            .with(Block::ToolCall(pending)),
        Message::new(Role::User).with(Block::text("Thanks.")),
        Message::new(Role::Assistant).with(Block::text("You are welcome.")),
    ];
    transcript
}

/// A transcript as comparable lines: role, kind and text of each block
/// (tool calls with their name, input, status and result); the notice of
/// the harness and empty messages left out.
fn lines(transcript: &Transcript) -> Vec<String> {
    let mut out = Vec::new();
    for message in &transcript.messages {
        for block in &message.blocks {
            let line = match block {
                Block::Text { text } => format!("{} text {text}", message.role.as_str()),
                Block::Thinking { text } => format!("{} thinking {text}", message.role.as_str()),
                Block::Summary { text } => {
                    format!("summary {}", text.trim_start_matches("The conversation so far, summarized:\n\n"))
                }
                Block::Image(image) => format!("image {:?} {:?}", image.media_type, image.data),
                Block::ToolCall(call) => format!(
                    "call {} {} {} {}",
                    call.name,
                    call.input,
                    call.status.as_str(),
                    call.result.as_deref().unwrap_or_default()
                ),
                other => format!("{} {}", message.role.as_str(), other.kind()),
            };
            out.push(line);
        }
    }
    out
}

/// A home where the Gemini CLI has run in `/home/dev/app` (its
/// `projects.json` names the folder it keeps for it).
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let gemini = home.path().join(".gemini");
    std::fs::create_dir_all(&gemini).unwrap();
    std::fs::write(gemini.join("projects.json"), r#"{"projects": {"/home/dev/app": "app"}}"#).unwrap();
    home
}

fn handoff_of(transcript: &Transcript, cwd: PathBuf) -> Handoff {
    let origin = Origin { source: transcript.source, id: transcript.id.clone(), path: "/r.jsonl".into() };
    Handoff::new(transcript, origin, cwd)
}

#[test]
fn each_target_reads_back_what_it_was_handed() {
    let note = "user text [Handed over by sess from Codex session source-id (/r.jsonl).]";
    for (target, thinking) in [("claude", false), ("codex", false), ("qwen", false), ("gemini", false), ("pi", true)] {
        let home = home();
        let env = Env::new(home.path(), []);
        let kind = SourceKind::from_name(target).unwrap();
        let write = kind.source().hand_off().unwrap();
        let handoff = handoff_of(&session(), PathBuf::from("/home/dev/app"));
        let written = write(&env, &handoff).unwrap();
        assert!(written.path.starts_with(home.path()), "{}", written.path.display());
        let back = kind.source().load(&written.path).unwrap();
        assert_eq!(back.cwd.as_deref(), Some("/home/dev/app"), "{target}");
        let mut want = vec![
            "summary Earlier: we set up the app.".to_owned(),
            note.to_owned(),
            "user text List the files.".to_owned(),
            "image Some(\"image/png\") Some(\"iVBORw0KGgo=\")".to_owned(),
        ];
        if thinking {
            want.push("assistant thinking Start with ls.".to_owned());
        }
        want.extend([
            "assistant text Listing.".to_owned(),
            r#"call exec {"cmd":"ls"} succeeded a
b"#
            .to_owned(),
            r#"call exec {"cmd":"cat x"} failed no such file"#.to_owned(),
            "assistant text One failed.".to_owned(),
            format!(r#"call exec {{"cmd":"sleep 9"}} failed {NO_RESULT}"#),
            "user text Thanks.".to_owned(),
            "assistant text You are welcome.".to_owned(),
        ]);
        if target == "gemini" {
            // The CLI keeps a summary as the user turn its compression leaves,
            // and the note and the prompt after it as one text.
            want[0] = "user text The conversation so far, summarized:\n\nEarlier: we set up the app.".to_owned();
            let prompt = want.remove(2);
            want[1] = format!("{}\n\n{}", want[1], prompt.trim_start_matches("user text "));
        }
        let mut got = lines(&back);
        if target == "codex" {
            // A failed output is written `Error: …`; Codex's reader shows it as written.
            for line in &mut got {
                *line = line.replace(" failed Error: ", " failed ").replace(" succeeded Error: ", " failed ");
            }
        }
        assert_eq!(got, want, "{target}");
        assert_eq!(back.handed_over_from(), Some("Codex session source-id (/r.jsonl)"), "{target}");
        // The Gemini CLI's summary is a user turn, its first (the title is its `summary`).
        let first = if target == "gemini" { want[0].trim_start_matches("user text ") } else { "List the files." };
        assert_eq!(back.first_prompt(), Some(first), "{target}");
    }
}

#[test]
fn a_second_handoff_is_a_second_file() {
    for target in ["claude", "codex", "qwen", "gemini", "pi"] {
        let home = home();
        let env = Env::new(home.path(), []);
        let write = SourceKind::from_name(target).unwrap().source().hand_off().unwrap();
        let handoff = handoff_of(&session(), PathBuf::from("/home/dev/app"));
        let first = write(&env, &handoff).unwrap();
        let second = write(&env, &handoff).unwrap();
        assert_ne!(first.path, second.path, "{target}");
        assert_ne!(first.id, second.id, "{target}");
        assert_eq!(std::fs::read(&first.path).unwrap().len(), std::fs::read(&second.path).unwrap().len(), "{target}");
    }
}

#[test]
fn only_pi_codex_qwen_gemini_and_claude_take_handoffs() {
    let targets: Vec<&str> =
        sess_sources::registry().filter(|kind| kind.source().hand_off().is_some()).map(SourceKind::as_str).collect();
    assert_eq!(targets, ["pi", "codex", "qwen", "gemini", "claude"]);
}

#[test]
fn the_gemini_cli_takes_a_handoff_only_where_it_has_run() {
    let home = tempfile::tempdir().unwrap();
    let env = Env::new(home.path(), []);
    let write = SourceKind::from_name("gemini").unwrap().source().hand_off().unwrap();
    let err = write(&env, &handoff_of(&session(), PathBuf::from("/home/dev/app"))).unwrap_err();
    assert!(err.to_string().contains("has not run in `/home/dev/app`"), "{err}");
    assert!(!home.path().join(".gemini").exists());
}
