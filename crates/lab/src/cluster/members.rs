//! The cluster's members: `quiver serve` child processes on loopback with fixed ports and
//! their own data directories, and what the lab asks them over HTTP (readiness, Raft status).

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::certs::{self, MemberTls};
use crate::error::LabError;

/// Bytes of an HTTP answer read before giving up on it (status pages are small).
const HTTP_REPLY_BYTES_MAX: usize = 256 * 1024;
/// One HTTP look at a member must finish within this.
const HTTP_TIMEOUT: Duration = Duration::from_secs(2);

/// One member's fixed addresses and its directory.
#[derive(Clone, Debug)]
pub struct MemberSpec {
    pub id: u64,
    pub raft: SocketAddr,
    pub bolt: SocketAddr,
    pub http: SocketAddr,
    pub dir: PathBuf,
    /// Its cluster TLS files, with `--cluster-tls`.
    pub tls: Option<MemberTls>,
}

/// Free loopback ports, taken by binding port 0 and letting go: the members bind them next.
pub fn free_ports(n: usize) -> Result<Vec<SocketAddr>, LabError> {
    let held = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(held
        .iter()
        .map(TcpListener::local_addr)
        .collect::<Result<Vec<_>, _>>()?)
}

/// `n` members under `root` (with cluster TLS files made for them when `tls`), and the
/// `--initial-members` list naming them.
pub fn specs(root: &Path, n: usize, tls: bool) -> Result<(Vec<MemberSpec>, String), LabError> {
    let ports = free_ports(n * 3)?;
    let mut files = if tls {
        certs::write(root, (1..=n).map(|i| i as u64))?
            .into_iter()
            .map(Some)
            .collect()
    } else {
        vec![None; n]
    };
    let specs: Vec<MemberSpec> = (0..n)
        .map(|i| MemberSpec {
            id: i as u64 + 1,
            raft: ports[i * 3],
            bolt: ports[i * 3 + 1],
            http: ports[i * 3 + 2],
            dir: root.join(format!("member-{}", i + 1)),
            tls: files[i].take(),
        })
        .collect();
    let members = specs
        .iter()
        .map(|s| format!("{}={}", s.id, s.raft))
        .collect::<Vec<_>>()
        .join(",");
    Ok((specs, members))
}

/// A running member; dropping it kills the process, so no run leaves one behind.
#[derive(Debug)]
pub struct Member {
    child: Option<Child>,
}

impl Member {
    /// Starts `quiver serve` for `spec` with `group` durability (and cluster TLS when the spec
    /// has its files), its log appended to `<dir>.log`. `max_connections` admits every client the run opens.
    pub fn start(
        exe: &Path,
        spec: &MemberSpec,
        members: &str,
        max_connections: usize,
    ) -> Result<Member, LabError> {
        let mut command = Command::new(exe);
        command
            .arg("serve")
            .args(["--node-id", &spec.id.to_string()])
            .args(["--raft-listen", &spec.raft.to_string()])
            .args(["--initial-members", members])
            .args(["--bolt-listen", &spec.bolt.to_string()])
            .args(["--http-listen", &spec.http.to_string()])
            .args(["--durability", "group"])
            .args(["--max-connections", &max_connections.to_string()])
            .args(["--bookmark-timeout-ms", "20000"])
            .arg("--data-dir")
            .arg(&spec.dir);
        if let Some(tls) = &spec.tls {
            command
                .arg("--cluster-tls-cert")
                .arg(&tls.cert)
                .arg("--cluster-tls-key")
                .arg(&tls.key)
                .arg("--cluster-tls-ca")
                .arg(&tls.ca);
        }
        Member::spawn(command, &spec.dir.with_extension("log"))
    }

    /// Starts `command` (a `quiver serve`) with its standard error appended to `log`. It takes
    /// its settings from its flags alone, not from the lab's `QUIVER_*` environment.
    pub fn spawn(mut command: Command, log: &Path) -> Result<Member, LabError> {
        let program = command.get_program().to_owned();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| LabError::artifact(log, e))?;
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("QUIVER_") {
                command.env_remove(name);
            }
        }
        let child = command
            .env("QUIVER_LOG", "info")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| LabError::Server(format!("{}: {e}", program.to_string_lossy())))?;
        Ok(Member { child: Some(child) })
    }

    /// SIGTERM (the graceful stop: readiness flips, a leader hands over), then waits for the
    /// exit. Whether it exited cleanly.
    pub fn terminate(&mut self) -> bool {
        let Some(mut child) = self.child.take() else {
            return false;
        };
        // `libc::kill` is an unsafe call and this crate denies `unsafe`: `kill(1)` sends it.
        let sent = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if !sent {
            let _ = child.kill();
        }
        child.wait().is_ok_and(|s| s.success())
    }

    /// The process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// The process has exited (or was never started).
    pub fn exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_none_or(|c| !matches!(c.try_wait(), Ok(None)))
    }

    /// SIGKILL: no handover, no flush.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.kill();
    }
}

/// GET `path`: the status code and body, or `None` when the member does not answer.
pub async fn http_get(addr: SocketAddr, path: &str) -> Option<(u16, String)> {
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
        let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        stream.write_all(request.as_bytes()).await.ok()?;
        let mut bytes = Vec::new();
        let mut limited = (&mut stream).take(HTTP_REPLY_BYTES_MAX as u64);
        limited.read_to_end(&mut bytes).await.ok()?;
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (head, body) = text.split_once("\r\n\r\n")?;
        let code = head.split_whitespace().nth(1)?.parse().ok()?;
        Some((code, body.to_owned()))
    };
    tokio::time::timeout(HTTP_TIMEOUT, exchange)
        .await
        .ok()
        .flatten()
}

/// `/health/ready` answers 200.
pub async fn is_ready(spec: &MemberSpec) -> bool {
    matches!(http_get(spec.http, "/health/ready").await, Some((200, _)))
}

/// What the lab reads of `/cluster/status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Status {
    pub leader: Option<u64>,
    pub commit_index: u64,
    pub applied_index: u64,
    /// This member leads and takes writes.
    pub writable_leader: bool,
}

pub async fn status(spec: &MemberSpec) -> Option<Status> {
    let (code, body) = http_get(spec.http, "/cluster/status").await?;
    if code != 200 {
        return None;
    }
    let json: serde_json::Value = serde_json::from_str(&body).ok()?;
    let leader = json["leader"].as_u64();
    Some(Status {
        leader,
        commit_index: json["commit_index"].as_u64().unwrap_or(0),
        applied_index: json["applied_index"].as_u64().unwrap_or(0),
        writable_leader: leader == Some(spec.id) && json["writes_refused"].is_null(),
    })
}
