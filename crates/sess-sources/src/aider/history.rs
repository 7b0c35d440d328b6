//! The shape of `.aider.chat.history.md`: runs, each a header and the lines
//! Aider appended after it, read as what the user typed, what Aider printed
//! and what the model answered.

/// What starts a run.
pub(crate) const HEADER: &str = "# aider chat started at ";

/// One run of Aider in a chat history: its header line and every line up to
/// the next header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run<'a> {
    /// Where its header line starts in the file.
    pub(crate) offset: usize,
    /// The header's time, as written (local time, no zone).
    pub(crate) started: &'a str,
    /// The run's text, its header line included.
    pub(crate) text: &'a str,
}

impl<'a> Run<'a> {
    /// The run's lines after its header.
    pub(crate) fn body(&self) -> &'a str {
        self.text.split_once('\n').map_or("", |(_, body)| body)
    }
}

/// The runs of a chat history, in file order. Lines before the first header
/// (a blank line) belong to no run.
pub(crate) fn runs(text: &str) -> Vec<Run<'_>> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.starts_with(HEADER) {
            starts.push(at);
        }
        at += line.len();
    }
    let mut runs = Vec::with_capacity(starts.len());
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(text.len());
        let run = &text[start..end];
        let header = run.lines().next().unwrap_or_default();
        runs.push(Run { offset: start, started: header[HEADER.len()..].trim(), text: run });
    }
    runs
}

/// One thing a run's lines say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// What the user typed (`#### ` lines; one per line of a multi-line
    /// input), a prompt or a command.
    Input(String),
    /// What Aider printed (a `> ` line, and the bare lines that continue a
    /// message of several lines).
    Output(String),
    /// What the model answered (the other lines, blank lines inside kept).
    Answer(String),
}

/// The items of a run's `body`, in order.
///
/// Aider ends every line it writes for the user's input and its own output
/// with two spaces (a Markdown line break), and quotes only the first line of
/// a message of several lines: a `> ` line that does not end with two spaces
/// goes on over the bare lines after it, up to the one that does, when that
/// comes before the next `#### ` or `> ` line. Else it is one line, and the
/// bare lines are the model's (as Aider reads its history back).
pub(crate) fn items(body: &str) -> Vec<Item> {
    let lines: Vec<&str> = body.lines().map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
    let mut items = Vec::new();
    let mut answer: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(input) = input_text(line) {
            flush_answer(&mut answer, &mut items);
            let mut text = input.to_owned();
            while let Some(more) = lines.get(i + 1).and_then(|l| input_text(l)) {
                text.push('\n');
                text.push_str(more);
                i += 1;
            }
            items.push(Item::Input(text));
        } else if let Some(output) = output_text(line) {
            flush_answer(&mut answer, &mut items);
            let (text, end) = output_at(&lines, i, output);
            items.push(Item::Output(text));
            i = end;
        } else {
            answer.push(line);
        }
        i += 1;
    }
    flush_answer(&mut answer, &mut items);
    items
}

/// The message of the `> ` line `at` of `lines`, whose text is `first`, and
/// the line it ends on (see [`items`]).
fn output_at(lines: &[&str], at: usize, first: &str) -> (String, usize) {
    if let Some(done) = first.strip_suffix("  ") {
        return (done.trim_end().to_owned(), at);
    }
    let end = (at + 1..lines.len())
        .take_while(|&j| input_text(lines[j]).is_none() && output_text(lines[j]).is_none())
        .find(|&j| lines[j].ends_with("  "));
    let Some(end) = end else { return (first.trim_end().to_owned(), at) };
    let mut text = first.to_owned();
    for more in &lines[at + 1..=end] {
        text.push('\n');
        text.push_str(more);
    }
    (text.trim_end().to_owned(), end)
}

/// The text of a `#### ` line, without its line break.
fn input_text(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("#### ").or_else(|| (line.trim_end() == "####").then_some(""))?;
    Some(rest.strip_suffix("  ").unwrap_or(rest))
}

/// The text of a `> ` line.
fn output_text(line: &str) -> Option<&str> {
    line.strip_prefix("> ").or_else(|| (line.trim_end() == ">").then_some(""))
}

/// The bare lines gathered, as an answer when they hold any text.
fn flush_answer(answer: &mut Vec<&str>, items: &mut Vec<Item>) {
    let text = answer.join("\n");
    answer.clear();
    let text = text.trim_matches(|c| c == '\n' || c == '\r');
    if !text.trim().is_empty() {
        items.push(Item::Answer(text.to_owned()));
    }
}
