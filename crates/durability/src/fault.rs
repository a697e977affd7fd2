//! A failing disk for fault injection: the real file system, with writes and syncs that fail
//! when a test says so.
//!
//! A full disk is modelled the way the kernel reports it: a write goes through partly, up to
//! the space left, and then fails with `ENOSPC`, leaving a torn record for recovery to cut.

use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::disk::{Disk, DiskFile, RealDisk};

/// What to break. Shared between the test and the disk, and changeable while the log runs.
#[derive(Debug)]
pub struct FaultPlan {
    /// Faults apply only to files whose name ends with this (e.g. `.qlog`); empty: all files.
    suffix: String,
    fail_writes: AtomicBool,
    fail_syncs: AtomicBool,
    fail_truncates: AtomicBool,
    /// Bytes that may still be written before the disk is full.
    space_bytes: AtomicU64,
    writes: AtomicU64,
    syncs: AtomicU64,
}

impl FaultPlan {
    pub fn new(suffix: &str) -> Arc<FaultPlan> {
        Arc::new(FaultPlan {
            suffix: suffix.to_string(),
            fail_writes: AtomicBool::new(false),
            fail_syncs: AtomicBool::new(false),
            fail_truncates: AtomicBool::new(false),
            space_bytes: AtomicU64::new(u64::MAX),
            writes: AtomicU64::new(0),
            syncs: AtomicU64::new(0),
        })
    }

    /// Every later write fails with an I/O error and writes nothing.
    pub fn fail_writes(&self, on: bool) {
        self.fail_writes.store(on, Ordering::SeqCst);
    }

    /// Every later `fsync`/`fdatasync` fails with an I/O error.
    pub fn fail_syncs(&self, on: bool) {
        self.fail_syncs.store(on, Ordering::SeqCst);
    }

    /// Every later attempt to cut a file back fails, so a torn record stays on disk.
    pub fn fail_truncates(&self, on: bool) {
        self.fail_truncates.store(on, Ordering::SeqCst);
    }

    /// The disk fills up after `bytes` more bytes.
    pub fn set_space_bytes(&self, bytes: u64) {
        self.space_bytes.store(bytes, Ordering::SeqCst);
    }

    /// Writes attempted on matching files so far.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::SeqCst)
    }

    /// Syncs attempted on matching files so far.
    pub fn syncs(&self) -> u64 {
        self.syncs.load(Ordering::SeqCst)
    }

    fn applies(&self, path: &Path) -> bool {
        self.suffix.is_empty()
            || path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(&self.suffix))
    }

    fn injected(what: &str) -> io::Error {
        io::Error::other(format!("injected {what} failure"))
    }
}

/// [`RealDisk`] with the faults of a [`FaultPlan`].
#[derive(Debug)]
pub struct FaultyDisk {
    real: RealDisk,
    plan: Arc<FaultPlan>,
}

impl FaultyDisk {
    pub fn new(plan: Arc<FaultPlan>) -> FaultyDisk {
        FaultyDisk {
            real: RealDisk,
            plan,
        }
    }
}

struct FaultyFile {
    inner: Box<dyn DiskFile>,
    plan: Arc<FaultPlan>,
}

impl DiskFile for FaultyFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        let plan = &self.plan;
        plan.writes.fetch_add(1, Ordering::SeqCst);
        if plan.fail_writes.load(Ordering::SeqCst) {
            return Err(FaultPlan::injected("write"));
        }
        let room = plan.space_bytes.load(Ordering::SeqCst);
        let len = bytes.len() as u64;
        if room < len {
            plan.space_bytes.store(0, Ordering::SeqCst);
            let part = bytes.get(..room as usize).unwrap_or_default();
            self.inner.write_all(part)?;
            return Err(io::Error::from_raw_os_error(28)); // ENOSPC
        }
        if room != u64::MAX {
            plan.space_bytes.fetch_sub(len, Ordering::SeqCst);
        }
        self.inner.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.plan.syncs.fetch_add(1, Ordering::SeqCst);
        if self.plan.fail_syncs.load(Ordering::SeqCst) {
            return Err(FaultPlan::injected("fdatasync"));
        }
        self.inner.sync_data()
    }

    fn sync_all(&mut self) -> io::Result<()> {
        self.plan.syncs.fetch_add(1, Ordering::SeqCst);
        if self.plan.fail_syncs.load(Ordering::SeqCst) {
            return Err(FaultPlan::injected("fsync"));
        }
        self.inner.sync_all()
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        if self.plan.fail_truncates.load(Ordering::SeqCst) {
            return Err(FaultPlan::injected("truncate"));
        }
        self.inner.set_len(len)
    }
}

impl Disk for FaultyDisk {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.real.create_dir_all(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.real.list(dir)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>> {
        let inner = self.real.create(path)?;
        if self.plan.applies(path) {
            Ok(Box::new(FaultyFile {
                inner,
                plan: self.plan.clone(),
            }))
        } else {
            Ok(inner)
        }
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        self.real.read(path)
    }

    fn read_from(&self, path: &Path, offset: u64) -> io::Result<Vec<u8>> {
        self.real.read_from(path, offset)
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        self.real.open_read(path)
    }

    fn len(&self, path: &Path) -> io::Result<u64> {
        self.real.len(path)
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        if self.plan.applies(path)
            && (self.plan.fail_syncs.load(Ordering::SeqCst)
                || self.plan.fail_truncates.load(Ordering::SeqCst))
        {
            return Err(FaultPlan::injected("truncate"));
        }
        self.real.truncate(path, len)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.real.rename(from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        self.real.remove(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        if self.plan.fail_syncs.load(Ordering::SeqCst) && self.plan.suffix.is_empty() {
            return Err(FaultPlan::injected("directory fsync"));
        }
        self.real.sync_dir(dir)
    }

    fn modified(&self, path: &Path) -> io::Result<Option<std::time::SystemTime>> {
        self.real.modified(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_disk_writes_partly_then_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = FaultPlan::new(".qlog");
        let d = FaultyDisk::new(plan.clone());
        let p = tmp.path().join("x.qlog");
        let mut f = d.create(&p).unwrap();
        plan.set_space_bytes(3);
        let e = f.write_all(b"abcdef").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(28));
        drop(f);
        assert_eq!(d.read(&p).unwrap(), b"abc");
        assert_eq!(plan.writes(), 1);
    }

    #[test]
    fn faults_apply_only_to_matching_files() {
        let tmp = tempfile::tempdir().unwrap();
        let plan = FaultPlan::new(".qlog");
        plan.fail_writes(true);
        plan.fail_syncs(true);
        let d = FaultyDisk::new(plan.clone());
        let mut other = d.create(&tmp.path().join("x.qsnap")).unwrap();
        other.write_all(b"ok").unwrap();
        other.sync_all().unwrap();
        let mut log = d.create(&tmp.path().join("x.qlog")).unwrap();
        assert!(log.write_all(b"no").is_err());
        assert!(log.sync_data().is_err());
        plan.fail_writes(false);
        log.write_all(b"yes").unwrap();
    }
}
