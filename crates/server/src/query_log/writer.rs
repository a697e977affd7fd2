//! The writer thread: renders the reports it receives, appends them, flushes whenever it has
//! caught up, and rotates the file before a line would take it past its size.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError};

use super::{Message, QueryLogSettings, line};

/// The open file and how much it holds.
struct Output {
    path: PathBuf,
    file: BufWriter<File>,
    bytes: u64,
    rotation_bytes: u64,
    rotation_keep: u32,
}

/// Opens the log (so a bad path fails at start-up, not at the first query) and starts the
/// thread, which ends once every sender is gone and what they sent is written.
pub(super) fn start(
    settings: &QueryLogSettings,
    receiver: Receiver<Message>,
    queued: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let mut output = Output {
        path: settings.path.clone(),
        file: BufWriter::new(open(&settings.path)?),
        bytes: 0,
        rotation_bytes: settings.rotation_bytes.max(1),
        rotation_keep: settings.rotation_keep,
    };
    output.bytes = std::fs::metadata(&settings.path).map_or(0, |m| m.len());
    std::thread::Builder::new()
        .name("quiver-query-log".to_owned())
        .spawn(move || output.run(&receiver, &queued))?;
    Ok(())
}

fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

impl Output {
    fn run(&mut self, receiver: &Receiver<Message>, queued: &AtomicUsize) {
        loop {
            let message = match receiver.try_recv() {
                Ok(message) => message,
                Err(TryRecvError::Empty) => {
                    // Caught up: what was written reaches the file before the thread waits.
                    self.flush();
                    match receiver.recv() {
                        Ok(message) => message,
                        Err(_) => return,
                    }
                }
                Err(TryRecvError::Disconnected) => {
                    self.flush();
                    return;
                }
            };
            match message {
                Message::Query(query, bytes) => {
                    let line = line::render(&query);
                    drop(query);
                    queued.fetch_sub(bytes, Ordering::Relaxed);
                    self.write(&line);
                }
                Message::Sync(done) => {
                    self.flush();
                    let _ = done.send(());
                }
            }
        }
    }

    fn write(&mut self, line: &[u8]) {
        let len = line.len() as u64;
        if self.bytes > 0
            && self.bytes + len > self.rotation_bytes
            && let Err(error) = self.rotate()
        {
            tracing::warn!(%error, path = %self.path.display(), "cannot rotate the query log");
        }
        match self.file.write_all(line) {
            Ok(()) => self.bytes += len,
            Err(error) => {
                tracing::warn!(%error, path = %self.path.display(), "cannot write the query log");
            }
        }
    }

    fn flush(&mut self) {
        if let Err(error) = self.file.flush() {
            tracing::warn!(%error, path = %self.path.display(), "cannot write the query log");
        }
    }

    /// `query.log.N-1` → `query.log.N` ... `query.log` → `query.log.1` (the oldest beyond the
    /// count removed), then a new, empty `query.log`.
    fn rotate(&mut self) -> std::io::Result<()> {
        self.file.flush()?;
        if self.rotation_keep == 0 {
            self.file = BufWriter::new(
                OpenOptions::new()
                    .create(true)
                    .write(true)
                    .truncate(true)
                    .open(&self.path)?,
            );
        } else {
            let _ = std::fs::remove_file(numbered(&self.path, self.rotation_keep));
            for n in (1..self.rotation_keep).rev() {
                let from = numbered(&self.path, n);
                if from.exists() {
                    std::fs::rename(&from, numbered(&self.path, n + 1))?;
                }
            }
            std::fs::rename(&self.path, numbered(&self.path, 1))?;
            self.file = BufWriter::new(open(&self.path)?);
        }
        self.bytes = 0;
        Ok(())
    }
}

/// `query.log` → `query.log.N`.
pub(super) fn numbered(path: &Path, n: u32) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}
