use pretty_assertions::assert_eq;
use serde_json::json;
use sess_sources::{Block, Image, Message, Role, ToolCall, ToolStatus, Transcript};

use super::{MarkdownOptions, to_markdown};

fn transcript() -> Transcript {
    let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "3f2a9c4e");
    transcript.title = Some("Fix the\nparser".into());
    transcript.cwd = Some("/home/dev/app".into());
    transcript
}

#[test]
fn a_whole_transcript() {
    let mut bash = ToolCall::running("t1", "Bash", json!({"command": "ls -la", "description": "List"}));
    let listing: Vec<String> = (1..=13).map(|i| format!("file{i}")).collect();
    bash.complete(Some(listing.join("\n")), false, None);
    let mut failed = ToolCall::running("t2", "Read", json!({"file_path": "/nope"}));
    failed.complete(Some("ENOENT".into()), true, None);
    let mut pending = ToolCall::running("t3", "mcp__x", json!({"a": 1}));
    pending.status = ToolStatus::Pending;
    let mut t = transcript();
    t.truncated = 2;
    t.messages = vec![
        Message::new(Role::User)
            .with(Block::text("Why does `parse` fail?\n\n<b>bold?</b>"))
            .with(Block::Context { title: "CLAUDE.md".into(), text: "a\nb".into() }),
        Message::new(Role::Assistant)
            .with(Block::Thinking { text: "Look at it.\n\nThen fix.".into() })
            .with(Block::text("Let me look."))
            .with(Block::ToolCall(bash)),
        Message::new(Role::Assistant).with(Block::ToolCall(failed)).with(Block::ToolCall(pending)),
        Message::new(Role::System).with(Block::Summary { text: "Earlier: things.".into() }),
        Message::new(Role::Assistant)
            .with(Block::Error { text: "API Error: 529\noverloaded".into() })
            .with(Block::Image(Image { media_type: Some("image/png".into()), data: Some("A".repeat(400)), url: None }))
            .with(Block::Image(Image { media_type: None, data: None, url: Some("https://x.test/a.png".into()) }))
            .with(Block::Unknown { what: "input_image".into(), raw: json!({"image_url": null}) }),
    ];
    assert_eq!(
        to_markdown(&t, &MarkdownOptions::default()),
        "# Fix the parser\n\n\
         - **Agent:** Claude Code (`claude`)\n\
         - **Session:** `3f2a9c4e`\n\
         - **Folder:** `/home/dev/app`\n\
         - **Left out:** the 2 oldest messages\n\n\
         ## User\n\n\
         Why does `parse` fail?\n\n<b>bold?</b>\n\n\
         _[CLAUDE.md: 2 lines]_\n\n\
         ## Assistant\n\n\
         <details><summary>Thinking</summary>\n\n> Look at it.\n>\n> Then fix.\n</details>\n\n\
         Let me look.\n\n\
         **Bash** · ✓ succeeded · `ls -la`\n\n\
         ```text\nfile1\nfile2\nfile3\nfile4\nfile5\nfile6\nfile7\nfile8\nfile9\nfile10\n```\n\
         _… 3 more lines_\n\n\
         **Read** · ✗ failed · `/nope`\n\n```text\nENOENT\n```\n\n\
         **mcp__x** · ? pending · `{\"a\":1}`\n\n\
         _No result: the session ended before it came._\n\n\
         ## System\n\n\
         **Summary of the earlier conversation:**\n\n> Earlier: things.\n\n\
         ## Assistant\n\n\
         > **Error:** API Error: 529\n> overloaded\n\n\
         _[image image/png, 300 B]_\n\n\
         _[image image: `https://x.test/a.png`]_\n\n\
         _[not understood: input_image, 18 B of JSON]_\n"
    );
}

#[test]
fn thinking_can_be_left_out_and_output_lines_chosen() {
    let mut call = ToolCall::running("t", "Bash", json!({"command": "seq 3"}));
    call.complete(Some("1\n2\n3\n".into()), false, None);
    let mut t = transcript();
    t.messages = vec![
        Message::new(Role::Assistant).with(Block::Thinking { text: "secret plan".into() }).with(Block::ToolCall(call)),
    ];
    let text = to_markdown(&t, &MarkdownOptions { thinking: false, output_lines: 2 });
    assert!(!text.contains("secret plan"), "{text}");
    assert!(text.ends_with("```text\n1\n2\n```\n_… 1 more line_\n"), "{text}");
}

#[test]
fn fences_are_longer_than_the_backticks_they_hold() {
    let mut call = ToolCall::running("t", "Bash", json!({"command": "echo ```` x"}));
    call.complete(Some("```rust\nfn x() {}\n```".into()), false, None);
    let mut t = transcript();
    t.id = "`odd`".into();
    t.messages = vec![Message::new(Role::Assistant).with(Block::ToolCall(call))];
    let text = to_markdown(&t, &MarkdownOptions::default());
    assert!(text.contains("- **Session:** `` `odd` ``\n"), "{text}");
    assert!(text.contains("**Bash** · ✓ succeeded · `````echo ```` x`````\n"), "{text}");
    assert!(text.contains("````text\n```rust\nfn x() {}\n```\n````\n"), "{text}");
}

#[test]
fn subagent_turns_are_quoted_under_their_call() {
    let mut inner = ToolCall::running("i", "Grep", json!({"pattern": "price"}));
    inner.complete(Some("src/a.ts:1".into()), false, None);
    let mut task = ToolCall::running("t", "Task", json!({"description": "Find prices", "prompt": "Search"}));
    task.complete(Some("Found it".into()), false, None);
    task.subagent = vec![
        Message::new(Role::User).with(Block::text("Search")),
        Message::new(Role::Assistant).with(Block::ToolCall(inner)).with(Block::text("Found it")),
    ];
    let mut t = transcript();
    t.messages = vec![Message::new(Role::Assistant).with(Block::ToolCall(task))];
    let text = to_markdown(&t, &MarkdownOptions::default());
    assert!(
        text.ends_with(
            "**Task** · ✓ succeeded · `Find prices`\n\n```text\nFound it\n```\n\n\
             _Subagent: 2 messages, 1 tool call_\n\n\
             > **User**\n>\n> Search\n>\n> **Assistant**\n>\n> **Grep** · ✓ succeeded · `price`\n>\n\
             > ```text\n> src/a.ts:1\n> ```\n>\n> Found it\n"
        ),
        "{text}"
    );
}

#[test]
fn an_empty_transcript_says_so() {
    let mut t = Transcript::new(sess_sources::pi::SOURCE, "p1");
    t.messages = vec![Message::new(Role::User).with(Block::text("hi"))];
    t.messages.clear();
    assert_eq!(
        to_markdown(&t, &MarkdownOptions::default()),
        "# (untitled)\n\n- **Agent:** pi-family (`pi`)\n- **Session:** `p1`\n\n_(no messages)_\n"
    );
    // Without a title, the first prompt is one.
    t.messages =
        vec![Message::new(Role::User).with(Block::text("  \n")), Message::new(Role::User).with(Block::text("do\nit"))];
    assert!(to_markdown(&t, &MarkdownOptions::default()).starts_with("# do it\n"));
}

fn diff(path: &str, new_file: bool, lines: &[(sess_sources::LineKind, &str)]) -> sess_sources::FileDiff {
    use sess_sources::{DiffLine, Hunk, LineKind};
    let count = |kind| lines.iter().filter(|(k, _)| *k == kind).count();
    let hunks = if lines.is_empty() {
        Vec::new()
    } else {
        vec![Hunk {
            old_start: usize::from(!new_file),
            old_lines: lines.len() - count(LineKind::Add),
            new_start: 1,
            new_lines: lines.len() - count(LineKind::Remove),
            lines: lines.iter().map(|(kind, text)| DiffLine { kind: *kind, text: (*text).into() }).collect(),
        }]
    };
    sess_sources::FileDiff {
        path: path.into(),
        new_file,
        added: count(LineKind::Add),
        removed: count(LineKind::Remove),
        hunks,
    }
}

#[test]
fn edits_show_their_diff_in_a_fenced_block() {
    use sess_sources::LineKind::{Add, Context, Remove};
    let mut edit = ToolCall::running("e", "Edit", json!({"file_path": "/src/a.rs"}));
    edit.complete(Some("The file has been updated.".into()), false, None);
    edit.diffs = vec![
        diff("/src/a.rs", false, &[(Context, "fn a() {"), (Remove, "    1"), (Add, "    2 ```"), (Context, "}")]),
        diff("notes.md", true, &[(Add, "# Notes")]),
        diff("old.txt", false, &[]),
        diff("a.py → b.py", false, &[(Remove, "x"), (Add, "y")]),
    ];
    let mut t = transcript();
    t.messages = vec![Message::new(Role::Assistant).with(Block::ToolCall(edit))];
    let text = to_markdown(&t, &MarkdownOptions::default());
    assert!(
        text.ends_with(
            "**Edit** · ✓ succeeded · `/src/a.rs`\n\n\
             ````diff\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n fn a() {\n-    1\n+    2 ```\n }\n````\n\n\
             _whole file written: `notes.md`_\n\n```diff\n--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,1 @@\n+# Notes\n```\n\n\
             _file deleted: `old.txt`_\n\n```diff\n--- a/old.txt\n+++ /dev/null\n```\n\n\
             ```diff\n--- a/a.py\n+++ b/b.py\n@@ -1,1 +1,1 @@\n-x\n+y\n```\n\n\
             ```text\nThe file has been updated.\n```\n"
        ),
        "{text}"
    );
}
