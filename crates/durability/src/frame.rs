//! The commit log's on-disk layout: segment files of checksummed frames, one per commit.
//!
//! ```text
//! segment file  log-<first commit, 20 digits>.qlog
//! offset  size  field
//! 0       8     magic "QUIVLOG\0"
//! 8       4     format version, u32 LE (1)
//! 12      4     reserved, zero
//! 16      8     base commit, u64 LE: the commit of the first frame
//! 24      4     reserved, zero
//! 28      4     CRC32C of bytes 0..28, u32 LE
//! 32      ...   frames, back to back, in commit order
//!
//! frame
//! 0       4     body length n, u32 LE
//! 4       4     CRC32C of bytes 8..16+n (commit and body), u32 LE
//! 8       8     commit number, u64 LE (equal to the body's own)
//! 16      n     body: the redo record exactly as `RedoRecord::encode` wrote it
//! ```
//!
//! The checksum covers the commit number and the body but not the length: a torn length makes
//! the frame run past the data or fail its checksum, either of which recovery detects.

pub const SEGMENT_MAGIC: [u8; 8] = *b"QUIVLOG\0";
pub const SEGMENT_VERSION: u32 = 1;
pub const SEGMENT_HEADER_BYTES: usize = 32;
const SEGMENT_BASE_AT: usize = 16;
const SEGMENT_CRC_AT: usize = 28;

pub const FRAME_HEADER_BYTES: usize = 16;
const FRAME_CRC_AT: usize = 4;
const FRAME_COMMIT_AT: usize = 8;
/// The smallest redo record: its own length, version, commit and op count.
pub const FRAME_BODY_BYTES_MIN: usize = 17;

// The diagram above, checked by the compiler: each field ends where the next begins.
const _: () = assert!(SEGMENT_MAGIC.len() + 4 + 4 == SEGMENT_BASE_AT);
const _: () = assert!(SEGMENT_BASE_AT + 8 + 4 == SEGMENT_CRC_AT);
const _: () = assert!(SEGMENT_CRC_AT + 4 == SEGMENT_HEADER_BYTES);
const _: () = assert!(FRAME_CRC_AT == 4 && FRAME_CRC_AT + 4 == FRAME_COMMIT_AT);
const _: () = assert!(FRAME_COMMIT_AT + 8 == FRAME_HEADER_BYTES);
// A redo record's header is its length (4), version (1), commit (8) and op count (4).
const _: () = assert!(FRAME_BODY_BYTES_MIN == 4 + 1 + 8 + 4);

pub const SEGMENT_SUFFIX: &str = ".qlog";
pub const SNAPSHOT_SUFFIX: &str = ".qsnap";
pub const TEMP_SUFFIX: &str = ".tmp";

/// How far past the last good commit a frame may claim to be and still count as evidence of
/// data after a damaged frame (a commit number further off is noise, not a record).
const LATER_COMMIT_SPAN_MAX: u64 = 1 << 32;

pub fn segment_name(base: u64) -> String {
    format!("log-{base:020}{SEGMENT_SUFFIX}")
}

pub fn snapshot_name(commit: u64) -> String {
    format!("snapshot-{commit:020}{SNAPSHOT_SUFFIX}")
}

fn parse_numbered(name: &str, prefix: &str, suffix: &str) -> Option<u64> {
    let digits = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub fn parse_segment_name(name: &str) -> Option<u64> {
    parse_numbered(name, "log-", SEGMENT_SUFFIX)
}

pub fn parse_snapshot_name(name: &str) -> Option<u64> {
    parse_numbered(name, "snapshot-", SNAPSHOT_SUFFIX)
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(crate) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

pub fn put_segment_header(out: &mut Vec<u8>, base: u64) {
    let start = out.len();
    out.extend_from_slice(&SEGMENT_MAGIC);
    out.extend_from_slice(&SEGMENT_VERSION.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&base.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    let crc = crc32c::crc32c(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
    debug_assert_eq!(out.len() - start, SEGMENT_HEADER_BYTES);
}

/// The base commit of a segment, or why its header is unusable.
pub fn read_segment_header(bytes: &[u8]) -> Result<u64, &'static str> {
    let header = bytes
        .get(..SEGMENT_HEADER_BYTES)
        .ok_or("segment header is truncated")?;
    if header[..8] != SEGMENT_MAGIC {
        return Err("not a Quiver log segment (bad magic)");
    }
    let crc = u32_at(header, SEGMENT_CRC_AT).ok_or("segment header is truncated")?;
    if crc32c::crc32c(&header[..SEGMENT_CRC_AT]) != crc {
        return Err("segment header checksum mismatch");
    }
    if u32_at(header, 8) != Some(SEGMENT_VERSION) {
        return Err("unsupported segment format version");
    }
    u64_at(header, SEGMENT_BASE_AT).ok_or("segment header is truncated")
}

fn frame_crc(commit: u64, body: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&commit.to_le_bytes()), body)
}

/// Appends one frame holding `body`, the encoded record of `commit`.
pub fn put_frame(out: &mut Vec<u8>, commit: u64, body: &[u8]) {
    out.reserve(FRAME_HEADER_BYTES + body.len());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&frame_crc(commit, body).to_le_bytes());
    out.extend_from_slice(&commit.to_le_bytes());
    out.extend_from_slice(body);
}

/// Why the bytes at some offset are not a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameError {
    /// The frame runs past the end of the data.
    Truncated,
    /// The length is below the smallest record or above the limit.
    BadLength,
    BadChecksum,
}

impl FrameError {
    pub fn reason(self) -> &'static str {
        match self {
            FrameError::Truncated => "record runs past the end of the file",
            FrameError::BadLength => "record length out of range",
            FrameError::BadChecksum => "record checksum mismatch",
        }
    }
}

/// A frame read from a segment.
#[derive(Debug)]
pub struct Frame<'a> {
    pub commit: u64,
    pub body: &'a [u8],
    /// The offset just past the frame.
    pub next: usize,
}

pub fn read_frame(bytes: &[u8], at: usize, body_bytes_max: usize) -> Result<Frame<'_>, FrameError> {
    let len = u32_at(bytes, at).ok_or(FrameError::Truncated)? as usize;
    if !(FRAME_BODY_BYTES_MIN..=body_bytes_max).contains(&len) {
        // A length past the data is a torn write more often than a bad length: report the
        // truncation when the header itself is cut, the range error otherwise.
        return Err(FrameError::BadLength);
    }
    let crc = u32_at(bytes, at + FRAME_CRC_AT).ok_or(FrameError::Truncated)?;
    let commit = u64_at(bytes, at + FRAME_COMMIT_AT).ok_or(FrameError::Truncated)?;
    let body_at = at + FRAME_HEADER_BYTES;
    let body = bytes
        .get(body_at..body_at + len)
        .ok_or(FrameError::Truncated)?;
    if frame_crc(commit, body) != crc {
        return Err(FrameError::BadChecksum);
    }
    Ok(Frame {
        commit,
        body,
        next: body_at + len,
    })
}

/// Looks past a damaged frame at `from` for any intact frame of a commit at or after
/// `min_commit`. Finding one means the damage is not a torn tail but corruption with good
/// data after it, which recovery must not cut away.
pub fn find_later_frame(
    bytes: &[u8],
    from: usize,
    min_commit: u64,
    body_bytes_max: usize,
) -> Option<usize> {
    let last = bytes
        .len()
        .checked_sub(FRAME_HEADER_BYTES + FRAME_BODY_BYTES_MIN)?;
    let max_commit = min_commit.saturating_add(LATER_COMMIT_SPAN_MAX);
    (from + 1..=last).find(|&at| {
        // Cheap filters first: a plausible commit number, then the checksum.
        let Some(commit) = u64_at(bytes, at + FRAME_COMMIT_AT) else {
            return false;
        };
        (min_commit..max_commit).contains(&commit)
            && read_frame(bytes, at, body_bytes_max).is_ok_and(|f| f.commit == commit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(n: usize) -> Vec<u8> {
        (0..n).map(|i| i as u8).collect()
    }

    #[test]
    fn names_round_trip_and_reject_strangers() {
        assert_eq!(parse_segment_name(&segment_name(42)), Some(42));
        assert_eq!(parse_snapshot_name(&snapshot_name(7)), Some(7));
        assert_eq!(parse_segment_name("log-42.qlog"), None);
        assert_eq!(parse_segment_name(&snapshot_name(7)), None);
        assert_eq!(
            parse_snapshot_name("snapshot-0000000000000000000x.qsnap"),
            None
        );
        assert!(segment_name(1) < segment_name(10), "names sort by commit");
    }

    #[test]
    fn segment_header_round_trips_and_detects_damage() {
        let mut h = Vec::new();
        put_segment_header(&mut h, 99);
        assert_eq!(read_segment_header(&h), Ok(99));
        for i in 0..SEGMENT_HEADER_BYTES {
            let mut b = h.clone();
            b[i] ^= 1;
            assert!(read_segment_header(&b).is_err(), "flip at {i}");
        }
        assert!(read_segment_header(&h[..10]).is_err());
    }

    #[test]
    fn frames_round_trip_and_detect_damage() {
        let mut log = Vec::new();
        put_frame(&mut log, 5, &body(20));
        put_frame(&mut log, 6, &body(30));
        let f = read_frame(&log, 0, 1 << 20).unwrap();
        assert_eq!((f.commit, f.body.len()), (5, 20));
        let g = read_frame(&log, f.next, 1 << 20).unwrap();
        assert_eq!((g.commit, g.next), (6, log.len()));
        assert_eq!(
            read_frame(&log[..log.len() - 1], f.next, 1 << 20).unwrap_err(),
            FrameError::Truncated
        );
        for i in 4..f.next {
            let mut b = log.clone();
            b[i] ^= 0x10;
            assert!(read_frame(&b, 0, 1 << 20).is_err(), "flip at {i}");
        }
        let mut b = log.clone();
        b[0] = 3;
        assert_eq!(
            read_frame(&b, 0, 1 << 20).unwrap_err(),
            FrameError::BadLength
        );
        assert_eq!(read_frame(&log, 0, 10).unwrap_err(), FrameError::BadLength);
    }

    #[test]
    fn later_frames_are_found_past_damage() {
        let mut log = Vec::new();
        put_frame(&mut log, 5, &body(20));
        let second = log.len();
        put_frame(&mut log, 6, &body(20));
        log[3] = 0xff; // the first frame's length is garbage now
        assert_eq!(find_later_frame(&log, 0, 5, 1 << 20), Some(second));
        assert_eq!(find_later_frame(&log, 0, 7, 1 << 20), None);
        assert_eq!(find_later_frame(&log[..second + 10], 0, 5, 1 << 20), None);
        assert_eq!(find_later_frame(&[], 0, 0, 1 << 20), None);
    }
}
