//! Search by meaning: how a search ranks its hits ([`SearchMode`]), the
//! embedding model it does it with, and the hybrid ranking of the catalog's
//! hits by words and by meaning together ([`search`]), which `sess search`,
//! the page and the MCP server share.

use std::path::Path;

use serde::{Deserialize, Serialize};
use sess_catalog::{Catalog, Fused, SearchParams};
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
    pub fn of(fused: &Fused) -> Vec<Self> {
        [(fused.words, Self::Words), (fused.meaning, Self::Meaning)]
            .into_iter()
            .filter_map(|(found, side)| found.then_some(side))
            .collect()
    }
}

/// The embedding model in `dir`.
///
/// # Errors
///
/// [`Error::Model`] naming the folder when it cannot be loaded.
pub fn load_model(dir: &Path) -> Result<Model> {
    Model::load(dir).map_err(|err| Error::Model {
        message: format!("cannot load the embedding model in `{}`", dir.display()),
        source: Some(Box::new(err)),
    })
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
const FUSED_WINDOW: usize = 100;

/// The catalog's hits of `params` ranked as `mode` says, with the sides that
/// found each: `params.limit` from `params.offset` on. The meaning is
/// searched in the vectors the catalog has ([`Catalog::embed`] makes them);
/// a query with no word the model knows finds nothing by meaning.
///
/// # Errors
///
/// [`no_model`] when `mode` needs a model and there is none;
/// [`Error::Invalid`] for a query the catalog cannot read,
/// [`Error::OutOfTime`] or [`Error::Cancelled`] for a search stopped, and
/// [`Error::Failed`] when the catalog cannot be read.
pub fn search(catalog: &Catalog, model: Option<&Model>, mode: SearchMode, params: &SearchParams) -> Result<Vec<Fused>> {
    let words_only = |hits: Vec<sess_catalog::Hit>| {
        hits.into_iter().map(|hit| Fused { hit, words: true, meaning: false }).collect::<Vec<_>>()
    };
    if mode == SearchMode::Lexical {
        return Ok(words_only(catalog.search(params).map_err(search_error)?));
    }
    let model = model.ok_or_else(no_model)?;
    let wanted = params.offset + params.limit;
    let window = SearchParams { offset: 0, limit: wanted.max(FUSED_WINDOW), ..params.clone() };
    let meaning = match model.embed(&params.query) {
        Some(vector) => catalog.search_meaning(&sess_embed::quantize(&vector), &window).map_err(search_error)?,
        None => Vec::new(),
    };
    let fused = if mode == SearchMode::Semantic {
        meaning.into_iter().take(wanted).map(|hit| Fused { hit, words: false, meaning: true }).collect()
    } else {
        let words = catalog.search(&window).map_err(search_error)?;
        sess_catalog::fuse(words, meaning, wanted)
    };
    Ok(fused.into_iter().skip(params.offset).collect())
}
