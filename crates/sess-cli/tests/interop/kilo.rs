//! The real Kilo CLI (the native binary of `@kilocode/cli`, 7.7.9, whose
//! sessions are rows of `kilo.db` in OpenCode's shape) against the fake Chat
//! Completions API of OpenCode's interop (`interop/kilo/`).
//!
//! Kilo is a fork of OpenCode: its driver runs OpenCode's scenario
//! (`interop/opencode/scenario.mjs`: two projects, `--session` and
//! `--continue` past the model's context (Kilo compacts only before the
//! next prompt: the report says it did not), `--fork`, an image, a failed
//! model request, a `task` subagent, `/summarize` and `/revert` through
//! `kilo serve`), and the checks are OpenCode's (`interop/opencode.rs`), with
//! Kilo's source and name. `sess list --source kilo` shows Kilo's sessions
//! and `--source opencode` none of them. The sessions of one run are kept in
//! `fixtures/kilo/real-7.7.9/` and checked the same way without Node.

use std::path::Path;

use crate::harness::{Mismatches, Peer, check_live, check_recorded, peer_in, repo, sess_json};
use crate::opencode::{Family, check};

const KILO: Family = Family { source: "kilo", maker: "Kilo", added: "Added by Kilo" };

fn kilo() -> Option<Peer> {
    peer_in(&repo().join("interop/kilo"), "kilo", "node", "driver.mjs", "@kilocode/cli-linux-x64")
}

#[test]
fn sess_reads_what_kilo_writes() {
    let Some(peer) = kilo() else { return };
    check_live(&peer, &[], "Kilo", "kiloVersion", |home, scenario, mismatches| {
        check(&KILO, home, scenario, mismatches);
        check_not_opencodes(home, mismatches);
    });
}

/// The sessions of one driver run (`interop/opencode/fixtures.py`), checked
/// against its report without Node.
#[test]
fn sess_reads_the_recorded_kilo_sessions() {
    let fixtures = repo().join("fixtures/kilo/real-7.7.9");
    let lay_out = |home: &Path| {
        let data = home.join(".local/share/kilo");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::copy(fixtures.join("kilo.db"), data.join("kilo.db")).unwrap();
    };
    check_recorded(&fixtures, "recorded kilo 7.7.9 sessions", 50, lay_out, |home, scenario, mismatches| {
        check(&KILO, home, scenario, mismatches);
        check_not_opencodes(home, mismatches);
    });
}

/// Kilo's database is not OpenCode's: `--source opencode` lists none of it.
fn check_not_opencodes(home: &Path, mismatches: &mut Mismatches) {
    let listed = sess_json(home, &["list", "--source", "opencode", "--all-projects", "--json"]);
    let count = listed.as_array().map_or(0, Vec::len);
    mismatches.check(count == 0, || format!("sess list --source opencode lists {count} of Kilo's sessions"));
}
