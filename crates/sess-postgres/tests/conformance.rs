//! The backend conformance suite on the PostgreSQL backend, each check in a
//! fresh schema of the server `SESS_TEST_PG_URL` names (skipped without one;
//! see `support/pg.rs`).

#[path = "support/pg.rs"]
mod pg;

sess_testkit::conformance_tests!(pg::scoped_backend(), run_if: pg::enabled("the PostgreSQL conformance check"));
