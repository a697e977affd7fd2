//! Everything a connection's codec needs to know, in one value passed to every encode and
//! decode call.

use crate::packstream::{Dialect, Limits};
use crate::version::Version;
use crate::zone::{TzDatabase, ZoneResolver};

/// The negotiated version, its structure dialect, the decoder's limits, and how to resolve
/// named time zones.
#[derive(Clone, Copy)]
pub struct Codec<'z> {
    pub version: Version,
    pub dialect: Dialect,
    pub limits: Limits,
    pub zones: &'z dyn ZoneResolver,
}

impl std::fmt::Debug for Codec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Codec")
            .field("version", &self.version)
            .field("dialect", &self.dialect)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

static TZ_DATABASE: TzDatabase = TzDatabase;

impl Codec<'static> {
    /// Default limits, and named zones from the value layer's tz database.
    pub fn new(version: Version) -> Self {
        Codec {
            version,
            dialect: Dialect::of(version, false),
            limits: Limits::default(),
            zones: &TZ_DATABASE,
        }
    }
}

impl Codec<'_> {
    pub fn with_zones(self, zones: &dyn ZoneResolver) -> Codec<'_> {
        Codec {
            version: self.version,
            dialect: self.dialect,
            limits: self.limits,
            zones,
        }
    }

    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// 4.4's `patch_bolt: ["utc"]`, once the server has acknowledged it.
    pub fn with_utc_patch(mut self) -> Self {
        self.dialect = Dialect::of(self.version, true);
        self
    }
}
