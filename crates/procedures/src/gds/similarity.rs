//! `gds.nodeSimilarity.stream` and `gds.nodeSimilarity.stats`: Jaccard similarity of nodes'
//! out-neighbour sets, each node's `topK` most similar others.

use std::time::Instant;

use quiver_algorithms::similarity::{self, SimilarityConfig};
use quiver_algorithms::{Control, Interrupted};
use quiver_engine::Result;
use quiver_engine::procedures::{FieldType, ProcedureContext};
use quiver_value::Value;

use super::catalog::{Catalog, graph_name};
use super::config::{COMMON, Config, failed};
use super::distribution;

const KEYS: &[&str] = &["topK", "topN", "similarityCutoff", "degreeCutoff"];

/// The stream's columns.
pub(crate) fn stream_columns() -> Vec<(&'static str, FieldType)> {
    vec![
        ("node1", FieldType::Integer),
        ("node2", FieldType::Integer),
        ("similarity", FieldType::Float),
    ]
}

/// The stats' columns.
pub(crate) fn stats_columns() -> Vec<(&'static str, FieldType)> {
    use FieldType::{Integer, Map};
    vec![
        ("nodesCompared", Integer),
        ("similarityPairs", Integer),
        ("similarityDistribution", Map),
        ("preProcessingMillis", Integer),
        ("computeMillis", Integer),
        ("postProcessingMillis", Integer),
        ("configuration", Map),
    ]
}

/// Runs node similarity: the stream's rows, or (`stats`) the one summary row.
pub(crate) fn node_similarity(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    stats: bool,
) -> Result<Vec<Vec<Value>>> {
    let procedure = if stats {
        "gds.nodeSimilarity.stats"
    } else {
        "gds.nodeSimilarity.stream"
    };
    let started = Instant::now();
    let config = Config::new(procedure, &args[1], &[COMMON, KEYS])?;
    let projection = catalog.get(ctx, procedure, graph_name(procedure, &args[0])?)?;
    let settings = SimilarityConfig {
        top_k: config.int("topK", 10, 1, i64::from(i32::MAX))? as usize,
        similarity_cutoff: config.float("similarityCutoff", 1e-42, 0.0, 1.0, false)?,
        degree_cutoff: config.int("degreeCutoff", 1, 1, i64::from(i32::MAX))? as usize,
    };
    let top_n = config.int("topN", 0, 0, i64::from(i32::MAX))? as usize;
    let concurrency = config.concurrency("concurrency")?;
    let workers = ctx.workers(procedure)?;
    let check = || workers.check().map_err(|_| Interrupted);
    let control = Control::new(concurrency, &check);
    let graph = projection.graph_for(procedure, &config)?;
    let pre = started.elapsed();
    let computing = Instant::now();
    let mut pairs = similarity::node_similarity(&graph, &settings, &control).map_err(|_| {
        match workers.check() {
            Err(e) => e,
            Ok(()) => failed(procedure, "the computation was interrupted"),
        }
    })?;
    if top_n > 0 {
        pairs.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
        pairs.truncate(top_n);
    }
    let compute = computing.elapsed();
    let ids = &projection.ids;
    if !stats {
        return Ok(pairs
            .iter()
            .map(|(a, b, s)| {
                vec![
                    Value::Int(ids[*a as usize] as i64),
                    Value::Int(ids[*b as usize] as i64),
                    Value::Float(*s),
                ]
            })
            .collect());
    }
    let posting = Instant::now();
    let mut compared: Vec<u32> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
    compared.sort_unstable();
    compared.dedup();
    let mut scores: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    Ok(vec![vec![
        Value::Int(compared.len() as i64),
        Value::Int(pairs.len() as i64),
        distribution(&mut scores),
        Value::Int(pre.as_millis() as i64),
        Value::Int(compute.as_millis() as i64),
        Value::Int(posting.elapsed().as_millis() as i64),
        config.echo(),
    ]])
}
