//! `sess tree FILE [--json]`.

use std::io::Write;

use sess_core::segment::{self, Segments};
use sess_core::{Entry, EntryIndex, Tree};

use crate::Outcome;
use crate::cli::TreeArgs;
use crate::load::load;
use crate::output::{stdout, warn};
use crate::summary::describe;

pub(crate) fn run(args: &TreeArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    let outcome = load(&args.file, store)?;
    let entries = outcome.file.entries();
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

/// `{"leafId":…,"roots":[{"id","type","label"?,"children":[…]}]}`, written
/// without recursion so a deep chain costs no stack.
fn write_json(
    out: &mut impl Write,
    entries: &[Entry],
    index: &EntryIndex,
    tree: &Tree,
    leaf: Option<usize>,
) -> anyhow::Result<()> {
    enum Step {
        Open(usize),
        Close,
    }
    let leaf_id = leaf.map(|l| entries[l].id().as_str());
    write!(out, "{{\"leafId\":{},\"roots\":[", serde_json::to_string(&leaf_id)?)?;
    // Each node opens `{…,"children":[`, then its children, then `]}`.
    let mut stack: Vec<Step> = tree.roots.iter().rev().map(|&r| Step::Open(r)).collect();
    let mut need_comma = false;
    while let Some(step) = stack.pop() {
        match step {
            Step::Open(position) => {
                let entry = &entries[position];
                if need_comma {
                    out.write_all(b",")?;
                }
                write!(
                    out,
                    "{{\"id\":{},\"type\":{}",
                    serde_json::to_string(entry.id().as_str())?,
                    serde_json::to_string(entry.type_name())?
                )?;
                if let Some(label) = index.label(entry.id().as_str()) {
                    write!(out, ",\"label\":{}", serde_json::to_string(label)?)?;
                }
                out.write_all(b",\"children\":[")?;
                stack.push(Step::Close);
                stack.extend(tree.children[position].iter().rev().map(|&c| Step::Open(c)));
                need_comma = false;
            }
            Step::Close => {
                out.write_all(b"]}")?;
                need_comma = true;
            }
        }
    }
    out.write_all(b"]}\n")?;
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
    struct Item {
        position: usize,
        head: String,
        rest: String,
    }
    let id_width = entries.iter().map(|e| e.id().as_str().chars().count()).max().unwrap_or(0).min(36);
    let mut stack: Vec<Item> = Vec::new();
    let root_prefixes = branch_prefixes("", tree.roots.len());
    for (&root, (head, rest)) in tree.roots.iter().zip(root_prefixes).rev() {
        stack.push(Item { position: root, head, rest });
    }
    while let Some(item) = stack.pop() {
        let entry = &entries[item.position];
        write!(out, "{}{:<id_width$}  {}", item.head, entry.id().as_str(), describe(entry))?;
        if let Some(label) = index.label(entry.id().as_str()) {
            write!(out, "  [{label}]")?;
        }
        let placement = segments.placements[item.position];
        if placement.seq == 0 && item.position != 0 {
            write!(out, "  ◆ {} segment", segments.segments[placement.segment].origin)?;
        }
        if Some(item.position) == leaf {
            write!(out, "  ← leaf")?;
        }
        writeln!(out)?;
        let children = &tree.children[item.position];
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
