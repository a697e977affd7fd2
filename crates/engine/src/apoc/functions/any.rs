//! `apoc.any.*`: property reads that work the same on a node, a relationship (stored or
//! virtual) and a map, so a tool can read a property without knowing which it holds.
//!
//! As in APOC, a `null` entity or key gives `null`, and a value that holds no properties (a
//! number, a list) gives `null` rather than failing. Stored entities are read through the
//! transaction's view and the values read are held to the query's memory limit, as `n.key`
//! is; a virtual entity (`apoc.meta.graph`'s) answers from the properties it carries.

use quiver_value::{Map, Value};

use super::{bad, nth};
use crate::error::Result;
use crate::eval::Cx;
use crate::eval::graph_fns::{self, carried};
use crate::tokens::{Token, TokenKind};

/// One property of `thing`, `null` when it has none by that name.
fn read(thing: &Value, key: &str, cx: &mut Cx) -> Result<Value> {
    if let Some(props) = carried(thing) {
        return Ok(props.get(key).cloned().unwrap_or(Value::Null));
    }
    match thing {
        Value::Node(_) | Value::Relationship(_) | Value::Map(_) => {
            graph_fns::property(thing, &Token::new(TokenKind::PropKey, key), cx)
        }
        _ => Ok(Value::Null),
    }
}

pub(crate) fn property(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.any.property";
    let key = match nth(args, 1) {
        Value::Null => return Ok(Value::Null),
        Value::String(k) => k.clone(),
        other => {
            return Err(bad(
                NAME,
                "key",
                format!("must be a string, got {}", other.value_type().name()),
            ));
        }
    };
    read(nth(args, 0), &key, cx)
}

pub(crate) fn properties(args: &[Value], cx: &mut Cx) -> Result<Value> {
    const NAME: &str = "apoc.any.properties";
    let keys = match nth(args, 1) {
        Value::Null => None,
        Value::List(items) => {
            let mut keys = Vec::with_capacity(items.len());
            for k in items.iter() {
                match k {
                    Value::String(k) => keys.push(k.clone()),
                    other => {
                        return Err(bad(
                            NAME,
                            "keys",
                            format!("must hold strings, got {}", other.value_type().name()),
                        ));
                    }
                }
            }
            Some(keys)
        }
        other => {
            return Err(bad(
                NAME,
                "keys",
                format!(
                    "must be a list of strings, got {}",
                    other.value_type().name()
                ),
            ));
        }
    };
    let thing = nth(args, 0);
    if !matches!(
        thing,
        Value::Node(_) | Value::Relationship(_) | Value::Map(_)
    ) {
        return Ok(Value::Null);
    }
    let Some(keys) = keys else {
        if let Some(props) = carried(thing) {
            return Ok(Value::map(props.clone()));
        }
        return Ok(graph_fns::properties_of(thing, cx)?.map_or(Value::Null, Value::map));
    };
    // Only the keys asked for are read, so a wide entity costs what the caller wants of it;
    // a key the entity lacks is left out, as APOC leaves it.
    let mut out = Map::new();
    for k in keys {
        let v = read(thing, &k, cx)?;
        if !v.is_null() {
            out.insert(k, v);
        }
    }
    Ok(Value::map(out))
}
