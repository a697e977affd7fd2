//! What tools ask a server about itself on connect, answered with Neo4j's names and columns:
//! the `SHOW` commands over the database's own registries ([`show`], [`servers`]), the `db.*`,
//! `dbms.*` and `tx.*` procedures that describe the server and the graph ([`dbms`], [`schema`],
//! [`jmx`]), and APOC's metadata procedures, implemented natively ([`apoc`]). Tools parse
//! these answers literally (LangChain's `Neo4jGraph` builds its schema text from
//! `apoc.meta.data`; Neo4j Browser reads `SHOW DATABASES` and `dbms.queryJmx`), so the column
//! names, their order and the spelling of type names are Neo4j's and APOC's own.
//!
//! Descriptions of the graph (property types, label combinations, relationship patterns)
//! come from the store's exact counts and a bounded sample ([`sample`]): a call costs the same
//! on a graph of a billion nodes as on one of a thousand.

mod apoc;
mod dbms;
mod jmx;
mod sample;
mod schema;
pub(crate) mod servers;
pub(crate) mod show;
#[cfg(test)]
mod tests;
pub(crate) mod values;

use std::sync::Arc;

pub use servers::{ServerDirectory, ServerHealth, ServerInfo, server_id};

use crate::procedures::Procedures;

/// The procedures a database starts with: the registry's own ([`Procedures::builtin`]) and
/// the metadata procedures.
pub(crate) fn builtin_procedures() -> Procedures {
    let mut p = Procedures::builtin();
    register(&mut p);
    p
}

/// Registers the metadata procedures.
pub(crate) fn register(p: &mut Procedures) {
    for procedure in dbms::procedures()
        .into_iter()
        .chain(schema::procedures())
        .chain(jmx::procedures())
        .chain(apoc::procedures())
        .chain(crate::changes::procedures())
    {
        p.register(Arc::new(procedure));
    }
}
