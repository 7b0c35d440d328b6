//! Command-line arguments.

use sess::meaning::SearchMode;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Find, read, check, fork and copy the sessions of coding agents (pi, oh-my-pi,
/// xcsh, Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, OpenCode).
#[derive(Debug, Parser)]
#[command(name = "sess", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// Work on a store instead of the agents' files: `dir:PATH` (a tree of
    /// pi-family session files), `sqlite:PATH`, or `postgres://user@host:port/db`
    /// (add `?options=-csearch_path%3DNAME` for a schema). A verb's SESSION is
    /// then a session id or prefix; `list`, `index`, `search`, `serve` and
    /// `secrets` add the store's sessions; `copy`, `migrate` and `verify` do
    /// not use it. An archive (`sess archive`) is read by `list`, `show`,
    /// `export`, `search`, `serve`, `secrets` and `restore`: every agent's
    /// sessions it keeps.
    #[arg(long, global = true, value_name = "URL")]
    pub(crate) store: Option<String>,
    /// Look for the sessions agents keep inside a project (Aider's chat
    /// histories) in DIR too, or read the file DIR names as one (a history
    /// moved with Aider's `--chat-history-file`); may be repeated. Adds to
    /// `$SESS_PROJECT_DIRS` (paths separated as in `PATH`). The folders every
    /// agent's sessions name are looked in anyway.
    #[arg(long = "project-dir", global = true, value_name = "DIR")]
    pub(crate) project_dirs: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// List the sessions the agents keep on this machine, newest first.
    List(ListArgs),
    /// Show a session as a chat transcript (any agent's).
    Show(ShowArgs),
    /// Search every agent's sessions: words, "phrases", prefix*, OR, NOT.
    Search(SearchArgs),
    /// Browse, search and fork every agent's sessions in a web page served on
    /// this machine (127.0.0.1 only).
    Serve(ServeArgs),
    /// Follow a session as its agent writes it: each new message as `sess
    /// show` prints it, tool calls included, until Ctrl-C. By default the
    /// session of this directory written last; `--all` follows every session
    /// on the machine, one line per change.
    Tail(TailArgs),
    /// Go on with a session in its own agent: runs the agent's resume command
    /// (`claude --resume ID`, `codex resume ID`, `pi --session FILE`, …) in the
    /// session's directory, and exits with the agent's code; `--print` prints
    /// the command instead. When the agent is not installed, says so, prints
    /// the command and exits 1.
    Resume(ResumeArgs),
    /// Continue a session (any agent's) in another agent (pi, Claude Code,
    /// Codex, Qwen Code, the Gemini CLI): writes the conversation as a new session of `--to`'s
    /// own format where it keeps
    /// the sessions of the session's directory, prints the new file's path,
    /// then runs the agent resumed on it (`--print`: prints the command
    /// instead). The original is never written.
    Handoff(HandoffArgs),
    /// Tokens and cost of every agent's model calls, by day, month, session,
    /// project or model: each agent's own records, priced with the cost the
    /// agent stored or a dated price table (never guessed).
    Usage(UsageArgs),
    /// Write a session (any agent's) to share it: Markdown, one HTML file, or JSON.
    ///
    /// Markdown to paste in an issue or hand to another agent; one
    /// self-contained HTML file that looks like the page's session view; or
    /// the JSON of `sess show --json --all`. Every message; `--redact` masks
    /// secrets first.
    Export(ExportArgs),
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
    /// Append entries read from stdin, one JSON object per line: an object
    /// with `role` is a message; one with `type` is an entry of that type. Ids,
    /// parents and timestamps are filled in. Prints each new entry's id.
    Append(AppendArgs),
    /// Set or clear the label of an entry.
    Label(LabelArgs),
    /// Set the session's title.
    Rename(RenameArgs),
    /// Branch at an entry: the next append continues from there, or, with
    /// `--new-session`, a new session file holds the path to it.
    Fork(ForkArgs),
    /// Copy every session of FROM into TO, keeping ids, parents, order and the
    /// bytes of every entry. Each session is copied whole or not at all; a
    /// re-run copies what is missing. Exits 1 when TO holds a session with the
    /// same id and other entries (it is listed and left alone).
    Copy(CopyArgs),
    /// Build or refresh the search catalog of every agent's sessions.
    Index(IndexArgs),
    /// Keep every agent's sessions in an archive that outlives the agents'
    /// own cleanup: the exact bytes of every line, file version or database
    /// row, with the machine and the original path. Incremental; a session
    /// whose original is gone is marked, never removed. The archive is
    /// `--store` (`sqlite:PATH` or `postgres://…`), by default
    /// `sqlite:$XDG_DATA_HOME/sess/archive.sqlite`; `list`, `show` and
    /// `search` read it with `--store`, and `search` and `serve` include the
    /// default one without it.
    Archive(ArchiveArgs),
    /// An MCP server on stdin and stdout through which agents search, list and
    /// read every agent's sessions (read-only): `claude mcp add sess -- sess mcp`.
    Mcp(McpArgs),
    /// Write an archived session's files back, byte for byte: where its agent
    /// reads them (`claude --resume ID` works again), or under `--to DIR`.
    /// Refuses to replace a file that holds other bytes.
    Restore(RestoreArgs),
    /// List the messages that hold a secret (an API key, a token, a private
    /// key, a password) in the sessions `sess list` lists, each secret masked.
    /// Exits 1 when it finds one, 0 when it finds none.
    Secrets(SecretsArgs),
}

#[derive(Debug, Args)]
pub(crate) struct SecretsArgs {
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    /// Print JSON: one item per secret, with `source`, `id`, `path`,
    /// `messageIndex`, `messageId`, `role`, `place`, `rule` and `excerpt` (the
    /// masked secret in a little of its text).
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ArchiveArgs {
    /// Which agents' sessions.
    #[arg(long, value_parser = source_parser(), default_value = "all")]
    pub(crate) source: Source,
    /// Print the counts as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Keep running, and archive what changes within seconds (Ctrl-C stops).
    #[arg(long)]
    pub(crate) watch: bool,
    /// With a model, also embed every archived message that has no vector
    /// yet, for `sess --store ARCHIVE search --mode semantic|hybrid`.
    #[command(flatten)]
    pub(crate) model: ModelArg,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Every project by default (without it, the tools' default scope is the
    /// project of the directory the server runs in).
    #[arg(long)]
    pub(crate) all_projects: bool,
    /// Mask the secrets of everything the tools return: transcripts and
    /// model contexts too, not only the titles and snippets of listings.
    #[arg(long)]
    pub(crate) redact: bool,
    /// With a model, `search_sessions` searches by meaning too.
    #[command(flatten)]
    pub(crate) model: ModelArg,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// The archived session: its id or an id prefix.
    pub(crate) session: String,
    /// Write the files under this folder (keeping their layout) instead of
    /// where they were.
    #[arg(long, value_name = "DIR")]
    pub(crate) to: Option<PathBuf>,
    /// Of the machine with this name or id (when several archived the id).
    #[arg(long, value_name = "NAME")]
    pub(crate) machine: Option<String>,
    /// The version of the session's main file to write (1 is the first the
    /// archive kept; a file rewritten in place gets a new one); default: the
    /// newest.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(1..))]
    pub(crate) version: Option<i64>,
    /// Print what was written as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ContextArgs {
    /// The session: a file path, or an id or id prefix.
    #[arg(value_name = "SESSION")]
    pub(crate) file: String,
    /// Rebuild from this entry instead of the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
    /// Print the JSON on one line.
    #[arg(long)]
    pub(crate) compact: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TreeArgs {
    /// The session: a file path, or an id or id prefix.
    #[arg(value_name = "SESSION")]
    pub(crate) file: String,
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
    /// Migrate files that have unreadable lines or bytes that are not UTF-8
    /// too, dropping those lines and replacing those bytes with U+FFFD. The
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
    /// The session: a file path, or an id or id prefix.
    #[arg(value_name = "SESSION")]
    pub(crate) file: String,
    /// Print `[{"id", "origin", "parent"?, "forkAt"?, "entries"}]`.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct AppendArgs {
    /// The session: a file path (created if missing), or an id or id prefix.
    pub(crate) session: String,
    /// Append under this entry instead of the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
    /// The longest stdin line accepted, in bytes (its newline not counted); a
    /// longer one stops the command before any of it is written.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = crate::commands::append::DEFAULT_MAX_LINE_BYTES,
        value_parser = clap::value_parser!(u64).range(1..)
    )]
    pub(crate) max_line_bytes: u64,
}

#[derive(Debug, Args)]
pub(crate) struct LabelArgs {
    /// The session: a file path, or an id or id prefix.
    pub(crate) session: String,
    /// The entry to label.
    pub(crate) entry: String,
    /// The label.
    #[arg(required_unless_present = "clear", conflicts_with = "clear")]
    pub(crate) text: Option<String>,
    /// Remove the entry's label.
    #[arg(long)]
    pub(crate) clear: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RenameArgs {
    /// The session: a file path, or an id or id prefix.
    pub(crate) session: String,
    /// The new title.
    pub(crate) title: String,
}

#[derive(Debug, Args)]
pub(crate) struct ForkArgs {
    /// The session: a file path, or an id or id prefix.
    pub(crate) session: String,
    /// Where to branch: an entry id, or `turn:N` to keep turns 1..N of the
    /// current path (turn k starts at the k-th user message).
    #[arg(long, value_name = "ENTRY|turn:N")]
    pub(crate) at: String,
    /// Write a new session file holding the path from the root to ENTRY (with
    /// its labels) and print its path.
    #[arg(long)]
    pub(crate) new_session: bool,
    /// Where the new session file goes (default: next to the session).
    #[arg(long, value_name = "DIR", requires = "new_session")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    /// Print JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// Show secrets in titles and first messages as written (they are
    /// masked by default).
    #[arg(long)]
    pub(crate) reveal_secrets: bool,
    /// At most this many sessions.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = count)]
    pub(crate) limit: Option<usize>,
    /// With an archive as `--store`: only the sessions of the machine with
    /// this name (or id, or id prefix).
    #[arg(long, value_name = "NAME")]
    pub(crate) machine: Option<String>,
    /// List by reading every session file, not from the search catalog.
    #[arg(long, conflicts_with = "path")]
    pub(crate) no_catalog: bool,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

/// Which agents' sessions: one source of the registry, or every one (`all`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Source(Option<sess_sources::SourceKind>);

impl Source {
    /// The one source this choice names; `None` for every agent.
    pub(crate) fn single(self) -> Option<sess_sources::SourceKind> {
        self.0
    }

    /// The sources this choice covers.
    pub(crate) fn kinds(self) -> Vec<sess_sources::SourceKind> {
        match self.0 {
            Some(one) => vec![one],
            None => sess_sources::registry().collect(),
        }
    }
}

/// `--source`: the name of a source of the registry, or `all`.
fn source_parser() -> impl clap::builder::TypedValueParser<Value = Source> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser as _};
    let values = sess_sources::registry()
        .map(|kind| {
            PossibleValue::new(kind.as_str()).help(format!("{} ({})", kind.agent_name(), kind.source().location()))
        })
        .chain(std::iter::once(PossibleValue::new("all").help("Every agent")));
    PossibleValuesParser::new(values).map(|name| Source(sess_sources::SourceKind::from_name(&name)))
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// The session: a file path of any agent, or an id or id prefix searched
    /// across agents.
    pub(crate) session: String,
    /// Every message (by default the newest 300).
    #[arg(long)]
    pub(crate) all: bool,
    /// Print `{"source","id","title","cwd","truncated","messages":[{"role","blocks"}]}`.
    #[arg(long)]
    pub(crate) json: bool,
    /// For a pi-family session: show the path to this entry instead of the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct ResumeArgs {
    /// The session: a file path of any agent, or an id or id prefix searched
    /// across agents.
    pub(crate) session: String,
    /// Print the command (`cd DIR && PROGRAM ARGS`) instead of running it.
    #[arg(long)]
    pub(crate) print: bool,
    /// Print `{"source","id","cwd","argv","command","installed"}` instead of
    /// running it.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HandoffArgs {
    /// The session: a file path of any agent, or an id or id prefix searched
    /// across agents.
    pub(crate) session: String,
    /// The agent to continue in.
    #[arg(long, value_name = "AGENT", value_parser = handoff_target)]
    pub(crate) to: sess_sources::SourceKind,
    /// For a pi-family session: hand over the path to this entry instead of
    /// the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
    /// Keep the new session for DIR, where the agent will run, instead of the
    /// session's own directory (a checkout that moved).
    #[arg(long, value_name = "DIR")]
    pub(crate) cwd: Option<PathBuf>,
    /// Write the new session and print its path and the command that resumes
    /// it, without running the agent.
    #[arg(long)]
    pub(crate) print: bool,
    /// Write the new session and print `{"to","id","path","cwd","argv",
    /// "command","from","tokens","windowTokens","turns","leftOut"}`, without
    /// running the agent.
    #[arg(long)]
    pub(crate) json: bool,
}

/// An agent `sess handoff --to` writes sessions for.
fn handoff_target(name: &str) -> Result<sess_sources::SourceKind, String> {
    let targets = sess::handoff::targets();
    let names = targets.iter().map(|kind| kind.as_str()).collect::<Vec<_>>().join(", ");
    targets.into_iter().find(|kind| kind.as_str() == name).ok_or_else(|| format!("sessions can be handed to {names}"))
}

#[derive(Debug, Args)]
pub(crate) struct TailArgs {
    /// The session: a file path of any agent, or an id or id prefix searched
    /// across agents (default: the one of this directory written last).
    #[arg(conflicts_with = "all")]
    pub(crate) session: Option<String>,
    /// Follow every session on the machine: one line per session that
    /// appears, is written or goes.
    #[arg(long)]
    pub(crate) all: bool,
    /// Print one JSON object per message, as in `sess show --json`'s
    /// `messages` (with `--all`, per change: `{"id","atMs","kind","session",…}`).
    #[arg(long)]
    pub(crate) json: bool,
    /// Print this many of the session's last messages first.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 3)]
    pub(crate) last: usize,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The session: a file path of any agent, or an id or id prefix searched
    /// across agents.
    pub(crate) session: String,
    /// What to write: `md` (Markdown: roles as headings, tool calls on one
    /// line with the first lines of their output), `html` (one file, styles
    /// inline, no script, nothing loaded from the network) or `json` (what
    /// `sess show --json --all` prints). Default: the extension of `-o`
    /// (`.md`, `.html`, `.json`), else `md`.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) format: Option<ExportFormat>,
    /// For a pi-family session: the path to this entry instead of the last one.
    #[arg(long, value_name = "ID")]
    pub(crate) leaf: Option<String>,
    /// Mask the secrets (API keys, tokens, passwords, private keys) of every
    /// message first, and say on stderr how many were masked.
    #[arg(long)]
    pub(crate) redact: bool,
    /// Write to this file (replaced atomically) instead of stdout. A FIFO, a
    /// device, a folder, a session file of any agent, a path in a folder
    /// where an agent keeps its sessions or in sess's data folder, an SQLite
    /// database and a symbolic link are refused.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

/// What `sess export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ExportFormat {
    /// Markdown.
    #[value(alias = "markdown")]
    Md,
    /// One self-contained HTML file.
    Html,
    /// The transcript's JSON, as `sess show --json --all` prints it.
    Json,
}

#[derive(Debug, Args)]
pub(crate) struct CopyArgs {
    /// A store URL (`dir:PATH`, `sqlite:PATH`) or one session file.
    pub(crate) from: String,
    /// A store URL.
    pub(crate) to: String,
}

#[derive(Debug, Args)]
pub(crate) struct IndexArgs {
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
    /// Print the counts as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// With a model, also embed every message that has no vector yet.
    #[command(flatten)]
    pub(crate) model: ModelArg,
}

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// What to search for: words (all must match), "a phrase", a prefix*,
    /// `OR` and `NOT` between terms.
    pub(crate) query: String,
    #[command(flatten)]
    pub(crate) scope: ScopeArgs,
    /// At most this many hits (one per session).
    #[arg(long, value_name = "N", default_value_t = 20, allow_negative_numbers = true, value_parser = count)]
    pub(crate) limit: usize,
    /// Print JSON: `source`, `id`, `path`, `store` (a stored session's),
    /// `title`, `cwd`, `modified`, `entryId`, `role`, `snippet`, `matches`
    /// (byte ranges in the snippet), `score`.
    #[arg(long)]
    pub(crate) json: bool,
    /// Show secrets in titles and snippets as written (they are masked by
    /// default).
    #[arg(long)]
    pub(crate) reveal_secrets: bool,
    /// Search the catalog as it is, without looking for new or changed
    /// sessions first.
    #[arg(long)]
    pub(crate) no_refresh: bool,
    /// With an archive as `--store`: only the sessions of the machine with
    /// this name (or id, or id prefix).
    #[arg(long, value_name = "NAME")]
    pub(crate) machine: Option<String>,
    /// Seconds the search may run before it is stopped (0: no limit).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = budget)]
    pub(crate) timeout: std::time::Duration,
    /// How to search: by the query's words, by its meaning (the messages
    /// nearest it, with an embedding model), or both, ranked together
    /// (default: hybrid with a model, else lexical).
    #[arg(long, value_parser = search_mode())]
    pub(crate) mode: Option<SearchMode>,
    #[command(flatten)]
    pub(crate) model: ModelArg,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

#[derive(Debug, Args)]
#[allow(clippy::struct_excessive_bools)] // Its flags, as the command line has them.
pub(crate) struct UsageArgs {
    /// What to sum by.
    #[arg(value_enum, default_value = "daily")]
    pub(crate) by: UsageBy,
    /// Which agents' calls.
    #[arg(long, value_parser = source_parser(), default_value = "all")]
    pub(crate) source: Source,
    /// Only the sessions of this project directory (default: every project).
    #[arg(long, value_name = "DIR", conflicts_with = "all_projects")]
    pub(crate) cwd: Option<PathBuf>,
    /// Every project (the default).
    #[arg(long)]
    pub(crate) all_projects: bool,
    /// The first day counted: YYYY-MM-DD or YYYYMMDD (in `--timezone`).
    #[arg(long, value_name = "DATE", value_parser = day)]
    pub(crate) since: Option<sess_usage::Date>,
    /// The last day counted: YYYY-MM-DD or YYYYMMDD.
    #[arg(long, value_name = "DATE", value_parser = day)]
    pub(crate) until: Option<sess_usage::Date>,
    /// The time zone days and months are counted in: an IANA name such as
    /// `Europe/Paris`, or `UTC` (default: the system's).
    #[arg(long, value_name = "TZ")]
    pub(crate) timezone: Option<String>,
    /// A price table in place of the bundled one: JSON `{"date",
    /// "models": {NAME: {"input", "output", "cacheWrite", "cacheRead"}}}`, US
    /// dollars per million tokens (`sess usage --show-prices` prints the
    /// bundled one in that shape).
    #[arg(long, value_name = "FILE")]
    pub(crate) prices: Option<PathBuf>,
    /// Print the price table in use as JSON and exit.
    #[arg(long)]
    pub(crate) show_prices: bool,
    /// Print JSON: `{"daily"|"monthly"|"sessions"|"projects"|"models": [...],
    /// "totals", "unpricedModels", "pricesDate"}`; each line has its key
    /// (`date`, `month`, `sessionId`, `project`, `modelName`),
    /// `inputTokens`, `outputTokens`, `cacheCreationTokens`,
    /// `cacheReadTokens`, `reasoningTokens`, `totalTokens`, `totalCost`,
    /// `costComplete`, `calls`, `modelsUsed`, `modelBreakdowns` and
    /// `sourceBreakdowns` (each with `cost`, `null` when some of its calls
    /// have no price, and `knownCost`, the cost of those that have one).
    #[arg(long)]
    pub(crate) json: bool,
    /// Read the catalog as it is, without looking for new or changed
    /// sessions first.
    #[arg(long)]
    pub(crate) no_refresh: bool,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

/// What `sess usage` sums by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum UsageBy {
    /// Each day.
    Daily,
    /// Each month.
    Monthly,
    /// Each session.
    Session,
    /// Each project directory.
    Project,
    /// Each model.
    Model,
}

impl UsageBy {
    /// The report's key.
    pub(crate) fn by(self) -> sess_usage::By {
        match self {
            Self::Daily => sess_usage::By::Daily,
            Self::Monthly => sess_usage::By::Monthly,
            Self::Session => sess_usage::By::Session,
            Self::Project => sess_usage::By::Project,
            Self::Model => sess_usage::By::Model,
        }
    }
}

/// A day: `YYYY-MM-DD` or `YYYYMMDD`.
fn day(text: &str) -> Result<sess_usage::Date, String> {
    sess_usage::parse_date(text.trim()).map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The port on 127.0.0.1 (0: any free port).
    #[arg(long, value_name = "N", default_value_t = 8765)]
    pub(crate) port: u16,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    pub(crate) open: bool,
    /// Seconds a request's line and headers may take to arrive (an idle
    /// connection is closed after them too).
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = seconds)]
    pub(crate) header_timeout: std::time::Duration,
    /// Seconds the server waits for more of a request's body before it answers
    /// 408 and closes the connection.
    #[arg(long, value_name = "SECS", default_value = "30", value_parser = seconds)]
    pub(crate) idle_timeout: std::time::Duration,
    /// With a model, the search box searches by meaning too.
    #[command(flatten)]
    pub(crate) model: ModelArg,
    #[command(flatten)]
    pub(crate) catalog: CatalogArg,
}

/// A number of sessions, 1 or more (`--limit`).
fn count(text: &str) -> Result<usize, String> {
    text.trim()
        .parse::<usize>()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| "the limit is a number of sessions: a whole number, 1 or more".to_owned())
}

/// A positive number of seconds, e.g. `30` or `0.5`.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    let invalid = || format!("`{text}` is not a positive number of seconds");
    let value: f64 = text.parse().map_err(|_| invalid())?;
    std::time::Duration::try_from_secs_f64(value).ok().filter(|d| !d.is_zero()).ok_or_else(invalid)
}

/// A time budget in seconds, e.g. `30` or `0.5`; `0` is none.
fn budget(text: &str) -> Result<std::time::Duration, String> {
    let invalid = || format!("`{text}` is not a number of seconds (0 or more; 0: no limit)");
    let value: f64 = text.trim().parse().map_err(|_| invalid())?;
    std::time::Duration::try_from_secs_f64(value).map_err(|_| invalid())
}

/// The embedding model of search by meaning.
#[derive(Debug, Args)]
pub(crate) struct ModelArg {
    /// The static embedding model of search by meaning: a folder with a
    /// Hugging Face `tokenizer.json` and one `.safetensors` table (default
    /// `$SESS_EMBED_MODEL`; README: "Search by meaning").
    #[arg(long = "model", value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

/// Where the search catalog is.
#[derive(Debug, Args)]
pub(crate) struct CatalogArg {
    /// The catalog file (default: `$XDG_DATA_HOME/sess/catalog.sqlite`).
    #[arg(long = "catalog", value_name = "PATH")]
    pub(crate) path: Option<PathBuf>,
}

/// Whose sessions, and of which project.
#[derive(Debug, Args)]
pub(crate) struct ScopeArgs {
    /// Which agents' sessions.
    #[arg(long, value_parser = source_parser(), default_value = "all")]
    pub(crate) source: Source,
    /// The project directory (default: the current directory).
    #[arg(long, value_name = "DIR", conflicts_with = "all_projects")]
    pub(crate) cwd: Option<PathBuf>,
    /// Every project.
    #[arg(long)]
    pub(crate) all_projects: bool,
}

/// `--mode`'s values: lexical, semantic, hybrid.
fn search_mode() -> impl clap::builder::TypedValueParser<Value = SearchMode> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(SearchMode::ALL.map(SearchMode::as_str))
        .try_map(|name| name.parse::<SearchMode>())
}
