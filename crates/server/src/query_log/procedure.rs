//! `dbms.setConfigValue(setting, value)`: changes, while the server runs, the query log
//! settings Neo4j lets change at run time: `db.logs.query.enabled` (`OFF`, `INFO`,
//! `VERBOSE`), `db.logs.query.threshold` (a duration: `500ms`, `2s`, `1m`) and
//! `db.logs.query.parameter_logging_enabled` (`true`, `false`). An empty value restores the
//! value the server started with. Administrators only; the change lasts until the server stops.

use std::sync::{Arc, Weak};
use std::time::Duration;

use quiver_engine::{
    Database, Error, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Result,
    Setting,
};
use quiver_status::Status;
use quiver_value::Value;

use super::{Mode, QueryLog, QueryLogSettings};

pub const ENABLED: &str = "db.logs.query.enabled";
pub const THRESHOLD: &str = "db.logs.query.threshold";
pub const PARAMETERS: &str = "db.logs.query.parameter_logging_enabled";

/// Registers `dbms.setConfigValue` on `db`, changing `log` (whose start-up settings are
/// `initial`) and what `SHOW SETTINGS` lists of it; without a query log every setting is
/// refused as having nothing to change.
pub fn register(db: &Arc<Database>, log: Option<(Arc<QueryLog>, QueryLogSettings)>) {
    db.register_procedure(Arc::new(SetConfigValue {
        db: Arc::downgrade(db),
        signature: ProcedureSignature {
            name: "dbms.setConfigValue".to_owned(),
            inputs: vec![
                Field::new("setting", FieldType::String),
                Field::new("value", FieldType::String),
            ],
            outputs: Vec::new(),
            writes: false,
        },
        log,
    }));
}

struct SetConfigValue {
    /// Whose settings list shows the change (weak: the database holds this procedure).
    db: Weak<Database>,
    signature: ProcedureSignature,
    log: Option<(Arc<QueryLog>, QueryLogSettings)>,
}

impl Procedure for SetConfigValue {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, cx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        cx.require_admin("dbms.setConfigValue")?;
        let (Some(Value::String(setting)), Some(Value::String(value))) =
            (args.first(), args.get(1))
        else {
            return Err(refused("the setting and its value must be strings"));
        };
        if ![ENABLED, THRESHOLD, PARAMETERS].contains(&setting.as_ref()) {
            return Err(refused(&format!(
                "`{setting}` cannot change while the server runs; these can: {ENABLED}, \
                 {THRESHOLD}, {PARAMETERS}"
            )));
        }
        let Some((log, initial)) = &self.log else {
            return Err(refused(&format!(
                "`{setting}` applies to the query log, which is off (start the server with \
                 --query-log FILE)"
            )));
        };
        apply(log, initial, setting, value.trim()).map_err(|reason| refused(&reason))?;
        if let Some(db) = self.db.upgrade() {
            db.set_settings(listed(&cx.settings(), log));
        }
        tracing::info!(%setting, %value, "setting changed at run time");
        Ok(Vec::new())
    }
}

fn refused(reason: &str) -> Error {
    Error::runtime(
        Status::ArgumentError,
        None,
        format!("dbms.setConfigValue: {reason}"),
    )
}

/// `settings` with the query log's run-time settings at their current values.
fn listed(settings: &[Setting], log: &QueryLog) -> Vec<Setting> {
    let threshold_ms = log.threshold().as_millis();
    settings
        .iter()
        .cloned()
        .map(|mut setting| {
            let value = match setting.name.as_str() {
                ENABLED => log.mode().name().to_owned(),
                THRESHOLD => format!("{threshold_ms}ms"),
                PARAMETERS => log.parameters_on().to_string(),
                _ => return setting,
            };
            setting.explicitly_set = setting.default_value.as_deref() != Some(value.as_str());
            setting.value = Some(value);
            setting
        })
        .collect()
}

/// Sets `setting` to `value` (empty: back to `initial`).
fn apply(
    log: &QueryLog,
    initial: &QueryLogSettings,
    setting: &str,
    value: &str,
) -> std::result::Result<(), String> {
    match setting {
        ENABLED => log.set_mode(if value.is_empty() {
            initial.mode
        } else {
            value.parse::<Mode>()?
        }),
        THRESHOLD => log.set_threshold(if value.is_empty() {
            initial.threshold
        } else {
            parse_duration(value)?
        }),
        _ => log.set_parameters(match value.to_ascii_lowercase().as_str() {
            "" => initial.parameters,
            "true" => true,
            "false" => false,
            other => return Err(format!("`{other}` is not true or false")),
        }),
    }
    Ok(())
}

/// `500ms`, `2s`, `1m`, `1h`: a whole number and its unit.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let bad = || format!("`{text}` is not a duration such as 500ms, 2s, 1m or 1h");
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let ms_per = match unit.trim() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(bad()),
    };
    let ms = n.checked_mul(ms_per).ok_or_else(bad)?;
    Ok(Duration::from_millis(ms))
}

#[cfg(test)]
mod tests {
    use prometheus_client::metrics::counter::Counter;

    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("5").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
    }

    #[test]
    fn each_run_time_setting_changes_the_log_and_an_empty_value_restores_it() {
        let dir = tempfile::tempdir().expect("dir");
        let initial = QueryLogSettings::at(&dir.path().join("query.log"));
        let log = QueryLog::open(&initial, Counter::default()).expect("open");
        apply(&log, &initial, ENABLED, "verbose").expect("mode");
        assert_eq!(log.mode(), Mode::Verbose);
        apply(&log, &initial, THRESHOLD, "750ms").expect("threshold");
        assert_eq!(log.threshold(), Duration::from_millis(750));
        apply(&log, &initial, PARAMETERS, "TRUE").expect("parameters");
        assert!(log.wants_parameters());
        assert!(apply(&log, &initial, PARAMETERS, "yes").is_err());
        assert!(apply(&log, &initial, ENABLED, "loud").is_err());
        apply(&log, &initial, ENABLED, "").expect("reset");
        apply(&log, &initial, THRESHOLD, "").expect("reset");
        apply(&log, &initial, PARAMETERS, "").expect("reset");
        assert_eq!(log.mode(), initial.mode);
        assert_eq!(log.threshold(), initial.threshold);
        assert!(!log.wants_parameters());
    }
}
