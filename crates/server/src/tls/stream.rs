//! The stream a connection's protocol reads and writes: a plain socket or a TLS session over
//! one, with the same calls either way.
//!
//! Besides `AsyncRead` and `AsyncWrite` (what the Bolt handshake and hyper use), it offers the
//! readiness calls of `TcpStream` the Bolt session is built on (`readable`, then `try_read_buf`
//! until `WouldBlock`; `try_write` for a keep-alive that must never wait). Over TLS, readiness
//! of the socket says nothing about decrypted bytes (a record may hold none, or more than one
//! read takes), so `readable` reads and decrypts, and keeps what it got for the next
//! `try_read_buf`.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll, Waker, ready};

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::websocket::WsLink;

/// Bytes decrypted at a time by `readable`, on the stack: an idle connection keeps no buffer.
const DECRYPT_CHUNK_BYTES: usize = 4 * 1024;

/// Appends what a plain socket holds now to `buffer`, as `TcpStream::try_read_buf` does, but a
/// read that leaves room in the buffer unfilled also clears the socket's read readiness: the
/// socket's queue was empty then, so the next wait goes straight to the reactor instead of first
/// costing a read that returns `WouldBlock` (one system call per request of a client that waits
/// for each answer). The readiness cleared is the one seen before the read, so bytes that
/// arrive after it still wake the connection; tokio's own `poll_read` does the same.
fn read_plain(socket: &TcpStream, buffer: &mut BytesMut) -> io::Result<usize> {
    let mut read = 0;
    let outcome = socket.try_io(tokio::io::Interest::READABLE, || {
        let room = buffer.capacity() - buffer.len();
        read = socket.try_read_buf(buffer)?;
        if 0 < read && read < room {
            Err(io::ErrorKind::WouldBlock.into())
        } else {
            Ok(read)
        }
    });
    match outcome {
        Err(error) if error.kind() == io::ErrorKind::WouldBlock && read > 0 => Ok(read),
        outcome => outcome,
    }
}

/// A connection's stream, encrypted or not.
#[derive(Debug)]
pub enum ClientStream {
    Plain(TcpStream),
    /// Boxed: the TLS session is large, and a plain connection should not pay for it.
    Tls(Box<TlsLink>),
    /// Bolt over WebSocket, on a plain or TLS stream ([`crate::websocket`]).
    WebSocket(Box<WsLink>),
}

/// A TLS session and the decrypted bytes `readable` took ahead.
#[derive(Debug)]
pub struct TlsLink {
    stream: TlsStream<TcpStream>,
    /// Decrypted, not yet handed out; unallocated when empty.
    ahead: BytesMut,
    /// The client closed (a `close_notify`, or the socket's end).
    ended: bool,
}

impl ClientStream {
    pub fn tls(stream: TlsStream<TcpStream>) -> ClientStream {
        ClientStream::Tls(Box::new(TlsLink {
            stream,
            ahead: BytesMut::new(),
            ended: false,
        }))
    }

    pub fn is_tls(&self) -> bool {
        match self {
            ClientStream::Plain(_) => false,
            ClientStream::Tls(_) => true,
            ClientStream::WebSocket(link) => link.inner().is_tls(),
        }
    }

    pub fn is_websocket(&self) -> bool {
        matches!(self, ClientStream::WebSocket(_))
    }

    fn socket(&self) -> &TcpStream {
        match self {
            ClientStream::Plain(socket) => socket,
            ClientStream::Tls(link) => link.stream.get_ref().0,
            ClientStream::WebSocket(link) => link.inner().socket(),
        }
    }

    /// The first byte the client sent, without taking it (`None`: it closed before sending
    /// any), to tell the protocols that share a port apart.
    pub async fn first_byte(&mut self) -> io::Result<Option<u8>> {
        match self {
            ClientStream::Plain(socket) => {
                let mut first = [0u8; 1];
                let peeked = socket.peek(&mut first).await?;
                Ok((peeked > 0).then_some(first[0]))
            }
            ClientStream::Tls(link) => {
                std::future::poll_fn(|cx| link.poll_fill(cx)).await?;
                Ok(link.ahead.first().copied())
            }
            ClientStream::WebSocket(link) => {
                std::future::poll_fn(|cx| link.poll_fill(cx)).await?;
                Ok(link.first_ahead())
            }
        }
    }

    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket().local_addr()
    }

    pub fn peer_addr(&self) -> io::Result<SocketAddr> {
        self.socket().peer_addr()
    }

    /// Waits until `try_read_buf` has something to give (bytes, or the end of the stream).
    pub async fn readable(&mut self) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.readable().await,
            ClientStream::Tls(link) => std::future::poll_fn(|cx| link.poll_fill(cx)).await,
            ClientStream::WebSocket(link) => std::future::poll_fn(|cx| link.poll_fill(cx)).await,
        }
    }

    /// Appends what can be read now to `buffer`: `Ok(0)` at the end of the stream, `WouldBlock`
    /// when nothing is there.
    pub fn try_read_buf(&mut self, buffer: &mut BytesMut) -> io::Result<usize> {
        match self {
            ClientStream::Plain(socket) => read_plain(socket, buffer),
            ClientStream::Tls(link) => {
                if link.ahead.is_empty() && !link.ended {
                    let mut cx = Context::from_waker(Waker::noop());
                    if let Poll::Ready(filled) = link.poll_fill(&mut cx) {
                        filled?;
                    }
                }
                if link.ahead.is_empty() {
                    return if link.ended {
                        Ok(0)
                    } else {
                        Err(io::ErrorKind::WouldBlock.into())
                    };
                }
                let taken = std::mem::take(&mut link.ahead);
                let read = taken.len();
                buffer.extend_from_slice(&taken);
                Ok(read)
            }
            ClientStream::WebSocket(link) => link.try_read_buf(buffer),
        }
    }

    /// Writes what the socket takes now, never waiting: `WouldBlock` when it takes nothing.
    pub fn try_write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            ClientStream::Plain(socket) => socket.try_write(bytes),
            ClientStream::Tls(link) => {
                let mut cx = Context::from_waker(Waker::noop());
                let mut stream = Pin::new(&mut link.stream);
                match stream.as_mut().poll_write(&mut cx, bytes) {
                    Poll::Ready(written) => {
                        // Pushes the record out if the socket takes it; what it does not take
                        // goes with the next write.
                        let _ = stream.poll_flush(&mut cx);
                        written
                    }
                    Poll::Pending => Err(io::ErrorKind::WouldBlock.into()),
                }
            }
            ClientStream::WebSocket(link) => link.try_write(bytes),
        }
    }

    /// Writes all of `bytes` and, over TLS, flushes the records they were sealed into.
    pub async fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => socket.write_all(bytes).await,
            ClientStream::Tls(link) => {
                link.stream.write_all(bytes).await?;
                link.stream.flush().await
            }
            ClientStream::WebSocket(link) => link.write_all(bytes).await,
        }
    }

    /// Closes the writing side (over TLS, with a `close_notify` first).
    pub async fn shutdown(&mut self) -> io::Result<()> {
        match self {
            ClientStream::Plain(socket) => AsyncWriteExt::shutdown(socket).await,
            ClientStream::Tls(link) => link.stream.shutdown().await,
            ClientStream::WebSocket(link) => link.shutdown().await,
        }
    }
}

impl TlsLink {
    /// Decrypts into `ahead` until it holds something or the stream ended.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if !self.ahead.is_empty() || self.ended {
            return Poll::Ready(Ok(()));
        }
        let mut chunk = [0u8; DECRYPT_CHUNK_BYTES];
        let mut buffer = ReadBuf::new(&mut chunk);
        match ready!(Pin::new(&mut self.stream).poll_read(cx, &mut buffer)) {
            Ok(()) if buffer.filled().is_empty() => self.ended = true,
            Ok(()) => self.ahead.extend_from_slice(buffer.filled()),
            // A client that goes away without a close_notify ends the stream like a plain one.
            Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => self.ended = true,
            Err(error) => return Poll::Ready(Err(error)),
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for ClientStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(socket) => Pin::new(socket).poll_read(cx, buf),
            ClientStream::Tls(link) => {
                if !link.ahead.is_empty() {
                    let n = link.ahead.len().min(buf.remaining());
                    buf.put_slice(&link.ahead[..n]);
                    link.ahead.advance(n);
                    if link.ahead.is_empty() {
                        link.ahead = BytesMut::new();
                    }
                    return Poll::Ready(Ok(()));
                }
                if link.ended {
                    return Poll::Ready(Ok(()));
                }
                Pin::new(&mut link.stream).poll_read(cx, buf)
            }
            ClientStream::WebSocket(link) => link.poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for ClientStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            ClientStream::Plain(socket) => Pin::new(socket).poll_write(cx, buf),
            ClientStream::Tls(link) => Pin::new(&mut link.stream).poll_write(cx, buf),
            ClientStream::WebSocket(link) => link.poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            ClientStream::Plain(socket) => Pin::new(socket).poll_write_vectored(cx, bufs),
            ClientStream::Tls(link) => Pin::new(&mut link.stream).poll_write_vectored(cx, bufs),
            ClientStream::WebSocket(link) => {
                let first = bufs
                    .iter()
                    .find(|buf| !buf.is_empty())
                    .map_or(&[][..], |buf| &**buf);
                link.poll_write(cx, first)
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            ClientStream::Plain(socket) => socket.is_write_vectored(),
            ClientStream::Tls(link) => link.stream.is_write_vectored(),
            ClientStream::WebSocket(_) => false,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(socket) => Pin::new(socket).poll_flush(cx),
            ClientStream::Tls(link) => Pin::new(&mut link.stream).poll_flush(cx),
            ClientStream::WebSocket(link) => link.poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            ClientStream::Plain(socket) => Pin::new(socket).poll_shutdown(cx),
            ClientStream::Tls(link) => Pin::new(&mut link.stream).poll_shutdown(cx),
            ClientStream::WebSocket(link) => link.poll_shutdown(cx),
        }
    }
}
