//! The openCypher TCK runner: reads feature files, runs their scenarios against a [`Target`], and
//! scores the results strictly (error type, phase and detail must match) and leniently (error
//! type only).
//!
//! The runner depends on no engine: anything implementing [`Target`] can be measured, which keeps
//! the harness testable on its own and lets the same kit measure the embedded engine or a server.

pub mod canonical;
pub mod cli;
pub mod expected;
#[cfg(test)]
mod fake;
pub mod feature;
pub mod matching;
pub mod report;
pub mod runner;
pub mod side_effects;
pub mod steps;
pub mod target;

pub use expected::Expected;
pub use feature::{Scenario, ScenarioId, Suite, load_directory};
pub use report::{Ratchet, Report, ScenarioResult, Status};
pub use runner::{RunOptions, Verdict, run_directory, run_scenario};
pub use side_effects::SideEffects;
pub use target::{
    ErrorKind, ErrorPhase, GraphState, Outcome, ProcedureBaseType, ProcedureField,
    ProcedureFixture, ProcedureRow, ProcedureType, QueryError, Target, TargetError,
};

/// A boxed target is a target, so a binary can choose one at run time.
impl<T: Target + ?Sized> Target for Box<T> {
    fn reset(&mut self) -> Result<(), TargetError> {
        (**self).reset()
    }

    fn execute(&mut self, query: &str, params: &quiver_value::Map) -> Result<Outcome, QueryError> {
        (**self).execute(query, params)
    }

    fn register_procedure(&mut self, procedure: ProcedureFixture) -> Result<(), TargetError> {
        (**self).register_procedure(procedure)
    }

    fn graph_state(&mut self) -> Result<GraphState, TargetError> {
        (**self).graph_state()
    }

    fn write_import_file(&mut self, name: &str, content: &[u8]) -> Result<(), TargetError> {
        (**self).write_import_file(name, content)
    }

    fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        (**self).set_deadline(deadline);
    }
}
