use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::ToolCall;

/// `lines`, each ended by a newline.
fn lines_of(lines: impl Iterator<Item = String>) -> String {
    lines.flat_map(|line| [line, "\n".to_owned()]).collect()
}

fn numbered(range: std::ops::RangeInclusive<usize>) -> String {
    lines_of(range.map(|n| n.to_string()))
}

/// A hunk as the lines of a unified diff: its header, then each line with
/// its mark.
fn text_of(hunk: &Hunk) -> Vec<String> {
    std::iter::once(hunk.header())
        .chain(hunk.lines.iter().map(|line| format!("{}{}", line.kind.mark(), line.text)))
        .collect()
}

fn replaced(old: &str, new: &str) -> Option<FileDiff> {
    FileDiff::of(&FileEdit::replace("f.txt", old, new, false))
}

#[test]
fn keeps_three_lines_of_context() {
    let old = numbered(1..=10);
    let new = old.replace("5\n", "five\n");
    let diff = replaced(&old, &new).unwrap();
    assert_eq!((diff.added, diff.removed, diff.new_file), (1, 1, false));
    assert_eq!(diff.hunks.len(), 1);
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -2,7 +2,7 @@", " 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"]);
}

#[test]
fn splits_changes_far_apart_into_hunks() {
    let old = numbered(1..=20);
    let new = old.replace("\n2\n", "\ntwo\n").replace("18\n", "eighteen\n");
    let diff = replaced(&old, &new).unwrap();
    let hunks: Vec<Vec<String>> = diff.hunks.iter().map(text_of).collect();
    assert_eq!(
        hunks,
        [
            vec!["@@ -1,5 +1,5 @@", " 1", "-2", "+two", " 3", " 4", " 5"],
            vec!["@@ -15,6 +15,6 @@", " 15", " 16", " 17", "-18", "+eighteen", " 19", " 20"],
        ]
    );
    assert_eq!((diff.added, diff.removed), (2, 2));
    // Changes six lines apart share their context: one hunk.
    let near = old.replace("\n2\n", "\ntwo\n").replace("\n9\n", "\nnine\n");
    assert_eq!(replaced(&old, &near).unwrap().hunks.len(), 1);
}

#[test]
fn a_file_written_whole_is_all_added_lines() {
    let diff = FileDiff::of(&FileEdit::write("notes.txt", "first note\nsecond note\n")).unwrap();
    assert!(diff.new_file);
    assert_eq!((diff.added, diff.removed), (2, 0));
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -0,0 +1,2 @@", "+first note", "+second note"]);
    let empty = FileDiff::of(&FileEdit::write("empty.txt", "")).unwrap();
    assert!(empty.new_file);
    assert_eq!((empty.added, empty.hunks.len()), (0, 0));
}

#[test]
fn crlf_lines_are_lines_without_their_endings() {
    let diff = replaced("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n").unwrap();
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -1,3 +1,3 @@", " a", "-b", "+B", " c"]);
    // A change of line endings alone changes no line.
    assert_eq!(replaced("x\r\ny\r\n", "x\ny\n"), None);
    let written = FileDiff::of(&FileEdit::write("w.txt", "one\r\ntwo")).unwrap();
    assert_eq!(text_of(&written.hunks[0]), ["@@ -0,0 +1,2 @@", "+one", "+two"]);
}

#[test]
fn a_missing_newline_at_the_end_changes_nothing() {
    let diff = replaced("a\nb", "a\nb\nc").unwrap();
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -1,2 +1,3 @@", " a", " b", "+c"]);
    assert_eq!(replaced("same", "same\n"), None);
    assert_eq!(replaced("same", "same"), None);
}

#[test]
fn insertions_into_nothing_start_after_line_0() {
    let diff = replaced("", "x").unwrap();
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -0,0 +1,1 @@", "+x"]);
    let removal = replaced("gone\n", "").unwrap();
    assert_eq!(text_of(&removal.hunks[0]), ["@@ -1,1 +0,0 @@", "-gone"]);
}

#[test]
fn unicode_lines_are_kept_whole() {
    let diff = replaced("héllo 世界\n🚀 launch\n", "héllo 世界\n🛸 launch\n").unwrap();
    assert_eq!(text_of(&diff.hunks[0]), ["@@ -1,2 +1,2 @@", " héllo 世界", "-🚀 launch", "+🛸 launch"]);
}

#[test]
fn several_replacements_give_their_hunks_in_order() {
    let edit = FileEdit::replacements(
        "src/users.js",
        vec![
            Replacement { old: "let userId = guid();".into(), new: "let userID = guid();".into(), all: false },
            Replacement { old: "return userId;".into(), new: "return userID;".into(), all: true },
            Replacement { old: "unchanged".into(), new: "unchanged".into(), all: false },
        ],
    );
    let diff = FileDiff::of(&edit).unwrap();
    let hunks: Vec<Vec<String>> = diff.hunks.iter().map(text_of).collect();
    assert_eq!(
        hunks,
        [
            vec!["@@ -1,1 +1,1 @@", "-let userId = guid();", "+let userID = guid();"],
            vec!["@@ -1,1 +1,1 @@", "-return userId;", "+return userID;"],
        ]
    );
    assert_eq!((diff.added, diff.removed), (2, 2));
}

#[test]
fn patches_keep_their_hunks_and_name_moves_and_deletions() {
    let edits = crate::parse_patch(
        "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def main():\n \
         def main():\n-    print(\"hi\")\n+    print(\"hello\")\n@@\n+import sys\n@@\n only context\n\
         *** Delete File: old.txt\n*** Update File: same.txt\n@@\n kept\n*** End Patch",
    );
    let diffs: Vec<Option<FileDiff>> = edits.iter().map(FileDiff::of).collect();
    let moved = diffs[0].as_ref().unwrap();
    assert_eq!(moved.path, "src/app.py → src/main.py");
    let hunks: Vec<Vec<String>> = moved.hunks.iter().map(text_of).collect();
    assert_eq!(
        hunks,
        [
            vec!["@@ -1,2 +1,2 @@", " def main():", "-    print(\"hi\")", "+    print(\"hello\")"],
            vec!["@@ -0,0 +1,1 @@", "+import sys"],
        ]
    );
    assert_eq!((moved.added, moved.removed), (2, 1));
    let deleted = diffs[1].as_ref().unwrap();
    assert_eq!((deleted.path.as_str(), deleted.new_file, deleted.hunks.len()), ("old.txt", false, 0));
    assert_eq!(diffs[2], None, "a patch that changes no line has no diff");
}

#[test]
fn add_diffs_fills_edit_calls_and_their_subagents_calls() {
    let mut edit = ToolCall::running(
        "t1",
        "Edit",
        json!({"file_path": "/p/a.js", "old_string": "let a = 1;", "new_string": "let a = 2;"}),
    );
    edit.complete(Some("ok".into()), false, None);
    let mut task = ToolCall::running("t2", "Task", json!({"prompt": "write it"}));
    task.subagent = vec![Message::new(crate::Role::Assistant).with(Block::ToolCall(ToolCall::running(
        "t3",
        "Write",
        json!({"file_path": "/p/b.txt", "content": "x\n"}),
    )))];
    let bash = ToolCall::running("t4", "Bash", json!({"command": "ls"}));
    let mut transcript = Transcript::new(crate::claude::SOURCE, "s");
    transcript.messages.push(
        Message::new(crate::Role::Assistant)
            .with(Block::ToolCall(edit))
            .with(Block::ToolCall(task))
            .with(Block::ToolCall(bash)),
    );
    let loaded = serde_json::to_value(&transcript).unwrap();
    assert!(!loaded.to_string().contains("diffs"), "loading makes no diffs");
    add_diffs(&mut transcript);
    let value = serde_json::to_value(&transcript).unwrap();
    let blocks = &value["messages"][0]["blocks"];
    assert_eq!(
        blocks[0]["diffs"],
        json!([{
            "path": "/p/a.js", "newFile": false, "added": 1, "removed": 1,
            "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": [
                {"kind": "remove", "text": "let a = 1;"}, {"kind": "add", "text": "let a = 2;"}
            ]}]
        }])
    );
    assert_eq!(blocks[1]["subagent"][0]["blocks"][0]["diffs"][0]["newFile"], true);
    assert_eq!(blocks[1].get("diffs"), None, "a Task edits no file");
    assert_eq!(blocks[2].get("diffs"), None);
}

#[test]
fn a_huge_replacement_finishes() {
    // Every line differs: the worst case for a line diff.
    let old = lines_of((0..20_000).map(|n| format!("old {n}")));
    let new = lines_of((0..20_000).map(|n| format!("new {n}")));
    let started = Instant::now();
    let diff = replaced(&old, &new).unwrap();
    assert_eq!((diff.added, diff.removed), (20_000, 20_000));
    assert!(started.elapsed() < Duration::from_secs(20), "{:?}", started.elapsed());
}
