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
    pub const V4_4: Version = Version::new(4, 4);
    pub const V5_0: Version = Version::new(5, 0);
    pub const V5_1: Version = Version::new(5, 1);
    pub const V5_2: Version = Version::new(5, 2);
    pub const V5_3: Version = Version::new(5, 3);
    pub const V5_4: Version = Version::new(5, 4);
    pub const V5_6: Version = Version::new(5, 6);
    pub const V5_7: Version = Version::new(5, 7);
    pub const V5_8: Version = Version::new(5, 8);

    /// Every version Quiver speaks, most preferred first. 5.5 is absent on purpose: no Neo4j
    /// server ever shipped it, and drivers skip it.
    pub const SUPPORTED: [Version; 9] = [
        Version::V5_8,
        Version::V5_7,
        Version::V5_6,
        Version::V5_4,
        Version::V5_3,
        Version::V5_2,
        Version::V5_1,
        Version::V5_0,
        Version::V4_4,
    ];

    pub const fn new(major: u8, minor: u8) -> Version {
        Version { major, minor }
    }

    pub fn is_supported(self) -> bool {
        Version::SUPPORTED.contains(&self)
    }

    /// 5.1+: HELLO no longer carries credentials; LOGON/LOGOFF do.
    pub fn has_logon(self) -> bool {
        self >= Version::V5_1
    }

    /// 5.0+: graph structures carry element ids.
    pub fn has_element_ids(self) -> bool {
        self >= Version::V5_0
    }

    /// 5.0+ encodes zoned date-times from UTC (tags 0x49/0x69); 4.4 uses local seconds
    /// (0x46/0x66) unless the `utc` patch was negotiated.
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
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
