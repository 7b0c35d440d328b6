//! Syntax highlighting of fenced code: a small tokenizer that finds comments,
//! strings, numbers and keywords in Rust, JavaScript/TypeScript, Python,
//! shell, JSON and Go, and the added, removed and header lines of a diff.
//!
//! Each token becomes `<span class="tok-comment">` (`tok-string`,
//! `tok-number`, `tok-keyword`; in a diff `tok-add`, `tok-del`, `tok-hunk`,
//! `tok-meta`); everything is escaped. It is a tokenizer, not a parser: an
//! odd construct is at worst coloured wrong, never lost. Code in a language it
//! does not know is escaped and left plain.

use crate::escape::escape_into;

/// A string delimiter of a language.
struct Quote {
    /// The character that opens and closes it.
    mark: char,
    /// Whether a backslash escapes the next character.
    escapes: bool,
    /// Whether it may run past the end of a line (else an unclosed string
    /// stops there).
    multiline: bool,
}

const fn quote(mark: char, escapes: bool, multiline: bool) -> Quote {
    Quote { mark, escapes, multiline }
}

/// What the tokenizer knows of a language.
struct Grammar {
    line_comments: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    quotes: &'static [Quote],
    /// Python's `"""` and `'''`.
    triple_quotes: bool,
    /// Rust: `'a'` is a character, `'a` a lifetime; `r#"…"#` a raw string.
    rust_literals: bool,
    /// The shell: `#` opens a comment only at the start of a word.
    comment_starts_word: bool,
    keywords: &'static [&'static str],
}

const RUST: Grammar = Grammar {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote('"', true, true)],
    triple_quotes: false,
    rust_literals: true,
    comment_starts_word: false,
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
        "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "yield",
    ],
};

const JAVASCRIPT: Grammar = Grammar {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote('"', true, false), quote('\'', true, false), quote('`', true, true)],
    triple_quotes: false,
    rust_literals: false,
    comment_starts_word: false,
    keywords: &[
        "abstract",
        "as",
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "debugger",
        "declare",
        "default",
        "delete",
        "do",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "implements",
        "import",
        "in",
        "instanceof",
        "interface",
        "keyof",
        "let",
        "namespace",
        "new",
        "null",
        "of",
        "private",
        "protected",
        "public",
        "readonly",
        "return",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "with",
        "yield",
    ],
};

const PYTHON: Grammar = Grammar {
    line_comments: &["#"],
    block_comment: None,
    quotes: &[quote('"', true, false), quote('\'', true, false)],
    triple_quotes: true,
    rust_literals: false,
    comment_starts_word: false,
    keywords: &[
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case", "class", "continue", "def",
        "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
        "match", "nonlocal", "not", "or", "pass", "raise", "return", "self", "try", "while", "with", "yield",
    ],
};

const SHELL: Grammar = Grammar {
    line_comments: &["#"],
    block_comment: None,
    quotes: &[quote('"', true, true), quote('\'', false, true)],
    triple_quotes: false,
    rust_literals: false,
    comment_starts_word: true,
    keywords: &[
        "alias", "break", "case", "cd", "continue", "declare", "do", "done", "echo", "elif", "else", "esac", "exit",
        "export", "fi", "for", "function", "if", "in", "local", "readonly", "return", "set", "shift", "source", "then",
        "unset", "until", "while",
    ],
};

const JSON: Grammar = Grammar {
    line_comments: &[],
    block_comment: None,
    quotes: &[quote('"', true, false)],
    triple_quotes: false,
    rust_literals: false,
    comment_starts_word: false,
    keywords: &["false", "null", "true"],
};

const GO: Grammar = Grammar {
    line_comments: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: &[quote('"', true, false), quote('\'', true, false), quote('`', false, true)],
    triple_quotes: false,
    rust_literals: false,
    comment_starts_word: false,
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "false",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "iota",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
};

/// What a fence's language name (`rust`, `ts`, `bash`, …) is highlighted as.
enum Language {
    Code(&'static Grammar),
    Diff,
}

fn language(name: &str) -> Option<Language> {
    let grammar = match name.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "js" | "javascript" | "jsx" | "mjs" | "cjs" | "ts" | "typescript" | "tsx" | "mts" | "cts" => &JAVASCRIPT,
        "python" | "py" | "python3" | "py3" => &PYTHON,
        "sh" | "bash" | "shell" | "zsh" | "console" | "shellsession" => &SHELL,
        "json" | "jsonc" | "json5" | "jsonl" => &JSON,
        "go" | "golang" => &GO,
        "diff" | "patch" | "udiff" => return Some(Language::Diff),
        _ => return None,
    };
    Some(Language::Code(grammar))
}

/// Appends `code`, escaped, to `out` with its tokens in `tok-…` spans when
/// `language_name` is a language this module knows.
pub(crate) fn highlight_into(out: &mut String, language_name: &str, code: &str) {
    match language(language_name) {
        Some(Language::Code(grammar)) => Tokenizer { grammar, code, out, plain_from: 0 }.run(),
        Some(Language::Diff) => diff_into(out, code),
        None => escape_into(out, code),
    }
}

/// Appends `text` escaped in a span of class `tok-{kind}`.
fn span(out: &mut String, kind: &str, text: &str) {
    out.push_str("<span class=\"tok-");
    out.push_str(kind);
    out.push_str("\">");
    escape_into(out, text);
    out.push_str("</span>");
}

/// A diff, line by line: headers, hunk headers, added and removed lines.
fn diff_into(out: &mut String, code: &str) {
    for line in code.split_inclusive('\n') {
        let header = ["+++", "---", "diff ", "index "].iter().any(|p| line.starts_with(p));
        let kind = if header {
            Some("meta")
        } else if line.starts_with("@@") {
            Some("hunk")
        } else if line.starts_with('+') {
            Some("add")
        } else if line.starts_with('-') {
            Some("del")
        } else {
            None
        };
        // The newline stays outside the span, so a coloured line ends where its text does.
        let (text, newline) = line.strip_suffix('\n').map_or((line, ""), |text| (text, "\n"));
        match kind {
            Some(kind) => span(out, kind, text),
            None => escape_into(out, text),
        }
        out.push_str(newline);
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// One pass over the code of a language.
struct Tokenizer<'a> {
    grammar: &'static Grammar,
    code: &'a str,
    out: &'a mut String,
    /// Where the text not yet written starts.
    plain_from: usize,
}

impl Tokenizer<'_> {
    fn run(mut self) {
        let mut at = 0;
        while let Some(c) = self.code[at..].chars().next() {
            if let Some((end, kind)) = self.token_at(at, c) {
                self.emit(at, end, kind);
                at = end;
            } else if is_ident_start(c) {
                // A whole word, so a number or keyword inside it is not one.
                let end = self.scan_while(at, is_ident);
                if self.grammar.keywords.contains(&&self.code[at..end]) {
                    self.emit(at, end, "keyword");
                }
                at = end;
            } else {
                at += c.len_utf8();
            }
        }
        escape_into(self.out, &self.code[self.plain_from..]);
    }

    /// Writes the plain text before `start`, then `start..end` as a `kind` token.
    fn emit(&mut self, start: usize, end: usize, kind: &str) {
        escape_into(self.out, &self.code[self.plain_from..start]);
        span(self.out, kind, &self.code[start..end]);
        self.plain_from = end;
    }

    /// The first byte after `at` whose character is not `keep`.
    fn scan_while(&self, at: usize, keep: impl Fn(char) -> bool) -> usize {
        self.code[at..].char_indices().find(|&(_, c)| !keep(c)).map_or(self.code.len(), |(i, _)| at + i)
    }

    /// The comment, string or number that starts at `at` (whose character is
    /// `c`): where it ends and its kind.
    fn token_at(&self, at: usize, c: char) -> Option<(usize, &'static str)> {
        let rest = &self.code[at..];
        let grammar = self.grammar;
        if let Some((open, close)) = grammar.block_comment
            && rest.starts_with(open)
        {
            let end = rest[open.len()..].find(close).map_or(self.code.len(), |i| at + open.len() + i + close.len());
            return Some((end, "comment"));
        }
        if grammar.line_comments.iter().any(|p| rest.starts_with(p)) && self.comment_may_start(at) {
            return Some((self.line_end(at), "comment"));
        }
        if grammar.triple_quotes && (rest.starts_with("\"\"\"") || rest.starts_with("'''")) {
            let close = &rest[..3];
            let end = rest[3..].find(close).map_or(self.code.len(), |i| at + 3 + i + 3);
            return Some((end, "string"));
        }
        if grammar.rust_literals {
            if let Some(end) = self.rust_raw_string(at) {
                return Some((end, "string"));
            }
            if c == '\'' {
                return self.rust_char(at).map(|end| (end, "string"));
            }
        }
        if let Some(quote) = grammar.quotes.iter().find(|q| q.mark == c) {
            return Some((self.string_end(at, quote), "string"));
        }
        if c.is_ascii_digit() {
            return Some((self.number_end(at), "number"));
        }
        None
    }

    /// Where the line that `at` is on ends (before its newline).
    fn line_end(&self, at: usize) -> usize {
        self.code[at..].find('\n').map_or(self.code.len(), |i| at + i)
    }

    /// A shell comment starts a word: `#` after a space or at the start of a
    /// line, not in `${#x}` or `a#b`.
    fn comment_may_start(&self, at: usize) -> bool {
        !self.grammar.comment_starts_word
            || self.code[..at].chars().next_back().is_none_or(|c| c.is_whitespace() || c == ';' || c == '(')
    }

    /// The end of the string whose opening `quote` is at `at`: after its
    /// closing mark, or where the text (or, for a one-line string, the line)
    /// ends.
    fn string_end(&self, at: usize, quote: &Quote) -> usize {
        let start = at + quote.mark.len_utf8();
        let mut chars = self.code[start..].char_indices();
        while let Some((i, c)) = chars.next() {
            if quote.escapes && c == '\\' {
                chars.next();
            } else if c == quote.mark {
                return start + i + c.len_utf8();
            } else if c == '\n' && !quote.multiline {
                return start + i;
            }
        }
        self.code.len()
    }

    /// A number: digits, then letters, digits, `_` and a `.` followed by a
    /// digit (`0x1F`, `1_000u32`, `3.14`, `1e9`).
    fn number_end(&self, at: usize) -> usize {
        let bytes = self.code.as_bytes();
        let mut end = at;
        while end < bytes.len() {
            let b = bytes[end];
            let decimal_point = b == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit);
            if b.is_ascii_alphanumeric() || b == b'_' || decimal_point {
                end += 1;
            } else {
                break;
            }
        }
        end
    }

    /// A Rust raw string at `at` (`r"…"`, `r#"…"#`, `br"…"`): its end.
    fn rust_raw_string(&self, at: usize) -> Option<usize> {
        let rest = &self.code[at..];
        let after_r = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
        // `r` must start a word: not the end of `for"` or `bar#`.
        if self.code[..at].chars().next_back().is_some_and(is_ident) {
            return None;
        }
        let hashes = after_r.len() - after_r.trim_start_matches('#').len();
        let body = after_r[hashes..].strip_prefix('"')?;
        let close = format!("\"{}", "#".repeat(hashes));
        let opened = rest.len() - body.len();
        Some(body.find(&close).map_or(self.code.len(), |i| at + opened + i + close.len()))
    }

    /// A Rust character literal at `at` (`'a'`, `'\n'`, `'\u{1F600}'`): its
    /// end; `None` for a lifetime (`'a`, `'static`).
    fn rust_char(&self, at: usize) -> Option<usize> {
        let rest = &self.code[at + 1..];
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        if first == '\\' {
            // An escape: up to the closing quote, within a few characters.
            let close = rest.char_indices().skip(2).take(10).find(|&(_, c)| c == '\'')?;
            return Some(at + 1 + close.0 + 1);
        }
        let (i, second) = chars.next()?;
        (second == '\'').then_some(at + 1 + i + 1)
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn hl(language: &str, code: &str) -> String {
        let mut out = String::new();
        highlight_into(&mut out, language, code);
        out
    }

    #[test]
    fn rust_tokens() {
        assert_eq!(
            hl("rust", "fn main() { let x = 42; // answer\n}"),
            "<span class=\"tok-keyword\">fn</span> main() { <span class=\"tok-keyword\">let</span> x = \
             <span class=\"tok-number\">42</span>; <span class=\"tok-comment\">// answer</span>\n}"
        );
        assert_eq!(
            hl("rs", "/* a\nb */ \"s\\\"q\" 'c' '\\n' &'static str"),
            "<span class=\"tok-comment\">/* a\nb */</span> <span class=\"tok-string\">&quot;s\\&quot;q&quot;</span> \
             <span class=\"tok-string\">&#39;c&#39;</span> <span class=\"tok-string\">&#39;\\n&#39;</span> \
             &amp;&#39;<span class=\"tok-keyword\">static</span> str"
        );
        assert_eq!(
            hl("rust", "r#\"a \"quoted\" b\"# for\"x\""),
            "<span class=\"tok-string\">r#&quot;a &quot;quoted&quot; b&quot;#</span> \
             <span class=\"tok-keyword\">for</span><span class=\"tok-string\">&quot;x&quot;</span>"
        );
        // Words that contain a keyword or digits are not split.
        assert_eq!(hl("rust", "format2 fnord x1"), "format2 fnord x1");
        assert_eq!(
            hl("rust", "0x1F 1_000u32 3.14 1..2"),
            "<span class=\"tok-number\">0x1F</span> <span class=\"tok-number\">1_000u32</span> <span class=\"tok-number\">3.14</span> <span class=\"tok-number\">1</span>..<span class=\"tok-number\">2</span>"
        );
    }

    #[test]
    fn javascript_and_typescript_tokens() {
        assert_eq!(
            hl("ts", "const s = `a ${b}`; // c\nlet t = 'x';"),
            "<span class=\"tok-keyword\">const</span> s = <span class=\"tok-string\">`a ${b}`</span>; \
             <span class=\"tok-comment\">// c</span>\n<span class=\"tok-keyword\">let</span> t = \
             <span class=\"tok-string\">&#39;x&#39;</span>;"
        );
        // An unclosed one-line string stops at the end of its line.
        assert_eq!(
            hl("js", "'open\nreturn 1"),
            "<span class=\"tok-string\">&#39;open</span>\n<span class=\"tok-keyword\">return</span> \
             <span class=\"tok-number\">1</span>"
        );
    }

    #[test]
    fn python_tokens() {
        assert_eq!(
            hl("python", "def f():\n    \"\"\"doc\n    more\"\"\"\n    return None  # nothing"),
            "<span class=\"tok-keyword\">def</span> f():\n    <span class=\"tok-string\">&quot;&quot;&quot;doc\n    \
             more&quot;&quot;&quot;</span>\n    <span class=\"tok-keyword\">return</span> \
             <span class=\"tok-keyword\">None</span>  <span class=\"tok-comment\"># nothing</span>"
        );
    }

    #[test]
    fn shell_tokens() {
        assert_eq!(
            hl("bash", "echo \"$HOME\" 'it''s' # note\nls ${#x} a#b"),
            "<span class=\"tok-keyword\">echo</span> <span class=\"tok-string\">&quot;$HOME&quot;</span> \
             <span class=\"tok-string\">&#39;it&#39;</span><span class=\"tok-string\">&#39;s&#39;</span> \
             <span class=\"tok-comment\"># note</span>\nls ${#x} a#b"
        );
    }

    #[test]
    fn json_and_go_tokens() {
        assert_eq!(
            hl("json", r#"{"a": [1, -2.5e3, true, null]}"#),
            "{<span class=\"tok-string\">&quot;a&quot;</span>: [<span class=\"tok-number\">1</span>, -\
             <span class=\"tok-number\">2.5e3</span>, <span class=\"tok-keyword\">true</span>, \
             <span class=\"tok-keyword\">null</span>]}"
        );
        assert_eq!(
            hl("go", "func f() string { return `raw\n\\n` }"),
            "<span class=\"tok-keyword\">func</span> f() string { <span class=\"tok-keyword\">return</span> \
             <span class=\"tok-string\">`raw\n\\n`</span> }"
        );
    }

    #[test]
    fn diff_lines() {
        assert_eq!(
            hl("diff", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old <b>\n+new\n same"),
            "<span class=\"tok-meta\">--- a/x</span>\n<span class=\"tok-meta\">+++ b/x</span>\n\
             <span class=\"tok-hunk\">@@ -1 +1 @@</span>\n<span class=\"tok-del\">-old &lt;b&gt;</span>\n\
             <span class=\"tok-add\">+new</span>\n same"
        );
    }

    #[test]
    fn unknown_languages_are_escaped_plain_and_nothing_is_lost() {
        assert_eq!(hl("cobol", "<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
        for language in ["rust", "js", "python", "sh", "json", "go", "diff"] {
            for code in ["", "'", "\"", "/*", "r#\"", "'\\", "\"\"\"", "é'ü\u{1F600}", "x = '\\u{", "0.", "#"] {
                let html = hl(language, code);
                let text = html.split('<').map(|part| part.split_once('>').map_or(part, |(_, text)| text));
                let text: String = text.collect();
                let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'");
                assert_eq!(text.replace("&amp;", "&"), code, "{language}: {code:?} → {html}");
            }
        }
    }
}
