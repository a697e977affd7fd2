//! Reading feature files into runnable scenarios.
//!
//! The `gherkin` crate parses the file; this module adds what it leaves to its callers: table
//! cell escapes, `Background` steps, `Scenario Outline` expansion over every `Examples` row
//! (placeholders are substituted in step text, query blocks and tables alike), and `@ignore`.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::steps::{Step, parse_step};

/// Feature files are a few kilobytes; anything this large is not a feature file.
pub const FEATURE_BYTES_MAX: u64 = 16 * 1024 * 1024;
/// Bounds the directory walk against symlink loops and runaway trees.
pub const DIRECTORY_DEPTH_MAX: usize = 32;

/// Stands in for an escaped `\|` while the table is split into cells: the `gherkin` crate splits
/// on every `|`. A character from the private-use area cannot occur in a feature file by chance,
/// and files that contain it are refused.
const ESCAPED_PIPE: char = '\u{E000}';

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FeatureError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is {bytes} bytes, above the {FEATURE_BYTES_MAX}-byte limit")]
    TooLarge { path: PathBuf, bytes: u64 },
    #[error("{path} nests directories deeper than {DIRECTORY_DEPTH_MAX}")]
    TooDeep { path: PathBuf },
    #[error("cannot parse {path}: {message}")]
    Parse { path: PathBuf, message: String },
}

/// One runnable scenario: a plain scenario, or one row of an outline.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub id: ScenarioId,
    /// 1-based line of the `Scenario` keyword.
    pub line: usize,
    /// Tagged `@ignore` (on the feature, the scenario or its `Examples` block).
    pub ignored: bool,
    /// The steps, background first; `Err` names the first step the runner does not understand,
    /// which makes the scenario an ERROR rather than silently passing.
    pub steps: Result<Vec<Step>, String>,
}

/// What names a scenario in reports and in the ratchet file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ScenarioId {
    /// The feature file, relative to the directory the run started from, with `/` separators.
    pub feature: String,
    pub name: String,
    /// 1-based row across all `Examples` blocks of an outline; `None` for a plain scenario.
    pub outline_row: Option<usize>,
}

impl ScenarioId {
    /// Whether `--filter` selects this scenario: a substring of the feature path or the name.
    pub fn matches(&self, filter: &str) -> bool {
        self.feature.contains(filter) || self.name.contains(filter)
    }

    pub fn row_text(&self) -> String {
        self.outline_row
            .map_or_else(|| "-".to_owned(), |row| row.to_string())
    }
}

/// A parsed feature file.
#[derive(Debug)]
pub struct FeatureFile {
    pub path: String,
    pub name: String,
    pub scenarios: Vec<Scenario>,
}

/// Everything found under a directory: the features that parsed, and the files that did not.
#[derive(Debug, Default)]
pub struct Suite {
    pub features: Vec<FeatureFile>,
    pub failures: Vec<(String, FeatureError)>,
}

impl Suite {
    pub fn scenarios(&self) -> impl Iterator<Item = &Scenario> {
        self.features.iter().flat_map(|f| f.scenarios.iter())
    }
}

/// Reads every `*.feature` file under `dir`, in path order so runs are reproducible.
pub fn load_directory(dir: &Path) -> Result<Suite, FeatureError> {
    let mut files = Vec::new();
    collect_feature_files(dir, 0, &mut files)?;
    files.sort();
    let mut suite = Suite::default();
    for file in files {
        let relative = relative_path(dir, &file);
        match load_file(&file, &relative) {
            Ok(feature) => suite.features.push(feature),
            Err(e) => suite.failures.push((relative, e)),
        }
    }
    Ok(suite)
}

fn relative_path(dir: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(dir).unwrap_or(file);
    relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn collect_feature_files(
    dir: &Path,
    depth: usize,
    out: &mut Vec<PathBuf>,
) -> Result<(), FeatureError> {
    if depth > DIRECTORY_DEPTH_MAX {
        return Err(FeatureError::TooDeep {
            path: dir.to_owned(),
        });
    }
    let io = |source| FeatureError::Io {
        path: dir.to_owned(),
        source,
    };
    if dir.is_file() {
        out.push(dir.to_owned());
        return Ok(());
    }
    for entry in fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        if path.is_dir() {
            collect_feature_files(&path, depth + 1, out)?;
        } else if path.extension().is_some_and(|ext| ext == "feature") {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads and expands one feature file; `relative` is the path reports will show.
pub fn load_file(path: &Path, relative: &str) -> Result<FeatureFile, FeatureError> {
    let io = |source| FeatureError::Io {
        path: path.to_owned(),
        source,
    };
    let bytes = fs::metadata(path).map_err(io)?.len();
    if bytes > FEATURE_BYTES_MAX {
        return Err(FeatureError::TooLarge {
            path: path.to_owned(),
            bytes,
        });
    }
    let text = fs::read_to_string(path).map_err(io)?;
    parse_feature(&text, relative).map_err(|message| FeatureError::Parse {
        path: path.to_owned(),
        message,
    })
}

/// Parses feature text; `relative` names it in scenario ids.
pub fn parse_feature(text: &str, relative: &str) -> Result<FeatureFile, String> {
    if text.contains(ESCAPED_PIPE) {
        return Err(format!(
            "the file contains U+{:04X}, which the runner reserves",
            u32::from(ESCAPED_PIPE)
        ));
    }
    let prepared = protect_escaped_pipes(&lead_with_given(text));
    // The parser is third-party code fed untrusted text: a panic inside it must become this
    // file's parse error, not the end of the run.
    let parsed = std::panic::catch_unwind(|| {
        gherkin::Feature::parse(&prepared, gherkin::GherkinEnv::default())
    });
    let feature = match parsed {
        Ok(result) => result.map_err(|e| e.to_string())?,
        Err(_) => return Err("the feature parser panicked on this file".to_owned()),
    };
    let mut scenarios = Vec::new();
    let mut expand_all = |list: &[gherkin::Scenario], background: &[RawStep], tags: &[String]| {
        for scenario in list {
            expand(relative, scenario, background, tags, &mut scenarios);
        }
    };
    let background = feature
        .background
        .as_ref()
        .map(|b| raw_steps(&b.steps))
        .unwrap_or_default();
    expand_all(&feature.scenarios, &background, &feature.tags);
    for rule in &feature.rules {
        let mut rule_background = background.clone();
        if let Some(b) = &rule.background {
            rule_background.extend(raw_steps(&b.steps));
        }
        let tags: Vec<String> = feature.tags.iter().chain(&rule.tags).cloned().collect();
        expand_all(&rule.scenarios, &rule_background, &tags);
    }
    Ok(FeatureFile {
        path: relative.to_owned(),
        name: feature.name,
        scenarios,
    })
}

/// A step as written, before outline substitution and interpretation.
#[derive(Clone, Debug)]
struct RawStep {
    text: String,
    docstring: Option<String>,
    table: Option<Vec<Vec<String>>>,
}

fn raw_steps(steps: &[gherkin::Step]) -> Vec<RawStep> {
    steps
        .iter()
        .map(|step| RawStep {
            text: step.value.trim().to_owned(),
            docstring: step.docstring.clone(),
            table: step.table.as_ref().map(|t| unescape_table(&t.rows)),
        })
        .collect()
}

fn is_ignore(tags: &[String]) -> bool {
    tags.iter().any(|t| t.trim_start_matches('@') == "ignore")
}

fn expand(
    feature: &str,
    scenario: &gherkin::Scenario,
    background: &[RawStep],
    tags: &[String],
    out: &mut Vec<Scenario>,
) {
    let mut steps = background.to_vec();
    steps.extend(raw_steps(&scenario.steps));
    let ignored = is_ignore(tags) || is_ignore(&scenario.tags);
    let line = scenario.position.line;
    if scenario.examples.is_empty() {
        let id = ScenarioId {
            feature: feature.to_owned(),
            name: scenario.name.clone(),
            outline_row: None,
        };
        out.push(Scenario {
            id,
            line,
            ignored,
            steps: interpret(&steps, &HashMap::new()),
        });
        return;
    }
    let mut row_number = 0;
    for examples in &scenario.examples {
        let rows = examples
            .table
            .as_ref()
            .map(|t| unescape_table(&t.rows))
            .unwrap_or_default();
        let Some((header, body)) = rows.split_first() else {
            continue;
        };
        for row in body {
            row_number += 1;
            let values: HashMap<&str, &str> = header
                .iter()
                .map(String::as_str)
                .zip(row.iter().map(String::as_str))
                .collect();
            let id = ScenarioId {
                feature: feature.to_owned(),
                name: scenario.name.clone(),
                outline_row: Some(row_number),
            };
            out.push(Scenario {
                id,
                line,
                ignored: ignored || is_ignore(&examples.tags),
                steps: interpret(&steps, &values),
            });
        }
    }
}

fn interpret(steps: &[RawStep], values: &HashMap<&str, &str>) -> Result<Vec<Step>, String> {
    steps
        .iter()
        .map(|raw| {
            let text = substitute(&raw.text, values);
            let docstring = raw.docstring.as_deref().map(|d| substitute(d, values));
            let table = raw.table.as_ref().map(|rows| {
                rows.iter()
                    .map(|row| row.iter().map(|cell| substitute(cell, values)).collect())
                    .collect::<Vec<Vec<String>>>()
            });
            parse_step(&text, docstring.as_deref(), table.as_deref())
                .map_err(|e| format!("step `{text}`: {e}"))
        })
        .collect()
}

/// Replaces `<name>` with its value from the Examples row, in one pass so that a value containing
/// `<...>` is never substituted again. Unknown placeholders stay as written.
pub fn substitute(text: &str, values: &HashMap<&str, &str>) -> String {
    if values.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        let (before, from_open) = rest.split_at(open);
        out.push_str(before);
        let after_open = from_open.get(1..).unwrap_or("");
        let replacement = after_open.find('>').and_then(|close| {
            let name = after_open.get(..close)?;
            values.get(name).map(|value| (value, close))
        });
        match replacement {
            Some((value, close)) => {
                out.push_str(value);
                rest = after_open.get(close + 1..).unwrap_or("");
            }
            None => {
                out.push('<');
                rest = after_open;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Rewrites a scenario's first step from `And`/`But` to `Given`. The kit opens some scenarios
/// with `And having executed:` (continuing the feature's `Background`), which the `gherkin`
/// crate's grammar refuses; the runner reads steps by their text, so the keyword does not matter.
fn lead_with_given(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_docstring = false;
    let mut awaiting_first_step = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("\"\"\"") || trimmed.starts_with("```") {
            in_docstring = !in_docstring;
        }
        if !in_docstring {
            let is_block = [
                "Scenario:",
                "Scenario Outline:",
                "Scenario Template:",
                "Example:",
                "Background:",
            ]
            .iter()
            .any(|keyword| trimmed.starts_with(keyword));
            if is_block {
                awaiting_first_step = true;
            } else if awaiting_first_step {
                let indent = line.len() - trimmed.len();
                if let Some(rest) = trimmed
                    .strip_prefix("And ")
                    .or_else(|| trimmed.strip_prefix("But "))
                {
                    out.push_str(line.get(..indent).unwrap_or(""));
                    out.push_str("Given ");
                    out.push_str(rest);
                    awaiting_first_step = false;
                    continue;
                }
                if ["Given ", "When ", "Then ", "* "]
                    .iter()
                    .any(|keyword| trimmed.starts_with(keyword))
                {
                    awaiting_first_step = false;
                }
            }
        }
        out.push_str(line);
    }
    out
}

/// Replaces `\|` in table rows by [`ESCAPED_PIPE`] so the parser does not split there. Only lines
/// that are table rows are touched: a `\|` in a query block is Cypher's business.
fn protect_escaped_pipes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_docstring = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("\"\"\"") || trimmed.starts_with("```") {
            in_docstring = !in_docstring;
        }
        if in_docstring || !trimmed.starts_with('|') {
            out.push_str(line);
            continue;
        }
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('|') => out.push(ESCAPED_PIPE),
                Some(next) => {
                    out.push('\\');
                    out.push(next);
                }
                None => out.push('\\'),
            }
        }
    }
    out
}

fn unescape_table(rows: &[Vec<String>]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| row.iter().map(|cell| unescape_cell(cell)).collect())
        .collect()
}

/// Gherkin's table-cell escapes: `\|` is a bar, `\\` a backslash, `\n` a newline. Any other
/// backslash is kept as written (the value syntax gives `\'` its meaning).
pub fn unescape_cell(cell: &str) -> String {
    let mut out = String::with_capacity(cell.len());
    let mut chars = cell.chars();
    while let Some(c) = chars.next() {
        match c {
            ESCAPED_PIPE => out.push('|'),
            '\\' => match chars.next() {
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('|') => out.push('|'),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expected::Expected;
    use crate::matching::{ListOrder, RowOrder};

    const OUTLINE: &str = r#"
@shared
Feature: Outlines

  Background:
    Given an empty graph

  Scenario Outline: [1] Literal <what>
    When executing query:
      """
      RETURN <literal> AS v
      """
    Then the result should be, in any order:
      | v        |
      | <result> |
    And no side effects

    Examples:
      | what   | literal | result |
      | int    | 1       | 1      |
      | string | 'a\|b'  | 'a\|b' |

    @ignore
    Examples:
      | what | literal | result |
      | skip | 2       | 2      |

  @ignore
  Scenario: [2] Ignored
    Given any graph
    When executing query:
      """
      RETURN 1
      """
    Then the result should be empty
"#;

    fn query_of(scenario: &Scenario) -> String {
        let steps = scenario.steps.as_ref().unwrap();
        steps
            .iter()
            .find_map(|s| match s {
                Step::Query(q) => Some(q.clone()),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn outlines_expand_with_background_and_ignore() {
        let feature = parse_feature(OUTLINE, "x/Outline.feature").unwrap();
        assert_eq!(feature.scenarios.len(), 4);
        let first = &feature.scenarios[0];
        assert_eq!(first.id.outline_row, Some(1));
        assert_eq!(first.id.feature, "x/Outline.feature");
        assert!(!first.ignored);
        let steps = first.steps.as_ref().unwrap();
        assert!(matches!(steps[0], Step::EmptyGraph));
        assert_eq!(query_of(first), "RETURN 1 AS v");
        let second = &feature.scenarios[1];
        assert_eq!(query_of(second), "RETURN 'a|b' AS v");
        let Step::Rows { rows, lists, table } = &second.steps.as_ref().unwrap()[2] else {
            panic!("no result step")
        };
        assert_eq!((*rows, *lists), (RowOrder::Any, ListOrder::Exact));
        assert_eq!(table.columns, vec!["v".to_owned()]);
        assert_eq!(table.rows, vec![vec![Expected::String("a|b".into())]]);
        // The second Examples block is tagged @ignore; numbering continues across blocks.
        assert_eq!(feature.scenarios[2].id.outline_row, Some(3));
        assert!(feature.scenarios[2].ignored);
        assert!(feature.scenarios[3].ignored);
        assert_eq!(feature.scenarios[3].id.outline_row, None);
    }

    #[test]
    fn substitution_is_single_pass() {
        let values: HashMap<&str, &str> = [("a", "<b>"), ("b", "x")].into_iter().collect();
        assert_eq!(substitute("<a> <b> <c> a<b", &values), "<b> x <c> a<b");
        assert_eq!(substitute("<", &values), "<");
        assert_eq!(substitute("<a", &values), "<a");
    }

    #[test]
    fn cell_escapes() {
        assert_eq!(unescape_cell(r"'a\\\\b'"), r"'a\\b'");
        assert_eq!(unescape_cell(r"'\''"), r"'\''");
        assert_eq!(unescape_cell(r"'\nFoo\n'"), "'\nFoo\n'");
        assert_eq!(unescape_cell("a\u{E000}b"), "a|b");
        assert_eq!(unescape_cell("trailing\\"), "trailing\\");
    }

    #[test]
    fn unknown_steps_make_the_scenario_an_error() {
        let text = "Feature: F\n  Scenario: S\n    Given a graph with wings\n";
        let feature = parse_feature(text, "F.feature").unwrap();
        assert!(feature.scenarios[0].steps.is_err());
    }

    #[test]
    fn a_scenario_may_open_with_and() {
        let text = "Feature: F\n  Background:\n    Given an empty graph\n\n  Scenario: S\n    And having executed:\n      \"\"\"\n      And CREATE ()\n      \"\"\"\n    When executing query:\n      \"\"\"\n      RETURN 1\n      \"\"\"\n    Then the result should be empty\n";
        let feature = parse_feature(text, "F.feature").unwrap();
        let steps = feature.scenarios[0].steps.as_ref().unwrap();
        assert!(matches!(&steps[1], Step::Setup(q) if q == "And CREATE ()"));
        assert_eq!(steps.len(), 4);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "(Feature: F\n)?(  Scenario( Outline)?: S\n)?([ |@\\\"<>a-zA-Z:*#\n-]{0,40}\n){0,8}") {
            let _ = parse_feature(&text, "p.feature");
        }

        #[test]
        fn substitution_never_panics(text in "[<>a-zé ]{0,30}") {
            let values: HashMap<&str, &str> = [("a", "<"), ("é", ">")].into_iter().collect();
            let _ = substitute(&text, &values);
            let _ = unescape_cell(&text);
        }
    }

    #[test]
    fn garbage_is_a_parse_error() {
        assert!(parse_feature("this is not gherkin", "g.feature").is_err());
        assert!(parse_feature("Feature: F\n\u{E000}", "g.feature").is_err());
    }
}
