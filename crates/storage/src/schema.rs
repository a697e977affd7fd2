//! Index and constraint definitions.
//!
//! The schema is copy-on-write behind an `Arc`: writers load it once per operation, under the
//! entity's lock, so an index published before it is populated is maintained by every write
//! that follows (see `Storage::populate`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::index::IndexData;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// A property index for equality, range, IN and prefix seeks.
    Range,
    /// The index backing a uniqueness constraint; seekable like a range index.
    Unique,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexState {
    Populating,
    Online,
}

/// One row of `SHOW INDEXES` / `SHOW CONSTRAINTS`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexInfo {
    pub name: String,
    pub label: Arc<str>,
    pub key: Arc<str>,
    pub kind: IndexKind,
    pub state: IndexState,
    /// Entries currently held (including ones kept for older snapshots).
    pub entries: usize,
}

pub(crate) struct IndexDef {
    pub name: String,
    pub label: u32,
    pub key: u32,
    pub unique: bool,
    pub online: AtomicBool,
    pub data: IndexData,
}

impl IndexDef {
    pub(crate) fn new(name: String, label: u32, key: u32, unique: bool) -> Self {
        IndexDef {
            name,
            label,
            key,
            unique,
            online: AtomicBool::new(false),
            data: IndexData::default(),
        }
    }

    pub(crate) fn is_online(&self) -> bool {
        self.online.load(Ordering::Acquire)
    }
}

#[derive(Default, Clone)]
pub(crate) struct Schema {
    pub defs: Vec<Arc<IndexDef>>,
}

impl Schema {
    /// The values `node` holds under a uniqueness constraint, with the constraint: what a
    /// commit or a bulk load checks against the constraint's index.
    pub(crate) fn unique_values(
        &self,
        node: &crate::graph::NodeRec,
    ) -> crate::error::Result<Vec<(&Arc<IndexDef>, quiver_value::Value)>> {
        let labels = node.labels()?;
        let mut out = Vec::new();
        for def in self.defs.iter().filter(|d| d.unique) {
            if labels.contains(&def.label)
                && let Some(v) = crate::graph::prop_get(node.props()?, def.key)?
            {
                out.push((def, v));
            }
        }
        Ok(out)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    pub(crate) fn on_label(&self, label: u32) -> impl Iterator<Item = &Arc<IndexDef>> {
        self.defs.iter().filter(move |d| d.label == label)
    }

    /// The index to seek for `(label, key)`; a constraint's index serves as well as a plain one.
    pub(crate) fn find(&self, label: u32, key: u32) -> Option<&Arc<IndexDef>> {
        self.defs
            .iter()
            .find(|d| d.label == label && d.key == key && d.is_online())
    }

    pub(crate) fn find_kind(&self, label: u32, key: u32, unique: bool) -> Option<&Arc<IndexDef>> {
        self.defs
            .iter()
            .find(|d| d.label == label && d.key == key && d.unique == unique)
    }

    pub(crate) fn by_name(&self, name: &str) -> Option<&Arc<IndexDef>> {
        self.defs.iter().find(|d| d.name == name)
    }
}
