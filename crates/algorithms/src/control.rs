//! How a kernel runs: on a pool of the caller's size, checking between steps whether it
//! should stop.

use std::fmt;
use std::ops::Range;

use rayon::prelude::*;

/// A kernel stopped before its end because its [`Control`]'s check said so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the computation was interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// The nodes one parallel task takes before the kernel checks whether to stop again.
pub(crate) const BLOCK: usize = 4096;

/// A check a kernel calls between steps of work.
type Check<'a> = dyn Fn() -> Result<(), Interrupted> + Sync + 'a;

/// Where and for how long a kernel may run: a thread pool of `concurrency` threads and a
/// check called between bounded steps of work (from any of the pool's threads).
pub struct Control<'a> {
    pool: rayon::ThreadPool,
    concurrency: usize,
    check: &'a Check<'a>,
}

impl<'a> Control<'a> {
    /// A control with `concurrency` threads (at least one) and `check`.
    pub fn new(concurrency: usize, check: &'a Check<'a>) -> Control<'a> {
        let concurrency = concurrency.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(concurrency)
            .thread_name(|i| format!("quiver-algorithms-{i}"))
            .build()
            .or_else(|_| rayon::ThreadPoolBuilder::new().num_threads(1).build())
            .expect("a pool of one thread can always be built");
        Control {
            pool,
            concurrency,
            check,
        }
    }

    /// The number of threads kernels run on.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Fails with [`Interrupted`] when the caller should stop.
    pub fn check(&self) -> Result<(), Interrupted> {
        (self.check)()
    }

    /// Runs `work` on the pool: rayon's parallel iterators inside it use its threads.
    pub fn install<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        self.pool.install(work)
    }

    /// Runs `work` over `0..n` in blocks of [`BLOCK`] on the pool, checking before each block,
    /// and returns the blocks' results in order.
    pub(crate) fn blocks<R: Send>(
        &self,
        n: usize,
        work: impl Fn(Range<usize>) -> R + Sync + Send,
    ) -> Result<Vec<R>, Interrupted> {
        let count = n.div_ceil(BLOCK);
        self.install(|| {
            (0..count)
                .into_par_iter()
                .map(|b| {
                    self.check()?;
                    Ok(work(b * BLOCK..((b + 1) * BLOCK).min(n)))
                })
                .collect()
        })
    }

    /// Fills `out[i] = f(i)` for every index on the pool, checking before each block.
    pub(crate) fn fill<T: Send>(
        &self,
        out: &mut [T],
        f: impl Fn(usize) -> T + Sync + Send,
    ) -> Result<(), Interrupted> {
        self.install(|| {
            out.par_chunks_mut(BLOCK)
                .enumerate()
                .try_for_each(|(b, chunk)| {
                    self.check()?;
                    for (i, slot) in chunk.iter_mut().enumerate() {
                        *slot = f(b * BLOCK + i);
                    }
                    Ok(())
                })
        })
    }
}

/// SplitMix64's finaliser: a well-spread 64-bit hash of `x`, the crate's one source of
/// seeded randomness (so a seed gives the same numbers on any thread).
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// `size` of the indices `0..n` (all of them when `size >= n`), drawn by `seed`.
pub fn sample(n: usize, size: usize, seed: u64) -> Vec<u32> {
    let mut all: Vec<u32> = (0..n as u32).collect();
    let take = size.min(n);
    for i in 0..take {
        let j = i + (mix(seed ^ mix(i as u64)) % (n - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(take);
    all
}

/// A control on one thread that never stops: for tests and callers with no limits.
pub fn unlimited() -> Control<'static> {
    Control::new(1, &|| Ok(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn blocks_cover_every_index_once_in_order() {
        let control = Control::new(3, &|| Ok(()));
        let ranges = control.blocks(10_000, |r| r).unwrap();
        let flat: Vec<usize> = ranges.into_iter().flatten().collect();
        assert_eq!(flat, (0..10_000).collect::<Vec<_>>());
    }

    #[test]
    fn a_failing_check_stops_the_work() {
        let calls = AtomicUsize::new(0);
        let check = || {
            if calls.fetch_add(1, Ordering::Relaxed) >= 2 {
                Err(Interrupted)
            } else {
                Ok(())
            }
        };
        let control = Control::new(1, &check);
        assert_eq!(control.blocks(100_000, |r| r.len()), Err(Interrupted));
    }
}
