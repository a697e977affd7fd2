//! `quiver backup` and `quiver restore`: online backups taken from a running server's HTTP
//! listener, and a data directory rebuilt from them, spelled as `neo4j-admin database backup`
//! and `restore` spell them. The chain's format and the restore are `quiver_durability`'s;
//! this is the command line and the HTTP client.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use http::{HeaderMap, Method, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use quiver_durability::backup::{
    BackupDir, Manifest, Piece, PieceKind, RestoreProgress, RestoreUntil, restore,
};

use crate::client::{Client, Target, error_message};

/// Exit status for a command line that cannot be run (as for a usage error).
const EXIT_USAGE: u8 = 2;
/// How long connecting and the server's answer may take (the piece itself may take longer:
/// the server writes it before it answers, so this bounds the snapshot too).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(3600);
/// Bytes between progress lines.
const PROGRESS_BYTES: u64 = 64 << 20;

#[derive(clap::Args)]
pub struct BackupArgs {
    /// The server's HTTP listener: `host:port`, `http://host:port` or `https://host:port`.
    #[arg(long, value_name = "ADDRESS", required_unless_present = "inspect")]
    from: Option<String>,
    /// The backup directory: the first backup into it is full, the next ones incremental.
    #[arg(long, value_name = "DIR", required_unless_present = "inspect")]
    to_path: Option<PathBuf>,
    /// `auto` (incremental when the directory holds a chain, full otherwise, and full when
    /// the server no longer keeps what an incremental needs), `full` or `incremental`
    /// (neo4j-admin's `diff` is read as `incremental`; case does not matter).
    #[arg(
        long = "type",
        default_value = "auto",
        value_name = "auto|full|incremental"
    )]
    kind: String,
    /// The database to back up.
    #[arg(long, default_value = "neo4j")]
    database: String,
    /// An administrator's user name.
    #[arg(long, default_value = "neo4j", env = "QUIVER_BACKUP_USER")]
    user: String,
    /// Their password (better from the environment than on a command line).
    #[arg(long, env = "QUIVER_BACKUP_PASSWORD", hide_env_values = true)]
    password: Option<String>,
    /// The CA certificate (PEM) an `https://` server's certificate is checked against.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// List the backups in DIR, check every file against its manifest, and exit.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["from", "to_path"])]
    inspect: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct RestoreArgs {
    /// The backup directory.
    #[arg(long, value_name = "DIR")]
    from_path: PathBuf,
    /// The data directory to create (absent or empty); `quiver serve --data-dir` opens it.
    #[arg(long, value_name = "DIR")]
    data_dir: PathBuf,
    /// Restore every transaction committed at or before this point and none after: a
    /// transaction (commit) number, or a time: RFC 3339 (`2026-05-10T14:30:00Z`) or
    /// `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC. Without it, the chain's last transaction.
    #[arg(long, value_name = "DATETIME|TXID")]
    restore_until: Option<String>,
}

/// What `--type` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wanted {
    Auto,
    Full,
    Incremental,
}

pub fn run_backup(args: BackupArgs) -> ExitCode {
    if let Some(dir) = &args.inspect {
        return inspect(dir);
    }
    let wanted = match args.kind.to_ascii_lowercase().as_str() {
        "auto" => Wanted::Auto,
        "full" => Wanted::Full,
        "incremental" | "diff" => Wanted::Incremental,
        other => {
            eprintln!("quiver backup: --type must be auto, full or incremental, not `{other}`");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (Some(from), Some(to_path)) = (&args.from, &args.to_path) else {
        eprintln!("quiver backup: --from and --to-path are needed");
        return ExitCode::from(EXIT_USAGE);
    };
    let target = match Target::parse(from, args.tls_ca.as_deref()) {
        Ok(target) => target,
        Err(message) => {
            eprintln!("quiver backup: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let client = Client::new(target, &args.database, &args.user, args.password.as_deref());
    match take_backup(&client, to_path, wanted) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("quiver backup: {message}");
            ExitCode::FAILURE
        }
    }
}

fn take_backup(client: &Client, to_path: &Path, wanted: Wanted) -> Result<(), String> {
    let mut backups = BackupDir::open(to_path).map_err(|e| e.to_string())?;
    let after = match (wanted, backups.last()) {
        (Wanted::Full, _) | (Wanted::Auto, None) => None,
        (Wanted::Incremental, None) => {
            return Err(format!(
                "{} holds no backup yet: the first one is full",
                to_path.display()
            ));
        }
        (_, Some(last)) => Some((last.last_commit, last.last_time)),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the client: {e}"))?;
    let started = Instant::now();
    match after {
        Some((n, _)) => eprintln!("backup: asking for the commits after {n}"),
        None => eprintln!("backup: asking for a full backup"),
    }
    let answer = get_piece(client, &runtime, after)?;
    let (status, headers, body) = answer;
    match status {
        StatusCode::OK => {}
        StatusCode::NO_CONTENT => {
            eprintln!(
                "backup: nothing was committed since commit {}: no piece taken",
                after.map_or(0, |(n, _)| n)
            );
            return Ok(());
        }
        StatusCode::CONFLICT if wanted == Wanted::Auto && after.is_some() => {
            let message = error_message(&runtime, body);
            eprintln!("backup: {message}");
            eprintln!("backup: starting a new chain with a full backup");
            let (status, headers, body) = get_piece(client, &runtime, None)?;
            if status != StatusCode::OK {
                return Err(format!("{status}: {}", error_message(&runtime, body)));
            }
            return keep(&runtime, &mut backups, &headers, body, started);
        }
        status => return Err(format!("{status}: {}", error_message(&runtime, body))),
    }
    keep(&runtime, &mut backups, &headers, body, started)
}

/// `GET /db/{db}/backup[?after=N[&after_time=T]]`: the status, headers and body of the
/// answer.
fn get_piece(
    client: &Client,
    runtime: &tokio::runtime::Runtime,
    after: Option<(u64, Option<i64>)>,
) -> Result<(StatusCode, HeaderMap, Incoming), String> {
    let db = client.database();
    let path = match after {
        Some((n, Some(t))) => format!("/db/{db}/backup?after={n}&after_time={t}"),
        Some((n, None)) => format!("/db/{db}/backup?after={n}"),
        None => format!("/db/{db}/backup"),
    };
    client.request(runtime, Method::GET, &path, None, ANSWER_TIMEOUT)
}

/// Writes the piece the server sent into the backup directory, checked against its headers.
fn keep(
    runtime: &tokio::runtime::Runtime,
    backups: &mut BackupDir,
    headers: &HeaderMap,
    body: Incoming,
    started: Instant,
) -> Result<(), String> {
    let piece = piece_of(headers)?;
    let article = match piece.kind {
        PieceKind::Full => "a",
        PieceKind::Incremental => "an",
    };
    eprintln!(
        "backup: receiving {article} {} piece: commits {} to {}, {:.1} MiB",
        piece.kind,
        piece.first_commit,
        piece.last_commit,
        mib(piece.bytes)
    );
    let mut reader = BodyReader {
        runtime,
        body,
        chunk: Bytes::new(),
    };
    let mut reported = 0u64;
    let manifest = backups
        .keep(&piece, &mut reader, &mut |bytes| {
            if bytes - reported >= PROGRESS_BYTES {
                reported = bytes;
                eprintln!("backup: {:.1} of {:.1} MiB", mib(bytes), mib(piece.bytes));
            }
        })
        .map_err(|e| e.to_string())?;
    println!(
        "backup {} ({}) of commits {} to {} (last committed {}) written to {} in {:.2} s",
        manifest.sequence,
        manifest.kind,
        manifest.first_commit,
        manifest.last_commit,
        time_text(manifest.last_time),
        backups.path().join(&manifest.file).display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The piece's facts from the response headers; a missing or malformed one is an error.
fn piece_of(headers: &HeaderMap) -> Result<Piece, String> {
    use quiver_server::http_listener::backup::{
        CRC32C, FIRST_COMMIT, FIRST_TIME, KIND, LAST_COMMIT, LAST_TIME,
    };
    let text = |name: &str| -> Result<Option<&str>, String> {
        headers
            .get(name)
            .map(|v| {
                v.to_str()
                    .map_err(|_| format!("the server sent an unreadable {name} header"))
            })
            .transpose()
    };
    let required = |name: &str| -> Result<&str, String> {
        text(name)?.ok_or_else(|| format!("the server sent no {name} header"))
    };
    let number = |name: &str| -> Result<u64, String> {
        required(name)?
            .parse()
            .map_err(|_| format!("the server sent a malformed {name} header"))
    };
    let time = |name: &str| -> Result<Option<i64>, String> {
        text(name)?
            .map(|t| {
                t.parse()
                    .map_err(|_| format!("the server sent a malformed {name} header"))
            })
            .transpose()
    };
    let kind = match required(KIND)? {
        "full" => PieceKind::Full,
        "incremental" => PieceKind::Incremental,
        other => return Err(format!("the server sent an unknown piece kind `{other}`")),
    };
    let crc32c = u32::from_str_radix(required(CRC32C)?, 16)
        .map_err(|_| format!("the server sent a malformed {CRC32C} header"))?;
    Ok(Piece {
        kind,
        path: PathBuf::new(),
        first_commit: number(FIRST_COMMIT)?,
        last_commit: number(LAST_COMMIT)?,
        first_time: time(FIRST_TIME)?,
        last_time: time(LAST_TIME)?,
        bytes: number(http::header::CONTENT_LENGTH.as_str())?,
        crc32c,
    })
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A commit time for people: RFC 3339 in UTC, or `unknown`.
fn time_text(micros: Option<i64>) -> String {
    micros
        .and_then(|m| jiff::Timestamp::from_microsecond(m).ok())
        .map_or_else(|| "at an unknown time".to_string(), |t| format!("at {t}"))
}

/// A response body read as a stream of bytes, on the runtime that drives its connection.
struct BodyReader<'r> {
    runtime: &'r tokio::runtime::Runtime,
    body: Incoming,
    chunk: Bytes,
}

impl Read for BodyReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.chunk.is_empty() {
            let frame = self
                .runtime
                .block_on(async { tokio::time::timeout(ANSWER_TIMEOUT, self.body.frame()).await });
            match frame {
                Err(_) => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "the server stalled",
                    ));
                }
                Ok(None) => return Ok(0),
                Ok(Some(Err(e))) => return Err(io::Error::other(e)),
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        self.chunk = data;
                    }
                }
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk[..n]);
        self.chunk.advance(n);
        Ok(n)
    }
}

/// `quiver backup --inspect DIR`: the pieces, then whether each checks out.
fn inspect(dir: &Path) -> ExitCode {
    let backups = match BackupDir::open(dir) {
        Ok(backups) => backups,
        Err(e) => {
            eprintln!("quiver backup: {e}");
            return ExitCode::FAILURE;
        }
    };
    if backups.pieces().is_empty() {
        println!("{} holds no backup", dir.display());
        return ExitCode::SUCCESS;
    }
    println!(
        "sequence  kind         commits                 last commit time                 size (MiB)  file"
    );
    for m in backups.pieces() {
        print_piece(m);
    }
    match backups.verify() {
        Ok(()) => {
            println!("every file matches its manifest and each piece continues the one before");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("quiver backup: {e}");
            ExitCode::FAILURE
        }
    }
}

fn print_piece(m: &Manifest) {
    let commits = format!("{} to {}", m.first_commit, m.last_commit);
    let time = m
        .last_time
        .and_then(|t| jiff::Timestamp::from_microsecond(t).ok())
        .map_or_else(|| "unknown".to_string(), |t| t.to_string());
    println!(
        "{:<9} {:<12} {:<23} {:<32} {:>10.1}  {}",
        m.sequence,
        m.kind.to_string(),
        commits,
        time,
        mib(m.bytes),
        m.file
    );
}

/// `--restore-until`: a commit number, or a time.
pub(crate) fn parse_until(text: &str) -> Result<RestoreUntil, String> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse()
            .map(RestoreUntil::Commit)
            .map_err(|_| format!("--restore-until `{text}` is too large a transaction number"));
    }
    let timestamp = text.parse::<jiff::Timestamp>().or_else(|_| {
        text.parse::<jiff::civil::DateTime>()
            .and_then(|civil| civil.to_zoned(jiff::tz::TimeZone::UTC))
            .map(|zoned| zoned.timestamp())
    });
    match timestamp {
        Ok(t) => Ok(RestoreUntil::Time(t.as_microsecond())),
        Err(_) => Err(format!(
            "--restore-until `{text}` is neither a transaction number nor a time \
             (RFC 3339, or YYYY-MM-DD HH:MM:SS in UTC)"
        )),
    }
}

pub fn run_restore(args: RestoreArgs) -> ExitCode {
    let until = match args.restore_until.as_deref().map(parse_until).transpose() {
        Ok(until) => until.unwrap_or(RestoreUntil::End),
        Err(message) => {
            eprintln!("quiver restore: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let started = Instant::now();
    let backups = match BackupDir::open(&args.from_path) {
        Ok(backups) => backups,
        Err(e) => {
            eprintln!("quiver restore: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut progress = |step: RestoreProgress| match step {
        RestoreProgress::Piece { sequence, kind } => {
            eprintln!("restore: reading piece {sequence} ({kind})");
        }
        RestoreProgress::Bytes(bytes) => eprintln!("restore: {:.1} MiB read", mib(bytes)),
        RestoreProgress::Checking => {
            eprintln!("restore: opening the rebuilt directory as a server would");
        }
    };
    match restore(&backups, &args.data_dir, until, &mut progress) {
        Ok(report) => {
            println!(
                "restored {} to commit {} (committed {}) from {} pieces and {} log records \
                 in {:.2} s",
                args.data_dir.display(),
                report.last_commit,
                time_text(report.last_time),
                report.pieces.len(),
                report.records,
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("quiver restore: {e}");
            eprintln!(
                "quiver restore: nothing was written to {}",
                args.data_dir.display()
            );
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restore_until_reads_a_transaction_number_or_a_time_in_utc() {
        assert_eq!(parse_until("42"), Ok(RestoreUntil::Commit(42)));
        let rfc = parse_until("2026-05-10T14:30:00Z").unwrap();
        let plain = parse_until("2026-05-10 14:30:00").unwrap();
        assert_eq!(rfc, plain);
        assert_eq!(rfc, RestoreUntil::Time(1_778_423_400_000_000));
        assert_eq!(
            parse_until("2026-05-10T16:30:00+02:00").unwrap(),
            RestoreUntil::Time(1_778_423_400_000_000)
        );
        for bad in [
            "",
            "yesterday",
            "99999999999999999999999",
            "2026-13-01 00:00:00",
        ] {
            assert!(parse_until(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_address_is_host_and_port_and_https_needs_a_ca() {
        let t = Target::parse("localhost:7474", None).unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.tls.is_none()),
            ("localhost", 7474, true)
        );
        let t = Target::parse("http://127.0.0.1:80/", None).unwrap();
        assert_eq!((t.host.as_str(), t.port), ("127.0.0.1", 80));
        assert!(Target::parse("https://db:7473", None).is_err());
        assert!(Target::parse("localhost", None).is_err());
        assert!(Target::parse(":7474", None).is_err());
        assert!(Target::parse("db:http", None).is_err());
    }
}
