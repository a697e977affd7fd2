//! The server side of Bolt's state machine, as a pure value.
//!
//! The server asks [`Session::admit`] about each request in arrival order and, after running
//! an admitted one, reports how it ended with [`Session::complete`]. RESET jumps the queue:
//! when the server sees one arrive behind running or queued work it calls
//! [`Session::interrupt`], which cancels nothing by itself but makes every request queued
//! before that RESET come back [`Decision::Ignore`] until the RESET's own turn.
//!
//! | state          | request → next state                                              |
//! |----------------|-------------------------------------------------------------------|
//! | NEGOTIATION    | HELLO → AUTHENTICATION (4.4, 5.0: → READY); failure → DEFUNCT     |
//! | AUTHENTICATION | LOGON → READY; failure → DEFUNCT                                  |
//! | READY          | RUN → STREAMING; BEGIN → TX_READY; ROUTE, TELEMETRY, RESET → READY; LOGOFF → AUTHENTICATION |
//! | STREAMING      | PULL/DISCARD → STREAMING while has_more, else READY               |
//! | TX_READY       | RUN → TX_STREAMING (new qid); COMMIT/ROLLBACK → READY             |
//! | TX_STREAMING   | RUN (another qid); PULL/DISCARD per qid → TX_READY once all are done; COMMIT/ROLLBACK (closing open streams) → READY |
//! | FAILED         | RESET → READY; GOODBYE closes; anything else IGNORED              |
//! | INTERRUPTED    | the same as FAILED                                                |
//!
//! Any other request is a protocol violation: FAILURE `Neo.ClientError.Request.Invalid`,
//! then the connection closes. Any failure of admitted work → FAILED (HELLO, LOGON and RESET
//! failures → DEFUNCT).

use quiver_status::Status;

use crate::message::Request;
use crate::version::Version;

/// Open result streams an explicit transaction may hold at once.
pub const OPEN_STREAMS_MAX: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Negotiation,
    Authentication,
    Ready,
    Streaming,
    TxReady,
    TxStreaming,
    Failed,
    Interrupted,
    Defunct,
}

impl State {
    /// The name Neo4j uses in its messages (`READY`, `TX_STREAMING`, ...).
    pub fn name(self) -> &'static str {
        match self {
            State::Negotiation => "NEGOTIATION",
            State::Authentication => "AUTHENTICATION",
            State::Ready => "READY",
            State::Streaming => "STREAMING",
            State::TxReady => "TX_READY",
            State::TxStreaming => "TX_STREAMING",
            State::Failed => "FAILED",
            State::Interrupted => "INTERRUPTED",
            State::Defunct => "DEFUNCT",
        }
    }
}

/// What to do with a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Run it, then report the outcome with [`Session::complete`].
    Process(Admitted),
    /// Reply IGNORED; nothing changes.
    Ignore,
    /// Reply FAILURE with this code and message; the session is now FAILED (no
    /// [`Session::complete`] call follows).
    Fail { code: Status, message: String },
    /// Reply FAILURE with this code and message, then close. The code is
    /// `Neo.ClientError.Request.Invalid` for a message out of state, or the decode error's
    /// own [`crate::Error::status_code`] when it came from [`Session::reject`].
    Violation { code: Status, message: String },
    /// GOODBYE (or anything after DEFUNCT): close without a reply.
    Close,
}

/// A request the server should run, with what the state machine resolved for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admitted {
    Hello,
    Logon,
    Logoff,
    Telemetry,
    Reset,
    Route,
    /// An auto-commit RUN (`qid: None`) or a RUN inside a transaction, which opens stream `qid`
    /// (report it in RUN's SUCCESS).
    Run {
        qid: Option<i64>,
    },
    Begin,
    Commit,
    Rollback,
    /// PULL or DISCARD of the auto-commit stream (`qid: None`) or of transaction stream `qid`
    /// (a `-1` from the client already resolved to the last RUN's).
    Pull {
        qid: Option<i64>,
    },
    Discard {
        qid: Option<i64>,
    },
}

/// How admitted work ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Success,
    /// A PULL or DISCARD that left records in the stream (`has_more: true`).
    HasMore,
    Failure,
}

/// One connection's protocol state.
#[derive(Clone, Debug)]
pub struct Session {
    version: Version,
    state: State,
    /// RESETs announced by [`Session::interrupt`] whose turn has not come yet.
    pending_resets: u32,
    /// Streams open in the current explicit transaction, oldest first.
    open_streams: Vec<i64>,
    /// The qid the next RUN in a transaction gets.
    next_qid: i64,
    /// The qid of the last RUN in this transaction: what `qid: -1` means.
    last_qid: Option<i64>,
    /// The admitted request whose outcome [`Session::complete`] has yet to report.
    in_flight: Option<Admitted>,
    /// Whether RESET returns to READY (after a successful LOGON) or to AUTHENTICATION.
    authenticated: bool,
}

impl Session {
    /// A session right after the handshake settled on `version`.
    pub fn new(version: Version) -> Self {
        Session {
            version,
            state: State::Negotiation,
            pending_resets: 0,
            open_streams: Vec::new(),
            next_qid: 0,
            last_qid: None,
            in_flight: None,
            authenticated: false,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether an explicit transaction is open (the server rolls it back on RESET or close).
    pub fn in_transaction(&self) -> bool {
        matches!(self.state, State::TxReady | State::TxStreaming)
    }

    /// The qids of streams open in the current transaction.
    pub fn open_streams(&self) -> &[i64] {
        &self.open_streams
    }

    pub fn is_defunct(&self) -> bool {
        self.state == State::Defunct
    }

    /// A RESET has arrived behind other messages: running work should be cancelled by the
    /// server, and everything until that RESET is IGNORED.
    pub fn interrupt(&mut self) {
        if matches!(
            self.state,
            State::Negotiation | State::Authentication | State::Defunct
        ) {
            return;
        }
        self.pending_resets = self.pending_resets.saturating_add(1);
        self.state = State::Interrupted;
    }

    fn violation(&mut self, request: &Request) -> Decision {
        let message = format!(
            "Message {} cannot be handled by a session in the {} state.",
            request.name(),
            self.state.name()
        );
        self.state = State::Defunct;
        Decision::Violation {
            code: Status::RequestInvalid,
            message,
        }
    }

    /// Decides what to do with the next request in arrival order.
    pub fn admit(&mut self, request: &Request) -> Decision {
        debug_assert!(
            self.in_flight.is_none(),
            "complete() must follow every Process decision"
        );
        if self.state == State::Defunct {
            return Decision::Close;
        }
        if matches!(request, Request::Goodbye) {
            self.state = State::Defunct;
            return Decision::Close;
        }
        if self.pending_resets > 0 && !matches!(request, Request::Reset) {
            return Decision::Ignore;
        }
        let admitted = match (self.state, request) {
            (State::Negotiation, Request::Hello { .. }) => Admitted::Hello,
            (State::Authentication, Request::Logon { .. }) => Admitted::Logon,
            (State::Authentication, Request::Reset) => Admitted::Reset,
            (State::Failed | State::Interrupted, Request::Reset) => Admitted::Reset,
            (State::Failed | State::Interrupted, _) => return Decision::Ignore,
            (
                State::Ready | State::Streaming | State::TxReady | State::TxStreaming,
                Request::Reset,
            ) => Admitted::Reset,
            (State::Ready, Request::Run { .. }) => Admitted::Run { qid: None },
            (State::Ready, Request::Begin { .. }) => Admitted::Begin,
            (State::Ready, Request::Route { .. }) => Admitted::Route,
            (State::Ready, Request::Telemetry { .. }) => Admitted::Telemetry,
            (State::Ready, Request::Logoff) => Admitted::Logoff,
            (State::Streaming, Request::Pull { .. }) => Admitted::Pull { qid: None },
            (State::Streaming, Request::Discard { .. }) => Admitted::Discard { qid: None },
            (State::TxReady | State::TxStreaming, Request::Run { .. }) => {
                if self.open_streams.len() >= OPEN_STREAMS_MAX {
                    self.state = State::Failed;
                    return Decision::Fail {
                        code: Status::RequestInvalid,
                        message: format!(
                            "A transaction may hold at most {OPEN_STREAMS_MAX} open results."
                        ),
                    };
                }
                Admitted::Run {
                    qid: Some(self.next_qid),
                }
            }
            // Neo4j also accepts these with streams still open (they close them), and drivers
            // pipeline ROLLBACK behind unconsumed results when a transaction is abandoned.
            (State::TxReady | State::TxStreaming, Request::Commit) => Admitted::Commit,
            (State::TxReady | State::TxStreaming, Request::Rollback) => Admitted::Rollback,
            (State::TxStreaming, Request::Pull { qid, .. } | Request::Discard { qid, .. }) => {
                let target = if *qid == -1 {
                    self.last_qid
                } else {
                    Some(*qid)
                };
                match target.filter(|q| self.open_streams.contains(q)) {
                    Some(q) if matches!(request, Request::Pull { .. }) => {
                        Admitted::Pull { qid: Some(q) }
                    }
                    Some(q) => Admitted::Discard { qid: Some(q) },
                    None => {
                        self.state = State::Failed;
                        return Decision::Fail {
                            code: Status::RequestInvalid,
                            message: format!("No open result with qid {qid} in this transaction."),
                        };
                    }
                }
            }
            _ => return self.violation(request),
        };
        self.in_flight = Some(admitted);
        Decision::Process(admitted)
    }

    /// Decides what to do with a message that failed to decode. Fatal errors close the
    /// connection after a FAILURE; others fail the request like a failed query would, or are
    /// IGNORED where any request would be. Before authentication every error closes.
    pub fn reject(&mut self, error: &crate::error::Error) -> Decision {
        if self.state == State::Defunct {
            return Decision::Close;
        }
        if error.is_fatal() || matches!(self.state, State::Negotiation | State::Authentication) {
            self.state = State::Defunct;
            return Decision::Violation {
                code: error.status_code(),
                message: error.to_string(),
            };
        }
        if self.pending_resets > 0 || matches!(self.state, State::Failed | State::Interrupted) {
            return Decision::Ignore;
        }
        self.state = State::Failed;
        self.end_transaction_streams_on_failure();
        Decision::Fail {
            code: error.status_code(),
            message: error.to_string(),
        }
    }

    /// Reports how the last admitted request ended and returns the new state.
    pub fn complete(&mut self, outcome: Outcome) -> State {
        let Some(admitted) = self.in_flight.take() else {
            debug_assert!(false, "complete() without an admitted request");
            return self.state;
        };
        if self.state == State::Interrupted && !matches!(admitted, Admitted::Reset) {
            // A RESET arrived while this ran; its turn decides the next state.
            return self.state;
        }
        if outcome == Outcome::Failure {
            self.state = match admitted {
                Admitted::Hello | Admitted::Logon | Admitted::Reset => State::Defunct,
                _ => State::Failed,
            };
            if self.state == State::Failed {
                self.end_transaction_streams_on_failure();
            }
            return self.state;
        }
        let has_more = outcome == Outcome::HasMore;
        self.state = match admitted {
            Admitted::Hello => {
                if self.version.has_logon() {
                    State::Authentication
                } else {
                    self.authenticated = true;
                    State::Ready
                }
            }
            Admitted::Logon => {
                self.authenticated = true;
                State::Ready
            }
            Admitted::Logoff => {
                self.authenticated = false;
                State::Authentication
            }
            Admitted::Reset => {
                self.pending_resets = self.pending_resets.saturating_sub(1);
                self.clear_transaction();
                if self.pending_resets > 0 {
                    State::Interrupted
                } else if self.authenticated {
                    State::Ready
                } else {
                    State::Authentication
                }
            }
            Admitted::Telemetry | Admitted::Route => State::Ready,
            Admitted::Run { qid: None } => State::Streaming,
            Admitted::Run { qid: Some(q) } => {
                self.open_streams.push(q);
                self.last_qid = Some(q);
                self.next_qid += 1;
                State::TxStreaming
            }
            Admitted::Begin => {
                self.clear_transaction();
                State::TxReady
            }
            Admitted::Commit | Admitted::Rollback => {
                self.clear_transaction();
                State::Ready
            }
            Admitted::Pull { qid: None } | Admitted::Discard { qid: None } => {
                if has_more {
                    State::Streaming
                } else {
                    State::Ready
                }
            }
            Admitted::Pull { qid: Some(q) } | Admitted::Discard { qid: Some(q) } => {
                if !has_more {
                    self.open_streams.retain(|s| *s != q);
                }
                if self.open_streams.is_empty() {
                    State::TxReady
                } else {
                    State::TxStreaming
                }
            }
        };
        self.state
    }

    fn clear_transaction(&mut self) {
        self.open_streams.clear();
        self.next_qid = 0;
        self.last_qid = None;
    }

    /// A failure inside a transaction dooms it: the client must RESET, which clears it.
    fn end_transaction_streams_on_failure(&mut self) {
        self.open_streams.clear();
    }
}
