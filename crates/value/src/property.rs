//! Property access on non-graph values: `map.key`, `date.year`, `duration.minutes`, `point.x`.
//!
//! Nodes and relationships are the engine's to read from its snapshot; here they answer only
//! when their data is materialised.

use crate::error::{Result, ValueError};
use crate::spatial;
use crate::temporal::{Temporal, duration, fields};
use crate::value::Value;

/// `value.key`. A missing map key is `null`; a component a temporal, duration or point does
/// not have is an error, as is property access on a type without properties.
pub fn property(value: &Value, key: &str) -> Result<Value> {
    match value {
        Value::Null => Ok(Value::Null),
        Value::Map(map) => Ok(map.get(key).cloned().unwrap_or(Value::Null)),
        Value::Node(node) => match &node.data {
            Some(data) => Ok(data.properties.get(key).cloned().unwrap_or(Value::Null)),
            None => Err(not_materialised("node")),
        },
        Value::Relationship(rel) => match &rel.data {
            Some(data) => Ok(data.properties.get(key).cloned().unwrap_or(Value::Null)),
            None => Err(not_materialised("relationship")),
        },
        Value::Duration(d) => duration::field(d, key)
            .map(Value::Int)
            .ok_or_else(|| no_such_field("Duration", key)),
        Value::Point(p) => {
            spatial::field(p, &key.to_ascii_lowercase()).ok_or_else(|| no_such_field("Point", key))
        }
        other => match Temporal::from_value(other) {
            Some(t) => fields::field(&t, key).ok_or_else(|| no_such_field(t.type_name(), key)),
            None => Err(ValueError::invalid_type(format!(
                "Type mismatch: expected a map, node, relationship, temporal or point but was {}",
                other.value_type()
            ))),
        },
    }
}

fn no_such_field(type_name: &str, key: &str) -> ValueError {
    let shown: String = key.chars().take(64).collect();
    ValueError::invalid_value(format!("A {type_name} has no field '{shown}'"))
}

fn not_materialised(kind: &str) -> ValueError {
    ValueError::invalid_value(format!(
        "The {kind}'s properties are not loaded; read them through the engine"
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::temporal::parse::parse_duration;

    #[test]
    fn maps_and_nulls() {
        // Null1 [5].
        let map = Value::map(
            [
                (Arc::from("name"), Value::from("Mats")),
                (Arc::from("name2"), Value::Null),
            ]
            .into_iter()
            .collect(),
        );
        assert_eq!(property(&map, "name").unwrap(), Value::from("Mats"));
        assert_eq!(property(&map, "name2").unwrap(), Value::Null);
        assert_eq!(property(&map, "missing").unwrap(), Value::Null);
        assert_eq!(property(&Value::Null, "name").unwrap(), Value::Null);
        assert!(property(&Value::Int(1), "name").is_err());
    }

    #[test]
    fn temporal_duration_and_point_components() {
        let date = Value::Date(crate::temporal::Date::from_ymd(1984, 10, 11).unwrap());
        assert_eq!(property(&date, "year").unwrap(), Value::Int(1984));
        assert!(property(&date, "hour").is_err());
        let d = Value::Duration(Box::new(parse_duration("PT1H1M").unwrap()));
        assert_eq!(property(&d, "minutes").unwrap(), Value::Int(61));
        assert!(property(&d, "fortnights").is_err());
        let p = Value::Point(Box::new(crate::Point {
            srid: spatial::SRID_CARTESIAN,
            x: 1.0,
            y: 2.0,
            z: None,
        }));
        assert_eq!(property(&p, "y").unwrap(), Value::Float(2.0));
        assert_eq!(property(&p, "crs").unwrap(), Value::from("cartesian"));
        assert!(property(&p, "latitude").is_err());
    }
}
