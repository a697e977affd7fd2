//! Variable-length expansion (`-[:T*min..max]->`): a depth-first walk that yields every path
//! whose length is in range, never using a relationship twice on one path (nor one bound
//! elsewhere in the same pattern).

use std::sync::Arc;

use quiver_storage::{NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::expand::{excluded, node_in, resolve_types};
use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::{node_value, rel_value};
use crate::eval::truthy;
use crate::ir::{Row, VarExpandSpec};

struct Frame {
    rels: Vec<(RelId, NodeId)>,
    pos: usize,
}

pub(crate) struct VarExpand {
    spec: Arc<VarExpandSpec>,
    input: BoxCursor,
    stack: Vec<Frame>,
    path: Vec<RelId>,
    pool: Vec<Vec<(RelId, NodeId)>>,
    types: Vec<RelTypeId>,
    /// A zero-length path waits to be emitted for the current input row.
    zero: Option<u64>,
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
            types: Vec::new(),
            zero: None,
            held: 0,
        }
    }
}

/// What one frame of the search holds: the relationships still to try from its node.
fn frame_bytes(rels: &[(RelId, NodeId)]) -> usize {
    std::mem::size_of_val(rels) + std::mem::size_of::<Frame>()
}

fn clear(stack: &mut Vec<Frame>, pool: &mut Vec<Vec<(RelId, NodeId)>>, path: &mut Vec<RelId>) {
    for mut f in stack.drain(..) {
        f.rels.clear();
        pool.push(f.rels);
    }
    path.clear();
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
        let spec = &*self.spec;
        let max = spec.max.min(cx.var_length_hops_max.saturating_add(1));
        loop {
            if let Some(start) = self.zero.take()
                && (!spec.into || node_in(row, spec.to)? == Some(start))
            {
                bind(spec, &[], start, row);
                return Ok(true);
            }
            let Some(top) = self.stack.last_mut() else {
                cx.release(std::mem::take(&mut self.held));
                cx.tick()?;
                if !self.input.next(cx, row)? {
                    return Ok(false);
                }
                let Some(from) = node_in(row, spec.from)? else {
                    continue;
                };
                if spec.into && node_in(row, spec.to)?.is_none() {
                    continue;
                }
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
                let bytes = frame_bytes(&rels);
                cx.reserve(bytes, "a variable-length path frontier")?;
                self.held += bytes;
                self.stack.push(Frame { rels, pos: 0 });
                continue;
            };
            let Some(&(rel, nbr)) = top.rels.get(top.pos) else {
                if let Some(mut f) = self.stack.pop() {
                    let bytes = frame_bytes(&f.rels).min(self.held);
                    cx.release(bytes);
                    self.held -= bytes;
                    f.rels.clear();
                    self.pool.push(f.rels);
                }
                self.path.pop();
                continue;
            };
            top.pos += 1;
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
                clear(&mut self.stack, &mut self.pool, &mut self.path);
                return Err(Error::runtime(
                    crate::error::code::ARGUMENT_ERROR,
                    None,
                    format!(
                        "A variable-length pattern exceeded {} hops",
                        cx.var_length_hops_max
                    ),
                ));
            }
            let mut rels = self.pool.pop().unwrap_or_default();
            if depth < max {
                cx.tx.expand_into(nbr, spec.dir, &self.types, &mut rels)?;
            }
            let bytes = frame_bytes(&rels);
            cx.reserve(bytes, "a variable-length path frontier")?;
            self.held += bytes;
            self.stack.push(Frame { rels, pos: 0 });
            if depth >= spec.min && (!spec.into || node_in(row, spec.to)? == Some(nbr.0)) {
                bind(spec, &self.path, nbr.0, row);
                return Ok(true);
            }
        }
    }

    fn reset(&mut self) {
        clear(&mut self.stack, &mut self.pool, &mut self.path);
        self.zero = None;
        self.input.reset();
    }
}
