//! Property tests of the value encoders: every format writes valid JSON for any value, and
//! typed JSON reads back what it wrote.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_http::{encode, typed};
use quiver_value::{Map, Value};

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        any::<String>().prop_map(Value::from),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|b| Value::Bytes(Arc::from(b))),
    ];
    leaf.prop_recursive(3, 24, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            prop::collection::btree_map(any::<String>(), inner, 0..5).prop_map(|entries| {
                let map: Map = entries
                    .into_iter()
                    .map(|(k, v)| (Arc::from(k.as_str()), v))
                    .collect();
                Value::map(map)
            }),
        ]
    })
}

fn parses(bytes: &[u8]) -> Result<serde_json::Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("{e}: {}", String::from_utf8_lossy(bytes)))
}

/// Structural equality with every NaN equal to every NaN.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn every_format_writes_valid_json(v in value()) {
        let mut row = Vec::new();
        encode::row_value(&mut row, &v);
        prop_assert!(parses(&row).is_ok(), "{:?}", parses(&row));
        let mut meta = b"[".to_vec();
        let mut first = true;
        encode::meta(&mut meta, &v, &mut first);
        meta.push(b']');
        prop_assert!(parses(&meta).is_ok(), "{:?}", parses(&meta));
        let mut plain = Vec::new();
        encode::plain_value(&mut plain, &v);
        prop_assert!(parses(&plain).is_ok(), "{:?}", parses(&plain));
    }

    #[test]
    fn typed_json_round_trips(v in value()) {
        let mut out = Vec::new();
        typed::write(&mut out, &v);
        let parsed = parses(&out).map_err(TestCaseError::fail)?;
        let back = typed::decode(&parsed).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(same(&back, &v), "{back:?} != {v:?}");
    }

    #[test]
    fn strings_read_back_exactly(s in any::<String>()) {
        let mut out = Vec::new();
        quiver_http::json::string(&mut out, &s);
        let back: String = serde_json::from_slice(&out).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(back, s);
    }
}
