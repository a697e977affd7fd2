//! A test double for the runner's own tests: a target that answers a few fixed queries, keeps a
//! real (tiny) graph so side effects can be diffed, overruns on demand, and panics on demand.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use quiver_value::{Map, Node, NodeData, Value};

use crate::target::{
    ErrorKind, ErrorPhase, GraphState, Outcome, ProcedureFixture, QueryError, Target, TargetError,
};

/// Knows a handful of queries by heart; `LOOP` overruns any small budget and `PANIC` panics.
#[derive(Default)]
pub struct Fake {
    nodes: BTreeMap<u64, NodeData>,
    next_id: u64,
    procedures: Vec<ProcedureFixture>,
}

fn columns(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

impl Target for Fake {
    fn reset(&mut self) -> Result<(), TargetError> {
        *self = Fake::default();
        Ok(())
    }

    fn execute(&mut self, query: &str, params: &Map) -> Result<Outcome, QueryError> {
        let undefined = || {
            QueryError::new(
                ErrorKind::SyntaxError,
                ErrorPhase::CompileTime,
                Some("UndefinedVariable"),
                "x",
            )
        };
        match query.trim() {
            "CREATE (:A {name: 'a'})" => {
                let properties = [(Arc::from("name"), Value::string("a"))]
                    .into_iter()
                    .collect();
                self.nodes.insert(
                    self.next_id,
                    NodeData {
                        labels: vec![Arc::from("A")],
                        properties,
                    },
                );
                self.next_id += 1;
                Ok(Outcome::default())
            }
            "MATCH (n) RETURN n" => Ok(Outcome {
                columns: columns(&["n"]),
                rows: self
                    .nodes
                    .iter()
                    .map(|(id, data)| {
                        vec![Value::Node(Node {
                            id: *id,
                            data: Some(Arc::new(data.clone())),
                        })]
                    })
                    .collect(),
            }),
            "RETURN $x AS x" => Ok(Outcome {
                columns: columns(&["x"]),
                rows: vec![vec![params.get("x").cloned().unwrap_or_default()]],
            }),
            "RETURN [3, 1, 2] AS l" => Ok(Outcome {
                columns: columns(&["l"]),
                rows: vec![vec![Value::List(
                    vec![Value::Int(3), Value::Int(1), Value::Int(2)].into(),
                )]],
            }),
            "CALL test.labels()" => {
                let fixture = self
                    .procedures
                    .iter()
                    .find(|p| p.name == "test.labels")
                    .ok_or_else(undefined)?;
                Ok(Outcome {
                    columns: columns(&["label"]),
                    rows: fixture.rows.iter().map(|r| r.outputs.clone()).collect(),
                })
            }
            "LOOP" => {
                thread::sleep(Duration::from_secs(2));
                Ok(Outcome::default())
            }
            "PANIC" => panic!("the fake target gave up"),
            _ => Err(undefined()),
        }
    }

    fn register_procedure(&mut self, procedure: ProcedureFixture) -> Result<(), TargetError> {
        self.procedures.push(procedure);
        Ok(())
    }

    fn graph_state(&mut self) -> Result<GraphState, TargetError> {
        Ok(GraphState {
            nodes: self.nodes.clone(),
            relationships: BTreeMap::new(),
        })
    }
}

/// Twenty scenarios covering every verdict the runner can reach against [`Fake`].
pub const FEATURE: &str = r#"
Feature: Fake

  Scenario: [1] Create and match
    Given an empty graph
    And having executed:
      """
      CREATE (:A {name: 'a'})
      """
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be, in any order:
      | n                |
      | (:A {name: 'a'}) |
    And no side effects

  Scenario: [2] Side effects and a control query
    Given an empty graph
    When executing query:
      """
      CREATE (:A {name: 'a'})
      """
    Then the result should be empty
    And the side effects should be:
      | +nodes      | 1 |
      | +labels     | 1 |
      | +properties | 1 |
    When executing control query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be, in order:
      | n                |
      | (:A {name: 'a'}) |

  Scenario Outline: [3] Parameters
    Given any graph
    And parameters are:
      | x | <value> |
    When executing query:
      """
      RETURN $x AS x
      """
    Then the result should be, in any order:
      | x        |
      | <result> |
    And no side effects

    Examples:
      | value    | result   |
      | 1        | 1        |
      | [1, 'a'] | [1, 'a'] |
      | 1        | 1.0      |

  Scenario: [4] Unexpected side effects fail
    Given an empty graph
    When executing query:
      """
      CREATE (:A {name: 'a'})
      """
    Then the result should be empty
    And no side effects

  Scenario: [5] The exact error
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then a SyntaxError should be raised at compile time: UndefinedVariable

  Scenario: [6] The right type with the wrong detail
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then a SyntaxError should be raised at compile time: VariableAlreadyBound

  Scenario: [7] The right type at the wrong time
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then a SyntaxError should be raised at runtime: UndefinedVariable

  Scenario: [8] The wrong type
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then a TypeError should be raised at compile time: UndefinedVariable

  Scenario: [9] Any time, any detail
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then a SyntaxError should be raised at any time: *

  Scenario: [10] An error where rows were expected
    Given any graph
    When executing query:
      """
      RETURN undefined
      """
    Then the result should be empty

  Scenario: [11] A failing setup query
    Given an empty graph
    And having executed:
      """
      CREATE nonsense
      """
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be empty

  Scenario: [12] A runaway query
    Given any graph
    When executing query:
      """
      LOOP
      """
    Then the result should be empty

  Scenario: [13] Runs on a fresh target after the runaway
    Given an empty graph
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be empty
    And no side effects

  Scenario: [14] A panicking target
    Given any graph
    When executing query:
      """
      PANIC
      """
    Then the result should be empty

  Scenario: [15] A fixture procedure
    Given an empty graph
    And there exists a procedure test.labels() :: (label :: STRING?):
      | label |
      | 'A'   |
      | 'B'   |
    When executing query:
      """
      CALL test.labels()
      """
    Then the result should be, in order:
      | label |
      | 'A'   |
      | 'B'   |
    And no side effects

  Scenario: [16] Lists in any order
    Given any graph
    When executing query:
      """
      RETURN [3, 1, 2] AS l
      """
    Then the result should be (ignoring element order for lists):
      | l         |
      | [1, 2, 3] |

  @ignore
  Scenario: [17] Ignored
    Given any graph
    When executing query:
      """
      PANIC
      """
    Then the result should be empty

  Scenario: [18] A named graph
    Given the tiny graph
    When executing query:
      """
      MATCH (n) RETURN n
      """
    Then the result should be, in any order:
      | n                |
      | (:A {name: 'a'}) |
      | (:A {name: 'a'}) |
"#;
