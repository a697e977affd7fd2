//! The server's open Bolt connections, for `dbms.listConnections()`.
//!
//! A connection is entered when its session starts and leaves when the session ends (its
//! [`ConnectionEntry`] is dropped with it), so the list is never stale. An entry costs little
//! beside a session: numbers and addresses, the user's name shared with the session's
//! principal, and the client's agent string interned (every connection of one driver shares
//! one copy).

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::sync::Arc;

use parking_lot::Mutex;
use quiver_engine::{
    Database, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Result,
};
use quiver_value::temporal::Instant;
use quiver_value::{DateTime, TimeZone, Value};

/// Distinct agent strings kept for sharing; past it each connection keeps its own copy.
const AGENTS_INTERNED_MAX: usize = 256;

/// One open connection.
#[derive(Clone, Debug)]
struct Entry {
    connector: &'static str,
    connected: Instant,
    client: SocketAddr,
    server: Option<SocketAddr>,
    user_agent: Option<Arc<str>>,
    user: Option<Arc<str>>,
}

#[derive(Debug, Default)]
struct State {
    /// By connection number (`bolt-N`).
    open: BTreeMap<u64, Entry>,
    agents: HashSet<Arc<str>>,
}

/// The registry of open connections.
#[derive(Debug, Default)]
pub struct Connections {
    state: Mutex<State>,
}

impl Connections {
    /// Enters a Bolt connection; it leaves when the returned entry is dropped.
    pub fn open(
        self: &Arc<Self>,
        number: u64,
        client: SocketAddr,
        server: Option<SocketAddr>,
    ) -> ConnectionEntry {
        self.state.lock().open.insert(
            number,
            Entry {
                connector: "bolt",
                connected: Instant::now(),
                client,
                server,
                user_agent: None,
                user: None,
            },
        );
        ConnectionEntry {
            registry: Arc::clone(self),
            number,
        }
    }

    /// The open connections as `dbms.listConnections()` rows, oldest first.
    fn rows(&self) -> Vec<Vec<Value>> {
        let state = self.state.lock();
        state
            .open
            .iter()
            .map(|(number, e)| {
                let connected = DateTime::from_instant(
                    e.connected.seconds,
                    e.connected.nanos,
                    TimeZone::Offset(0),
                )
                .map_or(Value::Null, |dt| {
                    Value::from(quiver_value::to_string_cypher(&Value::DateTime(Box::new(
                        dt,
                    ))))
                });
                vec![
                    Value::from(format!("{}-{number}", e.connector)),
                    connected,
                    Value::from(e.connector),
                    e.user.clone().map_or(Value::Null, Value::String),
                    e.user_agent.clone().map_or(Value::Null, Value::String),
                    e.server.map_or(Value::Null, |a| Value::from(a.to_string())),
                    Value::from(e.client.to_string()),
                ]
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.state.lock().open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A connection's place in the registry, removed when dropped.
#[derive(Debug)]
pub struct ConnectionEntry {
    registry: Arc<Connections>,
    number: u64,
}

impl ConnectionEntry {
    /// The agent string the client gave in HELLO.
    pub fn set_user_agent(&self, agent: &str) {
        let mut state = self.registry.state.lock();
        let agent = match state.agents.get(agent) {
            Some(shared) => Arc::clone(shared),
            None => {
                let fresh: Arc<str> = Arc::from(agent);
                if state.agents.len() < AGENTS_INTERNED_MAX {
                    state.agents.insert(Arc::clone(&fresh));
                }
                fresh
            }
        };
        if let Some(e) = state.open.get_mut(&self.number) {
            e.user_agent = Some(agent);
        }
    }

    /// The authenticated user (`None` after LOGOFF, or when authentication is off).
    pub fn set_user(&self, user: Option<Arc<str>>) {
        if let Some(e) = self.registry.state.lock().open.get_mut(&self.number) {
            e.user = user.filter(|u| !u.is_empty());
        }
    }
}

impl Drop for ConnectionEntry {
    fn drop(&mut self) {
        self.registry.state.lock().open.remove(&self.number);
    }
}

/// Registers `dbms.listConnections()` over `connections` on `db`.
pub fn register(db: &Database, connections: &Arc<Connections>) {
    db.register_procedure(Arc::new(ListConnections {
        signature: ProcedureSignature {
            name: "dbms.listConnections".to_owned(),
            inputs: Vec::new(),
            outputs: vec![
                Field::new("connectionId", FieldType::String),
                Field::new("connectTime", FieldType::String),
                Field::new("connector", FieldType::String),
                Field::new("username", FieldType::String),
                Field::new("userAgent", FieldType::String),
                Field::new("serverAddress", FieldType::String),
                Field::new("clientAddress", FieldType::String),
            ],
            writes: false,
        },
        connections: Arc::clone(connections),
    }));
}

/// `dbms.listConnections()`: every open Bolt connection, Neo4j's columns.
struct ListConnections {
    signature: ProcedureSignature,
    connections: Arc<Connections>,
}

impl Procedure for ListConnections {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(self.connections.rows())
    }

    fn description(&self) -> &'static str {
        "Lists the open Bolt connections: id, connect time, user, agent and addresses."
    }
}

#[cfg(test)]
mod tests {
    use quiver_engine::EngineConfig;
    use quiver_value::Map;

    use super::*;

    #[test]
    fn connections_are_listed_while_open() {
        let db = Database::open_in_memory(EngineConfig::default());
        let connections = Arc::new(Connections::default());
        register(&db, &connections);
        let client: SocketAddr = "127.0.0.1:50000".parse().expect("address");
        let server: SocketAddr = "127.0.0.1:7687".parse().expect("address");
        let a = connections.open(7, client, Some(server));
        a.set_user_agent("neo4j-python/6.0");
        a.set_user(Some(Arc::from("alice")));
        let b = connections.open(8, client, None);
        b.set_user_agent("neo4j-python/6.0");
        let rows = db
            .execute(
                "CALL dbms.listConnections() YIELD connectionId, username, userAgent, serverAddress, clientAddress \
                 RETURN connectionId, username, userAgent, serverAddress, clientAddress",
                Map::new(),
            )
            .expect("call")
            .rows;
        assert_eq!(
            rows,
            vec![
                vec![
                    Value::from("bolt-7"),
                    Value::from("alice"),
                    Value::from("neo4j-python/6.0"),
                    Value::from("127.0.0.1:7687"),
                    Value::from("127.0.0.1:50000"),
                ],
                vec![
                    Value::from("bolt-8"),
                    Value::Null,
                    Value::from("neo4j-python/6.0"),
                    Value::Null,
                    Value::from("127.0.0.1:50000"),
                ],
            ]
        );
        assert_eq!(connections.state.lock().agents.len(), 1);
        drop(a);
        drop(b);
        assert!(connections.is_empty());
    }
}
