//! The seam where Neo4j's HTTP API (the `quiver-http` crate) plugs into the HTTP listener.
//!
//! The server owns the transport and the HTTP crate owns the API, and the HTTP crate must not depend
//! on the server (lower layers never import higher ones). So the seam is made only of `http`/`hyper`
//! types: the HTTP crate provides any `hyper::service::Service<Request<Bytes>>` (or a closure), and
//! the binary hands it to [`ApiHandler::from_service`] / [`ApiHandler::from_fn`].
//!
//! What the server guarantees before a request reaches the handler:
//! - it is not one of the operations endpoints (`/metrics`, `/health/live`, `/health/ready`,
//!   `/stats`), which the server answers itself, nor one for the web console (`/browser/...`, and
//!   `GET /` from a browser asking for HTML: see [`crate::console`]);
//! - its headers arrived within the header-read deadline, its body within the body-read deadline
//!   and within the body size limit (otherwise the server answered 408 or 413) — the body is
//!   delivered whole, as [`Bytes`];
//! - it is authenticated when authentication is enabled (HTTP Basic against the same users as
//!   Bolt; otherwise the server answered 401), except `GET /` (the discovery document), which is
//!   passed through without credentials;
//! - the server is not draining (otherwise the server answered 503 with
//!   `Neo.TransientError.General.DatabaseUnavailable`);
//! - its extensions hold the peer's `std::net::SocketAddr`.
//!
//! What the handler provides: a response whose body may stream (it is written as it is produced,
//! and the connection counts as busy until the body is finished or dropped).

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt;
use http_body_util::combinators::UnsyncBoxBody;
use hyper::body::Body;

/// The error type of response bodies: a body that fails mid-stream aborts the connection.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
/// A response body, possibly streaming.
pub type ApiBody = UnsyncBoxBody<Bytes, BoxError>;
/// What the handler returns.
pub type ApiFuture = Pin<Box<dyn Future<Output = Response<ApiBody>> + Send>>;

/// The HTTP API, type-erased.
#[derive(Clone)]
pub struct ApiHandler {
    call: Arc<dyn Fn(Request<Bytes>) -> ApiFuture + Send + Sync>,
}

impl std::fmt::Debug for ApiHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiHandler")
    }
}

impl ApiHandler {
    /// Wraps an async function.
    pub fn from_fn<F, Fut, B>(handler: F) -> ApiHandler
    where
        F: Fn(Request<Bytes>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Response<B>> + Send + 'static,
        B: Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        ApiHandler {
            call: Arc::new(move |request| {
                let response = handler(request);
                Box::pin(async move { response.await.map(box_body) })
            }),
        }
    }

    /// Wraps a hyper service that never fails (errors are HTTP responses).
    pub fn from_service<S, B>(service: S) -> ApiHandler
    where
        S: hyper::service::Service<Request<Bytes>, Response = Response<B>, Error = Infallible>
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
        B: Body<Data = Bytes> + Send + 'static,
        B::Error: Into<BoxError>,
    {
        ApiHandler {
            call: Arc::new(move |request| {
                let response = service.call(request);
                Box::pin(async move {
                    match response.await {
                        Ok(response) => response.map(box_body),
                        Err(never) => match never {},
                    }
                })
            }),
        }
    }

    pub(crate) fn call(&self, request: Request<Bytes>) -> ApiFuture {
        (self.call)(request)
    }
}

/// Boxes any body into [`ApiBody`].
pub fn box_body<B>(body: B) -> ApiBody
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    body.map_err(Into::into).boxed_unsync()
}
