//! Every query in the TCK whose scenario does not expect a SyntaxError must parse, and print
//! back to a query that parses to the same tree.

mod support;

use support::tck;

#[test]
fn tck_queries_parse_and_round_trip() {
    let Some(dir) = tck::features_dir() else {
        eprintln!("TCK features not present; skipping");
        return;
    };
    let cases = tck::cases(&dir);
    let mut total = 0;
    let mut failures = Vec::new();
    for case in &cases {
        if case
            .error
            .as_ref()
            .is_some_and(|e| e.status == "SyntaxError")
        {
            continue;
        }
        total += 1;
        match quiver_cypher::parse(&case.query) {
            Ok(statement) => {
                let printed = statement.to_string();
                match quiver_cypher::parse(&printed) {
                    Ok(again) if again == statement => {}
                    Ok(_) => failures.push(format!(
                        "{} {}: round trip changed the tree\n{}\n{printed}",
                        case.file, case.scenario, case.query
                    )),
                    Err(e) => failures.push(format!(
                        "{} {}: print does not parse\n{printed}\n{e}",
                        case.file, case.scenario
                    )),
                }
            }
            Err(e) => failures.push(format!(
                "{} {}:\n{}\n{e}",
                case.file, case.scenario, case.query
            )),
        }
    }
    eprintln!(
        "TCK: {} of {total} queries parse and round-trip",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
