//! oh-my-pi under Bun (both from the npm registry), at every pinned version:
//! 18.2.3, the newest whose packages the registry holds whole (18.2.9 and
//! 18.3.4 pin versions of oh-my-pi's own packages it lacks; see interop/setup),
//! and 17.3.5, a major version back.

use std::path::PathBuf;

use crate::harness::{
    Dialect, Mismatches, Pin, at_every_version, check_reads, check_titles, compare_view, pinned, rename, scenarios,
    seed, sess,
};
use crate::pi_mono::{run_with_stdin, write_with_manager};

/// The pinned versions; every test below runs at each.
const OH_MY_PI: &[Pin] = &[
    Pin {
        folder: "oh-my-pi",
        name: "oh-my-pi 18.2.3",
        program: "node_modules/@oven/bun-linux-x64-baseline/bin/bun",
        driver: "driver.ts",
        package: "@oh-my-pi/pi-coding-agent",
        version: "18.2.3",
    },
    Pin {
        folder: "oh-my-pi-17",
        name: "oh-my-pi 17.3.5",
        program: "node_modules/@oven/bun-linux-x64-baseline/bin/bun",
        driver: "driver.ts",
        package: "@oh-my-pi/pi-coding-agent",
        version: "17.3.5",
    },
];

at_every_version!(OH_MY_PI { oh_my_pi_18_2_3 = 0, oh_my_pi_17_3_5 = 1 } {
    sess_reads_what_oh_my_pi_writes,
    oh_my_pi_opens_what_sess_writes,
});

fn sess_reads_what_oh_my_pi_writes(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    check_reads(&peer, Dialect::OhMyPi, scenarios(150) / 2, "oh-my-pi's provider repairs; custom message attribution");
}

/// Files sess wrote through its `SessionManager`, and sessions oh-my-pi wrote
/// that `sess append`, `label`, `fork`, `fork --new-session` and `rename`
/// changed, open in oh-my-pi with the context, labels, entry count and name
/// sess computes; a rename keeps every line but the title slot and the
/// appended entry, and oh-my-pi takes it as the user's.
fn oh_my_pi_opens_what_sess_writes(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    let seed = seed();
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> =
        (0..scenarios(150) / 10).map(|n| write_with_manager(&dir.path().join(format!("m{n}")), seed + n)).collect();

    let generated = peer.generate(dir.path(), seed, 3);
    let session = |i: usize| PathBuf::from(generated[i]["session"]["file"].as_str().unwrap());
    let mut mismatches = Mismatches::new(seed);
    // Appended to, labelled and forked in place, then forked into a new session.
    let cli = session(0);
    let cli_str = cli.to_str().unwrap();
    let appended = run_with_stdin(
        &["append", cli_str],
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"from sess\"}]}\n\
         {\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"provider\":\"p\",\"model\":\"m\"}\n",
    );
    let ids: Vec<&str> = appended.lines().collect();
    let label = sess(&["label", cli_str, ids[0], "from sess"]);
    mismatches.check(label.status.success(), || format!("sess label: {}", String::from_utf8_lossy(&label.stderr)));
    let fork = sess(&["fork", cli_str, "--at", ids[0]]);
    mismatches.check(fork.status.success(), || format!("sess fork: {}", String::from_utf8_lossy(&fork.stderr)));
    let forked = sess(&["fork", cli_str, "--at", ids[1], "--new-session"]);
    mismatches.check(forked.status.success(), || {
        format!("sess fork --new-session: {}", String::from_utf8_lossy(&forked.stderr))
    });
    files.push(cli.clone());
    files.push(PathBuf::from(String::from_utf8(forked.stdout).unwrap().trim()));
    // Renamed: one session oh-my-pi named (or not), one renamed twice.
    let title = "renamed by sess ✓";
    for file in [session(1), session(2)] {
        rename(dir.path(), &file, title, &mut mismatches);
    }
    rename(dir.path(), &session(2), "renamed twice, this time with a much longer title that goes on", &mut mismatches);
    rename(dir.path(), &session(2), title, &mut mismatches);
    files.extend([session(1), session(2)]);

    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let views = peer.run(dir.path(), &[&["inspect"], paths.as_slice()].concat());
    let views = views.as_array().unwrap();
    for view in views {
        compare_view(Dialect::OhMyPi, dir.path(), view, &mut mismatches, true);
    }
    let renamed: Vec<&serde_json::Value> = views[files.len() - 2..].iter().collect();
    check_titles(dir.path(), &renamed, &mut mismatches);
    let cli_view = &views[files.len() - 4];
    mismatches.check(cli_view["labels"][ids[0]] == "from sess", || {
        format!("{} sees labels {}", peer.name, cli_view["labels"])
    });
    for view in &views[files.len() - 2..] {
        mismatches.check(view["name"] == title && view["titleSource"] == "user", || {
            format!(
                "{} names {} {} (set by {}) after sess rename",
                peer.name, view["file"], view["name"], view["titleSource"]
            )
        });
    }
    eprintln!(
        "interop {} write (seed {seed}): {} files sess wrote opened by the peer, {} comparisons",
        peer.name,
        files.len(),
        mismatches.compared
    );
    mismatches.finish(&format!("{} write", peer.name));
}
