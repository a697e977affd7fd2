//! Functions and accessors that read the graph: property access on entities, label tests, and
//! `id`, `labels`, `type`, `keys`, `properties`, `startNode`, `endNode`, `nodes`,
//! `relationships`, `length`, `exists`.

use std::sync::Arc;

use quiver_storage::{NodeId, RelId};
use quiver_value::{Map, Node, Relationship, Value};

use super::{Cx, held_bytes, map_bytes, value_bytes};
use crate::error::{Error, Result};
use crate::ir::{Expr, GraphFn, LabelPred, MapProjItem, Row};
use crate::tokens::Token;

fn bad_arg(f: GraphFn, expected: &str, got: &Value) -> Error {
    Error::type_error(format!(
        "Function '{}' expects {expected}, got {}",
        f.name(),
        got.value_type()
    ))
}

/// `base.key` for any value: entities read the transaction's view, everything else is the
/// value crate's.
///
/// A virtual node or relationship (`apoc.create.vNode`'s, `db.schema.visualization`'s) is
/// not in the store: it carries its properties, and they are read from it.
pub(crate) fn property(base: &Value, key: &Token, cx: &mut Cx) -> Result<Value> {
    if let Some(carried) = carried(base) {
        return Ok(carried.get(&*key.name).cloned().unwrap_or(Value::Null));
    }
    match base {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => match key.key(&cx.storage) {
            Some(k) => {
                cx.db_hits += 1;
                read(cx.tx.node_property(NodeId(n.id), k)?, cx)
            }
            None => Ok(Value::Null),
        },
        Value::Relationship(r) => match key.key(&cx.storage) {
            Some(k) => {
                cx.db_hits += 1;
                read(cx.tx.rel_property(RelId(r.id), k)?, cx)
            }
            None => Ok(Value::Null),
        },
        Value::Map(m) => Ok(m.get(&*key.name).cloned().unwrap_or(Value::Null)),
        other => Ok(quiver_value::property(other, &key.name)?),
    }
}

/// The properties a virtual node or relationship carries; `None` for a stored one (inside a
/// query a stored entity is its id alone) and for anything else.
pub(crate) fn carried(v: &Value) -> Option<&Map> {
    match v {
        Value::Node(n) => n.data.as_ref().map(|d| &d.properties),
        Value::Relationship(r) => r.data.as_ref().map(|d| &d.properties),
        _ => None,
    }
}

/// A property value read from the store is the query's own copy, held while its row holds it:
/// a string, byte array or list must fit beside what the query holds (numbers pass at the cost
/// of one match).
#[inline]
fn read(v: Option<Value>, cx: &mut Cx) -> Result<Value> {
    let Some(v) = v else {
        return Ok(Value::Null);
    };
    if matches!(v, Value::String(_) | Value::Bytes(_) | Value::List(_)) {
        cx.transient(value_bytes(&v), "a property value read from the store")?;
    }
    Ok(v)
}

/// `n:$(names)` (all of them) or `n:$any(names)`: `names` is a String or a List of Strings;
/// a name the store has never seen is a label no node has. On a relationship the names are
/// types: it has all of them only when each names its one type.
pub(crate) fn has_dynamic_labels(
    base: &Value,
    names: &Value,
    any: bool,
    cx: &mut Cx,
) -> Result<Value> {
    let node = match base {
        Value::Node(n) => Some(NodeId(n.id)),
        Value::Relationship(_) => None,
        Value::Null => return Ok(Value::Null),
        other => {
            return Err(Error::type_error(format!(
                "Dynamic labels and types apply to nodes and relationships, got {}",
                other.value_type()
            )));
        }
    };
    let rel_type = match base {
        Value::Relationship(r) => Some(cx.tx.rel_type(RelId(r.id))?),
        _ => None,
    };
    let items: Vec<Value> = match names {
        Value::Null => return Ok(Value::Null),
        Value::List(items) => items.iter().cloned().collect(),
        other => vec![other.clone()],
    };
    let mut found = false;
    for item in &items {
        let Value::String(name) = item else {
            return Err(Error::type_error(format!(
                "A dynamic label or type must be a String or a List of them, got {}",
                item.value_type()
            )));
        };
        cx.db_hits += 1;
        let has = match (node, rel_type) {
            (Some(n), _) => match cx.storage.label_id(name) {
                Some(id) => cx.tx.node_has_label(n, id)?,
                None => false,
            },
            (None, Some(ty)) => cx.storage.rel_type_id(name) == Some(ty),
            (None, None) => false,
        };
        if has && any {
            return Ok(Value::Bool(true));
        }
        if !has && !any {
            return Ok(Value::Bool(false));
        }
        found |= has;
    }
    Ok(Value::Bool(if any { found } else { true }))
}

pub(crate) fn has_labels(base: &Value, labels: &[Arc<Token>], cx: &mut Cx) -> Result<Value> {
    match base {
        Value::Null => Ok(Value::Null),
        Value::Node(Node { data: Some(d), .. }) => Ok(Value::Bool(
            labels.iter().all(|l| d.labels.iter().any(|c| *c == l.name)),
        )),
        Value::Node(n) => {
            for l in labels {
                let Some(id) = l.label(&cx.storage) else {
                    return Ok(Value::Bool(false));
                };
                cx.db_hits += 1;
                if !cx.tx.node_has_label(NodeId(n.id), id)? {
                    return Ok(Value::Bool(false));
                }
            }
            Ok(Value::Bool(true))
        }
        Value::Relationship(r) => {
            let ty = cx.tx.rel_type(RelId(r.id))?;
            Ok(Value::Bool(
                labels.iter().all(|t| t.rel_type(&cx.storage) == Some(ty)),
            ))
        }
        other => Err(Error::type_error(format!(
            "Label expressions apply to nodes and relationships, got {}",
            other.value_type()
        ))),
    }
}

/// A label expression on a node (its labels) or a relationship (its one type); `null` on
/// `null`, as `n:A` is.
pub(crate) fn label_test(base: &Value, pred: &LabelPred, cx: &mut Cx) -> Result<Value> {
    match base {
        Value::Null => Ok(Value::Null),
        // A virtual node is tested on the labels it carries.
        Value::Node(Node { data: Some(d), .. }) => {
            let has = |t: &Arc<Token>| d.labels.iter().any(|c| *c == t.name);
            Ok(Value::Bool(eval_label_pred(
                pred,
                !d.labels.is_empty(),
                &has,
            )))
        }
        Value::Node(n) => {
            cx.db_hits += 1;
            let labels = cx.tx.node_labels(NodeId(n.id))?;
            let has = |t: &Arc<Token>| t.label(&cx.storage).is_some_and(|id| labels.contains(&id));
            Ok(Value::Bool(eval_label_pred(pred, !labels.is_empty(), &has)))
        }
        Value::Relationship(r) => {
            // By name: whether the expression was compiled for a node or a relationship was
            // not known, so its tokens are labels.
            let ty = cx.tx.rel_type(RelId(r.id))?;
            let name = cx.storage.rel_type_name(ty);
            let has = |t: &Arc<Token>| name.as_deref() == Some(&*t.name);
            Ok(Value::Bool(eval_label_pred(pred, true, &has)))
        }
        other => Err(Error::type_error(format!(
            "Label expressions apply to nodes and relationships, got {}",
            other.value_type()
        ))),
    }
}

/// Evaluates a label expression given whether the entity has any label and which names it has.
fn eval_label_pred(pred: &LabelPred, any: bool, has: &dyn Fn(&Arc<Token>) -> bool) -> bool {
    match pred {
        LabelPred::Name(t) => has(t),
        LabelPred::Any => any,
        LabelPred::Not(inner) => !eval_label_pred(inner, any, has),
        LabelPred::And(items) => items.iter().all(|i| eval_label_pred(i, any, has)),
        LabelPred::Or(items) => items.iter().any(|i| eval_label_pred(i, any, has)),
    }
}

/// An entity's properties as a map of names.
pub(crate) fn properties_of(v: &Value, cx: &mut Cx) -> Result<Option<Map>> {
    if let Some(carried) = carried(v) {
        return Ok(Some(carried.clone()));
    }
    if matches!(v, Value::Node(_) | Value::Relationship(_)) {
        cx.db_hits += 1;
    }
    let pairs = match v {
        Value::Node(n) => cx.tx.node_properties(NodeId(n.id))?,
        Value::Relationship(r) => cx.tx.rel_properties(RelId(r.id))?,
        Value::Map(m) => return Ok(Some((**m).clone())),
        _ => return Ok(None),
    };
    let mut map = Map::new();
    for (k, value) in pairs {
        if let Some(name) = cx.storage.property_key_name(k) {
            map.insert(name, value);
        }
    }
    cx.transient(
        map_bytes(&map),
        "an entity's properties read from the store",
    )?;
    Ok(Some(map))
}

/// `labels(n)`, sorted: a virtual node's own labels, a stored node's from the transaction.
fn labels_of(v: &Value, cx: &mut Cx) -> Result<Value> {
    let mut names: Vec<Value> = match v {
        Value::Node(Node { data: Some(d), .. }) => {
            d.labels.iter().cloned().map(Value::String).collect()
        }
        Value::Node(n) => cx
            .tx
            .node_labels(NodeId(n.id))?
            .iter()
            .filter_map(|l| cx.storage.label_name(*l))
            .map(Value::String)
            .collect(),
        other => {
            return Err(Error::runtime(
                crate::error::code::TYPE_ERROR,
                Some("InvalidArgumentValue"),
                format!(
                    "Function 'labels' expects a Node, got {}",
                    other.value_type()
                ),
            ));
        }
    };
    names.sort_by(quiver_value::order);
    Ok(Value::from(names))
}

pub(crate) fn call(f: GraphFn, args: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let Some(arg) = args.first() else {
        return Err(Error::type_error(format!(
            "Function '{}' expects one argument",
            f.name()
        )));
    };
    let v = arg.eval(row, cx)?;
    if v.is_null() {
        return Ok(match f {
            GraphFn::Exists => Value::Bool(false),
            _ => Value::Null,
        });
    }
    match f {
        GraphFn::Id => match &v {
            Value::Node(n) => Ok(Value::Int(n.id as i64)),
            Value::Relationship(r) => Ok(Value::Int(r.id as i64)),
            other => Err(bad_arg(f, "a Node or a Relationship", other)),
        },
        GraphFn::ElementId => match &v {
            Value::Node(n) => Ok(Value::from(n.element_id())),
            Value::Relationship(r) => Ok(Value::from(r.element_id())),
            other => Err(bad_arg(f, "a Node or a Relationship", other)),
        },
        GraphFn::Labels => labels_of(&v, cx),
        GraphFn::Type => match &v {
            Value::Relationship(Relationship { data: Some(d), .. }) => {
                Ok(Value::String(d.rel_type.clone()))
            }
            Value::Relationship(r) => {
                let ty = cx.tx.rel_type(RelId(r.id))?;
                Ok(cx
                    .storage
                    .rel_type_name(ty)
                    .map_or(Value::Null, Value::String))
            }
            other => Err(bad_arg(f, "a Relationship", other)),
        },
        GraphFn::Keys => match properties_of(&v, cx)? {
            Some(map) => Ok(Value::from(
                map.keys()
                    .map(|k| Value::String(k.clone()))
                    .collect::<Vec<_>>(),
            )),
            None => Err(bad_arg(f, "a Node, a Relationship or a Map", &v)),
        },
        GraphFn::Properties => match properties_of(&v, cx)? {
            Some(map) => Ok(Value::map(map)),
            None => Err(bad_arg(f, "a Node, a Relationship or a Map", &v)),
        },
        GraphFn::StartNode | GraphFn::EndNode => match &v {
            Value::Relationship(r) => {
                let start = f == GraphFn::StartNode;
                if let Some(d) = &r.data {
                    // A relationship that carries its data is virtual (or already filled
                    // in): its ends are the nodes it carries, else the ids it names.
                    let node = match &d.ends {
                        Some(ends) => ends[usize::from(!start)].clone(),
                        None => Node::new(if start { d.start } else { d.end }),
                    };
                    return Ok(Value::Node(node));
                }
                let (s, e, _) = cx.tx.rel_endpoints(RelId(r.id))?;
                Ok(Value::Node(Node::new(if start { s.0 } else { e.0 })))
            }
            other => Err(bad_arg(f, "a Relationship", other)),
        },
        GraphFn::Nodes => match &v {
            Value::Path(p) => Ok(Value::from(
                p.nodes.iter().cloned().map(Value::Node).collect::<Vec<_>>(),
            )),
            other => Err(bad_arg(f, "a Path", other)),
        },
        GraphFn::Relationships => match &v {
            Value::Path(p) => Ok(Value::from(
                p.relationships
                    .iter()
                    .cloned()
                    .map(Value::Relationship)
                    .collect::<Vec<_>>(),
            )),
            other => Err(bad_arg(f, "a Path", other)),
        },
        GraphFn::Length => match &v {
            Value::Path(p) => Ok(Value::Int(p.relationships.len() as i64)),
            other => Err(bad_arg(f, "a Path", other)),
        },
        GraphFn::Exists => Ok(Value::Bool(true)),
    }
}

/// `base {.key, .*, key: expr}`.
pub(crate) fn map_projection(
    base: &Value,
    items: &[MapProjItem],
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    if base.is_null() {
        return Ok(Value::Null);
    }
    if !matches!(
        base,
        Value::Node(_) | Value::Relationship(_) | Value::Map(_)
    ) {
        return Err(Error::type_error(format!(
            "Map projection expects a Node, a Relationship or a Map, got {}",
            base.value_type()
        )));
    }
    let mut out = Map::new();
    for item in items {
        match item {
            MapProjItem::Property(name, token) => {
                let v = property(base, token, cx)?;
                out.insert(name.clone(), v);
            }
            MapProjItem::All => {
                if let Some(map) = properties_of(base, cx)? {
                    out.extend(map);
                }
            }
            MapProjItem::Entry(name, e) => {
                let v = e.eval(row, cx)?;
                out.insert(name.clone(), v);
            }
        }
    }
    // Each entry was held to the limit alone; together they must fit too.
    let bytes = out
        .iter()
        .map(|(k, v)| k.len() + held_bytes(v))
        .sum::<usize>();
    cx.transient(bytes, "a map projection")?;
    Ok(Value::map(out))
}

/// Whether an entity has every property of a pattern's property map, by Cypher equality.
pub(crate) fn props_match(entity: &Value, map: &Value, cx: &mut Cx) -> Result<Value> {
    let m = match map {
        Value::Null => return Ok(Value::Bool(false)),
        Value::Map(m) => m.clone(),
        other => {
            return Err(Error::type_error(format!(
                "Pattern properties must be a Map, got {}",
                other.value_type()
            )));
        }
    };
    if entity.is_null() {
        return Ok(Value::Null);
    }
    for (k, expected) in m.iter() {
        let token = Token::new(crate::tokens::TokenKind::PropKey, k);
        let actual = property(entity, &token, cx)?;
        if quiver_value::equals(&actual, expected) != Some(true) {
            return Ok(Value::Bool(false));
        }
    }
    Ok(Value::Bool(true))
}

/// A relationship value carrying only its id, as the executor moves it around.
pub(crate) fn rel_value(id: RelId) -> Value {
    Value::Relationship(Relationship::new(id.0))
}

/// A node value carrying only its id.
pub(crate) fn node_value(id: NodeId) -> Value {
    Value::Node(Node::new(id.0))
}
