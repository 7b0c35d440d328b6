//! `sess secrets [--source NAME|all] [--cwd DIR | --all-projects] [--json]`:
//! the messages of the sessions `sess list` lists that hold a secret (an API
//! key, a token, a private key, a password), each secret masked. Exits 1 when
//! it finds one, 0 when it finds none.

use std::collections::HashSet;
use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use sess_export::{MessageFinding, Redactor};
use sess_sources::{Block, Message, Role, Scope, SessionInfo};
use sess_store::Backend;

use crate::Outcome;
use crate::cli::SecretsArgs;
use crate::env::host;
use crate::env::sources_env;
use crate::output::Printed;
use crate::output::{Progress, print_json, stdout, warn};
use sess::resolve::{Located, Session};

/// From how many sessions on a progress bar shows (on a terminal).
const BAR_FROM: usize = 20;

/// A session to read.
enum Target {
    /// A session of an agent on this machine.
    Local { info: SessionInfo, row: bool },
    /// A pi-family session of `--store`.
    Stored { backend: Arc<dyn Backend>, info: SessionInfo },
}

impl Target {
    fn info(&self) -> &SessionInfo {
        match self {
            Self::Local { info, .. } | Self::Stored { info, .. } => info,
        }
    }
}

/// One secret, as `--json` prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    source: &'a str,
    id: &'a str,
    path: &'a str,
    /// The message's place in the session, from 0 (a pi-family session's
    /// messages are its entries on every branch, in file order); `null` for
    /// the session's title (`place` is `title`).
    message_index: Option<usize>,
    message_id: Option<&'a str>,
    role: Option<&'static str>,
    place: &'a str,
    rule: &'a str,
    /// The secret's mask with a little of the masked text around it.
    excerpt: &'a str,
}

/// The secrets of one session.
struct Scanned {
    source: String,
    id: String,
    path: String,
    messages: Vec<Found>,
}

/// A message with secrets, or the session's title (no index, id or role).
struct Found {
    index: Option<usize>,
    id: Option<String>,
    role: Option<Role>,
    findings: Vec<MessageFinding>,
}

pub(crate) fn run(args: &SecretsArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let redactor = Redactor::bundled();
    let cwd = match &args.scope.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    let scanned = if let Some(url) = store
        && let Some(mut vault) = sess::archive::existing(url)?
    {
        archived(args, vault.as_mut(), url, &redactor)?
    } else {
        let mut targets = match store {
            Some(url) => stored(args, url, &cwd)?,
            None => local(args, &cwd),
        };
        targets.sort_by(|a, b| {
            b.info().modified_ms.cmp(&a.info().modified_ms).then_with(|| a.info().path.cmp(&b.info().path))
        });
        scan_all(&targets, &redactor)
    };
    let found: Vec<&Scanned> = scanned.iter().filter(|s| !s.messages.is_empty()).collect();
    if args.json {
        let items: Vec<Item<'_>> = found.iter().flat_map(|s| items(s)).collect();
        print_json(&items, false)?;
    } else {
        // A store's and an archive's sessions are every project's unless --cwd says.
        let scope = match store {
            Some(url) if args.scope.cwd.is_none() => format!("in `{url}`"),
            None if args.scope.all_projects => "on this machine".to_owned(),
            _ => format!("for `{}`", cwd.display()),
        };
        print(&found, scanned.len(), &scope)?;
    }
    Ok(if found.is_empty() { Outcome::Clean } else { Outcome::Findings })
}

/// The sessions the agents keep on this machine, as `sess list` finds them.
fn local(args: &SecretsArgs, cwd: &Path) -> Vec<Target> {
    let scope = if args.scope.all_projects { Scope::All } else { Scope::Project(cwd) };
    let mut targets = Vec::new();
    for kind in args.scope.source.kinds() {
        let listing = kind.source().list(&host().env, scope);
        for problem in &listing.problems {
            warn(format_args!("{kind}: {problem}"));
        }
        if listing.sessions.is_empty() {
            continue;
        }
        // Which of them are rows of a database file rather than files.
        let rows: HashSet<(PathBuf, String)> = if kind.is_native() {
            HashSet::new()
        } else {
            kind.source().find(sources_env()).rows.into_iter().map(|r| (r.database, r.id)).collect()
        };
        targets.extend(listing.sessions.into_iter().map(|info| {
            let row = rows.contains(&(info.path.clone(), info.id.clone()));
            Target::Local { info, row }
        }));
    }
    targets
}

/// The sessions of a store: every project unless `--cwd` names one, as `sess
/// list` lists them.
fn stored(args: &SecretsArgs, url: &str, cwd: &Path) -> anyhow::Result<Vec<Target>> {
    let backend = sess::store::open(url, sess::store::Missing::Refused, &Printed)?;
    let cwd = cwd.display().to_string();
    let wanted = |cwd_of: &str| args.scope.all_projects || args.scope.cwd.is_none() || cwd_of == cwd;
    Ok(backend
        .list_sessions()?
        .into_iter()
        .filter(|s| wanted(&s.cwd))
        .map(|s| Target::Stored { backend: Arc::clone(&backend), info: sess_sources::pi::summary_info(s) })
        .collect())
}

/// The sessions of an archive: every project unless `--cwd` names one, one
/// after the other.
fn archived(
    args: &SecretsArgs,
    vault: &mut dyn sess_archive::Vault,
    url: &str,
    redactor: &Redactor,
) -> anyhow::Result<Vec<Scanned>> {
    let filter = sess_archive::Filter {
        source: args.scope.source.single().map(|k| k.as_str().to_owned()),
        ..sess_archive::Filter::default()
    };
    let mut sessions = vault.sessions(&filter)?;
    if let Some(dir) = &args.scope.cwd {
        let dir = std::path::absolute(dir)?.display().to_string();
        sessions.retain(|s| s.meta.cwd.as_deref() == Some(dir.as_str()));
    }
    let bar = (sessions.len() >= BAR_FROM).then(|| Progress::new(sessions.len() as u64, "sessions"));
    let mut scanned = Vec::with_capacity(sessions.len());
    for session in &sessions {
        let read = sess::archive::load(vault, session).map(|t| t.messages).map_err(anyhow::Error::from);
        let name = format!("{} in {url}", session.meta.session_id);
        if let Some(messages) = loaded(read, &name) {
            scanned.push(Scanned {
                source: session.source.clone(),
                id: session.meta.session_id.clone(),
                path: session.path.clone(),
                messages: scan(session.meta.title.as_deref(), &messages, redactor),
            });
        }
        if let Some(bar) = &bar {
            bar.add(1);
        }
    }
    if let Some(bar) = &bar {
        bar.finish();
    }
    Ok(scanned)
}

/// The messages of a session that could be read; a warning, and none, for
/// one that could not.
fn loaded(read: anyhow::Result<Vec<Message>>, name: &str) -> Option<Vec<Message>> {
    match read {
        Ok(messages) => Some(messages),
        Err(err) => {
            warn(format_args!("{name}: skipped: {err:#}"));
            None
        }
    }
}

/// Reads and scans `targets` on several threads, in their order; a session
/// that cannot be read is skipped with a warning.
fn scan_all(targets: &[Target], redactor: &Redactor) -> Vec<Scanned> {
    let bar = (targets.len() >= BAR_FROM).then(|| Progress::new(targets.len() as u64, "sessions"));
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(target) = targets.get(index) else { break };
            let info = target.info();
            let name = info.path.display().to_string();
            if let Some(messages) = loaded(messages(target), &name) {
                done.push((
                    index,
                    Scanned {
                        source: info.source.as_str().to_owned(),
                        id: info.id.clone(),
                        path: name,
                        messages: scan(info.title.as_deref(), &messages, redactor),
                    },
                ));
            }
            if let Some(bar) = &bar {
                bar.add(1);
            }
        }
        done
    };
    let threads = std::thread::available_parallelism().map_or(1, NonZeroUsize::get).min(targets.len()).max(1);
    let mut scanned: Vec<(usize, Scanned)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        // A panic in a worker is a bug; surface it on this thread.
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    if let Some(bar) = &bar {
        bar.finish();
    }
    scanned.sort_by_key(|(index, _)| *index);
    scanned.into_iter().map(|(_, s)| s).collect()
}

/// The messages of a session, read as `sess show` reads it; a pi-family
/// session's on every branch (each entry a message), since a secret on an
/// abandoned branch is still in the file.
fn messages(target: &Target) -> anyhow::Result<Vec<Message>> {
    match target {
        Target::Stored { backend, info } => {
            let session = Session::Stored { backend: Arc::clone(backend), id: info.id.clone() };
            let loaded = sess::load::load_session(session, host(), &Printed)?;
            Ok(sess_sources::pi::entry_messages(loaded.entries()))
        }
        Target::Local { info, .. } if info.source.is_native() => {
            let outcome = sess::load::load_path(&info.path, host(), &Printed)?;
            Ok(sess_sources::pi::entry_messages(outcome.file.entries()))
        }
        Target::Local { info, row } => {
            let found = Located {
                kind: info.source,
                recognised: true,
                path: info.path.clone(),
                row: row.then(|| info.id.clone()),
            };
            let transcript = sess::load::transcript(&found, None, host(), &Printed)?;
            crate::output::warn_issues(&info.path, &transcript.issues);
            Ok(transcript.messages)
        }
    }
}

/// The session's `title` if it holds secrets (it may be only there: a title
/// the user set) and is not a message's text (an agent without titles is
/// listed under its first prompt), then the messages of `messages` with
/// secrets.
fn scan(title: Option<&str>, messages: &[Message], redactor: &Redactor) -> Vec<Found> {
    let in_a_message = |title: &str| {
        messages.iter().flat_map(|m| &m.blocks).any(|b| matches!(b, Block::Text { text } if text.contains(title)))
    };
    let title = title
        .filter(|title| !in_a_message(title))
        .map(|title| redactor.find_in_text("title", title))
        .filter(|findings| !findings.is_empty())
        .map(|findings| Found { index: None, id: None, role: None, findings });
    let messages = messages.iter().enumerate().filter_map(|(index, message)| {
        let findings = redactor.find_in_message(message);
        (!findings.is_empty()).then(|| Found {
            index: Some(index),
            id: message.id.clone(),
            role: Some(message.role),
            findings,
        })
    });
    title.into_iter().chain(messages).collect()
}

fn items(scanned: &Scanned) -> impl Iterator<Item = Item<'_>> {
    scanned.messages.iter().flat_map(move |message| {
        message.findings.iter().map(move |finding| Item {
            source: &scanned.source,
            id: &scanned.id,
            path: &scanned.path,
            message_index: message.index,
            message_id: message.id.as_deref(),
            role: message.role.map(Role::as_str),
            place: &finding.place,
            rule: &finding.rule,
            excerpt: &finding.excerpt,
        })
    })
}

/// The findings as text: a heading per session, a line per message, a line
/// per secret; then a count (`scope` says which sessions were read).
fn print(found: &[&Scanned], sessions: usize, scope: &str) -> anyhow::Result<()> {
    let mut out = stdout();
    let mut secrets = 0;
    let mut messages = 0;
    for session in found {
        writeln!(out, "{}  {}  {}", session.source, session.id, session.path)?;
        for message in &session.messages {
            messages += usize::from(message.index.is_some());
            let id = message.id.as_deref().map(|id| format!("  {id}")).unwrap_or_default();
            match (message.index, message.role) {
                (Some(index), Some(role)) => writeln!(out, "  message {index}  {}{id}", role.as_str())?,
                _ => writeln!(out, "  title")?,
            }
            for finding in &message.findings {
                secrets += 1;
                writeln!(out, "    {}  {}: {}", finding.rule, finding.place, finding.excerpt)?;
            }
        }
        writeln!(out)?;
    }
    if found.is_empty() {
        writeln!(out, "no secrets in {} {scope}", plural(sessions, "session"))?;
    } else {
        writeln!(
            out,
            "{} in {} of {} ({} read {scope})",
            plural(secrets, "secret"),
            plural(messages, "message"),
            plural(found.len(), "session"),
            plural(sessions, "session"),
        )?;
    }
    out.flush()?;
    Ok(())
}

/// `1 secret`, `2 secrets`.
fn plural(n: usize, word: &str) -> String {
    if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") }
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "secret"), "1 secret");
        assert_eq!(plural(0, "session"), "0 sessions");
    }
}
