//! Ids of entities and tokens, and the limits that bound them.
//!
//! Entity ids are dense and never reused within a process lifetime, which lets the arenas index
//! by id and lets a stale id fail cleanly instead of naming a stranger.

use quiver_value::graph::{node_element_id, relationship_element_id};

/// Highest entity id plus one: ids are packed into 36 bits inside adjacency entries, which keeps
/// an adjacency entry at 12 bytes. 68 billion entities is far beyond what memory holds.
pub const ENTITY_IDS_MAX: u64 = 1 << 36;
/// Relationship types share a packed word with id bits and flags, so 2^22 types at most.
pub const REL_TYPES_MAX: u32 = 1 << 22;
/// Labels and property keys: plenty, and keeps varint encodings short.
pub const TOKENS_MAX: u32 = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelId(pub u64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelTypeId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PropKeyId(pub u32);

impl NodeId {
    /// The Bolt 5 element id.
    pub fn element_id(self) -> String {
        node_element_id(self.0)
    }
}

impl RelId {
    /// The Bolt 5 element id.
    pub fn element_id(self) -> String {
        relationship_element_id(self.0)
    }
}

/// Which relationships of a node an expand follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Relationships that start at the node.
    Out,
    /// Relationships that end at the node.
    In,
    /// Both; a self-loop is reported once.
    Both,
}
