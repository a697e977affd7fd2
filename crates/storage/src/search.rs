//! A transaction's searches through the derived indexes (see `derived`): the vector and
//! full-text indexes answer from the newest committed state, and each hit is confirmed
//! against the transaction's own snapshot and what its reader may see.

use crate::error::{Error, Result};
use crate::fulltext::{FulltextEntity, FulltextError};
use crate::txn::Transaction;
use crate::vector::{VectorFilter, VectorIndexInfo};

impl Transaction {
    /// The vector index named `name`.
    pub fn vector_index(&self, name: &str) -> Option<VectorIndexInfo> {
        self.inner
            .storage
            .vector_indexes()
            .into_iter()
            .find(|i| i.name == name)
    }

    /// The `k` entities (node or relationship ids, as the index covers) nearest `query` in the
    /// index named `name` that this transaction's snapshot sees, with Neo4j's scores, best
    /// first. `query` must have the index's dimension. The transaction's own uncommitted
    /// vectors are found too: they are not in the graph until it commits, so the entities it
    /// changed are scored one by one. With a `filter` (each key among those the index names
    /// in its `WITH [...]`), the `k` nearest entities that pass it.
    pub fn vector_search(
        &self,
        name: &str,
        (query, k): (&[f64], usize),
        filter: &[VectorFilter],
    ) -> Result<Vec<(u64, f64)>> {
        self.inner.check_active()?;
        let storage = &self.inner.storage;
        let Some(def) = storage.vector_def(name) else {
            return Err(Error::SchemaRuleNotFound {
                name: name.to_string(),
            });
        };
        if query.len() != def.config.dimensions {
            return Err(Error::VectorDimensions {
                index: name.to_string(),
                expected: def.config.dimensions,
                got: query.len(),
            });
        }
        if let Some(f) = filter.iter().find(|f| !def.with_keys.contains(&f.key)) {
            return Err(Error::VectorFilterKey {
                index: name.to_string(),
                key: storage.keys.name_or_err(f.key)?.to_string(),
            });
        }
        def.reads.record();
        let own = if self.inner.write {
            let st = self.inner.state.lock();
            if def.relationship {
                st.touched_rels.clone()
            } else {
                st.touched_nodes.clone()
            }
        } else {
            Vec::new()
        };
        let mut hits = storage.vector_search(&def, &self.inner.view(), (query, k), filter, &own);
        // A hit found through a property its reader may not read would tell of that property:
        // the filter's keys are judged as the vector's is.
        let keys: Vec<u32> = std::iter::once(def.key)
            .chain(filter.iter().map(|f| f.key))
            .collect();
        self.keep_visible_hits(def.relationship, &keys, &mut hits)?;
        Ok(hits)
    }
}

impl Transaction {
    /// Searches the full-text index `name`, which must index `entity`: the ids of the
    /// entities this transaction's snapshot confirms, with their scores, best first.
    pub fn fulltext_search(
        &self,
        name: &str,
        entity: FulltextEntity,
        query: &str,
        skip: usize,
        limit: usize,
    ) -> Result<Vec<(u64, f64)>> {
        self.inner.check_active()?;
        let storage = &self.inner.storage;
        let Some(index) = storage.fulltext_by_name(name) else {
            return Err(Error::Fulltext(FulltextError::UnknownIndex {
                name: name.to_string(),
            }));
        };
        if index.spec.entity != entity {
            return Err(Error::Fulltext(FulltextError::WrongEntity {
                name: name.to_string(),
                indexes: index.spec.entity.noun(),
                asked: entity.noun(),
            }));
        }
        if !index.spec.eventually_consistent {
            storage.fulltext_pending.wait_reflects(self.inner.snapshot);
        }
        storage.fulltext_refresh(&index)?;
        index.reads.record();
        let mut hits = index.search(storage, &self.inner.view(), query, skip, limit)?;
        if self.is_restricted() {
            let keys: Vec<u32> = index
                .spec
                .keys
                .iter()
                .filter_map(|k| storage.keys.id(k))
                .collect();
            let relationship = entity == FulltextEntity::Relationship;
            self.keep_visible_hits(relationship, &keys, &mut hits)?;
        }
        Ok(hits)
    }
}
