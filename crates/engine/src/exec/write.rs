//! Updating operators: CREATE, SET/REMOVE, DELETE and MERGE.
//!
//! Every write is followed by advancing the transaction's command, so that later reads in the
//! same query (the next item of a SET, MERGE looking for what an earlier row created) see it,
//! while scans opened earlier keep the view they started with.
//!
//! Every element written is checked against the user's write privileges before it is
//! written (see [`crate::security::writes`]): a refused write fails the statement, whose
//! transaction then rolls back, so nothing of it is kept.
//!
//! Every write is counted against the transaction's memory before it is made
//! ([`Cx::count_write`]): the fixed cost of the change in the store's state (see
//! [`crate::eval::CHANGE_WRITE_BYTES`] and its siblings) plus the values it writes, so a
//! transaction cannot grow its uncommitted state without bound.

use std::sync::Arc;

use quiver_storage::{Direction, EntityKind, LabelId, NodeId, PropKeyId, RelId, RelTypeId};
use quiver_value::{Map, Value};

use super::expand::node_in;
use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result, code};
use crate::eval::graph_fns::{node_value, properties_of, rel_value};
use crate::eval::{
    CHANGE_WRITE_BYTES, LABEL_WRITE_BYTES, NODE_WRITE_BYTES, REL_WRITE_BYTES, value_bytes,
};
use crate::ir::{CreateStep, Expr, MergeSpec, Props, Row, SetOp};
use crate::security::privilege::Ability;
use crate::security::writes::WriteRules;
use crate::tokens::{Token, TokenKind};

/// Fails with `Forbidden` unless the user may make `write` on the element written: held on
/// every element (one bit test), or allowed by their write rules as `allowed` asks them.
/// `what` names the write as Neo4j does ("Create node with labels 'A'").
fn may(
    cx: &Cx,
    write: Ability,
    allowed: impl FnOnce(&WriteRules) -> Result<bool>,
    what: impl FnOnce() -> String,
) -> Result<()> {
    cx.subject.require_write(write, allowed, what)
}

/// `'A', 'B'` for the names of a denied write's labels or type.
fn quoted<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.into_iter().map(|n| format!("'{n}'")).collect();
    names.join(", ")
}

/// The names of the labels node `node` has now.
fn label_names(node: NodeId, cx: &Cx) -> Result<Vec<Arc<str>>> {
    Ok(cx
        .tx
        .node_labels(node)?
        .iter()
        .filter_map(|l| cx.storage.label_name(*l))
        .collect())
}

/// The name of relationship `rel`'s type.
fn type_name(rel: RelId, cx: &Cx) -> Result<Arc<str>> {
    let ty = cx.tx.rel_type(rel)?;
    Ok(cx.storage.rel_type_name(ty).unwrap_or_default())
}

/// The element a property is set on, as write rules see it.
#[derive(Clone, Copy)]
enum Target<'a> {
    /// A stored node or relationship: its labels or type as they are now.
    Stored(&'a Entity),
    /// A node being created, with the labels its pattern names and those named at run time.
    NewNode(&'a [Arc<Token>], &'a [Arc<str>]),
    /// A relationship being created, of this type.
    NewRel(&'a str),
}

/// Checks setting or removing property `name` of `target`, before the property's name is
/// made if it is new. The name is only looked at when the write is not held whole.
fn may_set_property(target: Target<'_>, name: impl Fn() -> Arc<str>, cx: &Cx) -> Result<()> {
    let write = match target {
        Target::Stored(Entity::Node(_)) | Target::NewNode(..) => Ability::SetNodeProperty,
        Target::Stored(Entity::Rel(_)) | Target::NewRel(_) => Ability::SetRelationshipProperty,
    };
    may(
        cx,
        write,
        |rules| {
            let key = name();
            Ok(match target {
                Target::Stored(Entity::Node(n)) => {
                    rules.set_node_property(&label_names(*n, cx)?, &key)
                }
                Target::Stored(Entity::Rel(r)) => {
                    rules.set_relationship_property(&type_name(*r, cx)?, &key)
                }
                Target::NewNode(labels, runtime) => {
                    rules.set_node_property(&new_labels(labels, runtime), &key)
                }
                Target::NewRel(ty) => rules.set_relationship_property(ty, &key),
            })
        },
        || format!("Set property for property '{}'", name()),
    )
}

/// The label names of a node being created: those its pattern names, then those named at run
/// time, each once. Only made when a write is looked up by name or refused.
fn new_labels(labels: &[Arc<Token>], runtime: &[Arc<str>]) -> Vec<Arc<str>> {
    let mut names: Vec<Arc<str>> = Vec::with_capacity(labels.len() + runtime.len());
    for name in labels.iter().map(|l| &l.name).chain(runtime) {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

/// [`may_set_property`] for a property named in the store.
fn may_set_stored_property(ent: &Entity, key: PropKeyId, cx: &Cx) -> Result<()> {
    let name = || cx.storage.property_key_name(key).unwrap_or_default();
    may_set_property(Target::Stored(ent), name, cx)
}

/// What a write operator does to each row.
pub(crate) enum Change {
    Create(Arc<[CreateStep]>),
    Set(Arc<[SetOp]>),
    Delete { exprs: Arc<[Expr]>, detach: bool },
}

pub(crate) struct Write {
    change: Change,
    input: BoxCursor,
}

impl Write {
    pub fn new(change: Change, input: BoxCursor) -> Self {
        Write { change, input }
    }
}

impl Cursor for Write {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if !self.input.next(cx, row)? {
            if matches!(self.change, Change::Delete { .. }) {
                finish_deletes(cx)?;
            }
            return Ok(false);
        }
        match &self.change {
            Change::Create(steps) => create(steps, row, cx, false)?,
            Change::Set(ops) => {
                for op in ops.iter() {
                    set(op, row, cx)?;
                }
            }
            Change::Delete { exprs, detach } => delete(exprs, *detach, row, cx)?,
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.input.reset();
    }
}

/// Evaluates the properties of an entity to create. MERGE refuses `null` values: the entity
/// could never be matched again by the same pattern.
fn eval_props(
    props: &Props,
    row: &mut Row,
    cx: &mut Cx,
    merge: bool,
    target: Target<'_>,
) -> Result<Vec<(PropKeyId, Value)>> {
    let mut out = Vec::new();
    let mut push = |key: &Token, v: Value, cx: &mut Cx| -> Result<()> {
        may_set_property(target, || key.name.clone(), cx)?;
        if v.is_null() {
            if merge {
                return Err(Error::runtime(
                    code::SEMANTIC_ERROR,
                    Some("MergeReadOwnWrites"),
                    format!(
                        "Cannot merge the entity because of a null property value for '{}'",
                        key.name
                    ),
                ));
            }
            return Ok(());
        }
        let id = PropKeyId(cx.token_id(key)?);
        out.retain(|(k, _): &(PropKeyId, Value)| *k != id);
        out.push((id, v));
        Ok(())
    };
    match props {
        Props::None => {}
        Props::Map(entries) => {
            for (key, e) in entries {
                let v = e.eval(row, cx)?;
                push(key, v, cx)?;
            }
        }
        Props::Expr(e) => match e.eval(row, cx)? {
            Value::Null => {}
            Value::Map(m) => {
                for (k, v) in m.iter() {
                    let key = Token::new(TokenKind::PropKey, k);
                    push(&key, v.clone(), cx)?;
                }
            }
            other => {
                return Err(Error::type_error(format!(
                    "Properties must be given as a Map, got {}",
                    other.value_type()
                )));
            }
        },
    }
    Ok(out)
}

/// Runs CREATE steps for one row (also the create half of MERGE).
pub(crate) fn create(steps: &[CreateStep], row: &mut Row, cx: &mut Cx, merge: bool) -> Result<()> {
    for step in steps {
        match step {
            CreateStep::Node {
                slot,
                labels,
                dynamic,
                props,
            } => {
                // Named first and checked before any name is made: a refused label is not
                // created either.
                let runtime = dynamic_labels(dynamic, row, cx)?;
                may(
                    cx,
                    Ability::CreateNodes,
                    |rules| Ok(rules.create_node(&new_labels(labels, &runtime))),
                    || {
                        let names = new_labels(labels, &runtime);
                        let names = quoted(names.iter().map(|n| &**n));
                        format!("Create node with labels {names}")
                    },
                )?;
                let mut ids = Vec::with_capacity(labels.len() + runtime.len());
                for l in labels {
                    let id = LabelId(cx.token_id(l)?);
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                for name in &runtime {
                    let id = cx.label_id(name)?;
                    if !ids.contains(&id) {
                        ids.push(id);
                    }
                }
                let props = eval_props(props, row, cx, merge, Target::NewNode(labels, &runtime))?;
                cx.count_write(
                    NODE_WRITE_BYTES + ids.len() * LABEL_WRITE_BYTES + props_bytes(&props),
                )?;
                let id = cx.tx.create_node(&ids, &props)?;
                cx.counters.nodes_created += 1;
                cx.counters.labels_added += ids.len() as u64;
                cx.counters.properties_set += props.len() as u64;
                row[*slot] = node_value(id);
            }
            CreateStep::Rel {
                slot,
                from,
                to,
                ty,
                dynamic,
                props,
            } => {
                let (Some(start), Some(end)) = (node_in(row, *from)?, node_in(row, *to)?) else {
                    return Err(Error::runtime(
                        code::SEMANTIC_ERROR,
                        None,
                        "Failed to create relationship: a node at one of its ends is null",
                    ));
                };
                let runtime = match dynamic {
                    Some(expr) => Some(dynamic_rel_type(expr, row, cx)?),
                    None => None,
                };
                let name: &str = runtime.as_deref().unwrap_or(&ty.name);
                may(
                    cx,
                    Ability::CreateRelationships,
                    |rules| Ok(rules.create_relationship(name)),
                    || format!("Create relationship with type {}", quoted([name])),
                )?;
                let ty = match dynamic {
                    Some(_) => RelTypeId(cx.token_id(&Token::new(TokenKind::RelType, name))?),
                    None => RelTypeId(cx.token_id(ty)?),
                };
                let props = eval_props(props, row, cx, merge, Target::NewRel(name))?;
                cx.count_write(REL_WRITE_BYTES + props_bytes(&props))?;
                let id = cx
                    .tx
                    .create_relationship(NodeId(start), NodeId(end), ty, &props)?;
                cx.counters.relationships_created += 1;
                cx.counters.properties_set += props.len() as u64;
                row[*slot] = rel_value(id);
            }
        }
        cx.advance()?;
    }
    Ok(())
}

/// What the property values of an entity being created hold.
fn props_bytes(props: &[(PropKeyId, Value)]) -> usize {
    props.iter().map(|(_, v)| value_bytes(v)).sum()
}

enum Entity {
    Node(NodeId),
    Rel(RelId),
}

fn entity(e: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Option<Entity>> {
    match e.eval(row, cx)? {
        Value::Null => Ok(None),
        Value::Node(n) => Ok(Some(Entity::Node(NodeId(n.id)))),
        Value::Relationship(r) => Ok(Some(Entity::Rel(RelId(r.id)))),
        other => Err(Error::type_error(format!(
            "Expected a Node or a Relationship, got {}",
            other.value_type()
        ))),
    }
}

fn set_property(ent: &Entity, key: PropKeyId, v: Value, cx: &mut Cx) -> Result<()> {
    may_set_stored_property(ent, key, cx)?;
    let removing = v.is_null();
    cx.count_write(CHANGE_WRITE_BYTES + value_bytes(&v))?;
    let old = match ent {
        Entity::Node(n) => cx.tx.set_node_property(*n, key, v)?,
        Entity::Rel(r) => cx.tx.set_relationship_property(*r, key, v)?,
    };
    if !removing || old.is_some() {
        cx.counters.properties_set += 1;
    }
    Ok(())
}

fn remove_property(ent: &Entity, key: PropKeyId, cx: &mut Cx) -> Result<()> {
    may_set_stored_property(ent, key, cx)?;
    cx.count_write(CHANGE_WRITE_BYTES)?;
    let old = match ent {
        Entity::Node(n) => cx.tx.remove_node_property(*n, key)?,
        Entity::Rel(r) => cx.tx.remove_relationship_property(*r, key)?,
    };
    if old.is_some() {
        cx.counters.properties_set += 1;
    }
    Ok(())
}

/// The map a `SET n = x` / `SET n += x` right-hand side stands for.
fn map_of(v: &Value, cx: &mut Cx) -> Result<Option<Map>> {
    match v {
        Value::Null => Ok(Some(Map::new())),
        Value::Map(m) => Ok(Some((**m).clone())),
        Value::Node(_) | Value::Relationship(_) => properties_of(v, cx),
        other => Err(Error::type_error(format!(
            "Expected a Map, a Node or a Relationship, got {}",
            other.value_type()
        ))),
    }
}

fn current_keys(ent: &Entity, cx: &Cx) -> Result<Vec<PropKeyId>> {
    Ok(match ent {
        Entity::Node(n) => cx.tx.node_properties(*n)?,
        Entity::Rel(r) => cx.tx.rel_properties(*r)?,
    }
    .into_iter()
    .map(|(k, _)| k)
    .collect())
}

pub(crate) fn set(op: &SetOp, row: &mut Row, cx: &mut Cx) -> Result<()> {
    match op {
        SetOp::Prop {
            entity: e,
            key,
            value,
        } => {
            let target = entity(e, row, cx)?;
            let v = value.eval(row, cx)?;
            let Some(target) = target else {
                return Ok(());
            };
            may_set_property(Target::Stored(&target), || key.name.clone(), cx)?;
            let key = if v.is_null() {
                match key.key(&cx.storage) {
                    Some(k) => k,
                    None => return Ok(()),
                }
            } else {
                PropKeyId(cx.token_id(key)?)
            };
            set_property(&target, key, v, cx)?;
        }
        SetOp::Replace { entity: e, value } | SetOp::Merge { entity: e, value } => {
            let replace = matches!(op, SetOp::Replace { .. });
            let target = entity(e, row, cx)?;
            let v = value.eval(row, cx)?;
            let Some(target) = target else {
                return Ok(());
            };
            let Some(map) = map_of(&v, cx)? else {
                return Ok(());
            };
            let mut keep = Vec::with_capacity(map.len());
            for (k, v) in map {
                may_set_property(Target::Stored(&target), || k.clone(), cx)?;
                let token = Token::new(TokenKind::PropKey, &k);
                let id = if v.is_null() {
                    match token.key(&cx.storage) {
                        Some(id) => id,
                        None => continue,
                    }
                } else {
                    PropKeyId(cx.token_id(&token)?)
                };
                keep.push(id);
                set_property(&target, id, v, cx)?;
            }
            if replace {
                for k in current_keys(&target, cx)? {
                    if !keep.contains(&k) {
                        set_property(&target, k, Value::Null, cx)?;
                    }
                }
            }
        }
        SetOp::RemoveProp { entity: e, key } => {
            if let Some(target) = entity(e, row, cx)?
                && let Some(k) = key.key(&cx.storage)
            {
                remove_property(&target, k, cx)?;
            }
        }
        SetOp::DynamicProp {
            entity: e,
            key,
            value,
        } => {
            let target = entity(e, row, cx)?;
            let token = dynamic_key(key, row, cx)?;
            let v = value.eval(row, cx)?;
            let Some(target) = target else {
                return Ok(());
            };
            may_set_property(Target::Stored(&target), || token.name.clone(), cx)?;
            let key = if v.is_null() {
                match token.key(&cx.storage) {
                    Some(k) => k,
                    None => return Ok(()),
                }
            } else {
                PropKeyId(cx.token_id(&token)?)
            };
            set_property(&target, key, v, cx)?;
        }
        SetOp::RemoveDynamicProp { entity: e, key } => {
            let target = entity(e, row, cx)?;
            let token = dynamic_key(key, row, cx)?;
            if let Some(target) = target
                && let Some(k) = token.key(&cx.storage)
            {
                remove_property(&target, k, cx)?;
            }
        }
        SetOp::AddLabels { .. }
        | SetOp::RemoveLabels { .. }
        | SetOp::AddDynamicLabels { .. }
        | SetOp::RemoveDynamicLabels { .. } => change_labels(op, row, cx)?,
    }
    cx.advance()?;
    Ok(())
}

/// `SET n:Label`, `REMOVE n:Label` and their `$(expr)` forms; a null entity is left alone.
fn change_labels(op: &SetOp, row: &mut Row, cx: &mut Cx) -> Result<()> {
    let (e, add) = match op {
        SetOp::AddLabels { entity, .. } | SetOp::AddDynamicLabels { entity, .. } => (entity, true),
        SetOp::RemoveLabels { entity, .. } | SetOp::RemoveDynamicLabels { entity, .. } => {
            (entity, false)
        }
        _ => return Ok(()),
    };
    let n = match entity(e, row, cx)? {
        None => return Ok(()),
        Some(Entity::Node(n)) => n,
        Some(Entity::Rel(_)) if add => {
            return Err(Error::type_error("Labels can only be set on nodes"));
        }
        Some(Entity::Rel(_)) => {
            return Err(Error::type_error("Labels can only be removed from nodes"));
        }
    };
    // Named first and checked before any name is made: a refused label is not created either.
    let runtime = match op {
        SetOp::AddDynamicLabels { labels, .. } | SetOp::RemoveDynamicLabels { labels, .. } => {
            dynamic_labels(labels, row, cx)?
        }
        _ => Vec::new(),
    };
    let written: &[Arc<Token>] = match op {
        SetOp::AddLabels { labels, .. } | SetOp::RemoveLabels { labels, .. } => labels,
        _ => &[],
    };
    let (write, verb) = if add {
        (Ability::SetLabel, "Set")
    } else {
        (Ability::RemoveLabel, "Remove")
    };
    for name in written.iter().map(|l| &l.name).chain(&runtime) {
        may(
            cx,
            write,
            |rules| {
                Ok(if add {
                    rules.set_label(name)
                } else {
                    rules.remove_label(name)
                })
            },
            || format!("{verb} label for label {}", quoted([&**name])),
        )?;
    }
    let mut ids = Vec::new();
    match op {
        SetOp::AddLabels { labels, .. } => {
            for l in labels {
                ids.push(LabelId(cx.token_id(l)?));
            }
        }
        SetOp::RemoveLabels { labels, .. } => {
            ids.extend(labels.iter().filter_map(|l| l.label(&cx.storage)));
        }
        SetOp::AddDynamicLabels { .. } => {
            for name in &runtime {
                ids.push(cx.label_id(name)?);
            }
        }
        SetOp::RemoveDynamicLabels { .. } => {
            ids.extend(runtime.iter().filter_map(|name| cx.storage.label_id(name)));
        }
        _ => {}
    }
    for id in ids {
        cx.count_write(CHANGE_WRITE_BYTES + LABEL_WRITE_BYTES)?;
        if add {
            if cx.tx.add_label(n, id)? {
                cx.counters.labels_added += 1;
            }
        } else if cx.tx.remove_label(n, id)? {
            cx.counters.labels_removed += 1;
        }
    }
    Ok(())
}

/// The names `$(expr)` labels evaluate to: each expression a string or a list of strings. A
/// null, an empty name or anything else fails, as in Neo4j: a label cannot be left unnamed.
fn dynamic_labels(labels: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<Arc<str>>> {
    let mut names = Vec::new();
    for label in labels {
        let value = label.eval(row, cx)?;
        let items = match &value {
            Value::List(items) => items.iter().cloned().collect(),
            other => vec![other.clone()],
        };
        for item in items {
            match item {
                Value::String(s) if !s.is_empty() => names.push(s),
                other => {
                    return Err(Error::type_error(format!(
                        "A dynamic label must be a non-empty String or a List of them, got {}",
                        if matches!(other, Value::String(_)) {
                            "an empty String".to_owned()
                        } else {
                            other.value_type().to_string()
                        }
                    )));
                }
            }
        }
    }
    Ok(names)
}

/// The property key `n[key]` names in SET or REMOVE: a String; null or any other value fails,
/// as in Neo4j (a property cannot be left unnamed).
fn dynamic_key(key: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Arc<Token>> {
    match key.eval(row, cx)? {
        Value::String(name) => Ok(Token::new(TokenKind::PropKey, &name)),
        other => Err(Error::type_error(format!(
            "A dynamic property key must be a String, got {}",
            other.value_type()
        ))),
    }
}

/// The one type a `$(expr)` names for a relationship to create: a non-empty String, or a
/// List holding exactly one. A relationship has exactly one type, so anything else (null, an
/// empty name, no name or several) fails, as in Neo4j.
fn dynamic_rel_type(expr: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Arc<str>> {
    let value = expr.eval(row, cx)?;
    let name = match &value {
        Value::List(items) if items.len() == 1 => items.iter().next().cloned(),
        Value::List(_) => None,
        other => Some(other.clone()),
    };
    match name {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        _ => Err(Error::type_error(format!(
            "A dynamic relationship type to create must be one non-empty String, got {}",
            match &value {
                Value::String(_) => "an empty String".to_owned(),
                Value::List(items) => format!("a List of {} values", items.len()),
                other => other.value_type().to_string(),
            }
        ))),
    }
}

/// What deleting a relationship adds: its own `Deleted` change and, at each end, the
/// adjacency entry's `EdgeRemoved` delta.
const REL_DELETE_WRITE_BYTES: usize = CHANGE_WRITE_BYTES + 2 * 64;

/// Checks deleting relationship `rel`, by its type.
fn may_delete_rel(rel: RelId, cx: &Cx) -> Result<()> {
    may(
        cx,
        Ability::DeleteRelationships,
        |rules| Ok(rules.delete_relationship(&type_name(rel, cx)?)),
        || {
            let ty = type_name(rel, cx).unwrap_or_default();
            format!("Delete relationship with type {}", quoted([&*ty]))
        },
    )
}

fn delete_rel(rel: RelId, cx: &mut Cx) -> Result<()> {
    if !cx.tx.rel_exists(rel)? {
        return Ok(());
    }
    may_delete_rel(rel, cx)?;
    cx.count_write(REL_DELETE_WRITE_BYTES)?;
    cx.tx.delete_relationship(rel)?;
    cx.counters.relationships_deleted += 1;
    cx.advance()
}

/// The error of deleting a node that still has relationships, as Neo4j words it.
fn still_connected(id: u64) -> Error {
    Error::runtime(
        code::CONSTRAINT_VALIDATION,
        Some("DeleteConnectedNode"),
        format!(
            "Cannot delete node<{id}>, because it still has relationships. \
             To delete this node, you must first delete its relationships."
        ),
    )
}

/// Checks what `DETACH DELETE` takes with `node`, before anything of it is deleted: each
/// relationship the user sees is deleted as relationships are, by its type. One they may not
/// see (of a type they may not traverse, or with a hidden node at its other end) is not
/// theirs to delete: it would be left, and the node, still connected, cannot be deleted, so
/// the statement fails as Neo4j fails it. Costs nothing to a user who may delete every
/// relationship and sees the whole graph.
fn may_detach(node: NodeId, cx: &Cx) -> Result<()> {
    let every = cx.subject.holds_write(Ability::DeleteRelationships);
    if every && !cx.tx.is_restricted() {
        return Ok(());
    }
    let seen = cx.tx.expand(node, Direction::Both, &[])?;
    if !every {
        for (rel, _) in &seen {
            may_delete_rel(*rel, cx)?;
        }
    }
    if cx.tx.is_restricted()
        && cx
            .tx
            .unrestricted()
            .expand(node, Direction::Both, &[])?
            .len()
            != seen.len()
    {
        return Err(still_connected(node.0));
    }
    Ok(())
}

fn delete_node(node: NodeId, detach: bool, cx: &mut Cx) -> Result<()> {
    if !cx.tx.node_exists(node)? {
        return Ok(());
    }
    may(
        cx,
        Ability::DeleteNodes,
        |rules| Ok(rules.delete_node(&label_names(node, cx)?)),
        || {
            let labels = label_names(node, cx).unwrap_or_default();
            format!(
                "Delete node with labels {}",
                quoted(labels.iter().map(|l| &**l))
            )
        },
    )?;
    if detach {
        may_detach(node, cx)?;
    }
    cx.count_write(CHANGE_WRITE_BYTES)?;
    if detach {
        let rels = cx.tx.detach_delete_node(node)?;
        cx.count_write(rels * REL_DELETE_WRITE_BYTES)?;
        cx.counters.relationships_deleted += rels as u64;
        cx.counters.nodes_deleted += 1;
        return cx.advance();
    }
    match cx.tx.delete_node(node) {
        Ok(()) => {
            cx.counters.nodes_deleted += 1;
            cx.advance()
        }
        // Its relationships may be deleted by a later row of the same clause: decide once
        // the clause has seen every row.
        Err(quiver_storage::Error::DeleteConnectedNode { id }) => {
            if !cx.pending_deletes.contains(&id) {
                cx.pending_deletes.push(id);
            }
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

fn delete(exprs: &[Expr], detach: bool, row: &mut Row, cx: &mut Cx) -> Result<()> {
    let mut nodes = Vec::new();
    let mut rels = Vec::new();
    for e in exprs {
        match e.eval(row, cx)? {
            Value::Null => {}
            Value::Node(n) => nodes.push(NodeId(n.id)),
            Value::Relationship(r) => rels.push(RelId(r.id)),
            Value::Path(p) => {
                rels.extend(p.relationships.iter().map(|r| RelId(r.id)));
                nodes.extend(p.nodes.iter().map(|n| NodeId(n.id)));
            }
            other => {
                return Err(Error::runtime(
                    code::TYPE_ERROR,
                    Some("InvalidArgumentType"),
                    format!(
                        "DELETE expects a Node, a Relationship or a Path, got {}",
                        other.value_type()
                    ),
                ));
            }
        }
    }
    for r in rels {
        delete_rel(r, cx)?;
    }
    for n in nodes {
        delete_node(n, detach, cx)?;
    }
    cx.advance()?;
    Ok(())
}

/// Retries deletions that waited for relationships; what is still connected is an error.
fn finish_deletes(cx: &mut Cx) -> Result<()> {
    for id in std::mem::take(&mut cx.pending_deletes) {
        let node = NodeId(id);
        if !cx.tx.node_exists(node)? {
            continue;
        }
        match cx.tx.delete_node(node) {
            Ok(()) => cx.counters.nodes_deleted += 1,
            Err(quiver_storage::Error::DeleteConnectedNode { id }) => {
                return Err(still_connected(id));
            }
            Err(quiver_storage::Error::EntityNotFound {
                kind: EntityKind::Node,
                ..
            }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    cx.advance()?;
    Ok(())
}

pub(crate) struct Merge {
    spec: Arc<MergeSpec>,
    input: BoxCursor,
    matcher: BoxCursor,
    active: bool,
    matched: bool,
}

impl Merge {
    pub fn new(spec: Arc<MergeSpec>, input: BoxCursor, matcher: BoxCursor) -> Self {
        Merge {
            spec,
            input,
            matcher,
            active: false,
            matched: false,
        }
    }
}

impl Cursor for Merge {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let MergeSpec {
            create,
            on_match,
            on_create,
            path,
        } = &*self.spec;
        loop {
            if self.active {
                if self.matcher.next(cx, row)? {
                    self.matched = true;
                    for op in on_match {
                        set(op, row, cx)?;
                    }
                    if let Some((slot, e)) = path {
                        row[*slot] = e.eval(row, cx)?;
                    }
                    return Ok(true);
                }
                self.active = false;
                if !self.matched {
                    self::create(create, row, cx, true)?;
                    for op in on_create {
                        set(op, row, cx)?;
                    }
                    if let Some((slot, e)) = path {
                        row[*slot] = e.eval(row, cx)?;
                    }
                    return Ok(true);
                }
            }
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            cx.tick()?;
            self.matcher.reset();
            self.active = true;
            self.matched = false;
        }
    }

    fn reset(&mut self) {
        self.active = false;
        self.matched = false;
        self.input.reset();
        self.matcher.reset();
    }
}
