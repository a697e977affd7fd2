//! Version negotiation, both the legacy four-slot handshake and manifest v1.
//!
//! ```text
//! client: 60 60 B0 17 | slot | slot | slot | slot        slot = 00 R minor major
//!         (major.minor down to major.(minor-R); 00 00 01 FF = "I speak manifest v1")
//! legacy reply:   00 00 minor major    (00 00 00 00 = none, then close)
//! manifest reply: 00 00 01 FF | varint N | N ranges | varint capabilities   (ONE write)
//! client answers: 00 00 minor major | varint capabilities    (00 00 00 00 = give up)
//! ```
//! Varints are LEB128: seven bits a byte, low group first, high bit = more follows.

use crate::error::Error;
use crate::version::Version;

pub const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];
/// The magic plus four proposals.
pub const HANDSHAKE_BYTES: usize = 20;
/// The slot (and reply prefix) that announces manifest v1.
pub const MANIFEST_V1: [u8; 4] = [0x00, 0x00, 0x01, 0xFF];
/// The reply to a client we share no version with.
pub const REFUSED: [u8; 4] = [0; 4];
/// Varints longer than this cannot hold a `u64`.
const VARINT_BYTES_MAX: usize = 10;

/// A contiguous run of minor versions within one major: `major.minor` down to
/// `major.(minor - back)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionRange {
    pub major: u8,
    pub minor: u8,
    pub back: u8,
}

impl VersionRange {
    pub fn from_slot(slot: [u8; 4]) -> VersionRange {
        VersionRange {
            major: slot[3],
            minor: slot[2],
            back: slot[1],
        }
    }

    pub fn to_slot(self) -> [u8; 4] {
        [0, self.back, self.minor, self.major]
    }

    pub fn contains(self, v: Version) -> bool {
        v.major == self.major
            && v.minor <= self.minor
            && u16::from(v.minor) + u16::from(self.back) >= u16::from(self.minor)
    }

    /// Groups `versions` (most preferred first) into ranges of consecutive minors.
    pub fn group(versions: &[Version]) -> Vec<VersionRange> {
        let mut sorted: Vec<Version> = versions.to_vec();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        sorted.dedup();
        let mut ranges: Vec<VersionRange> = Vec::new();
        for v in sorted {
            match ranges.last_mut() {
                Some(r)
                    if r.major == v.major
                        && u16::from(r.minor) == u16::from(v.minor) + u16::from(r.back) + 1 =>
                {
                    r.back += 1;
                }
                _ => ranges.push(VersionRange {
                    major: v.major,
                    minor: v.minor,
                    back: 0,
                }),
            }
        }
        ranges
    }
}

/// Whether `received`, the first bytes of a connection, can still open a Bolt handshake: the
/// magic is checked as its bytes arrive, so a client that opens with something else (another
/// protocol, a port scanner's probe) is closed at once rather than waited for until the
/// handshake deadline because it sent fewer than [`HANDSHAKE_BYTES`].
pub fn may_open_handshake(received: &[u8]) -> bool {
    let checked = received.len().min(MAGIC.len());
    received[..checked] == MAGIC[..checked]
}

/// What the server does after reading the client's 20 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Negotiation {
    /// Legacy handshake settled on `version`: send `reply`.
    Agreed { version: Version, reply: [u8; 4] },
    /// Manifest v1: send `reply` in a single write, then read the client's choice with
    /// [`parse_manifest_choice`].
    Manifest {
        reply: Vec<u8>,
        offered: Vec<VersionRange>,
    },
    /// Nothing in common: send `reply` and close.
    Refused { reply: [u8; 4] },
}

/// Picks a version from the client's handshake. `supported` is in preference order; the
/// client's slot order decides first (the first slot we can satisfy wins), and within a slot
/// the highest version we support.
pub fn negotiate(
    client: &[u8; HANDSHAKE_BYTES],
    supported: &[Version],
) -> Result<Negotiation, Error> {
    if client[..4] != MAGIC {
        return Err(Error::BadMagic);
    }
    for slot in client[4..].chunks_exact(4) {
        let slot = [slot[0], slot[1], slot[2], slot[3]];
        if slot == MANIFEST_V1 {
            return Ok(manifest(supported));
        }
        if slot == [0; 4] {
            continue;
        }
        let range = VersionRange::from_slot(slot);
        let best = supported
            .iter()
            .copied()
            .filter(|v| range.contains(*v))
            .max();
        if let Some(version) = best {
            return Ok(Negotiation::Agreed {
                version,
                reply: [0, 0, version.minor, version.major],
            });
        }
    }
    Ok(Negotiation::Refused { reply: REFUSED })
}

/// Only Bolt 5 and 6 are offered in a manifest: every driver that speaks manifest v1 speaks
/// Bolt 5, and the shorter offer is the one drivers are tested against.
fn manifest(supported: &[Version]) -> Negotiation {
    let bolt5_up: Vec<Version> = supported.iter().copied().filter(|v| v.major >= 5).collect();
    let offered = VersionRange::group(&bolt5_up);
    let mut reply = Vec::with_capacity(4 + 1 + offered.len() * 4 + 1);
    reply.extend_from_slice(&MANIFEST_V1);
    write_varint(&mut reply, offered.len() as u64);
    for r in &offered {
        reply.extend_from_slice(&r.to_slot());
    }
    // Capabilities: none.
    write_varint(&mut reply, 0);
    Negotiation::Manifest { reply, offered }
}

/// The client's answer to a manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ManifestChoice {
    Chosen {
        version: Version,
        capabilities: u64,
    },
    /// The client picked nothing (`00 00 00 00`): close.
    GaveUp,
}

/// Reads the client's 4-byte choice and capability varint. `Ok(None)` means more bytes are
/// needed; on success also returns how many bytes were consumed (HELLO may follow at once).
pub fn parse_manifest_choice(
    buf: &[u8],
    offered: &[VersionRange],
) -> Result<Option<(ManifestChoice, usize)>, Error> {
    let Some(choice) = buf.get(..4) else {
        return Ok(None);
    };
    let Some((capabilities, used)) = read_varint(&buf[4..])? else {
        return Ok(None);
    };
    let consumed = 4 + used;
    if choice == [0, 0, 0, 0] {
        return Ok(Some((ManifestChoice::GaveUp, consumed)));
    }
    if choice[0] != 0 || choice[1] != 0 {
        return Err(Error::Handshake("manifest choice is not a single version"));
    }
    let version = Version::new(choice[3], choice[2]);
    if !offered.iter().any(|r| r.contains(version)) {
        return Err(Error::Handshake(
            "client chose a version the server did not offer",
        ));
    }
    Ok(Some((
        ManifestChoice::Chosen {
            version,
            capabilities,
        },
        consumed,
    )))
}

pub fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let low = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// `Ok(None)` if the varint is not complete yet.
pub fn read_varint(buf: &[u8]) -> Result<Option<(u64, usize)>, Error> {
    let mut v: u64 = 0;
    for (i, &b) in buf.iter().enumerate() {
        if i >= VARINT_BYTES_MAX || (i == VARINT_BYTES_MAX - 1 && b > 1) {
            return Err(Error::Handshake("varint too long"));
        }
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return Ok(Some((v, i + 1)));
        }
    }
    if buf.len() >= VARINT_BYTES_MAX {
        return Err(Error::Handshake("varint too long"));
    }
    Ok(None)
}

// ---- the client side, for Quiver's load client ----

/// The 20 bytes a client opens with: optionally manifest v1 first, then `versions` grouped
/// into ranges (at most the slots that remain; the rest padded with zeros).
pub fn client_handshake(versions: &[Version], manifest: bool) -> [u8; HANDSHAKE_BYTES] {
    let mut out = [0u8; HANDSHAKE_BYTES];
    out[..4].copy_from_slice(&MAGIC);
    let mut slot = 1;
    if manifest {
        out[4..8].copy_from_slice(&MANIFEST_V1);
        slot = 2;
    }
    for range in VersionRange::group(versions) {
        if slot > 4 {
            break;
        }
        out[slot * 4..slot * 4 + 4].copy_from_slice(&range.to_slot());
        slot += 1;
    }
    out
}

/// What a server answered to a client's handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerReply {
    Version(Version),
    Manifest {
        offered: Vec<VersionRange>,
        capabilities: u64,
    },
    Refused,
}

/// Ranges a manifest may list: far more than any server needs.
const MANIFEST_RANGES_MAX: u64 = 64;

/// Parses a server's handshake reply; `Ok(None)` if more bytes are needed.
pub fn parse_server_reply(buf: &[u8]) -> Result<Option<(ServerReply, usize)>, Error> {
    let Some(head) = buf.get(..4) else {
        return Ok(None);
    };
    if head == REFUSED {
        return Ok(Some((ServerReply::Refused, 4)));
    }
    if head != MANIFEST_V1 {
        if head[0] != 0 || head[1] != 0 {
            return Err(Error::Handshake("server reply is not a version"));
        }
        return Ok(Some((
            ServerReply::Version(Version::new(head[3], head[2])),
            4,
        )));
    }
    let mut at = 4;
    let Some((count, used)) = read_varint(&buf[at..])? else {
        return Ok(None);
    };
    if count > MANIFEST_RANGES_MAX {
        return Err(Error::Handshake("manifest lists too many ranges"));
    }
    at += used;
    let mut offered = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let Some(slot) = buf.get(at..at + 4) else {
            return Ok(None);
        };
        offered.push(VersionRange::from_slot([
            slot[0], slot[1], slot[2], slot[3],
        ]));
        at += 4;
    }
    let Some((capabilities, used)) = read_varint(&buf[at..])? else {
        return Ok(None);
    };
    at += used;
    Ok(Some((
        ServerReply::Manifest {
            offered,
            capabilities,
        },
        at,
    )))
}

/// The client's answer to a manifest: the most preferred of `versions` that the server
/// offered, or [`REFUSED`] when there is none.
pub fn client_manifest_choice(
    offered: &[VersionRange],
    versions: &[Version],
) -> (Option<Version>, Vec<u8>) {
    let chosen = versions
        .iter()
        .copied()
        .find(|v| offered.iter().any(|r| r.contains(*v)));
    let mut out = match chosen {
        Some(v) => vec![0, 0, v.minor, v.major],
        None => REFUSED.to_vec(),
    };
    write_varint(&mut out, 0);
    (chosen, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(slots: [[u8; 4]; 4]) -> [u8; 20] {
        let mut b = [0u8; 20];
        b[..4].copy_from_slice(&MAGIC);
        for (i, s) in slots.iter().enumerate() {
            b[4 + i * 4..8 + i * 4].copy_from_slice(s);
        }
        b
    }

    #[test]
    fn the_magic_is_judged_as_its_bytes_arrive() {
        assert!(may_open_handshake(&[]));
        assert!(may_open_handshake(&[0x60, 0x60]));
        assert!(may_open_handshake(&hello([
            [0, 0, 0, 3],
            [0; 4],
            [0; 4],
            [0; 4]
        ])));
        assert!(!may_open_handshake(&[0x61]), "one wrong byte is enough");
        assert!(!may_open_handshake(&[0x60, 0x60, 0xB0, 0x18]));
        assert!(
            !may_open_handshake(&[0x16, 0x03, 0x01]),
            "a TLS ClientHello"
        );
    }

    #[test]
    fn current_drivers_get_one_buffer_manifest() {
        let client = hello([[0, 0, 1, 0xFF], [0, 8, 8, 5], [0, 2, 4, 4], [0, 0, 0, 3]]);
        let Negotiation::Manifest { reply, offered } =
            negotiate(&client, &Version::SUPPORTED).unwrap()
        else {
            panic!("expected a manifest")
        };
        assert_eq!(
            reply,
            [
                0x00, 0x00, 0x01, 0xFF, 0x03, 0x00, 0x01, 0x01, 0x06, 0x00, 0x02, 0x08, 0x05, 0x00,
                0x04, 0x04, 0x05, 0x00
            ]
        );
        let (choice, _) = parse_manifest_choice(&[0, 0, 0, 6, 0], &offered)
            .unwrap()
            .unwrap();
        assert_eq!(
            choice,
            ManifestChoice::Chosen {
                version: Version::V6_0,
                capabilities: 0
            }
        );
        let (choice, _) = parse_manifest_choice(&[0, 0, 1, 6, 0], &offered)
            .unwrap()
            .unwrap();
        assert_eq!(
            choice,
            ManifestChoice::Chosen {
                version: Version::V6_1,
                capabilities: 0
            }
        );
        let (choice, used) = parse_manifest_choice(&[0, 0, 8, 5, 0, 0xB1, 0x01], &offered)
            .unwrap()
            .unwrap();
        assert_eq!(
            choice,
            ManifestChoice::Chosen {
                version: Version::V5_8,
                capabilities: 0
            }
        );
        assert_eq!(used, 5);
        assert!(
            parse_manifest_choice(&[0, 0, 5, 5, 0], &offered).is_err(),
            "5.5 is never offered"
        );
        assert!(
            parse_manifest_choice(&[0, 0, 4, 4, 0], &offered).is_err(),
            "a manifest offers Bolt 5 only"
        );
        assert_eq!(parse_manifest_choice(&[0, 0, 8], &offered).unwrap(), None);
        assert_eq!(
            parse_manifest_choice(&[0, 0, 0, 0, 0], &offered).unwrap(),
            Some((ManifestChoice::GaveUp, 5))
        );
    }

    #[test]
    fn older_drivers_get_a_legacy_reply() {
        let client = hello([[0, 7, 7, 5], [0, 2, 4, 4], [0, 0, 1, 4], [0, 0, 0, 3]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V5_7,
                reply: [0, 0, 7, 5]
            }
        );
        // A range that only covers 5.5 finds nothing there and falls through to 4.4.
        let client = hello([[0, 0, 5, 5], [0, 0, 4, 4], [0; 4], [0; 4]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V4_4,
                reply: [0, 0, 4, 4]
            }
        );
        let client = hello([[0, 0, 0, 3], [0, 0, 0, 2], [0; 4], [0; 4]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Refused { reply: [0; 4] }
        );
    }

    #[test]
    fn clients_of_bolt_4_1_to_4_3_agree_on_their_newest() {
        // A 4.3 driver: the range 4.3–4.1, then 4.2, 4.1 and 4.0 spelt out for old servers.
        let client = hello([[0, 2, 3, 4], [0, 0, 2, 4], [0, 0, 1, 4], [0, 0, 0, 4]]);
        let agreed = |client| match negotiate(&client, &Version::SUPPORTED).expect("negotiate") {
            Negotiation::Agreed { version, reply } => (version, reply),
            other => panic!("expected a version, got {other:?}"),
        };
        assert_eq!(agreed(client), (Version::V4_3, [0, 0, 3, 4]));
        // A 4.2 driver, and a 4.1 one without ranges.
        let client = hello([[0, 0, 2, 4], [0, 0, 1, 4], [0, 0, 0, 4], [0, 0, 0, 3]]);
        assert_eq!(agreed(client), (Version::V4_2, [0, 0, 2, 4]));
        let client = hello([[0, 0, 1, 4], [0, 0, 0, 4], [0, 0, 0, 3], [0; 4]]);
        assert_eq!(agreed(client), (Version::V4_1, [0, 0, 1, 4]));
        // 4.0 and 3 are not spoken.
        let client = hello([[0, 0, 0, 4], [0, 0, 0, 3], [0; 4], [0; 4]]);
        assert!(matches!(
            negotiate(&client, &Version::SUPPORTED).expect("negotiate"),
            Negotiation::Refused { .. }
        ));
    }

    #[test]
    fn bolt_6_is_chosen_when_offered_and_bolt_5_clients_keep_theirs() {
        // A 6.x driver's legacy slots: 6.0, then 5.8 down to 5.0.
        let client = hello([[0, 0, 0, 6], [0, 8, 8, 5], [0, 2, 4, 4], [0; 4]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V6_0,
                reply: [0, 0, 0, 6]
            }
        );
        // A 5.28 driver never sees 6.0.
        let client = hello([[0, 8, 8, 5], [0, 2, 4, 4], [0, 0, 0, 4], [0, 0, 0, 3]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V5_8,
                reply: [0, 0, 8, 5]
            }
        );
        // A client asking for 6.1 and 6.0 (a range of one back) gets 6.1, one asking for 6.2
        // down to 6.0 gets 6.1 too, and one offering 6.0 alone keeps 6.0 (above).
        let client = hello([[0, 1, 1, 6], [0; 4], [0; 4], [0; 4]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V6_1,
                reply: [0, 0, 1, 6]
            }
        );
        let client = hello([[0, 2, 2, 6], [0, 8, 8, 5], [0; 4], [0; 4]]);
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V6_1,
                reply: [0, 0, 1, 6]
            }
        );
    }

    #[test]
    fn bad_magic_is_refused() {
        let mut client = hello([[0, 0, 4, 4], [0; 4], [0; 4], [0; 4]]);
        client[0] = 0x61;
        assert_eq!(
            negotiate(&client, &Version::SUPPORTED),
            Err(Error::BadMagic)
        );
    }

    #[test]
    fn varints_round_trip_and_reject_overlong() {
        for v in [0u64, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            write_varint(&mut out, v);
            assert_eq!(read_varint(&out).unwrap(), Some((v, out.len())));
            assert_eq!(read_varint(&out[..out.len() - 1]).unwrap(), None);
        }
        assert!(read_varint(&[0xFF; 11]).is_err());
    }

    #[test]
    fn client_side_round_trip() {
        let hello = client_handshake(&Version::SUPPORTED, true);
        let Negotiation::Manifest { reply, offered } =
            negotiate(&hello, &Version::SUPPORTED).unwrap()
        else {
            panic!("expected a manifest")
        };
        let (parsed, used) = parse_server_reply(&reply).unwrap().unwrap();
        assert_eq!(used, reply.len());
        let ServerReply::Manifest { offered: seen, .. } = parsed else {
            panic!("expected a manifest")
        };
        assert_eq!(seen, offered);
        let (chosen, bytes) = client_manifest_choice(&seen, &[Version::V5_8, Version::V5_4]);
        assert_eq!(chosen, Some(Version::V5_8));
        let (choice, _) = parse_manifest_choice(&bytes, &offered).unwrap().unwrap();
        assert_eq!(
            choice,
            ManifestChoice::Chosen {
                version: Version::V5_8,
                capabilities: 0
            }
        );
        let legacy = client_handshake(&[Version::V5_4, Version::V5_3], false);
        assert_eq!(&legacy[4..8], &[0, 1, 4, 5]);
        assert_eq!(
            negotiate(&legacy, &Version::SUPPORTED).unwrap(),
            Negotiation::Agreed {
                version: Version::V5_4,
                reply: [0, 0, 4, 5]
            }
        );
        assert_eq!(
            parse_server_reply(&[0, 0, 4, 5]).unwrap(),
            Some((ServerReply::Version(Version::V5_4), 4))
        );
    }
}
