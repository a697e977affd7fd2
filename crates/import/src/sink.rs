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
use quiver_storage::{BulkLoad, NodeId, RelId, Storage};
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

    /// Loads a relationship between loaded nodes, numbered densely from 0.
    pub fn relationship(
        &mut self,
        start: u64,
        end: u64,
        ty: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<(), Error> {
        let id = RelId(self.next_rel);
        self.bulk
            .relationship(id, NodeId(start), NodeId(end), ty, props)
            .map_err(|e| Error::Store(format!("relationship: {e}")))?;
        self.next_rel += 1;
        Ok(())
    }
}

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
