//! The destination: a database is built in a staging directory beside the target and renamed
//! onto it only once complete, so whatever stops an import (an error, a kill, a power cut)
//! never leaves a half-written database where `quiver serve` would open one.
//!
//! ```text
//! <parent>/<name>                  the target: absent or empty (or replaced, when asked)
//! <parent>/.<name>.import          staging, locked by the import writing it
//! <parent>/.<name>.replaced        the old target for a moment during an overwrite
//! ```
//!
//! A staging directory left by a killed import holds no lock, so the next import clears it;
//! one whose lock is held belongs to an import still running, which is refused.

use std::path::{Path, PathBuf};

use quiver_durability::DirLock;

use crate::error::Error;

pub struct Staging {
    target: PathBuf,
    dir: PathBuf,
    lock: Option<DirLock>,
}

fn sibling(target: &Path, suffix: &str) -> Result<PathBuf, Error> {
    let name = target.file_name().ok_or_else(|| Error::Destination {
        path: target.to_path_buf(),
        reason: "names no directory".to_string(),
    })?;
    let parent = target.parent().unwrap_or(Path::new(""));
    Ok(parent.join(format!(".{}.{suffix}", name.to_string_lossy())))
}

fn is_empty_dir(path: &Path) -> Result<bool, Error> {
    let mut entries = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?;
    Ok(entries.next().is_none())
}

fn sync_dir(path: &Path) -> Result<(), Error> {
    std::fs::File::open(path)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(path, e))
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

impl Staging {
    /// Checks the target and makes a fresh, locked staging directory beside it.
    pub fn prepare(target: &Path, overwrite: bool) -> Result<Staging, Error> {
        let refuse = |reason: &str| Error::Destination {
            path: target.to_path_buf(),
            reason: reason.to_string(),
        };
        if target.exists() {
            if !target.is_dir() {
                return Err(refuse("exists and is not a directory"));
            }
            if !overwrite && !is_empty_dir(target)? {
                return Err(refuse(
                    "is not empty (pass --overwrite-destination to replace it)",
                ));
            }
        }
        std::fs::create_dir_all(parent_of(target)).map_err(|e| Error::io(parent_of(target), e))?;
        let dir = sibling(target, "import")?;
        if dir.exists() {
            // Held: another import is writing it. Free: a leftover of a killed one.
            let held = DirLock::acquire(&dir).map_err(|e| Error::Destination {
                path: target.to_path_buf(),
                reason: format!("another import is writing it: {e}"),
            })?;
            std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            drop(held);
        }
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        let lock = DirLock::acquire(&dir).map_err(|e| Error::Destination {
            path: dir.clone(),
            reason: e.to_string(),
        })?;
        Ok(Staging {
            target: target.to_path_buf(),
            dir,
            lock: Some(lock),
        })
    }

    /// Where the database is being built.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Renames the finished staging directory onto the target. A target to overwrite is
    /// first locked (a server using it is not pushed aside) and moved out of the way.
    pub fn commit(mut self) -> Result<PathBuf, Error> {
        sync_dir(&self.dir)?;
        let mut replaced = None;
        let mut target_lock = None;
        if self.target.exists() && !is_empty_dir(&self.target)? {
            target_lock = Some(
                DirLock::acquire(&self.target).map_err(|e| Error::Destination {
                    path: self.target.clone(),
                    reason: e.to_string(),
                })?,
            );
            let aside = sibling(&self.target, "replaced")?;
            if aside.exists() {
                std::fs::remove_dir_all(&aside).map_err(|e| Error::io(&aside, e))?;
            }
            std::fs::rename(&self.target, &aside).map_err(|e| Error::io(&self.target, e))?;
            replaced = Some(aside);
        }
        // Renaming a directory onto an empty one replaces it.
        std::fs::rename(&self.dir, &self.target).map_err(|e| Error::io(&self.target, e))?;
        sync_dir(parent_of(&self.target))?;
        drop(target_lock);
        self.lock = None;
        if let Some(aside) = replaced {
            std::fs::remove_dir_all(&aside).map_err(|e| Error::io(&aside, e))?;
        }
        Ok(self.target.clone())
    }
}

impl Drop for Staging {
    /// An import that did not commit leaves nothing behind (a kill leaves the staging
    /// directory, which is never opened as a database and is cleared by the next import).
    fn drop(&mut self) {
        if self.lock.take().is_some() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_empty_target_needs_overwrite_and_staging_is_cleared_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("db");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("old"), b"x").unwrap();
        assert!(matches!(
            Staging::prepare(&target, false),
            Err(Error::Destination { .. })
        ));
        let s = Staging::prepare(&target, true).unwrap();
        let staging = s.dir().to_path_buf();
        assert!(staging.exists());
        drop(s);
        assert!(!staging.exists());
        assert!(target.join("old").exists());

        let s = Staging::prepare(&target, true).unwrap();
        std::fs::write(s.dir().join("new"), b"y").unwrap();
        s.commit().unwrap();
        assert!(target.join("new").exists() && !target.join("old").exists());
        assert!(!sibling(&target, "replaced").unwrap().exists());
    }

    #[test]
    fn a_leftover_staging_directory_is_cleared_and_a_held_one_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("db");
        let leftover = sibling(&target, "import").unwrap();
        std::fs::create_dir(&leftover).unwrap();
        std::fs::write(leftover.join("junk"), b"x").unwrap();
        let s = Staging::prepare(&target, false).unwrap();
        assert!(!s.dir().join("junk").exists());
        assert!(matches!(
            Staging::prepare(&target, false),
            Err(Error::Destination { .. })
        ));
        let done = s.commit().unwrap();
        assert!(done.join("LOCK").exists() || done.exists());
    }
}
