//! The secret rules file (`secrets.toml`): read, checked and compiled.

use regex::Regex;
use serde::Deserialize;

use crate::error::{Error, Result};

/// A rule as the file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    name: String,
    description: String,
    regex: String,
    #[serde(default)]
    ignore: Option<String>,
}

/// The file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    rule: Vec<RawRule>,
}

/// A compiled rule.
#[derive(Clone, Debug)]
pub(super) struct Rule {
    /// The name masks carry: lower-case letters, digits and `-`.
    pub(super) name: String,
    /// What it finds.
    pub(super) description: String,
    pub(super) regex: Regex,
    /// The groups whose names start with `secret`, in order: the first that
    /// took part in a match is the secret; none: the whole match is.
    pub(super) secret_groups: Vec<usize>,
    /// A secret this matches is not one.
    pub(super) ignore: Option<Regex>,
}

/// How big a compiled pattern may grow: far above any rule's, far below what
/// would slow a scan.
pub(super) const SIZE_LIMIT: usize = 16 << 20;

/// The rules of a file in the format of `secrets.toml`, checked: a name
/// each, unique and fit for a mask, and patterns that compile.
pub(super) fn parse(text: &str) -> Result<Vec<Rule>> {
    let file: RawFile = toml::from_str(text)
        .map_err(|e| Error::Rule { rule: "(file)".to_owned(), message: e.to_string().trim_end().to_owned() })?;
    if file.rule.is_empty() {
        return Err(Error::Rule { rule: "(file)".to_owned(), message: "the file has no [[rule]]".to_owned() });
    }
    let mut rules: Vec<Rule> = Vec::with_capacity(file.rule.len());
    for raw in file.rule {
        let fail = |message: String| Error::Rule { rule: raw.name.clone(), message };
        if raw.name.is_empty() || !raw.name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return Err(fail("a name is lower-case letters, digits and `-`".to_owned()));
        }
        if rules.iter().any(|r| r.name == raw.name) {
            return Err(fail("two rules have this name".to_owned()));
        }
        if raw.description.trim().is_empty() {
            return Err(fail("the description is empty".to_owned()));
        }
        let regex = compile(&raw.regex).map_err(|e| fail(format!("regex: {e}")))?;
        if regex.is_match("") {
            return Err(fail("the regex matches an empty text".to_owned()));
        }
        let ignore = raw.ignore.as_deref().map(compile).transpose().map_err(|e| fail(format!("ignore: {e}")))?;
        let secret_groups = regex
            .capture_names()
            .enumerate()
            .filter(|(_, name)| name.is_some_and(|n| n.starts_with("secret")))
            .map(|(index, _)| index)
            .collect();
        rules.push(Rule { name: raw.name, description: raw.description, regex, secret_groups, ignore });
    }
    Ok(rules)
}

fn compile(pattern: &str) -> std::result::Result<Regex, regex::Error> {
    regex::RegexBuilder::new(pattern).size_limit(SIZE_LIMIT).build()
}
