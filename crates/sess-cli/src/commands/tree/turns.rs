//! `sess tree` of a session that is a line of turns (a Codex rollout).

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use sess_sources::SourceKind;
use sess_sources::codex::{Compaction, Turn, Turns};

use crate::Outcome;
use crate::cli::TreeArgs;
use crate::output::{print_json, stdout, warn_issues};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TurnsJson<'a> {
    source: &'static str,
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    forked_from: Option<&'a str>,
    /// The leaf turn's number.
    leaf_turn: Option<usize>,
    /// `[{"number","id","timestamp","prompt","inherited","rolledBack","aborted"}]`.
    turns: &'a [Turn],
    /// `[{"afterTurn","id"}]`.
    compactions: &'a [Compaction],
}

pub(super) fn run(args: &TreeArgs, kind: SourceKind, path: &Path, turns: &Turns) -> anyhow::Result<Outcome> {
    warn_issues(path, &turns.issues);
    if args.json {
        print_json(&json(kind, turns), false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    write_text(&mut out, kind, turns)?;
    out.flush()?;
    Ok(Outcome::Clean)
}

fn json(kind: SourceKind, turns: &Turns) -> TurnsJson<'_> {
    TurnsJson {
        source: kind.as_str(),
        id: &turns.id,
        forked_from: turns.forked_from.as_deref(),
        leaf_turn: turns.leaf.map(|l| turns.turns[l].number),
        turns: &turns.turns,
        compactions: &turns.compactions,
    }
}

/// `Codex thread ID` (and what it was forked from), then one line per turn.
fn write_text(out: &mut impl Write, kind: SourceKind, turns: &Turns) -> anyhow::Result<()> {
    write!(out, "{} thread {}", kind.agent_name(), turns.id)?;
    if let Some(parent) = &turns.forked_from {
        write!(out, ", forked from {parent}")?;
    }
    writeln!(out)?;
    let width = turns.turns.len().to_string().len();
    let compacted_after = |done: usize| turns.compactions.iter().filter(move |c| c.after_turn == done);
    for _ in compacted_after(0) {
        writeln!(out, "◆ context compacted")?;
    }
    for (index, turn) in turns.turns.iter().enumerate() {
        write!(out, "turn {:<width$}  {}", turn.number, turn.prompt)?;
        if turn.inherited {
            write!(out, "  [inherited]")?;
        }
        if turn.aborted {
            write!(out, "  ✗ aborted")?;
        }
        if turn.rolled_back {
            write!(out, "  ↺ rolled back")?;
        }
        if Some(index) == turns.leaf {
            write!(out, "  ← leaf")?;
        }
        writeln!(out)?;
        for _ in compacted_after(turn.number) {
            writeln!(out, "{:width$}       ◆ context compacted", "")?;
        }
    }
    if turns.turns.is_empty() {
        writeln!(out, "(no turns)")?;
    }
    Ok(())
}
