//! The seam between the runner and the database under test.
//!
//! The runner knows nothing of how queries run: it drives anything that implements [`Target`].
//! Keeping the seam this small means the same scenarios can run against the embedded engine, a
//! server over Bolt, or a test double, and the runner's own logic is testable without an engine.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Instant;

use quiver_value::{Map, NodeData, RelData, Value};

/// The database under test, as the runner sees it.
///
/// A target is moved into the worker thread that runs scenarios, hence `Send`. When a scenario
/// overruns its time budget the runner abandons that worker (and the target with it) and asks its
/// factory for a fresh one, so a runaway query never hangs the whole run.
pub trait Target: Send {
    /// Starts from an empty graph: no nodes, relationships, labels or fixture procedures.
    fn reset(&mut self) -> Result<(), TargetError>;

    /// Runs one query in its own auto-commit transaction. Nodes, relationships and paths in the
    /// rows must come back materialised (`data: Some(..)`), because scenarios compare labels,
    /// types and properties, never ids.
    fn execute(&mut self, query: &str, params: &Map) -> Result<Outcome, QueryError>;

    /// Registers a fixture procedure for the rest of the scenario (`And there exists a
    /// procedure ...`).
    fn register_procedure(&mut self, procedure: ProcedureFixture) -> Result<(), TargetError>;

    /// Writes a file `LOAD CSV` can read as `file:///<name>` for the rest of the scenario
    /// (`And the import file "<name>" contains:`); `reset` removes it.
    fn write_import_file(&mut self, name: &str, content: &[u8]) -> Result<(), TargetError> {
        let _ = (name, content);
        Err(TargetError::Unsupported("import files".to_owned()))
    }

    /// The whole committed graph, read after a query to compute its side effects.
    fn graph_state(&mut self) -> Result<GraphState, TargetError>;

    /// The instant after which the scenario's time budget is spent. A target that can cancel
    /// queries should fail any query still running then; the runner stops waiting either way, so
    /// honouring it only saves the CPU an abandoned query would keep burning.
    fn set_deadline(&mut self, deadline: Option<Instant>) {
        let _ = deadline;
    }
}

/// A query's result: column names in order, then rows of values in the same order.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

/// Failures of the target itself (not of a query): it could not reset, register a fixture, or
/// report its state.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TargetError {
    #[error("the target is unavailable: {0}")]
    Unavailable(String),
    #[error("the target does not support {0}")]
    Unsupported(String),
    #[error("target failure: {0}")]
    Failed(String),
}

/// A query that failed, classified the way the TCK names errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub kind: ErrorKind,
    pub phase: ErrorPhase,
    /// The TCK's detail name, such as `UndefinedVariable` or `DeleteConnectedNode`; `None` when
    /// the engine has no finer classification than `kind`.
    pub detail: Option<String>,
    /// Human-readable text, shown in reports only.
    pub message: String,
}

impl QueryError {
    pub fn new(
        kind: ErrorKind,
        phase: ErrorPhase,
        detail: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        QueryError {
            kind,
            phase,
            detail: detail.map(str::to_owned),
            message: message.into(),
        }
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.kind, self.phase)?;
        if let Some(detail) = &self.detail {
            write!(f, ": {detail}")?;
        }
        if !self.message.is_empty() {
            write!(f, " ({})", self.message)?;
        }
        Ok(())
    }
}

/// The error types the TCK names (the last segment of a Neo4j status code such as
/// `Neo.ClientError.Statement.SyntaxError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    SyntaxError,
    SemanticError,
    ParameterMissing,
    ConstraintVerificationFailed,
    ConstraintValidationFailed,
    EntityNotFound,
    PropertyNotFound,
    LabelNotFound,
    TypeError,
    ArgumentError,
    ArithmeticError,
    ProcedureError,
    /// Not in the openCypher TCK: Quiver's own features use it for `USE` of another graph.
    DatabaseNotFound,
    /// Not in the openCypher TCK: `LOAD CSV` could not read its file.
    ExternalResourceFailed,
    /// Not in the openCypher TCK: existing data violates a constraint being created.
    ConstraintCreationFailed,
    /// Not in the openCypher TCK: an index or constraint like the one asked for exists.
    EquivalentSchemaRuleAlreadyExists,
    /// Not in the openCypher TCK: an index over the schema of a new rule blocks it.
    IndexAlreadyExists,
    /// Not in the openCypher TCK: a constraint over the schema of a new rule blocks it.
    ConstraintAlreadyExists,
    /// Not in the openCypher TCK: an index holds the name of a new index or constraint.
    IndexWithNameAlreadyExists,
    /// Not in the openCypher TCK: a constraint holds the name of a new index or constraint.
    ConstraintWithNameAlreadyExists,
}

impl ErrorKind {
    const ALL: [ErrorKind; 20] = [
        ErrorKind::SyntaxError,
        ErrorKind::SemanticError,
        ErrorKind::ParameterMissing,
        ErrorKind::ConstraintVerificationFailed,
        ErrorKind::ConstraintValidationFailed,
        ErrorKind::EntityNotFound,
        ErrorKind::PropertyNotFound,
        ErrorKind::LabelNotFound,
        ErrorKind::TypeError,
        ErrorKind::ArgumentError,
        ErrorKind::ArithmeticError,
        ErrorKind::ProcedureError,
        ErrorKind::DatabaseNotFound,
        ErrorKind::ExternalResourceFailed,
        ErrorKind::ConstraintCreationFailed,
        ErrorKind::EquivalentSchemaRuleAlreadyExists,
        ErrorKind::IndexAlreadyExists,
        ErrorKind::ConstraintAlreadyExists,
        ErrorKind::IndexWithNameAlreadyExists,
        ErrorKind::ConstraintWithNameAlreadyExists,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::SyntaxError => "SyntaxError",
            ErrorKind::SemanticError => "SemanticError",
            ErrorKind::ParameterMissing => "ParameterMissing",
            ErrorKind::ConstraintVerificationFailed => "ConstraintVerificationFailed",
            ErrorKind::ConstraintValidationFailed => "ConstraintValidationFailed",
            ErrorKind::EntityNotFound => "EntityNotFound",
            ErrorKind::PropertyNotFound => "PropertyNotFound",
            ErrorKind::LabelNotFound => "LabelNotFound",
            ErrorKind::TypeError => "TypeError",
            ErrorKind::ArgumentError => "ArgumentError",
            ErrorKind::ArithmeticError => "ArithmeticError",
            ErrorKind::ProcedureError => "ProcedureError",
            ErrorKind::DatabaseNotFound => "DatabaseNotFound",
            ErrorKind::ExternalResourceFailed => "ExternalResourceFailed",
            ErrorKind::ConstraintCreationFailed => "ConstraintCreationFailed",
            ErrorKind::EquivalentSchemaRuleAlreadyExists => "EquivalentSchemaRuleAlreadyExists",
            ErrorKind::IndexAlreadyExists => "IndexAlreadyExists",
            ErrorKind::ConstraintAlreadyExists => "ConstraintAlreadyExists",
            ErrorKind::IndexWithNameAlreadyExists => "IndexWithNameAlreadyExists",
            ErrorKind::ConstraintWithNameAlreadyExists => "ConstraintWithNameAlreadyExists",
        }
    }

    /// Accepts the TCK's name, or a full Neo4j status code ending in it.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        let last = name.rsplit('.').next().unwrap_or(name);
        ErrorKind::ALL.into_iter().find(|kind| kind.name() == last)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// When an error was raised: while compiling (parse, semantic analysis, planning) or while
/// executing. The TCK checks this because a compile-time error must leave no side effects and
/// must not depend on the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorPhase {
    CompileTime,
    Runtime,
}

impl fmt::Display for ErrorPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorPhase::CompileTime => "compile time",
            ErrorPhase::Runtime => "runtime",
        })
    }
}

/// The committed graph, as side-effect accounting needs it: every node with its labels and
/// properties, every relationship with its type, ends and properties, keyed by id.
#[derive(Clone, Debug, Default)]
pub struct GraphState {
    pub nodes: BTreeMap<u64, NodeData>,
    pub relationships: BTreeMap<u64, RelData>,
}

/// A fixture procedure: a fixed table from input values to output rows.
///
/// Calling it with arguments yields the output columns of every row whose input columns equal the
/// arguments (in the TCK's equality, so `null` matches `null`). A procedure with no inputs yields
/// all rows.
#[derive(Clone, Debug)]
pub struct ProcedureFixture {
    /// Dotted name, such as `test.my.proc`.
    pub name: String,
    pub inputs: Vec<ProcedureField>,
    pub outputs: Vec<ProcedureField>,
    pub rows: Vec<ProcedureRow>,
}

/// One named, typed parameter or result column of a fixture procedure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureField {
    pub name: String,
    pub ty: ProcedureType,
}

/// A declared type in a procedure signature, such as `INTEGER?` or `LIST? OF STRING?`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcedureType {
    pub base: ProcedureBaseType,
    /// `?`: the value may be null.
    pub nullable: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcedureBaseType {
    Any,
    Boolean,
    Integer,
    Float,
    Number,
    String,
    Map,
    Node,
    Relationship,
    Path,
    List(Box<ProcedureType>),
}

/// One row of a fixture: values for the inputs (in `inputs` order) and the outputs (in `outputs`
/// order).
#[derive(Clone, Debug)]
pub struct ProcedureRow {
    pub inputs: Vec<Value>,
    pub outputs: Vec<Value>,
}
