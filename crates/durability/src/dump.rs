//! Dumps: a whole data directory as one versioned, compressed, checksummed file, for moving a
//! database between machines or keeping a copy offline. [`dump`] reads a directory no server
//! holds; [`load`] builds a new one from the file beside its target and renames it there once
//! it opens.
//!
//! ```text
//! offset  size  field
//! 0       8     magic "QUIVDUMP"
//! 8       4     format version, u32 LE (1)
//! 12      4     reserved, zero
//! 16      8     commit: the last commit the dump holds, u64 LE (0: an empty database)
//! 24      8     the snapshot's size in bytes, uncompressed, u64 LE
//! 32      4     CRC32C of the snapshot, uncompressed, u32 LE
//! 36      4     CRC32C of bytes 0..36, u32 LE
//! 40      ...   the snapshot file (see `snapshot`), as one gzip member; nothing follows it
//! ```

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::bufread::GzDecoder;
use flate2::write::GzEncoder;

use crate::backup::{Checksummed, Staging, sync_dir};
use crate::disk::RealDisk;
use crate::error::{Error, Result};
use crate::frame::{snapshot_name, u32_at, u64_at};

pub const DUMP_MAGIC: [u8; 8] = *b"QUIVDUMP";
pub const DUMP_VERSION: u32 = 1;
const HEADER_BYTES: usize = 40;
const HEADER_CRC_AT: usize = 36;
const _: () = assert!(DUMP_MAGIC.len() + 4 + 4 + 8 + 8 + 4 == HEADER_CRC_AT);
const _: () = assert!(HEADER_CRC_AT + 4 == HEADER_BYTES);
/// Bytes between progress reports.
const PROGRESS_BYTES: u64 = 64 << 20;

/// What a dump or load moved.
#[derive(Clone, Debug, Default)]
pub struct DumpReport {
    /// The last commit the database holds.
    pub commit: u64,
    /// The snapshot's size, uncompressed.
    pub bytes: u64,
    /// The dump file's size.
    pub file_bytes: u64,
}

fn dump_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Backup {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn header(commit: u64, bytes: u64, crc: u32) -> [u8; HEADER_BYTES] {
    let mut h = [0u8; HEADER_BYTES];
    h[..8].copy_from_slice(&DUMP_MAGIC);
    h[8..12].copy_from_slice(&DUMP_VERSION.to_le_bytes());
    h[16..24].copy_from_slice(&commit.to_le_bytes());
    h[24..32].copy_from_slice(&bytes.to_le_bytes());
    h[32..36].copy_from_slice(&crc.to_le_bytes());
    let header_crc = crc32c::crc32c(&h[..HEADER_CRC_AT]);
    h[HEADER_CRC_AT..].copy_from_slice(&header_crc.to_le_bytes());
    h
}

/// Writes the database in `data_dir` (which no server may hold: its lock is taken while it
/// is read) to a new file at `to`. The file is written as `<to>.tmp` and renamed once whole
/// and synced; an existing `to` is refused. `progress` hears the snapshot bytes compressed
/// so far.
pub fn dump(data_dir: &Path, to: &Path, progress: &mut dyn FnMut(u64)) -> Result<DumpReport> {
    if !data_dir.is_dir() {
        return Err(dump_error(data_dir, "is not a data directory"));
    }
    if to.exists() {
        return Err(dump_error(to, "exists: a dump writes a new file"));
    }
    let (storage, _) = crate::Durability::inspect(data_dir)?;
    let scratch = sibling(to, "dump")?;
    if scratch.exists() {
        fs::remove_dir_all(&scratch).map_err(|e| Error::io(&scratch, e))?;
    }
    fs::create_dir_all(&scratch).map_err(|e| Error::io(&scratch, e))?;
    let tmp = sibling(to, "tmp")?;
    let result = (|| {
        let written = crate::snapshot::write(&RealDisk, &scratch, &storage, 0, 4096, |_| Ok(()))?;
        drop(storage);
        let (commit, snapshot) = match written {
            Some(info) => (info.commit, Some(info.path)),
            None => (0, None),
        };
        let (crc, bytes) = match &snapshot {
            Some(path) => crate::backup::checksum_file(path)?,
            None => (0, 0),
        };
        let file = File::create(&tmp).map_err(|e| Error::io(&tmp, e))?;
        let mut out = BufWriter::new(file);
        out.write_all(&header(commit, bytes, crc))
            .map_err(|e| Error::io(&tmp, e))?;
        let mut gz = GzEncoder::new(out, Compression::default());
        if let Some(path) = &snapshot {
            let mut input = File::open(path).map_err(|e| Error::io(path, e))?;
            copy_reporting(&mut input, &mut gz, progress).map_err(|e| Error::io(&tmp, e))?;
        }
        let out = gz.finish().map_err(|e| Error::io(&tmp, e))?;
        let file = out
            .into_inner()
            .map_err(|e| Error::io(&tmp, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&tmp, e))?;
        let file_bytes = file.metadata().map_err(|e| Error::io(&tmp, e))?.len();
        fs::rename(&tmp, to).map_err(|e| Error::io(to, e))?;
        if let Some(parent) = to.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
        Ok(DumpReport {
            commit,
            bytes,
            file_bytes,
        })
    })();
    let _ = fs::remove_dir_all(&scratch);
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Builds a data directory at `data_dir` (absent or empty) from the dump at `from`: beside
/// it, checked against the dump's sizes and checksums, opened as a server would open it,
/// and only then renamed onto it. A failure names the file and why and leaves nothing at
/// `data_dir`. `progress` hears the snapshot bytes written so far.
pub fn load(from: &Path, data_dir: &Path, progress: &mut dyn FnMut(u64)) -> Result<DumpReport> {
    let file = File::open(from).map_err(|e| Error::io(from, e))?;
    let file_bytes = file.metadata().map_err(|e| Error::io(from, e))?.len();
    let mut input = BufReader::new(file);
    let mut h = [0u8; HEADER_BYTES];
    input.read_exact(&mut h).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => dump_error(from, "truncated header"),
        _ => Error::io(from, e),
    })?;
    if h[..8] != DUMP_MAGIC {
        return Err(dump_error(from, "not a Quiver dump (bad magic)"));
    }
    let field_u32 = |at| u32_at(&h, at).ok_or_else(|| dump_error(from, "truncated header"));
    let field_u64 = |at| u64_at(&h, at).ok_or_else(|| dump_error(from, "truncated header"));
    if crc32c::crc32c(&h[..HEADER_CRC_AT]) != field_u32(HEADER_CRC_AT)? {
        return Err(dump_error(from, "header checksum mismatch"));
    }
    let version = field_u32(8)?;
    if version != DUMP_VERSION {
        return Err(dump_error(
            from,
            format!("dump format {version} is not {DUMP_VERSION}"),
        ));
    }
    let (commit, bytes, crc) = (field_u64(16)?, field_u64(24)?, field_u32(32)?);
    let staging = Staging::prepare_for(data_dir, "load")?;
    let built = (|| {
        let mut gz = GzDecoder::new(input);
        if commit > 0 {
            let path = staging.dir.join(snapshot_name(commit));
            let file = File::create(&path).map_err(|e| Error::io(&path, e))?;
            let mut out = Checksummed::new(BufWriter::new(file));
            copy_reporting(&mut gz, &mut out, progress)
                .map_err(|e| dump_error(from, format!("damaged compressed data: {e}")))?;
            let (writer, written_crc, written) = out.finish();
            if (written, written_crc) != (bytes, crc) {
                return Err(dump_error(
                    from,
                    format!(
                        "holds {written} snapshot bytes with CRC32C {written_crc:08x} where \
                         its header says {bytes} with {crc:08x}"
                    ),
                ));
            }
            let file = writer
                .into_inner()
                .map_err(|e| Error::io(&path, e.into_error()))?;
            file.sync_all().map_err(|e| Error::io(&path, e))?;
        } else {
            let mut rest = Vec::new();
            gz.read_to_end(&mut rest)
                .map_err(|e| dump_error(from, format!("damaged compressed data: {e}")))?;
            if !rest.is_empty() {
                return Err(dump_error(from, "an empty database's dump holds data"));
            }
        }
        let mut trailing = [0u8; 1];
        let more = gz
            .into_inner()
            .read(&mut trailing)
            .map_err(|e| Error::io(from, e))?;
        if more != 0 {
            return Err(dump_error(from, "bytes follow the compressed snapshot"));
        }
        let (_, report) = crate::recovery::recover(
            &RealDisk,
            &staging.dir,
            false,
            quiver_storage::RECORD_BYTES_MAX,
        )
        .map_err(|e| dump_error(from, format!("the loaded directory does not open: {e}")))?;
        if report.last_commit != commit {
            return Err(dump_error(
                from,
                format!(
                    "the loaded directory opens at commit {} where the dump says {commit}",
                    report.last_commit
                ),
            ));
        }
        sync_dir(&staging.dir)
    })();
    match built {
        Ok(()) => {
            staging.commit()?;
            Ok(DumpReport {
                commit,
                bytes,
                file_bytes,
            })
        }
        Err(e) => {
            staging.abandon();
            Err(e)
        }
    }
}

/// `<parent>/.<name>.<purpose>`: a scratch path beside `path`.
fn sibling(path: &Path, purpose: &str) -> Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| dump_error(path, "names no file"))?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok(parent.join(format!(".{}.{purpose}", name.to_string_lossy())))
}

fn copy_reporting(
    input: &mut impl Read,
    output: &mut impl Write,
    progress: &mut dyn FnMut(u64),
) -> io::Result<u64> {
    let mut buf = vec![0u8; 1 << 20];
    let (mut total, mut reported) = (0u64, 0u64);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        output.write_all(&buf[..n])?;
        total += n as u64;
        if total - reported >= PROGRESS_BYTES {
            reported = total;
            progress(total);
        }
    }
    output.flush()?;
    Ok(total)
}
