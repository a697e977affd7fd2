//! Marker bytes and structure tags.

pub const NULL: u8 = 0xC0;
pub const FLOAT_64: u8 = 0xC1;
/// Not a value marker: names `FLOAT32` coordinates in a Vector structure's type field (as
/// `INT_8` ... `INT_64` and `FLOAT_64` name the others).
pub const FLOAT_32: u8 = 0xC6;
pub const FALSE: u8 = 0xC2;
pub const TRUE: u8 = 0xC3;
pub const INT_8: u8 = 0xC8;
pub const INT_16: u8 = 0xC9;
pub const INT_32: u8 = 0xCA;
pub const INT_64: u8 = 0xCB;
pub const BYTES_8: u8 = 0xCC;
pub const BYTES_16: u8 = 0xCD;
pub const BYTES_32: u8 = 0xCE;
pub const TINY_STRING: u8 = 0x80;
pub const STRING_8: u8 = 0xD0;
pub const STRING_16: u8 = 0xD1;
pub const STRING_32: u8 = 0xD2;
pub const TINY_LIST: u8 = 0x90;
pub const LIST_8: u8 = 0xD4;
pub const LIST_16: u8 = 0xD5;
pub const LIST_32: u8 = 0xD6;
pub const TINY_MAP: u8 = 0xA0;
pub const MAP_8: u8 = 0xD8;
pub const MAP_16: u8 = 0xD9;
pub const MAP_32: u8 = 0xDA;
pub const TINY_STRUCT: u8 = 0xB0;
/// Bolt 6.1+ (PackStream v2): a UUID, its 16 bytes following. Reserved in v1.
pub const UUID: u8 = 0xE0;

/// Whether PackStream v1 leaves `marker` undefined (v2 defines [`UUID`] among them).
pub fn is_reserved(marker: u8) -> bool {
    matches!(marker, 0xC4..=0xC7 | 0xCF | 0xD3 | 0xD7 | 0xDB..=0xEF)
}

/// Structure tags of the values Bolt 5 carries.
pub mod tag {
    pub const NODE: u8 = 0x4E;
    pub const RELATIONSHIP: u8 = 0x52;
    pub const UNBOUND_RELATIONSHIP: u8 = 0x72;
    pub const PATH: u8 = 0x50;
    pub const DATE: u8 = 0x44;
    pub const TIME: u8 = 0x54;
    pub const LOCAL_TIME: u8 = 0x74;
    /// Bolt 5 (and 4.4 with the `utc` patch): UTC seconds, nanos, offset.
    pub const DATE_TIME: u8 = 0x49;
    /// Bolt 5 (and 4.4 with the `utc` patch): UTC seconds, nanos, zone id.
    pub const DATE_TIME_ZONE_ID: u8 = 0x69;
    /// Bolt 4.x: local seconds, nanos, offset.
    pub const LEGACY_DATE_TIME: u8 = 0x46;
    /// Bolt 4.x: local seconds, nanos, zone id.
    pub const LEGACY_DATE_TIME_ZONE_ID: u8 = 0x66;
    pub const LOCAL_DATE_TIME: u8 = 0x64;
    pub const DURATION: u8 = 0x45;
    pub const POINT_2D: u8 = 0x58;
    pub const POINT_3D: u8 = 0x59;
    /// Bolt 6.0+: the coordinate type's marker as a one-byte byte array, then the
    /// coordinates big-endian as one byte array.
    pub const VECTOR: u8 = 0x56;
    /// Bolt 6.0+, server to client only: type name, the Bolt major and minor that can carry
    /// it, and a dictionary with an optional `message`.
    pub const UNSUPPORTED: u8 = 0x3F;
}
