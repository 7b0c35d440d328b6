//! Codex sessions: `sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]` under the Codex home.
