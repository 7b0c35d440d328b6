"""What every agent's generated sessions share: the seeded choices of a
session (project, number of prompts, text sizes), text that reads like what
agents write, fresh ids, and a clock.

A session's plan (its project, how many prompts it has, and before which of
them it was resumed or compacted) depends only on the seed and its number,
so session N of every agent is the same conversation's shape in that
agent's format; the texts are drawn per agent.
"""

import copy
import datetime
import json
import os
import random
import re
import uuid

# 2026-01-01T00:00:00Z, where the Claude Code workload starts too.
EPOCH_MS = 1_767_225_600_000
# Sessions per project: 1,000 sessions are 50 projects.
PER_PROJECT = 20
# Before a prompt (not the first), how likely the session was closed and
# resumed, or its history compacted (3%, as in the Claude Code workload).
RESUME, COMPACTION = 0.05, 0.03

WORDS = (
    "the session file entry function returns error value test build and of to in is we should check whether "
    "parser line context model tool result call read write update config path struct impl let match Option "
    "Result String vector index branch leaf compaction summary label cursor segment lock append because then "
    "after before fails passes works seems maybe likely now again request handler route schema migration "
    "query cache token retry timeout header response client server module package import export async await "
    "promise stream buffer offset length encode decode naïve café — «quoted» 日本語 테스트 über état"
).split()

CODE = [
    "fn main() {",
    "    let value = parse(&input)?;",
    "    if value.is_empty() { return Ok(()); }",
    "}",
    'import { readFileSync } from "node:fs";',
    'const lines = text.split("\\n");',
    "\tfor (const line of lines) {",
    "\t\tif (!line.trim()) continue;",
    '    assert_eq!(got, "expected");',
    "#[derive(Debug, Clone)]",
    "pub struct Entry { id: String, parent: Option<String> }",
    "SELECT id, seq FROM entries WHERE segment_id = $1;",
    "error[E0502]: cannot borrow `x` as mutable because it is also borrowed as immutable",
    "warning: unused variable: `y`",
    "test tree::tests::branches ... ok",
    "    Finished `release` profile [optimized] target(s) in 41.2s",
]

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def cwd_of(project):
    """A project's folder, in three styles (as the Claude Code workload's)."""
    if project % 3 == 0:
        return f"/home/dev/work/project-{project:03}"
    if project % 3 == 1:
        return f"/Users/dev/code/app_v{project}.{project % 7}"
    return f"/home/dev/src/service-{project}/api"


def prompt_count(rng):
    """Prompts in a session: mostly 3–10, a third longer, a tenth long."""
    roll = rng.random()
    if roll < 0.6:
        return rng.randint(3, 10)
    if roll < 0.9:
        return rng.randint(10, 25)
    return rng.randint(25, 60)


def iso(ms):
    """`2026-01-01T00:00:00.000Z` for a time in ms."""
    moment = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


class Session:
    """The seeded choices and the clock of one generated session."""

    def __init__(self, agent, seed, index, sessions):
        plan = random.Random(f"plan/{seed}/{index}")
        projects = max(1, sessions // PER_PROJECT)
        self.index = index
        self.project = index % projects
        self.cwd = cwd_of(self.project)
        self.prompts = prompt_count(plan)
        self.resumed = {i for i in range(1, self.prompts) if plan.random() < RESUME}
        self.compacted = {i for i in range(1, self.prompts) if plan.random() < COMPACTION}
        self.rng = random.Random(f"{agent}/{seed}/{index}")
        # A session every ten minutes, as if one person's history.
        self.now = EPOCH_MS + index * 600_000 + self.rng.randrange(60_000)
        self.start = self.now

    # -- time

    def tick(self, low=20, high=4_000):
        """Moves the clock on and returns it (ms)."""
        self.now += self.rng.randint(low, high)
        return self.now

    def pause(self):
        """A break between prompts: seconds to minutes."""
        return self.tick(5_000, 300_000)

    # -- ids

    def uuid(self):
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def alnum(self, n):
        return "".join(self.rng.choice(ALNUM) for _ in range(n))

    def call_id(self):
        return "call_" + self.alnum(24)

    # -- text

    def prose(self, length):
        words = []
        size = 0
        while size < length:
            word = self.rng.choice(WORDS)
            roll = self.rng.randrange(40)
            sep = ".\n\n" if roll == 0 else ", " if roll <= 3 else ". " if roll == 4 else " "
            words.append(word)
            words.append(sep)
            size += len(word) + len(sep)
        return "".join(words[:-1])

    def tool_output(self, length):
        lines = []
        size = 0
        while size < length:
            if self.rng.randrange(3) == 0:
                line = f"src/module_{self.rng.randrange(400)}.rs:{len(lines) + 1}: {self.prose(40)}"
            else:
                line = self.rng.choice(CODE)
            lines.append(line)
            size += len(line) + 1
        return "\n".join(lines) + "\n"

    def prompt(self):
        return self.prose(self.rng.randint(20, 800))

    def answer(self, with_tools=False):
        return self.prose(self.rng.randint(20, 300) if with_tools else self.rng.randint(100, 2_000))

    def thinking(self):
        return self.prose(self.rng.randint(100, 1_500))

    def output(self):
        """A tool's output: mostly short, now and then a big file or log."""
        if self.rng.random() < 0.02:
            return self.tool_output(self.rng.randint(10_000, 150_000))
        return self.tool_output(self.rng.randint(50, 2_000))

    def title(self):
        return self.prose(self.rng.randint(10, 50)).replace("\n", " ").strip()

    def summary(self):
        return self.prose(self.rng.randint(1_000, 6_000))

    # -- templates

    def pick(self, turns, weight):
        """One of a fixture's turns, those `weight` favours more often."""
        return self.rng.choices(turns, weights=[weight(t) for t in turns])[0]

    def fresh(self, value, ids, patterns=(), paths=()):
        """`value` (JSON) with every UUID and every match of `patterns` given a
        fresh one (the same old id always gets the same new one, through
        `ids`), and each `(old, new)` of `paths` replaced."""
        text = json.dumps(value, ensure_ascii=False)
        text = UUID_RE.sub(lambda m: ids.setdefault(m.group(0), self.uuid()), text)
        for pattern, make in patterns:
            text = pattern.sub(lambda m: ids.setdefault(m.group(0), make()), text)
        for old, new in paths:
            text = text.replace(old, new)
        return json.loads(text)


def clone(value):
    return copy.deepcopy(value)


def write_jsonl(path, records, mtime_ms):
    """Writes `records` as JSON lines, modified at `mtime_ms` (when the agent
    last wrote them); returns the file's size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
    touch(path, mtime_ms)
    return path.stat().st_size


def touch(path, mtime_ms):
    os.utime(path, ns=(mtime_ms * 1_000_000, mtime_ms * 1_000_000))
