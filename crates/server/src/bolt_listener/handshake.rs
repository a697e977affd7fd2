//! The Bolt handshake on a socket: the 20-byte preamble, the version reply (the manifest in one
//! write), and the client's manifest choice, every read racing the handshake deadline and draining.

use bytes::BytesMut;
use quiver_bolt::Version;
use quiver_bolt::handshake::{
    HANDSHAKE_BYTES, ManifestChoice, Negotiation, may_open_handshake, negotiate,
    parse_manifest_choice,
};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

use crate::deadline::{Interrupted, Until, race};
use crate::shutdown::ShutdownSignal;

/// Most bytes of a manifest choice (4 version bytes and a capability varint of at most 10 bytes).
const MANIFEST_CHOICE_BYTES_MAX: usize = 14;

/// A finished handshake.
#[derive(Debug)]
pub struct Agreed {
    pub version: Version,
    /// Bytes the client sent after the handshake (drivers pipeline HELLO right behind it).
    pub leftover: BytesMut,
}

/// Why the handshake did not produce a version.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("handshake {0}")]
    Interrupted(#[from] Interrupted),
    #[error("client closed the connection during the handshake")]
    Closed,
    #[error("socket error during the handshake: {0}")]
    Io(#[from] std::io::Error),
    #[error("invalid handshake: {0}")]
    Protocol(#[from] quiver_bolt::Error),
    /// No common version (the refusal was sent), or the client gave up after the manifest.
    #[error("no protocol version in common")]
    NoCommonVersion,
}

/// Runs the server side of the handshake on `stream`, reads racing `deadline` and draining.
pub async fn handshake<S>(
    stream: &mut S,
    supported: &[Version],
    deadline: Instant,
    shutdown: &ShutdownSignal,
) -> Result<Agreed, HandshakeError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut preamble = [0u8; HANDSHAKE_BYTES];
    let mut received = 0;
    while received < HANDSHAKE_BYTES {
        received += read_some(stream.read(&mut preamble[received..]), deadline, shutdown).await?;
        // Not Bolt: closed now, not at the deadline for the rest of a preamble never coming.
        if !may_open_handshake(&preamble[..received]) {
            return Err(HandshakeError::Protocol(quiver_bolt::Error::BadMagic));
        }
    }
    // Every answer below is written at once and, when it ends the handshake, followed by the
    // close at once: a refusal (`00 00 00 00`) waits for nothing.
    match negotiate(&preamble, supported)? {
        Negotiation::Agreed { version, reply } => {
            stream.write_all(&reply).await?;
            stream.flush().await?;
            Ok(Agreed {
                version,
                leftover: BytesMut::new(),
            })
        }
        Negotiation::Refused { reply } => {
            stream.write_all(&reply).await?;
            stream.flush().await?;
            Err(HandshakeError::NoCommonVersion)
        }
        Negotiation::Manifest { reply, offered } => {
            // One write: a driver that reads the manifest in two pieces fails (the JS driver does).
            stream.write_all(&reply).await?;
            // A WebSocket sends what is written at its flush.
            stream.flush().await?;
            let mut buffer = BytesMut::with_capacity(1024);
            loop {
                if let Some((choice, used)) = parse_manifest_choice(&buffer, &offered)? {
                    let _ = buffer.split_to(used);
                    return match choice {
                        ManifestChoice::Chosen { version, .. } => Ok(Agreed {
                            version,
                            leftover: buffer,
                        }),
                        ManifestChoice::GaveUp => Err(HandshakeError::NoCommonVersion),
                    };
                }
                if buffer.len() >= MANIFEST_CHOICE_BYTES_MAX {
                    return Err(HandshakeError::Protocol(quiver_bolt::Error::Handshake(
                        "manifest choice too long",
                    )));
                }
                read_some(stream.read_buf(&mut buffer), deadline, shutdown).await?;
            }
        }
    }
}

/// One read of the handshake, racing `deadline` and draining: how many bytes came, never none
/// (a client that closes instead is [`HandshakeError::Closed`]).
async fn read_some(
    read: impl Future<Output = std::io::Result<usize>>,
    deadline: Instant,
    shutdown: &ShutdownSignal,
) -> Result<usize, HandshakeError> {
    match race(read, deadline, shutdown, Until::Drain).await?? {
        0 => Err(HandshakeError::Closed),
        read => Ok(read),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use quiver_bolt::handshake::client_handshake;

    use super::*;
    use crate::shutdown::Shutdown;

    #[tokio::test]
    async fn manifest_handshake_keeps_pipelined_bytes() {
        let (mut client, mut server) = tokio::io::duplex(256);
        let shutdown = Shutdown::new();
        let signal = shutdown.signal();
        let serve = tokio::spawn(async move {
            let deadline = Instant::now() + Duration::from_secs(5);
            handshake(&mut server, &Version::SUPPORTED, deadline, &signal).await
        });
        client
            .write_all(&client_handshake(&[Version::V5_8, Version::V5_0], true))
            .await
            .expect("write preamble");
        let mut head = [0u8; 4];
        client.read_exact(&mut head).await.expect("manifest reply");
        assert_eq!(head, [0, 0, 1, 0xFF]);
        // Choose 5.4, no capabilities, then a pipelined byte.
        client
            .write_all(&[0, 0, 4, 5, 0, 0xAB])
            .await
            .expect("write choice");
        let agreed = serve.await.expect("task").expect("handshake");
        assert_eq!(agreed.version, Version::V5_4);
        assert_eq!(&agreed.leftover[..], &[0xAB]);
    }

    /// Runs the server's handshake over a connection on which the client sent `sent` and then
    /// stayed open and silent.
    async fn handshake_after(sent: &[u8], deadline: Instant) -> Result<Agreed, HandshakeError> {
        let (mut client, mut server) = tokio::io::duplex(256);
        let shutdown = Shutdown::new();
        client.write_all(sent).await.expect("write");
        handshake(
            &mut server,
            &Version::SUPPORTED,
            deadline,
            &shutdown.signal(),
        )
        .await
    }

    #[tokio::test(start_paused = true)]
    async fn a_dribbled_preamble_hits_the_deadline() {
        let deadline = Instant::now() + Duration::from_secs(2);
        let outcome = handshake_after(&[0x60, 0x60], deadline).await;
        assert!(matches!(
            outcome,
            Err(HandshakeError::Interrupted(Interrupted::Deadline))
        ));
    }

    #[tokio::test(start_paused = true)]
    async fn a_wrong_magic_is_refused_before_the_rest_of_a_preamble_arrives() {
        // Four bytes and silence: with the clock paused, a wait for the other sixteen would
        // end only at the deadline, which the assertion below rules out.
        let deadline = Instant::now() + Duration::from_secs(60);
        let outcome = handshake_after(&[0x16, 0x03, 0x01, 0x00], deadline).await;
        assert!(matches!(
            outcome,
            Err(HandshakeError::Protocol(quiver_bolt::Error::BadMagic))
        ));
        assert!(Instant::now() < deadline, "decided before the deadline");
    }

    #[tokio::test]
    async fn wrong_magic_is_a_protocol_error() {
        let deadline = Instant::now() + Duration::from_secs(5);
        let outcome = handshake_after(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", deadline).await;
        assert!(matches!(outcome, Err(HandshakeError::Protocol(_))));
    }
}
