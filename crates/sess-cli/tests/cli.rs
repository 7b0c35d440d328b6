//! The `sess` binary as a user runs it: outputs, exit codes and error messages.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(path)
}

fn sess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sess")).args(args).output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn json_out(output: &Output) -> Value {
    pretty_assertions::assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(output));
    serde_json::from_slice(&output.stdout).unwrap()
}

const PI_MAIN: &str = "pi-family/pi-mono-0.73.1-main.jsonl";

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

mod context {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn prints_the_context_at_the_last_entry() {
        let ctx = json_out(&sess(&["context", path_str(&fixture(PI_MAIN))]));
        assert_eq!(ctx["messages"].as_array().unwrap().len(), 6);
        assert_eq!(ctx["messages"][0]["role"], "compactionSummary");
        assert_eq!(ctx["thinkingLevel"], "high");
    }

    #[test]
    fn takes_a_leaf() {
        let ctx = json_out(&sess(&["context", path_str(&fixture(PI_MAIN)), "--leaf", "19238abe", "--compact"]));
        let texts: Vec<&str> =
            ctx["messages"].as_array().unwrap().iter().map(|m| m["content"][0]["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["hello", "hi there", "second question", "second answer"]);
    }

    #[test]
    fn an_unknown_leaf_is_an_error_naming_the_file() {
        let output = sess(&["context", path_str(&fixture(PI_MAIN)), "--leaf", "nope"]);
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains("has no entry `nope`"), "{}", stderr(&output));
        assert!(stderr(&output).contains("pi-mono-0.73.1-main.jsonl"));
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let output = sess(&["context", "/nonexistent/s.jsonl"]);
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains("`/nonexistent/s.jsonl` does not exist"), "{}", stderr(&output));
    }

    #[test]
    fn damaged_lines_are_reported_with_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut text = fs::read_to_string(fixture(PI_MAIN)).unwrap();
        text.insert_str(text.find('\n').unwrap() + 1, "{not json\n");
        text.push_str("{\"type\":\"message\",\"id\":\"torn\",\"par");
        fs::write(&path, text).unwrap();
        let output = sess(&["context", path_str(&path)]);
        let err = stderr(&output);
        assert!(err.contains("s.jsonl`: line 2: invalid JSON"), "{err}");
        assert!(err.contains("s.jsonl`: line 21: truncated last line"), "{err}");
        assert_eq!(json_out(&output)["messages"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn a_file_that_is_not_a_session_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.jsonl");
        fs::write(&path, "hello\nworld\n").unwrap();
        let output = sess(&["context", path_str(&path)]);
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains("is not a session file"), "{}", stderr(&output));
    }
}

mod tree {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn draws_branches_labels_segments_and_the_leaf() {
        let output = sess(&["tree", path_str(&fixture(PI_MAIN))]);
        assert_eq!(output.status.code(), Some(0));
        let expected = "\
ea3e2661  user: hello  [checkpoint]
c5d60f90  thinking: high
7adf1ac6  model: openai/gpt-4o
edb3d6a1  assistant: hi there
├─ ead26750  user: second question
│  19238abe  assistant: second answer
├─ fe0e5ec9  user: alternative question  ◆ fork segment
│  5d6f30e7  assistant: alternative answer
└─ 1dc6d7d3  branch summary: User explored an alternative and abandoned it.  ◆ fork segment
   6e0ceeb6  user: third question
   bab2f192  assistant: third answer
   e05f1d0e  compaction: Summary of earlier conversation.  ◆ compact segment
   f6836503  label ea3e2661: checkpoint
   624d8a6f  custom my-extension
   75d09d0f  custom message my-extension: Injected context
   e1c75af8  user: after compaction
   5ef624f7  assistant: post-compaction answer
   b3489ce4  name: Demo session name  ← leaf
";
        assert_eq!(stdout(&output), expected);
    }

    #[test]
    fn json_has_the_peer_tree_shape() {
        let tree = json_out(&sess(&["tree", "--json", path_str(&fixture(PI_MAIN))]));
        assert_eq!(tree["leafId"], "b3489ce4");
        let roots = tree["roots"].as_array().unwrap();
        assert_eq!(roots.len(), 1);
        assert_eq!(roots[0]["id"], "ea3e2661");
        assert_eq!(roots[0]["type"], "message");
        assert_eq!(roots[0]["label"], "checkpoint");
        let branch_point = &roots[0]["children"][0]["children"][0]["children"][0];
        assert_eq!(branch_point["id"], "edb3d6a1");
        let children: Vec<&str> =
            branch_point["children"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        assert_eq!(children, ["ead26750", "fe0e5ec9", "1dc6d7d3"]);
        assert!(branch_point.get("label").is_none());
    }
}

mod segments {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn json_lists_segments_with_lineage() {
        let segments = json_out(&sess(&["segments", "--json", path_str(&fixture(PI_MAIN))]));
        assert_eq!(
            segments,
            json!([
                {"id":"ea3e2661","origin":"new","entries":["ea3e2661","c5d60f90","7adf1ac6","edb3d6a1","ead26750","19238abe"]},
                {"id":"fe0e5ec9","origin":"fork","parent":"ea3e2661","forkAt":3,"entries":["fe0e5ec9","5d6f30e7"]},
                {"id":"1dc6d7d3","origin":"fork","parent":"ea3e2661","forkAt":3,"entries":["1dc6d7d3","6e0ceeb6","bab2f192"]},
                {"id":"e05f1d0e","origin":"compact","parent":"1dc6d7d3","forkAt":2,"entries":["e05f1d0e","f6836503","624d8a6f","75d09d0f","e1c75af8","5ef624f7","b3489ce4"]},
            ])
        );
    }
}

mod verify {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn clean_files_exit_0() {
        let output = sess(&["verify", path_str(&fixture("pi-family"))]);
        assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
        assert!(stdout(&output).contains("3 files checked, 0 with problems"));
    }

    #[test]
    fn problems_exit_1_with_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        fs::write(
            &path,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n\
             {\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n\
             {\"type\":\"message\",\"id\":\"a\",\"parentId\":\"ghost\"}\n\
             oops\n",
        )
        .unwrap();
        let output = sess(&["verify", path_str(&path)]);
        assert_eq!(output.status.code(), Some(1));
        let text = stdout(&output);
        assert!(text.contains("3 problems"), "{text}");
        assert!(text.contains("line 3: error: id a is also used on line 2"), "{text}");
        assert!(text.contains("line 3: error: parent ghost does not exist"), "{text}");
        assert!(text.contains("line 4: error: invalid JSON"), "{text}");

        let output = sess(&["verify", "--json", path_str(&path)]);
        assert_eq!(output.status.code(), Some(1));
        let report: Value = serde_json::from_slice(&output.stdout).unwrap();
        let codes: Vec<&str> =
            report[0]["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["duplicate-id", "dangling-parent", "invalid-json"]);
        assert_eq!(report[0]["ok"], false);
    }
}

mod migrate {
    use super::*;
    use pretty_assertions::assert_eq;

    fn copy_fixture(dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(Path::new(name).file_name().unwrap());
        fs::copy(fixture(name), &path).unwrap();
        path
    }

    #[test]
    fn rewrites_legacy_files_as_v3() {
        let dir = tempfile::tempdir().unwrap();
        let v1 = copy_fixture(dir.path(), "legacy/v1-basic.jsonl");
        let v2 = copy_fixture(dir.path(), "legacy/v2-hook-message.jsonl");
        let current = copy_fixture(dir.path(), PI_MAIN);

        let check = sess(&["migrate", "--check", path_str(&v1), path_str(&v2), path_str(&current)]);
        assert_eq!(check.status.code(), Some(1));
        assert!(stdout(&check).contains("v1-basic.jsonl`: needs migration (version 1 → 3)"));
        assert_eq!(fs::read(&v1).unwrap(), fs::read(fixture("legacy/v1-basic.jsonl")).unwrap());

        let output = sess(&["migrate", path_str(&v1), path_str(&v2), path_str(&current)]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stdout(&output).contains("v1-basic.jsonl`: migrated version 1 → 3 (8 entries)"));
        assert!(stdout(&output).contains("pi-mono-0.73.1-main.jsonl`: already version 3"));
        assert_eq!(
            fs::read_to_string(&v2).unwrap(),
            fs::read_to_string(fixture("legacy/v2-hook-message.migrated.jsonl")).unwrap()
        );
        assert_eq!(fs::read(&current).unwrap(), fs::read(fixture(PI_MAIN)).unwrap());

        let migrated = fs::read_to_string(&v1).unwrap();
        assert!(migrated.starts_with(r#"{"type":"session","id":"legacy-v1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/work/legacy","version":3}"#));
        let verify = sess(&["verify", path_str(&v1)]);
        assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
        assert_eq!(sess(&["migrate", "--check", path_str(&v1), path_str(&v2)]).status.code(), Some(0));
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 3, "no temporary files are left: {names:?}");
    }

    #[test]
    fn refuses_to_drop_unreadable_lines_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.jsonl");
        let original = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"message\":{}}\n{garbage\n";
        fs::write(&path, original).unwrap();
        let output = sess(&["migrate", path_str(&path)]);
        assert_eq!(output.status.code(), Some(2));
        assert!(stderr(&output).contains("has 1 unreadable lines (line 3)"), "{}", stderr(&output));
        assert!(stderr(&output).contains("hint: "), "{}", stderr(&output));
        assert_eq!(fs::read_to_string(&path).unwrap(), original);

        let output = sess(&["migrate", "--drop-invalid", path_str(&path)]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert_eq!(fs::read_to_string(dir.path().join("v1.jsonl.pre-migrate")).unwrap(), original);
        assert_eq!(fs::read_to_string(&path).unwrap().lines().count(), 2);
    }
}

mod hostile_input {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_200_000_deep_chain_works() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deep.jsonl");
        let mut text = String::from("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n");
        for i in 0..200_000 {
            let parent = if i == 0 { "null".to_owned() } else { format!("\"e{}\"", i - 1) };
            writeln!(text, "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"m\"}}}}").unwrap();
        }
        fs::write(&path, text).unwrap();
        let ctx = json_out(&sess(&["context", "--compact", path_str(&path)]));
        assert_eq!(ctx["messages"].as_array().unwrap().len(), 200_000);
        let output = sess(&["tree", "--json", path_str(&path)]);
        assert_eq!(output.status.code(), Some(0));
        assert!(stdout(&output).starts_with("{\"leafId\":\"e199999\",\"roots\":[{\"id\":\"e0\""));
        assert_eq!(sess(&["segments", path_str(&path)]).status.code(), Some(0));
    }

    #[test]
    fn cycles_are_reported_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("loop.jsonl");
        fs::write(
            &path,
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n\
             {\"type\":\"message\",\"id\":\"a\",\"parentId\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"1\"}}\n\
             {\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"message\":{\"role\":\"user\",\"content\":\"2\"}}\n",
        )
        .unwrap();
        let output = sess(&["context", path_str(&path)]);
        assert!(stderr(&output).contains("loops at entry"), "{}", stderr(&output));
        assert_eq!(json_out(&output)["messages"].as_array().unwrap().len(), 2);
        assert_eq!(sess(&["tree", path_str(&path)]).status.code(), Some(0));
        let verify = sess(&["verify", path_str(&path)]);
        assert_eq!(verify.status.code(), Some(1));
        assert!(stdout(&verify).contains("loops back to itself"));
    }

    #[test]
    fn binary_garbage_and_a_huge_line_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk.jsonl");
        let mut bytes = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n".to_vec();
        bytes.extend((0..=255u8).cycle().take(100_000).filter(|&b| b != b'\n'));
        bytes.push(b'\n');
        bytes.extend(format!("{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{{\"role\":\"user\",\"content\":\"{}\"}}}}\n", "x".repeat(8 << 20)).bytes());
        fs::write(&path, bytes).unwrap();
        let output = sess(&["verify", path_str(&path)]);
        assert_eq!(output.status.code(), Some(1));
        assert!(stdout(&output).contains("line 2: error: invalid JSON"), "{}", stdout(&output));
        let ctx = json_out(&sess(&["context", "--compact", path_str(&path)]));
        assert_eq!(ctx["messages"][0]["content"].as_str().unwrap().len(), 8 << 20);
    }
}
