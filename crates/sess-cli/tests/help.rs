//! What `sess` says about itself and its errors: `--help`, `-V`, usage errors
//! and the causes under an error.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use pretty_assertions::assert_eq;

mod common;
use common::{ok, sess, stderr};

/// The command names `sess --help` lists, in order.
fn listed_commands() -> Vec<String> {
    let help = ok(&sess(&["--help"]));
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .map(|line| line.split_whitespace().next().unwrap().to_owned())
        .collect()
}

#[test]
fn the_headline_commands_come_first() {
    let commands = listed_commands();
    assert_eq!(commands[..4], ["list", "show", "search", "serve"], "{commands:?}");
    assert!(commands.contains(&"tree".to_owned()), "{commands:?}");
}

#[test]
fn every_verb_that_reads_a_session_names_it_session() {
    for verb in ["context", "tree", "segments", "show", "append", "label", "rename", "fork"] {
        let help = ok(&sess(&[verb, "--help"]));
        let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap();
        assert!(usage.contains("<SESSION>"), "{verb}: {usage}");
        assert!(!help.contains("<FILE>"), "{verb}: {help}");
    }
}

#[test]
fn the_store_option_says_what_it_does_on_each_verb() {
    for verb in ["verify", "migrate", "copy", "list", "index", "search", "serve", "tree"] {
        let help = ok(&sess(&[verb, "--help"])).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains("--store <URL>"), "{verb}: {help}");
        // Not a bare "SESSION is then a session id" on a verb that takes no SESSION.
        assert!(!help.contains("schema). SESSION is then"), "{verb}: {help}");
        assert!(help.contains("A verb's SESSION is then a session id or prefix"), "{verb}: {help}");
    }
}

#[test]
fn the_version_is_an_option_of_sess_only() {
    let version = ok(&sess(&["-V"]));
    assert!(version.starts_with("sess "), "{version}");
    let output = sess(&["tree", "-V"]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(!ok(&sess(&["tree", "--help"])).contains("--version"));
}

#[test]
fn a_negative_limit_says_what_a_limit_is() {
    for verb in [&["list"][..], &["search", "x"]] {
        for limit in ["-1", "0"] {
            let output = sess(&[verb, &["--limit", limit]].concat());
            assert_eq!(output.status.code(), Some(2), "{verb:?} {limit}");
            let err = stderr(&output);
            assert!(err.contains(&format!("invalid value '{limit}' for '--limit <N>'")), "{verb:?}: {err}");
            assert!(err.contains("a whole number, 1 or more"), "{verb:?}: {err}");
        }
    }
}

/// Each line of `text` that says `needle`.
fn lines_saying(text: &str, needle: &str) -> usize {
    text.lines().filter(|line| line.contains(needle)).count()
}

#[test]
fn a_cause_is_not_repeated() {
    let dir = tempfile::tempdir().unwrap();
    // A catalog SQLite cannot open (nothing can be made in /proc).
    let output = sess(&["index", "--catalog", "/proc/sess-test-catalog.sqlite"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("unable to open database file"), "{err}");
    assert_eq!(lines_saying(&err, "unable to open database file"), 1, "{err}");
    // A store that is not a database.
    let garbage = dir.path().join("garbage.sqlite");
    std::fs::write(&garbage, "not a database, but long enough to be read as a header ".repeat(20)).unwrap();
    let output = sess(&["tree", "--store", &format!("sqlite:{}", garbage.display()), "x"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("garbage.sqlite"), "{err}");
    assert_eq!(lines_saying(&err, "file is not a database"), 1, "{err}");
    // A PostgreSQL server that is not there (nothing listens on port 1).
    let output = sess(&["tree", "--store", "postgres://postgres@127.0.0.1:1/test", "x"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert_eq!(lines_saying(&err, "error connecting to server"), 1, "{err}");
    assert!(err.contains("Connection refused"), "{err}");
}
