//! The API as a service: routing, negotiation and the hand-off to the query pool.
//!
//! The async side only routes, checks headers and answers cheap errors; work that touches the
//! engine runs on the query pool, so a long query never stalls the other connections served
//! by the same runtime worker. The exception is a transactional request known to be quick
//! (`quiver_placement`), whose first step runs inline because the hand-off would cost more than
//! it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use http::header::{ACCEPT, ALLOW, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue, LOCATION};
use http::request::Parts;
use http::{Method, Request, Response, StatusCode};

use quiver_engine::{AccessMode, Database, TxOptions};
use quiver_placement::{Placement, QueryPool, TextKey};

use crate::bookmarks;
use crate::config::ApiConfig;
use crate::error::ApiError;
use crate::json;
use crate::negotiate::{self, BodyType, JSON, QueryFormat};
use crate::query_api::{self, QueryJob, QueryTx};
use crate::registry::{OpenLimits, Registry};
use crate::route::{self, Miss, Route, TxEndpoint};
use crate::stream::{self, Produce, ResponseBody};
use crate::tracked::{NoTelemetry, Telemetry};
use crate::tx_api::{self, TxJob};

/// State shared by every request and the expiry task.
/// Finds the API of another database of the server by name: an error (not found, stopped)
/// is answered as it is.
pub type Router = Arc<dyn Fn(&str) -> Result<HttpApi, ApiError> + Send + Sync>;

pub struct ApiState {
    pub db: Arc<Database>,
    /// Set by [`HttpApi::route_others`]: where requests for other databases go.
    pub others: std::sync::OnceLock<Router>,
    pub config: ApiConfig,
    pub registry: Registry,
    pub telemetry: Arc<dyn Telemetry>,
    pub placement: Placement,
    /// Where engine work runs (shared with Bolt when the binary passes its pool in [`Hooks`]).
    pub pool: Arc<QueryPool>,
}

/// What the API reports to, bridged by the binary to the server's metrics. (What it waits on,
/// acknowledgements and bookmarks, is the database's.)
#[derive(Clone)]
pub struct Hooks {
    pub telemetry: Arc<dyn Telemetry>,
    /// The query pool to run engine work on, so that Bolt and HTTP share one set of threads.
    /// `None`: the API starts a pool of its own, a thread per CPU.
    pub pool: Option<Arc<QueryPool>>,
}

impl Default for Hooks {
    fn default() -> Self {
        Hooks {
            telemetry: Arc::new(NoTelemetry),
            pool: None,
        }
    }
}

/// Neo4j's HTTP API over a Quiver database. Cheap to clone; hand it to the server with
/// `ApiHandler::from_service`.
#[derive(Clone)]
pub struct HttpApi {
    shared: Arc<ApiState>,
}

impl std::fmt::Debug for HttpApi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpApi")
            .field("database", &self.shared.config.database_name)
            .field("open_transactions", &self.shared.registry.open())
            .finish_non_exhaustive()
    }
}

/// Longest `Host` header used to build URLs; a longer one is replaced by `localhost`.
const HOST_BYTES_MAX: usize = 255;

impl HttpApi {
    pub fn new(db: Arc<Database>, config: ApiConfig) -> HttpApi {
        HttpApi::with_hooks(db, config, Hooks::default())
    }

    pub fn with_telemetry(
        db: Arc<Database>,
        config: ApiConfig,
        telemetry: Arc<dyn Telemetry>,
    ) -> HttpApi {
        let hooks = Hooks {
            telemetry,
            ..Hooks::default()
        };
        HttpApi::with_hooks(db, config, hooks)
    }

    /// Also starts the task that rolls back idle transactions when called inside a tokio
    /// runtime (otherwise spawn [`HttpApi::expiry_task`] yourself). The task ends when the last
    /// clone of the API is dropped.
    pub fn with_hooks(db: Arc<Database>, config: ApiConfig, hooks: Hooks) -> HttpApi {
        let registry = Registry::new(
            OpenLimits {
                total_max: config.open_transactions_max,
                per_user_max: config.open_transactions_per_user_max,
                per_address_max: config.open_transactions_per_address_max,
            },
            config.transaction_idle_timeout,
        );
        let placement = Placement::new(config.placement);
        let pool = hooks.pool.unwrap_or_else(|| {
            let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
            // As `spawn_blocking` would, fail loudly when the system has no thread left to
            // give: an API that cannot run a query has nothing to serve.
            Arc::new(QueryPool::new(threads).expect("cannot start the query threads"))
        });
        let api = HttpApi {
            shared: Arc::new(ApiState {
                db,
                others: std::sync::OnceLock::new(),
                config,
                placement,
                pool,
                registry,
                telemetry: hooks.telemetry,
            }),
        };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(api.expiry_task());
        }
        api
    }

    /// Open explicit transactions now.
    pub fn open_transactions(&self) -> usize {
        self.shared.registry.open()
    }

    /// Explicit transactions rolled back for idling past their deadline since start.
    pub fn expired_transactions(&self) -> u64 {
        self.shared.registry.expired_total()
    }

    /// Rolls back every transaction past its idle deadline now; returns how many.
    pub fn expire_idle_transactions(&self) -> usize {
        let expired = self.shared.registry.expire(Instant::now());
        let count = expired.len();
        for tx in expired {
            tx.expire_idle();
        }
        count
    }

    /// Rolls back idle transactions as their deadlines pass, until the API is dropped.
    pub fn expiry_task(&self) -> impl Future<Output = ()> + Send + 'static {
        let shared: Weak<ApiState> = Arc::downgrade(&self.shared);
        let tick = (self.shared.config.transaction_idle_timeout / 4)
            .clamp(Duration::from_millis(10), Duration::from_secs(1));
        async move {
            let mut interval = tokio::time::interval(tick);
            interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                interval.tick().await;
                let Some(shared) = shared.upgrade() else {
                    return;
                };
                let expired = shared.registry.expire(Instant::now());
                let rolled_back = (!expired.is_empty()).then(|| {
                    shared.pool.spawn(move || {
                        for tx in expired {
                            tx.expire_idle();
                        }
                    })
                });
                drop(shared);
                if let Some(rolled_back) = rolled_back {
                    let _ = rolled_back.await;
                }
            }
        }
    }

    /// Sends requests for databases other than this API's (`/db/{name}/...`) to the API
    /// `router` finds for them: a server with several databases serves each through an API
    /// of its own, with its own transactions.
    pub fn route_others(&self, router: Router) {
        let _ = self.shared.others.set(router);
    }

    /// This API's database name.
    pub fn database_name(&self) -> &str {
        &self.shared.config.database_name
    }

    /// This API's database.
    pub fn database(&self) -> &Arc<Database> {
        &self.shared.db
    }

    /// Answers one request. Never fails: every error is a Neo4j-shaped response.
    pub async fn handle(&self, request: Request<Bytes>) -> Response<ResponseBody> {
        let (parts, body) = request.into_parts();
        let routed = route::route(&parts.method, parts.uri.path());
        let named = match &routed {
            Ok(Route::Tx {
                database: Some(database),
                ..
            }) => Some(database.as_str()),
            Ok(Route::Query { database } | Route::QueryTx { database, .. }) => {
                Some(database.as_str())
            }
            _ => None,
        };
        if let Some(named) = named.filter(|n| !n.eq_ignore_ascii_case(self.database_name()))
            && let Some(router) = self.shared.others.get()
        {
            let query_api = matches!(routed, Ok(Route::Query { .. } | Route::QueryTx { .. }));
            return match router(named) {
                Ok(other) => Box::pin(other.handle(Request::from_parts(parts, body))).await,
                Err(error) if query_api => query_error(JSON, query_api::status_of(&error), &error),
                Err(error) => tx_error(query_api::status_of(&error), &error),
            };
        }
        match routed {
            Ok(Route::Discovery) => self.discovery(&parts),
            Ok(Route::Tx { database, endpoint }) => self.tx(&parts, database, endpoint, body).await,
            Ok(Route::Query { database }) => self.query(&parts, &database, None, body).await,
            Ok(Route::QueryTx { database, endpoint }) => {
                self.query(&parts, &database, Some(endpoint), body).await
            }
            Err(Miss::BadQueryTransactionId(id)) => query_error(
                JSON,
                StatusCode::NOT_FOUND,
                &ApiError::QueryTransactionNotFound(id),
            ),
            Err(Miss::NotFound) => tx_error(
                StatusCode::NOT_FOUND,
                &ApiError::Invalid(format!("No such endpoint: {}", parts.uri.path())),
            ),
            Err(Miss::BadTransactionId) => {
                tx_error(StatusCode::NOT_FOUND, &ApiError::TransactionNotFound)
            }
            Err(Miss::Method(allow)) => {
                let mut response = tx_error(
                    StatusCode::METHOD_NOT_ALLOWED,
                    &ApiError::Invalid(format!(
                        "{} is not allowed here; use {allow}.",
                        parts.method
                    )),
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static(allow));
                response
            }
        }
    }

    fn discovery(&self, parts: &Parts) -> Response<ResponseBody> {
        let host = host(parts);
        let name = host_name(&host);
        let config = &self.shared.config;
        let bolt = config.bolt_port;
        let (routing, direct) = if config.bolt_tls_required {
            ("neo4j+s", "bolt+s")
        } else {
            ("neo4j", "bolt")
        };
        let http = if config.http_tls_required {
            "https"
        } else {
            "http"
        };
        let mut out = Vec::with_capacity(512);
        let field = |out: &mut Vec<u8>, key: &str, value: &str, first: bool| {
            if !first {
                out.push(b',');
            }
            json::key(out, key);
            json::string(out, value);
        };
        out.push(b'{');
        field(
            &mut out,
            "bolt_routing",
            &format!("{routing}://{name}:{bolt}"),
            true,
        );
        field(
            &mut out,
            "query",
            &format!("{http}://{host}/db/{{databaseName}}/query/v2"),
            false,
        );
        field(
            &mut out,
            "transaction",
            &format!("{http}://{host}/db/{{databaseName}}/tx"),
            false,
        );
        field(
            &mut out,
            "bolt_direct",
            &format!("{direct}://{name}:{bolt}"),
            false,
        );
        field(
            &mut out,
            "neo4j_version",
            &self.shared.config.neo4j_version,
            false,
        );
        field(&mut out, "neo4j_edition", "community", false);
        field(&mut out, "quiver_version", env!("CARGO_PKG_VERSION"), false);
        out.push(b'}');
        json_response(StatusCode::OK, JSON, out)
    }

    async fn tx(
        &self,
        parts: &Parts,
        database: Option<String>,
        endpoint: TxEndpoint,
        body: Bytes,
    ) -> Response<ResponseBody> {
        let headers = &parts.headers;
        if !negotiate::accepts_json(header(parts, ACCEPT)) {
            return tx_error(
                StatusCode::NOT_ACCEPTABLE,
                &ApiError::Invalid(
                    "The transactional endpoint answers application/json only.".to_owned(),
                ),
            );
        }
        if parts.method == Method::POST
            && negotiate::body_type(header(parts, CONTENT_TYPE)) != BodyType::Json
        {
            return tx_error(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                &ApiError::Invalid(
                    "The transactional endpoint reads application/json only.".to_owned(),
                ),
            );
        }
        let legacy = database.is_none();
        let database = database.unwrap_or_else(|| self.shared.config.database_name.clone());
        if database != self.shared.config.database_name {
            return tx_error(StatusCode::NOT_FOUND, &ApiError::DatabaseNotFound(database));
        }
        let base = if legacy {
            format!("http://{}/db/data/transaction", host(parts))
        } else {
            format!("http://{}/db/{database}/tx", host(parts))
        };
        let mut options = TxOptions {
            timeout: self.shared.config.transaction_timeout,
            user: tx_user(parts, self.shared.config.auth_enabled),
            client: parts.extensions.get::<std::net::SocketAddr>().copied(),
            connection: Some("http"),
            ..TxOptions::default()
        };
        let mut bookmarks = Ok(Vec::new());
        if let Some(mode) = headers.get("access-mode") {
            match mode.to_str().map(str::trim) {
                Ok(m) if m.eq_ignore_ascii_case("read") => options.mode = AccessMode::Read,
                Ok(m) if m.eq_ignore_ascii_case("write") => options.mode = AccessMode::Write,
                _ => {
                    bookmarks = Err(ApiError::InvalidFormat(
                        "The access-mode header must be READ or WRITE.".to_owned(),
                    ));
                }
            }
        }
        if let Some(timeout) = headers.get("max-execution-time") {
            match timeout
                .to_str()
                .ok()
                .and_then(|t| t.trim().parse::<u64>().ok())
            {
                Some(ms) if ms > 0 => options.timeout = Some(Duration::from_millis(ms)),
                Some(_) => {}
                None => {
                    bookmarks = Err(ApiError::InvalidFormat(
                        "The max-execution-time header must be a number of milliseconds."
                            .to_owned(),
                    ));
                }
            }
        }
        if let Some(value) = headers.get("bookmarks")
            && bookmarks.is_ok()
        {
            bookmarks = bookmarks::parse_header(value.as_bytes());
        }
        // A request that presents bookmarks may wait for them: never on the connection's task.
        let key = bookmarks
            .as_ref()
            .is_ok_and(Vec::is_empty)
            .then(|| TextKey::of_parts(&[parts.uri.path().as_bytes(), &body]));
        let job = TxJob {
            endpoint,
            base,
            owner: owner(parts),
            peer: parts
                .extensions
                .get::<std::net::SocketAddr>()
                .map(std::net::SocketAddr::ip),
            options,
            bookmarks,
            body,
            caller: self.trace_caller(parts),
        };
        self.respond(tx_api::producer(Arc::clone(&self.shared), job), key)
            .await
    }

    /// The caller's trace context, read from the request's headers only when tracing is on.
    fn trace_caller(&self, parts: &Parts) -> crate::tracked::TraceCaller {
        match self.shared.config.trace {
            Some(_) => crate::tracked::TraceCaller::of(&parts.headers),
            None => crate::tracked::TraceCaller::default(),
        }
    }

    /// The Query API: one statement in an implicit transaction, or (with an `endpoint`) the
    /// explicit transactions under `query/v2/tx`, held by the same registry as the
    /// transactional API's and under the same limits.
    async fn query(
        &self,
        parts: &Parts,
        database: &str,
        endpoint: Option<TxEndpoint>,
        body: Bytes,
    ) -> Response<ResponseBody> {
        let Some(format) = negotiate::query_format(header(parts, ACCEPT)) else {
            return query_error(
                JSON,
                StatusCode::NOT_ACCEPTABLE,
                &ApiError::Invalid(
                    "The Query API answers application/json or application/vnd.neo4j.query."
                        .to_owned(),
                ),
            );
        };
        let content_type = match format {
            QueryFormat::Plain => JSON,
            QueryFormat::Typed => negotiate::TYPED_JSON,
        };
        let typed_parameters = match negotiate::body_type(header(parts, CONTENT_TYPE)) {
            BodyType::Json => false,
            BodyType::Typed => true,
            BodyType::Unsupported => {
                return query_error(
                    content_type,
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    &ApiError::Invalid(
                        "The Query API reads application/json or application/vnd.neo4j.query."
                            .to_owned(),
                    ),
                );
            }
        };
        if database != self.shared.config.database_name {
            let error = ApiError::DatabaseNotFound(database.to_owned());
            return query_error(content_type, StatusCode::NOT_FOUND, &error);
        }
        // The body may carry bookmarks, which may wait: the Query API always uses the pool.
        let explicit = endpoint.map(|endpoint| QueryTx {
            endpoint,
            owner: owner(parts),
            peer: parts
                .extensions
                .get::<std::net::SocketAddr>()
                .map(std::net::SocketAddr::ip),
            affinity: base64::engine::general_purpose::STANDARD.encode(host(parts)),
        });
        let job = QueryJob {
            format,
            typed_parameters,
            body,
            explicit,
            user: tx_user(parts, self.shared.config.auth_enabled),
            client: parts.extensions.get::<std::net::SocketAddr>().copied(),
            caller: self.trace_caller(parts),
        };
        self.respond(query_api::producer(Arc::clone(&self.shared), job), None)
            .await
    }

    /// Runs `producer`'s first step (on the query pool, or inline where the placement policy
    /// puts a request `key`) and answers with what it writes.
    async fn respond(
        &self,
        producer: Box<dyn Produce>,
        key: Option<TextKey>,
    ) -> Response<ResponseBody> {
        let chunk_bytes = self.shared.config.chunk_bytes.max(1);
        let shared = &self.shared;
        let responded = match key {
            Some(key) => {
                stream::respond_placed(producer, chunk_bytes, &shared.pool, &shared.placement, key)
                    .await
            }
            None => stream::respond(producer, chunk_bytes, &shared.pool).await,
        };
        let Some((head, body)) = responded else {
            return tx_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                &ApiError::Invalid("The request failed inside the server.".to_owned()),
            );
        };
        let mut response = Response::new(body);
        *response.status_mut() = head.status;
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(head.content_type));
        if let Some(location) = head.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
            response.headers_mut().insert(LOCATION, location);
        }
        if let Some(affinity) = head.affinity.and_then(|a| HeaderValue::from_str(&a).ok()) {
            response
                .headers_mut()
                .insert(query_api::CLUSTER_AFFINITY, affinity);
        }
        response
    }
}

impl hyper::service::Service<Request<Bytes>> for HttpApi {
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, request: Request<Bytes>) -> Self::Future {
        let api = self.clone();
        Box::pin(async move { Ok(api.handle(request).await) })
    }
}

fn header(parts: &Parts, name: http::header::HeaderName) -> Option<&str> {
    parts.headers.get(name).and_then(|v| v.to_str().ok())
}

/// The `Host` the client addressed, for the URLs the API hands back.
fn host(parts: &Parts) -> String {
    let valid = |h: &&str| {
        !h.is_empty()
            && h.len() <= HOST_BYTES_MAX
            && h.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-:[]_".contains(&b))
    };
    header(parts, HOST)
        .filter(valid)
        .or_else(|| parts.uri.authority().map(http::uri::Authority::as_str))
        .filter(valid)
        .unwrap_or("localhost")
        .to_owned()
}

/// The host without its port (`[::1]` keeps its brackets).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.find(']').map_or(host, |end| &host[..=end]);
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

/// The user transactions run as: the one the server authenticated, when it authenticates
/// (see [`crate::ApiConfig::auth_enabled`]); otherwise none.
fn tx_user(parts: &Parts, auth_enabled: bool) -> Option<Arc<str>> {
    owner(parts).filter(|name| auth_enabled && !name.is_empty())
}

/// Who the request authenticated as. The server checked the credentials before the request
/// got here; the name binds an explicit transaction to the user who began it.
fn owner(parts: &Parts) -> Option<Arc<str>> {
    let value = header(parts, AUTHORIZATION)?;
    let (scheme, payload) = value.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") || payload.len() > 4096 {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(payload.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (name, _) = text.split_once(':')?;
    Some(Arc::from(name))
}

fn json_response(
    status: StatusCode,
    content_type: &'static str,
    body: Vec<u8>,
) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `{"results":[],"errors":[..]}` with `status`.
fn tx_error(status: StatusCode, error: &ApiError) -> Response<ResponseBody> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(br#"{"results":[],"errors":["#);
    tx_api::write_error(&mut out, error);
    out.extend_from_slice(b"]}");
    json_response(status, JSON, out)
}

/// `{"errors":[..]}` with `status`.
fn query_error(
    content_type: &'static str,
    status: StatusCode,
    error: &ApiError,
) -> Response<ResponseBody> {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(br#"{"errors":["#);
    tx_api::write_error(&mut out, error);
    out.extend_from_slice(b"]}");
    json_response(status, content_type, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_drop_the_port() {
        assert_eq!(host_name("localhost:7474"), "localhost");
        assert_eq!(host_name("[::1]:7474"), "[::1]");
        assert_eq!(host_name("example.org"), "example.org");
    }

    #[test]
    fn owners_come_from_basic_credentials() {
        let request = Request::builder()
            .header(AUTHORIZATION, "Basic bmVvNGo6c2VjcmV0")
            .body(())
            .expect("request");
        let (parts, ()) = request.into_parts();
        assert_eq!(owner(&parts).as_deref(), Some("neo4j"));
        let request = Request::builder()
            .header(AUTHORIZATION, "Basic !!")
            .body(())
            .expect("request");
        let (parts, ()) = request.into_parts();
        assert_eq!(owner(&parts), None);
    }
}
