//! One Quiver node, assembled from its configuration in one place: the store (in memory, a
//! data directory, or a cluster member's replicated store), the users and audit log, Neo4j's
//! HTTP API with its telemetry and the query pool it shares with Bolt, and the listeners.
//!
//! `quiver serve`, the lab's in-process server and the tests' servers all start a node here,
//! so what they run is the server that ships; they differ only in what they hand the builder
//! (a store of their own, an HTTP service of their own) and in what they do around it
//! (signals and exit codes for `serve`, a runtime of its own for the lab).

mod api;
mod error;
mod hangup;
mod member;
mod node;
mod store;
mod users;

pub use api::{ServerTelemetry, api_config, engine_config};
pub use error::NodeError;
#[cfg(unix)]
pub use hangup::reload_tls_on_hangup;
pub use node::{HttpService, Node, NodeBuilder, Stopped, Store};
