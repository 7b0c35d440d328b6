//! Search by meaning: how a search ranks its hits ([`SearchMode`]), the
//! embedding model it does it with, and the hybrid ranking of the catalog's
//! hits by words and by meaning together ([`search`]), which `sess search`,
//! the page and the MCP server share.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sess_archive::{Filter, Vault};
use sess_catalog::{Bits, Catalog, Fused, Hit, Ranked, SearchParams, Stop};
use sess_embed::Model;

use crate::view::search_error;
use crate::{Error, Result};

/// How a search ranks sessions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// By their words (BM25): every word of the query must be there.
    Lexical,
    /// By meaning alone: the messages nearest the query's vector.
    Semantic,
    /// Both, ranked together by reciprocal rank fusion.
    Hybrid,
}

impl SearchMode {
    /// Every mode, as `--mode` lists them.
    pub const ALL: [Self; 3] = [Self::Lexical, Self::Semantic, Self::Hybrid];

    /// What a search does when it names no mode: hybrid when there is a
    /// model, else lexical.
    pub fn default_for(model: bool) -> Self {
        if model { Self::Hybrid } else { Self::Lexical }
    }

    /// Its name: `lexical`, `semantic`, `hybrid`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lexical => "lexical",
            Self::Semantic => "semantic",
            Self::Hybrid => "hybrid",
        }
    }

    /// Whether it needs an embedding model.
    pub fn by_meaning(self) -> bool {
        self != Self::Lexical
    }
}

impl std::str::FromStr for SearchMode {
    type Err = Error;

    fn from_str(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
            .ok_or_else(|| Error::Invalid { reason: format!("no search mode `{name}`: lexical, semantic or hybrid") })
    }
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which side of a search found a hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// Its words.
    Words,
    /// Its meaning.
    Meaning,
}

impl Side {
    /// The sides that found `fused`.
    pub fn of<H>(fused: &Fused<H>) -> Vec<Self> {
        [(fused.words, Self::Words), (fused.meaning, Self::Meaning)]
            .into_iter()
            .filter_map(|(found, side)| found.then_some(side))
            .collect()
    }
}

/// The embedding model in `dir`, every row of its table in memory: to embed
/// many messages.
///
/// # Errors
///
/// [`Error::Model`] naming the folder when it cannot be loaded.
pub fn load_model(dir: &Path) -> Result<Model> {
    Model::load(dir).map_err(|err| cannot_load(dir, err))
}

/// The embedding model in `dir`, its table's rows read when a text needs
/// them: quicker to load, for a search's query (and a few new messages).
///
/// # Errors
///
/// [`Error::Model`] naming the folder when it cannot be loaded.
pub fn load_model_for_queries(dir: &Path) -> Result<Model> {
    Model::load_for_queries(dir).map_err(|err| cannot_load(dir, err))
}

fn cannot_load(dir: &Path, err: sess_embed::Error) -> Error {
    Error::Model {
        message: format!("cannot load the embedding model in `{}`", dir.display()),
        source: Some(Box::new(err)),
    }
}

/// The refusal of a search by meaning without a model.
pub fn no_model() -> Error {
    Error::Model {
        message: "search by meaning needs an embedding model".to_owned(),
        source: Some(Box::new(crate::Hint(
            "give the model with --model DIR or $SESS_EMBED_MODEL (README: \"Search by meaning\")".to_owned(),
        ))),
    }
}

/// How many hits of each side a hybrid search ranks together, at least.
pub const FUSED_WINDOW: usize = 100;

/// The catalog's hits of `params` ranked as `mode` says, with the sides that
/// found each: `params.limit` from `params.offset` on ([`words`],
/// [`meaning`] and [`rank`] in turn). The meaning is searched in the vectors
/// the catalog has ([`Catalog::embed`] makes them).
///
/// # Errors
///
/// [`no_model`] when `mode` needs a model and there is none;
/// [`Error::Invalid`] for a query the catalog cannot read,
/// [`Error::OutOfTime`] or [`Error::Cancelled`] for a search stopped, and
/// [`Error::Failed`] when the catalog cannot be read.
pub fn search(catalog: &Catalog, model: Option<&Model>, mode: SearchMode, params: &SearchParams) -> Result<Vec<Fused>> {
    let words = words(catalog, mode, params)?;
    let meaning = match mode {
        SearchMode::Lexical => Vec::new(),
        _ => meaning(catalog, model.ok_or_else(no_model)?, params)?,
    };
    Ok(rank(mode, words, meaning, (params.offset, params.limit)))
}

/// The hits of the words that `mode` ranks: a lexical search's page, or the
/// first [`FUSED_WINDOW`] of a hybrid one (none for a semantic one).
///
/// # Errors
///
/// As [`search`].
pub fn words(catalog: &Catalog, mode: SearchMode, params: &SearchParams) -> Result<Vec<Hit>> {
    match mode {
        SearchMode::Lexical => catalog.search(params).map_err(search_error),
        SearchMode::Hybrid => catalog.search(&window(params)).map_err(search_error),
        SearchMode::Semantic => Ok(Vec::new()),
    }
}

/// The first [`FUSED_WINDOW`] (or more, for a later page) sessions nearest
/// the query in meaning; none when no word of it is the model's.
///
/// # Errors
///
/// As [`search`]; [`Error::Model`] when the model cannot embed the query.
pub fn meaning(catalog: &Catalog, model: &Model, params: &SearchParams) -> Result<Vec<Hit>> {
    meaning_in(catalog, &bits(catalog, params)?, model, params)
}

/// What [`meaning`] reads first: the bits of every piece in `params`'s
/// scope, which can be read while the model loads.
///
/// # Errors
///
/// [`Error::Failed`] when the catalog cannot be read.
pub fn bits(catalog: &Catalog, params: &SearchParams) -> Result<Bits> {
    catalog.bits(&window(params)).map_err(search_error)
}

/// [`meaning`] with the [`bits`] read for the same `params`.
///
/// # Errors
///
/// As [`meaning`].
pub fn meaning_in(catalog: &Catalog, bits: &Bits, model: &Model, params: &SearchParams) -> Result<Vec<Hit>> {
    match query_vector(model, &params.query)? {
        Some(vector) => catalog.search_meaning_in(bits, &vector, &window(params)).map_err(search_error),
        None => Ok(Vec::new()),
    }
}

/// The quantized vector of `query`; `None` when no word of it is the model's.
fn query_vector(model: &Model, query: &str) -> Result<Option<Vec<i8>>> {
    let embedded = model.embed(query).map_err(|err| Error::Model {
        message: format!("cannot embed the query with the model in `{}`", model.dir().display()),
        source: Some(Box::new(err)),
    })?;
    Ok(embedded.map(|vector| sess_embed::quantize(&vector)))
}

/// Whether the archive `vault` has vectors made with `model` (`sess archive
/// --model` makes them).
///
/// # Errors
///
/// [`Error::Failed`] when the archive cannot be read.
pub fn archive_has_vectors(vault: &mut dyn Vault, model: &Model) -> Result<bool> {
    Ok(vault.vector_model().map_err(archive_error)?.is_some_and(|id| id == model.id()))
}

/// The modes a search of the archive `vault` can take, its default first:
/// by words and meaning, by meaning, by words when it has vectors of `model`;
/// else by words alone.
///
/// # Errors
///
/// [`Error::Failed`] when the archive cannot be read.
pub fn archive_modes(vault: &mut dyn Vault, model: Option<&Model>) -> Result<Vec<SearchMode>> {
    Ok(match model {
        Some(model) if archive_has_vectors(vault, model)? => {
            vec![SearchMode::Hybrid, SearchMode::Semantic, SearchMode::Lexical]
        }
        _ => vec![SearchMode::Lexical],
    })
}

/// The mode a search of the archive `vault` takes: `asked`, else the
/// default of [`archive_modes`]. For sessions shown `beside` others (the
/// default archive's deleted sessions beside the catalog's), a mode the
/// archive cannot search is searched by words, and by meaning alone not at
/// all (`None`).
///
/// # Errors
///
/// [`Error::Failed`] when the archive cannot be read.
pub fn archive_mode(
    vault: &mut dyn Vault,
    model: Option<&Model>,
    asked: Option<SearchMode>,
    beside: bool,
) -> Result<Option<SearchMode>> {
    let searchable = archive_modes(vault, model)?;
    let mode = asked.unwrap_or(searchable[0]);
    Ok(match mode {
        _ if !beside || searchable.contains(&mode) => Some(mode),
        SearchMode::Semantic => None,
        _ => Some(SearchMode::Lexical),
    })
}

/// The hits of the archive `vault` for `query` within `filter`, ranked as
/// `mode` says, with the sides that found each: the first `limit`. The
/// meaning is searched in the vectors `sess archive --model` made.
///
/// # Errors
///
/// [`no_model`] when `mode` needs a model and there is none;
/// [`Error::Model`] when the archive has no vectors of `model`;
/// [`Error::Invalid`] for a query the archive cannot read,
/// [`Error::OutOfTime`] or [`Error::Cancelled`] for a search stopped, and
/// [`Error::Failed`] when the archive cannot be read.
pub fn search_archive(
    vault: &mut dyn Vault,
    model: Option<&Model>,
    mode: SearchMode,
    query: &str,
    filter: &Filter,
    limit: usize,
    stop: &Stop,
) -> Result<Vec<Fused<sess_archive::Hit>>> {
    let window = if mode == SearchMode::Lexical { limit } else { limit.max(FUSED_WINDOW) };
    let words = match mode {
        SearchMode::Semantic => Vec::new(),
        _ => vault.search(query, filter, window, stop).map_err(archive_error)?,
    };
    let mut meaning = Vec::new();
    if mode.by_meaning() {
        let model = model.ok_or_else(no_model)?;
        if !archive_has_vectors(vault, model)? {
            return Err(Error::Model {
                message: format!("the archive `{}` has no vectors made with this model", vault.location()),
                source: Some(Box::new(crate::Hint(
                    "`sess --store ARCHIVE archive --model DIR` embeds its messages".to_owned(),
                ))),
            });
        }
        if let Some(vector) = query_vector(model, query)? {
            meaning = sess_archive::search_meaning(vault, &vector, filter, window, stop).map_err(archive_error)?;
        }
    }
    Ok(rank(mode, words, meaning, (0, limit)))
}

/// An archive's error as the library's: a query it refused or a search
/// stopped as a search's ([`search_error`]).
pub(crate) fn archive_error(err: sess_archive::Error) -> Error {
    match err {
        sess_archive::Error::Query(err) => search_error(err),
        other => Error::Failed(Box::new(other)),
    }
}

/// The hits of both sides as `mode` ranks them: the page of `limit` from
/// `offset` on. A lexical search's words are that page already ([`words`]);
/// the other modes' hits are from the first on.
pub fn rank<H: Ranked>(
    mode: SearchMode,
    words: Vec<H>,
    meaning: Vec<H>,
    (offset, limit): (usize, usize),
) -> Vec<Fused<H>> {
    let wanted = offset + limit;
    let ranked: Vec<Fused<H>> = match mode {
        SearchMode::Lexical => {
            return words.into_iter().map(|hit| Fused { hit, words: true, meaning: false }).collect();
        }
        SearchMode::Semantic => {
            meaning.into_iter().take(wanted).map(|hit| Fused { hit, words: false, meaning: true }).collect()
        }
        SearchMode::Hybrid => sess_catalog::fuse(words, meaning, wanted),
    };
    ranked.into_iter().skip(offset).collect()
}

/// The hits each side ranks for `params`' page: from the first, at least
/// [`FUSED_WINDOW`].
fn window(params: &SearchParams) -> SearchParams {
    SearchParams { offset: 0, limit: (params.offset + params.limit).max(FUSED_WINDOW), ..params.clone() }
}
