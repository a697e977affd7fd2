//! Graph entities as values.
//!
//! A node or relationship value is its id plus, optionally, its data. Inside a query only the id
//! matters: equality, ordering and hashing use it alone, and the executor never copies
//! properties it does not read. Before a value leaves the server, the engine materialises the
//! data from the transaction's snapshot.

use std::sync::Arc;

use crate::value::Map;

#[derive(Clone, Debug)]
pub struct Node {
    pub id: u64,
    pub data: Option<Arc<NodeData>>,
}

#[derive(Clone, Debug, Default)]
pub struct NodeData {
    pub labels: Vec<Arc<str>>,
    pub properties: Map,
}

#[derive(Clone, Debug)]
pub struct Relationship {
    pub id: u64,
    pub data: Option<Arc<RelData>>,
}

#[derive(Clone, Debug)]
pub struct RelData {
    pub start: u64,
    pub end: u64,
    pub rel_type: Arc<str>,
    pub properties: Map,
    /// The nodes a virtual relationship joins, start then end, as it was made from them (a
    /// virtual node with its labels and properties, a stored one as it was given): no store
    /// knows a virtual relationship, so `startNode` and `endNode` read its ends here. `None`
    /// for a stored relationship, whose ends the store knows, and for one read off the wire.
    pub ends: Option<Arc<[Node; 2]>>,
}

/// A path: `nodes.len() == relationships.len() + 1`. Relationship `i` joins `nodes[i]` and
/// `nodes[i + 1]`, in either direction (its own start/end say which).
#[derive(Clone, Debug)]
pub struct Path {
    pub nodes: Vec<Node>,
    pub relationships: Vec<Relationship>,
}

impl Node {
    pub fn new(id: u64) -> Self {
        Node { id, data: None }
    }

    /// The Bolt 5 element id: opaque to clients, stable for the life of the entity.
    pub fn element_id(&self) -> String {
        node_element_id(self.id)
    }
}

impl Relationship {
    pub fn new(id: u64) -> Self {
        Relationship { id, data: None }
    }

    pub fn element_id(&self) -> String {
        relationship_element_id(self.id)
    }
}

/// Element ids follow Neo4j 5's shape (`<kind>:<database>:<id>`) so tools that display them look
/// familiar; clients must treat them as opaque.
pub fn node_element_id(id: u64) -> String {
    format!("4:quiver:{id}")
}

pub fn relationship_element_id(id: u64) -> String {
    format!("5:quiver:{id}")
}

/// Parses an element id produced by [`node_element_id`] or [`relationship_element_id`].
pub fn parse_element_id(s: &str) -> Option<u64> {
    let mut parts = s.splitn(3, ':');
    let kind = parts.next()?;
    let db = parts.next()?;
    let id = parts.next()?;
    if (kind == "4" || kind == "5") && db == "quiver" {
        id.parse().ok()
    } else {
        None
    }
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Node {}

impl PartialEq for Relationship {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for Relationship {}
