//! The README's `sess show` example prints what the README shows, with nothing
//! on stderr; and the fixture the README says is cut prints the same with a
//! warning.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use std::path::PathBuf;
use std::process::{Command, Output};

use pretty_assertions::assert_eq;

mod common;
use common::{stderr, stdout};

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The README's `sess show FILE` command (its words) and the block after it.
fn example() -> (Vec<String>, String) {
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    let start = readme.find("`sess show\nfixtures/").or_else(|| readme.find("`sess show fixtures/")).unwrap();
    let command = &readme[start + 1..];
    let command = &command[..command.find('`').unwrap()];
    let words: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
    let after = &readme[start..];
    let block = &after[after.find("\n```\n").unwrap() + 5..];
    let block = &block[..block.find("```\n").unwrap()];
    (words, block.to_owned())
}

/// `sess` run from the repository's root as a user runs it there, stdout not
/// a terminal.
fn run(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .current_dir(repository())
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .output()
        .unwrap()
}

#[test]
fn the_show_example_prints_what_the_readme_shows() {
    let (words, shown) = example();
    assert_eq!(words[..2], ["sess", "show"]);
    let output = run(&words[1..]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "the example prints no warning");
    assert_eq!(stdout(&output), shown);
}

#[test]
fn the_cut_fixture_the_readme_names_warns_about_its_last_line() {
    let (words, shown) = example();
    let clean = words[2].clone();
    let cut = "fixtures/claude-code/claude-basic-toolcall.jsonl";
    let readme = std::fs::read_to_string(repository().join("README.md")).unwrap();
    assert!(readme.contains(&format!("`{cut}` is the same session")), "the README names the cut fixture");
    let output = run(&["show".to_owned(), cut.to_owned()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stderr(&output).contains("line 23: truncated last line"), "{}", stderr(&output));
    let clean_id = std::path::Path::new(&clean).file_stem().unwrap().to_str().unwrap().to_owned();
    assert_eq!(stdout(&output), shown.replace(&clean_id, "claude-basic-toolcall"));
}
