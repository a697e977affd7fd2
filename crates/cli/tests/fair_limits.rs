//! `quiver serve` under one client taking more than its share: a flood of wrong passwords from
//! one address gets a few checks at a time and the rest are refused at once, while another
//! address logs in as the same user without waiting out the flood's delay; and one address
//! cannot open every HTTP transaction.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

mod common;
use common::start;

/// `neo4j:secret-password` and `neo4j:wrong`, Base64.
const RIGHT: &str = "bmVvNGo6c2VjcmV0LXBhc3N3b3Jk";
const WRONG: &str = "bmVvNGo6d3Jvbmc=";
/// The flood's size: as many wrong passwords sent at once from one address.
const FLOOD: usize = 200;
/// The longest failure delay the server is started with: long, so that a login made to wait
/// it would stand out.
const DELAY_MAX_MS: u64 = 20_000;

/// Sends one auto-commit request from `source` with Basic `credentials`; the HTTP status.
async fn request(http: SocketAddr, source: [u8; 4], credentials: &str) -> u16 {
    post(http, source, credentials, "/db/neo4j/tx/commit")
        .await
        .0
}

/// POSTs one statement to `path` from `source` with Basic `credentials`; the HTTP status and
/// the whole response.
async fn post(http: SocketAddr, source: [u8; 4], credentials: &str, path: &str) -> (u16, String) {
    let socket = TcpSocket::new_v4().expect("socket");
    socket
        .bind(SocketAddr::from((source, 0)))
        .expect("bind a loopback source address");
    let mut stream = socket.connect(http).await.expect("connect");
    let body = r#"{"statements":[{"statement":"RETURN 1"}]}"#;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Basic {credentials}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.expect("read");
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in `{text}`"));
    (status, text)
}

#[test]
fn a_flood_of_wrong_passwords_from_one_address_does_not_hold_up_another() {
    let delay = DELAY_MAX_MS.to_string();
    let (mut child, _, http) = start(&[
        "--auth",
        "neo4j/secret-password",
        "--auth-failure-delay-max-ms",
        &delay,
    ]);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");
    let flooder = [127, 0, 0, 1];
    let other = [127, 0, 0, 2];
    runtime.block_on(async {
        // Seven failures in a row: the flooding address now owes 6.4 s before each attempt.
        for _ in 0..7 {
            assert_eq!(request(http, flooder, WRONG).await, 401);
        }
        let started = Instant::now();
        let flood: Vec<_> = (0..FLOOD)
            .map(|_| {
                tokio::spawn(async move {
                    let (status, body) = post(http, flooder, WRONG, "/db/neo4j/tx/commit").await;
                    let unchecked = body.contains("auth_attempts_in_flight_per_address_max");
                    (status, unchecked, started.elapsed())
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let login = Instant::now();
        assert_eq!(
            request(http, other, RIGHT).await,
            200,
            "another address, the same user, the right password"
        );
        let login = login.elapsed();
        let mut answered_at_once = 0;
        let mut refused_unchecked = 0;
        for attempt in flood {
            let (status, unchecked, answered_after) = attempt.await.expect("flood task");
            assert_eq!(status, 401);
            if answered_after < Duration::from_secs(5) {
                answered_at_once += 1;
            }
            refused_unchecked += usize::from(unchecked);
        }
        // The other address waited no delay (it had no failure of its own): at most a few
        // password checks of the flood ahead of it.
        assert!(login < Duration::from_secs(5), "login took {login:?}");
        // Past the few attempts in progress, the flood was refused unchecked rather than
        // queued behind the 6.4 s delay.
        assert!(
            answered_at_once >= FLOOD - 10,
            "only {answered_at_once} of {FLOOD} answered at once"
        );
        // At most the address's 4 places were checked at a time; every other attempt sent
        // while they waited out the delay was refused saying why.
        assert!(
            refused_unchecked >= FLOOD - 10,
            "only {refused_unchecked} of {FLOOD} refused unchecked"
        );
    });
    child.kill().expect("kill");
    child.wait().expect("reap");
}

#[test]
fn one_address_cannot_open_every_http_transaction() {
    let (mut child, _, http) = start(&[
        "--auth",
        "neo4j/secret-password",
        "--http-transactions-per-address-max",
        "2",
    ]);
    let runtime = common::client_runtime();
    let greedy = [127, 0, 0, 1];
    let other = [127, 0, 0, 2];
    runtime.block_on(async {
        for _ in 0..2 {
            let (status, _) = post(http, greedy, RIGHT, "/db/neo4j/tx").await;
            assert_eq!(status, 201, "a transaction within the address's share");
        }
        let (status, body) = post(http, greedy, RIGHT, "/db/neo4j/tx").await;
        assert_eq!(status, 503, "{body}");
        assert!(
            body.contains("Neo.TransientError.Transaction.MaximumTransactionLimitReached"),
            "{body}"
        );
        assert!(
            body.contains("http_transactions_per_address_max"),
            "the refusal names the limit: {body}"
        );
        let (status, body) = post(http, other, RIGHT, "/db/neo4j/tx").await;
        assert_eq!(status, 201, "another address has its own share: {body}");
    });
    child.kill().expect("kill");
    child.wait().expect("reap");
}
