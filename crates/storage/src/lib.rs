//! Quiver's storage engine: an in-memory labelled property graph with MVCC transactions,
//! label and property indexes, uniqueness constraints and a redo-record seam for durability.
//!
//! Entities live in place in segmented arenas; writers change them in place and keep undo
//! deltas on each entity's version chain, so a snapshot is just a commit number and nothing is
//! copied. Write-write conflicts fail fast ([`Error::WriteConflict`], retryable). Garbage
//! collection frees versions once no live snapshot needs them.
//!
//! ```
//! use quiver_storage::{Direction, Storage};
//! use quiver_value::Value;
//!
//! let db = Storage::new();
//! let person = db.get_or_create_label("Person")?;
//! let name = db.get_or_create_property_key("name")?;
//! let knows = db.get_or_create_rel_type("KNOWS")?;
//!
//! let tx = db.begin_write();
//! let ann = tx.create_node(&[person], &[(name, Value::from("Ann"))])?;
//! let bob = tx.create_node(&[person], &[(name, Value::from("Bob"))])?;
//! let rel = tx.create_relationship(ann, bob, knows, &[])?;
//! tx.commit()?;
//!
//! let read = db.begin_read();
//! assert_eq!(read.count_label(person)?, 2);
//! assert_eq!(read.expand(ann, Direction::Out, &[knows])?, vec![(rel, bob)]);
//! let names: Vec<_> = read
//!     .scan_label(person)?
//!     .map(|n| read.node_property(n?, name))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(names.len(), 2);
//! # Ok::<(), quiver_storage::Error>(())
//! ```
//!
//! Reads see the transaction's snapshot plus its own changes made at earlier commands
//! ([`Transaction::advance_command`]); cursors ([`NodeCursor`], [`RelCursor`]) own a handle
//! to their transaction and read at the view of the moment they were opened.
//!
//! - Read transactions start at the visible watermark, write transactions at the last commit
//!   (so their conflict checks see the newest data). Durable modes hold the visible watermark
//!   back with [`Storage::set_readers_follow_commits`] and [`Storage::advance_visible`].
//!   Every advance wakes the waiters of [`Storage::wait_visible`] and
//!   [`Storage::visible_wait`]: nobody polls the watermark.
//! - A commit validates uniqueness constraints, numbers itself and hands its [`RedoRecord`]
//!   to the installed [`CommitLog`] under one short lock, then publishes with one atomic store;
//!   the [`DurabilityTicket`] it returns is awaited with no storage lock held. Recovery replays
//!   records with [`Storage::apply_redo`]; [`Transaction::export`] walks a consistent snapshot.
//! - Schema changes are recorded by a transaction and applied at its commit; a transaction
//!   may change the schema or the data, not both ([`Error::MixedSchemaAndData`]).
//! - Garbage collection runs briefly after commits and fully on [`Storage::gc`].

mod access;
mod arena;
mod bulk;
mod change;
mod codec;
mod commit_log;
mod constraints;
mod counts;
mod cursor;
mod ddl;
mod derived;
mod error;
mod filter;
mod fulltext;
mod gc;
mod graph;
mod ids;
mod index;
mod log_replay;
mod mvcc;
mod prefetch;
mod read;
mod redo;
mod replay;
mod restriction;
mod rules;
mod schema;
mod search;
mod security;
mod spec;
mod storage;
mod tokens;
mod txn;
mod vector;
mod write;

pub use bulk::{BulkLoad, BulkSection, BulkSummary};
pub use change::{Capture, ChangeContext, History};
pub use codec::{LIST_ITEMS_MAX, VALUE_BYTES_MAX, check_storable};
pub use commit_log::{
    AcknowledgeWait, AppendError, CommitLog, DurabilityTicket, LogError, StoreHandle,
};
pub use constraints::{
    PropertyConstraintSpec, PropertyType, PropertyTypes, ScalarType, stored_type_name,
};
pub use cursor::{CURSOR_BATCH, ExportCursor, NodeCursor, RelCursor};
pub use error::{EntityKind, Error, Result};
pub use filter::{PropOp, PropTest};
pub use fulltext::{
    AnalyzerInfo, DEFAULT_ANALYZER, FulltextEntity, FulltextError, FulltextInfo, FulltextSpec,
    SEARCH_ROWS_MAX, analyzers::available as fulltext_analyzers,
    analyzers::is_known as is_fulltext_analyzer,
};
pub use gc::GcStats;
pub use graph::ENTITY_BYTES_MAX;
pub use ids::{
    Direction, ENTITY_IDS_MAX, LabelId, NodeId, PropKeyId, REL_TYPES_MAX, RelId, RelTypeId,
    TOKENS_MAX,
};
pub use index::{IndexQuery, compare as compare_values, equal as values_equal};
pub use log_replay::{ReplaySplit, ReplayStopped};
pub use mvcc::WriterWait;
pub use redo::{
    NamesRef, PropsRef, RECORD_BYTES_MAX, REDO_FORMAT_VERSION, RawDocument, RawValue, RedoOp,
    RedoOpRef, RedoRecord, RedoRecordRef,
};
pub use replay::{RedoSink, SchemaIndexRef};
pub use restriction::{NodeProperty, ReadRestriction};
pub use rules::{FULLTEXT_PROVIDER, VECTOR_PROVIDER};
pub use schema::{CompositeQuery, IndexInfo, IndexKind, IndexSpec, IndexState};
pub use security::{PrivilegeRecord, RoleRecord, Security, UserRecord};
pub use storage::{LABELS_MAX, Storage, StorageStats, VisibleWait};
pub use tokens::TOKEN_NAME_BYTES_MAX;
pub use txn::{CommitInfo, Transaction};
pub use vector::{
    HNSW_EF_CONSTRUCTION_DEFAULT, HNSW_EF_CONSTRUCTION_MAX, HNSW_EF_SEARCH_DEFAULT,
    HNSW_EF_SEARCH_MAX, HNSW_M_DEFAULT, HNSW_M_MAX, Similarity, VECTOR_DIMENSIONS_MAX,
    VectorConfig, VectorFilter, VectorFilterOp, VectorIndexInfo, vector_of,
};
