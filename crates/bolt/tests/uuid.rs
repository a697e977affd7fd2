//! Bolt 6.1's UUID: marker 0xE0 and 16 bytes, both ways, alone and nested; the golden bytes;
//! a short body is a typed error; 6.0 gets the unsupported-type marker in a UUID's place and
//! 5.x a failed request naming 6.1; below 6.1 the marker stays reserved.

mod common;

use common::*;
use proptest::prelude::*;
use quiver_bolt::packstream::{Decoder, Dialect, Limits, Side, write_value};
use quiver_bolt::{Codec, Error, Response, UtcOnly, Version};
use quiver_value::{Uuid, Value};

fn decode(bytes: &[u8], dialect: Dialect, side: Side) -> Result<Value, Error> {
    let mut d = Decoder::new(bytes, Limits::default(), dialect, side, &UtcOnly);
    let v = d.value()?;
    d.finish()?;
    Ok(v)
}

const TEXT: &str = "550e8400-e29b-41d4-a716-446655440000";

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn uuids_round_trip_on_both_sides(bytes in any::<[u8; 16]>()) {
        let value = Value::Uuid(Uuid::from_bytes(bytes));
        let mut buf = Vec::new();
        write_value(&mut buf, &value, Dialect::BOLT6_1).unwrap();
        prop_assert_eq!(buf.len(), 17);
        for side in [Side::Server, Side::Client] {
            let back = decode(&buf, Dialect::BOLT6_1, side).unwrap();
            prop_assert!(same(&value, &back), "{side:?}: {value:?} became {back:?}");
        }
        let mut map = quiver_value::Map::new();
        map.insert("id".into(), value.clone());
        let nested = Value::from(vec![value.clone(), Value::map(map), Value::Int(1)]);
        let mut buf = Vec::new();
        write_value(&mut buf, &nested, Dialect::BOLT6_1).unwrap();
        prop_assert!(same(&nested, &decode(&buf, Dialect::BOLT6_1, Side::Server).unwrap()));
    }

    #[test]
    fn below_bolt_6_a_uuid_fails_and_leaves_no_bytes(bytes in any::<[u8; 16]>()) {
        let mut buf = Vec::new();
        let value = Value::Uuid(Uuid::from_bytes(bytes));
        let err = write_value(&mut buf, &value, Dialect::BOLT5).unwrap_err();
        let named = matches!(
            err,
            Error::TypeNotInVersion { type_name: "UUID", version_min: "6.1" }
        );
        prop_assert!(named, "{err:?}");
        prop_assert!(buf.is_empty());
        prop_assert!(!err.is_fatal());
        prop_assert!(err.to_string().contains("6.1"));
    }

    #[test]
    fn any_short_body_is_a_typed_error(cut in 0usize..16) {
        let mut bytes = vec![0xE0];
        bytes.extend_from_slice(&[0xAB; 16][..cut]);
        let truncated = matches!(
            decode(&bytes, Dialect::BOLT6_1, Side::Server),
            Err(Error::Truncated { .. })
        );
        prop_assert!(truncated);
    }
}

#[test]
fn the_golden_bytes_are_the_marker_then_the_bytes_most_significant_first() {
    let value = Value::Uuid(Uuid::parse(TEXT).unwrap());
    let mut buf = Vec::new();
    write_value(&mut buf, &value, Dialect::BOLT6_1).unwrap();
    assert_eq!(
        buf,
        [
            0xE0, 0x55, 0x0E, 0x84, 0x00, 0xE2, 0x9B, 0x41, 0xD4, 0xA7, 0x16, 0x44, 0x66, 0x55,
            0x44, 0x00, 0x00
        ]
    );
}

#[test]
fn bolt_6_0_gets_the_unsupported_type_marker() {
    let value = Value::Uuid(Uuid::parse(TEXT).unwrap());
    let mut buf = Vec::new();
    write_value(&mut buf, &value, Dialect::BOLT6).unwrap();
    let mut head = vec![0xB4, 0x3F, 0x84];
    head.extend_from_slice(b"UUID");
    head.extend_from_slice(&[0x06, 0x01, 0xA1, 0x87]);
    head.extend_from_slice(b"message");
    assert_eq!(&buf[..head.len()], &head[..]);
    // A client of 6.0 reads it as a structure, not as a UUID.
    assert!(decode(&buf, Dialect::BOLT6, Side::Client).is_err());
}

#[test]
fn below_6_1_the_marker_is_reserved() {
    let mut bytes = vec![0xE0];
    bytes.extend_from_slice(&[0; 16]);
    for dialect in [Dialect::BOLT5, Dialect::BOLT6] {
        assert!(matches!(
            decode(&bytes, dialect, Side::Server),
            Err(Error::ReservedMarker { marker: 0xE0, .. })
        ));
    }
    assert!(decode(&bytes, Dialect::BOLT6_1, Side::Server).is_ok());
    // Trailing bytes after the 16 are not part of the UUID.
    bytes.push(0x01);
    assert!(decode(&bytes, Dialect::BOLT6_1, Side::Server).is_err());
}

#[test]
fn the_codec_of_each_version_decides() {
    let value = Value::Uuid(Uuid::from_halves(42, 42));
    for (version, ok) in [
        (Version::V6_1, true),
        (Version::V6_0, true),
        (Version::V5_8, false),
        (Version::V4_4, false),
    ] {
        let mut wire = bytes::BytesMut::new();
        let encoded = Response::Record(vec![value.clone()]).encode(&mut wire, &Codec::new(version));
        assert_eq!(encoded.is_ok(), ok, "{version}");
        if !ok {
            assert!(matches!(encoded, Err(Error::TypeNotInVersion { .. })));
        }
    }
}
