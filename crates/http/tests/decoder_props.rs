//! Property tests of the request-body decoders: any bytes decode or fail with an
//! `InvalidFormat` error (never a panic), and well-formed requests carry every statement and
//! parameter through unchanged.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_http::ApiError;
use quiver_http::decode::{query_request, tx_request};
use quiver_value::{Map, Value};

/// JSON values and the engine values they must decode to.
fn json_value() -> impl Strategy<Value = (serde_json::Value, Value)> {
    let leaf = prop_oneof![
        Just((serde_json::Value::Null, Value::Null)),
        any::<bool>().prop_map(|b| (serde_json::Value::Bool(b), Value::Bool(b))),
        any::<i64>().prop_map(|i| (serde_json::json!(i), Value::Int(i))),
        // serde_json writes every float with a fraction or exponent, so it reads back a float.
        (prop::num::f64::NORMAL | prop::num::f64::ZERO | prop::num::f64::SUBNORMAL)
            .prop_map(|f| (serde_json::json!(f), Value::Float(f))),
        ".{0,12}".prop_map(|s| (serde_json::Value::String(s.clone()), Value::from(s))),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|items| {
                let (json, values): (Vec<_>, Vec<_>) = items.into_iter().unzip();
                (serde_json::Value::Array(json), Value::from(values))
            }),
            prop::collection::btree_map("[a-z]{1,6}", inner, 0..6).prop_map(|entries| {
                let mut json = serde_json::Map::new();
                let mut map = Map::new();
                for (key, (j, v)) in entries {
                    json.insert(key.clone(), j);
                    map.insert(Arc::from(key.as_str()), v);
                }
                (serde_json::Value::Object(json), Value::map(map))
            }),
        ]
    })
}

fn parameters() -> impl Strategy<Value = (serde_json::Value, Map)> {
    prop::collection::btree_map("[a-z_]{1,8}", json_value(), 0..5).prop_map(|entries| {
        let mut json = serde_json::Map::new();
        let mut map = Map::new();
        for (key, (j, v)) in entries {
            json.insert(key.clone(), j);
            map.insert(Arc::from(key.as_str()), v);
        }
        (serde_json::Value::Object(json), map)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        match tx_request(&bytes, 16) {
            Ok(_) | Err(ApiError::InvalidFormat(_)) => {}
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
        let _ = query_request(&bytes, false);
        let _ = query_request(&bytes, true);
    }

    #[test]
    fn mutated_requests_never_panic(
        (json, _) in parameters(),
        cut in any::<prop::sample::Index>(),
        flip in any::<prop::sample::Index>(),
        byte in any::<u8>(),
    ) {
        let body = serde_json::json!({"statements": [{"statement": "RETURN 1", "parameters": json}]})
            .to_string()
            .into_bytes();
        let mut mutated = body.clone();
        let at = flip.index(mutated.len());
        mutated[at] = byte;
        mutated.truncate(cut.index(mutated.len() + 1));
        match tx_request(&mutated, 16) {
            Ok(_) | Err(ApiError::InvalidFormat(_)) => {}
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }

    #[test]
    fn statements_round_trip(
        statements in prop::collection::vec((".{0,40}", parameters(), any::<bool>(), any::<bool>()), 0..6)
    ) {
        let body = serde_json::json!({
            "statements": statements.iter().map(|(text, (params, _), stats, graph)| {
                let mut statement = serde_json::json!({
                    "statement": text,
                    "parameters": params,
                    "includeStats": stats,
                });
                if *graph {
                    statement["resultDataContents"] = serde_json::json!(["row", "graph"]);
                }
                statement
            }).collect::<Vec<_>>()
        });
        let decoded = tx_request(body.to_string().as_bytes(), 16).expect("well-formed");
        prop_assert_eq!(decoded.len(), statements.len());
        for (got, (text, (_, params), stats, graph)) in decoded.iter().zip(&statements) {
            prop_assert_eq!(&got.text, text);
            prop_assert_eq!(&got.parameters, params);
            prop_assert_eq!(got.include_stats, *stats);
            prop_assert_eq!(got.contents.graph, *graph);
            prop_assert!(got.contents.row);
        }
    }

    #[test]
    fn query_parameters_round_trip(text in ".{0,40}", (json, params) in parameters()) {
        let body = serde_json::json!({"statement": text, "parameters": json});
        let decoded = query_request(body.to_string().as_bytes(), false).expect("well-formed");
        prop_assert_eq!(decoded.statement, text);
        prop_assert_eq!(decoded.parameters, params);
    }
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    let depth = 100_000;
    let body = format!(
        r#"{{"statements":[{{"statement":"RETURN $p","parameters":{{"p":{}{}}}}}]}}"#,
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert!(matches!(
        tx_request(body.as_bytes(), 16),
        Err(ApiError::InvalidFormat(_))
    ));
}
