//! The searchable text as the catalog stores it: a document's body is kept
//! once, in `docs.body`, compressed with zstd when that makes it smaller (a
//! `BLOB`), else as it is (`TEXT`). SQLite tells the two apart by their type.
//!
//! The full-text indexes read the text through the view `docs_text`, whose
//! `doc_text(body)` gives every body back as text: FTS5 reads it only for a
//! snippet of a hit shown and to take a document out of the index, never to
//! search or rank.

use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::{ToSqlOutput, ValueRef};

/// Bodies shorter than this are stored as they are: zstd's frame would cost
/// more than it saves.
const MIN_PACKED: usize = 96;
/// The longest text a stored body gives back: the catalog keeps at most 16
/// KiB of a message (`extract.rs`); a frame that says more is damaged.
const MAX_TEXT: usize = 1024 * 1024;
/// zstd's level: its fastest. Level 3, its default, made the catalog of
/// every agent's generated sessions (`bench/compare --tasks agents`) 0.2%
/// smaller, and its first build took up to 7% more processor time.
const LEVEL: i32 = 1;

/// A body as it is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stored {
    /// Kept as it is.
    Plain,
    /// zstd-compressed.
    Packed(Vec<u8>),
}

impl Stored {
    /// How `body` is stored: compressed when that is smaller.
    pub(crate) fn of(body: &str) -> Self {
        if body.len() < MIN_PACKED {
            return Self::Plain;
        }
        // One compressor per thread: making zstd's context anew for every
        // body cost as much as compressing it.
        thread_local! {
            static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
                const { std::cell::RefCell::new(None) };
        }
        let packed = COMPRESSOR.with(|cell| {
            let mut cell = cell.borrow_mut();
            let compressor = match &mut *cell {
                Some(compressor) => compressor,
                empty => empty.insert(zstd::bulk::Compressor::new(LEVEL).ok()?),
            };
            compressor.compress(body.as_bytes()).ok()
        });
        match packed {
            Some(packed) if packed.len() < body.len() => Self::Packed(packed),
            _ => Self::Plain,
        }
    }

    /// The value bound for `body`, which this describes.
    pub(crate) fn value<'a>(&'a self, body: &'a str) -> ToSqlOutput<'a> {
        ToSqlOutput::Borrowed(self.value_ref(body))
    }

    fn value_ref<'a>(&'a self, body: &'a str) -> ValueRef<'a> {
        match self {
            Self::Plain => ValueRef::Text(body.as_bytes()),
            Self::Packed(bytes) => ValueRef::Blob(bytes),
        }
    }
}

/// The text of a stored body.
pub(crate) fn unpack(value: ValueRef<'_>) -> Result<String, String> {
    match value {
        ValueRef::Text(text) => Ok(String::from_utf8_lossy(text).into_owned()),
        ValueRef::Blob(packed) => {
            let size = zstd::zstd_safe::get_frame_content_size(packed)
                .ok()
                .flatten()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n <= MAX_TEXT)
                .ok_or("a stored text without its size, or larger than any the catalog stores")?;
            let bytes = zstd::bulk::decompress(packed, size).map_err(|e| e.to_string())?;
            String::from_utf8(bytes).map_err(|e| e.to_string())
        }
        ValueRef::Null => Ok(String::new()),
        ValueRef::Integer(_) | ValueRef::Real(_) => Err("a stored text that is a number".to_owned()),
    }
}

/// Registers `doc_text(body)` on `conn`, which the view `docs_text` (and so
/// the full-text indexes) reads the text through.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("doc_text", 1, flags, |ctx| {
        unpack(ctx.get_raw(0)).map_err(|e| rusqlite::Error::UserFunctionError(e.into()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_packed_and_read_back() {
        let body = "the parser fails on an empty line; ".repeat(40);
        let stored = Stored::of(&body);
        let Stored::Packed(packed) = &stored else { panic!("not packed: {stored:?}") };
        assert!(packed.len() < body.len() / 4, "{} of {}", packed.len(), body.len());
        assert_eq!(unpack(stored.value_ref(&body)).unwrap(), body);
    }

    #[test]
    fn short_text_stays_as_it_is() {
        let body = "fix the login form";
        assert_eq!(Stored::of(body), Stored::Plain);
        assert_eq!(unpack(Stored::Plain.value_ref(body)).unwrap(), body);
    }

    #[test]
    fn the_view_reads_both_kinds() {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        conn.execute_batch("CREATE TABLE t (body); CREATE VIEW v AS SELECT doc_text(body) AS body FROM t").unwrap();
        let long = "a tool's output, repeated. ".repeat(20);
        for body in ["short", long.as_str()] {
            let stored = Stored::of(body);
            conn.execute("INSERT INTO t VALUES (?1)", [stored.value(body)]).unwrap();
        }
        let bodies: Vec<String> = conn
            .prepare("SELECT body FROM v")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(bodies, ["short".to_owned(), long]);
        let kinds: Vec<String> = conn
            .prepare("SELECT typeof(body) FROM t")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(kinds, ["text", "blob"]);
    }
}
