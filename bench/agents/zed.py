"""Zed agent threads, in the shapes of the hand-written fixtures in
`fixtures/zed/hand-written` (Zed cannot run here): one
`~/.local/share/zed/threads/threads.db` with the fixture's table, a row per
thread whose data is the current thread JSON (`version` 0.3.0), zstd as Zed
writes it (here zstd frames of stored blocks: Python has no zstd compressor
before 3.14). A thread is prompts, each answered with thinking, text and tool
uses with their results (a tenth failed), a request's token usage per
prompt.
"""

import json
import sqlite3
import struct
from pathlib import Path

from .common import iso

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "zed" / "hand-written" / "threads" / "threads.db"


def load_templates():
    db = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    schema = [sql for (sql,) in db.execute(
        "select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by rowid")]
    db.close()
    return schema


def zstd_stored(data):
    out = struct.pack("<I", 0xFD2FB528) + bytes([0xA0]) + struct.pack("<I", len(data))
    chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)] or [b""]
    for n, chunk in enumerate(chunks):
        out += struct.pack("<I", (len(chunk) << 3) | (n == len(chunks) - 1))[:3] + chunk
    return out


class Writer:
    def __init__(self, schema, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        self.path = path
        self.db = sqlite3.connect(path)
        for sql in schema:
            self.db.execute(sql)

    def session(self, s):
        tid = s.uuid()
        created = s.now
        messages, usage = [], {}
        for number in range(s.prompts):
            if number in s.resumed:
                s.pause()
                messages.append("Resume")
            uid = s.uuid()
            s.pause()
            messages.append({"User": {"id": uid, "content": [{"Text": s.prompt()}]}})
            content = [{"Thinking": {"text": s.thinking(), "signature": None}}, {"Text": s.answer(True)}]
            results = {}
            for _ in range(s.rng.randint(0, 3)):
                call = s.call_id()
                content.append({"ToolUse": {"id": call, "name": "terminal", "raw_input": "{}",
                                            "input": {"command": s.prose(30), "cd": "."}, "is_input_complete": True}})
                results[call] = {"tool_use_id": call, "tool_name": "terminal", "is_error": s.rng.random() < 0.1,
                                 "content": {"Text": s.output()}, "output": None}
            content.append({"Text": s.answer()})
            s.tick()
            messages.append({"Agent": {"content": content, "tool_results": results, "reasoning_details": None}})
            usage[uid] = {"input_tokens": s.rng.randint(2_000, 60_000), "output_tokens": s.rng.randint(50, 3_000),
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": s.rng.randint(0, 9_000)}
        title = s.title()
        thread = {"title": title, "version": "0.3.0", "updated_at": iso(s.now), "messages": messages,
                  "request_token_usage": usage, "model": {"provider": "anthropic", "model": "claude-sonnet-4"}}
        data = zstd_stored(json.dumps(thread, ensure_ascii=False).encode())
        self.db.execute("insert into threads (id, summary, updated_at, data_type, data, folder_paths,"
                        " folder_paths_order, created_at) values (?, ?, ?, 'zstd', ?, ?, '0', ?)",
                        (tid, title, iso(s.now), data, s.cwd, iso(created)))

    def close(self):
        self.db.commit()
        self.db.close()
        return self.path.stat().st_size
