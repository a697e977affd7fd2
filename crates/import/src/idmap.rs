//! Input ids and the node ids they became, one map per ID space.
//!
//! Neo4j's `--id-type` decides how ids compare: `string` (the default) keeps the text,
//! `integer` parses it (so `7` and `07` are one id), and `actual` is `integer` without named
//! ID spaces, as Neo4j has it. Quiver always numbers its nodes itself, densely in input
//! order; an `actual` id is used to connect relationships and stored only when the column is
//! named, like any other id.

use quiver_value::Value;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdType {
    String,
    Integer,
    Actual,
}

impl IdType {
    pub fn parse(name: &str) -> Option<IdType> {
        match name.to_ascii_lowercase().as_str() {
            "string" => Some(IdType::String),
            "integer" => Some(IdType::Integer),
            "actual" => Some(IdType::Actual),
            _ => None,
        }
    }

    /// The value an `id:ID` column stores for `raw`.
    pub fn stored(self, raw: &str) -> Result<Value, String> {
        match self {
            IdType::String => Ok(Value::from(raw)),
            IdType::Integer | IdType::Actual => integer(raw).map(Value::Int),
        }
    }
}

fn integer(raw: &str) -> Result<i64, String> {
    raw.trim()
        .parse()
        .map_err(|_| format!("ID `{raw}` is not an integer (--id-type integer)"))
}

/// A string id, held inline up to this many bytes: a lookup then compares bytes inside the
/// table's own slot instead of following a pointer to the heap per probe, which was the most
/// expensive step of loading relationships with 24-character ids.
const INLINE_ID_BYTES: usize = 32;

enum Ids {
    Strings(FxHashMap<SmallVec<[u8; INLINE_ID_BYTES]>, u64>),
    Integers(FxHashMap<i64, u64>),
}

/// An ID space's index in the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Space(usize);

pub struct IdMap {
    id_type: IdType,
    names: Vec<Option<String>>,
    spaces: Vec<Ids>,
}

impl IdMap {
    pub fn new(id_type: IdType) -> IdMap {
        IdMap {
            id_type,
            names: Vec::new(),
            spaces: Vec::new(),
        }
    }

    /// The space of that name, created on first use.
    pub fn declare(&mut self, name: &Option<String>) -> Space {
        if let Some(s) = self.space(name) {
            return s;
        }
        self.names.push(name.clone());
        self.spaces.push(match self.id_type {
            IdType::String => Ids::Strings(FxHashMap::default()),
            IdType::Integer | IdType::Actual => Ids::Integers(FxHashMap::default()),
        });
        Space(self.spaces.len() - 1)
    }

    pub fn space(&self, name: &Option<String>) -> Option<Space> {
        self.names.iter().position(|n| n == name).map(Space)
    }

    /// `space` as a report names it.
    pub fn describe(&self, space: Space) -> String {
        match &self.names[space.0] {
            Some(name) => format!("ID space `{name}`"),
            None => "the global ID space".to_string(),
        }
    }

    /// Records `raw` as node `node`. `Ok(false)` when the id is already taken in the space;
    /// `Err` when it does not parse under the id type.
    pub fn insert(&mut self, space: Space, raw: &str, node: u64) -> Result<bool, String> {
        match &mut self.spaces[space.0] {
            Ids::Strings(m) => {
                if m.contains_key(raw.as_bytes()) {
                    return Ok(false);
                }
                m.insert(SmallVec::from_slice(raw.as_bytes()), node);
            }
            Ids::Integers(m) => {
                let key = integer(raw)?;
                if m.contains_key(&key) {
                    return Ok(false);
                }
                m.insert(key, node);
            }
        }
        Ok(true)
    }

    /// The node `raw` names in `space`; `Ok(None)` when none does.
    pub fn get(&self, space: Space, raw: &str) -> Result<Option<u64>, String> {
        match &self.spaces[space.0] {
            Ids::Strings(m) => Ok(m.get(raw.as_bytes()).copied()),
            Ids::Integers(m) => Ok(m.get(&integer(raw)?).copied()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spaces_keep_ids_apart() {
        let mut m = IdMap::new(IdType::String);
        let a = m.declare(&Some("A".into()));
        let b = m.declare(&Some("B".into()));
        assert_eq!(m.declare(&Some("A".into())), a);
        assert_eq!(m.insert(a, "1", 0), Ok(true));
        assert_eq!(m.insert(b, "1", 1), Ok(true));
        assert_eq!(m.insert(a, "1", 2), Ok(false));
        assert_eq!(m.get(a, "1"), Ok(Some(0)));
        assert_eq!(m.get(b, "1"), Ok(Some(1)));
        assert_eq!(m.get(b, "2"), Ok(None));
        assert!(m.space(&None).is_none());
        assert_eq!(m.describe(a), "ID space `A`");
    }

    #[test]
    fn integer_ids_compare_as_numbers() {
        let mut m = IdMap::new(IdType::Integer);
        let g = m.declare(&None);
        assert_eq!(m.insert(g, "7", 0), Ok(true));
        assert_eq!(m.insert(g, "07", 1), Ok(false));
        assert_eq!(m.get(g, " 7"), Ok(Some(0)));
        assert!(m.insert(g, "x", 2).is_err());
        assert_eq!(IdType::Integer.stored("42"), Ok(Value::Int(42)));
        assert_eq!(IdType::String.stored("42"), Ok(Value::from("42")));
    }
}
