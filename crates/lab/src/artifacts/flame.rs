//! The CPU profile of the probe window, as a flamegraph SVG.
//!
//! Sampling at 997 Hz (prime, so it does not beat with periodic work) through `pprof`'s
//! signal-driven profiler. Profiling perturbs what it measures, which is why only the probe
//! window runs under it and its throughput is never quoted (see [`crate::rung`]).

use std::path::Path;

use crate::error::LabError;

/// Samples per second of CPU time.
pub const FREQUENCY_HZ: i32 = 997;

/// A running CPU profile; [`Profile::write_flamegraph`] stops it.
pub struct Profile {
    guard: pprof::ProfilerGuard<'static>,
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Profile")
    }
}

impl Profile {
    pub fn start() -> Result<Profile, LabError> {
        let guard = pprof::ProfilerGuardBuilder::default()
            .frequency(FREQUENCY_HZ)
            // Unwinding through these from a signal handler can deadlock.
            .blocklist(&["libc", "libgcc", "pthread", "vdso"])
            .build()
            .map_err(|e| LabError::Rung {
                rung: "probe".into(),
                detail: format!("cannot start the CPU profiler: {e}"),
            })?;
        Ok(Profile { guard })
    }

    /// Writes the flamegraph and returns the number of samples it holds.
    pub fn write_flamegraph(self, path: &Path) -> Result<u64, LabError> {
        let report = self.guard.report().build().map_err(|e| LabError::Rung {
            rung: "probe".into(),
            detail: format!("cannot build the CPU profile: {e}"),
        })?;
        let samples: u64 = report.data.values().map(|n| *n as u64).sum();
        let file = std::fs::File::create(path).map_err(|e| LabError::artifact(path, e))?;
        report.flamegraph(file).map_err(|e| LabError::Rung {
            rung: "probe".into(),
            detail: format!("cannot write the flamegraph: {e}"),
        })?;
        Ok(samples)
    }
}
