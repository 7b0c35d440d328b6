//! Markdown as safe HTML: what the page shows for a message and what the HTML
//! export embeds.
//!
//! `CommonMark` with tables, strikethrough and task lists, parsed by
//! `pulldown-cmark`; every tag is written here, so nothing in a message
//! reaches the output as markup of its own:
//!
//! - raw HTML, block or inline, is shown as text (escaped);
//! - a link is a link only to `http:`, `https:` or `mailto:` (an e-mail
//!   autolink gets `mailto:`), and opens in a new tab with
//!   `rel="noopener noreferrer"`; any other destination (`javascript:`,
//!   `data:`, a relative path) leaves its text, with the destination in a
//!   `title`;
//! - an image is never loaded: it becomes a link to it (same rule), or its
//!   alt text;
//! - fenced code is highlighted ([`crate::highlight`]): `tok-…` spans;
//! - a line break inside a paragraph is kept (`<br>`), as chat messages are
//!   written;
//! - no `style` or `id` attribute is written (table alignment is a class), so
//!   a strict Content-Security-Policy applies as is and nothing clobbers the
//!   page's own ids.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

use crate::escape::escape_into;
use crate::highlight::highlight_into;

/// The schemes a link may have.
const SCHEMES: [&str; 3] = ["http://", "https://", "mailto:"];

/// `markdown` rendered as HTML that is safe to insert into a page (see the
/// module's documentation).
///
/// ```
/// let html = sess_export::to_html("**Done**: see <https://example.com> <script>x</script>");
/// assert_eq!(
///     html,
///     "<p><strong>Done</strong>: see <a class=\"md-link\" href=\"https://example.com\" \
///      rel=\"noopener noreferrer\" target=\"_blank\">https://example.com</a> &lt;script&gt;x&lt;/script&gt;</p>\n"
/// );
/// ```
pub fn to_html(markdown: &str) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut writer = Writer { out: String::with_capacity(markdown.len() * 3 / 2), ..Writer::default() };
    for event in Parser::new_ext(markdown, options) {
        writer.event(event);
    }
    writer.out
}

/// How a link or image was opened, so its end closes it the same way.
enum Opened {
    /// As `<a …>`.
    Anchor,
    /// As text in a `<span>`.
    Text,
}

/// A table being written.
#[derive(Default)]
struct Table {
    alignments: Vec<Alignment>,
    in_head: bool,
    column: usize,
}

/// A fenced or indented code block being collected.
struct Code {
    language: String,
    text: String,
}

#[derive(Default)]
struct Writer {
    out: String,
    /// The links and images open, innermost last.
    links: Vec<Opened>,
    table: Option<Table>,
    code: Option<Code>,
}

impl Writer {
    fn push(&mut self, html: &str) {
        self.out.push_str(html);
    }

    fn text(&mut self, text: &str) {
        match &mut self.code {
            Some(code) => code.text.push_str(text),
            None => escape_into(&mut self.out, text),
        }
    }

    /// Whether an `<a>` is open: a link inside it (an image in a link, the
    /// usual badge) is written as text, as anchors do not nest.
    fn in_anchor(&self) -> bool {
        self.links.iter().any(|l| matches!(l, Opened::Anchor))
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                self.push("<code>");
                escape_into(&mut self.out, &code);
                self.push("</code>");
            }
            // Math is not enabled; were it, it would stay as written.
            Event::InlineMath(math) => self.text(&format!("${math}$")),
            Event::DisplayMath(math) => self.text(&format!("$${math}$$")),
            // Raw HTML is text.
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::FootnoteReference(label) => self.text(&format!("[^{label}]")),
            Event::SoftBreak | Event::HardBreak => self.push("<br>\n"),
            Event::Rule => self.push("<hr>\n"),
            Event::TaskListMarker(done) => {
                self.push(if done {
                    "<span class=\"md-task md-done\">☑</span> "
                } else {
                    "<span class=\"md-task\">☐</span> "
                });
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.push("<p>"),
            Tag::Heading { level, .. } => {
                self.push("<");
                self.push(heading(level));
                self.push(">");
            }
            Tag::BlockQuote(_) => self.push("<blockquote>\n"),
            Tag::CodeBlock(kind) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => fence_language(&info),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(Code { language, text: String::new() });
            }
            Tag::HtmlBlock => self.push("<p class=\"md-html\">"),
            Tag::List(Some(1)) => self.push("<ol>\n"),
            Tag::List(Some(start)) => self.push(&format!("<ol start=\"{start}\">\n")),
            Tag::List(None) => self.push("<ul>\n"),
            Tag::Item => self.push("<li>"),
            Tag::FootnoteDefinition(label) => {
                self.push("<div class=\"md-footnote\">");
                self.text(&format!("[^{label}]: "));
            }
            Tag::DefinitionList => self.push("<dl>\n"),
            Tag::DefinitionListTitle => self.push("<dt>"),
            Tag::DefinitionListDefinition => self.push("<dd>"),
            Tag::Table(alignments) => {
                self.table = Some(Table { alignments, ..Table::default() });
                self.push("<div class=\"md-table\"><table>\n");
            }
            Tag::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_head = true;
                    table.column = 0;
                }
                self.push("<thead><tr>");
            }
            Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.column = 0;
                }
                self.push("<tr>");
            }
            Tag::TableCell => self.cell_start(),
            Tag::Emphasis => self.push("<em>"),
            Tag::Strong => self.push("<strong>"),
            Tag::Strikethrough => self.push("<del>"),
            Tag::Superscript => self.push("<sup>"),
            Tag::Subscript => self.push("<sub>"),
            Tag::Link { link_type, dest_url, title, .. } => self.link_start(link_type, &dest_url, &title, "md-link"),
            Tag::Image { link_type, dest_url, title, .. } => {
                self.link_start(link_type, &dest_url, &title, "md-image");
                self.push("[image: ");
            }
            Tag::MetadataBlock(_) => self.push("<pre class=\"md-metadata\">"),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.push("</p>\n"),
            TagEnd::Heading(level) => {
                self.push("</");
                self.push(heading(level));
                self.push(">\n");
            }
            TagEnd::BlockQuote(_) => self.push("</blockquote>\n"),
            TagEnd::CodeBlock => self.code_end(),
            TagEnd::List(true) => self.push("</ol>\n"),
            TagEnd::List(false) => self.push("</ul>\n"),
            TagEnd::Item => self.push("</li>\n"),
            TagEnd::FootnoteDefinition => self.push("</div>\n"),
            TagEnd::DefinitionList => self.push("</dl>\n"),
            TagEnd::DefinitionListTitle => self.push("</dt>\n"),
            TagEnd::DefinitionListDefinition => self.push("</dd>\n"),
            TagEnd::Table => {
                self.table = None;
                self.push("</tbody></table></div>\n");
            }
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.in_head = false;
                }
                self.push("</tr></thead>\n<tbody>\n");
            }
            TagEnd::TableRow => self.push("</tr>\n"),
            TagEnd::TableCell => {
                let head = self.table.as_ref().is_some_and(|t| t.in_head);
                if let Some(table) = &mut self.table {
                    table.column += 1;
                }
                self.push(if head { "</th>" } else { "</td>" });
            }
            TagEnd::Emphasis => self.push("</em>"),
            TagEnd::Strong => self.push("</strong>"),
            TagEnd::Strikethrough => self.push("</del>"),
            TagEnd::Superscript => self.push("</sup>"),
            TagEnd::Subscript => self.push("</sub>"),
            TagEnd::Link => self.link_end(),
            TagEnd::Image => {
                self.push("]");
                self.link_end();
            }
            TagEnd::MetadataBlock(_) => self.push("</pre>\n"),
        }
    }

    fn cell_start(&mut self) {
        let (head, alignment) = match &self.table {
            Some(table) => (table.in_head, table.alignments.get(table.column).copied().unwrap_or(Alignment::None)),
            None => (false, Alignment::None),
        };
        self.push(if head { "<th" } else { "<td" });
        match alignment {
            Alignment::None => {}
            Alignment::Left => self.push(" class=\"md-left\""),
            Alignment::Center => self.push(" class=\"md-center\""),
            Alignment::Right => self.push(" class=\"md-right\""),
        }
        self.push(">");
    }

    /// Opens a link or an image (`class`): an anchor when its destination is
    /// allowed and no anchor is open, else a span whose title says where it
    /// pointed.
    fn link_start(&mut self, link_type: LinkType, destination: &str, title: &str, class: &str) {
        let href = if self.in_anchor() { None } else { allowed_href(link_type, destination) };
        if let Some(href) = href {
            self.push("<a class=\"");
            self.push(class);
            self.push("\" href=\"");
            escape_into(&mut self.out, &href);
            self.push("\"");
            if !title.is_empty() {
                self.push(" title=\"");
                escape_into(&mut self.out, title);
                self.push("\"");
            }
            self.push(" rel=\"noopener noreferrer\" target=\"_blank\">");
            self.links.push(Opened::Anchor);
        } else {
            self.push("<span class=\"");
            self.push(class);
            self.push(" md-off\"");
            let said = if title.is_empty() { destination.to_owned() } else { format!("{destination} ({title})") };
            if !said.is_empty() {
                self.push(" title=\"");
                escape_into(&mut self.out, &said);
                self.push("\"");
            }
            self.push(">");
            self.links.push(Opened::Text);
        }
    }

    fn link_end(&mut self) {
        match self.links.pop() {
            Some(Opened::Anchor) => self.push("</a>"),
            Some(Opened::Text) | None => self.push("</span>"),
        }
    }

    fn code_end(&mut self) {
        let Some(code) = self.code.take() else { return };
        self.push("<pre class=\"md-code\"><code");
        if !code.language.is_empty() {
            self.push(" class=\"language-");
            self.push(&code.language);
            self.push("\"");
        }
        self.push(">");
        highlight_into(&mut self.out, &code.language, &code.text);
        self.push("</code></pre>\n");
    }
}

fn heading(level: HeadingLevel) -> &'static str {
    match level {
        HeadingLevel::H1 => "h1",
        HeadingLevel::H2 => "h2",
        HeadingLevel::H3 => "h3",
        HeadingLevel::H4 => "h4",
        HeadingLevel::H5 => "h5",
        HeadingLevel::H6 => "h6",
    }
}

/// The language a fence names (` ```rust,ignore ` → `rust`), lowercase and
/// only of the characters a class name needs; empty when it names none.
fn fence_language(info: &str) -> String {
    let word = info.split(|c: char| c.is_whitespace() || c == ',' || c == '{').next().unwrap_or_default();
    word.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '#' | '.'))
        .take(32)
        .collect::<String>()
        .to_ascii_lowercase()
}

/// The `href` of a link whose destination is allowed: `http:`, `https:` or
/// `mailto:` (an e-mail autolink's address gets `mailto:`), with no
/// whitespace or control character in it. `None` for anything else.
fn allowed_href(link_type: LinkType, destination: &str) -> Option<String> {
    let href =
        if link_type == LinkType::Email { format!("mailto:{destination}") } else { destination.trim().to_owned() };
    if href.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let lower = href.to_ascii_lowercase();
    SCHEMES.iter().any(|scheme| lower.starts_with(scheme) && lower.len() > scheme.len()).then_some(href)
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
