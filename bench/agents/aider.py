"""Aider chat histories, in the shape of the real Aider 0.86.2's in
`fixtures/aider/real-0.86.2`: one `.aider.chat.history.md` per project
folder (the projects under the home folder, at their paths), every session
a run appended to it: the header, Aider's opening lines, then per prompt the
user's input (`#### ` lines), the model's answer (now and then with a
SEARCH/REPLACE block that Aider applied), Aider's token line, and now and
then a `/run` whose output was added to the chat. `sess` finds the folders
through `SESS_PROJECT_DIRS` ([`env`]).
"""

import datetime
import os
from pathlib import Path

HISTORY = ".aider.chat.history.md"

OPENING = [
    "/usr/local/bin/aider --model anthropic/claude-sonnet-4 --edit-format diff",
    "Aider v0.86.2",
    "Model: anthropic/claude-sonnet-4 with diff edit format, infinite output",
    "Git repo: .git with 214 files",
    "Repo-map: using 4096 tokens, auto refresh",
]


def header_time(ms):
    """The header's local time (the generated sessions' zone is UTC)."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def tokens(count):
    """A count as Aider prints it."""
    if count < 1000:
        return str(count)
    if count < 10000:
        return f"{count / 1000:.1f}k"
    return f"{round(count / 1000)}k"


def output(text):
    return f"> {text.strip()}  \n"


def user_input(text):
    return "\n#### " + "  \n#### ".join(text.splitlines() or [""]) + "  \n"


def answer(text):
    return "\n" + text.strip() + "\n\n"


class Writer:
    def __init__(self, home):
        self.home, self.files = home, {}

    def session(self, s):
        folder = self.home / s.cwd.lstrip("/")
        path = folder / HISTORY
        parts = [f"\n# aider chat started at {header_time(s.now)}\n\n"]
        parts.extend(output(line) for line in OPENING)
        sent = 0
        for _ in range(s.prompts):
            s.pause()
            if s.rng.random() < 0.15:
                parts.append(user_input("/run cargo test"))
                parts.append(output("Add 1.2k tokens of command output to the chat? (Y)es/(N)o [Yes]: y"))
                parts.append(output(f"Added {s.rng.randint(2, 90)} lines of output to the chat."))
            parts.append(user_input(s.prompt()))
            text = s.answer(True)
            edited = None
            if s.rng.random() < 0.4:
                edited = f"src/module_{s.rng.randrange(400)}.rs"
                old, new = s.tool_output(s.rng.randint(40, 400)), s.tool_output(s.rng.randint(40, 400))
                text += f"\n\n{edited}\n```\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```"
            parts.append(answer(text))
            sent += s.rng.randint(2_000, 60_000)
            received = s.rng.randint(50, 3_000)
            cost = s.rng.random() / 10
            parts.append(output(f"Tokens: {tokens(sent)} sent, {tokens(received)} received. "
                                f"Cost: ${cost:.2f} message, ${cost * 3:.2f} session."))
            if edited:
                parts.append(output(f"Applied edit to {edited}"))
            s.tick()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8") as out:
            out.write("".join(parts))
        self.files[path] = s.now

    def close(self):
        for path, ms in self.files.items():
            os.utime(path, ns=(ms * 1_000_000, ms * 1_000_000))
        return sum(path.stat().st_size for path in self.files)


def env(home):
    """What `sess` needs to find the histories under `home`: their folders."""
    folders = sorted(str(p.parent) for p in Path(home).rglob(HISTORY))
    return {"SESS_PROJECT_DIRS": os.pathsep.join(folders)}
