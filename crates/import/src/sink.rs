//! The one seam between the loader and the store: where parsed nodes and relationships go,
//! and how the finished graph becomes a snapshot in a directory.
//!
//! Today the graph is built through the store's ordinary write transactions, committed every
//! [`BATCH_OPS`] entities so no transaction grows with the input, and written with the
//! durability crate's snapshot writer. A bulk-load path in the store would replace this file
//! alone: the loader hands over ids it chose itself, token ids it interned through
//! [`Tokens`], and calls [`Sink::finish`] once.

use std::path::Path;
use std::sync::Arc;

use quiver_durability::{Options, RealDisk, SnapshotInfo, write_snapshot};
use quiver_storage::{Storage, Transaction};
use quiver_value::Value;

pub use quiver_storage::{LabelId, PropKeyId, RelTypeId};

use crate::error::Error;

/// Entities created per write transaction: large enough that commits cost nothing beside
/// the work, small enough that a transaction's undo state stays a few tens of megabytes.
pub const BATCH_OPS: usize = 100_000;

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

/// The graph being built.
pub struct Sink {
    storage: Arc<Storage>,
    tx: Option<Transaction>,
    in_tx: usize,
}

impl Sink {
    pub fn new() -> Sink {
        Sink {
            storage: Storage::new(),
            tx: None,
            in_tx: 0,
        }
    }

    pub fn tokens(&self) -> Tokens {
        Tokens {
            storage: Arc::clone(&self.storage),
        }
    }

    fn tx(&mut self) -> Result<&Transaction, Error> {
        if self.in_tx >= BATCH_OPS {
            self.commit()?;
        }
        self.in_tx += 1;
        Ok(self.tx.get_or_insert_with(|| self.storage.begin_write()))
    }

    fn commit(&mut self) -> Result<(), Error> {
        if let Some(tx) = self.tx.take() {
            tx.commit().map_err(|e| Error::Store(format!("commit: {e}")))?;
        }
        self.in_tx = 0;
        Ok(())
    }

    /// Creates node `id`. The loader numbers nodes densely from 0 in the order it sends
    /// them; the store must agree.
    pub fn node(
        &mut self,
        id: u64,
        labels: &[LabelId],
        props: &[(PropKeyId, Value)],
    ) -> Result<(), Error> {
        let got = self
            .tx()?
            .create_node(labels, props)
            .map_err(|e| Error::Store(format!("node: {e}")))?;
        if got.0 != id {
            return Err(Error::Store(format!(
                "the store numbered node {id} as {}",
                got.0
            )));
        }
        Ok(())
    }

    pub fn relationship(
        &mut self,
        start: u64,
        end: u64,
        ty: RelTypeId,
        props: &[(PropKeyId, Value)],
    ) -> Result<(), Error> {
        self.tx()?
            .create_relationship(
                quiver_storage::NodeId(start),
                quiver_storage::NodeId(end),
                ty,
                props,
            )
            .map_err(|e| Error::Store(format!("relationship: {e}")))?;
        Ok(())
    }

    /// Commits what is pending and writes the graph as a snapshot into `dir` (the snapshot
    /// writer syncs the file before renaming it into place). `None` when nothing was loaded:
    /// an empty directory is already an empty database.
    pub fn finish(mut self, dir: &Path) -> Result<Option<SnapshotInfo>, Error> {
        self.commit()?;
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
