//! The live cost of a connection count: tasks, descriptors, threads and resident memory,
//! sampled every 25 ms on a thread of its own (off the runtimes being measured), plus one
//! sample taken at the peak — when the barrier opens and every connection is live.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::procfs::{self, Pid};

/// Sampling period.
pub const SAMPLE_PERIOD: Duration = Duration::from_millis(25);

/// Counts live tasks of the server's runtime (in process only).
pub type TaskCounter = Arc<dyn Fn() -> u64 + Send + Sync>;

/// What to sample: the server's process (this one, or a separate `quiver serve`).
#[derive(Clone)]
pub struct Probe {
    pub pid: Pid,
    /// Counting descriptors reads a directory of N entries; `--fd-sampling=false` skips it.
    pub fds: bool,
    pub tasks: Option<TaskCounter>,
}

impl std::fmt::Debug for Probe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Probe")
            .field("pid", &self.pid)
            .field("fds", &self.fds)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    pub tasks: Option<u64>,
    pub open_fds: Option<u64>,
    pub threads: Option<u64>,
    pub rss_bytes: Option<u64>,
}

impl Probe {
    pub fn sample(&self) -> Sample {
        Sample {
            tasks: self.tasks.as_ref().map(|count| count()),
            open_fds: if self.fds {
                procfs::open_fds(self.pid)
            } else {
                None
            },
            threads: procfs::threads(self.pid),
            rss_bytes: procfs::rss_bytes(self.pid),
        }
    }
}

impl Sample {
    /// Field-wise maximum.
    pub fn max(self, other: Sample) -> Sample {
        let m = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        Sample {
            tasks: m(self.tasks, other.tasks),
            open_fds: m(self.open_fds, other.open_fds),
            threads: m(self.threads, other.threads),
            rss_bytes: m(self.rss_bytes, other.rss_bytes),
        }
    }
}

/// A running sampler; [`Sampler::stop`] returns the maxima.
#[derive(Debug)]
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<(Sample, u64)>>,
}

impl Sampler {
    pub fn start(probe: Probe) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("lab-sampler".into())
            .spawn(move || {
                let mut max = probe.sample();
                let mut samples = 1u64;
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(SAMPLE_PERIOD);
                    max = max.max(probe.sample());
                    samples += 1;
                }
                (max, samples)
            })
            .ok();
        Sampler { stop, handle }
    }

    /// The field-wise maxima and the number of samples taken.
    pub fn stop(mut self) -> (Sample, u64) {
        self.stop.store(true, Ordering::Relaxed);
        self.handle
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maxima_are_field_wise() {
        let a = Sample {
            tasks: Some(3),
            open_fds: None,
            threads: Some(9),
            rss_bytes: Some(10),
        };
        let b = Sample {
            tasks: Some(5),
            open_fds: Some(7),
            threads: Some(2),
            rss_bytes: None,
        };
        assert_eq!(
            a.max(b),
            Sample {
                tasks: Some(5),
                open_fds: Some(7),
                threads: Some(9),
                rss_bytes: Some(10),
            }
        );
    }

    #[test]
    fn samples_until_stopped() {
        let probe = Probe {
            pid: Pid::This,
            fds: true,
            tasks: Some(Arc::new(|| 42)),
        };
        let sampler = Sampler::start(probe);
        std::thread::sleep(SAMPLE_PERIOD * 3);
        let (max, samples) = sampler.stop();
        assert!(samples >= 2);
        assert_eq!(max.tasks, Some(42));
        assert!(max.open_fds.unwrap() >= 3);
    }
}
