//! Writing to the terminal: stdout for results, stderr for warnings and errors.

use std::fmt::Display;
use std::io::{self, BufWriter, IsTerminal as _, Write};
use std::path::Path;

use serde::Serialize;
use sess_core::LineIssue;

/// Buffered, locked stdout.
pub(crate) fn stdout() -> BufWriter<io::StdoutLock<'static>> {
    BufWriter::with_capacity(1 << 16, io::stdout().lock())
}

/// Prints `value` as JSON (pretty unless `compact`) and a newline.
pub(crate) fn print_json<T: Serialize>(value: &T, compact: bool) -> anyhow::Result<()> {
    let mut out = stdout();
    if compact {
        serde_json::to_writer(&mut out, value)?;
    } else {
        serde_json::to_writer_pretty(&mut out, value)?;
    }
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// A warning on stderr.
pub(crate) fn warn(message: impl Display) {
    to_stderr(format_args!("warning: {message}\n"));
}

/// A note on stderr (what a long-running command is doing).
pub(crate) fn note(message: impl Display) {
    to_stderr(format_args!("{message}\n"));
}

/// Writes `text` to stderr. A closed stderr (`2>&1 | head -1`, a reader that
/// went away) is not an error: the command goes on, and ends with the code it
/// would have had. `eprintln!` would panic there.
fn to_stderr(text: std::fmt::Arguments<'_>) {
    let _ = io::stderr().lock().write_fmt(text);
}

/// A warning for each path a walk skipped because it is not a regular file (a
/// FIFO, a device, a link to no file), once per path in this process (`sess serve` walks again
/// on every refresh).
pub(crate) fn warn_skipped(skipped: &[(std::path::PathBuf, sess_core::FileKind)]) {
    static WARNED: std::sync::Mutex<Option<std::collections::HashSet<std::path::PathBuf>>> =
        std::sync::Mutex::new(None);
    if skipped.is_empty() {
        return;
    }
    let mut warned = WARNED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let warned = warned.get_or_insert_with(Default::default);
    for (path, kind) in skipped {
        if warned.insert(path.clone()) {
            warn(sess::skipped_line(path, *kind));
        }
    }
}

/// What a long-lived library tells, printed as warnings on stderr.
pub(crate) struct Printed;

impl sess::Tell for Printed {
    fn warning(&self, line: &str) {
        warn(line);
    }

    fn skipped(&self, skipped: &[(std::path::PathBuf, sess_core::FileKind)]) {
        warn_skipped(skipped);
    }
}

/// Warnings for the lines the reader skipped or repaired, at most 20 of them.
pub(crate) fn warn_issues(path: &Path, issues: &[LineIssue]) {
    for line in sess::load::issue_lines(path, issues) {
        warn(format_args!("{line}"));
    }
}

/// Prints an error and its causes, then any hints, on stderr.
pub(crate) fn report_error(err: &anyhow::Error) {
    let mut text = String::new();
    let messages = err.chain().filter(|c| !c.is::<Hint>()).map(ToString::to_string);
    for (i, line) in error_lines(messages).iter().enumerate() {
        text.push_str(if i == 0 { "error: " } else { "  caused by: " });
        text.push_str(line);
        text.push('\n');
    }
    if let Some(hint) = err.chain().find_map(|c| c.downcast_ref::<Hint>()) {
        text.push_str("hint: ");
        text.push_str(&hint.0);
        text.push('\n');
    }
    to_stderr(format_args!("{text}"));
}

/// The messages of an error chain (outermost first) worth a line: a cause
/// that says nothing the line above it did not say is left out — its text is
/// part of that line (libraries often end their message with their source's),
/// or it is that text behind a bare label (`Error code 14: unable to open
/// database file`, a label without a name or path in it).
fn error_lines(messages: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for message in messages {
        let message = message.trim().to_owned();
        if let Some(above) = lines.last() {
            let said = |text: &str| !text.is_empty() && above.contains(text);
            let behind_label = message
                .split_once(": ")
                .is_some_and(|(label, rest)| !label.contains(['`', '/', '\'']) && said(rest.trim()));
            if said(&message) || behind_label {
                continue;
            }
        }
        lines.push(message);
    }
    lines
}

/// A hint for the user, printed on its own line after the error. Attach it with
/// `anyhow::Error::new(Hint(..)).context(message)`.
pub(crate) use sess::Hint;

/// A progress bar on stderr when it is a terminal; nothing otherwise.
pub(crate) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    /// A bar for `total` things called `unit`.
    pub(crate) fn new(total: u64, unit: &str) -> Self {
        if !io::stderr().is_terminal() {
            return Self(None);
        }
        let bar = indicatif::ProgressBar::new(total);
        let template = format!("{{bar:40}} {{pos}}/{{len}} {unit} {{elapsed_precise}}");
        if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        Self(Some(bar))
    }

    /// Moves the bar on by `n`.
    pub(crate) fn add(&self, n: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(n);
        }
    }

    /// Sets how many things there are.
    pub(crate) fn set_len(&self, total: u64) {
        if let Some(bar) = &self.0 {
            bar.set_length(total);
        }
    }

    /// Sets where the bar is.
    pub(crate) fn set(&self, done: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(done);
        }
    }

    /// Removes the bar.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

pub(crate) use sess::shell_word;

#[cfg(test)]
mod tests {
    use super::error_lines;

    fn lines(messages: &[&str]) -> Vec<String> {
        error_lines(messages.iter().map(|m| (*m).to_owned()))
    }

    #[test]
    fn causes_already_said_are_left_out() {
        assert_eq!(
            lines(&[
                "cannot open the catalog `/proc/x.sqlite`",
                "opening the catalog `/proc/x.sqlite`: unable to open database file: /proc/x.sqlite",
                "unable to open database file: /proc/x.sqlite",
                "Error code 14: unable to open database file",
            ]),
            [
                "cannot open the catalog `/proc/x.sqlite`",
                "opening the catalog `/proc/x.sqlite`: unable to open database file: /proc/x.sqlite",
            ]
        );
        assert_eq!(
            lines(&[
                "cannot open the PostgreSQL store",
                "connecting to postgres@127.0.0.1:1/test: error connecting to server",
                "error connecting to server",
                "Connection refused (os error 111)",
            ]),
            [
                "cannot open the PostgreSQL store",
                "connecting to postgres@127.0.0.1:1/test: error connecting to server",
                "Connection refused (os error 111)",
            ]
        );
    }

    #[test]
    fn causes_that_add_a_name_are_kept() {
        assert_eq!(
            lines(&["cannot read the session", "reading `a/b.jsonl`: Is a directory (os error 21)", "Is a directory"]),
            ["cannot read the session", "reading `a/b.jsonl`: Is a directory (os error 21)"]
        );
        assert_eq!(lines(&["error: `x`", "opening `/a`: denied", "denied"]), ["error: `x`", "opening `/a`: denied"]);
        assert_eq!(lines(&["a failed", "because `b`: a failed"]), ["a failed", "because `b`: a failed"]);
    }
}
