//! The data directory's lock: two servers writing one commit log would interleave records
//! and destroy it, so the second one must stop before it reads anything.
//!
//! The lock is an advisory `flock` on `LOCK`, which the kernel drops when the process dies,
//! so a crash never leaves a stale lock behind. The file holds the owner's process id only
//! to make the refusal message useful.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const LOCK_FILE_NAME: &str = "LOCK";

/// Held for as long as the directory is open; dropping it closes the file, which releases
/// the lock.
#[derive(Debug)]
pub struct DirLock {
    /// Never read: holding the open file is what holds the lock.
    #[allow(dead_code)]
    file: File,
    path: PathBuf,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path = dir.join(LOCK_FILE_NAME);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut owner = String::new();
                // The owner may be rewriting the file; a garbled id only weakens the message.
                let _ = file.read_to_string(&mut owner);
                let owner = owner.trim();
                let holder = if owner.is_empty() {
                    String::new()
                } else {
                    format!(" (held by {owner})")
                };
                return Err(Error::Locked {
                    dir: dir.to_path_buf(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(Error::io(&path, e)),
        }
        let stamp = format!("pid {}\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| file.write_all(stamp.as_bytes()))
            .map_err(|e| Error::io(&path, e))?;
        Ok(DirLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(tmp.path()).unwrap();
        assert!(first.path().ends_with(LOCK_FILE_NAME));
        let err = DirLock::acquire(tmp.path()).unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, Error::Locked { .. }), "{text}");
        assert!(text.contains("already in use"), "{text}");
        assert!(
            text.contains(&format!("pid {}", std::process::id())),
            "{text}"
        );
        drop(first);
        DirLock::acquire(tmp.path()).unwrap();
    }
}
