//! The one seam between the loader and the store: where parsed nodes and relationships go,
//! and how the finished graph becomes a snapshot in a directory.
//!
//! The graph is built through the store's bulk path ([`BulkLoad`]: every entity written as
//! its one committed version, no undo deltas, one commit published at the end) and written
//! with the durability crate's snapshot writer. The loader hands over node ids it chose
//! itself and token ids it interned through [`Tokens`]; nothing else of the store shows.

use std::path::Path;
use std::sync::Arc;

use quiver_durability::{Options, RealDisk, SnapshotInfo, write_snapshot};
use quiver_storage::{BulkLoad, BulkSection, NodeId, RelId, Storage};
use quiver_value::Value;

pub use quiver_storage::{LabelId, PropKeyId, RelTypeId};

use crate::error::Error;

/// Interns label, type and property-key names. Cheap to clone and shared with the parsing
/// thread, so tokens are resolved where the header and rows are read.
#[derive(Clone)]
pub struct Tokens {
    storage: Arc<Storage>,
}

impl Tokens {
    pub fn label(&self, name: &str) -> Result<LabelId, Error> {
        self.storage
            .get_or_create_label(name)
            .map_err(|e| Error::Store(format!("label `{name}`: {e}")))
    }

    pub fn rel_type(&self, name: &str) -> Result<RelTypeId, Error> {
        self.storage
            .get_or_create_rel_type(name)
            .map_err(|e| Error::Store(format!("relationship type `{name}`: {e}")))
    }

    pub fn key(&self, name: &str) -> Result<PropKeyId, Error> {
        self.storage
            .get_or_create_property_key(name)
            .map_err(|e| Error::Store(format!("property key `{name}`: {e}")))
    }
}

/// The graph being built: an empty store, filled by one bulk load (no transactions, no undo
/// state) and published as commit 1.
pub struct Sink {
    storage: Arc<Storage>,
}

/// Where the rows go while [`Sink::load`] runs.
pub struct Loading<'a> {
    bulk: BulkLoad<'a>,
    next_rel: u64,
}

impl Loading<'_> {
    /// Loads node `id`. The loader numbers nodes densely from 0 in the order it sends them.
    pub fn node(
        &mut self,
        id: u64,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<(), Error> {
        self.bulk
            .node(NodeId(id), labels, props)
            .map_err(|e| Error::Store(format!("node: {e}")))
    }

    /// Loads relationships between loaded nodes, numbered densely from 0 in the order given.
    /// A batch of at least [`PARALLEL_RELATIONSHIPS_MIN`] is split in two halves loaded at
    /// once (the bulk path takes relationships from several threads, locking one endpoint at
    /// a time): storing rows is the import's larger half of the work, so a second thread
    /// shortens it wherever a core is free.
    pub fn relationships(&mut self, rels: &[Relationship<'_>]) -> Result<(), Error> {
        let first = self.next_rel;
        let load = |section: &mut BulkSection<'_, '_>, from: u64, part: &[Relationship<'_>]| {
            for (id, r) in (from..).zip(part) {
                section
                    .relationship(RelId(id), NodeId(r.start), NodeId(r.end), r.ty, r.props)
                    .map_err(|e| Error::Store(format!("relationship: {e}")))?;
            }
            Ok::<(), Error>(())
        };
        if rels.len() < PARALLEL_RELATIONSHIPS_MIN {
            load(&mut self.bulk.section(), first, rels)?;
        } else {
            let (a, b) = rels.split_at(rels.len() / 2);
            let bulk = &self.bulk;
            std::thread::scope(|scope| {
                let other = scope.spawn(|| load(&mut bulk.section(), first + a.len() as u64, b));
                let here = load(&mut bulk.section(), first, a);
                let there = other
                    .join()
                    .unwrap_or_else(|_| Err(Error::Store("a loader thread panicked".to_string())));
                here.and(there)
            })?;
        }
        self.next_rel += rels.len() as u64;
        Ok(())
    }
}

/// One relationship for [`Loading::relationships`].
pub struct Relationship<'a> {
    pub start: u64,
    pub end: u64,
    pub ty: RelTypeId,
    pub props: &'a [(PropKeyId, Value)],
}

/// Relationships in one call below this are loaded on the calling thread alone: a second
/// thread costs more than it saves on a small batch.
pub const PARALLEL_RELATIONSHIPS_MIN: usize = 1024;

impl Sink {
    pub fn new() -> Sink {
        Sink {
            storage: Storage::new(),
        }
    }

    pub fn tokens(&self) -> Tokens {
        Tokens {
            storage: Arc::clone(&self.storage),
        }
    }

    /// Runs `fill`, which loads every row and answers whether the input was complete; then
    /// publishes the graph and writes it as a snapshot into `dir` (the snapshot writer syncs
    /// the file before renaming it into place). `None` when `fill` gave up: the import
    /// failed and its staging directory is discarded.
    pub fn load(
        self,
        dir: &Path,
        fill: impl FnOnce(&mut Loading<'_>) -> Result<bool, Error>,
    ) -> Result<Option<SnapshotInfo>, Error> {
        let bulk = self
            .storage
            .bulk_load()
            .map_err(|e| Error::Store(format!("bulk load: {e}")))?;
        let mut loading = Loading { bulk, next_rel: 0 };
        if !fill(&mut loading)? {
            return Ok(None);
        }
        loading
            .bulk
            .finish(1)
            .map_err(|e| Error::Store(format!("bulk load: {e}")))?;
        let block_ops_max = Options::default().snapshot_block_ops_max;
        write_snapshot(&RealDisk, dir, &self.storage, 0, block_ops_max, |_| Ok(()))
            .map_err(|e| Error::Store(format!("snapshot: {e}")))
    }
}

impl Default for Sink {
    fn default() -> Self {
        Sink::new()
    }
}
