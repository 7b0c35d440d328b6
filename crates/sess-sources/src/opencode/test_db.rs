//! Databases shaped like OpenCode's, for tests.

use std::path::{Path, PathBuf};

use rusqlite::Connection;

/// The columns of OpenCode's tables that the reader uses.
const SCHEMA: &str = "
    create table session (id text primary key, project_id text not null, parent_id text, slug text not null,
        directory text not null, title text not null, version text not null, revert text,
        time_created integer not null, time_updated integer not null, time_archived integer);
    create table message (id text primary key, session_id text not null, time_created integer not null,
        time_updated integer not null, data text not null);
    create table part (id text primary key, message_id text not null, session_id text not null,
        time_created integer not null, time_updated integer not null, data text not null);
";

pub(crate) fn writer(dir: &Path, wal: bool) -> (Connection, PathBuf) {
    let path = dir.join("opencode.db");
    let conn = Connection::open(&path).unwrap();
    if wal {
        conn.pragma_update(None, "journal_mode", "wal").unwrap();
        // Keep what is written in the log, as a running OpenCode does.
        conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
    }
    conn.execute_batch(SCHEMA).unwrap();
    (conn, path)
}

/// A session in `/p` titled `T`, with an /undo at `revert` when given.
pub(crate) fn add_session(conn: &Connection, id: &str, revert: Option<&str>) {
    conn.execute(
        "insert into session values (?1, 'global', null, 's', '/p', 'T', '1.18.33', ?2, 1, 2, null)",
        rusqlite::params![id, revert],
    )
    .unwrap();
}

/// A session with its parent, directory, title and archive time.
pub(crate) fn add_session_in(
    conn: &Connection,
    id: &str,
    parent: Option<&str>,
    directory: &str,
    title: &str,
    archived: Option<i64>,
) {
    conn.execute(
        "insert into session values (?1, 'global', ?2, 's', ?3, ?4, '1.18.33', null, 1, 7, ?5)",
        rusqlite::params![id, parent, directory, title, archived],
    )
    .unwrap();
}

pub(crate) fn add_message(conn: &Connection, session: &str, id: &str, created: i64, data: &str) {
    conn.execute("insert into message values (?1, ?2, ?3, ?3, ?4)", rusqlite::params![id, session, created, data])
        .unwrap();
}

pub(crate) fn add_part(conn: &Connection, session: &str, message: &str, id: &str, data: &str) {
    conn.execute("insert into part values (?1, ?2, ?3, 0, 0, ?4)", rusqlite::params![id, message, session, data])
        .unwrap();
}
