//! Issue 26, item 12: the release build carried line tables (111 MB), which
//! `cargo install` hands every user. The release profile ships a stripped
//! binary; the profiling profile keeps what `perf` and backtraces need.

#![allow(clippy::unwrap_used)] // A panic is how a test fails.

use std::path::PathBuf;

/// The `key = value` lines of the workspace manifest's `[name]` section.
fn section(name: &str) -> Vec<String> {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let text = std::fs::read_to_string(manifest).unwrap();
    let header = format!("[{name}]");
    text.lines()
        .skip_while(|line| line.trim() != header)
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with('['))
        .map(|line| line.split('#').next().unwrap_or("").split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn the_release_build_is_stripped_and_the_profiling_build_keeps_line_tables() {
    let release = section("profile.release");
    assert!(release.contains(&"debug = false".to_owned()), "{release:?}");
    assert!(release.contains(&"strip = true".to_owned()), "{release:?}");
    let profiling = section("profile.profiling");
    assert!(profiling.contains(&"inherits = \"release\"".to_owned()), "{profiling:?}");
    assert!(profiling.contains(&"debug = \"line-tables-only\"".to_owned()), "{profiling:?}");
    assert!(profiling.contains(&"strip = \"none\"".to_owned()), "{profiling:?}");
}
