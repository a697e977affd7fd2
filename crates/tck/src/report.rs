//! Scores, the per-scenario report, and the ratchet of scenarios that must keep passing.

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};
use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use crate::feature::ScenarioId;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Pass,
    Fail,
    /// The scenario could not be run as written: a setup query failed, a step was not understood,
    /// the time budget ran out or the target panicked. Counted as failed.
    Error,
    /// Tagged `@ignore`.
    Skip,
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Error => "ERROR",
            Status::Skip => "SKIP",
        })
    }
}

#[derive(Clone, Debug)]
pub struct ScenarioResult {
    pub id: ScenarioId,
    pub line: usize,
    pub status: Status,
    /// Passes when error expectations check the error type only.
    pub lenient_pass: bool,
    /// Why it did not pass; empty when it did.
    pub reason: String,
    pub elapsed: Duration,
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub results: Vec<ScenarioResult>,
    /// Feature files that parsed.
    pub features: usize,
    /// Feature files that did not parse, with why.
    pub feature_errors: Vec<String>,
}

/// Keeps report fields on one line each: tabs separate fields, newlines separate scenarios.
fn one_line(text: &str) -> String {
    text.replace(['\t', '\n', '\r'], " ")
}

impl Report {
    fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }

    pub fn passed(&self) -> usize {
        self.count(Status::Pass)
    }

    /// Failures and errors together.
    pub fn failed(&self) -> usize {
        self.count(Status::Fail) + self.count(Status::Error)
    }

    pub fn errors(&self) -> usize {
        self.count(Status::Error)
    }

    pub fn skipped(&self) -> usize {
        self.count(Status::Skip)
    }

    pub fn lenient_passed(&self) -> usize {
        self.results
            .iter()
            .filter(|r| r.status != Status::Skip && r.lenient_pass)
            .count()
    }

    /// Scenarios that ran (everything not skipped).
    pub fn ran(&self) -> usize {
        self.results.len() - self.skipped()
    }

    /// The closing line: `N passed, M failed, K skipped`.
    pub fn summary_line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }

    /// Strict and lenient pass rates over the scenarios that ran.
    pub fn rates_line(&self) -> String {
        let rate = |n: usize| {
            if self.ran() == 0 {
                0.0
            } else {
                100.0 * n as f64 / self.ran() as f64
            }
        };
        format!(
            "strict {}/{} ({:.1}%), lenient {}/{} ({:.1}%), {} errors",
            self.passed(),
            self.ran(),
            rate(self.passed()),
            self.lenient_passed(),
            self.ran(),
            rate(self.lenient_passed()),
            self.errors()
        )
    }

    /// One tab-separated line per scenario: feature, scenario, outline row (`-` for none),
    /// status, reason. Lenient-only passes say so in the reason.
    pub fn scenario_lines(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
            let reason = if r.status == Status::Fail && r.lenient_pass {
                format!("lenient pass; {}", r.reason)
            } else {
                r.reason.clone()
            };
            let _ = writeln!(
                out,
                "{}\t{}\t{}\t{}\t{}",
                one_line(&r.id.feature),
                one_line(&r.id.name),
                r.id.row_text(),
                r.status,
                one_line(&reason)
            );
        }
        for e in &self.feature_errors {
            let _ = writeln!(
                out,
                "{}\t-\t-\tERROR\tthe feature file does not parse",
                one_line(e)
            );
        }
        out
    }
}

/// The list of scenarios that passed strictly, kept in the repository: CI fails when one of them
/// stops passing, so conformance only moves forward.
///
/// The file holds one scenario per line (`feature<TAB>scenario<TAB>row`); blank lines and lines
/// starting with `#` are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ratchet {
    entries: BTreeSet<ScenarioId>,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RatchetError {
    #[error("cannot read or write the ratchet file: {0}")]
    Io(#[from] io::Error),
    #[error("ratchet line {line}: {message}")]
    Syntax { line: usize, message: String },
}

/// A ratchet file is a few hundred kilobytes at most; refuse anything absurd.
pub const RATCHET_BYTES_MAX: u64 = 64 * 1024 * 1024;

impl Ratchet {
    pub fn parse(text: &str) -> Result<Ratchet, RatchetError> {
        let mut entries = BTreeSet::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let syntax = |message: &str| RatchetError::Syntax {
                line: i + 1,
                message: message.to_owned(),
            };
            let mut fields = line.split('\t');
            let (Some(feature), Some(name), Some(row), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(syntax("expected three tab-separated fields"));
            };
            let outline_row = match row {
                "-" => None,
                n => Some(
                    n.parse()
                        .map_err(|_| syntax("the row is not a number or `-`"))?,
                ),
            };
            entries.insert(ScenarioId {
                feature: feature.to_owned(),
                name: name.to_owned(),
                outline_row,
            });
        }
        Ok(Ratchet { entries })
    }

    /// Reads a ratchet file; a missing file is an empty ratchet, so the first run can create it.
    pub fn load(path: &Path) -> Result<Ratchet, RatchetError> {
        match fs::metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Ratchet::default()),
            Err(e) => return Err(e.into()),
            Ok(meta) if meta.len() > RATCHET_BYTES_MAX => {
                return Err(RatchetError::Syntax {
                    line: 0,
                    message: format!("the file is above {RATCHET_BYTES_MAX} bytes"),
                });
            }
            Ok(_) => {}
        }
        Ratchet::parse(&fs::read_to_string(path)?)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn contains(&self, id: &ScenarioId) -> bool {
        self.entries.contains(id)
    }

    /// Listed scenarios within `filter` that did not pass strictly, with why; a listed scenario
    /// the run did not find at all counts too (renaming one means updating the ratchet).
    pub fn regressions(&self, report: &Report, filter: Option<&str>) -> Vec<String> {
        let mut regressions = Vec::new();
        for id in self
            .entries
            .iter()
            .filter(|id| filter.is_none_or(|f| id.matches(f)))
        {
            match report.results.iter().find(|r| r.id == *id) {
                None => regressions.push(format!(
                    "{}: {} [{}]: not found",
                    id.feature,
                    id.name,
                    id.row_text()
                )),
                Some(r) if r.status != Status::Pass => {
                    regressions.push(format!(
                        "{}: {} [{}]: {} {}",
                        id.feature,
                        id.name,
                        id.row_text(),
                        r.status,
                        r.reason
                    ));
                }
                Some(_) => {}
            }
        }
        regressions
    }

    /// The ratchet after this run: inside `filter`, exactly the scenarios that passed strictly;
    /// outside it, unchanged.
    pub fn updated(&self, report: &Report, filter: Option<&str>) -> Ratchet {
        let mut entries: BTreeSet<ScenarioId> = self
            .entries
            .iter()
            .filter(|id| filter.is_some_and(|f| !id.matches(f)))
            .cloned()
            .collect();
        entries.extend(
            report
                .results
                .iter()
                .filter(|r| r.status == Status::Pass)
                .map(|r| r.id.clone()),
        );
        Ratchet { entries }
    }

    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# openCypher TCK scenarios that pass strictly; CI fails if one stops passing.\n\
             # Regenerate with `quiver-tck <features> --ratchet <this file> --update-ratchet`.\n\
             # feature<TAB>scenario<TAB>outline row (- for none)\n",
        );
        for id in &self.entries {
            let _ = writeln!(
                out,
                "{}\t{}\t{}",
                one_line(&id.feature),
                one_line(&id.name),
                id.row_text()
            );
        }
        out
    }

    pub fn save(&self, path: &Path) -> Result<(), RatchetError> {
        // Write then rename, so an interrupted update never leaves half a ratchet behind.
        let tmp = path.with_extension("tmp");
        fs::write(&tmp, self.to_text())?;
        fs::rename(&tmp, path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(
        feature: &str,
        name: &str,
        row: Option<usize>,
        status: Status,
        lenient_pass: bool,
    ) -> ScenarioResult {
        ScenarioResult {
            id: ScenarioId {
                feature: feature.into(),
                name: name.into(),
                outline_row: row,
            },
            line: 1,
            status,
            lenient_pass: lenient_pass || status == Status::Pass,
            reason: if status == Status::Pass {
                String::new()
            } else {
                "why\tnot".into()
            },
            elapsed: Duration::ZERO,
        }
    }

    fn sample() -> Report {
        Report {
            results: vec![
                result("a/A.feature", "[1] one", None, Status::Pass, true),
                result("a/A.feature", "[2] two", Some(1), Status::Fail, true),
                result("a/A.feature", "[2] two", Some(2), Status::Fail, false),
                result("b/B.feature", "[1] three", None, Status::Error, false),
                result("b/B.feature", "[2] four", None, Status::Skip, false),
                result("b/B.feature", "[3] five", None, Status::Pass, true),
            ],
            features: 2,
            feature_errors: vec![],
        }
    }

    #[test]
    fn counts_and_lines() {
        let report = sample();
        assert_eq!(report.summary_line(), "2 passed, 3 failed, 1 skipped");
        assert_eq!(
            report.rates_line(),
            "strict 2/5 (40.0%), lenient 3/5 (60.0%), 1 errors"
        );
        let lines = report.scenario_lines();
        assert_eq!(lines.lines().count(), 6);
        assert!(
            lines.contains("a/A.feature\t[2] two\t1\tFAIL\tlenient pass; why not\n"),
            "{lines}"
        );
        assert!(lines.contains("a/A.feature\t[1] one\t-\tPASS\t\n"));
    }

    #[test]
    fn ratchet_round_trips_and_catches_regressions() {
        let report = sample();
        let ratchet = Ratchet::default().updated(&report, None);
        assert_eq!(ratchet.len(), 2);
        assert_eq!(Ratchet::parse(&ratchet.to_text()).unwrap(), ratchet);
        assert!(ratchet.regressions(&report, None).is_empty());
        // A listed scenario that now fails, and one that is gone.
        let text = ratchet.to_text() + "a/A.feature\t[2] two\t2\nz/Z.feature\tgone\t-\n";
        let stricter = Ratchet::parse(&text).unwrap();
        let regressions = stricter.regressions(&report, None);
        assert_eq!(regressions.len(), 2, "{regressions:?}");
        // A filter limits both the check and the update.
        assert!(stricter.regressions(&report, Some("b/")).is_empty());
        let updated = stricter.updated(&report, Some("a/"));
        assert!(updated.contains(&ScenarioId {
            feature: "z/Z.feature".into(),
            name: "gone".into(),
            outline_row: None
        }));
        assert!(!updated.contains(&ScenarioId {
            feature: "a/A.feature".into(),
            name: "[2] two".into(),
            outline_row: Some(2)
        }));
    }

    #[test]
    fn ratchet_syntax_errors() {
        assert!(Ratchet::parse("only\ttwo\n").is_err());
        assert!(Ratchet::parse("a\tb\tx\n").is_err());
        assert!(Ratchet::parse("a\tb\t1\textra\n").is_err());
        assert!(Ratchet::parse("# comment\n\n").unwrap().is_empty());
    }

    /// The committed ratchet must parse, and every entry must name a scenario of the vendored
    /// kit: a renamed or mistyped entry would otherwise only show up once an engine runs.
    #[test]
    fn the_committed_ratchet_names_real_scenarios() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let ratchet = Ratchet::load(&root.join("ratchet.txt")).unwrap();
        let suite = crate::feature::load_directory(&root.join("opencypher/features")).unwrap();
        let known: BTreeSet<&ScenarioId> = suite.scenarios().map(|s| &s.id).collect();
        let unknown: Vec<_> = ratchet
            .entries
            .iter()
            .filter(|id| !known.contains(id))
            .collect();
        assert!(unknown.is_empty(), "{unknown:?}");
    }

    #[test]
    fn ratchet_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ratchet.txt");
        assert!(Ratchet::load(&path).unwrap().is_empty());
        let ratchet = Ratchet::default().updated(&sample(), None);
        ratchet.save(&path).unwrap();
        assert_eq!(Ratchet::load(&path).unwrap(), ratchet);
    }
}
