//! Codec-level defences: every kind of malformed input gets its own error, never a panic.

use bytes::BytesMut;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::packstream::{Decoder, Dialect, Limits, Side};
use quiver_bolt::{Codec, Error, Request, UtcOnly, Version};

fn value(bytes: &[u8], side: Side) -> Result<(), Error> {
    value_with(bytes, side, Limits::default())
}

fn value_with(bytes: &[u8], side: Side, limits: Limits) -> Result<(), Error> {
    let mut d = Decoder::new(bytes, limits, Dialect::BOLT5, side, &UtcOnly);
    d.value()?;
    d.finish()
}

fn request(bytes: &[u8], version: Version) -> Result<Request, Error> {
    Request::decode(bytes, &Codec::new(version))
}

#[test]
fn every_reserved_marker_is_refused() {
    let reserved: Vec<u8> = (0xC4..=0xC7)
        .chain([0xCF, 0xD3, 0xD7])
        .chain(0xDB..=0xEF)
        .collect();
    assert_eq!(reserved.len(), 4 + 3 + 21);
    for m in reserved {
        assert_eq!(
            value(&[m], Side::Server),
            Err(Error::ReservedMarker {
                marker: m,
                offset: 0
            })
        );
        // Inside a list, and as a RUN parameter.
        assert_eq!(
            value(&[0x91, m], Side::Server),
            Err(Error::ReservedMarker {
                marker: m,
                offset: 1
            })
        );
        let run = [0xB3, 0x10, 0x80, 0xA1, 0x81, b'p', m, 0xA0];
        assert!(
            matches!(request(&run, Version::V5_8), Err(Error::ReservedMarker { marker, .. }) if marker == m)
        );
    }
}

#[test]
fn truncation_anywhere_is_an_error() {
    let whole: &[u8] = &[
        0xB3, 0x10, 0x85, b'h', b'e', b'l', b'l', b'o', 0xA1, 0x81, b'x', 0xC9, 0x01, 0x00, 0xA0,
    ];
    assert!(request(whole, Version::V5_8).is_ok());
    for cut in 0..whole.len() {
        assert!(
            matches!(
                request(&whole[..cut], Version::V5_8),
                Err(Error::Truncated { .. })
            ),
            "cut at {cut}"
        );
    }
    assert_eq!(
        value(&[0xCB, 0, 0], Side::Client),
        Err(Error::Truncated {
            offset: 1,
            needed: 6
        })
    );
}

#[test]
fn invalid_utf8() {
    assert_eq!(
        value(&[0x82, 0xFF, 0xFE], Side::Server),
        Err(Error::InvalidUtf8 { offset: 1 })
    );
}

#[test]
fn limits_hold_before_allocation() {
    // A list claiming 2^32-1 entries in five bytes.
    assert!(matches!(
        value(&[0xD6, 0xFF, 0xFF, 0xFF, 0xFF], Side::Server),
        Err(Error::CollectionTooLong { .. })
    ));
    assert!(matches!(
        value(&[0xDA, 0x7F, 0xFF, 0xFF, 0xFF], Side::Server),
        Err(Error::CollectionTooLong { .. })
    ));
    assert!(matches!(
        value(&[0xD2, 0x7F, 0xFF, 0xFF, 0xFF], Side::Server),
        Err(Error::StringTooLong { .. })
    ));
    assert!(matches!(
        value(&[0xCE, 0x7F, 0xFF, 0xFF, 0xFF], Side::Server),
        Err(Error::StringTooLong { .. })
    ));
    // Within the collection limit but beyond the bytes present: truncated, not a huge Vec.
    assert!(matches!(
        value(&[0xD6, 0x00, 0x0F, 0xFF, 0xFF], Side::Server),
        Err(Error::Truncated { .. })
    ));

    let deep = [vec![0x91; 100], vec![0x01]].concat();
    assert_eq!(
        value(&deep, Side::Server),
        Err(Error::TooDeep { depth_max: 64 })
    );
    let limits = Limits {
        depth_max: 100,
        ..Limits::default()
    };
    assert!(value_with(&deep, Side::Server, limits).is_ok());
    let small = Limits {
        depth_max: 8,
        string_bytes_max: 3,
        collection_len_max: 2,
    };
    assert!(matches!(
        value_with(&[0x84, b'a', b'b', b'c', b'd'], Side::Server, small),
        Err(Error::StringTooLong { .. })
    ));
    assert!(matches!(
        value_with(&[0x93, 1, 2, 3], Side::Server, small),
        Err(Error::CollectionTooLong { .. })
    ));
}

#[test]
fn structures_are_checked() {
    assert_eq!(
        value(&[0xB2, 0x44, 0x01, 0x02], Side::Server),
        Err(Error::StructFields {
            tag: 0x44,
            expected: 1,
            found: 2
        })
    );
    assert_eq!(
        value(&[0xB1, 0x99, 0x01], Side::Server),
        Err(Error::UnknownStruct { tag: 0x99 })
    );
    // Graph structures are for servers to send.
    let node = [0xB4, 0x4E, 0x01, 0x90, 0xA0, 0x81, b'x'];
    assert_eq!(
        value(&node, Side::Server),
        Err(Error::StructNotAccepted { tag: 0x4E })
    );
    assert!(value(&node, Side::Client).is_ok());
    // A Bolt 4 node (3 fields) on a Bolt 5 connection.
    assert_eq!(
        value(&[0xB3, 0x4E, 0x01, 0x90, 0xA0], Side::Client),
        Err(Error::StructFields {
            tag: 0x4E,
            expected: 4,
            found: 3
        })
    );
    // Legacy date-time tags do not exist on Bolt 5, and the UTC ones not on plain 4.4.
    assert_eq!(
        value(&[0xB3, 0x46, 0, 0, 0], Side::Server),
        Err(Error::UnknownStruct { tag: 0x46 })
    );
    let mut d = Decoder::new(
        &[0xB3, 0x49, 0, 0, 0],
        Limits::default(),
        Dialect::of(Version::V4_4, false),
        Side::Server,
        &UtcOnly,
    );
    assert_eq!(d.value().map(drop), Err(Error::UnknownStruct { tag: 0x49 }));
    // Out-of-range temporal fields.
    assert!(matches!(
        value(&[0xB1, 0x74, 0xCB, 0x7F, 0, 0, 0, 0, 0, 0, 0], Side::Server),
        Err(Error::InvalidValue { .. })
    ));
    assert!(matches!(
        value(&[0xB3, 0x49, 0, 0xCA, 0x7F, 0, 0, 0, 0], Side::Server),
        Err(Error::InvalidValue { .. })
    ));
    // Unknown zones need a resolver that knows them.
    let zoned = [
        0xB3, 0x69, 0, 0, 0x8C, b'E', b'u', b'r', b'o', b'p', b'e', b'/', b'P', b'a', b'r', b'i',
        b's',
    ];
    assert_eq!(
        value(&zoned, Side::Server),
        Err(Error::UnknownZone("Europe/Paris".into()))
    );
    // Map keys must be strings.
    assert!(matches!(
        value(&[0xA1, 0x01, 0x01], Side::Server),
        Err(Error::NonStringKey { offset: 1 })
    ));
}

#[test]
fn messages_are_checked() {
    assert_eq!(
        request(&[0xB0, 0x77], Version::V5_8).unwrap_err(),
        Error::UnknownMessage { signature: 0x77 }
    );
    assert!(matches!(
        request(&[0xB2, 0x10, 0x80, 0xA0], Version::V5_8),
        Err(Error::MessageFields {
            message: "RUN",
            found: 2,
            ..
        })
    ));
    assert!(matches!(
        request(&[0xB1, 0x6A, 0xA0], Version::V5_0),
        Err(Error::MessageNotInVersion {
            message: "LOGON",
            ..
        })
    ));
    assert!(matches!(
        request(&[0xB0, 0x6B], Version::V4_4),
        Err(Error::MessageNotInVersion {
            message: "LOGOFF",
            ..
        })
    ));
    assert!(matches!(
        request(&[0xB1, 0x54, 0x00], Version::V5_3),
        Err(Error::MessageNotInVersion {
            message: "TELEMETRY",
            ..
        })
    ));
    assert!(request(&[0xB1, 0x54, 0x00], Version::V5_4).is_ok());
    assert!(matches!(
        request(&[0xB1, 0x3F, 0xA0], Version::V5_8),
        Err(Error::InvalidField {
            message: "PULL",
            field: "n",
            ..
        })
    ));
    assert!(matches!(
        request(&[0xB1, 0x3F, 0xA1, 0x81, b'n', 0x00], Version::V5_8),
        Err(Error::InvalidField { field: "n", .. })
    ));
    assert!(matches!(
        request(&[0xB0, 0x0F, 0x00], Version::V5_8),
        Err(Error::TrailingBytes { trailing: 1 })
    ));
    assert!(matches!(
        request(&[0xB1, 0x01, 0xA0], Version::V5_8),
        Err(Error::InvalidField {
            message: "HELLO",
            field: "user_agent",
            ..
        })
    ));
    assert!(matches!(
        request(
            &[
                0xB3, 0x10, 0x80, 0xA0, 0xA1, 0x84, b'm', b'o', b'd', b'e', 0x81, b'x'
            ],
            Version::V5_8
        ),
        Err(Error::InvalidField { field: "mode", .. })
    ));
    // A node smuggled in as a parameter.
    let run = [
        0xB3, 0x10, 0x80, 0xA1, 0x81, b'p', 0xB4, 0x4E, 0x01, 0x90, 0xA0, 0x81, b'x', 0xA0,
    ];
    assert_eq!(
        request(&run, Version::V5_8).unwrap_err(),
        Error::StructNotAccepted { tag: 0x4E }
    );
    // Not a structure at all.
    assert!(request(&[0x01], Version::V5_8).is_err());
    assert!(request(&[], Version::V5_8).is_err());
    // Framing errors end the connection; request-content errors need not.
    assert!(
        Error::MessageFields {
            message: "RUN",
            expected: "3",
            found: 2
        }
        .is_fatal()
    );
    assert!(
        !Error::InvalidField {
            message: "PULL",
            field: "n",
            problem: ""
        }
        .is_fatal()
    );
}

#[test]
fn oversized_messages_fail_from_their_chunk_headers() {
    let mut d = Dechunker::new(1000);
    let mut input = BytesMut::from(&[0x03, 0xE8][..]);
    assert!(
        d.decode(&mut input).unwrap().is_none(),
        "exactly the limit is fine"
    );
    let mut d = Dechunker::new(1000);
    let mut input = BytesMut::from(&[0x03, 0xE9][..]);
    assert_eq!(
        d.decode(&mut input),
        Err(Error::MessageTooLarge {
            bytes: 1001,
            message_bytes_max: 1000
        })
    );
    assert_eq!(
        Error::MessageTooLarge {
            bytes: 1,
            message_bytes_max: 0
        }
        .status_code(),
        "Neo.ClientError.Request.InvalidFormat"
    );
}
