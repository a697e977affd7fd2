//! Segmented arenas: entities at stable addresses, indexed by dense id.
//!
//! A three-level radix of lazily allocated segments. Growth allocates a new leaf and never
//! moves an existing entity, so a reader holding `&T` is never invalidated and never waits for
//! a resize; finding a slot is three acquire loads. Leaves are small (4096 slots) so the
//! memory reserved beyond the last entity stays bounded.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

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

    #[cfg(test)]
    pub(crate) fn contains(&self, bit: u64) -> bool {
        self.words
            .get(bit / 64)
            .is_some_and(|w| w.load(Ordering::Acquire) & (1 << (bit % 64)) != 0)
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
