//! `apoc.convert.*`: conversions between values, and to and from JSON.

use std::collections::HashSet;
use std::sync::Arc;

use quiver_value::{HashKey, Map, Value, to_string_cypher};

use super::{bad, nth};
use crate::error::Result;
use crate::eval::Cx;
use crate::materialize::materialize;

pub(crate) fn to_boolean(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(boolean(nth(args, 0)))
}

/// Booleans as they are; numbers true unless 0; the strings `true`/`yes`/`y`/`1` and
/// `false`/`no`/`n`/`0` (any case); anything else `null`.
fn boolean(v: &Value) -> Value {
    match v {
        Value::Bool(_) => v.clone(),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::Float(f) => Value::Bool(*f != 0.0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" | "1" => Value::Bool(true),
            "false" | "no" | "n" | "0" | "" => Value::Bool(false),
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// Integers as they are, floats truncated, numeric strings parsed (`"1.5"` → 1), booleans
/// 1 and 0; anything else `null`.
fn integer(v: &Value) -> Value {
    match v {
        Value::Int(_) => v.clone(),
        Value::Float(f) if f.is_finite() => Value::Int(*f as i64),
        Value::Bool(b) => Value::Int(i64::from(*b)),
        Value::String(s) => {
            let s = s.trim();
            s.parse::<i64>()
                .ok()
                .or_else(|| {
                    s.parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite())
                        .map(|f| f as i64)
                })
                .map_or(Value::Null, Value::Int)
        }
        _ => Value::Null,
    }
}

fn float(v: &Value) -> Value {
    match v {
        Value::Float(_) => v.clone(),
        Value::Int(i) => Value::Float(*i as f64),
        Value::Bool(b) => Value::Float(f64::from(u8::from(*b))),
        Value::String(s) => s.trim().parse::<f64>().map_or(Value::Null, Value::Float),
        _ => Value::Null,
    }
}

fn text(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::String(_) => v.clone(),
        other => Value::from(to_string_cypher(other)),
    }
}

pub(crate) fn to_integer(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(integer(nth(args, 0)))
}

pub(crate) fn to_float(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(float(nth(args, 0)))
}

pub(crate) fn to_string(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(text(nth(args, 0)))
}

/// A list of the value: lists as they are, a path as its alternating nodes and
/// relationships, `null` as `null`, anything else as a one-element list.
fn as_list(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Null => None,
        Value::List(items) => Some(items.to_vec()),
        Value::Path(p) => {
            let mut out = Vec::with_capacity(p.nodes.len() + p.relationships.len());
            for (i, n) in p.nodes.iter().enumerate() {
                out.push(Value::Node(n.clone()));
                if let Some(r) = p.relationships.get(i) {
                    out.push(Value::Relationship(r.clone()));
                }
            }
            Some(out)
        }
        other => Some(vec![other.clone()]),
    }
}

pub(crate) fn to_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(as_list(nth(args, 0)).map_or(Value::Null, Value::from))
}

pub(crate) fn to_set(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(as_list(nth(args, 0)).map_or(Value::Null, |items| {
        let mut seen = HashSet::new();
        Value::from(
            items
                .into_iter()
                .filter(|v| seen.insert(HashKey::new(v.clone())))
                .collect::<Vec<_>>(),
        )
    }))
}

fn each(args: &[Value], f: fn(&Value) -> Value) -> Value {
    as_list(nth(args, 0)).map_or(Value::Null, |items| {
        Value::from(items.iter().map(f).collect::<Vec<_>>())
    })
}

pub(crate) fn to_boolean_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(each(args, boolean))
}

pub(crate) fn to_int_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(each(args, integer))
}

pub(crate) fn to_float_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(each(args, float))
}

pub(crate) fn to_string_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(each(args, text))
}

/// A map as it is; a node's or relationship's properties; `null` for anything else.
pub(crate) fn to_map(args: &[Value], cx: &mut Cx) -> Result<Value> {
    Ok(match nth(args, 0) {
        Value::Map(_) => nth(args, 0).clone(),
        v @ (Value::Node(_) | Value::Relationship(_)) => match materialize(v.clone(), &cx.tx) {
            Value::Node(n) => n
                .data
                .map_or(Value::Null, |d| Value::map(d.properties.clone())),
            Value::Relationship(r) => r
                .data
                .map_or(Value::Null, |d| Value::map(d.properties.clone())),
            _ => Value::Null,
        },
        _ => Value::Null,
    })
}

pub(crate) fn to_node(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(match nth(args, 0) {
        v @ Value::Node(_) => v.clone(),
        _ => Value::Null,
    })
}

pub(crate) fn to_relationship(args: &[Value], _: &mut Cx) -> Result<Value> {
    Ok(match nth(args, 0) {
        v @ Value::Relationship(_) => v.clone(),
        _ => Value::Null,
    })
}

fn object(entries: Vec<(&str, serde_json::Value)>) -> serde_json::Value {
    serde_json::Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

fn props_json(props: &Map, sorted_ci: bool) -> serde_json::Value {
    map_json(props, sorted_ci)
}

fn map_json(m: &Map, sorted_ci: bool) -> serde_json::Value {
    let mut entries: Vec<(&Arc<str>, &Value)> = m.iter().collect();
    if sorted_ci {
        entries.sort_by_key(|(k, _)| k.to_lowercase());
    }
    serde_json::Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), json(v, sorted_ci)))
            .collect(),
    )
}

/// A materialised value as JSON, the way APOC writes one: nodes as
/// `{id, type: "node", labels, properties}`, relationships as
/// `{id, type: "relationship", label, start, end, properties}`, temporal and spatial values as
/// their strings.
fn json(v: &Value, sorted_ci: bool) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Int(i) => J::from(*i),
        Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        Value::String(s) => J::String(s.to_string()),
        Value::List(items) => J::Array(items.iter().map(|i| json(i, sorted_ci)).collect()),
        Value::Map(m) => map_json(m, sorted_ci),
        Value::Node(n) => {
            let data = n.data.clone().unwrap_or_default();
            let mut e = vec![
                ("id", J::String(n.id.to_string())),
                ("type", J::String("node".into())),
            ];
            if !data.labels.is_empty() {
                e.push((
                    "labels",
                    J::Array(
                        data.labels
                            .iter()
                            .map(|l| J::String(l.to_string()))
                            .collect(),
                    ),
                ));
            }
            if !data.properties.is_empty() {
                e.push(("properties", props_json(&data.properties, sorted_ci)));
            }
            object(e)
        }
        Value::Relationship(r) => {
            let mut e = vec![
                ("id", J::String(r.id.to_string())),
                ("type", J::String("relationship".into())),
            ];
            if let Some(d) = &r.data {
                e.push(("label", J::String(d.rel_type.to_string())));
                e.push((
                    "start",
                    object(vec![("id", J::String(d.start.to_string()))]),
                ));
                e.push(("end", object(vec![("id", J::String(d.end.to_string()))])));
                if !d.properties.is_empty() {
                    e.push(("properties", props_json(&d.properties, sorted_ci)));
                }
            }
            object(e)
        }
        Value::Path(_) => json(&Value::from(as_list(v).unwrap_or_default()), sorted_ci),
        Value::Bytes(b) => J::Array(b.iter().map(|x| J::from(*x)).collect()),
        other => J::String(to_string_cypher(other)),
    }
}

fn encode(v: &Value, sorted_ci: bool, cx: &mut Cx) -> Result<Value> {
    if v.is_null() {
        return Ok(Value::Null);
    }
    let v = materialize(v.clone(), &cx.tx);
    let text = json(&v, sorted_ci).to_string();
    cx.transient(text.len(), "a function's result")?;
    Ok(Value::from(text))
}

pub(crate) fn to_json(args: &[Value], cx: &mut Cx) -> Result<Value> {
    encode(nth(args, 0), false, cx)
}

pub(crate) fn to_sorted_json_map(args: &[Value], cx: &mut Cx) -> Result<Value> {
    let ignore_case = nth(args, 1).as_bool().unwrap_or(true);
    if !ignore_case {
        // Maps are kept in key order already.
        return encode(nth(args, 0), false, cx);
    }
    encode(nth(args, 0), true, cx)
}

fn from_json(v: serde_json::Value) -> Value {
    use serde_json::Value as J;
    match v {
        J::Null => Value::Null,
        J::Bool(b) => Value::Bool(b),
        J::Number(n) => n
            .as_i64()
            .map(Value::Int)
            .or_else(|| n.as_f64().map(Value::Float))
            .unwrap_or(Value::Null),
        J::String(s) => Value::from(s),
        J::Array(items) => Value::from(items.into_iter().map(from_json).collect::<Vec<_>>()),
        J::Object(m) => Value::map(
            m.into_iter()
                .map(|(k, v)| (Arc::from(k.as_str()), from_json(v)))
                .collect(),
        ),
    }
}

/// Follows a JSON path of the simple form APOC users write: `$`, `$.a.b`, `$.a[0].b`, `a.b`.
fn follow<'j>(
    name: &str,
    mut v: &'j serde_json::Value,
    path: &str,
) -> Result<Option<&'j serde_json::Value>> {
    let path = path.trim();
    let path = path.strip_prefix('$').unwrap_or(path);
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let (key, indexes) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !key.is_empty() {
            match v.get(key) {
                Some(next) => v = next,
                None => return Ok(None),
            }
        }
        for index in indexes.split('[').filter(|s| !s.is_empty()) {
            let i = index
                .strip_suffix(']')
                .and_then(|i| i.trim().parse::<usize>().ok())
                .ok_or_else(|| bad(name, "path", format!("has a bad index '[{index}'")))?;
            match v.get(i) {
                Some(next) => v = next,
                None => return Ok(None),
            }
        }
    }
    Ok(Some(v))
}

fn parse(name: &str, args: &[Value]) -> Result<Option<serde_json::Value>> {
    let text = match nth(args, 0) {
        Value::Null => return Ok(None),
        Value::String(s) => s,
        other => {
            return Err(bad(
                name,
                "json",
                format!("must be a string, got {}", other.value_type().name()),
            ));
        }
    };
    let parsed: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| bad(name, "json", format!("is not valid JSON: {e}")))?;
    let path = nth(args, 1).as_str().unwrap_or("");
    Ok(follow(name, &parsed, path)?.cloned())
}

pub(crate) fn from_json_map(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.convert.fromJsonMap";
    match parse(NAME, args)? {
        None | Some(serde_json::Value::Null) => Ok(Value::Null),
        Some(v @ serde_json::Value::Object(_)) => Ok(from_json(v)),
        Some(_) => Err(bad(NAME, "json", "does not hold a JSON object")),
    }
}

pub(crate) fn from_json_list(args: &[Value], _: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.convert.fromJsonList";
    match parse(NAME, args)? {
        None | Some(serde_json::Value::Null) => Ok(Value::Null),
        Some(v @ serde_json::Value::Array(_)) => Ok(from_json(v)),
        Some(_) => Err(bad(NAME, "json", "does not hold a JSON array")),
    }
}
