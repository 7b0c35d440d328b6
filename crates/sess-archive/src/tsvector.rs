//! A PostgreSQL `tsvector` made here and sent in binary, not made by
//! `to_tsvector` on the server (which spent most of an archive's time
//! parsing text there): words are runs of letters and digits, lowercased,
//! with their positions — the same words [`sess_catalog::to_tsquery`] makes
//! of a query, which is given to the server as a `tsquery` as it is.

use std::borrow::Cow;
use std::error::Error;

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// The highest position PostgreSQL keeps.
const MAX_POSITION: u16 = 16_383;
/// The most positions kept of one word (ranking needs a few).
const MAX_POSITIONS: usize = 64;
/// The longest word kept, in bytes (PostgreSQL refuses longer lexemes).
const MAX_WORD: usize = 2_000;

/// The words of a text with their positions (from 1), in PostgreSQL's
/// binary form: the number of words, then each word (sorted) with a NUL
/// after it, its number of positions and the positions (weight D).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tsvector(Vec<u8>);

impl Tsvector {
    /// The words of `text`.
    pub(crate) fn of(text: &str) -> Self {
        let mut words: Vec<(Cow<'_, str>, u16)> = Vec::new();
        let mut position: u16 = 0;
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            position = position.saturating_add(1).min(MAX_POSITION);
            if word.len() > MAX_WORD {
                continue;
            }
            let upper = if word.is_ascii() {
                word.bytes().any(|b| b.is_ascii_uppercase())
            } else {
                word.chars().any(char::is_uppercase)
            };
            words.push((if upper { Cow::Owned(word.to_lowercase()) } else { Cow::Borrowed(word) }, position));
        }
        words.sort_unstable();
        let mut out = Vec::with_capacity(4 + text.len());
        out.extend_from_slice(&[0; 4]);
        let mut count: i32 = 0;
        for group in words.chunk_by(|a, b| a.0 == b.0) {
            count += 1;
            out.extend_from_slice(group[0].0.as_bytes());
            out.push(0);
            let at = out.len();
            out.extend_from_slice(&[0; 2]);
            let mut kept: u16 = 0;
            let mut last = 0;
            for &(_, p) in group {
                // Past the last position PostgreSQL keeps, every word is there.
                if p == last || usize::from(kept) == MAX_POSITIONS {
                    continue;
                }
                out.extend_from_slice(&p.to_be_bytes());
                kept += 1;
                last = p;
            }
            out[at..at + 2].copy_from_slice(&kept.to_be_bytes());
        }
        out[..4].copy_from_slice(&count.to_be_bytes());
        Self(out)
    }
}

impl ToSql for Tsvector {
    fn to_sql(&self, _: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }

    fn accepts(ty: &Type) -> bool {
        ty.name() == "tsvector"
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::Tsvector;

    /// The words and positions of a binary `tsvector`.
    fn words(text: &str) -> Vec<(String, Vec<u16>)> {
        let bytes = Tsvector::of(text).0;
        let count = i32::from_be_bytes(bytes[..4].try_into().unwrap());
        let mut at = 4;
        let mut words = Vec::new();
        for _ in 0..count {
            let end = at + bytes[at..].iter().position(|&b| b == 0).unwrap();
            let word = String::from_utf8(bytes[at..end].to_vec()).unwrap();
            let n = usize::from(u16::from_be_bytes([bytes[end + 1], bytes[end + 2]]));
            at = end + 3;
            let positions = (0..n).map(|i| u16::from_be_bytes([bytes[at + 2 * i], bytes[at + 2 * i + 1]])).collect();
            at += 2 * n;
            words.push((word, positions));
        }
        assert_eq!(at, bytes.len());
        words
    }

    #[test]
    fn words_are_lowercased_with_their_positions() {
        let want: Vec<(String, Vec<u16>)> = [
            ("fix", vec![1]),
            ("form", vec![6, 8]),
            ("login", vec![3, 7]),
            ("rs", vec![9]),
            ("the", vec![2, 5]),
            ("then", vec![4]),
        ]
        .into_iter()
        .map(|(w, p)| (w.to_owned(), p))
        .collect();
        assert_eq!(words("Fix the login, then THE form: login_form.rs"), want);
        assert_eq!(words("日本語 テスト").len(), 2);
        assert!(words(" -- ").is_empty());
    }

    #[test]
    fn positions_stop_where_postgresql_stops() {
        assert_eq!(words(&"a ".repeat(20_000))[0].1.len(), 64);
        let text = format!("{} b b", "a ".repeat(20_000));
        assert_eq!(words(&text)[1], ("b".to_owned(), vec![16_383]));
    }
}
