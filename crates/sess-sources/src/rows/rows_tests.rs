#![allow(clippy::disallowed_methods)] // Tests write their inputs directly.

use pretty_assertions::assert_eq;
use rusqlite::Connection;

use super::*;

/// Doubles whose shortest decimal a rounding parser misreads, and those JSON
/// has no number for.
const HARD_REALS: [f64; 9] = [
    0.1,
    1.071_566_039_146_582_6e-75,
    -1.819_967_304_027_17e-179,
    -1.603_964_615_428_183e143,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    f64::INFINITY,
    f64::NEG_INFINITY,
];

fn every_kind() -> RowDump {
    let mut rows: Vec<Vec<Cell>> = HARD_REALS.iter().map(|&real| vec![Cell::Real(real), Cell::Null]).collect();
    rows.push(vec![Cell::Real(-0.0), Cell::Integer(i64::MIN)]);
    rows.push(vec![Cell::Text("é \"q\" \u{0}".to_owned()), Cell::Blob((0..=255).collect())]);
    rows.push(vec![Cell::TextBytes(b"lone \xed\xa0\x80".to_vec()), Cell::Blob(Vec::new())]);
    rows.push(vec![Cell::Integer(i64::MAX), Cell::Text(String::new())]);
    RowDump {
        tables: vec![TableRows { name: "odd \"name\"".to_owned(), columns: vec!["a".into(), "b\"".into()], rows }],
    }
}

fn bits(dump: &RowDump) -> Vec<Option<u64>> {
    dump.tables[0]
        .rows
        .iter()
        .flatten()
        .map(|cell| if let Cell::Real(r) = cell { Some(r.to_bits()) } else { None })
        .collect()
}

#[test]
fn cells_survive_json_bit_for_bit() {
    let dump = every_kind();
    let json = serde_json::to_string(&dump).unwrap();
    let back: RowDump = serde_json::from_str(&json).unwrap();
    assert_eq!(back, dump);
    // `==` holds for 0.0 and -0.0 alike: the bits tell them apart.
    assert_eq!(bits(&back), bits(&dump));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = &value["tables"][0]["rows"];
    assert_eq!(rows[0][0], serde_json::json!({"real": "0.1"}));
    assert_eq!(rows[7][0], serde_json::json!({"real": "inf"}));
    assert_eq!(rows[0][1], serde_json::json!("null"));
    assert_eq!(rows[11][0], serde_json::json!({"text_bytes": "bG9uZSDtoIA="}));
    assert_eq!(rows[11][1], serde_json::json!({"blob": ""}));
}

#[test]
fn a_real_written_as_a_number_reads_too() {
    let cell: Cell = serde_json::from_str(r#"{"real": 2.5}"#).unwrap();
    assert_eq!(cell, Cell::Real(2.5));
    let cell: Cell = serde_json::from_str(r#"{"real": 3}"#).unwrap();
    assert_eq!(cell, Cell::Real(3.0));
    assert!(serde_json::from_str::<Cell>(r#"{"real": "many"}"#).is_err());
    assert!(serde_json::from_str::<Cell>(r#"{"blob": "not base64!"}"#).is_err());
}

#[test]
fn a_database_written_from_rows_holds_them_with_their_types() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("copy.db");
    let dump = every_kind();
    dump.write_database(&path).unwrap();
    let conn = Connection::open(&path).unwrap();
    let mut statement = conn.prepare("select * from \"odd \"\"name\"\"\" order by rowid").unwrap();
    assert_eq!(statement.column_names().collect::<Vec<_>>(), ["a", "b\""]);
    let mut read = Vec::new();
    let mut rows = statement.query([]).unwrap();
    while let Some(row) = rows.next().unwrap() {
        read.push((0..2).map(|at| Cell::of(row.get_ref(at).unwrap())).collect::<Vec<_>>());
    }
    assert_eq!(read, dump.tables[0].rows);
    assert_eq!(bits(&RowDump { tables: vec![TableRows { rows: read, ..dump.tables[0].clone() }] }), bits(&dump));
}

#[test]
fn an_existing_file_is_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("there.db");
    std::fs::write(&path, "mine").unwrap();
    let err = every_kind().write_database(&path).unwrap_err();
    assert!(matches!(&err, Error::Exists { path: p } if *p == path), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), b"mine");
}

#[test]
fn rows_that_do_not_fit_their_table_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.db");
    let mut dump = every_kind();
    dump.tables[0].rows.push(vec![Cell::Null]);
    let err = dump.write_database(&path).unwrap_err();
    assert!(matches!(&err, Error::Database { message, .. } if message.contains("1 values for 2 columns")), "{err}");
    assert!(!path.exists());
    let no_columns = RowDump { tables: vec![TableRows { name: "t".into(), columns: Vec::new(), rows: Vec::new() }] };
    assert!(matches!(no_columns.write_database(&path), Err(Error::Database { .. })));
    assert!(!path.exists());
}
