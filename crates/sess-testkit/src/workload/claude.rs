//! Claude Code transcripts: `<config>/projects/<slug>/<uuid>.jsonl`.

use std::io;
use std::path::Path;

use serde_json::{Map, Value, json};
use sess_core::format_iso_millis;

use super::text::{base64, hex, prose, tool_output, uuid_v4};
use super::tree::TreeStats;
use super::{Rng, fields, write_input};

const VERSION: &str = "2.1.230";
const MODEL: &str = "claude-sonnet-4-5-20250929";
const TOOLS: &[&str] = &["Read", "Bash", "Edit", "Grep", "Write"];

/// Writes `n` Claude Code transcripts under `config_root` (a `~/.claude`), in
/// `n / 20` projects (at least one). Sizes: 80% of 2–60 KB, 18% of 60–500 KB,
/// 2% of 1–3 MB. Each has user prompts, assistant replies split into one line
/// per content block (thinking, text, `tool_use`) sharing `message.id`, tool
/// results with `toolUseResult`, turn durations, file-history snapshots, now
/// and then a rewind (a second child of an earlier line) or a `/compact`
/// (`compact_boundary` and an `isCompactSummary` line), and an `ai-title`.
/// `TreeStats::messages` counts user and assistant lines.
pub fn claude_transcripts(config_root: &Path, n: usize, seed: u64) -> io::Result<TreeStats> {
    let projects = (n / 20).max(1);
    let mut stats = TreeStats::default();
    for i in 0..n {
        let mut rng = Rng::fork(seed, i as u64);
        let project = i % projects;
        let cwd = match project % 3 {
            0 => format!("/home/dev/work/project-{project:03}"),
            1 => format!("/Users/dev/code/app_v{project}.{}", project % 7),
            _ => format!("/home/dev/src/service-{project}/api"),
        };
        let target = match rng.below(100) {
            0..=79 => rng.range(2_000, 60_000),
            80..=97 => rng.range(60_000, 500_000),
            _ => rng.range(1_000_000, 3_000_000),
        };
        #[allow(clippy::cast_possible_wrap, reason = "a minute per transcript, far below i64::MAX")]
        let start_ms = 1_767_225_600_000 + (i as i64) * 60_000;
        let mut transcript = Transcript::new(rng, cwd.clone(), start_ms);
        while transcript.out.len() < target {
            transcript.turn();
        }
        transcript.finish();
        let path = config_root.join("projects").join(slug(&cwd)).join(format!("{}.jsonl", transcript.session_id));
        write_input(&path, transcript.out.as_bytes())?;
        stats.files += 1;
        stats.bytes += transcript.out.len() as u64;
        stats.messages += transcript.messages;
    }
    Ok(stats)
}

/// Claude Code's project folder name: every character outside ASCII
/// letters and digits becomes `-`.
fn slug(cwd: &str) -> String {
    cwd.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

struct Transcript {
    rng: Rng,
    out: String,
    cwd: String,
    session_id: String,
    now: i64,
    /// The uuid the next line hangs under.
    parent: Option<String>,
    /// Earlier user prompt uuids' parents, for rewinds.
    prompts: Vec<Option<String>>,
    last_prompt: String,
    messages: usize,
}

impl Transcript {
    fn new(mut rng: Rng, cwd: String, now: i64) -> Self {
        let session_id = uuid_v4(&mut rng);
        let mut transcript = Self {
            rng,
            out: String::new(),
            cwd,
            session_id,
            now,
            parent: None,
            prompts: Vec::new(),
            last_prompt: String::new(),
            messages: 0,
        };
        let queue = json!({"type": "queue-operation", "operation": "dequeue",
            "timestamp": format_iso_millis(now), "sessionId": transcript.session_id});
        transcript.push(&queue);
        transcript
    }

    fn push(&mut self, value: &Value) {
        self.out.push_str(&value.to_string());
        self.out.push('\n');
    }

    /// A conversation line: the common fields, `extra`, then uuid, timestamp,
    /// entrypoint. Returns its uuid and makes it the parent of the next.
    fn line(&mut self, kind: &str, extra: Map<String, Value>) -> String {
        #[allow(clippy::cast_possible_wrap, reason = "seconds")]
        let step = self.rng.range(50, 20_000) as i64;
        self.now += step;
        let uuid = uuid_v4(&mut self.rng);
        let mut object = Map::new();
        object.insert("parentUuid".into(), self.parent.clone().map_or(Value::Null, Value::from));
        object.insert("isSidechain".into(), false.into());
        object.insert("userType".into(), "external".into());
        object.insert("cwd".into(), self.cwd.clone().into());
        object.insert("sessionId".into(), self.session_id.clone().into());
        object.insert("version".into(), VERSION.into());
        object.insert("gitBranch".into(), "main".into());
        object.insert("type".into(), kind.into());
        object.extend(extra);
        object.insert("uuid".into(), uuid.clone().into());
        object.insert("timestamp".into(), format_iso_millis(self.now).into());
        object.insert("entrypoint".into(), "cli".into());
        self.push(&Value::Object(object));
        self.parent = Some(uuid.clone());
        uuid
    }

    fn turn(&mut self) {
        if self.rng.percent(5.0) && self.prompts.len() > 1 {
            // A rewind: the next prompt is a second child of an earlier line.
            self.parent = self.rng.pick(&self.prompts).clone();
        }
        if self.rng.percent(3.0) && !self.prompts.is_empty() {
            self.compact();
        }
        self.prompts.push(self.parent.clone());
        let len = self.rng.range(20, 800);
        self.last_prompt = prose(&mut self.rng, len);
        let content: Value = if self.rng.percent(3.0) {
            let bytes = self.rng.range(10_000, 60_000);
            let data = base64(&mut self.rng, bytes);
            json!([{"type": "text", "text": self.last_prompt},
                   {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}])
        } else {
            self.last_prompt.clone().into()
        };
        let prompt_uuid = self.message_line("user", json!({"role": "user", "content": content}), Map::new());
        for _ in 0..self.rng.range(0, 4) {
            self.assistant(true);
        }
        self.assistant(false);
        let duration = json!(self.rng.range(2_000, 120_000));
        self.line(
            "system",
            fields([("subtype", "turn_duration".into()), ("durationMs", duration), ("isMeta", false.into())]),
        );
        if self.rng.percent(30.0) {
            let snapshot = json!({"type": "file-history-snapshot", "messageId": prompt_uuid,
                "snapshot": {"messageId": prompt_uuid, "trackedFileBackups": {},
                             "timestamp": format_iso_millis(self.now)}, "isSnapshotUpdate": false});
            self.push(&snapshot);
        }
    }

    fn message_line(&mut self, kind: &str, message: Value, mut extra: Map<String, Value>) -> String {
        self.messages += 1;
        let mut fields = Map::new();
        fields.insert("message".into(), message);
        fields.append(&mut extra);
        self.line(kind, fields)
    }

    /// One assistant reply: a line per content block, then (with `tool`) the
    /// tool's result.
    fn assistant(&mut self, tool: bool) {
        let message_id = format!("msg_{}", hex(&mut self.rng, 20));
        let request_id = format!("req_{}", hex(&mut self.rng, 20));
        let mut blocks = Vec::new();
        if self.rng.percent(40.0) {
            let len = self.rng.range(100, 1_500);
            let signature_len = self.rng.range(150, 300);
            blocks.push(json!({"type": "thinking", "thinking": prose(&mut self.rng, len),
                               "signature": base64(&mut self.rng, signature_len)}));
        }
        let len = if tool { self.rng.range(20, 300) } else { self.rng.range(100, 2_000) };
        blocks.push(json!({"type": "text", "text": prose(&mut self.rng, len)}));
        let call_id = format!("toolu_{}", hex(&mut self.rng, 24));
        if tool {
            let name = *self.rng.pick(TOOLS);
            let file = self.rng.below(300);
            blocks.push(json!({"type": "tool_use", "id": call_id, "name": name,
                               "input": {"file_path": format!("{}/src/module_{file}.ts", self.cwd)}}));
        }
        let stop = if tool { "tool_use" } else { "end_turn" };
        let usage = json!({"input_tokens": self.rng.range(1, 20), "cache_creation_input_tokens": self.rng.range(0, 5_000),
            "cache_read_input_tokens": self.rng.range(0, 150_000), "output_tokens": self.rng.range(10, 4_000),
            "service_tier": "standard"});
        let mut assistant_uuid = String::new();
        for block in blocks {
            let message = json!({"model": MODEL, "id": message_id, "type": "message", "role": "assistant",
                "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage});
            assistant_uuid =
                self.message_line("assistant", message, fields([("requestId", request_id.clone().into())]));
        }
        if tool {
            let len = if self.rng.percent(2.0) { self.rng.range(10_000, 150_000) } else { self.rng.range(50, 2_000) };
            let output = tool_output(&mut self.rng, len);
            let is_error = self.rng.percent(5.0);
            let message = json!({"role": "user", "content": [{"tool_use_id": call_id, "type": "tool_result",
                "content": output, "is_error": is_error}]});
            let result = json!({"stdout": output, "stderr": "", "interrupted": false, "isImage": false});
            let extra = fields([("toolUseResult", result), ("sourceToolAssistantUUID", assistant_uuid.into())]);
            self.message_line("user", message, extra);
        }
    }

    /// `/compact`: the command echo, a boundary that starts a new root, and
    /// the summary line.
    fn compact(&mut self) {
        let echo = "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>";
        let before = self.message_line("user", json!({"role": "user", "content": echo}), Map::new());
        self.parent = None;
        let pre_tokens = self.rng.range(50_000, 180_000);
        self.line(
            "system",
            fields([
                ("subtype", "compact_boundary".into()),
                ("content", "Conversation compacted".into()),
                ("level", "info".into()),
                ("isMeta", false.into()),
                ("logicalParentUuid", before.into()),
                ("compactMetadata", json!({"trigger": "manual", "preTokens": pre_tokens})),
            ]),
        );
        let len = self.rng.range(1_000, 6_000);
        let summary = format!(
            "This session is being continued from a previous conversation that ran out of context. \
             The conversation is summarized below:\n{}",
            prose(&mut self.rng, len)
        );
        let extra = fields([("isCompactSummary", true.into()), ("isVisibleInTranscriptOnly", true.into())]);
        self.message_line("user", json!({"role": "user", "content": summary}), extra);
    }

    fn finish(&mut self) {
        let len = self.rng.range(10, 50);
        let title = prose(&mut self.rng, len);
        let ai_title = json!({"type": "ai-title", "aiTitle": title, "sessionId": self.session_id});
        self.push(&ai_title);
        let last = json!({"type": "last-prompt", "lastPrompt": self.last_prompt, "sessionId": self.session_id,
            "leafUuid": self.parent});
        self.push(&last);
    }
}
