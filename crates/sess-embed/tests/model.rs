//! Models loaded from folders: a tiny one written here (a word-level
//! tokenizer and a table of known numbers), and the real `wordllama` one
//! when the test setup fetched it (`SESS_TEST_EMBED_MODEL`).

#![allow(clippy::unwrap_used, clippy::expect_used)] // A panic is how a test fails.
#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use safetensors::{Dtype, View};
use serde_json::json;
use sess_embed::{Error, Model, quantize, similarity};

/// The words of the tiny model, by id; `[UNK]` is special.
const WORDS: [&str; 5] = ["[UNK]", "server", "boot", "test", "parser"];

/// Its table: one row of three numbers per word.
const ROWS: [[f32; 3]; 5] = [[9.0, 9.0, 9.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 3.0]];

/// A tensor to write: its type, shape and bytes.
struct Tensor {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl View for &Tensor {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

fn f32_table() -> Tensor {
    let bytes = ROWS.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
    Tensor { dtype: Dtype::F32, shape: vec![5, 3], bytes }
}

/// Half floats of the numbers in `ROWS` (0, 1, 3 and 9 are exact in f16).
fn f16_table() -> Tensor {
    let half = |x: f32| -> u16 {
        match x {
            0.0 => 0,
            1.0 => 0x3c00,
            3.0 => 0x4200,
            9.0 => 0x4880,
            other => panic!("{other}"),
        }
    };
    let bytes = ROWS.iter().flatten().flat_map(|x| half(*x).to_le_bytes()).collect();
    Tensor { dtype: Dtype::F16, shape: vec![5, 3], bytes }
}

fn write_tensors(path: &Path, tensors: &[(&str, &Tensor)]) {
    let map: HashMap<String, &Tensor> = tensors.iter().map(|(name, t)| ((*name).to_owned(), *t)).collect();
    safetensors::serialize_to_file(map, None, path).unwrap();
}

fn write_tokenizer(dir: &Path) {
    let vocab: serde_json::Map<String, serde_json::Value> =
        WORDS.iter().enumerate().map(|(id, word)| ((*word).to_owned(), json!(id))).collect();
    let tokenizer = json!({
        "version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false,
                          "normalized": false, "special": true}],
        "normalizer": {"type": "Lowercase"}, "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    });
    fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
}

/// A folder with the tiny model, its table as `table`.
fn tiny(table: &Tensor) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_tokenizer(dir.path());
    write_tensors(&dir.path().join("model.safetensors"), &[("embeddings", table)]);
    dir
}

fn close(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
}

#[test]
fn a_text_is_the_normalized_mean_of_its_words_rows() {
    let dir = tiny(&f32_table());
    let model = Model::load(dir.path()).unwrap();
    assert_eq!(model.dims(), 3);
    // (1,0,0) + (0,1,0), normalized; case folded by the tokenizer, an unknown word's row not counted.
    let half = std::f32::consts::FRAC_1_SQRT_2;
    assert!(close(&model.embed("Server BOOT").unwrap().unwrap(), &[half, half, 0.0]));
    assert!(close(&model.embed("server unknown boot").unwrap().unwrap(), &[half, half, 0.0]));
    // Rows are summed before the norm: parser weighs three times test.
    assert!(close(&model.embed("test parser").unwrap().unwrap(), &[0.0, 0.0, 1.0]));
    assert_eq!(model.embed("   ").unwrap(), None);
    assert_eq!(model.embed("nothing known").unwrap(), None);
}

#[test]
fn an_f16_table_gives_the_f32_vectors_and_rows_read_when_needed_the_same() {
    let (a, b) = (tiny(&f32_table()), tiny(&f16_table()));
    let models = [
        Model::load(a.path()).unwrap(),
        Model::load(b.path()).unwrap(),
        Model::load_for_queries(a.path()).unwrap(),
        Model::load_for_queries(b.path()).unwrap(),
    ];
    for text in ["server boot", "test parser server", "boot"] {
        let first = models[0].embed(text).unwrap().unwrap();
        for model in &models[1..] {
            assert!(close(&first, &model.embed(text).unwrap().unwrap()), "{text}: {model:?}");
        }
    }
    // A table read when needed reads the file then: gone, it says so.
    let dir = tiny(&f32_table());
    let lazy = Model::load_for_queries(dir.path()).unwrap();
    fs::write(dir.path().join("model.safetensors"), b"").unwrap();
    let err = lazy.embed("server").unwrap_err();
    assert!(matches!(&err, Error::Io { path, .. } if path.ends_with("model.safetensors")), "{err}");
}

#[test]
fn a_table_file_cut_short_is_refused() {
    let dir = tiny(&f32_table());
    let path = dir.path().join("model.safetensors");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 4]).unwrap();
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("has 60 bytes for its shape [5, 3]"), "{err}");
    fs::write(&path, &bytes[..6]).unwrap();
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("shorter than a header"), "{err}");
    fs::write(&path, [&200_u64.to_le_bytes()[..], b"{}"].concat()).unwrap();
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("a header of 200 bytes in a file of 10"), "{err}");
}

#[test]
fn a_folder_that_is_not_a_model_says_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let err = Model::load(dir.path()).unwrap_err();
    assert!(matches!(&err, Error::Missing { what, .. } if what == "tokenizer.json"), "{err}");

    write_tokenizer(dir.path());
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("has no `.safetensors` file"), "{err}");

    let one_d = Tensor { dtype: Dtype::F32, shape: vec![3], bytes: vec![0; 12] };
    write_tensors(&dir.path().join("model.safetensors"), &[("weights", &one_d)]);
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("model.safetensors` holds no embedding table: no 2-D tensor"), "{err}");

    let short = Tensor { dtype: Dtype::F32, shape: vec![2, 3], bytes: vec![0; 24] };
    write_tensors(&dir.path().join("model.safetensors"), &[("embeddings", &short)]);
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("2 rows for the tokenizer's 5 tokens"), "{err}");

    let ints = Tensor { dtype: Dtype::I32, shape: vec![5, 3], bytes: vec![0; 60] };
    write_tensors(&dir.path().join("model.safetensors"), &[("embeddings", &ints)]);
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("f32 or f16 is read"), "{err}");

    write_tensors(&dir.path().join("other.safetensors"), &[("embeddings", &f32_table())]);
    let err = Model::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("several"), "{err}");

    fs::remove_file(dir.path().join("other.safetensors")).unwrap();
    fs::write(dir.path().join("tokenizer.json"), "{").unwrap();
    let err = Model::load(dir.path()).unwrap_err();
    assert!(matches!(&err, Error::Tokenizer { path, .. } if path.ends_with("tokenizer.json")), "{err}");
}

/// The model the test setup fetched (`scripts/embed-model`), or `None`.
fn real_model() -> Option<Model> {
    Some(Model::load(&sess_testkit::embed::embed_model_dir()?).unwrap())
}

#[test]
fn the_wordllama_model_puts_a_paraphrase_nearer_than_another_topic() {
    let Some(model) = real_model() else { return };
    assert_eq!(model.dims(), 256);
    let vector = |text: &str| quantize(&model.embed(text).unwrap().unwrap());
    let query = vector("the web server would not boot");
    let paraphrase = vector("mix phx.server doesn't seem to start");
    let other = vector("add a unit test for the date parser");
    assert!(
        similarity(&query, &paraphrase) > similarity(&query, &other),
        "{} vs {}",
        similarity(&query, &paraphrase),
        similarity(&query, &other)
    );
    assert!((similarity(&query, &query) - 1.0).abs() < 0.02);
}
