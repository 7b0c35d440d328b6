//! The connection URL: libpq's `postgres://user@host:port/db?…` (or its
//! `key=value` form), and the schema its `options` parameter selects.
//!
//! The schema is the first entry of a `search_path` set in `options`
//! (`options=-csearch_path=NAME`, as libpq takes it). The client sends
//! `options` in the startup packet of every connection, so every pooled
//! connection resolves table names in that schema; without a `search_path`
//! this adds `-csearch_path=public`, so the tables never land in a schema named
//! after the user by the server's default `"$user", public`.
//!
//! `connect_timeout` (seconds, as libpq takes it) bounds the whole of opening a
//! connection to each host: TCP, startup, authentication and the session's
//! settings. Absent or `0`, it is [`DEFAULT_CONNECT_TIMEOUT`]: a server that
//! accepts and never answers is an error, never a wait without end.

use std::time::Duration;

use crate::error::{Error, Result};

/// The bound on opening a connection to one host when the URL sets no
/// `connect_timeout` (or sets `0`).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where to connect and which schema holds the tables.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The client configuration; its `options` always set `search_path`.
    pub(crate) config: postgres::Config,
    /// The schema the tables live in, as the server spells it (unquoted).
    pub(crate) schema: String,
    /// `user@host:port/database`, for messages (never the password).
    pub(crate) server: String,
    /// The longest a whole connect may take: `connect_timeout` for each host
    /// the URL names.
    pub(crate) connect_limit: Duration,
    /// Whether the URL's `options` set `statement_timeout` themselves.
    pub(crate) sets_statement_timeout: bool,
}

/// Parses `url` and finds its schema.
pub(crate) fn parse(url: &str) -> Result<Target> {
    let mut config: postgres::Config =
        url.parse().map_err(|e: postgres::Error| Error::InvalidUrl { reason: e.to_string() })?;
    let options = config.get_options().unwrap_or_default().to_owned();
    let sets_statement_timeout = setting(&options, "statement_timeout").is_some();
    let per_host = config.get_connect_timeout().copied().unwrap_or(DEFAULT_CONNECT_TIMEOUT);
    config.connect_timeout(per_host);
    let hosts = config.get_hosts().len().max(config.get_hostaddrs().len()).max(1);
    let connect_limit = per_host.saturating_mul(u32::try_from(hosts).unwrap_or(u32::MAX));
    let schema = if let Some(path) = setting(&options, "search_path") {
        first_schema(&path)?
    } else {
        let options = if options.trim().is_empty() {
            "-csearch_path=public".to_owned()
        } else {
            format!("{options} -csearch_path=public")
        };
        config.options(&options);
        "public".to_owned()
    };
    let server = server(&config);
    Ok(Target { config, schema, server, connect_limit, sets_statement_timeout })
}

/// `user@host:port/database` of `config`.
fn server(config: &postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(host)) => host.clone(),
        Some(postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().unwrap_or("?");
    let dbname = config.get_dbname().unwrap_or(user);
    format!("{user}@{host}:{port}/{dbname}")
}

/// The value of the last setting of `wanted` (e.g. `search_path`) in a server
/// `options` string (`-c search_path=…`, `-csearch_path=…` or
/// `--search_path=…`; arguments are separated by spaces, and a backslash takes
/// the next character literally, as the server splits them).
fn setting(options: &str, wanted: &str) -> Option<String> {
    let args = split_options(options);
    let mut found = None;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let setting = if arg == "-c" {
            args.next().map(String::as_str)
        } else {
            arg.strip_prefix("--").or_else(|| arg.strip_prefix("-c"))
        };
        let Some((name, value)) = setting.and_then(|s| s.split_once('=')) else { continue };
        if name.replace('-', "_").eq_ignore_ascii_case(wanted) {
            found = Some(value.to_owned());
        }
    }
    found
}

/// Splits `options` at unescaped whitespace, removing the escapes.
fn split_options(options: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = options.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => current.extend(chars.next()),
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// The first schema of a `search_path` value: a double-quoted name as written
/// (`""` for a quote), an unquoted one folded to lower case, as the server
/// reads it.
fn first_schema(path: &str) -> Result<String> {
    let invalid = |reason: &str| Error::InvalidUrl { reason: format!("search_path `{path}`: {reason}") };
    let path = path.trim_start();
    let name = if let Some(rest) = path.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = rest.chars().peekable();
        loop {
            match chars.next() {
                Some('"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    name.push('"');
                }
                Some('"') => break,
                Some(c) => name.push(c),
                None => return Err(invalid("unterminated quoted name")),
            }
        }
        name
    } else {
        path.split(',').next().unwrap_or_default().trim().to_lowercase()
    };
    if name.is_empty() {
        return Err(invalid("no schema name"));
    }
    if name == "$user" {
        return Err(invalid("the first schema must be a name, not `$user`"));
    }
    Ok(name)
}

/// `name` as an SQL identifier: in double quotes, quotes doubled.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_schema_comes_from_the_options_search_path() {
        let target = parse("postgres://me:secret@db.example:6543/fleet?options=-csearch_path%3Dsess_a").unwrap();
        assert_eq!((target.schema.as_str(), target.server.as_str()), ("sess_a", "me@db.example:6543/fleet"));
        assert_eq!(target.config.get_options(), Some("-csearch_path=sess_a"));
        for (options, schema) in [
            ("-csearch_path=Fleet,public", "fleet"),
            ("-c search_path=one", "one"),
            ("--search-path=two", "two"),
            ("-cstatement_timeout=5s -csearch_path=\"My\"\"Schema\",public", "My\"Schema"),
            ("-csearch_path=a -csearch_path=b", "b"),
            ("-csearch_path=with\\ space", "with space"),
        ] {
            let mut config = postgres::Config::new();
            config.user("u").options(options);
            let found = setting(config.get_options().unwrap(), "search_path").unwrap();
            assert_eq!(first_schema(&found).unwrap(), schema, "{options}");
        }
    }

    #[test]
    fn without_a_search_path_the_schema_is_public_on_every_connection() {
        let target = parse("postgres://postgres@127.0.0.1/test").unwrap();
        assert_eq!(target.schema, "public");
        assert_eq!(target.config.get_options(), Some("-csearch_path=public"));
        let target = parse("postgres://postgres@127.0.0.1/test?options=-cstatement_timeout%3D5s").unwrap();
        assert_eq!(target.config.get_options(), Some("-cstatement_timeout=5s -csearch_path=public"));
    }

    #[test]
    fn connect_timeout_bounds_each_host_and_defaults_to_ten_seconds() {
        let limit = |url: &str| parse(url).unwrap().connect_limit;
        assert_eq!(limit("postgres://u@h/db"), DEFAULT_CONNECT_TIMEOUT);
        assert_eq!(limit("postgres://u@h/db?connect_timeout=0"), DEFAULT_CONNECT_TIMEOUT);
        assert_eq!(limit("postgres://u@h/db?connect_timeout=3"), Duration::from_secs(3));
        assert_eq!(limit("postgres://u@a,b/db?connect_timeout=3"), Duration::from_secs(6));
        assert_eq!(parse("postgres://u@h/db").unwrap().config.get_connect_timeout(), Some(&DEFAULT_CONNECT_TIMEOUT));
        assert!(!parse("postgres://u@h/db").unwrap().sets_statement_timeout);
        assert!(parse("postgres://u@h/db?options=-c%20statement-timeout%3D5s").unwrap().sets_statement_timeout);
    }

    #[test]
    fn bad_urls_and_paths_are_refused_without_echoing_the_password() {
        let error = parse("postgres://me:secret@host/db?options").unwrap_err();
        assert!(matches!(error, Error::InvalidUrl { .. }) && !error.to_string().contains("secret"), "{error}");
        for path in ["\"$user\", public", "$user", "\"open", " , x"] {
            assert!(first_schema(path).is_err(), "{path}");
        }
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
    }
}
