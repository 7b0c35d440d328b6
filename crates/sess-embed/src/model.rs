//! A static embedding model: a tokenizer and an embedding table.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use tokenizers::Tokenizer;

use crate::error::{Error, Result};
use crate::table::Table;

/// A model loaded from its folder.
pub struct Model {
    dir: PathBuf,
    tokenizer: Tokenizer,
    table: Table,
    /// The tokenizer's special tokens (`[UNK]`, `<s>`, …): no part of a
    /// text's meaning.
    special: HashSet<u32>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model").field("dir", &self.dir).field("dims", &self.dims()).finish_non_exhaustive()
    }
}

impl Model {
    /// The model in `dir`: its `tokenizer.json` and its one `.safetensors`
    /// file, every row of its table read into memory (to embed many texts).
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] when a file is not there (or there are several
    /// `.safetensors` files), [`Error::Io`] when one cannot be read, and
    /// [`Error::Tokenizer`] or [`Error::Table`] when one is not what a model
    /// holds.
    pub fn load(dir: &Path) -> Result<Self> {
        Self::open(dir, true)
    }

    /// [`Model::load`], but each row of the table is read from the file when
    /// a text needs it: quicker to load and smaller, for a few queries.
    ///
    /// # Errors
    ///
    /// As [`Model::load`].
    pub fn load_for_queries(dir: &Path) -> Result<Self> {
        Self::open(dir, false)
    }

    fn open(dir: &Path, in_memory: bool) -> Result<Self> {
        let missing = |what: &str| Error::Missing { dir: dir.to_owned(), what: what.to_owned() };
        let tokenizer_path = dir.join("tokenizer.json");
        if !tokenizer_path.is_file() {
            return Err(missing("tokenizer.json"));
        }
        let entries = fs::read_dir(dir).map_err(|source| Error::Io { path: dir.to_owned(), source })?;
        let mut tables: Vec<PathBuf> = entries
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "safetensors") && path.is_file())
            .collect();
        let table_path = match tables.len() {
            0 => return Err(missing("`.safetensors` file")),
            1 => tables.remove(0),
            _ => return Err(missing("single `.safetensors` file (it has several)")),
        };
        let tokenizer = Tokenizer::from_file(&tokenizer_path)
            .map_err(|err| Error::Tokenizer { path: tokenizer_path.clone(), message: err.to_string() })?;
        let table = Table::open(&table_path, in_memory)?;
        let vocabulary = tokenizer.get_vocab_size(true);
        if table.rows() < vocabulary {
            return Err(Error::Table {
                path: table_path,
                message: format!("{} rows for the tokenizer's {vocabulary} tokens", table.rows()),
            });
        }
        let special =
            tokenizer.get_added_tokens_decoder().into_iter().filter(|(_, t)| t.special).map(|(id, _)| id).collect();
        Ok(Self { dir: dir.to_owned(), tokenizer, table, special })
    }

    /// The folder it was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What tells this model from another, for vectors made with it: its
    /// folder, its table's shape and its tokenizer's vocabulary size
    /// (`/models/potion:29528x256:29528`).
    pub fn id(&self) -> String {
        format!(
            "{}:{}x{}:{}",
            self.dir.display(),
            self.table.rows(),
            self.table.dims(),
            self.tokenizer.get_vocab_size(true)
        )
    }

    /// How many numbers a vector has.
    pub fn dims(&self) -> usize {
        self.table.dims()
    }

    /// The vector of `text`: the mean of its tokens' rows (without the
    /// tokenizer's special tokens, an unknown word's included), normalized
    /// to length 1; `None` when it has no other token (blank text).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when a row cannot be read from the table's file (a
    /// model [loaded for queries](Model::load_for_queries)).
    pub fn embed(&self, text: &str) -> Result<Option<Vec<f32>>> {
        let Ok(encoding) = self.tokenizer.encode(text, false) else { return Ok(None) };
        let mut sum = vec![0.0_f32; self.dims()];
        let mut count = 0_usize;
        for &id in encoding.get_ids() {
            if !self.special.contains(&id) && self.table.add_row(id as usize, &mut sum)? {
                count += 1;
            }
        }
        if count == 0 {
            return Ok(None);
        }
        let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm == 0.0 || !norm.is_finite() {
            return Ok(None);
        }
        for x in &mut sum {
            *x /= norm;
        }
        Ok(Some(sum))
    }
}
