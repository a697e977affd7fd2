//! Quiver's replication core: the commit log, replicated with Raft (openraft).
//!
//! Each commit's redo record is one Raft entry, and in cluster mode the Raft log takes the
//! single-node commit log's place: a record is fsynced once, in the Raft log, and a commit is
//! acknowledged once a majority stored it. The pieces:
//!
//! - [`types`]: the type configuration: `u64` ids, a [`Node`] with the member's Raft, Bolt and
//!   HTTP addresses, [`Redo`] payloads (redo record bytes).
//! - [`log_store`]: the on-disk log (segments framed like the commit log, vote and committed id
//!   fsynced before they are acknowledged, group commit, torn tail cut on open).
//! - [`state_machine`]: committed entries applied to the store through the [`Applier`] trait;
//!   Raft snapshots are Quiver snapshots.
//! - [`network`]: RPCs over TCP, with a partition switch for tests; [`transport`]: mutual TLS
//!   between members, whose certificates name their member ids, and the numbered frames.
//! - [`Cluster`]: start a member, write, read its status, transfer leadership, shut down.
//! - [`members`]: add and remove members of a running cluster, on the leader, one at a time.
//! - [`replicated`]: the store's commit log as the Raft log ([`ReplicatedLog`]): commits
//!   proposed in order, acknowledged once a majority holds them, refused where this member
//!   does not lead; [`member`]: a running [`Member`], its log and its store handle. The crate
//!   knows no database: the server opens the engine's over the member's store and log.
//!
//! # Leader and follower apply differently
//!
//! On a follower, applying an entry replays its redo record into the store
//! (`Storage::apply_redo`) and then publishes it: the visible watermark, which readers start
//! at, moves to that commit. On the leader the transaction that produced the record already
//! changed the store in memory at its commit (that is how it got a commit number), so the state
//! machine must not apply it a second time; it only publishes it. The state machine tells the
//! two apart by the commit number: a record at or below the store's newest commit, in an entry
//! this member proposed, is already held. Readers on every member read at the published
//! (applied) commit, so none sees a write a majority has not stored.
//!
//! # A deposed leader's tail
//!
//! A leader may commit transactions in memory whose entries never reach a majority: it is cut
//! off, another member is elected, and the new leader's log overwrites those entries. Raft
//! truncates them from the old leader's log, but its store still holds their changes in memory,
//! beyond the applied commit. The rule here is the simplest correct one: when a member learns
//! that its tail is gone, it rebuilds its store from its newest snapshot and its log up to the
//! applied entry ([`state_machine::StateMachine::rebuild`]), then goes on applying. It learns
//! it two ways:
//!
//! - the log store reports a truncation, and the store holds commits past the applied one;
//! - an entry proposed by another member carries a commit number the store already holds (the
//!   tail never reached the log at all, say because the write was refused before it was
//!   appended).
//!
//! A member's store is [`StorageApplier`]'s own `Storage`, which the database reaches through
//! it; the replicated log refuses writes on a leader until its first entry of the term is
//! applied (so a tail is discarded before new transactions build on it).
//!
//! # Snapshots
//!
//! A snapshot is written from the store's published state by `quiver_durability`'s snapshot
//! writer, with Raft's meta (last applied log id, membership) beside it. The state machine
//! writes it before handing openraft the builder, so the snapshot and its meta agree; applying
//! waits meanwhile. It is streamed to a lagging or new member in chunks, and installing it
//! replaces the store's contents.
//!
//! # Limits, for now
//!
//! - The log holds every entry since the last purge in memory as well as on disk; the snapshot
//!   policy ([`ClusterConfig::snapshot_every_entries`]) bounds it.
//! - RPCs are JSON with redo bytes as base64. Without cluster TLS the Raft listener
//!   authenticates nobody (a request's sender must be a member, but anyone may claim to be
//!   one): plain members belong on loopback or a private network.
//! - A snapshot's schema is read when it is written, not as of its commit (see
//!   `quiver_durability`'s snapshot format): a leader holding an unreplicated schema change in
//!   memory could put it in a snapshot before the change is applied.

pub mod cluster;
mod committed;
pub mod error;
pub mod log_store;
pub mod member;
pub mod members;
pub mod network;
pub mod replicated;
pub mod state_machine;
pub mod transport;
pub mod types;

pub use cluster::{Cluster, ClusterConfig, Role, Status, Written};
pub use error::{ClusterError, RecordError};
pub use member::Member;
pub use members::MemberChanges;
pub use network::{NetworkSwitch, Refusal};
pub use openraft;
pub use replicated::ReplicatedLog;
pub use state_machine::{Applier, ApplyError, StateMachine, StorageApplier};
pub use transport::{PeerTls, PeerTlsError, member_name};
pub use types::{Node, NodeId, Raft, Redo, TypeConfig};
