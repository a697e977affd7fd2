//! Bookmarks: a client that presents one reads at least what that commit wrote.
//!
//! The engine's `Bookmark` writes and reads them (both the fixed-width form issued and the
//! shorter one Bolt issued before). A request waits, up to [`crate::ApiConfig::bookmark_wait`],
//! until the database makes the newest presented commit visible to new readers — which it
//! already is for any bookmark this server issued, except while a durable mode's fsync is still
//! in flight.

use std::time::Instant;

use quiver_engine::{Bookmark, WaitError};

use crate::error::ApiError;
use crate::service::ApiState;

/// Most bookmarks one request may present.
pub const BOOKMARKS_MAX: usize = 256;
/// Longest bookmark header read.
pub const HEADER_BYTES_MAX: usize = 16 * 1024;

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
    let newest = Bookmark::newest(bookmarks.iter().map(String::as_str))
        .map_err(|invalid| ApiError::InvalidBookmark(invalid.shown))?;
    let Some((bookmark, text)) = newest else {
        return Ok(());
    };
    let deadline = Instant::now() + shared.config.bookmark_wait;
    match shared.db.visible_blocking(&bookmark, deadline) {
        Ok(()) => Ok(()),
        // A commit the log can no longer acknowledge never becomes visible: the client hears
        // what a wait to the limit would have told it, without the wait.
        Err(WaitError::BookmarkTimeout { .. } | WaitError::NotDurable(_)) => {
            Err(ApiError::BookmarkTimeout(text.to_owned()))
        }
        Err(other) => Err(ApiError::BookmarkTimeout(format!("{text} ({other})"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(commit: u64) -> String {
        Bookmark::new(commit).to_string()
    }

    #[test]
    fn header_and_bookmark_parsing() {
        assert_eq!(
            parse_header(br#"["quiver:bookmark:v1:3"]"#).expect("valid"),
            vec!["quiver:bookmark:v1:3".to_owned()]
        );
        assert!(parse_header(br#"[""]"#).is_err());
        assert!(parse_header(b"quiver").is_err());
        assert!(parse_header(b"[1]").is_err());
        assert_eq!(
            Bookmark::parse("quiver:bookmark:v1:42")
                .expect("valid")
                .commit(),
            42
        );
        assert_eq!(format(42), "quiver:bookmark:v1:00000000000000000042");
        assert_eq!(
            Bookmark::parse(&format(u64::MAX)).expect("valid").commit(),
            u64::MAX
        );
        assert_eq!(format(7).len(), format(u64::MAX).len());
        assert!(Bookmark::parse("FB:kcwQ").is_err());
    }
}
