//! Connections the page's requests read through, one request at a time
//! each: requests run side by side (SQLite's WAL lets readers read while
//! another connection writes; PostgreSQL serves many), so a slow one keeps
//! no other waiting.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

/// How many open connections are kept for the next requests.
const IDLE: usize = 8;

/// Opens a connection.
type Open<T> = Box<dyn Fn() -> crate::Result<T> + Send + Sync>;

/// Open connections no request uses now, and how to open another.
pub(super) struct Pool<T> {
    idle: Mutex<Vec<T>>,
    open: Open<T>,
}

impl<T> Pool<T> {
    /// A pool holding `first`, which opens more with `open`.
    pub(super) fn new(first: T, open: impl Fn() -> crate::Result<T> + Send + Sync + 'static) -> Self {
        Self { idle: Mutex::new(vec![first]), open: Box::new(open) }
    }

    /// An idle connection, or a new one.
    pub(super) fn lease(&self) -> crate::Result<Lease<'_, T>> {
        let idle = self.idle.lock().map_err(|_| super::failed("a connection pool's lock is poisoned"))?.pop();
        let connection = match idle {
            Some(connection) => connection,
            None => (self.open)().map_err(super::boxed)?,
        };
        Ok(Lease { pool: self, connection: Some(connection) })
    }

    /// How many connections wait for a request.
    #[cfg(test)]
    pub(super) fn idle(&self) -> usize {
        self.idle.lock().map_or(0, |idle| idle.len())
    }
}

/// A connection one request uses; back to its pool when dropped.
pub(super) struct Lease<'a, T> {
    pool: &'a Pool<T>,
    connection: Option<T>,
}

impl<T> Deref for Lease<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.connection.as_ref().unwrap_or_else(|| unreachable!("a lease holds its connection until it is dropped"))
    }
}

impl<T> DerefMut for Lease<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.connection.as_mut().unwrap_or_else(|| unreachable!("a lease holds its connection until it is dropped"))
    }
}

impl<T> Drop for Lease<'_, T> {
    fn drop(&mut self) {
        if let (Some(connection), Ok(mut idle)) = (self.connection.take(), self.pool.idle.lock())
            && idle.len() < IDLE
        {
            idle.push(connection);
        }
    }
}
