//! Neo4j's HTTP API over a Quiver database: the transactional endpoints (Neo4j 5 paths and
//! the 3.x `/db/data/transaction` paths), the Query API v2 and the discovery document.
//!
//! [`HttpApi`] is a `hyper` service over requests whose bodies the server has already read
//! (within its size and time limits) and authenticated; the server crate plugs it into its
//! HTTP listener. Inside:
//!
//! - [`route`] maps paths to endpoints; [`negotiate`] reads `Accept` and `Content-Type`;
//! - [`decode`] turns request bodies into statements and engine values ([`typed`] for
//!   Neo4j's typed JSON);
//! - `tx_api` and `query_api` run statements on the query pool (or, for a request whose last
//!   run was quick, on the connection's task: `quiver-placement` decides, as it does for Bolt)
//!   and write Neo4j's documents as rows arrive ([`encode`] for the value formats), through
//!   [`stream`], which sends small documents whole and large ones in chunks;
//! - `registry` holds open explicit transactions between requests, caps their number and
//!   rolls back the ones left idle; [`Telemetry`] reports transaction outcomes upward;
//! - acknowledgements, bookmark waits and writes refused after a disk fault are the engine's
//!   `Database`'s: a commit is answered once its ticket is acknowledged (see `durable`).

mod bookmarks;
mod config;
mod dates;
pub mod decode;
mod durable;
pub mod encode;
mod error;
pub mod json;
pub mod negotiate;
mod query_api;
mod registry;
pub mod route;
mod service;
pub mod stream;
mod tracked;
mod tx_api;
pub mod typed;

pub use config::ApiConfig;
pub use error::ApiError;
pub use service::{Hooks, HttpApi, Router};
pub use stream::ResponseBody;
pub use tracked::{EndedStatement, NoTelemetry, Telemetry};
