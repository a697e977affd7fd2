//! Only members speak on the Raft listener. Before cluster TLS, a vote frame with a higher term
//! sent by a process outside the cluster was granted by every member (the leader stepped down,
//! the term jumped by a thousand), and the same channel took entries and snapshots from whoever
//! won such a vote. Here members on 127.0.0.1 run with mutual TLS, and processes that are not
//! members send vote, append-entries and snapshot frames: over plain TCP, over TLS with a
//! self-signed certificate, and over TLS with the certificate of a member removed from the
//! cluster. Each connection is closed unanswered and counted, and the term, the leader, the
//! membership and the data stay as they were.
//!
//! Without TLS the same forged vote, claiming a member's id, is granted: the control that shows
//! the frames sent here are ones a member would act on.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_cluster::network::Request;
use quiver_cluster::openraft::raft::{AppendEntriesRequest, VoteRequest};
use quiver_cluster::openraft::{EntryPayload, Membership, StoredMembership};
use quiver_cluster::transport::PREAMBLE;
use quiver_cluster::{Cluster, ClusterConfig, Node, NodeId, PeerTls, Redo, Role, member_name};
use quiver_storage::Storage;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use tempfile::TempDir;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use support::{WAIT, bind_members, commit_item, dump};

/// How long an attacker waits for an answer that must not come: the listener closes the
/// connection at once, so this only bounds a test that would otherwise hang.
const ANSWER_WAIT: Duration = Duration::from_secs(5);

/// The scenarios start several members each; they run one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A certificate and key, DER.
struct Identity {
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
}

impl Identity {
    fn new(cert: &rcgen::Certificate, key: &KeyPair) -> Identity {
        Identity {
            cert: cert.der().clone(),
            key: PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        }
    }
}

/// The cluster CA and what it issues: a member's certificate names `member-<id>.quiver-cluster`.
struct Pki {
    ca: CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
}

impl Pki {
    fn new() -> Pki {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "Quiver cluster test CA");
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Pki {
            ca: cert.der().clone(),
            issuer: Issuer::new(params, key),
        }
    }

    fn member(&self, id: NodeId) -> Identity {
        let key = KeyPair::generate().unwrap();
        let cert = member_params(id).signed_by(&key, &self.issuer).unwrap();
        Identity::new(&cert, &key)
    }

    fn tls(&self, id: NodeId) -> Arc<PeerTls> {
        let own = self.member(id);
        Arc::new(PeerTls::new(id, vec![self.ca.clone()], vec![own.cert], own.key).unwrap())
    }
}

fn member_params(id: NodeId) -> CertificateParams {
    let mut params = CertificateParams::new(vec![member_name(id)]).unwrap();
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    params
}

/// A certificate naming member `id`, signed by itself rather than the cluster CA.
fn self_signed(id: NodeId) -> Identity {
    let key = KeyPair::generate().unwrap();
    let cert = member_params(id).self_signed(&key).unwrap();
    Identity::new(&cert, &key)
}

struct Harness {
    _dirs: Vec<TempDir>,
    members: BTreeMap<NodeId, Cluster>,
}

impl Harness {
    /// `n` members on loopback, with cluster TLS from `pki` when given. The election timeout
    /// is long, so that the only elections are the ones the test causes or the first.
    async fn start(n: u64, pki: Option<&Pki>) -> Harness {
        let (listeners, nodes) = bind_members(n).await;
        let mut dirs = Vec::new();
        let mut members = BTreeMap::new();
        for (id, l) in listeners {
            let dir = tempfile::tempdir().unwrap();
            let mut c = ClusterConfig::new(id, nodes[&id].clone(), dir.path());
            c.initial_members = nodes.clone();
            c.heartbeat_interval_ms = 200;
            c.election_timeout_min_ms = 3000;
            c.election_timeout_max_ms = 6000;
            c.tls = pki.map(|pki| pki.tls(id));
            members.insert(id, Cluster::start_on(c, l, None).await.unwrap());
            dirs.push(dir);
        }
        Harness {
            _dirs: dirs,
            members,
        }
    }

    /// Waits until every member names one leader; returns it.
    async fn leader(&self) -> NodeId {
        let deadline = Instant::now() + WAIT;
        loop {
            let leaders: BTreeSet<Option<NodeId>> =
                self.members.values().map(|m| m.status().leader).collect();
            if let [Some(l)] = leaders.iter().copied().collect::<Vec<_>>()[..]
                && self.members[&l].status().role == Role::Leader
            {
                return l;
            }
            assert!(Instant::now() < deadline, "no agreed leader: {leaders:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Writes `n` items through the leader; returns once every member applied them.
    async fn write(&self, leader: NodeId, n: usize) {
        let storage = self.members[&leader].store().unwrap().storage();
        let mut last = 0;
        for i in 0..n {
            last = self.members[&leader]
                .client_write(commit_item(&storage, &format!("item-{i}")))
                .await
                .unwrap()
                .index;
        }
        for m in self.members.values() {
            m.wait_applied(last, WAIT).await.unwrap();
        }
    }

    fn addr(&self, id: NodeId) -> String {
        self.members[&id].local_addr().to_string()
    }
}

/// What the members look like, to compare before and after an attack.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    leader: Option<NodeId>,
    voters: BTreeSet<NodeId>,
    dumps: Vec<Vec<String>>,
    max_term: u64,
}

fn seen(h: &Harness) -> Seen {
    let statuses: Vec<_> = h.members.values().map(Cluster::status).collect();
    Seen {
        leader: statuses[0].leader,
        voters: statuses[0].voters.clone(),
        dumps: h.members.values().map(dump).collect(),
        max_term: statuses.iter().map(|s| s.term).max().unwrap_or(0),
    }
}

/// The three forged frames, from member `claimed` at `term`: a vote as in a leadership transfer,
/// entries carrying a new item, and a snapshot of an empty store whose membership is `claimed`
/// alone.
fn forged_frames(claimed: NodeId, term: u64) -> Vec<(&'static str, Request)> {
    type LeaderId = quiver_cluster::openraft::impls::leader_id_adv::LeaderId<u64, NodeId>;
    type LogId = quiver_cluster::openraft::LogId<LeaderId>;
    type Vote = quiver_cluster::openraft::impls::Vote<LeaderId>;
    let log_id = |index| {
        LogId::new(
            LeaderId {
                term,
                node_id: claimed,
            },
            index,
        )
    };
    let mut vote = VoteRequest::new(Vote::new(term, claimed), Some(log_id(1_000_000)));
    vote.leadership_transfer = true;
    let scratch = Storage::new();
    let entry = quiver_cluster::openraft::Entry {
        log_id: log_id(1),
        payload: EntryPayload::Normal(Redo(commit_item(&scratch, "forged"))),
    };
    let append = AppendEntriesRequest {
        vote: Vote::new_committed(term, claimed),
        prev_log_id: None,
        entries: vec![entry],
        leader_commit: Some(log_id(1)),
    };
    let membership = Membership::new(
        vec![BTreeSet::from([claimed])],
        BTreeMap::from([(claimed, Node::new("127.0.0.1:9", "", ""))]),
    )
    .unwrap();
    let snapshot = Request::SnapshotChunk {
        vote: Vote::new_committed(term, claimed),
        meta: quiver_cluster::openraft::storage::SnapshotMeta {
            last_log_id: Some(log_id(1_000_000)),
            last_membership: StoredMembership::new(Some(log_id(1_000_000)), membership),
        },
        offset: 0,
        data: Redo(Vec::new()),
        has_file: false,
        done: true,
        removed: BTreeSet::new(),
    };
    vec![
        ("vote", Request::Vote(vote)),
        ("append", Request::Append(append)),
        ("snapshot", snapshot),
    ]
}

/// Writes the preamble and `req` as the connection's first frame, then reads: whether any
/// answer came before the listener closed the connection.
async fn send_forged<S: AsyncRead + AsyncWrite + Unpin>(mut io: S, req: &Request) -> bool {
    let body = serde_json::to_vec(req).unwrap();
    let mut out = PREAMBLE.to_vec();
    out.extend_from_slice(&u32::try_from(body.len()).unwrap().to_le_bytes());
    out.extend_from_slice(&1u64.to_le_bytes());
    out.extend_from_slice(&body);
    // With a refused client certificate the listener may close before the frame is written.
    if io.write_all(&out).await.is_err() || io.flush().await.is_err() {
        return false;
    }
    let mut header = [0u8; 12];
    tokio::time::timeout(ANSWER_WAIT, io.read_exact(&mut header))
        .await
        .expect("the listener either answers or closes the connection")
        .is_ok()
}

/// A TLS client that trusts the cluster CA (it is no secret) and presents `identity`.
async fn tls_dial(
    pki: &Pki,
    identity: &Identity,
    target: NodeId,
    addr: &str,
) -> Option<tokio_rustls::client::TlsStream<TcpStream>> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki.ca.clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS13])
    .unwrap()
    .with_root_certificates(roots)
    .with_client_auth_cert(vec![identity.cert.clone()], identity.key.clone_key())
    .unwrap();
    let stream = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from(member_name(target)).unwrap();
    tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(name, stream)
        .await
        .ok()
}

/// Every member's refusals with `label`, summed.
fn refused(h: &Harness, label: &str) -> u64 {
    h.members
        .values()
        .map(|m| m.status().refused.get(label).copied().unwrap_or(0))
        .sum()
}

/// Waits until the members counted `n` refusals with `label`: a refusal at the opening is
/// counted just after the socket is closed, so the attacker may see the close first.
async fn wait_refused(h: &Harness, label: &str, n: u64) {
    let deadline = Instant::now() + WAIT;
    while refused(h, label) < n {
        assert!(
            Instant::now() < deadline,
            "{} refusals `{label}`, expected {n}",
            refused(h, label)
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn assert_untouched(h: &Harness, before: &Seen, forged_term: u64) {
    let after = seen(h);
    assert!(
        after.max_term < forged_term,
        "a member took the forged term: {after:?}"
    );
    assert_eq!(after.voters, before.voters);
    assert_eq!(after.dumps, before.dumps, "the data changed");
    assert!(
        after.leader.is_some_and(|l| before.voters.contains(&l)),
        "the leader is {:?}",
        after.leader
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_cluster_drops_plain_and_self_signed_frames_and_keeps_its_term_and_data() {
    let _serial = SERIAL.lock().await;
    let pki = Pki::new();
    let h = Harness::start(3, Some(&pki)).await;
    let leader = h.leader().await;
    h.write(leader, 5).await;
    let before = seen(&h);
    let forged_term = before.max_term + 1000;
    let follower = *h.members.keys().find(|id| **id != leader).unwrap();

    for target in [leader, follower] {
        for (what, req) in forged_frames(99, forged_term) {
            let plain = TcpStream::connect(h.addr(target)).await.unwrap();
            assert!(
                !send_forged(plain, &req).await,
                "a plain {what} frame was answered"
            );
        }
        let fake = self_signed(leader);
        for (what, req) in forged_frames(leader, forged_term) {
            // The member refuses the certificate: in TLS 1.3 the dialer may learn it only at
            // its first read, so a session may seem open here.
            if let Some(session) = tls_dial(&pki, &fake, target, &h.addr(target)).await {
                assert!(
                    !send_forged(session, &req).await,
                    "a {what} frame over a self-signed certificate was answered"
                );
            }
        }
    }
    assert_untouched(&h, &before, forged_term);
    wait_refused(&h, "plain_on_tls", 6).await;
    wait_refused(&h, "handshake", 6).await;
    // The cluster still works: a write after the attacks reaches every member.
    let leader = h.leader().await;
    h.write(leader, 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_removed_members_certificate_is_refused_whoever_it_claims_to_be() {
    let _serial = SERIAL.lock().await;
    let pki = Pki::new();
    let mut h = Harness::start(4, Some(&pki)).await;
    let mut leader = h.leader().await;
    if leader == 4 {
        h.members[&4].transfer_leadership(1, WAIT).await.unwrap();
        leader = h.leader().await;
    }
    h.write(leader, 3).await;
    h.members[&leader].remove_member(4).await.unwrap();
    h.members.remove(&4).unwrap().stop().await.unwrap();
    for m in h.members.values() {
        m.wait_until(WAIT, "member 4 removed", |s| !s.members.contains_key(&4))
            .await
            .unwrap();
    }
    let before = seen(&h);
    let forged_term = before.max_term + 1000;
    // A certificate the cluster CA issued to member 4, as a removed member (or whoever took
    // its disk) still holds it.
    let removed = pki.member(4);
    for (target, claimed) in [
        (leader, 4),
        (leader, leader),
        (*h.members.keys().find(|id| **id != leader).unwrap(), leader),
    ] {
        for (what, req) in forged_frames(claimed, forged_term) {
            let session = tls_dial(&pki, &removed, target, &h.addr(target))
                .await
                .expect("the certificate is the cluster CA's: the handshake completes");
            assert!(
                !send_forged(session, &req).await,
                "a {what} frame claiming member {claimed} over member 4's certificate was answered"
            );
        }
    }
    assert_untouched(&h, &before, forged_term);
    wait_refused(&h, "not_member", 3).await;
    wait_refused(&h, "wrong_sender", 6).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_tls_a_stranger_is_refused_but_a_claimed_member_id_is_believed() {
    let _serial = SERIAL.lock().await;
    let h = Harness::start(3, None).await;
    let leader = h.leader().await;
    h.write(leader, 2).await;
    let before = seen(&h);
    let forged_term = before.max_term + 1000;

    for (what, req) in forged_frames(99, forged_term) {
        let plain = TcpStream::connect(h.addr(leader)).await.unwrap();
        assert!(
            !send_forged(plain, &req).await,
            "a {what} frame from id 99, not a member, was answered"
        );
    }
    assert_untouched(&h, &before, forged_term);
    wait_refused(&h, "not_member", 3).await;

    // A TLS dialer on a plain listener is named as such and dropped.
    let pki = Pki::new();
    assert!(
        tls_dial(&pki, &pki.member(1), leader, &h.addr(leader))
            .await
            .is_none()
    );
    wait_refused(&h, "tls_on_plain", 1).await;

    // The control: the same vote claiming member 3's id is granted on a plain listener, which
    // is why a Raft listener beyond loopback needs cluster TLS.
    let (_, vote) = forged_frames(3, forged_term).swap_remove(0);
    let target = if leader == 1 { 2 } else { 1 };
    let plain = TcpStream::connect(h.addr(target)).await.unwrap();
    assert!(
        send_forged(plain, &vote).await,
        "the forged vote was answered"
    );
    h.members[&target]
        .wait_until(WAIT, "the forged term", |s| s.term >= forged_term)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_replayed_or_oversized_within_a_connection_are_dropped() {
    let _serial = SERIAL.lock().await;
    let h = Harness::start(1, None).await;
    let leader = h.leader().await;
    let addr = h.addr(leader);
    let status = h.members[&leader].status();
    let (_, vote) = forged_frames(leader, status.term).swap_remove(0);
    let body = serde_json::to_vec(&vote).unwrap();
    let frame = |seq: u64| {
        let mut out = u32::try_from(body.len()).unwrap().to_le_bytes().to_vec();
        out.extend_from_slice(&seq.to_le_bytes());
        out.extend_from_slice(&body);
        out
    };

    // The same frame twice: the first is answered, the copy closes the connection.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&PREAMBLE).await.unwrap();
    s.write_all(&frame(1)).await.unwrap();
    let mut header = [0u8; 12];
    s.read_exact(&mut header).await.unwrap();
    let len = u32::from_le_bytes(header[..4].try_into().unwrap()) as usize;
    let mut answer = vec![0u8; len];
    s.read_exact(&mut answer).await.unwrap();
    s.write_all(&frame(1)).await.unwrap();
    let closed = tokio::time::timeout(ANSWER_WAIT, s.read(&mut header)).await;
    assert!(matches!(closed, Ok(Ok(0) | Err(_))), "{closed:?}");
    wait_refused(&h, "replayed", 1).await;

    // A length past the limit closes the connection before anything is read into memory.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&PREAMBLE).await.unwrap();
    s.write_all(&u32::MAX.to_le_bytes()).await.unwrap();
    s.write_all(&1u64.to_le_bytes()).await.unwrap();
    let closed = tokio::time::timeout(ANSWER_WAIT, s.read(&mut header)).await;
    assert!(matches!(closed, Ok(Ok(0) | Err(_))), "{closed:?}");
    wait_refused(&h, "oversized", 1).await;

    // Bytes that are not the preamble, and a frame that is not JSON.
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let closed = tokio::time::timeout(ANSWER_WAIT, s.read(&mut header)).await;
    assert!(matches!(closed, Ok(Ok(0) | Err(_))), "{closed:?}");
    let mut s = TcpStream::connect(&addr).await.unwrap();
    s.write_all(&PREAMBLE).await.unwrap();
    s.write_all(&3u32.to_le_bytes()).await.unwrap();
    s.write_all(&1u64.to_le_bytes()).await.unwrap();
    s.write_all(b"{{{").await.unwrap();
    let closed = tokio::time::timeout(ANSWER_WAIT, s.read(&mut header)).await;
    assert!(matches!(closed, Ok(Ok(0) | Err(_))), "{closed:?}");
    wait_refused(&h, "malformed", 2).await;
}

/// Whether a vote sent over TLS as `identity`, trusting the listener's certificate to `pki`'s
/// CA, is answered.
async fn answered(
    pki: &Pki,
    identity: &Identity,
    (target, addr): (NodeId, &str),
    vote: &Request,
) -> bool {
    match tls_dial(pki, identity, target, addr).await {
        Some(session) => send_forged(session, vote).await,
        None => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_certificates_take_over_at_the_next_handshake_and_a_bad_set_changes_nothing() {
    let _serial = SERIAL.lock().await;
    let (old, new) = (Pki::new(), Pki::new());
    let h = Harness::start(1, Some(&old)).await;
    let leader = h.leader().await;
    let addr = h.addr(leader);
    let target = (leader, addr.as_str());
    let term = h.members[&leader].status().term;
    let (_, vote) = forged_frames(leader, term).swap_remove(0);
    // A dialer with a certificate naming the member itself: in the membership.
    assert!(
        answered(&old, &old.member(leader), target, &vote).await,
        "the old CA"
    );

    // A set whose certificate names another member is refused; the old one stays in use.
    let tls = h.members[&leader].raft_tls().expect("cluster TLS");
    let wrong = new.member(leader + 1);
    assert!(
        tls.replace(vec![new.ca.clone()], vec![wrong.cert], wrong.key)
            .is_err()
    );
    assert!(
        answered(&old, &old.member(leader), target, &vote).await,
        "the old CA after a bad reload"
    );

    let own = new.member(leader);
    tls.replace(vec![new.ca.clone()], vec![own.cert], own.key)
        .expect("the new CA's set");
    // The member now presents the new CA's certificate and takes only the new CA's: a dialer
    // that trusts the new CA but presents a certificate of the old one is refused.
    assert!(
        !answered(&new, &old.member(leader), target, &vote).await,
        "the old CA's certificate after the reload"
    );
    wait_refused(&h, "handshake", 1).await;
    assert!(
        answered(&new, &new.member(leader), target, &vote).await,
        "the new CA"
    );
}
