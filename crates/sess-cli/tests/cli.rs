//! The `sess` binary as a user runs it: outputs, exit codes and error messages.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

mod common;
use common::{fixture, json_out, sess, sess_at, stderr, stdout};

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
        // The three pi-family fixtures, the six of oh-my-pi-18.2.3-titles/ and pi-1.6.0/'s one.
        assert!(stdout(&output).contains("10 files checked, 0 with problems"), "{}", stdout(&output));
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

    #[test]
    fn refuses_to_replace_invalid_utf8_unless_asked_and_then_keeps_the_original() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.jsonl");
        let mut original = b"{\"type\":\"session\",\"id\":\"s\"}\n".to_vec();
        original.extend_from_slice(b"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"caf\xE9\"}}\n");
        original.extend_from_slice(b"{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"ok\"}}\n");
        fs::write(&path, &original).unwrap();

        let output = sess(&["migrate", path_str(&path)]);
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        let err = stderr(&output);
        assert!(err.contains("v1.jsonl` has 1 lines that are not valid UTF-8 (line 2)"), "{err}");
        assert!(err.contains("--drop-invalid"), "{err}");
        assert_eq!(fs::read(&path).unwrap(), original, "the file is left as it was");
        assert!(!dir.path().join("v1.jsonl.pre-migrate").exists());

        let output = sess(&["migrate", "--drop-invalid", path_str(&path)]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(stdout(&output).contains("the original bytes are kept in"), "{}", stdout(&output));
        assert_eq!(fs::read(dir.path().join("v1.jsonl.pre-migrate")).unwrap(), original);
        let migrated = fs::read_to_string(&path).unwrap();
        assert_eq!(migrated.lines().count(), 3);
        assert!(migrated.contains("caf\u{FFFD}"), "{migrated}");
    }

    #[test]
    fn never_overwrites_an_earlier_pre_migrate_copy() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.jsonl");
        let original = "{\"type\":\"session\",\"id\":\"s\"}\n{\"type\":\"message\",\"message\":{}}\n{garbage\n";
        fs::write(&path, original).unwrap();
        let backup = dir.path().join("v1.jsonl.pre-migrate");
        fs::write(&backup, "an earlier original\n").unwrap();

        let output = sess(&["migrate", "--drop-invalid", path_str(&path)]);
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        assert!(stderr(&output).contains("v1.jsonl.pre-migrate` exists"), "{}", stderr(&output));
        assert_eq!(fs::read_to_string(&backup).unwrap(), "an earlier original\n");
        assert_eq!(fs::read_to_string(&path).unwrap(), original);
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

/// A scratch home with the pi-mono fixtures where pi-mono keeps sessions.
fn pi_home() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".pi/agent/sessions/--home-dev-demo-project--");
    fs::create_dir_all(&project).unwrap();
    for name in ["pi-mono-0.73.1-main.jsonl", "pi-mono-0.73.1-createBranchedSession.jsonl"] {
        fs::copy(fixture(&format!("pi-family/{name}")), project.join(name)).unwrap();
    }
    (home, project)
}

mod writing {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ids(output: &Output) -> Vec<String> {
        assert_eq!(output.status.code(), Some(0), "{}", stderr(output));
        stdout(output).lines().map(str::to_owned).collect()
    }

    #[test]
    fn append_prints_ids_and_fills_in_the_base_fields() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("s.jsonl");
        let input = "{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"type\":\"thinking_level_change\",\"thinkingLevel\":\"low\",\"id\":\"ignored\"}\n";
        let new = ids(&sess_at(home.path(), &["append", path_str(&file)], input));
        assert_eq!(new.len(), 2);
        let lines: Vec<Value> =
            fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines[0]["cwd"], path_str(home.path()));
        assert_eq!(lines[1]["id"], new[0]);
        assert_eq!(lines[1]["parentId"], Value::Null);
        assert!(lines[1]["message"]["timestamp"].is_u64());
        assert_eq!(lines[2]["id"], new[1]);
        assert_eq!(lines[2]["parentId"], new[0]);
        assert!(lines[2]["timestamp"].as_str().unwrap().ends_with('Z'));

        let leaf = ids(&sess_at(
            home.path(),
            &["append", path_str(&file), "--leaf", &new[0]],
            "{\"role\":\"user\",\"content\":\"branch\"}\n",
        ));
        let tree = json_out(&sess(&["tree", "--json", path_str(&file)]));
        let children: Vec<&str> =
            tree["roots"][0]["children"].as_array().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
        assert_eq!(children, [new[1].as_str(), leaf[0].as_str()]);
    }

    #[test]
    fn append_rejects_bad_lines_with_their_number() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("s.jsonl");
        let output =
            sess_at(home.path(), &["append", path_str(&file)], "{\"role\":\"user\",\"content\":\"ok\"}\n[1]\n");
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(stdout(&output).lines().count(), 1, "the first line was appended before the error");
        assert!(stderr(&output).contains("stdin line 2: not a JSON object"), "{}", stderr(&output));
    }

    #[test]
    fn label_rename_and_fork_a_pi_session_found_by_id_prefix() {
        let (home, project) = pi_home();
        let main = project.join("pi-mono-0.73.1-main.jsonl");
        let h = home.path();
        // Both fixtures' ids start with 01a22b45: a prefix must be unambiguous.
        let ambiguous = sess_at(h, &["label", "01a22b45", "ea3e2661", "x"], "");
        assert_eq!(ambiguous.status.code(), Some(2));
        assert!(stderr(&ambiguous).contains("01a22b45"), "{}", stderr(&ambiguous));

        ids(&sess_at(h, &["label", "01a22b45-5c27", "ea3e2661", "first"], ""));
        let tree = json_out(&sess(&["tree", "--json", path_str(&main)]));
        assert_eq!(tree["roots"][0]["label"], "first");
        ids(&sess_at(h, &["label", "01a22b45-5c27", "ea3e2661", "--clear"], ""));
        let tree = json_out(&sess(&["tree", "--json", path_str(&main)]));
        assert!(tree["roots"][0].get("label").is_none());

        let before = fs::read_to_string(&main).unwrap();
        let renamed = sess_at(h, &["rename", path_str(&main), "New\tname"], "");
        assert_eq!(stdout(&renamed), "New name\n");
        let text = fs::read_to_string(&main).unwrap();
        // pi-mono reads names from `session_info` entries: one is appended, as
        // pi-mono renames, and the header is left as it was.
        assert_eq!(&text[..before.len()], before);
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!((last["type"].as_str(), last["name"].as_str()), (Some("session_info"), Some("New name")));

        let fork = ids(&sess_at(h, &["fork", path_str(&main), "--at", "19238abe"], ""));
        let next =
            ids(&sess_at(h, &["append", path_str(&main)], "{\"role\":\"user\",\"content\":\"from the fork\"}\n"));
        let ctx = json_out(&sess(&["context", path_str(&main)]));
        let texts: Vec<String> = ctx["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["content"][0]["text"].as_str().unwrap_or(m["content"].as_str().unwrap_or("")).to_owned())
            .collect();
        assert_eq!(texts, ["hello", "hi there", "second question", "second answer", "from the fork"]);
        let tree = json_out(&sess(&["tree", "--json", path_str(&main)]));
        assert_eq!(tree["leafId"], next[0]);
        assert_eq!(fork.len(), 1);

        let out_dir = h.join("forks");
        let new_file = sess_at(
            h,
            &["fork", path_str(&main), "--at", "bab2f192", "--new-session", "--dir", path_str(&out_dir)],
            "",
        );
        let new_path = PathBuf::from(stdout(&new_file).trim());
        assert!(new_path.starts_with(&out_dir), "{}", stderr(&new_file));
        let copy = fs::read_to_string(&new_path).unwrap();
        let header: Value = serde_json::from_str(copy.lines().next().unwrap()).unwrap();
        assert_eq!(header["parentSession"], path_str(&main));
        // root … bab2f192 without label entries; the root's label was cleared above,
        // so no label is written again.
        assert_eq!(copy.lines().count(), 1 + 7);
        assert_eq!(sess(&["verify", path_str(&new_path)]).status.code(), Some(0));
    }

    /// The path to 5ef624f7 runs through the label entry f6836503, which the new
    /// session does not copy: the entry after it hangs under the entry before it
    /// (pi-mono 0.73.1 leaves its parent dangling), so the context stays whole.
    #[test]
    fn fork_new_session_keeps_the_context_across_a_label_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("main.jsonl");
        fs::copy(fixture(PI_MAIN), &main).unwrap();
        let expected = json_out(&sess(&["context", "--leaf", "5ef624f7", path_str(&main)]));
        assert_eq!(expected["messages"].as_array().unwrap().len(), 6, "{expected}");
        let forked = sess(&["fork", path_str(&main), "--at", "5ef624f7", "--new-session"]);
        let new = PathBuf::from(ids(&forked).concat());
        assert_eq!(json_out(&sess(&["context", path_str(&new)])), expected);
        assert_eq!(json_out(&sess(&["context", "--leaf", "5ef624f7", path_str(&new)])), expected);
        let verified = sess(&["verify", path_str(&new)]);
        assert_eq!(verified.status.code(), Some(0), "{}", stdout(&verified));
    }

    #[test]
    fn a_fork_into_a_new_session_says_that_bytes_were_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        let original = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/w\"}\n\
{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"caf\xE9\"}}\n";
        fs::write(&file, original).unwrap();
        let output = sess_at(dir.path(), &["fork", path_str(&file), "--at", "a", "--new-session"], "");
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let err = stderr(&output);
        assert!(err.contains("s.jsonl`: line 2 holds bytes that are not UTF-8"), "{err}");
        assert_eq!(fs::read(&file).unwrap(), original);
    }

    /// Every file in `dir` whose bytes are `bytes`.
    fn files_holding(dir: &Path, bytes: &[u8]) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> =
            fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| fs::read(p).unwrap() == bytes).collect();
        found.sort();
        found
    }

    #[test]
    fn a_rewrite_keeps_the_bytes_of_a_file_that_is_not_utf8() {
        // A title in the header: `sess rename` rewrites the file (without one
        // it appends a `session_info`, which keeps every byte).
        let v3 = b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"cwd\":\"/w\",\"title\":\"t0\"}\n\
{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"caf\xE9\"}}\n";
        let v1 = b"{\"type\":\"session\",\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n\
{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"caf\xE9\"}}\n";
        let cases: [(&[u8], &str); 4] = [
            (v3, "rename"),
            (v1, "rename"),
            // Opening a legacy file migrates it: a rewrite even for an append.
            (v1, "label"),
            (v1, "append"),
        ];
        for (original, verb) in cases {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("s.jsonl");
            fs::write(&file, original).unwrap();
            let mut args = vec![verb, path_str(&file)];
            match verb {
                "rename" => args.push("t"),
                "label" => args.extend(["a", "t"]),
                _ => {}
            }
            let output = sess_at(dir.path(), &args, "{\"role\":\"user\",\"content\":\"more\"}\n");
            let code = output.status.code();
            assert!(code == Some(0) || code == Some(2), "{verb}: {code:?} {}", stderr(&output));
            let kept = files_holding(dir.path(), original);
            assert!(
                !kept.is_empty(),
                "sess {verb} on a {} file lost its original bytes: {}",
                if original == v1 { "v1" } else { "v3" },
                stderr(&output)
            );
            if fs::read(&file).unwrap() != original {
                let copy = kept[0].display().to_string();
                assert!(copy.contains("s.jsonl.corrupt-"), "{copy}");
                assert!(stderr(&output).contains(&copy), "{verb}: the warning names the copy: {}", stderr(&output));
            }
        }
    }
}

mod list {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn lists_pi_sessions_with_pi_mono_metadata() {
        let (home, project) = pi_home();
        let output = sess_at(home.path(), &["list", "--all-projects", "--json"], "");
        let items = json_out(&output);
        let items = items.as_array().unwrap();
        assert_eq!(items.len(), 2);
        // The branched session's copied messages are older than its header: it
        // was modified when it was created, after the main session's last message.
        let (branched, main) = (&items[0], &items[1]);
        assert_eq!(branched["modified"], "2026-11-30T07:04:55.596Z");
        assert_eq!(branched["created"], branched["modified"]);
        assert_eq!(main["path"], path_str(&project.join("pi-mono-0.73.1-main.jsonl")));
        assert_eq!(main["source"], "pi");
        assert_eq!(main["agent"], "pi-mono");
        assert_eq!(main["id"], "01a22b45-5c27-7725-b56f-8270ebb2b80e");
        assert_eq!(main["cwd"], "/home/dev/demo-project");
        assert_eq!(main["title"], "Demo session name");
        assert_eq!(main["created"], "2026-11-30T07:04:55.591Z");
        assert_eq!(main["modified"], "2026-11-30T07:04:55.594Z");
        assert_eq!(main["messageCount"], 10);
        assert_eq!(main["firstMessage"], "hello");
        assert_eq!(
            branched["parentSession"],
            "/home/dev/.pi/agent/sessions/--home-dev-demo-project--/2026-11-30T07-04-55-591Z_01a22b45-5c27-7725-b56f-8270ebb2b80e.jsonl"
        );

        let by_cwd =
            json_out(&sess_at(home.path(), &["list", "--cwd", "/home/dev/demo-project", "--json", "--limit", "1"], ""));
        assert_eq!(by_cwd.as_array().unwrap().len(), 1);
        let elsewhere = sess_at(home.path(), &["list", "--cwd", "/elsewhere"], "");
        assert_eq!(stdout(&elsewhere), "no sessions for `/elsewhere`\n");
    }
}

mod show {
    use super::*;
    use pretty_assertions::assert_eq;

    const EDITED: &str = "claude-code/claude-health-endpoint.jsonl";
    const CODEX_PATCHES: &str = "codex/real-0.171.0/codex-home/sessions/2026/11/30/rollout-2026-11-30T09-46-17-01a22bd9-19ce-7201-905a-da235f1ce47e.jsonl";

    /// The tool calls of `sess show --json`'s transcript named `name`.
    fn calls(transcript: &Value, name: &str) -> Vec<Value> {
        let blocks = transcript["messages"].as_array().unwrap().iter().flat_map(|m| m["blocks"].as_array().unwrap());
        blocks.filter(|b| b["type"] == "tool_call" && b["name"] == name).cloned().collect()
    }

    #[test]
    fn prints_the_diff_of_an_edit_under_its_call() {
        let output = sess(&["show", path_str(&fixture(EDITED))]);
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        assert!(
            text.contains(
                "  ✓ Edit  /home/alice/src/todo-api/src/server.js\n\
                 \x20   --- a/home/alice/src/todo-api/src/server.js\n\
                 \x20   +++ b/home/alice/src/todo-api/src/server.js\n\
                 \x20   @@ -1,1 +1,2 @@\n\
                 \x20   +app.get('/health', (req, res) => res.json({ ok: true }));\n\
                 \x20    app.use('/todos', require('./todos'));\n\
                 \x20 ✗ Bash  npm test\n"
            ),
            "{text}"
        );
        assert!(text.contains("    -res.json({ ok: true })\n    +res.json({ ok: true, uptime: process.uptime() })\n"));
        assert!(!text.contains('\u{1b}'), "no colour when stdout is not a terminal");
        // A Read changes no file: no diff under it.
        assert!(text.contains("  ✓ Read  /home/alice/src/todo-api/src/server.js\n  ✓ Edit"), "{text}");
    }

    #[test]
    fn json_carries_the_diffs_of_edit_calls_only() {
        let transcript = json_out(&sess(&["show", path_str(&fixture(EDITED)), "--json"]));
        let edits = calls(&transcript, "Edit");
        assert_eq!(edits.len(), 2);
        assert_eq!(
            edits[1]["diffs"],
            json!([{
                "path": "/home/alice/src/todo-api/src/server.js", "newFile": false, "added": 1, "removed": 1,
                "hunks": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": [
                    {"kind": "remove", "text": "res.json({ ok: true })"},
                    {"kind": "add", "text": "res.json({ ok: true, uptime: process.uptime() })"},
                ]}],
            }])
        );
        for other in calls(&transcript, "Read").iter().chain(&calls(&transcript, "Bash")) {
            assert_eq!(other.get("diffs"), None, "{other}");
        }

        let codex = json_out(&sess(&["show", path_str(&fixture(CODEX_PATCHES)), "--json"]));
        let patches = calls(&codex, "apply_patch");
        assert_eq!(patches.len(), 2);
        assert_eq!(
            patches[0]["diffs"],
            json!([{
                "path": "notes.txt", "newFile": true, "added": 2, "removed": 0,
                "hunks": [{"oldStart": 0, "oldLines": 0, "newStart": 1, "newLines": 2, "lines": [
                    {"kind": "add", "text": "first note"}, {"kind": "add", "text": "second note"},
                ]}],
            }])
        );
        assert_eq!(patches[1]["status"], "failed");
        assert_eq!(patches[1]["diffs"][0]["path"], "absent.txt");
    }
}
