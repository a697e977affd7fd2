//! EXPLAIN and PROFILE: plans described as Neo4j-style operator trees.

use std::sync::Arc;
use std::time::Duration;

use quiver_storage::{Direction, IndexKind};

use crate::ir::{
    ChainCountSpec, Command, ExpandSpec, IndexSeekSpec, Op, PlanNode, Seek, SeekTarget,
    VarExpandSpec,
};
use crate::summary::{OperatorProfile, PlanDescription};

fn dir_arrow(d: Direction) -> (&'static str, &'static str) {
    match d {
        Direction::Out => ("-", "->"),
        Direction::In => ("<-", "-"),
        Direction::Both => ("-", "-"),
    }
}

fn types(t: &[std::sync::Arc<crate::tokens::Token>]) -> String {
    if t.is_empty() {
        String::new()
    } else {
        let names: Vec<&str> = t.iter().map(|t| &*t.name).collect();
        format!(":{}", names.join("|"))
    }
}

fn name_and_details(op: &Op) -> (String, String) {
    match op {
        Op::Once => ("Argument".into(), String::new()),
        Op::AllNodes { .. } => ("AllNodesScan".into(), String::new()),
        Op::LabelScan { label, .. } => ("NodeByLabelScan".into(), format!(":{}", label.name)),
        Op::IndexSeek {
            label, key, seek, ..
        } => (
            "NodeIndexSeek".into(),
            format!(":{}({}) {}", label.name, key.name, seek_kind(seek)),
        ),
        Op::SchemaIndexSeek { spec, .. } => schema_seek_details(spec),
        Op::NodeById { .. } => ("NodeByIdSeek".into(), String::new()),
        Op::NodeCount { label, .. } => (
            "NodeCountFromCountStore".into(),
            label
                .as_ref()
                .map(|l| format!(":{}", l.name))
                .unwrap_or_default(),
        ),
        Op::RelCount { ty, .. } => (
            "RelationshipCountFromCountStore".into(),
            ty.as_ref()
                .map(|t| format!(":{}", t.name))
                .unwrap_or_default(),
        ),
        Op::ChainCount { spec, .. } => ("FactorizedCount".into(), chain_details(spec)),
        Op::Expand { spec, .. } => expand_details(spec),
        Op::VarExpand { spec, .. } => var_expand_details(spec),
        Op::ShortestPath { spec, .. } => (
            match (spec.gql, spec.into) {
                // A selector over one quantified relationship, on the visited-set search.
                (true, true) => "StatefulShortestPath(Into)",
                (true, false) => "StatefulShortestPath(All)",
                (false, _) if spec.all => "AllShortestPaths",
                (false, _) => "ShortestPath",
            }
            .into(),
            types(&spec.types),
        ),
        Op::PathSearch { spec, .. } => (
            match spec.selection {
                crate::ir::Selection::All => "Repeat(Trail)",
                _ => "StatefulShortestPath",
            }
            .into(),
            format!("{} step(s)", spec.steps.len()),
        ),
        Op::Filter { .. } => ("Filter".into(), String::new()),
        Op::Project { items, .. } => ("Projection".into(), format!("{} item(s)", items.len())),
        Op::Aggregate { keys, aggs, .. } => (
            "EagerAggregation".into(),
            format!(
                "{} key(s), {}",
                keys.len(),
                aggs.iter()
                    .map(|a| a.kind.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        Op::Distinct { .. } => ("Distinct".into(), String::new()),
        Op::Sort { keys, .. } => ("Sort".into(), format!("{} key(s)", keys.len())),
        Op::Top { keys, .. } => ("Top".into(), format!("{} key(s)", keys.len())),
        Op::Skip { .. } => ("Skip".into(), String::new()),
        Op::Limit { .. } => ("Limit".into(), String::new()),
        Op::Unwind { .. } => ("Unwind".into(), String::new()),
        Op::LoadCsv { spec, .. } => (
            "LoadCSV".into(),
            if spec.headers {
                "WITH HEADERS".into()
            } else {
                String::new()
            },
        ),
        Op::Optional { .. } => ("Optional".into(), String::new()),
        Op::SemiApply { negated, .. } => either(*negated, "AntiSemiApply", "SemiApply"),
        Op::Apply { .. } => ("Apply".into(), String::new()),
        Op::UnitApply { .. } => ("SubqueryForeach".into(), String::new()),
        Op::Transactions { batch, .. } => either(
            batch.returned.is_some(),
            "TransactionApply",
            "TransactionForeach",
        ),
        Op::Foreach { .. } => ("Foreach".into(), String::new()),
        Op::Union { .. } => ("Union".into(), String::new()),
        Op::Eager { .. } => ("Eager".into(), String::new()),
        Op::Create { steps, .. } => ("Create".into(), format!("{} element(s)", steps.len())),
        Op::Merge { .. } => ("Merge".into(), String::new()),
        Op::Set { ops, .. } => ("SetProperties".into(), format!("{} item(s)", ops.len())),
        Op::Delete { detach, .. } => either(*detach, "DetachDelete", "Delete"),
        Op::ProcedureCall { procedure, .. } => {
            ("ProcedureCall".into(), procedure.signature().name.clone())
        }
        Op::Command { command, .. } => (command_name(command).into(), String::new()),
    }
}

/// The counted chain as a pattern: `(:?)-[:T]->()`, `:?` marking a node with a predicate and
/// `group` the node the grouping keys read.
fn chain_details(spec: &ChainCountSpec) -> String {
    let node = |i: usize| {
        let filtered = spec.nodes.get(i).is_some_and(|n| n.predicate.is_some());
        let grouped = spec.group.as_ref().is_some_and(|g| g.at == i);
        match (filtered, grouped) {
            (true, true) => "(group:?)",
            (false, true) => "(group)",
            (true, false) => "(:?)",
            (false, false) => "()",
        }
    };
    let hops = spec.hops.iter().enumerate().map(|(i, hop)| {
        let (left, right) = dir_arrow(hop.dir);
        let length = match (hop.min, hop.max) {
            (1, 1) => String::new(),
            (min, max) => format!("*{min}..{max}"),
        };
        format!(
            "{left}[{}{length}]{right}{}",
            types(&hop.types),
            node(i + 1)
        )
    });
    std::iter::once(node(0).to_string()).chain(hops).collect()
}

/// An operator named one way or the other, with no details.
fn either(first: bool, name: &str, otherwise: &str) -> (String, String) {
    let name = if first { name } else { otherwise };
    (name.to_string(), String::new())
}

/// Neo4j's names: `NodeIndexSeek :L(a, b)`, `DirectedRelationshipIndexSeek` or
/// `UndirectedRelationshipIndexSeek` `(a)-[r:T(p)]->(b)`; through a text or point index,
/// `...IndexContainsScan`, `...IndexEndsWithScan` and `...IndexSeekByRange` (a prefix or a
/// spatial predicate) as Neo4j names them, the index's kind leading the details.
fn schema_seek_details(spec: &IndexSeekSpec) -> (String, String) {
    let keys = spec
        .keys
        .iter()
        .map(|k| &*k.name)
        .collect::<Vec<_>>()
        .join(", ");
    let special = matches!(spec.kind, IndexKind::Text | IndexKind::Point);
    let suffix = match &spec.seek {
        Seek::Contains(_) => "IndexContainsScan",
        Seek::EndsWith(_) => "IndexEndsWithScan",
        Seek::Prefix(_) | Seek::Distance { .. } | Seek::BBox { .. } if special => {
            "IndexSeekByRange"
        }
        _ => "IndexSeek",
    };
    let kind = match spec.kind {
        IndexKind::Text => "TEXT INDEX ",
        IndexKind::Point => "POINT INDEX ",
        _ => "",
    };
    match &spec.target {
        SeekTarget::Node { .. } => (
            format!("Node{suffix}"),
            format!(
                "{kind}:{}({keys}) {}",
                spec.token.name,
                seek_kind(&spec.seek)
            ),
        ),
        SeekTarget::Rel { dir, .. } => {
            let (l, r) = dir_arrow(*dir);
            let direction = if *dir == Direction::Both {
                "Undirected"
            } else {
                "Directed"
            };
            (
                format!("{direction}Relationship{suffix}"),
                format!(
                    "{kind}(){l}[:{}({keys})]{r}() {}",
                    spec.token.name,
                    seek_kind(&spec.seek)
                ),
            )
        }
    }
}

fn seek_kind(seek: &Seek) -> &'static str {
    match seek {
        Seek::Eq(_) => "=",
        Seek::In(_) => "IN",
        Seek::Range { .. } => "range",
        Seek::Prefix(_) => "STARTS WITH",
        Seek::Contains(_) => "CONTAINS",
        Seek::EndsWith(_) => "ENDS WITH",
        Seek::Distance { .. } => "point.distance",
        Seek::BBox { .. } => "point.withinBBox",
    }
}

fn expand_details(spec: &ExpandSpec) -> (String, String) {
    let (l, r) = dir_arrow(spec.dir);
    (
        if spec.into {
            "Expand(Into)"
        } else {
            "Expand(All)"
        }
        .into(),
        format!("(){l}[{}]{r}()", types(&spec.types)),
    )
}

fn var_expand_details(spec: &VarExpandSpec) -> (String, String) {
    let (l, r) = dir_arrow(spec.dir);
    let max = if spec.max == u32::MAX {
        String::new()
    } else {
        spec.max.to_string()
    };
    (
        if spec.into {
            "VarLengthExpand(Into)"
        } else {
            "VarLengthExpand(All)"
        }
        .into(),
        format!("(){l}[{}*{}..{max}]{r}()", types(&spec.types), spec.min),
    )
}

fn command_name(command: &Command) -> &'static str {
    match command {
        Command::CreateIndex { kind, .. } if kind.is_constraint() => "CreateConstraint",
        Command::CreatePropertyConstraint { .. } => "CreateConstraint",
        Command::CreateIndex { .. } | Command::CreateFulltextIndex { .. } => "CreateIndex",
        Command::CreateVectorIndex(_) => "CreateIndex",
        Command::Drop {
            constraint: false, ..
        } => "DropIndex",
        Command::Drop {
            constraint: true, ..
        } => "DropConstraint",
        Command::ShowIndexes {
            constraints: false, ..
        } => "ShowIndexes",
        Command::ShowIndexes {
            constraints: true, ..
        } => "ShowConstraints",
        Command::ShowTransactions(_) => "ShowTransactions",
        Command::TerminateTransactions(_) => "TerminateTransactions",
        Command::Show(table) => table.operator_name(),
        Command::Admin { .. } | Command::Database { .. } => "AdministrationCommand",
    }
}

/// Describes a query's plan as Neo4j shows it: under a `ProduceResults` root naming the
/// columns when the query returns any (the operator that hands rows to the client; its rows
/// are the rows returned). With profile figures (indexed by operator id), each operator's rows
/// and its own db hits and time (its children's subtracted).
pub(crate) fn describe_query(
    root: &PlanNode,
    columns: &[Arc<str>],
    profile: Option<&[OperatorProfile]>,
) -> PlanDescription {
    let plan = describe(root, profile);
    if columns.is_empty() {
        return plan;
    }
    let details = columns
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    PlanDescription {
        operator: "ProduceResults".into(),
        details,
        identifiers: plan.identifiers.clone(),
        estimated_rows: plan.estimated_rows,
        profile: plan.profile.map(|p| OperatorProfile {
            rows: p.rows,
            ..OperatorProfile::default()
        }),
        children: vec![plan],
    }
}

/// Describes one operator and those below it.
pub(crate) fn describe(node: &PlanNode, profile: Option<&[OperatorProfile]>) -> PlanDescription {
    let (operator, details) = name_and_details(&node.op);
    let children: Vec<PlanDescription> = node
        .op
        .children()
        .into_iter()
        .rev()
        .map(|c| describe(c, profile))
        .collect();
    let profile = profile.map(|p| {
        let own = p.get(node.id).copied().unwrap_or_default();
        let (child_time, child_hits) = node
            .op
            .children()
            .iter()
            .filter_map(|c| p.get(c.id))
            .fold((Duration::ZERO, 0u64), |(t, h), c| {
                (t + c.time, h + c.db_hits)
            });
        OperatorProfile {
            rows: own.rows,
            db_hits: own.db_hits.saturating_sub(child_hits),
            time: own.time.saturating_sub(child_time),
        }
    });
    PlanDescription {
        operator,
        details,
        identifiers: node.vars.clone(),
        estimated_rows: node.est_rows,
        profile,
        children,
    }
}
