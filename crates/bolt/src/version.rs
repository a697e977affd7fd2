//! Protocol versions and what each one changes.
//!
//! Feature questions are asked of the negotiated [`Version`] in one place, so the codec and
//! the metadata builders never compare version numbers by hand.

use std::fmt;

/// A negotiated Bolt protocol version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u8,
    pub minor: u8,
}

impl Version {
    pub const V4_1: Version = Version::new(4, 1);
    pub const V4_2: Version = Version::new(4, 2);
    pub const V4_3: Version = Version::new(4, 3);
    pub const V4_4: Version = Version::new(4, 4);
    pub const V5_0: Version = Version::new(5, 0);
    pub const V5_1: Version = Version::new(5, 1);
    pub const V5_2: Version = Version::new(5, 2);
    pub const V5_3: Version = Version::new(5, 3);
    pub const V5_4: Version = Version::new(5, 4);
    pub const V5_6: Version = Version::new(5, 6);
    pub const V5_7: Version = Version::new(5, 7);
    pub const V5_8: Version = Version::new(5, 8);
    pub const V6_0: Version = Version::new(6, 0);
    pub const V6_1: Version = Version::new(6, 1);

    /// Every version Quiver speaks, most preferred first. 5.5 is absent on purpose: no Neo4j
    /// server ever shipped it, and drivers skip it. 4.1–4.3 are accepted as Neo4j 5 still
    /// accepts them (deprecated there), for clients that offer nothing newer; 4.0 and 3 are
    /// not (4.0 has no routing context in HELLO, 3 no multi-statement transactions).
    ///
    /// What the 4.x versions change, as drivers speak them: 4.1 adds the routing context to
    /// HELLO (every version here reads it) and 4.2 nothing on the wire (drivers treat it as
    /// 4.1); 4.3 adds the ROUTE message (its third field the database name alone), version
    /// ranges in the handshake, HELLO's `hints` and the `utc` patch; 4.4 makes ROUTE's third
    /// field a dictionary and adds impersonation. Below 4.3 a `neo4j://` driver asks for its
    /// routing table with a procedure, `dbms.routing.getRoutingTable`.
    ///
    /// 6.0 is 5.8's messages and metadata unchanged, with the Vector structure and the
    /// unsupported-type marker added to PackStream. 6.1 is 6.0 with one PackStream change: the
    /// UUID value, marker 0xE0 and its 16 bytes (what the drivers call PackStream v2).
    pub const SUPPORTED: [Version; 14] = [
        Version::V6_1,
        Version::V6_0,
        Version::V5_8,
        Version::V5_7,
        Version::V5_6,
        Version::V5_4,
        Version::V5_3,
        Version::V5_2,
        Version::V5_1,
        Version::V5_0,
        Version::V4_4,
        Version::V4_3,
        Version::V4_2,
        Version::V4_1,
    ];

    pub const fn new(major: u8, minor: u8) -> Version {
        Version { major, minor }
    }

    pub fn is_supported(self) -> bool {
        Version::SUPPORTED.contains(&self)
    }

    /// 4.3+: the ROUTE message (before it, drivers call a routing procedure).
    pub fn has_route(self) -> bool {
        self >= Version::V4_3
    }

    /// 4.3+: HELLO's SUCCESS carries `hints` (drivers of older versions never read them), and
    /// with them the promise of NOOP chunks within `connection.recv_timeout_seconds`.
    pub fn has_hints(self) -> bool {
        self >= Version::V4_3
    }

    /// 4.3 and 4.4: a client may ask in HELLO for zoned date-times from UTC
    /// (`patch_bolt: ["utc"]`), which 5.0 made the rule.
    pub fn has_utc_patch(self) -> bool {
        self >= Version::V4_3 && self < Version::V5_0
    }

    /// 5.0+: the summary's `stats` carry `contains-updates` and `contains-system-updates`.
    /// Drivers of 4.x compute them from the counters, and the 4.3 Python driver fails on
    /// them (it sets every key as an attribute, and those two are read-only properties).
    pub fn has_contains_updates(self) -> bool {
        self >= Version::V5_0
    }

    /// 5.1+: HELLO no longer carries credentials; LOGON/LOGOFF do.
    pub fn has_logon(self) -> bool {
        self >= Version::V5_1
    }

    /// 5.0+: graph structures carry element ids.
    pub fn has_element_ids(self) -> bool {
        self >= Version::V5_0
    }

    /// 5.0+ encodes zoned date-times from UTC (tags 0x49/0x69); 4.x uses local seconds
    /// (0x46/0x66) unless the `utc` patch was negotiated (4.3 and 4.4).
    pub fn has_utc_datetime(self) -> bool {
        self >= Version::V5_0
    }

    /// 5.2+: notification filters in HELLO, BEGIN and RUN.
    pub fn has_notification_filters(self) -> bool {
        self >= Version::V5_2
    }

    /// 5.3+: HELLO carries `bolt_agent`.
    pub fn has_bolt_agent(self) -> bool {
        self >= Version::V5_3
    }

    /// 5.4+: the TELEMETRY message and the `telemetry.enabled` hint.
    pub fn has_telemetry(self) -> bool {
        self >= Version::V5_4
    }

    /// 5.6+: GQL `statuses` replace `notifications` in summaries.
    pub fn has_gql_statuses(self) -> bool {
        self >= Version::V5_6
    }

    /// 5.7+: FAILURE uses the GQL error form.
    pub fn has_gql_errors(self) -> bool {
        self >= Version::V5_7
    }

    /// 5.8+: the `ssr.enabled` hint, and `db` in BEGIN's SUCCESS.
    pub fn has_home_db_resolution(self) -> bool {
        self >= Version::V5_8
    }

    /// 6.0+: the Vector structure (0x56). Below it no vector can be sent: Neo4j fails the
    /// request, as it did for points over Bolt 1, and so does Quiver.
    pub fn has_vectors(self) -> bool {
        self >= Version::V6_0
    }

    /// 6.0+: the unsupported-type marker (structure 0x3F) stands in for a value of a type the
    /// negotiated version cannot carry, naming the type and the version that can.
    pub fn has_unsupported_type(self) -> bool {
        self >= Version::V6_0
    }

    /// 6.1+: the UUID value (marker 0xE0, then 16 bytes). 6.0 gets the unsupported-type marker
    /// in a UUID's place; below 6.0 a UUID fails the request, as a vector does.
    pub fn has_uuids(self) -> bool {
        self >= Version::V6_1
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
