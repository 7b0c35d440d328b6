//! `sess search QUERY`: ranked hits from the catalog, across every agent.

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;

use console::Style;
use serde::Serialize;
use sess::meaning::{SearchMode, Side};
use sess_archive::Filter;
use sess_catalog::{Hit, SearchParams, Stop, Stopped};
use sess_core::format_iso_millis;

use crate::Outcome;
use crate::catalog;
use crate::cli::SearchArgs;
use crate::commands::archived;
use crate::env::host;
use crate::output::{Hint, print_json, shell_word, stdout};
use crate::summary::{one_line, short};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Item<'a> {
    source: &'static str,
    id: &'a str,
    path: &'a std::path::Path,
    #[serde(skip_serializing_if = "Option::is_none")]
    store: Option<&'a str>,
    title: Option<&'a str>,
    cwd: Option<&'a str>,
    modified: String,
    entry_id: Option<&'a str>,
    role: &'a str,
    /// The text around the match.
    snippet: String,
    /// Where the matched words are in `snippet`, as `[start, end)` byte ranges.
    matches: Vec<[usize; 2]>,
    score: f64,
    /// Which sides found it: `words`, `meaning`.
    matched: Vec<Side>,
}

pub(crate) fn run(args: &SearchArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    search(args, store).map_err(|err| {
        // The catalog's error, the archive's that wraps it, or the library's.
        let out_of_time =
            |e: &sess_catalog::Error| matches!(e, sess_catalog::Error::Stopped { reason: Stopped::OutOfTime { .. } });
        let stopped = err.chain().find_map(|cause| {
            let catalog = cause.downcast_ref::<sess_catalog::Error>().or_else(|| match cause.downcast_ref() {
                Some(sess_archive::Error::Query(e)) => Some(e),
                _ => None,
            });
            let library = match cause.downcast_ref() {
                Some(stopped @ sess::Error::OutOfTime { .. }) => Some(stopped.to_string()),
                _ => None,
            };
            catalog.filter(|e| out_of_time(e)).map(ToString::to_string).or(library)
        });
        match stopped {
            Some(message) => anyhow::Error::new(Hint(
                "`--timeout SECS` gives the search longer (`--timeout 0`: no limit)".to_owned(),
            ))
            .context(message),
            None => err,
        }
    })
}

fn search(args: &SearchArgs, store: Option<&str>) -> anyhow::Result<Outcome> {
    // The budget is the search's, counted from when it starts: the catalog's
    // refresh before it (a first build can take minutes) is not part of it.
    let budget = || if args.timeout.is_zero() { Stop::never() } else { Stop::after(args.timeout) };
    let source = args.scope.source.single();
    let filter =
        Filter { machine: args.machine.clone(), source: source.map(|k| k.as_str().to_owned()), ..Filter::default() };
    let model_dir = catalog::model_dir(args.model.dir.as_deref());
    if let Some(url) = store
        && let Some(mut vault) = sess::archive::existing(url)?
    {
        return search_archive(args, (url, vault.as_mut()), &filter, model_dir, &budget());
    }
    if args.machine.is_some() {
        anyhow::bail!("--machine searches the sessions of an archive: name it with --store URL");
    }
    let how = args.mode.unwrap_or(SearchMode::default_for(model_dir.is_some()));
    if how.by_meaning() && model_dir.is_none() {
        return Err(sess::meaning::no_model().into());
    }
    // The model loads (its tokenizer takes a while) while the catalog is
    // brought up to date and searched for the words.
    let loading = model_dir
        .clone()
        .filter(|_| how.by_meaning())
        .map(|dir| std::thread::spawn(move || sess::meaning::load_model_for_queries(&dir).map(|model| (model, dir))));
    let mut catalog = catalog::open_fresh(args.catalog.path.as_deref(), store, !args.no_refresh)?;
    let stop = budget();
    // In a store, as `sess list --store`, every project unless one is named.
    let cwd = match (&args.scope.cwd, args.scope.all_projects) {
        (_, true) => None,
        (Some(dir), false) => Some(std::path::absolute(dir)?),
        (None, false) if store.is_some() => None,
        (None, false) => Some(std::env::current_dir()?),
    };
    let params = SearchParams {
        query: args.query.clone(),
        source,
        cwd: cwd.as_ref().map(|d| d.display().to_string()),
        store: store.map(str::to_owned),
        limit: args.limit,
        offset: 0,
        stop: stop.clone(),
    };
    let (mut hits, mut matched, model) = if let Some(loading) = loading {
        let words = sess::meaning::words(&catalog, how, &params)?;
        // The bits are read while the model loads, unless new messages are embedded first.
        let bits = if args.no_refresh { Some(sess::meaning::bits(&catalog, &params)?) } else { None };
        let (model, dir) = loading.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        let meaning = if let Some(bits) = bits {
            sess::meaning::meaning_in(&catalog, &bits, &model, &params)?
        } else {
            embed_new(&mut catalog, &model, &dir)?;
            sess::meaning::meaning(&catalog, &model, &params)?
        };
        let fused = sess::meaning::rank(how, words, meaning, (params.offset, params.limit));
        let matched: Vec<Vec<Side>> = fused.iter().map(Side::of).collect();
        (fused.into_iter().map(|f| f.hit).collect(), matched, Some(model))
    } else {
        let hits = catalog.search(&params)?;
        let matched = vec![vec![Side::Words]; hits.len()];
        (hits, matched, None)
    };
    // The default archive keeps what the agents deleted: those sessions too.
    if store.is_none()
        && hits.len() < args.limit
        && let Some(url) = sess::archive::default_present(&host().data_dir)
        && let mut vault = sess::archive::open(&url)?
        // By meaning too when the archive has vectors of the model; else by
        // words, and not at all by meaning alone.
        && let Some(how) = sess::meaning::archive_mode(vault.as_mut(), model.as_ref(), Some(how), true)?
    {
        let gone = Filter { gone: true, ..filter };
        let scope = (args.query.as_str(), &gone);
        let mut more = archived::search(vault.as_mut(), &url, scope, (args.limit, &stop), (how, model.as_ref()))?;
        if let Some(dir) = &params.cwd {
            more.retain(|(hit, _)| hit.session.cwd.as_deref() == Some(dir.as_str()));
        }
        more.truncate(args.limit - hits.len());
        for (hit, sides) in more {
            hits.push(hit);
            matched.push(sides);
        }
    }
    if !args.reveal_secrets {
        crate::redact::hits(&mut hits);
    }
    print(args, &hits, &matched, cwd.as_ref(), Some((&catalog, &params)))
}

/// `sess --store ARCHIVE search`: the archive searched where it is (in
/// PostgreSQL, by the server), by meaning too when it has vectors of the model.
fn search_archive(
    args: &SearchArgs,
    (url, vault): (&str, &mut dyn sess_archive::Vault),
    filter: &Filter,
    model_dir: Option<PathBuf>,
    stop: &Stop,
) -> anyhow::Result<Outcome> {
    let cwd = args.scope.cwd.as_ref().map(std::path::absolute).transpose()?;
    let wanted = args.mode.is_none_or(SearchMode::by_meaning);
    let model = model_dir.filter(|_| wanted).map(|dir| sess::meaning::load_model_for_queries(&dir)).transpose()?;
    let how = match args.mode {
        Some(mode) => mode,
        None => sess::meaning::archive_modes(vault, model.as_ref())?[0],
    };
    let scope = (args.query.as_str(), filter);
    let found = archived::search(vault, url, scope, (args.limit, stop), (how, model.as_ref()))?;
    let (mut hits, matched): (Vec<Hit>, Vec<Vec<Side>>) = found
        .into_iter()
        .filter(|(hit, _)| {
            cwd.as_ref().is_none_or(|dir| hit.session.cwd.as_deref() == Some(dir.display().to_string().as_str()))
        })
        .unzip();
    if !args.reveal_secrets {
        crate::redact::hits(&mut hits);
    }
    print(args, &hits, &matched, cwd.as_ref(), None)
}

/// Documents to embed from which the model's whole table is read first:
/// fewer are embedded reading the rows they need.
const EMBED_IN_MEMORY_FROM: usize = 200;

/// Embeds the catalog's messages that have no vector yet with `model`
/// (loaded for queries), or, when there are many, with the model in `dir`
/// loaded whole.
fn embed_new(
    catalog: &mut sess_catalog::Catalog,
    model: &sess_embed::Model,
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    let pending = catalog.to_embed(model)?;
    if pending >= EMBED_IN_MEMORY_FROM {
        catalog::embed(catalog, &sess::meaning::load_model(dir)?)?;
    } else if pending > 0 {
        catalog::embed(catalog, model)?;
    }
    Ok(())
}

/// Prints `hits`; with none, says whether other projects have some (with
/// the catalog searched).
fn print(
    args: &SearchArgs,
    hits: &[Hit],
    matched: &[Vec<Side>],
    cwd: Option<&PathBuf>,
    catalog: Option<(&sess_catalog::Catalog, &SearchParams)>,
) -> anyhow::Result<Outcome> {
    if args.json {
        let items: Vec<Item<'_>> = hits.iter().zip(matched).map(|(hit, sides)| item(hit, sides.clone())).collect();
        print_json(&items, false)?;
        return Ok(Outcome::Clean);
    }
    let mut out = stdout();
    if hits.is_empty() {
        writeln!(out, "no hits for `{}`{}", args.query, scope_note(cwd))?;
        if cwd.is_some()
            && args.scope.cwd.is_none()
            && let Some((catalog, params)) = catalog
        {
            let everywhere = catalog.search(&SearchParams { cwd: None, ..params.clone() })?;
            if !everywhere.is_empty() {
                writeln!(
                    out,
                    "{} sessions in other projects match: `sess search --all-projects {}`",
                    everywhere.len(),
                    shell_word(&args.query)
                )?;
            }
        }
        out.flush()?;
        return Ok(Outcome::Clean);
    }
    let colour = std::io::stdout().is_terminal();
    let bold = Style::new().bold().force_styling(colour);
    let dim = Style::new().dim().force_styling(colour);
    let mark = Style::new().yellow().bold().force_styling(colour);
    // The sources' names line up: as wide as the longest in the registry.
    let source_width = sess_sources::registry().map(|kind| kind.as_str().len()).max().unwrap_or(0);
    for hit in hits {
        let s = &hit.session;
        let when = format_iso_millis(s.modified_ms);
        let when = when.get(..16).unwrap_or(&when).replace('T', " ");
        let title = one_line(s.title.as_deref().unwrap_or("(untitled)"), 70);
        writeln!(
            out,
            "{}  {:<source_width$} {}  {}",
            dim.apply_to(when),
            s.source.as_str(),
            short(&s.id),
            bold.apply_to(title)
        )?;
        if cwd.is_none()
            && let Some(dir) = &s.cwd
        {
            writeln!(out, "    {}", dim.apply_to(dir))?;
        }
        let mut line = String::from("    ");
        if hit.role == "tool" {
            // The words were in what a tool answered, not in the conversation.
            line.push_str(&dim.apply_to("tool output: ").to_string());
        }
        for part in &hit.snippet {
            let text = part.text.replace(['\n', '\r', '\t'], " ");
            if part.hit {
                line.push_str(&mark.apply_to(text).to_string());
            } else {
                line.push_str(&text);
            }
        }
        writeln!(out, "{line}")?;
        let at = hit.entry_id.as_deref().map(|e| format!(" --leaf {e}")).filter(|_| s.source.as_str() == "pi");
        let from = s.store.as_deref().map(|url| format!("--store {} ", shell_word(url))).unwrap_or_default();
        writeln!(out, "    {}", dim.apply_to(format!("sess show {from}{}{}", s.id, at.unwrap_or_default())))?;
    }
    out.flush()?;
    Ok(Outcome::Clean)
}

fn item(hit: &Hit, sides: Vec<Side>) -> Item<'_> {
    let s = &hit.session;
    let mut snippet = String::new();
    let mut matches = Vec::new();
    for part in &hit.snippet {
        if part.hit {
            matches.push([snippet.len(), snippet.len() + part.text.len()]);
        }
        snippet.push_str(&part.text);
    }
    Item {
        source: s.source.as_str(),
        id: &s.id,
        path: &s.path,
        store: s.store.as_deref(),
        title: s.title.as_deref(),
        cwd: s.cwd.as_deref(),
        modified: format_iso_millis(s.modified_ms),
        entry_id: hit.entry_id.as_deref(),
        role: &hit.role,
        snippet,
        matches,
        score: hit.score,
        matched: sides,
    }
}

fn scope_note(cwd: Option<&PathBuf>) -> String {
    cwd.map(|d| format!(" in `{}`", d.display())).unwrap_or_default()
}
