//! Lists every agent's sessions in a folder taken as the home folder, then
//! prints the most recent one's transcript.
//!
//!     cargo run -p sess --example every_session -- ~
//!
//! The same program opens the crate's documentation.

#![allow(clippy::print_stdout, clippy::print_stderr, reason = "an example prints what it reads")]

use std::path::PathBuf;

use sess::Host;
use sess::load::read;
use sess_sources::{Block, Scope, registry};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let home = PathBuf::from(std::env::args().nth(1).ok_or("usage: every_session HOME")?);
    // The library reads no environment variable: the caller says where the
    // agents keep their sessions (here, where they do by default under `home`).
    let host = Host::at_home(&home);

    let mut sessions = Vec::new();
    for kind in registry() {
        sessions.extend(kind.source().list(&host.env, Scope::All).sessions);
    }
    sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
    for s in &sessions {
        println!("{:<12} {:>4} messages  {}", s.source, s.message_count, s.title.as_deref().unwrap_or(&s.id));
    }

    let Some(newest) = sessions.first() else { return Ok(()) };
    let path = newest.path.to_string_lossy();
    let warn = |line: &str| eprintln!("warning: {line}");
    let session = read(&path, None, None, &host, &warn)?;
    for message in &session.transcript.messages {
        for block in &message.blocks {
            if let Block::Text { text } = block {
                println!("{:?}: {text}", message.role);
            }
        }
    }
    Ok(())
}
