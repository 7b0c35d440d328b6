//! Turns: where "fork at turn N" branches (DESIGN.md §2).

use crate::entry::Entry;

/// A turn that does not exist on the path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("turn {turn} does not exist: the path has {turns} turns")]
pub struct NoSuchTurn {
    /// The turn asked for.
    pub turn: usize,
    /// How many turns the path has.
    pub turns: usize,
}

/// Whether an entry is a `user` message (a turn starts there).
pub fn is_user_message(entry: &Entry) -> bool {
    entry.is_message_from("user")
}

/// The entry of `path` (root first) to branch at so that turns `1..=turn` are
/// kept: turn k starts at the k-th user message, so this is the last entry
/// before the (turn+1)-th user message, or the last entry of the path when
/// there is none. `Ok(None)` means "before the first entry" (turn 0 when the
/// path starts with a user message). A turn past the last one is an error,
/// never a silent fallback.
pub fn branch_point(path: &[&Entry], turn: usize) -> Result<Option<usize>, NoSuchTurn> {
    let starts: Vec<usize> = path.iter().enumerate().filter(|(_, e)| is_user_message(e)).map(|(i, _)| i).collect();
    if turn > starts.len() {
        return Err(NoSuchTurn { turn, turns: starts.len() });
    }
    match starts.get(turn) {
        Some(&next) => Ok(next.checked_sub(1)),
        None => Ok(path.len().checked_sub(1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(id: &str, role: &str) -> Entry {
        Entry::parse(&format!(r#"{{"type":"message","id":"{id}","message":{{"role":"{role}"}}}}"#)).unwrap()
    }

    #[test]
    fn turns_start_at_user_messages() {
        let entries = [e("s", "system"), e("u1", "user"), e("a1", "assistant"), e("u2", "user"), e("a2", "assistant")];
        let path: Vec<&Entry> = entries.iter().collect();
        assert_eq!(branch_point(&path, 0), Ok(Some(0)));
        assert_eq!(branch_point(&path, 1), Ok(Some(2)));
        assert_eq!(branch_point(&path, 2), Ok(Some(4)));
        assert_eq!(branch_point(&path, 3), Err(NoSuchTurn { turn: 3, turns: 2 }));
        let starts_with_user: Vec<&Entry> = entries[1..].iter().collect();
        assert_eq!(branch_point(&starts_with_user, 0), Ok(None));
    }
}
