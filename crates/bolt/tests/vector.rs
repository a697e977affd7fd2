//! Bolt 6's Vector structure: every coordinate type round-trips both ways, empty and large
//! vectors included; below 6.0 a vector cannot be sent or received; the unsupported-type
//! marker's bytes.

mod common;

use common::*;
use proptest::prelude::*;
use quiver_bolt::packstream::encode::write_unsupported;
use quiver_bolt::packstream::{Decoder, Dialect, Limits, Side, write_value};
use quiver_bolt::{Codec, Error, Response, UtcOnly, Version};
use quiver_value::{CoordinateType, Value, Vector};

fn decode(bytes: &[u8], dialect: Dialect, side: Side) -> Result<Value, Error> {
    let mut d = Decoder::new(bytes, Limits::default(), dialect, side, &UtcOnly);
    let v = d.value()?;
    d.finish()?;
    Ok(v)
}

fn vector() -> impl Strategy<Value = Vector> {
    use proptest::collection::vec;
    let len = 0..40usize;
    prop_oneof![
        vec(any::<i8>(), len.clone()).prop_map(|c| Vector::Int8(c.into())),
        vec(any::<i16>(), len.clone()).prop_map(|c| Vector::Int16(c.into())),
        vec(any::<i32>(), len.clone()).prop_map(|c| Vector::Int32(c.into())),
        vec(any::<i64>(), len.clone()).prop_map(|c| Vector::Int64(c.into())),
        vec(any::<f32>(), len.clone()).prop_map(|c| Vector::Float32(c.into())),
        vec(any::<f64>(), len).prop_map(|c| Vector::Float64(c.into())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn vectors_round_trip_on_both_sides(v in vector()) {
        let value = Value::vector(v);
        let mut buf = Vec::new();
        write_value(&mut buf, &value, Dialect::BOLT6).unwrap();
        for side in [Side::Server, Side::Client] {
            let back = decode(&buf, Dialect::BOLT6, side).unwrap();
            prop_assert!(same(&value, &back), "{side:?}: {value:?} became {back:?}");
        }
        // Inside a list and a map too.
        let nested = Value::from(vec![value.clone(), Value::Int(1)]);
        let mut buf = Vec::new();
        write_value(&mut buf, &nested, Dialect::BOLT6).unwrap();
        prop_assert!(same(&nested, &decode(&buf, Dialect::BOLT6, Side::Server).unwrap()));
    }

    #[test]
    fn below_bolt_6_a_vector_fails_and_leaves_no_bytes(v in vector()) {
        let mut buf = Vec::new();
        let err = write_value(&mut buf, &Value::vector(v), Dialect::BOLT5).unwrap_err();
        let named = matches!(
            err,
            Error::TypeNotInVersion { type_name: "Vector", version_min: "6.0" }
        );
        prop_assert!(named, "{err:?}");
        prop_assert!(buf.is_empty());
        prop_assert!(!err.is_fatal());
    }
}

#[test]
fn every_coordinate_type_empty_and_large() {
    for t in CoordinateType::ALL {
        for len in [0usize, 1, 4096, 70_000] {
            let values: Vec<Value> = (0..len)
                .map(|i| Value::Int((i % 100) as i64 - 50))
                .collect();
            let value = Value::vector(Vector::from_values(&values, t).unwrap());
            let mut buf = Vec::new();
            write_value(&mut buf, &value, Dialect::BOLT6).unwrap();
            let back = decode(&buf, Dialect::BOLT6, Side::Server).unwrap();
            assert!(same(&value, &back), "{t} x {len}");
            let Value::Vector(back) = back else { panic!() };
            assert_eq!(back.coordinate_type(), t);
            assert_eq!(back.len(), len);
        }
    }
}

#[test]
fn the_structure_is_type_marker_then_big_endian_bytes() {
    let value = Value::vector(Vector::Int16(vec![1, -2].into()));
    let mut buf = Vec::new();
    write_value(&mut buf, &value, Dialect::BOLT6).unwrap();
    assert_eq!(
        buf,
        [
            0xB2, 0x56, 0xCC, 0x01, 0xC9, 0xCC, 0x04, 0x00, 0x01, 0xFF, 0xFE
        ]
    );
    let f32s = Value::vector(Vector::Float32(vec![1.0].into()));
    let mut buf = Vec::new();
    write_value(&mut buf, &f32s, Dialect::BOLT6).unwrap();
    assert_eq!(
        buf,
        [
            0xB2, 0x56, 0xCC, 0x01, 0xC6, 0xCC, 0x04, 0x3F, 0x80, 0x00, 0x00
        ]
    );
}

#[test]
fn malformed_vectors_are_refused() {
    // Below 6.0 the structure is unknown.
    let bytes = [0xB2, 0x56, 0xCC, 0x01, 0xC9, 0xCC, 0x02, 0x00, 0x01];
    assert!(matches!(
        decode(&bytes, Dialect::BOLT5, Side::Server),
        Err(Error::UnknownStruct { tag: 0x56 })
    ));
    assert!(decode(&bytes, Dialect::BOLT6, Side::Server).is_ok());
    // An odd number of bytes for 16-bit coordinates.
    let ragged = [0xB2, 0x56, 0xCC, 0x01, 0xC9, 0xCC, 0x03, 0x00, 0x01, 0x02];
    assert!(matches!(
        decode(&ragged, Dialect::BOLT6, Side::Server),
        Err(Error::InvalidValue { what: "vector", .. })
    ));
    // An unknown type marker, a type field of two bytes, a string where bytes belong.
    for bad in [
        vec![0xB2, 0x56, 0xCC, 0x01, 0xC4, 0xCC, 0x00],
        vec![0xB2, 0x56, 0xCC, 0x02, 0xC9, 0xC9, 0xCC, 0x00],
        vec![0xB2, 0x56, 0x81, 0x41, 0xCC, 0x00],
        vec![0xB1, 0x56, 0xCC, 0x01, 0xC9],
    ] {
        assert!(
            decode(&bad, Dialect::BOLT6, Side::Server).is_err(),
            "{bad:02X?}"
        );
    }
}

#[test]
fn the_codec_of_each_version_decides() {
    let value = Value::vector(Vector::Float64(vec![0.5, 2.0].into()));
    let mut wire = bytes::BytesMut::new();
    assert!(
        Response::Record(vec![value.clone()])
            .encode(&mut wire, &Codec::new(Version::V6_0))
            .is_ok()
    );
    let mut wire = bytes::BytesMut::new();
    assert!(matches!(
        Response::Record(vec![value]).encode(&mut wire, &Codec::new(Version::V5_8)),
        Err(Error::TypeNotInVersion { .. })
    ));
}

#[test]
fn the_unsupported_type_marker() {
    let mut buf = Vec::new();
    write_unsupported(&mut buf, "UUID", (6, 1), Some("needs 6.1")).unwrap();
    let mut expected = vec![0xB4, 0x3F, 0x84];
    expected.extend_from_slice(b"UUID");
    expected.extend_from_slice(&[0x06, 0x01, 0xA1, 0x87]);
    expected.extend_from_slice(b"message");
    expected.push(0x89);
    expected.extend_from_slice(b"needs 6.1");
    assert_eq!(buf, expected);
    let mut bare = Vec::new();
    write_unsupported(&mut bare, "UUID", (6, 1), None).unwrap();
    assert_eq!(&bare[bare.len() - 1..], [0xA0]);
}
