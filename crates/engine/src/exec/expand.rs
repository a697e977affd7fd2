//! Single-hop expansion: from a bound node along relationships of some types, binding the
//! relationship and the node at its other end (or checking that end, for `Expand(Into)`).

use std::sync::Arc;

use quiver_storage::{Direction, NodeId, RelId, RelTypeId};
use quiver_value::Value;

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result};
use crate::eval::graph_fns::{node_value, rel_value};
use crate::eval::row_bytes;
use crate::ir::{ExpandSpec, Row};
use crate::tokens::Token;

pub(crate) struct Expand {
    spec: Arc<ExpandSpec>,
    input: BoxCursor,
    buf: Vec<(RelId, NodeId)>,
    pos: usize,
    /// The batch (not `Expand(Into)`): input rows read ahead, their start nodes, and the
    /// relationships of all of them from one [`quiver_storage::Transaction::expand_batch`].
    rows: Vec<Row>,
    froms: Vec<NodeId>,
    batch: Vec<(u32, RelId, NodeId)>,
    /// The input row `row` holds a copy of, while one call walks the batch.
    current: Option<u32>,
    /// How many input rows the next batch reads: it doubles up to `EXPAND_BATCH_ROWS`, so
    /// a query that wants a row or two reads little ahead.
    batch_rows: usize,
    input_done: bool,
    /// Bytes counted for the batch: given back when the next one is read.
    held: usize,
    types: Vec<RelTypeId>,
    /// For `Expand(Into)`: the node the expanded relationships must reach.
    target: u64,
    /// For `Expand(Into)`: the last `from` node and its degree, since consecutive rows
    /// often share it (all candidates checked against one person).
    from_degree: Option<(u64, usize)>,
}

impl Expand {
    pub fn new(spec: Arc<ExpandSpec>, input: BoxCursor) -> Self {
        Expand {
            spec,
            input,
            buf: Vec::new(),
            pos: 0,
            rows: Vec::new(),
            froms: Vec::new(),
            batch: Vec::new(),
            current: None,
            batch_rows: 1,
            input_done: false,
            held: 0,
            types: Vec::new(),
            target: 0,
            from_degree: None,
        }
    }
}

/// Most input rows one batched expand reads ahead. Expands of many nodes at once take their
/// cache misses together instead of one after another; the rows read ahead are the cost.
/// Reading ahead changes nothing a query sees: writes and the reads after them are separated
/// by Eager barriers, so no write runs between an Expand's input and its output.
const EXPAND_BATCH_ROWS: usize = 64;

/// `Expand(Into)` keeps walking its `from` node's relationships without asking about the
/// other end when there are at most this many: so few cost less to walk than the question.
const INTO_WALK_ANYWAY: usize = 256;

/// The direction of the same relationships seen from their other end.
fn reversed(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

/// How many relationships of `types` a node has in `dir`; directed degrees are read from the
/// adjacency lists' lengths without visiting them.
fn degree(cx: &Cx, node: u64, dir: Direction, types: &[RelTypeId]) -> Result<usize> {
    Ok(match dir {
        Direction::Both => {
            cx.tx.degree(NodeId(node), Direction::Out, types)?
                + cx.tx.degree(NodeId(node), Direction::In, types)?
        }
        dir => cx.tx.degree(NodeId(node), dir, types)?,
    })
}

/// Resolves a pattern's relationship types; `None` when none exists (nothing can match).
pub(crate) fn resolve_types(
    tokens: &[Arc<Token>],
    cx: &Cx,
    out: &mut Vec<RelTypeId>,
) -> Option<()> {
    out.clear();
    if tokens.is_empty() {
        return Some(());
    }
    out.extend(tokens.iter().filter_map(|t| t.rel_type(&cx.storage)));
    (!out.is_empty()).then_some(())
}

/// The node id in a slot; `None` for `null`, an error for anything but a node.
pub(crate) fn node_in(row: &Row, slot: usize) -> Result<Option<u64>> {
    match row.get(slot) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Node(n)) => Ok(Some(n.id)),
        Some(other) => Err(Error::type_error(format!(
            "Expected a Node, got {}",
            other.value_type()
        ))),
    }
}

/// The node in slot `from` of the next input row that has one there (and, with `to`, a node
/// in that slot too), after releasing what the previous row `held`; `None` when the input is
/// done. How the path operators move on to their next start.
pub(crate) fn next_start(
    input: &mut BoxCursor,
    held: &mut usize,
    from: usize,
    to: Option<usize>,
    cx: &mut Cx,
    row: &mut Row,
) -> Result<Option<u64>> {
    cx.release(std::mem::take(held));
    loop {
        cx.tick()?;
        if !input.next(cx, row)? {
            return Ok(None);
        }
        let Some(start) = node_in(row, from)? else {
            continue;
        };
        if let Some(to) = to
            && node_in(row, to)?.is_none()
        {
            continue;
        }
        return Ok(Some(start));
    }
}

/// Whether a relationship is already bound elsewhere in the pattern.
pub(crate) fn excluded(rel: u64, row: &Row, exclude: &[usize], lists: &[usize]) -> bool {
    exclude
        .iter()
        .any(|s| matches!(row.get(*s), Some(Value::Relationship(r)) if r.id == rel))
        || lists.iter().any(|s| match row.get(*s) {
            Some(Value::List(items)) => items
                .iter()
                .any(|v| matches!(v, Value::Relationship(r) if r.id == rel)),
            _ => false,
        })
}

impl Expand {
    /// `Expand(All)`: walks the batch, reading the next one when it runs out.
    fn next_batched(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = self.spec.clone();
        // Between two calls the row is the consumer's: an operator above may have written any
        // slot (a batched Expand above copies its own read-ahead rows into it), so the input
        // row is copied in again for the first relationship of every call.
        self.current = None;
        loop {
            while let Some(&(i, rel, nbr)) = self.batch.get(self.pos) {
                self.pos += 1;
                if self.current != Some(i) {
                    let Some(input) = self.rows.get(i as usize) else {
                        continue;
                    };
                    row.clone_from(input);
                    self.current = Some(i);
                }
                if excluded(rel.0, row, &spec.exclude, &spec.exclude_lists) {
                    continue;
                }
                row[spec.to] = node_value(nbr);
                row[spec.rel] = rel_value(rel);
                return Ok(true);
            }
            if self.input_done {
                return Ok(false);
            }
            self.read_batch(cx, row)?;
        }
    }

    /// Reads up to `batch_rows` input rows and expands their start nodes together.
    fn read_batch(&mut self, cx: &mut Cx, row: &mut Row) -> Result<()> {
        let spec = self.spec.clone();
        cx.release(std::mem::take(&mut self.held));
        self.rows.clear();
        self.froms.clear();
        self.batch.clear();
        self.pos = 0;
        self.current = None;
        let mut held = 0;
        while self.rows.len() < self.batch_rows {
            cx.tick()?;
            if !self.input.next(cx, row)? {
                self.input_done = true;
                break;
            }
            let Some(from) = node_in(row, spec.from)? else {
                continue;
            };
            if resolve_types(&spec.types, cx, &mut self.types).is_none() {
                continue;
            }
            let bytes = row_bytes(row);
            cx.reserve(bytes, "an expand's batch of input rows")?;
            held += bytes;
            self.held = held;
            self.rows.push(row.clone());
            self.froms.push(NodeId(from));
        }
        self.batch_rows = (self.batch_rows * 2).min(EXPAND_BATCH_ROWS);
        if self.froms.is_empty() {
            return Ok(());
        }
        cx.tx
            .expand_batch(&self.froms, spec.dir, &self.types, &mut self.batch)?;
        cx.db_hits += self.batch.len() as u64;
        let bytes = std::mem::size_of_val(self.batch.as_slice());
        cx.reserve(bytes, "an expand's batch of relationships")?;
        self.held += bytes;
        Ok(())
    }
}

impl Cursor for Expand {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let spec = &*self.spec;
        if !spec.into {
            return self.next_batched(cx, row);
        }
        loop {
            while let Some(&(rel, nbr)) = self.buf.get(self.pos) {
                self.pos += 1;
                if excluded(rel.0, row, &spec.exclude, &spec.exclude_lists) {
                    continue;
                }
                if spec.into {
                    if nbr.0 != self.target {
                        continue;
                    }
                } else {
                    row[spec.to] = node_value(nbr);
                }
                row[spec.rel] = rel_value(rel);
                return Ok(true);
            }
            cx.tick()?;
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            self.buf.clear();
            self.pos = 0;
            let Some(from) = node_in(row, spec.from)? else {
                continue;
            };
            if resolve_types(&spec.types, cx, &mut self.types).is_none() {
                continue;
            }
            let Some(to) = node_in(row, spec.to)? else {
                continue;
            };
            // Walk the relationships of whichever end has fewer: checking a node with a few
            // relationships against one with millions takes a few steps. The start node's
            // count comes from walking it (or from the row before, when it is the same node),
            // so rows whose start node has few relationships pay nothing for the choice.
            self.target = to;
            let back = reversed(spec.dir);
            let many = match self.from_degree {
                Some((node, d)) if node == from && d > INTO_WALK_ANYWAY => Some(d),
                _ => {
                    cx.tx
                        .expand_into(NodeId(from), spec.dir, &self.types, &mut self.buf)?;
                    self.from_degree = Some((from, self.buf.len()));
                    (self.buf.len() > INTO_WALK_ANYWAY).then_some(self.buf.len())
                }
            };
            if let Some(d) = many {
                if degree(cx, to, back, &self.types)? < d {
                    self.buf.clear();
                    cx.tx
                        .expand_into(NodeId(to), back, &self.types, &mut self.buf)?;
                    self.target = from;
                } else if self.buf.is_empty() {
                    cx.tx
                        .expand_into(NodeId(from), spec.dir, &self.types, &mut self.buf)?;
                }
            }
            cx.db_hits += self.buf.len() as u64;
        }
    }

    fn reset(&mut self) {
        self.buf.clear();
        self.pos = 0;
        self.rows.clear();
        self.froms.clear();
        self.batch.clear();
        self.current = None;
        self.batch_rows = 1;
        self.input_done = false;
        self.from_degree = None;
        self.input.reset();
    }
}
