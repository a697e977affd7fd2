//! `SHOW SERVERS`: the servers of the DBMS in Neo4j 5's columns.
//!
//! The engine knows no network, so what it lists comes from its embedder: a server publishes
//! a [`ServerDirectory`] (its own listeners, or a cluster's members as Raft sees them) with
//! [`crate::Database::set_servers`]. Without one, the database describes itself from its
//! settings, as `SHOW DATABASES` does: one server at its advertised Bolt address.

use std::sync::Arc;

use quiver_value::Value;

use super::values::{Named, strings};
use crate::config::Setting;

/// Whether a server has recently been heard from by the one answering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerHealth {
    Available,
    Unavailable,
    /// The answering member does not hear from it directly (a follower about another
    /// follower): shown as null rather than guessed.
    Unknown,
}

/// One server of the DBMS, as `SHOW SERVERS` lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerInfo {
    /// Its id in the DBMS (a cluster member's id); also its name, as Neo4j names a server
    /// by its id until it is given a name.
    pub id: String,
    /// The Bolt `host:port` clients use; `None` while it is not known (a member that has
    /// not announced itself yet).
    pub address: Option<String>,
    /// The HTTP and HTTPS `host:port`, where it serves them.
    pub http_address: Option<String>,
    pub https_address: Option<String>,
    pub health: ServerHealth,
    /// The Neo4j version it speaks.
    pub version: String,
}

/// What a server publishes for `SHOW SERVERS`: called on each command, so a cluster's
/// answer follows its membership.
pub type ServerDirectory = Arc<dyn Fn() -> Vec<ServerInfo> + Send + Sync>;

/// Every column of `SHOW SERVERS YIELD *`, in Neo4j 5's order.
pub(super) const SERVER_COLUMNS: &[&str] = &[
    "serverId",
    "name",
    "address",
    "httpAddress",
    "httpsAddress",
    "state",
    "health",
    "hosting",
    "requestedHosting",
    "tags",
    "allowedDatabases",
    "deniedDatabases",
    "modeConstraint",
    "version",
];

/// The columns `SHOW SERVERS` shows without a `YIELD`.
pub(super) const SERVER_DEFAULT_COLUMNS: &[&str] =
    &["name", "address", "state", "health", "hosting"];

/// The servers the embedder published (`directory`), or this database alone, described
/// from its `settings`.
/// `hosted` are the databases each server hosts (and is asked to): those online here.
pub(super) fn servers(
    directory: Option<ServerDirectory>,
    settings: &[Setting],
    hosted: &[String],
) -> Vec<Named> {
    let servers = match directory {
        Some(directory) => directory(),
        None => vec![this_server(settings)],
    };
    servers.iter().map(|s| server_row(s, hosted)).collect()
}

/// The database as a server of its own, from its settings.
pub(crate) fn this_server(settings: &[Setting]) -> ServerInfo {
    let setting = |name: &str| {
        settings
            .iter()
            .find(|s| s.name == name)
            .and_then(|s| s.value.clone())
    };
    let address = setting("server.bolt.advertised_address")
        .unwrap_or_else(|| super::values::DEFAULT_BOLT_ADDRESS.to_owned());
    ServerInfo {
        id: server_id(&address),
        address: Some(address),
        http_address: setting("server.http.listen_address"),
        https_address: None,
        health: ServerHealth::Available,
        version: env!("CARGO_PKG_VERSION").to_owned(),
    }
}

/// A single server's id: stable for its address, shaped like Neo4j's (a UUID).
pub fn server_id(address: &str) -> String {
    // FNV-1a over the address, twice with different seeds, laid out as 8-4-4-4-12 hex.
    let hash = |seed: u64| {
        address.bytes().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let hex = format!("{:016x}{:016x}", hash(0), hash(1));
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

fn server_row(server: &ServerInfo, hosted: &[String]) -> Named {
    let text = |s: &Option<String>| s.as_deref().map_or(Value::Null, Value::from);
    let (health, hosting) = match server.health {
        ServerHealth::Available => (Value::from("Available"), strings(hosted)),
        ServerHealth::Unavailable => (Value::from("Unavailable"), strings(Vec::<&str>::new())),
        ServerHealth::Unknown => (Value::Null, strings(hosted)),
    };
    let none = || strings(Vec::<&str>::new());
    vec![
        ("serverId", Value::from(server.id.as_str())),
        ("name", Value::from(server.id.as_str())),
        ("address", text(&server.address)),
        ("httpAddress", text(&server.http_address)),
        ("httpsAddress", text(&server.https_address)),
        // Every member of the membership may host the database.
        ("state", Value::from("Enabled")),
        ("health", health),
        ("hosting", hosting),
        ("requestedHosting", strings(hosted)),
        ("tags", none()),
        ("allowedDatabases", none()),
        ("deniedDatabases", none()),
        ("modeConstraint", Value::from("NONE")),
        ("version", Value::from(server.version.as_str())),
    ]
}

#[cfg(test)]
mod tests {
    use super::server_id;

    #[test]
    fn a_server_id_is_uuid_shaped_and_stable_for_its_address() {
        let id = server_id("localhost:7687");
        assert_eq!(id.len(), 36);
        assert_eq!(
            id.split('-').map(str::len).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert_eq!(id, server_id("localhost:7687"));
        assert_ne!(id, server_id("localhost:7688"));
    }
}
