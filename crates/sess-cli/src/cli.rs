//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Read, check and migrate the sessions of coding agents (pi, oh-my-pi, xcsh).
#[derive(Debug, Parser)]
#[command(name = "sess", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the model context at a leaf as JSON (`buildSessionContext`).
    Context(ContextArgs),
    /// Show the entry tree: branches, labels, the leaf and segment starts.
    Tree(TreeArgs),
    /// Rewrite v1/v2 session files as v3, atomically.
    Migrate(MigrateArgs),
    /// Check session files: unparseable lines, duplicate ids, dangling parents,
    /// loops, a bad header. Exits 1 when it finds a problem.
    Verify(VerifyArgs),
    /// Show the linear segments the entry tree splits into.
    Segments(SegmentsArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
    /// The session file.
    pub(crate) file: PathBuf,
    /// Rebuild from this entry instead of the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
    /// Print the JSON on one line.
    #[arg(long)]
    pub(crate) compact: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TreeArgs {
    /// The session file.
    pub(crate) file: PathBuf,
    /// Print `{"leafId", "roots": [{"id", "type", "label"?, "children"}]}`.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MigrateArgs {
    /// Session files to migrate.
    #[arg(required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// Write nothing; exit 1 if any file needs migrating.
    #[arg(long)]
    pub(crate) check: bool,
    /// Migrate files that have unreadable lines too, dropping those lines. The
    /// original bytes are kept next to the file as `<file>.pre-migrate`.
    #[arg(long)]
    pub(crate) drop_invalid: bool,
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Session files, or directories to search for `*.jsonl` files.
    #[arg(required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SegmentsArgs {
    /// The session file.
    pub(crate) file: PathBuf,
    /// Print `[{"id", "origin", "parent"?, "forkAt"?, "entries"}]`.
    #[arg(long)]
    pub(crate) json: bool,
}
