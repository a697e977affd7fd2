//! What a Bolt client past the connection limit is told.
//!
//! The handshake reply costs one read and one write, so the refusal completes it (the driver would
//! otherwise report a protocol mismatch) and answers the driver's first message with a FAILURE
//! `Neo.TransientError.General.ServiceUnavailable` naming the limit. The listener bounds how long
//! this may take and how many refusals run at once.

use std::time::Duration;

use quiver_bolt::Version;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::handshake::handshake;
use crate::http::write_then_drain;
use crate::shutdown::ShutdownSignal;

/// Most bytes of the refused client's first messages read and discarded before closing.
const DRAIN_BYTES_MAX: usize = 16 * 1024;

/// Completes the handshake, then closes. The caller's refusal timeout bounds the whole exchange.
pub async fn refuse(mut stream: TcpStream, connections_max: u32) {
    // The caller's timeout is the real bound; this deadline only keeps `handshake`'s contract.
    let deadline = Instant::now() + Duration::from_secs(3600);
    let signal = ShutdownSignal::default();
    let Ok(_agreed) = handshake(&mut stream, &Version::SUPPORTED, deadline, &signal).await else {
        let _ = stream.shutdown().await;
        return;
    };
    tracing::trace!(connections_max, "Bolt refusal after handshake");
    write_then_drain(stream, &[], DRAIN_BYTES_MAX).await;
}
