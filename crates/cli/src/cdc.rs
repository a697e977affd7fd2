//! `quiver cdc`: a running server's change stream as JSON lines on standard output, one per
//! change, for piping into any sink. It calls `db.cdc.query` over the Query API, from
//! `--cursor` (or the earliest change the server's log holds), and with `--follow` keeps
//! polling from the last change it printed. Progress and errors go to standard error, so the
//! output is changes only; the last change's `id` is the cursor to resume from.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use http::{Method, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Map, Value, json};

use crate::client::{Client, Target, error_message};

/// Exit status for a command line that cannot be run (as for a usage error).
const EXIT_USAGE: u8 = 2;
/// How long one poll may take to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(300);
/// Largest answer read for one poll.
const ANSWER_BYTES_MAX: usize = 1 << 30;

#[derive(clap::Args)]
pub struct CdcArgs {
    /// The server's HTTP listener: `host:port`, `http://host:port` or `https://host:port`.
    #[arg(long, value_name = "ADDRESS")]
    from: String,
    /// The change identifier to start after (as `db.cdc.query` returned it); without it, the
    /// earliest change the server's log holds.
    #[arg(long, value_name = "ID")]
    cursor: Option<String>,
    /// A selector, as a JSON object in `db.cdc.query`'s form (`{"select":"n","labels":["Person"]}`);
    /// repeat for several (a change matching any is printed).
    #[arg(long = "selector", value_name = "JSON")]
    selectors: Vec<String>,
    /// Keep polling for new changes until interrupted.
    #[arg(long)]
    follow: bool,
    /// With `--follow`, the pause between polls that found nothing new.
    #[arg(long, default_value_t = 200, value_name = "MS")]
    interval_ms: u64,
    /// The database to read.
    #[arg(long, default_value = "neo4j")]
    database: String,
    /// The user's name.
    #[arg(long, default_value = "neo4j", env = "QUIVER_CDC_USER")]
    user: String,
    /// Their password (better from the environment than on a command line).
    #[arg(long, env = "QUIVER_CDC_PASSWORD", hide_env_values = true)]
    password: Option<String>,
    /// The CA certificate (PEM) an `https://` server's certificate is checked against.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
}

pub fn run_cdc(args: CdcArgs) -> ExitCode {
    let target = match Target::parse(&args.from, args.tls_ca.as_deref()) {
        Ok(target) => target,
        Err(message) => {
            eprintln!("quiver cdc: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let selectors = match parse_selectors(&args.selectors) {
        Ok(selectors) => selectors,
        Err(message) => {
            eprintln!("quiver cdc: {message}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let client = Client::new(target, &args.database, &args.user, args.password.as_deref());
    match stream(&client, &args, &selectors) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("quiver cdc: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The `--selector` arguments, each a JSON object.
fn parse_selectors(texts: &[String]) -> Result<Vec<Value>, String> {
    texts
        .iter()
        .map(|text| match serde_json::from_str::<Value>(text) {
            Ok(value @ Value::Object(_)) => Ok(value),
            Ok(_) => Err(format!("--selector `{text}` is not a JSON object")),
            Err(e) => Err(format!("--selector `{text}` is not JSON: {e}")),
        })
        .collect()
}

/// Prints the changes after the cursor, and with `--follow` keeps printing new ones.
fn stream(client: &Client, args: &CdcArgs, selectors: &[Value]) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the client: {e}"))?;
    let mut cursor = args.cursor.clone().unwrap_or_default();
    let stdout = std::io::stdout();
    loop {
        let changes = poll(client, &runtime, &cursor, selectors)?;
        let mut out = stdout.lock();
        for change in &changes {
            writeln!(out, "{change}").map_err(|e| format!("cannot write a change: {e}"))?;
            if let Some(id) = change.get("id").and_then(Value::as_str) {
                id.clone_into(&mut cursor);
            }
        }
        out.flush()
            .map_err(|e| format!("cannot write a change: {e}"))?;
        drop(out);
        if !args.follow {
            return Ok(());
        }
        if changes.is_empty() {
            std::thread::sleep(Duration::from_millis(args.interval_ms.max(1)));
        }
    }
}

/// One call of `db.cdc.query` through the Query API: its rows as JSON objects.
fn poll(
    client: &Client,
    runtime: &tokio::runtime::Runtime,
    cursor: &str,
    selectors: &[Value],
) -> Result<Vec<Value>, String> {
    let body = json!({
        "statement": "CALL db.cdc.query($from, $selectors) YIELD id, txId, seq, metadata, event \
                      RETURN id, txId, seq, metadata, event",
        "parameters": {"from": cursor, "selectors": selectors},
    });
    let path = format!("/db/{}/query/v2", client.database());
    let (status, _, body) = client.request(
        runtime,
        Method::POST,
        &path,
        Some(body.to_string().into_bytes()),
        ANSWER_TIMEOUT,
    )?;
    if !matches!(status, StatusCode::OK | StatusCode::ACCEPTED) {
        return Err(format!("{status}: {}", error_message(runtime, body)));
    }
    let bytes = runtime
        .block_on(async {
            tokio::time::timeout(
                ANSWER_TIMEOUT,
                http_body_util::Limited::new(body, ANSWER_BYTES_MAX).collect(),
            )
            .await
        })
        .map_err(|_| "the server stalled while answering".to_string())?
        .map_err(|e| format!("the server's answer could not be read: {e}"))?
        .to_bytes();
    rows(&bytes)
}

/// The rows of a Query API answer as objects keyed by its fields; an error it carries (one
/// that came after its first chunk) is returned as the error.
fn rows(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let answer: Value = serde_json::from_slice(bytes)
        .map_err(|e| format!("the server's answer is not JSON: {e}"))?;
    if let Some(error) = answer["errors"].as_array().and_then(|e| e.first()) {
        return Err(format!(
            "{}: {}",
            error["code"].as_str().unwrap_or("error"),
            error["message"].as_str().unwrap_or("")
        ));
    }
    let fields: Vec<&str> = answer["data"]["fields"]
        .as_array()
        .map(|f| f.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let values = answer["data"]["values"]
        .as_array()
        .ok_or("the server's answer holds no rows")?;
    Ok(values
        .iter()
        .filter_map(Value::as_array)
        .map(|row| {
            Value::Object(
                fields
                    .iter()
                    .zip(row)
                    .map(|(f, v)| ((*f).to_owned(), v.clone()))
                    .collect::<Map<String, Value>>(),
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_api_answer_becomes_one_object_per_change() {
        let answer =
            br#"{"data":{"fields":["id","txId"],"values":[["a",1],["b",2]]},"bookmarks":[]}"#;
        let rows = rows(answer).expect("rows");
        assert_eq!(
            rows,
            vec![json!({"id": "a", "txId": 1}), json!({"id": "b", "txId": 2})]
        );
    }

    #[test]
    fn an_error_in_the_answer_is_the_commands_error() {
        let answer = br#"{"data":{"fields":[],"values":[]},"errors":[{"code":"Neo.ClientError.ChangeDataCapture.InvalidIdentifier","message":"no"}]}"#;
        let error = rows(answer).expect_err("an error");
        assert!(error.contains("InvalidIdentifier"), "{error}");
    }

    #[test]
    fn a_selector_must_be_a_json_object() {
        assert!(parse_selectors(&[r#"{"select":"n"}"#.to_owned()]).is_ok());
        assert!(parse_selectors(&["[1]".to_owned()]).is_err());
        assert!(parse_selectors(&["{".to_owned()]).is_err());
    }
}
