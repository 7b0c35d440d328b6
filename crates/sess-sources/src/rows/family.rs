//! The rows of a session family (a session and the sessions it ran), for an
//! agent whose database keeps sessions in one table keyed by `id` and every
//! other row of a session in tables with a `session_id` column.

use rusqlite::Connection;

use super::{Cell, RowDump, TableRows, quoted};

/// The rows of the sessions `ids` of `conn`: those of `sessions` by `id`,
/// and those of every other table with a `session_id` column by that
/// column, in the schema's order of tables, each table's rows in rowid
/// order (key order for a table without rowids), every column kept with
/// its type. Tables without such a column are shared by every session and
/// left out; a table of the list that holds no row of the family is kept
/// empty, with its columns.
pub(crate) fn dump_family(conn: &Connection, sessions: &str, ids: &[String]) -> rusqlite::Result<RowDump> {
    let slots = (1..=ids.len()).map(|at| format!("?{at}")).collect::<Vec<_>>().join(", ");
    let mut dump = RowDump::default();
    for name in tables(conn)? {
        let columns = columns(conn, &name)?;
        let key = if name == sessions { "id" } else { "session_id" };
        if !columns.iter().any(|c| c == key) {
            continue;
        }
        let order = if without_rowid(conn, &name)? { "" } else { " order by rowid" };
        let sql = format!("select * from {} where {} in ({slots}){order}", quoted(&name), quoted(key));
        let mut statement = conn.prepare(&sql)?;
        let width = statement.column_count();
        let mut rows = Vec::new();
        let mut cursor = statement.query(rusqlite::params_from_iter(ids))?;
        while let Some(row) = cursor.next()? {
            rows.push((0..width).map(|at| row.get_ref(at).map(Cell::of)).collect::<rusqlite::Result<_>>()?);
        }
        dump.tables.push(TableRows { name, columns, rows });
    }
    Ok(dump)
}

/// The tables of the database, in the order of its schema.
fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare(
        "select name from sqlite_schema where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by rowid",
    )?;
    statement.query_map([], |row| row.get(0))?.collect()
}

/// The columns of `table`, in its order.
pub(crate) fn columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let statement = conn.prepare(&format!("select * from {} limit 0", quoted(table)))?;
    Ok(statement.column_names().map(ToOwned::to_owned).collect())
}

/// Whether the database has a table `table`.
pub(crate) fn has_table(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    let mut statement = conn.prepare("select 1 from sqlite_schema where type = 'table' and name = ?1")?;
    statement.exists([table])
}

/// Whether `table` is a `WITHOUT ROWID` table.
fn without_rowid(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    let mut statement = conn.prepare("select wr from pragma_table_list where schema = 'main' and name = ?1")?;
    let mut rows = statement.query([table])?;
    Ok(match rows.next()? {
        Some(row) => row.get::<_, i64>(0)? != 0,
        None => false,
    })
}
