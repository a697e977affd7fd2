//! Type predicates (`x IS :: INTEGER NOT NULL`) and `valueType(x)`, with Neo4j 5's type names.
//!
//! Every type holds `null` unless it says `NOT NULL` (or is `NOTHING`); a list type holds a
//! list whose every element belongs to the element type, so the empty list belongs to every
//! list type. `PROPERTY VALUE` is what a property may store: a boolean, string, number,
//! temporal value, point, UUID or vector, or a list of one of those (vectors aside) without
//! nulls. `valueType` names a UUID `UUID NOT NULL`, as Neo4j does. `VECTOR<FLOAT32>(3)` holds
//! the vectors of that coordinate type and dimension; `VECTOR` alone holds every vector (a
//! list of numbers is not one).

use quiver_cypher::ast::{CypherType, TypeKind};
use quiver_value::Value;

/// Whether `value` belongs to `ty`.
pub(crate) fn is_type(value: &Value, ty: &CypherType) -> bool {
    if value.is_null() {
        return ty.accepts_null();
    }
    match &ty.kind {
        TypeKind::Any => true,
        TypeKind::Nothing | TypeKind::Null => false,
        TypeKind::Boolean => matches!(value, Value::Bool(_)),
        TypeKind::String => matches!(value, Value::String(_)),
        TypeKind::Integer => matches!(value, Value::Int(_)),
        TypeKind::Float => matches!(value, Value::Float(_)),
        TypeKind::Date => matches!(value, Value::Date(_)),
        TypeKind::LocalTime => matches!(value, Value::LocalTime(_)),
        TypeKind::ZonedTime => matches!(value, Value::Time(_)),
        TypeKind::LocalDateTime => matches!(value, Value::LocalDateTime(_)),
        TypeKind::ZonedDateTime => matches!(value, Value::DateTime(_)),
        TypeKind::Duration => matches!(value, Value::Duration(_)),
        TypeKind::Point => matches!(value, Value::Point(_)),
        TypeKind::Uuid => matches!(value, Value::Uuid(_)),
        TypeKind::Node => matches!(value, Value::Node(_)),
        TypeKind::Relationship => matches!(value, Value::Relationship(_)),
        TypeKind::Map => matches!(value, Value::Map(_)),
        TypeKind::Path => matches!(value, Value::Path(_)),
        TypeKind::PropertyValue => is_property_value(value),
        TypeKind::List(element) => match value {
            Value::List(items) => items.iter().all(|item| is_type(item, element)),
            _ => false,
        },
        TypeKind::Vector {
            coordinate,
            dimension,
        } => match value {
            Value::Vector(v) => {
                coordinate.is_none_or(|c| v.coordinate_type().name() == c)
                    && dimension.is_none_or(|d| usize::try_from(d).is_ok_and(|d| v.len() == d))
            }
            _ => false,
        },
        TypeKind::Union(members) => members.iter().any(|m| is_type(value, m)),
    }
}

/// A value a property could store.
fn is_property_value(value: &Value) -> bool {
    match value {
        Value::List(items) => {
            let mut kind = None;
            items.iter().all(|item| {
                let scalar =
                    !matches!(item, Value::List(_) | Value::Vector(_)) && is_property_value(item);
                let this = std::mem::discriminant(item);
                let same = *kind.get_or_insert(this) == this;
                scalar && same
            })
        }
        Value::Null | Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {
            false
        }
        _ => true,
    }
}

/// `valueType(x)`: the most precise type of `x` by Neo4j's name (`INTEGER NOT NULL`,
/// `LIST<STRING NOT NULL> NOT NULL`, `NULL`).
pub(crate) fn value_type_name(value: &Value) -> String {
    let Some(name) = scalar_name(value) else {
        return match value {
            Value::Null => "NULL".to_owned(),
            Value::Vector(v) => format!("VECTOR<{}>({}) NOT NULL", v.coordinate_type(), v.len()),
            Value::List(items) => format!("LIST<{}> NOT NULL", element_type_name(items)),
            // Byte arrays have no Cypher type name of their own.
            _ => "ANY NOT NULL".to_owned(),
        };
    };
    format!("{name} NOT NULL")
}

/// The names of the types without arguments, in Neo4j's order for unions.
fn scalar_name(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Bool(_) => "BOOLEAN",
        Value::String(_) => "STRING",
        Value::Int(_) => "INTEGER",
        Value::Float(_) => "FLOAT",
        Value::Date(_) => "DATE",
        Value::LocalTime(_) => "LOCAL TIME",
        Value::Time(_) => "ZONED TIME",
        Value::LocalDateTime(_) => "LOCAL DATETIME",
        Value::DateTime(_) => "ZONED DATETIME",
        Value::Duration(_) => "DURATION",
        Value::Point(_) => "POINT",
        Value::Uuid(_) => "UUID",
        Value::Node(_) => "NODE",
        Value::Relationship(_) => "RELATIONSHIP",
        Value::Map(_) => "MAP",
        Value::Path(_) => "PATH",
        Value::Null | Value::List(_) | Value::Bytes(_) | Value::Vector(_) => return None,
    })
}

/// Union order: scalars in [`scalar_name`]'s order, then lists, then anything else.
fn rank(value: &Value) -> u8 {
    match value {
        Value::Bool(_) => 0,
        Value::String(_) => 1,
        Value::Int(_) => 2,
        Value::Float(_) => 3,
        Value::Date(_) => 4,
        Value::LocalTime(_) => 5,
        Value::Time(_) => 6,
        Value::LocalDateTime(_) => 7,
        Value::DateTime(_) => 8,
        Value::Duration(_) => 9,
        Value::Point(_) => 10,
        Value::Uuid(_) => 11,
        Value::Node(_) => 12,
        Value::Relationship(_) => 13,
        Value::Map(_) => 14,
        Value::List(_) => 15,
        Value::Path(_) => 16,
        Value::Vector(_) => 17,
        Value::Bytes(_) | Value::Null => 18,
    }
}

/// The element type of a list: `NOTHING` when empty, `NULL` when only nulls, else the union
/// of the elements' types, each `NOT NULL` unless the list also holds a null.
fn element_type_name(items: &[Value]) -> String {
    if items.is_empty() {
        return "NOTHING".to_owned();
    }
    let has_null = items.iter().any(Value::is_null);
    let mut members: Vec<(u8, String)> = Vec::new();
    for item in items.iter().filter(|v| !v.is_null()) {
        let name = value_type_name(item);
        let name = if has_null {
            name.strip_suffix(" NOT NULL").unwrap_or(&name).to_owned()
        } else {
            name
        };
        if !members.iter().any(|(_, n)| *n == name) {
            members.push((rank(item), name));
        }
    }
    if members.is_empty() {
        return "NULL".to_owned();
    }
    members.sort();
    let names: Vec<String> = members.into_iter().map(|(_, n)| n).collect();
    names.join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: Vec<Value>) -> Value {
        Value::List(items.into())
    }

    #[test]
    fn value_type_names() {
        assert_eq!(value_type_name(&Value::Null), "NULL");
        assert_eq!(value_type_name(&Value::Int(1)), "INTEGER NOT NULL");
        assert_eq!(value_type_name(&list(vec![])), "LIST<NOTHING> NOT NULL");
        assert_eq!(
            value_type_name(&list(vec![Value::Float(1.0), Value::Int(1)])),
            "LIST<INTEGER NOT NULL | FLOAT NOT NULL> NOT NULL"
        );
        assert_eq!(
            value_type_name(&list(vec![Value::Int(1), Value::Null])),
            "LIST<INTEGER> NOT NULL"
        );
    }

    #[test]
    fn property_values() {
        assert!(is_property_value(&list(vec![Value::Int(1), Value::Int(2)])));
        assert!(!is_property_value(&list(vec![
            Value::Int(1),
            Value::Float(2.0)
        ])));
        assert!(!is_property_value(&list(vec![Value::Int(1), Value::Null])));
    }
}
