"""OpenCode sessions, made from the real database in
`fixtures/opencode/real-1.18.33`: one `~/.local/share/opencode/opencode.db`
holding every session as rows of `session`, `message` and `part`, with the
`project` rows they belong to and the `event` log OpenCode keeps beside
them (an event per row written, as the fixture has).

The database has the fixture's schema and migrations. A session is prompts,
each a turn of a fixture session (the user's message and the assistant's
steps with their parts up to the next user message: text, reasoning, tool
calls that succeed or fail, an image, a failed request) with fresh ids and
new texts; where the session's plan has a compaction, one of the
fixture's (asked for, or automatic: its marker, its summary and the prompt
OpenCode adds after it). The subagent's turn (a `task` call) is left out: it needs a session
of its own. The file is left in WAL mode without its `-wal` and `-shm`, as
OpenCode leaves it when it exits.
"""

import hashlib
import json
import re
import sqlite3
from pathlib import Path

from .common import iso

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "opencode" / "real-1.18.33" / "opencode.db"
TOOL_CALL = re.compile(r"call_[A-Za-z0-9_]+")
SLUG_WORDS = ("curious", "nimble", "stellar", "hidden", "sunny", "glowing", "quiet", "brave", "swift", "gentle")
SLUG_NOUNS = ("engine", "comet", "tiger", "lagoon", "eagle", "sailor", "harbor", "forest", "river", "meadow")


def load_templates(fixture=FIXTURE):
    """The schema, the migrations, a session row, and the turns of the
    database `fixture` (OpenCode's, or another agent's of OpenCode's shape:
    Kilo's, kilo.py)."""
    db = sqlite3.connect(f"file:{fixture}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    schema = [sql for (sql,) in db.execute("select sql from sqlite_master where sql is not null order by rowid")]
    migrations = [tuple(r) for r in db.execute("select * from migration")]
    session_row = dict(db.execute("select * from session where parent_id is null order by time_created").fetchone())
    turns = []
    for (session_id, cwd) in db.execute("select id, directory from session where parent_id is null"):
        messages = [dict(m) for m in db.execute(
            "select * from message where session_id = ? order by time_created, id", (session_id,))]
        turn = None
        for message in messages:
            message["data"] = json.loads(message["data"])
            message["parts"] = [json.loads(p["data"]) for p in db.execute(
                "select data from part where message_id = ? order by id", (message["id"],))]
            if message["data"]["role"] == "user":
                turn = {"messages": [], "cwd": cwd}
                turns.append(turn)
            turn["messages"].append(message)
    db.close()
    turns = [t for t in turns if not any(p.get("tool") == "task" for m in t["messages"] for p in m["parts"])]
    for turn in turns:
        first = turn["messages"][0]["parts"]
        turn["kind"] = ("compaction" if any(p.get("type") == "compaction" for p in first)
                        else "continue" if first and all(p.get("synthetic") for p in first) else "prompt")
    compaction = [t for t in turns if t["kind"] != "prompt"]
    turns = [t for t in turns if t["kind"] == "prompt"]
    return {"schema": schema, "migrations": migrations, "session": session_row, "turns": turns,
            "compaction": compaction}


def _has_tools(turn):
    return any(p.get("type") == "tool" for m in turn["messages"] for p in m["parts"])


class Ids:
    """OpenCode's ids: a prefix, 12 hex digits of the time (ms × 4096 plus a
    counter; bitwise negated for sessions, so the newest sorts first) and
    14 random letters and digits."""

    def __init__(self, s):
        self.s, self.counter = s, 0

    def make(self, prefix, ms, descending=False):
        self.counter += 1
        value = (ms * 0x1000 + self.counter % 0x1000) & 0xFFFFFFFFFFFF
        if descending:
            value = ~value & 0xFFFFFFFFFFFF
        return f"{prefix}_{value:012x}{self.s.alnum(14)}"


def _retext(s, message, part):
    kind = part.get("type")
    role = message["data"]["role"]
    if kind == "text" and role == "user" and not part.get("synthetic"):
        part["text"] = s.prompt()
    elif kind == "text" and role == "assistant":
        part["text"] = s.summary() if message["data"].get("summary") else s.answer()
    elif kind == "reasoning":
        part["text"] = s.thinking()
    elif kind == "tool" and part["state"].get("status") == "completed":
        output = s.output()
        part["state"]["output"] = output
        if "output" in (part["state"].get("metadata") or {}):
            part["state"]["metadata"]["output"] = output


def _times(value, ms):
    """Every `time` object's stamps in `value` moved to `ms`."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "time" and isinstance(inner, dict):
                for k in inner:
                    if isinstance(inner[k], int):
                        inner[k] = ms
            else:
                _times(inner, ms)
    elif isinstance(value, list):
        for inner in value:
            _times(inner, ms)


class Writer:
    """The database being written, and its rows' ids."""

    def __init__(self, templates, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute("pragma journal_mode = wal")
        for sql in templates["schema"]:
            self.db.execute(sql)
        marks = ",".join("?" * len(templates["migrations"][0]))
        self.db.executemany(f"insert into migration values ({marks})", templates["migrations"])
        self.templates = templates
        self.projects = set()

    def event(self, ids, session_id, seq, kind, data, ms):
        self.db.execute("insert into event values (?, ?, ?, ?, ?)",
                        (ids.make("evt", ms), session_id, seq, kind, json.dumps(data, separators=(",", ":"))))

    def session(self, s):
        ids = Ids(s)
        project = hashlib.sha1(s.cwd.encode()).hexdigest()
        if project not in self.projects:
            self.projects.add(project)
            self.db.execute("insert into project (id, worktree, vcs, time_created, time_updated, sandboxes) "
                            "values (?, ?, 'git', ?, ?, '[]')", (project, s.cwd, s.now, s.now))
        session_id = ids.make("ses", s.now, descending=True)
        created = s.now
        seq = 0
        self.event(ids, session_id, seq, "session.created.1", {"sessionID": session_id}, s.now)
        for number in range(s.prompts):
            chosen = [s.pick(self.templates["turns"], lambda t: 4 if _has_tools(t) else 1)]
            if number in s.compacted:
                chosen[:0] = self._compaction(s)
            cloned = [m for turn in chosen
                      for m in s.fresh(turn["messages"], {}, [(TOOL_CALL, s.call_id)], [(turn["cwd"], s.cwd)])]
            s.pause()
            user_id = None
            for message in cloned:
                start = s.tick()
                message_id = ids.make("msg", start)
                data = message["data"]
                if data["role"] == "user":
                    user_id = message_id
                else:
                    data["parentID"] = user_id
                for part in message["parts"]:
                    at = s.tick(5, 2_000)
                    _retext(s, message, part)
                    _times(part, at)
                    part_id = ids.make("prt", at)
                    self.db.execute("insert into part values (?, ?, ?, ?, ?, ?)",
                                    (part_id, message_id, session_id, at, at, json.dumps(part, separators=(",", ":"))))
                    seq += 1
                    self.event(ids, session_id, seq, "message.part.updated.1", {"sessionID": session_id, "part": dict(
                        part, id=part_id, sessionID=session_id, messageID=message_id), "time": at}, at)
                _times(data, start)
                self.db.execute("insert into message values (?, ?, ?, ?, ?)",
                                (message_id, session_id, start, s.now, json.dumps(data, separators=(",", ":"))))
                seq += 1
                self.event(ids, session_id, seq, "message.updated.1",
                           {"sessionID": session_id, "info": dict(data, id=message_id, sessionID=session_id)}, s.now)
        row = dict(self.templates["session"])
        placeholder = s.rng.random() < 0.1
        row.update(id=session_id, project_id=project, slug=f"{s.rng.choice(SLUG_WORDS)}-{s.rng.choice(SLUG_NOUNS)}",
                   directory=s.cwd, path="", title=f"New session - {iso(created)}" if placeholder else s.title(),
                   tokens_input=s.rng.randint(1_000, 900_000), tokens_output=s.rng.randint(100, 50_000),
                   time_created=created, time_updated=s.now)
        columns = ", ".join(row)
        self.db.execute(f"insert into session ({columns}) values ({', '.join('?' * len(row))})", list(row.values()))
        seq += 1
        self.event(ids, session_id, seq, "session.updated.1", {"sessionID": session_id, "info": {
            "id": session_id, "directory": s.cwd, "title": row["title"]}}, s.now)
        self.db.execute("insert into event_sequence values (?, ?, null)", (session_id, seq))

    def _compaction(self, s):
        """A compaction's turns: asked for, or automatic and followed by the
        prompt OpenCode adds after it."""
        templates = self.templates["compaction"]
        turn = s.rng.choice([t for t in templates if t["kind"] == "compaction"])
        automatic = any(p.get("auto") for p in turn["messages"][0]["parts"])
        return [turn] + ([t for t in templates if t["kind"] == "continue"] if automatic else [])

    def close(self):
        self.db.commit()
        self.db.close()
