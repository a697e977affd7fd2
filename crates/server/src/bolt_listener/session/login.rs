//! HELLO, LOGON and ROUTE: who the client is, and where it should send its queries.

use std::sync::Arc;

use quiver_bolt::message::{Auth, HelloExtra, RouteExtra};
use quiver_bolt::meta::{HelloSuccess, Role, RoutingTable, SERVER_AGENT};
use quiver_bolt::state::Outcome;
use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::routing::Table;

use super::{BoltSession, DATABASE, is_known_database};
use crate::auth::Credentials;
use crate::deadline::{Until, race};

impl BoltSession {
    pub(super) async fn hello(&mut self, extra: HelloExtra) -> Outcome {
        self.routing_address =
            extra
                .routing
                .as_ref()
                .and_then(|routing| match routing.get("address") {
                    Some(Value::String(address)) if !address.is_empty() => {
                        Some(address.to_string())
                    }
                    _ => None,
                });
        self.listed.set_user_agent(&extra.user_agent);
        let utc_patch =
            self.version.has_utc_patch() && extra.patch_bolt.iter().any(|patch| patch == "utc");
        if utc_patch {
            self.codec = self.codec.with_utc_patch();
        }
        if let Some(auth) = extra.auth {
            // 4.4 and 5.0 authenticate in HELLO.
            if !Box::pin(self.authenticate(auth)).await {
                return Outcome::Failure;
            }
        }
        let connection_id = format!("bolt-{}", self.connection_number);
        let hello = HelloSuccess {
            server: SERVER_AGENT,
            connection_id: &connection_id,
            recv_timeout_seconds: Some(self.shared.recv_timeout_seconds()),
            telemetry_enabled: false,
            ssr_enabled: false,
            utc_patch,
        };
        let encoded = hello.encode(&mut self.outbox, self.version);
        self.encoded(encoded)
    }

    pub(super) async fn logon(&mut self, auth: Auth) -> Outcome {
        if Box::pin(self.authenticate(auth)).await {
            self.succeed_empty();
            Outcome::Success
        } else {
            Outcome::Failure
        }
    }

    pub(super) fn route(&mut self, routing: &Map, extra: &RouteExtra) -> Outcome {
        let db = extra.db.as_deref().filter(|db| !db.is_empty());
        let known = match (&self.shared.databases, db) {
            (Some(databases), Some(db)) => {
                quiver_engine::catalog::DatabaseCatalog::resolve(&**databases, db).is_some()
            }
            (None, Some(db)) => is_known_database(db),
            (_, None) => true,
        };
        if let Some(db) = db.filter(|_| !known) {
            self.fail(
                Status::DatabaseNotFound,
                &format!("Database does not exist. Database name: '{db}'."),
                None,
            );
            return Outcome::Failure;
        }
        // The table names the database it was asked for (drivers key their tables by that
        // name, an alias too), or the session's home when it names none.
        let name = match (self.shared.databases.clone(), db) {
            (_, Some(db)) => db.to_owned(),
            (Some(databases), None) => self.home_database(&databases),
            (None, None) => DATABASE.to_owned(),
        };
        let cluster = self.graph().and_then(|graph| graph.cluster().cloned());
        let table = Table::new(cluster.as_deref(), routing, || self.advertised_address());
        let servers: Vec<(Role, &[String])> = table.roles().collect();
        let encoded = RoutingTable {
            ttl_seconds: table.ttl_seconds,
            db: &name,
            servers: &servers,
        }
        .encode(&mut self.outbox);
        self.encoded(encoded)
    }

    /// The address this client reached us at: always reachable by it, unlike a wildcard bind.
    fn advertised_address(&self) -> String {
        self.routing_address.clone().unwrap_or_else(|| {
            self.stream
                .local_addr()
                .map_or_else(|_| "localhost:7687".to_owned(), |addr| addr.to_string())
        })
    }

    /// Checks credentials (racing the authentication deadline); on failure queues the FAILURE.
    async fn authenticate(&mut self, auth: Auth) -> bool {
        let credentials = match auth.scheme.as_str() {
            "none" => Credentials::None,
            "basic" => Credentials::Basic {
                principal: auth.principal.unwrap_or_default(),
                password: auth.credentials.unwrap_or_default(),
            },
            other => Credentials::Other(other.to_owned()),
        };
        let users = Arc::clone(&self.shared.users);
        let verdict = race(
            users.authenticate(self.peer.ip(), credentials),
            self.auth_deadline,
            &self.shutdown,
            Until::Stop,
        )
        .await;
        let principal = match verdict {
            Ok(Ok(principal)) => principal,
            Ok(Err(error)) => {
                tracing::debug!(peer = %self.peer, %error, "Bolt authentication failed");
                self.fail(error.neo4j_code(), &error.to_string(), None);
                return false;
            }
            Err(_) => {
                self.fail(
                    Status::Unauthorized,
                    "Authentication did not complete in time.",
                    None,
                );
                return false;
            }
        };
        if self.reserved_slot && !principal.admin {
            self.shared.metrics.bolt.rejected.inc();
            let message = format!(
                "The server is at its limit of {} connections; the remaining ones are reserved for administrators.",
                self.shared.connections_max
            );
            self.fail(Status::ServiceUnavailable, &message, None);
            return false;
        }
        self.listed.set_user(Some(Arc::clone(&principal.name)));
        self.principal = Some(principal);
        self.authenticated_once = true;
        true
    }
}
