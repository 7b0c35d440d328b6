//! What the text of a user line is: a prompt, or something the CLI wrote in
//! the user's name (an interrupt marker, a slash-command echo, command output,
//! a task notification), and the editor context attached to a prompt.

/// Where the context an editor attached to a prompt starts (seed 003 §4). The
/// chips' titles are not on the wire, so the whole rest of the text becomes
/// one context block.
pub(super) const CONTEXT_MARKER: &str = "\n\n===== ATTACHED UNITY EDITOR CONTEXT =====";

/// The title of the context block split off a prompt.
pub(super) const CONTEXT_TITLE: &str = "Restored context";

/// What the CLI writes when the user stops a turn, possibly followed by
/// ` for tool use]`.
const INTERRUPT: &str = "[Request interrupted by user";

/// How the note starts that the CLI writes as a user turn when a background
/// task (a command, a subagent) ends (CLI 2.1.332, `origin.kind:
/// "task-notification"`, no `isMeta`).
const TASK_NOTIFICATION: &str = "<task-notification>";

/// Text the CLI adds for the model only.
const REMINDER: (&str, &str) = ("<system-reminder>", "</system-reminder>");

/// The kinds of user-line text.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum UserText {
    /// Something the user typed.
    Prompt,
    /// A note from the harness, shown as a system message with this text: an
    /// interrupt marker, a slash-command echo, command output.
    Notice(String),
    /// Harness text with nothing to show (empty command output).
    Nothing,
}

/// Sorts the text of a non-meta user line.
///
/// - `[Request interrupted by user…]` is a notice with that text.
/// - A `<command-name>`/`<command-message>` echo is a notice naming the command
///   and its arguments: `/model opus`.
/// - `<local-command-stdout>`/`<local-command-stderr>` output (written without
///   `isMeta` by older CLIs) is a notice with the output, or nothing when the
///   output is empty.
/// - A `<task-notification>` is a notice with its `<summary>`s
///   ([`task_notification_label`]).
pub(super) fn classify(text: &str) -> UserText {
    let text = text.trim();
    if text.starts_with(INTERRUPT) {
        return UserText::Notice(text.to_owned());
    }
    if text.starts_with(TASK_NOTIFICATION) {
        return UserText::Notice(task_notification_label(text));
    }
    if text.starts_with("<command-name>") || text.starts_with("<command-message>") {
        return UserText::Notice(command_label(text));
    }
    if text.starts_with("<local-command-stdout>") || text.starts_with("<local-command-stderr>") {
        let output =
            ["<local-command-stdout>", "</local-command-stdout>", "<local-command-stderr>", "</local-command-stderr>"]
                .iter()
                .fold(text.to_owned(), |rest, tag| rest.replace(tag, ""));
        let output = output.trim();
        return if output.is_empty() { UserText::Nothing } else { UserText::Notice(output.to_owned()) };
    }
    UserText::Prompt
}

/// `/name args` from a command echo; the echo itself when it names no command.
fn command_label(text: &str) -> String {
    let Some(name) = tag_content(text, "command-name").map(str::trim).filter(|n| !n.is_empty()) else {
        return text.to_owned();
    };
    match tag_content(text, "command-args").map(str::trim).filter(|a| !a.is_empty()) {
        Some(args) => format!("{name} {args}"),
        None => name.to_owned(),
    }
}

/// What a task notification says: its non-blank `<summary>`s, one a line
/// (`Background command "Slow build" completed (exit code 0)`); else
/// `Background task <status>`; else the notification as written.
fn task_notification_label(text: &str) -> String {
    let summaries: Vec<&str> = tag_contents(text, "summary").map(str::trim).filter(|s| !s.is_empty()).collect();
    if !summaries.is_empty() {
        return summaries.join("\n");
    }
    match tag_content(text, "status").map(str::trim).filter(|s| !s.is_empty()) {
        Some(status) => format!("Background task {status}"),
        None => text.to_owned(),
    }
}

/// The text between `<tag>` and `</tag>`.
fn tag_content<'a>(text: &'a str, tag: &str) -> Option<&'a str> {
    tag_contents(text, tag).next()
}

/// The texts between each `<tag>` and the `</tag>` after it, in order.
fn tag_contents<'a>(text: &'a str, tag: &str) -> impl Iterator<Item = &'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(&open)? + open.len();
        let end = rest[start..].find(&close)? + start;
        let found = &rest[start..end];
        rest = &rest[end + close.len()..];
        Some(found)
    })
}

/// `text` without the `<system-reminder>…</system-reminder>` spans the CLI
/// writes for the model only (each with one line break after it). The CLI
/// 2.1.332 puts one, naming the tools used so far, inside the compact summary.
/// An unclosed reminder is kept.
pub(super) fn strip_reminders(text: &str) -> String {
    let (open, close) = REMINDER;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(open) {
        let Some(end) = rest[start..].find(close).map(|e| start + e + close.len()) else { break };
        out.push_str(&rest[..start]);
        rest = &rest[end..];
        rest = rest.strip_prefix("\r\n").or_else(|| rest.strip_prefix('\n')).unwrap_or(rest);
    }
    out.push_str(rest);
    out
}

/// Splits a prompt at the context marker: the text before it, and the context
/// from the marker's `=====` on (the blank lines before the marker belong to
/// neither). A text that starts with the marker's `=====` line is all context.
pub(super) fn split_context(text: &str) -> (&str, Option<&str>) {
    if let Some(at) = text.find(CONTEXT_MARKER) {
        return (&text[..at], Some(&text[at + 2..]));
    }
    if text.starts_with(&CONTEXT_MARKER[2..]) {
        return ("", Some(text));
    }
    (text, None)
}

/// Whether a user text block can name a session: not harness text that slipped
/// through as a prompt (anything starting with `<`, the local-command
/// `Caveat:`, an interrupt marker) and not blank.
pub(super) fn is_real_prompt(text: &str) -> bool {
    let text = text.trim();
    !text.is_empty() && !text.starts_with('<') && !text.starts_with("Caveat:") && !text.starts_with(INTERRUPT)
}
