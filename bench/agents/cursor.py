"""Cursor sessions, in the shapes of the hand-written fixtures in
`fixtures/cursor/hand-written` (Cursor needs an account and cannot run
here). Even sessions are conversations of the IDE: a header and a bubble per
message in `cursorDiskKV` of `.config/Cursor/User/globalStorage/state.vscdb`
(the fixture's tables), each prompt answered by thinking and text, then a
bubble per tool call (`toolFormerData`, a tenth failed) with its token
count. Odd sessions are transcripts of the CLI,
`.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl`: each prompt with
its `<timestamp>` and `<user_query>`, answered by thinking, text and tool
calls, and a `turn_ended` line.
"""

import datetime
import json
import sqlite3
from pathlib import Path

from .common import iso, touch

FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "cursor" / "hand-written" / "User" / "globalStorage"
           / "state.vscdb")


def load_templates():
    db = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    schema = [sql for (sql,) in db.execute(
        "select sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by rowid")]
    db.close()
    return schema


def slug(path):
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path).lstrip("-")


def stamp(ms):
    """A prompt's `<timestamp>`, as Cursor writes it (in UTC here)."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    hour = moment.hour % 12 or 12
    half = "AM" if moment.hour < 12 else "PM"
    return f"{moment:%A}, {moment:%b} {moment.day}, {moment.year}, {hour}:{moment.minute:02} {half} (UTC)"


class Writer:
    def __init__(self, schema, home):
        path = home / ".config" / "Cursor" / "User" / "globalStorage" / "state.vscdb"
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        self.home = home
        self.path = path
        self.db = sqlite3.connect(path)
        for sql in schema:
            self.db.execute(sql)
        self.transcripts = 0

    def session(self, s):
        if s.index % 2 == 0:
            self.composer(s)
        else:
            self.transcript(s)

    def composer(self, s):
        cid = s.uuid()
        created = s.now
        headers = []
        put = lambda bubble: (headers.append({"bubbleId": bubble["bubbleId"], "type": bubble["type"]}),
                              self.db.execute("insert into cursorDiskKV values (?, ?)",
                                              (f"bubbleId:{cid}:{bubble['bubbleId']}", json.dumps(bubble, ensure_ascii=False))))
        for _ in range(s.prompts):
            s.pause()
            put({"_v": 3, "type": 1, "bubbleId": s.uuid(), "text": s.prompt(), "createdAt": iso(s.now)})
            s.tick()
            put({"_v": 3, "type": 2, "bubbleId": s.uuid(), "thinking": {"text": s.thinking()}, "text": s.answer(True),
                 "createdAt": iso(s.now), "tokenCount": {"inputTokens": s.rng.randint(2_000, 60_000),
                                                          "outputTokens": s.rng.randint(50, 3_000)}})
            for _ in range(s.rng.randint(0, 3)):
                s.tick()
                failed = s.rng.random() < 0.1
                put({"_v": 3, "type": 2, "bubbleId": s.uuid(), "text": "", "createdAt": iso(s.now),
                     "toolFormerData": {"toolCallId": s.call_id(), "name": "run_terminal_cmd",
                                        "rawArgs": json.dumps({"command": s.prose(30)}), "result": s.output(),
                                        "status": "error" if failed else "completed"},
                     "tokenCount": {"inputTokens": s.rng.randint(2_000, 60_000), "outputTokens": s.rng.randint(20, 400)}})
        header = {"_v": 10, "composerId": cid, "name": s.title(), "createdAt": created, "lastUpdatedAt": s.now,
                  "status": "completed", "modelConfig": {"modelName": "claude-4-sonnet"},
                  "workspaceIdentifier": {"id": s.uuid(), "uri": {"fsPath": s.cwd, "path": s.cwd, "scheme": "file"}},
                  "fullConversationHeadersOnly": headers, "conversationMap": {}}
        self.db.execute("insert into cursorDiskKV values (?, ?)", (f"composerData:{cid}", json.dumps(header, ensure_ascii=False)))

    def transcript(self, s):
        tid = s.uuid()
        records = []
        for _ in range(s.prompts):
            s.pause()
            text = f"<timestamp>{stamp(s.now)}</timestamp>\n<user_query>\n{s.prompt()}\n</user_query>"
            records.append({"role": "user", "message": {"content": [{"type": "text", "text": text}]}})
            content = [{"type": "thinking", "thinking": s.thinking()}, {"type": "text", "text": s.answer(True)}]
            for _ in range(s.rng.randint(0, 3)):
                content.append({"type": "tool_use", "name": "Shell", "input": {"command": s.prose(30)}})
            records.append({"role": "assistant", "message": {"content": content}})
            records.append({"role": "assistant", "message": {"content": [{"type": "text", "text": s.answer()}]}})
            records.append({"type": "turn_ended", "status": "success"})
            s.tick()
        path = (self.home / ".cursor" / "projects" / slug(s.cwd) / "agent-transcripts" / tid / f"{tid}.jsonl")
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            for record in records:
                out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
                out.write("\n")
        touch(path, s.now)
        self.transcripts += path.stat().st_size

    def close(self):
        self.db.commit()
        self.db.close()
        return self.path.stat().st_size + self.transcripts
