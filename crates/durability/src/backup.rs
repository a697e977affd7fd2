//! Backups: a chain of files that rebuilds a data directory up to any commit it holds.
//!
//! A running store makes each piece of the chain (see [`crate::Durability::backup_full`] and
//! [`crate::Durability::backup_since`]); the backup directory keeps them, each beside the
//! manifest that names it; [`restore`] rebuilds a data directory from them.
//!
//! ```text
//! <backup dir>/backup-<sequence, 6 digits>-full.qsnap        a snapshot file, as a data
//!                                                            directory holds one
//! <backup dir>/backup-<sequence>-incremental.qlog           a log segment holding the
//!                                                            commits after the piece before
//! <backup dir>/backup-<sequence>.json                       the piece's manifest, written
//!                                                            last: a piece without one is
//!                                                            no part of the chain
//! ```
//!
//! A manifest names its file, its kind, the first and last commit the piece holds, their
//! commit times (Unix microseconds; a full piece's last time is that commit's own time, or
//! when the log no longer held it, a bound no earlier than it), the file's size and its
//! CRC32C. A full piece holds commits 1 to its last; an incremental one the commits right
//! after the piece before it. A chain is one full piece and the incremental pieces after it;
//! a later full piece starts a new chain in the same directory.
//!
//! A restore builds the data directory beside its target (`.<name>.restore`, locked while it
//! is written), checks every byte it copies against the manifests, opens the result as
//! `quiver serve` would, and only then renames it onto the target: a restore that fails
//! leaves nothing a server would open.

use std::fs::{self, File};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use quiver_storage::RedoRecordRef;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::frame::{
    FRAME_HEADER_BYTES, SEGMENT_HEADER_BYTES, put_frame, put_segment_header, read_frame,
    read_segment_header, segment_name, snapshot_name,
};
use crate::lockfile::DirLock;

/// The manifest format this build writes and reads.
pub const MANIFEST_FORMAT: u32 = 1;
/// Log bytes per segment a restore writes: recovery reads a segment whole.
const RESTORED_SEGMENT_BYTES: usize = 64 << 20;
/// Bytes copied between checks for progress.
const COPY_CHUNK_BYTES: usize = 1 << 20;

/// What a piece of a backup holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PieceKind {
    /// A snapshot: the whole database as of its last commit.
    Full,
    /// Log records: the commits after the piece before it.
    Incremental,
}

impl PieceKind {
    fn suffix(self) -> &'static str {
        match self {
            PieceKind::Full => "full.qsnap",
            PieceKind::Incremental => "incremental.qlog",
        }
    }
}

impl std::fmt::Display for PieceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PieceKind::Full => "full",
            PieceKind::Incremental => "incremental",
        })
    }
}

/// What a store made for one piece, before it is kept anywhere: the file and its facts.
#[derive(Clone, Debug)]
pub struct Piece {
    pub kind: PieceKind,
    pub path: PathBuf,
    pub first_commit: u64,
    pub last_commit: u64,
    pub first_time: Option<i64>,
    pub last_time: Option<i64>,
    pub bytes: u64,
    pub crc32c: u32,
}

/// One piece of a chain, as its manifest describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    /// The piece's place in the backup directory, from 1.
    pub sequence: u64,
    pub kind: PieceKind,
    /// The piece's file, in the backup directory.
    pub file: String,
    pub first_commit: u64,
    pub last_commit: u64,
    /// Commit times in Unix microseconds; `None` for a commit logged before commit times
    /// were (or, for an empty full piece, no commit at all).
    pub first_time: Option<i64>,
    pub last_time: Option<i64>,
    pub bytes: u64,
    pub crc32c: u32,
    /// When the piece was taken, Unix microseconds.
    pub taken_at: i64,
}

/// Unix microseconds now.
pub fn now_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

fn manifest_name(sequence: u64) -> String {
    format!("backup-{sequence:06}.json")
}

/// The sequence number a manifest's file name holds.
fn parse_manifest_name(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("backup-")?.strip_suffix(".json")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn piece_name(sequence: u64, kind: PieceKind) -> String {
    format!("backup-{sequence:06}-{}", kind.suffix())
}

fn backup_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Backup {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// A CRC32C and byte count kept over everything written through it.
pub struct Checksummed<W> {
    inner: W,
    crc: u32,
    bytes: u64,
}

impl<W: Write> Checksummed<W> {
    pub fn new(inner: W) -> Self {
        Checksummed {
            inner,
            crc: 0,
            bytes: 0,
        }
    }

    /// The writer, the CRC32C and the bytes written.
    pub fn finish(self) -> (W, u32, u64) {
        (self.inner, self.crc, self.bytes)
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The CRC32C and size of a file, read through.
pub(crate) fn checksum_file(path: &Path) -> Result<(u32, u64)> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut sink = Checksummed::new(io::sink());
    io::copy(&mut file, &mut sink).map_err(|e| Error::io(path, e))?;
    let (_, crc, bytes) = sink.finish();
    Ok((crc, bytes))
}

/// Writes an incremental piece: a log segment based at `after + 1` holding the frames
/// `frames` yields, which must follow one another from there.
pub(crate) fn write_incremental(
    path: &Path,
    after: u64,
    mut frames: impl FnMut(&mut dyn FnMut(u64, &[u8]) -> Result<()>) -> Result<()>,
) -> Result<Piece> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = Checksummed::new(BufWriter::new(file));
    let mut header = Vec::with_capacity(SEGMENT_HEADER_BYTES);
    put_segment_header(&mut header, after + 1);
    out.write_all(&header).map_err(|e| Error::io(path, e))?;
    let mut last = after;
    let (mut first_time, mut last_time) = (None, None);
    let mut frame = Vec::new();
    frames(&mut |commit, body| {
        if commit != last + 1 {
            return Err(backup_error(
                path,
                format!("commit {commit} where {} was expected", last + 1),
            ));
        }
        let (record, _) = RedoRecordRef::decode(body)
            .map_err(|e| backup_error(path, format!("commit {commit} is undecodable: {e}")))?;
        if commit == after + 1 {
            first_time = record.commit_time();
        }
        last_time = record.commit_time();
        frame.clear();
        put_frame(&mut frame, commit, body);
        out.write_all(&frame).map_err(|e| Error::io(path, e))?;
        last = commit;
        Ok(())
    })?;
    let (writer, crc32c, bytes) = out.finish();
    let file = writer
        .into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok(Piece {
        kind: PieceKind::Incremental,
        path: path.to_path_buf(),
        first_commit: after + 1,
        last_commit: last,
        first_time,
        last_time,
        bytes,
        crc32c,
    })
}

/// The facts of a full piece written at `path` holding commits up to `commit`.
pub(crate) fn full_piece(path: &Path, commit: u64, time: Option<i64>) -> Result<Piece> {
    let (crc32c, bytes) = checksum_file(path)?;
    Ok(Piece {
        kind: PieceKind::Full,
        path: path.to_path_buf(),
        first_commit: 1,
        last_commit: commit,
        first_time: None,
        last_time: time,
        bytes,
        crc32c,
    })
}

/// A backup directory: the pieces it keeps, in sequence.
#[derive(Clone, Debug)]
pub struct BackupDir {
    dir: PathBuf,
    pieces: Vec<Manifest>,
}

impl BackupDir {
    /// Reads every manifest in `dir` (which may be absent: no pieces yet). A manifest that
    /// does not parse, or a sequence number twice, fails naming the file.
    pub fn open(dir: &Path) -> Result<BackupDir> {
        let mut pieces = Vec::new();
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(BackupDir {
                    dir: dir.to_path_buf(),
                    pieces,
                });
            }
            Err(e) => return Err(Error::io(dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io(dir, e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(sequence) = parse_manifest_name(name) else {
                continue;
            };
            let path = dir.join(name);
            let text = fs::read(&path).map_err(|e| Error::io(&path, e))?;
            let manifest: Manifest = serde_json::from_slice(&text)
                .map_err(|e| backup_error(&path, format!("unreadable manifest: {e}")))?;
            if manifest.format != MANIFEST_FORMAT {
                return Err(backup_error(
                    &path,
                    format!(
                        "manifest format {} is not {MANIFEST_FORMAT}",
                        manifest.format
                    ),
                ));
            }
            if sequence != manifest.sequence {
                return Err(backup_error(
                    &path,
                    format!("names sequence {}", manifest.sequence),
                ));
            }
            pieces.push(manifest);
        }
        pieces.sort_by_key(|m| m.sequence);
        Ok(BackupDir {
            dir: dir.to_path_buf(),
            pieces,
        })
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Every piece, in sequence.
    pub fn pieces(&self) -> &[Manifest] {
        &self.pieces
    }

    /// The newest piece, if any: an incremental backup continues after its last commit.
    pub fn last(&self) -> Option<&Manifest> {
        self.pieces.last()
    }

    /// Keeps a piece a store made: the bytes `source` yields are written beside the others
    /// (as a temporary file), checked against `piece`'s size and CRC32C, synced, renamed, and
    /// then named by a new manifest. An incremental piece must continue the newest piece.
    /// `progress` hears the bytes written so far, about every mebibyte.
    pub fn keep(
        &mut self,
        piece: &Piece,
        source: &mut dyn Read,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Manifest> {
        fs::create_dir_all(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        if piece.kind == PieceKind::Incremental {
            let Some(last) = self.last() else {
                return Err(backup_error(
                    &self.dir,
                    "an incremental piece needs a full piece before it",
                ));
            };
            if piece.first_commit != last.last_commit + 1 {
                return Err(backup_error(
                    &self.dir,
                    format!(
                        "the piece starts at commit {} but the chain ends at {}",
                        piece.first_commit, last.last_commit
                    ),
                ));
            }
        }
        let sequence = self.last().map_or(1, |m| m.sequence + 1);
        let name = piece_name(sequence, piece.kind);
        let path = self.dir.join(&name);
        let tmp = self.dir.join(format!("{name}.tmp"));
        let written = copy_checked(source, &tmp, progress);
        let (crc, bytes) = match written {
            Ok(facts) => facts,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        if (crc, bytes) != (piece.crc32c, piece.bytes) {
            let _ = fs::remove_file(&tmp);
            return Err(backup_error(
                &path,
                format!(
                    "received {bytes} bytes with CRC32C {crc:08x}, but the server sent \
                     {} bytes with CRC32C {:08x}",
                    piece.bytes, piece.crc32c
                ),
            ));
        }
        fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            sequence,
            kind: piece.kind,
            file: name,
            first_commit: piece.first_commit,
            last_commit: piece.last_commit,
            first_time: piece.first_time,
            last_time: piece.last_time,
            bytes,
            crc32c: crc,
            taken_at: now_micros(),
        };
        let manifest_path = self.dir.join(manifest_name(sequence));
        let manifest_tmp = self.dir.join(format!("{}.tmp", manifest_name(sequence)));
        let text = serde_json::to_vec_pretty(&manifest)
            .map_err(|e| backup_error(&manifest_path, e.to_string()))?;
        write_synced(&manifest_tmp, &text)?;
        fs::rename(&manifest_tmp, &manifest_path).map_err(|e| Error::io(&manifest_path, e))?;
        sync_dir(&self.dir)?;
        self.pieces.push(manifest.clone());
        Ok(manifest)
    }

    /// Checks every piece: its file is present with the manifest's size and CRC32C, and
    /// each piece continues the one before it (a full piece starts a new chain). The first
    /// problem fails, naming the file and why.
    pub fn verify(&self) -> Result<()> {
        self.check_links(&self.pieces)?;
        for m in &self.pieces {
            self.check_file(m)?;
        }
        Ok(())
    }

    fn check_links(&self, pieces: &[Manifest]) -> Result<()> {
        let mut previous: Option<&Manifest> = None;
        for m in pieces {
            let path = self.dir.join(manifest_name(m.sequence));
            if m.last_commit + 1 < m.first_commit {
                return Err(backup_error(&path, "its last commit precedes its first"));
            }
            match (m.kind, previous) {
                (PieceKind::Full, _) if m.first_commit != 1 => {
                    return Err(backup_error(&path, "a full piece must start at commit 1"));
                }
                (PieceKind::Full, _) => {}
                (PieceKind::Incremental, None) => {
                    return Err(backup_error(
                        &path,
                        "an incremental piece with no full piece before it",
                    ));
                }
                (PieceKind::Incremental, Some(p)) if m.first_commit != p.last_commit + 1 => {
                    return Err(backup_error(
                        &path,
                        format!(
                            "the chain is broken: this piece starts at commit {} but \
                             piece {} ends at {}",
                            m.first_commit, p.sequence, p.last_commit
                        ),
                    ));
                }
                (PieceKind::Incremental, Some(_)) => {}
            }
            previous = Some(m);
        }
        Ok(())
    }

    fn check_file(&self, m: &Manifest) -> Result<()> {
        let path = self.piece_path(m)?;
        let (crc, bytes) = match checksum_file(&path) {
            Ok(facts) => facts,
            Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Err(backup_error(&path, "missing"));
            }
            Err(e) => return Err(e),
        };
        if bytes != m.bytes {
            return Err(backup_error(
                &path,
                format!("holds {bytes} bytes where the manifest says {}", m.bytes),
            ));
        }
        if crc != m.crc32c {
            return Err(backup_error(
                &path,
                format!(
                    "CRC32C mismatch: {crc:08x} where the manifest says {:08x}",
                    m.crc32c
                ),
            ));
        }
        Ok(())
    }

    /// The piece's file, refusing a manifest whose file name leaves the directory.
    fn piece_path(&self, m: &Manifest) -> Result<PathBuf> {
        if m.file != piece_name(m.sequence, m.kind) {
            return Err(backup_error(
                &self.dir.join(manifest_name(m.sequence)),
                format!("names the file `{}`", m.file),
            ));
        }
        Ok(self.dir.join(&m.file))
    }
}

/// Where a restore stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestoreUntil {
    /// The chain's last commit.
    End,
    /// Every commit up to and including this one.
    Commit(u64),
    /// Every commit whose time is at or before this one (Unix microseconds), none after.
    Time(i64),
}

/// What a restore did.
#[derive(Clone, Debug, Default)]
pub struct RestoreReport {
    /// The sequence numbers of the pieces read.
    pub pieces: Vec<u64>,
    /// The last commit of the restored database.
    pub last_commit: u64,
    /// Its time, when known.
    pub last_time: Option<i64>,
    /// Log records written after the snapshot.
    pub records: u64,
}

/// What a restore says as it goes, for progress lines.
#[derive(Clone, Debug)]
pub enum RestoreProgress {
    /// A piece is being read.
    Piece { sequence: u64, kind: PieceKind },
    /// Bytes of the current piece read so far.
    Bytes(u64),
    /// The rebuilt directory is being opened as a server would open it.
    Checking,
}

/// Rebuilds a data directory at `target` (absent or empty) from the chain in `backups`, up
/// to `until`. Nothing is written at `target` until the whole directory is built, checked
/// and opened; a failure removes what was built and names the file and reason.
pub fn restore(
    backups: &BackupDir,
    target: &Path,
    until: RestoreUntil,
    progress: &mut dyn FnMut(RestoreProgress),
) -> Result<RestoreReport> {
    let chain = select_chain(backups, until)?;
    backups.check_links(&chain)?;
    let staging = Staging::prepare(target)?;
    let built = build(backups, &chain, &staging.dir, until, progress);
    match built {
        Ok(report) => {
            progress(RestoreProgress::Checking);
            let opened = crate::recovery::recover(
                &crate::RealDisk,
                &staging.dir,
                false,
                quiver_storage::RECORD_BYTES_MAX,
            )
            .map_err(|e| {
                backup_error(
                    &staging.dir,
                    format!("the restored directory does not open: {e}"),
                )
            });
            let (_, recovered) = match opened {
                Ok(opened) => opened,
                Err(e) => {
                    staging.abandon();
                    return Err(e);
                }
            };
            if recovered.last_commit != report.last_commit {
                staging.abandon();
                return Err(backup_error(
                    target,
                    format!(
                        "the restored directory opens at commit {} where {} was written",
                        recovered.last_commit, report.last_commit
                    ),
                ));
            }
            staging.commit()?;
            Ok(report)
        }
        Err(e) => {
            staging.abandon();
            Err(e)
        }
    }
}

/// The pieces a restore to `until` reads: the newest full piece at or before the target,
/// then the incremental pieces after it up to the target.
fn select_chain(backups: &BackupDir, until: RestoreUntil) -> Result<Vec<Manifest>> {
    let pieces = backups.pieces();
    let covers = |m: &Manifest| match until {
        RestoreUntil::End => true,
        RestoreUntil::Commit(c) => m.last_commit <= c,
        RestoreUntil::Time(t) => m.last_commit == 0 || m.last_time.is_some_and(|time| time <= t),
    };
    let Some(start) = pieces
        .iter()
        .rposition(|m| m.kind == PieceKind::Full && covers(m))
    else {
        let reason = match (pieces.iter().find(|m| m.kind == PieceKind::Full), until) {
            (None, _) => "holds no full backup".to_string(),
            (Some(f), RestoreUntil::Commit(c)) => format!(
                "its oldest full backup (piece {}) already holds commit {}, past {c}",
                f.sequence, f.last_commit
            ),
            (Some(f), _) => format!(
                "its oldest full backup (piece {}) was taken after the time asked for (its \
                 last commit's time is {})",
                f.sequence,
                f.last_time.map_or("unknown".to_string(), |t| t.to_string())
            ),
        };
        return Err(backup_error(backups.path(), reason));
    };
    let mut chain = vec![pieces[start].clone()];
    for m in &pieces[start + 1..] {
        if m.kind == PieceKind::Full {
            break;
        }
        chain.push(m.clone());
        let past = match until {
            RestoreUntil::End => false,
            RestoreUntil::Commit(c) => m.last_commit >= c,
            RestoreUntil::Time(t) => m.last_time.is_some_and(|time| time > t),
        };
        if past {
            break;
        }
    }
    if let RestoreUntil::Commit(c) = until {
        let end = chain.last().map_or(0, |m| m.last_commit);
        if end < c {
            return Err(backup_error(
                backups.path(),
                format!("the chain ends at commit {end}, before commit {c}"),
            ));
        }
    }
    Ok(chain)
}

fn build(
    backups: &BackupDir,
    chain: &[Manifest],
    dir: &Path,
    until: RestoreUntil,
    progress: &mut dyn FnMut(RestoreProgress),
) -> Result<RestoreReport> {
    let mut report = RestoreReport::default();
    let mut log = SegmentWriter::new(dir);
    for m in chain {
        progress(RestoreProgress::Piece {
            sequence: m.sequence,
            kind: m.kind,
        });
        let path = backups.piece_path(m)?;
        let mut file = match File::open(&path) {
            Ok(file) => BufReader::with_capacity(COPY_CHUNK_BYTES, file),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(backup_error(&path, "missing"));
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        let mut reader = Checked::new(&mut file, &path, progress);
        match m.kind {
            PieceKind::Full => {
                if m.last_commit > 0 {
                    let out = dir.join(snapshot_name(m.last_commit));
                    let written = copy_into(&mut reader, &out)?;
                    if written != m.bytes {
                        return Err(backup_error(&path, "its size changed while it was read"));
                    }
                }
                report.last_commit = m.last_commit;
                report.last_time = m.last_time;
            }
            PieceKind::Incremental => {
                replay_piece(&mut reader, &path, m, until, &mut log, &mut report)?;
            }
        }
        // Read to the end, so the checksum covers the whole file even when the target
        // stopped the copy early.
        io::copy(&mut reader, &mut io::sink()).map_err(|e| Error::io(&path, e))?;
        reader.check(m)?;
        report.pieces.push(m.sequence);
    }
    log.finish()?;
    sync_dir(dir)?;
    Ok(report)
}

/// Copies the frames of one incremental piece that `until` admits into the restored log.
fn replay_piece(
    reader: &mut Checked<'_, '_>,
    path: &Path,
    m: &Manifest,
    until: RestoreUntil,
    log: &mut SegmentWriter,
    report: &mut RestoreReport,
) -> Result<()> {
    let mut header = [0u8; SEGMENT_HEADER_BYTES];
    read_exact_or(reader, &mut header, path, 0)?;
    let base = read_segment_header(&header).map_err(|reason| backup_error(path, reason))?;
    if base != m.first_commit {
        return Err(backup_error(
            path,
            format!(
                "starts at commit {base} where its manifest says {}",
                m.first_commit
            ),
        ));
    }
    let mut at = SEGMENT_HEADER_BYTES as u64;
    let mut expected = m.first_commit;
    let mut frame = Vec::new();
    while expected <= m.last_commit {
        frame.resize(FRAME_HEADER_BYTES, 0);
        read_exact_or(reader, &mut frame, path, at)?;
        let len = u32::from_le_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
        if len > quiver_storage::RECORD_BYTES_MAX {
            return Err(backup_error(
                path,
                format!("record length out of range at byte {at}"),
            ));
        }
        frame.resize(FRAME_HEADER_BYTES + len, 0);
        read_exact_or(reader, &mut frame[FRAME_HEADER_BYTES..], path, at)?;
        let parsed = read_frame(&frame, 0, quiver_storage::RECORD_BYTES_MAX)
            .map_err(|e| backup_error(path, format!("{} at byte {at}", e.reason())))?;
        if parsed.commit != expected {
            return Err(backup_error(
                path,
                format!(
                    "commit {} at byte {at} where {expected} was expected",
                    parsed.commit
                ),
            ));
        }
        let (record, _) = RedoRecordRef::decode(parsed.body).map_err(|e| {
            backup_error(
                path,
                format!("commit {expected} at byte {at} is undecodable: {e}"),
            )
        })?;
        let time = record.commit_time();
        let admitted = match until {
            RestoreUntil::End => true,
            RestoreUntil::Commit(c) => expected <= c,
            RestoreUntil::Time(t) => match time {
                Some(time) => time <= t,
                None => {
                    return Err(backup_error(
                        path,
                        format!(
                            "commit {expected} has no commit time (it was logged before \
                             times were): restore it to a transaction number instead"
                        ),
                    ));
                }
            },
        };
        if !admitted {
            return Ok(());
        }
        log.push(expected, parsed.body)?;
        report.last_commit = expected;
        report.last_time = time;
        report.records += 1;
        at += frame.len() as u64;
        expected += 1;
    }
    Ok(())
}

fn read_exact_or(reader: &mut impl Read, buf: &mut [u8], path: &Path, at: u64) -> Result<()> {
    reader.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            backup_error(path, format!("truncated at byte {at}"))
        } else {
            Error::io(path, e)
        }
    })
}

/// Reads a piece's file keeping its CRC32C and size, reporting progress.
struct Checked<'r, 'p> {
    inner: &'r mut dyn Read,
    path: &'r Path,
    crc: u32,
    bytes: u64,
    reported: u64,
    progress: &'r mut (dyn FnMut(RestoreProgress) + 'p),
}

impl<'r, 'p> Checked<'r, 'p> {
    fn new(
        inner: &'r mut dyn Read,
        path: &'r Path,
        progress: &'r mut (dyn FnMut(RestoreProgress) + 'p),
    ) -> Self {
        Checked {
            inner,
            path,
            crc: 0,
            bytes: 0,
            reported: 0,
            progress,
        }
    }

    fn check(&self, m: &Manifest) -> Result<()> {
        if self.bytes != m.bytes {
            return Err(backup_error(
                self.path,
                format!(
                    "holds {} bytes where the manifest says {}",
                    self.bytes, m.bytes
                ),
            ));
        }
        if self.crc != m.crc32c {
            return Err(backup_error(
                self.path,
                format!(
                    "CRC32C mismatch: {:08x} where the manifest says {:08x}",
                    self.crc, m.crc32c
                ),
            ));
        }
        Ok(())
    }
}

impl Read for Checked<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc = crc32c::crc32c_append(self.crc, &buf[..n]);
        self.bytes += n as u64;
        if self.bytes - self.reported >= 64 * COPY_CHUNK_BYTES as u64 {
            self.reported = self.bytes;
            (self.progress)(RestoreProgress::Bytes(self.bytes));
        }
        Ok(n)
    }
}

/// Writes the restored log as segments of about [`RESTORED_SEGMENT_BYTES`].
struct SegmentWriter {
    dir: PathBuf,
    current: Option<(PathBuf, Vec<u8>)>,
}

impl SegmentWriter {
    fn new(dir: &Path) -> Self {
        SegmentWriter {
            dir: dir.to_path_buf(),
            current: None,
        }
    }

    fn push(&mut self, commit: u64, body: &[u8]) -> Result<()> {
        if self
            .current
            .as_ref()
            .is_some_and(|(_, bytes)| bytes.len() >= RESTORED_SEGMENT_BYTES)
        {
            self.flush()?;
        }
        let (_, bytes) = self.current.get_or_insert_with(|| {
            let mut bytes = Vec::with_capacity(SEGMENT_HEADER_BYTES);
            put_segment_header(&mut bytes, commit);
            (self.dir.join(segment_name(commit)), bytes)
        });
        put_frame(bytes, commit, body);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if let Some((path, bytes)) = self.current.take() {
            write_synced(&path, &bytes)?;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<()> {
        self.flush()
    }
}

/// Copies `reader` into a new file at `path`, synced; returns the bytes copied.
fn copy_into(reader: &mut impl Read, path: &Path) -> Result<u64> {
    let mut file = File::create(path).map_err(|e| Error::io(path, e))?;
    let copied = io::copy(reader, &mut file).map_err(|e| Error::io(path, e))?;
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok(copied)
}

/// Copies `source` into a new file at `path`, synced, reporting progress; returns the
/// CRC32C and size of what was written.
fn copy_checked(
    source: &mut dyn Read,
    path: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<(u32, u64)> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut out = Checksummed::new(BufWriter::new(file));
    let mut buf = vec![0u8; COPY_CHUNK_BYTES];
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        out.write_all(&buf[..n]).map_err(|e| Error::io(path, e))?;
        progress(out.bytes);
    }
    let (writer, crc, bytes) = out.finish();
    let file = writer
        .into_inner()
        .map_err(|e| Error::io(path, e.into_error()))?;
    file.sync_all().map_err(|e| Error::io(path, e))?;
    Ok((crc, bytes))
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = File::create(path).map_err(|e| Error::io(path, e))?;
    file.write_all(bytes).map_err(|e| Error::io(path, e))?;
    file.sync_all().map_err(|e| Error::io(path, e))
}

pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io(dir, e))
}

/// A directory built beside its target and renamed onto it only once complete.
///
/// ```text
/// <parent>/<name>              the target: absent or empty
/// <parent>/.<name>.<purpose>   staging, locked while it is written
/// ```
pub(crate) struct Staging {
    target: PathBuf,
    pub dir: PathBuf,
    lock: Option<DirLock>,
}

impl Staging {
    /// Checks the target (absent, or an empty directory) and makes a fresh, locked staging
    /// directory beside it. A staging directory left by a killed run holds no lock and is
    /// cleared; one whose lock is held belongs to a run still going, which is refused.
    pub fn prepare(target: &Path) -> Result<Staging> {
        Self::prepare_for(target, "restore")
    }

    pub fn prepare_for(target: &Path, purpose: &str) -> Result<Staging> {
        let refuse = |reason: &str| backup_error(target, reason);
        if target.exists() {
            if !target.is_dir() {
                return Err(refuse("exists and is not a directory"));
            }
            let mut entries = fs::read_dir(target).map_err(|e| Error::io(target, e))?;
            if entries.next().is_some() {
                return Err(refuse(
                    "is not empty: a restore or load writes a new directory",
                ));
            }
        }
        let name = target
            .file_name()
            .ok_or_else(|| refuse("names no directory"))?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        let dir = parent.join(format!(".{}.{purpose}", name.to_string_lossy()));
        if dir.exists() {
            let held = DirLock::acquire(&dir)
                .map_err(|e| refuse(&format!("another {purpose} is writing it: {e}")))?;
            fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
            drop(held);
        }
        fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let lock = DirLock::acquire(&dir)?;
        Ok(Staging {
            target: target.to_path_buf(),
            dir,
            lock: Some(lock),
        })
    }

    /// Renames the finished directory onto the target.
    pub fn commit(mut self) -> Result<()> {
        sync_dir(&self.dir)?;
        if self.target.exists() {
            // Checked empty when the staging began.
            fs::remove_dir(&self.target).map_err(|e| Error::io(&self.target, e))?;
        }
        fs::rename(&self.dir, &self.target).map_err(|e| Error::io(&self.target, e))?;
        self.lock.take();
        let parent = match self.target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        sync_dir(&parent)
    }

    /// Removes what was built.
    pub fn abandon(mut self) {
        self.lock.take();
        let _ = fs::remove_dir_all(&self.dir);
    }
}
