//! Quiver's query engine: Cypher text in, streamed rows out, over the storage engine.
//!
//! ```text
//! text ─parse→ AST ─plan→ operator tree (cached by text) ─build→ cursors ─pull→ rows
//! ```
//!
//! - [`Database`] holds the store, the plan cache, procedures and the registry of running
//!   transactions; [`Database::begin`] starts a [`Transaction`]. [`Database::open`] opens a
//!   durable one in a directory, [`Database::open_in_memory`] one that writes nothing.
//! - The database owns the waits: when a commit may be acknowledged
//!   ([`Database::durable`], over the store's `CommitLog`), when a [`Bookmark`]'s commit is
//!   visible ([`Database::visible`]), and whether writes are refused after a disk fault.
//! - [`Transaction::run`] compiles a query (or takes it from the cache) and opens it;
//!   [`Transaction::pull`] computes about as many rows as asked for, so a huge result is never
//!   held in memory; several queries may be open in one transaction.
//! - Every error is an [`Error`] with a Neo4j status code, a message, and for the openCypher
//!   TCK a detail name and the phase (compile time or runtime) it was raised in.
//!
//! Inside a query, nodes and relationships are ids; rows leaving [`Transaction::pull`] are
//! materialised with labels, types and properties from the transaction's view.

#[macro_use]
mod trace;
mod acknowledge;
mod apoc;
mod blocking;
mod bookmark;
mod cache;
pub mod catalog;
mod changes;
mod config;
mod database;
mod error;
mod eval;
mod exec;
mod ir;
mod materialize;
pub mod memory;
mod metadata;
mod plan;
pub mod procedures;
pub mod search;
pub mod security;
mod state;
mod summary;
mod tokens;
mod transaction;

pub use acknowledge::WaitError;
pub use apoc::APOC_VERSION;
pub use blocking::{BlockingHook, set_blocking_hook};
pub use bookmark::{Bookmark, InvalidBookmark};
pub use config::{
    AccessMode, EngineConfig, LOCK_WAIT_DEFAULT, Setting, TxOptions, engine_settings,
};
pub use database::{Database, QueryResult};
pub use error::{Error, LockWaited, Phase, Result};
pub use exec::parallel::HelperPool;
pub use metadata::{ServerDirectory, ServerHealth, ServerInfo, server_id};
pub use procedures::{
    Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Procedures, TableProcedure,
};
pub use quiver_durability::{Mode, Options as DurabilityOptions};
pub use quiver_storage::{Capture, DurabilityTicket};
pub use security::password::{PASSWORD_CHARS_MIN, hash_password, verify_with_memory};
pub use security::{AuditEvent, AuditSink, Authentication};
pub use summary::{
    CommitInfo, Counters, Notification, OperatorProfile, PlanDescription, PullState, QueryFigures,
    QuerySummary, QueryType, TransactionInfo,
};
pub use transaction::{CancelHandle, QueryId, Transaction};
