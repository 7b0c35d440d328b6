//! The embedding model of the tests of search by meaning.

use std::path::PathBuf;

/// The folder of the model `scripts/embed-model` fetched, as
/// `SESS_TEST_EMBED_MODEL` names it; `None` after saying the test is
/// skipped without it, or a panic when `SESS_REQUIRE_EMBED=1` (CI).
pub fn embed_model_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SESS_TEST_EMBED_MODEL") {
        return Some(PathBuf::from(dir));
    }
    assert!(
        std::env::var("SESS_REQUIRE_EMBED").as_deref() != Ok("1"),
        "SESS_TEST_EMBED_MODEL is not set (run scripts/embed-model)"
    );
    #[allow(clippy::print_stderr, reason = "the suite says what it skipped")]
    {
        eprintln!("SKIPPED: SESS_TEST_EMBED_MODEL is not set (run scripts/embed-model)");
    }
    None
}
