//! Long texts embedded in pieces: a mean over thousands of tokens says
//! little about any of them.

/// The most characters a piece has (a piece ends at the last white space
/// before it, when there is one).
pub const CHUNK_CHARS: usize = 1200;

/// `text` in pieces of at most `max` characters, each ended at white space
/// where it can be, in order; blank pieces left out. A text of `max`
/// characters or fewer is one piece.
pub fn chunks(text: &str, max: usize) -> Vec<&str> {
    let max = max.max(1);
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = match rest.char_indices().nth(max) {
            None => rest.len(),
            Some((at, _)) => rest[..at].rfind(char::is_whitespace).filter(|&space| space > 0).unwrap_or(at),
        };
        let (piece, after) = rest.split_at(cut);
        if !piece.trim().is_empty() {
            pieces.push(piece.trim());
        }
        rest = after;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_end_at_white_space_and_cover_the_text() {
        assert_eq!(chunks("short text", 100), ["short text"]);
        assert_eq!(chunks("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(chunks("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(chunks("   ", 4), Vec::<&str>::new());
        let text = "éé ü 語語語 ✓✓ a";
        let pieces = chunks(text, 3);
        assert!(pieces.iter().all(|p| p.chars().count() <= 3), "{pieces:?}");
        let squeezed = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        assert_eq!(squeezed(&pieces.concat()), squeezed(text));
    }
}
