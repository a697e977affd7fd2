//! The server's effective configuration as `SHOW SETTINGS`, `dbms.listConfig` and
//! `dbms.clientConfig` list it: Neo4j's names where Neo4j has the same setting (tools read
//! `dbms.security.auth_enabled` and `server.bolt.advertised_address`), `quiver.*` for the rest,
//! each with its value, its default and whether the operator set it.

use std::net::SocketAddr;
use std::time::Duration;

use quiver_engine::{EngineConfig, Setting, engine_settings};

use crate::config::{Config, StorageMode};
use crate::query_log::{Mode, QueryLogSettings, procedure};

fn duration(d: Option<Duration>) -> String {
    d.map_or_else(|| "0s".to_owned(), |d| format!("{}ms", d.as_millis()))
}

fn storage(mode: &StorageMode) -> String {
    match mode {
        StorageMode::InMemory => "in-memory".to_owned(),
        StorageMode::Directory(dir) => dir.display().to_string(),
    }
}

/// Every setting, sorted by name. `bolt` and `http` are the bound addresses (which differ from
/// the configured ones when a port was 0).
pub fn settings(
    config: &Config,
    engine: &EngineConfig,
    bolt: SocketAddr,
    http: SocketAddr,
) -> Vec<Setting> {
    let defaults = Config::default();
    let mut out: Vec<Setting> = engine_settings(engine)
        .into_iter()
        // The server's transaction timeout is the one that applies to clients.
        .filter(|s| s.name != "db.transaction.timeout")
        .collect();
    network(config, &defaults, bolt, http, &mut out);
    operations(config, &defaults, &mut out);
    query_log(config, &mut out);
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Adds a setting, explicitly set when its value is not the default.
fn add(out: &mut Vec<Setting>, name: &str, value: String, default: String, description: &str) {
    let mut s = Setting::new(name, value.clone(), description);
    s.explicitly_set = value != default;
    s.default_value = Some(default);
    out.push(s);
}

/// Authentication, listeners and the database clients use.
fn network(
    config: &Config,
    defaults: &Config,
    bolt: SocketAddr,
    http: SocketAddr,
    out: &mut Vec<Setting>,
) {
    let mut add = |name: &str, value: String, default: String, description: &str| {
        add(out, name, value, default, description);
    };
    let advertised = config
        .cluster
        .as_ref()
        .map_or_else(|| bolt.to_string(), |c| c.advertise(bolt));
    add(
        "dbms.security.auth_enabled",
        config.auth.enabled.to_string(),
        defaults.auth.enabled.to_string(),
        "Whether clients must authenticate.",
    );
    add(
        "server.bolt.listen_address",
        bolt.to_string(),
        defaults.bolt_listen.to_string(),
        "The address the Bolt listener is bound to.",
    );
    add(
        "server.bolt.advertised_address",
        advertised.clone(),
        advertised,
        "The Bolt address clients are told to use.",
    );
    add(
        "server.http.listen_address",
        http.to_string(),
        defaults.http_listen.to_string(),
        "The address the HTTP listener is bound to.",
    );
    add(
        "initial.dbms.default_database",
        "neo4j".to_owned(),
        "neo4j".to_owned(),
        "The database clients use when they name none (Quiver serves this one).",
    );
}

/// Timeouts, storage, limits and the cluster.
fn operations(config: &Config, defaults: &Config, out: &mut Vec<Setting>) {
    let mut add = |name: &str, value: String, default: String, description: &str| {
        add(out, name, value, default, description);
    };
    add(
        "db.transaction.timeout",
        duration(config.timeouts.transaction),
        duration(defaults.timeouts.transaction),
        "The time limit of a transaction whose client sets none; 0s is no limit.",
    );
    add(
        "db.transaction.bookmark_ready_timeout",
        duration(Some(config.timeouts.bookmark)),
        duration(Some(defaults.timeouts.bookmark)),
        "The longest a transaction waits for the commit its bookmark names to become visible.",
    );
    add(
        "server.bolt.connection_keep_alive",
        duration(Some(config.timeouts.bolt_recv)),
        duration(Some(defaults.timeouts.bolt_recv)),
        "The read timeout advertised to Bolt clients; keep-alives go out four times as often.",
    );
    add(
        "quiver.storage",
        storage(&config.storage),
        storage(&defaults.storage),
        "Where the graph is kept: a data directory, or in memory only.",
    );
    add(
        "quiver.durability",
        format!("{:?}", config.durability).to_lowercase(),
        format!("{:?}", defaults.durability).to_lowercase(),
        "When a commit is acknowledged: buffered, group (once on disk, fsyncs shared) or sync.",
    );
    add(
        "quiver.bolt.connections.max",
        config.limits.bolt_connections_max.to_string(),
        defaults.limits.bolt_connections_max.to_string(),
        "The Bolt connections admitted at once, reserved administrator slots included.",
    );
    add(
        "quiver.http.connections.max",
        config.limits.http_connections_max.to_string(),
        defaults.limits.http_connections_max.to_string(),
        "The HTTP connections admitted at once.",
    );
    add(
        "quiver.transaction.idle_timeout",
        duration(config.timeouts.idle_transaction),
        duration(defaults.timeouts.idle_transaction),
        "An open transaction whose client is silent this long is rolled back; 0s is never.",
    );
    add(
        "quiver.connection.idle_timeout",
        duration(Some(config.timeouts.idle)),
        duration(Some(defaults.timeouts.idle)),
        "A connection silent this long between requests is closed.",
    );
    add(
        "quiver.query.threads",
        config.query.threads.to_string(),
        defaults.query.threads.to_string(),
        "The threads of the pool long queries run on.",
    );
    add(
        "quiver.cluster.enabled",
        config.cluster.is_some().to_string(),
        defaults.cluster.is_some().to_string(),
        "Whether this server is a member of a Raft cluster.",
    );
}

/// The query log's settings; the first three can change while the server runs
/// (`dbms.setConfigValue`, which updates them here).
fn query_log(config: &Config, out: &mut Vec<Setting>) {
    let defaults = QueryLogSettings::at(std::path::Path::new(""));
    let log = config.query_log.as_ref();
    let mode = log.map_or(Mode::Off, |log| log.mode);
    let current = log.unwrap_or(&defaults);
    let dynamic = [
        (
            procedure::ENABLED,
            mode.name().to_owned(),
            defaults.mode.name().to_owned(),
            "Which queries the query log takes: OFF, INFO (those past the threshold) or VERBOSE (all).",
        ),
        (
            procedure::THRESHOLD,
            duration(Some(current.threshold)),
            duration(Some(defaults.threshold)),
            "Queries that ran at least this long are logged.",
        ),
        (
            procedure::PARAMETERS,
            current.parameters.to_string(),
            defaults.parameters.to_string(),
            "Whether the query log writes parameters (secrets hidden).",
        ),
    ];
    for (name, value, default, description) in dynamic {
        add(out, name, value, default, description);
        if let Some(setting) = out.last_mut() {
            setting.dynamic = true;
        }
    }
    add(
        out,
        "db.logs.query.rotation.size",
        current.rotation_bytes.to_string(),
        defaults.rotation_bytes.to_string(),
        "The query log is rotated before it would pass this many bytes.",
    );
    add(
        out,
        "db.logs.query.rotation.keep_number",
        current.rotation_keep.to_string(),
        defaults.rotation_keep.to_string(),
        "Rotated query logs kept.",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_effective_configuration() {
        let mut config = Config::default();
        config.auth.enabled = true;
        let bolt: SocketAddr = "127.0.0.1:7999".parse().expect("address");
        let http: SocketAddr = "127.0.0.1:7998".parse().expect("address");
        let all = settings(&config, &EngineConfig::default(), bolt, http);
        let get = |name: &str| {
            all.iter()
                .find(|s| s.name == name)
                .unwrap_or_else(|| panic!("{name}"))
        };
        let auth = get("dbms.security.auth_enabled");
        assert_eq!(auth.value.as_deref(), Some("true"));
        assert!(auth.explicitly_set);
        assert_eq!(
            get("server.bolt.advertised_address").value.as_deref(),
            Some("127.0.0.1:7999")
        );
        assert!(!get("quiver.durability").explicitly_set);
        assert_eq!(
            all.iter()
                .filter(|s| s.name == "db.transaction.timeout")
                .count(),
            1
        );
        assert!(all.windows(2).all(|w| w[0].name < w[1].name));
        // Without a query log it is off; its switches are the settings that change at run time.
        let enabled = get("db.logs.query.enabled");
        assert_eq!(enabled.value.as_deref(), Some("OFF"));
        assert!(enabled.dynamic);
        assert!(!get("db.logs.query.rotation.size").dynamic);
    }
}
