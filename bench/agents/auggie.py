"""Auggie sessions, made from the hand-written ones in
`fixtures/auggie/hand-written`: `~/.augment/sessions/<id>.json`, one
pretty-printed JSON document a session, without a final newline.

A session is prompts, each answered as the fixture's first turn is: a
response with thinking, text and a tool call, whose result opens the next
exchange's request (a tenth failed, as the fixture's `launch-process`),
then the answer; every response has its token usage node. Where the
session's plan compacts, the older exchanges are dropped and the prompt's
request carries the summary node, as the fixture's compacted session.
"""

import json
from pathlib import Path

from .common import clone, iso, touch

FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "auggie" / "hand-written" / "augment-home"
           / ".augment" / "sessions")
FIRST = FIXTURE / "5b0e7c1a-2f4d-4e8b-9a63-1c2d3e4f5a6b.json"
COMPACTED = FIXTURE / "8d9e0f1a-3b4c-4d5e-8f60-7a8b9c0d1e2f.json"


def load_templates():
    """The fixture's items: a prompt answered with a tool call, a request of
    its result answered with text, a failed result, and the summary node."""
    first = json.loads(FIRST.read_text())
    history = first["chatHistory"]
    summary = _node(json.loads(COMPACTED.read_text())["chatHistory"][0]["exchange"]["request_nodes"], 10)
    failed = history[4]["exchange"]["request_nodes"][0]
    return {"session": first, "call": history[0], "result": history[2], "failed": failed, "summary": summary}


def _node(nodes, kind):
    return next(n for n in nodes if n["type"] == kind)


def _usage(s, exchange):
    usage = _node(exchange["response_nodes"], 10)["token_usage"]
    usage["input_tokens"] = s.rng.randint(50, 5_000)
    usage["output_tokens"] = s.rng.randint(10, 2_000)
    usage["cache_read_input_tokens"] = s.rng.randint(0, 60_000)
    usage["cache_creation_input_tokens"] = s.rng.randint(0, 5_000)


def generate(s, t, augment):
    """Writes session `s` under `augment` (a home's `.augment`); returns its
    file's size."""
    folder = augment / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    sid = s.uuid()
    created = s.now
    history, sequence = [], 0

    def add(item):
        nonlocal sequence
        sequence += 1
        item["sequenceId"] = sequence
        item["finishedAt"] = iso(s.now)
        item["exchange"]["request_id"] = s.uuid()
        history.append(item)

    for number in range(s.prompts):
        s.pause()
        summary = None
        if number in s.compacted:
            summary = clone(t["summary"])
            summary["history_summary_node"]["summary_text"] = s.summary()
            history = []
        prompt = s.prompt()
        pending = None
        for turn in range(s.rng.randint(1, 3)):
            item = clone(t["call"])
            exchange = item["exchange"]
            nodes = exchange["response_nodes"]
            if turn == 0:
                exchange["request_message"] = prompt
                _node(exchange["request_nodes"], 0)["text_node"]["content"] = prompt
                _node(exchange["request_nodes"], 4)["ide_state_node"]["workspace_folders"] = [
                    {"repository_root": s.cwd, "folder_root": s.cwd}]
                if summary:
                    exchange["request_nodes"].insert(0, summary)
            else:
                exchange["request_message"] = ""
                exchange["request_nodes"] = [pending]
            _node(nodes, 8)["thinking"]["summary"] = s.thinking()
            exchange["response_text"] = _node(nodes, 0)["content"] = s.answer(True)
            call = s.call_id()
            _node(nodes, 5)["tool_use"]["tool_use_id"] = call
            _usage(s, exchange)
            add(item)
            s.tick()
            failed = s.rng.random() < 0.1
            pending = clone(t["failed"] if failed else t["result"]["exchange"]["request_nodes"][0])
            result = pending["tool_result_node"]
            result["tool_use_id"] = call
            result["content"] = s.output()
            result["start_time_ms"] = s.now
            result["duration_ms"] = s.rng.randint(5, 3_000)
            s.tick()
        item = clone(t["result"])
        exchange = item["exchange"]
        exchange["request_nodes"] = [pending]
        exchange["response_text"] = _node(exchange["response_nodes"], 0)["content"] = s.answer()
        _usage(s, exchange)
        add(item)
        s.tick()
    document = clone(t["session"])
    document.update({"sessionId": sid, "created": iso(created), "modified": iso(s.now), "chatHistory": history,
                     "title": s.title()})
    path = folder / f"{sid}.json"
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
    touch(path, s.now)
    return path.stat().st_size
