//! Small response builders shared by the operations endpoints and the server's own errors.

use bytes::Bytes;
use http::header::{CONNECTION, CONTENT_TYPE, HeaderValue, WWW_AUTHENTICATE};
use http::{Response, StatusCode};
use http_body_util::Full;
use quiver_status::Status;

use super::api::{ApiBody, box_body};

pub const JSON: &str = "application/json";
pub const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

pub fn bytes(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<ApiBody> {
    let mut response = Response::new(box_body(Full::new(body.into())));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

pub fn json(status: StatusCode, value: &serde_json::Value) -> Response<ApiBody> {
    bytes(status, JSON, value.to_string())
}

/// A Neo4j-shaped error: `{"errors":[{"code":…,"message":…}]}`.
pub fn neo4j_error(status: StatusCode, code: Status, message: &str) -> Response<ApiBody> {
    json(
        status,
        &serde_json::json!({ "results": [], "errors": [{ "code": code.code(), "message": message }] }),
    )
}

/// 401 with the challenge Neo4j sends, so `curl -u` and browsers know to retry with credentials.
pub fn unauthorized(message: &str) -> Response<ApiBody> {
    let mut response = neo4j_error(StatusCode::UNAUTHORIZED, Status::Unauthorized, message);
    response.headers_mut().insert(
        WWW_AUTHENTICATE,
        HeaderValue::from_static("Basic realm=\"Neo4j\""),
    );
    response
}

/// Marks a response as the connection's last (after an error that left unread bytes behind).
pub fn closing(mut response: Response<ApiBody>) -> Response<ApiBody> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
    response
}
