//! Bad entries: the policy that decides whether one is skipped or ends the import, and the
//! report file (Neo4j's `import.report`) that lists each with its file, line and reason.
//!
//! Two kinds may be skipped, each only when asked, as in Neo4j: relationships whose start or
//! end node is missing (`--skip-bad-relationships`) and nodes whose id is already taken in
//! their ID space (`--skip-duplicate-nodes`). Every skipped entry is counted against
//! `--bad-tolerance`; one past it ends the import. Anything else wrong with a row (a value
//! that does not parse as its column's type, a wrong number of fields, a node without its
//! id) ends the import at once: loading such a file would store something else than it says.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::Error;

/// What a skippable bad entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BadKind {
    /// A node whose id its ID space already holds.
    DuplicateNode,
    /// A relationship whose start or end is missing or names no node.
    BadRelationship,
}

/// The skip flags and the tolerance.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    pub skip_bad_relationships: bool,
    pub skip_duplicate_nodes: bool,
    /// `None`: no limit (Neo4j's `-1`).
    pub bad_tolerance: Option<u64>,
}

impl Policy {
    fn skips(&self, kind: BadKind) -> bool {
        match kind {
            BadKind::DuplicateNode => self.skip_duplicate_nodes,
            BadKind::BadRelationship => self.skip_bad_relationships,
        }
    }
}

/// The report file being written.
pub struct Report {
    out: BufWriter<File>,
    path: PathBuf,
    policy: Policy,
    pub skipped_nodes: u64,
    pub skipped_relationships: u64,
}

impl Report {
    pub fn create(path: &Path, policy: Policy) -> Result<Report, Error> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        Ok(Report {
            out: BufWriter::new(file),
            path: path.to_path_buf(),
            policy,
            skipped_nodes: 0,
            skipped_relationships: 0,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn skipped(&self) -> u64 {
        self.skipped_nodes + self.skipped_relationships
    }

    /// A bad entry at `file:line`: written to the report and skipped when the policy skips
    /// its kind and the tolerance holds; otherwise the error that ends the import.
    pub fn bad(
        &mut self,
        kind: BadKind,
        file: &Path,
        line: u64,
        reason: String,
    ) -> Result<(), Error> {
        let error = Error::Input {
            file: file.to_path_buf(),
            line,
            reason,
        };
        if !self.policy.skips(kind) {
            return Err(error);
        }
        self.line(&format!("{error} (skipped)"))?;
        match kind {
            BadKind::DuplicateNode => self.skipped_nodes += 1,
            BadKind::BadRelationship => self.skipped_relationships += 1,
        }
        match self.policy.bad_tolerance {
            Some(tolerance) if self.skipped() > tolerance => Err(Error::TooManyBad {
                count: self.skipped(),
                tolerance,
                report: self.path.clone(),
            }),
            _ => Ok(()),
        }
    }

    /// Writes one line; a report that cannot be written ends the import, since its bad
    /// entries would go unrecorded.
    pub fn line(&mut self, text: &str) -> Result<(), Error> {
        writeln!(self.out, "{text}").map_err(|e| Error::io(&self.path, e))
    }

    /// Flushes the report to disk; the error that ended the import, if any, is its last line.
    pub fn close(mut self, failure: Option<&Error>) -> Result<(), Error> {
        if let Some(error) = failure {
            self.line(&format!("import failed: {error}"))?;
        }
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_entries_count_against_the_tolerance() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("import.report");
        let policy = Policy {
            skip_bad_relationships: true,
            skip_duplicate_nodes: false,
            bad_tolerance: Some(1),
        };
        let mut r = Report::create(&path, policy).unwrap();
        let f = Path::new("rels.csv");
        r.bad(
            BadKind::BadRelationship,
            f,
            2,
            "end ID `9` not found".into(),
        )
        .unwrap();
        let dup = r
            .bad(BadKind::DuplicateNode, f, 3, "dup".into())
            .unwrap_err();
        assert!(matches!(dup, Error::Input { line: 3, .. }));
        let over = r
            .bad(BadKind::BadRelationship, f, 4, "x".into())
            .unwrap_err();
        assert!(matches!(
            over,
            Error::TooManyBad {
                count: 2,
                tolerance: 1,
                ..
            }
        ));
        r.close(Some(&over)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("rels.csv:2: end ID `9` not found (skipped)\n"),
            "{text}"
        );
        assert!(text.contains("import failed: 2 bad entries exceed the tolerance of 1"));
    }
}
