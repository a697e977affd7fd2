//! The per-request path: operations endpoints, then draining, authentication and the body, then the
//! API handler.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http::header::{ALLOW, AUTHORIZATION, CONTENT_LENGTH, HeaderValue};
use http::{Method, Request, Response, StatusCode};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use quiver_status::Status;
use tokio::time::Instant;

use super::api::{ApiBody, ApiHandler, BoxError};
use super::body::{BodyError, collect};
use super::respond;
use super::watch::Activity;
use crate::auth::{Credentials, UserStore};
use crate::health::Health;
use crate::metrics::Metrics;
use crate::shutdown::ShutdownSignal;

/// State shared by every HTTP connection.
#[derive(Debug)]
pub struct HttpShared {
    pub metrics: Arc<Metrics>,
    pub health: Arc<Health>,
    pub users: Arc<UserStore>,
    pub api: Option<ApiHandler>,
    pub body_bytes_max: u64,
    pub body_read: Duration,
    pub shutdown: ShutdownSignal,
    /// On a cluster member: what `/cluster/status` reports.
    pub cluster: Option<Arc<crate::cluster::ClusterView>>,
    /// `/metrics` and `/stats` answer only authenticated requests (when authentication is on):
    /// their counters tell who connects how often, which an operator may not want public.
    pub metrics_auth: bool,
    /// The commit log's durability mode, reported by `/stats` (the console's server panel
    /// shows it).
    pub durability: crate::config::Durability,
    /// The graph served, for `/db/{db}/backup` (none on a server without one).
    pub graph: Option<Arc<crate::graph::Graph>>,
    /// The server's databases, when it keeps several: `/db/{db}/backup` backs up the one named.
    pub databases: Option<Arc<crate::databases::Databases>>,
}

/// Keeps a request counted as in flight (globally and on its connection) until its response body is
/// dropped: whether written to the end, failed, or abandoned with the connection.
struct InFlight {
    activity: Arc<Activity>,
    metrics: Arc<Metrics>,
}

impl InFlight {
    fn start(activity: Arc<Activity>, metrics: Arc<Metrics>) -> InFlight {
        activity.request_started();
        metrics.http.in_flight.inc();
        InFlight { activity, metrics }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.metrics.http.in_flight.dec();
        self.metrics.http_requests.inc();
        self.activity.request_finished();
    }
}

/// A response body carrying its request's [`InFlight`] guard.
struct TrackedBody {
    inner: ApiBody,
    _in_flight: InFlight,
}

impl Body for TrackedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl HttpShared {
    /// Answers one request. Never fails: every error is a response.
    ///
    /// The request is in the service from this call on, before its answer is first polled:
    /// hyper takes a pipelined request from its buffer and reads the socket again before it
    /// polls the answer, and a connection holding a request must not look idle then (it would
    /// be handed over with the request unanswered).
    pub fn handle(
        self: Arc<Self>,
        request: Request<Incoming>,
        peer: SocketAddr,
        activity: Arc<Activity>,
    ) -> impl Future<Output = Response<ApiBody>> + Send {
        let in_flight = InFlight::start(Arc::clone(&activity), Arc::clone(&self.metrics));
        async move {
            let response = self.route(request, peer, &activity).await;
            response.map(|inner| {
                super::api::box_body(TrackedBody {
                    inner,
                    _in_flight: in_flight,
                })
            })
        }
    }

    async fn route(
        &self,
        request: Request<Incoming>,
        peer: SocketAddr,
        activity: &Activity,
    ) -> Response<ApiBody> {
        if let Some(page) = crate::console::answer(&request) {
            return page;
        }
        let operations: Option<fn(&HttpShared) -> Response<ApiBody>> = match request.uri().path() {
            "/metrics" => Some(HttpShared::metrics),
            "/health/live" => Some(HttpShared::live),
            "/health/ready" => Some(HttpShared::ready),
            "/stats" => Some(HttpShared::stats),
            "/cluster/status" => Some(HttpShared::cluster_status),
            _ => None,
        };
        if let Some(name) = backup_database(request.uri().path()) {
            let name = name.to_owned();
            return self.backup(request, &name, peer).await;
        }
        if let Some(tail) = request.uri().path().strip_prefix("/cluster/members")
            && (tail.is_empty() || tail.starts_with('/'))
        {
            let tail = tail.to_owned();
            return self.members(request, &tail, peer, activity).await;
        }
        if let Some(answer) = operations {
            if request.method() != Method::GET && request.method() != Method::HEAD {
                let mut response = respond::neo4j_error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    Status::RequestInvalid,
                    "Only GET and HEAD are allowed here.",
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
                return response;
            }
            let path = request.uri().path();
            if self.metrics_auth
                && (path == "/metrics" || path == "/stats")
                && let Err(refused) = self.authenticate(&request, peer).await
            {
                return refused;
            }
            return answer(self);
        }
        self.api(request, peer, activity).await
    }

    fn metrics(&self) -> Response<ApiBody> {
        respond::bytes(StatusCode::OK, respond::OPENMETRICS, self.metrics.encode())
    }

    /// Liveness needs no state: answering at all is the proof.
    fn live(_: &HttpShared) -> Response<ApiBody> {
        respond::json(StatusCode::OK, &serde_json::json!({ "status": "live" }))
    }

    /// Ready once the server serves and, on a cluster member, once it knows a leader and has
    /// applied what the cluster committed ([`crate::cluster::ClusterView::not_serving`]).
    fn ready(&self) -> Response<ApiBody> {
        let readiness = self.health.get();
        let mut body = serde_json::json!({ "status": readiness.as_str() });
        let held_back = self
            .cluster
            .as_ref()
            .filter(|_| self.health.is_ready())
            .and_then(|view| view.not_serving());
        if let Some(reason) = held_back {
            body["cluster"] = serde_json::Value::from(reason);
        }
        let status = if self.health.is_ready() && held_back.is_none() {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        };
        respond::json(status, &body)
    }

    /// This member's Raft state and its view of the others; 404 outside cluster mode.
    fn cluster_status(&self) -> Response<ApiBody> {
        match &self.cluster {
            Some(view) => respond::json(StatusCode::OK, &view.status_json()),
            None => respond::neo4j_error(
                StatusCode::NOT_FOUND,
                Status::RequestInvalid,
                "This server is not a cluster member.",
            ),
        }
    }

    fn stats(&self) -> Response<ApiBody> {
        let snapshot = self.metrics.snapshot();
        let body = serde_json::json!({
            "readiness": self.health.get().as_str(),
            "durability": self.durability.to_string(),
            "http": snapshot.http,
            "bolt": snapshot.bolt,
            "transactions": snapshot.transactions,
            "auth_failures_total": snapshot.auth_failures_total,
        });
        respond::json(StatusCode::OK, &body)
    }

    /// `POST /cluster/members` and `DELETE /cluster/members/{id}`: membership changes, for
    /// an administrator, on the leader, audited with the client's address (see
    /// `crate::cluster::MemberChange`).
    async fn members(
        &self,
        request: Request<Incoming>,
        tail: &str,
        peer: SocketAddr,
        activity: &Activity,
    ) -> Response<ApiBody> {
        let Some(view) = &self.cluster else {
            return respond::neo4j_error(
                StatusCode::NOT_FOUND,
                Status::RequestInvalid,
                "This server is not a cluster member.",
            );
        };
        // Changing who is in the cluster is an administrator's act, like the procedures of
        // `dbms.cluster`: an authenticated user without the admin role is refused by name.
        let user = match self.authenticate(&request, peer).await {
            Err(refused) => return refused,
            Ok(principal) if !principal.admin => {
                return respond::neo4j_error(
                    StatusCode::FORBIDDEN,
                    Status::Forbidden,
                    "Changing the cluster's membership needs the admin role.",
                );
            }
            Ok(principal) => principal.name,
        };
        let method = request.method().clone();
        let deadline = Instant::now() + self.body_read;
        let body = match collect(request.into_body(), self.body_bytes_max, deadline).await {
            Ok(body) => body,
            Err(error) => return body_error(&error, activity),
        };
        let answer = match crate::cluster::MemberChange::parse(&method, tail, &body) {
            Ok(change) => change.apply(view, (&user, peer.ip())).await,
            Err(reason) => crate::cluster::bad_change(reason),
        };
        respond::json(answer.http, &answer.body)
    }

    /// `GET /db/{db}/backup[?after=N]`: a backup piece, for an administrator (see
    /// [`super::backup`]).
    async fn backup(
        &self,
        request: Request<Incoming>,
        name: &str,
        peer: SocketAddr,
    ) -> Response<ApiBody> {
        if request.method() != Method::GET {
            let mut response = respond::neo4j_error(
                StatusCode::METHOD_NOT_ALLOWED,
                Status::RequestInvalid,
                "Only GET is allowed here.",
            );
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET"));
            return response;
        }
        match self.authenticate(&request, peer).await {
            Err(refused) => return refused,
            Ok(principal) if !principal.admin => {
                return respond::neo4j_error(
                    StatusCode::FORBIDDEN,
                    Status::Forbidden,
                    "Taking a backup needs the admin role.",
                );
            }
            Ok(principal) => {
                tracing::info!(user = %principal.name, %peer, "backup requested");
            }
        }
        let named = match (&self.databases, &self.graph) {
            (Some(databases), _) => databases.get(name).ok(),
            (None, Some(graph)) if name == super::backup::DATABASE_NAME => Some(Arc::clone(graph)),
            (None, _) => None,
        };
        let Some(graph) = named else {
            return respond::neo4j_error(
                StatusCode::NOT_FOUND,
                Status::RequestInvalid,
                &format!("No database named `{name}` online to back up."),
            );
        };
        if graph.cluster().is_some() {
            return respond::neo4j_error(
                StatusCode::NOT_FOUND,
                Status::RequestInvalid,
                "Backups are taken from a single server; a cluster member does not serve them.",
            );
        }
        let wanted = match super::backup::parse_query(request.uri().query()) {
            Ok(wanted) => wanted,
            Err(message) => {
                return respond::neo4j_error(
                    StatusCode::BAD_REQUEST,
                    Status::RequestInvalid,
                    &message,
                );
            }
        };
        super::backup::answer(Arc::clone(graph.database()), wanted).await
    }

    /// Checks the request's credentials when authentication is on; the refusal is the response.
    /// Who the request is from (with authentication off, the anonymous administrator).
    async fn authenticate<B>(
        &self,
        request: &Request<B>,
        peer: SocketAddr,
    ) -> Result<crate::auth::Principal, Response<ApiBody>> {
        if !self.users.is_enabled() {
            return Ok(crate::auth::Principal::anonymous());
        }
        let credentials = match basic_credentials(request) {
            Ok(credentials) => credentials,
            Err(message) => {
                self.metrics.auth_failures.inc();
                return Err(respond::unauthorized(message));
            }
        };
        let missing = credentials == Credentials::None;
        self.users
            .authenticate(peer.ip(), credentials)
            .await
            .map_err(|error| {
                tracing::debug!(%peer, %error, "HTTP authentication failed");
                // An attempt refused unchecked says so (it reveals nothing about the
                // credentials); a checked one keeps the message that does not tell a user from
                // a password.
                let message = match error {
                    _ if missing => "No authentication header supplied.".to_owned(),
                    crate::auth::AuthError::TooManyAttempts => error.to_string(),
                    _ => "Invalid username or password.".to_owned(),
                };
                respond::unauthorized(&message)
            })
    }

    async fn api(
        &self,
        request: Request<Incoming>,
        peer: SocketAddr,
        activity: &Activity,
    ) -> Response<ApiBody> {
        let Some(api) = &self.api else {
            return respond::neo4j_error(
                StatusCode::NOT_FOUND,
                Status::RequestInvalid,
                "No such endpoint.",
            );
        };
        if self.shutdown.is_draining() {
            return respond::closing(respond::neo4j_error(
                StatusCode::SERVICE_UNAVAILABLE,
                Status::DatabaseUnavailable,
                "The server is shutting down.",
            ));
        }
        let discovery = request.method() == Method::GET && request.uri().path() == "/";
        if !discovery && let Err(refused) = self.authenticate(&request, peer).await {
            return refused;
        }
        let declared = request
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.parse::<u64>().ok());
        if declared.is_some_and(|length| length > self.body_bytes_max) {
            return body_error(&BodyError::TooLarge(self.body_bytes_max), activity);
        }
        let (mut parts, body) = request.into_parts();
        let deadline = Instant::now() + self.body_read;
        let body = match collect(body, self.body_bytes_max, deadline).await {
            Ok(body) => body,
            Err(error) => return body_error(&error, activity),
        };
        parts.extensions.insert(peer);
        api.call(Request::from_parts(parts, body)).await
    }
}

fn body_error(error: &BodyError, activity: &Activity) -> Response<ApiBody> {
    let (status, code) = match error {
        BodyError::TooLarge(_) => (StatusCode::PAYLOAD_TOO_LARGE, Status::RequestInvalid),
        BodyError::Deadline => {
            activity.mark_timed_out();
            (StatusCode::REQUEST_TIMEOUT, Status::RequestInvalid)
        }
        BodyError::Client(_) => (StatusCode::BAD_REQUEST, Status::RequestInvalid),
    };
    // The rest of the body is still in flight (or never coming): close rather than read it.
    respond::closing(respond::neo4j_error(status, code, &error.to_string()))
}

/// The database a `/db/{db}/backup` path names.
fn backup_database(path: &str) -> Option<&str> {
    let name = path
        .strip_prefix("/db/")?
        .strip_suffix("/backup")
        .or_else(|| path.strip_prefix("/db/")?.strip_suffix("/backup/"))?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// Longest `Authorization` header decoded; real Basic credentials are far shorter.
const AUTHORIZATION_BYTES_MAX: usize = 4096;

/// Reads HTTP Basic credentials; `Err` carries the message of a malformed header.
fn basic_credentials<B>(request: &Request<B>) -> Result<Credentials, &'static str> {
    let Some(value) = request.headers().get(AUTHORIZATION) else {
        return Ok(Credentials::None);
    };
    if value.len() > AUTHORIZATION_BYTES_MAX {
        return Err("Invalid authentication header.");
    }
    let text = value
        .to_str()
        .map_err(|_| "Invalid authentication header.")?;
    let (scheme, payload) = text.trim().split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("basic") {
        return Ok(Credentials::Other(scheme.to_owned()));
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(payload.trim())
        .map_err(|_| "Invalid authentication header.")?;
    let decoded = String::from_utf8(decoded).map_err(|_| "Invalid authentication header.")?;
    let (principal, password) = decoded
        .split_once(':')
        .ok_or("Invalid authentication header.")?;
    Ok(Credentials::Basic {
        principal: principal.to_owned(),
        password: password.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_authorization(value: &str) -> Request<()> {
        Request::builder()
            .header(AUTHORIZATION, value)
            .body(())
            .expect("valid request")
    }

    #[test]
    fn a_backup_path_names_one_database_and_nothing_else() {
        assert_eq!(backup_database("/db/neo4j/backup"), Some("neo4j"));
        assert_eq!(backup_database("/db/neo4j/backup/"), Some("neo4j"));
        for other in ["/db//backup", "/db/a/b/backup", "/db/neo4j/tx", "/backup"] {
            assert_eq!(backup_database(other), None, "{other}");
        }
    }

    #[test]
    fn basic_header_is_decoded() {
        // "neo4j:pa:ss" — the first colon separates, as RFC 7617 says.
        let request = with_authorization("Basic bmVvNGo6cGE6c3M=");
        assert_eq!(
            basic_credentials(&request),
            Ok(Credentials::Basic {
                principal: "neo4j".to_owned(),
                password: "pa:ss".to_owned()
            })
        );
    }

    #[test]
    fn malformed_headers_are_rejected_without_panicking() {
        for value in ["Basic !!!", "Basic bm8tY29sb24=", "Basic", "Basic /w=="] {
            assert!(
                basic_credentials(&with_authorization(value)).is_err(),
                "{value}"
            );
        }
        assert_eq!(
            basic_credentials(&with_authorization("Bearer abc")),
            Ok(Credentials::Other("Bearer".to_owned()))
        );
        let request = Request::builder().body(()).expect("valid request");
        assert_eq!(basic_credentials(&request), Ok(Credentials::None));
    }
}
