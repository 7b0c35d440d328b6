//! A small pool of [`postgres::Client`]s behind a mutex and a condition
//! variable: connections open lazily up to the pool's size, a call borrows one
//! for its duration, and a connection the server closed is dropped instead of
//! returned. Each connection keeps its prepared statements, so a hot statement
//! is parsed once per connection, not once per call.

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use postgres::{Client, GenericClient, NoTls, Statement};

use crate::config::Target;
use crate::error::{Error, Result};

/// A connection and its prepared statements.
pub(crate) struct Connection {
    /// The client.
    pub(crate) client: Client,
    /// Statements prepared on it, by their text.
    pub(crate) statements: Statements,
}

/// The statements prepared on one connection, by their text.
#[derive(Default)]
pub(crate) struct Statements(HashMap<&'static str, Statement>);

impl Statements {
    /// The prepared form of `sql` on the connection `client` belongs to (a
    /// client, or a transaction on it), preparing it the first time.
    pub(crate) fn get(
        &mut self,
        client: &mut impl GenericClient,
        sql: &'static str,
    ) -> Result<Statement, postgres::Error> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql)?;
        self.0.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Up to `size` connections to one target.
pub(crate) struct Pool {
    target: Target,
    /// Run on every new connection before it is used.
    setup: String,
    size: usize,
    wait: Duration,
    state: Mutex<State>,
    freed: Condvar,
}

struct State {
    idle: Vec<Connection>,
    /// Connections open or being opened, idle or not.
    open: usize,
}

impl Pool {
    /// A pool of at most `size` (at least 1) connections to `target`, each set
    /// up with `setup`; a call waits at most `wait` for a free one.
    pub(crate) fn new(target: Target, setup: String, size: usize, wait: Duration) -> Self {
        let state = State { idle: Vec::new(), open: 0 };
        Self { target, setup, size: size.max(1), wait, state: Mutex::new(state), freed: Condvar::new() }
    }

    /// The target the connections go to.
    pub(crate) fn target(&self) -> &Target {
        &self.target
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The state is a list and a count, consistent between statements.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A free connection: an idle one, a new one if the pool is not full, or
    /// the first one returned within the wait ([`Error::PoolTimeout`] after it).
    pub(crate) fn get(&self) -> Result<Pooled<'_>> {
        let started = Instant::now();
        let mut state = self.state();
        loop {
            if let Some(connection) = state.idle.pop() {
                return Ok(Pooled { pool: self, connection: Some(connection) });
            }
            if state.open < self.size {
                state.open += 1;
                drop(state);
                return match self.connect() {
                    Ok(connection) => Ok(Pooled { pool: self, connection: Some(connection) }),
                    Err(error) => {
                        self.state().open -= 1;
                        self.freed.notify_one();
                        Err(error)
                    }
                };
            }
            let waited = started.elapsed();
            if waited >= self.wait {
                return Err(Error::PoolTimeout { size: self.size, waited });
            }
            state = self
                .freed
                .wait_timeout(state, self.wait.saturating_sub(waited))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Opens a connection outside the pool (migrations, tests), with its
    /// setup, in at most the target's `connect_limit`.
    ///
    /// The client bounds only the TCP connect by `connect_timeout`; a server
    /// that accepts and then never answers the startup would hold it forever.
    /// So the connect runs on a thread of its own and this waits for it at
    /// most the limit. A thread given up on ends when the server closes the
    /// socket or the process ends, and drops what it opened.
    pub(crate) fn connect(&self) -> Result<Connection> {
        let server = &self.target.server;
        let (config, setup) = (self.target.config.clone(), self.setup.clone());
        let (sender, receiver) = mpsc::sync_channel(1);
        std::thread::Builder::new()
            .name("sess-postgres-connect".to_owned())
            .spawn(move || {
                let connected = config.connect(NoTls).and_then(|mut client| {
                    if !setup.is_empty() {
                        client.batch_execute(&setup)?;
                    }
                    Ok(client)
                });
                // Nobody is waiting any more after a timeout: the client is dropped.
                let _ = sender.send(connected);
            })
            .map_err(|source| Error::ConnectThread { server: server.clone(), source })?;
        match receiver.recv_timeout(self.target.connect_limit) {
            Ok(Ok(client)) => Ok(Connection { client, statements: Statements::default() }),
            Ok(Err(source)) => Err(Error::Connect { server: server.clone(), source }),
            Err(RecvTimeoutError::Timeout) => {
                Err(Error::ConnectTimeout { server: server.clone(), waited: self.target.connect_limit })
            }
            Err(RecvTimeoutError::Disconnected) => Err(Error::ConnectThread {
                server: server.clone(),
                source: std::io::Error::other("it stopped without an answer"),
            }),
        }
    }

    fn put_back(&self, connection: Connection) {
        let mut state = self.state();
        if connection.client.is_closed() {
            state.open -= 1;
        } else {
            state.idle.push(connection);
        }
        drop(state);
        self.freed.notify_one();
    }
}

/// A connection borrowed from the pool; dropping it gives it back. A
/// transaction left open on it was rolled back when its handle was dropped.
pub(crate) struct Pooled<'a> {
    pool: &'a Pool,
    connection: Option<Connection>,
}

impl Deref for Pooled<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        // Set at creation, taken only by `drop`.
        self.connection.as_ref().unwrap_or_else(|| unreachable!("a pooled connection is present until dropped"))
    }
}

impl DerefMut for Pooled<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.connection.as_mut().unwrap_or_else(|| unreachable!("a pooled connection is present until dropped"))
    }
}

impl Drop for Pooled<'_> {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            self.pool.put_back(connection);
        }
    }
}
