"""Qwen Code sessions, made from the real ones in
`fixtures/qwen-code/real-0.24.4`: `~/.qwen/projects/<project>/chats/<id>.jsonl`.

A session is prompts, each a turn of a fixture session (the prompt, the
CLI's snapshots and telemetry, the model's answers and tool calls, the tool
results, an image, a failed request) with fresh ids and new texts, linked
into one chain by `parentUuid`, with the fixture's compression where the
session's plan has one; half end with a title (`custom_title`). The fixture's fork,
its subagent's session and its rewind are left out: the first two need
files of their own, the last a second branch.
"""

import json
import re
from pathlib import Path

from .common import iso, write_jsonl

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "qwen-code" / "real-0.24.4" / "qwen-home" / "projects"
TOOL_CALL = re.compile(r"call_[A-Za-z0-9_]+")
SKIPPED = {"69af9f10-a94d-4335-9a91-143693176fd1", "2e05054d-ba2b-4c95-b4b4-0dbc9df1bfc6"}
DROPPED = {"rewind", "custom_title", "branch_checkpoint"}


def _prompt(record):
    return record["type"] == "user" and record.get("provenance") == "real_user"


def load_templates():
    """The turns of the fixture's sessions (each prompt, with the `@file`
    record before it, up to the next; the rewound turn is not kept) and
    their compressions (the summary's request and the compression)."""
    turns, compactions = [], []
    for path in sorted(FIXTURE.glob("*/chats/*.jsonl")):
        if path.stem in SKIPPED:
            continue
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        records = [r for r in records if r.get("subtype") not in DROPPED]
        cuts = [i for i, r in enumerate(records) if _prompt(r)]
        cuts = [i - 1 if i > 0 and records[i - 1].get("subtype") == "at_command" else i for i in cuts]
        cuts[0] = 0
        for a, b in zip(cuts, cuts[1:] + [len(records)]):
            turn = records[a:b]
            # The turn `/rewind` took back: a prompt answered, then rewound.
            if path.stem.startswith("8c62ed46") and any(r["uuid"].startswith("f278c214") for r in turn):
                continue
            squeeze = [i for i, r in enumerate(turn) if r.get("subtype") == "chat_compression"]
            if squeeze:
                # The compression and the model call that wrote its summary.
                compactions.append({"records": turn[squeeze[0] - 1:], "session": path.stem, "cwd": records[0]["cwd"]})
                turn = turn[:squeeze[0] - 1]
            turns.append({"records": turn, "session": path.stem, "cwd": records[0]["cwd"]})
    return turns, compactions


def _has_tools(turn):
    return any(r["type"] == "tool_result" for r in turn["records"])


def _retext(s, record):
    message = record.get("message") or {}
    parts = message.get("parts") or []
    kind = record["type"]
    if kind == "user" and parts and "text" in parts[0]:
        parts[0]["text"] = s.prompt()
    elif kind == "assistant":
        calls = any("functionCall" in p for p in parts)
        for part in parts:
            if "text" in part:
                part["text"] = s.thinking() if part.get("thought") else s.answer(with_tools=calls)
    elif kind == "tool_result":
        for part in parts:
            response = part.get("functionResponse", {}).get("response", {})
            if "output" in response:
                output = s.output()
                response["output"] = output
                display = (record.get("toolCallResult") or {}).get("resultDisplay")
                if isinstance(display, dict) and "output" in display:
                    display["output"] = display["text"] = output
    elif record.get("subtype") == "chat_compression":
        history = record["systemPayload"].get("compressedHistory") or []
        if history and history[0].get("parts"):
            history[0]["parts"][0]["text"] = f"<state_snapshot>\n{s.summary()}\n</state_snapshot>"


def project_dir(cwd):
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def generate(s, templates, home):
    """Writes session `s` under the Qwen home `home`; returns its size."""
    turns, compactions = templates
    session_id = s.uuid()
    records = []
    for number in range(s.prompts):
        s.pause()
        chosen = [s.pick(turns, lambda t: 4 if _has_tools(t) else 1)]
        if number in s.compacted:
            chosen.insert(0, s.rng.choice(compactions))
        for template in chosen:
            ids = {template["session"]: session_id}
            cloned = s.fresh(template["records"], ids, [(TOOL_CALL, s.call_id)], [(template["cwd"], s.cwd)])
            for record in cloned:
                record["parentUuid"] = records[-1]["uuid"] if records else None
                record["timestamp"] = iso(s.tick())
                record["cwd"] = s.cwd
                _retext(s, record)
                records.append(record)
    if s.rng.random() < 0.5:
        last = records[-1]
        records.append({"uuid": s.uuid(), "parentUuid": last["uuid"], "sessionId": session_id,
                        "timestamp": iso(s.tick()), "type": "system", "provenance": "system", "cwd": s.cwd,
                        "version": last.get("version", "0.24.4"), "subtype": "custom_title",
                        "systemPayload": {"customTitle": s.title(), "titleSource": "auto"}})
    path = home / "projects" / project_dir(s.cwd) / "chats" / f"{session_id}.jsonl"
    return write_jsonl(path, records, s.now)
