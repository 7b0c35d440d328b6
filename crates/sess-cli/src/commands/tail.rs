//! `sess tail [SESSION] [--all] [--json] [-n N]`: a session followed as its
//! agent writes it, or every session on the machine.

use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use sess::live::{Change, Event, Feed, Subscription};
use sess::resolve::Located;
use sess_catalog::{Catalog, ListParams, SessionRow};
use sess_sources::{Message, Transcript};

use crate::Outcome;
use crate::cli::TailArgs;
use crate::env::host;
use crate::output::{Printed, note, stdout};
use crate::render::{Layout, render_messages};

/// How long a wait for events lasts before it waits again.
const WAIT: Duration = Duration::from_secs(3600);

pub(crate) fn run(args: &TailArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    if store.is_some() {
        bail!("sess tail follows the sessions the agents keep on this machine, not those of a store (--store)");
    }
    let path = crate::catalog::path(args.catalog.path.as_deref())?;
    let catalog = crate::catalog::open_fresh(args.catalog.path.as_deref(), None, true)?;
    let row = match (&args.session, args.all) {
        (_, true) => None,
        (Some(arg), false) => Some(named(&catalog, arg)?),
        (None, false) => Some(newest_here(&catalog)?),
    };
    drop(catalog);
    let feed = Feed::start(host(), &path, Arc::new(Printed))?;
    if feed.polling() {
        note("the system gives no events for these folders: changes show within a few seconds");
    }
    // Subscribed before the session is read: nothing written in between is lost.
    let events = feed.subscribe(None);
    match row {
        None => {
            note("following every session; Ctrl-C stops");
            every(events, args.json)
        }
        Some(row) => one(&row, events, args),
    }
}

/// The session `arg` names, as the catalog has it.
fn named(catalog: &Catalog, arg: &str) -> anyhow::Result<SessionRow> {
    let found = sess::resolve::locate(arg, host(), &Printed)?;
    let rows = catalog.sessions_at(std::slice::from_ref(&found.path))?;
    rows.into_iter().find(|row| found.row.as_ref().is_none_or(|id| *id == row.id)).with_context(|| {
        format!(
            "`{}` is not in any agent's folders: sess tail follows the sessions the agents keep",
            found.path.display()
        )
    })
}

/// The session written last of those whose agent worked in this directory.
fn newest_here(catalog: &Catalog) -> anyhow::Result<SessionRow> {
    let cwd = std::env::current_dir()?;
    let params = ListParams { cwd: Some(cwd.to_string_lossy().into_owned()), limit: 1, ..ListParams::default() };
    match catalog.sessions(&params)?.into_iter().next() {
        Some(row) => Ok(row),
        None => bail!(
            "no agent's session worked in `{}`: name one (sess tail SESSION), or follow every session (sess tail --all)",
            cwd.display()
        ),
    }
}

/// Follows the session `row`: its last `args.last` messages, then each new
/// one, until the session is gone.
fn one(row: &SessionRow, mut events: Subscription, args: &TailArgs) -> anyhow::Result<Outcome> {
    let key = row.key.to_string();
    let found = Located::of_row(row);
    let read = || sess::load::transcript(&found, None, host(), &Printed);
    let transcript = read()?;
    let title = transcript.title.as_deref().or_else(|| transcript.first_prompt()).unwrap_or("(untitled)").to_owned();
    note(format_args!("following {} {}  {title}; Ctrl-C stops", row.source, row.id));
    let mut printer = Printer { json: args.json, layout: Layout::of_stdout(), shown: 0, last_blocks: 0 };
    let start = transcript.messages.len().saturating_sub(args.last);
    printer.skip_to(start);
    printer.from(&transcript, start, &transcript.messages[start..])?;
    loop {
        let Ok(batch) = events.wait(WAIT) else {
            // Events were missed: the session is read again whole.
            let again = read()?;
            printer.from(&again, 0, &again.messages)?;
            continue;
        };
        for event in batch.iter().filter(|event| event.change.session().id == key) {
            match &event.change {
                Change::Changed { from, messages, .. } => printer.from(&transcript, *from, messages)?,
                Change::Gone { .. } => {
                    note(format_args!("{} {} is gone", row.source, row.id));
                    return Ok(Outcome::Clean);
                }
                Change::Appeared { .. } => {}
            }
        }
    }
}

/// What of a session has been printed.
struct Printer {
    json: bool,
    layout: Layout,
    /// How many of its messages.
    shown: usize,
    /// How many blocks of the last of them.
    last_blocks: usize,
}

impl Printer {
    /// Counts the messages before `index` as shown.
    fn skip_to(&mut self, index: usize) {
        self.shown = index;
        self.last_blocks = 0;
    }

    /// Prints what is new in `messages`, the session's messages from `from`
    /// on: the blocks the last one shown gained, and the messages after it.
    fn from(&mut self, like: &Transcript, from: usize, messages: &[Message]) -> anyhow::Result<()> {
        let mut new = Vec::new();
        for (index, message) in (from..).zip(messages) {
            if index + 1 == self.shown && message.blocks.len() > self.last_blocks {
                // The last message shown grew: its new blocks.
                let mut grown = message.clone();
                grown.blocks.drain(..self.last_blocks);
                self.last_blocks = message.blocks.len();
                new.push(grown);
            } else if index >= self.shown {
                self.shown = index + 1;
                self.last_blocks = message.blocks.len();
                new.push(message.clone());
            }
        }
        if new.is_empty() {
            return Ok(());
        }
        let mut shown = Transcript { messages: new, ..Transcript::new(like.source, like.id.clone()) };
        sess_sources::add_diffs(&mut shown);
        let mut out = stdout();
        if self.json {
            for message in &shown.messages {
                serde_json::to_writer(&mut out, message)?;
                out.write_all(b"\n")?;
            }
        } else {
            out.write_all(render_messages(&shown.messages, &self.layout).as_bytes())?;
        }
        out.flush()?;
        Ok(())
    }
}

/// Follows every session: one line per event (with `json`, the event).
fn every(mut events: Subscription, json: bool) -> anyhow::Result<Outcome> {
    loop {
        let batch = match events.wait(WAIT) {
            Ok(batch) => batch,
            Err(missed) => {
                note(format_args!("events {} to {} were missed", missed.first, missed.last));
                continue;
            }
        };
        let mut out = stdout();
        for event in &batch {
            if json {
                out.write_all(event.json().as_bytes())?;
                out.write_all(b"\n")?;
            } else {
                writeln!(out, "{}", line(event))?;
            }
        }
        out.flush()?;
    }
}

/// An event in a line: the time, what happened, the agent, the session's
/// short id, its title and directory.
fn line(event: &Event) -> String {
    let session = event.change.session();
    let what = match &event.change {
        Change::Appeared { .. } => "appeared".to_owned(),
        Change::Changed { new: 0, .. } => "written".to_owned(),
        Change::Changed { new: 1, .. } => "+1 message".to_owned(),
        Change::Changed { new, .. } => format!("+{new} messages"),
        Change::Gone { .. } => "gone".to_owned(),
    };
    let time = sess_core::format_iso_millis(event.at_ms);
    let short: String = session.session_id.chars().take(8).collect();
    let title = session.title.as_deref().unwrap_or("(untitled)");
    let cwd = session.cwd.as_deref().map(|cwd| format!("  {cwd}")).unwrap_or_default();
    let state = session.state.map_or("", sess_sources::SessionState::as_str);
    format!("{time}  {what:<12} {state:<8} {:<9} {short}  {title}{cwd}", session.source.as_str())
}
