//! A run's items as chat messages, its token lines as model calls, and the
//! SEARCH/REPLACE blocks of the model's answers as edit calls.

use serde_json::json;

use super::history::Item;
use crate::edit::{FileEdit, text};
use crate::transcript::{Block, Message, Role, ToolCall, ToolStatus};
use crate::usage::Call;

/// The name of the calls made of SEARCH/REPLACE blocks.
pub(crate) const EDIT: &str = "edit";
/// The name of the calls made of `/run` commands.
pub(crate) const RUN: &str = "run";
/// The title of the context blocks that hold Aider's own output.
const AIDER: &str = "Aider";

/// What a run says.
#[derive(Debug, Default)]
pub(crate) struct Converted {
    pub(crate) messages: Vec<Message>,
    /// The model calls of its `Tokens:` lines.
    pub(crate) usage: Vec<Call>,
    /// The folder Aider ran in, as it printed it.
    pub(crate) cwd: Option<String>,
    /// Whether it restored the conversation of the runs before it.
    pub(crate) restored: bool,
}

/// The messages and calls of a run's `items`; the first message and every
/// call are dated `started` (the run's only time).
pub(crate) fn convert(items: &[Item], started: Option<&str>) -> Converted {
    let mut run = Builder { started: started.map(ToOwned::to_owned), ..Builder::default() };
    for item in items {
        match item {
            Item::Input(text) => run.input(text),
            Item::Answer(text) => run.answer(text),
            Item::Output(text) => run.output(text),
        }
    }
    run.finish()
}

#[derive(Default)]
struct Builder {
    started: Option<String>,
    opening: Vec<String>,
    messages: Vec<Message>,
    current: Option<Message>,
    /// Whether `current` is a `/run` whose output follows.
    running: bool,
    usage: Vec<Call>,
    model: Option<String>,
    git_dir: Option<String>,
    cur_dir: Option<String>,
    restored: bool,
    seen_input: bool,
    calls: usize,
}

impl Builder {
    fn input(&mut self, text: &str) {
        self.flush();
        self.seen_input = true;
        let command = text.strip_prefix("/run ").or_else(|| text.strip_prefix('!')).map(str::trim);
        self.running = command.is_some();
        self.current = Some(match command {
            Some(command) => {
                let mut call = ToolCall::running(self.call_id(RUN), RUN, json!({ "command": command }));
                call.status = ToolStatus::Succeeded;
                Message::new(Role::User).with(Block::ToolCall(call))
            }
            None => Message::new(Role::User).with(Block::text(text)),
        });
    }

    fn answer(&mut self, text: &str) {
        self.flush();
        self.running = false;
        let mut message = Message::new(Role::Assistant);
        message.blocks = answer_blocks(text, &mut || self.calls_next());
        self.current = Some(message);
    }

    fn output(&mut self, text: &str) {
        if let Some(rest) = text.strip_prefix("Model: ").or_else(|| text.strip_prefix("Main model: ")) {
            self.model = Some(rest.split(" with ").next().unwrap_or(rest).trim().to_owned());
        } else if let Some(dir) = text.strip_prefix("Git working dir: ") {
            self.git_dir = Some(dir.trim().to_owned());
        } else if let Some(dir) = text.strip_prefix("Cur working dir: ") {
            self.cur_dir = Some(dir.trim().to_owned());
        } else if text == "Restored previous conversation history." {
            self.restored = true;
        }
        if let Some(call) = tokens_call(text, self.model.as_deref(), self.started.as_deref()) {
            self.usage.push(call);
            return;
        }
        if !self.seen_input {
            self.opening.push(text.to_owned());
            return;
        }
        if let Some(file) = text.strip_prefix("Applied edit to ") {
            self.settle(|call| text_of(call, "path") == Some(file.trim()), ToolStatus::Succeeded, text);
            return;
        }
        if failed_match(text) {
            let any = self.edits_running().any(|call| text_of(call, "search").is_some_and(|s| report_names(text, s)));
            self.settle(
                |call| !any || text_of(call, "search").is_some_and(|s| report_names(text, s)),
                ToolStatus::Failed,
                text,
            );
            if text.contains("applied successfully") {
                self.settle(|_| true, ToolStatus::Succeeded, "applied, as the report of the blocks that failed says");
            }
            return;
        }
        if self.running
            && let Some(Block::ToolCall(call)) = self.current.as_mut().and_then(|m| m.blocks.last_mut())
        {
            let result = call.result.get_or_insert_with(String::new);
            if !result.is_empty() {
                result.push('\n');
            }
            result.push_str(text);
            return;
        }
        let message = self.current.get_or_insert_with(|| Message::new(Role::System));
        if is_error(text) {
            message.blocks.push(Block::Error { text: text.to_owned() });
            return;
        }
        if let Some(Block::Context { title, text: context }) = message.blocks.last_mut()
            && title.as_str() == AIDER
        {
            context.push('\n');
            context.push_str(text);
            return;
        }
        message.blocks.push(Block::Context { title: AIDER.to_owned(), text: text.to_owned() });
    }

    /// The edit calls still running, in the messages and the current one.
    fn edits_running(&self) -> impl Iterator<Item = &ToolCall> {
        self.messages.iter().chain(&self.current).flat_map(|m| &m.blocks).filter_map(|b| match b {
            Block::ToolCall(call) if call.name == EDIT && call.status == ToolStatus::Running => Some(call),
            _ => None,
        })
    }

    /// Completes the running edit calls `which` picks with `status`.
    fn settle(&mut self, which: impl Fn(&ToolCall) -> bool, status: ToolStatus, result: &str) {
        for message in self.messages.iter_mut().chain(&mut self.current) {
            for block in &mut message.blocks {
                if let Block::ToolCall(call) = block
                    && call.name == EDIT
                    && call.status == ToolStatus::Running
                    && which(call)
                {
                    call.complete(Some(result.to_owned()), status == ToolStatus::Failed, None);
                }
            }
        }
    }

    fn flush(&mut self) {
        if let Some(message) = self.current.take() {
            self.messages.push(message);
        }
        self.running = false;
    }

    fn calls_next(&mut self) -> usize {
        self.calls += 1;
        self.calls
    }

    fn call_id(&mut self, kind: &str) -> String {
        format!("{kind}-{}", self.calls_next())
    }

    fn finish(mut self) -> Converted {
        self.flush();
        let mut messages = Vec::with_capacity(self.messages.len() + 1);
        if !self.opening.is_empty() {
            let text = self.opening.join("\n");
            messages.push(Message::new(Role::System).with(Block::Context { title: AIDER.to_owned(), text }));
        }
        messages.append(&mut self.messages);
        // An edit no line settled: the run ended before Aider said.
        for block in messages.iter_mut().flat_map(|m| &mut m.blocks) {
            if let Block::ToolCall(call) = block
                && call.status == ToolStatus::Running
            {
                call.status = ToolStatus::Pending;
            }
        }
        if let Some(first) = messages.first_mut() {
            first.timestamp.clone_from(&self.started);
        }
        Converted { messages, usage: self.usage, cwd: self.cur_dir.or(self.git_dir), restored: self.restored }
    }
}

/// The string field `key` of an edit call's input.
fn text_of<'a>(call: &'a ToolCall, key: &str) -> Option<&'a str> {
    text(&call.input, key)
}

/// Whether Aider's report of blocks that did not apply shows the SEARCH text
/// `search`.
fn report_names(report: &str, search: &str) -> bool {
    !search.is_empty() && report.contains(search)
}

/// Aider's report of SEARCH/REPLACE blocks that did not apply:
/// `# 1 SEARCH/REPLACE block failed to match!`.
fn failed_match(text: &str) -> bool {
    text.starts_with("# ")
        && text.lines().next().is_some_and(|l| l.contains("SEARCH/REPLACE block") && l.contains("failed"))
}

/// Whether a line of Aider's is an error it reported (Aider writes errors
/// and other output alike; these are its error messages' shapes).
fn is_error(text: &str) -> bool {
    text.starts_with("The LLM did not conform to the edit format")
        || text.starts_with("Unable to ")
        || text.starts_with("Error")
        || text.starts_with("litellm.")
        || text.contains("Error: ")
        || text.contains("Exception: ")
}

/// The model call of a `Tokens: 2.4k sent, 1.2k cache write, 3k cache hit, 6
/// received. Cost: $0.01 message, $0.02 session.` line: `sent` counts the
/// cache reads and writes, which are taken out of the input.
fn tokens_call(text: &str, model: Option<&str>, started: Option<&str>) -> Option<Call> {
    let rest = text.strip_prefix("Tokens: ")?;
    let (counts, cost) = match rest.split_once(" Cost: ") {
        Some((counts, cost)) => (counts, Some(cost)),
        None => (rest, None),
    };
    let mut call =
        Call { model: model.map(ToOwned::to_owned), timestamp: started.map(ToOwned::to_owned), ..Call::default() };
    let mut sent = 0;
    for part in counts.trim_end_matches('.').split(", ") {
        let (count, what) = part.trim().split_once(' ')?;
        let count = count_of(count)?;
        match what {
            "sent" => sent = count,
            "received" => call.output = count,
            "cache write" => call.cache_creation = count,
            "cache hit" => call.cache_read = count,
            _ => call.not_counts.push(format!("{what} {count}")),
        }
    }
    call.input = sent.saturating_sub(call.cache_read).saturating_sub(call.cache_creation);
    call.cost = cost
        .and_then(|c| c.trim().strip_prefix('$'))
        .and_then(|c| c.split(' ').next())
        .and_then(|c| c.replace(',', "").parse::<f64>().ok());
    Some(call)
}

/// A count as Aider prints it: `6`, `2.4k`, `12k`, `1.2M`.
// Counts are whole and far below 2^53: the cast loses nothing.
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
fn count_of(text: &str) -> Option<u64> {
    let (number, scale) = match text.strip_suffix('k') {
        Some(n) => (n, 1e3),
        None => match text.strip_suffix('M') {
            Some(n) => (n, 1e6),
            None => (text, 1.0),
        },
    };
    let value: f64 = number.replace(',', "").parse().ok()?;
    (value.is_finite() && value >= 0.0).then(|| (value * scale).round() as u64)
}

/// Whether `line` is a SEARCH/REPLACE marker: 5 to 9 `c`, then `word` (none
/// for the divider).
fn marker(line: &str, c: char, word: &str) -> bool {
    let line = line.trim_end();
    let run = line.chars().take_while(|&x| x == c).count();
    (5..=9).contains(&run) && line[run..].trim_start() == word && (word.is_empty() || line[run..].starts_with(' '))
}

fn is_fence(line: &str) -> bool {
    line.trim_start().starts_with("```")
}

/// A file name as the model wrote it above a block: trimmed of Markdown
/// emphasis, backticks, a heading's `#` and a trailing colon.
fn file_name(line: &str) -> Option<String> {
    let name =
        line.trim().trim_start_matches('#').trim().trim_matches(|c| c == '*' || c == '`').trim_end_matches(':').trim();
    (!name.is_empty() && !is_fence(name)).then(|| name.to_owned())
}

/// An answer's text as blocks: its prose, and each SEARCH/REPLACE block as an
/// edit call of the file named above it (or of the block before it), with
/// `search` and `replace` as its input; running until Aider says whether it
/// applied.
fn answer_blocks(text: &str, next: &mut dyn FnMut() -> usize) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut blocks = Vec::new();
    let mut prose: Vec<&str> = Vec::new();
    let mut file: Option<String> = None;
    let mut fenced = false;
    let mut i = 0;
    while i < lines.len() {
        let Some((search, replace, end)) = block_at(&lines, i) else {
            if fenced && is_fence(lines[i]) {
                fenced = false;
            } else {
                prose.push(lines[i]);
            }
            i += 1;
            continue;
        };
        if prose.last().is_some_and(|l| is_fence(l)) {
            prose.pop();
            fenced = true;
        }
        if let Some(name) = prose.last().and_then(|l| file_name(l)) {
            prose.pop();
            file = Some(name);
        }
        push_text(&mut blocks, &mut prose);
        let input = json!({ "path": file.clone().unwrap_or_default(), "search": search, "replace": replace });
        blocks.push(Block::ToolCall(ToolCall::running(format!("{EDIT}-{}", next()), EDIT, input)));
        i = end + 1;
    }
    push_text(&mut blocks, &mut prose);
    blocks
}

/// The SEARCH and REPLACE texts of a block whose SEARCH marker is line `at`,
/// and the line of its REPLACE marker.
fn block_at(lines: &[&str], at: usize) -> Option<(String, String, usize)> {
    if !marker(lines[at], '<', "SEARCH") {
        return None;
    }
    let divider = (at + 1..lines.len()).find(|&j| marker(lines[j], '=', ""))?;
    let end = (divider + 1..lines.len()).find(|&j| marker(lines[j], '>', "REPLACE"))?;
    let joined = |from: usize, to: usize| {
        let mut text = lines[from..to].join("\n");
        if to > from {
            text.push('\n');
        }
        text
    };
    Some((joined(at + 1, divider), joined(divider + 1, end), end))
}

/// The prose gathered, as a text block when it holds any text.
fn push_text(blocks: &mut Vec<Block>, prose: &mut Vec<&str>) {
    let text = prose.join("\n");
    prose.clear();
    let text = text.trim_matches('\n');
    if !text.trim().is_empty() {
        blocks.push(Block::text(text));
    }
}

/// What an edit call changes: SEARCH replaced by REPLACE in its file; an
/// empty SEARCH writes a new file.
pub(crate) fn edits(call: &ToolCall) -> Vec<FileEdit> {
    if call.name != EDIT {
        return Vec::new();
    }
    let (Some(path), Some(search), Some(replace)) =
        (text_of(call, "path"), text_of(call, "search"), text_of(call, "replace"))
    else {
        return Vec::new();
    };
    if path.is_empty() {
        return Vec::new();
    }
    if search.is_empty() {
        return vec![FileEdit::write(path, replace)];
    }
    vec![FileEdit::replace(path, search, replace, false)]
}
