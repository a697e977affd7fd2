//! The records that live in the arenas, packed to count bytes.
//!
//! A node is 48 bytes in its arena slot (lock, chain head, one blob holding labels and
//! properties, and two adjacency vectors whose lengths live on the heap); a relationship is 40
//! bytes with its properties inline when they fit in 14 bytes. Adjacency entries are 12 bytes:
//! relationship id, neighbour id and type, sorted by (type, relationship) so that expanding one
//! type is a binary search plus a walk over exactly its entries.

use smallvec::SmallVec;
use thin_vec::ThinVec;

use quiver_value::Value;

use crate::codec::{Reader, put_value, put_varint};
use crate::error::{Error, Result};
use crate::mvcc::{Chain, Undo};

// The sizes the module docs promise, checked by the compiler: memory per element is a figure
// Quiver publishes, so a field that grows a record must fail the build, not a benchmark.
const _: () = assert!(std::mem::size_of::<AdjEntry>() == 12);
const _: () = assert!(std::mem::size_of::<PropBlob>() == 16);
const _: () = assert!(std::mem::size_of::<parking_lot::Mutex<NodeRec>>() == 48);
const _: () = assert!(std::mem::size_of::<parking_lot::Mutex<RelRec>>() == 40);

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

    #[inline]
    fn key(self) -> (u32, u64) {
        (self.ty(), self.rel())
    }
}

/// Inserts keeping (type, relationship) order; relationships are created with rising ids, so
/// the common case is a push at the end of the type's run.
pub(crate) fn adj_insert(list: &mut ThinVec<AdjEntry>, e: AdjEntry) {
    let k = e.key();
    let at = list.partition_point(|x| x.key() < k);
    if list.len() == list.capacity() && list.len() < ADJ_EXACT_GROWTH_MAX {
        list.reserve_exact(2);
    }
    list.insert(at, e);
}

pub(crate) fn adj_remove(list: &mut ThinVec<AdjEntry>, e: AdjEntry) -> bool {
    let k = e.key();
    let at = list.partition_point(|x| x.key() < k);
    if list.get(at).is_some_and(|x| x.key() == k) {
        list.remove(at);
        true
    } else {
        false
    }
}

/// The entries of one type (or all when `ty` is `None`).
#[inline]
pub(crate) fn adj_of_type(list: &[AdjEntry], ty: Option<u32>) -> &[AdjEntry] {
    match ty {
        None => list,
        Some(t) => {
            let lo = list.partition_point(|x| x.ty() < t);
            let hi = lo + list[lo..].partition_point(|x| x.ty() <= t);
            &list[lo..hi]
        }
    }
}

/// A boxed copy allocated at exactly its length: shrinking a grown `Vec` in place would keep
/// the allocator's larger size class, which costs 16 bytes a node at scale.
fn exact(bytes: &[u8]) -> Box<[u8]> {
    Box::from(bytes)
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

/// Lists up to this length grow two entries at a time, so the many small adjacency lists carry
/// little slack; longer ones double as usual to keep inserts amortised O(1).
const ADJ_EXACT_GROWTH_MAX: usize = 32;

/// A node. The blob is empty for a slot that holds no node (never created, rolled back, or
/// reclaimed); otherwise it is `[label count][labels][properties]`, varint encoded.
///
/// A deleted node keeps its data until garbage collection: its deletion is the `Deleted` undo
/// at the head of its chain (nothing can change a deleted node, so that undo stays on top until
/// the chain is cut and the slot cleared). Deciding liveness from the chain head rather than a
/// flag in the blob spares expands a cache miss on the blob.
#[derive(Default)]
pub(crate) struct NodeRec {
    pub chain: Chain,
    pub blob: Box<[u8]>,
    pub out: ThinVec<AdjEntry>,
    pub inc: ThinVec<AdjEntry>,
}

impl NodeRec {
    pub(crate) fn is_vacant(&self) -> bool {
        self.blob.is_empty()
    }

    /// Exists in the newest version (the one writers change).
    #[inline]
    pub(crate) fn is_live(&self) -> bool {
        !self.blob.is_empty()
            && !self
                .chain
                .as_deref()
                .is_some_and(|d| matches!(d.undo, Undo::Deleted))
    }

    pub(crate) fn adj(&self, out: bool) -> &ThinVec<AdjEntry> {
        if out { &self.out } else { &self.inc }
    }

    pub(crate) fn adj_mut(&mut self, out: bool) -> &mut ThinVec<AdjEntry> {
        if out { &mut self.out } else { &mut self.inc }
    }

    pub(crate) fn labels(&self) -> Result<SmallVec<[u32; 4]>> {
        let mut r = Reader::new(&self.blob);
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

    /// Byte offset of the property section.
    fn props_at(&self) -> Result<usize> {
        let mut r = Reader::new(&self.blob);
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
        Ok(self.blob.get(at..).unwrap_or_default())
    }

    pub(crate) fn set_labels(&mut self, labels: &[u32]) -> Result<()> {
        let at = self.props_at()?;
        let mut out = Vec::with_capacity(self.blob.len() + 4);
        put_varint(&mut out, labels.len() as u64);
        for l in labels {
            put_varint(&mut out, u64::from(*l));
        }
        out.extend_from_slice(self.blob.get(at..).unwrap_or_default());
        self.blob = exact(&out);
        Ok(())
    }

    /// Sets (`Some`) or removes (`None`) a property; returns the old value.
    pub(crate) fn set_prop(&mut self, key: u32, value: Option<&Value>) -> Result<Option<Value>> {
        let at = self.props_at()?;
        let head = self.blob.get(..at).unwrap_or_default();
        let (old, new_props) = props_with(self.blob.get(at..).unwrap_or_default(), key, value)?;
        if let Some(new_props) = new_props {
            check_size(head.len() + new_props.len())?;
            let mut out = Vec::with_capacity(head.len() + new_props.len());
            out.extend_from_slice(head);
            out.extend_from_slice(&new_props);
            self.blob = exact(&out);
        }
        Ok(old)
    }

    /// Initialises a vacant slot as a live node.
    pub(crate) fn init(&mut self, labels: &[u32], props: &[(u32, Value)]) -> Result<()> {
        let mut out = Vec::with_capacity(8 + props.len() * 8);
        put_varint(&mut out, labels.len() as u64);
        for l in labels {
            put_varint(&mut out, u64::from(*l));
        }
        put_props(&mut out, props);
        check_size(out.len())?;
        self.blob = exact(&out);
        Ok(())
    }

    /// A node made outside any transaction (bulk loading): its one version is committed, so
    /// it carries no chain. `labels` must hold no duplicates.
    pub(crate) fn committed(
        labels: &[u32],
        props: SmallVec<[(u32, &Value); 8]>,
    ) -> Result<NodeRec> {
        let mut out = Vec::with_capacity(8 + props.len() * 8);
        put_varint(&mut out, labels.len() as u64);
        for l in labels {
            put_varint(&mut out, u64::from(*l));
        }
        put_prop_refs(&mut out, props);
        check_size(out.len())?;
        Ok(NodeRec {
            chain: None,
            blob: exact(&out),
            out: ThinVec::new(),
            inc: ThinVec::new(),
        })
    }

    /// Returns the slot to vacant, freeing everything it held except the chain.
    pub(crate) fn clear(&mut self) {
        self.blob = Box::default();
        self.out = ThinVec::new();
        self.inc = ThinVec::new();
    }
}

/// Appends properties (sorted by key, last value for a key wins) in blob form.
pub(crate) fn put_props(out: &mut Vec<u8>, props: &[(u32, Value)]) {
    let refs: SmallVec<[(u32, &Value); 8]> = props.iter().map(|(k, v)| (*k, v)).collect();
    put_prop_refs(out, refs);
}

/// [`put_props`] over borrowed values, so a bulk load encodes without cloning them.
pub(crate) fn put_prop_refs(out: &mut Vec<u8>, mut sorted: SmallVec<[(u32, &Value); 8]>) {
    // Stable: of several values for one key, the last given stays last and wins.
    sorted.sort_by_key(|p| p.0);
    for (i, &(k, v)) in sorted.iter().enumerate() {
        if sorted.get(i + 1).is_some_and(|n| n.0 == k) || v.is_null() {
            continue;
        }
        put_varint(out, u64::from(k));
        put_value(out, v);
    }
}

/// Looks a property up in a property section.
pub(crate) fn prop_get(props: &[u8], key: u32) -> Result<Option<Value>> {
    let mut r = Reader::new(props);
    while !r.at_end() {
        let k = r.varint_u32()?;
        if k == key {
            return Ok(Some(r.value()?));
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
fn props_with(
    props: &[u8],
    key: u32,
    value: Option<&Value>,
) -> Result<(Option<Value>, Option<Vec<u8>>)> {
    let mut r = Reader::new(props);
    let mut start = props.len();
    let mut end = props.len();
    let mut old = None;
    while !r.at_end() {
        let entry = r.pos();
        let k = r.varint_u32()?;
        if k == key {
            old = Some(r.value()?);
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
        put_value(&mut out, v);
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
/// which keeps the record, lock included, at 40 bytes.
#[derive(Default)]
pub(crate) struct RelRec {
    pub chain: Chain,
    pub props: PropBlob,
    w: u64,
}

impl RelRec {
    /// A relationship made outside any transaction (bulk loading): one committed version, no
    /// chain. `props` is an encoded property section.
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
        let mut l = ThinVec::new();
        for (rel, ty) in [(5, 2), (1, 1), (3, 2), (2, 1)] {
            adj_insert(&mut l, AdjEntry::new(rel, 0, ty));
        }
        let rels: Vec<u64> = adj_of_type(&l, Some(2)).iter().map(|e| e.rel()).collect();
        assert_eq!(rels, vec![3, 5]);
        assert_eq!(adj_of_type(&l, Some(9)).len(), 0);
        assert!(adj_remove(&mut l, AdjEntry::new(3, 0, 2)));
        assert!(!adj_remove(&mut l, AdjEntry::new(3, 0, 2)));
        assert_eq!(l.len(), 3);
    }

    #[test]
    fn node_blob_edits() {
        let mut n = NodeRec::default();
        assert!(n.is_vacant());
        n.init(&[3], &[(2, Value::Int(1)), (1, Value::from("x"))])
            .unwrap();
        assert!(n.is_live());
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
        let cell = crate::mvcc::TxCell::new(crate::mvcc::TX_ID_BASE + 1);
        crate::mvcc::push(&mut n.chain, &cell, 0, Undo::Deleted);
        assert!(!n.is_live() && !n.is_vacant());
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
