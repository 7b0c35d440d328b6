//! Pairing the two copies Codex writes of each text.
//!
//! A prompt, an assistant message and a reasoning summary part are written as
//! a `response_item` (what the model saw) and again as an `event_msg`
//! (`user_message`, `agent_message`, `agent_reasoning`: what the UI saw).
//! Either copy may be missing: older builds wrote no events, a forked rollout
//! copies only the parent's items, an interrupted turn may have only the
//! event. Either may come first.
//!
//! The rule: a text is kept once for each pair of copies of the same kind with
//! the same (trimmed) text, one from each origin, within one exchange. An
//! exchange ends where a new user text begins; a prompt pairs only with the
//! copy right next to it (nothing shown in between). A copy with no partner is
//! kept. When the event came
//! first and the item follows, the caller may upgrade the kept message with
//! the item's content (it has the images the model saw).

/// What a text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A prompt.
    User,
    /// An assistant message.
    Assistant,
    /// A reasoning summary part.
    Reasoning,
}

/// Where a copy comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A `response_item`.
    Item,
    /// An `event_msg`.
    Event,
}

/// A copy that is still waiting for its partner.
#[derive(Debug)]
struct Open {
    kind: Kind,
    origin: Origin,
    keys: Vec<String>,
    message: usize,
}

/// The copies of the current exchange that have no partner yet.
#[derive(Debug, Default)]
pub(crate) struct Echoes {
    open: Vec<Open>,
}

impl Echoes {
    /// Takes the copy `(kind, origin)` with texts `keys` (any one matching is
    /// a match). When it is the partner of an open copy, that copy is closed
    /// and the index of its message is returned: the new copy is a duplicate.
    /// Otherwise returns `None`, and the caller keeps the text and then calls
    /// [`Echoes::open`].
    pub(crate) fn pair(&mut self, kind: Kind, origin: Origin, keys: &[String]) -> Option<usize> {
        let position = self.open.iter().position(|open| {
            open.kind == kind && open.origin != origin && open.keys.iter().any(|key| keys.contains(key))
        })?;
        Some(self.open.remove(position).message)
    }

    /// Records a kept copy, in message `message`, waiting for its partner. A
    /// user text starts a new exchange: older copies can no longer pair.
    pub(crate) fn open(&mut self, kind: Kind, origin: Origin, keys: Vec<String>, message: usize) {
        if kind == Kind::User {
            self.open.clear();
        }
        self.open.push(Open { kind, origin, keys, message });
    }

    /// Closes the open prompt: something else was shown after it, so it is
    /// no longer right next to its partner.
    pub(crate) fn close_prompts(&mut self) {
        self.open.retain(|open| open.kind != Kind::User);
    }
}

/// The pairing keys of a text made of `parts`: the parts joined by newlines,
/// and each part, trimmed; a copy written as one string then pairs with one
/// written in parts.
pub(crate) fn keys<'a>(parts: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let parts: Vec<&str> = parts.into_iter().map(str::trim).collect();
    let mut keys = vec![parts.join("\n").trim().to_owned()];
    for part in parts {
        if !part.is_empty() && !keys.iter().any(|key| key == part) {
            keys.push(part.to_owned());
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(text: &str) -> Vec<String> {
        keys([text])
    }

    #[test]
    fn pairs_in_either_order_and_only_across_origins() {
        let mut echoes = Echoes::default();
        assert_eq!(echoes.pair(Kind::User, Origin::Item, &k("hi")), None);
        echoes.open(Kind::User, Origin::Item, k("hi"), 0);
        // Another item with the same text is not the echo.
        assert_eq!(echoes.pair(Kind::User, Origin::Item, &k("hi")), None);
        assert_eq!(echoes.pair(Kind::User, Origin::Event, &k(" hi\n")), Some(0));
        // Consumed: a second event is a new text.
        assert_eq!(echoes.pair(Kind::User, Origin::Event, &k("hi")), None);

        echoes.open(Kind::Assistant, Origin::Event, k("done"), 1);
        assert_eq!(echoes.pair(Kind::Reasoning, Origin::Item, &k("done")), None);
        assert_eq!(echoes.pair(Kind::Assistant, Origin::Item, &k("done")), Some(1));
    }

    #[test]
    fn a_new_user_text_ends_the_exchange() {
        let mut echoes = Echoes::default();
        echoes.open(Kind::Assistant, Origin::Item, k("same words"), 1);
        echoes.open(Kind::User, Origin::Item, k("next prompt"), 2);
        assert_eq!(echoes.pair(Kind::Assistant, Origin::Event, &k("same words")), None);
    }

    #[test]
    fn a_prompt_pairs_only_until_something_else_is_shown() {
        let mut echoes = Echoes::default();
        echoes.open(Kind::User, Origin::Event, k("again"), 0);
        echoes.open(Kind::Reasoning, Origin::Item, k("r"), 1);
        echoes.close_prompts();
        assert_eq!(echoes.pair(Kind::User, Origin::Item, &k("again")), None);
        assert_eq!(echoes.pair(Kind::Reasoning, Origin::Event, &k("r")), Some(1));
    }

    #[test]
    fn grouped_copies_pair_one_by_one() {
        let mut echoes = Echoes::default();
        echoes.open(Kind::Reasoning, Origin::Item, k("a"), 1);
        echoes.open(Kind::Reasoning, Origin::Item, k("b"), 1);
        echoes.open(Kind::Assistant, Origin::Item, k("c"), 1);
        assert_eq!(echoes.pair(Kind::Reasoning, Origin::Event, &k("b")), Some(1));
        assert_eq!(echoes.pair(Kind::Reasoning, Origin::Event, &k("a")), Some(1));
        assert_eq!(echoes.pair(Kind::Assistant, Origin::Event, &k("c")), Some(1));
        assert!(echoes.open.is_empty());
    }

    #[test]
    fn keys_cover_the_whole_and_the_parts() {
        assert_eq!(keys(["<image>", " look at this "]), ["<image>\nlook at this", "<image>", "look at this"]);
        assert_eq!(keys([]), [""]);
        assert_eq!(keys(["only"]), ["only"]);
    }
}
