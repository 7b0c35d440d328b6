"""Factory Droid sessions, made from the real ones in
`fixtures/droid/real-0.225.2`: `~/.factory/sessions/<cwd slug>/<id>.jsonl`
with its `<id>.settings.json`.

A session is the fixture's `session_start` line, then prompts, each a turn of
a fixture session (the context Droid sends the model, the prompt, the model's
answers and tool calls, the tool results, the turn's outcome) with fresh ids
and new texts (the context only before the first prompt, as Droid sends it),
each message's `parentId` the message before it; the settings file
holds token totals that grow with the session.
"""

import json
import re
from pathlib import Path

from .common import clone, iso, touch, write_jsonl

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "droid" / "real-0.225.2" / "factory-home" / "sessions"
TOOL_CALL = re.compile(r"call_[A-Za-z0-9_]+")


def _prompt(record):
    message = record.get("message") or {}
    return (record.get("type") == "message" and message.get("role") == "user"
            and message.get("visibility") != "llm_only"
            and not any(b.get("type") == "tool_result" for b in message.get("content") or []))


def load_templates():
    """The fixture's first line, its settings file, and the turns of its
    sessions (each prompt with the context before it, up to the next)."""
    turns, start, settings = [], None, None
    for path in sorted(FIXTURE.glob("*/*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        start = start or records[0]
        settings = settings or json.loads(path.with_name(path.stem + ".settings.json").read_text())
        body = records[1:]
        cuts = [i for i, r in enumerate(body) if _prompt(r)]
        # The context line sent with a prompt comes just before it.
        cuts = [i - 1 if i > 0 and (body[i - 1].get("message") or {}).get("visibility") == "llm_only" else i
                for i in cuts]
        cuts[0] = 0
        for a, b in zip(cuts, cuts[1:] + [len(body)]):
            turns.append({"records": body[a:b], "cwd": records[0]["cwd"]})
    return turns, start, settings


def _has_tools(turn):
    return any(b.get("type") == "tool_use" for r in turn["records"]
               for b in (r.get("message") or {}).get("content") or [])


def _retext(s, record):
    message = record.get("message")
    if not message or message.get("visibility") == "llm_only":
        return
    content = message.get("content") or []
    calls = any(b.get("type") == "tool_use" for b in content)
    for block in content:
        kind = block.get("type")
        if kind == "text":
            block["text"] = s.prompt() if message["role"] == "user" else s.answer(with_tools=calls)
        elif kind == "thinking":
            block["thinking"] = s.thinking()
        elif kind == "tool_result":
            block["content"] = s.output()


def generate(s, templates, home):
    """Writes session `s` under the Factory folder `home`; returns its size."""
    turns, start, settings = templates
    session_id = s.uuid()
    records = []
    for _ in range(s.prompts):
        s.pause()
        template = s.pick(turns, lambda t: 4 if _has_tools(t) else 1)
        for record in s.fresh(template["records"], {}, [(TOOL_CALL, s.call_id)], [(template["cwd"], s.cwd)]):
            # Droid sends its context with the session's first prompt.
            if records and (record.get("message") or {}).get("visibility") == "llm_only":
                continue
            if record.get("type") == "message":
                if records and "id" in records[-1]:
                    record["parentId"] = records[-1]["id"]
                record["timestamp"] = iso(s.tick())
                _retext(s, record)
            records.append(record)
    first = clone(start)
    first.update(id=session_id, cwd=s.cwd, title=s.title())
    folder = home / "sessions" / s.cwd.replace("/", "-")
    size = write_jsonl(folder / f"{session_id}.jsonl", [first] + records, s.now)
    totals = clone(settings)
    totals["tokenUsage"]["inputTokens"] = 4_000 * s.prompts + s.rng.randrange(10_000)
    totals["tokenUsage"]["outputTokens"] = 300 * s.prompts + s.rng.randrange(1_000)
    path = folder / f"{session_id}.settings.json"
    path.write_text(json.dumps(totals, indent=2))
    touch(path, s.now)
    return size
