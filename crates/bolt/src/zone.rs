//! Named time zones at the codec boundary.
//!
//! A `DateTimeZoneId` carries an IANA name and an instant; Quiver's `DateTime` also keeps the
//! offset in force, which takes a time-zone database to compute. The codec asks a
//! [`ZoneResolver`] for it so the tz database stays in one place (the value layer).

use std::sync::Arc;

use quiver_value::TimeZone;
use quiver_value::temporal::zone::{offset_at, resolve_local};

/// Finds the UTC offset of a named zone. `Send + Sync` so that a [`crate::Codec`] can live in a
/// connection's state across awaits instead of being rebuilt for every message.
pub trait ZoneResolver: Send + Sync {
    /// The offset in force in `zone` at the instant `utc_seconds` after the epoch.
    fn offset_at_utc(&self, zone: &str, utc_seconds: i64) -> Option<i32>;
    /// The offset in force in `zone` when its wall clock reads `local_seconds` after the
    /// epoch (Bolt 4.x sends local seconds). In a gap or overlap, the earlier offset.
    fn offset_at_local(&self, zone: &str, local_seconds: i64) -> Option<i32>;
}

/// Knows only the zones whose offset is always zero; any other name is an unknown zone.
#[derive(Clone, Copy, Debug, Default)]
pub struct UtcOnly;

impl UtcOnly {
    fn offset(zone: &str) -> Option<i32> {
        matches!(
            zone,
            "UTC" | "Etc/UTC" | "Etc/UCT" | "UCT" | "Etc/GMT" | "GMT" | "Z" | "Zulu" | "Etc/Zulu"
        )
        .then_some(0)
    }
}

impl ZoneResolver for UtcOnly {
    fn offset_at_utc(&self, zone: &str, _utc_seconds: i64) -> Option<i32> {
        UtcOnly::offset(zone)
    }
    fn offset_at_local(&self, zone: &str, _local_seconds: i64) -> Option<i32> {
        UtcOnly::offset(zone)
    }
}

/// Named zones resolved through the value layer's tz database: what a server uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct TzDatabase;

/// No IANA zone name comes close; longer client strings never reach the database.
const ZONE_NAME_BYTES_MAX: usize = 64;

impl ZoneResolver for TzDatabase {
    fn offset_at_utc(&self, zone: &str, utc_seconds: i64) -> Option<i32> {
        if zone.len() > ZONE_NAME_BYTES_MAX {
            return None;
        }
        offset_at(&TimeZone::Named(Arc::from(zone)), utc_seconds).ok()
    }

    fn offset_at_local(&self, zone: &str, local_seconds: i64) -> Option<i32> {
        if zone.len() > ZONE_NAME_BYTES_MAX {
            return None;
        }
        let utc = resolve_local(&TimeZone::Named(Arc::from(zone)), local_seconds, None).ok()?;
        i32::try_from(local_seconds.checked_sub(utc)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tz_database_knows_real_zones() {
        // 2024-07-01T00:00:00Z: Paris is on summer time.
        assert_eq!(
            TzDatabase.offset_at_utc("Europe/Paris", 1_719_792_000),
            Some(7200)
        );
        // 2024-01-01T00:00 on Paris's wall clock: winter time.
        assert_eq!(
            TzDatabase.offset_at_local("Europe/Paris", 1_704_067_200),
            Some(3600)
        );
        assert_eq!(TzDatabase.offset_at_utc("Nowhere/Atlantis", 0), None);
        assert_eq!(TzDatabase.offset_at_utc("../../../etc/passwd", 0), None);
        assert_eq!(TzDatabase.offset_at_utc(&"A".repeat(65), 0), None);
        assert_eq!(UtcOnly.offset_at_utc("Europe/Paris", 0), None);
        assert_eq!(UtcOnly.offset_at_utc("UTC", 0), Some(0));
    }
}
