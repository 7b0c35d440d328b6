//! Secrets in a session: found by the rules of `secrets.toml` (API keys,
//! tokens, private keys, passwords) and masked before a session leaves the
//! machine.
//!
//! A [`Redactor`] holds the rules compiled once. [`Redactor::find`] gives
//! where the secrets of a text are, overlapping ones merged;
//! [`Redactor::redact`] replaces each with a mask that keeps its first
//! characters (at most 4, never more than a quarter of it) and the name of the
//! rule, `sk-p…[redacted openai-key]`; [`Redactor::redact_transcript`] does that
//! to every text of a transcript.

mod rules;
mod walk;

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{RegexSet, RegexSetBuilder};
use serde::Serialize;
use sess_sources::{Message, Transcript};

use crate::error::Result;
use rules::Rule;

/// The rules `sess` bundles.
const BUNDLED: &str = include_str!("secrets.toml");

/// What every mask holds after the kept characters: a secret that holds it is
/// a mask already, and is not found again.
const MASK_MARK: &str = "…[redacted ";

/// The most characters of a secret a mask keeps.
const MAX_KEPT: usize = 4;

/// How many characters of context an excerpt shows on each side of a mask.
const EXCERPT_CONTEXT: usize = 32;

/// The bundled rules, compiled on first use.
static BUNDLED_REDACTOR: LazyLock<Redactor> = LazyLock::new(|| {
    #[allow(clippy::expect_used)] // The bundled file is part of the build; a test compiles it.
    Redactor::from_toml(BUNDLED).expect("the bundled secret rules compile")
});

/// Finds and masks secrets with a set of rules.
#[derive(Clone, Debug)]
pub struct Redactor {
    rules: Vec<Rule>,
    /// Every rule's pattern, to learn in one pass which rules match a text.
    set: RegexSet,
}

/// A secret in a text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The name of the rule that found it.
    pub rule: String,
    /// Where the secret starts, in bytes.
    pub start: usize,
    /// Where it ends, in bytes (exclusive).
    pub end: usize,
}

/// A secret in a message, for a listing of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MessageFinding {
    /// Where in the message it is: `text`, `thinking`, `tool Bash input.command`,
    /// `tool Bash result`, `tool Task › subagent 2 text`, …
    pub place: String,
    /// The name of the rule that found it.
    pub rule: String,
    /// The secret's mask with a little of the (masked) text around it, on one
    /// line.
    pub excerpt: String,
}

/// A rule's name and what it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuleInfo<'a> {
    /// The name masks and findings carry.
    pub name: &'a str,
    /// What it finds.
    pub description: &'a str,
}

impl Redactor {
    /// The rules of the bundled `secrets.toml`, compiled once per process.
    pub fn bundled() -> Redactor {
        BUNDLED_REDACTOR.clone()
    }

    /// The rules of a file in the format of `secrets.toml`.
    pub fn from_toml(text: &str) -> Result<Redactor> {
        let rules = rules::parse(text)?;
        let set = RegexSetBuilder::new(rules.iter().map(|r| r.regex.as_str()))
            .size_limit(rules::SIZE_LIMIT)
            .build()
            .map_err(|e| crate::Error::Rule { rule: "(all)".to_owned(), message: e.to_string() })?;
        Ok(Redactor { rules, set })
    }

    /// The rules, in the order of the file.
    pub fn rules(&self) -> impl Iterator<Item = RuleInfo<'_>> {
        self.rules.iter().map(|r| RuleInfo { name: &r.name, description: &r.description })
    }

    /// The secrets in `text`, by position; where the secrets of several rules
    /// overlap, one finding covers them all, named after the rule that comes
    /// first.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        let spans = self.spans(text);
        self.named(merge(spans))
    }

    /// `text` with every secret masked (borrowed when it has none).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let spans = merge(self.spans(text));
        if spans.is_empty() { Cow::Borrowed(text) } else { Cow::Owned(self.apply(text, &spans)) }
    }

    /// Masks the secrets of every text of `transcript` (the title, every
    /// block's text, tool inputs' strings, tool results, subagents'
    /// messages) and says how many it masked.
    pub fn redact_transcript(&self, transcript: &mut Transcript) -> usize {
        let mut masked = 0;
        if let Some(title) = &mut transcript.title {
            masked += self.redact_slot(None, title);
        }
        for message in &mut transcript.messages {
            walk::message(message, "", &mut |_place: &dyn Fn() -> String, key, text: &mut String| {
                masked += self.redact_slot(key, text);
            });
        }
        masked
    }

    /// The secrets of every text of `message` (as [`redact_transcript`](Self::redact_transcript)
    /// sees them), each with where it is and an excerpt of the masked text.
    pub fn find_in_message(&self, message: &Message) -> Vec<MessageFinding> {
        let mut found = Vec::new();
        let mut copy = message.clone();
        walk::message(&mut copy, "", &mut |place: &dyn Fn() -> String, key, text: &mut String| {
            let spans = self.keyed_spans(key, text);
            if spans.is_empty() {
                return;
            }
            let place = place();
            let (masked, masks) = self.masked(text, &spans);
            for (at, span) in masks.into_iter().zip(&spans) {
                found.push(MessageFinding {
                    place: place.clone(),
                    rule: self.rules[span.rule].name.clone(),
                    excerpt: excerpt(&masked, at, EXCERPT_CONTEXT),
                });
            }
        });
        found
    }

    /// The secrets of one text that is not a message's (a session's title),
    /// as [`find_in_message`](Self::find_in_message) gives them, at `place`.
    pub fn find_in_text(&self, place: &str, text: &str) -> Vec<MessageFinding> {
        let spans = merge(self.spans(text));
        let (masked, masks) = self.masked(text, &spans);
        masks
            .into_iter()
            .zip(&spans)
            .map(|(at, span)| MessageFinding {
                place: place.to_owned(),
                rule: self.rules[span.rule].name.clone(),
                excerpt: excerpt(&masked, at, EXCERPT_CONTEXT),
            })
            .collect()
    }

    /// Masks the secrets of a text cut into `pieces` (a search snippet, its
    /// matched words apart): the rules see the pieces joined, so a secret
    /// that a match cuts in two is found; its mask goes in the piece where
    /// it starts, and the rest of it is taken out of the pieces after. How
    /// many secrets were masked.
    pub fn redact_pieces(&self, pieces: &mut [&mut String]) -> usize {
        let whole: String = pieces.iter().map(|p| p.as_str()).collect();
        let spans = merge(self.spans(&whole));
        if spans.is_empty() {
            return 0;
        }
        let mut start = 0;
        for piece in pieces.iter_mut() {
            let end = start + piece.len();
            let mut out = String::with_capacity(piece.len());
            let mut at = start;
            for span in spans.iter().filter(|s| s.start < end && s.end > start) {
                let (from, to) = (span.start.max(start), span.end.min(end));
                out.push_str(&whole[at.max(start)..from]);
                if span.start >= start {
                    out.push_str(&Self::mask(&whole[span.start..span.end], &self.rules[span.rule].name));
                }
                at = to;
            }
            out.push_str(&whole[at.max(start)..end]);
            **piece = out;
            start = end;
        }
        spans.len()
    }

    /// The mask of `secret` found by the rule `rule`: its first characters
    /// (at most 4, at most a quarter of it), `…` and `[redacted RULE]`.
    pub fn mask(secret: &str, rule: &str) -> String {
        let chars = secret.chars().count();
        let kept: String = secret.chars().take((chars / 4).min(MAX_KEPT)).collect();
        format!("{kept}{MASK_MARK}{rule}]")
    }

    /// Masks the secrets of one text, `key` the name it has in a JSON object;
    /// how many.
    fn redact_slot(&self, key: Option<&str>, text: &mut String) -> usize {
        let spans = self.keyed_spans(key, text);
        if !spans.is_empty() {
            *text = self.apply(text, &spans);
        }
        spans.len()
    }

    /// The merged secrets of `value`, which is the value of `key` in a JSON
    /// object when `key` is given: the rules see it as `"key": "value"` too,
    /// so that a name that says it holds a secret counts as it does in text.
    fn keyed_spans(&self, key: Option<&str>, value: &str) -> Vec<Span> {
        let mut spans = self.spans(value);
        if let Some(key) = key
            && !value.is_empty()
            && !key.contains(['"', '\\', '\n', '\r'])
            && !value.contains(['"', '\\', '\n', '\r'])
        {
            let probe = format!("\"{key}\": \"{value}\"");
            let offset = key.len() + 5;
            spans.extend(
                self.spans(&probe)
                    .into_iter()
                    .filter(|s| s.start >= offset && s.end <= offset + value.len())
                    .map(|s| Span { start: s.start - offset, end: s.end - offset, rule: s.rule }),
            );
        }
        merge(spans)
    }

    /// Every rule's secrets in `text`, unmerged.
    fn spans(&self, text: &str) -> Vec<Span> {
        let mut spans = Vec::new();
        if text.is_empty() {
            return spans;
        }
        for index in &self.set.matches(text) {
            let rule = &self.rules[index];
            for caps in rule.regex.captures_iter(text) {
                let secret = if rule.secret_groups.is_empty() {
                    caps.get(0)
                } else {
                    rule.secret_groups.iter().find_map(|&group| caps.get(group))
                };
                let Some(secret) = secret.filter(|m| !m.is_empty()) else { continue };
                if secret.as_str().contains(MASK_MARK)
                    || rule.ignore.as_ref().is_some_and(|i| i.is_match(secret.as_str()))
                {
                    continue;
                }
                spans.push(Span { start: secret.start(), end: secret.end(), rule: index });
            }
        }
        spans
    }

    /// `spans` as findings.
    fn named(&self, spans: Vec<Span>) -> Vec<Finding> {
        spans
            .into_iter()
            .map(|s| Finding { rule: self.rules[s.rule].name.clone(), start: s.start, end: s.end })
            .collect()
    }

    /// `text` with the merged `spans` masked.
    fn apply(&self, text: &str, spans: &[Span]) -> String {
        self.masked(text, spans).0
    }

    /// `text` with the merged `spans` masked, and where each mask is in it.
    fn masked(&self, text: &str, spans: &[Span]) -> (String, Vec<Range<usize>>) {
        let mut out = String::with_capacity(text.len());
        let mut masks = Vec::with_capacity(spans.len());
        let mut at = 0;
        for span in spans {
            out.push_str(&text[at..span.start]);
            let start = out.len();
            out.push_str(&Self::mask(&text[span.start..span.end], &self.rules[span.rule].name));
            masks.push(start..out.len());
            at = span.end;
        }
        out.push_str(&text[at..]);
        (out, masks)
    }
}

/// A secret: its bytes and the index of the rule that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    rule: usize,
}

/// `spans` sorted, with overlapping ones merged into one named after the
/// rule that comes first.
fn merge(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable_by_key(|s| (s.start, s.end, s.rule));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.start < last.end => {
                last.end = last.end.max(span.end);
                last.rule = last.rule.min(span.rule);
            }
            _ => merged.push(span),
        }
    }
    merged
}

/// `around` characters of `text` on each side of `at`, on one line, with `…`
/// where it was cut.
fn excerpt(text: &str, at: Range<usize>, around: usize) -> String {
    let before = &text[..at.start];
    let after = &text[at.end..];
    let start = match around.checked_sub(1) {
        Some(skip) => before.char_indices().rev().nth(skip).map_or(0, |(i, _)| i),
        None => before.len(),
    };
    let end = after.char_indices().nth(around).map_or(after.len(), |(i, _)| i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&before[start..]);
    out.push_str(&text[at.clone()]);
    out.push_str(&after[..end]);
    if end < after.len() {
        out.push('…');
    }
    out.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
#[path = "redact/redact_tests.rs"]
mod tests;
