//! Snapshot files: the whole graph as of one MVCC snapshot, written while writers go on.
//!
//! ```text
//! snapshot-<commit, 20 digits>.qsnap   (written as .qsnap.tmp, renamed once synced)
//! offset  size  field
//! 0       8     magic "QUIVSNAP"
//! 8       4     format version, u32 LE (1)
//! 12      4     reserved, zero
//! 16      8     commit: the MVCC snapshot the file holds, u64 LE
//! 24      8     created, Unix milliseconds, u64 LE
//! 32      4     reserved, zero
//! 36      4     CRC32C of bytes 0..36, u32 LE
//! 40      ...   blocks, then one trailer
//!
//! block
//! 0       1     kind: 1 ops, 2 trailer
//! 1       4     payload length n, u32 LE
//! 5       4     CRC32C of the kind byte and the payload, u32 LE
//! 9       n     payload
//!   ops:      a redo record stamped with the snapshot's commit: schema first, then nodes,
//!             then relationships, as `Transaction::export` yields them
//!   trailer:  ops, nodes, relationships, blocks, schema bound: five u64 LE
//! ```
//!
//! The trailer's counts prove the file complete; nothing may follow it. The schema bound is
//! the newest commit whose schema change the file may reflect: the export reads the current
//! schema rather than the snapshot's, so a schema record up to that bound may find its
//! change already applied at replay, and recovery accepts that (and only that).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use quiver_storage::{
    BulkLoad, LabelId, NodeId, PropKeyId, RECORD_BYTES_MAX, RedoOp, RedoRecord, RelId, Storage,
};
use quiver_value::Value;

use crate::disk::{Disk, DiskFile};
use crate::error::{Error, Result};
use crate::frame::{TEMP_SUFFIX, snapshot_name, u32_at, u64_at};

pub const SNAPSHOT_MAGIC: [u8; 8] = *b"QUIVSNAP";
pub const SNAPSHOT_VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;
const BLOCK_HEADER_BYTES: usize = 9;
const KIND_OPS: u8 = 1;
const KIND_TRAILER: u8 = 2;
const TRAILER_BYTES: usize = 40;
// The diagram above, checked by the compiler.
const _: () = assert!(SNAPSHOT_MAGIC.len() + 4 + 4 + 8 + 8 + 4 + 4 == HEADER_BYTES);
const _: () = assert!(1 + 4 + 4 == BLOCK_HEADER_BYTES);
const _: () = assert!(5 * 8 == TRAILER_BYTES);
/// Encoded bytes gathered before one write to the file.
const WRITE_BYTES: usize = 1 << 20;
/// A block's encoded ops beyond this close the block even below the op count limit.
const BLOCK_BYTES_TARGET: usize = 1 << 20;

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

fn header(commit: u64) -> Vec<u8> {
    let mut h = Vec::with_capacity(HEADER_BYTES);
    h.extend_from_slice(&SNAPSHOT_MAGIC);
    h.extend_from_slice(&SNAPSHOT_VERSION.to_le_bytes());
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

/// Counts and streams a snapshot into `file`.
struct BlockWriter {
    file: Box<dyn DiskFile>,
    out: Vec<u8>,
    block: Vec<RedoOp>,
    block_bytes: usize,
    commit: u64,
    ops: u64,
    nodes: u64,
    relationships: u64,
    blocks: u64,
    bytes: u64,
}

impl BlockWriter {
    fn push(&mut self, op: RedoOp, block_ops_max: usize) -> std::io::Result<()> {
        match &op {
            RedoOp::CreateNode { props, .. } => {
                self.nodes += 1;
                self.block_bytes += 32 + props.len() * 16;
            }
            RedoOp::CreateRelationship { props, .. } => {
                self.relationships += 1;
                self.block_bytes += 48 + props.len() * 16;
            }
            _ => self.block_bytes += 64,
        }
        self.ops += 1;
        self.block.push(op);
        if self.block.len() >= block_ops_max || self.block_bytes >= BLOCK_BYTES_TARGET {
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
        put_block(&mut self.out, KIND_OPS, &record.encode());
        self.blocks += 1;
        self.block_bytes = 0;
        if self.out.len() >= WRITE_BYTES {
            self.drain()?;
        }
        Ok(())
    }

    fn drain(&mut self) -> std::io::Result<()> {
        self.file.write_all(&self.out)?;
        self.bytes += self.out.len() as u64;
        self.out.clear();
        Ok(())
    }

    fn finish(&mut self, schema_bound: u64) -> std::io::Result<()> {
        self.end_block()?;
        let mut t = Vec::with_capacity(TRAILER_BYTES);
        for v in [
            self.ops,
            self.nodes,
            self.relationships,
            self.blocks,
            schema_bound,
        ] {
            t.extend_from_slice(&v.to_le_bytes());
        }
        put_block(&mut self.out, KIND_TRAILER, &t);
        self.drain()?;
        self.file.sync_all()
    }
}

/// Writes a snapshot of `storage` as of a fresh read snapshot, unless that is `skip_commit`
/// (nothing changed since the last) or 0 (nothing ever committed).
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
        let mut w = BlockWriter {
            file,
            out: header(commit),
            block: Vec::new(),
            block_bytes: 0,
            commit,
            ops: 0,
            nodes: 0,
            relationships: 0,
            blocks: 0,
            bytes: 0,
        };
        let mut export = tx.export().map_err(Error::Export)?;
        // The export reads the schema on its first step; any schema change it saw was
        // published by a commit numbered at most one past the last finished commit.
        let first = export.next();
        let schema_bound = storage.last_committed() + 1;
        for op in first.into_iter().chain(export) {
            let op = op.map_err(Error::Export)?;
            w.push(op, block_ops_max).map_err(|e| Error::io(&tmp, e))?;
        }
        w.finish(schema_bound).map_err(|e| Error::io(&tmp, e))?;
        make_durable(storage.last_committed().max(commit))?;
        disk.rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        disk.sync_dir(dir).map_err(|e| Error::io(dir, e))?;
        Ok(SnapshotInfo {
            commit,
            path: path.clone(),
            bytes: w.bytes,
            ops: w.ops,
            nodes: w.nodes,
            relationships: w.relationships,
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

/// Loads one decoded block into the bulk load. A snapshot holds creations only: the schema
/// (built once at the end of the load), then nodes, then relationships.
fn apply_ops(
    load: &mut BulkLoad<'_>,
    storage: &Storage,
    ops: Vec<RedoOp>,
) -> quiver_storage::Result<()> {
    for op in ops {
        match op {
            RedoOp::CreateIndex { name, label, key } => load.create_index(
                storage.get_or_create_label(&label)?,
                storage.get_or_create_property_key(&key)?,
                Some(&name),
            )?,
            RedoOp::CreateUniqueConstraint { name, label, key } => load.create_unique_constraint(
                storage.get_or_create_label(&label)?,
                storage.get_or_create_property_key(&key)?,
                Some(&name),
            )?,
            RedoOp::CreateNode { id, labels, props } => {
                let labels = labels
                    .iter()
                    .map(|l| storage.get_or_create_label(l))
                    .collect::<quiver_storage::Result<Vec<LabelId>>>()?;
                load.node(NodeId(id), &labels, &named_props(storage, props)?)?;
            }
            RedoOp::CreateRelationship {
                id,
                start,
                end,
                rel_type,
                props,
            } => load.relationship(
                RelId(id),
                NodeId(start),
                NodeId(end),
                storage.get_or_create_rel_type(&rel_type)?,
                &named_props(storage, props)?,
            )?,
            _ => {
                return Err(quiver_storage::Error::Replay(
                    "a snapshot holds creations only".to_string(),
                ));
            }
        }
    }
    Ok(())
}

fn named_props(
    storage: &Storage,
    props: Vec<(Arc<str>, Value)>,
) -> quiver_storage::Result<Vec<(PropKeyId, Value)>> {
    props
        .into_iter()
        .map(|(k, v)| Ok((storage.get_or_create_property_key(&k)?, v)))
        .collect()
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

/// What the reading thread hands the loading one.
enum Block {
    /// A block's ops, with the offset of the block and of the byte after it.
    Ops { at: u64, end: u64, ops: Vec<RedoOp> },
    /// The trailer checked out: the file is complete.
    End { at: u64, schema_bound: u64 },
}

/// Decoded blocks in flight between the reading thread and the loading one: enough to keep
/// both busy, few enough (a block is about 1 MiB) to bound the memory it takes.
const BLOCKS_IN_FLIGHT: usize = 4;

/// Reads, checks and decodes the blocks after the header, sending each to `out`; stops at
/// the first error (sent too) or when the receiver is gone.
fn read_blocks(mut src: Source<'_>, commit: u64, out: &SyncSender<Result<Block>>) {
    let path = src.path;
    let corrupt = |offset: u64, reason: &str| Error::corrupt(path, offset, reason);
    let (mut ops, mut nodes, mut rels, mut blocks) = (0u64, 0u64, 0u64, 0u64);
    let mut payload = Vec::new();
    let result = (|| -> Result<Option<Block>> {
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
            src.read_exact_growing(len, &mut payload)?;
            if crc32c::crc32c_append(crc32c::crc32c(&[kind]), &payload) != crc {
                return Err(corrupt(at, "block checksum mismatch"));
            }
            match kind {
                KIND_OPS => {
                    let (record, used) = RedoRecord::decode(&payload)
                        .map_err(|e| corrupt(at, &format!("undecodable block: {e}")))?;
                    if used != payload.len() || record.commit != commit {
                        return Err(corrupt(at, "block does not belong to this snapshot"));
                    }
                    for op in &record.ops {
                        match op {
                            RedoOp::CreateNode { .. } => nodes += 1,
                            RedoOp::CreateRelationship { .. } => rels += 1,
                            _ => {}
                        }
                    }
                    ops += record.ops.len() as u64;
                    blocks += 1;
                    let block = Block::Ops {
                        at,
                        end: src.offset,
                        ops: record.ops,
                    };
                    if out.send(Ok(block)).is_err() {
                        return Ok(None);
                    }
                }
                KIND_TRAILER => {
                    let field = |i: usize| u64_at(&payload, i * 8);
                    let counts = (field(0), field(1), field(2), field(3));
                    if payload.len() != TRAILER_BYTES
                        || counts != (Some(ops), Some(nodes), Some(rels), Some(blocks))
                    {
                        return Err(corrupt(at, "trailer counts do not match the blocks"));
                    }
                    let mut extra = [0u8; 1];
                    if src.fill(&mut extra)? {
                        return Err(corrupt(src.offset - 1, "bytes after the trailer"));
                    }
                    return Ok(Some(Block::End {
                        at,
                        schema_bound: field(4).unwrap_or(commit),
                    }));
                }
                _ => return Err(corrupt(at, "unknown block kind")),
            }
        }
    })();
    match result {
        Ok(Some(end)) => {
            let _ = out.send(Ok(end));
        }
        Ok(None) => {}
        Err(e) => {
            let _ = out.send(Err(e));
        }
    }
}

/// Reads and checks a snapshot, loading it into `storage`, which must be empty and unseen
/// (see `quiver_storage::BulkLoad`): every entity arrives as one committed version, and the
/// whole file becomes visible as its commit once the trailer has proved it complete. One
/// thread reads, checks and decodes blocks while the calling one loads them. On error the
/// store holds part of the snapshot and must be discarded.
pub fn load(disk: &dyn Disk, path: &Path, storage: &Arc<Storage>) -> Result<Loaded> {
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
    if u32_at(&h, 8) != Some(SNAPSHOT_VERSION) {
        return Err(corrupt(8, "unsupported snapshot format version"));
    }
    let commit = u64_at(&h, 16).unwrap_or_default();
    if commit == 0 {
        return Err(corrupt(16, "snapshot of commit 0"));
    }
    let replay = |offset: u64, source| Error::Replay {
        path: path.to_path_buf(),
        offset,
        commit,
        source,
    };
    let mut load = storage.bulk_load().map_err(|e| replay(0, e))?;
    let (sender, blocks) = sync_channel(BLOCKS_IN_FLIGHT);
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("quiver-snapshot-read".into())
            .spawn_scoped(scope, move || read_blocks(src, commit, &sender))
            .map_err(|e| Error::io(path, e))?;
        let mut ops = 0u64;
        let mut last_report = Instant::now();
        // Dropping `blocks` on an early return stops the reading thread at its next send.
        for block in &blocks {
            match block? {
                Block::Ops { at, end, ops: list } => {
                    ops += list.len() as u64;
                    apply_ops(&mut load, storage, list).map_err(|e| replay(at, e))?;
                    if last_report.elapsed() >= PROGRESS_INTERVAL {
                        last_report = Instant::now();
                        let secs = started.elapsed().as_secs_f64();
                        tracing::info!(
                            "snapshot load: {:.0} of {:.0} MiB read ({:.0}%), {} nodes and {} relationships loaded, {:.1} MiB/s",
                            mib(end),
                            mib(file_bytes),
                            100.0 * end as f64 / file_bytes.max(1) as f64,
                            load.next_node_id().0,
                            load.next_rel_id().0,
                            mib(end) / secs.max(1e-9),
                        );
                    }
                }
                Block::End { at, schema_bound } => {
                    let summary = load.finish(commit).map_err(|e| replay(at, e))?;
                    return Ok(Loaded {
                        commit,
                        ops,
                        schema_bound,
                        bytes: file_bytes,
                        nodes: summary.nodes,
                        relationships: summary.relationships,
                    });
                }
            }
        }
        Err(corrupt(0, "snapshot reading stopped before the trailer"))
    })
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
