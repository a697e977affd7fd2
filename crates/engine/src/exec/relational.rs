//! Row operators that do not touch the graph themselves: filter, projection, aggregation,
//! distinct, sort (and top-n), skip/limit, unwind and the eager barrier.

use std::cmp::Ordering;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use quiver_value::{HashKey, Value};

use super::{BoxCursor, Cursor, Cx, parallel};
use crate::error::{Error, Result, code};
use crate::eval::aggregate::Acc;
use crate::eval::{ROW_OVERHEAD_BYTES, row_bytes, truthy, value_bytes};
use crate::ir::{AggSpec, Expr, PlanNode, Row, SortKey};

/// The single argument row.
#[derive(Default)]
pub(crate) struct Once {
    done: bool,
}

impl Cursor for Once {
    fn next(&mut self, _: &mut Cx, _: &mut Row) -> Result<bool> {
        Ok(!std::mem::replace(&mut self.done, true))
    }

    fn reset(&mut self) {
        self.done = false;
    }
}

pub(crate) struct Filter {
    predicate: Arc<Expr>,
    input: BoxCursor,
}

impl Filter {
    pub fn new(predicate: Arc<Expr>, input: BoxCursor) -> Self {
        Filter { predicate, input }
    }
}

impl Cursor for Filter {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        while self.input.next(cx, row)? {
            if truthy(&self.predicate.eval(row, cx)?)? {
                return Ok(true);
            }
            cx.tick()?;
        }
        Ok(false)
    }

    fn reset(&mut self) {
        self.input.reset();
    }
}

pub(crate) struct Project {
    items: Arc<[(usize, Expr)]>,
    input: BoxCursor,
    scratch: Vec<Value>,
}

impl Project {
    pub fn new(items: Arc<[(usize, Expr)]>, input: BoxCursor) -> Self {
        Project {
            items,
            input,
            scratch: Vec::new(),
        }
    }
}

impl Cursor for Project {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if !self.input.next(cx, row)? {
            return Ok(false);
        }
        // Evaluate every item before writing any, so items read the input's values even when
        // a new name reuses a slot.
        self.scratch.clear();
        for (_, e) in self.items.iter() {
            let v = e.eval(row, cx)?;
            self.scratch.push(v);
        }
        for ((slot, _), v) in self.items.iter().zip(self.scratch.drain(..)) {
            row[*slot] = v;
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.input.reset();
    }
}

/// A grouping or DISTINCT key: inline for up to two columns, so most rows allocate nothing.
type Key = SmallVec<[HashKey; 2]>;
/// The aggregates of one group, inline for up to two.
type Accs = SmallVec<[Acc; 2]>;

/// The groups of an aggregation, by key.
type Groups = FxHashMap<Key, Accs>;

/// Hash aggregation: consumes its input, then yields one row per group. Over a large scan
/// it may split its input among workers (`super::parallel`) and merge their groups.
pub(crate) struct Aggregate {
    keys: Arc<[(usize, Expr)]>,
    aggs: Arc<[AggSpec]>,
    input: BoxCursor,
    /// The input's plan and the scan workers would share, when the input may be split.
    parallel: Option<(Arc<PlanNode>, parallel::Split)>,
    out: Option<std::collections::hash_map::IntoIter<Key, Accs>>,
    /// Bytes counted for the groups (keys, accumulators, DISTINCT sets, collected lists):
    /// given back when the last group has been yielded or the cursor runs again.
    held: usize,
}

impl Aggregate {
    pub fn new(
        keys: Arc<[(usize, Expr)]>,
        aggs: Arc<[AggSpec]>,
        input: BoxCursor,
        plan: &Arc<PlanNode>,
    ) -> Self {
        let parallel = parallel::split(plan, &aggs).map(|split| (plan.clone(), split));
        Aggregate {
            keys,
            aggs,
            input,
            parallel,
            out: None,
            held: 0,
        }
    }

    /// The groups of the whole input: from workers over the split scan when it is worth
    /// splitting and helpers are free, otherwise from this cursor's own input.
    fn groups(&mut self, cx: &mut Cx, row: &mut Row) -> Result<Groups> {
        let (keys, aggs) = (&self.keys, &self.aggs);
        if let Some((plan, split)) = &self.parallel {
            let parts = parallel::run(cx, row, plan, split, |input, cx, row| {
                let mut groups = Groups::default();
                let mut held = 0;
                gather(keys, aggs, input, cx, row, &mut groups, &mut held)?;
                Ok(parallel::Part { groups, held })
            })?;
            if let Some(parts) = parts {
                let mut parts = parts.into_iter();
                let mut groups = Groups::default();
                if let Some(first) = parts.next() {
                    groups = first.groups;
                    self.held += first.held;
                }
                for part in parts {
                    for (key, accs) in part.groups {
                        match groups.get_mut(&key) {
                            Some(mine) => {
                                for ((acc, other), spec) in
                                    mine.iter_mut().zip(accs).zip(aggs.iter())
                                {
                                    acc.merge(spec, other)?;
                                }
                            }
                            None => {
                                let bytes = group_bytes(&key, aggs.len());
                                cx.reserve(bytes, "an aggregation's groups")?;
                                self.held += bytes;
                                groups.insert(key, accs);
                            }
                        }
                    }
                }
                return Ok(groups);
            }
        }
        let mut groups = Groups::default();
        gather(
            keys,
            aggs,
            &mut self.input,
            cx,
            row,
            &mut groups,
            &mut self.held,
        )?;
        Ok(groups)
    }
}

/// Bytes counted for a group: its key's values and its accumulators.
fn group_bytes(key: &Key, aggs: usize) -> usize {
    key.iter().map(|k| value_bytes(&k.0)).sum::<usize>() + 96 * aggs + 32
}

/// Adds every row of `input` to `groups`, counting what they hold in `held`.
fn gather(
    keys: &[(usize, Expr)],
    aggs: &[AggSpec],
    input: &mut BoxCursor,
    cx: &mut Cx,
    row: &mut Row,
    groups: &mut Groups,
    held: &mut usize,
) -> Result<()> {
    let mut key = Key::new();
    while input.next(cx, row)? {
        cx.tick()?;
        key.clear();
        for (_, e) in keys {
            key.push(HashKey(e.eval(row, cx)?));
        }
        let accs = match groups.get_mut(&key) {
            Some(accs) => accs,
            None => {
                let bytes = group_bytes(&key, aggs.len());
                cx.reserve(bytes, "an aggregation's groups")?;
                *held += bytes;
                groups
                    .entry(key.clone())
                    .or_insert_with(|| aggs.iter().map(Acc::new).collect())
            }
        };
        // What the accumulators keep (DISTINCT sets, collected lists) is theirs to
        // count; the groups hold it until they are yielded.
        let before = cx.memory_bytes;
        for (acc, spec) in accs.iter_mut().zip(aggs) {
            acc.update(spec, row, cx)?;
        }
        *held += cx.memory_bytes.saturating_sub(before);
    }
    Ok(())
}

impl Cursor for Aggregate {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if self.out.is_none() {
            cx.release(std::mem::take(&mut self.held));
            let mut groups = self.groups(cx, row)?;
            // With no grouping keys, an empty input still yields one row (`count(*)` = 0).
            if self.keys.is_empty() && groups.is_empty() {
                groups.insert(Key::new(), self.aggs.iter().map(Acc::new).collect());
            }
            self.out = Some(groups.into_iter());
        }
        let (keys, aggs) = (&self.keys, &self.aggs);
        let Some((values, accs)) = self.out.as_mut().and_then(Iterator::next) else {
            cx.release(std::mem::take(&mut self.held));
            return Ok(false);
        };
        for ((slot, _), v) in keys.iter().zip(values) {
            row[*slot] = v.0;
        }
        for (acc, spec) in accs.into_iter().zip(aggs.iter()) {
            row[spec.out] = acc.finish(spec)?;
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.out = None;
        self.input.reset();
    }
}

pub(crate) struct Distinct {
    slots: Arc<[usize]>,
    input: BoxCursor,
    seen: FxHashSet<Key>,
    /// Bytes counted for `seen`: given back when the input is exhausted or the cursor runs
    /// again.
    held: usize,
}

impl Distinct {
    pub fn new(slots: Arc<[usize]>, input: BoxCursor) -> Self {
        Distinct {
            slots,
            input,
            seen: FxHashSet::default(),
            held: 0,
        }
    }
}

impl Cursor for Distinct {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        if self.seen.is_empty() && self.held > 0 {
            cx.release(std::mem::take(&mut self.held));
        }
        while self.input.next(cx, row)? {
            cx.tick()?;
            let key: Key = self
                .slots
                .iter()
                .map(|s| HashKey(row[*s].clone()))
                .collect();
            if !self.seen.contains(&key) {
                let bytes = key.iter().map(|k| value_bytes(&k.0)).sum::<usize>() + 32;
                cx.reserve(bytes, "a DISTINCT set")?;
                self.held += bytes;
                self.seen.insert(key);
                return Ok(true);
            }
        }
        self.seen = FxHashSet::default();
        cx.release(std::mem::take(&mut self.held));
        Ok(false)
    }

    fn reset(&mut self) {
        self.seen.clear();
        self.input.reset();
    }
}

/// Compares two rows' sort keys.
fn compare_keys(keys: &[SortKey], a: &[Value], b: &[Value]) -> Ordering {
    for (i, k) in keys.iter().enumerate() {
        let (Some(x), Some(y)) = (a.get(i), b.get(i)) else {
            continue;
        };
        let o = quiver_value::order(x, y);
        let o = if k.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// A non-negative integer from SKIP or LIMIT.
pub(crate) fn count_arg(v: &Value, what: &str) -> Result<u64> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(*i as u64),
        Value::Int(_) => Err(Error::runtime(
            code::SYNTAX_ERROR,
            Some("NegativeIntegerArgument"),
            format!("{what} must be a non-negative integer"),
        )),
        Value::Float(f) if f.fract() == 0.0 && *f >= 0.0 => Ok(*f as u64),
        other => Err(Error::runtime(
            code::SYNTAX_ERROR,
            Some("InvalidArgumentType"),
            format!("{what} must be an integer, got {}", other.value_type()),
        )),
    }
}

/// Rows a sort keeps: keys then kept values of each row, back to back in one vector, so a
/// stored row costs no allocation of its own.
struct Flat {
    stride: usize,
    keys: usize,
    data: Vec<Value>,
}

impl Flat {
    fn rows(&self) -> usize {
        self.data.len().checked_div(self.stride).unwrap_or(0)
    }

    fn row(&self, i: usize) -> &[Value] {
        self.data
            .get(i * self.stride..(i + 1) * self.stride)
            .unwrap_or(&[])
    }

    /// Row indexes in key order (stable, so equal keys keep their input order).
    fn order(&self, keys: &[SortKey]) -> Vec<usize> {
        let mut perm: Vec<usize> = (0..self.rows()).collect();
        perm.sort_by(|a, b| {
            compare_keys(keys, &self.row(*a)[..self.keys], &self.row(*b)[..self.keys])
        });
        perm
    }

    /// Keeps the `n` first rows of `order`, in that order.
    fn keep(&mut self, order: &[usize], n: usize) {
        let mut data = Vec::with_capacity(n.min(order.len()) * self.stride);
        for &i in order.iter().take(n) {
            data.extend_from_slice(self.row(i));
        }
        self.data = data;
    }
}

/// What a sort orders by and keeps; with a limit it is a top-n (`ORDER BY ... LIMIT`).
pub(crate) struct SortBy {
    pub keys: Arc<[SortKey]>,
    pub keep: Arc<[usize]>,
    pub skip: Option<Arc<Expr>>,
    pub limit: Option<Arc<Expr>>,
}

/// Sort and Top: consumes its input, keeping the kept slots and the keys of each row.
pub(crate) struct Sort {
    by: SortBy,
    input: BoxCursor,
    out: Option<(Flat, std::vec::IntoIter<usize>)>,
    /// Bytes counted for the buffered rows: given back when the last row has been yielded or
    /// the cursor runs again.
    held: usize,
}

impl Sort {
    pub fn new(by: SortBy, input: BoxCursor) -> Self {
        Sort {
            by,
            input,
            out: None,
            held: 0,
        }
    }
}

impl Cursor for Sort {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let SortBy {
            keys,
            keep,
            skip,
            limit,
        } = &self.by;
        if self.out.is_none() {
            cx.release(std::mem::take(&mut self.held));
            let mut n_skip = 0u64;
            let mut n_limit = u64::MAX;
            if let Some(s) = skip {
                n_skip = count_arg(&s.eval(row, cx)?, "SKIP")?;
            }
            if let Some(l) = limit {
                n_limit = count_arg(&l.eval(row, cx)?, "LIMIT")?;
            }
            let top = usize::try_from(n_skip.saturating_add(n_limit)).unwrap_or(usize::MAX);
            let mut flat = Flat {
                stride: keys.len() + keep.len(),
                keys: keys.len(),
                data: Vec::new(),
            };
            if top > 0 {
                while self.input.next(cx, row)? {
                    cx.tick()?;
                    let before = flat.data.len();
                    for key in keys.iter() {
                        let v = key.expr.eval(row, cx)?;
                        flat.data.push(v);
                    }
                    flat.data.extend(keep.iter().map(|s| row[*s].clone()));
                    let bytes = row_bytes(&flat.data[before..]);
                    cx.reserve(bytes, "a sort buffer")?;
                    self.held += bytes;
                    // A bounded top-n keeps at most twice its size between trims.
                    if limit.is_some() && flat.rows() >= top.saturating_mul(2).max(1024) {
                        let order = flat.order(keys);
                        flat.keep(&order, top);
                        // What the kept rows hold, counted as they were: the trim gives back
                        // the rest, so a top-n over any input holds about its size.
                        let kept = flat.data.iter().map(value_bytes).sum::<usize>()
                            + ROW_OVERHEAD_BYTES * flat.rows();
                        if kept < self.held {
                            cx.release(self.held - kept);
                            self.held = kept;
                        }
                    }
                }
            }
            let order = flat.order(keys);
            let skip_n = usize::try_from(n_skip)
                .unwrap_or(usize::MAX)
                .min(order.len());
            let take = usize::try_from(n_limit).unwrap_or(usize::MAX);
            let chosen: Vec<usize> = order.into_iter().skip(skip_n).take(take).collect();
            self.out = Some((flat, chosen.into_iter()));
        }
        let Some((flat, order)) = self.out.as_mut() else {
            return Ok(false);
        };
        let Some(i) = order.next() else {
            flat.data = Vec::new();
            cx.release(std::mem::take(&mut self.held));
            return Ok(false);
        };
        let values = &flat.row(i)[flat.keys..];
        for (slot, v) in keep.iter().zip(values) {
            row[*slot] = v.clone();
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.out = None;
        self.input.reset();
    }
}

pub(crate) struct SkipLimit {
    count: Arc<Expr>,
    /// `None` for SKIP; for LIMIT, whether to drain the input after the limit.
    limit_drain: Option<bool>,
    input: BoxCursor,
    /// Rows still to skip or to pass; `None` until evaluated.
    remaining: Option<u64>,
}

impl SkipLimit {
    pub fn new(count: Arc<Expr>, limit_drain: Option<bool>, input: BoxCursor) -> Self {
        SkipLimit {
            count,
            limit_drain,
            input,
            remaining: None,
        }
    }
}

impl Cursor for SkipLimit {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        match self.limit_drain {
            None => {
                let mut left = match self.remaining {
                    Some(n) => n,
                    None => count_arg(&self.count.eval(row, cx)?, "SKIP")?,
                };
                while left > 0 {
                    if !self.input.next(cx, row)? {
                        self.remaining = Some(0);
                        return Ok(false);
                    }
                    left -= 1;
                    cx.tick()?;
                }
                self.remaining = Some(0);
                self.input.next(cx, row)
            }
            Some(drain) => {
                let left = match self.remaining {
                    Some(n) => n,
                    None => count_arg(&self.count.eval(row, cx)?, "LIMIT")?,
                };
                if left == 0 {
                    self.remaining = Some(0);
                    if drain {
                        // Updates below must all happen even though no row is wanted.
                        let mut scratch = row.clone();
                        while self.input.next(cx, &mut scratch)? {
                            cx.tick()?;
                        }
                    }
                    return Ok(false);
                }
                self.remaining = Some(left - 1);
                if self.input.next(cx, row)? {
                    Ok(true)
                } else {
                    self.remaining = Some(0);
                    Ok(false)
                }
            }
        }
    }

    fn reset(&mut self) {
        self.remaining = None;
        self.input.reset();
    }
}

pub(crate) struct Unwind {
    list: Arc<Expr>,
    slot: usize,
    input: BoxCursor,
    items: Option<(Arc<[Value]>, usize)>,
    /// `UNWIND range(...)` counts instead of building the list: its length is unbounded.
    ints: Option<quiver_value::functions::IntRange>,
    /// Bytes counted for the list being unwound: it is held until its last item is handed on,
    /// while the operators above may buffer. Given back with it, or when the cursor runs
    /// again. A parameter's list is not counted again: the query's parameters are counted
    /// once, when it starts.
    held: usize,
}

impl Unwind {
    pub fn new(list: Arc<Expr>, slot: usize, input: BoxCursor) -> Self {
        Unwind {
            list,
            slot,
            input,
            items: None,
            ints: None,
            held: 0,
        }
    }
}

impl Cursor for Unwind {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let (list, slot) = (&*self.list, self.slot);
        loop {
            if let Some((items, pos)) = &mut self.items {
                if let Some(v) = items.get(*pos) {
                    *pos += 1;
                    row[slot] = v.clone();
                    return Ok(true);
                }
                self.items = None;
            }
            cx.release(std::mem::take(&mut self.held));
            if let Some(ints) = &mut self.ints {
                if let Some(i) = ints.next() {
                    cx.tick()?;
                    row[slot] = Value::Int(i);
                    return Ok(true);
                }
                self.ints = None;
            }
            cx.tick()?;
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            if let Expr::Call(f, args) = list
                && f.name == "range"
            {
                let mut values = Vec::with_capacity(args.len());
                for a in args {
                    values.push(a.eval(row, cx)?);
                }
                f.check_arity(values.len())?;
                self.ints = quiver_value::functions::IntRange::from_args(&values)?;
                continue;
            }
            match list.eval(row, cx)? {
                Value::Null => {}
                Value::List(items) => {
                    if !matches!(list, Expr::Param(_)) {
                        // One walk of the list, as long as the walk that unwinds it.
                        let bytes = items.iter().map(value_bytes).sum::<usize>();
                        self.held = bytes;
                        cx.reserve(bytes, "an UNWIND list")?;
                    }
                    self.items = Some((items, 0));
                }
                other => self.items = Some((Arc::from(vec![other]), 0)),
            }
        }
    }

    fn reset(&mut self) {
        self.items = None;
        self.ints = None;
        self.input.reset();
    }
}

/// A barrier: pulls every input row before passing the first on, so that later operators see
/// all earlier writes and earlier reads are not affected by later writes.
pub(crate) struct Eager {
    keep: Arc<[usize]>,
    input: BoxCursor,
    /// The kept slots of every row, back to back; how many rows; how many emitted.
    rows: Option<(Vec<Value>, usize, usize)>,
    bytes: usize,
}

impl Eager {
    pub fn new(keep: Arc<[usize]>, input: BoxCursor) -> Self {
        Eager {
            keep,
            input,
            rows: None,
            bytes: 0,
        }
    }
}

impl Cursor for Eager {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let keep = &self.keep;
        if self.rows.is_none() {
            cx.release(std::mem::take(&mut self.bytes));
            let mut data = Vec::new();
            let mut count = 0usize;
            while self.input.next(cx, row)? {
                cx.tick()?;
                count += 1;
                let before = data.len();
                data.extend(keep.iter().map(|s| row[*s].clone()));
                let b = row_bytes(&data[before..]);
                cx.reserve(b, "an eager buffer")?;
                self.bytes += b;
            }
            self.rows = Some((data, count, 0));
        }
        let Some((data, count, emitted)) = self.rows.as_mut() else {
            return Ok(false);
        };
        // Rows may keep no slots at all (`MATCH () CREATE ()`): they are counted, not stored.
        if *emitted >= *count {
            cx.release(self.bytes);
            self.bytes = 0;
            return Ok(false);
        }
        let stride = keep.len();
        let at = *emitted * stride;
        for (slot, v) in keep.iter().zip(data.get(at..at + stride).unwrap_or(&[])) {
            row[*slot] = v.clone();
        }
        *emitted += 1;
        Ok(true)
    }

    fn reset(&mut self) {
        self.rows = None;
        self.input.reset();
    }
}
