//! Request bodies: the transactional API's `{"statements": [...]}` and the Query API's
//! `{"statement": ..., "parameters": ...}`, decoded straight into engine values.
//!
//! Decoding is a serde visitor over the bytes, so a parameter map becomes a
//! [`quiver_value::Map`] without an intermediate JSON tree. Every failure is an
//! [`ApiError::InvalidFormat`] whose message names what was wrong, never a panic; nesting is
//! bounded by `serde_json`'s recursion limit and sizes by the server's body limit.

use std::fmt;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use quiver_value::{Map, Value};

use crate::error::ApiError;
use crate::typed;

/// One statement of a transactional request.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub text: String,
    pub parameters: Map,
    /// Which result formats to write (`row` when none was asked for).
    pub contents: Contents,
    pub include_stats: bool,
}

/// `resultDataContents`: the formats a statement's records are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contents {
    pub row: bool,
    pub graph: bool,
}

impl Default for Contents {
    fn default() -> Self {
        Contents {
            row: true,
            graph: false,
        }
    }
}

/// Decodes a transactional request body. An empty body (or one of only whitespace) has no
/// statements, which is how clients open, keep alive or commit a transaction without work.
pub fn tx_request(body: &[u8], statements_max: usize) -> Result<Vec<Statement>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let request = TxRequestSeed { statements_max }
        .deserialize(&mut deserializer)
        .map_err(json_error)?;
    deserializer.end().map_err(json_error)?;
    Ok(request)
}

/// A Query API request.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRequest {
    pub statement: String,
    pub parameters: Map,
    pub include_counters: bool,
    pub bookmarks: Vec<String>,
    /// `Some(true)` for `READ`, `Some(false)` for `WRITE`.
    pub read_only: Option<bool>,
    pub impersonated_user: Option<String>,
}

/// Decodes a Query API body; `typed` selects Neo4j's typed JSON for the parameters
/// (`Content-Type: application/vnd.neo4j.query`).
pub fn query_request(body: &[u8], typed: bool) -> Result<QueryRequest, ApiError> {
    let raw: RawQueryRequest = serde_json::from_slice(body).map_err(json_error)?;
    let parameters = match raw.parameters {
        None | Some(serde_json::Value::Null) => Map::new(),
        Some(serde_json::Value::Object(entries)) => {
            let mut map = Map::new();
            for (name, value) in entries {
                let value = if typed {
                    typed::decode(&value)?
                } else {
                    plain_value(&value)?
                };
                map.insert(Arc::from(name), value);
            }
            map
        }
        Some(_) => {
            return Err(ApiError::InvalidFormat(
                "`parameters` must be an object".to_owned(),
            ));
        }
    };
    let read_only = match raw.access_mode.as_deref() {
        None => None,
        Some(mode) if mode.eq_ignore_ascii_case("read") => Some(true),
        Some(mode) if mode.eq_ignore_ascii_case("write") => Some(false),
        Some(mode) => {
            return Err(ApiError::InvalidFormat(format!(
                "`accessMode` must be READ or WRITE, not `{mode}`"
            )));
        }
    };
    Ok(QueryRequest {
        statement: raw.statement,
        parameters,
        include_counters: raw.include_counters.unwrap_or(false),
        bookmarks: raw.bookmarks.unwrap_or_default(),
        read_only,
        impersonated_user: raw.impersonated_user,
    })
}

/// Decodes the body of a request to a Query API transaction, where the statement is
/// optional: an empty body, `{}` or `{"statement": null}` runs nothing (and keeps the
/// transaction from expiring).
pub fn query_tx_request(body: &[u8], typed: bool) -> Result<Option<QueryRequest>, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let raw: serde_json::Value = serde_json::from_slice(body).map_err(json_error)?;
    match raw.get("statement") {
        None | Some(serde_json::Value::Null) if raw.is_object() => Ok(None),
        _ => query_request(body, typed).map(Some),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawQueryRequest {
    statement: String,
    #[serde(default)]
    parameters: Option<serde_json::Value>,
    #[serde(default)]
    include_counters: Option<bool>,
    #[serde(default)]
    bookmarks: Option<Vec<String>>,
    #[serde(default)]
    access_mode: Option<String>,
    #[serde(default)]
    impersonated_user: Option<String>,
}

/// A plain JSON value as a parameter: integers that fit 64 bits are integers, every other
/// number a float, objects maps and arrays lists.
pub fn plain_value(value: &serde_json::Value) -> Result<Value, ApiError> {
    Ok(match value {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => number(n)?,
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => Value::from(
            items
                .iter()
                .map(plain_value)
                .collect::<Result<Vec<_>, _>>()?,
        ),
        serde_json::Value::Object(entries) => {
            let mut map = Map::new();
            for (k, v) in entries {
                map.insert(Arc::from(k.as_str()), plain_value(v)?);
            }
            Value::map(map)
        }
    })
}

fn number(n: &serde_json::Number) -> Result<Value, ApiError> {
    if let Some(i) = n.as_i64() {
        Ok(Value::Int(i))
    } else if n.is_u64() {
        Err(ApiError::InvalidFormat(format!(
            "integer {n} does not fit in 64 bits"
        )))
    } else {
        Ok(Value::Float(n.as_f64().unwrap_or(f64::NAN)))
    }
}

fn json_error(error: serde_json::Error) -> ApiError {
    use serde_json::error::Category;
    match error.classify() {
        Category::Data => {
            ApiError::InvalidFormat(format!("Could not map the incoming JSON: {error}"))
        }
        Category::Io | Category::Syntax | Category::Eof => {
            ApiError::InvalidFormat(format!("Could not parse the incoming JSON: {error}"))
        }
    }
}

struct TxRequestSeed {
    statements_max: usize,
}

impl<'de> DeserializeSeed<'de> for TxRequestSeed {
    type Value = Vec<Statement>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TxRequestSeed {
    type Value = Vec<Statement>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"an object {"statements": [...]}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut statements = None;
        while let Some(key) = map.next_key::<KeyName<'de>>()? {
            if key.0 == "statements" {
                if statements.is_some() {
                    return Err(de::Error::duplicate_field("statements"));
                }
                statements = Some(map.next_value_seed(StatementsSeed {
                    statements_max: self.statements_max,
                })?);
            } else {
                // Neo4j ignores fields it does not know.
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(statements.unwrap_or_default())
    }
}

/// A key borrowed from the input where possible.
struct KeyName<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for KeyName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyName<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(KeyName(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(KeyName(std::borrow::Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(KeyName(std::borrow::Cow::Owned(v)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct StatementsSeed {
    statements_max: usize,
}

impl<'de> DeserializeSeed<'de> for StatementsSeed {
    type Value = Vec<Statement>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for StatementsSeed {
    type Value = Vec<Statement>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`statements` as an array of statement objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut statements = Vec::new();
        while let Some(statement) = seq.next_element::<StatementBody>()? {
            if statements.len() >= self.statements_max {
                return Err(de::Error::custom(format!(
                    "more than {} statements in one request",
                    self.statements_max
                )));
            }
            statements.push(statement.0);
        }
        Ok(statements)
    }
}

struct StatementBody(Statement);

impl<'de> Deserialize<'de> for StatementBody {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(StatementVisitor)
    }
}

struct StatementVisitor;

impl<'de> Visitor<'de> for StatementVisitor {
    type Value = StatementBody;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(r#"a statement object {"statement": "..."}"#)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut text: Option<String> = None;
        let mut parameters = Map::new();
        let mut contents = None;
        let mut include_stats = false;
        while let Some(key) = map.next_key::<KeyName<'de>>()? {
            match key.0.as_ref() {
                "statement" => text = Some(map.next_value::<String>()?),
                "parameters" => {
                    parameters = map
                        .next_value::<Option<ParamMap>>()?
                        .map(|p| p.0)
                        .unwrap_or_default();
                }
                "resultDataContents" => {
                    contents = map.next_value::<Option<ContentsList>>()?.map(|c| c.0);
                }
                "includeStats" => {
                    include_stats = map.next_value::<Option<bool>>()?.unwrap_or(false);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let text = text.ok_or_else(|| de::Error::custom("No statement provided."))?;
        Ok(StatementBody(Statement {
            text,
            parameters,
            contents: contents.unwrap_or_default(),
            include_stats,
        }))
    }
}

struct ContentsList(Contents);

impl<'de> Deserialize<'de> for ContentsList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let names = Vec::<KeyName<'de>>::deserialize(deserializer)?;
        let mut contents = Contents {
            row: false,
            graph: false,
        };
        for name in &names {
            match name.0.to_ascii_lowercase().as_str() {
                "row" => contents.row = true,
                "graph" => contents.graph = true,
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown result data content `{other}` (expected `row` or `graph`)"
                    )));
                }
            }
        }
        if names.is_empty() {
            contents = Contents::default();
        }
        Ok(ContentsList(contents))
    }
}

/// A parameter map decoded straight into engine values.
pub struct ParamMap(pub Map);

impl<'de> Deserialize<'de> for ParamMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> Visitor<'de> for MapVisitor {
            type Value = ParamMap;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`parameters` as an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                read_map(map).map(ParamMap)
            }
        }
        deserializer.deserialize_map(MapVisitor)
    }
}

fn read_map<'de, A: MapAccess<'de>>(mut access: A) -> Result<Map, A::Error> {
    let mut map = Map::new();
    while let Some(key) = access.next_key::<KeyName<'de>>()? {
        let value = access.next_value::<Param>()?;
        map.insert(Arc::from(key.0.as_ref()), value.0);
    }
    Ok(map)
}

/// One parameter value.
pub struct Param(pub Value);

impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ParamVisitor)
    }
}

struct ParamVisitor;

impl<'de> Visitor<'de> for ParamVisitor {
    type Value = Param;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Param, E> {
        Ok(Param(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Param, E> {
        Ok(Param(Value::Null))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Param, E> {
        Ok(Param(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Param, E> {
        Ok(Param(Value::Int(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Param, E> {
        i64::try_from(v)
            .map(|i| Param(Value::Int(i)))
            .map_err(|_| E::custom(format!("integer {v} does not fit in 64 bits")))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Param, E> {
        Ok(Param(Value::Float(v)))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Param, E> {
        Ok(Param(Value::from(v)))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Param, E> {
        Ok(Param(Value::from(v)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Param, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element::<Param>()? {
            items.push(item.0);
        }
        Ok(Param(Value::from(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Param, A::Error> {
        read_map(map).map(|m| Param(Value::map(m)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statements(body: &str) -> Result<Vec<Statement>, ApiError> {
        tx_request(body.as_bytes(), 100)
    }

    #[test]
    fn seed_bodies_decode() {
        let body = r#"{"statements":[{"statement":"CREATE (_0:`Bike`) RETURN id(_0) AS _0","parameters":{},"resultDataContents":["row"]}]}"#;
        let decoded = statements(body).expect("valid");
        assert_eq!(decoded.len(), 1);
        assert_eq!(decoded[0].text, "CREATE (_0:`Bike`) RETURN id(_0) AS _0");
        assert!(decoded[0].contents.row && !decoded[0].contents.graph);
        assert!(!decoded[0].include_stats);
    }

    #[test]
    fn parameters_keep_integers_and_floats_apart() {
        let body = r#"{"statements":[{"statement":"RETURN $a","parameters":{"a":1,"b":1.0,"c":[true,null,"x"],"d":{"e":-3}}}]}"#;
        let decoded = statements(body).expect("valid");
        let p = &decoded[0].parameters;
        assert_eq!(p.get("a"), Some(&Value::Int(1)));
        assert_eq!(p.get("b"), Some(&Value::Float(1.0)));
        assert_eq!(
            p.get("c"),
            Some(&Value::from(vec![
                Value::Bool(true),
                Value::Null,
                Value::from("x")
            ]))
        );
        let mut inner = Map::new();
        inner.insert(Arc::from("e"), Value::Int(-3));
        assert_eq!(p.get("d"), Some(&Value::map(inner)));
    }

    #[test]
    fn empty_bodies_have_no_statements() {
        assert_eq!(statements("").expect("empty"), vec![]);
        assert_eq!(statements("  \n").expect("blank"), vec![]);
        assert_eq!(statements(r#"{"statements":[]}"#).expect("none"), vec![]);
        assert_eq!(statements("{}").expect("no field"), vec![]);
    }

    #[test]
    fn malformed_bodies_are_invalid_format() {
        for body in [
            "{",
            "[]",
            r#"{"statements":{}}"#,
            r#"{"statements":[1]}"#,
            r#"{"statements":[{"parameters":{}}]}"#,
            r#"{"statements":[{"statement":1}]}"#,
            r#"{"statements":[{"statement":"RETURN 1","parameters":[]}]}"#,
            r#"{"statements":[{"statement":"RETURN 1","includeStats":"yes"}]}"#,
            r#"{"statements":[{"statement":"RETURN 1","resultDataContents":["rest"]}]}"#,
            r#"{"statements":[{"statement":"RETURN 1","parameters":{"a":18446744073709551615}}]}"#,
            r#"{"statements":[]} trailing"#,
        ] {
            match statements(body) {
                Err(ApiError::InvalidFormat(_)) => {}
                other => panic!("{body}: {other:?}"),
            }
        }
    }

    #[test]
    fn statement_count_is_capped() {
        let one = r#"{"statement":"RETURN 1"}"#;
        let body = format!(r#"{{"statements":[{}]}}"#, [one; 3].join(","));
        assert!(tx_request(body.as_bytes(), 3).is_ok());
        assert!(matches!(
            tx_request(body.as_bytes(), 2),
            Err(ApiError::InvalidFormat(_))
        ));
    }

    #[test]
    fn query_requests_decode() {
        let body = br#"{"statement":"RETURN $x","parameters":{"x":2},"includeCounters":true,"accessMode":"Read","bookmarks":["b"]}"#;
        let request = query_request(body, false).expect("valid");
        assert_eq!(request.statement, "RETURN $x");
        assert_eq!(request.parameters.get("x"), Some(&Value::Int(2)));
        assert!(request.include_counters);
        assert_eq!(request.read_only, Some(true));
        assert_eq!(request.bookmarks, vec!["b".to_owned()]);
        assert!(matches!(
            query_request(
                br#"{"statement":"RETURN 1","accessMode":"sideways"}"#,
                false
            ),
            Err(ApiError::InvalidFormat(_))
        ));
        assert!(matches!(
            query_request(br#"{"parameters":{}}"#, false),
            Err(ApiError::InvalidFormat(_))
        ));
    }
}
