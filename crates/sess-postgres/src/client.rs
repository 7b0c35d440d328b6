//! A plain client for other tables of a store's schema (the archive's): the
//! same URL rules, schema and timeouts as [`PostgresBackend`](crate::PostgresBackend).

use std::time::Duration;

use crate::config;
use crate::error::Result;
use crate::pool::Pool;

/// A connection to the schema a store URL names.
pub struct Connected {
    /// The client; its `search_path` is the schema.
    pub client: postgres::Client,
    /// The schema, as the server spells it.
    pub schema: String,
    /// `user@host:port/database/schema`, for messages (never the password).
    pub location: String,
}

/// Connects to the schema of the store `url` (a libpq URL, whose `options`
/// may set `search_path`), in at most its connect timeout, with
/// `synchronous_commit` on and `statement_timeout` (unless the URL sets one;
/// `Duration::ZERO` for none).
pub fn connect(url: &str, statement_timeout: Duration) -> Result<Connected> {
    let target = config::parse(url)?;
    let location = format!("{}/{}", target.server, target.schema);
    let schema = target.schema.clone();
    let setup = if target.sets_statement_timeout {
        "SET synchronous_commit TO on".to_owned()
    } else {
        format!("SET synchronous_commit TO on; SET statement_timeout TO {}", statement_timeout.as_millis())
    };
    let pool = Pool::new(target, setup, 1, Duration::ZERO);
    let connection = pool.connect()?;
    Ok(Connected { client: connection.client, schema, location })
}
