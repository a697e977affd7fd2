//! The web console, served by the HTTP listener at `/browser/` and at `/` for browsers.
//!
//! Every file is embedded in the binary, so the console works offline and matches the server it
//! comes with. The libraries (CodeMirror, Cytoscape.js, the JavaScript driver) were bundled once
//! into `console/vendor/` from the pinned `console/package-lock.json`; building the server never
//! needs Node. The console talks to the server as any driver does: Bolt over WebSocket on the
//! Bolt port, and `/stats` and `/metrics` here for the server panel.
//!
//! `GET /` stays the JSON discovery document for drivers and tools (which ask for JSON or for
//! anything); a request whose `Accept` names `text/html` (a browser's address bar) gets the
//! console instead, as Neo4j answers.

use bytes::Bytes;
use http::header::{
    ACCEPT, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, HeaderValue, LOCATION,
    X_CONTENT_TYPE_OPTIONS,
};
use http::{Method, Request, Response, StatusCode};

use http_body_util::Full;

use crate::http_listener::{ApiBody, box_body};

/// Where the console lives.
pub const PREFIX: &str = "/browser/";

/// The page may load only its own files and open WebSockets (to the Bolt port, another origin)
/// and fetch from here; CodeMirror sets styles inline.
const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'";

/// One embedded file.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    bytes: &'static [u8],
}

impl Asset {
    /// The file `bytes`, served at `path` as `content_type`.
    const fn new(path: &'static str, content_type: &'static str, bytes: &'static [u8]) -> Asset {
        Asset {
            path,
            content_type,
            bytes,
        }
    }
}

/// The content type of the console's scripts.
const JAVASCRIPT: &str = "text/javascript; charset=utf-8";

macro_rules! console_file {
    ($file:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../console/",
            $file
        ))
    };
}

const INDEX: Asset = Asset::new(
    "index.html",
    "text/html; charset=utf-8",
    console_file!("src/index.html"),
);

const ASSETS: &[Asset] = &[
    INDEX,
    Asset::new("app.js", JAVASCRIPT, console_file!("src/app.js")),
    Asset::new("cypher.js", JAVASCRIPT, console_file!("src/cypher.js")),
    Asset::new(
        "style.css",
        "text/css; charset=utf-8",
        console_file!("src/style.css"),
    ),
    Asset::new(
        "vendor/libs.js",
        JAVASCRIPT,
        console_file!("vendor/libs.js"),
    ),
];

/// The console's answer to `request`, or `None` when the request is not for it.
pub fn answer<B>(request: &Request<B>) -> Option<Response<ApiBody>> {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        return None;
    }
    let path = request.uri().path();
    if path == "/" {
        return wants_html(request).then(|| serve(&INDEX));
    }
    if path == "/browser" {
        let mut response = Response::new(body(Bytes::new()));
        *response.status_mut() = StatusCode::MOVED_PERMANENTLY;
        response
            .headers_mut()
            .insert(LOCATION, HeaderValue::from_static(PREFIX));
        return Some(response);
    }
    let name = path.strip_prefix(PREFIX)?;
    let name = if name.is_empty() { INDEX.path } else { name };
    Some(match ASSETS.iter().find(|asset| asset.path == name) {
        Some(asset) => serve(asset),
        None => {
            let mut response = Response::new(body(Bytes::from_static(b"Not found.\n")));
            *response.status_mut() = StatusCode::NOT_FOUND;
            response
        }
    })
}

fn body(bytes: Bytes) -> ApiBody {
    box_body(Full::new(bytes))
}

/// A browser navigating asks for HTML first; drivers and tools ask for JSON or anything.
fn wants_html<B>(request: &Request<B>) -> bool {
    request
        .headers()
        .get_all(ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|accept| accept.contains("text/html"))
}

fn serve(asset: &Asset) -> Response<ApiBody> {
    let mut response = Response::new(body(Bytes::from_static(asset.bytes)));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    // Revalidated each time: a server upgraded in place serves its own console at once.
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, accept: Option<&str>) -> Option<Response<ApiBody>> {
        let mut builder = Request::builder().uri(path);
        if let Some(accept) = accept {
            builder = builder.header(ACCEPT, accept);
        }
        answer(&builder.body(()).expect("request"))
    }

    #[test]
    fn the_root_is_the_console_for_browsers_only() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        let page = get("/", Some(browser)).expect("console");
        assert_eq!(page.status(), StatusCode::OK);
        assert_eq!(
            page.headers()[CONTENT_TYPE],
            HeaderValue::from_static("text/html; charset=utf-8")
        );
        assert!(get("/", Some("application/json")).is_none());
        assert!(get("/", Some("*/*")).is_none());
        assert!(get("/", None).is_none());
    }

    #[test]
    fn every_asset_is_served_under_the_prefix() {
        for asset in ASSETS {
            let response = get(&format!("{PREFIX}{}", asset.path), None).expect("asset");
            assert_eq!(response.status(), StatusCode::OK, "{}", asset.path);
            assert!(!asset.bytes.is_empty());
        }
        assert_eq!(
            get("/browser/", None).expect("index").status(),
            StatusCode::OK
        );
        assert_eq!(
            get("/browser", None).expect("redirect").status(),
            StatusCode::MOVED_PERMANENTLY
        );
        assert_eq!(
            get("/browser/nope.js", None).expect("404").status(),
            StatusCode::NOT_FOUND
        );
        assert!(get("/db/neo4j/tx", None).is_none());
    }

    #[test]
    fn the_index_names_only_embedded_files() {
        let index = String::from_utf8_lossy(INDEX.bytes);
        for reference in index
            .split(['"', '\''])
            .filter(|part| part.starts_with(PREFIX))
        {
            let name = reference.trim_start_matches(PREFIX);
            assert!(
                ASSETS.iter().any(|asset| asset.path == name),
                "index.html loads {reference}, which is not embedded"
            );
        }
    }
}
