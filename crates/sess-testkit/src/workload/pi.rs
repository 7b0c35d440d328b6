//! One pi-mono session, in pi-mono 0.73.1's dialect and key order.

use std::collections::HashSet;

use serde_json::{Map, Value, json};
use sess_core::format_iso_millis;

use super::text::{base64, hex, prose, tool_output, uuid_v7};
use super::{Rng, fields};

/// 2026-01-01T00:00:00Z: where generated sessions start by default.
const START_MS: i64 = 1_767_225_600_000;

/// How many bytes of a branch since the last compaction make the agent compact.
const COMPACT_AFTER: (usize, usize) = (600_000, 900_000);

const MODELS: &[(&str, &str, &str)] = &[
    ("anthropic", "claude-sonnet-4-5", "anthropic-messages"),
    ("anthropic", "claude-opus-4-1", "anthropic-messages"),
    ("openai", "gpt-5", "openai-responses"),
    ("google", "gemini-2.5-pro", "google-generative-ai"),
];
const THINKING_LEVELS: &[&str] = &["off", "low", "medium", "high"];
const TOOLS: &[&str] = &["read", "bash", "edit", "write", "grep"];
const LABELS: &[&str] = &["checkpoint", "before refactor", "good state", "bug found ✓", "try this again"];

/// What a generated session holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Entries after the header.
    pub entries: usize,
    /// `message` entries (pi-mono's `messageCount`).
    pub messages: usize,
    /// Times the leaf was moved back before an append.
    pub branches: usize,
    /// `branch_summary` entries.
    pub branch_summaries: usize,
    /// `compaction` entries.
    pub compactions: usize,
    /// `label` entries.
    pub labels: usize,
    /// Inline base64 images.
    pub images: usize,
    /// Tool results of 10 KB or more.
    pub big_outputs: usize,
    /// `model_change` and `thinking_level_change` entries.
    pub setting_changes: usize,
}

/// A generated session file.
#[derive(Clone, Debug)]
pub struct PiSession {
    /// The header's id.
    pub id: String,
    /// The header's timestamp.
    pub timestamp: String,
    /// The file's text.
    pub text: String,
    /// What it holds.
    pub stats: SessionStats,
}

impl PiSession {
    /// The file name pi-mono gives it: `<timestamp with : and . as ->_<id>.jsonl`.
    pub fn file_name(&self) -> String {
        format!("{}_{}.jsonl", self.timestamp.replace([':', '.'], "-"), self.id)
    }
}

/// What to generate: see [`pi_session`].
#[derive(Clone, Debug)]
pub struct PiSessionSpec {
    /// The file grows until it reaches this size (it ends with a whole turn, so
    /// it is a little larger: by a few kilobytes, or one big tool output).
    pub target_bytes: usize,
    /// The seed: the same spec gives the same bytes.
    pub seed: u64,
    /// The header's `cwd`.
    pub cwd: String,
    /// The header's time in milliseconds since the epoch; entries follow it.
    pub start_ms: i64,
}

impl PiSessionSpec {
    /// A session of about `target_bytes` for `/home/dev/project`.
    pub fn new(target_bytes: usize, seed: u64) -> Self {
        Self { target_bytes, seed, cwd: "/home/dev/project".to_owned(), start_ms: START_MS }
    }

    /// Generates the session.
    pub fn generate(&self) -> PiSession {
        let mut rng = Rng::new(self.seed);
        let id = uuid_v7(&mut rng, self.start_ms);
        let timestamp = format_iso_millis(self.start_ms);
        let mut writer = Writer::new(rng, self.start_ms + 7, self.target_bytes);
        let header = json!({"type": "session", "version": 3, "id": id, "timestamp": timestamp, "cwd": self.cwd});
        writer.line(&header);
        let mut turn = 0;
        while writer.out.len() < self.target_bytes {
            writer.turn(turn);
            turn += 1;
        }
        PiSession { id, timestamp, text: writer.out, stats: writer.stats }
    }
}

/// A pi-mono v3 session of about `target_bytes` (the text of the file), the
/// same for the same seed. See the [module docs](super).
pub fn pi_session(target_bytes: usize, seed: u64) -> String {
    PiSessionSpec::new(target_bytes, seed).generate().text
}

/// `n` agent messages, one JSON object a line, as an agent appends them: a user
/// prompt, then assistant turns with tool calls and their results (mostly
/// small, 0.3% of 10–200 KB; about 1.2 KB a message on average). Every
/// message has its `timestamp`.
pub fn append_messages(n: usize, seed: u64) -> String {
    let mut writer = Writer::new(Rng::new(seed), START_MS, 0);
    let mut out = String::new();
    let mut call: Option<String> = None;
    for i in 0..n {
        let message = match (i % 8, call.take()) {
            (0, _) => writer.user_message(),
            (_, Some(call_id)) => writer.tool_result(&call_id, 0.3, 0.0),
            (7, None) => writer.assistant_message(None),
            (_, None) => {
                let call_id = format!("toolu_{}", hex(&mut writer.rng, 24));
                let message = writer.assistant_message(Some(&call_id));
                call = Some(call_id);
                message
            }
        };
        out.push_str(&message.to_string());
        out.push('\n');
        writer.tick(200, 20_000);
    }
    out
}

struct Writer {
    rng: Rng,
    out: String,
    now: i64,
    ids: HashSet<String>,
    /// Every entry id, in file order (label targets).
    all_ids: Vec<String>,
    /// The branch from the root to the leaf.
    path: Vec<String>,
    /// Positions in `path` of user messages since the last compaction.
    user_positions: Vec<usize>,
    /// Bytes appended since the last compaction.
    since_compaction: usize,
    compact_after: usize,
    model: (&'static str, &'static str, &'static str),
    stats: SessionStats,
}

impl Writer {
    fn new(mut rng: Rng, now: i64, target: usize) -> Self {
        let compact_after = rng.range(COMPACT_AFTER.0, COMPACT_AFTER.1).min(target / 3).max(50_000);
        Self {
            rng,
            out: String::new(),
            now,
            ids: HashSet::new(),
            all_ids: Vec::new(),
            path: Vec::new(),
            user_positions: Vec::new(),
            since_compaction: 0,
            compact_after,
            model: MODELS[0],
            stats: SessionStats::default(),
        }
    }

    fn turn(&mut self, turn: usize) {
        if turn == 0 {
            self.thinking_level_change();
            self.model_change();
        } else {
            if self.rng.percent(3.0) {
                self.model_change();
            }
            if self.rng.percent(2.0) {
                self.thinking_level_change();
            }
            if self.rng.percent(4.0) && self.path.len() > 4 {
                self.branch();
            }
            if self.rng.percent(1.5) {
                self.custom();
            }
            if self.rng.percent(1.0) {
                self.custom_message();
            }
        }
        let user = self.user_message();
        self.message(user);
        self.user_positions.push(self.path.len() - 1);
        for _ in 0..self.rng.range(0, 4) {
            let call_id = format!("toolu_{}", hex(&mut self.rng, 24));
            let call = self.assistant_message(Some(&call_id));
            self.message(call);
            let result = self.tool_result(&call_id, 0.8, 0.4);
            self.message(result);
        }
        let answer = self.assistant_message(None);
        self.message(answer);
        if turn == 1 || self.rng.percent(0.5) {
            self.session_info();
        }
        if self.rng.percent(4.0) {
            self.label();
        }
        if self.since_compaction > self.compact_after {
            self.compaction();
        }
    }

    /// Advances the clock by `low..=high` milliseconds.
    fn tick(&mut self, low: usize, high: usize) {
        #[allow(clippy::cast_possible_wrap, reason = "at most a few minutes")]
        let step = self.rng.range(low, high) as i64;
        self.now += step;
    }

    fn fresh_id(&mut self) -> String {
        loop {
            let id = hex(&mut self.rng, 8);
            if self.ids.insert(id.clone()) {
                return id;
            }
        }
    }

    fn line(&mut self, value: &Value) {
        let start = self.out.len();
        self.out.push_str(&value.to_string());
        self.out.push('\n');
        self.since_compaction += self.out.len() - start;
    }

    /// Appends an entry: `head` fields, then `id`, `parentId`, `timestamp`
    /// (or those first, when `head` is empty), then `tail`. Returns its id.
    fn entry(&mut self, kind: &str, head: Map<String, Value>, tail: Map<String, Value>) -> String {
        self.tick(1, 3);
        let id = self.fresh_id();
        let mut object = Map::new();
        object.insert("type".into(), kind.into());
        object.extend(head);
        object.insert("id".into(), id.clone().into());
        object.insert("parentId".into(), self.path.last().map_or(Value::Null, |p| p.clone().into()));
        object.insert("timestamp".into(), format_iso_millis(self.now).into());
        object.extend(tail);
        self.line(&Value::Object(object));
        self.path.push(id.clone());
        self.all_ids.push(id.clone());
        self.stats.entries += 1;
        id
    }

    fn message(&mut self, mut message: Value) {
        self.tick(300, 15_000);
        if let Some(object) = message.as_object_mut() {
            object.insert("timestamp".into(), self.now.into());
        }
        self.stats.messages += 1;
        self.entry("message", Map::new(), fields([("message", message)]));
    }

    fn user_message(&mut self) -> Value {
        self.tick(5_000, 300_000);
        let len = if self.rng.percent(5.0) { self.rng.range(600, 4_000) } else { self.rng.range(20, 400) };
        let mut content = vec![json!({"type": "text", "text": prose(&mut self.rng, len)})];
        if self.rng.percent(1.0) {
            content.push(self.image("image/png"));
        }
        json!({"role": "user", "content": content, "timestamp": self.now})
    }

    fn image(&mut self, mime: &str) -> Value {
        self.stats.images += 1;
        let bytes = self.rng.range(15_000, 90_000);
        json!({"type": "image", "data": base64(&mut self.rng, bytes), "mimeType": mime})
    }

    /// An assistant message: thinking (sometimes), text, and a tool call when
    /// `call_id` is given.
    fn assistant_message(&mut self, call_id: Option<&str>) -> Value {
        let (provider, model, api) = self.model;
        let mut content = Vec::new();
        if self.rng.percent(40.0) {
            let len = self.rng.range(100, 1_000);
            let signature_len = self.rng.range(100, 250);
            content.push(json!({
                "type": "thinking",
                "thinking": prose(&mut self.rng, len),
                "thinkingSignature": base64(&mut self.rng, signature_len),
            }));
        }
        let len = if call_id.is_some() { self.rng.range(20, 200) } else { self.rng.range(100, 1_200) };
        content.push(json!({"type": "text", "text": prose(&mut self.rng, len)}));
        if let Some(call_id) = call_id {
            let tool = *self.rng.pick(TOOLS);
            let file = self.rng.below(400);
            let arguments = match tool {
                "bash" => json!({"command": format!("cargo test -p module_{file} -- --nocapture"), "timeout": 120}),
                "edit" => {
                    let (old, new) = (self.rng.range(50, 800), self.rng.range(50, 800));
                    json!({
                        "path": format!("src/module_{file}.rs"),
                        "oldText": tool_output(&mut self.rng, old),
                        "newText": tool_output(&mut self.rng, new),
                    })
                }
                "write" => {
                    let len = self.rng.range(200, 2_000);
                    json!({"path": format!("src/module_{file}.rs"), "content": tool_output(&mut self.rng, len)})
                }
                "grep" => json!({"pattern": "fn parse", "path": "src"}),
                _ => json!({"path": format!("src/module_{file}.rs")}),
            };
            content.push(json!({"type": "toolCall", "id": call_id, "name": tool, "arguments": arguments}));
        }
        let input = self.rng.range(1_000, 150_000);
        let output = self.rng.range(10, 4_000);
        let cache_read = self.rng.range(0, input);
        let usage = json!({
            "input": input, "output": output, "cacheRead": cache_read, "cacheWrite": 0,
            "totalTokens": input + output + cache_read,
            "cost": {"input": input as f64 * 3e-6, "output": output as f64 * 15e-6,
                     "cacheRead": cache_read as f64 * 3e-7, "cacheWrite": 0, "total": (input + output) as f64 * 1e-5},
        });
        let stop = if call_id.is_some() { "toolUse" } else { "stop" };
        json!({
            "role": "assistant", "content": content, "api": api, "provider": provider, "model": model,
            "usage": usage, "stopReason": stop, "timestamp": self.now,
        })
    }

    /// A tool result: `big` percent of them 10–200 KB, `image` percent with an
    /// image, the rest 50 to 800 bytes.
    fn tool_result(&mut self, call_id: &str, big: f64, image: f64) -> Value {
        let tool = *self.rng.pick(TOOLS);
        let len = if self.rng.percent(big) {
            self.stats.big_outputs += 1;
            self.rng.range(10_000, 200_000)
        } else {
            self.rng.range(50, 800)
        };
        let mut content = vec![json!({"type": "text", "text": tool_output(&mut self.rng, len)})];
        if self.rng.percent(image) {
            content.push(self.image("image/png"));
        }
        let mut result = fields([
            ("role", "toolResult".into()),
            ("toolCallId", call_id.into()),
            ("toolName", tool.into()),
            ("content", content.into()),
        ]);
        if self.rng.percent(30.0) {
            result.insert("details".into(), json!({"exitCode": 0, "durationMs": self.rng.range(5, 90_000)}));
        }
        result.insert("isError".into(), self.rng.percent(5.0).into());
        result.insert("timestamp".into(), self.now.into());
        Value::Object(result)
    }

    fn thinking_level_change(&mut self) {
        self.stats.setting_changes += 1;
        let level = *self.rng.pick(THINKING_LEVELS);
        self.entry("thinking_level_change", Map::new(), fields([("thinkingLevel", level.into())]));
    }

    fn model_change(&mut self) {
        self.stats.setting_changes += 1;
        self.model = *self.rng.pick(MODELS);
        let tail = fields([("provider", self.model.0.into()), ("modelId", self.model.1.into())]);
        self.entry("model_change", Map::new(), tail);
    }

    /// Moves the leaf 2–12 entries back along the branch; half the time with
    /// a `branch_summary` of what was left behind.
    fn branch(&mut self) {
        self.stats.branches += 1;
        let back = self.rng.range(2, 12).min(self.path.len() - 1);
        self.path.truncate(self.path.len() - back);
        let len = self.path.len();
        self.user_positions.retain(|&p| p < len);
        if self.rng.percent(50.0) {
            self.stats.branch_summaries += 1;
            let from = self.path.last().cloned().unwrap_or_else(|| "root".to_owned());
            let summary_len = self.rng.range(100, 800);
            let mut tail = fields([("fromId", from.into()), ("summary", prose(&mut self.rng, summary_len).into())]);
            if self.rng.percent(50.0) {
                tail.insert("details".into(), json!({"readFiles": ["src/lib.rs"], "modifiedFiles": []}));
            }
            tail.insert("fromHook".into(), false.into());
            self.entry("branch_summary", Map::new(), tail);
        }
    }

    /// Compacts: a summary, keeping the branch from a recent user message.
    fn compaction(&mut self) {
        if self.user_positions.is_empty() {
            return;
        }
        self.stats.compactions += 1;
        let keep_from = self.user_positions.len() - 1 - self.rng.below(self.user_positions.len().min(6));
        let kept = self.path[self.user_positions[keep_from]].clone();
        let summary_len = self.rng.range(2_000, 12_000);
        let tokens = self.since_compaction / 4;
        let tail = fields([
            ("summary", prose(&mut self.rng, summary_len).into()),
            ("firstKeptEntryId", kept.into()),
            ("tokensBefore", tokens.into()),
            ("details", json!({"readFiles": ["src/lib.rs", "src/main.rs"], "modifiedFiles": ["src/lib.rs"]})),
            ("fromHook", false.into()),
        ]);
        self.entry("compaction", Map::new(), tail);
        self.user_positions.clear();
        self.since_compaction = 0;
        self.compact_after = self.rng.range(COMPACT_AFTER.0, COMPACT_AFTER.1);
    }

    fn label(&mut self) {
        self.stats.labels += 1;
        let target = self.rng.pick(&self.all_ids).clone();
        let mut tail = fields([("targetId", target.into())]);
        if !self.rng.percent(15.0) {
            tail.insert("label".into(), (*self.rng.pick(LABELS)).into());
        }
        self.entry("label", Map::new(), tail);
    }

    fn custom(&mut self) {
        let data = json!({"counter": self.stats.entries, "state": {"open": ["src/lib.rs"], "mode": "plan"}});
        self.entry("custom", fields([("customType", "ext-state".into()), ("data", data)]), Map::new());
    }

    fn custom_message(&mut self) {
        let len = self.rng.range(50, 800);
        let mut head = fields([
            ("customType", "ext-note".into()),
            ("content", prose(&mut self.rng, len).into()),
            ("display", self.rng.percent(50.0).into()),
        ]);
        if self.rng.percent(50.0) {
            head.insert("details".into(), json!({"source": "extension"}));
        }
        self.entry("custom_message", head, Map::new());
    }

    fn session_info(&mut self) {
        let len = self.rng.range(10, 50);
        let name = prose(&mut self.rng, len);
        self.entry("session_info", Map::new(), fields([("name", name.into())]));
    }
}
