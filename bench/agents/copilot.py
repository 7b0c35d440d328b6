"""GitHub Copilot CLI sessions, made from the real ones in
`fixtures/copilot/real-1.0.102`: `~/.copilot/session-state/<id>/events.jsonl`
and `workspace.yaml` beside it.

A session is the fixture's `session.start` and then prompts, each a turn of
a fixture session (its prompt, system prompt, model calls with usage
records, tool calls and results, an image, a subagent, a failed request)
with fresh ids and new texts. Between prompts, now and then, the process
ends and the session is resumed (the fixture's `session.shutdown`,
`session.resume` and model change), or the history is compacted (the
session's plan says when: `common.py`). Every event's `parentId` is the
event before it, as Copilot writes them.
"""

import json
import re
from pathlib import Path

from .common import clone, iso, touch, write_jsonl

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "copilot" / "real-1.0.102" / "copilot-home"
TOOL_CALL = re.compile(r"call_[A-Za-z0-9_]+")
OLD_CWDS = ("/home/dev/projects/alpha", "/home/dev/projects/beta")


def _top_prompt(event):
    return event["type"] == "user.message" and "agentId" not in event


RESUME_EVENTS = {"session.shutdown", "session.resume", "session.model_change"}
COMPACTION_EVENTS = {"session.compaction_start", "session.compaction_complete"}


def load_templates():
    """The fixture's sessions: `session.start`, the turns (the events from a
    prompt, with the images it attaches, to the next prompt), the resumes and
    the compactions between them."""
    start, turns, resumes, compactions = None, [], [], []
    for events_file in sorted((FIXTURE / "session-state").glob("*/events.jsonl")):
        events = [json.loads(line) for line in events_file.read_text().splitlines() if line.strip()]
        session = events[0]["data"]["sessionId"]
        cuts = [i for i, e in enumerate(events) if _top_prompt(e)]
        # Images a prompt attaches are stored just before it.
        cuts = [next(j for j in range(i, -1, -1) if j == 0 or events[j - 1]["type"] != "session.binary_asset")
                for i in cuts]
        start = start or events[0]
        for a, b in zip(cuts, cuts[1:] + [len(events)]):
            top = [e for e in events[a:b] if "agentId" not in e]
            turn = [e for e in events[a:b] if e not in top or e["type"] not in RESUME_EVENTS | COMPACTION_EVENTS]
            turns.append({"events": turn, "session": session})
            resume = [e for e in top if e["type"] in RESUME_EVENTS]
            if any(e["type"] == "session.resume" for e in resume):
                resumes.append({"events": resume, "session": session})
            compaction = [e for e in top if e["type"] in COMPACTION_EVENTS]
            if compaction:
                compactions.append({"events": compaction, "session": session})
    return start, turns, resumes, compactions


def _has_tools(turn):
    return any(e["type"] == "tool.execution_start" for e in turn["events"])


def _retext(s, event, prompt_text):
    """New texts for one event of a cloned turn."""
    data = event["data"]
    kind = event["type"]
    if _top_prompt(event):
        data["content"] = prompt_text
        data["transformedContent"] = f"<current_datetime>{iso(s.now)}</current_datetime>\n\n{prompt_text}"
    elif kind == "assistant.message" and "agentId" not in event:
        if data.get("content"):
            data["content"] = s.answer(with_tools=bool(data.get("toolRequests")))
        if data.get("reasoningText"):
            data["reasoningText"] = s.thinking()
    elif kind == "tool.execution_complete" and data.get("success") and isinstance(data.get("result"), dict):
        output = s.output()
        data["result"]["content"] = output
        if "detailedContent" in data["result"]:
            data["result"]["detailedContent"] = output
    elif kind == "session.compaction_complete" and data.get("summaryContent"):
        data["summaryContent"] = s.summary()


def _yaml(text):
    return json.dumps(text, ensure_ascii=False)


def generate(s, templates, home):
    """Writes session `s` under the Copilot home `home`; returns its size."""
    start_template, turns, resumes, compactions = templates
    session_id = s.uuid()
    start = clone(start_template)
    start["id"], start["parentId"] = s.uuid(), None
    start["data"].update(sessionId=session_id, startTime=iso(s.now), context={"cwd": s.cwd})
    start["timestamp"] = iso(s.tick())
    events = [start]
    first_prompt = None
    for number in range(s.prompts):
        s.pause()
        chosen = []
        if number in s.resumed:
            chosen.append(s.rng.choice(resumes))
        if number in s.compacted:
            chosen.append(s.rng.choice(compactions))
        chosen.append(s.pick(turns, lambda t: 4 if _has_tools(t) else 1))
        prompt_text = s.prompt()
        first_prompt = first_prompt or prompt_text
        for template in chosen:
            ids = {template["session"]: session_id}
            cloned = s.fresh(template["events"], ids, [(TOOL_CALL, s.call_id)], [(old, s.cwd) for old in OLD_CWDS])
            for event in cloned:
                event["timestamp"] = iso(s.tick())
                event["parentId"] = events[-1]["id"]
                _retext(s, event, prompt_text)
                events.append(event)
    # The process ends: a session on disk ends with its shutdown.
    shutdown = s.fresh(resumes[0]["events"][0], {resumes[0]["session"]: session_id})
    shutdown["timestamp"], shutdown["parentId"] = iso(s.tick()), events[-1]["id"]
    events.append(shutdown)
    directory = home / "session-state" / session_id
    size = write_jsonl(directory / "events.jsonl", events, s.now)
    named = s.rng.random() < 0.3
    name = s.title() if named else first_prompt.split("\n")[0][:100]
    workspace = (
        f"id: {session_id}\ncwd: {s.cwd}\nclient_name: github/cli\nname: {_yaml(name)}\n"
        f"user_named: {'true' if named else 'false'}\nsummary_count: 0\nfork_count: 0\n"
        f"created_at: {iso(s.start)}\nupdated_at: {iso(s.now)}\n"
    )
    (directory / "workspace.yaml").write_text(workspace)
    touch(directory / "workspace.yaml", s.now)
    return size + len(workspace.encode())
