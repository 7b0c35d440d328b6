"""Gemini CLI sessions, made from the real ones in
`fixtures/gemini/real-0.61.0`: `~/.gemini/tmp/<project>/chats/
session-<minute>-<id prefix>.jsonl`, with `projects.json` and each project's
`.project_root`.

A session is written as the CLI writes one: the metadata and the session
context, then prompts, each a turn of a fixture session (the prompt, the
model's answers with thoughts and tool calls, the tool responses; or a
failed request, which the CLI takes back out of the history) with fresh ids
and new texts, `$set lastUpdated` after each record, and a title
(`$set summary`). Where the session's plan has a resume, the metadata and
context are written again (in a file named for the minute of the resume
when that differs, which then holds nothing else), and the whole history is
restated with `$set messages`, as the CLI restates it (each model turn's
tool responses once more per resume). The fixture's compression, rewind and
subagent are left out.
"""

import hashlib
import json
import re
from pathlib import Path

from .common import iso, write_jsonl

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "gemini" / "real-0.61.0" / "home" / ".gemini"
TOOL_CALL = re.compile(r"call_[A-Za-z0-9_]+")
CONTEXT_ID = "d04923d38bb0f6017037e74183378ef4"
# Turns left out: after the compression, the rewound one, the withdrawn one, the subagent's.
LEFT_OUT = ("a4cddc10", "659f4731", "e02b5cac", "7dd0c6db")


def _prompt(record):
    content = record.get("content")
    return (record.get("type") == "user" and isinstance(content, list) and content
            and "text" in content[0] and record.get("id") != CONTEXT_ID)


def load_templates():
    """The fixture's turns: the messages from a prompt to the next, each
    message as its last record has it."""
    turns = []
    for path in sorted(FIXTURE.glob("tmp/*/chats/session-*.jsonl")):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        cwd = (path.parents[1] / ".project_root").read_text().strip()
        latest, order = {}, []
        for record in records:
            if "type" in record and "id" in record:
                if record["id"] not in latest:
                    order.append(record["id"])
                latest[record["id"]] = record
        turn = None
        for message_id in order:
            message = latest[message_id]
            if _prompt(message):
                turn = None if message_id.startswith(LEFT_OUT) else {"messages": [], "cwd": cwd}
                if turn:
                    turns.append(turn)
            if turn is not None:
                turn["messages"].append(message)
    return turns


def _has_tools(turn):
    return any(m.get("toolCalls") for m in turn["messages"])


def _failed(turn):
    return any(m["type"] == "error" for m in turn["messages"])


def _history(message):
    """A message as the CLI restates it: a model turn's content as parts."""
    if message["type"] != "gemini":
        return message
    parts = [{"text": f"**{t['subject']}** {t['description']}", "thought": True} for t in message.get("thoughts") or []]
    if message.get("content"):
        parts.append({"text": message["content"]})
    for call in message.get("toolCalls") or []:
        parts.append({"functionCall": {"id": call["id"], "name": call["name"], "args": call["args"]}})
    return dict(message, content=parts)


def _retext(s, messages):
    outputs = {}
    for message in messages:
        if _prompt(message):
            message["content"][0]["text"] = s.prompt()
            if "displayContent" in message:
                message["displayContent"] = [{"text": message["content"][0]["text"]}]
        elif message["type"] == "gemini":
            calls = message.get("toolCalls") or []
            if message.get("content"):
                message["content"] = s.answer(with_tools=bool(calls))
            for thought in message.get("thoughts") or []:
                thought["subject"] = s.title()[:30]
                thought["description"] = s.thinking()
            for call in calls:
                for result in call.get("result") or []:
                    response = result.get("functionResponse", {}).get("response", {})
                    if "output" in response:
                        response["output"] = outputs[call["id"]] = s.output()
                        if isinstance(call.get("resultDisplay"), str):
                            call["resultDisplay"] = response["output"]
        elif message["type"] == "user":
            for part in message["content"]:
                response = part.get("functionResponse", {})
                if response.get("id") in outputs and "output" in response.get("response", {}):
                    response["response"]["output"] = outputs[response["id"]]


def file_name(start_ms, session_id):
    return f"session-{iso(start_ms)[:16].replace(':', '-')}-{session_id[:8]}.jsonl"


class Project:
    """A project folder under `<gemini dir>/tmp`, named after the cwd's last part."""

    def __init__(self, gemini_dir, cwd):
        self.cwd = cwd
        self.slug = re.sub(r"[^a-z0-9]+", "-", cwd.lower()).strip("-")
        self.dir = gemini_dir / "tmp" / self.slug
        self.dir.mkdir(parents=True, exist_ok=True)
        (self.dir / ".project_root").write_text(cwd)
        self.hash = hashlib.sha256(cwd.encode()).hexdigest()


def generate(s, turns, project):
    """Writes session `s` into `project`; returns the bytes written."""
    session_id = s.uuid()
    main = project.dir / "chats" / file_name(s.now, session_id)
    files = {main: []}
    written = {}
    live = []

    def put(path, record):
        files[path].append(record)
        files[path].append({"$set": {"lastUpdated": iso(s.now)}})

    def start(path):
        meta = {"sessionId": session_id, "projectHash": project.hash, "startTime": iso(s.now),
                "lastUpdated": iso(s.now), "kind": "main"}
        context = (f"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n"
                   f"My operating system is: linux\n"
                   f"The project's temporary directory is: /home/dev/.gemini/tmp/{project.slug}\n"
                   f"- **Workspace Directories:**\n  - {s.cwd}\n</session_context>")
        files.setdefault(path, []).append(meta)
        written[path] = s.now
        ctx = {"id": CONTEXT_ID, "timestamp": iso(s.tick()), "type": "user", "content": [{"text": context}]}
        files[path].append({"$set": {"messages": [ctx], "lastUpdated": iso(s.now)}})
        return ctx

    ctx = start(main)
    for number in range(s.prompts):
        s.pause()
        if number in s.resumed:
            s.tick(600_000, 7_200_000)
            ctx = start(main.with_name(file_name(s.now, session_id)))
            files[main].append({"$set": {"sessionId": session_id}})
            restated = []
            for message in live:
                restated.append(message)
                if message["type"] == "gemini" and message.get("toolCalls"):
                    restated.append({"id": message["id"] + "_response", "timestamp": iso(s.now), "type": "user",
                                     "content": [r for c in message["toolCalls"] for r in c.get("result") or []]})
            live = restated
            files[main].append({"$set": {"messages": [ctx] + live, "lastUpdated": iso(s.tick())}})
        turn = s.pick(turns, lambda t: 1 if _failed(t) else 4 if _has_tools(t) else 2)
        messages = s.fresh(turn["messages"], {}, [(TOOL_CALL, s.call_id)], [(turn["cwd"], s.cwd)])
        _retext(s, messages)
        for message in messages:
            message["timestamp"] = iso(s.tick())
            for call in message.get("toolCalls") or []:
                call["timestamp"] = message["timestamp"]
            if message["type"] == "gemini" and message.get("toolCalls"):
                put(main, {k: v for k, v in message.items() if k != "toolCalls"})
                files[main].append(message)
            else:
                put(main, message)
            if message["type"] in ("user", "gemini"):
                live.append(_history(message))
            if _failed(turn) and message is messages[0]:
                live.pop()
                files[main].append({"$set": {"messages": list(live), "lastUpdated": iso(s.tick())}})
    if s.rng.random() < 0.7:
        files[main].append({"$set": {"summary": s.title(), "memoryScratchpad": {"version": 1}}})
    written[main] = s.now
    return sum(write_jsonl(path, records, written[path]) for path, records in files.items())
