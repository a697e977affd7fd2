//! Interned names: labels, relationship types and property keys.
//!
//! Entities store small integer ids instead of names, so a name costs memory once. Tokens are
//! not transactional (as in Neo4j): a name created by a transaction that rolls back stays, which
//! is harmless because an unused token occupies a few bytes and changes no query result.

use std::sync::Arc;

use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::ids::LabelId;

/// Names longer than this are refused: they would only come from a confused client.
pub const TOKEN_NAME_BYTES_MAX: usize = 65_535;

#[derive(Default)]
struct TokenMap {
    by_name: FxHashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

/// One namespace of tokens.
pub(crate) struct TokenTable {
    what: &'static str,
    ids_max: u32,
    map: RwLock<TokenMap>,
}

impl TokenTable {
    pub(crate) fn new(what: &'static str, ids_max: u32) -> Self {
        TokenTable {
            what,
            ids_max,
            map: RwLock::new(TokenMap::default()),
        }
    }

    pub(crate) fn id(&self, name: &str) -> Option<u32> {
        self.map.read().by_name.get(name).copied()
    }

    pub(crate) fn get_or_create(&self, name: &str) -> Result<u32> {
        if let Some(id) = self.id(name) {
            return Ok(id);
        }
        if name.len() > TOKEN_NAME_BYTES_MAX {
            return Err(Error::ValueTooLarge {
                bytes: name.len(),
                limit: TOKEN_NAME_BYTES_MAX,
            });
        }
        let mut map = self.map.write();
        if let Some(id) = map.by_name.get(name) {
            return Ok(*id);
        }
        let id = map.names.len() as u32;
        if id >= self.ids_max {
            return Err(Error::CapacityExceeded {
                what: self.what,
                limit: u64::from(self.ids_max),
            });
        }
        let name: Arc<str> = name.into();
        map.names.push(name.clone());
        map.by_name.insert(name, id);
        Ok(id)
    }

    pub(crate) fn name(&self, id: u32) -> Option<Arc<str>> {
        self.map.read().names.get(id as usize).cloned()
    }

    pub(crate) fn name_or_err(&self, id: u32) -> Result<Arc<str>> {
        self.name(id).ok_or(Error::UnknownToken {
            what: self.what,
            id,
        })
    }

    /// Fails unless `id` names a token (no name is copied).
    /// The ids of `labels`, each checked against this (the labels') table, each once, in the
    /// order first met.
    pub(crate) fn checked_distinct(&self, labels: &[LabelId]) -> Result<SmallVec<[u32; 4]>> {
        distinct_ids(labels, |l| {
            self.check(l.0)?;
            Ok(l.0)
        })
    }

    pub(crate) fn check(&self, id: u32) -> Result<()> {
        if (id as usize) < self.map.read().names.len() {
            Ok(())
        } else {
            Err(Error::UnknownToken {
                what: self.what,
                id,
            })
        }
    }

    pub(crate) fn all(&self) -> Vec<(u32, Arc<str>)> {
        let map = self.map.read();
        map.names
            .iter()
            .enumerate()
            .map(|(i, n)| (i as u32, n.clone()))
            .collect()
    }

    pub(crate) fn len(&self) -> usize {
        self.map.read().names.len()
    }
}

/// The ids `id` gives `tokens`, each once, in the order first met.
pub(crate) fn distinct_ids<T>(
    tokens: impl IntoIterator<Item = T>,
    mut id: impl FnMut(T) -> Result<u32>,
) -> Result<SmallVec<[u32; 4]>> {
    let mut out = SmallVec::new();
    for t in tokens {
        let t = id(t)?;
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_stable() {
        let t = TokenTable::new("label", 4);
        let a = t.get_or_create("A").unwrap();
        let b = t.get_or_create("B").unwrap();
        assert_ne!(a, b);
        assert_eq!(t.get_or_create("A").unwrap(), a);
        assert_eq!(t.id("B"), Some(b));
        assert_eq!(t.id("C"), None);
        assert_eq!(t.name(a).as_deref(), Some("A"));
        assert_eq!(t.all().len(), 2);
    }

    #[test]
    fn capacity_is_enforced() {
        let t = TokenTable::new("label", 1);
        t.get_or_create("A").unwrap();
        assert!(matches!(
            t.get_or_create("B"),
            Err(Error::CapacityExceeded { .. })
        ));
        assert!(t.name_or_err(7).is_err());
    }
}
