//! What lives in a data directory, and the removal of files a snapshot made redundant.
//!
//! ```text
//! <dir>/LOCK                                   the directory lock (see `lockfile`)
//! <dir>/log-<first commit>.qlog                log segments, in commit order
//! <dir>/snapshot-<commit>.qsnap                complete snapshots
//! <dir>/snapshot-<commit>.qsnap.tmp            a snapshot being written (removed at start)
//! <dir>/backup-scratch/                        backup pieces being handed out (removed at
//!                                              start)
//! ```

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::disk::Disk;
use crate::error::{Error, Result};
use crate::frame::{TEMP_SUFFIX, parse_segment_name, parse_snapshot_name};
use crate::mode::Retention;

/// Where backup pieces are written before they are handed out: a directory of its own in the
/// data directory, which nothing else reads and the store clears when it opens.
pub const BACKUP_SCRATCH_DIR: &str = "backup-scratch";

/// The directory's files, each list sorted by commit.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    pub snapshots: Vec<(u64, PathBuf)>,
    pub segments: Vec<(u64, PathBuf)>,
    pub temps: Vec<PathBuf>,
}

pub(crate) fn list(disk: &dyn Disk, dir: &Path) -> Result<Listing> {
    let mut out = Listing::default();
    for name in disk.list(dir).map_err(|e| Error::io(dir, e))? {
        let path = dir.join(&name);
        if let Some(base) = parse_segment_name(&name) {
            out.segments.push((base, path));
        } else if let Some(commit) = parse_snapshot_name(&name) {
            out.snapshots.push((commit, path));
        } else if name.ends_with(TEMP_SUFFIX) {
            out.temps.push(path);
        }
    }
    out.snapshots.sort();
    out.segments.sort();
    Ok(out)
}

/// The bytes a data directory's files hold: its snapshots (the database itself) and its log
/// segments (the commits since, and those a snapshot has not yet made redundant).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DiskUsage {
    pub snapshot_bytes: u64,
    pub log_bytes: u64,
}

/// The space of the file system a data directory is on, as an unprivileged writer sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FreeSpace {
    /// Bytes a writer can still take (the file system's reserve left out).
    pub available_bytes: u64,
    /// The file system's size.
    pub total_bytes: u64,
}

/// The space of the file system `dir` is on.
pub fn free_space(dir: &Path) -> std::io::Result<FreeSpace> {
    let fs = rustix::fs::statvfs(dir).map_err(std::io::Error::from)?;
    Ok(FreeSpace {
        available_bytes: fs.f_bavail.saturating_mul(fs.f_frsize),
        total_bytes: fs.f_blocks.saturating_mul(fs.f_frsize),
    })
}

/// Measures the snapshots and log segments in `dir`. A file removed between the listing and
/// its measurement (a snapshot made it redundant) counts as empty.
pub fn disk_usage(disk: &dyn Disk, dir: &Path) -> Result<DiskUsage> {
    let listing = list(disk, dir)?;
    let bytes = |files: &[(u64, PathBuf)]| -> Result<u64> {
        let mut total = 0u64;
        for (_, path) in files {
            total += match disk.len(path) {
                Ok(len) => len,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
                Err(e) => return Err(Error::io(path, e)),
            };
        }
        Ok(total)
    };
    Ok(DiskUsage {
        snapshot_bytes: bytes(&listing.snapshots)?,
        log_bytes: bytes(&listing.segments)?,
    })
}

/// Removes snapshots older than `commit` and the segments whose every record is at or below
/// it (known from the next segment's base), except those `retention` keeps. The newest
/// segment is never removed: the log writer may be appending to it.
pub(crate) fn remove_covered(
    disk: &dyn Disk,
    dir: &Path,
    commit: u64,
    retention: &Retention,
) -> Result<usize> {
    let listing = list(disk, dir)?;
    let mut removed = 0;
    for (c, path) in &listing.snapshots {
        if *c < commit {
            disk.remove(path).map_err(|e| Error::io(path, e))?;
        }
    }
    let covered: Vec<&PathBuf> = listing
        .segments
        .windows(2)
        .filter_map(|pair| match pair {
            [(_, path), (next_base, _)] if *next_base <= commit.saturating_add(1) => Some(path),
            _ => None,
        })
        .collect();
    // Newest first: the window keeps the most recent log.
    let mut newer_bytes = 0u64;
    let now = SystemTime::now();
    for path in covered.into_iter().rev() {
        let bytes = disk.len(path).map_err(|e| Error::io(path, e))?;
        let age = disk
            .modified(path)
            .map_err(|e| Error::io(path, e))?
            .and_then(|at| now.duration_since(at).ok())
            .unwrap_or_default();
        if retention.keeps(age, newer_bytes, bytes) {
            newer_bytes = newer_bytes.saturating_add(bytes);
            continue;
        }
        // Older ones are outside the size window too; only their age may keep them.
        newer_bytes = u64::MAX;
        disk.remove(path).map_err(|e| Error::io(path, e))?;
        removed += 1;
    }
    disk.sync_dir(dir).map_err(|e| Error::io(dir, e))?;
    Ok(removed)
}

/// Copies every closed segment (all but the newest) that `archive` lacks into it, synced,
/// each under its own name: a copy is written as a temporary file and renamed once whole.
/// Returns how many were copied.
pub(crate) fn archive_closed(disk: &dyn Disk, dir: &Path, archive: &Path) -> Result<usize> {
    let listing = list(disk, dir)?;
    let Some((_, closed)) = listing.segments.split_last() else {
        return Ok(0);
    };
    std::fs::create_dir_all(archive).map_err(|e| Error::io(archive, e))?;
    let mut copied = 0;
    for (_, path) in closed {
        let Some(name) = path.file_name() else {
            continue;
        };
        let target = archive.join(name);
        if target.exists() {
            continue;
        }
        let tmp = archive.join(format!("{}{TEMP_SUFFIX}", name.to_string_lossy()));
        let bytes = disk.read(path).map_err(|e| Error::io(path, e))?;
        let mut file = std::fs::File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        std::io::Write::write_all(&mut file, &bytes).map_err(|e| Error::io(&tmp, e))?;
        file.sync_all().map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &target).map_err(|e| Error::io(&target, e))?;
        copied += 1;
    }
    if copied > 0 {
        crate::backup::sync_dir(archive)?;
    }
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;
    use crate::frame::{segment_name, snapshot_name};

    #[test]
    fn a_directory_s_file_system_has_its_free_space_within_its_size() {
        let tmp = tempfile::tempdir().unwrap();
        let space = free_space(tmp.path()).unwrap();
        assert!(space.total_bytes > 0);
        assert!(space.available_bytes <= space.total_bytes);
        let missing = free_space(&tmp.path().join("not-there")).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn covered_segments_and_old_snapshots_go() {
        let tmp = tempfile::tempdir().unwrap();
        let d = RealDisk;
        let dir = tmp.path();
        for name in [
            segment_name(1),
            segment_name(10),
            segment_name(21),
            segment_name(30),
            snapshot_name(5),
            snapshot_name(20),
            "snapshot-00000000000000000025.qsnap.tmp".to_string(),
            "README".to_string(),
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let l = list(&d, dir).unwrap();
        assert_eq!(l.segments.len(), 4);
        assert_eq!(l.snapshots.len(), 2);
        assert_eq!(l.temps.len(), 1);
        // Snapshot 20 covers segments 1 and 10 (segment 21 starts right after it).
        assert_eq!(
            remove_covered(&d, dir, 20, &Retention::default()).unwrap(),
            2
        );
        let l = list(&d, dir).unwrap();
        let bases: Vec<u64> = l.segments.iter().map(|s| s.0).collect();
        assert_eq!(bases, vec![21, 30]);
        assert_eq!(l.snapshots.len(), 1);
        // Even a snapshot past everything keeps the newest segment.
        remove_covered(&d, dir, 1000, &Retention::default()).unwrap();
        assert_eq!(list(&d, dir).unwrap().segments.len(), 1);
    }

    #[test]
    fn retention_keeps_the_newest_redundant_segments_that_fit_its_window() {
        let tmp = tempfile::tempdir().unwrap();
        let d = RealDisk;
        let dir = tmp.path();
        for base in [1u64, 10, 20, 30, 40] {
            std::fs::write(dir.join(segment_name(base)), [0u8; 100]).unwrap();
        }
        // Segments 1 to 30 are covered by commit 39; the window holds two of them.
        let by_size = Retention {
            age: None,
            bytes: 250,
        };
        assert_eq!(remove_covered(&d, dir, 39, &by_size).unwrap(), 2);
        let bases: Vec<u64> = list(&d, dir)
            .unwrap()
            .segments
            .iter()
            .map(|s| s.0)
            .collect();
        assert_eq!(bases, vec![20, 30, 40]);
        // Everything was written just now: an age window keeps it all.
        let by_age = Retention {
            age: Some(std::time::Duration::from_secs(3600)),
            bytes: 0,
        };
        assert_eq!(remove_covered(&d, dir, 39, &by_age).unwrap(), 0);
        assert_eq!(
            remove_covered(&d, dir, 39, &Retention::default()).unwrap(),
            2
        );
    }

    #[test]
    fn the_archive_gets_every_closed_segment_once_and_never_the_open_one() {
        let tmp = tempfile::tempdir().unwrap();
        let d = RealDisk;
        let (dir, archive) = (tmp.path().join("data"), tmp.path().join("archive"));
        std::fs::create_dir_all(&dir).unwrap();
        for base in [1u64, 10, 20] {
            std::fs::write(dir.join(segment_name(base)), [base as u8; 10]).unwrap();
        }
        assert_eq!(archive_closed(&d, &dir, &archive).unwrap(), 2);
        assert_eq!(archive_closed(&d, &dir, &archive).unwrap(), 0);
        let mut names: Vec<String> = d.list(&archive).unwrap();
        names.sort();
        assert_eq!(names, vec![segment_name(1), segment_name(10)]);
        assert_eq!(
            std::fs::read(archive.join(segment_name(10))).unwrap(),
            [10u8; 10]
        );
    }

    #[test]
    fn disk_usage_counts_snapshots_and_segments_apart_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join(segment_name(1)), [0u8; 100]).unwrap();
        std::fs::write(dir.join(segment_name(9)), [0u8; 20]).unwrap();
        std::fs::write(dir.join(snapshot_name(8)), [0u8; 300]).unwrap();
        std::fs::write(dir.join("README"), [0u8; 7]).unwrap();
        assert_eq!(
            disk_usage(&RealDisk, dir).unwrap(),
            DiskUsage {
                snapshot_bytes: 300,
                log_bytes: 120
            }
        );
    }
}
