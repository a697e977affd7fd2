//! The log store and state machine pass openraft's storage conformance suite: the same checks
//! openraft holds every storage implementation to (vote, log reads, truncation, purge, applied
//! state, membership, snapshot build and transfer).

use openraft::StorageError;
use openraft::testing::log::{StoreBuilder, Suite};
use quiver_cluster::log_store::LogStore;
use quiver_cluster::{StateMachine, StorageApplier, TypeConfig};
use tempfile::TempDir;

struct Builder;

impl StoreBuilder<TypeConfig, LogStore, StateMachine, TempDir> for Builder {
    async fn build(&self) -> Result<(TempDir, LogStore, StateMachine), StorageError<TypeConfig>> {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = LogStore::open(dir.path().join("raft"), 4096).expect("log store");
        let sm = StateMachine::open(
            1,
            dir.path().join("snapshots"),
            StorageApplier::new(),
            log.clone(),
        )
        .expect("state machine");
        Ok((dir, log, sm))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_passes_openraft_suite() -> Result<(), StorageError<TypeConfig>> {
    Suite::test_all(Builder).await?;
    Ok(())
}
