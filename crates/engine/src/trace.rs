//! Spans of a traced query's steps (see `quiver_telemetry`): parse, plan, execute, commit.

/// Enters a span named for one of a query's steps, a child of the span the server entered for
/// the query; when the query is not traced nothing is made (a check of the current span).
macro_rules! step_span {
    ($name:literal) => {
        if quiver_telemetry::steps_traced() {
            tracing::info_span!(target: quiver_telemetry::TARGET, $name).entered()
        } else {
            tracing::Span::none().entered()
        }
    };
}
