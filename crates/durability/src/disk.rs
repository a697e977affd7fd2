//! The storage seam: every byte the durability layer reads or writes goes through [`Disk`].
//!
//! The real backend is a thin layer over `std::fs`; [`crate::fault::FaultyDisk`] wraps it to
//! fail writes and syncs on demand, which is how the disk-fault rules are tested without a
//! broken disk. The lock file stays outside the seam: it guards the directory, not the data.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

/// A file being written: the log's open segment or a snapshot in progress.
pub trait DiskFile: Send {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Makes written data durable (`fdatasync`): enough for appends to a file whose size
    /// change the sync also covers.
    fn sync_data(&mut self) -> io::Result<()>;
    /// Makes data and metadata durable (`fsync`).
    fn sync_all(&mut self) -> io::Result<()>;
    /// Cuts the file back after a failed write, so a fault leaves no half record behind.
    fn set_len(&mut self, len: u64) -> io::Result<()>;
}

/// A directory of files.
pub trait Disk: Send + Sync + std::fmt::Debug {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// The names of the files in `dir` (not their paths), in no particular order.
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// Creates `path`, replacing any file of that name, for writing from its start.
    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>>;
    /// The whole content of a file (log segments are bounded by the segment size).
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;
    /// The content of a file from byte `offset` on (empty past its end): a reader that
    /// knows where it stopped reads only what was appended since.
    fn read_from(&self, path: &Path, offset: u64) -> io::Result<Vec<u8>> {
        let mut bytes = self.read(path)?;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        bytes.drain(..start);
        Ok(bytes)
    }
    /// A stream over a file too large to hold at once (snapshots).
    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>>;
    fn len(&self, path: &Path) -> io::Result<u64>;
    /// Shortens a file and syncs the change.
    fn truncate(&self, path: &Path, len: u64) -> io::Result<()>;
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove(&self, path: &Path) -> io::Result<()>;
    /// Makes creations, renames and removals in `dir` durable.
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// When the file was last written, if the backend knows (the log's retention window
    /// counts from it).
    fn modified(&self, path: &Path) -> io::Result<Option<std::time::SystemTime>>;
}

/// The operating system's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealDisk;

struct RealFile(File);

impl DiskFile for RealFile {
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.0.write_all(bytes)
    }

    fn sync_data(&mut self) -> io::Result<()> {
        self.0.sync_data()
    }

    fn sync_all(&mut self) -> io::Result<()> {
        self.0.sync_all()
    }

    fn set_len(&mut self, len: u64) -> io::Result<()> {
        self.0.set_len(len)?;
        // Later appends must land at the new end, not at the old cursor position.
        io::Seek::seek(&mut self.0, io::SeekFrom::Start(len))?;
        Ok(())
    }
}

impl Disk for RealDisk {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file()
                && let Some(name) = entry.file_name().to_str()
            {
                names.push(name.to_string());
            }
        }
        Ok(names)
    }

    fn create(&self, path: &Path) -> io::Result<Box<dyn DiskFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)?;
        Ok(Box::new(RealFile(file)))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        fs::read(path)
    }

    fn read_from(&self, path: &Path, offset: u64) -> io::Result<Vec<u8>> {
        use std::io::Seek;
        let mut file = File::open(path)?;
        file.seek(io::SeekFrom::Start(offset))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn open_read(&self, path: &Path) -> io::Result<Box<dyn Read + Send>> {
        Ok(Box::new(io::BufReader::with_capacity(
            1 << 20,
            File::open(path)?,
        )))
    }

    fn len(&self, path: &Path) -> io::Result<u64> {
        Ok(fs::metadata(path)?.len())
    }

    fn truncate(&self, path: &Path, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(len)?;
        file.sync_all()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        File::open(dir)?.sync_all()
    }

    fn modified(&self, path: &Path) -> io::Result<Option<std::time::SystemTime>> {
        Ok(Some(fs::metadata(path)?.modified()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_disk_round_trip() {
        let tmp = tempfile::tempdir().unwrap();
        let d = RealDisk;
        let p = tmp.path().join("a");
        let mut f = d.create(&p).unwrap();
        f.write_all(b"hello world").unwrap();
        f.set_len(5).unwrap();
        f.write_all(b"!").unwrap();
        f.sync_all().unwrap();
        drop(f);
        assert_eq!(d.read(&p).unwrap(), b"hello!");
        assert_eq!(d.len(&p).unwrap(), 6);
        d.truncate(&p, 2).unwrap();
        let mut s = String::new();
        d.open_read(&p).unwrap().read_to_string(&mut s).unwrap();
        assert_eq!(s, "he");
        let q = tmp.path().join("b");
        d.rename(&p, &q).unwrap();
        d.sync_dir(tmp.path()).unwrap();
        assert_eq!(d.list(tmp.path()).unwrap(), vec!["b".to_string()]);
        d.remove(&q).unwrap();
        assert!(d.list(tmp.path()).unwrap().is_empty());
    }
}
