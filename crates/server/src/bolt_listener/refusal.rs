//! What a Bolt client past the connection limit is told.
//!
//! The handshake costs one read and one write, so the refusal completes it (a driver would
//! otherwise report a protocol mismatch), then sends, without waiting for the driver's messages, a
//! FAILURE `Neo.TransientError.General.ServiceUnavailable` naming the limit, in the negotiated
//! version's format. From 5.1 on the FAILURE answers LOGON and HELLO gets a SUCCESS first: the
//! JavaScript driver turns any FAILURE to HELLO into a code-less `ProtocolError`, while a failed
//! LOGON keeps its code, and every driver pipelines LOGON behind HELLO (or sends it after reading
//! HELLO's reply, which changes nothing). Before 5.1 the FAILURE answers HELLO. The listener bounds
//! how long this may take and how many refusals run at once.

use std::time::Duration;

use bytes::BytesMut;
use quiver_bolt::Version;
use quiver_bolt::meta::{Failure, HelloSuccess, SERVER_AGENT};
use quiver_status::Status;
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::handshake::handshake;
use crate::http_listener::write_then_drain;
use crate::shutdown::ShutdownSignal;

/// Most bytes of the refused client's first messages read and discarded before closing, so the
/// close does not reset the connection before the FAILURE is read.
const DRAIN_BYTES_MAX: usize = 16 * 1024;

pub async fn refuse(mut stream: TcpStream, connections_max: u32) {
    // The caller's refusal timeout is the real bound; this deadline only keeps `handshake`'s contract.
    let deadline = Instant::now() + Duration::from_secs(3600);
    let signal = ShutdownSignal::default();
    let Ok(agreed) = handshake(&mut stream, &Version::SUPPORTED, deadline, &signal).await else {
        return;
    };
    let mut reply = BytesMut::with_capacity(512);
    if agreed.version.has_logon() {
        let hello = HelloSuccess {
            server: SERVER_AGENT,
            connection_id: "bolt-refused",
            recv_timeout_seconds: None,
            telemetry_enabled: false,
            ssr_enabled: false,
            utc_patch: false,
        };
        if hello.encode(&mut reply, agreed.version).is_err() {
            return;
        }
    }
    let message = format!(
        "The server is at its limit of {connections_max} connections; retry later or connect elsewhere."
    );
    let failure = Failure {
        code: Status::ServiceUnavailable,
        message: &message,
        position: None,
    };
    if failure.encode(&mut reply, agreed.version).is_err() {
        return;
    }
    write_then_drain(stream, &reply, DRAIN_BYTES_MAX).await;
}
