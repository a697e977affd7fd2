//! Software prefetch: asking the memory system for a line before it is read.
//!
//! An expand's time goes to cache misses (a node's group, then its block), and a lock is a
//! full fence: a plain load issued before a lock must complete before the lock is taken, so
//! misses taken by loads between locks come one after another. A prefetch is the one memory
//! operation a locked instruction does not wait for, so a batched expand prefetches a few
//! nodes ahead of the one it reads and their misses overlap with its work.
//!
//! This is the storage crate's only `unsafe` code: the intrinsic is an `unsafe fn` because it
//! is compiled for a target feature, not because of what it does with its pointer.

/// Bytes of one cache line.
pub(crate) const LINE_BYTES: usize = 64;

/// Most lines of one block [`bytes`] asks for: enough for a typical node's header, blob and
/// out-list; the hardware's stream prefetcher takes over along longer blocks.
pub(crate) const BLOCK_LINES_MAX: usize = 4;

/// Starts fetching the line holding `p` into every cache level, without waiting for it.
#[inline]
#[allow(unsafe_code)]
pub(crate) fn line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` is unsafe only because it is compiled for SSE, which every
    // x86_64 processor has (it is part of the architecture's baseline). The instruction is a
    // hint: it reads nothing a program can observe and never faults, whatever the address,
    // so no pointer, valid or not, makes it undefined behaviour; callers pass addresses
    // derived from live references all the same.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Starts fetching the lines holding the first `BLOCK_LINES_MAX` lines' worth of the `len`
/// bytes at address `at`. Only an address: the bytes may have been freed since it was taken
/// (a prefetch of memory nobody owns is still only a hint).
#[inline]
pub(crate) fn span(at: usize, len: usize) {
    let first = at - at % LINE_BYTES;
    let end = at.saturating_add(len.min(BLOCK_LINES_MAX * LINE_BYTES));
    let mut line_at = first;
    while line_at < end {
        line(std::ptr::without_provenance(line_at));
        // The last line of the address space has no successor.
        let Some(next) = line_at.checked_add(LINE_BYTES) else {
            break;
        };
        line_at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetching_changes_nothing_it_touches() {
        // Every length, every alignment within a line, and the empty slice: the bytes read
        // back unchanged and nothing faults.
        let buf: Vec<u8> = (0..=255u8).cycle().take(1024).collect();
        for from in 0..LINE_BYTES {
            for len in [0, 1, 63, 64, 65, 200, 256, 900] {
                let s = &buf[from..(from + len).min(buf.len())];
                span(s.as_ptr() as usize, s.len());
            }
        }
        span(usize::MAX - 10, 100);
        assert!(buf.iter().enumerate().all(|(i, b)| *b == (i % 256) as u8));
        // A hint about an address nothing owns is still only a hint.
        line(std::ptr::null());
        line(std::ptr::without_provenance(usize::MAX));
    }
}
