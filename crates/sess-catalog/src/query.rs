//! What people type into a search box, as an FTS5 query (SQLite) or a
//! `tsquery` (PostgreSQL).
//!
//! - Words are matched as words, in any order: `login form`.
//! - `"…"` is a phrase: `"fixed the login form"`.
//! - A trailing `*` is a prefix: `migrat*`, `"login fo"*`.
//! - `OR` and `NOT` in capitals between two terms are operators.
//!
//! Everything else is text: punctuation never becomes FTS5 syntax, so no query
//! is a syntax error.

/// The most words a query may have, each counted once: FTS5 ranks and marks
/// every word of the query in every message it reads, so a query of
/// thousands of words would take minutes.
pub const MAX_WORDS: usize = 64;

/// A term of the query, or an operator between two.
#[derive(Debug, PartialEq)]
enum Token {
    Term { text: String, prefix: bool },
    Operator(&'static str),
}

/// The FTS5 query for `input`; `None` when it has no words.
///
/// A term given twice is sent once (`a a` is `a`, `x OR x` is `x`): FTS5's
/// snippets and ranking cost grow with the square of the terms' matches.
pub fn to_fts(input: &str) -> Option<String> {
    fts_query(input, Phrases::Kept)
}

/// [`to_fts`] for an index that keeps no positions (`detail = none`): a
/// phrase becomes its words, all required (`"login" "form"`).
pub(crate) fn to_fts_words(input: &str) -> Option<String> {
    fts_query(input, Phrases::Words)
}

/// `Err` when `input` has more than [`MAX_WORDS`] different words.
pub fn check_words(input: &str) -> crate::Result<()> {
    let mut words: Vec<String> = Vec::new();
    for token in tokenize(input) {
        if let Token::Term { text, .. } = token {
            words.extend(split_words(&text).map(str::to_lowercase));
        }
    }
    words.sort_unstable();
    words.dedup();
    if words.len() > MAX_WORDS {
        return Err(crate::Error::TooManyWords { words: words.len(), max: MAX_WORDS });
    }
    Ok(())
}

/// The runs of letters and digits of `text`: its words as the query keeps them.
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty())
}

/// What a phrase of several words becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phrases {
    Kept,
    Words,
}

/// A query as alternatives (`OR`), each a run of groups of which the first
/// is required and the others excluded (`NOT`), each group terms that are
/// all required: the shape FTS5's precedence gives the query (terms side by
/// side bind tightest, then `NOT`, then `OR`), and `to_tsquery`'s too
/// (where an excluded group is its terms, each excluded).
#[derive(Default)]
struct Shape {
    alternatives: Vec<Vec<Vec<String>>>,
}

impl Shape {
    /// The shape of `tokens`, each term made by `term` (`None`: it has no
    /// words). An operator that is not between two terms is a word.
    fn of(tokens: &[Token], term: impl Fn(&str, bool) -> Option<Vec<String>>) -> Self {
        let mut shape = Self { alternatives: vec![vec![Vec::new()]] };
        for (i, token) in tokens.iter().enumerate() {
            let terms = match token {
                Token::Term { text, prefix } => term(text, *prefix),
                Token::Operator(op) => {
                    let between = i > 0
                        && matches!(tokens.get(i - 1), Some(Token::Term { .. }))
                        && matches!(tokens.get(i + 1), Some(Token::Term { .. }));
                    let waiting = shape.current().is_none_or(|group| group.is_empty());
                    // An operator after one whose right-hand term had no
                    // words (`a OR ** OR b`): that one still waits for it.
                    if between && waiting && shape.pending() {
                        continue;
                    }
                    if between && !waiting {
                        match *op {
                            "OR" => shape.alternatives.push(vec![Vec::new()]),
                            _ => shape.alternatives.last_mut().into_iter().for_each(|a| a.push(Vec::new())),
                        }
                        continue;
                    }
                    term(&op.to_lowercase(), false)
                }
            };
            if let (Some(terms), Some(group)) = (terms, shape.current()) {
                for t in terms {
                    // The same term twice asks nothing more (FTS5 folds case).
                    if !group.iter().any(|g| g.to_lowercase() == t.to_lowercase()) {
                        group.push(t);
                    }
                }
            }
        }
        // Groups and alternatives left without terms (an operator whose
        // right-hand term had no words), and those given twice, go.
        let mut alternatives: Vec<Vec<Vec<String>>> = Vec::new();
        for alternative in shape.alternatives {
            let mut groups: Vec<Vec<String>> = Vec::new();
            for group in alternative {
                if !group.is_empty() && (groups.is_empty() || !groups[1..].contains(&group)) {
                    groups.push(group);
                }
            }
            if !groups.is_empty() && !alternatives.contains(&groups) {
                alternatives.push(groups);
            }
        }
        Self { alternatives }
    }

    /// Whether an operator waits for its right-hand terms.
    fn pending(&self) -> bool {
        self.alternatives.len() > 1 || self.alternatives.first().is_some_and(|a| a.len() > 1)
    }

    /// The group terms are added to now.
    fn current(&mut self) -> Option<&mut Vec<String>> {
        self.alternatives.last_mut().and_then(|a| a.last_mut())
    }

    /// The query, its alternatives joined by `or`, each group's terms by
    /// `and` and groups by `not`; `None` without terms.
    fn render(&self, and: &str, not: &str, or: &str) -> Option<String> {
        let alternatives: Vec<String> = self
            .alternatives
            .iter()
            .map(|groups| groups.iter().map(|g| g.join(and)).collect::<Vec<_>>().join(not))
            .collect();
        (!alternatives.is_empty()).then(|| alternatives.join(or))
    }
}

fn fts_query(input: &str, phrases: Phrases) -> Option<String> {
    let shape = Shape::of(&tokenize(input), |text, prefix| {
        let words: Vec<&str> = split_words(text).collect();
        if words.is_empty() {
            return None;
        }
        let star = if prefix { "*" } else { "" };
        // Terms side by side are FTS5's tightest binding, so a phrase's
        // words need no parentheses (and `(…) "x"` would be a syntax error).
        Some(if phrases == Phrases::Words && words.len() > 1 {
            let last = words.len() - 1;
            words.iter().enumerate().map(|(i, w)| format!("\"{w}\"{}", if i == last { star } else { "" })).collect()
        } else {
            vec![format!("\"{}\"{star}", words.join(" "))]
        })
    });
    shape.render(" ", " NOT ", " OR ")
}

/// The PostgreSQL `tsquery` for `input` (its input form, to cast with
/// `::tsquery`; its words are lowercased runs of letters and digits), with
/// the meaning [`to_fts`] gives it: words are all required, a
/// phrase's words follow each other, `*` makes the last word a prefix, `OR`
/// and `NOT` between two terms are operators; `None` when it has no words.
/// A term given twice is sent once.
pub fn to_tsquery(input: &str) -> Option<String> {
    let shape = Shape::of(&tokenize(input), |text, prefix| term_query(text, prefix).map(|t| vec![t]));
    shape.render(" & ", " & !", " | ")
}

/// One term as a `tsquery`: its words in a row, the last one a prefix when
/// asked; `None` without words.
fn term_query(text: &str, prefix: bool) -> Option<String> {
    let words: Vec<String> = split_words(text).map(|w| format!("'{}'", w.to_lowercase())).collect();
    let mut joined = words.join(" <-> ");
    if joined.is_empty() {
        return None;
    }
    if prefix {
        joined.push_str(":*");
    }
    Some(if words.len() > 1 { format!("({joined})") } else { joined })
}

fn tokenize(input: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut chars = input.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let text: String = chars.by_ref().take_while(|&c| c != '"').collect();
            let prefix = chars.next_if_eq(&'*').is_some();
            tokens.push(Token::Term { text, prefix });
        } else {
            let mut word = String::new();
            while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '"') {
                word.push(c);
            }
            let token = match word.as_str() {
                "OR" => Token::Operator("OR"),
                "NOT" => Token::Operator("NOT"),
                "AND" => continue,
                _ => {
                    let prefix = word.ends_with('*');
                    Token::Term { text: word.trim_end_matches('*').to_owned(), prefix }
                }
            };
            tokens.push(token);
        }
    }
    tokens
}

#[cfg(test)]
mod tests {
    use super::to_fts;

    #[test]
    fn queries_become_fts5_queries() {
        let cases = [
            ("login form", Some(r#""login" "form""#)),
            (r#""fixed the login form""#, Some(r#""fixed the login form""#)),
            ("migrat*", Some(r#""migrat"*"#)),
            (r#""login fo"*"#, Some(r#""login fo"*"#)),
            ("login OR signup", Some(r#""login" OR "signup""#)),
            ("login NOT oauth", Some(r#""login" NOT "oauth""#)),
            ("login AND form", Some(r#""login" "form""#)),
            ("OR login", Some(r#""or" "login""#)),
            ("login OR", Some(r#""login" "or""#)),
            ("login OR **", Some(r#""login""#)),
            ("c++ -v foo:bar", Some(r#""c" "v" "foo bar""#)),
            ("src/login_form.rs", Some(r#""src login form rs""#)),
            (r#"unclosed "quote"#, Some(r#""unclosed" "quote""#)),
            ("日本語 テスト", Some(r#""日本語" "テスト""#)),
            ("", None),
            ("  * ** \"\" ", None),
        ];
        for (input, want) in cases {
            assert_eq!(to_fts(input).as_deref(), want, "{input:?}");
        }
    }

    #[test]
    fn phrases_become_words_for_an_index_without_positions() {
        let cases = [
            ("login form", Some(r#""login" "form""#)),
            (r#""fixed the login""#, Some(r#""fixed" "the" "login""#)),
            (r#""login fo"*"#, Some(r#""login" "fo"*"#)),
            (r#"x NOT "a b""#, Some(r#""x" NOT "a" "b""#)),
            ("src/login_form.rs", Some(r#""src" "login" "form" "rs""#)),
            ("migrat*", Some(r#""migrat"*"#)),
        ];
        for (input, want) in cases {
            assert_eq!(super::to_fts_words(input).as_deref(), want, "{input:?}");
        }
    }

    /// Issue 26, item 11: a group of a phrase's words followed by another
    /// term was an FTS5 syntax error (`NEAR(a b)` gave "SQL logic error").
    #[test]
    fn a_phrase_followed_by_a_term_is_no_syntax_error() {
        let cases = [
            ("NEAR(a b)", Some(r#""NEAR" "a" "b""#)),
            (r#""fixed the" login"#, Some(r#""fixed" "the" "login""#)),
            (r#"x NOT "a b" c"#, Some(r#""x" NOT "a" "b" "c""#)),
        ];
        for (input, want) in cases {
            assert_eq!(super::to_fts_words(input).as_deref(), want, "{input:?}");
        }
    }

    /// Issue 26, item 1: a repeated word was sent to FTS5 once per
    /// repetition, and snippets and ranking cost grew with the square of it.
    #[test]
    fn repeated_terms_are_sent_once() {
        let cases = [
            ("a a a a a a a a", Some(r#""a""#)),
            ("a A a", Some(r#""a""#)),
            ("word OR word OR word OR word OR word OR word", Some(r#""word""#)),
            ("a b a OR b a OR a b", Some(r#""a" "b" OR "b" "a""#)),
            ("x NOT y NOT y", Some(r#""x" NOT "y""#)),
            ("a* a a*", Some(r#""a"* "a""#)),
            (r#""a b" "a b" a"#, Some(r#""a b" "a""#)),
            // Consecutive operators never leave one without its terms.
            ("a OR ** OR b", Some(r#""a" OR "b""#)),
        ];
        for (input, want) in cases {
            assert_eq!(to_fts(input).as_deref(), want, "{input:?}");
        }
        assert_eq!(super::to_tsquery("a a OR a a OR b").as_deref(), Some("'a' | 'b'"));
        assert_eq!(super::to_tsquery("x NOT y NOT y").as_deref(), Some("'x' & !'y'"));
    }

    /// Issue 26, item 1: a query of thousands of words made FTS5 rank and
    /// mark every one of them in every match.
    #[test]
    fn a_query_has_at_most_max_words() {
        let many: Vec<String> = (0..10_000).map(|i| format!("w{i}")).collect();
        let error = super::check_words(&many.join(" ")).unwrap_err();
        assert!(error.to_string().contains("10000 words"), "{error}");
        let phrase = format!("\"{}\"", many[..=super::MAX_WORDS].join(" "));
        assert!(super::check_words(&phrase).is_err(), "a phrase's words count");
        let fine: Vec<&str> = many[..super::MAX_WORDS].iter().map(String::as_str).collect();
        assert!(super::check_words(&fine.join(" ")).is_ok());
        assert!(super::check_words(&"same ".repeat(10_000)).is_ok(), "a repeated word counts once");
    }

    #[test]
    fn queries_become_tsqueries() {
        let cases = [
            ("login form", Some("'login' & 'form'")),
            (r#""fixed the login form""#, Some("('fixed' <-> 'the' <-> 'login' <-> 'form')")),
            ("Migrat*", Some("'migrat':*")),
            (r#""login fo"*"#, Some("('login' <-> 'fo':*)")),
            ("login OR signup", Some("'login' | 'signup'")),
            ("login NOT oauth", Some("'login' & !'oauth'")),
            ("login AND form", Some("'login' & 'form'")),
            ("OR login", Some("'or' & 'login'")),
            ("login OR", Some("'login' & 'or'")),
            ("c++ -v foo:bar", Some("'c' & 'v' & ('foo' <-> 'bar')")),
            ("it's", Some("('it' <-> 's')")),
            ("日本語", Some("'日本語'")),
            ("", None),
            ("  * ** \"\" ", None),
        ];
        for (input, want) in cases {
            assert_eq!(super::to_tsquery(input).as_deref(), want, "{input:?}");
        }
    }
}
