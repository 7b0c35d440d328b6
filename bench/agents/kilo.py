"""Kilo CLI sessions, made from the real database in `fixtures/kilo/real-7.7.9`:
one `~/.local/share/kilo/kilo.db`. The Kilo CLI is a fork of OpenCode and keeps
sessions in OpenCode's shape, so OpenCode's generator (opencode.py) writes them,
from Kilo's schema, migrations and turns.
"""

from pathlib import Path

from . import opencode

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "kilo" / "real-7.7.9" / "kilo.db"


def load_templates():
    """The schema, the migrations, a session row, and the fixture's turns."""
    return opencode.load_templates(FIXTURE)


Writer = opencode.Writer
