//! Segmented arenas: entities at stable addresses, indexed by dense id.
//!
//! A three-level radix of lazily allocated segments. Growth allocates a new leaf and never
//! moves an existing entity, so a reader holding `&T` is never invalidated and never waits for
//! a resize; finding a slot is three acquire loads. Leaves are small (4096 slots) so the
//! memory reserved beyond the last entity stays bounded.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::{Mutex, MutexGuard};
use thin_vec::ThinVec;

use crate::error::EntityKind;
use crate::mvcc::Chain;
use crate::prefetch;

type Leaf<T> = Box<[T]>;
type Mid<T> = Box<[OnceLock<Leaf<T>>]>;

/// `LEAF + MID + TOP` bits of index; entity arenas use 12 each (2^36 ids, see
/// `ENTITY_IDS_MAX`), bitmaps smaller leaves so that an unused label costs little.
pub(crate) struct Arena<T, const LEAF: u32 = 12, const MID: u32 = 12, const TOP: u32 = 12> {
    top: Box<[OnceLock<Mid<T>>]>,
}

impl<T: Default, const LEAF: u32, const MID: u32, const TOP: u32> Arena<T, LEAF, MID, TOP> {
    const LEAF_SLOTS: usize = 1 << LEAF;
    const MID_SLOTS: usize = 1 << MID;

    pub(crate) fn new() -> Self {
        Arena {
            top: (0..1usize << TOP).map(|_| OnceLock::new()).collect(),
        }
    }

    fn split(id: u64) -> Option<(usize, usize, usize)> {
        if id >= 1u64 << (LEAF + MID + TOP) {
            return None;
        }
        let id = id as usize;
        Some((
            id >> (LEAF + MID),
            (id >> LEAF) & (Self::MID_SLOTS - 1),
            id & (Self::LEAF_SLOTS - 1),
        ))
    }

    /// The slot for `id` if its segment exists.
    pub(crate) fn get(&self, id: u64) -> Option<&T> {
        let (t, m, l) = Self::split(id)?;
        self.top.get(t)?.get()?.get(m)?.get()?.get(l)
    }

    /// The slot for `id`, allocating its segment. `None` past the arena's capacity.
    pub(crate) fn get_or_alloc(&self, id: u64) -> Option<&T> {
        let (t, m, l) = Self::split(id)?;
        let mid = self.top.get(t)?.get_or_init(|| {
            (0..Self::MID_SLOTS)
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let leaf = mid.get(m)?.get_or_init(|| {
            (0..Self::LEAF_SLOTS)
                .map(|_| T::default())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        leaf.get(l)
    }
}

/// A record kind stored in groups: the records of one group share a lock and a table of
/// version chains.
///
/// A lock and a chain head per entity would cost 16 bytes each, more than a relationship's
/// whole record; sharing them among a group costs about two bytes per entity. A group fills
/// whole 128-byte line pairs (the unit the hardware's adjacent-line prefetcher fetches), and
/// a node group is exactly one: locking a node brings its record in with the lock, so an
/// expand takes one cache miss before it reaches the node's block instead of two. Writers
/// that touch neighbouring ids wait on each other for one entity's critical section, which is
/// short, and no code path holds two entities of one kind locked except through [`Pair`].
pub(crate) trait Grouped: Default + Sized {
    /// Entities per group.
    const GROUP: usize;
    /// `[Self; GROUP]`.
    type Recs: AsRef<[Self]> + AsMut<[Self]> + Default;
    /// The kind of entity a record is.
    const KIND: EntityKind;
}

/// The records of one group and the version chains of those that have one.
///
/// Most entities have no chain (garbage collection cuts it once every snapshot sees the
/// newest version), so chains live in a side table keyed by slot instead of in every record:
/// an empty table is one pointer for the whole group. The fields keep their order
/// (`repr(C)`) so that a record's offset in its group is known without a lock
/// ([`Slot::prefetch`]).
#[derive(Default)]
#[repr(C)]
pub(crate) struct Group<R: Grouped> {
    chains: ThinVec<(u32, Chain)>,
    recs: R::Recs,
}

/// Where the records start in a group: after the chain table's one pointer.
const RECS_OFFSET: usize = std::mem::size_of::<ThinVec<(u32, Chain)>>();
const _: () = assert!(std::mem::offset_of!(Group<crate::graph::NodeRec>, recs) == RECS_OFFSET);
const _: () = assert!(std::mem::offset_of!(Group<crate::graph::RelRec>, recs) == RECS_OFFSET);

/// Aligns a group to a 128-byte line pair.
#[derive(Default)]
#[repr(align(128))]
pub(crate) struct Line<T>(T);

/// The chain of a slot without one.
static NO_CHAIN: Chain = None;

/// Entities of one kind by dense id: groups in a segmented arena (2^34 groups, enough for
/// `ENTITY_IDS_MAX` ids of any kind; 1024 groups to a leaf).
pub(crate) struct Table<R: Grouped> {
    groups: Arena<Line<Mutex<Group<R>>>, 10, 12, 12>,
}

impl<R: Grouped> Table<R> {
    pub(crate) fn new() -> Self {
        Table {
            groups: Arena::new(),
        }
    }

    /// The slot for `id` if its segment exists.
    #[inline]
    pub(crate) fn get(&self, id: u64) -> Option<Slot<'_, R>> {
        let n = R::GROUP as u64;
        let group = &self.groups.get(id / n)?.0;
        Some(Slot {
            group,
            i: (id % n) as usize,
        })
    }

    /// The slot for `id`, allocating its segment. `None` past the table's capacity.
    pub(crate) fn get_or_alloc(&self, id: u64) -> Option<Slot<'_, R>> {
        let n = R::GROUP as u64;
        let group = &self.groups.get_or_alloc(id / n)?.0;
        Some(Slot {
            group,
            i: (id % n) as usize,
        })
    }
}

/// Where one entity lives: its group and its index in the group.
pub(crate) struct Slot<'a, R: Grouped> {
    group: &'a Mutex<Group<R>>,
    i: usize,
}

impl<R: Grouped> Clone for Slot<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Grouped> Copy for Slot<'_, R> {}

impl<'a, R: Grouped> Slot<'a, R> {
    /// Locks the entity's group; the guard reads and writes this entity.
    #[inline]
    pub(crate) fn lock(self) -> Locked<'a, R> {
        Locked {
            g: self.group.lock(),
            i: self.i,
        }
    }

    /// The entity locked in `held`: `held` re-pointed at it when it already holds this
    /// entity's group (a scan in id order then locks each group once, and reads its records
    /// with no fence between them), else the group it held given back and this one locked.
    #[inline]
    pub(crate) fn lock_into<'h>(self, held: &'h mut Option<Locked<'a, R>>) -> &'h Locked<'a, R> {
        if let Some(locked) = held.as_mut()
            && std::ptr::eq(MutexGuard::mutex(&locked.g), self.group)
        {
            locked.i = self.i;
        } else {
            // The group held is let go before another is taken: one lock at a time.
            *held = None;
        }
        held.get_or_insert_with(|| self.lock())
    }

    /// Starts fetching the lines of the group's lock and of this entity's record, without
    /// waiting and without a fence: what a batch asks for a few entities ahead of the one it
    /// reads (see `prefetch`). Addresses only are computed; nothing is read.
    #[inline]
    pub(crate) fn prefetch(self) {
        let lock = std::ptr::from_ref(self.group).cast::<u8>();
        let data = self.group.data_ptr().cast::<u8>();
        prefetch::line(lock);
        if (data as usize) / prefetch::LINE_BYTES != (lock as usize) / prefetch::LINE_BYTES {
            prefetch::line(data);
        }
        self.prefetch_record();
    }

    /// [`Slot::prefetch`] for the record's line alone: the group's own lines are already on
    /// their way for an earlier entity of the group.
    #[inline]
    pub(crate) fn prefetch_record(self) {
        let data = self.group.data_ptr().cast::<u8>();
        prefetch::line(data.wrapping_add(RECS_OFFSET + self.i * std::mem::size_of::<R>()));
    }

    /// The address of the entity's group: equal for two entities of one group.
    pub(crate) fn group_addr(self) -> usize {
        std::ptr::from_ref(self.group) as usize
    }

    fn same_group(self, other: Slot<'_, R>) -> bool {
        std::ptr::eq(self.group, other.group)
    }
}

/// One locked entity: its record (through `Deref`) and its version chain.
pub(crate) struct Locked<'a, R: Grouped> {
    g: MutexGuard<'a, Group<R>>,
    i: usize,
}

impl<R: Grouped> std::ops::Deref for Locked<'_, R> {
    type Target = R;

    #[inline]
    fn deref(&self) -> &R {
        &self.g.recs.as_ref()[self.i]
    }
}

impl<R: Grouped> std::ops::DerefMut for Locked<'_, R> {
    #[inline]
    fn deref_mut(&mut self) -> &mut R {
        &mut self.g.recs.as_mut()[self.i]
    }
}

impl<R: Grouped> Locked<'_, R> {
    /// The entity's version chain, newest delta first.
    #[inline]
    pub(crate) fn chain(&self) -> &Chain {
        let i = self.i as u32;
        if self.g.chains.is_empty() {
            return &NO_CHAIN;
        }
        self.g
            .chains
            .iter()
            .find(|(s, _)| *s == i)
            .map_or(&NO_CHAIN, |(_, c)| c)
    }

    /// The chain to push onto, made in the side table if the entity has none.
    pub(crate) fn chain_mut(&mut self) -> &mut Chain {
        let i = self.i as u32;
        let chains = &mut self.g.chains;
        let at = match chains.iter().position(|(s, _)| *s == i) {
            Some(at) => at,
            None => {
                chains.push((i, None));
                chains.len() - 1
            }
        };
        &mut chains[at].1
    }

    /// Removes the chain from the table (to cut or pop it); put it back with `set_chain`.
    pub(crate) fn take_chain(&mut self) -> Chain {
        let i = self.i as u32;
        let chains = &mut self.g.chains;
        match chains.iter().position(|(s, _)| *s == i) {
            Some(at) => chains.swap_remove(at).1,
            None => None,
        }
    }

    /// Installs a chain (an empty one removes the entry); an emptied table is freed.
    pub(crate) fn set_chain(&mut self, chain: Chain) {
        let i = self.i as u32;
        let chains = &mut self.g.chains;
        let at = chains.iter().position(|(s, _)| *s == i);
        match (at, chain) {
            (Some(at), Some(c)) => chains[at].1 = Some(c),
            (None, Some(c)) => chains.push((i, Some(c))),
            (Some(at), None) => {
                chains.swap_remove(at);
            }
            (None, None) => {}
        }
        if chains.is_empty() && chains.capacity() > 0 {
            *chains = ThinVec::new();
        }
    }
}

/// A relationship's two endpoints locked together: lower group first, so that two writers
/// never wait on each other in opposite orders; one lock when both share a group (a
/// self-loop included).
pub(crate) struct Pair<'a, R: Grouped> {
    first: Locked<'a, R>,
    second: Option<Locked<'a, R>>,
    start_first: bool,
    start_i: usize,
    end_i: usize,
}

impl<'a, R: Grouped> Pair<'a, R> {
    pub(crate) fn lock(start: Slot<'a, R>, end: Slot<'a, R>) -> Self {
        let (start_i, end_i) = (start.i, end.i);
        if start.same_group(end) {
            return Pair {
                first: start.lock(),
                second: None,
                start_first: true,
                start_i,
                end_i,
            };
        }
        let start_first = start.group_addr() < end.group_addr();
        let (a, b) = if start_first {
            (start, end)
        } else {
            (end, start)
        };
        let first = a.lock();
        let second = Some(b.lock());
        Pair {
            first,
            second,
            start_first,
            start_i,
            end_i,
        }
    }

    /// The start node.
    pub(crate) fn start(&mut self) -> &mut Locked<'a, R> {
        match (&mut self.second, self.start_first) {
            (Some(s), false) => s,
            _ => {
                self.first.i = self.start_i;
                &mut self.first
            }
        }
    }

    /// The end node (the start node again for a self-loop).
    pub(crate) fn end(&mut self) -> &mut Locked<'a, R> {
        match (&mut self.second, self.start_first) {
            (Some(s), true) => s,
            (Some(_), false) => &mut self.first,
            (None, _) => {
                self.first.i = self.end_i;
                &mut self.first
            }
        }
    }
}

/// A growable bitmap of node ids (one per label) that readers scan without locks.
///
/// A set bit means "this node may carry the label in some version someone can still see";
/// readers confirm each candidate against their snapshot, and garbage collection clears bits
/// once no version needs them.
pub(crate) struct Bitmap {
    /// 2^30 words cover every entity id; 1024-word leaves keep a small label's cost at 8 KiB.
    words: Arena<AtomicU64, 10, 10, 10>,
    /// One past the highest word index ever allocated, to bound scans.
    words_len: AtomicU64,
}

impl Bitmap {
    pub(crate) fn new() -> Self {
        Bitmap {
            words: Arena::new(),
            words_len: AtomicU64::new(0),
        }
    }

    pub(crate) fn set(&self, bit: u64) {
        let w = bit / 64;
        if let Some(word) = self.words.get_or_alloc(w) {
            word.fetch_or(1 << (bit % 64), Ordering::Release);
            self.words_len.fetch_max(w + 1, Ordering::Release);
        }
    }

    pub(crate) fn clear(&self, bit: u64) {
        if let Some(word) = self.words.get(bit / 64) {
            word.fetch_and(!(1 << (bit % 64)), Ordering::Release);
        }
    }

    pub(crate) fn contains(&self, bit: u64) -> bool {
        self.words
            .get(bit / 64)
            .is_some_and(|w| w.load(Ordering::Acquire) & (1 << (bit % 64)) != 0)
    }

    /// Calls `f` with every id in the set, in order, reading them 4096 at a time; stops at
    /// the first error `f` returns.
    pub(crate) fn try_for_each<E>(&self, mut f: impl FnMut(u64) -> Result<(), E>) -> Result<(), E> {
        let mut from = 0;
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let next = self.collect_from(from, 4096, &mut batch);
            for &id in &batch {
                f(id)?;
            }
            match next {
                Some(n) => from = n,
                None => return Ok(()),
            }
        }
    }

    /// [`Bitmap::try_for_each`] with an `f` that cannot fail.
    pub(crate) fn for_each(&self, mut f: impl FnMut(u64)) {
        let Ok(()) = self.try_for_each(|id| {
            f(id);
            Ok::<(), std::convert::Infallible>(())
        });
    }

    /// Appends set bits at or after `from` to `out`, at most `max` of them; returns the bit to
    /// resume from, or `None` when the bitmap is exhausted.
    pub(crate) fn collect_from(&self, from: u64, max: usize, out: &mut Vec<u64>) -> Option<u64> {
        let words_len = self.words_len.load(Ordering::Acquire);
        let mut w = from / 64;
        let mut mask = u64::MAX.checked_shl((from % 64) as u32).unwrap_or(0);
        let mut taken = 0;
        while w < words_len {
            let mut bits = self.words.get(w).map_or(0, |x| x.load(Ordering::Acquire)) & mask;
            while bits != 0 {
                let b = u64::from(bits.trailing_zeros());
                let id = w * 64 + b;
                if taken == max {
                    return Some(id);
                }
                out.push(id);
                taken += 1;
                bits &= bits - 1;
            }
            w += 1;
            mask = u64::MAX;
        }
        None
    }

    pub(crate) fn count_ones(&self) -> u64 {
        let words_len = self.words_len.load(Ordering::Acquire);
        (0..words_len)
            .map(|w| {
                self.words
                    .get(w)
                    .map_or(0, |x| u64::from(x.load(Ordering::Relaxed).count_ones()))
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ENTITY_IDS_MAX;

    #[test]
    fn arena_addresses_are_stable() {
        let a: Arena<AtomicU64> = Arena::new();
        assert!(a.get(5).is_none());
        let p = std::ptr::from_ref(a.get_or_alloc(5).unwrap());
        a.get_or_alloc(1 << 20).unwrap().store(3, Ordering::Relaxed);
        assert_eq!(std::ptr::from_ref(a.get(5).unwrap()), p);
        assert_eq!(a.get(1 << 20).unwrap().load(Ordering::Relaxed), 3);
        assert!(a.get_or_alloc(ENTITY_IDS_MAX).is_none());
    }

    #[test]
    fn groups_share_a_lock_and_keep_chains_aside() {
        use crate::graph::NodeRec;
        use crate::mvcc::{self, TX_ID_BASE, TxCell, Undo};

        let t: Table<NodeRec> = Table::new();
        assert!(t.get(40).is_none());
        let a = t.get_or_alloc(42).unwrap();
        let b = t.get_or_alloc(43).unwrap();
        let c = t.get_or_alloc(42 + NodeRec::GROUP as u64).unwrap();
        assert!(a.same_group(b) && !a.same_group(c));
        {
            let mut g = a.lock();
            g.init(&[1], &[]).unwrap();
            assert!(g.is_live() && !g.is_vacant());
            let cell = TxCell::new(TX_ID_BASE + 1);
            mvcc::push(g.chain_mut(), &cell, 0, Undo::Deleted, &mut Vec::new());
            assert!(!g.is_live() && !g.is_vacant());
        }
        // The chain belongs to slot 42 alone.
        assert!(b.lock().chain().is_none());
        assert!(a.lock().chain().is_some());
        let mut g = a.lock();
        let chain = g.take_chain();
        assert!(chain.is_some() && g.chain().is_none());
        g.set_chain(chain);
        assert!(g.chain().is_some());
        g.set_chain(None);
        assert!(g.chain().is_none() && g.is_live());
        drop(g);
        // A pair in one group takes one lock and reaches both records in turn.
        let mut p = Pair::lock(a, b);
        p.end().init(&[2], &[]).unwrap();
        assert_eq!(p.start().labels().unwrap().as_slice(), &[1]);
        assert_eq!(p.end().labels().unwrap().as_slice(), &[2]);
        drop(p);
        let mut p = Pair::lock(c, a);
        p.start().init(&[3], &[]).unwrap();
        assert_eq!(p.end().labels().unwrap().as_slice(), &[1]);
        drop(p);
        assert_eq!(c.lock().labels().unwrap().as_slice(), &[3]);
    }

    #[test]
    fn bitmap_scans_in_batches() {
        let b = Bitmap::new();
        for i in [0u64, 63, 64, 1000, 70_000] {
            b.set(i);
        }
        b.clear(1000);
        let mut out = Vec::new();
        let next = b.collect_from(0, 2, &mut out);
        assert_eq!(out, vec![0, 63]);
        assert_eq!(next, Some(64));
        out.clear();
        assert_eq!(b.collect_from(64, 10, &mut out), None);
        assert_eq!(out, vec![64, 70_000]);
        assert_eq!(b.count_ones(), 4);
        assert!(b.contains(63) && !b.contains(1000));
    }
}
