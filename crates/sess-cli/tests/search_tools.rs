//! `sess search` finds what tools answered (a test run's failure), says so,
//! and ranks it below the conversation's own words.

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.

use pretty_assertions::assert_eq;

mod common;
use common::{CLAUDE_BASIC, Home, ok};

#[test]
fn a_word_only_a_tool_printed_is_found_as_tool_output() {
    let home = Home::new();
    // `FAIL test/health.test.js` is in the output of `npm test` only.
    let found = home.json(&["search", "--all-projects", "--json", "FAIL"]);
    let items = found.as_array().unwrap();
    assert_eq!(items.len(), 1, "{found}");
    assert_eq!((items[0]["id"].as_str(), items[0]["role"].as_str()), (Some(CLAUDE_BASIC), Some("tool")));
    assert!(items[0]["snippet"].as_str().unwrap().contains("FAIL test/health.test.js"), "{found}");
    let text = ok(&home.run(&["search", "--all-projects", "FAIL"]));
    assert!(text.contains("    tool output: ") && text.contains("FAIL test/health.test.js"), "{text}");
    // A word of the conversation is still found in the conversation.
    let found = home.json(&["search", "--all-projects", "--json", "uptime"]);
    assert_eq!(found[0]["role"].as_str(), Some("assistant"), "{found}");
}
