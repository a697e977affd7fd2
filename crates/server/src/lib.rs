//! Quiver's server layer: listeners, admission, deadlines, authentication, metrics, configuration
//! and graceful shutdown. Protocol logic lives in `quiver-bolt` and `quiver-http`, and where
//! query work runs (inline or on the query pool) in `quiver-placement`; this crate owns the
//! sockets and everything that keeps them bounded.

pub mod admission;
pub mod audit;
pub mod auth;
pub mod bolt_listener;
pub mod buffers;
pub mod cluster;
pub mod config;
pub mod connections;
pub mod console;
pub mod databases;
pub mod deadline;
pub mod graph;
pub mod health;
pub mod http_listener;
pub mod listener;
pub mod metrics;
pub mod procedures;
pub mod query_log;
pub mod refuser;
pub mod replica;
pub mod routing;
pub mod server;
pub mod settings;
pub mod shutdown;
pub mod supervise;
pub mod tls;
pub mod websocket;

pub use graph::Graph;
pub use replica::Replica;
pub use server::{Server, ServerError, ServerParts, ShutdownTrigger};
