"""The home the retrieval set is searched in: real and hand-written sessions
of the fixtures, each where its agent keeps it."""

import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"

# Whole folders the real agents wrote, and where they go under the home.
FOLDERS = [
    ("claude-code/real-2.1.332/claude-config", ".claude"),
    ("codex/real-0.171.0/codex-home", ".codex"),
    ("qwen-code/real-0.24.4/qwen-home", ".qwen"),
    ("gemini/real-0.61.0/home/.gemini", ".gemini"),
    ("continue/real-1.5.47/continue-home", ".continue"),
]

# Single files: Claude Code and pi sessions, and Codex rollouts (named by their id).
CLAUDE = [
    "claude-code/claude-1.0.98-task-sidechains.jsonl",
    "claude-code/claude-2.0.14-snapshot-first.jsonl",
    "claude-code/claude-basic-toolcall.jsonl",
    "claude-code/claude-compact-branch.jsonl",
    "claude-code/claude-health-endpoint.jsonl",
]
CODEX = [
    "codex/codex-0.146-null-image.jsonl",
    "codex/codex-basic-rollout.jsonl",
    "codex/codex-fork-rollback-compact.jsonl",
]
PI = [
    "pi-family/pi-mono-0.73.1-main.jsonl",
    "pi-family/pi-1.6.0/pi-1.6.0.jsonl",
]


def build(home: Path) -> None:
    """Lays the sessions out in `home`."""
    for source, target in FOLDERS:
        shutil.copytree(FIXTURES / source, home / target, dirs_exist_ok=True)
    for n, name in enumerate(CLAUDE):
        folder = home / ".claude" / "projects" / f"-home-dev-fixture-{n}"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / name, folder / Path(name).name)
    for name in CODEX:
        first = json.loads((FIXTURES / name).read_text().splitlines()[0])
        meta = first["payload"]
        stamp = meta["timestamp"][:19].replace(":", "-")
        day = home / ".codex" / "sessions" / stamp[:4] / stamp[5:7] / stamp[8:10]
        day.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / name, day / f"rollout-{stamp}-{meta['id']}.jsonl")
    for n, name in enumerate(PI):
        folder = home / ".pi" / "agent" / "sessions" / f"--home-dev-fixture-{n}--"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / name, folder / Path(name).name)
