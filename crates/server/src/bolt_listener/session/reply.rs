//! Engine results in Bolt's terms: summaries, statistics, notifications and failures.

use quiver_bolt::meta::{
    Completion, Notification, Plan, PlanProfile, Position, QueryType, Severity, Stats, Summary,
};
use quiver_bolt::{Error, Version};
use quiver_engine::{Counters, PlanDescription, QuerySummary};
use quiver_status::Status;

use super::DATABASE;
use super::tx::Stream;

pub(super) fn query_type(engine: quiver_engine::QueryType) -> QueryType {
    match engine {
        quiver_engine::QueryType::Read => QueryType::Read,
        quiver_engine::QueryType::ReadWrite => QueryType::ReadWrite,
        quiver_engine::QueryType::Write => QueryType::Write,
        quiver_engine::QueryType::Schema => QueryType::Schema,
    }
}

pub(super) fn stats(counters: &Counters) -> Stats {
    Stats {
        nodes_created: counters.nodes_created,
        nodes_deleted: counters.nodes_deleted,
        relationships_created: counters.relationships_created,
        relationships_deleted: counters.relationships_deleted,
        properties_set: counters.properties_set,
        labels_added: counters.labels_added,
        labels_removed: counters.labels_removed,
        indexes_added: counters.indexes_added,
        indexes_removed: counters.indexes_removed,
        constraints_added: counters.constraints_added,
        constraints_removed: counters.constraints_removed,
        system_updates: counters.system_updates,
    }
}

/// Neo4j's notification codes end in `Warning` for warnings; the rest inform.
fn notification(engine: &quiver_engine::Notification) -> Notification {
    let warning = engine.code.ends_with("Warning") || engine.code.contains(".Deprecat");
    let (severity, gql_status, category) = if engine.code.contains("Deprecat") {
        (Severity::Warning, "01N00", "DEPRECATION")
    } else if warning {
        (Severity::Warning, "01N50", "UNRECOGNIZED")
    } else if engine.code.ends_with("CartesianProduct") {
        (Severity::Information, "03N90", "PERFORMANCE")
    } else {
        (Severity::Information, "03N00", "GENERIC")
    };
    Notification {
        code: engine.code.to_owned(),
        title: engine.title.clone(),
        description: engine.description.clone(),
        severity,
        category: category.to_owned(),
        gql_status: gql_status.to_owned(),
        status_description: format!(
            "{}: {}",
            if warning { "warn" } else { "info" },
            engine.description
        ),
        position: None,
    }
}

/// An engine plan in the summary's form; the root carries the planner's arguments.
fn plan(description: &PlanDescription, root: bool) -> Plan {
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    Plan {
        operator_type: description.operator.clone(),
        identifiers: description
            .identifiers
            .iter()
            .map(ToString::to_string)
            .collect(),
        args: description.arguments(root),
        profile: description.profile.map(|p| PlanProfile {
            rows: int(p.rows),
            db_hits: int(p.db_hits),
            time: int(p.time_nanos()),
        }),
        children: description
            .children
            .iter()
            .map(|c| plan(c, false))
            .collect(),
    }
}

/// The final SUCCESS of a stream: `bookmark` only for an auto-commit transaction.
pub(super) fn encode_summary(
    out: &mut bytes::BytesMut,
    version: Version,
    summary: &QuerySummary,
    stream: &Stream,
    bookmark: Option<&str>,
) -> Result<(), Error> {
    let notifications: Vec<Notification> = summary.notifications.iter().map(notification).collect();
    let completion = if !stream.has_columns {
        Completion::OmittedResult
    } else if stream.records > 0 {
        Completion::Success
    } else {
        Completion::NoData
    };
    let plan = summary.plan.as_ref().map(|p| plan(p, true));
    Summary {
        bookmark,
        db: Some(DATABASE),
        t_last_ms: millis(summary.t_last),
        query_type: query_type(summary.query_type),
        stats: stats(&summary.stats),
        notifications: &notifications,
        completion,
        plan: plan.as_ref(),
    }
    .encode(out, version)
}

pub(super) fn millis(duration: std::time::Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// A FAILURE's code, message and (for compile errors) position.
pub(super) fn engine_failure(error: &quiver_engine::Error) -> (Status, String, Option<Position>) {
    let position = match error {
        quiver_engine::Error::Compile(e) => Some(Position {
            offset: i64::from(e.position.offset),
            line: i64::from(e.position.line),
            column: i64::from(e.position.column),
        }),
        _ => None,
    };
    (error.status_code(), error.to_string(), position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_carry_their_position() {
        let db = quiver_engine::Database::open_in_memory(quiver_engine::EngineConfig::default());
        let error = db
            .execute("RETURN 1 +", quiver_value::Map::new())
            .expect_err("a syntax error");
        let (code, message, position) = engine_failure(&error);
        assert_eq!(code, Status::SyntaxError);
        assert!(!message.is_empty());
        let position = position.expect("a position");
        assert_eq!(position.line, 1);
        assert!(position.column >= 1);
    }

    #[test]
    fn counters_keep_their_names() {
        let counters = Counters {
            nodes_created: 2,
            properties_set: 3,
            ..Counters::default()
        };
        let stats = stats(&counters);
        assert_eq!(stats.nodes_created, 2);
        assert_eq!(stats.properties_set, 3);
        assert!(stats.contains_updates());
    }

    #[test]
    fn warnings_and_information_are_told_apart() {
        let warn = notification(&quiver_engine::Notification {
            code: "Neo.ClientNotification.Statement.UnknownLabelWarning",
            title: "unknown label".to_owned(),
            description: "the label does not exist".to_owned(),
        });
        assert_eq!(warn.severity, Severity::Warning);
        let info = notification(&quiver_engine::Notification {
            code: "Neo.ClientNotification.Statement.CartesianProduct",
            title: "cartesian product".to_owned(),
            description: "disconnected patterns".to_owned(),
        });
        assert_eq!(info.severity, Severity::Information);
        assert_eq!(info.category, "PERFORMANCE");
    }
}
