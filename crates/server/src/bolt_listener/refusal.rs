//! What a Bolt client past the connection limit is told.
//!
//! The handshake costs one read and one write, so the refusal completes it (a driver would
//! otherwise report a protocol mismatch), then sends, without waiting for the driver's messages, a
//! FAILURE `Neo.TransientError.General.ServiceUnavailable` naming the limit, in the negotiated
//! version's format. From 5.1 on the FAILURE answers LOGON and HELLO gets a SUCCESS first: the
//! JavaScript driver turns any FAILURE to HELLO into a code-less `ProtocolError`, while a failed
//! LOGON keeps its code, and every driver pipelines LOGON behind HELLO (or sends it after reading
//! HELLO's reply, which changes nothing). Before 5.1 the FAILURE answers HELLO.
//!
//! A WebSocket client (a browser driver, whose first bytes are an HTTP upgrade request) is
//! answered with an HTTP 503 carrying the same status code and message: its upgrade is refused
//! before any WebSocket exists, which every WebSocket client reports as a failed upgrade with
//! the status (browsers show the reason in their console, not to the page).
//!
//! Every reply is encoded once, when the listener starts, so refusing a socket costs no encoding
//! and no allocation; the [`crate::refuser`] drives the sockets and bounds their time.

use bytes::BytesMut;
use quiver_bolt::Version;
use quiver_bolt::handshake::{
    HANDSHAKE_BYTES, MAGIC, MANIFEST_V1, ManifestChoice, Negotiation, REFUSED, VersionRange,
    client_handshake, may_open_handshake, negotiate, parse_manifest_choice,
};
use quiver_bolt::meta::{Failure, HelloSuccess, SERVER_AGENT};
use quiver_status::Status;

use crate::refuser::{RefusalScript, Step};

/// Most bytes of the refused client's first messages read and discarded before closing, so the
/// close does not reset the connection before the FAILURE is read.
const DRAIN_BYTES_MAX: usize = 16 * 1024;

/// Most bytes of a manifest choice (4 version bytes and a capability varint of at most 10 bytes).
const MANIFEST_CHOICE_BYTES_MAX: usize = 14;

/// Reply numbers: the manifest, the no-common-version reply, then per supported version the
/// legacy handshake reply followed by the answer, and the answer alone (after a manifest).
const REPLY_MANIFEST: usize = 0;
const REPLY_REFUSED: usize = 1;
const REPLY_WEBSOCKET: usize = 2;
const REPLY_VERSIONS_FIRST: usize = 3;

/// How an HTTP request (a WebSocket upgrade) opens.
const HTTP_GET: &[u8] = b"GET ";

/// The Bolt refusal, encoded for every supported version.
#[derive(Debug)]
pub struct BoltRefusal {
    manifest: Vec<u8>,
    offered: Vec<VersionRange>,
    /// Per supported version: the legacy reply (4 bytes) then the answer.
    answers: Vec<(Version, Vec<u8>)>,
    /// The HTTP 503 refusing a WebSocket upgrade.
    websocket: Vec<u8>,
}

/// Why the refusal could not be encoded (a message too large for its format).
#[derive(Debug, thiserror::Error)]
#[error("encoding the Bolt refusal: {0}")]
pub struct EncodeError(#[from] quiver_bolt::Error);

impl BoltRefusal {
    /// Encodes the refusal naming `connections_max` for every version in `supported`.
    pub fn new(connections_max: u32, supported: &[Version]) -> Result<BoltRefusal, EncodeError> {
        let (manifest, offered) =
            match negotiate(&client_handshake(&[], true), supported).map_err(EncodeError)? {
                Negotiation::Manifest { reply, offered } => (reply, offered),
                // Unreachable with a manifest preamble; an empty offer refuses every choice.
                Negotiation::Agreed { .. } | Negotiation::Refused { .. } => {
                    (REFUSED.to_vec(), Vec::new())
                }
            };
        let message = format!(
            "The server is at its limit of {connections_max} connections; retry later or connect elsewhere."
        );
        let mut answers = Vec::with_capacity(supported.len());
        for &version in supported {
            let mut reply = BytesMut::with_capacity(512);
            reply.extend_from_slice(&[0, 0, version.minor, version.major]);
            if version.has_logon() {
                let hello = HelloSuccess {
                    server: SERVER_AGENT,
                    connection_id: "bolt-refused",
                    recv_timeout_seconds: None,
                    telemetry_enabled: false,
                    ssr_enabled: false,
                    utc_patch: false,
                };
                hello.encode(&mut reply, version)?;
            }
            let failure = Failure {
                code: Status::ServiceUnavailable,
                message: &message,
                position: None,
            };
            failure.encode(&mut reply, version)?;
            answers.push((version, reply.to_vec()));
        }
        let body = format!("{}: {message}\n", Status::ServiceUnavailable.code());
        let websocket = format!(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Retry-After: 1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        Ok(BoltRefusal {
            manifest,
            offered,
            answers,
            websocket,
        })
    }

    fn answer(&self, version: Version, with_handshake: bool) -> Step {
        match self.answers.iter().position(|(v, _)| *v == version) {
            Some(index) => Step::Reply {
                reply: REPLY_VERSIONS_FIRST + 2 * index + usize::from(!with_handshake),
                last: true,
            },
            None => Step::Close,
        }
    }

    /// The legacy handshake's choice, as [`negotiate`] makes it, without its allocation for a
    /// manifest (which is encoded here once).
    fn opening(&self, preamble: &[u8]) -> Step {
        if preamble.starts_with(HTTP_GET) {
            return Step::Reply {
                reply: REPLY_WEBSOCKET,
                last: true,
            };
        }
        if preamble[..4] != MAGIC {
            return Step::Close;
        }
        for slot in preamble[4..HANDSHAKE_BYTES].chunks_exact(4) {
            let slot = [slot[0], slot[1], slot[2], slot[3]];
            if slot == MANIFEST_V1 {
                return Step::Reply {
                    reply: REPLY_MANIFEST,
                    last: false,
                };
            }
            if slot == [0; 4] {
                continue;
            }
            let range = VersionRange::from_slot(slot);
            let best = self
                .answers
                .iter()
                .map(|(version, _)| *version)
                .filter(|version| range.contains(*version))
                .max();
            if let Some(version) = best {
                return self.answer(version, true);
            }
        }
        Step::Reply {
            reply: REPLY_REFUSED,
            last: true,
        }
    }
}

/// Whether `received` can still open an HTTP request for a WebSocket upgrade.
fn may_be_upgrade(received: &[u8]) -> bool {
    let checked = received.len().min(HTTP_GET.len());
    received[..checked] == HTTP_GET[..checked]
}

impl RefusalScript for BoltRefusal {
    fn step(&self, round: u8, received: &[u8]) -> Step {
        match round {
            // Neither Bolt nor an upgrade request: closed now, not when the refusal's time ends.
            0 if !may_open_handshake(received) && !may_be_upgrade(received) => Step::Close,
            0 if received.len() < HANDSHAKE_BYTES => Step::Read,
            0 => self.opening(received),
            1 => match parse_manifest_choice(received, &self.offered) {
                Ok(None) if received.len() < MANIFEST_CHOICE_BYTES_MAX => Step::Read,
                Ok(Some((ManifestChoice::Chosen { version, .. }, _))) => {
                    self.answer(version, false)
                }
                Ok(None | Some((ManifestChoice::GaveUp, _))) | Err(_) => Step::Close,
            },
            _ => Step::Close,
        }
    }

    fn reply(&self, reply: usize) -> &[u8] {
        match reply {
            REPLY_MANIFEST => &self.manifest,
            REPLY_REFUSED => &REFUSED,
            REPLY_WEBSOCKET => &self.websocket,
            _ => {
                let index = reply - REPLY_VERSIONS_FIRST;
                match self.answers.get(index / 2) {
                    Some((_, bytes)) if index.is_multiple_of(2) => bytes,
                    Some((_, bytes)) => &bytes[4..],
                    None => &[],
                }
            }
        }
    }

    fn drain_bytes_max(&self) -> usize {
        DRAIN_BYTES_MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn script() -> BoltRefusal {
        BoltRefusal::new(7, &Version::SUPPORTED).expect("encode")
    }

    /// The refusal settles on the version [`negotiate`] would, for the preambles drivers send.
    #[test]
    fn the_opening_agrees_with_the_handshake() {
        let refusal = script();
        let preambles = [
            client_handshake(&[Version::V5_4, Version::V4_4], false),
            client_handshake(&[Version::V4_4], false),
            client_handshake(&[Version::V5_8, Version::V5_0], true),
        ];
        for preamble in preambles {
            let step = refusal.step(0, &preamble);
            match negotiate(&preamble, &Version::SUPPORTED).expect("negotiate") {
                Negotiation::Agreed { reply, .. } => {
                    let Step::Reply { reply: id, last } = step else {
                        panic!("{step:?}");
                    };
                    assert!(last);
                    assert_eq!(&refusal.reply(id)[..4], &reply);
                }
                Negotiation::Manifest { reply, .. } => {
                    assert_eq!(
                        step,
                        Step::Reply {
                            reply: REPLY_MANIFEST,
                            last: false
                        }
                    );
                    assert_eq!(refusal.reply(REPLY_MANIFEST), &reply[..]);
                }
                Negotiation::Refused { .. } => assert_eq!(
                    step,
                    Step::Reply {
                        reply: REPLY_REFUSED,
                        last: true
                    }
                ),
            }
        }
        assert_eq!(refusal.step(0, &preambles[0][..19]), Step::Read);
        assert_eq!(refusal.step(0, b"PUT / HTTP/1.1\r\nHost:"), Step::Close);
        assert_eq!(refusal.step(0, b"GE"), Step::Read, "an upgrade, maybe");
        assert_eq!(refusal.step(0, b"PU"), Step::Close, "neither: no wait");
        assert_eq!(refusal.step(0, &[0x16, 0x03, 0x01]), Step::Close);
    }

    #[test]
    fn a_websocket_upgrade_gets_an_http_503_naming_the_limit() {
        let refusal = script();
        let step = refusal.step(0, b"GET / HTTP/1.1\r\nHost:");
        let Step::Reply { reply, last: true } = step else {
            panic!("{step:?}");
        };
        let text = String::from_utf8(refusal.reply(reply).to_vec()).expect("ASCII");
        assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
        assert!(text.contains("Neo.TransientError.General.ServiceUnavailable"));
        assert!(text.contains("limit of 7 connections"));
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        assert!(head.contains(&format!("Content-Length: {}", body.len())));
    }

    #[test]
    fn a_manifest_choice_gets_the_answer_without_the_legacy_reply() {
        let refusal = script();
        assert_eq!(refusal.step(1, &[0, 0, 4]), Step::Read);
        let Step::Reply { reply, last: true } = refusal.step(1, &[0, 0, 4, 5, 0]) else {
            panic!("no answer");
        };
        let (_, with_handshake) = &refusal.answers[refusal
            .answers
            .iter()
            .position(|(v, _)| *v == Version::V5_4)
            .expect("5.4")];
        assert_eq!(refusal.reply(reply), &with_handshake[4..]);
        assert_eq!(refusal.step(1, &[0, 0, 0, 0, 0]), Step::Close);
    }
}
