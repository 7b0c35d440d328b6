//! The tools' arguments: names and meanings are part of the interface
//! (README, "Agents search their history").

use rmcp::schemars;
use serde::Deserialize;

/// Which sessions a search or a listing covers, and how long its answer may be.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct Scope {
    /// Only this agent's sessions: pi, claude, codex, gemini, qwen, copilot, opencode, goose, crush, zed, continue,
    /// cline, roo, aider, cursor, droid, kilo, auggie.
    pub source: Option<String>,
    /// Only sessions of this project directory; default: the server's project. "*" for every project.
    pub cwd: Option<String>,
    /// Only sessions active since then: a date (2026-11-30), a time (RFC 3339), or an age (7d, 12h).
    pub since: Option<String>,
    /// At most this many sessions (default 10 for a search, 20 for a listing).
    pub limit: Option<usize>,
    /// The longest answer, in characters (default 32000, about 8k tokens).
    pub max_chars: Option<usize>,
}

/// `search_sessions`.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct SearchArgs {
    /// Words (all must match), "a phrase", a prefix*, OR and NOT between terms; or, by meaning, what the session was about.
    pub query: String,
    /// How to rank: "lexical" (the words), "semantic" (the meaning: sessions about the same thing in other words), or "hybrid" (both; the default when the server has an embedding model, else lexical).
    pub mode: Option<String>,
    /// Which sessions, and how long the answer may be.
    #[serde(flatten)]
    pub scope: Scope,
}

/// `list_sessions`.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ListArgs {
    /// Which sessions, and how long the answer may be.
    #[serde(flatten)]
    pub scope: Scope,
}

/// `read_session`.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ReadArgs {
    /// The session: the `ref` a search or listing gave, or the agent's session id (or a prefix).
    pub id: String,
    /// Start the window a few messages before the message with this entry id (a search hit's `entry`).
    pub around_entry: Option<String>,
    /// The first message of the window (0 is the first of the session); the previous answer's `next` cursor.
    pub offset: Option<usize>,
    /// At most this many messages (default 40).
    pub limit: Option<usize>,
    /// The longest answer, in characters (default 32000).
    pub max_chars: Option<usize>,
}

/// `session_context`.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
pub struct ContextArgs {
    /// A pi-family session: a `ref`, or its session id or a prefix.
    pub id: String,
    /// The entry to rebuild the context at (default: the last one).
    pub entry: Option<String>,
    /// The longest answer, in characters (default 32000).
    pub max_chars: Option<usize>,
}

/// The earliest time (ms since the epoch) `since` names, relative to `now_ms`.
pub(crate) fn since_ms(since: &str, now_ms: i64) -> Result<i64, String> {
    let since = since.trim();
    let age = |digits: &str, unit: i64| digits.parse::<i64>().ok().map(|n| now_ms - n.saturating_mul(unit));
    let relative = match since.char_indices().last() {
        Some((at, 'd')) => age(&since[..at], 86_400_000),
        Some((at, 'h')) => age(&since[..at], 3_600_000),
        Some((at, 'm')) => age(&since[..at], 60_000),
        _ => None,
    };
    if let Some(ms) = relative {
        return Ok(ms);
    }
    let text = if since.len() == 10 { format!("{since}T00:00:00Z") } else { since.to_owned() };
    sess_core::parse_iso_millis(&text).ok_or_else(|| {
        format!("`since` is a date (2026-11-30), a time (2026-11-30T10:00:00Z) or an age (7d, 12h); not `{since}`")
    })
}

#[cfg(test)]
mod tests {
    use super::since_ms;

    #[test]
    fn since_takes_dates_times_and_ages() {
        let now = 1_800_000_000_000;
        assert_eq!(since_ms("7d", now), Ok(now - 7 * 86_400_000));
        assert_eq!(since_ms("12h", now), Ok(now - 12 * 3_600_000));
        assert_eq!(since_ms("2026-11-30", now), Ok(1_795_996_800_000));
        assert_eq!(since_ms("2026-11-30T10:00:00Z", now), Ok(1_796_032_800_000));
        assert!(since_ms("last week", now).unwrap_err().contains("`last week`"));
    }
}
