//! Cypher's `UUID`: a 128-bit identifier kept as its 16 bytes, not as text.
//!
//! What Neo4j defines, and Quiver follows:
//! - the type arrived with Neo4j 2026.08 (Cypher 25), with the constructors `uuid()` (random),
//!   `uuid(text)` and `uuid(mostSigBits, leastSigBits)`, and `uuid.mostSignificantBits(u)` /
//!   `uuid.leastSignificantBits(u)` to take one apart; `randomUUID()` still returns a `STRING`;
//! - the text form is 32 hexadecimal digits in groups of 8-4-4-4-12 joined by hyphens; no
//!   version is implied, so any 128 bits are a UUID;
//! - on the wire it is Bolt 6.1's one change: PackStream's marker `0xE0` followed by the 16
//!   bytes, most significant first (not a structure); the drivers hand it to applications as
//!   their own UUID type (Python's `uuid.UUID`).
//!
//! Where Neo4j's documentation is silent, Quiver chooses: two UUIDs compare (`<`, `ORDER BY`)
//! as unsigned 128-bit numbers, which is also the order of their texts; text is written in
//! lower case and read in either case.

use std::fmt;

/// A UUID's 16 bytes, most significant first.
///
/// A byte array rather than a `u128` keeps the alignment at one byte, so [`crate::Value`]
/// holds it inline and stays 24 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid([u8; 16]);

/// Bytes in a UUID.
pub const UUID_BYTES: usize = 16;

/// Why a UUID could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UuidError {
    /// Bytes that are not exactly 16 of them.
    Length { len: usize },
    /// Text that is not 8-4-4-4-12 hexadecimal digits.
    BadText,
}

impl fmt::Display for UuidError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UuidError::Length { len } => {
                write!(f, "a UUID is {UUID_BYTES} bytes, got {len}")
            }
            UuidError::BadText => f.write_str(
                "a UUID is 32 hexadecimal digits in groups of 8-4-4-4-12 separated by hyphens",
            ),
        }
    }
}

impl std::error::Error for UuidError {}

/// Where the hyphens of the text form stand.
const HYPHENS: [usize; 4] = [8, 13, 18, 23];
/// Characters in the text form.
const TEXT_CHARS: usize = 36;

impl Uuid {
    pub const fn from_bytes(bytes: [u8; 16]) -> Uuid {
        Uuid(bytes)
    }

    /// Exactly 16 bytes, as Bolt and the store carry them.
    pub fn from_slice(bytes: &[u8]) -> Result<Uuid, UuidError> {
        <[u8; 16]>::try_from(bytes)
            .map(Uuid)
            .map_err(|_| UuidError::Length { len: bytes.len() })
    }

    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// The UUID whose upper and lower 64 bits are these two integers' bits (`uuid(42, 42)`
    /// is `00000000-0000-002a-0000-00000000002a`).
    pub fn from_halves(most: i64, least: i64) -> Uuid {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&most.to_be_bytes());
        bytes[8..].copy_from_slice(&least.to_be_bytes());
        Uuid(bytes)
    }

    /// The upper 64 bits as a signed integer, as Neo4j (and Java) give them.
    pub fn most_significant_bits(&self) -> i64 {
        let mut half = [0; 8];
        half.copy_from_slice(&self.0[..8]);
        i64::from_be_bytes(half)
    }

    /// The lower 64 bits as a signed integer.
    pub fn least_significant_bits(&self) -> i64 {
        let mut half = [0; 8];
        half.copy_from_slice(&self.0[8..]);
        i64::from_be_bytes(half)
    }

    /// A random version 4 UUID (122 random bits), as `uuid()` and `randomUUID()` make them.
    pub fn random() -> Uuid {
        let mut bytes: [u8; 16] = rand::random();
        bytes[6] = (bytes[6] & 0x0F) | 0x40;
        bytes[8] = (bytes[8] & 0x3F) | 0x80;
        Uuid(bytes)
    }

    /// Reads the 8-4-4-4-12 text form, digits in either case; anything else is refused
    /// (no braces, no `urn:uuid:` prefix, no missing hyphens).
    pub fn parse(text: &str) -> Result<Uuid, UuidError> {
        let text = text.as_bytes();
        if text.len() != TEXT_CHARS {
            return Err(UuidError::BadText);
        }
        let mut bytes = [0u8; 16];
        let mut nibbles = 0usize;
        for (i, &c) in text.iter().enumerate() {
            if HYPHENS.contains(&i) {
                if c != b'-' {
                    return Err(UuidError::BadText);
                }
                continue;
            }
            let digit = char::from(c).to_digit(16).ok_or(UuidError::BadText)?;
            // `to_digit(16)` is below 16, so the cast keeps every bit.
            let digit = digit as u8;
            let byte = &mut bytes[nibbles / 2];
            *byte = if nibbles.is_multiple_of(2) {
                digit << 4
            } else {
                *byte | digit
            };
            nibbles += 1;
        }
        Ok(Uuid(bytes))
    }
}

impl fmt::Display for Uuid {
    /// The 8-4-4-4-12 text form in lower case.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "550e8400-e29b-41d4-a716-446655440000";

    #[test]
    fn text_round_trips_and_reads_either_case() {
        let u = Uuid::parse(TEXT).unwrap();
        assert_eq!(u.to_string(), TEXT);
        assert_eq!(Uuid::parse(&TEXT.to_ascii_uppercase()).unwrap(), u);
        assert_eq!(u.as_bytes()[0], 0x55);
        assert_eq!(u.as_bytes()[15], 0x00);
    }

    #[test]
    fn malformed_text_is_refused() {
        for bad in [
            "",
            "550e8400e29b41d4a716446655440000",
            "{550e8400-e29b-41d4-a716-446655440000}",
            "550e8400-e29b-41d4-a716-44665544000g",
            "550e8400-e29b-41d4-a716_446655440000",
            "550e8400-e29b-41d4-a7164-46655440000",
            "550e8400-e29b-41d4-a716-4466554400000",
            "550e8400-e29b-41d4-a716-44665544000é",
        ] {
            assert_eq!(Uuid::parse(bad), Err(UuidError::BadText), "{bad}");
        }
    }

    #[test]
    fn halves_are_the_upper_and_lower_bits() {
        let u = Uuid::from_halves(42, 42);
        assert_eq!(u.to_string(), "00000000-0000-002a-0000-00000000002a");
        assert_eq!(u.most_significant_bits(), 42);
        assert_eq!(u.least_significant_bits(), 42);
        let v = Uuid::from_halves(-1, i64::MIN);
        assert_eq!(v.to_string(), "ffffffff-ffff-ffff-8000-000000000000");
        assert_eq!(v.most_significant_bits(), -1);
        assert_eq!(v.least_significant_bits(), i64::MIN);
    }

    #[test]
    fn wrong_lengths_are_refused() {
        assert_eq!(
            Uuid::from_slice(&[0; 15]),
            Err(UuidError::Length { len: 15 })
        );
        assert_eq!(
            Uuid::from_slice(&[0; 17]),
            Err(UuidError::Length { len: 17 })
        );
        assert!(Uuid::from_slice(&[7; 16]).is_ok());
    }

    #[test]
    fn random_uuids_are_version_4() {
        let u = Uuid::random();
        assert_eq!(u.as_bytes()[6] >> 4, 4);
        assert_eq!(u.as_bytes()[8] >> 6, 0b10);
        assert_ne!(u, Uuid::random());
    }

    #[test]
    fn order_is_unsigned_and_agrees_with_text() {
        let low = Uuid::parse("7fffffff-ffff-ffff-ffff-ffffffffffff").unwrap();
        let high = Uuid::parse("80000000-0000-0000-0000-000000000000").unwrap();
        assert!(low < high);
        assert!(low.to_string() < high.to_string());
    }
}
