//! What the archive's tests share.

#![allow(clippy::print_stderr, reason = "a test says what it skipped")]

/// Runs `test` on the URL of a fresh schema of the server `SESS_TEST_PG_URL`
/// names (and the server's URL), then drops the schema; skipped without it.
pub(crate) fn on_postgres(test: impl FnOnce(&str, &str) + std::panic::UnwindSafe) {
    let server = match std::env::var("SESS_TEST_PG_URL") {
        Ok(url) if !url.trim().is_empty() => url,
        _ => {
            assert!(std::env::var("SESS_REQUIRE_PG").as_deref() != Ok("1"), "SESS_TEST_PG_URL is not set");
            eprintln!("skipped: SESS_TEST_PG_URL is not set");
            return;
        }
    };
    let schema = format!("sess_archive_{}", uuid::Uuid::new_v4().simple());
    let separator = if server.contains('?') { '&' } else { '?' };
    let url = format!("{server}{separator}options=-csearch_path%3D{schema}");
    let result = std::panic::catch_unwind(|| test(&url, &server));
    if let Ok(mut client) = postgres::Client::connect(&server, postgres::NoTls) {
        let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
    }
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}
