//! `quiver serve` as a process: addresses printed, endpoints served, SIGTERM drains and exits 0.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::start;

fn quiver() -> Command {
    Command::new(env!("CARGO_BIN_EXE_quiver"))
}

fn get(addr: SocketAddr, path: &str) -> String {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read");
    reply
}

fn terminate(child: &Child) {
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

fn wait_exit(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("quiver did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_prints_addresses_serves_and_exits_zero_on_sigterm() {
    let (mut child, bolt, http) = start(&[]);
    let ready = get(http, "/health/ready");
    assert!(ready.starts_with("HTTP/1.1 200"), "{ready}");
    let mut bolt_stream = TcpStream::connect(bolt).expect("bolt connect");
    bolt_stream
        .write_all(&[
            0x60, 0x60, 0xB0, 0x17, 0, 0, 8, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ])
        .expect("handshake");
    let mut reply = [0u8; 4];
    bolt_stream.read_exact(&mut reply).expect("handshake reply");
    assert_eq!(reply, [0, 0, 8, 5]);
    terminate(&child);
    let status = wait_exit(&mut child, Duration::from_secs(15));
    assert_eq!(status.code(), Some(0));
}

#[test]
fn invalid_configuration_exits_2_naming_the_variable() {
    let output = quiver()
        .args(["serve", "--in-memory"])
        .env("QUIVER_MAX_CONNECTIONS", "many")
        .output()
        .expect("run quiver");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("QUIVER_MAX_CONNECTIONS=many"), "{stderr}");
}

#[test]
fn hash_password_prints_a_phc_string() {
    let mut child = quiver()
        .arg("hash-password")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"secret-password\n")
        .expect("write password");
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("$argon2id$"));
}
