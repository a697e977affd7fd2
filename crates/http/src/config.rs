//! Settings and limits of the HTTP API.

use std::time::Duration;

use quiver_placement::Policy;

/// Settings of [`crate::HttpApi`]. Every limit is on by default.
#[derive(Clone, Debug)]
pub struct ApiConfig {
    /// The one database's name in `/db/{name}/...` paths (the 3.x paths address it too).
    pub database_name: String,
    /// An open transaction with no request for this long is rolled back
    /// (Neo4j's `dbms.rest.transaction.idle_timeout`, default 60 s).
    pub transaction_idle_timeout: Duration,
    /// Time limit of a request's statements when the client sends no `max-execution-time`
    /// (the server's default transaction timeout); past it they fail with a timeout and the
    /// transaction is rolled back. `None`: unlimited.
    pub transaction_timeout: Option<Duration>,
    /// Open explicit transactions at once, across all clients.
    pub open_transactions_max: usize,
    /// Of those, how many one authenticated user may hold, so that one client cannot take
    /// every slot (ignored when authentication is off).
    pub open_transactions_per_user_max: usize,
    /// Of those, how many clients at one IP address may hold, for the same reason (and
    /// because without authentication the address is the only client identity there is).
    pub open_transactions_per_address_max: usize,
    /// Statements in one request body.
    pub statements_per_request_max: usize,
    /// Rows fetched from the engine per pull: the unit of work between two checks of the
    /// output, so a large result streams instead of being computed whole first.
    pub pull_rows_max: usize,
    /// Response bytes one production step writes before handing them to the connection (the
    /// step size of a streamed response); a response smaller than this goes out whole with a
    /// `Content-Length`.
    pub chunk_bytes: usize,
    /// How long a request waits for the database to reach a bookmark it presents.
    pub bookmark_wait: Duration,
    /// The Bolt port the discovery document advertises.
    pub bolt_port: u16,
    /// Whether the Bolt listener requires TLS: the discovery document then advertises
    /// `neo4j+s://` and `bolt+s://`, since a driver given `neo4j://` would be closed. A listener
    /// where TLS is optional takes both, and the plain schemes are what every driver accepts
    /// without a certificate to trust.
    pub bolt_tls_required: bool,
    /// Whether the HTTP listener requires TLS: the document's HTTP links are then `https://`.
    pub http_tls_required: bool,
    /// The Neo4j version the discovery document reports: the API level Quiver speaks, which
    /// tools check before they talk to a server.
    pub neo4j_version: String,
    /// Where a transactional request's first step runs (the same policy as Bolt's): under
    /// `Adaptive`, on the connection's task when the last first step with the same path and
    /// body was quick, saving two thread wake-ups, else on the query pool. See
    /// `quiver_placement`.
    pub placement: Policy,
    /// Whether the server in front authenticates requests (it refuses any whose credentials
    /// fail, so a request that gets here names its user in `Authorization`). When on,
    /// transactions run as that user (`SHOW CURRENT USER`), as a Bolt session's do; when off,
    /// the header is unchecked and names no one.
    pub auth_enabled: bool,
    /// Which transactions are traced, when tracing is on.
    pub trace: Option<quiver_telemetry::Policy>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            database_name: "neo4j".to_owned(),
            transaction_idle_timeout: Duration::from_secs(60),
            transaction_timeout: None,
            open_transactions_max: 1000,
            open_transactions_per_user_max: 250,
            open_transactions_per_address_max: 250,
            statements_per_request_max: 1000,
            pull_rows_max: 512,
            chunk_bytes: 32 * 1024,
            bookmark_wait: Duration::from_secs(5),
            bolt_port: 7687,
            bolt_tls_required: false,
            http_tls_required: false,
            neo4j_version: "2026.08.0".to_owned(),
            placement: Policy::Adaptive,
            auth_enabled: false,
            trace: None,
        }
    }
}
