//! Reads the TCK's Gherkin feature files far enough to list each scenario's queries (outlines
//! expanded with their examples) and the error it expects, if any.

use std::fs;
use std::path::{Path, PathBuf};

/// Where the TCK features live, if they are present: `QUIVER_TCK_FEATURES` when set (to run
/// against a full openCypher checkout), else the vendored copy.
pub fn features_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("QUIVER_TCK_FEATURES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tck/opencypher/features"),
    };
    dir.is_dir().then_some(dir)
}

#[derive(Debug, Clone)]
pub struct ExpectedError {
    /// `SyntaxError`, `TypeError`, ...
    pub status: String,
    /// `compile time`, `runtime` or `any time`.
    pub phase: String,
    /// `UndefinedVariable`, ... or `*`.
    pub detail: String,
}

#[derive(Debug, Clone)]
pub struct Case {
    pub file: String,
    pub scenario: String,
    pub query: String,
    pub error: Option<ExpectedError>,
    /// Procedures the scenario declares: `test.my.proc(in :: INTEGER?) :: (out :: STRING?)`.
    pub procedures: Vec<String>,
    /// Names of the parameters the scenario supplies.
    pub parameters: Vec<String>,
}

/// Every `When executing query:` of every scenario under `dir`, sorted by file.
pub fn cases(dir: &Path) -> Vec<Case> {
    let mut files = Vec::new();
    collect_features(dir, &mut files);
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).expect("feature file is readable");
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        read_feature(&name, &text, &mut cases);
    }
    cases
}

fn collect_features(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("features directory is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_features(&path, out);
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
}

struct Scenario {
    name: String,
    queries: Vec<String>,
    error: Option<ExpectedError>,
    examples: Vec<Vec<(String, String)>>,
    procedures: Vec<String>,
    parameters: Vec<String>,
}

fn read_feature(file: &str, text: &str, out: &mut Vec<Case>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut scenarios: Vec<Scenario> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with("Scenario") {
            scenarios.push(Scenario {
                name: line.to_string(),
                queries: Vec::new(),
                error: None,
                examples: Vec::new(),
                procedures: Vec::new(),
                parameters: Vec::new(),
            });
        } else if let Some(scenario) = scenarios.last_mut() {
            if line.starts_with("When executing query") {
                let (query, next) = doc_string(&lines, i + 1);
                scenario.queries.push(query);
                i = next;
            } else if let Some(rest) = line.strip_prefix("And there exists a procedure ") {
                scenario
                    .procedures
                    .push(rest.trim_end_matches(':').trim().to_string());
            } else if line.ends_with("parameters are:") {
                let mut j = i + 1;
                while j < lines.len() && lines[j].trim().starts_with('|') {
                    if let Some(name) = cells(lines[j]).into_iter().next() {
                        scenario.parameters.push(name);
                    }
                    j += 1;
                }
                i = j;
                continue;
            } else if let Some(error) = expected_error(line) {
                scenario.error = Some(error);
            } else if line.starts_with("Examples") {
                let (rows, next) = examples(&lines, i + 1);
                scenario.examples.extend(rows);
                i = next;
                continue;
            }
        }
        i += 1;
    }
    for scenario in scenarios {
        for query in &scenario.queries {
            let expanded: Vec<String> = if scenario.examples.is_empty() {
                vec![query.clone()]
            } else {
                scenario
                    .examples
                    .iter()
                    .map(|row| {
                        let mut q = query.clone();
                        for (key, value) in row {
                            q = q.replace(&format!("<{key}>"), value);
                        }
                        q
                    })
                    .collect()
            };
            for query in expanded {
                out.push(Case {
                    file: file.to_string(),
                    scenario: scenario.name.clone(),
                    query,
                    error: scenario.error.clone(),
                    procedures: scenario.procedures.clone(),
                    parameters: scenario.parameters.clone(),
                });
            }
        }
    }
}

/// The `"""`-delimited text starting at or after line `from`, dedented; and the index of the
/// closing delimiter.
fn doc_string(lines: &[&str], from: usize) -> (String, usize) {
    let mut open = from;
    while open < lines.len() && lines[open].trim() != "\"\"\"" {
        open += 1;
    }
    let indent = lines
        .get(open)
        .map_or(0, |l| l.len() - l.trim_start().len());
    let mut close = open + 1;
    while close < lines.len() && lines[close].trim() != "\"\"\"" {
        close += 1;
    }
    let body: Vec<&str> = lines[(open + 1).min(close)..close]
        .iter()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect();
    (body.join("\n"), close)
}

fn expected_error(line: &str) -> Option<ExpectedError> {
    let rest = line
        .strip_prefix("Then a ")
        .or_else(|| line.strip_prefix("Then an "))?;
    let (status, rest) = rest.split_once(" should be raised at ")?;
    let (phase, detail) = rest.split_once(": ")?;
    Some(ExpectedError {
        status: status.to_string(),
        phase: phase.to_string(),
        detail: detail.trim().to_string(),
    })
}

fn examples(lines: &[&str], from: usize) -> (Vec<Vec<(String, String)>>, usize) {
    let mut i = from;
    while i < lines.len() && !lines[i].trim().starts_with('|') {
        i += 1;
    }
    let header = cells(lines.get(i).copied().unwrap_or(""));
    i += 1;
    let mut rows = Vec::new();
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with('#') {
            i += 1;
            continue;
        }
        if !line.starts_with('|') {
            break;
        }
        rows.push(header.iter().cloned().zip(cells(line)).collect());
        i += 1;
    }
    (rows, i)
}

/// The cells of a table row, with `\|` unescaped.
fn cells(line: &str) -> Vec<String> {
    let line = line.trim();
    let inner = line.strip_prefix('|').unwrap_or(line);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                chars.next();
                current.push('|');
            }
            '|' => out.push(std::mem::take(&mut current).trim().to_string()),
            c => current.push(c),
        }
    }
    out.push(current.trim().to_string());
    out
}
