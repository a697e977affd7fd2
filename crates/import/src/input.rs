//! Input files: opened plain or through gzip (by the `.gz` suffix), counted as their bytes
//! are read (for progress), and read as CSV records with their line numbers.
//!
//! A group's header is the first record of its first file; every other record of every file
//! is data. A first file holding only the header is the separate header file neo4j-admin
//! accepts, with no rule of its own.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use csv::ByteRecord;

use crate::error::Error;

/// How the files are split into fields.
#[derive(Clone, Copy, Debug)]
pub struct Dialect {
    pub delimiter: u8,
    pub quote: u8,
}

/// Counts the bytes read from the file itself (compressed bytes for gzip), which is what
/// the progress total is made of.
struct Counted {
    file: File,
    read: Arc<AtomicU64>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Bytes of the file on disk.
pub fn size(path: &Path) -> Result<u64, Error> {
    std::fs::metadata(path)
        .map(|m| m.len())
        .map_err(|e| Error::io(path, e))
}

/// The records of one file.
pub struct Records {
    reader: csv::Reader<Box<dyn Read + Send>>,
    path: PathBuf,
    first: bool,
}

impl Records {
    pub fn open(path: &Path, dialect: Dialect, read: &Arc<AtomicU64>) -> Result<Records, Error> {
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        let counted = Counted {
            file,
            read: Arc::clone(read),
        };
        let source: Box<dyn Read + Send> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::read::MultiGzDecoder::new(
                std::io::BufReader::with_capacity(1 << 16, counted),
            ))
        } else {
            Box::new(counted)
        };
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(dialect.delimiter)
            .quote(dialect.quote)
            .buffer_capacity(1 << 18)
            .from_reader(source);
        Ok(Records {
            reader,
            path: path.to_path_buf(),
            first: true,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the next record into `record`; `Ok(None)` at the end of the file, else the
    /// record's first line. A read that fails (a truncated gzip stream, a disk error, bytes
    /// that are not UTF-8 inside quotes) names the line it stopped at.
    pub fn next(&mut self, record: &mut ByteRecord) -> Result<Option<u64>, Error> {
        match self.reader.read_byte_record(record) {
            Ok(false) => Ok(None),
            Ok(true) => {
                if std::mem::take(&mut self.first) {
                    strip_bom(record);
                }
                Ok(Some(record.position().map_or(0, csv::Position::line)))
            }
            Err(e) => {
                let line = e
                    .position()
                    .map_or_else(|| self.reader.position().line(), csv::Position::line);
                let reason = match e.into_kind() {
                    csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
                    other => format!("cannot read: {other:?}"),
                };
                Err(Error::Input {
                    file: self.path.clone(),
                    line,
                    reason,
                })
            }
        }
    }
}

/// A UTF-8 byte order mark before the first field is not part of it.
fn strip_bom(record: &mut ByteRecord) {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if record.get(0).is_some_and(|f| f.starts_with(BOM)) {
        let fields: Vec<Vec<u8>> = record
            .iter()
            .enumerate()
            .map(|(i, f)| {
                if i == 0 {
                    f[BOM.len()..].to_vec()
                } else {
                    f.to_vec()
                }
            })
            .collect();
        let position = record.position().cloned();
        record.clear();
        for f in &fields {
            record.push_field(f);
        }
        record.set_position(position);
    }
}

/// Field `i` as text; the reason names the column when it is not UTF-8.
pub fn field(record: &ByteRecord, i: usize) -> Result<&str, String> {
    let bytes = record.get(i).unwrap_or_default();
    std::str::from_utf8(bytes).map_err(|_| format!("field {} is not valid UTF-8", i + 1))
}
