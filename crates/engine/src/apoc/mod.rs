//! APOC's function library (`apoc.coll.*`, `apoc.map.*`, `apoc.text.*`, `apoc.convert.*`,
//! ...), implemented natively under APOC's names and signatures: one table ([`functions`])
//! the semantic pass and the planner consult after Neo4j's built-ins. A bad argument fails
//! with `Neo.ClientError.Procedure.ProcedureCallFailed` naming the function and the argument.
//! APOC's procedures are `quiver-procedures`'; the metadata ones (`apoc.meta.*`) are
//! [`crate::metadata`]'s.

pub(crate) mod functions;

use quiver_cypher::semantic::{BuiltinFunctions, FunctionCatalog, FunctionSignature};

/// The version `apoc.version()` reports: the APOC release whose names and signatures these
/// follow. APOC's versions follow Neo4j's and tools compare the two, so it is also the Neo4j
/// version Quiver's Bolt agent announces (the server's tests check they agree). APOC has been
/// released with the same calendar version as Neo4j since 2025.01.
pub const APOC_VERSION: &str = "2026.08.0";

/// The functions the semantic pass knows: Neo4j's built-ins, then the APOC library.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Functions;

impl FunctionCatalog for Functions {
    fn function(&self, qualified_name: &str) -> Option<FunctionSignature> {
        BuiltinFunctions
            .function(qualified_name)
            .or_else(|| functions::lookup(qualified_name).map(functions::LibraryFn::signature))
    }
}
