//! Bookmarks: the one place their text is written and read.
//!
//! A bookmark names a point in the commit order (the commit number; a replicated log's index
//! takes the same place). A client that presents one reads at least what that commit wrote:
//! [`crate::Database::visible`] waits until new readers see it.
//!
//! Two textual forms name the same point, and both are accepted:
//! `quiver:bookmark:v1:42` (what Bolt issued before) and the fixed-width
//! `quiver:bookmark:v1:00000000000000000042`. Quiver issues the fixed-width form on every
//! protocol: every bookmark then has the same length (load tools such as ApacheBench count a
//! response whose length differs from the first as failed, and Neo4j's own bookmarks are
//! opaque strings of steady length), and bookmarks sort as text in commit order.

use std::fmt;
use std::str::FromStr;

/// A point in the commit order a client may ask to read at or after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bookmark(u64);

/// A string that is no bookmark Quiver issues; carries the start of the text (at most
/// [`InvalidBookmark::SHOWN_CHARS_MAX`] characters) for the error message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid bookmark: {shown}")]
pub struct InvalidBookmark {
    pub shown: String,
}

impl InvalidBookmark {
    /// A client's text is quoted back only this far: a bookmark is short, garbage may not be.
    pub const SHOWN_CHARS_MAX: usize = 100;
}

impl Bookmark {
    /// What every Quiver bookmark starts with; the rest is the commit number in decimal.
    pub const PREFIX: &'static str = "quiver:bookmark:v1:";
    /// Digits of the issued form: enough for every `u64`.
    pub const DIGITS: usize = 20;

    pub fn new(commit: u64) -> Bookmark {
        Bookmark(commit)
    }

    /// The commit (log position) the bookmark names.
    pub fn commit(self) -> u64 {
        self.0
    }

    /// Reads either form: the prefix, then 1 to [`Bookmark::DIGITS`] ASCII digits
    /// (leading zeros allowed) naming a `u64`.
    pub fn parse(text: &str) -> Result<Bookmark, InvalidBookmark> {
        let invalid = || InvalidBookmark {
            shown: text
                .chars()
                .take(InvalidBookmark::SHOWN_CHARS_MAX)
                .collect(),
        };
        let digits = text.strip_prefix(Self::PREFIX).ok_or_else(invalid)?;
        if digits.is_empty()
            || digits.len() > Self::DIGITS
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(invalid());
        }
        digits.parse().map(Bookmark).map_err(|_| invalid())
    }

    /// Reads a bookmark with the database that issued it: a bookmark of the server's first
    /// database, `neo4j`, is the plain form; another database's ends in `:` and its name
    /// (`quiver:bookmark:v1:00000000000000000042:movies`), since commit numbers of different
    /// databases say nothing of each other.
    pub fn parse_on(text: &str) -> Result<(Bookmark, &str), InvalidBookmark> {
        let Some(rest) = text.strip_prefix(Self::PREFIX) else {
            return Err(InvalidBookmark {
                shown: text
                    .chars()
                    .take(InvalidBookmark::SHOWN_CHARS_MAX)
                    .collect(),
            });
        };
        match rest.split_once(':') {
            Some((digits, database)) if !database.is_empty() => {
                let plain = text
                    .get(..Self::PREFIX.len() + digits.len())
                    .unwrap_or(text);
                let bookmark = Bookmark::parse(plain).map_err(|_| InvalidBookmark {
                    shown: text
                        .chars()
                        .take(InvalidBookmark::SHOWN_CHARS_MAX)
                        .collect(),
                })?;
                Ok((bookmark, database))
            }
            _ => Ok((Bookmark::parse(text)?, crate::catalog::DEFAULT_DATABASE)),
        }
    }

    /// The bookmark as database `database` issues it (see [`Bookmark::parse_on`]).
    pub fn text_on(self, database: &str) -> String {
        if database == crate::catalog::DEFAULT_DATABASE {
            self.to_string()
        } else {
            format!("{self}:{database}")
        }
    }

    /// The newest of several bookmarks issued by database `database` (the one a transaction
    /// there waits for), with its text; bookmarks of other databases are not waited for.
    /// Fails on the first that does not parse.
    pub fn newest_on<'a>(
        texts: impl IntoIterator<Item = &'a str>,
        database: &str,
    ) -> Result<Option<(Bookmark, &'a str)>, InvalidBookmark> {
        let mut newest: Option<(Bookmark, &str)> = None;
        for text in texts {
            let (bookmark, issuer) = Bookmark::parse_on(text)?;
            if issuer.eq_ignore_ascii_case(database) && newest.is_none_or(|(n, _)| bookmark > n) {
                newest = Some((bookmark, text));
            }
        }
        Ok(newest)
    }

    /// The newest of several bookmarks (the one to wait for), with its text; `Ok(None)` for
    /// none. Fails on the first that does not parse.
    pub fn newest<'a>(
        texts: impl IntoIterator<Item = &'a str>,
    ) -> Result<Option<(Bookmark, &'a str)>, InvalidBookmark> {
        let mut newest: Option<(Bookmark, &str)> = None;
        for text in texts {
            let bookmark = Bookmark::parse(text)?;
            if newest.is_none_or(|(n, _)| bookmark > n) {
                newest = Some((bookmark, text));
            }
        }
        Ok(newest)
    }
}

/// The issued (fixed-width) form.
impl fmt::Display for Bookmark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{:0width$}",
            Self::PREFIX,
            self.0,
            width = Self::DIGITS
        )
    }
}

impl FromStr for Bookmark {
    type Err = InvalidBookmark;

    fn from_str(text: &str) -> Result<Bookmark, InvalidBookmark> {
        Bookmark::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bookmark_names_the_database_that_issued_it_and_only_that_one_waits_for_it() {
        let movies = Bookmark::new(7).text_on("movies");
        assert_eq!(movies, "quiver:bookmark:v1:00000000000000000007:movies");
        assert_eq!(
            Bookmark::parse_on(&movies),
            Ok((Bookmark::new(7), "movies"))
        );
        let first = Bookmark::new(3).text_on("neo4j");
        assert_eq!(first, Bookmark::new(3).to_string());
        let texts = [movies.as_str(), first.as_str()];
        assert_eq!(
            Bookmark::newest_on(texts, "neo4j").unwrap().map(|(b, _)| b),
            Some(Bookmark::new(3))
        );
        assert_eq!(
            Bookmark::newest_on(texts, "movies")
                .unwrap()
                .map(|(b, _)| b),
            Some(Bookmark::new(7))
        );
        assert_eq!(Bookmark::newest_on(texts, "other").unwrap(), None);
        assert!(Bookmark::parse_on("quiver:bookmark:v1:x:movies").is_err());
        assert!(Bookmark::parse_on("nonsense:movies").is_err());
    }

    #[test]
    fn both_forms_parse_and_the_fixed_width_one_is_issued() {
        assert_eq!(
            Bookmark::parse("quiver:bookmark:v1:42"),
            Ok(Bookmark::new(42))
        );
        assert_eq!(
            Bookmark::parse("quiver:bookmark:v1:00000000000000000042"),
            Ok(Bookmark::new(42))
        );
        assert_eq!(
            Bookmark::new(42).to_string(),
            "quiver:bookmark:v1:00000000000000000042"
        );
        for commit in [0, 1, 7, 42, 1 << 40, u64::MAX] {
            let text = Bookmark::new(commit).to_string();
            assert_eq!(text.len(), Bookmark::new(u64::MAX).to_string().len());
            assert_eq!(text.parse::<Bookmark>(), Ok(Bookmark::new(commit)));
            let short = format!("{}{commit}", Bookmark::PREFIX);
            assert_eq!(Bookmark::parse(&short).map(Bookmark::commit), Ok(commit));
        }
        assert!(Bookmark::new(9).to_string() < Bookmark::new(10).to_string());
    }

    #[test]
    fn anything_else_is_refused_and_quoted_briefly() {
        for bad in [
            "quiver:bookmark:v1:",
            "quiver:bookmark:v1:-3",
            "quiver:bookmark:v1:+3",
            "quiver:bookmark:v1: 3",
            "quiver:bookmark:v1:18446744073709551616",
            "quiver:bookmark:v1:000000000000000000001",
            "quiver:bookmark:v2:3",
            "FB:kcwQ",
            "",
        ] {
            assert!(Bookmark::parse(bad).is_err(), "{bad}");
        }
        let long = "x".repeat(1000);
        let error = Bookmark::parse(&long).expect_err("garbage");
        assert_eq!(error.shown.len(), InvalidBookmark::SHOWN_CHARS_MAX);
        assert_eq!(
            Bookmark::parse("FB:kcwQ").expect_err("foreign").to_string(),
            "Invalid bookmark: FB:kcwQ"
        );
    }

    #[test]
    fn the_newest_of_several_is_the_one_waited_for() {
        assert_eq!(Bookmark::newest([]), Ok(None));
        let texts = [
            "quiver:bookmark:v1:3",
            "quiver:bookmark:v1:00000000000000000012",
            "quiver:bookmark:v1:5",
        ];
        assert_eq!(
            Bookmark::newest(texts),
            Ok(Some((Bookmark::new(12), texts[1])))
        );
        assert!(Bookmark::newest(["quiver:bookmark:v1:3", "nope"]).is_err());
    }
}
