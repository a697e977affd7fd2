//! Quiver durability: commit log, snapshots and recovery.
