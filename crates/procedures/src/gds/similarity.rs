//! `gds.nodeSimilarity.stream` and `.stats` (Jaccard similarity of nodes' out-neighbour sets)
//! and `gds.knn.stream` and `.stats` (similarity of node properties): each node's `topK` most
//! similar others.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_algorithms::similarity::{self, Feature, Metric, SimilarityConfig};
use quiver_engine::Result;
use quiver_engine::procedures::{FieldType, ProcedureContext};
use quiver_value::Value;

use super::catalog::{Catalog, Projection, graph_name};
use super::config::{COMMON, Config, controlled, failed};
use super::distribution;

const KEYS: &[&str] = &["topK", "topN", "similarityCutoff", "degreeCutoff"];

/// The modes of the similarity procedures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PairMode {
    /// A row per pair.
    Stream,
    /// The summary.
    Stats,
    /// A relationship per pair, written to the store, and the summary.
    Write,
}

impl PairMode {
    pub(crate) const ALL: [PairMode; 3] = [PairMode::Stream, PairMode::Stats, PairMode::Write];

    pub(crate) fn name(self) -> &'static str {
        match self {
            PairMode::Stream => "stream",
            PairMode::Stats => "stats",
            PairMode::Write => "write",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            PairMode::Write => &["writeRelationshipType", "writeProperty", "writeConcurrency"],
            PairMode::Stream | PairMode::Stats => &[],
        }
    }
}

/// Where a `write` puts the pairs: relationship type, property, concurrency.
struct Target {
    rel_type: String,
    property: String,
    concurrency: usize,
}

fn target(mode: PairMode, config: &Config<'_>) -> Result<Option<Target>> {
    if mode != PairMode::Write {
        return Ok(None);
    }
    Ok(Some(Target {
        rel_type: config.required_text("writeRelationshipType")?,
        property: config.required_text("writeProperty")?,
        concurrency: config.concurrency("writeConcurrency")?,
    }))
}

/// Writes the pairs (as node ids) when asked; the milliseconds it took.
fn write_pairs(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    target: Option<&Target>,
    pairs: &[(u64, u64, f64)],
) -> Result<Option<Value>> {
    let Some(t) = target else { return Ok(None) };
    let started = Instant::now();
    super::write::relationships(
        ctx,
        procedure,
        t.concurrency,
        pairs,
        &t.rel_type,
        &t.property,
    )?;
    Ok(Some(Value::Int(started.elapsed().as_millis() as i64)))
}

/// The stream's columns.
pub(crate) fn stream_columns() -> Vec<(&'static str, FieldType)> {
    vec![
        ("node1", FieldType::Integer),
        ("node2", FieldType::Integer),
        ("similarity", FieldType::Float),
    ]
}

/// The columns of node similarity in `mode`.
pub(crate) fn columns(mode: PairMode) -> Vec<(&'static str, FieldType)> {
    use FieldType::{Integer, Map};
    match mode {
        PairMode::Stream => stream_columns(),
        PairMode::Stats => vec![
            ("nodesCompared", Integer),
            ("similarityPairs", Integer),
            ("similarityDistribution", Map),
            ("preProcessingMillis", Integer),
            ("computeMillis", Integer),
            ("postProcessingMillis", Integer),
            ("configuration", Map),
        ],
        PairMode::Write => vec![
            ("nodesCompared", Integer),
            ("relationshipsWritten", Integer),
            ("similarityDistribution", Map),
            ("preProcessingMillis", Integer),
            ("computeMillis", Integer),
            ("writeMillis", Integer),
            ("postProcessingMillis", Integer),
            ("configuration", Map),
        ],
    }
}

/// Runs node similarity: the stream's rows, or (`stats`) the one summary row.
pub(crate) fn node_similarity(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    mode: PairMode,
) -> Result<Vec<Vec<Value>>> {
    let name = format!("gds.nodeSimilarity.{}", mode.name());
    let call = PairCall::open(catalog, ctx, args, mode, &name, KEYS)?;
    let (procedure, config) = (call.procedure, &call.config);
    let settings = SimilarityConfig {
        top_k: config.int("topK", 10, 1, i64::from(i32::MAX))? as usize,
        similarity_cutoff: config.float("similarityCutoff", 1e-42, 0.0, 1.0, false)?,
        degree_cutoff: config.int("degreeCutoff", 1, 1, i64::from(i32::MAX))? as usize,
    };
    let top_n = config.int("topN", 0, 0, i64::from(i32::MAX))? as usize;
    let graph = call.projection.graph_for(procedure, config)?;
    let pre = call.started.elapsed();
    let computing = Instant::now();
    let mut pairs = controlled(ctx, procedure, config, |control| {
        similarity::node_similarity(&graph, &settings, control)
    })?;
    if top_n > 0 {
        pairs.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(&b.0)).then(a.1.cmp(&b.1)));
        pairs.truncate(top_n);
    }
    let compute = computing.elapsed();
    call.finish(ctx, &pairs, (pre, compute), || {
        let mut compared: Vec<u32> = pairs.iter().flat_map(|p| [p.0, p.1]).collect();
        compared.sort_unstable();
        compared.dedup();
        vec![
            Value::Int(compared.len() as i64),
            Value::Int(pairs.len() as i64),
        ]
    })
}

const KNN_KEYS: &[&str] = &[
    "nodeProperties",
    "topK",
    "sampleRate",
    "deltaThreshold",
    "maxIterations",
    "randomJoins",
    "initialSampler",
    "randomSeed",
    "similarityCutoff",
    "perturbationRate",
];

/// The columns of KNN in `mode`.
pub(crate) fn knn_columns(mode: PairMode) -> Vec<(&'static str, FieldType)> {
    use FieldType::{Boolean, Integer, Map};
    if mode == PairMode::Stream {
        return stream_columns();
    }
    let pairs = if mode == PairMode::Write {
        "relationshipsWritten"
    } else {
        "similarityPairs"
    };
    let mut columns = vec![
        ("nodesCompared", Integer),
        ("nodePairsConsidered", Integer),
        ("ranIterations", Integer),
        ("didConverge", Boolean),
        (pairs, Integer),
        ("similarityDistribution", Map),
        ("preProcessingMillis", Integer),
        ("computeMillis", Integer),
    ];
    if mode == PairMode::Write {
        columns.push(("writeMillis", Integer));
    }
    columns.extend([("postProcessingMillis", Integer), ("configuration", Map)]);
    columns
}

/// The features `nodeProperties` names: a property, a list of them, or a map of property to
/// metric (`COSINE`, `EUCLIDEAN`, `PEARSON`; numbers are compared by `1 / (1 + |a - b|)`).
fn features(
    procedure: &str,
    projection: &super::catalog::Projection,
    config: &Config<'_>,
) -> Result<Vec<Feature>> {
    let named: Vec<(String, Option<String>)> = match config.value("nodeProperties") {
        None => {
            return Err(failed(
                procedure,
                "No value specified for the mandatory configuration parameter `nodeProperties`",
            ));
        }
        Some(Value::String(s)) => vec![(s.to_string(), None)],
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok((s.to_string(), None)),
                other => Err(failed(
                    procedure,
                    format!(
                        "`nodeProperties` must name properties, got {}",
                        other.value_type().name()
                    ),
                )),
            })
            .collect::<Result<_>>()?,
        Some(Value::Map(m)) => m
            .iter()
            .map(|(k, v)| match v {
                Value::String(metric) => Ok((k.to_string(), Some(metric.to_string()))),
                other => Err(failed(
                    procedure,
                    format!(
                        "The metric of `{k}` must be a string, got {}",
                        other.value_type().name()
                    ),
                )),
            })
            .collect::<Result<_>>()?,
        Some(other) => {
            return Err(failed(
                procedure,
                format!(
                    "`nodeProperties` must be a string, list or map, got {}",
                    other.value_type().name()
                ),
            ));
        }
    };
    named
        .into_iter()
        .map(|(name, metric)| {
            let column = projection.property(&name).ok_or_else(|| {
                failed(
                    procedure,
                    format!("The property `{name}` has not been loaded. Project it as a node property."),
                )
            })?;
            let n = projection.ids.len();
            let mut values = Vec::with_capacity(n);
            let mut lists = false;
            for i in 0..n {
                match column.get(i) {
                    Value::Int(x) => values.push(vec![x as f64]),
                    Value::Float(x) => values.push(vec![x]),
                    Value::List(items) => {
                        lists = true;
                        let numbers = items
                            .iter()
                            .map(|v| match v {
                                Value::Int(x) => Some(*x as f64),
                                Value::Float(x) => Some(*x),
                                _ => None,
                            })
                            .collect::<Option<Vec<f64>>>()
                            .ok_or_else(|| {
                                failed(procedure, format!("Property `{name}` holds a list that is not all numbers"))
                            })?;
                        values.push(numbers);
                    }
                    _ => values.push(vec![f64::NAN]),
                }
            }
            let metric = match (metric.as_deref().map(str::to_ascii_uppercase).as_deref(), lists) {
                (None | Some("DEFAULT"), false) => Metric::Absolute,
                (None | Some("DEFAULT" | "COSINE"), true) => Metric::Cosine,
                (Some("EUCLIDEAN"), true) => Metric::Euclidean,
                (Some("PEARSON"), true) => Metric::Pearson,
                (Some(other), _) => {
                    return Err(failed(
                        procedure,
                        format!("The metric `{other}` is not supported for property `{name}`: numbers take DEFAULT, lists COSINE, EUCLIDEAN or PEARSON"),
                    ));
                }
            };
            Ok(Feature { values, metric })
        })
        .collect()
}

/// `gds.knn.stream` and `gds.knn.stats`: each node's `topK` most similar nodes by its
/// properties, compared exactly (the sampling keys are checked and have nothing to sample).
pub(crate) fn knn(
    catalog: &Catalog,
    ctx: &ProcedureContext<'_>,
    args: &[Value],
    mode: PairMode,
) -> Result<Vec<Vec<Value>>> {
    let name = format!("gds.knn.{}", mode.name());
    let call = PairCall::open(catalog, ctx, args, mode, &name, KNN_KEYS)?;
    let (procedure, config) = (call.procedure, &call.config);
    let _ = call.projection.graph_for(procedure, config)?;
    let top_k = config.int("topK", 10, 1, i64::from(i32::MAX))? as usize;
    let cutoff = config.float("similarityCutoff", 0.0, 0.0, 1.0, false)?;
    let _ = config.float("sampleRate", 0.5, 0.0, 1.0, false)?;
    let _ = config.float("deltaThreshold", 0.001, 0.0, 1.0, false)?;
    let _ = config.int("maxIterations", 100, 1, i64::from(i32::MAX))?;
    let _ = config.int("randomJoins", 10, 0, i64::from(i32::MAX))?;
    let _ = config.float("perturbationRate", 0.0, 0.0, 1.0, false)?;
    let _ = config.int("randomSeed", 0, i64::MIN, i64::MAX)?;
    let _ = config.text("initialSampler")?;
    let features = features(procedure, &call.projection, config)?;
    let pre = call.started.elapsed();
    let computing = Instant::now();
    let pairs = controlled(ctx, procedure, config, |control| {
        similarity::knn(&features, top_k, cutoff, control)
    })?;
    let compute = computing.elapsed();
    let n = call.projection.ids.len() as i64;
    call.finish(ctx, &pairs, (pre, compute), || {
        vec![
            Value::Int(n),
            Value::Int(n * (n - 1).max(0)),
            Value::Int(1),
            Value::Bool(true),
            Value::Int(pairs.len() as i64),
        ]
    })
}

/// One call of a similarity procedure: what every mode reads before computing, and when the
/// call began.
struct PairCall<'a> {
    procedure: &'a str,
    mode: PairMode,
    started: Instant,
    config: Config<'a>,
    target: Option<Target>,
    projection: Arc<Projection>,
}

impl<'a> PairCall<'a> {
    /// Reads the configuration (the common keys, the algorithm's `keys` and the mode's), where
    /// a `write` puts the pairs, and the projection named.
    fn open(
        catalog: &Catalog,
        ctx: &ProcedureContext<'_>,
        args: &[Value],
        mode: PairMode,
        procedure: &'a str,
        keys: &[&str],
    ) -> Result<PairCall<'a>> {
        let started = Instant::now();
        let config = Config::new(procedure, &args[1], &[COMMON, keys, mode.keys()])?;
        let target = target(mode, &config)?;
        let projection = catalog.get(ctx, procedure, graph_name(procedure, &args[0])?)?;
        Ok(PairCall {
            procedure,
            mode,
            started,
            config,
            target,
            projection,
        })
    }

    /// The pairs computed (projection indices and scores) after `pre` of setup and `compute`
    /// of work: the stream's rows, or the pairs written when asked and the summary row: the
    /// algorithm's `leading` columns (worked out after the writing, as post-processing), the
    /// scores' distribution, the times, the writing's, and the configuration.
    fn finish(
        self,
        ctx: &ProcedureContext<'_>,
        pairs: &[(u32, u32, f64)],
        (pre, compute): (Duration, Duration),
        leading: impl FnOnce() -> Vec<Value>,
    ) -> Result<Vec<Vec<Value>>> {
        let by_id = by_node_id(pairs, &self.projection.ids);
        if self.mode == PairMode::Stream {
            return Ok(stream_rows(&by_id));
        }
        let written = write_pairs(ctx, self.procedure, self.target.as_ref(), &by_id)?;
        let posting = Instant::now();
        let mut row = leading();
        let mut scores: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        let millis = |d: Duration| Value::Int(d.as_millis() as i64);
        row.extend([distribution(&mut scores), millis(pre), millis(compute)]);
        row.extend(written);
        row.extend([millis(posting.elapsed()), self.config.echo()]);
        Ok(vec![row])
    }
}

/// Pairs of projection indices as pairs of node ids, with their scores.
fn by_node_id(pairs: &[(u32, u32, f64)], ids: &[u64]) -> Vec<(u64, u64, f64)> {
    pairs
        .iter()
        .map(|(a, b, s)| (ids[*a as usize], ids[*b as usize], *s))
        .collect()
}

/// The `stream` mode's rows: `node1`, `node2`, `similarity`.
fn stream_rows(by_id: &[(u64, u64, f64)]) -> Vec<Vec<Value>> {
    by_id
        .iter()
        .map(|(a, b, s)| {
            vec![
                Value::Int(*a as i64),
                Value::Int(*b as i64),
                Value::Float(*s),
            ]
        })
        .collect()
}
