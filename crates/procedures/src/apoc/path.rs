//! `apoc.path.expandConfig` and `apoc.path.subgraphNodes`: path expansion from start nodes
//! under APOC's relationship and label filters, level bounds, uniqueness and limit.
//!
//! Expansion is breadth-first (depth-first with `bfs: false`) over whole paths; every step is
//! a unit of the caller's work (cancel flag and deadline) and the frontier's paths are counted
//! against the caller's memory.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use quiver_storage::{Direction, LabelId, NodeId, RelId, RelTypeId};
use quiver_value::{Map, Node, Path, Relationship, Value};

use super::write::nodes_arg;
use quiver_engine::Result;
use quiver_engine::procedures::native::{
    Native, arg, bad_arg, config_bool, config_int, config_text, map_value, native,
};
use quiver_engine::procedures::{FieldType, ProcedureContext};

pub(super) fn procedures() -> Vec<Native> {
    use FieldType::{Any, Map as M};
    vec![
        native(
            "apoc.path.expandConfig",
            vec![arg("startNode", Any), arg("config", M)],
            &[("path", FieldType::Path)],
            false,
            expand_config,
        ),
        native(
            "apoc.path.subgraphNodes",
            vec![arg("startNode", Any), arg("config", M)],
            &[("node", FieldType::Node)],
            false,
            subgraph_nodes,
        ),
    ]
}

/// Which repeats a path may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Uniqueness {
    RelationshipPath,
    NodePath,
    NodeGlobal,
    RelationshipGlobal,
    None,
}

/// One allowed step: a type (`None`: any) in a direction.
struct Step {
    rel_type: Option<RelTypeId>,
    dir: Direction,
}

/// The label filter: `+` allowed, `-` refused, `/` termination (returned, not expanded), `>`
/// end (returned, expanded further).
#[derive(Default)]
struct Labels {
    allow: Vec<LabelId>,
    allow_all: bool,
    deny: Vec<LabelId>,
    terminate: Vec<LabelId>,
    end: Vec<LabelId>,
}

struct Config {
    min_level: usize,
    max_level: usize,
    steps: Option<Vec<Step>>,
    labels: Labels,
    uniqueness: Uniqueness,
    bfs: bool,
    limit: usize,
    filter_start: bool,
    end_nodes: HashSet<u64>,
    terminator_nodes: HashSet<u64>,
    allow_nodes: Option<HashSet<u64>>,
    deny_nodes: HashSet<u64>,
}

fn config(
    ctx: &ProcedureContext<'_>,
    name: &str,
    m: &Map,
    default_uniqueness: Uniqueness,
) -> Result<Config> {
    let int = |key: &str, default: i64| config_int(name, m, key, default);
    let boolean = |key: &str, default: bool| config_bool(name, m, key, default);
    let text = |key: &str| config_text(name, m, key);
    let node_set = |key: &str| -> Result<Option<HashSet<u64>>> {
        match m.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Ok(Some(
                nodes_arg(ctx, name, &format!("config.{key}"), v)?
                    .iter()
                    .filter_map(|n| match n {
                        Value::Node(n) => Some(n.id),
                        _ => None,
                    })
                    .collect(),
            )),
        }
    };
    let min_level = int("minLevel", -1)?;
    let max_level = int("maxLevel", -1)?;
    let limit = int("limit", -1)?;
    let uniqueness = match text("uniqueness")?.to_ascii_uppercase().as_str() {
        "" => default_uniqueness,
        "RELATIONSHIP_PATH" => Uniqueness::RelationshipPath,
        "NODE_PATH" => Uniqueness::NodePath,
        "NODE_GLOBAL" => Uniqueness::NodeGlobal,
        "RELATIONSHIP_GLOBAL" => Uniqueness::RelationshipGlobal,
        "NONE" => Uniqueness::None,
        other => {
            return Err(bad_arg(
                name,
                "config",
                format!(
                    "has uniqueness '{other}': Quiver supports RELATIONSHIP_PATH, NODE_PATH, NODE_GLOBAL, RELATIONSHIP_GLOBAL and NONE"
                ),
            ));
        }
    };
    Ok(Config {
        min_level: usize::try_from(min_level).unwrap_or(0),
        max_level: usize::try_from(max_level).unwrap_or(usize::MAX),
        steps: steps(ctx, name, &text("relationshipFilter")?)?,
        labels: labels(ctx, name, &text("labelFilter")?)?,
        uniqueness,
        bfs: boolean("bfs", true)?,
        limit: usize::try_from(limit).unwrap_or(usize::MAX),
        filter_start: boolean("filterStartNode", false)?,
        end_nodes: node_set("endNodes")?.unwrap_or_default(),
        terminator_nodes: node_set("terminatorNodes")?.unwrap_or_default(),
        allow_nodes: node_set("whitelistNodes")?.or(node_set("allowlistNodes")?),
        deny_nodes: node_set("blacklistNodes")?
            .or(node_set("denylistNodes")?)
            .unwrap_or_default(),
    })
}

/// `TYPE>|<TYPE|TYPE|>|<`; `None` when every relationship may be followed. A type the store
/// has never seen matches nothing.
fn steps(ctx: &ProcedureContext<'_>, name: &str, filter: &str) -> Result<Option<Vec<Step>>> {
    if filter.trim().is_empty() {
        return Ok(None);
    }
    if filter.contains(',') {
        return Err(bad_arg(
            name,
            "config",
            "has a relationshipFilter sequence (',' between steps), which Quiver does not support",
        ));
    }
    let mut out = Vec::new();
    for part in filter.split('|') {
        let part = part.trim();
        let (dir, t) = if let Some(t) = part.strip_prefix('<') {
            (Direction::In, t)
        } else if let Some(t) = part.strip_suffix('>') {
            (Direction::Out, t)
        } else {
            (Direction::Both, part)
        };
        if t.contains(['<', '>']) {
            return Err(bad_arg(
                name,
                "config",
                format!("has relationshipFilter entry '{part}', expected TYPE, <TYPE or TYPE>"),
            ));
        }
        if t.is_empty() {
            out.push(Step {
                rel_type: None,
                dir,
            });
        } else if let Some(id) = ctx.storage.rel_type_id(t) {
            out.push(Step {
                rel_type: Some(id),
                dir,
            });
        }
    }
    Ok(Some(out))
}

fn labels(ctx: &ProcedureContext<'_>, name: &str, filter: &str) -> Result<Labels> {
    let mut out = Labels::default();
    if filter.contains(',') {
        return Err(bad_arg(
            name,
            "config",
            "has a labelFilter sequence (',' between steps), which Quiver does not support",
        ));
    }
    for part in filter.split('|').map(str::trim).filter(|p| !p.is_empty()) {
        let (list, label) = match part.as_bytes()[0] {
            b'+' => (&mut out.allow, &part[1..]),
            b'-' => (&mut out.deny, &part[1..]),
            b'/' => (&mut out.terminate, &part[1..]),
            b'>' => (&mut out.end, &part[1..]),
            _ => (&mut out.allow, part),
        };
        if label == "*" {
            out.allow_all = true;
            continue;
        }
        // A label the store has never seen is on no node: an id none has.
        list.push(ctx.storage.label_id(label).unwrap_or(LabelId(u32::MAX)));
    }
    Ok(out)
}

/// What the label and node filters say of a node reached by a path.
#[derive(PartialEq, Eq)]
enum Verdict {
    Refused,
    /// May be passed through (and returned when there are no end or termination filters).
    Pass,
    /// Returned; expanded further.
    End,
    /// Returned; not expanded further.
    Terminate,
}

impl Config {
    fn has_ends(&self) -> bool {
        !self.labels.end.is_empty()
            || !self.labels.terminate.is_empty()
            || !self.end_nodes.is_empty()
            || !self.terminator_nodes.is_empty()
    }

    fn verdict(&self, ctx: &ProcedureContext<'_>, node: u64) -> Result<Verdict> {
        let labels = ctx.tx.node_labels(NodeId(node))?;
        let has = |list: &[LabelId]| list.iter().any(|l| labels.contains(l));
        if has(&self.labels.deny) || self.deny_nodes.contains(&node) {
            return Ok(Verdict::Refused);
        }
        if has(&self.labels.terminate) || self.terminator_nodes.contains(&node) {
            return Ok(Verdict::Terminate);
        }
        if has(&self.labels.end) || self.end_nodes.contains(&node) {
            return Ok(Verdict::End);
        }
        let allowed_by_label = self.labels.allow_all
            || (self.labels.allow.is_empty() && self.allow_nodes.is_none())
            || has(&self.labels.allow);
        let allowed_by_node = self.allow_nodes.as_ref().is_some_and(|s| s.contains(&node));
        Ok(if allowed_by_label || allowed_by_node {
            Verdict::Pass
        } else {
            Verdict::Refused
        })
    }
}

struct Walk {
    nodes: Vec<u64>,
    rels: Vec<u64>,
}

/// Bytes a path on the frontier holds, for the caller's memory count.
fn walk_bytes(w: &Walk) -> usize {
    48 + (w.nodes.len() + w.rels.len()) * 8
}

/// Every path the configuration returns from the start nodes, in expansion order.
fn expand(ctx: &ProcedureContext<'_>, name: &str, starts: &[u64], c: &Config) -> Result<Vec<Walk>> {
    let mut out = Vec::new();
    let mut frontier: VecDeque<Walk> = VecDeque::new();
    let mut seen_nodes: HashSet<u64> = HashSet::new();
    let mut seen_rels: HashSet<u64> = HashSet::new();
    let mut held = 0usize;
    for &s in starts {
        if c.uniqueness == Uniqueness::NodeGlobal && !seen_nodes.insert(s) {
            continue;
        }
        let w = Walk {
            nodes: vec![s],
            rels: Vec::new(),
        };
        held += walk_bytes(&w);
        frontier.push_back(w);
    }
    ctx.reserve(name, held, "a path expansion's frontier")?;
    let mut buf: Vec<(RelId, NodeId)> = Vec::new();
    let result = (|| -> Result<()> {
        while let Some(w) = if c.bfs {
            frontier.pop_front()
        } else {
            frontier.pop_back()
        } {
            ctx.tick(name)?;
            let level = w.rels.len();
            let Some(&last) = w.nodes.last() else {
                continue;
            };
            let verdict = if level == 0 && !c.filter_start {
                Verdict::Pass
            } else {
                c.verdict(ctx, last)?
            };
            if verdict == Verdict::Refused {
                continue;
            }
            let returned = level >= c.min_level
                && match verdict {
                    Verdict::End | Verdict::Terminate => true,
                    _ => !c.has_ends(),
                };
            if verdict == Verdict::Terminate || level >= c.max_level {
                if returned {
                    out.push(w);
                    if out.len() >= c.limit {
                        return Ok(());
                    }
                }
                continue;
            }
            buf.clear();
            match &c.steps {
                None => ctx
                    .tx
                    .expand_into(NodeId(last), Direction::Both, &[], &mut buf)?,
                Some(steps) => {
                    for s in steps {
                        let types: Vec<RelTypeId> = s.rel_type.into_iter().collect();
                        ctx.tx.expand_into(NodeId(last), s.dir, &types, &mut buf)?;
                    }
                }
            }
            let mut added = 0usize;
            for (rel, next) in buf.drain(..) {
                let ok = match c.uniqueness {
                    Uniqueness::RelationshipPath => !w.rels.contains(&rel.0),
                    Uniqueness::NodePath => !w.nodes.contains(&next.0),
                    Uniqueness::NodeGlobal => seen_nodes.insert(next.0),
                    Uniqueness::RelationshipGlobal => seen_rels.insert(rel.0),
                    Uniqueness::None => true,
                };
                if !ok {
                    continue;
                }
                let mut nodes = w.nodes.clone();
                nodes.push(next.0);
                let mut rels = w.rels.clone();
                rels.push(rel.0);
                let n = Walk { nodes, rels };
                added += walk_bytes(&n);
                frontier.push_back(n);
            }
            held += added;
            ctx.reserve(name, added, "a path expansion's frontier")?;
            if returned {
                out.push(w);
                if out.len() >= c.limit {
                    return Ok(());
                }
            }
        }
        Ok(())
    })();
    ctx.release(name, held)?;
    result?;
    Ok(out)
}

fn start_ids(ctx: &ProcedureContext<'_>, name: &str, v: &Value) -> Result<Vec<u64>> {
    Ok(nodes_arg(ctx, name, "startNode", v)?
        .iter()
        .filter_map(|n| match n {
            Value::Node(n) => Some(n.id),
            _ => None,
        })
        .collect())
}

fn expand_config(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.path.expandConfig";
    let starts = start_ids(ctx, NAME, &args[0])?;
    let m = map_value(NAME, "config", &args[1])?;
    let c = config(ctx, NAME, &m, Uniqueness::RelationshipPath)?;
    Ok(expand(ctx, NAME, &starts, &c)?
        .into_iter()
        .map(|w| {
            vec![Value::Path(Arc::new(Path {
                nodes: w.nodes.into_iter().map(Node::new).collect(),
                relationships: w.rels.into_iter().map(Relationship::new).collect(),
            }))]
        })
        .collect())
}

/// Every node reachable under the configuration, once (uniqueness is always NODE_GLOBAL).
fn subgraph_nodes(ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.path.subgraphNodes";
    let starts = start_ids(ctx, NAME, &args[0])?;
    let m = map_value(NAME, "config", &args[1])?;
    let mut c = config(ctx, NAME, &m, Uniqueness::NodeGlobal)?;
    c.uniqueness = Uniqueness::NodeGlobal;
    Ok(expand(ctx, NAME, &starts, &c)?
        .into_iter()
        .filter_map(|w| w.nodes.last().map(|n| vec![Value::Node(Node::new(*n))]))
        .collect())
}
