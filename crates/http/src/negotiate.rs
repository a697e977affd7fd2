//! `Accept` and `Content-Type`: which format a client wants back and sends.

/// The response format of the Query API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryFormat {
    Plain,
    /// `application/vnd.neo4j.query`: values tagged with their Cypher type.
    Typed,
}

pub const JSON: &str = "application/json";
pub const TYPED_JSON: &str = "application/vnd.neo4j.query";

/// Longest `Accept` header considered; real ones are far shorter.
const ACCEPT_BYTES_MAX: usize = 4096;

/// One media range of an `Accept` header, with its quality.
fn ranges(accept: &str) -> impl Iterator<Item = (&str, f32)> {
    accept.split(',').filter_map(|range| {
        let mut parts = range.split(';');
        let media = parts.next()?.trim();
        if media.is_empty() {
            return None;
        }
        let mut quality = 1.0;
        for parameter in parts {
            if let Some((name, value)) = parameter.split_once('=')
                && name.trim().eq_ignore_ascii_case("q")
            {
                quality = value.trim().parse().unwrap_or(0.0);
            }
        }
        Some((media, quality))
    })
}

fn is_json(media: &str) -> bool {
    media.eq_ignore_ascii_case(JSON)
        || media.eq_ignore_ascii_case("application/*")
        || media == "*/*"
        || media == "*"
}

fn is_typed(media: &str) -> bool {
    let lower = media.to_ascii_lowercase();
    lower == TYPED_JSON || lower.starts_with("application/vnd.neo4j.query.v1")
}

/// Whether the transactional API (which writes JSON only) may answer. A missing header
/// accepts anything.
pub fn accepts_json(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return true };
    if accept.len() > ACCEPT_BYTES_MAX {
        return false;
    }
    ranges(accept).any(|(media, q)| q > 0.0 && is_json(media))
}

/// The Query API format the client prefers, or `None` when it accepts neither.
pub fn query_format(accept: Option<&str>) -> Option<QueryFormat> {
    let Some(accept) = accept else {
        return Some(QueryFormat::Plain);
    };
    if accept.len() > ACCEPT_BYTES_MAX {
        return None;
    }
    let mut best: Option<(QueryFormat, f32)> = None;
    for (media, q) in ranges(accept) {
        let format = if is_typed(media) {
            QueryFormat::Typed
        } else if is_json(media) {
            QueryFormat::Plain
        } else {
            continue;
        };
        if q > 0.0 && best.is_none_or(|(_, best_q)| q > best_q) {
            best = Some((format, q));
        }
    }
    best.map(|(format, _)| format)
}

/// What a request body is, from its `Content-Type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyType {
    Json,
    Typed,
    Unsupported,
}

pub fn body_type(content_type: Option<&str>) -> BodyType {
    let Some(content_type) = content_type else {
        return BodyType::Json;
    };
    let media = content_type.split(';').next().unwrap_or("").trim();
    if media.is_empty() || media.eq_ignore_ascii_case(JSON) {
        BodyType::Json
    } else if is_typed(media) {
        BodyType::Typed
    } else {
        BodyType::Unsupported
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transactional_accept() {
        assert!(accepts_json(None));
        assert!(accepts_json(Some("application/json")));
        assert!(accepts_json(Some("application/json;charset=UTF-8")));
        assert!(accepts_json(Some("text/html, */*;q=0.8")));
        assert!(!accepts_json(Some("text/html")));
        assert!(!accepts_json(Some("application/json;q=0")));
        assert!(!accepts_json(Some("application/vnd.neo4j.jolt")));
    }

    #[test]
    fn query_accept_prefers_the_higher_quality() {
        assert_eq!(query_format(None), Some(QueryFormat::Plain));
        assert_eq!(query_format(Some(TYPED_JSON)), Some(QueryFormat::Typed));
        assert_eq!(
            query_format(Some("application/vnd.neo4j.query.v1.1")),
            Some(QueryFormat::Typed)
        );
        assert_eq!(
            query_format(Some("application/json;q=0.5, application/vnd.neo4j.query")),
            Some(QueryFormat::Typed)
        );
        assert_eq!(
            query_format(Some("application/json, application/vnd.neo4j.query;q=0.2")),
            Some(QueryFormat::Plain)
        );
        assert_eq!(query_format(Some("text/plain")), None);
    }

    #[test]
    fn content_types() {
        assert_eq!(body_type(None), BodyType::Json);
        assert_eq!(
            body_type(Some("application/json; charset=utf-8")),
            BodyType::Json
        );
        assert_eq!(
            body_type(Some("application/vnd.neo4j.query")),
            BodyType::Typed
        );
        assert_eq!(body_type(Some("text/plain")), BodyType::Unsupported);
        assert_eq!(
            body_type(Some("application/x-www-form-urlencoded")),
            BodyType::Unsupported
        );
    }
}
