//! Bookmarks: a client that presents one reads at least what that commit wrote.
//!
//! A bookmark names a commit number (`quiver:bookmark:v1:42`, as the engine issues them). A
//! request waits, up to [`crate::ApiConfig::bookmark_wait`], until the store makes that commit
//! visible to new readers — which it already is for any bookmark this server issued, except
//! while a durable mode's fsync is still in flight.

use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::service::ApiState;

const PREFIX: &str = "quiver:bookmark:v1:";
/// Most bookmarks one request may present.
pub const BOOKMARKS_MAX: usize = 256;
/// Longest bookmark header read.
pub const HEADER_BYTES_MAX: usize = 16 * 1024;

/// The bookmark of a commit, at a fixed width: clients and load tools (ApacheBench counts a
/// response whose length differs from the first as failed) see the same length for every
/// commit, as with Neo4j's opaque bookmarks. Readers of the shorter form the engine issues
/// over Bolt accept it, since it is the same number with leading zeros.
pub fn format(commit: u64) -> String {
    format!("{PREFIX}{commit:020}")
}

pub fn commit_of(bookmark: &str) -> Result<u64, ApiError> {
    bookmark
        .strip_prefix(PREFIX)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| ApiError::InvalidBookmark(bookmark.chars().take(100).collect()))
}

/// Reads the transactional API's `bookmarks` header: a JSON array of non-empty strings.
pub fn parse_header(value: &[u8]) -> Result<Vec<String>, ApiError> {
    let invalid = || {
        ApiError::InvalidFormat(
            "Invalid bookmarks header. `bookmarks` must be an array of non-empty string values."
                .to_owned(),
        )
    };
    if value.len() > HEADER_BYTES_MAX {
        return Err(invalid());
    }
    let bookmarks: Vec<String> = serde_json::from_slice(value).map_err(|_| invalid())?;
    if bookmarks.iter().any(String::is_empty) || bookmarks.len() > BOOKMARKS_MAX {
        return Err(invalid());
    }
    Ok(bookmarks)
}

/// Blocks until every bookmark's commit is visible, or fails at the wait limit.
pub fn await_all(shared: &ApiState, bookmarks: &[String]) -> Result<(), ApiError> {
    let mut newest: Option<(u64, &str)> = None;
    for bookmark in bookmarks {
        let commit = commit_of(bookmark)?;
        if newest.is_none_or(|(n, _)| commit > n) {
            newest = Some((commit, bookmark));
        }
    }
    let Some((commit, bookmark)) = newest else {
        return Ok(());
    };
    let storage = shared.db.storage();
    let deadline = Instant::now() + shared.config.bookmark_wait;
    let mut pause = Duration::from_micros(100);
    while storage.visible_watermark() < commit {
        if Instant::now() >= deadline {
            return Err(ApiError::BookmarkTimeout(bookmark.to_owned()));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_bookmark_parsing() {
        assert_eq!(
            parse_header(br#"["quiver:bookmark:v1:3"]"#).expect("valid"),
            vec!["quiver:bookmark:v1:3".to_owned()]
        );
        assert!(parse_header(br#"[""]"#).is_err());
        assert!(parse_header(b"quiver").is_err());
        assert!(parse_header(b"[1]").is_err());
        assert_eq!(commit_of("quiver:bookmark:v1:42").expect("valid"), 42);
        assert_eq!(format(42), "quiver:bookmark:v1:00000000000000000042");
        assert_eq!(commit_of(&format(u64::MAX)).expect("valid"), u64::MAX);
        assert_eq!(format(7).len(), format(u64::MAX).len());
        assert!(matches!(
            commit_of("FB:kcwQ"),
            Err(ApiError::InvalidBookmark(_))
        ));
    }
}
