//! The folder a CLI transcript's project slug names. Cursor names the
//! folder of a workspace's transcripts after its path with every character
//! but ASCII letters and digits made `-` (`/home/dev/a.b` → `home-dev-a-b`),
//! which cannot be undone from the name alone: the slug is matched against
//! the folders that exist, one level at a time, and names no folder when
//! none matches (a removed project).

use std::path::{Path, PathBuf};

/// How many folders a resolution may look into before it gives up.
const MAX_LOOKS: usize = 512;

/// `name` as it appears in a slug.
pub(crate) fn slug(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect()
}

/// The existing folder whose path the slug `slug` is made from; `None` when
/// no folder matches.
pub(crate) fn resolve(slug: &str) -> Option<PathBuf> {
    let mut looks = 0;
    let rest = slug.strip_prefix('-').unwrap_or(slug);
    find(Path::new("/"), rest, &mut looks)
}

fn find(dir: &Path, rest: &str, looks: &mut usize) -> Option<PathBuf> {
    if rest.is_empty() {
        return Some(dir.to_owned());
    }
    *looks += 1;
    if *looks > MAX_LOOKS {
        return None;
    }
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    // The longest name first: `a-b` before `a`, when both could match.
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    for name in names {
        let made = slug(&name);
        if rest == made {
            return Some(dir.join(name));
        }
        if let Some(after) = rest.strip_prefix(&made).and_then(|r| r.strip_prefix('-'))
            && let Some(found) = find(&dir.join(&name), after, looks)
        {
            return Some(found);
        }
    }
    None
}
