"""Continue CLI sessions, made from the real ones in
`fixtures/continue/real-1.5.47`: `~/.continue/sessions/<id>.json`, one
pretty-printed JSON document a session, and the index `sessions.json`.

A session is prompts, each answered as the fixture's first turn is: an
assistant item with text and a tool call whose result is in its
`toolCallStates` (a tenth errored, as the fixture's `Bash`), then the
answer, each with its `message.usage`. Where the session's plan compacts,
the history is replaced by the summary item, as the CLI's automatic
compaction leaves it. The session's `usage` adds up its answers.
"""

import json
from pathlib import Path

from .common import touch

FIXTURE = (Path(__file__).resolve().parents[2] / "fixtures" / "continue" / "real-1.5.47" / "steps"
           / "2-resume" / "continue-home" / "sessions" / "7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe.json")
SUMMARY = (Path(__file__).resolve().parents[2] / "fixtures" / "continue" / "real-1.5.47" / "continue-home"
           / "sessions" / "7ec94f9e-2ee6-4aa0-9d3d-d893482c6cbe.json")


def load_templates():
    """The fixture's items: a prompt, an answer with a tool call, an answer
    with a failed one, a text answer, and the compaction's summary item."""
    history = json.loads(FIXTURE.read_text())["history"]
    summary = json.loads(SUMMARY.read_text())["history"][0]
    return {"user": history[0], "tool": history[1], "failed": history[5], "text": history[3], "summary": summary}


def _clone(value):
    return json.loads(json.dumps(value))


class Writer:
    def __init__(self, templates, home):
        self.templates = templates
        self.dir = home / ".continue" / "sessions"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.index = []
        self.size = 0

    def _usage(self, s, item):
        usage = item["message"]["usage"]
        usage["prompt_tokens"] = s.rng.randint(2_000, 60_000)
        usage["completion_tokens"] = s.rng.randint(10, 2_000)
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        usage["cost_cents"] = max(1, round(usage["total_tokens"] / 4_000))
        return usage

    def session(self, s):
        t = self.templates
        sid = s.uuid()
        created = s.now
        history, spent = [], []
        for number in range(s.prompts):
            s.pause()
            if number in s.compacted:
                summary = _clone(t["summary"])
                summary["message"]["content"] = summary["conversationSummary"] = s.summary()
                history = [summary]
            prompt = _clone(t["user"])
            prompt["message"]["content"] = prompt["editorState"] = s.prompt()
            history.append(prompt)
            for _ in range(s.rng.randint(0, 3)):
                failed = s.rng.random() < 0.1
                item = _clone(t["failed" if failed else "tool"])
                call = s.call_id()
                item["message"]["content"] = s.answer(True) if item["message"]["content"] else ""
                item["message"]["toolCalls"][0]["id"] = call
                state = item["toolCallStates"][0]
                state["toolCallId"] = state["toolCall"]["id"] = call
                state["output"][0]["content"] = s.output()
                spent.append(self._usage(s, item))
                history.append(item)
                s.tick()
            answer = _clone(t["text"])
            answer["message"]["content"] = s.answer()
            spent.append(self._usage(s, answer))
            history.append(answer)
            s.tick()
        prompt_tokens = sum(u["prompt_tokens"] for u in spent)
        completion_tokens = sum(u["completion_tokens"] for u in spent)
        document = {
            "sessionId": sid, "title": "Untitled Session", "workspaceDirectory": s.cwd, "history": history,
            "usage": {"totalCost": (prompt_tokens * 2.5 + completion_tokens * 10) / 1e6, "promptTokens": prompt_tokens,
                      "completionTokens": completion_tokens,
                      "promptTokensDetails": {"cachedTokens": 0, "cacheWriteTokens": 0}},
        }
        path = self.dir / f"{sid}.json"
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False))
        touch(path, s.now)
        self.size += path.stat().st_size
        assistants = sum(1 for item in history if item["message"]["role"] == "assistant")
        self.index.append({"sessionId": sid, "title": "Untitled Session", "dateCreated": str(created),
                           "workspaceDirectory": s.cwd, "messageCount": assistants})

    def close(self):
        (self.dir / "sessions.json").write_text(json.dumps(self.index, indent=2, ensure_ascii=False))
        return self.size
