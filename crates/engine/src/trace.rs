//! Spans of a traced query's steps (see `quiver_telemetry`): parse, plan and execute are
//! leaves (`quiver_telemetry::step`); commit and the durable wait are spans others may be
//! traced below (a cluster's Raft round is its commit's child).

/// Enters a span named for one of a query's steps that others may be traced below, a child
/// of the span the server entered for the query; when the query is not traced nothing is made
/// (a read of a thread-local).
macro_rules! step_span {
    ($name:literal) => {
        if quiver_telemetry::steps_traced() {
            tracing::info_span!(target: quiver_telemetry::TARGET, $name).entered()
        } else {
            tracing::Span::none().entered()
        }
    };
}
