//! The options of a full-text index, read from `CREATE FULLTEXT INDEX ... OPTIONS`.

use quiver_status::Status;
use quiver_value::Value;

use crate::error::{Error, Result};

/// Reads `CREATE FULLTEXT INDEX`'s evaluated `OPTIONS` into the definition: `indexProvider`
/// (`'fulltext-1.0'`, the only one) and `indexConfig` with a known `fulltext.analyzer` and a
/// Boolean `fulltext.eventually_consistent`. Anything else fails as Neo4j's `ArgumentError`
/// naming the option, whether the map was written out or computed from parameters. Null (no
/// `OPTIONS`) keeps the defaults.
pub(crate) fn read_index_options(
    options: &Value,
    spec: &mut quiver_storage::FulltextSpec,
) -> Result<()> {
    let bad = |what: String| {
        Error::runtime(
            Status::ArgumentError,
            Some("InvalidArgumentValue"),
            format!("Could not create full-text index: {what}"),
        )
    };
    let map = match options {
        Value::Null => return Ok(()),
        Value::Map(map) => map,
        other => return Err(bad(format!("OPTIONS must be a map, not {other}"))),
    };
    for (key, value) in map.iter() {
        match (&**key, value) {
            ("indexProvider", Value::String(p)) if &**p == quiver_storage::FULLTEXT_PROVIDER => {}
            ("indexConfig", Value::Map(config)) => {
                for (setting, value) in config.iter() {
                    match (&**setting, value) {
                        ("fulltext.analyzer", Value::String(a))
                            if quiver_storage::is_fulltext_analyzer(a) =>
                        {
                            spec.analyzer = a.to_string();
                        }
                        ("fulltext.eventually_consistent", Value::Bool(b)) => {
                            spec.eventually_consistent = *b;
                        }
                        (setting, value) => {
                            return Err(bad(format!(
                                "invalid index config `{setting}`: {value} (the settings are a \
                                 known `fulltext.analyzer` String and a \
                                 `fulltext.eventually_consistent` Boolean)"
                            )));
                        }
                    }
                }
            }
            (key, value) => return Err(bad(format!("invalid option `{key}`: {value}"))),
        }
    }
    Ok(())
}
