//! What follows a failure, in every version Quiver speaks: the message that failed gets its
//! FAILURE, everything after it until RESET is IGNORED (DISCARD, PULL, COMMIT, ROLLBACK, RUN,
//! BEGIN alike, as Neo4j's FAILED state does), and RESET brings the session back to READY with
//! no transaction open. Drivers rely on that order: neo4rs pipelines DISCARD behind RUN and
//! reads exactly one reply for each, Python and Java pipeline PULL and then send RESET.
//!
//! The failure may come from RUN itself (a syntax error, a constraint violated while the
//! statement ran) or from the PULL or DISCARD that ran the statement's work (an auto-commit
//! transaction commits, and so can fail, as its result ends), in an auto-commit or an explicit
//! transaction; COMMIT may fail too.

use quiver_bolt::message::{Auth, HelloExtra, TxExtra};
use quiver_bolt::state::{Admitted, Decision, Outcome, Session, State};
use quiver_bolt::{Request, Version};
use quiver_value::Map;

fn hello() -> Request {
    Request::Hello {
        extra: HelloExtra {
            user_agent: "t/1".into(),
            ..HelloExtra::default()
        },
    }
}

fn run() -> Request {
    Request::Run {
        query: "CREATE (:P {k: 1})".into(),
        params: Map::new(),
        extra: TxExtra::default(),
    }
}

fn begin() -> Request {
    Request::Begin {
        extra: TxExtra::default(),
    }
}

fn pull() -> Request {
    Request::Pull { n: -1, qid: -1 }
}

fn discard() -> Request {
    Request::Discard { n: -1, qid: -1 }
}

/// Where the failing statement runs.
#[derive(Clone, Copy, Debug)]
enum Context {
    AutoCommit,
    Explicit,
}

const CONTEXTS: [Context; 2] = [Context::AutoCommit, Context::Explicit];

/// Admits `request`, which must be processed, and completes it with `outcome`.
fn step(s: &mut Session, request: &Request, outcome: Outcome) -> State {
    match s.admit(request) {
        Decision::Process(_) => s.complete(outcome),
        other => panic!(
            "{} in {:?} ({}) was {other:?}",
            request.name(),
            s.state(),
            s.version()
        ),
    }
}

/// A session of `version`, logged in, with an explicit transaction open for [`Context::Explicit`].
fn session(version: Version, context: Context) -> Session {
    let mut s = Session::new(version);
    step(&mut s, &hello(), Outcome::Success);
    if version.has_logon() {
        step(
            &mut s,
            &Request::Logon { auth: Auth::none() },
            Outcome::Success,
        );
    }
    if matches!(context, Context::Explicit) {
        step(&mut s, &begin(), Outcome::Success);
    }
    s
}

/// Every request a driver may have pipelined (or send next) behind the failed one.
fn followers() -> [Request; 6] {
    [
        discard(),
        pull(),
        Request::Commit,
        Request::Rollback,
        run(),
        begin(),
    ]
}

/// In FAILED: each follower is IGNORED and changes nothing; then RESET returns to READY, with
/// the transaction gone, and the next auto-commit RUN is run.
fn assert_ignored_until_reset(mut s: Session, label: &str) {
    let version = s.version();
    assert_eq!(s.state(), State::Failed, "{version} {label}");
    for follower in followers() {
        assert_eq!(
            s.admit(&follower),
            Decision::Ignore,
            "{version} {label}: {} after the failure",
            follower.name()
        );
        assert_eq!(s.state(), State::Failed, "{version} {label}");
    }
    assert_eq!(s.admit(&Request::Reset), Decision::Process(Admitted::Reset));
    assert_eq!(
        s.complete(Outcome::Success),
        State::Ready,
        "{version} {label}"
    );
    assert!(!s.in_transaction(), "{version} {label}: RESET ends it");
    assert!(s.open_streams().is_empty());
    assert_eq!(
        s.admit(&run()),
        Decision::Process(Admitted::Run { qid: None }),
        "{version} {label}: usable after RESET"
    );
}

#[test]
fn a_failed_run_is_followed_by_ignored_until_reset_in_every_version() {
    for version in Version::SUPPORTED {
        for context in CONTEXTS {
            let mut s = session(version, context);
            assert_eq!(step(&mut s, &run(), Outcome::Failure), State::Failed);
            assert_ignored_until_reset(s, &format!("{context:?} RUN failed"));
        }
    }
}

#[test]
fn a_failure_during_discard_or_pull_is_followed_by_ignored_until_reset_in_every_version() {
    for version in Version::SUPPORTED {
        for context in CONTEXTS {
            for (name, consume) in [("DISCARD", discard()), ("PULL", pull())] {
                let mut s = session(version, context);
                assert!(matches!(
                    step(&mut s, &run(), Outcome::Success),
                    State::Streaming | State::TxStreaming
                ));
                assert_eq!(step(&mut s, &consume, Outcome::Failure), State::Failed);
                assert_ignored_until_reset(s, &format!("{context:?} {name} failed"));
            }
        }
    }
}

#[test]
fn a_failure_after_has_more_is_followed_by_ignored_until_reset_in_every_version() {
    for version in Version::SUPPORTED {
        for context in CONTEXTS {
            let mut s = session(version, context);
            step(&mut s, &run(), Outcome::Success);
            assert!(matches!(
                step(&mut s, &pull(), Outcome::HasMore),
                State::Streaming | State::TxStreaming
            ));
            assert_eq!(step(&mut s, &pull(), Outcome::Failure), State::Failed);
            assert_ignored_until_reset(s, &format!("{context:?} second PULL failed"));
        }
    }
}

#[test]
fn a_failed_commit_is_followed_by_ignored_until_reset_in_every_version() {
    for version in Version::SUPPORTED {
        for consumed in [true, false] {
            let mut s = session(version, Context::Explicit);
            step(&mut s, &run(), Outcome::Success);
            if consumed {
                step(&mut s, &discard(), Outcome::Success);
            }
            assert_eq!(
                step(&mut s, &Request::Commit, Outcome::Failure),
                State::Failed
            );
            let label = format!("COMMIT failed (stream consumed first: {consumed})");
            assert_ignored_until_reset(s, &label);
        }
    }
}

#[test]
fn a_reset_pipelined_behind_the_failure_still_answers_everything_between_with_ignored() {
    // RUN, DISCARD and RESET arrive together: the server announces the RESET before it
    // runs RUN. RUN and DISCARD are then IGNORED (RESET interrupts them) and RESET succeeds:
    // one reply per request, in order, and never a wait for a message that is not coming.
    for version in Version::SUPPORTED {
        for context in CONTEXTS {
            let mut s = session(version, context);
            s.interrupt();
            assert_eq!(s.admit(&run()), Decision::Ignore, "{version} {context:?}");
            assert_eq!(
                s.admit(&discard()),
                Decision::Ignore,
                "{version} {context:?}"
            );
            assert_eq!(
                step(&mut s, &Request::Reset, Outcome::Success),
                State::Ready
            );
            assert!(!s.in_transaction());
        }
    }
}

#[test]
fn goodbye_after_a_failure_closes_in_every_version() {
    for version in Version::SUPPORTED {
        let mut s = session(version, Context::AutoCommit);
        step(&mut s, &run(), Outcome::Failure);
        assert_eq!(s.admit(&Request::Goodbye), Decision::Close, "{version}");
        assert!(s.is_defunct());
    }
}
