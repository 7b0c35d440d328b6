//! A transcript as Markdown: to hand to another agent or paste in an issue.
//!
//! The title, the agent, the session id and its folder first; then each run
//! of messages of one role under a heading (`## User`, `## Assistant`,
//! `## System`), text as written. Tool calls are compact: a line with the
//! tool's name, what its input says it does ([`sess_sources::input_gist`],
//! else its JSON) and its status, then the first lines of its output in a
//! fenced block (the rest counted, not shown), and the diff of an edit in a
//! fenced `diff` block. A subagent's turns are
//! quoted under its call. Thinking is folded in a `<details>` block, or left
//! out ([`MarkdownOptions::thinking`]).

use std::fmt::Write as _;

use sess_sources::{Block, FileDiff, Image, Message, Role, ToolCall, ToolStatus, Transcript};

use crate::text::{one_line, size};
use crate::unified;

/// How the Markdown is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkdownOptions {
    /// Whether the model's reasoning is included, folded in a `<details>`
    /// block (`true`, the default), or left out.
    pub thinking: bool,
    /// How many lines of a tool call's output are shown (10 by default).
    pub output_lines: usize,
}

impl Default for MarkdownOptions {
    fn default() -> Self {
        Self { thinking: true, output_lines: 10 }
    }
}

/// The longest line of a tool's output, or of an input shown on one line,
/// that is kept whole; longer ones are cut with `…`.
const LINE_CHARS: usize = 400;

/// `transcript` as a Markdown document (see the module's documentation).
pub fn to_markdown(transcript: &Transcript, options: &MarkdownOptions) -> String {
    let mut out = String::new();
    let title = transcript.title.as_deref().or_else(|| transcript.first_prompt()).unwrap_or("(untitled)");
    let _ = writeln!(out, "# {}\n", one_line(title, 200));
    let _ = writeln!(out, "- **Agent:** {} (`{}`)", transcript.source.agent_name(), transcript.source);
    let _ = writeln!(out, "- **Session:** {}", inline_code(&transcript.id));
    if let Some(cwd) = &transcript.cwd {
        let _ = writeln!(out, "- **Folder:** {}", inline_code(cwd));
    }
    if transcript.truncated > 0 {
        let _ = writeln!(out, "- **Left out:** the {} oldest messages", transcript.truncated);
    }
    out.push('\n');
    if transcript.messages.is_empty() {
        out.push_str("_(no messages)_\n");
        return out;
    }
    messages_to(&mut out, &transcript.messages, options, true);
    // One newline at the end.
    let end = out.trim_end().len();
    out.truncate(end);
    out.push('\n');
    out
}

/// The messages, each run of one role under its role: a heading for the
/// session's own (`top`), a bold line for a subagent's.
fn messages_to(out: &mut String, messages: &[Message], options: &MarkdownOptions, top: bool) {
    let mut role = None;
    for message in messages {
        if role != Some(message.role) {
            role = Some(message.role);
            let name = role_name(message.role);
            if top {
                let _ = writeln!(out, "## {name}\n");
            } else {
                let _ = writeln!(out, "**{name}**\n");
            }
        }
        for block in &message.blocks {
            block_to(out, block, options);
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "User",
        Role::Assistant => "Assistant",
        Role::System => "System",
    }
}

fn block_to(out: &mut String, block: &Block, options: &MarkdownOptions) {
    match block {
        Block::Text { text } => {
            if !text.trim().is_empty() {
                let _ = writeln!(out, "{}\n", text.trim_end());
            }
        }
        Block::Thinking { text } => {
            if options.thinking && !text.trim().is_empty() {
                let _ =
                    writeln!(out, "<details><summary>Thinking</summary>\n\n{}\n</details>\n", quoted(text.trim_end()));
            }
        }
        Block::ToolCall(call) => tool_call_to(out, call, options),
        Block::Error { text } => {
            let _ = writeln!(out, "{}\n", quoted(&format!("**Error:** {}", text.trim_end())));
        }
        Block::Context { title, text } => {
            let count = text.lines().count();
            let _ = writeln!(out, "_[{}: {count} line{}]_\n", one_line(title, 80), plural(count));
        }
        Block::Summary { text } => {
            let _ = writeln!(out, "**Summary of the earlier conversation:**\n\n{}\n", quoted(text.trim_end()));
        }
        Block::Image(image) => {
            let _ = writeln!(out, "_{}_\n", image_label(image));
        }
        Block::Unknown { what, raw } => {
            let _ =
                writeln!(out, "_[not understood: {}, {} of JSON]_\n", one_line(what, 80), size(raw.to_string().len()));
        }
    }
}

/// A tool call: `**Name** · status · gist`, its output's first lines, its
/// diffs, and its subagent's turns quoted.
fn tool_call_to(out: &mut String, call: &ToolCall, options: &MarkdownOptions) {
    let mut line = format!("**{}** · {}", one_line(&call.name, 80).replace('*', "\\*"), status_word(call.status));
    let gist = sess_sources::input_gist(&call.input).unwrap_or_else(|| match &call.input {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Object(map) if map.is_empty() => String::new(),
        input => input.to_string(),
    });
    if !gist.trim().is_empty() {
        let _ = write!(line, " · {}", inline_code(&one_line(&gist, LINE_CHARS)));
    }
    let _ = writeln!(out, "{line}\n");
    for diff in &call.diffs {
        diff_to(out, diff);
    }
    if let Some(result) = call.result.as_deref().filter(|r| !r.trim().is_empty()) {
        output_to(out, result, options.output_lines);
    } else if call.status == ToolStatus::Pending {
        out.push_str("_No result: the session ended before it came._\n\n");
    }
    if !call.subagent.is_empty() {
        let calls = call.subagent.iter().flat_map(|m| &m.blocks).filter(|b| matches!(b, Block::ToolCall(_))).count();
        let _ = writeln!(
            out,
            "_Subagent: {} message{}, {calls} tool call{}_\n",
            call.subagent.len(),
            plural(call.subagent.len()),
            plural(calls)
        );
        let mut turns = String::new();
        messages_to(&mut turns, &call.subagent, options, false);
        let _ = writeln!(out, "{}\n", quoted(turns.trim_end()));
    }
}

/// An edit's diff in a fenced `diff` block (a file written whole or deleted
/// said before it).
fn diff_to(out: &mut String, diff: &FileDiff) {
    let mut lines = Vec::new();
    for (kind, line) in unified::lines(diff) {
        if kind == unified::Kind::Note {
            let _ = writeln!(out, "_{line}: {}_\n", inline_code(&one_line(&diff.path, LINE_CHARS)));
        } else {
            lines.push(line);
        }
    }
    let _ = writeln!(out, "{}", fenced("diff", &lines.join("\n")));
}

/// The first `lines` lines of a tool's output in a fenced block, and how many
/// more there are.
fn output_to(out: &mut String, output: &str, lines: usize) {
    let all: Vec<&str> = output.trim_end().lines().collect();
    let shown: Vec<String> = all.iter().take(lines).map(|line| cut(line, LINE_CHARS)).collect();
    out.push_str(&fenced("text", &shown.join("\n")));
    let more = all.len().saturating_sub(lines);
    if more > 0 {
        let _ = writeln!(out, "_… {more} more line{}_", plural(more));
    }
    out.push('\n');
}

fn status_word(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Succeeded => "✓ succeeded",
        ToolStatus::Failed => "✗ failed",
        ToolStatus::Running => "… running",
        ToolStatus::Pending => "? pending",
    }
}

fn image_label(image: &Image) -> String {
    let kind = image.media_type.as_deref().unwrap_or("image");
    match (&image.data, &image.url) {
        (Some(data), _) => format!("[image {}, {}]", one_line(kind, 40), size(data.len() / 4 * 3)),
        (None, Some(url)) => format!("[image {}: {}]", one_line(kind, 40), inline_code(&one_line(url, 200))),
        (None, None) => format!("[image {}]", one_line(kind, 40)),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `line` cut to `max` characters, with `…` when it was longer.
fn cut(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// `text` as a block quote: every line behind `> `.
fn quoted(text: &str) -> String {
    text.lines()
        .map(|line| if line.is_empty() { ">".to_owned() } else { format!("> {line}") })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` (one line) as inline code, with a fence of backticks longer than
/// any run of them in it.
fn inline_code(text: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`') + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// `text` in a fenced block of `language`, its fence longer than any run of
/// backticks in it; ends with a newline.
fn fenced(language: &str, text: &str) -> String {
    let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
    format!("{fence}{language}\n{text}\n{fence}\n")
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for d in text.chars() {
        run = if d == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

#[cfg(test)]
#[path = "md_tests.rs"]
mod tests;
