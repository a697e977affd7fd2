//! The TCK's step vocabulary, parsed from step text into typed [`Step`]s.
//!
//! Steps are recognised by their text alone (the `Given`/`When`/`Then`/`And` keyword carries no
//! meaning the text does not), and every table is parsed here, before anything runs, so a
//! malformed expectation is reported as such instead of as a failing engine.

use std::sync::Arc;

use quiver_value::Value;

use crate::expected::Expected;
use crate::matching::{ExpectedTable, ListOrder, RowOrder};
use crate::side_effects::SideEffects;
use crate::target::{
    ErrorKind, ErrorPhase, ProcedureBaseType, ProcedureField, ProcedureFixture, ProcedureRow,
    ProcedureType,
};

/// One step of a scenario.
#[derive(Clone, Debug)]
pub enum Step {
    /// `Given an empty graph`.
    EmptyGraph,
    /// `Given any graph`: the query must not depend on the graph, so an empty one will do.
    AnyGraph,
    /// `Given the <name> graph`: load `graphs/<name>/<name>.cypher`.
    NamedGraph(String),
    /// `And having executed:`: a setup query; its failure is an error in the scenario.
    Setup(String),
    /// `And parameters are:`.
    Parameters(Vec<(String, Value)>),
    /// `And there exists a procedure ...:`.
    Procedure(ProcedureFixture),
    /// `And the import file "<name>" contains:`: a file `LOAD CSV` reads as `file:///<name>`.
    ImportFile { name: String, content: String },
    /// `When executing query:`.
    Query(String),
    /// `When executing control query:`: its result replaces the main query's for later checks,
    /// while side effects stay those of the main query.
    ControlQuery(String),
    /// `Then the result should be, ...:`.
    Rows {
        rows: RowOrder,
        lists: ListOrder,
        table: ExpectedTable,
    },
    /// `Then the result should be empty`.
    Empty,
    /// `Then a <Type> should be raised at <phase>: <Detail>`.
    Error(ErrorExpectation),
    /// `And the side effects should be:` and `And no side effects`.
    SideEffects(SideEffects),
}

/// What an error step expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorExpectation {
    pub kind: ErrorKind,
    /// `None` for `any time`.
    pub phase: Option<ErrorPhase>,
    /// `None` for `*` (any detail).
    pub detail: Option<String>,
}

impl std::fmt::Display for ErrorExpectation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let phase = self
            .phase
            .map_or_else(|| "any time".to_owned(), |p| p.to_string());
        write!(
            f,
            "{} at {phase}: {}",
            self.kind,
            self.detail.as_deref().unwrap_or("*")
        )
    }
}

impl ErrorExpectation {
    /// Parses `a SyntaxError should be raised at compile time: UndefinedVariable` (`a` or `an`).
    pub fn parse(text: &str) -> Result<ErrorExpectation, String> {
        let rest = text
            .strip_prefix("an ")
            .or_else(|| text.strip_prefix("a "))
            .ok_or("expected `a` or `an`")?;
        let (kind, rest) = rest
            .split_once(" should be raised at ")
            .ok_or("expected `should be raised at`")?;
        let kind = ErrorKind::from_name(kind.trim())
            .ok_or_else(|| format!("unknown error type `{kind}`"))?;
        let (phase, detail) = rest.split_once(':').ok_or("expected `: <detail>`")?;
        let phase = match phase.trim() {
            "compile time" => Some(ErrorPhase::CompileTime),
            "runtime" => Some(ErrorPhase::Runtime),
            "any time" => None,
            other => return Err(format!("unknown phase `{other}`")),
        };
        let detail = match detail.trim() {
            "" => return Err("missing error detail".to_owned()),
            "*" => None,
            d => Some(d.to_owned()),
        };
        Ok(ErrorExpectation {
            kind,
            phase,
            detail,
        })
    }
}

fn need_docstring(docstring: Option<&str>) -> Result<String, String> {
    docstring
        .map(|d| d.trim().to_owned())
        .ok_or_else(|| "this step needs a query block".to_owned())
}

fn need_table(table: Option<&[Vec<String>]>) -> Result<&[Vec<String>], String> {
    table.ok_or_else(|| "this step needs a table".to_owned())
}

/// Interprets one step.
pub fn parse_step(
    text: &str,
    docstring: Option<&str>,
    table: Option<&[Vec<String>]>,
) -> Result<Step, String> {
    let text = text.trim();
    let rows_step = |rows, lists| {
        Ok(Step::Rows {
            rows,
            lists,
            table: expected_table(need_table(table)?)?,
        })
    };
    match text {
        "an empty graph" => return Ok(Step::EmptyGraph),
        "any graph" => return Ok(Step::AnyGraph),
        "having executed:" => return Ok(Step::Setup(need_docstring(docstring)?)),
        "parameters are:" => return Ok(Step::Parameters(parameters(need_table(table)?)?)),
        "executing query:" => return Ok(Step::Query(need_docstring(docstring)?)),
        "executing control query:" => return Ok(Step::ControlQuery(need_docstring(docstring)?)),
        "the result should be, in any order:" => return rows_step(RowOrder::Any, ListOrder::Exact),
        "the result should be, in order:" => return rows_step(RowOrder::InOrder, ListOrder::Exact),
        "the result should be (ignoring element order for lists):"
        | "the result should be, in any order (ignoring element order for lists):" => {
            return rows_step(RowOrder::Any, ListOrder::Ignore);
        }
        "the result should be, in order (ignoring element order for lists):" => {
            return rows_step(RowOrder::InOrder, ListOrder::Ignore);
        }
        "the result should be empty" => return Ok(Step::Empty),
        "the side effects should be:" => {
            return Ok(Step::SideEffects(SideEffects::from_table(need_table(
                table,
            )?)?));
        }
        "no side effects" => return Ok(Step::SideEffects(SideEffects::default())),
        _ => {}
    }
    if let Some(name) = text
        .strip_prefix("the ")
        .and_then(|t| t.strip_suffix(" graph"))
    {
        let name = name.trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!("`{name}` is not a graph name"));
        }
        return Ok(Step::NamedGraph(name.to_owned()));
    }
    if let Some(name) = text
        .strip_prefix("the import file \"")
        .and_then(|t| t.strip_suffix("\" contains:"))
    {
        if name.is_empty() || name.contains("..") {
            return Err(format!("`{name}` is not an import file name"));
        }
        return Ok(Step::ImportFile {
            name: name.to_owned(),
            content: need_docstring(docstring)?,
        });
    }
    if let Some(signature) = text.strip_prefix("there exists a procedure ") {
        let signature = signature
            .trim_end()
            .strip_suffix(':')
            .ok_or("expected `:` after the signature")?;
        return Ok(Step::Procedure(procedure(signature, need_table(table)?)?));
    }
    if text.contains(" should be raised at ") {
        return Ok(Step::Error(ErrorExpectation::parse(text)?));
    }
    Err("unknown step".to_owned())
}

fn expected_table(rows: &[Vec<String>]) -> Result<ExpectedTable, String> {
    let (header, body) = rows.split_first().ok_or("the table has no header")?;
    let rows = body
        .iter()
        .map(|row| {
            row.iter()
                .map(|cell| Expected::parse(cell).map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ExpectedTable {
        columns: header.clone(),
        rows,
    })
}

fn parameters(rows: &[Vec<String>]) -> Result<Vec<(String, Value)>, String> {
    rows.iter()
        .map(|row| {
            let [name, value] = row.as_slice() else {
                return Err(format!("a parameter row needs two cells, got {row:?}"));
            };
            let value = Expected::parse(value)
                .map_err(|e| e.to_string())?
                .to_value()?;
            Ok((name.clone(), value))
        })
        .collect()
}

/// `test.my.proc(in :: INTEGER?) :: (out :: STRING?)` plus its table: the header names input and
/// output columns, each row gives values for all of them.
fn procedure(signature: &str, rows: &[Vec<String>]) -> Result<ProcedureFixture, String> {
    let (name, rest) = signature
        .split_once('(')
        .ok_or("expected `(` after the procedure name")?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        return Err(format!("`{name}` is not a procedure name"));
    }
    let (inputs, rest) = rest
        .split_once(')')
        .ok_or("expected `)` after the inputs")?;
    let outputs = rest
        .trim()
        .strip_prefix("::")
        .map(str::trim)
        .and_then(|o| o.strip_prefix('('))
        .and_then(|o| o.strip_suffix(')'))
        .ok_or("expected `:: (outputs)`")?;
    let inputs = fields(inputs)?;
    let outputs = fields(outputs)?;
    let (header, body) = rows
        .split_first()
        .map_or((&[][..], &[][..]), |(h, b)| (h.as_slice(), b));
    let column_of = |field: &ProcedureField| {
        header
            .iter()
            .position(|h| *h == field.name)
            .ok_or_else(|| format!("the table has no column `{}`", field.name))
    };
    let input_columns = inputs
        .iter()
        .map(column_of)
        .collect::<Result<Vec<_>, _>>()?;
    let output_columns = outputs
        .iter()
        .map(column_of)
        .collect::<Result<Vec<_>, _>>()?;
    if header.len() != inputs.len() + outputs.len() {
        return Err(format!(
            "the table has {} columns for {} inputs and {} outputs",
            header.len(),
            inputs.len(),
            outputs.len()
        ));
    }
    let mut fixture_rows = Vec::with_capacity(body.len());
    for row in body {
        let values = row
            .iter()
            .map(|cell| {
                Expected::parse(cell)
                    .map_err(|e| e.to_string())
                    .and_then(|e| e.to_value())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pick = |columns: &[usize]| {
            columns
                .iter()
                .map(|&c| values.get(c).cloned().unwrap_or(Value::Null))
                .collect()
        };
        fixture_rows.push(ProcedureRow {
            inputs: pick(&input_columns),
            outputs: pick(&output_columns),
        });
    }
    Ok(ProcedureFixture {
        name: name.to_owned(),
        inputs,
        outputs,
        rows: fixture_rows,
    })
}

fn fields(list: &str) -> Result<Vec<ProcedureField>, String> {
    if list.trim().is_empty() {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(|field| {
            let (name, ty) = field
                .split_once("::")
                .ok_or_else(|| format!("expected `name :: TYPE` in `{field}`"))?;
            let name = name.trim();
            if name.is_empty() {
                return Err(format!("a field without a name in `{field}`"));
            }
            Ok(ProcedureField {
                name: name.to_owned(),
                ty: procedure_type(ty.trim())?,
            })
        })
        .collect()
}

/// `INTEGER?`, `LIST? OF STRING?`, `ANY`, ...
fn procedure_type(text: &str) -> Result<ProcedureType, String> {
    let (head, element) = match text.split_once(" OF ") {
        Some((head, element)) => (head.trim(), Some(element.trim())),
        None => (text, None),
    };
    let (word, nullable) = match head.strip_suffix('?') {
        Some(word) => (word.trim(), true),
        None => (head, false),
    };
    let base = match (word.to_ascii_uppercase().as_str(), element) {
        ("LIST", Some(element)) => ProcedureBaseType::List(Box::new(procedure_type(element)?)),
        ("LIST", None) => ProcedureBaseType::List(Box::new(ProcedureType {
            base: ProcedureBaseType::Any,
            nullable: true,
        })),
        (_, Some(_)) => return Err(format!("only LIST takes `OF` in `{text}`")),
        ("ANY", None) => ProcedureBaseType::Any,
        ("BOOLEAN", None) => ProcedureBaseType::Boolean,
        ("INTEGER", None) => ProcedureBaseType::Integer,
        ("FLOAT", None) => ProcedureBaseType::Float,
        ("NUMBER", None) => ProcedureBaseType::Number,
        ("STRING", None) => ProcedureBaseType::String,
        ("MAP", None) => ProcedureBaseType::Map,
        ("NODE", None) => ProcedureBaseType::Node,
        ("RELATIONSHIP", None) => ProcedureBaseType::Relationship,
        ("PATH", None) => ProcedureBaseType::Path,
        (other, None) => return Err(format!("unknown procedure type `{other}`")),
    };
    Ok(ProcedureType { base, nullable })
}

/// Named graphs are scripts of `;`-terminated statements; a statement ends where a line does.
pub fn split_script(script: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current = String::new();
    for line in script.lines() {
        let trimmed = line.trim_end();
        if let Some(body) = trimmed.strip_suffix(';') {
            current.push_str(body);
            statements.push(std::mem::take(&mut current));
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    statements.push(current);
    statements
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Parameter maps as the target takes them.
pub fn parameter_map(params: &[(String, Value)], into: &mut quiver_value::Map) {
    for (name, value) in params {
        into.insert(Arc::from(name.as_str()), value.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|row| row.iter().map(|c| (*c).to_owned()).collect())
            .collect()
    }

    #[test]
    fn error_expectations() {
        let e = ErrorExpectation::parse(
            "a SyntaxError should be raised at compile time: UndefinedVariable",
        )
        .unwrap();
        assert_eq!(
            e,
            ErrorExpectation {
                kind: ErrorKind::SyntaxError,
                phase: Some(ErrorPhase::CompileTime),
                detail: Some("UndefinedVariable".into())
            }
        );
        let e = ErrorExpectation::parse(
            "an ArgumentError should be raised at runtime: NumberOutOfRange",
        )
        .unwrap();
        assert_eq!(
            (e.kind, e.phase),
            (ErrorKind::ArgumentError, Some(ErrorPhase::Runtime))
        );
        let e = ErrorExpectation::parse("a TypeError should be raised at any time: *").unwrap();
        assert_eq!((e.phase, e.detail.as_deref()), (None, None));
        assert_eq!(e.to_string(), "TypeError at any time: *");
        for bad in [
            "a Blunder should be raised at runtime: X",
            "a TypeError should be raised at teatime: X",
            "a TypeError should be raised at runtime:",
            "the TypeError should be raised at runtime: X",
            "a TypeError should be raised at runtime X",
        ] {
            assert!(ErrorExpectation::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn step_forms() {
        assert!(matches!(
            parse_step("an empty graph", None, None),
            Ok(Step::EmptyGraph)
        ));
        assert!(matches!(
            parse_step("any graph", None, None),
            Ok(Step::AnyGraph)
        ));
        assert!(
            matches!(parse_step("the binary-tree-1 graph", None, None), Ok(Step::NamedGraph(n)) if n == "binary-tree-1")
        );
        assert!(parse_step("the ../../etc graph", None, None).is_err());
        assert!(
            matches!(parse_step("executing query:", Some("\nRETURN 1\n"), None), Ok(Step::Query(q)) if q == "RETURN 1")
        );
        assert!(parse_step("executing query:", None, None).is_err());
        assert!(
            matches!(parse_step("no side effects", None, None), Ok(Step::SideEffects(e)) if e == SideEffects::default())
        );
        let table = cells(&[&["a", "b"], &["1", "'x'"]]);
        let Ok(Step::Rows { rows, lists, table }) = parse_step(
            "the result should be (ignoring element order for lists):",
            None,
            Some(&table),
        ) else {
            panic!("not a rows step")
        };
        assert_eq!((rows, lists), (RowOrder::Any, ListOrder::Ignore));
        assert_eq!(
            table.rows,
            vec![vec![Expected::Int(1), Expected::String("x".into())]]
        );
        let bad = cells(&[&["a"], &["(:A"]]);
        assert!(parse_step("the result should be, in order:", None, Some(&bad)).is_err());
        assert!(parse_step("the result should be, in order:", None, Some(&[])).is_err());
    }

    #[test]
    fn parameter_tables() {
        let table = cells(&[&["idx", "'name'"], &["list", "[1, 2.0]"]]);
        let Ok(Step::Parameters(params)) = parse_step("parameters are:", None, Some(&table)) else {
            panic!("not parameters")
        };
        assert_eq!(params.len(), 2);
        assert!(matches!(&params[0].1, Value::String(s) if &**s == "name"));
        assert!(parse_step("parameters are:", None, Some(&cells(&[&["n", "(:A)"]]))).is_err());
        assert!(parse_step("parameters are:", None, Some(&cells(&[&["n"]]))).is_err());
    }

    #[test]
    fn procedure_fixtures() {
        let table = cells(&[&["in", "a", "b"], &["null", "1", "2"]]);
        let Ok(Step::Procedure(p)) = parse_step(
            "there exists a procedure test.my.proc(in :: INTEGER?) :: (a :: INTEGER?, b :: LIST? OF STRING?) :",
            None,
            Some(&table),
        ) else {
            panic!("not a procedure")
        };
        assert_eq!(p.name, "test.my.proc");
        assert_eq!(
            p.inputs,
            vec![ProcedureField {
                name: "in".into(),
                ty: ProcedureType {
                    base: ProcedureBaseType::Integer,
                    nullable: true
                }
            }]
        );
        assert_eq!(p.outputs.len(), 2);
        assert!(
            matches!(&p.outputs[1].ty.base, ProcedureBaseType::List(inner) if inner.base == ProcedureBaseType::String)
        );
        assert_eq!(p.rows.len(), 1);
        assert!(matches!(p.rows[0].inputs[..], [Value::Null]));
        assert!(matches!(
            p.rows[0].outputs[..],
            [Value::Int(1), Value::Int(2)]
        ));
        // Header order need not follow the signature.
        let table = cells(&[&["out", "in"], &["'x'", "1"]]);
        let Ok(Step::Procedure(p)) = parse_step(
            "there exists a procedure p(in :: INTEGER?) :: (out :: STRING?):",
            None,
            Some(&table),
        ) else {
            panic!("not a procedure")
        };
        assert!(matches!(p.rows[0].inputs[..], [Value::Int(1)]));
        // `test.doNothing() :: ()` with a lone `|` row: no columns, no rows.
        let empty: Vec<Vec<String>> = vec![vec![]];
        let Ok(Step::Procedure(p)) = parse_step(
            "there exists a procedure test.doNothing() :: ():",
            None,
            Some(&empty),
        ) else {
            panic!("not a procedure")
        };
        assert!(p.inputs.is_empty() && p.outputs.is_empty() && p.rows.is_empty());
        assert!(
            parse_step(
                "there exists a procedure p(in :: WIDGET?) :: ():",
                None,
                Some(&cells(&[&["in"]]))
            )
            .is_err()
        );
        assert!(
            parse_step(
                "there exists a procedure p(in :: INTEGER?) :: ():",
                None,
                Some(&cells(&[&["other"]]))
            )
            .is_err()
        );
    }

    #[test]
    fn scripts_split_on_line_ending_semicolons() {
        let script = "CREATE (a {s: 'x;y'}),\n       (b);\nCREATE (c)\n";
        assert_eq!(
            split_script(script),
            vec![
                "CREATE (a {s: 'x;y'}),\n       (b)".to_owned(),
                "CREATE (c)".to_owned()
            ]
        );
        assert!(split_script("  \n").is_empty());
    }
}
