//! Writers in separate OS processes racing on one segment of one schema
//! (skipped without `SESS_TEST_PG_URL`; see `support/pg.rs`). The test spawns
//! this test binary again, once per writer, running only [`worker`] with the
//! writer's number and the schema's URL in its environment; the workers start
//! together, all expecting the same tail.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // A panic is how a test fails.

#[path = "support/pg.rs"]
mod pg;

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use sess_core::SessionHeader;
use sess_core::segment::{Origin, derive};
use sess_postgres::PostgresBackend;
use sess_store::{Backend, NewSegment, append_or_fork};
use sess_testkit::backends::message;

const WRITERS: usize = 5;
const APPENDS: usize = 40;
/// Set in a worker process: its number.
const WORKER_VAR: &str = "SESS_PG_TEST_WORKER";
/// Set in a worker process: the schema's URL.
const WORKER_URL_VAR: &str = "SESS_PG_TEST_WORKER_URL";
/// Set in a worker process: the directory of the start signal and the results.
const WORKER_DIR_VAR: &str = "SESS_PG_TEST_WORKER_DIR";

fn wait_for(path: &Path) {
    let started = Instant::now();
    while !path.exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// One writer: connects (its own pool), says it is ready, waits for the
/// start, then appends `APPENDS` entries one at a time from `c` at the tail of
/// `a`, forking when another writer was first. Writes the forks it made to
/// `<dir>/forks-<n>` as `segment parent fork_at` lines.
#[test]
#[ignore = "run by writers_in_separate_processes_fork_and_lose_nothing in its own processes"]
fn worker() {
    let (Ok(n), Ok(url), Ok(dir)) =
        (std::env::var(WORKER_VAR), std::env::var(WORKER_URL_VAR), std::env::var(WORKER_DIR_VAR))
    else {
        return;
    };
    let dir = Path::new(&dir);
    let backend = PostgresBackend::builder().pool_size(1).connect(&url).unwrap();
    backend.segments("s").unwrap();
    std::fs::File::create_new(dir.join(format!("ready-{n}"))).unwrap();
    wait_for(&dir.join("go"));
    let (mut segment, mut len, mut parent) = ("a".to_owned(), 3, "c".to_owned());
    let mut forks = String::new();
    for i in 0..APPENDS {
        let id = format!("p{n}-{i}");
        let placed = append_or_fork(&backend, "s", &segment, len, &[message(&id, Some(&parent))]).unwrap();
        if let Some((from, at)) = &placed.forked_from {
            writeln!(forks, "{} {from} {at}", placed.segment).unwrap();
        }
        (segment, len, parent) = (placed.segment, placed.first_seq + 1, id);
    }
    sess_store::durable::write_atomic(&dir.join(format!("forks-{n}")), forks.as_bytes()).unwrap();
}

#[test]
fn writers_in_separate_processes_fork_and_lose_nothing() {
    let Some(server) = pg::server("writers_in_separate_processes_fork_and_lose_nothing") else { return };
    let schema = pg::TestSchema::new(&server);
    let backend = schema.backend();
    backend.create_session(&SessionHeader::new("s", "2026-01-01T00:00:00.000Z", "/p", None), None).unwrap();
    let first = [message("a", None), message("b", Some("a")), message("c", Some("b"))];
    backend.create_segment("s", &NewSegment::New, &first).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..WRITERS)
        .map(|n| {
            Command::new(&exe)
                .args(["worker", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
                .env(WORKER_VAR, n.to_string())
                .env(WORKER_URL_VAR, &schema.url)
                .env(WORKER_DIR_VAR, dir.path())
                // Kept apart from this test's own output, and shown if a writer fails.
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for n in 0..WRITERS {
        wait_for(&dir.path().join(format!("ready-{n}")));
    }
    std::fs::File::create_new(dir.path().join("go")).unwrap();
    for child in children {
        let output = child.wait_with_output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "a writer failed:\n{stdout}\n{stderr}");
    }
    let mut forks = Vec::new();
    for n in 0..WRITERS {
        let text = std::fs::read_to_string(dir.path().join(format!("forks-{n}"))).unwrap();
        for line in text.lines() {
            let [segment, from, at] = line.split(' ').collect::<Vec<_>>()[..] else { panic!("bad line {line}") };
            forks.push((segment.to_owned(), (from.to_owned(), at.parse::<u64>().unwrap())));
        }
    }
    // All start expecting `a` to have 3 entries: the first to append stays on
    // `a`, every other one forks under `c`, then each owns its segment.
    assert_eq!(forks.len(), WRITERS - 1);
    assert!(forks.iter().all(|(_, from)| *from == ("a".to_owned(), 2)), "{forks:?}");

    let entries = backend.read_session("s").unwrap();
    assert_eq!(entries.len(), 3 + WRITERS * APPENDS, "nothing lost, nothing doubled");
    for n in 0..WRITERS {
        for i in 1..APPENDS {
            let child = entries.iter().find(|e| e.id().as_str() == format!("p{n}-{i}")).unwrap();
            assert_eq!(child.parent_id().unwrap().as_str(), format!("p{n}-{}", i - 1), "chain unbroken");
        }
    }
    let segments = backend.segments("s").unwrap();
    assert_eq!(segments.iter().filter(|s| s.origin == Origin::Fork).count(), forks.len());
    for (segment, from) in &forks {
        let info = segments.iter().find(|s| s.id == *segment).unwrap();
        assert_eq!(info.parent.as_ref(), Some(from), "lineage recorded");
        assert_eq!(info.len, APPENDS as u64);
        let ancestors: Vec<String> = backend.ancestors("s", segment).unwrap().into_iter().map(|s| s.id).collect();
        assert_eq!(ancestors, ["a"]);
    }
    assert_eq!(segments[0].len, 3 + APPENDS as u64);
    let derived = derive(&entries);
    assert_eq!(derived.segments.len(), segments.len(), "the lineage matches the entries' own tree");
    for (info, segment) in segments.iter().zip(&derived.segments) {
        assert_eq!(
            (info.id.as_str(), info.len),
            (entries[segment.entries[0]].id().as_str(), segment.entries.len() as u64)
        );
    }
    // Insertion order is dense and unique even though the writers raced.
    let ords: Vec<i64> = schema
        .schema_client()
        .query("SELECT ord FROM entries WHERE session_id = 's' ORDER BY ord", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(ords, (0..i64::try_from(entries.len()).unwrap()).collect::<Vec<_>>());
    assert_eq!(backend.list_sessions().unwrap()[0].message_count, entries.len());
}
