//! Evaluation of the IR's expressions ([`crate::ir::Expr`]) over a row.
//!
//! The planner has resolved variables to row slots, parameters to indexes, function names to
//! handles and names of labels, types and keys to tokens, so evaluation does no name lookups.
//! Non-graph semantics (arithmetic, comparison, scalar functions) are the value crate's; graph
//! access goes through the transaction in the [`Cx`].

pub(crate) mod aggregate;
mod cx;
pub(crate) mod graph_fns;
mod path;
mod property_test;
mod scalar;
pub(crate) mod types;

use std::sync::Arc;

use quiver_value::compare::{
    equals, greater_equal, greater_than, less_equal, less_than, not_equals,
};
use quiver_value::{Function, Map, Value, ops};

use crate::error::{Error, Result};
use crate::ir::{BinOp, ChainOp, Expr, MapProjItem, PlanNode, Quantifier, SubKind};
use crate::tokens::Token;

pub(crate) use crate::ir::Row;
pub(crate) use cx::{
    BoxCursor, CHANGE_WRITE_BYTES, CsvPosition, Cursor, Cx, LABEL_WRITE_BYTES, NODE_WRITE_BYTES,
    OpenPlan, REL_WRITE_BYTES, ROW_OVERHEAD_BYTES, held_bytes, map_bytes, row_bytes, value_bytes,
};
pub(crate) use property_test::PropertyTest;

/// A `range()` list is built whole: one too large for the query's memory limit (or the
/// server's pool) fails with the memory error before it is allocated (`UNWIND range(...)`
/// streams instead and never comes here).
fn check_range_size(args: &[Value], cx: &mut Cx) -> Result<()> {
    if args.len() < 2 {
        return Ok(());
    }
    let Ok(Some(range)) = quiver_value::functions::IntRange::from_args(args) else {
        // Null or invalid arguments: the function itself answers.
        return Ok(());
    };
    let bytes = range
        .remaining()
        .saturating_mul(std::mem::size_of::<Value>() as u128);
    cx.transient(
        usize::try_from(bytes).unwrap_or(usize::MAX),
        "a range() list",
    )
}

/// The size of one value's slot in a list.
const VALUE_BYTES: usize = std::mem::size_of::<Value>();

/// `a + b` on strings or lists builds a value as large as both: it must fit beside what the
/// query holds before it is allocated (a string doubled in a loop otherwise grows past any
/// limit within a few steps). Numbers pass at the cost of one match.
#[inline]
fn check_concat(l: &Value, r: &Value, cx: &mut Cx) -> Result<()> {
    let what = match (l, r) {
        (Value::String(_), _) | (_, Value::String(_)) => "a string",
        (Value::List(_), _) | (_, Value::List(_)) => "a list",
        _ => return Ok(()),
    };
    cx.transient(held_bytes(l) + held_bytes(r), what)
}

/// Whether a predicate's value keeps a row: only `true` does; `null` and `false` drop it.
pub(crate) fn truthy(v: &Value) -> Result<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Null => Ok(false),
        other => Err(Error::type_error(format!(
            "Expected a Boolean predicate, got {}",
            other.value_type()
        ))),
    }
}

/// `base[from..to]`, either bound absent when not given.
fn eval_slice(
    base: &Expr,
    from: Option<&Expr>,
    to: Option<&Expr>,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    let b = base.eval(row, cx)?;
    let f = match from {
        Some(e) => Some(e.eval(row, cx)?),
        None => None,
    };
    let t = match to {
        Some(e) => Some(e.eval(row, cx)?),
        None => None,
    };
    slice_value(&b, f.as_ref(), t.as_ref())
}

/// A flat operator chain, left to right; `AND` and `OR` short-circuit each step.
fn eval_chain(first: &Expr, rest: &[(ChainOp, Expr)], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut acc = first.eval(row, cx)?;
    for (op, e) in rest {
        acc = match op {
            ChainOp::And if matches!(acc, Value::Bool(false)) => continue,
            ChainOp::Or if matches!(acc, Value::Bool(true)) => continue,
            ChainOp::And => ops::and(&acc, &e.eval(row, cx)?)?,
            ChainOp::Or => ops::or(&acc, &e.eval(row, cx)?)?,
            ChainOp::Binary(op) => {
                let r = e.eval(row, cx)?;
                if *op == BinOp::Add {
                    check_concat(&acc, &r, cx)?;
                }
                binary(*op, &acc, &r)?
            }
        };
    }
    Ok(acc)
}

/// A scalar function over its evaluated arguments.
fn eval_call(f: &Function, args: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut values: smallvec::SmallVec<[Value; 4]> = smallvec::SmallVec::new();
    for a in args {
        values.push(a.eval(row, cx)?);
    }
    if f.name == "range" {
        check_range_size(&values, cx)?;
    }
    let v = f.call(&values, &cx.fctx)?;
    // Functions that build strings or lists (`replace`, `split`, `keys`, ...) are held to the
    // limit by what they return.
    if matches!(v, Value::String(_) | Value::List(_) | Value::Map(_)) {
        cx.transient(held_bytes(&v), "a function's result")?;
    }
    Ok(v)
}

/// A simple `CASE` (with an operand, compared by equality) or a generic one (the first true
/// condition wins).
fn eval_case(
    operand: Option<&Expr>,
    branches: &[(Expr, Expr)],
    default: Option<&Expr>,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    if let Some(operand) = operand {
        let v = operand.eval(row, cx)?;
        for (when, then) in branches {
            let w = when.eval(row, cx)?;
            if equals(&v, &w) == Some(true) {
                return then.eval(row, cx);
            }
        }
    } else {
        for (when, then) in branches {
            if matches!(when.eval(row, cx)?, Value::Bool(true)) {
                return then.eval(row, cx);
            }
        }
    }
    match default {
        Some(d) => d.eval(row, cx),
        None => Ok(Value::Null),
    }
}

/// The items of the list `list` evaluates to; `None` for `null`, an error for anything else.
fn list_items(list: &Expr, row: &mut Row, cx: &mut Cx) -> Result<Option<Arc<[Value]>>> {
    match list.eval(row, cx)? {
        Value::Null => Ok(None),
        Value::List(items) => Ok(Some(items)),
        other => Err(list_expected(&other)),
    }
}

/// `[x IN list WHERE filter | map]`: the variable's slot is restored afterwards, even on error.
fn eval_list_comp(
    slot: usize,
    list: &Expr,
    filter: Option<&Expr>,
    map: Option<&Expr>,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    over_items(slot, list, row, cx, |items, row, cx| {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            cx.tick()?;
            row[slot] = item.clone();
            if let Some(f) = filter
                && !truthy(&f.eval(row, cx)?)?
            {
                continue;
            }
            let v = match map {
                Some(m) => m.eval(row, cx)?,
                None => item.clone(),
            };
            cx.transient((out.len() + 1) * VALUE_BYTES + held_bytes(&v), "a list")?;
            out.push(v);
        }
        Ok(Value::from(out))
    })
}

/// `reduce(acc = init, x IN list | expr)`: both slots are restored afterwards, even on error.
fn eval_reduce(
    acc: usize,
    init: &Expr,
    slot: usize,
    list: &Expr,
    expr: &Expr,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    let start = init.eval(row, cx)?;
    over_items(slot, list, row, cx, |items, row, cx| {
        let saved_acc = std::mem::replace(&mut row[acc], start);
        // The accumulator is held while the next one is built from it: it is counted, so that
        // building `s + s` needs room for both.
        let mut held = 0;
        let result: Result<Value> = (|| {
            for item in items {
                cx.tick()?;
                row[slot] = item.clone();
                let next = expr.eval(row, cx)?;
                let bytes = held_bytes(&next);
                cx.release(held);
                held = 0;
                cx.reserve(bytes, "a reduce() accumulator")?;
                held = bytes;
                row[acc] = next;
            }
            Ok(std::mem::take(&mut row[acc]))
        })();
        cx.release(held);
        row[acc] = saved_acc;
        result
    })
}

/// `all(x IN list WHERE predicate)` and its kin: the variable's slot is restored afterwards.
fn eval_quantified(
    quantifier: Quantifier,
    slot: usize,
    list: &Expr,
    predicate: &Expr,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    over_items(slot, list, row, cx, |items, row, cx| {
        quantify(quantifier, items, slot, predicate, row, cx)
    })
}

/// `body` over the items of the list `list` evaluates to, `slot` (its variable's) restored
/// afterwards even on error; `null` for a `null` list. What comprehensions, `reduce()` and
/// the quantifiers share.
fn over_items(
    slot: usize,
    list: &Expr,
    row: &mut Row,
    cx: &mut Cx,
    body: impl FnOnce(&[Value], &mut Row, &mut Cx) -> Result<Value>,
) -> Result<Value> {
    let Some(items) = list_items(list, row, cx)? else {
        return Ok(Value::Null);
    };
    let saved = std::mem::take(&mut row[slot]);
    let result = body(&items, row, cx);
    row[slot] = saved;
    result
}

/// A list literal, item by item.
fn eval_list(items: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut out = Vec::with_capacity(items.len());
    let mut bytes = 0;
    for item in items {
        let v = item.eval(row, cx)?;
        bytes += held_bytes(&v);
        out.push(v);
    }
    cx.transient(bytes, "a list")?;
    Ok(Value::from(out))
}

/// A map literal, entry by entry.
fn eval_map(entries: &[(Arc<str>, Expr)], row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut map = Map::new();
    let mut bytes = 0;
    for (k, e) in entries {
        let v = e.eval(row, cx)?;
        bytes += k.len() + held_bytes(&v);
        map.insert(k.clone(), v);
    }
    cx.transient(bytes, "a map")?;
    Ok(Value::map(map))
}

fn three_valued(v: Option<bool>) -> Value {
    v.map_or(Value::Null, Value::Bool)
}

impl Expr {
    #[expect(
        clippy::too_many_lines,
        reason = "one arm per expression kind: the match is what proves every kind evaluates"
    )]
    pub fn eval(&self, row: &mut Row, cx: &mut Cx) -> Result<Value> {
        match self {
            Expr::Const(v) => Ok(v.clone()),
            Expr::Param(i) => Ok(cx.params.get(*i).cloned().unwrap_or(Value::Null)),
            Expr::Slot(s) => Ok(row.get(*s).cloned().unwrap_or(Value::Null)),
            Expr::Property(base, key) => {
                let b = base.eval(row, cx)?;
                graph_fns::property(&b, key, cx)
            }
            Expr::Index(base, index) => {
                let b = base.eval(row, cx)?;
                let i = index.eval(row, cx)?;
                index_value(&b, &i, cx)
            }
            Expr::Slice(base, from, to) => {
                eval_slice(base, from.as_deref(), to.as_deref(), row, cx)
            }
            Expr::HasLabels(base, labels) => {
                graph_fns::has_labels(&base.eval(row, cx)?, labels, cx)
            }
            Expr::LabelTest(base, pred) => graph_fns::label_test(&base.eval(row, cx)?, pred, cx),
            Expr::DynamicLabels(base, names, any) => {
                let base = base.eval(row, cx)?;
                let names = names.eval(row, cx)?;
                graph_fns::has_dynamic_labels(&base, &names, *any, cx)
            }
            Expr::TypeTest(x, ty, not) => {
                Ok(Value::Bool(types::is_type(&x.eval(row, cx)?, ty) != *not))
            }
            Expr::Not(e) => Ok(ops::not(&e.eval(row, cx)?)?),
            Expr::Neg(e) => Ok(ops::negate(&e.eval(row, cx)?)?),
            Expr::Plus(e) => Ok(ops::unary_plus(&e.eval(row, cx)?)?),
            Expr::And(a, b) => {
                let l = a.eval(row, cx)?;
                if matches!(l, Value::Bool(false)) {
                    return Ok(Value::Bool(false));
                }
                let r = b.eval(row, cx)?;
                Ok(ops::and(&l, &r)?)
            }
            Expr::Or(a, b) => {
                let l = a.eval(row, cx)?;
                if matches!(l, Value::Bool(true)) {
                    return Ok(Value::Bool(true));
                }
                let r = b.eval(row, cx)?;
                Ok(ops::or(&l, &r)?)
            }
            Expr::Binary(op, a, b) => {
                let l = a.eval(row, cx)?;
                let r = b.eval(row, cx)?;
                if *op == BinOp::Add {
                    check_concat(&l, &r, cx)?;
                }
                binary(*op, &l, &r)
            }
            Expr::Chain(first, rest) => eval_chain(first, rest, row, cx),
            Expr::RegexConst(a, re) => match a.eval(row, cx)? {
                Value::String(s) => Ok(Value::Bool(re.is_match(&s))),
                _ => Ok(Value::Null),
            },
            Expr::IsNull(e, negated) => {
                let v = e.eval(row, cx)?;
                Ok(Value::Bool(v.is_null() != *negated))
            }
            Expr::List(items) => eval_list(items, row, cx),
            Expr::Map(entries) => eval_map(entries, row, cx),
            Expr::Call(f, args) => eval_call(f, args, row, cx),
            Expr::Graph(f, args) => graph_fns::call(*f, args, row, cx),
            Expr::Scalar(f, args) => scalar::eval(*f, args, row, cx),
            Expr::Library(f, args) => f.eval(args, row, cx),
            Expr::Case {
                operand,
                branches,
                default,
            } => eval_case(operand.as_deref(), branches, default.as_deref(), row, cx),
            Expr::ListComp {
                slot,
                list,
                filter,
                map,
            } => eval_list_comp(*slot, list, filter.as_deref(), map.as_deref(), row, cx),
            Expr::Quantified {
                quantifier,
                slot,
                list,
                predicate,
            } => eval_quantified(*quantifier, *slot, list, predicate, row, cx),
            Expr::Reduce {
                acc,
                init,
                slot,
                list,
                expr,
            } => eval_reduce(*acc, init, *slot, list, expr, row, cx),
            Expr::MapProjection(base, items) => {
                let b = base.eval(row, cx)?;
                graph_fns::map_projection(&b, items, row, cx)
            }
            Expr::Path(parts) => path::build(parts, row, cx),
            Expr::PropsMatch(entity, map) => {
                let e = entity.eval(row, cx)?;
                let m = map.eval(row, cx)?;
                graph_fns::props_match(&e, &m, cx)
            }
            Expr::Subquery(plan, kind) => subquery(plan, kind, row, cx),
        }
    }

    /// Slots this expression reads.
    pub fn slots(&self, out: &mut Vec<usize>) {
        self.walk(&mut |e| {
            if let Expr::Slot(s) = e {
                out.push(*s);
            }
        });
    }

    /// Visits this expression and every sub-expression (not into subquery plans).
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Const(_) | Expr::Param(_) | Expr::Slot(_) | Expr::Path(_) => {}
            Expr::Property(b, _)
            | Expr::HasLabels(b, _)
            | Expr::LabelTest(b, _)
            | Expr::TypeTest(b, _, _) => b.walk(f),
            Expr::Not(e)
            | Expr::Neg(e)
            | Expr::Plus(e)
            | Expr::IsNull(e, _)
            | Expr::RegexConst(e, _) => e.walk(f),
            Expr::DynamicLabels(a, b, _)
            | Expr::Index(a, b)
            | Expr::And(a, b)
            | Expr::Or(a, b)
            | Expr::Binary(_, a, b)
            | Expr::PropsMatch(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Chain(first, rest) => {
                first.walk(f);
                for (_, e) in rest {
                    e.walk(f);
                }
            }
            Expr::Slice(a, b, c) => {
                a.walk(f);
                for x in [b, c].into_iter().flatten() {
                    x.walk(f);
                }
            }
            Expr::List(items)
            | Expr::Call(_, items)
            | Expr::Graph(_, items)
            | Expr::Scalar(_, items)
            | Expr::Library(_, items) => {
                for i in items {
                    i.walk(f);
                }
            }
            Expr::Map(entries) => {
                for (_, e) in entries {
                    e.walk(f);
                }
            }
            Expr::Case {
                operand,
                branches,
                default,
            } => {
                if let Some(o) = operand {
                    o.walk(f);
                }
                for (w, t) in branches {
                    w.walk(f);
                    t.walk(f);
                }
                if let Some(d) = default {
                    d.walk(f);
                }
            }
            Expr::ListComp {
                list, filter, map, ..
            } => {
                list.walk(f);
                for x in [filter, map].into_iter().flatten() {
                    x.walk(f);
                }
            }
            Expr::Quantified {
                list, predicate, ..
            } => {
                list.walk(f);
                predicate.walk(f);
            }
            Expr::Reduce {
                init, list, expr, ..
            } => {
                init.walk(f);
                list.walk(f);
                expr.walk(f);
            }
            Expr::MapProjection(b, items) => {
                b.walk(f);
                for i in items {
                    if let MapProjItem::Entry(_, e) = i {
                        e.walk(f);
                    }
                }
            }
            Expr::Subquery(_, kind) => {
                if let SubKind::Collect(e) = &**kind {
                    e.walk(f);
                }
            }
        }
    }
}

fn list_expected(v: &Value) -> Error {
    Error::type_error(format!("Expected a List, got {}", v.value_type()))
}

fn quantify(
    quantifier: Quantifier,
    items: &[Value],
    slot: usize,
    predicate: &Expr,
    row: &mut Row,
    cx: &mut Cx,
) -> Result<Value> {
    let mut trues = 0usize;
    let mut nulls = 0usize;
    for item in items {
        cx.tick()?;
        row[slot] = item.clone();
        match predicate.eval(row, cx)? {
            Value::Bool(true) => {
                trues += 1;
                match quantifier {
                    Quantifier::Any => return Ok(Value::Bool(true)),
                    Quantifier::None => return Ok(Value::Bool(false)),
                    Quantifier::Single if trues > 1 => return Ok(Value::Bool(false)),
                    _ => {}
                }
            }
            Value::Bool(false) => {
                if quantifier == Quantifier::All {
                    return Ok(Value::Bool(false));
                }
            }
            Value::Null => nulls += 1,
            other => {
                return Err(Error::type_error(format!(
                    "Expected a Boolean predicate, got {}",
                    other.value_type()
                )));
            }
        }
    }
    Ok(match quantifier {
        Quantifier::All | Quantifier::None => {
            if nulls > 0 {
                Value::Null
            } else {
                Value::Bool(true)
            }
        }
        Quantifier::Any => {
            if nulls > 0 {
                Value::Null
            } else {
                Value::Bool(false)
            }
        }
        Quantifier::Single => {
            if nulls > 0 {
                Value::Null
            } else {
                Value::Bool(trues == 1)
            }
        }
    })
}

/// Applies a binary operator to two evaluated operands.
pub(crate) fn binary(op: BinOp, l: &Value, r: &Value) -> Result<Value> {
    Ok(match op {
        BinOp::Eq => three_valued(equals(l, r)),
        BinOp::Ne => three_valued(not_equals(l, r)),
        BinOp::Lt => three_valued(less_than(l, r)),
        BinOp::Le => three_valued(less_equal(l, r)),
        BinOp::Gt => three_valued(greater_than(l, r)),
        BinOp::Ge => three_valued(greater_equal(l, r)),
        BinOp::Add => ops::add(l, r)?,
        BinOp::Sub => ops::subtract(l, r)?,
        BinOp::Mul => ops::multiply(l, r)?,
        BinOp::Div => ops::divide(l, r)?,
        BinOp::Mod => ops::modulo(l, r)?,
        BinOp::Pow => ops::power(l, r)?,
        BinOp::In => ops::in_list(l, r)?,
        BinOp::StartsWith => ops::starts_with(l, r),
        BinOp::EndsWith => ops::ends_with(l, r),
        BinOp::Contains => ops::contains(l, r),
        BinOp::Regex => ops::regex_match(l, r)?,
        BinOp::Xor => ops::xor(l, r)?,
    })
}

/// `base[index]`: an entity's property read from the graph; a list element or a map entry
/// as the value layer indexes them.
fn index_value(base: &Value, index: &Value, cx: &mut Cx) -> Result<Value> {
    match (base, index) {
        (Value::Node(_) | Value::Relationship(_), Value::String(k)) => {
            let token = Token::new(crate::tokens::TokenKind::PropKey, k);
            graph_fns::property(base, &token, cx)
        }
        _ => Ok(ops::index(base, index)?),
    }
}

/// `list[from..to]` with Python-style negative bounds clamped to the list.
fn slice_value(base: &Value, from: Option<&Value>, to: Option<&Value>) -> Result<Value> {
    Ok(ops::slice(base, from, to)?)
}

/// Runs a subquery expression's plan with a copy of the current row as its argument.
fn subquery(plan: &Arc<PlanNode>, kind: &SubKind, row: &mut Row, cx: &mut Cx) -> Result<Value> {
    let mut sub_row = row.clone();
    let mut cursor = (cx.open)(plan, cx)?;
    match kind {
        SubKind::Exists => Ok(Value::Bool(cursor.next(cx, &mut sub_row)?)),
        SubKind::Count => {
            let mut n = 0i64;
            while cursor.next(cx, &mut sub_row)? {
                n += 1;
            }
            Ok(Value::Int(n))
        }
        SubKind::Collect(e) => {
            let mut out = Vec::new();
            // Counted while it is built, handed to the row (transient) when complete.
            let mut held = 0;
            let built: Result<()> = (|| {
                while cursor.next(cx, &mut sub_row)? {
                    let v = e.eval(&mut sub_row, cx)?;
                    let bytes = value_bytes(&v);
                    cx.reserve(bytes, "a COLLECT subquery's list")?;
                    held += bytes;
                    out.push(v);
                }
                Ok(())
            })();
            cx.release(held);
            built?;
            Ok(Value::from(out))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Value {
        Value::from(v.iter().map(|i| Value::Int(*i)).collect::<Vec<_>>())
    }

    #[test]
    fn slices_clamp_and_accept_negative_bounds() {
        let l = ints(&[1, 2, 3, 4]);
        assert_eq!(
            slice_value(&l, Some(&Value::Int(1)), Some(&Value::Int(3))).unwrap(),
            ints(&[2, 3])
        );
        assert_eq!(
            slice_value(&l, Some(&Value::Int(-2)), None).unwrap(),
            ints(&[3, 4])
        );
        assert_eq!(
            slice_value(&l, Some(&Value::Int(3)), Some(&Value::Int(1))).unwrap(),
            ints(&[])
        );
        assert_eq!(
            slice_value(&l, Some(&Value::Null), None).unwrap(),
            Value::Null
        );
        assert_eq!(
            slice_value(&l, Some(&Value::Int(-100)), Some(&Value::Int(100))).unwrap(),
            l
        );
    }

    #[test]
    fn predicates_accept_only_booleans_and_null() {
        assert!(truthy(&Value::Bool(true)).unwrap());
        assert!(!truthy(&Value::Null).unwrap());
        assert!(truthy(&Value::Int(1)).is_err());
    }
}
