//! The semantic pass against the TCK: every query the TCK expects to compile must pass, and
//! every compile-time error the TCK names must be raised with that status and detail.

mod support;

use quiver_cypher::semantic::{ProcedureCatalog, ProcedureInput, ProcedureSignature};
use quiver_cypher::{AnalyzeOptions, analyze_with, parse};
use support::tck::{self, Case};

/// The procedures a scenario declares, e.g. `test.my.proc(in :: INTEGER?) :: (out :: STRING?)`.
struct Declared(Vec<(String, ProcedureSignature)>);

impl Declared {
    fn from(case: &Case) -> Self {
        Declared(
            case.procedures
                .iter()
                .filter_map(|d| declaration(d))
                .collect(),
        )
    }
}

fn declaration(text: &str) -> Option<(String, ProcedureSignature)> {
    let (name, rest) = text.split_once('(')?;
    let (inputs, rest) = rest.split_once(')')?;
    let outputs = rest.split_once('(')?.1.split_once(')')?.0;
    let names = |list: &str| -> Vec<String> {
        list.split(',')
            .filter_map(|f| f.split_once("::").map(|(n, _)| n.trim().to_string()))
            .filter(|n| !n.is_empty())
            .collect()
    };
    Some((
        name.trim().to_string(),
        ProcedureSignature {
            inputs: names(inputs)
                .into_iter()
                .map(|name| ProcedureInput {
                    name,
                    has_default: false,
                })
                .collect(),
            outputs: names(outputs),
        },
    ))
}

impl ProcedureCatalog for Declared {
    fn procedure(&self, name: &str) -> Option<ProcedureSignature> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s.clone())
    }
}

/// Runs parse, analysis and the parameter check the way the engine will.
fn compile(case: &Case) -> Result<(), quiver_cypher::Error> {
    let statement = parse(&case.query)?;
    let declared = Declared::from(case);
    let options = AnalyzeOptions {
        procedures: Some(&declared),
        ..AnalyzeOptions::default()
    };
    let analysis = analyze_with(&statement, &case.query, &options)?;
    analysis.check_parameters(
        |name| case.parameters.iter().any(|p| p == name),
        &case.query,
    )
}

#[test]
fn tck_compile_time_behaviour() {
    let Some(dir) = tck::features_dir() else {
        eprintln!("TCK features not present; skipping");
        return;
    };
    let mut accepted = 0;
    let mut rejected = 0;
    let mut failures = Vec::new();
    for case in tck::cases(&dir) {
        let compile_time_error = case.error.as_ref().filter(|e| e.phase == "compile time");
        let result = compile(&case);
        match (compile_time_error, result) {
            (None, Ok(())) => accepted += 1,
            (None, Err(error)) => {
                // A runtime error may legitimately be found early only if the TCK allows any
                // time; otherwise compiling must succeed.
                let any_time = case.error.as_ref().is_some_and(|e| {
                    e.phase == "any time"
                        && e.status == error.status_name()
                        && (e.detail == "*" || error.detail() == Some(e.detail.as_str()))
                });
                if any_time {
                    rejected += 1;
                } else {
                    failures.push(format!(
                        "{} {}: expected to compile\n{}\n{error}",
                        case.file, case.scenario, case.query
                    ));
                }
            }
            (Some(expected), Ok(())) => failures.push(format!(
                "{} {}: expected {} {}, compiled\n{}",
                case.file, case.scenario, expected.status, expected.detail, case.query
            )),
            (Some(expected), Err(error)) => {
                let status_ok = expected.status == error.status_name();
                let detail_ok =
                    expected.detail == "*" || error.detail() == Some(expected.detail.as_str());
                if status_ok && detail_ok {
                    rejected += 1;
                } else {
                    failures.push(format!(
                        "{} {}: expected {} {}, got {} {:?}\n{}\n{error}",
                        case.file,
                        case.scenario,
                        expected.status,
                        expected.detail,
                        error.status_name(),
                        error.detail(),
                        case.query
                    ));
                }
            }
        }
    }
    eprintln!(
        "TCK compile time: {accepted} queries accepted, {rejected} rejected as expected, {} \
         failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
