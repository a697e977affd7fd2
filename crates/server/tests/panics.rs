//! A panic inside one connection's task is caught, counted, and closes that connection alone:
//! the listener keeps accepting and other connections keep being served.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::{closed_within, eventually};
use quiver_server::admission::Admission;
use quiver_server::listener::{Connection, ListenerContext, Protocol, accept_loop, bind};
use quiver_server::metrics::Metrics;
use quiver_server::refuser::{RefusalScript, Step};
use quiver_server::shutdown::Shutdown;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Echoes one byte back, except `!`, on which it panics.
struct Fragile;

impl Protocol for Fragile {
    async fn serve(self: Arc<Self>, mut connection: Connection) {
        let mut byte = [0u8; 1];
        while connection.stream.read_exact(&mut byte).await.is_ok() {
            assert!(byte[0] != b'!', "protocol bug triggered by the client");
            if connection.stream.write_all(&byte).await.is_err() {
                return;
            }
        }
    }

    fn refusal(&self) -> Arc<dyn RefusalScript> {
        Arc::new(Silent)
    }
}

/// Closes refused sockets without a word.
#[derive(Debug)]
struct Silent;

impl RefusalScript for Silent {
    fn step(&self, _round: u8, _received: &[u8]) -> Step {
        Step::Close
    }

    fn reply(&self, _reply: usize) -> &[u8] {
        &[]
    }

    fn drain_bytes_max(&self) -> usize {
        0
    }
}

#[tokio::test]
async fn a_panicking_connection_task_is_isolated() {
    let metrics = Metrics::new();
    let shutdown = Shutdown::new();
    let listener = bind("127.0.0.1:0".parse().expect("addr")).expect("bind");
    let addr = listener.local_addr().expect("local addr");
    let context = ListenerContext {
        name: "fragile",
        admission: Admission::new(16, 0, 4),
        metrics: Arc::new(metrics.bolt.clone()),
        refusal_timeout: Duration::from_secs(1),
        refusals_in_flight_max: 4,
        shutdown: shutdown.clone(),
        tls: None,
    };
    shutdown
        .tracker()
        .spawn(accept_loop(listener, Arc::new(Fragile), context));

    let mut healthy = TcpStream::connect(addr).await.expect("connect");
    let mut victim = TcpStream::connect(addr).await.expect("connect");
    victim.write_all(b"!").await.expect("write");
    assert!(
        closed_within(&mut victim, Duration::from_secs(5))
            .await
            .is_some()
    );
    assert!(eventually(|| metrics.bolt.panics.get() == 1).await);

    // The other connection still works, and new ones are accepted.
    healthy.write_all(b"a").await.expect("write");
    let mut echo = [0u8; 1];
    healthy.read_exact(&mut echo).await.expect("echo");
    assert_eq!(&echo, b"a");
    let mut fresh = TcpStream::connect(addr).await.expect("connect");
    fresh.write_all(b"b").await.expect("write");
    fresh.read_exact(&mut echo).await.expect("echo");
    assert_eq!(&echo, b"b");
    assert_eq!(metrics.bolt.accepted.get(), 3);
    assert!(eventually(|| metrics.bolt.active.get() == 2).await);
    assert_eq!(metrics.bolt.closed.get(), 1);

    drop((healthy, fresh));
    let report = shutdown.drain(Duration::from_secs(5)).await;
    assert_eq!(report.tasks_left, 0);
}
