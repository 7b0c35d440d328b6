//! A PostgreSQL `tsvector` made here and sent in binary, not made by
//! `to_tsvector` on the server (which spent most of an archive's time
//! parsing text there): words are runs of letters and digits, lowercased,
//! with their positions — the same words [`sess_catalog::to_tsquery`] makes
//! of a query, which is given to the server as a `tsquery` as it is.

use std::collections::BTreeMap;
use std::error::Error;

use postgres::types::{IsNull, ToSql, Type, to_sql_checked};

/// The highest position PostgreSQL keeps.
const MAX_POSITION: u16 = 16_383;
/// The most positions kept of one word (ranking needs a few).
const MAX_POSITIONS: usize = 64;
/// The longest word kept, in bytes (PostgreSQL refuses longer lexemes).
const MAX_WORD: usize = 2_000;

/// The words of a text with their positions (from 1), sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tsvector(Vec<(String, Vec<u16>)>);

impl Tsvector {
    /// The words of `text`.
    pub(crate) fn of(text: &str) -> Self {
        let mut words: BTreeMap<String, Vec<u16>> = BTreeMap::new();
        let mut position: u16 = 0;
        for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
            position = position.saturating_add(1).min(MAX_POSITION);
            if word.len() > MAX_WORD {
                continue;
            }
            let positions = words.entry(word.to_lowercase()).or_default();
            // Past the last position PostgreSQL keeps, every word is there.
            if positions.len() < MAX_POSITIONS && positions.last() != Some(&position) {
                positions.push(position);
            }
        }
        Self(words.into_iter().collect())
    }
}

impl ToSql for Tsvector {
    /// PostgreSQL's binary form: the number of words, then each word with a
    /// NUL after it, its number of positions and the positions (weight D).
    fn to_sql(&self, _: &Type, out: &mut bytes::BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        use bytes::BufMut as _;
        out.put_i32(i32::try_from(self.0.len())?);
        for (word, positions) in &self.0 {
            out.put_slice(word.as_bytes());
            out.put_u8(0);
            out.put_u16(u16::try_from(positions.len())?);
            for &position in positions {
                out.put_u16(position);
            }
        }
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

    fn words(text: &str) -> Vec<(String, Vec<u16>)> {
        Tsvector::of(text).0
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
