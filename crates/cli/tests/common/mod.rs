//! What several test files of `quiver serve` as a process share.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

/// Starts `quiver serve` on ephemeral ports and reads the two address lines.
pub fn start(extra: &[&str]) -> (Child, SocketAddr, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args([
            "serve",
            "--bolt-listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--in-memory",
        ])
        .args(extra)
        .env_remove("QUIVER_AUTH")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn quiver");
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
    (child, bolt, http)
}
