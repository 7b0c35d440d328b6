"""Crush sessions, in the shapes of the hand-written fixtures in
`fixtures/crush/hand-written` (Crush cannot run here): a `.crush/crush.db`
per project (the projects under the home folder, at their paths), with the
fixture's schema, listed in `~/.local/share/crush/projects.json`. A session
is a `sessions` row with its token totals and its messages: prompts, the
assistant's reasoning, text and tool calls, `tool` messages with their
results (a tenth failed), and a summary message where the plan has a
compaction.
"""

import json
import sqlite3
from pathlib import Path

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "crush" / "hand-written" / "alpha" / ".crush" / "crush.db"


def load_templates():
    db = sqlite3.connect(f"file:{FIXTURE}?mode=ro", uri=True)
    schema = [sql for (sql,) in db.execute(
        "select sql from sqlite_master where sql is not null and name not like 'sqlite_%' order by rowid")]
    db.close()
    return schema


def _part(kind, **data):
    return {"type": kind, "data": data}


class Writer:
    def __init__(self, schema, home):
        self.schema, self.home, self.dbs = schema, home, {}

    def db(self, cwd):
        if cwd not in self.dbs:
            project = self.home / cwd.lstrip("/")
            path = project / ".crush" / "crush.db"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)
            db = sqlite3.connect(path)
            for sql in self.schema:
                db.execute(sql)
            self.dbs[cwd] = (project, path, db)
        return self.dbs[cwd][2]

    def message(self, db, sid, role, parts, ms, summary=False):
        mid = f"{sid[:8]}-{ms}-{len(parts)}-{role}"
        db.execute("insert into messages (id, session_id, role, parts, model, created_at, updated_at, provider,"
                   " is_summary_message) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   (mid, sid, role, json.dumps(parts, ensure_ascii=False),
                    "claude-sonnet-4" if role == "assistant" else None, ms // 1000, ms // 1000,
                    "anthropic" if role == "assistant" else None, 1 if summary else 0))

    def session(self, s):
        db = self.db(s.cwd)
        sid = s.uuid()
        created = s.now
        for number in range(s.prompts):
            if number in s.compacted:
                self.message(db, sid, "assistant", [_part("text", text=s.summary())], s.tick(), summary=True)
            if number in s.resumed:
                s.pause()
            self.message(db, sid, "user", [_part("text", text=s.prompt())], s.pause())
            for _ in range(s.rng.randint(0, 3)):
                call = s.call_id()
                self.message(db, sid, "assistant", [
                    _part("text", text=s.answer(True)),
                    _part("tool_call", id=call, name="bash", input=json.dumps({"command": s.prose(30)}), finished=True),
                    _part("finish", reason="tool_use", time=s.now // 1000)], s.tick())
                self.message(db, sid, "tool", [_part("tool_result", tool_call_id=call, name="bash", content=s.output(),
                                                     metadata="", is_error=s.rng.random() < 0.1)], s.tick())
            self.message(db, sid, "assistant", [
                _part("reasoning", thinking=s.thinking(), signature=""), _part("text", text=s.answer()),
                _part("finish", reason="end_turn", time=s.now // 1000)], s.tick())
        db.execute("insert into sessions (id, title, prompt_tokens, completion_tokens, cost, updated_at, created_at)"
                   " values (?, ?, ?, ?, ?, ?, ?)",
                   (sid, s.title(), s.rng.randint(10_000, 900_000), s.rng.randint(500, 40_000), s.rng.random(),
                    s.now // 1000, created // 1000))

    def close(self):
        projects = []
        for project, path, db in self.dbs.values():
            db.commit()
            db.close()
            projects.append({"path": str(project), "data_dir": ".crush"})
        listing = self.home / ".local" / "share" / "crush" / "projects.json"
        listing.parent.mkdir(parents=True, exist_ok=True)
        listing.write_text(json.dumps({"projects": projects}, indent=2))
        return sum(path.stat().st_size for _, path, _ in self.dbs.values())
