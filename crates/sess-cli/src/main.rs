//! The `sess` command.

mod catalog;
mod cli;
mod commands;
mod embedded;
mod env;
mod output;
mod redact;
mod render;
mod summary;
mod usage;

use std::io;
use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

/// What a command reports back: success, or findings that scripts can test for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Exit 0.
    Clean,
    /// Exit 1: the command ran and found problems (verify, migrate --check,
    /// secrets).
    Findings,
    /// Exit with the code of the program the command ran (an agent `sess
    /// resume` started).
    Exited(u8),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    env::name_project_dirs(&cli.project_dirs);
    let store = cli.store.as_deref();
    let result = match cli.command {
        Command::Context(args) => commands::context::run(&args, store),
        Command::Tree(args) => commands::tree::run(&args, store),
        Command::Migrate(args) => commands::migrate::run(&args),
        Command::Verify(args) => commands::verify::run(&args),
        Command::Segments(args) => commands::segments::run(&args, store),
        Command::Append(args) => commands::append::run(&args, store),
        Command::Label(args) => commands::label::run(&args, store),
        Command::Rename(args) => commands::rename::run(&args, store),
        Command::Fork(args) => commands::fork::run(&args, store),
        Command::List(args) => commands::list::run(&args, store),
        Command::Show(args) => commands::show::run(&args, store),
        Command::Tail(args) => commands::tail::run(&args, store),
        Command::Resume(args) => commands::resume::run(&args, store),
        Command::Handoff(args) => commands::handoff::run(&args, store),
        Command::Export(args) => commands::export::run(&args, store),
        Command::Copy(args) => commands::copy::run(&args),
        Command::Index(args) => commands::index::run(&args, store),
        Command::Search(args) => commands::search::run(&args, store),
        Command::Usage(args) => commands::usage::run(&args, store),
        Command::Serve(args) => commands::serve::run(&args, store),
        Command::Archive(args) => commands::archive::run(&args, store),
        Command::Restore(args) => commands::restore::run(&args, store),
        Command::Mcp(args) => commands::mcp::run(&args, store),
        Command::Secrets(args) => commands::secrets::run(&args, store),
    };
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Ok(Outcome::Exited(code)) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            output::report_error(&err);
            ExitCode::from(2)
        }
    }
}

/// Whether the error is a closed stdout (the reader went away): the command
/// ends quietly then, as `sess … | head -1` expects. JSON output wraps the
/// write error in a `serde_json::Error`.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let kind = match (cause.downcast_ref::<io::Error>(), cause.downcast_ref::<serde_json::Error>()) {
            (Some(io), _) => Some(io.kind()),
            (None, Some(json)) => json.io_error_kind(),
            (None, None) => None,
        };
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}
