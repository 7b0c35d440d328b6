//! `sess tree SESSION [--json]`: a pi-family session's entry tree, or the
//! outline another agent's source gives: a tree of lines (`tree/lines.rs`,
//! Claude Code) or a line of turns (`tree/turns.rs`, Codex).

mod lines;
mod turns;

use std::io::Write;

use sess_core::segment::{self, Segments};
use sess_core::{Entry, EntryIndex, Tree};

use crate::Outcome;
use crate::cli::TreeArgs;
use anyhow::Context as _;
use sess_sources::Outline;

use crate::env::host;
use crate::output::Printed;
use crate::output::{stdout, warn};
use crate::summary::describe;
use sess::resolve::Session;

pub(crate) fn run(args: &TreeArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let session = sess::resolve::session(&args.file, store, host(), &Printed)?;
    if let Session::File(found) = &session
        && !found.kind.is_native()
    {
        // Another agent's session: the shape its source gives, if any.
        let Some(outline) = found.kind.source().outline(&found.path) else {
            anyhow::bail!(
                "`{}` is a {} session, which has no tree to draw (try `sess show`)",
                args.file,
                found.kind.agent_name()
            );
        };
        let outline = outline.with_context(|| format!("cannot read `{}`", found.path.display()))?;
        return match outline {
            Outline::Lines(tree) => lines::run(args, found.kind, &found.path, &tree),
            Outline::Turns(turns) => turns::run(args, found.kind, &found.path, &turns),
        };
    }
    let outcome = sess::load::load_session(session, host(), &Printed)?;
    let entries = outcome.entries();
    let index = EntryIndex::new(entries);
    let tree = Tree::build(entries, &index);
    for &position in &tree.cycle_breaks {
        warn(format_args!(
            "`{}`: the parent chain of entry {} loops; it is shown as a root",
            args.file,
            entries[position].id()
        ));
    }
    let leaf = entries.len().checked_sub(1);
    let mut out = stdout();
    if args.json {
        write_json(&mut out, entries, &index, &tree, leaf)?;
    } else {
        let segments = segment::derive(entries);
        write_text(&mut out, entries, &index, &tree, &segments, leaf)?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

/// `{"leafId":…,"roots":[{"id","type","label"?,"children":[…]}]}`.
fn write_json(
    out: &mut impl Write,
    entries: &[Entry],
    index: &EntryIndex,
    tree: &Tree,
    leaf: Option<usize>,
) -> anyhow::Result<()> {
    let leaf_id = leaf.map(|l| entries[l].id().as_str());
    write!(out, "{{\"leafId\":{},\"roots\":", serde_json::to_string(&leaf_id)?)?;
    write_nested(out, &tree.roots, &tree.children, |out, position| {
        let entry = &entries[position];
        write!(
            out,
            "\"id\":{},\"type\":{}",
            serde_json::to_string(entry.id().as_str())?,
            serde_json::to_string(entry.type_name())?
        )?;
        if let Some(label) = index.label(entry.id().as_str()) {
            write!(out, ",\"label\":{}", serde_json::to_string(label)?)?;
        }
        Ok(())
    })?;
    out.write_all(b"}\n")?;
    Ok(())
}

/// The nodes under `roots` as a JSON array of objects, each with the fields
/// `fields` writes (without braces, no trailing comma) and `"children"`;
/// written without recursion so a deep chain costs no stack.
fn write_nested<W: Write>(
    out: &mut W,
    roots: &[usize],
    children: &[Vec<usize>],
    mut fields: impl FnMut(&mut W, usize) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    enum Step {
        Open(usize),
        Close,
    }
    out.write_all(b"[")?;
    // Each node opens `{…,"children":[`, then its children, then `]}`.
    let mut stack: Vec<Step> = roots.iter().rev().map(|&r| Step::Open(r)).collect();
    let mut need_comma = false;
    while let Some(step) = stack.pop() {
        match step {
            Step::Open(position) => {
                out.write_all(if need_comma { b",{" } else { b"{" })?;
                fields(out, position)?;
                out.write_all(b",\"children\":[")?;
                stack.push(Step::Close);
                stack.extend(children[position].iter().rev().map(|&c| Step::Open(c)));
                need_comma = false;
            }
            Step::Close => {
                out.write_all(b"]}")?;
                need_comma = true;
            }
        }
    }
    out.write_all(b"]")?;
    Ok(())
}

/// Indented text: a chain stays at one depth; a branch point indents its
/// children under `├─`/`└─`.
fn write_text(
    out: &mut impl Write,
    entries: &[Entry],
    index: &EntryIndex,
    tree: &Tree,
    segments: &Segments,
    leaf: Option<usize>,
) -> anyhow::Result<()> {
    let id_width = entries.iter().map(|e| e.id().as_str().chars().count()).max().unwrap_or(0).min(36);
    write_lines(out, &tree.roots, &tree.children, |out, position| {
        let entry = &entries[position];
        write!(out, "{:<id_width$}  {}", entry.id().as_str(), describe(entry))?;
        if let Some(label) = index.label(entry.id().as_str()) {
            write!(out, "  [{label}]")?;
        }
        let placement = segments.placements[position];
        if placement.seq == 0 && position != 0 {
            write!(out, "  ◆ {} segment", segments.segments[placement.segment].origin)?;
        }
        if Some(position) == leaf {
            write!(out, "  ← leaf")?;
        }
        Ok(())
    })
}

/// One line per node under `roots`, in depth-first order: `line` writes the
/// node's text after its prefix. Without recursion.
fn write_lines<W: Write>(
    out: &mut W,
    roots: &[usize],
    children: &[Vec<usize>],
    mut line: impl FnMut(&mut W, usize) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    struct Item {
        position: usize,
        head: String,
        rest: String,
    }
    let mut stack: Vec<Item> = Vec::new();
    for (&root, (head, rest)) in roots.iter().zip(branch_prefixes("", roots.len())).rev() {
        stack.push(Item { position: root, head, rest });
    }
    while let Some(item) = stack.pop() {
        out.write_all(item.head.as_bytes())?;
        line(out, item.position)?;
        writeln!(out)?;
        let children = &children[item.position];
        let prefixes = branch_prefixes(&item.rest, children.len());
        for (&child, (head, rest)) in children.iter().zip(prefixes).rev() {
            stack.push(Item { position: child, head, rest });
        }
    }
    Ok(())
}

/// The line prefix of each of `count` siblings under `base`, and the prefix of
/// their descendants: one child continues the chain; several are drawn as branches.
fn branch_prefixes(base: &str, count: usize) -> Vec<(String, String)> {
    if count <= 1 {
        return vec![(base.to_owned(), base.to_owned()); count];
    }
    (0..count)
        .map(|i| {
            if i + 1 == count {
                (format!("{base}└─ "), format!("{base}   "))
            } else {
                (format!("{base}├─ "), format!("{base}│  "))
            }
        })
        .collect()
}
