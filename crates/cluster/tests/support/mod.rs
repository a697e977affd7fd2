//! What the cluster's integration tests share: members bound on loopback, and commits made the
//! way the engine's commit path makes them, so that their redo records can be replicated.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use quiver_cluster::{Cluster, Node, NodeId};
use quiver_storage::{CommitLog, DurabilityTicket, RedoRecord, Storage};
use quiver_value::Value;
use tokio::net::TcpListener;

/// How long any one condition may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);

/// Keeps the redo record a commit hands to its log, as the engine's commit path will.
#[derive(Default)]
struct Capture(Mutex<Option<Vec<u8>>>);

impl CommitLog for Capture {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, quiver_storage::AppendError> {
        *self.0.lock() = Some(record.encode());
        Ok(DurabilityTicket(record.commit))
    }
}

/// Commits one `:Item {name}` node in memory on `storage` and returns its redo record.
pub fn commit_item(storage: &Arc<Storage>, name: &str) -> Vec<u8> {
    let capture = Arc::new(Capture::default());
    storage.set_commit_log(Some(capture.clone()));
    let label = storage.get_or_create_label("Item").unwrap();
    let key = storage.get_or_create_property_key("name").unwrap();
    let tx = storage.begin_write();
    tx.create_node(&[label], &[(key, Value::from(name))])
        .unwrap();
    tx.commit().unwrap();
    storage.set_commit_log(None);
    let bytes = capture.0.lock().take();
    bytes.expect("the commit handed its record to the log")
}

/// The store's published state, as its export's ops.
pub fn dump(member: &Cluster) -> Vec<String> {
    let storage = member.store().unwrap().storage();
    let tx = storage.begin_read();
    tx.export()
        .unwrap()
        .map(|op| format!("{:?}", op.unwrap()))
        .collect()
}

/// Members `1..=n`, each a Raft listener bound on 127.0.0.1 and the node naming its address.
pub async fn bind_members(n: u64) -> (BTreeMap<NodeId, TcpListener>, BTreeMap<NodeId, Node>) {
    let mut listeners = BTreeMap::new();
    let mut nodes = BTreeMap::new();
    for id in 1..=n {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap().to_string();
        nodes.insert(id, Node::new(addr, "127.0.0.1:0", "127.0.0.1:0"));
        listeners.insert(id, l);
    }
    (listeners, nodes)
}
