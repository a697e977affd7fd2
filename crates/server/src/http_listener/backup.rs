//! `GET /db/{db}/backup`: online backups, for an administrator.
//!
//! ```text
//! GET /db/neo4j/backup               a full piece: a snapshot as of one commit
//! GET /db/neo4j/backup?after=N       an incremental piece: the commits after N
//!    [&after_time=T]                  ... of a chain whose commit N was committed at T (Unix
//!                                     microseconds): refused when this database's was not
//! ```
//!
//! The piece is written by the data directory's owner while writers go on (see
//! `quiver_durability::Durability::backup_full` and `backup_since`) into a scratch directory
//! of its own, then streamed; the scratch files go when the body is finished or abandoned.
//! What the piece holds travels in headers, so the client can write its manifest and check
//! the bytes it received:
//!
//! ```text
//! Quiver-Backup-Kind            full | incremental
//! Quiver-Backup-First-Commit    the first commit the piece holds
//! Quiver-Backup-Last-Commit     the last
//! Quiver-Backup-First-Time      their commit times, Unix microseconds (absent when unknown)
//! Quiver-Backup-Last-Time
//! Quiver-Backup-Crc32c          the body's CRC32C, 8 hex digits
//! Content-Length                the body's size
//! ```
//!
//! 204 answers an incremental request when nothing was committed since; 409 one whose
//! commits the log no longer keeps (the chain must restart with a full backup), or that
//! names a commit this database never reached.

use std::io::Read;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{Response, StatusCode};
use hyper::body::{Body, Frame, SizeHint};
use quiver_durability::backup::{Piece, PieceKind};
use quiver_engine::Database;
use quiver_status::Status;
use tokio::sync::mpsc;

use super::api::{ApiBody, BoxError, box_body};
use super::respond;

/// The database the backup endpoint serves (the HTTP API's default database name).
pub const DATABASE_NAME: &str = "neo4j";
/// Bytes read from the piece per frame of the body.
const CHUNK_BYTES: usize = 1 << 20;
/// Chunks read ahead of the client.
const CHUNKS_AHEAD: usize = 4;

pub const KIND: &str = "quiver-backup-kind";
pub const FIRST_COMMIT: &str = "quiver-backup-first-commit";
pub const LAST_COMMIT: &str = "quiver-backup-last-commit";
pub const FIRST_TIME: &str = "quiver-backup-first-time";
pub const LAST_TIME: &str = "quiver-backup-last-time";
pub const CRC32C: &str = "quiver-backup-crc32c";

/// What a backup request asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Request {
    Full,
    After { commit: u64, time: Option<i64> },
}

/// Reads the query: nothing, or `after=<commit>` with an optional `after_time=<micros>`; the
/// refusal message otherwise.
pub(crate) fn parse_query(query: Option<&str>) -> Result<Request, String> {
    let Some(query) = query.filter(|q| !q.is_empty()) else {
        return Ok(Request::Full);
    };
    let (mut after, mut time) = (None, None);
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("after", value)) if after.is_none() => {
                after = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("`after` must be a commit number, not `{value}`."))?,
                );
            }
            Some(("after_time", value)) if time.is_none() => {
                time = Some(value.parse::<i64>().map_err(|_| {
                    format!("`after_time` must be Unix microseconds, not `{value}`.")
                })?);
            }
            _ => return Err(format!("Unknown or repeated parameter in `{pair}`.")),
        }
    }
    match (after, time) {
        (Some(commit), time) => Ok(Request::After { commit, time }),
        (None, None) => Ok(Request::Full),
        (None, Some(_)) => Err("`after_time` needs `after`.".to_string()),
    }
}

/// Takes the piece off the runtime's workers and answers with it.
pub(crate) async fn answer(db: Arc<Database>, request: Request) -> Response<ApiBody> {
    let Some(dir) = db.durability().map(|d| d.dir().join(SCRATCH_DIR)) else {
        return respond::neo4j_error(
            StatusCode::NOT_FOUND,
            Status::RequestInvalid,
            "Backups need a data directory: this server keeps its graph in memory.",
        );
    };
    let scratch = Scratch(dir.join(unique_name()));
    let taken = tokio::task::spawn_blocking(move || {
        let Some(durability) = db.durability() else {
            return Err(None);
        };
        let piece = match request {
            Request::Full => durability.backup_full(&scratch.0).map(Some),
            Request::After { commit, time } => durability.backup_since(commit, time, &scratch.0),
        };
        match piece {
            Ok(piece) => Ok((piece, scratch)),
            Err(e) => Err(Some(e)),
        }
    })
    .await;
    match taken {
        Ok(Ok((Some(piece), scratch))) => stream(piece, scratch),
        Ok(Ok((None, _))) => {
            let mut response = Response::new(box_body(http_body_util::Empty::new()));
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        }
        Ok(Err(Some(
            e
            @ (quiver_durability::Error::LogGone { .. } | quiver_durability::Error::Backup { .. }),
        ))) => respond::neo4j_error(StatusCode::CONFLICT, Status::RequestInvalid, &e.to_string()),
        Ok(Err(Some(e))) => {
            tracing::warn!(error = %e, "backup failed");
            respond::neo4j_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Status::DatabaseUnavailable,
                &format!("The backup failed: {e}"),
            )
        }
        Ok(Err(None)) | Err(_) => respond::neo4j_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            Status::DatabaseUnavailable,
            "The backup stopped.",
        ),
    }
}

/// The scratch directory's name in the data directory (removed when the store opens).
const SCRATCH_DIR: &str = quiver_durability::BACKUP_SCRATCH_DIR;

fn unique_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A piece's scratch directory, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stream(piece: Piece, scratch: Scratch) -> Response<ApiBody> {
    let file = match std::fs::File::open(&piece.path) {
        Ok(file) => file,
        Err(e) => {
            return respond::neo4j_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                Status::DatabaseUnavailable,
                &format!(
                    "The backup failed: cannot read {}: {e}",
                    piece.path.display()
                ),
            );
        }
    };
    let (tx, rx) = mpsc::channel(CHUNKS_AHEAD);
    // The scratch directory lives as long as the reader; the reader until the body is done
    // or dropped (its channel closes).
    std::thread::spawn(move || read_chunks(file, &tx, scratch));
    let mut response = Response::new(box_body(PieceBody {
        rx,
        remaining: piece.bytes,
    }));
    let headers = response.headers_mut();
    let mut put = |name: &'static str, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(HeaderName::from_static(name), value);
        }
    };
    put(
        KIND,
        match piece.kind {
            PieceKind::Full => "full",
            PieceKind::Incremental => "incremental",
        }
        .to_string(),
    );
    put(FIRST_COMMIT, piece.first_commit.to_string());
    put(LAST_COMMIT, piece.last_commit.to_string());
    if let Some(t) = piece.first_time {
        put(FIRST_TIME, t.to_string());
    }
    if let Some(t) = piece.last_time {
        put(LAST_TIME, t.to_string());
    }
    put(CRC32C, format!("{:08x}", piece.crc32c));
    headers.insert(CONTENT_LENGTH, HeaderValue::from(piece.bytes));
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    response
}

fn read_chunks(mut file: std::fs::File, tx: &mpsc::Sender<std::io::Result<Bytes>>, _: Scratch) {
    loop {
        let mut buf = vec![0u8; CHUNK_BYTES];
        match file.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                buf.truncate(n);
                if tx.blocking_send(Ok(Bytes::from(buf))).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let _ = tx.blocking_send(Err(e));
                return;
            }
        }
    }
}

/// The piece's bytes as the reader thread hands them over.
struct PieceBody {
    rx: mpsc::Receiver<std::io::Result<Bytes>>,
    remaining: u64,
}

impl Body for PieceBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(Ok(bytes))) => {
                self.remaining = self.remaining.saturating_sub(bytes.len() as u64);
                Poll::Ready(Some(Ok(Frame::data(bytes))))
            }
            Poll::Ready(Some(Err(e))) => Poll::Ready(Some(Err(Box::new(e)))),
            Poll::Ready(None) if self.remaining > 0 => {
                Poll::Ready(Some(Err("the backup piece ended before its length".into())))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_a_full_piece_or_the_commit_an_incremental_one_follows() {
        assert_eq!(parse_query(None), Ok(Request::Full));
        assert_eq!(parse_query(Some("")), Ok(Request::Full));
        assert_eq!(
            parse_query(Some("after=42")),
            Ok(Request::After {
                commit: 42,
                time: None
            })
        );
        assert_eq!(
            parse_query(Some("after=42&after_time=-7")),
            Ok(Request::After {
                commit: 42,
                time: Some(-7)
            })
        );
        for bad in [
            "after=x",
            "after=-1",
            "after=1&after=2",
            "since=3",
            "after",
            "after_time=5",
            "after=1&after_time=x",
        ] {
            assert!(parse_query(Some(bad)).is_err(), "{bad}");
        }
    }
}
