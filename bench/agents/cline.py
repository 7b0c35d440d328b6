"""Cline sessions in the shapes of its fixtures: half the CLI's
(`~/.cline/data/sessions/<id>/<id>.json` and `<id>.messages.json`, as the real
3.0.65 CLI writes them in `fixtures/cline/real-3.0.65`), half the VS Code
extension's task folders (`~/.config/Code/User/globalStorage/
saoudrizwan.claude-dev/tasks/<ms>/`, as in `fixtures/cline/hand-written`),
with the task history. A session is prompts, each answered by model calls:
thinking, tool calls with their results (a tenth failed), then text; the
CLI's calls record their tokens in `metrics`, the extension's requests in
`api_req_started` records.
"""

import json
import os
from pathlib import Path

from .common import iso

EXTENSION = "saoudrizwan.claude-dev"


def _write(path, value, mtime_ms, indent=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(value, ensure_ascii=False, indent=indent, separators=None if indent else (",", ":"))
    path.write_text(text)
    os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
    return len(text.encode())


def _cli(s, root):
    sid = f"{s.now}_{s.alnum(5)}"
    started = s.now
    messages = []
    for _ in range(s.prompts):
        s.pause()
        messages.append({"id": s.uuid(), "role": "user", "ts": s.now,
                         "content": [{"type": "text", "text": f"<user_input mode=\"act\">{s.prompt()}</user_input>"}]})
        for step in range(s.rng.randint(1, 3)):
            s.tick()
            content = [{"type": "thinking", "thinking": s.thinking()}] if step == 0 else []
            calls = [s.call_id() for _ in range(s.rng.randint(0, 2))]
            for call in calls:
                content.append({"type": "tool_use", "id": call, "name": "run_commands", "input": {"commands": [s.prose(30)]}})
            if not calls:
                content.append({"type": "text", "text": s.answer(True)})
            metrics = {"inputTokens": s.rng.randint(2_000, 60_000), "outputTokens": s.rng.randint(50, 3_000),
                       "cacheReadTokens": 0, "cacheWriteTokens": 0}
            messages.append({"id": f"msg_{s.alnum(8)}", "role": "assistant", "content": content, "ts": s.now,
                             "modelInfo": {"id": "fake-model", "provider": "openai-compatible"}, "metrics": metrics})
            if calls:
                s.tick()
                results = [{"type": "tool_result", "tool_use_id": call, "name": "run_commands",
                            "content": [{"query": "cmd", "result": s.output(), "success": s.rng.random() >= 0.1}]}
                           for call in calls]
                messages.append({"id": f"msg_{s.alnum(8)}", "role": "user", "content": results, "ts": s.now})
    folder = root / sid
    size = _write(folder / f"{sid}.messages.json", {"version": 1, "updated_at": "", "agent": "lead", "sessionId": sid,
                                                    "messages": messages, "system_prompt": "You are Cline."}, s.now, 2)
    manifest = {"version": 1, "session_id": sid, "source": "cli", "started_at": iso(started), "ended_at": iso(s.now),
                "status": "completed", "provider": "openai-compatible", "model": "fake-model", "cwd": s.cwd,
                "workspace_root": s.cwd, "prompt": "", "metadata": {"title": s.title()},
                "messages_path": str(folder / f"{sid}.messages.json")}
    return size + _write(folder / f"{sid}.json", manifest, s.now, 2)


def _task(s, storage, history):
    tid = str(s.now)
    env = f"<environment_details>\n# Current Working Directory ({s.cwd}) Files\n</environment_details>"
    conversation, ui = [], [{"ts": s.now, "type": "say", "say": "task", "text": "task"}]
    for number in range(s.prompts):
        s.pause()
        wrap = "task" if number == 0 else "feedback"
        conversation.append({"role": "user", "content": [{"type": "text", "text": f"<{wrap}>\n{s.prompt()}\n</{wrap}>"},
                                                         {"type": "text", "text": env}]})
        for step in range(s.rng.randint(1, 3)):
            s.tick()
            info = {"request": "…", "tokensIn": s.rng.randint(100, 9_000), "tokensOut": s.rng.randint(50, 3_000),
                    "cacheWrites": 0, "cacheReads": s.rng.randint(0, 9_000), "cost": 0.001}
            ui.append({"ts": s.now, "type": "say", "say": "api_req_started", "text": json.dumps(info),
                       "conversationHistoryIndex": len(conversation) - 1})
            call = s.call_id() if step < 2 and s.rng.random() < 0.5 else None
            content = [{"type": "text", "text": s.answer(True)}]
            if call:
                content.append({"type": "tool_use", "id": call, "name": "execute_command",
                                "input": {"command": s.prose(30), "requires_approval": False}})
            conversation.append({"role": "assistant", "content": content})
            if not call:
                break
            s.tick()
            ui.append({"ts": s.now, "type": "say", "say": "command_output", "text": "…",
                       "conversationHistoryIndex": len(conversation) - 1})
            conversation.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": call,
                                                              "content": s.output(), "is_error": s.rng.random() < 0.1}]})
    folder = storage / "tasks" / tid
    size = _write(folder / "api_conversation_history.json", conversation, s.now)
    size += _write(folder / "ui_messages.json", ui, s.now)
    history.append({"id": tid, "ts": s.now, "task": "task", "tokensIn": 0, "tokensOut": 0, "totalCost": 0,
                    "cwdOnTaskInitialization": s.cwd})
    return size


def generate(sessions, home):
    """Writes `sessions` (each a `common.Session`) under `home`; returns the
    bytes written."""
    root = Path(home) / ".cline" / "data" / "sessions"
    storage = Path(home) / ".config" / "Code" / "User" / "globalStorage" / EXTENSION
    history, total = [], 0
    for s in sessions:
        total += _cli(s, root) if s.index % 2 == 0 else _task(s, storage, history)
    if history:
        total += _write(storage / "state" / "taskHistory.json", history, 0)
    return total
