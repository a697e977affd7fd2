//! A WebSocket client as browser drivers are: each write goes out as one binary message, and
//! what arrives in binary messages is read as one byte stream.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use futures_util::{Sink, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// Bolt over a client WebSocket.
pub struct WsBytes<S> {
    pub socket: WebSocketStream<S>,
    ahead: Bytes,
    /// Control messages seen (pongs, closes), for the tests that send them.
    pub pongs: usize,
    pub closed_by_server: bool,
}

impl<S> WsBytes<S> {
    pub fn new(socket: WebSocketStream<S>) -> WsBytes<S> {
        WsBytes {
            socket,
            ahead: Bytes::new(),
            pongs: 0,
            closed_by_server: false,
        }
    }
}

fn io_error(error: tokio_tungstenite::tungstenite::Error) -> io::Error {
    io::Error::other(error)
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for WsBytes<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        while this.ahead.is_empty() {
            match ready!(this.socket.poll_next_unpin(cx)) {
                None => return Poll::Ready(Ok(())),
                Some(Ok(Message::Binary(bytes))) => this.ahead = bytes,
                Some(Ok(Message::Pong(_))) => this.pongs += 1,
                Some(Ok(Message::Close(_))) => {
                    this.closed_by_server = true;
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return Poll::Ready(Err(io_error(error))),
            }
        }
        let n = this.ahead.len().min(buf.remaining());
        buf.put_slice(&this.ahead[..n]);
        this.ahead.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for WsBytes<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let mut sink = Pin::new(&mut this.socket);
        ready!(sink.as_mut().poll_ready(cx)).map_err(io_error)?;
        sink.as_mut()
            .start_send(Message::Binary(Bytes::copy_from_slice(buf)))
            .map_err(io_error)?;
        let _ = sink.poll_flush(cx);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().socket)
            .poll_flush(cx)
            .map_err(io_error)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().socket)
            .poll_close(cx)
            .map_err(io_error)
    }
}
