//! The audit log (`--audit-log PATH`, opt-in): one JSON object per line for every login, failed
//! login, user and role change and terminated transaction, with the time (UTC, RFC 3339 with
//! milliseconds), the user, the client's address when known and what happened. Passwords and
//! their hashes never reach it: the events carry names and flags only.
//!
//! Lines are appended under a lock with one `write` each, so concurrent events never
//! interleave; the file is opened for appending, so a log rotated by renaming it starts a new
//! file at the next restart.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use quiver_value::temporal::calendar::{Ymd, ymd_from_days};
use serde_json::{Map, Value};

/// An open audit log.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AuditLog {
    /// Opens (creating if needed) `path` for appending.
    pub fn open(path: &Path) -> std::io::Result<AuditLog> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(AuditLog {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event: `event` names it (`login`, `login_failed`, `create_user`, ...),
    /// `fields` add what it was done to.
    pub fn record(&self, user: &str, client: Option<IpAddr>, event: &str, fields: &[(&str, &str)]) {
        let mut line = Map::new();
        line.insert("time".to_owned(), Value::from(rfc3339(SystemTime::now())));
        line.insert("user".to_owned(), Value::from(user));
        line.insert(
            "client".to_owned(),
            client.map_or(Value::Null, |ip| Value::from(ip.to_string())),
        );
        line.insert("event".to_owned(), Value::from(event));
        for (key, value) in fields {
            if !value.is_empty() {
                line.insert((*key).to_owned(), Value::from(*value));
            }
        }
        let mut bytes = Value::Object(line).to_string().into_bytes();
        bytes.push(b'\n');
        if let Err(error) = self.file.lock().write_all(&bytes) {
            tracing::warn!(%error, path = %self.path.display(), "cannot write the audit log");
        }
    }
}

/// `time` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn rfc3339(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let Ymd { year, month, day } = ymd_from_days(i64::try_from(days).unwrap_or(i64::MAX));
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        // 2024-02-29T12:34:56.789Z, a leap day.
        let t = UNIX_EPOCH + Duration::from_millis(1_709_210_096_789);
        assert_eq!(rfc3339(t), "2024-02-29T12:34:56.789Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn events_are_json_lines_without_empty_fields() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("audit.log");
        let log = AuditLog::open(&path).expect("open");
        log.record("ann", Some(IpAddr::from([127, 0, 0, 1])), "login", &[]);
        log.record(
            "root",
            None,
            "create_user",
            &[("target", "bob"), ("detail", "")],
        );
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["event"], "login");
        assert_eq!(lines[0]["client"], "127.0.0.1");
        assert_eq!(lines[1]["target"], "bob");
        assert!(lines[1]["client"].is_null());
        assert!(lines[1].get("detail").is_none());
    }
}
