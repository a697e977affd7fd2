//! The update stream: updates arrive in generation order, are kept in one temporary file per
//! simulated day, and come out sorted by `due` (ties in generation order) as JSON lines, so
//! memory holds one day of updates at a time, never the stream.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::snb::ops::{Millis, Scheduled};

use super::time::{BULK_CUTOFF, DAY};

/// `depends_on` of an update whose every reference is in the bulk load: before the stream.
pub const BEFORE_STREAM: Millis = BULK_CUTOFF - 1;

/// What an update waits for on account of something created at `created`: that time when it
/// is itself in the stream, [`BEFORE_STREAM`] when it is in the bulk load.
pub fn dep(created: Millis) -> Millis {
    if created >= BULK_CUTOFF {
        created
    } else {
        BEFORE_STREAM
    }
}

pub struct Stream {
    tmp: PathBuf,
    buckets: Vec<Option<BufWriter<File>>>,
    pub count: u64,
    pub first_due: Option<Millis>,
    pub last_due: Option<Millis>,
    line: Vec<u8>,
}

impl Stream {
    /// A stream whose day files are kept in `tmp` (created, and removed by [`Stream::finish`]).
    pub fn create(tmp: &Path) -> io::Result<Stream> {
        if tmp.exists() {
            fs::remove_dir_all(tmp)?;
        }
        fs::create_dir_all(tmp)?;
        Ok(Stream {
            tmp: tmp.to_path_buf(),
            buckets: Vec::new(),
            count: 0,
            first_due: None,
            last_due: None,
            line: Vec::with_capacity(1024),
        })
    }

    /// Adds an update (due at or after the bulk cutoff).
    pub fn push(&mut self, update: &Scheduled) -> io::Result<()> {
        let day = ((update.due - BULK_CUTOFF).max(0) / DAY) as usize;
        if self.buckets.len() <= day {
            self.buckets.resize_with(day + 1, || None);
        }
        let writer = match &mut self.buckets[day] {
            Some(w) => w,
            slot @ None => slot.insert(BufWriter::new(File::create(
                self.tmp.join(format!("{day:05}.jsonl")),
            )?)),
        };
        self.line.clear();
        self.line
            .extend_from_slice(update.due.to_string().as_bytes());
        self.line.push(b'\t');
        serde_json::to_writer(&mut self.line, update).map_err(io::Error::other)?;
        self.line.push(b'\n');
        writer.write_all(&self.line)?;
        self.count += 1;
        self.first_due = Some(self.first_due.map_or(update.due, |d| d.min(update.due)));
        self.last_due = Some(self.last_due.map_or(update.due, |d| d.max(update.due)));
        Ok(())
    }

    /// Writes `out`: every update, sorted by due time; removes the day files.
    pub fn finish(mut self, out: &Path) -> io::Result<()> {
        let mut w = BufWriter::new(File::create(out)?);
        let buckets = std::mem::take(&mut self.buckets);
        for (day, bucket) in buckets.into_iter().enumerate() {
            let Some(mut bucket) = bucket else { continue };
            bucket.flush()?;
            drop(bucket);
            let path = self.tmp.join(format!("{day:05}.jsonl"));
            let mut lines: Vec<(Millis, String)> = Vec::new();
            for line in BufReader::new(File::open(&path)?).lines() {
                let line = line?;
                let (due, json) = line
                    .split_once('\t')
                    .ok_or_else(|| io::Error::other("a stream day file line has no due"))?;
                let due: Millis = due.parse().map_err(io::Error::other)?;
                lines.push((due, json.to_string()));
            }
            lines.sort_by_key(|(due, _)| *due);
            for (_, json) in lines {
                w.write_all(json.as_bytes())?;
                w.write_all(b"\n")?;
            }
        }
        w.flush()?;
        fs::remove_dir_all(&self.tmp)
    }
}
