//! A transcript as one self-contained HTML file that looks like the page's
//! session view.
//!
//! The style is inline (`assets/transcript.css`, the page's rules); there is
//! no script, and nothing is fetched: a Content-Security-Policy meta tag
//! (`default-src 'none'; style-src 'unsafe-inline'; img-src data:`) says so
//! to the browser, the only links are those the messages hold (opened in a
//! new tab, without a referrer), and an image is shown only when the
//! transcript holds its bytes (as a `data:` URI), else named. Every piece of
//! session text is escaped; the text of user and assistant messages is
//! rendered as Markdown by [`to_html`](crate::to_html). Thinking, tool
//! calls (their input, the diff of an edit with its added and removed lines
//! coloured, the result and subagent turns), attached context and
//! parts not understood are folded in `<details>`, which open without a
//! script.

use sess_sources::{Block, FileDiff, Image, LineKind, Message, Role, ToolCall, ToolStatus, Transcript};

use crate::escape::escape_into;
use crate::markdown::to_html;
use crate::text::{duration, one_line, short_time};
use crate::unified::{self, Kind};

/// The style of the file.
/// The file's own rules (its colours, its page), then the session view's.
const STYLE: &str = include_str!("../assets/transcript.css");

/// What the file may load: its inline style and `data:` images, nothing else.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/// `transcript` as a whole HTML document (see the module's documentation).
pub fn to_html_document(transcript: &Transcript) -> String {
    let mut page = Page { out: String::with_capacity(64 * 1024) };
    let title = transcript.title.as_deref().or_else(|| transcript.first_prompt()).unwrap_or("(untitled)");
    page.push("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    page.push("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    page.push(CONTENT_SECURITY_POLICY);
    page.push("\">\n<meta name=\"referrer\" content=\"no-referrer\">\n");
    page.push("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    page.push("<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
    page.text(&one_line(title, 80));
    page.push(" · sess</title>\n<style>\n");
    page.push(STYLE);
    page.push(crate::SESSION_CSS);
    page.push("</style>\n</head>\n<body>\n<main class=\"transcript\" data-testid=\"session-view\">\n");
    page.push("<h1 data-testid=\"session-title\">");
    page.text(&one_line(title, 300));
    page.push("</h1>\n");
    page.meta(transcript);
    if transcript.truncated > 0 {
        let n = transcript.truncated;
        page.push("<p class=\"banner note\" data-testid=\"truncated-note\">");
        page.text(&format!("{n} older message{} not included", if n == 1 { "" } else { "s" }));
        page.push("</p>\n");
    }
    for message in &transcript.messages {
        page.message(message);
    }
    if transcript.messages.is_empty() {
        page.push("<p class=\"empty\">(no messages)</p>\n");
    }
    page.push("<p class=\"export-note muted\">Exported with sess from the ");
    page.text(transcript.source.agent_name());
    page.push(" session ");
    page.text(&transcript.id);
    page.push(".</p>\n</main>\n</body>\n</html>\n");
    page.out
}

/// The document being written.
struct Page {
    out: String,
}

impl Page {
    /// Markup, as is.
    fn push(&mut self, html: &str) {
        self.out.push_str(html);
    }

    /// Text, escaped.
    fn text(&mut self, text: &str) {
        escape_into(&mut self.out, text);
    }

    /// `<tag class="class" data-testid="testid">text</tag>`.
    fn element(&mut self, tag: &str, class: &str, testid: &str, text: &str) {
        self.push("<");
        self.push(tag);
        if !class.is_empty() {
            self.push(" class=\"");
            self.push(class);
            self.push("\"");
        }
        if !testid.is_empty() {
            self.push(" data-testid=\"");
            self.push(testid);
            self.push("\"");
        }
        self.push(">");
        self.text(text);
        self.push("</");
        self.push(tag);
        self.push(">");
    }

    /// The agent, the folder and the session id under the title.
    fn meta(&mut self, transcript: &Transcript) {
        self.push("<p class=\"muted session-meta\" data-testid=\"session-meta\">");
        self.push("<span class=\"badge source-");
        self.text(transcript.source.as_str());
        self.push("\" title=\"");
        self.text(transcript.source.agent_name());
        self.push("\">");
        self.text(transcript.source.as_str());
        self.push("</span> ");
        if let Some(cwd) = &transcript.cwd {
            self.element("span", "path", "", cwd);
        }
        self.push("<span> · ");
        self.text(&transcript.id);
        self.push("</span></p>\n");
    }

    fn message(&mut self, message: &Message) {
        let role = message.role.as_str();
        self.push("<article class=\"message message-");
        self.push(role);
        self.push("\" data-testid=\"message\" data-role=\"");
        self.push(role);
        self.push("\" data-entry-id=\"");
        self.text(message.id.as_deref().unwrap_or_default());
        self.push("\">\n<header class=\"message-head\">");
        self.push("<span class=\"role role-");
        self.push(role);
        self.push("\" data-testid=\"message-role\">");
        self.push(role);
        self.push("</span>");
        if let Some(timestamp) = &message.timestamp {
            self.push("<time class=\"muted\" data-testid=\"message-time\" datetime=\"");
            self.text(timestamp);
            self.push("\" title=\"");
            self.text(timestamp);
            self.push("\">");
            self.text(&short_time(timestamp).unwrap_or_else(|| timestamp.clone()));
            self.push("</time>");
        }
        self.push("</header>\n");
        for block in &message.blocks {
            self.block(block, message.role);
        }
        self.push("</article>\n");
    }

    fn block(&mut self, block: &Block, role: Role) {
        match block {
            Block::Text { text } if role == Role::System => {
                self.element("div", "text", "text-block", text);
                self.push("\n");
            }
            Block::Text { text } => {
                self.push("<div class=\"text markdown\" data-testid=\"text-block\">");
                self.push(&to_html(text));
                self.push("</div>\n");
            }
            Block::Thinking { text } => {
                self.push("<details class=\"thinking\" data-testid=\"thinking\"><summary>Thinking ");
                self.element("span", "muted", "", &one_line(text, 100));
                self.push("</summary>");
                self.element("div", "text", "", text);
                self.push("</details>\n");
            }
            Block::ToolCall(call) => self.tool_call(call),
            Block::Error { text } => {
                self.push(
                    "<div class=\"error-block\" data-testid=\"error-block\" role=\"note\"><strong>Error: </strong>",
                );
                self.text(text);
                self.push("</div>\n");
            }
            Block::Context { title, text } => {
                self.push("<details class=\"context\" data-testid=\"context-block\">");
                self.element("summary", "", "", if title.is_empty() { "Context" } else { title });
                self.element("pre", "", "", text);
                self.push("</details>\n");
            }
            Block::Summary { text } => {
                self.push("<div class=\"summary\" data-testid=\"summary-block\">");
                self.element("div", "summary-title muted", "", "Summary of the earlier conversation");
                self.element("div", "text", "", text);
                self.push("</div>\n");
            }
            Block::Image(image) => self.image(image),
            Block::Unknown { what, raw } => {
                self.push("<details class=\"unknown\" data-testid=\"unknown-block\">");
                self.element("summary", "muted", "", &format!("Not understood: {what}"));
                let json = serde_json::to_string_pretty(raw).unwrap_or_else(|_| raw.to_string());
                self.element("pre", "", "", &json);
                self.push("</details>\n");
            }
        }
    }

    fn tool_call(&mut self, call: &ToolCall) {
        let status = call.status.as_str();
        let mark = match call.status {
            ToolStatus::Succeeded => "✓",
            ToolStatus::Failed => "✗",
            ToolStatus::Running => "…",
            ToolStatus::Pending => "?",
        };
        self.push("<details class=\"tool-call tool-");
        self.push(status);
        self.push("\" data-testid=\"tool-call\" data-status=\"");
        self.push(status);
        self.push("\"><summary><span class=\"status status-");
        self.push(status);
        self.push("\" data-testid=\"tool-status\" title=\"");
        self.push(status);
        self.push("\">");
        self.push(mark);
        self.push(" ");
        self.push(status);
        self.push("</span>");
        self.element("span", "tool-name", "tool-name", &call.name);
        if let (Some(start), Some(end)) = (&call.started_at, &call.ended_at)
            && let Some(took) = duration(start, end)
        {
            self.element("span", "muted tool-duration", "tool-duration", &took);
        }
        let preview = one_line(&input_preview(&call.input), 160);
        if !preview.is_empty() {
            self.element("code", "tool-preview", "tool-input-preview", &preview);
        }
        self.push("</summary>\n<div class=\"tool-body\">");
        self.element("div", "label muted", "", "Input");
        let input = serde_json::to_string_pretty(&call.input).unwrap_or_else(|_| call.input.to_string());
        self.element("pre", "", "tool-input", &input);
        if !call.diffs.is_empty() {
            self.element("div", "label muted", "", "Diff");
            for diff in &call.diffs {
                self.diff(diff);
            }
        }
        if let Some(result) = &call.result {
            self.element("div", "label muted", "", "Result");
            let class = if call.status == ToolStatus::Failed { "failed" } else { "" };
            self.element("pre", class, "tool-result", result);
        } else if call.status == ToolStatus::Pending {
            self.element("p", "muted", "", "No result: the session ended before it came.");
        }
        if !call.subagent.is_empty() {
            let n = call.subagent.len();
            self.element("div", "label muted", "", &format!("Subagent ({n} message{})", if n == 1 { "" } else { "s" }));
            self.push("<div class=\"subagent\" data-testid=\"subagent\">\n");
            for message in &call.subagent {
                self.message(message);
            }
            self.push("</div>");
        }
        self.push("</div></details>\n");
    }

    /// An edit's diff: its file, then its lines, added ones green and
    /// removed ones red.
    fn diff(&mut self, diff: &FileDiff) {
        self.push("<div class=\"diff\" data-testid=\"diff\">");
        let lines = unified::lines(diff);
        // The header and note come before the first hunk.
        let body = lines.iter().position(|(kind, _)| matches!(kind, Kind::Hunk | Kind::Line(_))).unwrap_or(lines.len());
        for (_, text) in &lines[..body] {
            self.element("div", "diff-file", "", text);
        }
        if body < lines.len() {
            self.push("<pre>");
            for (kind, text) in &lines[body..] {
                let class = match kind {
                    Kind::Line(LineKind::Add) => "diff-line diff-add",
                    Kind::Line(LineKind::Remove) => "diff-line diff-remove",
                    Kind::Hunk => "diff-line diff-hunk",
                    _ => "diff-line",
                };
                self.element("span", class, "diff-line", text);
            }
            self.push("</pre>");
        }
        self.push("</div>\n");
    }

    /// An image whose bytes the transcript holds, as a `data:` URI; else its
    /// name or where it was (never loaded).
    fn image(&mut self, image: &Image) {
        let media_type = image.media_type.as_deref().filter(|t| is_image_type(t));
        match (&image.data, media_type) {
            (Some(data), Some(media_type)) if is_base64(data) => {
                self.push("<img class=\"image\" data-testid=\"image\" alt=\"");
                self.text(media_type);
                self.push(" image\" src=\"data:");
                self.text(&media_type.to_ascii_lowercase());
                self.push(";base64,");
                self.push(&data.split_ascii_whitespace().collect::<String>());
                self.push("\">\n");
            }
            _ => {
                let kind = image.media_type.as_deref().unwrap_or("image");
                let label = match &image.url {
                    Some(url) => format!("[image: {url}]"),
                    None => format!("[{kind}]"),
                };
                self.element("div", "image-link muted", "image-link", &label);
                self.push("\n");
            }
        }
    }
}

/// `image/png`, `image/svg+xml`, …: a media type a `data:` image may have.
fn is_image_type(media_type: &str) -> bool {
    media_type.strip_prefix("image/").is_some_and(|sub| {
        !sub.is_empty() && sub.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-'))
    })
}

/// Whether `data` is base64 (whitespace aside): nothing in it can leave the
/// attribute it is written in.
fn is_base64(data: &str) -> bool {
    !data.trim().is_empty()
        && data.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=') || c.is_ascii_whitespace())
}

/// What a call's input says it does (a command, a path, a query), else its JSON.
fn input_preview(input: &serde_json::Value) -> String {
    if let Some(gist) = sess_sources::input_gist(input) {
        return gist;
    }
    match input {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Object(map) if map.is_empty() => String::new(),
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
