//! The HTTP listener: hyper 1 over a socket wrapper that enforces header-read, keep-alive and
//! write-stall deadlines ([`watch`]), the operations endpoints, and the seam for Neo4j's HTTP API
//! ([`api`]).

pub mod api;
pub mod backup;
mod body;
mod respond;
mod service;
pub mod watch;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use quiver_status::Status;

pub use api::{ApiBody, ApiFuture, ApiHandler, BoxError, box_body};
pub use service::HttpShared;
use watch::{Activity, WatchLimits, WatchedIo};

use crate::deadline::{Interrupted, Until, race_kept};
use crate::listener::{Connection, Protocol};
use crate::metrics::IntGauge;
use crate::refuser::{RefusalScript, Step};
use crate::shutdown::ShutdownSignal;
use crate::tls::ClientStream;

/// Largest request head (request line and headers) hyper buffers; a bigger one is answered 431.
pub const HEAD_BYTES_MAX: usize = 64 * 1024;
/// Most header fields in one request.
pub const HEADERS_MAX: usize = 100;
/// Most bytes of a refused client's request read (and discarded) so the refusal is not lost to a
/// reset caused by unread data.
pub const REFUSAL_DRAIN_BYTES_MAX: usize = 64 * 1024;

/// The HTTP protocol on a listener.
#[derive(Debug)]
pub struct HttpProtocol {
    pub shared: Arc<HttpShared>,
    pub limits: WatchLimits,
    /// For the refusal message.
    pub connections_max: u32,
}

impl Protocol for HttpProtocol {
    /// Serves the connection in turns: a wait for the client's next bytes that holds no buffer
    /// and no hyper state (the keep-alive or header deadline, and the drain, race it), then a
    /// hyper connection for the requests that follow, until it is idle again. hyper keeps its
    /// read and write buffers for a connection's life, so handing it the socket only while
    /// requests are in flight is what keeps an idle keep-alive connection small. The first turn
    /// is the same: a client that has sent nothing waits on its bare socket, held to the header
    /// deadline from accept, and hyper's connection is made when its first bytes arrive.
    /// Whatever its route, the connection is handed back once idle (see [`watch`]); the
    /// `quiver_http_connections_serving` gauge counts those that are not.
    async fn serve(self: Arc<Self>, connection: Connection) {
        let Connection {
            mut stream,
            peer,
            accepted_at,
            shutdown,
            ..
        } = connection;
        let activity = Activity::new(accepted_at);
        let mut timer = Box::pin(tokio::time::sleep_until(accepted_at));
        // Bytes of a request's head read before a handover, handed to the next hyper connection.
        let mut held = Bytes::new();
        while let Some(deadline) = activity.read_deadline(&self.limits) {
            let readable = race_kept(
                spoke(&mut stream),
                timer.as_mut(),
                deadline,
                &shutdown,
                Until::Drain,
            );
            match readable.await {
                Ok(Ok(())) => {}
                Ok(Err(_)) | Err(Interrupted::Draining | Interrupted::Stopped) => break,
                Err(Interrupted::Deadline) => {
                    activity.mark_timed_out();
                    break;
                }
            }
            let taken = std::mem::take(&mut held);
            // Boxed: hyper's connection state is needed while requests are in flight, and the
            // parked wait above should not carry room for it in the task for the connection's
            // life.
            let requests = Box::pin(self.requests(stream, taken, peer, &activity, &shutdown));
            match requests.await {
                Some((idle, head)) => {
                    stream = idle;
                    held = head;
                }
                None => break,
            }
        }
        if activity.timed_out() {
            self.shared.metrics.http.timed_out.inc();
        }
    }

    fn refusal(&self) -> Arc<dyn RefusalScript> {
        Arc::new(HttpRefusal::new(self.connections_max))
    }
}

impl HttpProtocol {
    /// Serves requests with hyper until the connection is idle (the socket back, for the idle
    /// wait, with the bytes of a next request hyper had read but not parsed) or over (`None`:
    /// the client left, a deadline fired, the server is draining). `held` is read before the
    /// socket: what the last round handed back.
    async fn requests(
        &self,
        stream: ClientStream,
        held: Bytes,
        peer: SocketAddr,
        activity: &Arc<Activity>,
        shutdown: &ShutdownSignal,
    ) -> Option<(ClientStream, Bytes)> {
        let _serving = Serving::start(&self.shared.metrics.http_connections_serving);
        let io = TokioIo::new(
            WatchedIo::handing_over(stream, Arc::clone(activity), self.limits).with_prefix(held),
        );
        let shared = Arc::clone(&self.shared);
        let service_activity = Arc::clone(activity);
        let service = service_fn(move |request| {
            let activity = Arc::clone(&service_activity);
            // Boxed, so that hyper can be asked to keep the socket when the connection is idle
            // (which needs an `Unpin` future). Called now, so the request counts from now.
            let answer = Arc::clone(&shared).handle(request, peer, activity);
            let answer: ServiceFuture = Box::pin(async move { Ok(answer.await) });
            answer
        });
        let mut builder = http1::Builder::new();
        builder
            .keep_alive(true)
            // Deadlines are enforced by the idle wait and `WatchedIo`, which tells idle from
            // dribbling.
            .header_read_timeout(None)
            .max_buf_size(HEAD_BYTES_MAX)
            .max_headers(HEADERS_MAX);
        let mut connection = builder.serve_connection(io, service);
        let mut draining = false;
        let outcome = loop {
            tokio::select! {
                biased;
                () = shutdown.stopped() => return None,
                () = shutdown.draining(), if !draining => {
                    draining = true;
                    // Finishes the request in progress, then closes.
                    Pin::new(&mut connection).graceful_shutdown();
                }
                outcome = std::future::poll_fn(|cx| connection.poll_without_shutdown(cx)) => {
                    break outcome;
                }
            }
        };
        let parts = connection.into_parts();
        let watched = parts.io.into_inner();
        let handed_over = watched.handed_over() && !draining && !activity.timed_out();
        match outcome {
            // The handover's end of the stream: hyper held nothing unparsed.
            Ok(()) if handed_over && parts.read_buf.is_empty() => {
                return Some((watched.into_inner(), Bytes::new()));
            }
            // hyper held the start of a pipelined request whose head arrived split, and took the
            // handover's end of the stream for a request cut short. Those bytes go back with the
            // socket (copied, so that hyper's read buffer is freed) and are read first by the
            // next hyper connection; the header deadline runs for them while the socket waits.
            Err(error) if handed_over && error.is_incomplete_message() => {
                activity.head_started();
                let head = Bytes::copy_from_slice(&parts.read_buf);
                return Some((watched.into_inner(), head));
            }
            Err(error) => {
                tracing::debug!(%peer, %error, "HTTP connection ended with an error");
                return None;
            }
            Ok(()) => {}
        }
        // The exchange is over (the client asked to close, or the server is draining). hyper
        // leaves the socket open when asked to keep it, so it is closed here as hyper would: a
        // TLS client is sent close_notify, and the close is not a truncation to it. A client
        // that does not read its end gets the write-stall deadline, no longer.
        if !activity.timed_out() {
            let mut stream = watched.into_inner();
            let _ = tokio::time::timeout(self.limits.write_stall, stream.shutdown()).await;
        }
        None
    }
}

/// Waits until the client has sent something (or closed, or failed). A plain socket is peeked
/// at: tokio's readiness alone can be reported for a socket with nothing to read (a freshly
/// accepted one reports it at once), and a wait that ended on it would build hyper's
/// connection, and its 8 KiB read buffer, for a client that has said nothing. A peek that
/// finds nothing clears that readiness and waits again; its byte stays on the socket for hyper.
/// A TLS stream's wait reads and decrypts what arrived, and holds it for the next read.
async fn spoke(stream: &mut ClientStream) -> std::io::Result<()> {
    match stream {
        ClientStream::Plain(socket) => socket.peek(&mut [0u8; 1]).await.map(drop),
        _ => stream.readable().await,
    }
}

/// Counts a connection as holding hyper's state for as long as it is kept, a panic's unwinding
/// included.
struct Serving<'a>(&'a IntGauge);

impl Serving<'_> {
    fn start(gauge: &IntGauge) -> Serving<'_> {
        gauge.inc();
        Serving(gauge)
    }
}

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// The future a request's service returns.
type ServiceFuture =
    Pin<Box<dyn std::future::Future<Output = Result<http::Response<ApiBody>, Infallible>> + Send>>;

/// What an HTTP client past the connection limit is told: a 503 with `Retry-After` and a body in
/// the transactional API's error format, encoded once. It is written at once, without waiting for
/// the request (a client that has not sent it yet reads it all the same).
#[derive(Debug)]
pub struct HttpRefusal {
    response: Vec<u8>,
}

impl HttpRefusal {
    pub fn new(connections_max: u32) -> HttpRefusal {
        let body = serde_json::json!({
            "results": [],
            "errors": [{
                "code": Status::ServiceUnavailable.code(),
                "message": format!(
                    "The server is at its limit of {connections_max} HTTP connections; retry later."
                ),
            }],
        })
        .to_string();
        let response = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        );
        HttpRefusal {
            response: response.into_bytes(),
        }
    }
}

impl RefusalScript for HttpRefusal {
    fn step(&self, _round: u8, _received: &[u8]) -> Step {
        Step::Reply {
            reply: 0,
            last: true,
        }
    }

    fn reply(&self, _reply: usize) -> &[u8] {
        &self.response
    }

    /// The request is read (and discarded) so that closing with it unread does not reset the
    /// connection before the client read the 503.
    fn drain_bytes_max(&self) -> usize {
        REFUSAL_DRAIN_BYTES_MAX
    }
}

/// Deadlines of HTTP connections, from the configuration.
pub fn watch_limits(timeouts: &crate::config::Timeouts) -> WatchLimits {
    WatchLimits {
        header_read: timeouts.http_header_read,
        keep_alive: timeouts.http_keep_alive,
        // A client that stops reading its response is treated like one that stops sending its body.
        write_stall: timeouts.http_body_read.max(Duration::from_secs(1)),
    }
}
