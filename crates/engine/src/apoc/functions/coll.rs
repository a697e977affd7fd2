//! `apoc.coll.*`: list functions. A `null` list argument gives `null` (or `false`/`0` where
//! APOC answers so for an absent list), and sets keep the order of first appearance.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use quiver_value::{HashKey, Map, Value, equivalent, order};

use super::{bad, int, nth};
use crate::error::Result;
use crate::eval::Cx;
use crate::eval::graph_fns;
use crate::tokens::{Token, TokenKind};

/// The list argument `i`; `None` for `null`.
fn list<'a>(name: &str, args: &'a [Value], i: usize) -> Result<Option<&'a [Value]>> {
    match nth(args, i) {
        Value::Null => Ok(None),
        Value::List(items) => Ok(Some(items)),
        other => Err(bad(
            name,
            ["coll", "values"][i.min(1)],
            format!("must be a list, got {}", other.value_type().name()),
        )),
    }
}

/// The distinct items of `items`, in order of first appearance.
fn distinct(items: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut seen = HashSet::new();
    items
        .into_iter()
        .filter(|v| seen.insert(HashKey::new(v.clone())))
        .collect()
}

fn keys(items: &[Value]) -> HashSet<HashKey> {
    items.iter().cloned().map(HashKey::new).collect()
}

fn numbers(name: &str, items: &[Value]) -> Result<Vec<f64>> {
    items
        .iter()
        .filter(|v| !v.is_null())
        .map(|v| match v {
            Value::Int(i) => Ok(*i as f64),
            Value::Float(f) => Ok(*f),
            other => Err(bad(
                name,
                "coll",
                format!("must hold numbers, got {}", other.value_type().name()),
            )),
        })
        .collect()
}

pub(crate) fn sum(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.sum", args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(Value::Float(numbers("apoc.coll.sum", items)?.iter().sum()))
}

pub(crate) fn sum_longs(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.sumLongs", args, 0)? else {
        return Ok(Value::Null);
    };
    let mut total: i64 = 0;
    for n in numbers("apoc.coll.sumLongs", items)? {
        total = total.wrapping_add(n as i64);
    }
    Ok(Value::Int(total))
}

pub(crate) fn avg(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.avg", args, 0)? else {
        return Ok(Value::Null);
    };
    let n = numbers("apoc.coll.avg", items)?;
    if n.is_empty() {
        return Ok(Value::Null);
    }
    Ok(Value::Float(n.iter().sum::<f64>() / n.len() as f64))
}

fn extreme(args: &[Value], name: &str, want: std::cmp::Ordering) -> Result<Value> {
    let Some(items) = list(name, args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(items
        .iter()
        .filter(|v| !v.is_null())
        .fold(None::<&Value>, |best, v| match best {
            Some(b) if order(v, b) != want => Some(b),
            _ => Some(v),
        })
        .cloned()
        .unwrap_or(Value::Null))
}

pub(crate) fn min(args: &[Value], _: &mut Cx) -> Result<Value> {
    extreme(args, "apoc.coll.min", std::cmp::Ordering::Less)
}

pub(crate) fn max(args: &[Value], _: &mut Cx) -> Result<Value> {
    extreme(args, "apoc.coll.max", std::cmp::Ordering::Greater)
}

pub(crate) fn to_set(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        list("apoc.coll.toSet", args, 0)?.map_or(Value::Null, |items| {
            Value::from(distinct(items.iter().cloned()))
        }),
    )
}

pub(crate) fn sort(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.sort", args, 0)? else {
        return Ok(Value::Null);
    };
    let mut v: Vec<Value> = items.iter().filter(|v| !v.is_null()).cloned().collect();
    v.sort_by(order);
    Ok(Value::from(v))
}

/// A sort key as APOC writes it: descending by `key`, ascending by `^key`.
fn sort_key(key: &str) -> (&str, bool) {
    key.strip_prefix('^').map_or((key, false), |k| (k, true))
}

fn sort_by_key(mut keyed: Vec<(Value, Value)>, ascending: bool) -> Value {
    keyed.sort_by(|a, b| {
        let o = order(&a.0, &b.0);
        if ascending { o } else { o.reverse() }
    });
    Value::from(keyed.into_iter().map(|(_, v)| v).collect::<Vec<_>>())
}

pub(crate) fn sort_nodes(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.sortNodes";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let Value::String(key) = nth(args, 1) else {
        return Err(bad(NAME, "prop", "must be a property name"));
    };
    let (key, ascending) = sort_key(key);
    let token = Token::new(TokenKind::PropKey, key);
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        let k = match item {
            Value::Node(_) | Value::Relationship(_) => graph_fns::property(item, &token, cx)?,
            Value::Null => continue,
            other => {
                return Err(bad(
                    NAME,
                    "coll",
                    format!("must hold nodes, got {}", other.value_type().name()),
                ));
            }
        };
        keyed.push((k, item.clone()));
    }
    Ok(sort_by_key(keyed, ascending))
}

pub(crate) fn sort_maps(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.sortMaps";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let Value::String(key) = nth(args, 1) else {
        return Err(bad(NAME, "prop", "must be a key name"));
    };
    let (key, ascending) = sort_key(key);
    let mut keyed = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::Map(m) => keyed.push((m.get(key).cloned().unwrap_or(Value::Null), item.clone())),
            Value::Null => {}
            other => {
                return Err(bad(
                    NAME,
                    "list",
                    format!("must hold maps, got {}", other.value_type().name()),
                ));
            }
        }
    }
    Ok(sort_by_key(keyed, ascending))
}

pub(crate) fn flatten(args: &[Value], _: &mut Cx) -> Result<Value> {
    fn walk(items: &[Value], recursive: bool, depth: usize, out: &mut Vec<Value>) {
        for item in items {
            match item {
                Value::List(inner) if recursive || depth == 0 => {
                    walk(inner, recursive, depth + 1, out);
                }
                other => out.push(other.clone()),
            }
        }
    }
    let Some(items) = list("apoc.coll.flatten", args, 0)? else {
        return Ok(Value::Null);
    };
    let recursive = nth(args, 1).as_bool().unwrap_or(false);
    let mut out = Vec::new();
    for item in items {
        match item {
            Value::List(inner) => walk(inner, recursive, 1, &mut out),
            other => out.push(other.clone()),
        }
    }
    Ok(Value::from(out))
}

pub(crate) fn contains(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.contains", args, 0)? else {
        return Ok(Value::Bool(false));
    };
    let v = nth(args, 1);
    Ok(Value::Bool(items.iter().any(|i| equivalent(i, v))))
}

pub(crate) fn contains_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    let (Some(items), Some(wanted)) = (
        list("apoc.coll.containsAll", args, 0)?,
        list("apoc.coll.containsAll", args, 1)?,
    ) else {
        return Ok(Value::Bool(false));
    };
    let have = keys(items);
    Ok(Value::Bool(
        wanted
            .iter()
            .all(|w| have.contains(&HashKey::new(w.clone()))),
    ))
}

pub(crate) fn contains_duplicates(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.containsDuplicates", args, 0)? else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(keys(items).len() < items.len()))
}

pub(crate) fn different(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.different", args, 0)? else {
        return Ok(Value::Bool(true));
    };
    Ok(Value::Bool(keys(items).len() == items.len()))
}

/// Two list arguments; `None` when either is `null`.
fn two<'a>(name: &str, args: &'a [Value]) -> Result<Option<(&'a [Value], &'a [Value])>> {
    Ok(match (list(name, args, 0)?, list(name, args, 1)?) {
        (Some(a), Some(b)) => Some((a, b)),
        _ => None,
    })
}

pub(crate) fn union(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(two("apoc.coll.union", args)?.map_or(Value::Null, |(a, b)| {
        Value::from(distinct(a.iter().chain(b).cloned()))
    }))
}

pub(crate) fn union_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.coll.unionAll", args)?.map_or(Value::Null, |(a, b)| {
            Value::from(a.iter().chain(b).cloned().collect::<Vec<_>>())
        }),
    )
}

pub(crate) fn intersection(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.coll.intersection", args)?.map_or(Value::Null, |(a, b)| {
            let bk = keys(b);
            Value::from(distinct(
                a.iter()
                    .filter(|v| bk.contains(&HashKey::new((*v).clone())))
                    .cloned(),
            ))
        }),
    )
}

pub(crate) fn subtract(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.coll.subtract", args)?.map_or(Value::Null, |(a, b)| {
            let bk = keys(b);
            Value::from(distinct(
                a.iter()
                    .filter(|v| !bk.contains(&HashKey::new((*v).clone())))
                    .cloned(),
            ))
        }),
    )
}

pub(crate) fn remove_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.coll.removeAll", args)?.map_or(Value::Null, |(a, b)| {
            let bk = keys(b);
            Value::from(
                a.iter()
                    .filter(|v| !bk.contains(&HashKey::new((*v).clone())))
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        }),
    )
}

pub(crate) fn disjunction(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        two("apoc.coll.disjunction", args)?.map_or(Value::Null, |(a, b)| {
            let (ak, bk) = (keys(a), keys(b));
            Value::from(distinct(
                a.iter()
                    .filter(|v| !bk.contains(&HashKey::new((*v).clone())))
                    .chain(
                        b.iter()
                            .filter(|v| !ak.contains(&HashKey::new((*v).clone()))),
                    )
                    .cloned(),
            ))
        }),
    )
}

pub(crate) fn is_equal_collection(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some((a, b)) = two("apoc.coll.isEqualCollection", args)? else {
        return Ok(Value::Bool(false));
    };
    Ok(Value::Bool(a.len() == b.len() && counts(a) == counts(b)))
}

fn counts(items: &[Value]) -> HashMap<HashKey, i64> {
    let mut out = HashMap::new();
    for v in items {
        *out.entry(HashKey::new(v.clone())).or_insert(0) += 1;
    }
    out
}

/// `(item, count)` in order of first appearance.
fn ordered_counts(items: &[Value]) -> Vec<(Value, i64)> {
    let c = counts(items);
    distinct(items.iter().cloned())
        .into_iter()
        .map(|v| {
            let n = c.get(&HashKey::new(v.clone())).copied().unwrap_or(0);
            (v, n)
        })
        .collect()
}

fn item_count(item: Value, count: i64) -> Value {
    let mut m = Map::new();
    m.insert(Arc::from("item"), item);
    m.insert(Arc::from("count"), Value::Int(count));
    Value::map(m)
}

pub(crate) fn frequencies(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.frequencies", args, 0)? else {
        return Ok(Value::from(Vec::new()));
    };
    Ok(Value::from(
        ordered_counts(items)
            .into_iter()
            .map(|(v, n)| item_count(v, n))
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn frequencies_as_map(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.frequenciesAsMap", args, 0)? else {
        return Ok(Value::map(Map::new()));
    };
    Ok(Value::map(
        ordered_counts(items)
            .into_iter()
            .map(|(v, n)| (Arc::from(quiver_value::to_string_cypher(&v)), Value::Int(n)))
            .collect(),
    ))
}

pub(crate) fn occurrences(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.occurrences", args, 0)? else {
        return Ok(Value::Int(0));
    };
    let v = nth(args, 1);
    Ok(Value::Int(
        items.iter().filter(|i| equivalent(i, v)).count() as i64,
    ))
}

pub(crate) fn duplicates(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.duplicates", args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(
        ordered_counts(items)
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(v, _)| v)
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn duplicates_with_count(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.duplicatesWithCount", args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(
        ordered_counts(items)
            .into_iter()
            .filter(|(_, n)| *n > 1)
            .map(|(v, n)| item_count(v, n))
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn drop_duplicate_neighbors(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.dropDuplicateNeighbors", args, 0)? else {
        return Ok(Value::Null);
    };
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for v in items {
        if out.last().is_none_or(|l| !equivalent(l, v)) {
            out.push(v.clone());
        }
    }
    Ok(Value::from(out))
}

/// A count argument that sizes a list: at most what the query's memory can hold.
fn count_arg(name: &str, argument: &str, v: &Value, cx: &mut Cx) -> Result<usize> {
    let n = int(name, argument, v)?;
    let n = usize::try_from(n)
        .map_err(|_| bad(name, argument, format!("must not be negative, got {n}")))?;
    cx.transient(
        n.saturating_mul(std::mem::size_of::<Value>()),
        "a function's result",
    )?;
    Ok(n)
}

pub(crate) fn fill(args: &[Value], cx: &mut Cx) -> Result<Value> {
    let n = count_arg("apoc.coll.fill", "count", nth(args, 1), cx)?;
    Ok(Value::from(vec![nth(args, 0).clone(); n]))
}

pub(crate) fn index_of(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.indexOf", args, 0)? else {
        return Ok(Value::Int(-1));
    };
    let v = nth(args, 1);
    Ok(Value::Int(
        items
            .iter()
            .position(|i| equivalent(i, v))
            .map_or(-1, |p| p as i64),
    ))
}

/// An index into a list of `len` (or at its end when `inclusive`).
fn index(name: &str, v: &Value, len: usize, inclusive: bool) -> Result<usize> {
    let i = int(name, "index", v)?;
    match usize::try_from(i) {
        Ok(i) if i < len || (inclusive && i == len) => Ok(i),
        _ => Err(bad(
            name,
            "index",
            format!("is {i}, outside the list of {len} elements"),
        )),
    }
}

pub(crate) fn insert(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.insert";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let at = index(NAME, nth(args, 1), items.len(), true)?;
    let mut v = items.to_vec();
    v.insert(at, nth(args, 2).clone());
    Ok(Value::from(v))
}

pub(crate) fn insert_all(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.insertAll";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let at = index(NAME, nth(args, 1), items.len(), true)?;
    let extra = nth(args, 2)
        .as_list()
        .map(<[Value]>::to_vec)
        .unwrap_or_default();
    let mut v = items.to_vec();
    v.splice(at..at, extra);
    Ok(Value::from(v))
}

pub(crate) fn set(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.set";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let at = index(NAME, nth(args, 1), items.len(), false)?;
    let mut v = items.to_vec();
    v[at] = nth(args, 2).clone();
    Ok(Value::from(v))
}

pub(crate) fn remove(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.remove";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let at = index(NAME, nth(args, 1), items.len(), false)?;
    let len = match nth(args, 2) {
        Value::Null => 1,
        v => usize::try_from(int(NAME, "length", v)?)
            .map_err(|_| bad(NAME, "length", "must not be negative"))?,
    };
    let mut v = items.to_vec();
    v.drain(at..(at.saturating_add(len)).min(items.len()));
    Ok(Value::from(v))
}

pub(crate) fn reverse(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(
        list("apoc.coll.reverse", args, 0)?.map_or(Value::Null, |items| {
            Value::from(items.iter().rev().cloned().collect::<Vec<_>>())
        }),
    )
}

pub(crate) fn zip(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some((a, b)) = two("apoc.coll.zip", args)? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(
        a.iter()
            .enumerate()
            .map(|(i, x)| Value::from(vec![x.clone(), b.get(i).cloned().unwrap_or(Value::Null)]))
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn pairs(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.pairs", args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(
        items
            .iter()
            .enumerate()
            .map(|(i, x)| {
                Value::from(vec![
                    x.clone(),
                    items.get(i + 1).cloned().unwrap_or(Value::Null),
                ])
            })
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn pairs_min(args: &[Value], _: &mut Cx) -> Result<Value> {
    let Some(items) = list("apoc.coll.pairsMin", args, 0)? else {
        return Ok(Value::Null);
    };
    Ok(Value::from(
        items
            .windows(2)
            .map(|w| Value::from(w.to_vec()))
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn partition(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.coll.partition";
    let Some(items) = list(NAME, args, 0)? else {
        return Ok(Value::Null);
    };
    let size = int(NAME, "batchSize", nth(args, 1))?;
    let size = usize::try_from(size)
        .ok()
        .filter(|s| *s > 0)
        .ok_or_else(|| bad(NAME, "batchSize", format!("must be at least 1, got {size}")))?;
    Ok(Value::from(
        items
            .chunks(size)
            .map(|c| Value::from(c.to_vec()))
            .collect::<Vec<_>>(),
    ))
}
