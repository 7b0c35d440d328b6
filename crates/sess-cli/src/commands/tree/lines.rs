//! `sess tree` of a session whose lines link by ids and parents' ids (Claude
//! Code's `uuid`/`parentUuid`).

use std::io::Write;
use std::path::Path;

use sess_sources::{LineTree, SourceKind};

use super::{write_lines, write_nested};
use crate::Outcome;
use crate::cli::TreeArgs;
use crate::output::{stdout, warn, warn_issues};

/// How much of a `uuid` the text shows at least (the JSON has them whole).
const SHORT_ID: usize = 8;

/// The length of the shortest prefixes, at least [`SHORT_ID`], that tell
/// every node's `uuid` apart.
fn id_width(tree: &LineTree) -> usize {
    let mut ids: Vec<&str> = tree.nodes.iter().map(|n| n.uuid.as_str()).collect();
    ids.sort_unstable();
    let shared = ids
        .windows(2)
        .map(|pair| pair[0].chars().zip(pair[1].chars()).take_while(|(a, b)| a == b).count())
        .max()
        .unwrap_or(0);
    (shared + 1).max(SHORT_ID)
}

pub(super) fn run(args: &TreeArgs, kind: SourceKind, path: &Path, tree: &LineTree) -> anyhow::Result<Outcome> {
    warn_issues(path, &tree.issues);
    warn_damage(path, tree);
    let mut out = stdout();
    if args.json {
        write_json(&mut out, kind, tree)?;
    } else {
        write_text(&mut out, tree)?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// Lines shown as roots because the tree around them is damaged.
fn warn_damage(path: &Path, tree: &LineTree) {
    for &node in &tree.dangling {
        let node = &tree.nodes[node];
        warn(format_args!(
            "`{}`: line {}: parentUuid {} is not a line of this file; it is shown as a root",
            path.display(),
            node.line,
            node.parent_uuid.as_deref().unwrap_or_default()
        ));
    }
    for &node in &tree.loops {
        let node = &tree.nodes[node];
        warn(format_args!(
            "`{}`: line {}: the parentUuid chain of {} loops; it is shown as a root",
            path.display(),
            node.line,
            node.uuid
        ));
    }
}

fn write_text(out: &mut impl Write, tree: &LineTree) -> anyhow::Result<()> {
    let width = id_width(tree);
    write_lines(out, &tree.roots, &tree.children, |out, position| {
        let node = &tree.nodes[position];
        let id: String = node.uuid.chars().take(width).collect();
        write!(out, "{id:<width$}  {}", node.summary)?;
        if node.sidechain {
            write!(out, "  [sidechain]")?;
        }
        if node.compaction {
            write!(out, "  ◆ compaction")?;
        }
        if Some(position) == tree.leaf {
            write!(out, "  ← leaf")?;
        }
        Ok(())
    })
}

/// `{"source":"claude","leafId","roots":[{"id","type","line","summary",
/// "sidechain"?,"compaction"?,"children"}]}`.
fn write_json(out: &mut impl Write, kind: SourceKind, tree: &LineTree) -> anyhow::Result<()> {
    let leaf_id = tree.leaf.map(|l| tree.nodes[l].uuid.as_str());
    write!(
        out,
        "{{\"source\":{},\"leafId\":{},\"roots\":",
        serde_json::to_string(kind.as_str())?,
        serde_json::to_string(&leaf_id)?
    )?;
    write_nested(out, &tree.roots, &tree.children, |out, position| {
        let node = &tree.nodes[position];
        write!(
            out,
            "\"id\":{},\"type\":{},\"line\":{},\"summary\":{}",
            serde_json::to_string(&node.uuid)?,
            serde_json::to_string(&node.kind)?,
            node.line,
            serde_json::to_string(&node.summary)?
        )?;
        if node.sidechain {
            out.write_all(b",\"sidechain\":true")?;
        }
        if node.compaction {
            out.write_all(b",\"compaction\":true")?;
        }
        Ok(())
    })?;
    out.write_all(b"}\n")?;
    Ok(())
}
