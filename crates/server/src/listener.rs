//! Listening sockets and the accept loop both protocols share: admission, panic isolation, counting,
//! task tracking and TLS live here once; what is spoken on the stream is a [`Protocol`].

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::time::Instant;

use crate::admission::{Admission, Admit};
use crate::deadline::Interrupted;
use crate::metrics::ConnectionMetrics;
use crate::refuser::{self, RefusalScript, Refuser};
use crate::shutdown::{Shutdown, ShutdownSignal};
use crate::supervise::CatchPanic;
use crate::tls::{ClientStream, TlsFront, Unopened};

/// Pending-connection queue length. `TcpListener::bind` asks for 128, which overflows (and makes
/// clients retry SYNs for a second or more) when a thousand clients connect at once. The kernel caps
/// it at `net.core.somaxconn`.
pub const LISTEN_BACKLOG: u32 = 4096;

/// Pause after an accept error caused by resource exhaustion (no descriptors, no memory), so the
/// loop does not spin while connections close and free them.
pub const ACCEPT_ERROR_BACKOFF: Duration = Duration::from_millis(50);

/// Binds `addr` with the large backlog. `SO_REUSEADDR` lets a restarted server bind while old
/// connections linger in TIME_WAIT.
pub fn bind(addr: SocketAddr) -> io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// An admitted connection, handed to its protocol once open (its TLS handshake done, on a
/// listener with TLS on).
#[derive(Debug)]
pub struct Connection {
    pub stream: ClientStream,
    pub peer: SocketAddr,
    /// When `accept` returned: the handshake deadline counts from here.
    pub accepted_at: Instant,
    /// Admitted into a slot kept for administrators: close it after authentication unless the
    /// principal is one.
    pub reserved_slot: bool,
    pub shutdown: ShutdownSignal,
}

/// What is spoken on a listener.
pub trait Protocol: Send + Sync + 'static {
    /// Serves one admitted connection to its end. Panics are caught by the caller.
    fn serve(self: Arc<Self>, connection: Connection) -> impl Future<Output = ()> + Send;

    /// What a client past the connection limit is told, encoded once; the listener's
    /// [`Refuser`] drives every refused socket with it, bounding their time and number.
    fn refusal(&self) -> Arc<dyn RefusalScript>;
}

/// Everything one accept loop needs besides its protocol.
#[derive(Debug)]
pub struct ListenerContext {
    /// "bolt" or "http", for logs.
    pub name: &'static str,
    pub admission: Admission,
    /// Shared by handle: every connection's task keeps one pointer, not a copy of each counter.
    pub metrics: Arc<ConnectionMetrics>,
    /// Most time one refusal may take, from accept.
    pub refusal_timeout: Duration,
    /// Most refused sockets held at once (the admission's refusal budget).
    pub refusals_in_flight_max: u32,
    pub shutdown: Shutdown,
    /// How connections are opened when the listener has TLS on; `None`: plain.
    pub tls: Option<Arc<TlsFront>>,
}

/// Accepts until draining begins, then drops the listener (closing the port) and returns.
/// Every connection task is spawned on the shutdown tracker, and so is the listener's one refuser
/// task.
pub async fn accept_loop<P: Protocol>(
    listener: TcpListener,
    protocol: Arc<P>,
    context: ListenerContext,
) {
    let signal = context.shutdown.signal();
    let refuser = Refuser::new(context.refusals_in_flight_max as usize);
    let metrics = Arc::clone(&context.metrics);
    let run = CatchPanic::new(refuser::run(
        Arc::clone(&refuser),
        protocol.refusal(),
        context.tls.clone(),
        context.shutdown.signal(),
        move |tally| {
            metrics.refusals_written.inc_by(tally.written);
            metrics.refusals_timed_out.inc_by(tally.timed_out);
        },
    ));
    let stopped_refuser = Arc::clone(&refuser);
    let (name, metrics) = (context.name, Arc::clone(&context.metrics));
    context.shutdown.tracker().spawn(async move {
        if let Err(message) = run.await {
            metrics.panics.inc();
            tracing::error!(listener = name, panic = %message, "the refuser panicked; refused connections are closed from now on");
        }
        stopped_refuser.close();
    });
    loop {
        let accepted = tokio::select! {
            biased;
            () = signal.draining() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => admit(stream, peer, &protocol, &refuser, &context),
            Err(error) => {
                if is_exhaustion(&error) {
                    tracing::warn!(listener = context.name, %error, "accept failed; backing off");
                    tokio::time::sleep(ACCEPT_ERROR_BACKOFF).await;
                } else {
                    tracing::debug!(listener = context.name, %error, "accept failed");
                }
            }
        }
    }
    tracing::info!(listener = context.name, "stopped accepting");
}

fn admit<P: Protocol>(
    stream: TcpStream,
    peer: SocketAddr,
    protocol: &Arc<P>,
    refuser: &Refuser,
    context: &ListenerContext,
) {
    let accepted_at = Instant::now();
    // Replies are written whole, so Nagle's algorithm only adds latency (and splits the Bolt
    // handshake reply from what follows, which drivers do not forgive).
    if let Err(error) = stream.set_nodelay(true) {
        tracing::debug!(%peer, %error, "TCP_NODELAY failed");
    }
    match context.admission.admit() {
        Admit::Slot(slot) => {
            let metrics = Arc::clone(&context.metrics);
            metrics.accepted.inc();
            metrics.active.inc();
            let shutdown = context.shutdown.signal();
            let reserved_slot = slot.is_reserved();
            let name = context.name;
            // Boxed here, outside the task's own future: captured unboxed, the connection's whole
            // state would be stored twice (inline in the task and again in the box).
            let serve = CatchPanic::new(open_and_serve(
                Arc::clone(protocol),
                context.tls.clone(),
                Arc::clone(&metrics),
                Connection {
                    stream: ClientStream::Plain(stream),
                    peer,
                    accepted_at,
                    reserved_slot,
                    shutdown,
                },
            ));
            context.shutdown.tracker().spawn(async move {
                let outcome = serve.await;
                if let Err(message) = outcome {
                    metrics.panics.inc();
                    tracing::error!(listener = name, %peer, panic = %message, "connection task panicked; closed it");
                }
                metrics.active.dec();
                metrics.closed.inc();
                drop(slot);
            });
        }
        Admit::Refuse(permit) => {
            context.metrics.rejected.inc();
            let deadline = accepted_at + context.refusal_timeout;
            if let Err(stream) = refuser.push(stream, deadline, permit) {
                // The refuser has stopped: the server is going away.
                let _ = stream.set_zero_linger();
            }
            tracing::trace!(listener = context.name, %peer, "refusing a connection past the limit");
        }
        Admit::Drop => {
            context.metrics.rejected.inc();
            context.metrics.refusals_dropped.inc();
            // A reset frees the socket at once: no FIN handshake, no TIME_WAIT on our side.
            let _ = stream.set_zero_linger();
        }
    }
}

/// Opens the connection (on a listener with TLS on, its TLS handshake before the opening
/// deadline) and serves it.
async fn open_and_serve<P: Protocol>(
    protocol: Arc<P>,
    tls: Option<Arc<TlsFront>>,
    metrics: Arc<ConnectionMetrics>,
    mut connection: Connection,
) {
    if let Some(front) = tls
        && let ClientStream::Plain(socket) = connection.stream
    {
        // Boxed: the handshake's state is needed for a moment, the session's for hours.
        let opened = Box::pin(front.open(socket, connection.accepted_at, &connection.shutdown));
        connection.stream = match opened.await {
            Ok(stream) => stream,
            Err(unopened) => {
                if matches!(unopened, Unopened::Interrupted(Interrupted::Deadline)) {
                    metrics.timed_out.inc();
                }
                tracing::debug!(peer = %connection.peer, error = %unopened, "connection not opened");
                return;
            }
        };
    }
    protocol.serve(connection).await;
}

fn is_exhaustion(error: &io::Error) -> bool {
    matches!(
        error.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM)
    ) || error.kind() == io::ErrorKind::OutOfMemory
}
