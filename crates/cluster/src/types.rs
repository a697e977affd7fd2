//! The Raft type configuration: who a member is, what an entry carries, what applying one
//! answers.

use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// A member's id. Ids are never reused: a removed member that comes back takes a new one, since
/// the others may still hold votes and log entries naming the old one.
pub type NodeId = u64;

/// Where a member listens: its Raft listener (the peers' replication traffic), and the Bolt and
/// HTTP listeners clients are routed to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub raft_addr: String,
    pub bolt_addr: String,
    pub http_addr: String,
}

impl Node {
    pub fn new(
        raft_addr: impl Into<String>,
        bolt_addr: impl Into<String>,
        http_addr: impl Into<String>,
    ) -> Node {
        Node {
            raft_addr: raft_addr.into(),
            bolt_addr: bolt_addr.into(),
            http_addr: http_addr.into(),
        }
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "raft {} bolt {} http {}",
            self.raft_addr, self.bolt_addr, self.http_addr
        )
    }
}

/// An entry's payload: the redo record bytes of one commit, exactly as
/// `quiver_storage::RedoRecord::encode` wrote them (length prefix included).
///
/// One commit per entry today; a group-commit batch may later travel as several records back to
/// back, which is why the bytes are a sequence the applier walks rather than one record.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Redo(pub Vec<u8>);

impl fmt::Debug for Redo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redo({} bytes)", self.0.len())
    }
}

impl fmt::Display for Redo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "redo of {} bytes", self.0.len())
    }
}

/// Redo bytes travel inside JSON RPC messages as one base64 string, not as an array of numbers
/// (a quarter more bytes instead of about four times as many).
impl Serialize for Redo {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(&self.0))
    }
}

impl<'de> Deserialize<'de> for Redo {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Redo, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map(Redo)
            .map_err(serde::de::Error::custom)
    }
}

/// What applying an entry answers: the commit number its record carries (0 for entries with no
/// record: blanks and membership changes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    pub commit: u64,
}

openraft::declare_raft_types!(
    /// Quiver's Raft types: u64 ids and terms, [`Node`] addresses, [`Redo`] payloads.
    pub TypeConfig:
        D = Redo,
        R = Applied,
        NodeId = NodeId,
        Node = Node,
);

pub type LeaderId = openraft::impls::leader_id_adv::LeaderId<u64, NodeId>;
pub type LogId = openraft::LogId<LeaderId>;
pub type Payload = openraft::EntryPayload<Redo, NodeId, Node>;
pub type Entry = openraft::Entry<LeaderId, Payload>;
pub type Vote = openraft::impls::Vote<LeaderId>;
pub type Membership = openraft::Membership<NodeId, Node>;
pub type StoredMembership = openraft::StoredMembership<LeaderId, NodeId, Node>;
pub type SnapshotMeta = openraft::storage::SnapshotMeta<LeaderId, NodeId, Node>;
pub type Raft = openraft::Raft<TypeConfig, crate::state_machine::StateMachine>;
