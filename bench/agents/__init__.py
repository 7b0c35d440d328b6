"""Generated sessions of the agents whose files `sess` reads besides pi's,
Claude Code's and Codex's: each agent's layout under a home folder, exactly
where the agent (and `sess list`) looks for it, made from the agent's real
fixture sessions with fresh ids and new texts. Deterministic: the same seed
and count give the same bytes.

    python3 -m bench.agents AGENT HOME --sessions 1000 [--seed 1]

writes one by hand (`bench/compare --tasks agents` makes and caches them).
"""

import argparse
import hashlib
import json
import sys
from pathlib import Path

from . import aider, auggie, cline, continue_cli, copilot, crush, cursor, droid, gemini, goose, kilo, opencode, qwen, zed
from .common import Session

ROOT = Path(__file__).resolve().parents[2]


def _kilo(home, n, seed):
    path = home / ".local" / "share" / "kilo" / "kilo.db"
    writer = kilo.Writer(kilo.load_templates(), path)
    for i in range(n):
        writer.session(Session("kilo", seed, i, n))
    writer.close()
    return path.stat().st_size


def _copilot(home, n, seed):
    templates = copilot.load_templates()
    return sum(copilot.generate(Session("copilot", seed, i, n), templates, home / ".copilot") for i in range(n))


def _qwen(home, n, seed):
    turns = qwen.load_templates()
    return sum(qwen.generate(Session("qwen", seed, i, n), turns, home / ".qwen") for i in range(n))


def _opencode(home, n, seed):
    path = home / ".local" / "share" / "opencode" / "opencode.db"
    writer = opencode.Writer(opencode.load_templates(), path)
    for i in range(n):
        writer.session(Session("opencode", seed, i, n))
    writer.close()
    return path.stat().st_size


def _gemini(home, n, seed):
    turns = gemini.load_templates()
    root = home / ".gemini"
    projects = {}
    total = 0
    for i in range(n):
        s = Session("gemini", seed, i, n)
        project = projects.get(s.cwd) or projects.setdefault(s.cwd, gemini.Project(root, s.cwd))
        total += gemini.generate(s, turns, project)
    registry = {"projects": {cwd: p.slug for cwd, p in projects.items()}}
    (root / "projects.json").write_text(json.dumps(registry, indent=2))
    return total


def _goose(home, n, seed):
    path = home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    writer = goose.Writer(goose.load_templates(), path)
    for i in range(n):
        writer.session(Session("goose", seed, i, n))
    writer.close()
    return path.stat().st_size


def _crush(home, n, seed):
    writer = crush.Writer(crush.load_templates(), home)
    for i in range(n):
        writer.session(Session("crush", seed, i, n))
    return writer.close()


def _zed(home, n, seed):
    writer = zed.Writer(zed.load_templates(), home / ".local" / "share" / "zed" / "threads" / "threads.db")
    for i in range(n):
        writer.session(Session("zed", seed, i, n))
    return writer.close()


def _continue(home, n, seed):
    writer = continue_cli.Writer(continue_cli.load_templates(), home)
    for i in range(n):
        writer.session(Session("continue", seed, i, n))
    return writer.close()


def _cline(home, n, seed):
    return cline.generate((Session("cline", seed, i, n) for i in range(n)), home)


def _aider(home, n, seed):
    writer = aider.Writer(home)
    for i in range(n):
        writer.session(Session("aider", seed, i, n))
    return writer.close()


def _cursor(home, n, seed):
    writer = cursor.Writer(cursor.load_templates(), home)
    for i in range(n):
        writer.session(Session("cursor", seed, i, n))
    return writer.close()


def _droid(home, n, seed):
    templates = droid.load_templates()
    return sum(droid.generate(Session("droid", seed, i, n), templates, home / ".factory") for i in range(n))


def _auggie(home, n, seed):
    templates = auggie.load_templates()
    return sum(auggie.generate(Session("auggie", seed, i, n), templates, home / ".augment") for i in range(n))


# Each agent: how to write n sessions into a home folder, and the fixtures
# they are made from.
AGENTS = {
    "opencode": (_opencode, "fixtures/opencode/real-1.18.33"),
    "copilot": (_copilot, "fixtures/copilot/real-1.0.102"),
    "qwen": (_qwen, "fixtures/qwen-code/real-0.24.4"),
    "gemini": (_gemini, "fixtures/gemini/real-0.61.0"),
    "goose": (_goose, "fixtures/goose/hand-written"),
    "crush": (_crush, "fixtures/crush/hand-written"),
    "zed": (_zed, "fixtures/zed/hand-written"),
    "continue": (_continue, "fixtures/continue/real-1.5.47"),
    "cline": (_cline, "fixtures/cline/real-3.0.65"),
    "aider": (_aider, "fixtures/aider/real-0.86.2"),
    "cursor": (_cursor, "fixtures/cursor/hand-written"),
    "droid": (_droid, "fixtures/droid/real-0.225.2"),
    "auggie": (_auggie, "fixtures/auggie/hand-written"),
    "kilo": (_kilo, "fixtures/kilo/real-7.7.9"),
}

# The variables an agent's sessions need besides HOME to be found (Aider's
# histories are in project folders no other agent names here).
ENV = {"aider": aider.env}


def env(agent, home):
    """The variables `sess` needs besides HOME to find `agent`'s sessions
    under `home`."""
    return ENV[agent](home) if agent in ENV else {}


def available():
    """The agents whose fixtures are in this checkout."""
    return [name for name, (_, fixtures) in AGENTS.items() if (ROOT / fixtures).is_dir()]


def key(agent):
    """A hash of what the agent's sessions are made from: this package's
    source and the fixtures, so that a change makes them again."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.read_bytes())
    for path in sorted((ROOT / AGENTS[agent][1]).rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


def generate(agent, home, sessions, seed):
    """Writes `sessions` sessions of `agent` under `home`; returns the bytes
    of session files (the databases, for OpenCode, Kilo, Goose, Crush, Zed and Cursor's IDE) written."""
    return AGENTS[agent][0](Path(home), sessions, seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("agent", choices=sorted(AGENTS))
    parser.add_argument("home", type=Path)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    size = generate(args.agent, args.home, args.sessions, args.seed)
    print(f"{args.sessions} {args.agent} sessions, {size / 1e6:.1f} MB, in {args.home}", file=sys.stderr)


if __name__ == "__main__":
    main()
