//! A transcript, readable on a terminal: one section per message, wrapped
//! text, tool calls collapsed to one line with their status, long thinking and
//! summaries folded, colour only when it is wanted.

use std::fmt::Write as _;
use std::io::IsTerminal as _;

use console::{Style, measure_text_width};
use sess_sources::{Block, FileDiff, Image, LineKind, Message, Role, ToolCall, ToolStatus, Transcript};

use crate::summary::one_line;

/// How many lines of thinking or of a summary are shown before folding.
const FOLDED_LINES: usize = 3;

/// How many lines of a tool call's diffs are shown before folding.
const DIFF_LINES: usize = 40;

/// Where the text goes and how it looks.
pub(crate) struct Layout {
    /// Columns available.
    pub(crate) width: usize,
    /// Whether to use colour.
    pub(crate) colour: bool,
}

/// Columns when stdout is not a terminal and `$COLUMNS` does not say.
const DEFAULT_WIDTH: usize = 100;

impl Layout {
    /// Stdout's: a terminal's width and colour (unless `$NO_COLOR`);
    /// otherwise `$COLUMNS` wide, or 100, without colour.
    pub(crate) fn of_stdout() -> Layout {
        let terminal = std::io::stdout().is_terminal();
        let width = match console::Term::stdout().size_checked() {
            Some((_, cols)) if terminal => usize::from(cols),
            _ => std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).unwrap_or(DEFAULT_WIDTH),
        };
        let colour = terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
        Layout { width, colour }
    }
}

/// Styles for each part, plain when colour is off.
struct Styles {
    title: Style,
    dim: Style,
    user: Style,
    assistant: Style,
    system: Style,
    ok: Style,
    failed: Style,
    waiting: Style,
    thinking: Style,
    added: Style,
    removed: Style,
    hunk: Style,
}

impl Styles {
    fn new(colour: bool) -> Self {
        let style = |s: Style| s.force_styling(colour);
        Self {
            title: style(Style::new().bold()),
            dim: style(Style::new().dim()),
            user: style(Style::new().cyan().bold()),
            assistant: style(Style::new().magenta().bold()),
            system: style(Style::new().yellow().bold()),
            ok: style(Style::new().green()),
            failed: style(Style::new().red()),
            waiting: style(Style::new().yellow()),
            thinking: style(Style::new().dim().italic()),
            added: style(Style::new().green()),
            removed: style(Style::new().red()),
            hunk: style(Style::new().cyan()),
        }
    }
}

/// The whole transcript as text.
pub(crate) fn render(transcript: &Transcript, layout: &Layout) -> String {
    let styles = Styles::new(layout.colour);
    let mut out = String::new();
    let title = transcript.title.as_deref().or_else(|| transcript.first_prompt()).unwrap_or("(untitled)");
    let _ = writeln!(out, "{}", styles.title.apply_to(one_line(title, layout.width.saturating_sub(1).max(20))));
    let mut about = format!("{}  {}", transcript.source, transcript.id);
    if let Some(cwd) = &transcript.cwd {
        let _ = write!(about, "  {cwd}");
    }
    let _ = writeln!(out, "{}", styles.dim.apply_to(about));
    if let Some(origin) = transcript.handed_over_from() {
        let _ = writeln!(out, "{}", styles.dim.apply_to(format!("handed over from {origin}")));
    }
    if transcript.truncated > 0 {
        let _ = writeln!(
            out,
            "{}",
            styles
                .dim
                .apply_to(format!("{} older messages not shown (--all shows every message)", transcript.truncated))
        );
    }
    if transcript.messages.is_empty() {
        let _ = writeln!(out, "\n{}", styles.dim.apply_to("(no messages)"));
    }
    for message in &transcript.messages {
        out.push('\n');
        message_to(&mut out, message, layout, &styles);
    }
    out
}

/// `messages` as [`render`] shows them in a transcript, each after an empty
/// line.
pub(crate) fn render_messages(messages: &[Message], layout: &Layout) -> String {
    let styles = Styles::new(layout.colour);
    let mut out = String::new();
    for message in messages {
        out.push('\n');
        message_to(&mut out, message, layout, &styles);
    }
    out
}

fn message_to(out: &mut String, message: &Message, layout: &Layout, styles: &Styles) {
    let role = match message.role {
        Role::User => &styles.user,
        Role::Assistant => &styles.assistant,
        Role::System => &styles.system,
    };
    let _ = write!(out, "{}", role.apply_to(message.role.as_str()));
    if let Some(when) = message.timestamp.as_deref().and_then(short_time) {
        let _ = write!(out, "  {}", styles.dim.apply_to(when));
    }
    out.push('\n');
    let width = layout.width.saturating_sub(INDENT.len()).max(20);
    for block in &message.blocks {
        block_to(out, block, width, styles);
    }
}

const INDENT: &str = "  ";

fn block_to(out: &mut String, block: &Block, width: usize, styles: &Styles) {
    match block {
        Block::Text { text } => lines_to(out, &wrap(text, width), None),
        Block::Thinking { text } => {
            let lines: Vec<String> = wrap(text, width.saturating_sub(2))
                .into_iter()
                .map(|l| format!("│ {l}").trim_end().to_owned())
                .collect();
            folded_to(out, &lines, Some(&styles.thinking), styles);
        }
        Block::ToolCall(call) => tool_call_to(out, call, width, styles),
        Block::Error { text } => {
            let lines = wrap(&format!("error: {text}"), width);
            lines_to(out, &lines, Some(&styles.failed));
        }
        Block::Context { title, text } => {
            let count = text.lines().count();
            let noun = if count == 1 { "line" } else { "lines" };
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(format!("[{title}: {count} {noun}]")));
        }
        Block::Summary { text } => {
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to("summary of the earlier conversation:"));
            folded_to(out, &wrap(text, width), None, styles);
        }
        Block::Image(image) => {
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(image_label(image)));
        }
        Block::Unknown { what, raw } => {
            let label = format!("[not understood: {what}, {} of JSON]", size(raw.to_string().len()));
            let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(label));
        }
    }
}

fn tool_call_to(out: &mut String, call: &ToolCall, width: usize, styles: &Styles) {
    let (mark, style) = match call.status {
        ToolStatus::Succeeded => ("✓", &styles.ok),
        ToolStatus::Failed => ("✗", &styles.failed),
        ToolStatus::Running => ("…", &styles.waiting),
        ToolStatus::Pending => ("?", &styles.waiting),
    };
    let head = format!("{mark} {}", call.name);
    let room = width.saturating_sub(measure_text_width(&head) + 2).max(10);
    let preview = one_line(&input_preview(&call.input), room);
    let _ = write!(out, "{INDENT}{}", style.apply_to(head));
    if !preview.is_empty() {
        let _ = write!(out, "  {preview}");
    }
    out.push('\n');
    let note = match call.status {
        ToolStatus::Failed => call.result.as_deref().map(|r| one_line(r, width.saturating_sub(4).max(10))),
        ToolStatus::Pending => Some("no result: the session ended before it came".to_owned()),
        ToolStatus::Succeeded | ToolStatus::Running => None,
    };
    if let Some(note) = note.filter(|n| !n.is_empty()) {
        let _ = writeln!(out, "{INDENT}  {}", styles.dim.apply_to(note));
    }
    diffs_to(out, &call.diffs, styles);
    if !call.subagent.is_empty() {
        let _ = writeln!(out, "{INDENT}  {}", styles.dim.apply_to(subagent_label(&call.subagent)));
    }
}

/// The files a call changed, as a unified diff under it: each file's
/// `---`/`+++` header, then its hunks; folded after [`DIFF_LINES`] lines.
fn diffs_to(out: &mut String, diffs: &[FileDiff], styles: &Styles) {
    let lines: Vec<String> = diffs.iter().flat_map(|diff| diff_lines(diff, styles)).collect();
    let shown = if lines.len() > DIFF_LINES + 1 { DIFF_LINES } else { lines.len() };
    for line in &lines[..shown] {
        let _ = writeln!(out, "{INDENT}  {line}");
    }
    if lines.len() > shown {
        let more = format!("… {} more lines of diff (sess show --json has them all)", lines.len() - shown);
        let _ = writeln!(out, "{INDENT}  {}", styles.dim.apply_to(more));
    }
}

/// One file's diff, line by line, styled.
fn diff_lines(diff: &FileDiff, styles: &Styles) -> Vec<String> {
    let (from, to) = diff.path.split_once(" → ").unwrap_or((&diff.path, &diff.path));
    let side = |prefix: &str, path: &str| format!("{prefix}{}", path.strip_prefix('/').unwrap_or(path));
    let to = if diff.hunks.is_empty() && !diff.new_file { "/dev/null".to_owned() } else { side("b/", to) };
    let mut lines = vec![
        styles.title.apply_to(format!("--- {}", side("a/", from))).to_string(),
        styles.title.apply_to(format!("+++ {to}")).to_string(),
    ];
    if diff.new_file {
        lines.push(styles.dim.apply_to("whole file written").to_string());
    } else if diff.hunks.is_empty() {
        lines.push(styles.dim.apply_to("file deleted").to_string());
    }
    for hunk in &diff.hunks {
        lines.push(styles.hunk.apply_to(hunk.header()).to_string());
        for line in &hunk.lines {
            let text = format!("{}{}", line.kind.mark(), line.text);
            lines.push(match line.kind {
                LineKind::Add => styles.added.apply_to(text).to_string(),
                LineKind::Remove => styles.removed.apply_to(text).to_string(),
                LineKind::Context => text,
            });
        }
    }
    lines
}

/// One line for the folded conversation of a subagent.
fn subagent_label(turns: &[Message]) -> String {
    let calls = turns.iter().flat_map(|m| &m.blocks).filter(|b| matches!(b, Block::ToolCall(_))).count();
    let plural = |n: usize, noun: &str| format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
    format!("subagent: {}, {} (--json shows them)", plural(turns.len(), "message"), plural(calls, "tool call"))
}

/// The argument that says what a call does (a command, a path, a query), or
/// its input as compact JSON.
fn input_preview(input: &serde_json::Value) -> String {
    if let Some(gist) = sess_sources::input_gist(input) {
        return gist;
    }
    match input {
        serde_json::Value::Object(map) if map.is_empty() => String::new(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

fn image_label(image: &Image) -> String {
    let kind = image.media_type.as_deref().unwrap_or("image");
    match (&image.data, &image.url) {
        (Some(data), _) => format!("[image {kind}, {}]", size(data.len() / 4 * 3)),
        (None, Some(url)) => format!("[image {kind}: {}]", one_line(url, 60)),
        (None, None) => format!("[image {kind}]"),
    }
}

fn size(bytes: usize) -> String {
    if bytes < 1024 { format!("{bytes} B") } else { format!("{:.1} KiB", bytes as f64 / 1024.0) }
}

/// `2026-08-21 14:00` from an ISO 8601 timestamp.
fn short_time(iso: &str) -> Option<String> {
    let (date, time) = iso.split_once('T')?;
    Some(format!("{date} {}", time.get(..5)?))
}

fn lines_to(out: &mut String, lines: &[String], style: Option<&Style>) {
    for line in lines {
        match style {
            _ if line.is_empty() => out.push('\n'),
            Some(style) => {
                let _ = writeln!(out, "{INDENT}{}", style.apply_to(line));
            }
            None => {
                let _ = writeln!(out, "{INDENT}{line}");
            }
        }
    }
}

fn folded_to(out: &mut String, lines: &[String], style: Option<&Style>, styles: &Styles) {
    let shown = if lines.len() > FOLDED_LINES + 1 { FOLDED_LINES } else { lines.len() };
    lines_to(out, &lines[..shown], style);
    if lines.len() > shown {
        let _ = writeln!(out, "{INDENT}{}", styles.dim.apply_to(format!("… {} more lines", lines.len() - shown)));
    }
}

/// `text` broken into lines of at most `width` columns: at spaces where it
/// can, inside a word where a word is wider than the line. Line breaks in the
/// text are kept; trailing blank lines are dropped.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for source in text.trim_end().lines() {
        let source = source.trim_end();
        if measure_text_width(source) <= width {
            lines.push(source.to_owned());
            continue;
        }
        let mut line = String::new();
        let mut used = 0;
        for word in source.split(' ') {
            let word_width = measure_text_width(word);
            if used > 0 && used + 1 + word_width <= width {
                line.push(' ');
                line.push_str(word);
                used += 1 + word_width;
                continue;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
            }
            used = 0;
            for c in word.chars() {
                let w = measure_text_width(c.encode_utf8(&mut [0; 4]));
                if used + w > width && used > 0 {
                    lines.push(std::mem::take(&mut line));
                    used = 0;
                }
                line.push(c);
                used += w;
            }
        }
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn wraps_at_spaces_and_inside_long_words() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\n\nb\n\n", 10), ["a", "", "b"]);
        // Wide characters take two columns.
        assert_eq!(wrap("日本語のテキスト", 6), ["日本語", "のテキ", "スト"]);
    }

    #[test]
    fn shows_roles_statuses_and_folds() {
        let mut ok = ToolCall::running("1", "Bash", json!({"command": "ls -la"}));
        ok.complete(Some("a\nb".into()), false, None);
        let mut failed = ToolCall::running("2", "Read", json!({"file_path": "/nope"}));
        failed.complete(Some("ENOENT: no such file".into()), true, None);
        let mut pending = ToolCall::running("3", "Edit", json!({}));
        pending.status = ToolStatus::Pending;
        let mut task = ToolCall::running("4", "Task", json!({"prompt": "count files"}));
        task.complete(Some("3 files".into()), false, None);
        task.subagent = vec![
            Message::new(Role::User).with(Block::text("count files")),
            Message::new(Role::Assistant).with(Block::ToolCall(ToolCall::running("5", "Bash", json!({})))),
        ];
        let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "abc");
        transcript.title = Some("Fix it".into());
        transcript.truncated = 2;
        transcript.messages.push(
            Message::new(Role::User)
                .at(None, Some("2026-08-21T14:00:00.500Z".into()))
                .with(Block::text("why?"))
                .with(Block::Context { title: "Restored context".into(), text: "x\ny".into() }),
        );
        transcript.messages.push(
            Message::new(Role::Assistant)
                .with(Block::Thinking { text: "1\n2\n3\n4\n5".into() })
                .with(Block::ToolCall(ok))
                .with(Block::ToolCall(failed))
                .with(Block::ToolCall(pending))
                .with(Block::ToolCall(task))
                .with(Block::Unknown { what: "input_image".into(), raw: json!({"image_url": null}) })
                .with(Block::Error { text: "API Error: 529".into() }),
        );
        let text = render(&transcript, &Layout { width: 80, colour: false });
        assert_eq!(
            text,
            "Fix it\nclaude  abc\n2 older messages not shown (--all shows every message)\n\n\
             user  2026-08-21 14:00\n  why?\n  [Restored context: 2 lines]\n\n\
             assistant\n  │ 1\n  │ 2\n  │ 3\n  … 2 more lines\n  ✓ Bash  ls -la\n  ✗ Read  /nope\n    ENOENT: no such file\n\
             \x20 ? Edit\n    no result: the session ended before it came\n\
             \x20 ✓ Task  count files\n    subagent: 2 messages, 1 tool call (--json shows them)\n\
             \x20 [not understood: input_image, 18 B of JSON]\n  error: API Error: 529\n"
        );
        assert!(!text.contains('\u{1b}'));
        let coloured = render(&transcript, &Layout { width: 80, colour: true });
        assert!(coloured.contains('\u{1b}'));
    }

    fn edited(diffs: Vec<FileDiff>) -> Transcript {
        let mut call = ToolCall::running("1", "Edit", json!({"file_path": "/p/a.js"}));
        call.complete(Some("ok".into()), false, None);
        call.diffs = diffs;
        let mut transcript = Transcript::new(sess_sources::claude::SOURCE, "abc");
        transcript.title = Some("Edit".into());
        transcript.messages.push(Message::new(Role::Assistant).with(Block::ToolCall(call)));
        transcript
    }

    fn diff_of(edit: &sess_sources::FileEdit) -> FileDiff {
        FileDiff::of(edit).unwrap()
    }

    #[test]
    fn shows_the_diffs_of_an_edit_under_it() {
        use sess_sources::{Change, FileEdit};
        let transcript = edited(vec![
            diff_of(&FileEdit::replace("/p/a.js", "let a = 1;\nlet b = 2;\n", "let a = 1;\nlet b = 3;\n", false)),
            diff_of(&FileEdit::write("notes.txt", "first\n")),
            diff_of(&FileEdit { path: "old.txt".into(), moved_to: None, change: Change::Delete }),
            diff_of(&FileEdit { moved_to: Some("b.py".into()), ..FileEdit::replace("a.py", "x", "y", false) }),
        ]);
        assert_eq!(
            render(&transcript, &Layout { width: 80, colour: false }),
            "Edit\nclaude  abc\n\nassistant\n  ✓ Edit  /p/a.js\n\
             \x20   --- a/p/a.js\n    +++ b/p/a.js\n    @@ -1,2 +1,2 @@\n     let a = 1;\n    -let b = 2;\n    +let b = 3;\n\
             \x20   --- a/notes.txt\n    +++ b/notes.txt\n    whole file written\n    @@ -0,0 +1,1 @@\n    +first\n\
             \x20   --- a/old.txt\n    +++ /dev/null\n    file deleted\n\
             \x20   --- a/a.py\n    +++ b/b.py\n    @@ -1,1 +1,1 @@\n    -x\n    +y\n"
        );
        let coloured = render(&transcript, &Layout { width: 80, colour: true });
        let green = Style::new().green().force_styling(true).apply_to("+let b = 3;").to_string();
        let red = Style::new().red().force_styling(true).apply_to("-let b = 2;").to_string();
        assert!(coloured.contains(&green), "{coloured:?}");
        assert!(coloured.contains(&red), "{coloured:?}");
        assert!(coloured.contains("\n     let a = 1;\n"), "context lines stay plain: {coloured:?}");
    }

    #[test]
    fn folds_a_long_diff_after_40_lines() {
        use sess_sources::FileEdit;
        let lines = |last: usize| (1..=last).map(|n| format!("line {n}\n")).collect::<Vec<_>>().concat();
        let content = lines(60);
        let text =
            render(&edited(vec![diff_of(&FileEdit::write("big.txt", content))]), &Layout { width: 80, colour: false });
        let diff: Vec<&str> = text.lines().skip_while(|l| !l.contains("--- a/big.txt")).collect();
        // 2 header lines, the note, the hunk header and 60 added lines: 64, of which 40 are shown.
        assert_eq!(diff.len(), 41, "{text}");
        assert_eq!(diff[39], "    +line 36");
        assert_eq!(diff[40], "    … 24 more lines of diff (sess show --json has them all)");
        // One line over the limit is shown rather than folded.
        let content = lines(37);
        let text =
            render(&edited(vec![diff_of(&FileEdit::write("big.txt", content))]), &Layout { width: 80, colour: false });
        assert!(text.ends_with("    +line 37\n"), "{text}");
    }
}
