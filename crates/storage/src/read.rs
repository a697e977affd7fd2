//! Reconstructing an entity as a view sees it: the newest state, corrected by the undos of the
//! deltas the view must not see. With no such delta (the common case) a read is the newest
//! state plus one check of the chain head.

use smallvec::SmallVec;

use quiver_value::Value;

use crate::arena::Locked;
use crate::error::Result;
use crate::filter::PropTest;
use crate::graph::{AdjEntry, AdjList, NodeRec, RelRec, prop_all, prop_get};
use crate::ids::{Direction, NodeId, RelId};
use crate::mvcc::{Chain, Undo, View, invisible};

#[inline]
fn settled(chain: &Chain, view: &View) -> bool {
    chain.as_deref().is_none_or(|d| view.sees(d))
}

fn exists_after(mut exists: bool, u: &Undo) -> bool {
    match u {
        Undo::Created => exists = false,
        Undo::Deleted => exists = true,
        _ => {}
    }
    exists
}

/// Whether an entity exists at `view`: its newest state (`live`), rolled back through the
/// undos on its `chain` the view must not see.
#[inline]
fn exists_at(live: bool, chain: &Chain, view: &View) -> bool {
    let mut exists = live;
    if !settled(chain, view) {
        for u in invisible(chain, view) {
            exists = exists_after(exists, u);
        }
    }
    exists
}

/// Property `key` of an entity at `view` from its newest state (`live`, `value`), rolled back
/// as [`exists_at`] does. Outer `None`: the entity does not exist there.
#[inline]
#[allow(clippy::option_option)]
fn prop_at(
    live: bool,
    chain: &Chain,
    view: &View,
    key: u32,
    mut value: Option<Value>,
) -> Option<Option<Value>> {
    let mut exists = live;
    if !settled(chain, view) {
        for u in invisible(chain, view) {
            exists = exists_after(exists, u);
            if let Undo::Property { key: k, old } = u
                && *k == key
            {
                value.clone_from(old);
            }
        }
    }
    exists.then_some(value)
}

/// All properties of an entity at `view` from its newest state (`live`, `props`), rolled back
/// as [`exists_at`] does; `None` if the entity does not exist there.
#[inline]
fn props_at(
    live: bool,
    chain: &Chain,
    view: &View,
    mut props: Vec<(u32, Value)>,
) -> Option<Vec<(u32, Value)>> {
    let mut exists = live;
    if !settled(chain, view) {
        for u in invisible(chain, view) {
            exists = exists_after(exists, u);
            if let Undo::Property { key, old } = u {
                apply_prop_undo(&mut props, *key, old);
            }
        }
    }
    exists.then_some(props)
}

pub(crate) fn node_exists(rec: &Locked<'_, NodeRec>, view: &View) -> bool {
    exists_at(rec.is_live(), rec.chain(), view)
}

pub(crate) fn node_labels(
    rec: &Locked<'_, NodeRec>,
    view: &View,
) -> Result<Option<SmallVec<[u32; 4]>>> {
    let mut exists = rec.is_live();
    let mut labels = rec.labels()?;
    if !settled(rec.chain(), view) {
        for u in invisible(rec.chain(), view) {
            exists = exists_after(exists, u);
            match u {
                Undo::LabelAdded(l) => labels.retain(|x| x != l),
                Undo::LabelRemoved(l) if !labels.contains(l) => labels.push(*l),
                _ => {}
            }
        }
    }
    Ok(exists.then_some(labels))
}

pub(crate) fn node_has_label(
    rec: &Locked<'_, NodeRec>,
    view: &View,
    label: u32,
) -> Result<Option<bool>> {
    if settled(rec.chain(), view) {
        return Ok(if rec.is_live() {
            Some(rec.has_label(label)?)
        } else {
            None
        });
    }
    Ok(node_labels(rec, view)?.map(|l| l.contains(&label)))
}

/// Outer `None`: the entity is not visible; inner: the property is absent.
#[allow(clippy::option_option)]
pub(crate) fn node_prop(
    rec: &Locked<'_, NodeRec>,
    view: &View,
    key: u32,
) -> Result<Option<Option<Value>>> {
    let value = prop_get(rec.props()?, key)?;
    Ok(prop_at(rec.is_live(), rec.chain(), view, key, value))
}

pub(crate) fn node_props(
    rec: &Locked<'_, NodeRec>,
    view: &View,
) -> Result<Option<Vec<(u32, Value)>>> {
    let props = prop_all(rec.props()?)?;
    Ok(props_at(rec.is_live(), rec.chain(), view, props))
}

fn apply_prop_undo(props: &mut Vec<(u32, Value)>, key: u32, old: &Option<Value>) {
    let at = props.iter().position(|(k, _)| *k == key);
    match (at, old) {
        (Some(i), Some(v)) => props[i].1 = v.clone(),
        (Some(i), None) => {
            props.remove(i);
        }
        (None, Some(v)) => {
            let i = props.partition_point(|(k, _)| *k < key);
            props.insert(i, (key, v.clone()));
        }
        (None, None) => {}
    }
}

#[inline]
fn wanted(dir: Direction, out: bool, e: AdjEntry, node: u64, types: &[u32]) -> bool {
    let dir_ok = match dir {
        Direction::Out => out,
        Direction::In => !out,
        Direction::Both => out || e.nbr() != node,
    };
    dir_ok && (types.is_empty() || types.contains(&e.ty()))
}

#[inline]
fn push_list<T>(
    list: AdjList<'_>,
    skip_self: Option<u64>,
    types: &[u32],
    out: &mut Vec<T>,
    mk: impl Fn(RelId, NodeId) -> T + Copy,
) {
    let mut emit = |slice: AdjList<'_>| {
        out.reserve(slice.len());
        for e in slice.iter() {
            if skip_self != Some(e.nbr()) {
                out.push(mk(RelId(e.rel()), NodeId(e.nbr())));
            }
        }
    };
    if types.is_empty() {
        emit(list);
    } else {
        for t in types {
            emit(list.of_type(Some(*t)));
        }
    }
}

/// Appends the node's relationships as the view sees them; returns whether the node exists.
/// `types` must be free of duplicates.
pub(crate) fn node_expand(
    rec: &Locked<'_, NodeRec>,
    node: u64,
    view: &View,
    dir: Direction,
    types: &[u32],
    out: &mut Vec<(RelId, NodeId)>,
) -> bool {
    node_expand_as(rec, node, view, dir, types, out, |r, n| (r, n))
}

/// As [`node_expand`], appending each (relationship, neighbour) as `mk` builds it: a batch
/// writes its entries straight into its output with no buffer between.
#[inline]
pub(crate) fn node_expand_as<T: PartialEq>(
    rec: &Locked<'_, NodeRec>,
    node: u64,
    view: &View,
    dir: Direction,
    types: &[u32],
    out: &mut Vec<T>,
    mk: impl Fn(RelId, NodeId) -> T + Copy,
) -> bool {
    let start = out.len();
    if matches!(dir, Direction::Out | Direction::Both) {
        push_list(rec.adj(true), None, types, out, mk);
    }
    match dir {
        Direction::In => push_list(rec.adj(false), None, types, out, mk),
        Direction::Both => push_list(rec.adj(false), Some(node), types, out, mk),
        Direction::Out => {}
    }
    let mut exists = rec.is_live();
    if !settled(rec.chain(), view) {
        for u in invisible(rec.chain(), view) {
            exists = exists_after(exists, u);
            match u {
                Undo::EdgeAdded { out: o, entry } if wanted(dir, *o, *entry, node, types) => {
                    let pair = mk(RelId(entry.rel()), NodeId(entry.nbr()));
                    if let Some(i) = out[start..].iter().position(|p| *p == pair) {
                        out.swap_remove(start + i);
                    }
                }
                Undo::EdgeRemoved { out: o, entry } if wanted(dir, *o, *entry, node, types) => {
                    out.push(mk(RelId(entry.rel()), NodeId(entry.nbr())));
                }
                _ => {}
            }
        }
    }
    if !exists {
        out.truncate(start);
    }
    exists
}

/// The number of relationships an expand would return, without building them when the node
/// has no changes the view must undo.
pub(crate) fn node_degree(
    rec: &Locked<'_, NodeRec>,
    node: u64,
    view: &View,
    dir: Direction,
    types: &[u32],
) -> Option<usize> {
    if settled(rec.chain(), view) && dir != Direction::Both {
        if !rec.is_live() {
            return None;
        }
        let list = rec.adj(dir == Direction::Out);
        return Some(if types.is_empty() {
            list.len()
        } else {
            types.iter().map(|t| list.of_type(Some(*t)).len()).sum()
        });
    }
    let mut buf = Vec::new();
    node_expand(rec, node, view, dir, types, &mut buf).then_some(buf.len())
}

/// The number of relationships an expand would return whose neighbour `keep` keeps, without
/// building them when the node has no changes the view must undo.
pub(crate) fn node_count_neighbours(
    rec: &Locked<'_, NodeRec>,
    node: u64,
    view: &View,
    dir: Direction,
    types: &[u32],
    mut keep: impl FnMut(NodeId) -> bool,
) -> Option<usize> {
    if settled(rec.chain(), view) && dir != Direction::Both {
        if !rec.is_live() {
            return None;
        }
        let list = rec.adj(dir == Direction::Out);
        let mut kept = |list: AdjList<'_>| list.iter().filter(|e| keep(NodeId(e.nbr()))).count();
        return Some(if types.is_empty() {
            kept(list)
        } else {
            types.iter().map(|t| kept(list.of_type(Some(*t)))).sum()
        });
    }
    let mut buf = Vec::new();
    node_expand(rec, node, view, dir, types, &mut buf)
        .then(|| buf.iter().filter(|(_, n)| keep(*n)).count())
}

/// The end node of relationship `rel` of type `ty` that starts at `start`: from the start's
/// out-list, or, when the newest version no longer has it, from the start's chain (the undo of
/// its removal stays there as long as any snapshot can still see the relationship).
pub(crate) fn rel_end(start: &Locked<'_, NodeRec>, rel: u64, ty: u32) -> Option<u64> {
    let list = start.adj(true).of_type(Some(ty));
    let i = list.partition_point(|e| e.rel() < rel);
    if let Some(e) = list.get(i).filter(|e| e.rel() == rel) {
        return Some(e.nbr());
    }
    crate::mvcc::all(start.chain()).find_map(|u| match u {
        Undo::EdgeAdded { out: true, entry } | Undo::EdgeRemoved { out: true, entry }
            if entry.rel() == rel =>
        {
            Some(entry.nbr())
        }
        _ => None,
    })
}

pub(crate) fn rel_exists(rec: &Locked<'_, RelRec>, view: &View) -> bool {
    exists_at(rec.is_live(), rec.chain(), view)
}

/// Outer `None`: the entity is not visible; inner: the property is absent.
#[allow(clippy::option_option)]
pub(crate) fn rel_prop(
    rec: &Locked<'_, RelRec>,
    view: &View,
    key: u32,
) -> Result<Option<Option<Value>>> {
    let value = prop_get(rec.props.bytes(), key)?;
    Ok(prop_at(rec.is_live(), rec.chain(), view, key, value))
}

/// Whether the relationship's property passes `test` at `view`: on the stored bytes in place
/// when the view has nothing to undo, else on the value rolled back to the view. A
/// relationship the view does not see passes nothing.
pub(crate) fn rel_prop_test(
    rec: &Locked<'_, RelRec>,
    view: &View,
    test: &PropTest,
) -> Result<bool> {
    if settled(rec.chain(), view) {
        return if rec.is_live() {
            test.keeps_encoded(rec.props.bytes())
        } else {
            Ok(false)
        };
    }
    let value = rel_prop(rec, view, test.key.0)?.flatten();
    Ok(test.keeps(value.as_ref()))
}

pub(crate) fn rel_props(
    rec: &Locked<'_, RelRec>,
    view: &View,
) -> Result<Option<Vec<(u32, Value)>>> {
    let props = prop_all(rec.props.bytes())?;
    Ok(props_at(rec.is_live(), rec.chain(), view, props))
}
