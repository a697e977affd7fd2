//! Procedures a served graph answers the way Neo4j does, because drivers, shells and browsers
//! call them on connect and read their answers literally.
//!
//! `dbms.components()` is the one tools parse: Neo4j Browser and cypher-shell look for the row
//! named `Neo4j Kernel` and read the server version from it, deciding which syntax and features
//! they may use. The embedded engine names itself; a server speaking Bolt names the Neo4j version
//! whose protocol it speaks (the same version its Bolt agent string announces).

use std::sync::Arc;

use quiver_bolt::meta::SERVER_AGENT;
use quiver_engine::{
    Database, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Result,
};
use quiver_value::Value;

/// The component name tools search `dbms.components()` for.
pub const KERNEL_COMPONENT: &str = "Neo4j Kernel";

/// Registers the server's procedures on `db` (replacing the engine's versions of them).
pub fn register(db: &Database) {
    db.register_procedure(Arc::new(Components::new()));
}

/// The Neo4j version in the Bolt agent string (`Neo4j/2026.08.0-quiver` → `2026.08.0`).
pub fn neo4j_version() -> &'static str {
    let version = SERVER_AGENT.strip_prefix("Neo4j/").unwrap_or(SERVER_AGENT);
    version.split('-').next().unwrap_or(version)
}

/// `dbms.components()`: one row, `Neo4j Kernel`, the protocol's Neo4j version, `community`.
struct Components {
    signature: ProcedureSignature,
}

impl Components {
    fn new() -> Components {
        Components {
            signature: ProcedureSignature {
                name: "dbms.components".to_owned(),
                inputs: Vec::new(),
                outputs: vec![
                    Field::new("name", FieldType::String),
                    Field::new("versions", FieldType::List(Box::new(FieldType::String))),
                    Field::new("edition", FieldType::String),
                ],
                writes: false,
            },
        }
    }
}

impl Procedure for Components {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(vec![vec![
            Value::from(KERNEL_COMPONENT),
            Value::from(vec![Value::from(neo4j_version())]),
            Value::from("community"),
        ]])
    }
}

#[cfg(test)]
mod tests {
    use quiver_engine::EngineConfig;
    use quiver_value::Map;

    use super::*;

    #[test]
    fn the_version_is_the_agents() {
        let version = neo4j_version();
        assert!(SERVER_AGENT.starts_with(&format!("Neo4j/{version}")));
        assert!(version.split('.').all(|part| part.parse::<u32>().is_ok()));
        assert_eq!(version.split('.').count(), 3);
    }

    #[test]
    fn apoc_answers_for_the_same_version() {
        assert_eq!(quiver_engine::APOC_VERSION, neo4j_version());
    }

    #[test]
    fn tools_that_compare_version_tuples_see_a_calendar_version_above_5() {
        // LangChain and neo4j-graphrag drop what follows `-`, split on `.` and compare tuples
        // of integers against minimums such as (5, 11, 0) and (5, 23, 0).
        let tuple: Vec<u32> = neo4j_version()
            .split('-')
            .next()
            .unwrap_or_default()
            .split('.')
            .map(|part| part.parse().expect("a number"))
            .collect();
        assert!(tuple.as_slice() >= [5, 23, 0].as_slice());
        assert_eq!(tuple[0], 2026);
    }

    #[test]
    fn components_name_the_neo4j_kernel() {
        let db = Database::open_in_memory(EngineConfig::default());
        register(&db);
        let result = db
            .execute(
                "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition",
                Map::new(),
            )
            .expect("call");
        assert_eq!(
            result.rows,
            vec![vec![
                Value::from(KERNEL_COMPONENT),
                Value::from(vec![Value::from(neo4j_version())]),
                Value::from("community"),
            ]]
        );
    }
}
