//! `apoc.map.*`: map functions. Keys are strings; a `null` map argument gives `null`.

use std::sync::Arc;

use quiver_value::{HashKey, Map, Value, to_string_cypher};

use super::{bad, nth};
use crate::error::Result;
use crate::eval::Cx;

fn map<'a>(name: &str, argument: &str, v: &'a Value) -> Result<Option<&'a Arc<Map>>> {
    match v {
        Value::Null => Ok(None),
        Value::Map(m) => Ok(Some(m)),
        other => Err(bad(
            name,
            argument,
            format!("must be a map, got {}", other.value_type().name()),
        )),
    }
}

fn list<'a>(name: &str, argument: &str, v: &'a Value) -> Result<&'a [Value]> {
    match v {
        Value::Null => Ok(&[]),
        Value::List(items) => Ok(items),
        other => Err(bad(
            name,
            argument,
            format!("must be a list, got {}", other.value_type().name()),
        )),
    }
}

/// A key: strings as they are, other values as their string form (APOC keys are strings).
fn key(name: &str, argument: &str, v: &Value) -> Result<Arc<str>> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Null => Err(bad(name, argument, "may not be a null key")),
        other => Ok(Arc::from(to_string_cypher(other))),
    }
}

pub(crate) fn from_pairs(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.fromPairs";
    let mut out = Map::new();
    for pair in list(NAME, "pairs", nth(args, 0))? {
        match pair.as_list() {
            Some([k, v, ..]) => {
                out.insert(key(NAME, "pairs", k)?, v.clone());
            }
            _ => return Err(bad(NAME, "pairs", "must hold [key, value] lists")),
        }
    }
    Ok(Value::map(out))
}

pub(crate) fn from_lists(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.fromLists";
    let keys = list(NAME, "keys", nth(args, 0))?;
    let values = list(NAME, "values", nth(args, 1))?;
    if keys.len() != values.len() {
        return Err(bad(
            NAME,
            "values",
            format!("has {} elements, but keys has {}", values.len(), keys.len()),
        ));
    }
    let mut out = Map::new();
    for (k, v) in keys.iter().zip(values) {
        out.insert(key(NAME, "keys", k)?, v.clone());
    }
    Ok(Value::map(out))
}

pub(crate) fn from_values(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.fromValues";
    let items = list(NAME, "values", nth(args, 0))?;
    if items.len() % 2 != 0 {
        return Err(bad(
            NAME,
            "values",
            "must alternate keys and values: it has an odd length",
        ));
    }
    let mut out = Map::new();
    for kv in items.chunks(2) {
        out.insert(key(NAME, "values", &kv[0])?, kv[1].clone());
    }
    Ok(Value::map(out))
}

pub(crate) fn merge(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.merge";
    let a = map(NAME, "map1", nth(args, 0))?;
    let b = map(NAME, "map2", nth(args, 1))?;
    let mut out = a.map(|m| (**m).clone()).unwrap_or_default();
    if let Some(b) = b {
        out.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Ok(Value::map(out))
}

pub(crate) fn merge_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.mergeList";
    let mut out = Map::new();
    for m in list(NAME, "maps", nth(args, 0))? {
        if let Some(m) = map(NAME, "maps", m)? {
            out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    Ok(Value::map(out))
}

pub(crate) fn set_key(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.setKey";
    let mut out = map(NAME, "map", nth(args, 0))?
        .map(|m| (**m).clone())
        .unwrap_or_default();
    out.insert(key(NAME, "key", nth(args, 1))?, nth(args, 2).clone());
    Ok(Value::map(out))
}

pub(crate) fn set_pairs(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.setPairs";
    let add = from_pairs(&args[1..], cx)?;
    merge(&[nth(args, 0).clone(), add], cx).map_err(|_| bad(NAME, "map", "must be a map"))
}

pub(crate) fn set_lists(args: &[Value], cx: &mut Cx) -> Result<Value> {
    let add = from_lists(&args[1..], cx)?;
    merge(&[nth(args, 0).clone(), add], cx)
}

pub(crate) fn set_values(args: &[Value], cx: &mut Cx) -> Result<Value> {
    let add = from_values(&args[1..], cx)?;
    merge(&[nth(args, 0).clone(), add], cx)
}

/// Whether a `config` map asks for `recursive: true`.
fn recursive(v: &Value) -> bool {
    v.as_map()
        .and_then(|m| m.get("recursive"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn without(m: &Map, keys: &[Arc<str>], deep: bool) -> Map {
    m.iter()
        .filter(|(k, _)| !keys.contains(k))
        .map(|(k, v)| {
            let v = match v {
                Value::Map(inner) if deep => Value::map(without(inner, keys, deep)),
                Value::List(items) if deep => Value::from(
                    items
                        .iter()
                        .map(|i| match i {
                            Value::Map(inner) => Value::map(without(inner, keys, deep)),
                            other => other.clone(),
                        })
                        .collect::<Vec<_>>(),
                ),
                other => other.clone(),
            };
            (k.clone(), v)
        })
        .collect()
}

pub(crate) fn remove_key(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.removeKey";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let k = key(NAME, "key", nth(args, 1))?;
    Ok(Value::map(without(m, &[k], recursive(nth(args, 2)))))
}

pub(crate) fn remove_keys(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.removeKeys";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let keys = list(NAME, "keys", nth(args, 1))?
        .iter()
        .map(|k| key(NAME, "keys", k))
        .collect::<Result<Vec<_>>>()?;
    Ok(Value::map(without(m, &keys, recursive(nth(args, 2)))))
}

/// `apoc.map.clean(map, keys, values)`: without the listed keys, `null` values and the
/// listed values.
pub(crate) fn clean(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.clean";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let keys = list(NAME, "keys", nth(args, 1))?;
    let values: std::collections::HashSet<HashKey> = list(NAME, "values", nth(args, 2))?
        .iter()
        .cloned()
        .map(HashKey::new)
        .collect();
    Ok(Value::map(
        m.iter()
            .filter(|(k, v)| {
                !v.is_null()
                    && !keys.iter().any(|x| x.as_str() == Some(&***k))
                    && !values.contains(&HashKey::new((*v).clone()))
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    ))
}

pub(crate) fn flatten(args: &[Value], _: &mut Cx) -> Result<Value> {
    fn walk(m: &Map, prefix: &str, delimiter: &str, out: &mut Map) {
        for (k, v) in m {
            let key = if prefix.is_empty() {
                k.to_string()
            } else {
                format!("{prefix}{delimiter}{k}")
            };
            match v {
                Value::Map(inner) => walk(inner, &key, delimiter, out),
                other => {
                    out.insert(Arc::from(key), other.clone());
                }
            }
        }
    }
    const NAME: &str = "apoc.map.flatten";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let delimiter = nth(args, 1).as_str().unwrap_or(".");
    let mut out = Map::new();
    walk(m, "", delimiter, &mut out);
    Ok(Value::map(out))
}

pub(crate) fn values(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.values";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let keys = list(NAME, "keys", nth(args, 1))?;
    let nulls = nth(args, 2).as_bool().unwrap_or(false);
    let mut out = Vec::with_capacity(keys.len());
    for k in keys {
        let k = key(NAME, "keys", k)?;
        match m.get(&k) {
            Some(v) => out.push(v.clone()),
            None if nulls => out.push(Value::Null),
            None => {}
        }
    }
    Ok(Value::from(out))
}

fn missing(name: &str, k: &str, m: &Map) -> crate::Error {
    let keys: Vec<&str> = m.keys().map(|k| &**k).collect();
    bad(
        name,
        "key",
        format!("names '{k}', which is not one of the map's keys {keys:?}"),
    )
}

pub(crate) fn get(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.get";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let k = key(NAME, "key", nth(args, 1))?;
    let fail = nth(args, 3).as_bool().unwrap_or(true);
    match m.get(&k) {
        Some(v) => Ok(v.clone()),
        None if fail && args.len() < 3 => Err(missing(NAME, &k, m)),
        None if fail && nth(args, 2).is_null() => Err(missing(NAME, &k, m)),
        None => Ok(nth(args, 2).clone()),
    }
}

pub(crate) fn submap(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.submap";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let keys = list(NAME, "keys", nth(args, 1))?;
    let defaults = list(NAME, "values", nth(args, 2))?;
    let fail = nth(args, 3).as_bool().unwrap_or(true);
    let mut out = Map::new();
    for (i, k) in keys.iter().enumerate() {
        let k = key(NAME, "keys", k)?;
        let v = match (m.get(&k), defaults.get(i)) {
            (Some(v), _) => v.clone(),
            (None, Some(d)) => d.clone(),
            (None, None) if fail => return Err(missing(NAME, &k, m)),
            (None, None) => Value::Null,
        };
        out.insert(k, v);
    }
    Ok(Value::map(out))
}

pub(crate) fn sorted_properties(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.sortedProperties";
    let Some(m) = map(NAME, "map", nth(args, 0))? else {
        return Ok(Value::Null);
    };
    let ignore_case = nth(args, 1).as_bool().unwrap_or(true);
    let mut pairs: Vec<(&Arc<str>, &Value)> = m.iter().collect();
    if ignore_case {
        pairs.sort_by_key(|(k, _)| k.to_lowercase());
    }
    Ok(Value::from(
        pairs
            .into_iter()
            .map(|(k, v)| Value::from(vec![Value::String(k.clone()), v.clone()]))
            .collect::<Vec<_>>(),
    ))
}

pub(crate) fn group_by(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.map.groupBy";
    let items = list(NAME, "values", nth(args, 0))?;
    let k = key(NAME, "key", nth(args, 1))?;
    let mut out = Map::new();
    for item in items {
        if let Value::Map(m) = item
            && let Some(v) = m.get(&k)
            && !v.is_null()
        {
            out.insert(Arc::from(to_string_cypher(v)), item.clone());
        }
    }
    Ok(Value::map(out))
}
