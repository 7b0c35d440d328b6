//! The tokens Droid counts: the running totals of the settings file beside a
//! session (`<id>.settings.json`), one call per session.
//!
//! `tokenUsage` holds `inputTokens`, `outputTokens`, `cacheCreationTokens`,
//! `cacheReadTokens` and `thinkingTokens` (part of the output), and
//! `factoryCredits`, Factory's own unit, not a cost in dollars (not read);
//! `inclusiveTokenUsage` adds the subagents' sessions, which count in their
//! own settings files (not read here, so that they count once).

use serde_json::Value;

use crate::usage::{Call, Counter};

/// The session's call from the settings file's `bytes`; none when the file
/// records no `tokenUsage`.
pub(super) fn calls(bytes: &[u8]) -> Vec<Call> {
    let Ok(settings) = serde_json::from_slice::<Value>(bytes) else { return Vec::new() };
    let Some(usage) = settings.get("tokenUsage").filter(|u| u.is_object()) else { return Vec::new() };
    let counter = Counter::default();
    let mut call = Call {
        key: None,
        timestamp: None,
        model: settings.get("model").and_then(Value::as_str).map(ToOwned::to_owned),
        input: counter.count("inputTokens", usage.get("inputTokens")),
        output: counter.count("outputTokens", usage.get("outputTokens")),
        cache_creation: counter.count("cacheCreationTokens", usage.get("cacheCreationTokens")),
        cache_read: counter.count("cacheReadTokens", usage.get("cacheReadTokens")),
        reasoning: counter.count("thinkingTokens", usage.get("thinkingTokens")),
        cost: None,
        not_counts: Vec::new(),
    };
    call.not_counts = counter.take();
    vec![call]
}
