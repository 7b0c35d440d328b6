//! Writes benchmark workloads, and measures the floors `bench/compare` holds
//! `sess` against.
//!
//! ```text
//! sess-workload pi --size BYTES --seed N --out FILE       one pi-mono session
//! sess-workload tree --sessions N --projects P --seed N --out DIR
//!                                                         DIR/--<cwd>--/<time>_<id>.jsonl
//! sess-workload claude --transcripts N --seed N --out DIR DIR/projects/<slug>/<uuid>.jsonl
//! sess-workload messages --count N --seed N --out FILE    agent messages for `sess append`
//! sess-workload floor bytes PATH...     read every byte (1 MiB at a time)
//! sess-workload floor ignored PATH...   serde_json every line to IgnoredAny
//! sess-workload floor append IN OUT     one write(2) per line of IN to OUT, then
//!                                       print a number per line and flush stdout
//! ```
//!
//! A PATH that is a directory stands for every `*.jsonl` below it. The
//! generators print what they wrote as one JSON line; the floors print what
//! they read, so the work cannot be optimised away.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use serde::de::IgnoredAny;
use serde_json::json;
use sess_testkit::workload::{self, PiSessionSpec};

#[derive(Parser)]
#[command(name = "sess-workload", about = "Benchmark workloads and floors for sess")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// One pi-mono session of about SIZE bytes.
    Pi {
        #[arg(long)]
        size: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// A tree of pi-mono sessions under OUT (an agent's `sessions` directory).
    Tree {
        #[arg(long)]
        sessions: usize,
        #[arg(long)]
        projects: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Claude Code transcripts under OUT (a `~/.claude`).
    Claude {
        #[arg(long)]
        transcripts: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// COUNT agent messages, one JSON object a line.
    Messages {
        #[arg(long)]
        count: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// The floors: the least any reader or writer of these files must do.
    #[command(subcommand)]
    Floor(Floor),
}

#[derive(Subcommand)]
enum Floor {
    /// Read every byte.
    Bytes { paths: Vec<PathBuf> },
    /// Parse every line with `serde_json` into `IgnoredAny`.
    Ignored { paths: Vec<PathBuf> },
    /// Append each line of INPUT to OUTPUT with one `write`, printing a number
    /// per line (flushed) once the write returned.
    Append { input: PathBuf, output: PathBuf },
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cli = Cli::parse();
    let mut out = io::stdout().lock();
    match cli.command {
        Command::Pi { size, seed, out: path } => {
            let session = PiSessionSpec::new(size, seed).generate();
            workload::write_input(&path, session.text.as_bytes())?;
            let s = session.stats;
            let report = json!({"bytes": session.text.len(), "entries": s.entries, "messages": s.messages,
                "branches": s.branches, "branchSummaries": s.branch_summaries, "compactions": s.compactions,
                "labels": s.labels, "images": s.images, "bigOutputs": s.big_outputs});
            writeln!(out, "{report}")?;
        }
        Command::Tree { sessions, projects, seed, out: path } => {
            let stats = workload::session_tree(&path, sessions, projects, seed)?;
            let report = json!({"files": stats.files, "bytes": stats.bytes, "messages": stats.messages});
            writeln!(out, "{report}")?;
        }
        Command::Claude { transcripts, seed, out: path } => {
            let stats = workload::claude_transcripts(&path, transcripts, seed)?;
            let report = json!({"files": stats.files, "bytes": stats.bytes, "messages": stats.messages});
            writeln!(out, "{report}")?;
        }
        Command::Messages { count, seed, out: path } => {
            let text = workload::append_messages(count, seed);
            workload::write_input(&path, text.as_bytes())?;
            writeln!(out, "{}", json!({"messages": count, "bytes": text.len()}))?;
        }
        Command::Floor(Floor::Bytes { paths }) => {
            let mut total = 0u64;
            let mut buffer = vec![0u8; 1 << 20];
            for file in files(&paths) {
                let mut input = File::open(&file)?;
                loop {
                    let n = input.read(&mut buffer)?;
                    if n == 0 {
                        break;
                    }
                    total += n as u64;
                }
            }
            writeln!(out, "{total} bytes")?;
        }
        Command::Floor(Floor::Ignored { paths }) => {
            let (mut lines, mut bad) = (0u64, 0u64);
            let mut line = Vec::new();
            for file in files(&paths) {
                let mut input = BufReader::with_capacity(1 << 20, File::open(&file)?);
                loop {
                    line.clear();
                    if input.read_until(b'\n', &mut line)? == 0 {
                        break;
                    }
                    lines += 1;
                    bad += u64::from(serde_json::from_slice::<IgnoredAny>(&line).is_err());
                }
            }
            writeln!(out, "{lines} lines, {bad} not JSON")?;
        }
        Command::Floor(Floor::Append { input, output }) => {
            let input = BufReader::new(File::open(input)?);
            let mut file = OpenOptions::new().append(true).create(true).open(output)?;
            for (n, line) in input.lines().enumerate() {
                let mut line = line?;
                line.push('\n');
                // One write(2) per line, as an append that reaches the OS.
                file.write_all(line.as_bytes())?;
                writeln!(out, "{n}")?;
                out.flush()?;
            }
        }
    }
    Ok(())
}

/// The files `paths` name: files as given, directories as every `*.jsonl`
/// below them (sorted).
fn files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut below = sess_store::discovery::session_files_under(&sess_store::FileStorage, path);
            below.sort();
            found.extend(below);
        } else {
            found.push(path.clone());
        }
    }
    found
}
