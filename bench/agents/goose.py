"""Goose sessions, in the shapes of the hand-written fixtures in
`fixtures/goose/hand-written` (Goose cannot run here): one
`~/.local/share/goose/sessions/sessions.db` with the fixture's schema, each
session a `sessions` row, its messages as `content_json` rows (prompts; the
assistant's thinking, text and tool requests; the user's tool responses, a
tenth of them failed; a compaction's summary, seen only by the model, where
the plan has one) and a `usage_ledger` row per assistant message.
"""

import json
import sqlite3
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "goose" / "hand-written" / "sessions" / "sessions.db"


def load_templates():
    """The fixture's schema."""
    db = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    schema = [sql for (sql,) in db.execute(
        "select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by rowid")]
    db.close()
    return schema


def _sql_time(ms):
    from .common import iso
    return iso(ms)[:19].replace("T", " ")


class Writer:
    def __init__(self, schema, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        self.db = sqlite3.connect(path)
        for sql in schema:
            self.db.execute(sql)
        self.days = {}

    def message(self, sid, role, content, ms, n, visible=True):
        meta = {"userVisible": visible, "agentVisible": True}
        self.db.execute("insert into messages (session_id, role, content_json, created_timestamp, metadata_json,"
                        " message_id) values (?, ?, ?, ?, ?, ?)",
                        (sid, role, json.dumps(content, ensure_ascii=False), ms // 1000, json.dumps(meta),
                         f"msg_{sid}_{n}"))

    def session(self, s):
        day = _sql_time(s.now)[:10].replace("-", "")
        self.days[day] = self.days.get(day, 0) + 1
        sid = f"{day}_{self.days[day]}"
        created = s.now
        n = 0
        for number in range(s.prompts):
            if number in s.compacted:
                self.message(sid, "assistant", [{"type": "text", "text": s.summary()}], s.tick(), n, visible=False)
                n += 1
            if number in s.resumed:
                s.pause()
            self.message(sid, "user", [{"type": "text", "text": s.prompt()}], s.pause(), n)
            n += 1
            for _ in range(s.rng.randint(0, 3)):
                call = s.call_id()
                request = {"type": "toolRequest", "id": call, "toolCall": {"status": "success", "value": {
                    "name": "developer__shell", "arguments": {"command": s.prose(30)}}}}
                self.message(sid, "assistant", [{"type": "text", "text": s.answer(True)}, request], s.tick(), n)
                n += 1
                self.ledger(sid, s)
                value = {"content": [{"type": "text", "text": s.output()}], "isError": s.rng.random() < 0.1}
                response = {"type": "toolResponse", "id": call, "toolResult": {"status": "success", "value": value}}
                self.message(sid, "user", [response], s.tick(), n)
                n += 1
            content = [{"type": "thinking", "thinking": s.thinking(), "signature": ""},
                       {"type": "text", "text": s.answer()}]
            self.message(sid, "assistant", content, s.tick(), n)
            n += 1
            self.ledger(sid, s)
        self.db.execute("insert into sessions (id, name, session_type, working_dir, created_at, updated_at,"
                        " model_config_json) values (?, ?, 'user', ?, ?, ?, ?)",
                        (sid, s.title(), s.cwd, _sql_time(created), _sql_time(s.now),
                         json.dumps({"model_name": "gpt-4o"})))

    def ledger(self, sid, s):
        self.db.execute("insert into usage_ledger (session_id, provider, model, input_tokens, output_tokens,"
                        " cache_read_input_tokens, cache_write_input_tokens, cost, created_at)"
                        " values (?, 'openai', 'gpt-4o', ?, ?, ?, 0, ?, ?)",
                        (sid, s.rng.randint(2_000, 60_000), s.rng.randint(50, 3_000), s.rng.randint(0, 1_000),
                         s.rng.random() / 50, _sql_time(s.now)))

    def close(self):
        self.db.commit()
        self.db.close()
