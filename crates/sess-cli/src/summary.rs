//! Short forms of ids and texts for people.

pub(crate) use sess::describe::describe;
pub(crate) use sess_sources::one_line;

/// The first 8 characters of an id, as listings show it.
pub(crate) fn short(id: &str) -> String {
    id.chars().take(8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortens_and_flattens() {
        assert_eq!(one_line("  a\n\n b\tc  ", 10), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc…");
    }
}
