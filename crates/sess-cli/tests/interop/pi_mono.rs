//! pi under Node, at every pinned version: pi-mono 0.73.1 (npm
//! `@mariozechner/pi-coding-agent`) and pi 1.6.0 (the same agent as
//! `@earendil-works/pi-coding-agent`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sess_store::{CompactionParams, CustomMessageParams, FileStorage, SessionManager};

use sess_core::EntryKind;

use crate::harness::{
    Dialect, Mismatches, Ours, Pin, at_every_version, check_reads, check_titles, compare_view, first_difference, parse,
    pinned, rename, scenarios, seed, sess, show,
};

/// The pinned versions; every test below runs at each.
const PI: &[Pin] = &[
    Pin {
        folder: "pi-mono",
        name: "pi-mono 0.73.1",
        program: "node",
        driver: "driver.mjs",
        package: "@mariozechner/pi-coding-agent",
        version: "0.73.1",
    },
    Pin {
        folder: "pi",
        name: "pi 1.6.0",
        program: "node",
        driver: "driver.mjs",
        package: "@earendil-works/pi-coding-agent",
        version: "1.6.0",
    },
];

at_every_version!(PI { pi_mono_0_73_1 = 0, pi_1_6_0 = 1 } {
    sess_reads_what_pi_writes,
    sess_migrate_agrees_with_pi,
    pi_opens_what_sess_writes,
    pi_mono_reads_a_fork_with_the_context_at_its_entry,
    pi_sessions_round_trip_through_sqlite,
});

fn sess_reads_what_pi_writes(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    check_reads(&peer, Dialect::PiMono, scenarios(150), "an explicit model_change wins; custom message attribution");
}

/// Positions instead of ids, so two migrations that minted different ids compare.
fn normalize(text: &str) -> Vec<Value> {
    let lines: Vec<Value> = text.lines().map(|l| parse(l.as_bytes())).collect();
    let ids: BTreeMap<String, usize> =
        lines.iter().enumerate().filter_map(|(i, l)| l["id"].as_str().map(|id| (id.to_owned(), i))).collect();
    lines
        .into_iter()
        .enumerate()
        .map(|(i, mut line)| {
            if i > 0 {
                for key in ["id", "parentId", "firstKeptEntryId"] {
                    if let Some(id) = line.get(key).and_then(Value::as_str) {
                        line[key] =
                            json!(format!("#{}", ids.get(id).map_or_else(|| id.to_owned(), ToString::to_string)));
                    }
                }
            }
            // Key order matters too: new keys go at the end in both.
            json!([line.as_object().unwrap().keys().cloned().collect::<Vec<_>>(), line])
        })
        .collect()
}

fn sess_migrate_agrees_with_pi(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    let seed = seed();
    let count = scenarios(150) / 3;
    let dir = tempfile::tempdir().unwrap();
    let generated = peer.generate(dir.path(), seed, count);
    let mut pairs = Vec::new();
    for scenario in generated.as_array().unwrap() {
        for original in scenario["legacy"].as_object().unwrap().values() {
            let original = Path::new(original.as_str().unwrap());
            let theirs = original.with_extension("pi.jsonl");
            let ours = original.with_extension("sess.jsonl");
            fs::copy(original, &theirs).unwrap();
            fs::copy(original, &ours).unwrap();
            pairs.push((theirs, ours));
        }
    }
    let theirs: Vec<&str> = pairs.iter().map(|(t, _)| t.to_str().unwrap()).collect();
    peer.run(dir.path(), &[&["migrate"], theirs.as_slice()].concat());
    let mut args = vec!["migrate"];
    args.extend(pairs.iter().map(|(_, o)| o.to_str().unwrap()));
    let output = sess(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut mismatches = Mismatches::new(seed);
    for (theirs, ours) in &pairs {
        let (a, b) = (fs::read_to_string(ours).unwrap(), fs::read_to_string(theirs).unwrap());
        let (a, b) = (normalize(&a), normalize(&b));
        mismatches.check(a == b, || {
            let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(0);
            format!(
                "seed {seed} {}: line {} differs\n  sess {}\n  {} {}",
                ours.display(),
                first + 1,
                show(&a[first]),
                peer.name,
                show(&b[first])
            )
        });
    }
    eprintln!("interop {} migrate (seed {seed}): {} v1/v2 files compared", peer.name, pairs.len());
    mismatches.finish(&format!("{} migrate", peer.name));
}

/// A small seeded generator for sessions sess writes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }
}

/// A random session written by sess's `SessionManager`.
pub(crate) fn write_with_manager(dir: &Path, seed: u64) -> PathBuf {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut sm =
        SessionManager::builder().storage(std::sync::Arc::new(FileStorage)).create("/home/dev/project", dir).unwrap();
    let mut ids = Vec::new();
    sm.append_message(&json!({"role": "user", "content": [{"type": "text", "text": "start ☕"}], "timestamp": 1}))
        .unwrap();
    ids.push(sm.append_message(&json!({"role": "assistant", "content": [{"type": "text", "text": "ok"}], "provider": "anthropic", "model": "m1", "timestamp": 2})).unwrap());
    for n in 0..40 {
        let text = format!("step {n} \u{1}\n naïve 🎉");
        let id = match rng.below(12) {
            0..=3 => Some(sm.append_message(&json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": n})).unwrap()),
            4 | 5 => Some(
                sm.append_message(&json!({"role": "assistant", "content": [{"type": "text", "text": text}, {"type": "toolCall", "id": format!("c{n}"), "name": "read", "arguments": {}}], "provider": "openai", "model": "gpt-4o", "timestamp": n}))
                    .unwrap(),
            ),
            6 => Some(sm.append_thinking_level_change(Some(["low", "high"][rng.below(2)])).unwrap()),
            7 => {
                let target = ids[rng.below(ids.len())].to_string();
                Some(sm.append_label_change(&target, [Some("mark"), None][rng.below(2)]).unwrap())
            }
            8 => {
                let kept = sm.branch_entries(None).first().map(|e| e.id().to_string()).unwrap_or_default();
                Some(sm.append_compaction(CompactionParams { summary: format!("summary {n}"), first_kept_entry_id: kept, tokens_before: 10, ..CompactionParams::default() }).unwrap())
            }
            9 => Some(
                sm.append_custom_message_entry(CustomMessageParams { custom_type: "ext".into(), content: json!(text), display: true, details: None, attribution: None })
                    .unwrap(),
            ),
            10 => {
                let target = ids[rng.below(ids.len())].to_string();
                sm.branch(&target).unwrap();
                None
            }
            _ => {
                let target = ids[rng.below(ids.len())].to_string();
                Some(sm.branch_with_summary(Some(&target), &format!("left {n}"), None, None).unwrap())
            }
        };
        ids.extend(id);
    }
    sm.append_session_info("named by sess").unwrap();
    sm.close().unwrap();
    sm.session_file().unwrap().to_owned()
}

/// Files sess wrote (through its `SessionManager`, and `sess append`, `label`,
/// `fork`, `fork --new-session` and `rename`) open in pi with the context,
/// labels, entry count and name sess computes.
fn pi_opens_what_sess_writes(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    let seed = seed();
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> =
        (0..scenarios(150) / 5).map(|n| write_with_manager(&dir.path().join(format!("m{n}")), seed + n)).collect();

    // And through the command line.
    let cli = dir.path().join("cli.jsonl");
    let cli_str = cli.to_str().unwrap();
    let mut input = String::new();
    for n in 0..20 {
        let role = if n % 2 == 0 { "user" } else { "assistant" };
        writeln!(
            input,
            r#"{{"role":"{role}","content":[{{"type":"text","text":"cli {n}"}}],"provider":"p","model":"m"}}"#
        )
        .unwrap();
    }
    let appended = run_with_stdin(&["append", cli_str], &input);
    let ids: Vec<&str> = appended.lines().collect();
    assert!(sess(&["label", cli_str, ids[3], "from sess"]).status.success());
    assert!(sess(&["fork", cli_str, "--at", ids[5]]).status.success());
    run_with_stdin(&["append", cli_str], "{\"role\":\"user\",\"content\":\"after the fork\"}\n");
    let forked = String::from_utf8(sess(&["fork", cli_str, "--at", ids[9], "--new-session"]).stdout).unwrap();
    files.push(cli.clone());
    files.push(PathBuf::from(forked.trim()));

    // `sess rename` of a session pi wrote, and of one sess wrote with a name.
    let mut mismatches = Mismatches::new(seed);
    let generated = peer.generate(dir.path(), seed, 2);
    let renamed = [PathBuf::from(generated[0]["session"]["file"].as_str().unwrap()), files[0].clone()];
    let title = "renamed by sess ✓";
    for file in &renamed {
        rename(dir.path(), file, title, &mut mismatches);
    }
    files.extend(renamed.iter().cloned());

    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let views = peer.run(dir.path(), &[&["inspect"], paths.as_slice()].concat());
    let views = views.as_array().unwrap();
    for view in views {
        compare_view(Dialect::PiMono, dir.path(), view, &mut mismatches, true);
    }
    // The session pi wrote is in pi's folder, where sess lists it.
    check_titles(dir.path(), &[&views[files.len() - 2]], &mut mismatches);
    let cli_view = &views[files.len() - 4];
    mismatches.check(cli_view["labels"][ids[3]] == "from sess", || {
        format!("{} sees labels {}", peer.name, cli_view["labels"])
    });
    for view in &views[files.len() - 2..] {
        mismatches.check(view["name"] == title, || {
            format!("{} names {} {} after sess rename", peer.name, view["file"], view["name"])
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

/// `sess fork --at ID --new-session` drops the label entries of the path, as
/// pi's `createBranchedSession` does, but keeps the chain whole (docs/format.md,
/// "Where sess differs"; pi 1.6 re-chains the path too): pi reads the new file
/// with the context it computes at ID in the original. Forked at entries whose
/// path runs through a label: in a session written by sess with a label on the
/// path whose target is off the path, and in sessions pi generated.
fn pi_mono_reads_a_fork_with_the_context_at_its_entry(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    let seed = seed();
    let dir = tempfile::tempdir().unwrap();
    let mut sm = SessionManager::builder()
        .storage(std::sync::Arc::new(FileStorage))
        .create("/home/dev/project", &dir.path().join("own"))
        .unwrap();
    let message = |role: &str, text: &str| json!({"role": role, "content": [{"type": "text", "text": text}], "provider": "p", "model": "m", "timestamp": 1});
    let one = sm.append_message(&message("user", "one")).unwrap();
    let off = sm.append_message(&message("assistant", "off the path")).unwrap();
    sm.branch(one.as_str()).unwrap();
    sm.append_label_change(off.as_str(), Some("elsewhere")).unwrap();
    sm.append_message(&message("assistant", "two")).unwrap();
    sm.append_label_change(one.as_str(), Some("start")).unwrap();
    sm.append_message(&message("user", "three")).unwrap();
    let four = sm.append_message(&message("assistant", "four")).unwrap();
    sm.close().unwrap();
    let mut forks: Vec<(PathBuf, String)> = vec![(sm.session_file().unwrap().to_owned(), four.to_string())];

    let generated = peer.generate(dir.path(), seed, scenarios(150) / 10);
    for scenario in generated.as_array().unwrap() {
        let file = PathBuf::from(scenario["session"]["file"].as_str().unwrap());
        let ours = Ours::read(&file, None);
        let through_a_label: Vec<String> = ours
            .entries
            .iter()
            .filter(|e| !matches!(e.kind(), EntryKind::Label(_)))
            .filter(|e| ours.path(Some(e.id().as_str())).iter().any(|p| matches!(p.kind(), EntryKind::Label(_))))
            .map(|e| e.id().to_string())
            .collect();
        let picks = [through_a_label.first(), through_a_label.get(through_a_label.len() / 2), through_a_label.last()];
        let mut picks: Vec<&String> = picks.into_iter().flatten().collect();
        picks.dedup();
        forks.extend(picks.into_iter().map(|id| (file.clone(), id.clone())));
    }

    let out = dir.path().join("forks");
    let mut files = Vec::new();
    for (file, at) in &forks {
        let output =
            sess(&["fork", file.to_str().unwrap(), "--at", at, "--new-session", "--dir", out.to_str().unwrap()]);
        assert!(
            output.status.success(),
            "sess fork {} --at {at}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        files.push(file.clone());
        files.push(PathBuf::from(String::from_utf8(output.stdout).unwrap().trim()));
    }
    let paths: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    let views = peer.run(dir.path(), &[&["inspect"], paths.as_slice()].concat());
    let views = views.as_array().unwrap();
    let mut mismatches = Mismatches::new(seed);
    for ((file, at), pair) in forks.iter().zip(views.chunks(2)) {
        let (original, fork) = (&pair[0]["contexts"][at], &pair[1]["last"]);
        for key in ["messages", "thinkingLevel", "model"] {
            mismatches.check(original[key] == fork[key], || {
                format!(
                    "seed {seed} {} forked at {at}: {}'s {key} of the fork differs from the original's\n  {}",
                    file.display(),
                    peer.name,
                    first_difference(&fork[key], &original[key])
                )
            });
        }
        compare_view(Dialect::PiMono, dir.path(), &pair[1], &mut mismatches, false);
    }
    // And against pi's own `createBranchedSession` at the same entries.
    let branched = dir.path().join("branched");
    let mut args = vec!["branch", branched.to_str().unwrap()];
    for (file, at) in &forks {
        args.extend([file.to_str().unwrap(), at.as_str()]);
    }
    let theirs = peer.run(dir.path(), &args);
    let intended_before = mismatches.intended;
    for (((file, at), ours), theirs) in forks.iter().zip(files.chunks(2).map(|p| &p[1])).zip(theirs.as_array().unwrap())
    {
        let lines: Vec<Value> =
            fs::read_to_string(ours).unwrap().lines().skip(1).map(|l| parse(l.as_bytes())).collect();
        let original = Ours::read(file, None);
        let what = format!("seed {seed} {} forked at {at}", file.display());
        compare_with_create_branched_session(&original, at, &lines, theirs.as_array().unwrap(), &mut mismatches, &what);
    }
    eprintln!(
        "interop {} fork (seed {seed}): {} forks read by the peer and compared with its createBranchedSession, \
         {} comparisons, {} intended differences ({} where the chain is kept whole without the labels; \
         the rest: an explicit model_change wins, custom message attribution)",
        peer.name,
        forks.len(),
        mismatches.compared,
        mismatches.intended,
        mismatches.intended - intended_before
    );
    mismatches.finish(&format!("{} fork", peer.name));
}

/// sess's fork of `original` at `at` (`ours`, its entries) against pi's
/// `createBranchedSession` there (`theirs`): the same entries, keys in the same
/// order, and the same labels (as a set: both write them again at the end, in
/// their own order and with new ids), except by the rule of docs/format.md
/// ("Where sess differs"): where pi's `parentId` or `firstKeptEntryId` names a
/// label entry it left out, sess names the nearest entry kept before it (parent)
/// or the first entry of the path kept after that label (first kept).
fn compare_with_create_branched_session(
    original: &Ours,
    at: &str,
    ours: &[Value],
    theirs: &[Value],
    mismatches: &mut Mismatches,
    what: &str,
) {
    let is_label = |v: &&Value| v["type"] == "label";
    let (our_labels, our_entries): (Vec<&Value>, Vec<&Value>) = ours.iter().partition(is_label);
    let (their_labels, their_entries): (Vec<&Value>, Vec<&Value>) = theirs.iter().partition(is_label);
    let label_set = |labels: &[&Value]| -> std::collections::BTreeSet<String> {
        labels.iter().map(|l| json!([l["targetId"], l["label"], l["timestamp"]]).to_string()).collect()
    };
    mismatches.check(label_set(&our_labels) == label_set(&their_labels), || {
        format!("{what}: labels {:?}, pi {:?}", label_set(&our_labels), label_set(&their_labels))
    });
    let ids = |entries: &[&Value]| entries.iter().map(|e| e["id"].clone()).collect::<Vec<_>>();
    mismatches.check(ids(&our_entries) == ids(&their_entries), || {
        format!("{what}: entries {:?}, pi {:?}", ids(&our_entries), ids(&their_entries))
    });
    let path = original.path(Some(at));
    let is_left_out_label = |id: &Value| {
        id.as_str().is_some_and(|id| {
            path.iter().any(|e| e.id().as_str() == id && matches!(e.kind(), EntryKind::Label(_)))
                && !their_entries.iter().any(|e| e["id"] == id)
        })
    };
    let first_kept_after = |label: &Value| -> Value {
        let at = path.iter().position(|e| Some(e.id().as_str()) == label.as_str());
        at.and_then(|at| path[at..].iter().find(|e| !matches!(e.kind(), EntryKind::Label(_))))
            .map_or(Value::Null, |e| json!(e.id().as_str()))
    };
    for (i, (mine, peer)) in our_entries.iter().zip(&their_entries).enumerate() {
        let (mut mine, mut peer) = ((*mine).clone(), (*peer).clone());
        for key in ["parentId", "firstKeptEntryId"] {
            if mine[key] == peer[key] || !is_left_out_label(&peer[key]) {
                continue;
            }
            let expected = if key == "parentId" {
                i.checked_sub(1).map_or(Value::Null, |before| our_entries[before]["id"].clone())
            } else {
                first_kept_after(&peer[key])
            };
            mismatches.check(mine[key] == expected, || {
                format!("{what}: {} has {key} {}, expected {expected} (pi: {})", mine["id"], mine[key], peer[key])
            });
            mismatches.intended += 1;
            (mine[key], peer[key]) = (Value::Null, Value::Null);
        }
        let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        mismatches.check(mine == peer && keys(&mine) == keys(&peer), || {
            format!("{what}: entry {} differs from pi's: {}", mine["id"], first_difference(&mine, &peer))
        });
    }
}

pub(crate) fn run_with_stdin(args: &[&str], input: &str) -> String {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_sess"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "sess {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Sessions pi wrote survive `sess copy` into SQLite and back into files
/// byte for byte (every shape the scenarios produce: branches, compactions at a
/// segment's end, roots after `resetLeaf`).
fn pi_sessions_round_trip_through_sqlite(pin: &Pin) {
    let Some(peer) = pinned(pin) else { return };
    let seed = seed();
    let count = scenarios(150) / 3;
    let dir = tempfile::tempdir().unwrap();
    let generated = peer.generate(dir.path(), seed, count);
    let sqlite = format!("sqlite:{}", dir.path().join("store.db").display());
    let back = dir.path().join("back");
    let mut mismatches = Mismatches::new(seed);
    let mut originals = BTreeMap::new();
    for scenario in generated.as_array().unwrap() {
        let file = PathBuf::from(scenario["session"]["file"].as_str().unwrap());
        let output = sess(&["copy", file.to_str().unwrap(), &sqlite]);
        mismatches.check(output.status.success(), || {
            format!("seed {seed}: copying {} failed: {}", file.display(), String::from_utf8_lossy(&output.stderr))
        });
        let id = parse(fs::read_to_string(&file).unwrap().lines().next().unwrap().as_bytes())["id"]
            .as_str()
            .unwrap()
            .to_owned();
        originals.insert(id, file);
    }
    let output = sess(&["copy", &sqlite, &format!("dir:{}", back.display())]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut copies = Vec::new();
    let mut dirs = vec![back];
    while let Some(dir) = dirs.pop() {
        for item in fs::read_dir(&dir).unwrap() {
            let path = item.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                copies.push(path);
            }
        }
    }
    mismatches.check(copies.len() == originals.len(), || {
        format!("{} sessions came back of {}", copies.len(), originals.len())
    });
    for copy in copies {
        let bytes = fs::read(&copy).unwrap();
        let id = parse(String::from_utf8_lossy(&bytes).lines().next().unwrap().as_bytes())["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let original = fs::read(&originals[&id]).unwrap();
        mismatches.check(bytes == original, || format!("seed {seed}: session {id} changed on its way through SQLite"));
    }
    eprintln!("interop {} copy (seed {seed}): {} sessions through SQLite and back", peer.name, originals.len());
    mismatches.finish(&format!("{} copy", peer.name));
}
