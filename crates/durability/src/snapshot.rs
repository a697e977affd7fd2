//! Snapshot files: the whole graph as of one MVCC snapshot, written while writers go on.
//!
//! ```text
//! snapshot-<commit, 20 digits>.qsnap   (written as .qsnap.tmp, renamed once synced)
//! offset  size  field
//! 0       8     magic "QUIVSNAP"
//! 8       4     format version, u32 LE (2; 1 is still read)
//! 12      4     reserved, zero
//! 16      8     commit: the MVCC snapshot the file holds, u64 LE
//! 24      8     created, Unix milliseconds, u64 LE
//! 32      4     reserved, zero
//! 36      4     CRC32C of bytes 0..36, u32 LE
//! 40      ...   blocks, then one trailer
//!
//! block
//! 0       1     kind: 2 trailer, 3 schema, 4 nodes, 5 relationships (format 1: 1 ops)
//! 1       4     payload length n, u32 LE
//! 5       4     CRC32C of the kind byte and the payload, u32 LE
//! 9       n     payload
//!   schema, nodes, relationships: a redo record stamped with the snapshot's commit holding
//!             creations of that kind only. The blocks of a kind form its section, and the
//!             sections follow one another: schema, nodes, relationships. Within a section
//!             blocks come in any order (each names its ids), which is what lets several
//!             threads write one section and several load it.
//!   ops:      (format 1) the same records with creations of any kind, schema first, then
//!             nodes, then relationships, as `Transaction::export` yields them
//!   trailer:  ops, nodes, relationships, blocks, schema bound: five u64 LE
//! ```
//!
//! The trailer's counts prove the file complete; nothing may follow it. The schema bound is
//! the newest commit whose schema change the file may reflect: the export reads the current
//! schema rather than the snapshot's, so a schema record up to that bound may find its
//! change already applied at replay, and recovery accepts that (and only that).
//!
//! A file is loaded into an empty store through the storage bulk path (one committed version
//! per entity, one commit published at the end): one thread reads and checks blocks, and a
//! pool of threads decodes and loads the blocks of each section.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use quiver_storage::{
    BulkLoad, BulkSection, LabelId, NamesRef, NodeId, PropKeyId, PropsRef, RECORD_BYTES_MAX,
    RawValue, RedoOp, RedoOpRef, RedoRecord, RedoRecordRef, RedoSink, RelId, SchemaIndexRef,
    Storage, Transaction,
};

use crate::disk::{Disk, DiskFile};
use crate::error::{Error, Result};
use crate::frame::{TEMP_SUFFIX, snapshot_name, u32_at, u64_at};

pub const SNAPSHOT_MAGIC: [u8; 8] = *b"QUIVSNAP";
pub const SNAPSHOT_VERSION: u32 = 2;
/// The first format: one kind of block, loaded by one thread. Still read, so data
/// directories written before format 2 open as they are.
const SNAPSHOT_VERSION_1: u32 = 1;
const HEADER_BYTES: usize = 40;
const BLOCK_HEADER_BYTES: usize = 9;
const KIND_OPS: u8 = 1;
const KIND_TRAILER: u8 = 2;
const KIND_SCHEMA: u8 = 3;
const KIND_NODES: u8 = 4;
const KIND_RELS: u8 = 5;
const TRAILER_BYTES: usize = 40;
// The diagram above, checked by the compiler.
const _: () = assert!(SNAPSHOT_MAGIC.len() + 4 + 4 + 8 + 8 + 4 + 4 == HEADER_BYTES);
const _: () = assert!(1 + 4 + 4 == BLOCK_HEADER_BYTES);
const _: () = assert!(5 * 8 == TRAILER_BYTES);
// Sections follow one another in the order of their kinds.
const _: () = assert!(KIND_SCHEMA < KIND_NODES && KIND_NODES < KIND_RELS);
/// Encoded bytes gathered before one write to the file.
const WRITE_BYTES: usize = 1 << 20;
/// A block's encoded ops beyond this close the block even below the op count limit.
const BLOCK_BYTES_TARGET: usize = 1 << 20;
/// Most threads writing or loading one section: past this the disk, not the encoding, is
/// the limit.
const SECTION_THREADS_MAX: usize = 8;

/// What a written snapshot holds.
#[derive(Clone, Debug)]
pub struct SnapshotInfo {
    pub commit: u64,
    pub path: PathBuf,
    pub bytes: u64,
    pub ops: u64,
    pub nodes: u64,
    pub relationships: u64,
    pub duration: Duration,
}

fn put_block(out: &mut Vec<u8>, kind: u8, payload: &[u8]) {
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    let crc = crc32c::crc32c_append(crc32c::crc32c(&[kind]), payload);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(payload);
}

fn header(commit: u64, version: u32) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_BYTES);
    h.extend_from_slice(&SNAPSHOT_MAGIC);
    h.extend_from_slice(&version.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    h.extend_from_slice(&commit.to_le_bytes());
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    h.extend_from_slice(&now.to_le_bytes());
    h.extend_from_slice(&0u32.to_le_bytes());
    let crc = crc32c::crc32c(&h);
    h.extend_from_slice(&crc.to_le_bytes());
    h
}

/// The file being written, shared by the threads writing a section: each hands it whole
/// blocks, about a mebibyte at a time.
struct Sink {
    file: Box<dyn DiskFile>,
    bytes: u64,
}

impl Sink {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.file.write_all(bytes)?;
        self.bytes += bytes.len() as u64;
        Ok(())
    }
}

fn lock_sink(sink: &Mutex<Sink>) -> std::sync::MutexGuard<'_, Sink> {
    // A writer that panicked leaves whole blocks behind: the file is still well formed,
    // and the snapshot fails on the panic anyway.
    sink.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What one writer put in the file.
#[derive(Default, Clone, Copy)]
struct Counts {
    ops: u64,
    nodes: u64,
    relationships: u64,
    blocks: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.ops += other.ops;
        self.nodes += other.nodes;
        self.relationships += other.relationships;
        self.blocks += other.blocks;
    }

    fn count(&mut self, op: &RedoOp) {
        self.ops += 1;
        match op {
            RedoOp::CreateNode { .. } => self.nodes += 1,
            RedoOp::CreateRelationship { .. } => self.relationships += 1,
            _ => {}
        }
    }

    fn count_ref(&mut self, op: &RedoOpRef<'_>) {
        self.ops += 1;
        match op {
            RedoOpRef::CreateNode { .. } => self.nodes += 1,
            RedoOpRef::CreateRelationship { .. } => self.relationships += 1,
            _ => {}
        }
    }
}

/// Gathers one writer's ops into blocks of one kind and hands them to the file.
struct BlockWriter<'s> {
    sink: &'s Mutex<Sink>,
    kind: u8,
    commit: u64,
    block_ops_max: usize,
    out: Vec<u8>,
    block: Vec<RedoOp>,
    block_bytes: usize,
    counts: Counts,
}

impl<'s> BlockWriter<'s> {
    fn new(sink: &'s Mutex<Sink>, kind: u8, commit: u64, block_ops_max: usize) -> Self {
        BlockWriter {
            sink,
            kind,
            commit,
            block_ops_max,
            out: Vec::new(),
            block: Vec::new(),
            block_bytes: 0,
            counts: Counts::default(),
        }
    }

    fn push(&mut self, op: RedoOp) -> std::io::Result<()> {
        self.block_bytes += match &op {
            RedoOp::CreateNode { props, .. } => 32 + props.len() * 16,
            RedoOp::CreateRelationship { props, .. } => 48 + props.len() * 16,
            _ => 64,
        };
        self.counts.count(&op);
        self.block.push(op);
        if self.block.len() >= self.block_ops_max || self.block_bytes >= BLOCK_BYTES_TARGET {
            self.end_block()?;
        }
        Ok(())
    }

    fn end_block(&mut self) -> std::io::Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let record = RedoRecord {
            commit: self.commit,
            ops: std::mem::take(&mut self.block),
        };
        put_block(&mut self.out, self.kind, &record.encode());
        self.counts.blocks += 1;
        self.block_bytes = 0;
        if self.out.len() >= WRITE_BYTES {
            self.drain()?;
        }
        Ok(())
    }

    fn drain(&mut self) -> std::io::Result<()> {
        if !self.out.is_empty() {
            lock_sink(self.sink).write(&self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// Writes what is left; returns what this writer wrote.
    fn finish(mut self) -> std::io::Result<Counts> {
        self.end_block()?;
        self.drain()?;
        Ok(self.counts)
    }
}

/// How many threads write or load one section.
fn section_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, SECTION_THREADS_MAX)
}

/// Splits ids `0..end` into `parts` ranges.
fn id_ranges(end: u64, parts: usize) -> Vec<std::ops::Range<u64>> {
    let parts = parts.max(1) as u64;
    let step = end.div_ceil(parts).max(1);
    (0..parts)
        .map(|i| (i * step).min(end)..((i + 1) * step).min(end))
        .filter(|r| !r.is_empty())
        .collect()
}

/// Writes one section: the entities of one kind, its id space split among `threads`.
fn write_section(
    tx: &Transaction,
    sink: &Mutex<Sink>,
    kind: u8,
    end: u64,
    threads: usize,
    commit: u64,
    block_ops_max: usize,
) -> Result<Counts> {
    let results: Vec<Result<Counts>> = std::thread::scope(|scope| {
        let handles: Vec<_> = id_ranges(end, threads)
            .into_iter()
            .map(|range| {
                scope.spawn(move || -> Result<Counts> {
                    let cursor = if kind == KIND_NODES {
                        tx.export_nodes(range)
                    } else {
                        tx.export_relationships(range)
                    }
                    .map_err(Error::Export)?;
                    let mut w = BlockWriter::new(sink, kind, commit, block_ops_max);
                    for op in cursor {
                        w.push(op.map_err(Error::Export)?)
                            .map_err(|e| Error::io("snapshot", e))?;
                    }
                    w.finish().map_err(|e| Error::io("snapshot", e))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Export(snapshot_writer_panicked())))
            })
            .collect()
    });
    let mut counts = Counts::default();
    for r in results {
        counts.add(r?);
    }
    Ok(counts)
}

fn snapshot_writer_panicked() -> quiver_storage::Error {
    quiver_storage::Error::Replay("a snapshot writer thread panicked".to_string())
}

/// The schema as creation ops, and the users, roles and privileges (one op holding them
/// all, when there are any): the catalogue is part of the schema section, which loads before
/// the data.
fn schema_ops(storage: &Storage) -> Vec<RedoOp> {
    let security = storage.security();
    let catalogue =
        (*security != quiver_storage::Security::default()).then_some(RedoOp::Security {
            catalogue: security,
        });
    let fulltext = storage
        .fulltext_indexes()
        .into_iter()
        .map(|info| RedoOp::CreateFulltextIndex(info.spec));
    storage
        .index_schema_ops()
        .into_iter()
        .chain(catalogue)
        .chain(
            storage
                .vector_indexes()
                .into_iter()
                .map(|info| RedoOp::CreateVectorIndex {
                    name: info.name,
                    relationship: info.relationship,
                    token: info.token,
                    key: info.key,
                    config: info.config,
                    with_properties: info.with_properties,
                }),
        )
        .chain(fulltext)
        .chain(storage.property_constraint_ops())
        .collect()
}

/// Writes a snapshot of `storage` as of a fresh read snapshot, unless that is `skip_commit`
/// (nothing changed since the last) or 0 (nothing ever committed). The node and relationship
/// sections are each written by several threads, every one exporting its own id range.
///
/// `make_durable(c)` must return once commit `c` is durable in the log: it runs before the
/// rename, so a snapshot never publishes a state the log could still lose.
pub fn write(
    disk: &dyn Disk,
    dir: &Path,
    storage: &Arc<Storage>,
    skip_commit: u64,
    block_ops_max: usize,
    make_durable: impl FnOnce(u64) -> Result<()>,
) -> Result<Option<SnapshotInfo>> {
    write_format(
        disk,
        dir,
        storage,
        skip_commit,
        block_ops_max,
        SNAPSHOT_VERSION,
        make_durable,
    )
}

fn write_format(
    disk: &dyn Disk,
    dir: &Path,
    storage: &Arc<Storage>,
    skip_commit: u64,
    block_ops_max: usize,
    version: u32,
    make_durable: impl FnOnce(u64) -> Result<()>,
) -> Result<Option<SnapshotInfo>> {
    let started = Instant::now();
    let tx = storage.begin_read();
    let commit = tx.snapshot();
    if commit == 0 || commit == skip_commit {
        return Ok(None);
    }
    let path = dir.join(snapshot_name(commit));
    let tmp = dir.join(format!("{}{TEMP_SUFFIX}", snapshot_name(commit)));
    let result = (|| {
        let file = disk.create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let sink = Mutex::new(Sink { file, bytes: 0 });
        let io = |e| Error::io(&tmp, e);
        lock_sink(&sink)
            .write(&header(commit, version))
            .map_err(io)?;
        // Any schema change read here was published by a commit numbered at most one past
        // the last finished commit.
        let schema = schema_ops(storage);
        let schema_bound = storage.last_committed() + 1;
        let (node_end, rel_end) = tx.id_bounds();
        let mut counts = Counts::default();
        if version == SNAPSHOT_VERSION_1 {
            let mut w = BlockWriter::new(&sink, KIND_OPS, commit, block_ops_max);
            let ops = schema.into_iter().map(Ok).chain(
                tx.export_nodes(0..node_end)
                    .map_err(Error::Export)?
                    .chain(tx.export_relationships(0..rel_end).map_err(Error::Export)?)
                    .map(|op| op.map_err(Error::Export)),
            );
            for op in ops {
                w.push(op?).map_err(io)?;
            }
            counts.add(w.finish().map_err(io)?);
        } else {
            let mut w = BlockWriter::new(&sink, KIND_SCHEMA, commit, block_ops_max);
            for op in schema {
                w.push(op).map_err(io)?;
            }
            counts.add(w.finish().map_err(io)?);
            let threads = section_threads();
            for (kind, end) in [(KIND_NODES, node_end), (KIND_RELS, rel_end)] {
                let section = write_section(&tx, &sink, kind, end, threads, commit, block_ops_max);
                // A thread's I/O error names the snapshot generically: name the file.
                counts.add(section.map_err(|e| match e {
                    Error::Io { source, .. } => Error::io(&tmp, source),
                    e => e,
                })?);
            }
        }
        let mut t = Vec::with_capacity(TRAILER_BYTES);
        for v in [
            counts.ops,
            counts.nodes,
            counts.relationships,
            counts.blocks,
            schema_bound,
        ] {
            t.extend_from_slice(&v.to_le_bytes());
        }
        let mut trailer = Vec::new();
        put_block(&mut trailer, KIND_TRAILER, &t);
        let mut sink = sink
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        sink.write(&trailer).map_err(io)?;
        sink.file.sync_all().map_err(io)?;
        make_durable(storage.last_committed().max(commit))?;
        disk.rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        disk.sync_dir(dir).map_err(|e| Error::io(dir, e))?;
        Ok(SnapshotInfo {
            commit,
            path: path.clone(),
            bytes: sink.bytes,
            ops: counts.ops,
            nodes: counts.nodes,
            relationships: counts.relationships,
            duration: started.elapsed(),
        })
    })();
    drop(tx);
    if result.is_err() {
        let _ = disk.remove(&tmp);
    }
    result.map(Some)
}

/// What loading a snapshot found.
#[derive(Clone, Debug, Default)]
pub struct Loaded {
    pub commit: u64,
    pub ops: u64,
    pub schema_bound: u64,
    /// The file's size.
    pub bytes: u64,
    pub nodes: u64,
    pub relationships: u64,
}

/// Whether an op changes the schema (see [`RedoOp::is_schema`]).
pub fn is_schema(op: &RedoOp) -> bool {
    op.is_schema()
}

/// How often a long load reports its progress in the log.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

/// Mebibytes, for log lines.
pub(crate) fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

/// Where a loaded op goes: the load itself (schema, format 1) or one thread's section. Ops
/// arrive decoded in place: the loader resolves their names and copies their values as they
/// are encoded.
trait Loader {
    fn create_index(
        &mut self,
        label: LabelId,
        key: PropKeyId,
        name: &str,
        unique: bool,
    ) -> quiver_storage::Result<()>;
    fn node(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()>;
    fn relationship(
        &mut self,
        id: RelId,
        ends: (NodeId, NodeId),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()>;
    /// Only the schema section's loader takes schema rules.
    fn schema_index(
        &mut self,
        _spec: quiver_storage::IndexSpec,
        _name: &str,
    ) -> quiver_storage::Result<()> {
        Err(quiver_storage::Error::Replay(
            "a schema rule outside the schema section".to_string(),
        ))
    }
    /// Only the schema section's loader takes vector indexes.
    fn vector_index(
        &mut self,
        _name: &str,
        _relationship: bool,
        _token_and_key: (&str, &str),
        _with_properties: &[&str],
        _config: quiver_storage::VectorConfig,
    ) -> quiver_storage::Result<()> {
        Err(quiver_storage::Error::Replay(
            "a creation outside its section".to_string(),
        ))
    }
}

impl Loader for BulkLoad<'_> {
    fn schema_index(
        &mut self,
        spec: quiver_storage::IndexSpec,
        name: &str,
    ) -> quiver_storage::Result<()> {
        self.create_schema_index(spec, Some(name))
    }

    fn vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        token_and_key: (&str, &str),
        with_properties: &[&str],
        config: quiver_storage::VectorConfig,
    ) -> quiver_storage::Result<()> {
        self.create_vector_index(name, relationship, token_and_key, with_properties, config)
    }

    fn create_index(
        &mut self,
        label: LabelId,
        key: PropKeyId,
        name: &str,
        unique: bool,
    ) -> quiver_storage::Result<()> {
        if unique {
            self.create_unique_constraint(label, key, Some(name))
        } else {
            BulkLoad::create_index(self, label, key, Some(name))
        }
    }

    fn node(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.node_from_redo(id, labels, props)
    }

    fn relationship(
        &mut self,
        id: RelId,
        (start, end): (NodeId, NodeId),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.relationship_from_redo(id, start, end, rel_type, props)
    }
}

impl Loader for BulkSection<'_, '_> {
    fn create_index(
        &mut self,
        _label: LabelId,
        _key: PropKeyId,
        _name: &str,
        _unique: bool,
    ) -> quiver_storage::Result<()> {
        Err(quiver_storage::Error::Replay(
            "a schema rule outside the schema section".to_string(),
        ))
    }

    fn node(
        &mut self,
        id: NodeId,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.node_from_redo(id, labels, props)
    }

    fn relationship(
        &mut self,
        id: RelId,
        (start, end): (NodeId, NodeId),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.relationship_from_redo(id, start, end, rel_type, props)
    }
}

/// One decoded block as a redo sink. A snapshot holds creations only; in format 2 a block
/// holds the creations of its section's kind only.
struct Block<'l, L> {
    loader: &'l mut L,
    storage: &'l Storage,
    kind: u8,
}

impl<L: Loader> Block<'_, L> {
    /// Refuses a creation outside `section` (format 1's one kind of block holds them all).
    fn holds(&self, section: u8) -> quiver_storage::Result<()> {
        if self.kind == KIND_OPS || self.kind == section {
            Ok(())
        } else {
            Err(quiver_storage::Error::Replay(
                "a creation outside its section".to_string(),
            ))
        }
    }
}

fn creations_only() -> quiver_storage::Result<()> {
    Err(quiver_storage::Error::Replay(
        "a snapshot holds creations only".to_string(),
    ))
}

impl<L: Loader> RedoSink for Block<'_, L> {
    fn create_node(
        &mut self,
        id: u64,
        labels: NamesRef<'_>,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_NODES)?;
        self.loader.node(NodeId(id), labels, props)
    }

    fn delete_node(&mut self, _: u64) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn set_node_property(
        &mut self,
        _: u64,
        _: &str,
        _: Option<RawValue<'_>>,
    ) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn set_label(&mut self, _: u64, _: &str, _: bool) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn create_relationship(
        &mut self,
        id: u64,
        (start, end): (u64, u64),
        rel_type: &str,
        props: PropsRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_RELS)?;
        let ends = (NodeId(start), NodeId(end));
        self.loader.relationship(RelId(id), ends, rel_type, props)
    }

    fn delete_relationship(&mut self, _: u64) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn set_relationship_property(
        &mut self,
        _: u64,
        _: &str,
        _: Option<RawValue<'_>>,
    ) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn create_index(
        &mut self,
        name: &str,
        label: &str,
        key: &str,
        unique: bool,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        let label = self.storage.get_or_create_label(label)?;
        let key = self.storage.get_or_create_property_key(key)?;
        self.loader.create_index(label, key, name, unique)
    }

    fn create_schema_index(
        &mut self,
        name: &str,
        index: SchemaIndexRef<'_>,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        self.loader.schema_index(index.resolve(self.storage)?, name)
    }

    fn create_vector_index(
        &mut self,
        name: &str,
        relationship: bool,
        token_and_key: (&str, &str),
        with_properties: &[&str],
        config: quiver_storage::VectorConfig,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        self.loader
            .vector_index(name, relationship, token_and_key, with_properties, config)
    }

    fn create_fulltext_index(
        &mut self,
        spec: quiver_storage::FulltextSpec,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        self.storage.define_fulltext_unobserved(spec)
    }

    fn create_property_constraint(
        &mut self,
        spec: quiver_storage::PropertyConstraintSpec,
    ) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        self.storage.define_property_constraint_unobserved(spec)
    }

    fn drop_index(&mut self, _: &str) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn drop_constraint(&mut self, _: &str) -> quiver_storage::Result<()> {
        creations_only()
    }

    fn security(&mut self, catalogue: quiver_storage::Security) -> quiver_storage::Result<()> {
        self.holds(KIND_SCHEMA)?;
        self.storage.load_security(catalogue);
        Ok(())
    }

    fn commit_time(&mut self, _: i64) -> quiver_storage::Result<()> {
        Err(quiver_storage::Error::Replay(
            "a snapshot's blocks carry no commit time".to_string(),
        ))
    }
}

struct Source<'a> {
    r: Box<dyn Read + Send>,
    path: &'a Path,
    offset: u64,
}

impl Source<'_> {
    /// Reads exactly `len` bytes into `buf`, growing it as the data arrives rather than up
    /// front: a corrupt length then fails at the end of the file instead of allocating
    /// whatever the length claims.
    fn read_exact_growing(&mut self, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        buf.clear();
        let got = (&mut self.r)
            .take(len as u64)
            .read_to_end(buf)
            .map_err(|e| Error::io(self.path, e))?;
        self.offset += got as u64;
        if got < len {
            return Err(Error::corrupt(
                self.path,
                self.offset,
                "snapshot is truncated",
            ));
        }
        Ok(())
    }

    /// Fills `buf` completely; `Ok(false)` at a clean end of file before the first byte.
    fn fill(&mut self, buf: &mut [u8]) -> Result<bool> {
        let mut got = 0;
        while got < buf.len() {
            match self.r.read(&mut buf[got..]) {
                Ok(0) if got == 0 => return Ok(false),
                Ok(0) => {
                    return Err(Error::corrupt(
                        self.path,
                        self.offset,
                        "snapshot is truncated",
                    ));
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(self.path, e)),
            }
        }
        self.offset += buf.len() as u64;
        Ok(true)
    }
}

/// One block as read and checked, not yet decoded.
struct RawBlock {
    kind: u8,
    /// Offsets of the block and of the byte after it.
    at: u64,
    end: u64,
    payload: Vec<u8>,
}

/// Blocks in flight between the reading thread and the loading ones: enough to keep them
/// busy, few enough (a block is about 1 MiB) to bound the memory they take.
const BLOCKS_IN_FLIGHT: usize = 4;

/// Reads and checks (length, checksum) the blocks after the header, sending each to `out`,
/// the trailer last; stops at the first error (sent too) or when the receiver is gone.
fn read_blocks(mut src: Source<'_>, out: &SyncSender<Result<RawBlock>>) {
    let path = src.path;
    let corrupt = |offset: u64, reason: &str| Error::corrupt(path, offset, reason);
    let result = (|| -> Result<Option<RawBlock>> {
        loop {
            let at = src.offset;
            let mut bh = [0u8; BLOCK_HEADER_BYTES];
            if !src.fill(&mut bh)? {
                return Err(corrupt(at, "snapshot is incomplete: no trailer"));
            }
            let kind = bh[0];
            let len = u32_at(&bh, 1).unwrap_or_default() as usize;
            let crc = u32_at(&bh, 5).unwrap_or_default();
            if len > RECORD_BYTES_MAX {
                return Err(corrupt(at, "block length out of range"));
            }
            let mut payload = Vec::new();
            src.read_exact_growing(len, &mut payload)?;
            if crc32c::crc32c_append(crc32c::crc32c(&[kind]), &payload) != crc {
                return Err(corrupt(at, "block checksum mismatch"));
            }
            let block = RawBlock {
                kind,
                at,
                end: src.offset,
                payload,
            };
            if kind == KIND_TRAILER {
                let mut extra = [0u8; 1];
                if src.fill(&mut extra)? {
                    return Err(corrupt(src.offset - 1, "bytes after the trailer"));
                }
                return Ok(Some(block));
            }
            if out.send(Ok(block)).is_err() {
                return Ok(None);
            }
        }
    })();
    let _ = match result {
        Ok(Some(trailer)) => out.send(Ok(trailer)),
        Ok(None) => Ok(()),
        Err(e) => out.send(Err(e)),
    };
}

/// A load in progress: the file, the store, and what the blocks held so far.
struct Loading<'a> {
    path: &'a Path,
    storage: &'a Storage,
    commit: u64,
    /// Only the thread dispatching blocks receives; the lock makes the whole shareable with
    /// the loading threads.
    blocks: Mutex<Receiver<Result<RawBlock>>>,
    file_bytes: u64,
    started: Instant,
    ops: AtomicU64,
    nodes: AtomicU64,
    relationships: AtomicU64,
    blocks_loaded: AtomicU64,
    /// Bytes of the file loaded, and when progress was last logged.
    progress: Mutex<(u64, Instant)>,
}

impl Loading<'_> {
    fn corrupt(&self, offset: u64, reason: &str) -> Error {
        Error::corrupt(self.path, offset, reason)
    }

    fn replay(&self, offset: u64, source: quiver_storage::Error) -> Error {
        Error::Replay {
            path: self.path.to_path_buf(),
            offset,
            commit: self.commit,
            source,
        }
    }

    fn next(&self) -> Result<RawBlock> {
        self.blocks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv()
            .map_err(|_| self.corrupt(0, "snapshot reading stopped before the trailer"))?
    }

    /// Decodes a block of this snapshot and loads it.
    fn load_block(&self, loader: &mut impl Loader, block: RawBlock) -> Result<()> {
        let (record, used) = RedoRecordRef::decode(&block.payload)
            .map_err(|e| self.corrupt(block.at, &format!("undecodable block: {e}")))?;
        if used != block.payload.len() || record.commit != self.commit {
            return Err(self.corrupt(block.at, "block does not belong to this snapshot"));
        }
        let mut counts = Counts::default();
        for op in &record.ops {
            counts.count_ref(op);
        }
        let mut sink = Block {
            loader,
            storage: self.storage,
            kind: block.kind,
        };
        for op in &record.ops {
            op.apply_to(&mut sink)
                .map_err(|e| self.replay(block.at, e))?;
        }
        self.ops.fetch_add(counts.ops, Ordering::Relaxed);
        self.nodes.fetch_add(counts.nodes, Ordering::Relaxed);
        self.relationships
            .fetch_add(counts.relationships, Ordering::Relaxed);
        self.blocks_loaded.fetch_add(1, Ordering::Relaxed);
        self.report(block.end - block.at);
        Ok(())
    }

    /// Logs progress every [`PROGRESS_INTERVAL`].
    fn report(&self, bytes: u64) {
        let mut p = self
            .progress
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        p.0 += bytes;
        if p.1.elapsed() < PROGRESS_INTERVAL {
            return;
        }
        p.1 = Instant::now();
        let secs = self.started.elapsed().as_secs_f64();
        tracing::info!(
            "snapshot load: {:.0} of {:.0} MiB ({:.0}%), {} nodes and {} relationships loaded, {:.1} MiB/s",
            mib(p.0),
            mib(self.file_bytes),
            100.0 * p.0 as f64 / self.file_bytes.max(1) as f64,
            self.nodes.load(Ordering::Relaxed),
            self.relationships.load(Ordering::Relaxed),
            mib(p.0) / secs.max(1e-9),
        );
    }

    /// Loads the blocks of one section on `threads` threads, each with its own section of
    /// the bulk load; returns the first block past the section.
    fn section(&self, load: &BulkLoad<'_>, first: RawBlock, threads: usize) -> Result<RawBlock> {
        let kind = first.kind;
        let (work, queue) = sync_channel::<RawBlock>(threads * 2);
        let queue = Mutex::new(queue);
        let failed: Mutex<Option<Error>> = Mutex::new(None);
        let stop = AtomicBool::new(false);
        let next = std::thread::scope(|scope| {
            for _ in 0..threads {
                let mut section = load.section();
                let (queue, failed, stop) = (&queue, &failed, &stop);
                scope.spawn(move || {
                    loop {
                        let block = match queue.lock() {
                            Ok(q) => q.recv(),
                            Err(_) => return,
                        };
                        let Ok(block) = block else { return };
                        // After a failure the others only drain the queue, so the
                        // dispatcher never waits on a full one.
                        if stop.load(Ordering::Acquire) {
                            continue;
                        }
                        if let Err(e) = self.load_block(&mut section, block) {
                            stop.store(true, Ordering::Release);
                            if let Ok(mut f) = failed.lock() {
                                f.get_or_insert(e);
                            }
                        }
                    }
                });
            }
            let mut block = first;
            let next = loop {
                if block.kind != kind {
                    break Ok(block);
                }
                // A failed block ends the load: its error is reported below.
                if stop.load(Ordering::Acquire) || work.send(block).is_err() {
                    break Err(self.corrupt(0, "snapshot loading stopped"));
                }
                block = match self.next() {
                    Ok(b) => b,
                    Err(e) => break Err(e),
                };
            };
            drop(work);
            next
        });
        if let Some(e) = failed
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Err(e);
        }
        next
    }

    /// Checks the trailer against what was loaded; returns the schema bound.
    fn trailer(&self, block: &RawBlock) -> Result<u64> {
        if block.kind != KIND_TRAILER {
            return Err(self.corrupt(block.at, "block out of its section's order"));
        }
        let field = |i: usize| u64_at(&block.payload, i * 8);
        let counts = (field(0), field(1), field(2), field(3));
        let loaded = (
            Some(self.ops.load(Ordering::Relaxed)),
            Some(self.nodes.load(Ordering::Relaxed)),
            Some(self.relationships.load(Ordering::Relaxed)),
            Some(self.blocks_loaded.load(Ordering::Relaxed)),
        );
        if block.payload.len() != TRAILER_BYTES || counts != loaded {
            return Err(self.corrupt(block.at, "trailer counts do not match the blocks"));
        }
        Ok(field(4).unwrap_or(self.commit))
    }
}

/// Reads and checks a snapshot, loading it into `storage`, which must be empty and unseen
/// (see `quiver_storage::BulkLoad`): every entity arrives as one committed version, and the
/// whole file becomes visible as its commit once the trailer has proved it complete. One
/// thread reads and checks blocks; in format 2 the blocks of the node and relationship
/// sections are decoded and loaded by several threads. On error the store holds part of the
/// snapshot and must be discarded.
pub fn load(disk: &dyn Disk, path: &Path, storage: &Arc<Storage>) -> Result<Loaded> {
    load_on(disk, path, storage, section_threads())
}

fn load_on(disk: &dyn Disk, path: &Path, storage: &Arc<Storage>, threads: usize) -> Result<Loaded> {
    let started = Instant::now();
    let r = disk.open_read(path).map_err(|e| Error::io(path, e))?;
    let file_bytes = disk.len(path).unwrap_or(0);
    let mut src = Source { r, path, offset: 0 };
    let corrupt = |offset: u64, reason: &str| Error::corrupt(path, offset, reason);
    let mut h = [0u8; HEADER_BYTES];
    if !src.fill(&mut h)? {
        return Err(corrupt(0, "snapshot is empty"));
    }
    if h[..8] != SNAPSHOT_MAGIC {
        return Err(corrupt(0, "not a Quiver snapshot (bad magic)"));
    }
    if u32_at(&h, 36) != Some(crc32c::crc32c(&h[..36])) {
        return Err(corrupt(0, "snapshot header checksum mismatch"));
    }
    let version = u32_at(&h, 8).unwrap_or_default();
    if version != SNAPSHOT_VERSION && version != SNAPSHOT_VERSION_1 {
        return Err(corrupt(8, "unsupported snapshot format version"));
    }
    let commit = u64_at(&h, 16).unwrap_or_default();
    if commit == 0 {
        return Err(corrupt(16, "snapshot of commit 0"));
    }
    let (sender, blocks) = sync_channel(BLOCKS_IN_FLIGHT);
    let loading = Loading {
        path,
        storage,
        commit,
        blocks: Mutex::new(blocks),
        file_bytes,
        started,
        ops: AtomicU64::new(0),
        nodes: AtomicU64::new(0),
        relationships: AtomicU64::new(0),
        blocks_loaded: AtomicU64::new(0),
        progress: Mutex::new((HEADER_BYTES as u64, Instant::now())),
    };
    let mut load = storage.bulk_load().map_err(|e| loading.replay(0, e))?;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("quiver-snapshot-read".into())
            .spawn_scoped(scope, move || read_blocks(src, &sender))
            .map_err(|e| Error::io(path, e))?;
        let result = load_blocks(&loading, &mut load, version, threads);
        // The reader may wait to hand over a block nobody will take (an error stopped the
        // load): without its receiver it stops, and the scope can end.
        let (_, closed) = sync_channel(0);
        drop(std::mem::replace(
            &mut *loading
                .blocks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            closed,
        ));
        let (block, schema_bound) = result?;
        let summary = load
            .finish(commit)
            .map_err(|e| loading.replay(block.at, e))?;
        Ok(Loaded {
            commit,
            ops: loading.ops.load(Ordering::Relaxed),
            schema_bound,
            bytes: file_bytes,
            nodes: summary.nodes,
            relationships: summary.relationships,
        })
    })
}

/// Loads every block up to the trailer; returns the trailer and the schema bound it names.
fn load_blocks(
    loading: &Loading<'_>,
    load: &mut BulkLoad<'_>,
    version: u32,
    threads: usize,
) -> Result<(RawBlock, u64)> {
    {
        let mut block = loading.next()?;
        if version == SNAPSHOT_VERSION_1 {
            while block.kind == KIND_OPS {
                loading.load_block(load, block)?;
                block = loading.next()?;
            }
        } else {
            while block.kind == KIND_SCHEMA {
                loading.load_block(load, block)?;
                block = loading.next()?;
            }
            for kind in [KIND_NODES, KIND_RELS] {
                if block.kind == kind {
                    block = loading.section(load, block, threads)?;
                }
            }
        }
        let schema_bound = loading.trailer(&block)?;
        Ok((block, schema_bound))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;
    use quiver_value::Value;

    fn sample_store() -> Arc<Storage> {
        let db = Storage::new();
        let l = db.get_or_create_label("L").unwrap();
        let k = db.get_or_create_property_key("k").unwrap();
        let r = db.get_or_create_rel_type("R").unwrap();
        let tx = db.begin_write();
        tx.create_index(l, k, Some("idx")).unwrap();
        tx.commit().unwrap();
        let tx = db.begin_write();
        let a = tx.create_node(&[l], &[(k, Value::Int(1))]).unwrap();
        let b = tx.create_node(&[l], &[(k, Value::from("two"))]).unwrap();
        tx.create_relationship(a, b, r, &[(k, Value::Float(0.5))])
            .unwrap();
        tx.commit().unwrap();
        db
    }

    fn written(dir: &Path, block_ops_max: usize) -> SnapshotInfo {
        let db = sample_store();
        write(&RealDisk, dir, &db, 0, block_ops_max, |_| Ok(()))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_snapshot_round_trips_in_any_block_size() {
        for block_ops_max in [1, 2, 1000] {
            let tmp = tempfile::tempdir().unwrap();
            let info = written(tmp.path(), block_ops_max);
            assert_eq!((info.commit, info.nodes, info.relationships), (2, 2, 1));
            let db = Storage::new();
            let loaded = load(&RealDisk, &info.path, &db).unwrap();
            assert_eq!(loaded.commit, 2);
            assert_eq!(loaded.ops, 4);
            assert_eq!(db.last_committed(), 2);
            let r = db.begin_read();
            assert_eq!(r.count_nodes().unwrap(), 2);
            assert_eq!(r.count_rels().unwrap(), 1);
            assert_eq!(db.indexes().len(), 1);
        }
    }

    /// A bigger store, so that sections split among threads and blocks.
    fn wide_store() -> Arc<Storage> {
        let db = sample_store();
        let l = db.get_or_create_label("M").unwrap();
        let k = db.get_or_create_property_key("k").unwrap();
        let r = db.get_or_create_rel_type("R").unwrap();
        let tx = db.begin_write();
        let nodes: Vec<_> = (0..300)
            .map(|i| tx.create_node(&[l], &[(k, Value::Int(i))]).unwrap())
            .collect();
        for (i, n) in nodes.iter().enumerate() {
            tx.create_relationship(*n, nodes[(i * 7) % nodes.len()], r, &[])
                .unwrap();
        }
        tx.commit().unwrap();
        db
    }

    fn same_graph(a: &Arc<Storage>, b: &Arc<Storage>) {
        let (ra, rb) = (a.begin_read(), b.begin_read());
        let ops = |r: &quiver_storage::Transaction| -> Vec<String> {
            let mut v: Vec<String> = r
                .export()
                .unwrap()
                .map(|op| format!("{:?}", op.unwrap()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(ops(&ra), ops(&rb));
        assert_eq!(a.last_committed(), b.last_committed());
        assert_eq!(ra.count_rels().unwrap(), rb.count_rels().unwrap());
    }

    #[test]
    fn format_2_loads_on_any_number_of_threads_and_format_1_still_loads() {
        let db = wide_store();
        for (version, block_ops_max) in [(SNAPSHOT_VERSION, 16), (SNAPSHOT_VERSION_1, 16)] {
            let tmp = tempfile::tempdir().unwrap();
            let info = write_format(
                &RealDisk,
                tmp.path(),
                &db,
                0,
                block_ops_max,
                version,
                |_| Ok(()),
            )
            .unwrap()
            .unwrap();
            assert_eq!((info.nodes, info.relationships), (302, 301));
            let bytes = std::fs::read(&info.path).unwrap();
            assert_eq!(u32_at(&bytes, 8), Some(version));
            for threads in [1, 3] {
                let back = Storage::new();
                let loaded = load_on(&RealDisk, &info.path, &back, threads).unwrap();
                assert_eq!((loaded.nodes, loaded.relationships), (302, 301));
                same_graph(&db, &back);
                assert_eq!(back.stats().live_deltas, 0);
            }
        }
    }

    /// A snapshot whose nodes span several of the bulk load's adjacency buckets (65,536 node
    /// ids each) loads the same on one thread and on several: the same nodes, relationships,
    /// properties, labels and ids, the same counts, and an index that finds the same nodes.
    #[test]
    fn a_snapshot_loaded_in_parallel_equals_one_loaded_serially() {
        use quiver_storage::{Direction, IndexQuery};
        const NODES: i64 = 70_000;
        let db = Storage::new();
        let (a, b) = (
            db.get_or_create_label("A").unwrap(),
            db.get_or_create_label("B").unwrap(),
        );
        let k = db.get_or_create_property_key("k").unwrap();
        let (r, s) = (
            db.get_or_create_rel_type("R").unwrap(),
            db.get_or_create_rel_type("S").unwrap(),
        );
        let tx = db.begin_write();
        tx.create_index(a, k, Some("a_k")).unwrap();
        tx.commit().unwrap();
        let tx = db.begin_write();
        let nodes: Vec<_> = (0..NODES)
            .map(|i| {
                let label = if i % 3 == 0 { b } else { a };
                tx.create_node(&[label], &[(k, Value::Int(i % 1000))])
                    .unwrap()
            })
            .collect();
        let n = nodes.len();
        for i in 0..4000usize {
            let (from, to) = (nodes[(i * 7919) % n], nodes[(i * 104_729 + 65_536) % n]);
            let ty = if i % 2 == 0 { r } else { s };
            tx.create_relationship(from, to, ty, &[(k, Value::Int(i as i64))])
                .unwrap();
        }
        tx.create_relationship(nodes[65_536], nodes[65_536], r, &[])
            .unwrap();
        tx.commit().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let info = written_from(&db, tmp.path(), 512);
        let loads: Vec<Arc<Storage>> = [1, 2, 3]
            .into_iter()
            .map(|threads| {
                let back = Storage::new();
                load_on(&RealDisk, &info.path, &back, threads).unwrap();
                back
            })
            .collect();
        // Token ids by name: a loaded store numbers names as its loaders meet them.
        let tokens = |s: &Storage| {
            let label = |name| s.get_or_create_label(name).unwrap();
            let ty = |name| s.get_or_create_rel_type(name).unwrap();
            let key = s.get_or_create_property_key("k").unwrap();
            ([label("A"), label("B")], [ty("R"), ty("S")], key)
        };
        let serial = &loads[0];
        for parallel in &loads[1..] {
            same_graph(serial, parallel);
            let (x, y) = (serial.begin_read(), parallel.begin_read());
            let ((xl, xt, xk), (yl, yt, yk)) = (tokens(serial), tokens(parallel));
            for (la, lb) in xl.into_iter().zip(yl) {
                assert_eq!(x.count_label(la).unwrap(), y.count_label(lb).unwrap());
                for (ta, tb) in xt.into_iter().zip(yt) {
                    for dir in [Direction::Out, Direction::In] {
                        let want = x.count_rels_by_label(la, ta, dir).unwrap();
                        assert_eq!(want, y.count_rels_by_label(lb, tb, dir).unwrap());
                    }
                }
            }
            assert_eq!(x.count_self_loops(xt[0]).unwrap(), 1);
            assert_eq!(y.count_self_loops(yt[0]).unwrap(), 1);
            for node in [0, 65_535, 65_536, n - 1].map(|i| nodes[i]) {
                for dir in [Direction::Out, Direction::In] {
                    let want = x.expand(node, dir, &[]).unwrap();
                    assert_eq!(want, y.expand(node, dir, &[]).unwrap());
                }
            }
            let names = |s: &Storage| -> Vec<String> {
                s.indexes().into_iter().map(|i| i.name.clone()).collect()
            };
            assert_eq!(names(serial), names(parallel));
            let seek = |t: &Transaction, label, key| -> Vec<NodeId> {
                let found = t.index_seek(label, key, IndexQuery::Equals(Value::Int(7)));
                let mut ids: Vec<NodeId> = found.unwrap().map(|n| n.unwrap()).collect();
                ids.sort();
                ids
            };
            assert_eq!(seek(&x, xl[0], xk).len(), 47);
            assert_eq!(seek(&x, xl[0], xk), seek(&y, yl[0], yk));
            assert_eq!(parallel.stats().live_deltas, 0);
        }
    }

    #[test]
    fn a_block_out_of_its_section_is_corrupt() {
        let db = wide_store();
        let tmp = tempfile::tempdir().unwrap();
        let info = written_from(&db, tmp.path(), 64);
        let good = std::fs::read(&info.path).unwrap();
        // Walk the blocks; move the last relationship block in front of the first node block.
        let mut blocks = Vec::new();
        let mut at = HEADER_BYTES;
        while at < good.len() {
            let len = u32_at(&good, at + 1).unwrap() as usize;
            blocks.push(good[at..at + BLOCK_HEADER_BYTES + len].to_vec());
            at += BLOCK_HEADER_BYTES + len;
        }
        let first_node = blocks.iter().position(|b| b[0] == KIND_NODES).unwrap();
        let last_rel = blocks.iter().rposition(|b| b[0] == KIND_RELS).unwrap();
        let moved = blocks.remove(last_rel);
        blocks.insert(first_node, moved);
        let mut bad = good[..HEADER_BYTES].to_vec();
        for b in blocks {
            bad.extend_from_slice(&b);
        }
        let path = tmp.path().join("moved.qsnap");
        std::fs::write(&path, &bad).unwrap();
        assert!(load(&RealDisk, &path, &Storage::new()).is_err());
    }

    fn written_from(db: &Arc<Storage>, dir: &Path, block_ops_max: usize) -> SnapshotInfo {
        write(&RealDisk, dir, db, 0, block_ops_max, |_| Ok(()))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn damaged_snapshots_are_errors_never_panics() {
        let tmp = tempfile::tempdir().unwrap();
        let info = written(tmp.path(), 2);
        let good = std::fs::read(&info.path).unwrap();
        let bad = tmp.path().join("bad.qsnap");
        for cut in 0..good.len() {
            std::fs::write(&bad, &good[..cut]).unwrap();
            assert!(
                load(&RealDisk, &bad, &Storage::new()).is_err(),
                "cut at {cut}"
            );
        }
        for at in 0..good.len() {
            for flip in [0x01u8, 0x80] {
                let mut b = good.clone();
                b[at] ^= flip;
                std::fs::write(&bad, &b).unwrap();
                assert!(
                    load(&RealDisk, &bad, &Storage::new()).is_err(),
                    "flip at {at}"
                );
            }
        }
        let mut longer = good.clone();
        longer.push(0);
        std::fs::write(&bad, &longer).unwrap();
        assert!(load(&RealDisk, &bad, &Storage::new()).is_err());
    }

    #[test]
    fn nothing_committed_means_no_snapshot() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Storage::new();
        assert!(
            write(&RealDisk, tmp.path(), &db, 0, 10, |_| Ok(()))
                .unwrap()
                .is_none()
        );
        let db = sample_store();
        assert!(
            write(&RealDisk, tmp.path(), &db, 2, 10, |_| Ok(()))
                .unwrap()
                .is_none()
        );
    }
}
