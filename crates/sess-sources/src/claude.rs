//! Claude Code sessions: `projects/<slug>/<uuid>.jsonl` under the config folder.
