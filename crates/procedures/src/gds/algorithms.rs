//! The node algorithms, each one table entry ([`Algorithm`]) run in GDS's execution modes:
//! `stream` (a row per node), `stats` (the summary), `mutate` (a node property column added
//! to the projection), `write` (a property written to the store in batches, each its own
//! committed transaction) and `estimate` (what a run would take, without running).

use std::sync::Arc;
use std::time::Instant;

use quiver_algorithms::centrality::{self, Orientation, RankConfig};
use quiver_algorithms::community::{self, LeidenConfig, LouvainConfig};
use quiver_algorithms::embeddings::{self, FastRpConfig};
use quiver_algorithms::{Control, Graph, Interrupted, components, triangles};
use quiver_engine::Result;
use quiver_engine::procedures::{FieldType, ProcedureContext};
use quiver_value::{Map, Value};

use super::catalog::{Catalog, Column, Projection};
use super::config::{COMMON, Config, failed};
use super::distribution;

/// What an algorithm computed: one value per node, optional further stream columns per node,
/// and its summary columns' values.
pub(crate) struct Output {
    values: Values,
    extra: Vec<Vec<Value>>,
    summary: Vec<Value>,
}

/// One value per node, by index.
pub(crate) enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
    /// A list of floats per node (embeddings).
    Lists(Vec<Vec<f64>>),
}

impl Values {
    fn get(&self, i: usize) -> Value {
        match self {
            Values::Float(v) => Value::Float(v[i]),
            Values::Int(v) => Value::Int(v[i]),
            Values::Lists(v) => float_list(&v[i]),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::Lists(v) => v.len(),
        }
    }

    fn column(&self) -> Column {
        match self {
            Values::Float(v) => Column::Float(v.clone()),
            Values::Int(v) => Column::Int(v.clone()),
            Values::Lists(v) => Column::Lists(v.iter().map(|l| float_list(l)).collect()),
        }
    }
}

fn float_list(values: &[f64]) -> Value {
    Value::from(values.iter().map(|x| Value::Float(*x)).collect::<Vec<_>>())
}

/// What a computation reads: the graph (weighted when the call named the projection's
/// relationship property), the projection, the configuration and the control.
pub(crate) struct Input<'a> {
    graph: Graph,
    projection: &'a Projection,
    config: &'a Config<'a>,
    control: &'a Control<'a>,
    stopped: &'a dyn Fn(Interrupted) -> quiver_engine::Error,
    procedure: &'a str,
}

impl Input<'_> {
    /// The seeds `seedProperty` names: each node's integer seed, `None` for a node without
    /// one; `None` when the key is absent.
    fn seeds(&self) -> Result<Option<Vec<Option<i64>>>> {
        let Some(name) = self.config.text("seedProperty")? else {
            return Ok(None);
        };
        let column = self.projection.property(&name).ok_or_else(|| {
            failed(
                self.procedure,
                format!("The seed property `{name}` is not a node property of the projection."),
            )
        })?;
        let seeds = (0..self.projection.ids.len())
            .map(|i| match column.get(i) {
                Value::Int(v) if v != i64::MIN => Ok(Some(v)),
                Value::Float(v) if v.is_finite() && v.fract() == 0.0 => Ok(Some(v as i64)),
                Value::Int(_) | Value::Null => Ok(None),
                Value::Float(v) if v.is_nan() => Ok(None),
                other => Err(failed(
                    self.procedure,
                    format!("The seed property `{name}` must hold integers, got {other:?}"),
                )),
            })
            .collect::<Result<Vec<_>>>()?;
        if self.config.bool("consecutiveIds", false)? {
            return Err(failed(
                self.procedure,
                "Seeding and the `consecutiveIds` option cannot be used together.",
            ));
        }
        Ok(Some(seeds))
    }

    /// Names seeded communities (by index of their smallest member) after the smallest seed
    /// among their members, and the others after numbers above every seed, in order.
    fn seeded_ids(named_by_index: &[u32], seeds: &[Option<i64>]) -> Vec<i64> {
        let mut seed_of: std::collections::HashMap<u32, i64> = std::collections::HashMap::new();
        for (c, s) in named_by_index.iter().zip(seeds) {
            if let Some(s) = s {
                let e = seed_of.entry(*c).or_insert(*s);
                *e = (*e).min(*s);
            }
        }
        let mut next = seeds
            .iter()
            .flatten()
            .copied()
            .max()
            .map_or(0, |m| m.saturating_add(1));
        let mut fresh: std::collections::HashMap<u32, i64> = std::collections::HashMap::new();
        named_by_index
            .iter()
            .map(|c| match seed_of.get(c) {
                Some(s) => *s,
                None => *fresh.entry(*c).or_insert_with(|| {
                    next = next.saturating_add(1);
                    next - 1
                }),
            })
            .collect()
    }

    /// The error a kernel's interruption is reported as: the caller's cancellation or timeout.
    fn stop(&self, i: Interrupted) -> quiver_engine::Error {
        (self.stopped)(i)
    }

    /// Names communities (by index of their smallest member) after that member's node id,
    /// or `0..count` with `consecutiveIds`.
    fn community_ids(&self, named_by_index: &[u32], consecutive: bool) -> Vec<i64> {
        if consecutive {
            components::consecutive(named_by_index)
                .into_iter()
                .map(i64::from)
                .collect()
        } else {
            named_by_index
                .iter()
                .map(|c| self.projection.ids[*c as usize] as i64)
                .collect()
        }
    }
}

/// Which summary of all the values the stats columns carry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Distribution {
    /// `centralityDistribution`: of the scores.
    Centrality,
    /// `communityDistribution` / `componentDistribution`: of the community sizes.
    Sizes(&'static str),
    None,
}

/// A node algorithm of the `gds` namespace.
pub(crate) struct Algorithm {
    /// The name after `gds.`, such as `pageRank`.
    pub(crate) name: &'static str,
    description: &'static str,
    /// Its own configuration keys (beyond [`COMMON`] and the mode's).
    keys: &'static [&'static str],
    /// Whether it takes `relationshipWeightProperty`.
    weighted: bool,
    /// Whether it needs every projected relationship type undirected.
    undirected_only: bool,
    /// The stream column of the value per node, and its type.
    column: (&'static str, FieldType),
    /// Further stream columns per node.
    extra: Vec<(&'static str, FieldType)>,
    /// Its own summary columns, in order.
    summary: Vec<(&'static str, FieldType)>,
    distribution: Distribution,
    /// The bytes a run holds per node, beyond the projection (for `estimate`).
    bytes_per_node: usize,
    compute: fn(&Input<'_>) -> Result<Output>,
}

/// GDS's execution modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Stream,
    Stats,
    Mutate,
    Write,
}

impl Mode {
    pub(crate) const ALL: [Mode; 4] = [Mode::Stream, Mode::Stats, Mode::Mutate, Mode::Write];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Stream => "stream",
            Mode::Stats => "stats",
            Mode::Mutate => "mutate",
            Mode::Write => "write",
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Mode::Stream | Mode::Stats => &[],
            Mode::Mutate => &["mutateProperty"],
            Mode::Write => &["writeProperty", "writeConcurrency"],
        }
    }
}

use FieldType::{Boolean, Float, Integer, List, Map as MapType};

const RANK_KEYS: &[&str] = &[
    "dampingFactor",
    "maxIterations",
    "tolerance",
    "sourceNodes",
    "scaler",
];
fn rank_summary() -> Vec<(&'static str, FieldType)> {
    vec![("ranIterations", Integer), ("didConverge", Boolean)]
}

/// The summary columns Louvain and Leiden share, then `more`.
fn community_summary(more: Vec<(&'static str, FieldType)>) -> Vec<(&'static str, FieldType)> {
    let mut columns = vec![
        ("communityCount", Integer),
        ("ranLevels", Integer),
        ("modularity", Float),
        ("modularities", List(Box::new(Float))),
    ];
    columns.extend(more);
    columns
}

/// Every node algorithm.
#[expect(clippy::too_many_lines, reason = "a table, one entry per algorithm")]
pub(crate) fn algorithms() -> Vec<Algorithm> {
    vec![
        Algorithm {
            name: "pageRank",
            description: "Page Rank is an algorithm that measures the transitive influence or connectivity of nodes.",
            keys: RANK_KEYS,
            weighted: true,
            undirected_only: false,
            column: ("score", Float),
            extra: vec![],
            summary: rank_summary(),
            distribution: Distribution::Centrality,
            bytes_per_node: 32,
            compute: |input| rank(input, false),
        },
        Algorithm {
            name: "articleRank",
            description: "Article Rank is a variant of the Page Rank algorithm, which measures the transitive influence or connectivity of nodes.",
            keys: RANK_KEYS,
            weighted: true,
            undirected_only: false,
            column: ("score", Float),
            extra: vec![],
            summary: rank_summary(),
            distribution: Distribution::Centrality,
            bytes_per_node: 32,
            compute: |input| rank(input, true),
        },
        Algorithm {
            name: "degree",
            description: "Degree centrality measures the number of incoming and outgoing relationships from a node.",
            keys: &["orientation"],
            weighted: true,
            undirected_only: false,
            column: ("score", Float),
            extra: vec![],
            summary: vec![],
            distribution: Distribution::Centrality,
            bytes_per_node: 8,
            compute: degree,
        },
        Algorithm {
            name: "closeness",
            description: "Closeness centrality is a way of detecting nodes that are able to spread information very efficiently through a graph.",
            keys: &["useWassermanFaust"],
            weighted: false,
            undirected_only: false,
            column: ("score", Float),
            extra: vec![],
            summary: vec![],
            distribution: Distribution::Centrality,
            bytes_per_node: 16,
            compute: |input| {
                let wf = input.config.bool("useWassermanFaust", false)?;
                let scores = centrality::closeness(&input.graph, wf, input.control)
                    .map_err(|i| input.stop(i))?;
                Ok(Output {
                    values: Values::Float(scores),
                    extra: Vec::new(),
                    summary: Vec::new(),
                })
            },
        },
        Algorithm {
            name: "betweenness",
            description: "Betweenness centrality measures the relative information flow that passes through a node.",
            keys: &["samplingSize", "samplingSeed"],
            weighted: true,
            undirected_only: false,
            column: ("score", Float),
            extra: vec![],
            summary: vec![],
            distribution: Distribution::Centrality,
            bytes_per_node: 48,
            compute: |input| {
                let n = input.graph.node_count();
                let size = input.config.int("samplingSize", n as i64, 0, i64::MAX)? as usize;
                let seed = input.config.int("samplingSeed", 0, i64::MIN, i64::MAX)? as u64;
                let sources = quiver_algorithms::sample(n, size, seed);
                let scores = centrality::betweenness_from(&input.graph, &sources, input.control)
                    .map_err(|i| input.stop(i))?;
                Ok(Output {
                    values: Values::Float(scores),
                    extra: Vec::new(),
                    summary: Vec::new(),
                })
            },
        },
        Algorithm {
            name: "wcc",
            description: "The WCC algorithm finds sets of connected nodes in an undirected graph, where all nodes in the same set form a connected component.",
            keys: &["threshold", "consecutiveIds", "seedProperty"],
            weighted: true,
            undirected_only: false,
            column: ("componentId", Integer),
            extra: vec![],
            summary: vec![("componentCount", Integer)],
            distribution: Distribution::Sizes("componentDistribution"),
            bytes_per_node: 8,
            compute: |input| {
                let threshold = if input.config.value("threshold").is_some() {
                    Some(
                        input
                            .config
                            .float("threshold", 0.0, f64::MIN, f64::MAX, false)?,
                    )
                } else {
                    None
                };
                let seeds = input.seeds()?;
                let consecutive = input.config.bool("consecutiveIds", false)?;
                // Nodes sharing a seed start in one component.
                let mut joined = Vec::new();
                if let Some(seeds) = &seeds {
                    let mut first: std::collections::HashMap<i64, u32> =
                        std::collections::HashMap::new();
                    for (v, s) in seeds.iter().enumerate() {
                        if let Some(s) = s {
                            joined.push((*first.entry(*s).or_insert(v as u32), v as u32));
                        }
                    }
                }
                let named = components::wcc_joined(&input.graph, threshold, &joined, input.control)
                    .map_err(|i| input.stop(i))?;
                let count = components::sizes(&named).len();
                let ids = match &seeds {
                    Some(seeds) => Input::seeded_ids(&named, seeds),
                    None => input.community_ids(&named, consecutive),
                };
                Ok(Output {
                    values: Values::Int(ids),
                    extra: Vec::new(),
                    summary: vec![Value::Int(count as i64)],
                })
            },
        },
        Algorithm {
            name: "scc",
            description: "The SCC algorithm finds sets of connected nodes in an directed graph, where all nodes in the same set form a connected component.",
            keys: &["consecutiveIds"],
            weighted: false,
            undirected_only: false,
            column: ("componentId", Integer),
            extra: vec![],
            summary: vec![("componentCount", Integer)],
            distribution: Distribution::Sizes("componentDistribution"),
            bytes_per_node: 24,
            compute: |input| {
                let consecutive = input.config.bool("consecutiveIds", false)?;
                let named =
                    components::scc(&input.graph, input.control).map_err(|i| input.stop(i))?;
                let count = components::sizes(&named).len();
                Ok(Output {
                    values: Values::Int(input.community_ids(&named, consecutive)),
                    extra: Vec::new(),
                    summary: vec![Value::Int(count as i64)],
                })
            },
        },
        Algorithm {
            name: "triangleCount",
            description: "Triangle counting is a community detection graph algorithm that is used to determine the number of triangles passing through each node in the graph.",
            keys: &["maxDegree"],
            weighted: false,
            undirected_only: true,
            column: ("triangleCount", Integer),
            extra: vec![],
            summary: vec![("globalTriangleCount", Integer), ("nodeCount", Integer)],
            distribution: Distribution::None,
            bytes_per_node: 32,
            compute: |input| {
                let max = input.config.int("maxDegree", i64::MAX, 0, i64::MAX)?;
                let t = triangles::triangles(
                    &input.graph,
                    (max != i64::MAX).then_some(max as u64),
                    input.control,
                )
                .map_err(|i| input.stop(i))?;
                let values = t
                    .per_node
                    .iter()
                    .map(|c| c.map_or(-1, |c| c as i64))
                    .collect();
                Ok(Output {
                    values: Values::Int(values),
                    extra: Vec::new(),
                    summary: vec![
                        Value::Int(t.total as i64),
                        Value::Int(input.graph.node_count() as i64),
                    ],
                })
            },
        },
        Algorithm {
            name: "localClusteringCoefficient",
            description: "The local clustering coefficient is a metric quantifying how connected the neighborhood of a node is.",
            keys: &[],
            weighted: false,
            undirected_only: true,
            column: ("localClusteringCoefficient", Float),
            extra: vec![],
            summary: vec![
                ("averageClusteringCoefficient", Float),
                ("nodeCount", Integer),
            ],
            distribution: Distribution::None,
            bytes_per_node: 40,
            compute: |input| {
                let t = triangles::triangles(&input.graph, None, input.control)
                    .map_err(|i| input.stop(i))?;
                let lcc = triangles::local_clustering(&input.graph, &t, input.control)
                    .map_err(|i| input.stop(i))?;
                let n = lcc.len();
                let average = if n == 0 {
                    0.0
                } else {
                    lcc.iter().sum::<f64>() / n as f64
                };
                Ok(Output {
                    values: Values::Float(lcc),
                    extra: Vec::new(),
                    summary: vec![Value::Float(average), Value::Int(n as i64)],
                })
            },
        },
        Algorithm {
            name: "louvain",
            description: "The Louvain method for community detection is an algorithm for detecting communities in networks.",
            keys: &[
                "maxLevels",
                "maxIterations",
                "tolerance",
                "includeIntermediateCommunities",
                "consecutiveIds",
            ],
            weighted: true,
            undirected_only: false,
            column: ("communityId", Integer),
            extra: vec![("intermediateCommunityIds", List(Box::new(Integer)))],
            summary: community_summary(vec![]),
            distribution: Distribution::Sizes("communityDistribution"),
            bytes_per_node: 64,
            compute: louvain,
        },
        Algorithm {
            name: "leiden",
            description: "Leiden is a community detection algorithm, which guarantees that communities are well connected",
            keys: &[
                "maxLevels",
                "gamma",
                "theta",
                "tolerance",
                "includeIntermediateCommunities",
                "consecutiveIds",
                "randomSeed",
            ],
            weighted: true,
            undirected_only: true,
            column: ("communityId", Integer),
            extra: vec![("intermediateCommunityIds", List(Box::new(Integer)))],
            summary: community_summary(vec![("didConverge", Boolean), ("nodeCount", Integer)]),
            distribution: Distribution::Sizes("communityDistribution"),
            bytes_per_node: 96,
            compute: leiden,
        },
        Algorithm {
            name: "fastRP",
            description: "Random Projection produces node embeddings via the fastrp algorithm",
            keys: &[
                "embeddingDimension",
                "iterationWeights",
                "normalizationStrength",
                "nodeSelfInfluence",
                "randomSeed",
                "featureProperties",
                "propertyRatio",
            ],
            weighted: true,
            undirected_only: false,
            column: ("embedding", List(Box::new(Float))),
            extra: vec![],
            summary: vec![("nodeCount", Integer)],
            distribution: Distribution::None,
            bytes_per_node: 8 * 128 * 3,
            compute: fast_rp,
        },
        Algorithm {
            name: "labelPropagation",
            description: "The Label Propagation algorithm is a fast algorithm for finding communities in a graph.",
            keys: &["maxIterations", "consecutiveIds", "seedProperty"],
            weighted: true,
            undirected_only: false,
            column: ("communityId", Integer),
            extra: vec![],
            summary: vec![
                ("ranIterations", Integer),
                ("didConverge", Boolean),
                ("communityCount", Integer),
            ],
            distribution: Distribution::Sizes("communityDistribution"),
            bytes_per_node: 48,
            compute: |input| {
                let max = input
                    .config
                    .int("maxIterations", 10, 1, i64::from(i32::MAX))?
                    as usize;
                let seeds = input.seeds()?;
                let consecutive = input.config.bool("consecutiveIds", false)?;
                // Seeded nodes start with the label of their seed (the index of its first
                // node), the others with their own.
                let initial: Option<Vec<u32>> = seeds.as_ref().map(|seeds| {
                    let mut first: std::collections::HashMap<i64, u32> =
                        std::collections::HashMap::new();
                    seeds
                        .iter()
                        .enumerate()
                        .map(|(v, s)| match s {
                            Some(s) => *first.entry(*s).or_insert(v as u32),
                            None => v as u32,
                        })
                        .collect()
                });
                let labels = community::label_propagation(
                    &input.graph,
                    max,
                    initial.as_deref(),
                    LABEL_PROPAGATION_SEED,
                    input.control,
                )
                .map_err(|i| input.stop(i))?;
                let count = components::sizes(&labels.communities).len();
                let ids = match &seeds {
                    Some(seeds) => {
                        let named = community::name_by_smallest(&labels.communities);
                        Input::seeded_ids(&named, seeds)
                    }
                    None => input.community_ids(&labels.communities, consecutive),
                };
                Ok(Output {
                    values: Values::Int(ids),
                    extra: Vec::new(),
                    summary: vec![
                        Value::Int(labels.ran_iterations as i64),
                        Value::Bool(labels.did_converge),
                        Value::Int(count as i64),
                    ],
                })
            },
        },
        Algorithm {
            name: "kcore",
            description: "It computes the k-core values in a network",
            keys: &[],
            weighted: false,
            undirected_only: true,
            column: ("coreValue", Integer),
            extra: vec![],
            summary: vec![("degeneracy", Integer)],
            distribution: Distribution::None,
            bytes_per_node: 32,
            compute: |input| {
                let cores =
                    community::k_core(&input.graph, input.control).map_err(|i| input.stop(i))?;
                let degeneracy = cores.iter().copied().max().unwrap_or(0);
                Ok(Output {
                    values: Values::Int(cores.into_iter().map(i64::from).collect()),
                    extra: Vec::new(),
                    summary: vec![Value::Int(i64::from(degeneracy))],
                })
            },
        },
    ]
}

/// The seed of label propagation's node order and tie-breaks: fixed, so a call's communities
/// are the same every time on the same projection.
const LABEL_PROPAGATION_SEED: u64 = 0x5eed;

fn rank(input: &Input<'_>, article_rank: bool) -> Result<Output> {
    let c = input.config;
    let config = RankConfig {
        damping_factor: c.float("dampingFactor", 0.85, 0.0, 1.0, true)?,
        max_iterations: c.int("maxIterations", 20, 1, i64::from(i32::MAX))? as usize,
        tolerance: c.float("tolerance", 1e-7, 0.0, f64::MAX, false)?,
        source_nodes: c
            .nodes("sourceNodes")?
            .into_iter()
            .map(|id| {
                input.projection.index_of(id).ok_or_else(|| {
                    failed(
                        input.procedure,
                        format!("Source nodes do not exist in the in-memory graph: ['{id}']"),
                    )
                })
            })
            .collect::<Result<_>>()?,
        article_rank,
    };
    let scaler = c.text("scaler")?.unwrap_or_else(|| "NONE".to_owned());
    let ranks =
        centrality::page_rank(&input.graph, &config, input.control).map_err(|i| input.stop(i))?;
    let scores = scale(input.procedure, &scaler, ranks.scores)?;
    Ok(Output {
        values: Values::Float(scores),
        extra: Vec::new(),
        summary: vec![
            Value::Int(ranks.ran_iterations as i64),
            Value::Bool(ranks.did_converge),
        ],
    })
}

/// GDS's scalers over a result's scores.
fn scale(procedure: &str, scaler: &str, mut scores: Vec<f64>) -> Result<Vec<f64>> {
    let n = scores.len().max(1) as f64;
    let (min, max) = scores
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), s| {
            (a.min(*s), b.max(*s))
        });
    let mean = scores.iter().sum::<f64>() / n;
    let apply =
        |scores: &mut Vec<f64>, f: &dyn Fn(f64) -> f64| scores.iter_mut().for_each(|s| *s = f(*s));
    let safe = |d: f64| if d.abs() < 1e-15 { None } else { Some(d) };
    match scaler.to_ascii_uppercase().as_str() {
        "NONE" => {}
        "MINMAX" => apply(&mut scores, &|s| {
            safe(max - min).map_or(0.0, |d| (s - min) / d)
        }),
        "MAX" => apply(&mut scores, &|s| safe(max.abs()).map_or(0.0, |d| s / d)),
        "MEAN" => apply(&mut scores, &|s| {
            safe(max - min).map_or(0.0, |d| (s - mean) / d)
        }),
        "CENTER" => apply(&mut scores, &|s| s - mean),
        "LOG" => apply(&mut scores, &|s| (s + 1.0).ln()),
        "L1NORM" => {
            let norm: f64 = scores.iter().map(|s| s.abs()).sum();
            apply(&mut scores, &|s| safe(norm).map_or(0.0, |d| s / d));
        }
        "L2NORM" => {
            let norm = scores.iter().map(|s| s * s).sum::<f64>().sqrt();
            apply(&mut scores, &|s| safe(norm).map_or(0.0, |d| s / d));
        }
        "STDSCORE" => {
            let sd = (scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt();
            apply(&mut scores, &|s| safe(sd).map_or(0.0, |d| (s - mean) / d));
        }
        _ => {
            return Err(failed(
                procedure,
                format!(
                    "Unrecognised scaler type specified: `{scaler}`. Expected one of: [NONE, MINMAX, MAX, MEAN, LOG, L1NORM, L2NORM, STDSCORE, CENTER]."
                ),
            ));
        }
    }
    Ok(scores)
}

fn degree(input: &Input<'_>) -> Result<Output> {
    let orientation = match input
        .config
        .text("orientation")?
        .as_deref()
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        None | Some("NATURAL") => Orientation::Natural,
        Some("REVERSE") => Orientation::Reverse,
        Some("UNDIRECTED") => Orientation::Undirected,
        Some(other) => {
            return Err(failed(
                input.procedure,
                format!(
                    "Orientation `{other}` is not supported. Must be one of: ['NATURAL', 'REVERSE', 'UNDIRECTED']."
                ),
            ));
        }
    };
    // In an undirected projection every relationship already counts at both ends.
    let orientation = if input.graph.is_undirected() {
        Orientation::Natural
    } else {
        orientation
    };
    let scores =
        centrality::degree(&input.graph, orientation, input.control).map_err(|i| input.stop(i))?;
    Ok(Output {
        values: Values::Float(scores),
        extra: Vec::new(),
        summary: Vec::new(),
    })
}

fn louvain(input: &Input<'_>) -> Result<Output> {
    let c = input.config;
    let config = LouvainConfig {
        max_levels: c.int("maxLevels", 10, 1, i64::from(i32::MAX))? as usize,
        max_iterations: c.int("maxIterations", 10, 1, i64::from(i32::MAX))? as usize,
        tolerance: c.float("tolerance", 0.0001, 0.0, f64::MAX, false)?,
    };
    let (intermediate, consecutive) = hierarchy_options(input)?;
    let result =
        community::louvain(&input.graph, &config, input.control).map_err(|i| input.stop(i))?;
    Ok(hierarchy_output(
        input,
        &result,
        intermediate,
        consecutive,
        Vec::new(),
    ))
}

fn leiden(input: &Input<'_>) -> Result<Output> {
    let c = input.config;
    let max_levels = c.int("maxLevels", 10, 1, i64::from(i32::MAX))? as usize;
    let config = LeidenConfig {
        max_levels,
        gamma: c.float("gamma", 1.0, 0.0, f64::MAX, false)?,
        tolerance: c.float("tolerance", 0.0001, 0.0, f64::MAX, false)?,
        seed: c.int("randomSeed", 0, i64::MIN, i64::MAX)? as u64,
    };
    // The refinement takes the best part for each node: theta, the randomness of choosing
    // among parts, is accepted and checked but has nothing to vary.
    let _ = c.float("theta", 0.01, 0.0, f64::MAX, false)?;
    let (intermediate, consecutive) = hierarchy_options(input)?;
    let result =
        community::leiden(&input.graph, &config, input.control).map_err(|i| input.stop(i))?;
    let converged = result.levels.len() < max_levels;
    Ok(hierarchy_output(
        input,
        &result,
        intermediate,
        consecutive,
        vec![
            Value::Bool(converged),
            Value::Int(input.graph.node_count() as i64),
        ],
    ))
}

/// The longest embedding `fastRP` makes: each node holds three vectors of it while running.
const EMBEDDING_DIMENSION_MAX: i64 = 4096;

fn fast_rp(input: &Input<'_>) -> Result<Output> {
    let c = input.config;
    if c.value("embeddingDimension").is_none() {
        return Err(failed(
            input.procedure,
            "No value specified for the mandatory configuration parameter `embeddingDimension`",
        ));
    }
    let dimension = c.int("embeddingDimension", 128, 1, EMBEDDING_DIMENSION_MAX)? as usize;
    let iteration_weights = match c.value("iterationWeights") {
        None => vec![0.0, 1.0, 1.0],
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => Ok(*i as f64),
                Value::Float(f) => Ok(*f),
                other => Err(failed(
                    input.procedure,
                    format!(
                        "The value of `iterationWeights` must be a list of numbers, but it holds a {}.",
                        other.value_type().name()
                    ),
                )),
            })
            .collect::<Result<Vec<_>>>()?,
        Some(other) => {
            return Err(failed(
                input.procedure,
                format!(
                    "The value of `iterationWeights` must be of type `List` but was `{}`.",
                    other.value_type().name()
                ),
            ));
        }
    };
    if iteration_weights.is_empty() {
        return Err(failed(
            input.procedure,
            "The value of `iterationWeights` must be a non-empty list of numbers.",
        ));
    }
    let features = c.names("featureProperties")?;
    if features != ["*"] && !features.is_empty() {
        return Err(failed(
            input.procedure,
            "`featureProperties` are not supported: FastRP here projects the graph's structure only",
        ));
    }
    let _ = c.float("propertyRatio", 0.0, 0.0, 0.0, false)?;
    let config = FastRpConfig {
        dimension,
        iteration_weights,
        node_self_influence: c.float("nodeSelfInfluence", 0.0, f64::MIN, f64::MAX, false)?,
        normalization_strength: c.float("normalizationStrength", 0.0, f64::MIN, f64::MAX, false)?,
        seed: c.int("randomSeed", 0, i64::MIN, i64::MAX)? as u64,
    };
    let embeddings =
        embeddings::fast_rp(&input.graph, &config, input.control).map_err(|i| input.stop(i))?;
    Ok(Output {
        values: Values::Lists(embeddings),
        extra: Vec::new(),
        summary: vec![Value::Int(input.graph.node_count() as i64)],
    })
}

/// `includeIntermediateCommunities` and `consecutiveIds`, which exclude each other.
fn hierarchy_options(input: &Input<'_>) -> Result<(bool, bool)> {
    let intermediate = input.config.bool("includeIntermediateCommunities", false)?;
    let consecutive = input.config.bool("consecutiveIds", false)?;
    if intermediate && consecutive {
        return Err(failed(
            input.procedure,
            "`includeIntermediateCommunities` and `consecutiveIds` cannot be used together.",
        ));
    }
    Ok((intermediate, consecutive))
}

/// Louvain's and Leiden's output: communities, the intermediate ones when asked, and the
/// summary (`more` after the columns they share).
fn hierarchy_output(
    input: &Input<'_>,
    result: &community::Louvain,
    intermediate: bool,
    consecutive: bool,
    more: Vec<Value>,
) -> Output {
    let count = components::sizes(&result.communities).len();
    let levels: Vec<Vec<i64>> = result
        .levels
        .iter()
        .map(|l| input.community_ids(l, false))
        .collect();
    let extra = (0..input.graph.node_count())
        .map(|v| {
            vec![if intermediate {
                Value::from(levels.iter().map(|l| Value::Int(l[v])).collect::<Vec<_>>())
            } else {
                Value::Null
            }]
        })
        .collect();
    let mut summary = vec![
        Value::Int(count as i64),
        Value::Int(result.levels.len() as i64),
        Value::Float(result.modularity()),
        Value::from(
            result
                .modularities
                .iter()
                .map(|m| Value::Float(*m))
                .collect::<Vec<_>>(),
        ),
    ];
    summary.extend(more);
    Output {
        values: Values::Int(input.community_ids(&result.communities, consecutive)),
        extra,
        summary,
    }
}

impl Algorithm {
    /// The procedure's full name in `mode`.
    pub(crate) fn procedure(&self, mode: Mode) -> String {
        format!("gds.{}.{}", self.name, mode.name())
    }

    pub(crate) fn description(&self) -> &'static str {
        self.description
    }

    /// The output columns in `mode`.
    pub(crate) fn outputs(&self, mode: Mode) -> Vec<(&'static str, FieldType)> {
        if mode == Mode::Stream {
            let mut out = vec![("nodeId", Integer), self.column.clone()];
            out.extend(self.extra.iter().cloned());
            return out;
        }
        let mut out = match mode {
            Mode::Mutate => vec![
                ("mutateMillis", Integer),
                ("nodePropertiesWritten", Integer),
            ],
            Mode::Write => vec![("writeMillis", Integer), ("nodePropertiesWritten", Integer)],
            _ => Vec::new(),
        };
        out.extend(self.summary.iter().cloned());
        match self.distribution {
            Distribution::Centrality => out.push(("centralityDistribution", MapType)),
            Distribution::Sizes(name) => out.push((name, MapType)),
            Distribution::None => {}
        }
        out.extend([
            ("preProcessingMillis", Integer),
            ("computeMillis", Integer),
            ("postProcessingMillis", Integer),
            ("configuration", MapType),
        ]);
        out
    }

    /// Runs the algorithm on the projection `args[0]` names with configuration `args[1]`.
    pub(crate) fn call(
        &self,
        catalog: &Catalog,
        mode: Mode,
        ctx: &ProcedureContext<'_>,
        args: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let name = self.procedure(mode);
        let procedure = name.as_str();
        let started = Instant::now();
        let config = self.config(procedure, mode, &args[1])?;
        let projection = catalog.get(
            ctx,
            procedure,
            super::catalog::graph_name(procedure, &args[0])?,
        )?;
        let property = target_property(procedure, mode, &config, &projection)?;
        let concurrency = config.concurrency("concurrency")?;
        let write_concurrency = if mode == Mode::Write {
            config.concurrency("writeConcurrency")?
        } else {
            1
        };
        let graph = projection.graph_for(procedure, &config)?;
        if self.undirected_only && !projection.undirected() {
            return Err(failed(
                procedure,
                format!(
                    "{} requires relationship projections to be UNDIRECTED. Selected relationships `{}` are not all undirected.",
                    self.title(),
                    projection.type_names()
                ),
            ));
        }
        let workers = ctx.workers(procedure)?;
        let check = || workers.check().map_err(|_| Interrupted);
        let control = Control::new(concurrency, &check);
        let stopped = |_: Interrupted| match workers.check() {
            Err(e) => e,
            Ok(()) => failed(procedure, "the computation was interrupted"),
        };
        let input = Input {
            graph,
            projection: &projection,
            config: &config,
            control: &control,
            stopped: &stopped,
            procedure,
        };
        let pre = started.elapsed();
        let computing = Instant::now();
        // The run's own state counts against the query's memory while it runs (the
        // projection is the catalog's).
        let state = projection.graph.node_count() * self.bytes_per_node(&config)
            + input.graph.incoming_size_in_bytes();
        ctx.reserve(procedure, state, "an algorithm's state")?;
        let output = (self.compute)(&input);
        ctx.release(procedure, state)?;
        let output = output?;
        let compute = computing.elapsed();
        let posting = Instant::now();
        let ids = &projection.ids;
        if mode == Mode::Stream {
            return Ok(stream_rows(ids, &output));
        }
        let written = output.values.len() as i64;
        let mode_millis = match (mode, &property) {
            (Mode::Mutate, Some(p)) => {
                let timer = Instant::now();
                projection.add_property(procedure, p, output.values.column())?;
                Some(timer.elapsed())
            }
            (Mode::Write, Some(p)) => {
                let timer = Instant::now();
                super::write::node_property(ctx, procedure, write_concurrency, ids, p, &|i| {
                    output.values.get(i)
                })?;
                Some(timer.elapsed())
            }
            _ => None,
        };
        let mut row = Vec::new();
        if let Some(m) = mode_millis {
            row.push(Value::Int(m.as_millis() as i64));
            row.push(Value::Int(written));
        }
        row.extend(output.summary.iter().cloned());
        if let Some(d) = self.summarise(&output.values) {
            row.push(d);
        }
        row.extend([
            Value::Int(pre.as_millis() as i64),
            Value::Int(compute.as_millis() as i64),
            Value::Int(posting.elapsed().as_millis() as i64),
            config.echo(),
        ]);
        Ok(vec![row])
    }

    /// The configuration of a call in `mode`, checked against the keys it takes.
    fn config<'p>(&self, procedure: &'p str, mode: Mode, value: &Value) -> Result<Config<'p>> {
        let weight_key: &[&str] = if self.weighted {
            &["relationshipWeightProperty"]
        } else {
            &[]
        };
        Config::new(
            procedure,
            value,
            &[COMMON, self.keys, mode.keys(), weight_key],
        )
    }

    /// The distribution column of the stats: of the scores, or of the community sizes.
    fn summarise(&self, values: &Values) -> Option<Value> {
        match (self.distribution, values) {
            (Distribution::Centrality, _) => {
                let mut scores: Vec<f64> =
                    (0..values.len()).map(|i| as_f64(&values.get(i))).collect();
                Some(distribution(&mut scores))
            }
            (Distribution::Sizes(_), Values::Int(v)) => {
                let mut sizes: std::collections::HashMap<i64, u64> =
                    std::collections::HashMap::new();
                for c in v {
                    *sizes.entry(*c).or_insert(0) += 1;
                }
                let mut sizes: Vec<f64> = sizes.values().map(|s| *s as f64).collect();
                Some(distribution(&mut sizes))
            }
            (Distribution::Sizes(_), Values::Float(_) | Values::Lists(_))
            | (Distribution::None, _) => None,
        }
    }

    /// `estimate`: the memory a run would take, from the projection's size and the
    /// algorithm's own per-node state, without running it.
    pub(crate) fn estimate(
        &self,
        catalog: &Catalog,
        mode: Mode,
        ctx: &ProcedureContext<'_>,
        args: &[Value],
    ) -> Result<Vec<Vec<Value>>> {
        let name = format!("{}.estimate", self.procedure(mode));
        let procedure = name.as_str();
        let config = self.config(procedure, mode, &args[1])?;
        let _ = config.concurrency("concurrency")?;
        let projection = match &args[0] {
            Value::String(s) => catalog.get(ctx, procedure, s)?,
            _ => {
                return Err(failed(
                    procedure,
                    "Estimating a graph not in the catalog is not supported: give the name of a projected graph",
                ));
            }
        };
        let nodes = projection.graph.node_count();
        let relationships = projection.graph.relationship_count();
        let graph_bytes = projection.size_in_bytes() + projection.graph.incoming_size_in_bytes();
        let per_node = self.bytes_per_node(&config);
        let bytes = graph_bytes + nodes * per_node;
        let total = Value::Int(bytes as i64);
        let tree = format!(
            "{}: {}\n|-- graph: {graph_bytes} Bytes\n|-- algorithm: {} Bytes",
            self.title(),
            human(bytes),
            nodes * per_node
        );
        let map = Value::map(Map::from_iter([
            (Arc::from("name"), Value::from(self.title())),
            (Arc::from("memoryUsage"), Value::from(human(bytes))),
            (
                Arc::from("components"),
                Value::from(vec![
                    Value::map(Map::from_iter([
                        (Arc::from("name"), Value::from("graph")),
                        (Arc::from("memoryUsage"), Value::from(human(graph_bytes))),
                    ])),
                    Value::map(Map::from_iter([
                        (Arc::from("name"), Value::from("algorithm")),
                        (
                            Arc::from("memoryUsage"),
                            Value::from(human(nodes * per_node)),
                        ),
                    ])),
                ]),
            ),
        ]));
        Ok(vec![vec![
            Value::from(human(bytes)),
            Value::from(tree),
            map,
            total.clone(),
            total,
            Value::Int(nodes as i64),
            Value::Int(relationships as i64),
            Value::Float(0.0),
            Value::Float(0.0),
        ]])
    }

    /// The bytes a run holds per node: the table's figure, or for FastRP three vectors of the
    /// configured dimension.
    fn bytes_per_node(&self, config: &Config<'_>) -> usize {
        if self.name == "fastRP"
            && let Some(Value::Int(d)) = config.value("embeddingDimension")
        {
            return 3 * 8 * d.clamp(1, EMBEDDING_DIMENSION_MAX) as usize;
        }
        self.bytes_per_node
    }

    /// The name GDS's messages give the algorithm.
    fn title(&self) -> &'static str {
        match self.name {
            "triangleCount" => "TriangleCount",
            "localClusteringCoefficient" => "LocalClusteringCoefficient",
            "kcore" => "K-core decomposition",
            "leiden" => "The Leiden algorithm",
            other => other,
        }
    }
}

/// The property `mutate` adds or `write` sets; a `mutate` property the projection already
/// has fails.
fn target_property(
    procedure: &str,
    mode: Mode,
    config: &Config<'_>,
    projection: &Projection,
) -> Result<Option<String>> {
    let property = match mode {
        Mode::Mutate => Some(config.required_text("mutateProperty")?),
        Mode::Write => Some(config.required_text("writeProperty")?),
        Mode::Stream | Mode::Stats => None,
    };
    if let (Mode::Mutate, Some(p)) = (mode, &property)
        && projection.property(p).is_some()
    {
        return Err(failed(
            procedure,
            format!("Node property `{p}` already exists in the in-memory graph."),
        ));
    }
    Ok(property)
}

/// A `stream` call's rows: node id, value, further columns.
fn stream_rows(ids: &[u64], output: &Output) -> Vec<Vec<Value>> {
    (0..output.values.len())
        .map(|i| {
            let mut row = vec![Value::Int(ids[i] as i64), output.values.get(i)];
            if let Some(extra) = output.extra.get(i) {
                row.extend(extra.iter().cloned());
            }
            row
        })
        .collect()
}

/// The columns of every `estimate` procedure.
pub(crate) const ESTIMATE_COLUMNS: &[(&str, FieldType)] = &[
    ("requiredMemory", FieldType::String),
    ("treeView", FieldType::String),
    ("mapView", MapType),
    ("bytesMin", Integer),
    ("bytesMax", Integer),
    ("nodeCount", Integer),
    ("relationshipCount", Integer),
    ("heapPercentageMin", Float),
    ("heapPercentageMax", Float),
];

fn human(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} Bytes")
    } else if bytes < 1 << 20 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{} MiB", bytes >> 20)
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}
