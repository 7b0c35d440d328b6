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

/// A term of the query, or an operator between two.
#[derive(Debug, PartialEq)]
enum Token {
    Term { text: String, prefix: bool },
    Operator(&'static str),
}

/// The FTS5 query for `input`; `None` when it has no words.
pub fn to_fts(input: &str) -> Option<String> {
    fts_query(input, Phrases::Kept)
}

/// [`to_fts`] for an index that keeps no positions (`detail = none`): a
/// phrase becomes its words, all required (`("login" "form")`).
pub(crate) fn to_fts_words(input: &str) -> Option<String> {
    fts_query(input, Phrases::Words)
}

/// What a phrase of several words becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phrases {
    Kept,
    Words,
}

fn fts_query(input: &str, phrases: Phrases) -> Option<String> {
    let tokens = tokenize(input);
    let mut out: Vec<String> = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Term { text, prefix } => {
                let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
                if words.is_empty() {
                    continue;
                }
                let star = if *prefix { "*" } else { "" };
                if phrases == Phrases::Words && words.len() > 1 {
                    let last = words.len() - 1;
                    let words: Vec<String> = words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| format!("\"{w}\"{}", if i == last { star } else { "" }))
                        .collect();
                    out.push(format!("({})", words.join(" ")));
                } else {
                    out.push(format!("\"{}\"{star}", words.join(" ")));
                }
            }
            Token::Operator(op) => {
                let between = i > 0
                    && matches!(tokens.get(i - 1), Some(Token::Term { .. }))
                    && matches!(tokens.get(i + 1), Some(Token::Term { .. }))
                    && !out.is_empty();
                if between {
                    out.push((*op).to_owned());
                } else {
                    out.push(format!("\"{}\"", op.to_lowercase()));
                }
            }
        }
    }
    // An operator whose right-hand term had no words would dangle.
    while out.last().is_some_and(|t| t == "OR" || t == "NOT") {
        out.pop();
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// The PostgreSQL `tsquery` for `input` (its input form, to cast with
/// `::tsquery`; its words are lowercased runs of letters and digits), with
/// the meaning [`to_fts`] gives it: words are all required, a
/// phrase's words follow each other, `*` makes the last word a prefix, `OR`
/// and `NOT` between two terms are operators; `None` when it has no words.
pub fn to_tsquery(input: &str) -> Option<String> {
    let tokens = tokenize(input);
    let mut out = String::new();
    let mut pending: Option<&str> = None;
    for (i, token) in tokens.iter().enumerate() {
        let term = match token {
            Token::Term { text, prefix } => term_query(text, *prefix),
            Token::Operator(op) => {
                let between = i > 0
                    && matches!(tokens.get(i - 1), Some(Token::Term { .. }))
                    && matches!(tokens.get(i + 1), Some(Token::Term { .. }))
                    && !out.is_empty();
                if between {
                    pending = Some(if *op == "OR" { " | " } else { " & !" });
                    continue;
                }
                term_query(&op.to_lowercase(), false)
            }
        };
        let Some(term) = term else { continue };
        if !out.is_empty() {
            out.push_str(pending.take().unwrap_or(" & "));
        }
        pending = None;
        out.push_str(&term);
    }
    (!out.is_empty()).then_some(out)
}

/// One term as a `tsquery`: its words in a row, the last one a prefix when
/// asked; `None` without words.
fn term_query(text: &str, prefix: bool) -> Option<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| format!("'{}'", w.to_lowercase()))
        .collect();
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
            (r#""fixed the login""#, Some(r#"("fixed" "the" "login")"#)),
            (r#""login fo"*"#, Some(r#"("login" "fo"*)"#)),
            (r#"x NOT "a b""#, Some(r#""x" NOT ("a" "b")"#)),
            ("src/login_form.rs", Some(r#"("src" "login" "form" "rs")"#)),
            ("migrat*", Some(r#""migrat"*"#)),
        ];
        for (input, want) in cases {
            assert_eq!(super::to_fts_words(input).as_deref(), want, "{input:?}");
        }
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
