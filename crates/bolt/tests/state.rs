//! Every transition of the server state table, driven through `Session`.

use quiver_bolt::message::{Auth, HelloExtra, RouteExtra, TelemetryApi, TxExtra};
use quiver_bolt::state::{Admitted, Decision, Outcome, Session, State};
use quiver_bolt::{Request, Version};
use quiver_status::Status;
use quiver_value::Map;

fn hello() -> Request {
    Request::Hello {
        extra: HelloExtra {
            user_agent: "t/1".into(),
            ..HelloExtra::default()
        },
    }
}
fn logon() -> Request {
    Request::Logon { auth: Auth::none() }
}
fn run() -> Request {
    Request::Run {
        query: "RETURN 1".into(),
        params: Map::new(),
        extra: TxExtra::default(),
    }
}
fn begin() -> Request {
    Request::Begin {
        extra: TxExtra::default(),
    }
}
fn pull(qid: i64) -> Request {
    Request::Pull { n: -1, qid }
}
fn discard(qid: i64) -> Request {
    Request::Discard { n: -1, qid }
}
fn route() -> Request {
    Request::Route {
        routing: Map::new(),
        bookmarks: Vec::new(),
        extra: RouteExtra::default(),
    }
}
fn telemetry() -> Request {
    Request::Telemetry {
        api: TelemetryApi::ExecuteQuery,
    }
}

/// Admits `r`, expects it to be processed, completes it with `outcome`, returns the state.
fn step(s: &mut Session, r: &Request, outcome: Outcome) -> State {
    match s.admit(r) {
        Decision::Process(_) => s.complete(outcome),
        other => panic!("{} in {:?} was {other:?}", r.name(), s.state()),
    }
}

fn ready(version: Version) -> Session {
    let mut s = Session::new(version);
    step(&mut s, &hello(), Outcome::Success);
    if version.has_logon() {
        step(&mut s, &logon(), Outcome::Success);
    }
    assert_eq!(s.state(), State::Ready);
    s
}

fn assert_violation(s: &mut Session, r: &Request) {
    assert!(
        matches!(s.admit(r), Decision::Violation { .. }),
        "{} in {:?}",
        r.name(),
        s.state()
    );
    assert_eq!(s.state(), State::Defunct);
}

#[test]
fn negotiation() {
    let mut s = Session::new(Version::V5_8);
    assert_eq!(
        step(&mut s, &hello(), Outcome::Success),
        State::Authentication
    );
    for v in [Version::V5_0, Version::V4_4] {
        let mut s = Session::new(v);
        assert_eq!(
            step(&mut s, &hello(), Outcome::Success),
            State::Ready,
            "{v}: credentials came with HELLO"
        );
    }
    let mut s = Session::new(Version::V5_8);
    assert_eq!(step(&mut s, &hello(), Outcome::Failure), State::Defunct);
    let mut s = Session::new(Version::V5_8);
    assert_violation(&mut s, &run());
    let mut s = Session::new(Version::V5_8);
    assert_violation(&mut s, &Request::Reset);
}

#[test]
fn authentication() {
    let mut s = Session::new(Version::V5_1);
    step(&mut s, &hello(), Outcome::Success);
    assert_eq!(step(&mut s, &logon(), Outcome::Success), State::Ready);

    let mut s = Session::new(Version::V5_1);
    step(&mut s, &hello(), Outcome::Success);
    assert_eq!(
        step(&mut s, &logon(), Outcome::Failure),
        State::Defunct,
        "a failed LOGON closes"
    );
    assert_eq!(s.admit(&run()), Decision::Close);

    let mut s = Session::new(Version::V5_1);
    step(&mut s, &hello(), Outcome::Success);
    assert_violation(&mut s, &run());

    let mut s = Session::new(Version::V5_1);
    step(&mut s, &hello(), Outcome::Success);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Authentication
    );
}

#[test]
fn ready_state() {
    let v = Version::V5_8;
    let mut s = self::ready(v);
    assert_eq!(
        s.admit(&run()),
        Decision::Process(Admitted::Run { qid: None })
    );
    assert_eq!(s.complete(Outcome::Success), State::Streaming);

    let mut s = self::ready(v);
    assert_eq!(step(&mut s, &begin(), Outcome::Success), State::TxReady);
    assert!(s.in_transaction());

    for r in [route(), telemetry(), Request::Reset] {
        let mut s = self::ready(v);
        assert_eq!(
            step(&mut s, &r, Outcome::Success),
            State::Ready,
            "{}",
            r.name()
        );
    }

    let mut s = self::ready(v);
    assert_eq!(
        step(&mut s, &Request::Logoff, Outcome::Success),
        State::Authentication
    );
    assert_eq!(
        step(&mut s, &logon(), Outcome::Success),
        State::Ready,
        "LOGOFF then LOGON"
    );

    let mut s = self::ready(v);
    assert_eq!(step(&mut s, &run(), Outcome::Failure), State::Failed);
    let mut s = self::ready(v);
    assert_eq!(step(&mut s, &begin(), Outcome::Failure), State::Failed);

    for r in [
        pull(-1),
        discard(-1),
        Request::Commit,
        Request::Rollback,
        hello(),
        logon(),
    ] {
        let mut s = self::ready(v);
        assert_violation(&mut s, &r);
    }
}

#[test]
fn streaming() {
    let mut s = ready(Version::V5_4);
    step(&mut s, &run(), Outcome::Success);
    assert_eq!(
        s.admit(&pull(-1)),
        Decision::Process(Admitted::Pull { qid: None })
    );
    assert_eq!(s.complete(Outcome::HasMore), State::Streaming);
    assert_eq!(step(&mut s, &pull(-1), Outcome::Success), State::Ready);

    let mut s = ready(Version::V5_4);
    step(&mut s, &run(), Outcome::Success);
    assert_eq!(
        s.admit(&discard(-1)),
        Decision::Process(Admitted::Discard { qid: None })
    );
    assert_eq!(s.complete(Outcome::Success), State::Ready);

    let mut s = ready(Version::V5_4);
    step(&mut s, &run(), Outcome::Success);
    assert_eq!(step(&mut s, &pull(-1), Outcome::Failure), State::Failed);

    let mut s = ready(Version::V5_4);
    step(&mut s, &run(), Outcome::Success);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );

    for r in [run(), begin(), Request::Commit] {
        let mut s = ready(Version::V5_4);
        step(&mut s, &run(), Outcome::Success);
        assert_violation(&mut s, &r);
    }
}

#[test]
fn explicit_transactions_track_streams_by_qid() {
    let mut s = ready(Version::V5_8);
    step(&mut s, &begin(), Outcome::Success);
    assert_eq!(
        s.admit(&run()),
        Decision::Process(Admitted::Run { qid: Some(0) })
    );
    assert_eq!(s.complete(Outcome::Success), State::TxStreaming);
    assert_eq!(
        s.admit(&run()),
        Decision::Process(Admitted::Run { qid: Some(1) })
    );
    assert_eq!(s.complete(Outcome::Success), State::TxStreaming);
    assert_eq!(s.open_streams(), [0, 1]);

    // qid -1 is the last RUN's.
    assert_eq!(
        s.admit(&pull(-1)),
        Decision::Process(Admitted::Pull { qid: Some(1) })
    );
    assert_eq!(s.complete(Outcome::HasMore), State::TxStreaming);
    assert_eq!(
        s.admit(&pull(0)),
        Decision::Process(Admitted::Pull { qid: Some(0) })
    );
    assert_eq!(s.complete(Outcome::Success), State::TxStreaming);
    assert_eq!(s.open_streams(), [1]);
    assert_eq!(
        s.admit(&discard(1)),
        Decision::Process(Admitted::Discard { qid: Some(1) })
    );
    assert_eq!(
        s.complete(Outcome::Success),
        State::TxReady,
        "all streams consumed"
    );

    assert_eq!(
        step(&mut s, &Request::Commit, Outcome::Success),
        State::Ready
    );
    assert!(!s.in_transaction());

    // qids restart with each transaction.
    step(&mut s, &begin(), Outcome::Success);
    assert_eq!(
        s.admit(&run()),
        Decision::Process(Admitted::Run { qid: Some(0) })
    );
    s.complete(Outcome::Success);
    assert!(matches!(
        s.admit(&pull(7)),
        Decision::Fail {
            code: Status::RequestInvalid,
            ..
        }
    ));
    assert_eq!(
        s.state(),
        State::Failed,
        "an unknown qid fails the transaction, not the connection"
    );
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );
    assert!(s.open_streams().is_empty());
}

#[test]
fn tx_ready() {
    let v = Version::V5_8;
    let in_tx = || {
        let mut s = ready(v);
        step(&mut s, &begin(), Outcome::Success);
        s
    };
    assert_eq!(
        step(&mut in_tx(), &Request::Rollback, Outcome::Success),
        State::Ready
    );
    assert_eq!(
        step(&mut in_tx(), &Request::Commit, Outcome::Failure),
        State::Failed
    );
    assert_eq!(step(&mut in_tx(), &run(), Outcome::Failure), State::Failed);
    assert_eq!(
        step(&mut in_tx(), &Request::Reset, Outcome::Success),
        State::Ready
    );
    for r in [begin(), pull(-1), route(), telemetry(), Request::Logoff] {
        assert_violation(&mut in_tx(), &r);
    }
    // COMMIT and ROLLBACK close streams still open, as Neo4j's do.
    for end in [Request::Commit, Request::Rollback] {
        let mut s = in_tx();
        step(&mut s, &run(), Outcome::Success);
        assert_eq!(step(&mut s, &end, Outcome::Success), State::Ready);
        assert!(s.open_streams().is_empty());
    }
    let mut s = in_tx();
    step(&mut s, &run(), Outcome::Success);
    assert_violation(&mut s, &begin());
}

#[test]
fn failed_ignores_all_but_reset_and_goodbye() {
    let mut s = ready(Version::V5_8);
    step(&mut s, &run(), Outcome::Failure);
    for r in [
        run(),
        pull(-1),
        discard(-1),
        begin(),
        Request::Commit,
        Request::Rollback,
        route(),
        telemetry(),
        Request::Logoff,
        hello(),
        logon(),
    ] {
        assert_eq!(s.admit(&r), Decision::Ignore, "{}", r.name());
        assert_eq!(s.state(), State::Failed);
    }
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );
    assert_eq!(s.admit(&Request::Goodbye), Decision::Close);
    assert!(s.is_defunct());

    let mut s = ready(Version::V5_8);
    step(&mut s, &run(), Outcome::Failure);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Failure),
        State::Defunct,
        "a failed RESET closes"
    );
}

#[test]
fn reset_jumps_the_queue() {
    // Pipelined RUN, PULL, RUN, PULL, RESET: the server sees the RESET arrive while the
    // first PULL runs.
    let mut s = ready(Version::V5_8);
    step(&mut s, &run(), Outcome::Success);
    assert!(matches!(s.admit(&pull(-1)), Decision::Process(_)));
    s.interrupt();
    assert_eq!(s.state(), State::Interrupted);
    // The interrupted PULL's outcome does not override INTERRUPTED.
    assert_eq!(s.complete(Outcome::Failure), State::Interrupted);
    assert_eq!(s.admit(&run()), Decision::Ignore);
    assert_eq!(s.admit(&pull(-1)), Decision::Ignore);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );

    // Two RESETs in flight: the first leaves the session INTERRUPTED, the second frees it.
    let mut s = ready(Version::V5_8);
    step(&mut s, &begin(), Outcome::Success);
    s.interrupt();
    s.interrupt();
    assert_eq!(s.admit(&run()), Decision::Ignore);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Interrupted
    );
    assert_eq!(s.admit(&run()), Decision::Ignore);
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );
    assert!(!s.in_transaction(), "RESET ends the transaction");

    // GOODBYE still closes while interrupted.
    let mut s = ready(Version::V5_8);
    s.interrupt();
    assert_eq!(s.admit(&Request::Goodbye), Decision::Close);
}

#[test]
fn defunct_only_closes() {
    let mut s = ready(Version::V5_8);
    assert_violation(&mut s, &Request::Commit);
    for r in [run(), Request::Reset, hello()] {
        assert_eq!(s.admit(&r), Decision::Close);
    }
}

#[test]
fn undecodable_messages() {
    use quiver_bolt::Error;
    let bad_field = Error::InvalidField {
        message: "PULL",
        field: "n",
        problem: "is required",
    };
    let mut s = ready(Version::V5_8);
    assert!(matches!(
        s.reject(&bad_field),
        Decision::Fail {
            code: Status::RequestInvalid,
            ..
        }
    ));
    assert_eq!(s.state(), State::Failed);
    assert_eq!(
        s.reject(&bad_field),
        Decision::Ignore,
        "FAILED ignores what follows"
    );
    assert_eq!(
        step(&mut s, &Request::Reset, Outcome::Success),
        State::Ready
    );

    let malformed = Error::ReservedMarker {
        marker: 0xC4,
        offset: 3,
    };
    assert!(malformed.is_fatal());
    assert!(matches!(s.reject(&malformed), Decision::Violation { .. }));
    assert!(s.is_defunct());

    let mut s = Session::new(Version::V5_8);
    assert!(
        matches!(s.reject(&bad_field), Decision::Violation { .. }),
        "a bad HELLO closes"
    );
}
