//! Answers as compact text for a model's context: one line per session, hit
//! or message part; long texts folded; every answer under a budget, saying
//! what it left out and how to get it.

use sess::meaning::Side;
use std::fmt::Write as _;

use sess::{SearchHit, SessionCard};
use sess_sources::{Block, Message, ToolStatus, Transcript, input_gist};

/// The default budget of an answer, in characters: about 8k tokens.
pub const DEFAULT_MAX_CHARS: usize = 32_000;
/// The smallest budget asked for that is honoured.
const MIN_MAX_CHARS: usize = 1_000;
/// Room kept for the note at the end of an answer.
const NOTE_ROOM: usize = 400;
/// The longest text of one block shown whole.
const MAX_BLOCK: usize = 2_000;
/// The longest tool result shown.
const MAX_RESULT: usize = 300;

/// An answer being written under a budget.
pub(crate) struct Answer {
    text: String,
    max: usize,
}

impl Answer {
    /// An answer of at most `max_chars` characters (default and floor applied).
    pub(crate) fn new(max_chars: Option<usize>) -> Self {
        let max = max_chars.unwrap_or(DEFAULT_MAX_CHARS).max(MIN_MAX_CHARS);
        Self { text: String::new(), max }
    }

    /// Adds `part` when it fits, leaving room for the note; `false` when it
    /// does not (nothing is added).
    pub(crate) fn push(&mut self, part: &str) -> bool {
        if self.text.chars().count() + part.chars().count() + NOTE_ROOM > self.max {
            return false;
        }
        self.text.push_str(part);
        true
    }

    /// Adds as much of `part` as fits (leaving room for the note), then a line
    /// saying how much of it was cut; `false` when not even that line fits
    /// (nothing is added).
    pub(crate) fn push_cut(&mut self, part: &str) -> bool {
        let room = self.max.saturating_sub(self.text.chars().count() + NOTE_ROOM);
        let total = part.chars().count();
        let marker = |cut: usize| {
            format!("\n  … [cut: {cut} more characters of this message; a larger max_chars shows it whole]\n")
        };
        let Some(keep) = room.checked_sub(marker(total).chars().count()) else { return false };
        let keep = keep.min(total);
        self.text.extend(part.chars().take(keep));
        self.text.push_str(&marker(total - keep));
        true
    }

    /// The answer, with `note` (what was left out, and how to get it) at the end.
    pub(crate) fn finish(mut self, note: Option<String>) -> String {
        if let Some(note) = note {
            self.text.push_str(&note);
            self.text.push('\n');
        }
        self.text
    }
}

/// `text` on one line, at most `max` characters, with how much was cut.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    fold(&flat, max)
}

/// `text` cut at `max` characters, saying how many were folded.
fn fold(text: &str, max: usize) -> String {
    let total = text.chars().count();
    if total <= max {
        return text.to_owned();
    }
    let kept: String = text.chars().take(max).collect();
    format!("{kept}… [{} more characters]", total - max)
}

/// A session as one line (and its title on the next).
pub(crate) fn card(card: &SessionCard) -> String {
    let when = sess_core::format_iso_millis(card.modified_ms);
    let when = when.get(..16).unwrap_or(&when).replace('T', " ");
    let mut line = format!(
        "ref {} · {} {} · {} · {} messages · {}",
        card.id,
        card.source.as_str(),
        card.session_id,
        when,
        card.message_count,
        card.cwd.as_deref().unwrap_or("?")
    );
    if let Some(state) = card.state {
        let _ = write!(line, " · {}", state.as_str());
    }
    if let Some(machine) = &card.machine {
        let _ = write!(line, " · machine {machine}");
    }
    if card.original == Some(sess::Original::Deleted) {
        line.push_str(" · deleted by its agent, kept in the archive");
    }
    let title = card.title.as_deref().map_or_else(|| "(untitled)".to_owned(), |t| one_line(t, 160));
    format!("{line}\n  {title}\n")
}

/// A search hit: its session, and where the words are.
pub(crate) fn hit(hit: &SearchHit) -> String {
    let mut snippet = String::new();
    for part in &hit.snippet {
        if part.hit {
            let _ = write!(snippet, "[[{}]]", part.text);
        } else {
            snippet.push_str(&part.text);
        }
    }
    let at = hit.entry_id.as_deref().map(|e| format!("entry {e}, ")).unwrap_or_default();
    let role = hit.role.as_deref().unwrap_or("text");
    // A hit by meaning alone matched no word: its snippet is where the message begins.
    let how = if hit.matched == [Side::Meaning] { " (by meaning)" } else { "" };
    format!("{}  {at}{role}{how}: {}\n", card(&hit.session), one_line(&snippet, 400))
}

/// Message `index` of a transcript, compactly.
pub(crate) fn message(index: usize, message: &Message) -> String {
    let mut out = format!("[{index}] {}", message.role.as_str());
    if let Some(time) = &message.timestamp {
        let _ = write!(out, " {}", time.get(..16).unwrap_or(time));
    }
    if let Some(id) = &message.id {
        let _ = write!(out, " (entry {id})");
    }
    out.push(':');
    for block in &message.blocks {
        out.push_str("\n  ");
        out.push_str(&block_text(block));
    }
    out.push('\n');
    out
}

fn block_text(block: &Block) -> String {
    match block {
        Block::Text { text } => fold(text.trim(), MAX_BLOCK),
        Block::Thinking { text } => format!("(thinking, {} characters, folded)", text.chars().count()),
        Block::ToolCall(call) => {
            let status = match call.status {
                ToolStatus::Succeeded => "ok",
                ToolStatus::Failed => "failed",
                ToolStatus::Running => "running",
                ToolStatus::Pending => "no result",
            };
            let gist = input_gist(&call.input).map(|g| format!(" `{}`", one_line(&g, 200))).unwrap_or_default();
            let mut line = format!("tool {}{gist} → {status}", call.name);
            if let Some(result) = &call.result {
                let _ = write!(line, ": {}", one_line(result, MAX_RESULT));
            }
            if !call.subagent.is_empty() {
                let _ = write!(line, " (a subagent's {} messages)", call.subagent.len());
            }
            line
        }
        Block::Error { text } => format!("error: {}", one_line(text, MAX_BLOCK)),
        Block::Context { title, text } => format!("context {title} ({} characters, folded)", text.chars().count()),
        Block::Summary { text } => format!("summary: {}", fold(text.trim(), MAX_BLOCK)),
        Block::Image(_) => "(image)".to_owned(),
        Block::Unknown { what, .. } => format!("({what})"),
    }
}

/// A window of `transcript` from message `offset`, at most `limit` messages,
/// under the answer's budget: the header, the messages, and a cursor for the
/// next window.
pub(crate) fn window(
    reference: &str,
    card: &SessionCard,
    transcript: &Transcript,
    offset: usize,
    limit: usize,
    mut answer: Answer,
) -> String {
    let total = transcript.messages.len();
    // The state before the count: the line ends with "N messages in all", as it always did.
    let state = card.state.map(|state| format!(" · {}", state.as_str())).unwrap_or_default();
    let header = format!(
        "session ref {reference} · {} {} · {}{state} · {} messages in all\n",
        card.source.as_str(),
        card.session_id,
        card.cwd.as_deref().unwrap_or("?"),
        total
    );
    answer.push(&header);
    let mut next = offset;
    for (index, text) in
        transcript.messages.iter().enumerate().skip(offset).take(limit).map(|(i, m)| (i, message(i, m)))
    {
        if !answer.push(&text) {
            break;
        }
        next = index + 1;
    }
    // A first message larger than the budget is cut, not left out: every
    // answer moves the cursor on, so a client that follows it gets to the end.
    let mut cut = String::new();
    if next == offset && offset < total {
        let shown = answer.push_cut(&message(offset, &transcript.messages[offset]));
        cut = format!(
            "message {offset} was {} to fit max_chars. ",
            if shown { "cut" } else { "left out (not even its start fits)" }
        );
        next = offset + 1;
    }
    let note = if next < total {
        Some(format!(
            "{cut}shown: messages {offset}–{} of {total}. next: read_session {{\"id\": \"{reference}\", \"offset\": {next}}}",
            next.saturating_sub(1)
        ))
    } else if offset >= total {
        Some(format!("no messages from {offset}: the session has {total}"))
    } else {
        Some(format!("{cut}shown: messages {offset}–{} of {total}; that is the end", total - 1))
    };
    answer.finish(note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_folded_and_says_how_much() {
        assert_eq!(fold("abcdef", 4), "abcd… [2 more characters]");
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
    }

    #[test]
    fn an_answer_keeps_to_its_budget() {
        let mut answer = Answer::new(Some(1_000));
        assert!(answer.push(&"x".repeat(500)));
        assert!(!answer.push(&"y".repeat(200)));
        let text = answer.finish(Some("left out: y".to_owned()));
        assert!(text.chars().count() <= 1_000 && text.ends_with("left out: y\n"));
    }
}
