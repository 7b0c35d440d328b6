//! oh-my-pi 18.2.3 under Bun (both from the npm registry).

use std::path::PathBuf;

use crate::harness::{Dialect, Mismatches, Peer, check_reads, compare_view, peer, scenarios, seed};
use crate::pi_mono::write_with_manager;

fn oh_my_pi() -> Option<Peer> {
    peer("oh-my-pi", "node_modules/@oven/bun-linux-x64-baseline/bin/bun", "driver.ts", "@oh-my-pi/pi-coding-agent")
}

#[test]
fn sess_reads_what_oh_my_pi_writes() {
    let Some(peer) = oh_my_pi() else { return };
    check_reads(
        &peer,
        Dialect::OhMyPi,
        scenarios(150) / 2,
        "oh-my-pi",
        "oh-my-pi's provider repairs; custom message attribution",
    );
}

#[test]
fn oh_my_pi_opens_what_sess_writes() {
    let Some(peer) = oh_my_pi() else { return };
    let seed = seed();
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<PathBuf> =
        (0..scenarios(150) / 10).map(|n| write_with_manager(&dir.path().join(format!("m{n}")), seed + n)).collect();
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let views = peer.run(dir.path(), &[&["inspect"], paths.as_slice()].concat());
    let mut mismatches = Mismatches::new(seed);
    for view in views.as_array().unwrap() {
        compare_view(Dialect::OhMyPi, dir.path(), view, &mut mismatches, true);
    }
    eprintln!(
        "interop oh-my-pi write (seed {seed}): {} files sess wrote opened by oh-my-pi, {} comparisons",
        files.len(),
        mismatches.compared
    );
    mismatches.finish("oh-my-pi write");
}
