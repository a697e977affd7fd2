//! The routing table a driver over `neo4j://` asks for, built in one place for both ways it
//! is asked: the ROUTE message (Bolt 4.3 and newer) and the procedures Bolt 4.1 and 4.2
//! drivers call, `dbms.routing.getRoutingTable(context, database)` and Neo4j 5's older name
//! for the same procedure, `dbms.cluster.routing.getRoutingTable(context, database)`.
//!
//! A cluster member lists the cluster's members by role. A single server lists itself under
//! every role, at the address the client reached it at (the routing context's `address`,
//! which drivers fill in with the address they dialled), so a driver behind a port mapping or
//! a proxy keeps using the address that works for it.

use std::sync::Arc;

use quiver_bolt::meta::Role;
use quiver_engine::{
    Database, Error, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Result,
};
use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::cluster::{CLUSTER_ROUTING_TTL_SECONDS, ClusterView};

/// How long drivers may cache the single-node routing table.
pub const ROUTING_TTL_SECONDS: i64 = 300;

/// The one database's name, as routing tables name it.
pub const DATABASE: &str = "neo4j";

/// A routing table: how long it may be cached, and the `host:port` addresses per role.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub ttl_seconds: i64,
    /// Write, read and route, in that order; a role may have no address (writers during an
    /// election), and is then left out of what the client is sent.
    pub servers: [(Role, Vec<String>); 3],
}

impl Table {
    /// The table for a client whose routing context is `context`: the cluster's members on a
    /// cluster member, otherwise this server at the context's `address`, or at `fallback()`
    /// when the context names none.
    pub fn new(
        cluster: Option<&ClusterView>,
        context: &Map,
        fallback: impl FnOnce() -> String,
    ) -> Table {
        if let Some(view) = cluster {
            let routes = view.routes();
            return Table {
                ttl_seconds: CLUSTER_ROUTING_TTL_SECONDS,
                servers: [
                    (Role::Write, routes.writers),
                    (Role::Read, routes.readers),
                    (Role::Route, routes.routers),
                ],
            };
        }
        let address = match context.get("address") {
            Some(Value::String(address)) if !address.is_empty() => address.to_string(),
            _ => fallback(),
        };
        Table {
            ttl_seconds: ROUTING_TTL_SECONDS,
            servers: [
                (Role::Write, vec![address.clone()]),
                (Role::Read, vec![address.clone()]),
                (Role::Route, vec![address]),
            ],
        }
    }

    /// The roles that have addresses, each with its addresses.
    pub fn roles(&self) -> impl Iterator<Item = (Role, &[String])> {
        self.servers
            .iter()
            .filter(|(_, addresses)| !addresses.is_empty())
            .map(|(role, addresses)| (*role, &addresses[..]))
    }

    /// The procedures' `servers` column: `[{addresses, role}, ...]`, the maps ROUTE sends.
    pub fn servers_value(&self) -> Value {
        Value::from(
            self.roles()
                .map(|(role, addresses)| {
                    let mut entry = Map::new();
                    entry.insert(
                        Arc::from("addresses"),
                        Value::from(
                            addresses
                                .iter()
                                .map(|a| Value::from(a.as_str()))
                                .collect::<Vec<_>>(),
                        ),
                    );
                    entry.insert(Arc::from("role"), Value::from(role.as_str()));
                    Value::map(entry)
                })
                .collect::<Vec<_>>(),
        )
    }
}

/// Whether `name` is a database this server answers for: the one database, and `system`
/// (where Bolt 4 drivers send their routing and administration calls).
pub fn is_known_database(name: &str) -> bool {
    name.eq_ignore_ascii_case(DATABASE) || name.eq_ignore_ascii_case("system")
}

/// Registers `dbms.routing.getRoutingTable` and `dbms.cluster.routing.getRoutingTable` on
/// `db`. `fallback` is the address a single server lists when the client's context names
/// none (the Bolt listener's).
pub fn register(db: &Database, cluster: Option<&Arc<ClusterView>>, fallback: String) {
    for name in [
        "dbms.routing.getRoutingTable",
        "dbms.cluster.routing.getRoutingTable",
    ] {
        db.register_procedure(Arc::new(GetRoutingTable {
            signature: ProcedureSignature {
                name: name.to_owned(),
                inputs: vec![
                    Field::new("context", FieldType::Map),
                    Field::optional("database", FieldType::String, Value::Null),
                ],
                outputs: vec![
                    Field::new("ttl", FieldType::Integer),
                    Field::new("servers", FieldType::List(Box::new(FieldType::Map))),
                ],
                writes: false,
            },
            cluster: cluster.cloned(),
            fallback: fallback.clone(),
        }));
    }
}

/// `dbms.routing.getRoutingTable(context, database)`: one row, `ttl` and `servers`.
struct GetRoutingTable {
    signature: ProcedureSignature,
    cluster: Option<Arc<ClusterView>>,
    fallback: String,
}

impl Procedure for GetRoutingTable {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        if let Some(Value::String(db)) = args.get(1)
            && !ctx.knows_database(db)
        {
            return Err(Error::Runtime {
                code: Status::DatabaseNotFound,
                detail: None,
                message: format!("Database does not exist: {db}"),
            });
        }
        let empty = Map::new();
        let context = match args.first() {
            Some(Value::Map(m)) => &**m,
            _ => &empty,
        };
        let table = Table::new(self.cluster.as_deref(), context, || self.fallback.clone());
        Ok(vec![vec![
            Value::Int(table.ttl_seconds),
            table.servers_value(),
        ]])
    }

    fn description(&self) -> &'static str {
        "Returns the routing table a driver routing over neo4j:// uses: the addresses that \
         write, read and route, and how long the table may be cached."
    }
}
