//! Names of labels, relationship types and property keys as a plan holds them.
//!
//! A cached plan outlives the moment it was compiled, and a name unknown then (a label no node
//! has yet) may exist by the time the plan runs. So a plan keeps the name and resolves it at
//! run time, caching the id once found: ids never change once assigned, while "unknown" can.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use quiver_storage::{LabelId, PropKeyId, RelTypeId, Storage};

use crate::error::Result;

const UNRESOLVED: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum TokenKind {
    Label,
    RelType,
    PropKey,
}

/// A label, relationship type or property key name with its id cached once known.
#[derive(Debug)]
pub(crate) struct Token {
    pub kind: TokenKind,
    pub name: Arc<str>,
    id: AtomicU32,
}

impl Token {
    pub fn new(kind: TokenKind, name: &str) -> Arc<Token> {
        Arc::new(Token {
            kind,
            name: Arc::from(name),
            id: AtomicU32::new(UNRESOLVED),
        })
    }

    /// The id, if the name exists in the store.
    pub fn get(&self, storage: &Storage) -> Option<u32> {
        let cached = self.id.load(Ordering::Relaxed);
        if cached != UNRESOLVED {
            return Some(cached);
        }
        let found = match self.kind {
            TokenKind::Label => storage.label_id(&self.name).map(|l| l.0),
            TokenKind::RelType => storage.rel_type_id(&self.name).map(|t| t.0),
            TokenKind::PropKey => storage.property_key_id(&self.name).map(|k| k.0),
        }?;
        self.id.store(found, Ordering::Relaxed);
        Some(found)
    }

    /// The id, creating the name in the store if needed (writes).
    pub fn get_or_create(&self, storage: &Storage) -> Result<u32> {
        if let Some(id) = self.get(storage) {
            return Ok(id);
        }
        let id = match self.kind {
            TokenKind::Label => storage.get_or_create_label(&self.name)?.0,
            TokenKind::RelType => storage.get_or_create_rel_type(&self.name)?.0,
            TokenKind::PropKey => storage.get_or_create_property_key(&self.name)?.0,
        };
        self.id.store(id, Ordering::Relaxed);
        Ok(id)
    }

    pub fn label(&self, storage: &Storage) -> Option<LabelId> {
        self.get(storage).map(LabelId)
    }

    pub fn rel_type(&self, storage: &Storage) -> Option<RelTypeId> {
        self.get(storage).map(RelTypeId)
    }

    pub fn key(&self, storage: &Storage) -> Option<PropKeyId> {
        self.get(storage).map(PropKeyId)
    }
}

/// Hands out one shared token per name and kind while a query compiles.
#[derive(Default)]
pub(crate) struct Tokens {
    all: Vec<Arc<Token>>,
}

impl Tokens {
    pub fn intern(&mut self, kind: TokenKind, name: &str) -> Arc<Token> {
        if let Some(t) = self.all.iter().find(|t| t.kind == kind && &*t.name == name) {
            return t.clone();
        }
        let t = Token::new(kind, name);
        self.all.push(t.clone());
        t
    }

    pub fn label(&mut self, name: &str) -> Arc<Token> {
        self.intern(TokenKind::Label, name)
    }

    pub fn rel_type(&mut self, name: &str) -> Arc<Token> {
        self.intern(TokenKind::RelType, name)
    }

    pub fn key(&mut self, name: &str) -> Arc<Token> {
        self.intern(TokenKind::PropKey, name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_late_and_caches() {
        let storage = Storage::new();
        let t = Token::new(TokenKind::Label, "Person");
        assert_eq!(t.get(&storage), None);
        let id = storage.get_or_create_label("Person").unwrap();
        assert_eq!(t.get(&storage), Some(id.0));
        let k = Token::new(TokenKind::PropKey, "name");
        let created = k.get_or_create(&storage).unwrap();
        assert_eq!(storage.property_key_id("name").map(|p| p.0), Some(created));
    }
}
