//! The in-memory form of one session file: header, entries, and where each came from.

use crate::entry::Entry;
use crate::header::SessionHeader;
use crate::title::SessionNames;

/// A session as one JSONL file holds it: an optional oh-my-pi title line, the
/// header, and the entries in file order.
#[derive(Clone, Debug, Default)]
pub struct SessionFile {
    title_line: Option<Box<str>>,
    header: Option<SessionHeader>,
    entries: Vec<Entry>,
    lines: Vec<usize>,
}

impl SessionFile {
    /// A session with `header` and no entries.
    pub fn new(header: SessionHeader) -> Self {
        Self { header: Some(header), ..Self::default() }
    }

    /// A session from its parts, as a store holds them (no line numbers).
    pub fn from_entries(header: Option<SessionHeader>, title_line: Option<&str>, entries: Vec<Entry>) -> Self {
        let lines = vec![0; entries.len()];
        Self { title_line: title_line.map(Box::from), header, entries, lines }
    }

    pub(crate) fn from_parts(
        title_line: Option<Box<str>>,
        header: Option<SessionHeader>,
        entries: Vec<Entry>,
        lines: Vec<usize>,
    ) -> Self {
        Self { title_line, header, entries, lines }
    }

    /// The header, if the file has a valid one.
    pub fn header(&self) -> Option<&SessionHeader> {
        self.header.as_ref()
    }

    /// Replaces the header.
    pub fn set_header(&mut self, header: SessionHeader) {
        self.header = Some(header);
    }

    /// oh-my-pi's fixed-width title line before the header, kept for rewrites.
    pub fn title_line(&self) -> Option<&str> {
        self.title_line.as_deref()
    }

    /// The titles the file records (its title slot, its `title_change` and
    /// `session_info` entries, the header's `title`), and so its name.
    pub fn names(&self) -> SessionNames {
        SessionNames::of(self.title_line(), self.header(), &self.entries)
    }

    /// The entries in file (insertion) order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entries, to replace some (the line numbers stay).
    pub fn entries_mut(&mut self) -> &mut [Entry] {
        &mut self.entries
    }

    /// The 1-based line number each entry was read from; 0 for entries that were
    /// not read from a file.
    pub fn entry_lines(&self) -> &[usize] {
        &self.lines
    }

    /// The line number entry `index` was read from.
    pub fn line_of(&self, index: usize) -> usize {
        self.lines.get(index).copied().unwrap_or(0)
    }

    /// Appends an entry that was not read from a file.
    pub fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
        self.lines.push(0);
    }

    /// Takes the entries out, leaving the header.
    pub fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// The whole file as JSONL text: title line, header, entries, each followed by `\n`.
    pub fn to_jsonl(&self) -> String {
        let len = self.title_line.as_ref().map_or(0, |t| t.len() + 1)
            + self.header.as_ref().map_or(0, |h| h.json().len() + 1)
            + self.entries.iter().map(|e| e.json().len() + 1).sum::<usize>();
        let mut out = String::with_capacity(len);
        let lines = self
            .title_line
            .as_deref()
            .into_iter()
            .chain(self.header.as_ref().map(SessionHeader::json))
            .chain(self.entries.iter().map(Entry::json));
        for line in lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}
