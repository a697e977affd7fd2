//! Raft RPCs between members: numbered, length-prefixed JSON frames on each member's own Raft
//! listener, over mutual TLS when cluster TLS is on (the connection and frame layouts, and who
//! may open one, are in [`crate::transport`]).
//!
//! A connection carries one request at a time, each answered by one response, in order. A
//! client connects lazily with a deadline, and after any failure drops the connection and
//! reconnects on the next call: openraft's backoff paces the retries. A member never connects
//! to itself.
//!
//! Every request names its sender: the vote's candidate or leader, or the announcing member.
//! The listener applies a request only when that sender is in its membership (voter or
//! learner; a member with no membership yet, waiting to be added, hears anyone the cluster CA
//! certified) and, with TLS on, the dialer's certificate names it. Anything else (a plain
//! dialer on a TLS listener or the reverse, a refused certificate, a malformed, oversized or
//! out-of-sequence frame, a sender outside the membership or not the certificate's) closes the
//! connection unanswered, with a log line, and is counted by [`Refusal`].
//!
//! Snapshots travel as a series of [`Request::SnapshotChunk`] on one connection, each
//! acknowledged, the last one answered with the installed snapshot's response; the receiver
//! writes chunks to a file beside its snapshots and hands the whole file to openraft.
//!
//! [`NetworkSwitch`] is the seam for partition tests: an isolated member's RPCs fail at once and
//! the RPCs sent to it are dropped unanswered, both ways, like a cut cable.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use openraft::error::{NetworkError, RPCError, ReplicationClosed, StreamingError, Unreachable};
use openraft::network::{RPCOption, RaftNetworkFactory, v2::RaftNetworkV2};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, SnapshotResponse, TransferLeaderRequest,
    TransferLeaderResponse, VoteRequest, VoteResponse,
};
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::state_machine::{Snapshot, SnapshotData, incoming_path};
use crate::transport::{Link, PeerTls, Unopened, accept, dial, names_member};
use crate::types::{Node, NodeId, Raft, Redo, SnapshotMeta, TypeConfig, Vote};

/// The largest frame accepted: a batch of entries holding one redo record at its limit, with
/// room for base64 and the JSON around it. A length beyond it is a broken peer, not a message.
pub const RPC_FRAME_BYTES_MAX: usize = (quiver_storage::RECORD_BYTES_MAX / 3) * 4 + (64 << 20);

/// A peer connection with no request for this long is closed; the peer reconnects when it
/// next has something to send.
pub const RPC_IDLE_TIMEOUT_MS: u64 = 60_000;

/// Snapshot bytes sent per chunk, by default.
pub const SNAPSHOT_CHUNK_BYTES_DEFAULT: usize = 1 << 20;

/// An accepted connection must finish its TLS handshake and preamble within this.
pub const RPC_OPENING_TIMEOUT_MS: u64 = 10_000;

#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    Append(AppendEntriesRequest<TypeConfig>),
    Vote(VoteRequest<TypeConfig>),
    PreVote(VoteRequest<TypeConfig>),
    /// Part of a snapshot at `offset`; `done` on the last. `has_file` is false for the snapshot
    /// of an empty store, which has no data at all.
    SnapshotChunk {
        vote: Vote,
        meta: SnapshotMeta,
        offset: u64,
        data: Redo,
        has_file: bool,
        done: bool,
        /// Ids removed from the membership up to the snapshot's last entry, on the last chunk.
        #[serde(default)]
        removed: BTreeSet<NodeId>,
    },
    TransferLeader(TransferLeaderRequest<TypeConfig>),
    /// A member tells the leader its addresses (its Bolt and HTTP listeners, known only to
    /// itself when the cluster was initialized), for the leader to put in the membership.
    Announce {
        id: NodeId,
        node: Node,
    },
}

impl Request {
    /// The member the request says it comes from: the candidate of a vote, the leader of
    /// entries, a snapshot or a handover, the member announcing its addresses.
    pub fn sender(&self) -> NodeId {
        match self {
            Request::Append(r) => r.vote.leader_id.node_id,
            Request::Vote(r) | Request::PreVote(r) => r.vote.leader_id.node_id,
            Request::SnapshotChunk { vote, .. } => vote.leader_id.node_id,
            Request::TransferLeader(r) => r.from_leader().leader_id.node_id,
            Request::Announce { id, .. } => *id,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Response {
    Append(AppendEntriesResponse<TypeConfig>),
    Vote(VoteResponse<TypeConfig>),
    SnapshotChunk,
    Snapshot(SnapshotResponse<TypeConfig>),
    TransferLeader(TransferLeaderResponse<TypeConfig>),
    Announced,
    /// The receiver could not handle the request (it is shutting down, or storage failed).
    Error(String),
}

/// Why an RPC failed on the wire.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("frame of {0} bytes exceeds the limit")]
    FrameTooLarge(usize),
    #[error("undecodable message: {0}")]
    Decode(#[from] serde_json::Error),
    #[error("deadline of {0:?} passed")]
    Timeout(Duration),
    #[error("unexpected response to {0}")]
    Unexpected(&'static str),
    #[error("remote: {0}")]
    Remote(String),
    #[error("member is isolated by the network switch")]
    Isolated,
    #[error("a member does not send RPCs to itself")]
    SelfTarget,
    #[error("frame numbered {seq} where {expected} was due (replayed or out of order)")]
    OutOfSequence { seq: u64, expected: u64 },
    #[error("TLS: {0}")]
    Tls(String),
}

/// Why the Raft listener closed a connection without applying what it carried.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    /// A plain dialer on a listener with cluster TLS on.
    PlainOnTls,
    /// A TLS dialer on a listener with cluster TLS off.
    TlsOnPlain,
    /// The TLS handshake failed: no certificate, one not from the cluster CA, or no common
    /// protocol.
    Handshake,
    /// Not the Raft preamble, or a frame that is not a request.
    Malformed,
    /// A frame longer than [`RPC_FRAME_BYTES_MAX`].
    Oversized,
    /// A frame whose sequence number is not the next one: replayed, or out of order.
    Replayed,
    /// A request from a member outside this member's membership.
    NotMember,
    /// A request whose sender is not the member the dialer's certificate names.
    WrongSender,
}

impl Refusal {
    pub const ALL: [Refusal; 8] = [
        Refusal::PlainOnTls,
        Refusal::TlsOnPlain,
        Refusal::Handshake,
        Refusal::Malformed,
        Refusal::Oversized,
        Refusal::Replayed,
        Refusal::NotMember,
        Refusal::WrongSender,
    ];

    /// The metric label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::PlainOnTls => "plain_on_tls",
            Refusal::TlsOnPlain => "tls_on_plain",
            Refusal::Handshake => "handshake",
            Refusal::Malformed => "malformed",
            Refusal::Oversized => "oversized",
            Refusal::Replayed => "replayed",
            Refusal::NotMember => "not_member",
            Refusal::WrongSender => "wrong_sender",
        }
    }
}

/// Refusals on one member's Raft listener since it started, by reason.
#[derive(Debug, Default)]
pub struct Refusals([AtomicU64; Refusal::ALL.len()]);

impl Refusals {
    fn count(&self, why: Refusal) {
        self.0[why as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Every reason's count, by label.
    pub fn counts(&self) -> BTreeMap<&'static str, u64> {
        Refusal::ALL
            .iter()
            .map(|why| (why.label(), self.0[*why as usize].load(Ordering::Relaxed)))
            .collect()
    }
}

/// The partition switch of one member: while isolated, its RPCs fail and RPCs to it are
/// dropped. Clones share the switch.
#[derive(Clone, Debug, Default)]
pub struct NetworkSwitch {
    isolated: Arc<AtomicBool>,
    /// RPCs dropped while isolated, both ways.
    dropped: Arc<AtomicU64>,
}

impl NetworkSwitch {
    pub fn isolate(&self) {
        self.isolated.store(true, Ordering::Release);
    }

    pub fn heal(&self) {
        self.isolated.store(false, Ordering::Release);
    }

    pub fn is_isolated(&self) -> bool {
        self.isolated.load(Ordering::Acquire)
    }

    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    fn drop_one(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
    }
}

/// Builds a client per peer for openraft.
#[derive(Clone, Debug)]
pub struct Network {
    pub(crate) id: NodeId,
    pub(crate) switch: NetworkSwitch,
    pub(crate) connect_timeout: Duration,
    pub(crate) snapshot_chunk_bytes: usize,
    pub(crate) snapshot_install_timeout: Duration,
    /// Snapshots streamed whole to a member and installed there.
    pub(crate) snapshots_sent: Arc<AtomicU64>,
    /// Cluster TLS: `None` speaks plain TCP.
    pub(crate) tls: Option<Arc<PeerTls>>,
}

impl RaftNetworkFactory<TypeConfig> for Network {
    type Network = PeerClient;

    async fn new_client(&mut self, target: NodeId, node: &Node) -> PeerClient {
        PeerClient {
            own: self.id,
            target,
            addr: node.raft_addr.clone(),
            switch: self.switch.clone(),
            connect_timeout: self.connect_timeout,
            snapshot_chunk_bytes: self.snapshot_chunk_bytes.max(1),
            snapshot_install_timeout: self.snapshot_install_timeout,
            snapshots_sent: Arc::clone(&self.snapshots_sent),
            tls: self.tls.clone(),
            conn: None,
        }
    }
}

/// One peer's connection, opened on first use and after any failure.
#[derive(Debug)]
pub struct PeerClient {
    own: NodeId,
    target: NodeId,
    addr: String,
    switch: NetworkSwitch,
    connect_timeout: Duration,
    snapshot_chunk_bytes: usize,
    snapshot_install_timeout: Duration,
    snapshots_sent: Arc<AtomicU64>,
    tls: Option<Arc<PeerTls>>,
    conn: Option<Link>,
}

/// A failure before anything was sent is "unreachable" (openraft backs off); one after is a
/// network error (it retries).
enum CallError {
    Unreachable(WireError),
    Network(WireError),
}

impl From<CallError> for RPCError<TypeConfig> {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Unreachable(e) => RPCError::Unreachable(Unreachable::new(&e)),
            CallError::Network(e) => RPCError::Network(NetworkError::new(&e)),
        }
    }
}

impl From<CallError> for StreamingError<TypeConfig> {
    fn from(e: CallError) -> Self {
        match e {
            CallError::Unreachable(e) => StreamingError::Unreachable(Unreachable::new(&e)),
            CallError::Network(e) => StreamingError::Network(NetworkError::new(&e)),
        }
    }
}

impl PeerClient {
    async fn connection(&mut self) -> Result<&mut Link, CallError> {
        if self.target == self.own {
            return Err(CallError::Unreachable(WireError::SelfTarget));
        }
        if self.switch.is_isolated() {
            self.switch.drop_one();
            self.conn = None;
            return Err(CallError::Unreachable(WireError::Isolated));
        }
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => dial(
                self.tls.as_deref(),
                self.target,
                &self.addr,
                self.connect_timeout,
            )
            .await
            .map_err(CallError::Unreachable)?,
        };
        Ok(self.conn.insert(conn))
    }

    /// Sends one request and reads its response within `deadline`.
    async fn call(&mut self, req: &Request, deadline: Duration) -> Result<Response, CallError> {
        let body = serde_json::to_vec(req).map_err(|e| CallError::Network(e.into()))?;
        let conn = self.connection().await?;
        let exchange = async {
            conn.send(&body).await?;
            let frame = conn
                .recv()
                .await?
                .ok_or_else(|| WireError::Io(io::ErrorKind::UnexpectedEof.into()))?;
            Ok::<Response, WireError>(serde_json::from_slice(&frame)?)
        };
        let result = match tokio::time::timeout(deadline, exchange).await {
            Ok(r) => r,
            Err(_) => Err(WireError::Timeout(deadline)),
        };
        match result {
            Ok(Response::Error(msg)) => Err(CallError::Network(WireError::Remote(msg))),
            Ok(resp) => Ok(resp),
            Err(e) => {
                // The stream's state is unknown after a failure: start over next time.
                self.conn = None;
                Err(CallError::Network(e))
            }
        }
    }
}

impl RaftNetworkV2<TypeConfig> for PeerClient {
    type SnapshotData = SnapshotData;

    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<TypeConfig>, RPCError<TypeConfig>> {
        match self.call(&Request::Append(rpc), option.soft_ttl()).await? {
            Response::Append(r) => Ok(r),
            _ => Err(CallError::Network(WireError::Unexpected("append")).into()),
        }
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<VoteResponse<TypeConfig>, RPCError<TypeConfig>> {
        match self.call(&Request::Vote(rpc), option.soft_ttl()).await? {
            Response::Vote(r) => Ok(r),
            _ => Err(CallError::Network(WireError::Unexpected("vote")).into()),
        }
    }

    async fn pre_vote(
        &mut self,
        rpc: VoteRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<VoteResponse<TypeConfig>, RPCError<TypeConfig>> {
        match self.call(&Request::PreVote(rpc), option.soft_ttl()).await? {
            Response::Vote(r) => Ok(r),
            _ => Err(CallError::Network(WireError::Unexpected("pre-vote")).into()),
        }
    }

    async fn full_snapshot(
        &mut self,
        vote: Vote,
        snapshot: Snapshot,
        cancel: impl Future<Output = ReplicationClosed> + Send + 'static,
        option: RPCOption,
    ) -> Result<SnapshotResponse<TypeConfig>, StreamingError<TypeConfig>> {
        let mut cancel = std::pin::pin!(cancel);
        let mut file = match &snapshot.snapshot.file {
            Some(path) => Some(
                tokio::fs::File::open(path)
                    .await
                    .map_err(|e| CallError::Network(e.into()))?,
            ),
            None => None,
        };
        let has_file = file.is_some();
        let mut offset = 0u64;
        let mut buf = vec![0u8; self.snapshot_chunk_bytes];
        loop {
            let n = match &mut file {
                Some(f) => read_full(f, &mut buf)
                    .await
                    .map_err(|e| CallError::Network(e.into()))?,
                None => 0,
            };
            let done = n < buf.len();
            let req = Request::SnapshotChunk {
                vote,
                meta: snapshot.meta.clone(),
                offset,
                data: Redo(buf[..n].to_vec()),
                has_file,
                done,
                removed: if done {
                    snapshot.snapshot.removed.clone()
                } else {
                    BTreeSet::new()
                },
            };
            // The last chunk's answer waits for the receiver to load the whole snapshot.
            let deadline = if done {
                option.soft_ttl().max(self.snapshot_install_timeout)
            } else {
                option.soft_ttl()
            };
            let resp = tokio::select! {
                closed = &mut cancel => return Err(StreamingError::Closed(closed)),
                r = self.call(&req, deadline) => r?,
            };
            offset += n as u64;
            match (resp, done) {
                (Response::SnapshotChunk, false) => {}
                (Response::Snapshot(r), true) => {
                    self.snapshots_sent.fetch_add(1, Ordering::Relaxed);
                    return Ok(r);
                }
                _ => return Err(CallError::Network(WireError::Unexpected("snapshot")).into()),
            }
        }
    }

    async fn transfer_leader(
        &mut self,
        req: TransferLeaderRequest<TypeConfig>,
        option: RPCOption,
    ) -> Result<TransferLeaderResponse<TypeConfig>, RPCError<TypeConfig>> {
        match self
            .call(&Request::TransferLeader(req), option.soft_ttl())
            .await?
        {
            Response::TransferLeader(r) => Ok(r),
            _ => Err(CallError::Network(WireError::Unexpected("transfer-leader")).into()),
        }
    }
}

/// Fills `buf` unless the file ends first; returns the bytes read.
async fn read_full(f: &mut tokio::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        let n = f.read(&mut buf[got..]).await?;
        if n == 0 {
            break;
        }
        got += n;
    }
    Ok(got)
}

/// What the receiving side of the Raft RPCs shares between its connections.
#[derive(Clone, Debug)]
pub(crate) struct Listening {
    pub raft: Raft,
    pub switch: NetworkSwitch,
    pub snapshots: PathBuf,
    /// Cluster TLS: `None` takes plain connections only.
    pub tls: Option<Arc<PeerTls>>,
    pub refusals: Arc<Refusals>,
}

/// The receiving side of the Raft RPCs: accepts peers on the member's Raft listener until
/// `shutdown` turns true.
pub(crate) async fn serve(
    listener: TcpListener,
    listening: Listening,
    mut shutdown: watch::Receiver<bool>,
) {
    let next_tag = Arc::new(AtomicU64::new(0));
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shutdown.wait_for(|s| *s) => return,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(error = %e, "raft listener accept failed");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let conn = Connection {
            listening: listening.clone(),
            peer,
            tag: next_tag.fetch_add(1, Ordering::Relaxed),
            incoming: None,
            cert: None,
            named: Vec::new(),
        };
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            let opening = Duration::from_millis(RPC_OPENING_TIMEOUT_MS);
            let mut wait = shutdown.clone();
            let opened = tokio::select! {
                o = accept(conn.listening.tls.as_deref(), stream, opening) => o,
                _ = wait.wait_for(|s| *s) => return,
            };
            match opened {
                Ok(link) => conn.run(link, shutdown).await,
                Err(unopened) => conn.refuse_opening(&unopened),
            }
        });
    }
}

/// A snapshot being received on a connection.
struct Incoming {
    path: PathBuf,
    file: tokio::fs::File,
    offset: u64,
}

struct Connection {
    listening: Listening,
    peer: std::net::SocketAddr,
    tag: u64,
    incoming: Option<Incoming>,
    /// The dialer's certificate, with cluster TLS on.
    cert: Option<rustls::pki_types::CertificateDer<'static>>,
    /// Member ids the dialer's certificate was found to name, so each is checked once.
    named: Vec<NodeId>,
}

impl Connection {
    /// Logs and counts a connection closed before it was open. A dialer that went away or
    /// took too long is not counted: that is no attempt at anything.
    fn refuse_opening(&self, unopened: &Unopened) {
        let why = match unopened {
            Unopened::PlainOnTls => Refusal::PlainOnTls,
            Unopened::TlsOnPlain => Refusal::TlsOnPlain,
            Unopened::Handshake(_) => Refusal::Handshake,
            Unopened::Preamble => Refusal::Malformed,
            Unopened::Closed | Unopened::Timeout(_) => {
                tracing::debug!(peer = %self.peer, reason = %unopened, "raft connection closed before it was open");
                return;
            }
        };
        self.refuse(why, &unopened.to_string());
    }

    fn refuse(&self, why: Refusal, reason: &str) {
        self.listening.refusals.count(why);
        tracing::warn!(peer = %self.peer, refusal = why.label(), "raft connection dropped: {reason}");
    }

    /// Whether `req` may be applied: its sender is in this member's membership (any sender,
    /// before this member has one), and is the member the dialer's certificate names.
    fn admit(&mut self, req: &Request) -> Result<(), (Refusal, String)> {
        use openraft::async_runtime::watch::WatchReceiver;
        let sender = req.sender();
        let member = {
            let metrics = self.listening.raft.metrics();
            let m = metrics.borrow_watched();
            let membership = m.membership_config.membership();
            membership.nodes().next().is_none() || membership.get_node(&sender).is_some()
        };
        if !member {
            return Err((
                Refusal::NotMember,
                format!("a request from member {sender}, which is not in this member's membership"),
            ));
        }
        if let Some(cert) = &self.cert
            && !self.named.contains(&sender)
        {
            if !names_member(cert, sender) {
                return Err((
                    Refusal::WrongSender,
                    format!(
                        "a request from member {sender} over a certificate that does not name it"
                    ),
                ));
            }
            self.named.push(sender);
        }
        Ok(())
    }

    async fn run(mut self, mut link: Link, mut shutdown: watch::Receiver<bool>) {
        self.cert = link.peer_cert.take();
        loop {
            let idle = Duration::from_millis(RPC_IDLE_TIMEOUT_MS);
            let frame = tokio::select! {
                f = tokio::time::timeout(idle, link.recv()) => f,
                _ = shutdown.wait_for(|s| *s) => break,
            };
            let body = match frame {
                Ok(Ok(Some(b))) => b,
                Ok(Ok(None)) | Err(_) => break,
                Ok(Err(WireError::FrameTooLarge(n))) => {
                    self.refuse(
                        Refusal::Oversized,
                        &format!("a frame of {n} bytes, over the limit"),
                    );
                    break;
                }
                Ok(Err(e @ WireError::OutOfSequence { .. })) => {
                    self.refuse(Refusal::Replayed, &e.to_string());
                    break;
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "raft connection closed");
                    break;
                }
            };
            if self.listening.switch.is_isolated() {
                self.listening.switch.drop_one();
                break;
            }
            let req = match serde_json::from_slice::<Request>(&body) {
                Ok(req) => req,
                Err(e) => {
                    self.refuse(Refusal::Malformed, &format!("an undecodable request: {e}"));
                    break;
                }
            };
            if let Err((why, reason)) = self.admit(&req) {
                self.refuse(why, &reason);
                break;
            }
            let resp = self.handle(req).await;
            let Ok(out) = serde_json::to_vec(&resp) else {
                break;
            };
            if link.send(&out).await.is_err() {
                break;
            }
        }
        if let Some(inc) = self.incoming.take() {
            drop(inc.file);
            let _ = tokio::fs::remove_file(&inc.path).await;
        }
    }

    async fn handle(&mut self, req: Request) -> Response {
        match req {
            Request::Append(r) => match self.listening.raft.append_entries(r).await {
                Ok(r) => Response::Append(r),
                Err(e) => Response::Error(e.to_string()),
            },
            Request::Vote(r) => match self.listening.raft.vote(r).await {
                Ok(r) => Response::Vote(r),
                Err(e) => Response::Error(e.to_string()),
            },
            Request::PreVote(r) => match self.listening.raft.pre_vote(r).await {
                Ok(r) => Response::Vote(r),
                Err(e) => Response::Error(e.to_string()),
            },
            Request::TransferLeader(r) => match self.listening.raft.handle_transfer_leader(r).await
            {
                Ok(r) => Response::TransferLeader(r),
                Err(e) => Response::Error(e.to_string()),
            },
            Request::Announce { id, node } => {
                match set_node(&self.listening.raft, id, node).await {
                    Ok(()) => Response::Announced,
                    Err(e) => Response::Error(e),
                }
            }
            Request::SnapshotChunk {
                vote,
                meta,
                offset,
                data,
                has_file,
                done,
                removed,
            } => match self
                .chunk(vote, meta, offset, data, (has_file, done), removed)
                .await
            {
                Ok(r) => r,
                Err(e) => Response::Error(e.to_string()),
            },
        }
    }

    async fn chunk(
        &mut self,
        vote: Vote,
        meta: SnapshotMeta,
        offset: u64,
        data: Redo,
        (has_file, done): (bool, bool),
        removed: BTreeSet<NodeId>,
    ) -> Result<Response, WireError> {
        if offset == 0 {
            if let Some(old) = self.incoming.take() {
                drop(old.file);
                let _ = tokio::fs::remove_file(&old.path).await;
            }
            if has_file {
                let path = incoming_path(
                    &self.listening.snapshots,
                    &format!("{}-{}", std::process::id(), self.tag),
                );
                let file = tokio::fs::File::create(&path).await?;
                self.incoming = Some(Incoming {
                    path,
                    file,
                    offset: 0,
                });
            }
        }
        let file = if has_file {
            let inc = self
                .incoming
                .as_mut()
                .ok_or(WireError::Unexpected("snapshot chunk without its start"))?;
            if inc.offset != offset {
                return Err(WireError::Unexpected("snapshot chunk out of order"));
            }
            inc.file.write_all(&data.0).await?;
            inc.offset += data.0.len() as u64;
            if !done {
                return Ok(Response::SnapshotChunk);
            }
            let inc = self.incoming.take().expect("checked above");
            let mut f = inc.file;
            f.flush().await?;
            f.sync_all().await?;
            Some(inc.path)
        } else {
            None
        };
        if !done {
            return Ok(Response::SnapshotChunk);
        }
        let snapshot = Snapshot {
            meta,
            snapshot: SnapshotData { file, removed },
        };
        let resp = self
            .listening
            .raft
            .install_full_snapshot(vote, snapshot)
            .await
            .map_err(|e| WireError::Remote(e.to_string()))?;
        Ok(Response::Snapshot(resp))
    }
}

/// On the leader: records `node` as member `id`'s addresses, when they differ from the
/// membership's.
pub(crate) async fn set_node(raft: &Raft, id: NodeId, node: Node) -> Result<(), String> {
    use openraft::async_runtime::watch::WatchReceiver;
    let known = raft
        .metrics()
        .borrow_watched()
        .membership_config
        .membership()
        .get_node(&id)
        .cloned();
    match known {
        None => Err(format!("member {id} is not in the membership")),
        Some(k) if k == node => Ok(()),
        Some(_) => raft
            .change_membership(
                openraft::ChangeMembers::SetNodes(std::collections::BTreeMap::from([(id, node)])),
                false,
            )
            .await
            .map(|_| ())
            .map_err(|e| e.to_string()),
    }
}

/// Sends this member's addresses to the leader, member `leader` at `leader_addr` (see
/// [`Request::Announce`]).
pub(crate) async fn announce(
    tls: Option<&PeerTls>,
    (leader, leader_addr): (NodeId, &str),
    id: NodeId,
    node: &Node,
    deadline: Duration,
) -> Result<(), WireError> {
    let call = async {
        let mut link = dial(tls, leader, leader_addr, deadline).await?;
        let body = serde_json::to_vec(&Request::Announce {
            id,
            node: node.clone(),
        })?;
        link.send(&body).await?;
        let reply = link
            .recv()
            .await?
            .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof))?;
        match serde_json::from_slice::<Response>(&reply)? {
            Response::Announced => Ok(()),
            Response::Error(e) => Err(WireError::Remote(e)),
            _ => Err(WireError::Unexpected("announce")),
        }
    };
    tokio::time::timeout(deadline, call)
        .await
        .map_err(|_| WireError::Timeout(deadline))?
}
