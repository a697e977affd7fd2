//! Property tests: whatever PackStream or a message encodes, the decoder gives back.

mod common;

use bytes::BytesMut;
use common::*;
use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::message::{AccessMode, TxExtra};
use quiver_bolt::packstream::{Decoder, Dialect, Limits, Side, write_value};
use quiver_bolt::{Codec, Request, Response, UtcOnly, Version};

fn decode(
    bytes: &[u8],
    dialect: Dialect,
    side: Side,
) -> Result<quiver_value::Value, quiver_bolt::Error> {
    let mut d = Decoder::new(bytes, Limits::default(), dialect, side, &UtcOnly);
    let v = d.value()?;
    d.finish()?;
    Ok(v)
}

const LEGACY: Dialect = Dialect {
    element_ids: false,
    utc_datetime: false,
    vectors: false,
    uuids: false,
};

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn parameters_round_trip_on_both_sides(v in parameter()) {
        for dialect in [Dialect::BOLT5, LEGACY] {
            let mut buf = Vec::new();
            write_value(&mut buf, &v, dialect).unwrap();
            for side in [Side::Server, Side::Client] {
                let back = decode(&buf, dialect, side).unwrap();
                prop_assert!(same(&v, &back), "{dialect:?} {side:?}: {v:?} became {back:?}");
            }
        }
    }

    #[test]
    fn results_round_trip_on_the_client(v in result_value()) {
        for dialect in [Dialect::BOLT5, LEGACY] {
            let mut buf = BytesMut::new();
            write_value(&mut buf, &v, dialect).unwrap();
            let back = decode(&buf, dialect, Side::Client).unwrap();
            prop_assert!(same(&v, &back), "{dialect:?}: {v:?} became {back:?}");
        }
    }

    #[test]
    fn records_survive_chunking_and_dechunking(values in vec(result_value(), 0..6), noops in 0usize..3) {
        let codec = Codec::new(Version::V5_8);
        let mut wire = BytesMut::new();
        for _ in 0..noops {
            quiver_bolt::chunk::noop(&mut wire);
        }
        Response::Record(values.clone()).encode(&mut wire, &codec).unwrap();
        let mut d = Dechunker::new(1 << 24);
        let message = d.decode(&mut wire).unwrap().unwrap();
        prop_assert!(wire.is_empty());
        let Response::Record(back) = Response::decode(&message, &codec).unwrap() else {
            panic!("not a record")
        };
        prop_assert_eq!(back.len(), values.len());
        for (a, b) in values.iter().zip(&back) {
            prop_assert!(same(a, b));
        }
    }

    #[test]
    fn run_round_trips_through_the_wire(
        query in ".{0,64}",
        params in btree_map("[a-z]{1,8}".prop_map(std::sync::Arc::<str>::from), parameter(), 0..6),
        bookmarks in vec("[a-z0-9:]{1,20}", 0..3),
        timeout in proptest::option::of(0i64..1_000_000),
        read in any::<bool>(),
        db in proptest::option::of("[a-z]{1,10}"),
        version in prop::sample::select(Version::SUPPORTED.to_vec()),
    ) {
        let codec = Codec::new(version);
        let extra = TxExtra {
            bookmarks: bookmarks.clone(),
            tx_timeout_ms: timeout,
            mode: if read { AccessMode::Read } else { AccessMode::Write },
            db: db.clone(),
            ..TxExtra::default()
        };
        let request = Request::Run { query: query.clone(), params: params.clone(), extra };
        let mut wire = BytesMut::new();
        request.encode(&mut wire, &codec).unwrap();
        let message = Dechunker::new(1 << 24).decode(&mut wire).unwrap().unwrap();
        let Request::Run { query: q, params: p, extra: e } = Request::decode(&message, &codec).unwrap() else {
            panic!("not a RUN")
        };
        prop_assert_eq!(q, query);
        prop_assert!(same_map(&p, &params));
        prop_assert_eq!(e.bookmarks, bookmarks);
        prop_assert_eq!(e.tx_timeout_ms, timeout);
        prop_assert_eq!(e.mode == AccessMode::Read, read);
        prop_assert_eq!(e.db, db);
    }

    /// The decoder never panics, whatever the bytes.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        for side in [Side::Server, Side::Client] {
            let _ = decode(&bytes, Dialect::BOLT5, side);
        }
        for version in Version::SUPPORTED {
            let codec = Codec::new(version);
            let _ = Request::decode(&bytes, &codec);
            let _ = Response::decode(&bytes, &codec);
        }
    }
}
