//! Variable-length expansion (`-[:T*min..max]->`): a depth-first walk that yields every path
//! whose length is in range, never using a relationship twice on one path (nor one bound
//! elsewhere in the same pattern).

use std::sync::Arc;

use quiver_storage::{NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::expand::{excluded, next_start, node_in, resolve_types};
use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::{node_value, rel_value};
use crate::eval::truthy;
use crate::ir::{Row, VarExpandSpec};

struct Frame {
    rels: Vec<(RelId, NodeId)>,
    pos: usize,
    /// The relationships of every neighbour in `rels`, as `(index into rels, relationship,
    /// neighbour)` from one batched expand, when the search may go a level deeper: the
    /// frames below take their lists from here, so a level's expands take their cache
    /// misses together. Empty at the last level.
    kids: Vec<(u32, RelId, NodeId)>,
    /// How far `kids` has been consumed (its indexes rise with `pos`).
    kpos: usize,
}

pub(crate) struct VarExpand {
    spec: Arc<VarExpandSpec>,
    input: BoxCursor,
    stack: Vec<Frame>,
    path: Vec<RelId>,
    pool: Vec<Vec<(RelId, NodeId)>>,
    kid_pool: Vec<Vec<(u32, RelId, NodeId)>>,
    /// The neighbours of a frame being built, for its batched expand.
    nbrs: Vec<NodeId>,
    types: Vec<RelTypeId>,
    /// A zero-length path waits to be emitted for the current input row.
    zero: Option<u64>,
    /// The current input row. Between two calls the row is the consumer's (a batched Expand
    /// above copies its read-ahead rows into it), so each call that goes on with the same
    /// start copies it in again before binding the next path.
    start: Row,
    /// Bytes counted for the frames on `stack`: given back as frames are popped, and whole
    /// when the stack is found empty (after a reset too).
    held: usize,
}

impl VarExpand {
    pub fn new(spec: Arc<VarExpandSpec>, input: BoxCursor) -> Self {
        VarExpand {
            spec,
            input,
            stack: Vec::new(),
            path: Vec::new(),
            pool: Vec::new(),
            kid_pool: Vec::new(),
            nbrs: Vec::new(),
            types: Vec::new(),
            zero: None,
            start: Row::new(),
            held: 0,
        }
    }
}

/// What one frame of the search holds: the relationships still to try from its node and
/// those of its neighbours.
fn frame_bytes(rels: &[(RelId, NodeId)], kids: &[(u32, RelId, NodeId)]) -> usize {
    std::mem::size_of_val(rels) + std::mem::size_of_val(kids) + std::mem::size_of::<Frame>()
}

fn recycle(
    mut f: Frame,
    pool: &mut Vec<Vec<(RelId, NodeId)>>,
    kid_pool: &mut Vec<Vec<(u32, RelId, NodeId)>>,
) {
    f.rels.clear();
    f.kids.clear();
    pool.push(f.rels);
    kid_pool.push(f.kids);
}

fn clear(
    stack: &mut Vec<Frame>,
    pools: (
        &mut Vec<Vec<(RelId, NodeId)>>,
        &mut Vec<Vec<(u32, RelId, NodeId)>>,
    ),
    path: &mut Vec<RelId>,
) {
    for f in stack.drain(..) {
        recycle(f, pools.0, pools.1);
    }
    path.clear();
}

impl VarExpand {
    /// Pushes the frame of `nbr`, reached through the top frame's relationship whose
    /// neighbours' entries are `kids` of it: its relationships (when `expand`) come from
    /// there, or from an expand of its own when the top frame did not read ahead.
    fn descend(
        &mut self,
        cx: &mut Cx,
        nbr: NodeId,
        kids: std::ops::Range<usize>,
        expand: bool,
        deeper: bool,
    ) -> Result<()> {
        let mut rels = self.pool.pop().unwrap_or_default();
        if expand {
            match self.stack.last() {
                Some(top) if !top.kids.is_empty() => {
                    rels.extend(
                        top.kids
                            .get(kids)
                            .unwrap_or_default()
                            .iter()
                            .map(|(_, r, n)| (*r, *n)),
                    );
                }
                _ => cx
                    .tx
                    .expand_into(nbr, self.spec.dir, &self.types, &mut rels)?,
            }
        }
        let frame = self.frame(cx, rels, deeper)?;
        self.stack.push(frame);
        Ok(())
    }

    /// A frame over `rels`, with its neighbours' relationships expanded in one batch when
    /// the search may go deeper than this frame.
    fn frame(&mut self, cx: &mut Cx, rels: Vec<(RelId, NodeId)>, deeper: bool) -> Result<Frame> {
        let mut kids = self.kid_pool.pop().unwrap_or_default();
        if deeper && !rels.is_empty() {
            self.nbrs.clear();
            self.nbrs.extend(rels.iter().map(|(_, n)| *n));
            cx.tx
                .expand_batch(&self.nbrs, self.spec.dir, &self.types, &mut kids)?;
        }
        let bytes = frame_bytes(&rels, &kids);
        cx.reserve(bytes, "a variable-length path frontier")?;
        self.held += bytes;
        Ok(Frame {
            rels,
            pos: 0,
            kids,
            kpos: 0,
        })
    }
}

fn bind(spec: &VarExpandSpec, path: &[RelId], end: u64, row: &mut Row) {
    let mut rels: Vec<Value> = path.iter().map(|r| rel_value(*r)).collect();
    if spec.reversed {
        rels.reverse();
    }
    row[spec.rels] = Value::from(rels);
    if !spec.into {
        row[spec.to] = node_value(NodeId(end));
    }
}

impl Cursor for VarExpand {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = self.spec.clone();
        let spec = &*spec;
        let max = spec.max.min(cx.var_length_hops_max.saturating_add(1));
        if self.zero.is_some() || !self.stack.is_empty() {
            row.clone_from(&self.start);
        }
        loop {
            if let Some(start) = self.zero.take()
                && (!spec.into || node_in(row, spec.to)? == Some(start))
            {
                bind(spec, &[], start, row);
                return Ok(true);
            }
            let Some(top) = self.stack.last_mut() else {
                let to = spec.into.then_some(spec.to);
                let next = next_start(&mut self.input, &mut self.held, spec.from, to, cx, row)?;
                let Some(from) = next else {
                    return Ok(false);
                };
                self.start.clone_from(row);
                if resolve_types(&spec.types, cx, &mut self.types).is_none() {
                    if spec.min == 0 {
                        self.zero = Some(from);
                    }
                    continue;
                }
                if spec.min == 0 {
                    self.zero = Some(from);
                }
                let mut rels = self.pool.pop().unwrap_or_default();
                if max > 0 {
                    cx.tx
                        .expand_into(NodeId(from), spec.dir, &self.types, &mut rels)?;
                }
                let frame = self.frame(cx, rels, max > 1)?;
                self.stack.push(frame);
                continue;
            };
            let Some(&(rel, nbr)) = top.rels.get(top.pos) else {
                if let Some(f) = self.stack.pop() {
                    let bytes = frame_bytes(&f.rels, &f.kids).min(self.held);
                    cx.release(bytes);
                    self.held -= bytes;
                    recycle(f, &mut self.pool, &mut self.kid_pool);
                }
                self.path.pop();
                continue;
            };
            let at = top.pos as u32;
            top.pos += 1;
            // The neighbour's relationships, when this frame expanded them ahead.
            let kids_from = top.kpos + top.kids[top.kpos..].partition_point(|k| k.0 < at);
            let kids_to = kids_from + top.kids[kids_from..].partition_point(|k| k.0 == at);
            top.kpos = kids_to;
            cx.tick()?;
            if self.path.contains(&rel) || excluded(rel.0, row, &spec.exclude, &spec.exclude_lists)
            {
                continue;
            }
            if let Some((slot, predicate)) = &spec.rel_filter {
                row[*slot] = rel_value(rel);
                if !truthy(&predicate.eval(row, cx)?)? {
                    continue;
                }
            }
            self.path.push(rel);
            let depth = self.path.len() as u32;
            if depth > cx.var_length_hops_max {
                clear(
                    &mut self.stack,
                    (&mut self.pool, &mut self.kid_pool),
                    &mut self.path,
                );
                return Err(Error::runtime(
                    crate::error::code::ARGUMENT_ERROR,
                    None,
                    format!(
                        "A variable-length pattern exceeded {} hops",
                        cx.var_length_hops_max
                    ),
                ));
            }
            self.descend(cx, nbr, kids_from..kids_to, depth < max, depth + 1 < max)?;
            if depth >= spec.min && (!spec.into || node_in(row, spec.to)? == Some(nbr.0)) {
                bind(spec, &self.path, nbr.0, row);
                return Ok(true);
            }
        }
    }

    fn reset(&mut self) {
        clear(
            &mut self.stack,
            (&mut self.pool, &mut self.kid_pool),
            &mut self.path,
        );
        self.zero = None;
        self.input.reset();
    }
}
