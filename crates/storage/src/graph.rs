//! The records that live in the arenas, packed to count bytes.
//!
//! Records sit in groups that share one lock and one side table of version chains
//! (`arena::Group`): a node's record is 16 bytes, seven to a 128-byte group (18.3 bytes a
//! node), and a relationship's 24, twenty-six to a 640-byte group (24.6 bytes each).
//!
//! A node's record is one boxed block holding everything it has: a header of three varints
//! (blob length, out-degree, in-degree), the blob (`[label count][labels][properties]`,
//! varint encoded), then its outgoing and its incoming adjacency entries, then spare room
//! for growth. One allocation per node serves both directions, and an expand reads one
//! contiguous run of it. Adjacency entries are 12 bytes: relationship id, neighbour id and
//! type, sorted by (type, relationship) so that expanding one type is a binary search plus a
//! walk over exactly its entries. The block's size is rounded so that its allocator chunk
//! (8 bytes of header, 16-byte granules) has no unused tail; a full block grows by one entry
//! plus that rounding (so about every second insert reallocates) up to 32 entries, and by
//! half beyond.
//!
//! A relationship's record holds its start node, flags and type packed in one word and its
//! properties inline when they fit in 14 bytes. The end node is not stored: the start node's
//! out-list, sorted by (type, relationship), yields it by binary search.

use smallvec::SmallVec;
use thin_vec::ThinVec;

use quiver_value::Value;

use crate::arena::{Group, Grouped, Line, Locked};
use crate::codec::{Reader, put_value, put_varint};
use crate::error::{EntityKind, Error, Result};
use crate::mvcc::Undo;

// The sizes the module docs promise, checked by the compiler: memory per element is a figure
// Quiver publishes, so a field that grows a record must fail the build, not a benchmark.
const _: () = assert!(std::mem::size_of::<AdjEntry>() == 12);
const _: () = assert!(std::mem::size_of::<PropBlob>() == 16);
const _: () = assert!(std::mem::size_of::<NodeRec>() == 16);
const _: () = assert!(std::mem::size_of::<RelRec>() == 24);
// A group is its lock and chain table (16 bytes) and its records, filling whole line pairs.
const _: () = assert!(std::mem::size_of::<Line<parking_lot::Mutex<Group<NodeRec>>>>() == 128);
const _: () = assert!(16 + NodeRec::GROUP * 16 == 128);
const _: () = assert!(std::mem::size_of::<Line<parking_lot::Mutex<Group<RelRec>>>>() == 640);
const _: () = assert!(16 + RelRec::GROUP * 24 == 640);

impl Grouped for NodeRec {
    const KIND: EntityKind = EntityKind::Node;
    const GROUP: usize = 7;
    type Recs = [NodeRec; 7];
}

impl Grouped for RelRec {
    const KIND: EntityKind = EntityKind::Relationship;
    const GROUP: usize = 26;
    type Recs = [RelRec; 26];
}

/// Bytes of one adjacency entry in a node's block.
pub(crate) const ADJ_ENTRY_BYTES: usize = 12;

/// One adjacency entry: 36-bit relationship and neighbour ids and a 22-bit type in 12 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct AdjEntry {
    w: [u32; 3],
}

impl AdjEntry {
    pub(crate) fn new(rel: u64, nbr: u64, ty: u32) -> Self {
        AdjEntry {
            w: [
                rel as u32,
                nbr as u32,
                ((rel >> 32) as u32 & 0xf) | (((nbr >> 32) as u32 & 0xf) << 4) | (ty << 8),
            ],
        }
    }

    #[inline]
    pub(crate) fn rel(self) -> u64 {
        u64::from(self.w[0]) | (u64::from(self.w[2] & 0xf) << 32)
    }

    #[inline]
    pub(crate) fn nbr(self) -> u64 {
        u64::from(self.w[1]) | (u64::from((self.w[2] >> 4) & 0xf) << 32)
    }

    #[inline]
    pub(crate) fn ty(self) -> u32 {
        self.w[2] >> 8
    }

    /// The order entries keep in a list: by type, then relationship.
    #[inline]
    pub(crate) fn key(self) -> (u32, u64) {
        (self.ty(), self.rel())
    }

    #[inline]
    fn from_bytes(b: &[u8]) -> Self {
        let word = |i: usize| {
            let mut w = [0u8; 4];
            if let Some(src) = b.get(i * 4..i * 4 + 4) {
                w.copy_from_slice(src);
            }
            u32::from_le_bytes(w)
        };
        AdjEntry {
            w: [word(0), word(1), word(2)],
        }
    }

    fn write(self, out: &mut [u8]) {
        for (dst, w) in out.chunks_exact_mut(4).zip(self.w) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
    }
}

/// A run of adjacency entries in a node's block, sorted by (type, relationship).
#[derive(Clone, Copy)]
pub(crate) struct AdjList<'a> {
    bytes: &'a [u8],
}

impl<'a> AdjList<'a> {
    #[inline]
    pub(crate) fn len(self) -> usize {
        self.bytes.len() / ADJ_ENTRY_BYTES
    }

    #[inline]
    pub(crate) fn get(self, i: usize) -> Option<AdjEntry> {
        self.bytes
            .get(i * ADJ_ENTRY_BYTES..(i + 1) * ADJ_ENTRY_BYTES)
            .map(AdjEntry::from_bytes)
    }

    #[inline]
    pub(crate) fn iter(self) -> impl Iterator<Item = AdjEntry> + 'a {
        self.bytes
            .chunks_exact(ADJ_ENTRY_BYTES)
            .map(AdjEntry::from_bytes)
    }

    /// The first index whose entry fails `pred` (entries satisfying it come first).
    #[inline]
    pub(crate) fn partition_point(self, mut pred: impl FnMut(AdjEntry) -> bool) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.get(mid).is_some_and(&mut pred) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[inline]
    pub(crate) fn slice(self, lo: usize, hi: usize) -> AdjList<'a> {
        AdjList {
            bytes: self
                .bytes
                .get(lo * ADJ_ENTRY_BYTES..hi * ADJ_ENTRY_BYTES)
                .unwrap_or_default(),
        }
    }

    /// The entries of one type (or all when `ty` is `None`).
    #[inline]
    pub(crate) fn of_type(self, ty: Option<u32>) -> AdjList<'a> {
        match ty {
            None => self,
            Some(t) => {
                let lo = self.partition_point(|x| x.ty() < t);
                let hi = lo + self.slice(lo, self.len()).partition_point(|x| x.ty() <= t);
                self.slice(lo, hi)
            }
        }
    }

    /// The position of the entry with `e`'s (type, relationship), or where it would go.
    fn find(self, e: AdjEntry) -> (usize, bool) {
        let k = e.key();
        let at = self.partition_point(|x| x.key() < k);
        (at, self.get(at).is_some_and(|x| x.key() == k))
    }
}

/// Most encoded bytes one entity's labels and properties may take.
pub const ENTITY_BYTES_MAX: usize = 64 << 20;

fn check_size(bytes: usize) -> Result<()> {
    if bytes > ENTITY_BYTES_MAX {
        return Err(Error::ValueTooLarge {
            bytes,
            limit: ENTITY_BYTES_MAX,
        });
    }
    Ok(())
}

/// Blocks with up to this many entries (both directions together) grow by one entry and the
/// rounding to their chunk, so the many small lists carry little slack; longer ones grow by
/// half to keep inserts amortised O(1).
const ADJ_EXACT_GROWTH_MAX: usize = 32;

/// The allocator's per-chunk header and granule (glibc's): a block is sized to fill its chunk.
const CHUNK_HEADER_BYTES: usize = 8;
const CHUNK_GRANULE_BYTES: usize = 16;

/// The largest block length that fits the chunk `bytes` needs.
fn chunk_fill(bytes: usize) -> usize {
    let chunk = (bytes + CHUNK_HEADER_BYTES).div_ceil(CHUNK_GRANULE_BYTES) * CHUNK_GRANULE_BYTES;
    chunk - CHUNK_HEADER_BYTES
}

/// Reads a varint the block's own writer put there (a short block reads as zeros).
#[inline]
fn block_varint(b: &[u8], pos: &mut usize) -> usize {
    let mut v = 0usize;
    let mut shift = 0;
    while let Some(&byte) = b.get(*pos) {
        *pos += 1;
        v |= usize::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 || shift >= 56 {
            break;
        }
        shift += 7;
    }
    v
}

/// Where the parts of a node's block lie: blob `[blob, out)`, out-entries `[out, inc)`,
/// in-entries `[inc, end)`; anything after `end` is spare room.
#[derive(Clone, Copy)]
struct Layout {
    blob: usize,
    out: usize,
    inc: usize,
    end: usize,
}

impl Layout {
    #[inline]
    fn of(b: &[u8]) -> Layout {
        let mut pos = 0;
        let blob_len = block_varint(b, &mut pos);
        let out_n = block_varint(b, &mut pos);
        let in_n = block_varint(b, &mut pos);
        let out = pos + blob_len;
        let inc = out + out_n * ADJ_ENTRY_BYTES;
        Layout {
            blob: pos,
            out,
            inc,
            end: inc + in_n * ADJ_ENTRY_BYTES,
        }
    }

    fn out_n(self) -> usize {
        (self.inc - self.out) / ADJ_ENTRY_BYTES
    }

    fn in_n(self) -> usize {
        (self.end - self.inc) / ADJ_ENTRY_BYTES
    }
}

fn block_header(blob_len: usize, out_n: usize, in_n: usize) -> SmallVec<[u8; 16]> {
    let mut h = Vec::with_capacity(12);
    put_varint(&mut h, blob_len as u64);
    put_varint(&mut h, out_n as u64);
    put_varint(&mut h, in_n as u64);
    SmallVec::from_vec(h)
}

/// A node: one block (see the module docs), empty for a slot that holds no node (never
/// created, rolled back, or reclaimed).
///
/// A deleted node keeps its data until garbage collection: its deletion is the `Deleted` undo
/// at the head of its chain (nothing can change a deleted node, so that undo stays on top until
/// the chain is cut and the slot cleared). Deciding liveness from the chain head rather than a
/// flag in the block spares expands a read of the blob.
#[derive(Default)]
pub(crate) struct NodeRec {
    block: Box<[u8]>,
}

impl NodeRec {
    /// The first byte of the record's block (its header): read to bring the block into the
    /// cache before the record is read in earnest.
    #[inline]
    pub(crate) fn first_byte(&self) -> u8 {
        self.block.first().copied().unwrap_or(0)
    }

    /// The block's address and length: what a batch prefetches once it has let the lock go
    /// (see `prefetch::span`).
    #[inline]
    pub(crate) fn block_span(&self) -> (usize, usize) {
        (self.block.as_ptr() as usize, self.block.len())
    }
}

impl Locked<'_, NodeRec> {
    /// Exists in the newest version (the one writers change).
    #[inline]
    pub(crate) fn is_live(&self) -> bool {
        !self.is_vacant()
            && !self
                .chain()
                .as_deref()
                .is_some_and(|d| matches!(d.undo, Undo::Deleted))
    }
}

impl NodeRec {
    /// A node with these labels and properties and no relationships: what creation writes and
    /// what a bulk load installs as committed.
    pub(crate) fn committed(labels: &[u32], props: &[(u32, Value)]) -> Result<NodeRec> {
        let refs: SmallVec<[(u32, &Value); 8]> = props.iter().map(|(k, v)| (*k, v)).collect();
        NodeRec::committed_refs(labels, refs)
    }

    /// [`NodeRec::committed`] over borrowed values, so a bulk load encodes without cloning
    /// them.
    pub(crate) fn committed_refs<V: PropValue>(
        labels: &[u32],
        props: SmallVec<[(u32, V); 8]>,
    ) -> Result<NodeRec> {
        let mut blob = Vec::with_capacity(8 + props.len() * 8);
        put_varint(&mut blob, labels.len() as u64);
        for l in labels {
            put_varint(&mut blob, u64::from(*l));
        }
        put_prop_refs(&mut blob, props);
        check_size(blob.len())?;
        let mut rec = NodeRec::default();
        rec.rebuild(&blob, None, 0);
        Ok(rec)
    }

    pub(crate) fn is_vacant(&self) -> bool {
        self.block.is_empty()
    }

    #[inline]
    fn layout(&self) -> Layout {
        Layout::of(&self.block)
    }

    fn blob(&self) -> &[u8] {
        let l = self.layout();
        self.block.get(l.blob..l.out).unwrap_or_default()
    }

    /// The outgoing (`out`) or incoming adjacency entries.
    #[inline]
    pub(crate) fn adj(&self, out: bool) -> AdjList<'_> {
        let l = self.layout();
        let range = if out { l.out..l.inc } else { l.inc..l.end };
        AdjList {
            bytes: self.block.get(range).unwrap_or_default(),
        }
    }

    pub(crate) fn has_relationships(&self) -> bool {
        let l = self.layout();
        l.end > l.out
    }

    /// Writes a fresh block: `blob`, the current entries with `insert` added (`(out, at,
    /// entry)`), and `spare` bytes of room, the whole rounded up to fill its chunk.
    fn rebuild(&mut self, blob: &[u8], insert: Option<(bool, usize, AdjEntry)>, spare: usize) {
        let l = self.layout();
        let old = &self.block;
        let (mut out_n, mut in_n) = (l.out_n(), l.in_n());
        match insert {
            Some((true, ..)) => out_n += 1,
            Some((false, ..)) => in_n += 1,
            None => {}
        }
        let header = block_header(blob.len(), out_n, in_n);
        let used = header.len() + blob.len() + (out_n + in_n) * ADJ_ENTRY_BYTES;
        let mut b = Vec::with_capacity(chunk_fill(used + spare));
        b.extend_from_slice(&header);
        b.extend_from_slice(blob);
        let list = |out: bool, from: usize, to: usize, b: &mut Vec<u8>| {
            let entries = old.get(from..to).unwrap_or_default();
            match insert {
                Some((o, at, e)) if o == out => {
                    let at = at * ADJ_ENTRY_BYTES;
                    b.extend_from_slice(entries.get(..at).unwrap_or_default());
                    let mut buf = [0u8; ADJ_ENTRY_BYTES];
                    e.write(&mut buf);
                    b.extend_from_slice(&buf);
                    b.extend_from_slice(entries.get(at..).unwrap_or_default());
                }
                _ => b.extend_from_slice(entries),
            }
        };
        list(true, l.out, l.inc, &mut b);
        list(false, l.inc, l.end, &mut b);
        b.resize(b.capacity(), 0);
        self.block = b.into_boxed_slice();
    }

    /// Replaces the blob, keeping the adjacency entries: in place when the block has room
    /// (a property rewritten at its old size or smaller, or within the block's spare room), so
    /// an update costs no allocation and no copy of the entries to a new block.
    fn set_blob(&mut self, blob: &[u8]) {
        let l = self.layout();
        let header = block_header(blob.len(), l.out_n(), l.in_n());
        let out = header.len() + blob.len();
        let end = out + (l.end - l.out);
        if self.block.is_empty() || end > self.block.len() {
            self.rebuild(blob, None, 0);
            return;
        }
        self.block.copy_within(l.out..l.end, out);
        self.block[..header.len()].copy_from_slice(&header);
        self.block[header.len()..out].copy_from_slice(blob);
        self.block[end..].fill(0);
    }

    /// Inserts an adjacency entry keeping (type, relationship) order. Relationships are
    /// created with rising ids, so the common case is an append at the end of its type's run.
    pub(crate) fn adj_insert(&mut self, out: bool, e: AdjEntry) {
        let l = self.layout();
        let (at, _) = self.adj(out).find(e);
        let (out_n, in_n) = (l.out_n() + usize::from(out), l.in_n() + usize::from(!out));
        let header = block_header(l.out - l.blob, out_n, in_n);
        let fits = header.len() == l.blob && l.end + ADJ_ENTRY_BYTES <= self.block.len();
        if !fits {
            let n = out_n + in_n;
            let spare = if n < ADJ_EXACT_GROWTH_MAX {
                ADJ_ENTRY_BYTES
            } else {
                n / 2 * ADJ_ENTRY_BYTES
            };
            let blob = self.blob().to_vec();
            self.rebuild(&blob, Some((out, at, e)), spare);
            return;
        }
        let pos = if out { l.out } else { l.inc } + at * ADJ_ENTRY_BYTES;
        self.block.copy_within(pos..l.end, pos + ADJ_ENTRY_BYTES);
        e.write(&mut self.block[pos..pos + ADJ_ENTRY_BYTES]);
        self.block[..header.len()].copy_from_slice(&header);
    }

    /// Inserts many entries at once, each run sorted by (type, relationship) and none already
    /// present: the block is written afresh once, sized to fit exactly, the new entries merged
    /// into the old. What a bulk load does instead of one [`NodeRec::adj_insert`] per entry,
    /// each of which may reallocate the block.
    pub(crate) fn adj_insert_sorted(&mut self, out: &[AdjEntry], inc: &[AdjEntry]) {
        if out.is_empty() && inc.is_empty() {
            return;
        }
        let l = self.layout();
        let (out_n, in_n) = (l.out_n() + out.len(), l.in_n() + inc.len());
        let blob = self.blob();
        let header = block_header(blob.len(), out_n, in_n);
        let used = header.len() + blob.len() + (out_n + in_n) * ADJ_ENTRY_BYTES;
        let mut b = Vec::with_capacity(chunk_fill(used));
        b.extend_from_slice(&header);
        b.extend_from_slice(blob);
        let merge = |old: AdjList<'_>, new: &[AdjEntry], b: &mut Vec<u8>| {
            let mut buf = [0u8; ADJ_ENTRY_BYTES];
            let mut old = old.iter().peekable();
            let mut new = new.iter().copied().peekable();
            loop {
                let e = match (old.peek(), new.peek()) {
                    (Some(o), Some(n)) if o.key() <= n.key() => old.next(),
                    (Some(_), Some(_)) | (None, Some(_)) => new.next(),
                    (Some(_), None) => old.next(),
                    (None, None) => None,
                };
                let Some(e) = e else { break };
                e.write(&mut buf);
                b.extend_from_slice(&buf);
            }
        };
        merge(self.adj(true), out, &mut b);
        merge(self.adj(false), inc, &mut b);
        b.resize(b.capacity(), 0);
        self.block = b.into_boxed_slice();
    }

    /// Removes an adjacency entry; returns whether it was there.
    pub(crate) fn adj_remove(&mut self, out: bool, e: AdjEntry) -> bool {
        let l = self.layout();
        let (at, found) = self.adj(out).find(e);
        if !found {
            return false;
        }
        let (out_n, in_n) = (l.out_n() - usize::from(out), l.in_n() - usize::from(!out));
        let header = block_header(l.out - l.blob, out_n, in_n);
        let pos = if out { l.out } else { l.inc } + at * ADJ_ENTRY_BYTES;
        self.block.copy_within(pos + ADJ_ENTRY_BYTES..l.end, pos);
        if header.len() == l.blob {
            self.block[..header.len()].copy_from_slice(&header);
        } else {
            // The header shrank a byte: write the block afresh, this entry left out.
            let mut b = Vec::with_capacity(self.block.len());
            b.extend_from_slice(&header);
            b.extend_from_slice(&self.block[l.blob..l.end - ADJ_ENTRY_BYTES]);
            b.resize(self.block.len(), 0);
            self.block = b.into_boxed_slice();
        }
        true
    }

    pub(crate) fn labels(&self) -> Result<SmallVec<[u32; 4]>> {
        let mut r = Reader::new(self.blob());
        if r.at_end() {
            return Ok(SmallVec::new());
        }
        let n = r.len()?;
        let mut out = SmallVec::with_capacity(n);
        for _ in 0..n {
            out.push(r.varint_u32()?);
        }
        Ok(out)
    }

    pub(crate) fn has_label(&self, label: u32) -> Result<bool> {
        Ok(self.labels()?.contains(&label))
    }

    /// Byte offset of the property section in the blob.
    fn props_at(&self) -> Result<usize> {
        let mut r = Reader::new(self.blob());
        if r.at_end() {
            return Ok(0);
        }
        let n = r.len()?;
        for _ in 0..n {
            r.varint()?;
        }
        Ok(r.pos())
    }

    pub(crate) fn props(&self) -> Result<&[u8]> {
        let at = self.props_at()?;
        Ok(self.blob().get(at..).unwrap_or_default())
    }

    pub(crate) fn set_labels(&mut self, labels: &[u32]) -> Result<()> {
        let at = self.props_at()?;
        let blob = self.blob();
        let mut out = Vec::with_capacity(blob.len() + 4);
        put_varint(&mut out, labels.len() as u64);
        for l in labels {
            put_varint(&mut out, u64::from(*l));
        }
        out.extend_from_slice(blob.get(at..).unwrap_or_default());
        self.set_blob(&out);
        Ok(())
    }

    /// Sets (`Some`) or removes (`None`) a property; returns the old value.
    pub(crate) fn set_prop(&mut self, key: u32, value: Option<&Value>) -> Result<Option<Value>> {
        let at = self.props_at()?;
        let blob = self.blob();
        let head = blob.get(..at).unwrap_or_default();
        let (old, new_props) = props_with(blob.get(at..).unwrap_or_default(), key, value)?;
        if let Some(new_props) = new_props {
            let out = with_props(head, &new_props)?;
            self.set_blob(&out);
        }
        Ok(old)
    }

    /// [`NodeRec::set_prop`] with an encoded value; the old value is built only when `old`
    /// asks for it (an index holds it).
    pub(crate) fn set_prop_encoded(
        &mut self,
        key: u32,
        value: Option<Encoded<'_>>,
        old: bool,
    ) -> Result<Option<Value>> {
        let at = self.props_at()?;
        let blob = self.blob();
        let head = blob.get(..at).unwrap_or_default();
        let props = blob.get(at..).unwrap_or_default();
        let (old_span, new_props) = props_edit(props, key, value)?;
        let old_value = match old_span {
            Some(span) if old => Some(Reader::new(props.get(span).unwrap_or_default()).value()?),
            _ => None,
        };
        if let Some(new_props) = new_props {
            let out = with_props(head, &new_props)?;
            self.set_blob(&out);
        }
        Ok(old_value)
    }

    /// Initialises a vacant slot as a live node.
    pub(crate) fn init(&mut self, labels: &[u32], props: &[(u32, Value)]) -> Result<()> {
        *self = NodeRec::committed(labels, props)?;
        Ok(())
    }

    /// Returns the slot to vacant, freeing everything it held (its chain is apart).
    pub(crate) fn clear(&mut self) {
        self.block = Box::default();
    }
}

/// Appends properties (sorted by key, last value for a key wins) in blob form.
pub(crate) fn put_props(out: &mut Vec<u8>, props: &[(u32, Value)]) {
    let refs: SmallVec<[(u32, &Value); 8]> = props.iter().map(|(k, v)| (*k, v)).collect();
    put_prop_refs(out, refs);
}

/// A property value as a loader hands it over: built (`&Value`) or already in the blob
/// encoding ([`Encoded`], copied from a redo record as it is).
pub(crate) trait PropValue: Copy {
    fn is_null(self) -> bool;
    fn put(self, out: &mut Vec<u8>);
}

impl PropValue for &Value {
    fn is_null(self) -> bool {
        Value::is_null(self)
    }

    fn put(self, out: &mut Vec<u8>) {
        put_value(out, self);
    }
}

/// One value's bytes in the blob encoding, tag included, already checked.
#[derive(Clone, Copy)]
pub(crate) struct Encoded<'a>(pub(crate) &'a [u8]);

impl PropValue for Encoded<'_> {
    fn is_null(self) -> bool {
        // A checked encoding is never null: null has no encoding.
        false
    }

    fn put(self, out: &mut Vec<u8>) {
        out.extend_from_slice(self.0);
    }
}

/// [`put_props`] over borrowed or encoded values, so a bulk load encodes without cloning them.
pub(crate) fn put_prop_refs<V: PropValue>(out: &mut Vec<u8>, mut sorted: SmallVec<[(u32, V); 8]>) {
    // Stable: of several values for one key, the last given stays last and wins.
    sorted.sort_by_key(|p| p.0);
    for (i, &(k, v)) in sorted.iter().enumerate() {
        if sorted.get(i + 1).is_some_and(|n| n.0 == k) || v.is_null() {
            continue;
        }
        put_varint(out, u64::from(k));
        v.put(out);
    }
}

/// Looks a property up in a property section.
pub(crate) fn prop_get(props: &[u8], key: u32) -> Result<Option<Value>> {
    prop_at(props, key)?.map(|mut r| r.value()).transpose()
}

/// A reader at the value of property `key` in a property section (sorted by key), to read it
/// built or in place; `None` when the section has no such key.
pub(crate) fn prop_at(props: &[u8], key: u32) -> Result<Option<Reader<'_>>> {
    let mut r = Reader::new(props);
    while !r.at_end() {
        let k = r.varint_u32()?;
        if k == key {
            return Ok(Some(r));
        }
        if k > key {
            return Ok(None);
        }
        r.skip_value()?;
    }
    Ok(None)
}

pub(crate) fn prop_all(props: &[u8]) -> Result<Vec<(u32, Value)>> {
    let mut r = Reader::new(props);
    let mut out = Vec::new();
    while !r.at_end() {
        let k = r.varint_u32()?;
        out.push((k, r.value()?));
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) fn prop_keys(props: &[u8]) -> Result<SmallVec<[u32; 8]>> {
    let mut r = Reader::new(props);
    let mut out = SmallVec::new();
    while !r.at_end() {
        out.push(r.varint_u32()?);
        r.skip_value()?;
    }
    Ok(out)
}

/// The old value of `key` and, when something changed, the new property section.
/// A node's blob from its `head` (labels and what precedes the properties) and new
/// encoded `props`; refused past the entity size limit.
fn with_props(head: &[u8], props: &[u8]) -> Result<Vec<u8>> {
    check_size(head.len() + props.len())?;
    let mut out = Vec::with_capacity(head.len() + props.len());
    out.extend_from_slice(head);
    out.extend_from_slice(props);
    Ok(out)
}

fn props_with(
    props: &[u8],
    key: u32,
    value: Option<&Value>,
) -> Result<(Option<Value>, Option<Vec<u8>>)> {
    let (old, new) = props_edit(props, key, value)?;
    let old = old
        .map(|span| Reader::new(props.get(span).unwrap_or_default()).value())
        .transpose()?;
    Ok((old, new))
}

/// Where the old value of `key` lies in `props` (its encoding, tag included) and, when
/// something changed, the new property section.
fn props_edit<V: PropValue>(
    props: &[u8],
    key: u32,
    value: Option<V>,
) -> Result<(Option<std::ops::Range<usize>>, Option<Vec<u8>>)> {
    let mut r = Reader::new(props);
    let mut start = props.len();
    let mut end = props.len();
    let mut old = None;
    while !r.at_end() {
        let entry = r.pos();
        let k = r.varint_u32()?;
        if k == key {
            let at = r.pos();
            r.skip_value()?;
            old = Some(at..r.pos());
            start = entry;
            end = r.pos();
            break;
        }
        if k > key {
            start = entry;
            end = entry;
            break;
        }
        r.skip_value()?;
    }
    if old.is_none() && value.is_none() {
        return Ok((None, None));
    }
    let mut out = Vec::with_capacity(props.len() + 16);
    out.extend_from_slice(props.get(..start).unwrap_or_default());
    if let Some(v) = value {
        put_varint(&mut out, u64::from(key));
        v.put(&mut out);
    }
    out.extend_from_slice(props.get(end..).unwrap_or_default());
    Ok((old, Some(out)))
}

/// Relationship properties: inline when they fit, so a short date string costs no allocation.
pub(crate) enum PropBlob {
    Inline(u8, [u8; 14]),
    Heap(ThinVec<u8>),
}

impl Default for PropBlob {
    fn default() -> Self {
        PropBlob::Inline(0, [0; 14])
    }
}

impl PropBlob {
    pub(crate) fn from_bytes(b: &[u8]) -> Self {
        if b.len() <= 14 {
            let mut a = [0u8; 14];
            a[..b.len()].copy_from_slice(b);
            PropBlob::Inline(b.len() as u8, a)
        } else {
            PropBlob::Heap(ThinVec::from(b))
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            PropBlob::Inline(n, a) => a.get(..usize::from(*n)).unwrap_or_default(),
            PropBlob::Heap(v) => v,
        }
    }

    pub(crate) fn set(&mut self, key: u32, value: Option<&Value>) -> Result<Option<Value>> {
        let (old, new) = props_with(self.bytes(), key, value)?;
        if let Some(new) = new {
            check_size(new.len())?;
            *self = PropBlob::from_bytes(&new);
        }
        Ok(old)
    }

    /// [`PropBlob::set`] with an encoded value, returning nothing: what replay needs.
    pub(crate) fn set_encoded(&mut self, key: u32, value: Option<Encoded<'_>>) -> Result<()> {
        let (_, new) = props_edit(self.bytes(), key, value)?;
        if let Some(new) = new {
            check_size(new.len())?;
            *self = PropBlob::from_bytes(&new);
        }
        Ok(())
    }
}

/// Relationship flags, packed beside the start node and type.
const REL_PRESENT: u64 = 1;
const REL_DELETED: u64 = 2;
const REL_ID_BITS: u32 = 36;
// Adjacency entries carry the same 36-bit ids (32 low bits plus a 4-bit high nibble each), and
// the start id, both flags and a 22-bit type share one word.
const _: () = assert!(REL_ID_BITS == 32 + 4);
const _: () = assert!(REL_ID_BITS + 2 + 22 <= u64::BITS);

/// A relationship: start node, flags and type packed in one word. The end node is not stored
/// here: the start node's out-list holds it (found by binary search, see `read::rel_end`),
/// which keeps the record at 24 bytes.
#[derive(Default)]
pub(crate) struct RelRec {
    pub props: PropBlob,
    w: u64,
}

impl RelRec {
    /// A live relationship from `start` of type `ty` with encoded properties `props`: what
    /// creation writes and what a bulk load installs as committed.
    pub(crate) fn committed(start: u64, ty: u32, props: &[u8]) -> RelRec {
        let mut rec = RelRec::default();
        rec.init(start, ty, props);
        rec
    }

    pub(crate) fn init(&mut self, start: u64, ty: u32, props: &[u8]) {
        self.w = (start & ((1 << REL_ID_BITS) - 1))
            | (REL_PRESENT << REL_ID_BITS)
            | (u64::from(ty) << (REL_ID_BITS + 2));
        self.props = PropBlob::from_bytes(props);
    }

    pub(crate) fn start(&self) -> u64 {
        self.w & ((1 << REL_ID_BITS) - 1)
    }

    pub(crate) fn ty(&self) -> u32 {
        (self.w >> (REL_ID_BITS + 2)) as u32
    }

    fn flags(&self) -> u64 {
        (self.w >> REL_ID_BITS) & 3
    }

    pub(crate) fn is_vacant(&self) -> bool {
        self.flags() & REL_PRESENT == 0
    }

    pub(crate) fn is_live(&self) -> bool {
        self.flags() == REL_PRESENT
    }

    pub(crate) fn set_deleted(&mut self, deleted: bool) {
        if deleted {
            self.w |= REL_DELETED << REL_ID_BITS;
        } else {
            self.w &= !(REL_DELETED << REL_ID_BITS);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.w = 0;
        self.props = PropBlob::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacency_packs_and_orders() {
        let e = AdjEntry::new((1 << 36) - 1, 7, (1 << 22) - 1);
        assert_eq!(e.rel(), (1 << 36) - 1);
        assert_eq!(e.nbr(), 7);
        assert_eq!(e.ty(), (1 << 22) - 1);
        let mut buf = [0u8; ADJ_ENTRY_BYTES];
        e.write(&mut buf);
        assert_eq!(AdjEntry::from_bytes(&buf), e);
        let mut n = NodeRec::committed(&[], &[]).unwrap();
        for (rel, ty) in [(5, 2), (1, 1), (3, 2), (2, 1)] {
            n.adj_insert(true, AdjEntry::new(rel, 0, ty));
        }
        let l = n.adj(true);
        let rels: Vec<u64> = l.of_type(Some(2)).iter().map(AdjEntry::rel).collect();
        assert_eq!(rels, vec![3, 5]);
        assert_eq!(l.of_type(Some(9)).len(), 0);
        assert!(n.adj_remove(true, AdjEntry::new(3, 0, 2)));
        assert!(!n.adj_remove(true, AdjEntry::new(3, 0, 2)));
        assert_eq!(n.adj(true).len(), 3);
        assert_eq!(n.adj(false).len(), 0);
    }

    #[test]
    fn one_block_holds_blob_and_both_directions() {
        let mut n = NodeRec::committed(&[3], &[(1, Value::from("x"))]).unwrap();
        assert!(!n.has_relationships());
        // Past 127 entries a count takes two varint bytes: the header grows and shrinks.
        for i in 0..300u64 {
            n.adj_insert(i % 3 != 0, AdjEntry::new(i, i + 1, (i % 4) as u32));
        }
        assert_eq!((n.adj(true).len(), n.adj(false).len()), (200, 100));
        assert_eq!(n.labels().unwrap().as_slice(), &[3]);
        n.set_prop(2, Some(&Value::Int(9))).unwrap();
        assert_eq!(
            prop_get(n.props().unwrap(), 1).unwrap().unwrap().as_str(),
            Some("x")
        );
        for i in (0..300u64).rev() {
            assert!(n.adj_remove(i % 3 != 0, AdjEntry::new(i, i + 1, (i % 4) as u32)));
            let out: Vec<_> = n.adj(true).iter().map(AdjEntry::key).collect();
            assert!(out.windows(2).all(|w| w[0] < w[1]));
        }
        assert!(!n.has_relationships());
        assert_eq!(
            prop_get(n.props().unwrap(), 2).unwrap().unwrap().as_int(),
            Some(9)
        );
        // A block fills its allocator chunk exactly.
        assert_eq!(
            (n.block.len() + CHUNK_HEADER_BYTES) % CHUNK_GRANULE_BYTES,
            0
        );
    }

    #[test]
    fn sorted_batches_merge_into_the_same_lists_as_single_inserts() {
        let mut one = NodeRec::committed(&[1], &[(2, Value::from("x"))]).unwrap();
        let mut batched = NodeRec::committed(&[1], &[(2, Value::from("x"))]).unwrap();
        let entries = |range: std::ops::Range<u64>| -> Vec<(bool, AdjEntry)> {
            range
                .map(|rel| {
                    (
                        rel % 3 != 0,
                        AdjEntry::new(rel * 7 % 40, rel, (rel % 2) as u32),
                    )
                })
                .collect()
        };
        for part in [0..15, 15..40] {
            let mut out = Vec::new();
            let mut inc = Vec::new();
            for (dir, e) in entries(part) {
                one.adj_insert(dir, e);
                if dir { out.push(e) } else { inc.push(e) }
            }
            out.sort_by_key(|e| e.key());
            inc.sort_by_key(|e| e.key());
            batched.adj_insert_sorted(&out, &inc);
        }
        for dir in [true, false] {
            let a: Vec<AdjEntry> = one.adj(dir).iter().collect();
            let b: Vec<AdjEntry> = batched.adj(dir).iter().collect();
            assert_eq!(a, b);
        }
        assert_eq!(one.blob(), batched.blob());
    }

    #[test]
    fn a_property_rewrite_that_fits_keeps_the_block_and_its_entries() {
        let mut n = NodeRec::committed(&[1], &[(2, Value::from("abcdef"))]).unwrap();
        for rel in 0..5 {
            n.adj_insert(rel % 2 == 0, AdjEntry::new(rel, rel + 10, 0));
        }
        let before: Vec<AdjEntry> = n.adj(true).iter().chain(n.adj(false).iter()).collect();
        let at = n.block.as_ptr();
        n.set_prop(2, Some(&Value::from("xyz"))).unwrap();
        assert_eq!(n.block.as_ptr(), at, "a shorter value is written in place");
        n.set_prop_encoded(2, Some(Encoded(&[0x03, 0x02])), false)
            .unwrap();
        assert_eq!(
            prop_get(n.props().unwrap(), 2).unwrap(),
            Some(Value::Int(1))
        );
        let after: Vec<AdjEntry> = n.adj(true).iter().chain(n.adj(false).iter()).collect();
        assert_eq!(before, after);
        assert_eq!(n.labels().unwrap().as_slice(), &[1]);
    }

    #[test]
    fn node_blob_edits() {
        let mut n = NodeRec::default();
        assert!(n.is_vacant());
        n.init(&[3], &[(2, Value::Int(1)), (1, Value::from("x"))])
            .unwrap();
        assert!(!n.is_vacant());
        assert_eq!(
            prop_get(n.props().unwrap(), 2).unwrap().unwrap().as_int(),
            Some(1)
        );
        n.set_labels(&[3, 4]).unwrap();
        assert_eq!(n.labels().unwrap().as_slice(), &[3, 4]);
        let old = n.set_prop(1, Some(&Value::from("y"))).unwrap();
        assert_eq!(old.unwrap().as_str(), Some("x"));
        assert!(n.set_prop(9, None).unwrap().is_none());
        n.set_prop(0, Some(&Value::Bool(true))).unwrap();
        assert_eq!(
            prop_keys(n.props().unwrap()).unwrap().as_slice(),
            &[0, 1, 2]
        );
        n.set_prop(2, None).unwrap();
        assert_eq!(prop_all(n.props().unwrap()).unwrap().len(), 2);
        n.clear();
        assert!(n.is_vacant());
    }

    #[test]
    fn rel_record_packs() {
        let mut r = RelRec::default();
        assert!(r.is_vacant());
        r.init((1 << 36) - 2, (1 << 22) - 1, &[]);
        assert_eq!((r.start(), r.ty()), ((1 << 36) - 2, (1 << 22) - 1));
        assert!(r.is_live());
        r.props.set(1, Some(&Value::from("2020-01-01"))).unwrap();
        assert!(matches!(r.props, PropBlob::Inline(..)));
        r.props
            .set(2, Some(&Value::from("a longer string than fits")))
            .unwrap();
        assert!(matches!(r.props, PropBlob::Heap(..)));
        r.set_deleted(true);
        assert!(!r.is_live() && !r.is_vacant());
    }
}
