//! What several test files of `quiver` as a process share: starting it with a clean
//! environment, reading the addresses `quiver serve` prints, and talking Bolt to it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use quiver_bolt::Request;
use quiver_bolt::message::RunExtra;
use quiver_lab::client::{ClientError, Connection, Credentials, Exchanged};
use quiver_value::Map;

/// The `quiver` binary with none of the test's own `QUIVER_*` settings in its environment.
pub fn quiver() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quiver"));
    without_quiver_settings(&mut command);
    command
}

/// Removes every `QUIVER_*` setting of the test's own environment from `command`'s, so the
/// server runs on its flags alone.
pub fn without_quiver_settings(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("QUIVER_") {
            command.env_remove(name);
        }
    }
    command
}

/// `quiver serve` on ephemeral loopback Bolt and HTTP ports; the caller adds the rest.
pub fn serve() -> Command {
    let mut command = quiver();
    command.args([
        "serve",
        "--bolt-listen",
        "127.0.0.1:0",
        "--http-listen",
        "127.0.0.1:0",
    ]);
    command
}

/// Spawns a `quiver serve` command and reads the two address lines it prints, Bolt's and
/// HTTP's; the rest of its output is drained so the server never blocks on a full pipe.
pub fn spawn(command: &mut Command) -> (Child, SocketAddr, SocketAddr) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn quiver serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut address = |prefix: &str| -> SocketAddr {
        let line = lines.next().expect("a line").expect("utf-8 line");
        line.strip_prefix(prefix)
            .unwrap_or_else(|| panic!("expected `{prefix}…`, got `{line}`"))
            .parse()
            .expect("socket address")
    };
    let bolt = address("bolt listening on ");
    let http = address("http listening on ");
    std::thread::spawn(move || for _ in lines {});
    (child, bolt, http)
}

/// Starts `quiver serve` in memory on ephemeral ports, with `extra` flags, and reads the two
/// address lines.
pub fn start(extra: &[&str]) -> (Child, SocketAddr, SocketAddr) {
    spawn(serve().arg("--in-memory").args(extra))
}

/// A single-threaded runtime for a test's Bolt calls.
pub fn client_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime")
}

/// A Bolt connection without credentials; what failed, in words.
pub async fn connect(bolt: SocketAddr) -> Result<Connection, String> {
    let stream = tokio::net::TcpStream::connect(bolt)
        .await
        .map_err(|e| format!("connect {bolt}: {e}"))?;
    Connection::open(stream, None, false)
        .await
        .map_err(|e| format!("bolt handshake: {e}"))
}

/// A Bolt connection logged in as `user` with `password`; a refusal's code, or what else
/// failed in words.
pub async fn login(bolt: SocketAddr, user: &str, password: &str) -> Result<Connection, String> {
    let stream = tokio::net::TcpStream::connect(bolt)
        .await
        .map_err(|e| format!("connect {bolt}: {e}"))?;
    let credentials = Credentials {
        principal: user.to_owned(),
        password: password.to_owned(),
    };
    Connection::open(stream, Some(&credentials), false)
        .await
        .map_err(|e| match e {
            ClientError::Failure { code, .. } => code,
            other => other.to_string(),
        })
}

/// Runs `query` in auto-commit on a connection of its own: every record and both summaries.
pub async fn auto_commit(bolt: SocketAddr, query: &str) -> Result<Exchanged, String> {
    let mut conn = connect(bolt).await?;
    let out = conn
        .exchange(&[
            Request::Run {
                query: query.to_owned(),
                params: Map::new(),
                extra: RunExtra::default(),
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
        .map_err(|e| format!("`{query}`: {e}"))?;
    conn.close().await;
    Ok(out)
}

/// Sends one HTTP/1.1 `POST` of a JSON `body` to `path`, with the extra `headers` lines
/// (`name: value\r\n` each), and reads the whole answer: its status and body.
pub fn http_post(addr: SocketAddr, path: &str, headers: &str, body: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut socket = std::net::TcpStream::connect(addr).expect("connect");
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .expect("timeout");
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\n\
         accept: application/json\r\ncontent-length: {}\r\nconnection: close\r\n{headers}\r\n{body}",
        body.len()
    );
    socket.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    socket.read_to_string(&mut answer).expect("read");
    let status = answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_owned());
    (status, body)
}
