use std::collections::HashMap;
use std::io::Write;

use clap::Parser;

use super::*;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    layer: Layer,
}

fn flags(args: &[&str]) -> Layer {
    let mut argv = vec!["quiver"];
    argv.extend_from_slice(args);
    match Cli::try_parse_from(argv) {
        Ok(cli) => cli.layer,
        Err(error) => panic!("flags {args:?} rejected: {error}"),
    }
}

/// [`flags`] from a command line: its words, split at white space.
fn command_line(line: &str) -> Layer {
    flags(&line.split_whitespace().collect::<Vec<_>>())
}

/// Resolves `args` after `--config` naming a file that holds `toml`, over the environment
/// `vars`.
fn resolve_with_file(
    toml: &str,
    args: &[&str],
    vars: &[(&str, &str)],
) -> Result<Config, ConfigError> {
    let file = file(toml);
    let path = file.path().to_str().expect("utf-8 temp path");
    let mut all = vec!["--config", path];
    all.extend_from_slice(args);
    resolve(flags(&all), env(vars))
}

/// Asserts that `error` says `what`.
#[track_caller]
fn assert_mentions(error: &ConfigError, what: &str) {
    assert!(error.to_string().contains(what), "{error}");
}

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn file(text: &str) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().expect("temp file");
    file.write_all(text.as_bytes()).expect("write temp file");
    file
}

#[test]
fn defaults_match_the_documented_values() {
    let config = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(config.bolt_listen, "127.0.0.1:7687".parse().unwrap());
    assert_eq!(config.http_listen, "127.0.0.1:7474".parse().unwrap());
    assert_eq!(
        config.storage,
        StorageMode::Directory(PathBuf::from("./data"))
    );
    assert_eq!(config.durability, Durability::Buffered);
    assert!(!config.auth.enabled);
    assert_eq!(config.limits.bolt_connections_max, 10_000);
    assert_eq!(config.limits.admin_reserved_connections, 4);
    assert_eq!(config.timeouts.handshake, Duration::from_secs(10));
    assert_eq!(config, Config::default());
}

#[test]
fn flag_beats_env_beats_file_beats_default() {
    let toml = "max_connections = 300\nidle_timeout_ms = 111\nhttp_keep_alive_timeout_ms = 222\ndurability = \"sync\"\n";
    let config = resolve_with_file(
        toml,
        &["--max-connections", "100"],
        &[
            ("QUIVER_MAX_CONNECTIONS", "200"),
            ("QUIVER_IDLE_TIMEOUT_MS", "5000"),
        ],
    )
    .expect("valid layers");
    assert_eq!(config.limits.bolt_connections_max, 100, "flag wins");
    assert_eq!(
        config.timeouts.idle,
        Duration::from_secs(5),
        "env beats file"
    );
    assert_eq!(
        config.timeouts.http_keep_alive,
        Duration::from_millis(222),
        "file beats default"
    );
    assert_eq!(config.durability, Durability::Sync);
    assert_eq!(config.timeouts.drain, Duration::from_secs(10), "default");
}

#[test]
fn config_path_may_come_from_the_environment() {
    let toml = file("bolt_listen = \"127.0.0.1:0\"\n");
    let path = toml.path().to_str().expect("utf-8 temp path").to_owned();
    let config = resolve(Layer::default(), env(&[("QUIVER_CONFIG", &path)])).expect("valid");
    assert_eq!(config.bolt_listen.port(), 0);
}

#[test]
fn port_zero_and_ipv6_addresses_are_accepted() {
    let config = resolve(
        command_line("--bolt-listen 127.0.0.1:0 --http-listen [::1]:0"),
        env(&[]),
    )
    .expect("valid");
    assert_eq!(config.bolt_listen.port(), 0);
    assert!(config.http_listen.is_ipv6());
}

#[test]
fn bad_env_value_names_the_variable() {
    let error = resolve(Layer::default(), env(&[("QUIVER_MAX_CONNECTIONS", "lots")]))
        .expect_err("not a number");
    let text = error.to_string();
    assert!(text.contains("QUIVER_MAX_CONNECTIONS=lots"), "{text}");
}

#[test]
fn empty_env_value_is_ignored() {
    let config = resolve(Layer::default(), env(&[("QUIVER_MAX_CONNECTIONS", "")])).expect("valid");
    assert_eq!(config.limits.bolt_connections_max, 10_000);
}

#[test]
fn bad_flag_is_rejected_by_the_parser() {
    let parsed = Cli::try_parse_from(["quiver", "--bolt-listen", "localhost"]);
    assert!(parsed.is_err());
    let parsed = Cli::try_parse_from(["quiver", "--durability", "fast"]);
    let error = parsed.err().expect("unknown durability").to_string();
    assert!(error.contains("buffered, group or sync"), "{error}");
}

#[test]
fn in_memory_flag_overrides_a_data_dir_from_env() {
    let config = resolve(
        flags(&["--in-memory"]),
        env(&[("QUIVER_DATA_DIR", "/srv/q")]),
    )
    .expect("higher layer decides storage");
    assert_eq!(config.storage, StorageMode::InMemory);
    let config = resolve(
        flags(&["--data-dir", "/srv/x"]),
        env(&[("QUIVER_IN_MEMORY", "true")]),
    )
    .expect("higher layer decides storage");
    assert_eq!(
        config.storage,
        StorageMode::Directory(PathBuf::from("/srv/x"))
    );
}

#[test]
fn in_memory_and_data_dir_in_one_layer_conflict() {
    let error =
        resolve(flags(&["--in-memory", "--data-dir", "/srv/q"]), env(&[])).expect_err("conflict");
    assert_mentions(&error, "exclude each other");
}

#[test]
fn reserved_slots_must_leave_room_for_others() {
    let error = resolve(
        command_line("--max-connections 4 --admin-reserved-connections 4"),
        env(&[]),
    )
    .expect_err("no general slots");
    assert_mentions(&error, "admin_reserved_connections");
}

#[test]
fn zero_timeouts_and_huge_limits_are_rejected() {
    assert!(resolve(flags(&["--idle-timeout-ms", "0"]), env(&[])).is_err());
    assert!(resolve(flags(&["--max-connections", "0"]), env(&[])).is_err());
    assert!(resolve(flags(&["--max-connections", "2000000"]), env(&[])).is_err());
    assert!(resolve(flags(&["--http-body-bytes-max", "10"]), env(&[])).is_err());
}

#[test]
fn auth_spec_parses_like_neo4j_auth() {
    let config =
        resolve(Layer::default(), env(&[("QUIVER_AUTH", "neo4j/pass/word")])).expect("valid");
    assert!(config.auth.enabled);
    assert_eq!(config.auth.users.len(), 1);
    assert_eq!(config.auth.users[0].name, "neo4j");
    assert_eq!(config.auth.users[0].password.as_deref(), Some("pass/word"));
    assert!(config.auth.users[0].admin);

    let config = resolve(Layer::default(), env(&[("QUIVER_AUTH", "none")])).expect("valid");
    assert!(!config.auth.enabled);
}

#[test]
fn bad_auth_spec_is_redacted_in_the_error() {
    let error =
        resolve(Layer::default(), env(&[("QUIVER_AUTH", "/secret")])).expect_err("empty user");
    let text = error.to_string();
    assert!(!text.contains("secret"), "{text}");
    assert!(text.contains("QUIVER_AUTH"), "{text}");
}

#[test]
fn auth_debug_output_hides_the_password() {
    let spec: AuthSpec = "admin/hunter22".parse().expect("valid");
    assert!(!format!("{spec:?}").contains("hunter22"));
}

#[test]
fn file_users_enable_auth_and_are_checked() {
    let toml = "[[users]]\nname = \"reader\"\npassword = \"reader-password\"\n\n[[users]]\nname = \"ops\"\npassword_hash = \"$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$OHRvS2w0OkhxIJjk8gE7EeT9Ue9N0dtYtrVXPlGjuOk\"\nadmin = true\n";
    let config = resolve_with_file(toml, &[], &[]).expect("valid users");
    assert!(config.auth.enabled);
    assert_eq!(config.auth.users.len(), 2);

    let error = resolve_with_file(
        "[[users]]\nname = \"x\"\npassword_hash = \"plain\"\n",
        &[],
        &[],
    )
    .expect_err("not PHC");
    assert_mentions(&error, "PHC");

    let toml = "[[users]]\nname = \"x\"\npassword = \"password-a\"\n[[users]]\nname = \"x\"\npassword = \"password-b\"\n";
    let error = resolve_with_file(toml, &[], &[]).expect_err("duplicate");
    assert_mentions(&error, "twice");
}

#[test]
fn unknown_file_keys_and_missing_files_are_reported() {
    let error = resolve_with_file("max_conections = 3\n", &[], &[]).expect_err("typo");
    assert_mentions(&error, "max_conections");

    let error =
        resolve(flags(&["--config", "/nonexistent/quiver.toml"]), env(&[])).expect_err("missing");
    assert!(matches!(error, ConfigError::FileRead { .. }), "{error}");
}

#[test]
fn log_filter_is_validated() {
    assert!(resolve(flags(&["--log", "debug"]), env(&[])).is_ok());
    assert!(resolve(flags(&["--log", "quiver_server=trace,warn"]), env(&[])).is_ok());
    assert!(resolve(flags(&["--log", "=[{"]), env(&[])).is_err());
}

#[test]
fn cluster_settings_come_from_flags_env_and_file() {
    let members = "1=127.0.0.1:7001,2=127.0.0.1:7002,3=127.0.0.1:7003";
    let config = resolve(
        command_line(&format!(
            "--node-id 2 --raft-listen 127.0.0.1:7002 --initial-members {members}"
        )),
        env(&[("QUIVER_ADVERTISED_ADDRESS", "db2.example")]),
    )
    .expect("a cluster member's flags");
    let cluster = config.cluster.expect("cluster mode");
    assert_eq!(cluster.node_id, 2);
    assert_eq!(cluster.initial_members.len(), 3);
    assert_eq!(cluster.initial_members[&3], "127.0.0.1:7003");
    assert_eq!(
        cluster.advertise("0.0.0.0:7687".parse().unwrap()),
        "db2.example:7687"
    );
    assert!(!cluster.reads_on_leader);

    let toml = format!(
        "node_id = 1\nraft_listen = \"127.0.0.1:7001\"\ninitial_members = \"{members}\"\ncluster_reads_on_leader = true\n"
    );
    let config = resolve_with_file(&toml, &[], &[]).expect("from the file");
    let cluster = config.cluster.expect("cluster mode");
    assert_eq!((cluster.node_id, cluster.reads_on_leader), (1, true));
    assert_eq!(
        resolve(Layer::default(), env(&[]))
            .expect("defaults")
            .cluster,
        None
    );
}

#[test]
fn cluster_settings_are_checked() {
    for (args, setting) in [
        (
            "--node-id 1 --initial-members 1=127.0.0.1:7001,2=127.0.0.1:7002",
            "raft_listen",
        ),
        (
            "--node-id 1 --raft-listen 127.0.0.1:7001",
            "initial_members",
        ),
        ("--raft-listen 127.0.0.1:7001", "raft_listen"),
        (
            "--node-id 3 --raft-listen 127.0.0.1:7003 --initial-members 1=127.0.0.1:7001,2=127.0.0.1:7002",
            "initial_members",
        ),
        (
            "--node-id 1 --raft-listen 127.0.0.1:7001 --initial-members 1=127.0.0.1:7001,2=127.0.0.1:7002 --in-memory",
            "in_memory",
        ),
    ] {
        match resolve(command_line(args), env(&[])) {
            Err(ConfigError::Invalid { setting: s, .. }) => assert_eq!(s, setting, "{args:?}"),
            other => panic!("{args:?} gave {other:?}"),
        }
    }
    for bad in [
        "",
        "1",
        "x=127.0.0.1:1",
        "0=127.0.0.1:1",
        "1=nohost",
        "1=a:1,1=b:2",
    ] {
        assert!(bad.parse::<Members>().is_err(), "{bad:?} parsed");
    }
    assert!(resolve(Layer::default(), env(&[("QUIVER_INITIAL_MEMBERS", "1=")])).is_err());
}

#[test]
fn a_joining_member_names_whom_it_joins_and_starts_no_cluster() {
    let joining = "--node-id 4 --raft-listen 127.0.0.1:7004 --join 127.0.0.1:7001";
    let config = resolve(command_line(joining), env(&[])).expect("a joining member's flags");
    let cluster = config.cluster.expect("cluster mode");
    assert_eq!(cluster.join.as_deref(), Some("127.0.0.1:7001"));
    assert!(cluster.initial_members.is_empty());
    assert_eq!(cluster.snapshot_entries, 10_000);
    assert_eq!(cluster.election_timeout_ms, 600);
    assert_eq!(cluster.logs_kept_after_snapshot(), 1000);

    let args = format!("{joining} --raft-snapshot-entries 20");
    let cluster = resolve(command_line(&args), env(&[]))
        .expect("a snapshot interval")
        .cluster
        .expect("cluster mode");
    assert_eq!(
        (cluster.snapshot_entries, cluster.logs_kept_after_snapshot()),
        (20, 2)
    );

    for (args, env_vars, setting) in [
        (
            "--node-id 4 --raft-listen 127.0.0.1:7004 --join nowhere",
            vec![],
            "join",
        ),
        (
            "--node-id 1 --raft-listen 127.0.0.1:7001 --initial-members 1=127.0.0.1:7001,2=127.0.0.1:7002",
            vec![("QUIVER_JOIN", "127.0.0.1:7002")],
            "join",
        ),
        (
            "--node-id 4 --raft-listen 127.0.0.1:7004 --join 127.0.0.1:7001 --raft-snapshot-entries 0",
            vec![],
            "raft_snapshot_entries",
        ),
        (
            "--node-id 1 --raft-listen 127.0.0.1:7001 --initial-members 1=127.0.0.1:7001 --raft-election-timeout-ms 99",
            vec![],
            "raft_election_timeout_ms",
        ),
        (
            "--raft-election-timeout-ms 600",
            vec![],
            "raft_election_timeout_ms",
        ),
        ("--join 127.0.0.1:7001", vec![], "join"),
    ] {
        match resolve(command_line(args), env(&env_vars)) {
            Err(ConfigError::Invalid { setting: s, .. }) => assert_eq!(s, setting, "{args:?}"),
            other => panic!("{args:?} gave {other:?}"),
        }
    }
}

#[test]
fn query_memory_limits_come_from_every_source_and_refuse_less_than_a_mebibyte() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(defaults.query.memory_bytes_max, 1 << 30);
    assert_eq!(
        defaults.query.memory_total_bytes_max,
        quiver_engine::memory::default_total_bytes_max()
    );
    let config = resolve_with_file(
        "query_memory_total_max = 536870912\n",
        &["--query-memory-max", "67108864"],
        &[("QUIVER_QUERY_MEMORY_MAX", "1048576")],
    )
    .expect("valid layers");
    assert_eq!(config.query.memory_bytes_max, 64 << 20, "flag wins");
    assert_eq!(config.query.memory_total_bytes_max, 512 << 20, "file");
    let error = resolve(
        Layer::default(),
        env(&[("QUIVER_QUERY_MEMORY_TOTAL_MAX", "1000")]),
    )
    .expect_err("below a mebibyte");
    assert_mentions(&error, "query_memory_total_max");
}

#[test]
fn the_plan_cache_byte_limit_comes_from_every_source_and_zero_turns_the_cache_off() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(
        defaults.query.plan_cache_bytes_max,
        quiver_engine::EngineConfig::default().plan_cache_bytes_max
    );
    let toml = "plan_cache_bytes_max = 33554432\n";
    let from_file = resolve_with_file(toml, &[], &[]).expect("valid layers");
    assert_eq!(from_file.query.plan_cache_bytes_max, 32 << 20, "file");
    let from_env = resolve_with_file(toml, &[], &[("QUIVER_PLAN_CACHE_BYTES_MAX", "16777216")])
        .expect("valid layers");
    assert_eq!(
        from_env.query.plan_cache_bytes_max,
        16 << 20,
        "env over file"
    );
    let from_flag = resolve_with_file(
        toml,
        &["--plan-cache-bytes-max", "0"],
        &[("QUIVER_PLAN_CACHE_BYTES_MAX", "16777216")],
    )
    .expect("valid layers");
    assert_eq!(from_flag.query.plan_cache_bytes_max, 0, "flag wins");
}

#[test]
fn lock_wait_comes_from_every_source_and_zero_turns_it_off() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(defaults.query.lock_wait, quiver_engine::LOCK_WAIT_DEFAULT);
    let toml = "lock_wait_ms = 250\n";
    let config = resolve_with_file(toml, &[], &[]).expect("valid layers");
    assert_eq!(config.query.lock_wait, Duration::from_millis(250), "file");
    let config = resolve_with_file(
        toml,
        &["--lock-wait-ms", "0"],
        &[("QUIVER_LOCK_WAIT_MS", "40")],
    )
    .expect("valid layers");
    assert_eq!(config.query.lock_wait, Duration::ZERO, "flag wins");
    let config =
        resolve_with_file(toml, &[], &[("QUIVER_LOCK_WAIT_MS", "40")]).expect("valid layers");
    assert_eq!(
        config.query.lock_wait,
        Duration::from_millis(40),
        "environment"
    );
    let error = resolve(
        Layer::default(),
        env(&[("QUIVER_LOCK_WAIT_MS", "999999999999")]),
    )
    .expect_err("past a week");
    assert_mentions(&error, "lock_wait_ms");
}

#[test]
fn query_workers_come_from_every_source_and_stay_in_range() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(
        defaults.query.workers_max,
        quiver_engine::EngineConfig::default().query_workers_max
    );
    let config = resolve_with_file("query_workers_max = 3\n", &[], &[]).expect("valid layers");
    assert_eq!(config.query.workers_max, 3, "file");
    let config = resolve_with_file(
        "query_workers_max = 3\n",
        &["--query-workers-max", "1"],
        &[("QUIVER_QUERY_WORKERS_MAX", "2")],
    )
    .expect("valid layers");
    assert_eq!(config.query.workers_max, 1, "flag wins");
    for bad in ["0", "100000"] {
        let error = resolve(Layer::default(), env(&[("QUIVER_QUERY_WORKERS_MAX", bad)]))
            .expect_err("out of range");
        assert_mentions(&error, "query_workers_max");
    }
}

#[test]
fn transaction_timeouts_default_to_an_idle_minute_and_no_limit_and_zero_turns_them_off() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(
        defaults.timeouts.idle_transaction,
        Some(Duration::from_secs(60))
    );
    assert_eq!(defaults.timeouts.transaction, None);
    let toml = "idle_transaction_timeout_ms = 0\ntransaction_timeout_ms = 5000\n";
    let config = resolve_with_file(toml, &[], &[]).expect("valid layers");
    assert_eq!(config.timeouts.idle_transaction, None, "0 is off");
    assert_eq!(config.timeouts.transaction, Some(Duration::from_secs(5)));
    let config = resolve_with_file(
        toml,
        &["--idle-transaction-timeout-ms", "1500"],
        &[("QUIVER_TRANSACTION_TIMEOUT_MS", "0")],
    )
    .expect("valid layers");
    assert_eq!(
        config.timeouts.idle_transaction,
        Some(Duration::from_millis(1500))
    );
    assert_eq!(config.timeouts.transaction, None, "environment over file");
}

#[test]
fn change_capture_comes_from_every_source_and_an_unknown_mode_is_named() {
    use quiver_engine::Capture;
    let file = resolve_with_file("cdc = \"diff\"\n", &[], &[]).expect("file");
    assert_eq!(file.commit_log.capture, Capture::Diff);
    let env_wins =
        resolve_with_file("cdc = \"diff\"\n", &[], &[("QUIVER_CDC", "full")]).expect("environment");
    assert_eq!(env_wins.commit_log.capture, Capture::Full);
    let flag_wins =
        resolve_with_file("", &["--cdc", "off"], &[("QUIVER_CDC", "full")]).expect("flag");
    assert_eq!(flag_wins.commit_log.capture, Capture::Off);
    let error = resolve_with_file("", &["--cdc", "everything"], &[]).expect_err("unknown mode");
    assert_mentions(&error, "cdc");
}

#[test]
fn snapshot_thresholds_and_the_flush_interval_come_from_every_source() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    let durability = quiver_engine::DurabilityOptions::default();
    assert_eq!(
        defaults.commit_log,
        CommitLogSettings {
            flush_interval: durability.flush_interval,
            snapshot_log_bytes: durability.snapshot_log_bytes,
            snapshot_interval: durability.snapshot_interval,
            log_retention: None,
            log_retention_bytes: 0,
            log_archive_dir: None,
            capture: quiver_engine::Capture::Off,
        }
    );
    let config = resolve_with_file(
        "snapshot_log_bytes = 33554432\nflush_interval_ms = 20\n",
        &["--snapshot-interval-ms", "0"],
        &[
            ("QUIVER_SNAPSHOT_INTERVAL_MS", "1000"),
            ("QUIVER_FLUSH_INTERVAL_MS", "10"),
        ],
    )
    .expect("valid layers");
    assert_eq!(
        config.commit_log.snapshot_interval, None,
        "flag wins; 0 is off"
    );
    assert_eq!(config.commit_log.flush_interval, Duration::from_millis(10));
    assert_eq!(config.commit_log.snapshot_log_bytes, 32 << 20, "file");
    let retained = resolve_with_file(
        "log_retention_bytes = 1048576\nlog_archive_dir = \"archive\"\n",
        &["--log-retention-ms", "86400000"],
        &[("QUIVER_LOG_RETENTION_BYTES", "4096")],
    )
    .expect("valid layers");
    assert_eq!(
        retained.commit_log.log_retention,
        Some(Duration::from_secs(86400))
    );
    assert_eq!(
        retained.commit_log.log_retention_bytes, 4096,
        "env over file"
    );
    assert_eq!(
        retained.commit_log.log_archive_dir.as_deref(),
        Some(std::path::Path::new("archive"))
    );
    for (var, value, setting) in [
        ("QUIVER_SNAPSHOT_LOG_BYTES", "4096", "snapshot_log_bytes"),
        ("QUIVER_FLUSH_INTERVAL_MS", "0", "flush_interval_ms"),
    ] {
        match resolve(Layer::default(), env(&[(var, value)])) {
            Err(ConfigError::Invalid { setting: s, .. }) => assert_eq!(s, setting),
            other => panic!("{var}={value} gave {other:?}"),
        }
    }
}

#[test]
fn fair_limits_default_to_a_quarter_and_come_from_every_source() {
    let defaults = resolve(Layer::default(), env(&[])).expect("defaults are valid");
    assert_eq!(defaults.limits.http_transactions_per_user_max, 250);
    assert_eq!(defaults.limits.http_transactions_per_address_max, 250);
    assert_eq!(defaults.limits.auth_attempts_in_flight_per_address_max, 4);
    let toml = "http_transactions_per_user_max = 10\n\
         http_transactions_per_address_max = 20\n\
         auth_attempts_in_flight_per_address_max = 2\n";
    let config = resolve_with_file(toml, &[], &[]).expect("valid layers");
    assert_eq!(config.limits.http_transactions_per_user_max, 10, "file");
    assert_eq!(config.limits.http_transactions_per_address_max, 20, "file");
    assert_eq!(config.limits.auth_attempts_in_flight_per_address_max, 2);
    let config = resolve_with_file(
        toml,
        &["--http-transactions-per-user-max", "5"],
        &[
            ("QUIVER_HTTP_TRANSACTIONS_PER_USER_MAX", "7"),
            ("QUIVER_HTTP_TRANSACTIONS_PER_ADDRESS_MAX", "8"),
            ("QUIVER_AUTH_ATTEMPTS_IN_FLIGHT_PER_ADDRESS_MAX", "3"),
        ],
    )
    .expect("valid layers");
    assert_eq!(config.limits.http_transactions_per_user_max, 5, "flag wins");
    assert_eq!(config.limits.http_transactions_per_address_max, 8, "env");
    assert_eq!(config.limits.auth_attempts_in_flight_per_address_max, 3);
    let error = resolve(
        Layer::default(),
        env(&[("QUIVER_AUTH_ATTEMPTS_IN_FLIGHT_PER_ADDRESS_MAX", "0")]),
    )
    .expect_err("at least one");
    assert_mentions(&error, "auth_attempts_in_flight_per_address_max");
}

#[test]
fn passwords_shorter_than_eight_characters_are_refused() {
    let error = resolve(flags(&["--auth", "neo4j/a"]), env(&[])).expect_err("too short");
    let text = error.to_string();
    assert!(
        text.contains("8 characters") && !text.contains("neo4j/a"),
        "{text}"
    );
    let error =
        resolve(Layer::default(), env(&[("QUIVER_AUTH", "neo4j/secret")])).expect_err("short");
    let text = error.to_string();
    assert!(
        text.contains("8 characters") && !text.contains("secret"),
        "{text}"
    );
    // Characters, not bytes: eight of them pass however many bytes they take.
    assert!(resolve(flags(&["--auth", "neo4j/ééééééé"]), env(&[])).is_err());
    assert!(resolve(flags(&["--auth", "neo4j/éééééééé"]), env(&[])).is_ok());
    let error = resolve_with_file(
        "[[users]]\nname = \"reader\"\npassword = \"short\"\n",
        &[],
        &[],
    )
    .expect_err("short");
    assert_mentions(&error, "`reader`");
}

#[test]
fn a_listener_beyond_loopback_needs_auth_or_an_acknowledged_none() {
    let wide = ["--bolt-listen", "0.0.0.0:7687"];
    let error = resolve(flags(&wide), env(&[])).expect_err("no auth on 0.0.0.0");
    let text = error.to_string();
    assert!(
        text.contains("0.0.0.0:7687") && text.contains("--allow-unauthenticated-network"),
        "{text}"
    );
    // `--auth none` alone is not the acknowledgement, nor is the flag without it.
    let mut args = wide.to_vec();
    args.extend(["--auth", "none"]);
    assert!(resolve(flags(&args), env(&[])).is_err());
    let mut args = wide.to_vec();
    args.push("--allow-unauthenticated-network");
    assert!(resolve(flags(&args), env(&[])).is_err());
    let mut args = wide.to_vec();
    args.extend(["--auth", "none", "--allow-unauthenticated-network"]);
    assert!(
        !resolve(flags(&args), env(&[]))
            .expect("acknowledged")
            .auth
            .enabled
    );
    let mut args = vec!["--http-listen", "[::]:7474"];
    args.extend(["--auth", "neo4j/long-enough"]);
    assert!(resolve(flags(&args), env(&[])).is_ok());
    let config = resolve(
        Layer::default(),
        env(&[
            ("QUIVER_HTTP_LISTEN", "192.0.2.1:7474"),
            ("QUIVER_AUTH", "none"),
            ("QUIVER_ALLOW_UNAUTHENTICATED_NETWORK", "true"),
        ]),
    );
    assert!(config.is_ok(), "{config:?}");
}

#[test]
fn metrics_auth_is_a_setting_in_every_source() {
    assert!(!Config::default().auth.metrics_auth);
    let config = resolve(
        flags(&["--metrics-auth", "--auth", "neo4j/long-enough"]),
        env(&[]),
    )
    .expect("valid");
    assert!(config.auth.metrics_auth);
    let config = resolve_with_file(
        "metrics_auth = true\n",
        &[],
        &[("QUIVER_AUTH", "neo4j/long-enough")],
    )
    .expect("valid");
    assert!(config.auth.metrics_auth);
    let config = resolve(
        Layer::default(),
        env(&[
            ("QUIVER_METRICS_AUTH", "true"),
            ("QUIVER_AUTH", "neo4j/long-enough"),
        ]),
    )
    .expect("valid");
    assert!(config.auth.metrics_auth);
    // Without authentication it would protect nothing: refused rather than ignored.
    let error = resolve(flags(&["--metrics-auth"]), env(&[])).expect_err("no auth");
    assert_mentions(&error, "metrics_auth");
}

#[test]
fn tls_settings_come_from_every_source_and_are_checked() {
    assert_eq!(Config::default().tls, None);
    let config = resolve(
        command_line("--tls-cert server.pem --tls-key server.key"),
        env(&[]),
    )
    .expect("valid");
    let tls = config.tls.expect("TLS on");
    assert_eq!(tls.cert, PathBuf::from("server.pem"));
    assert_eq!((tls.bolt, tls.http), (TlsMode::Optional, TlsMode::Optional));
    assert_eq!(tls.client_ca, None);

    let config = resolve(
        flags(&["--bolt-tls", "required"]),
        env(&[
            ("QUIVER_TLS_CERT", "a.pem"),
            ("QUIVER_TLS_KEY", "a.key"),
            ("QUIVER_TLS_CLIENT_CA", "ca.pem"),
            ("QUIVER_HTTP_TLS", "off"),
        ]),
    )
    .expect("valid");
    let tls = config.tls.expect("TLS on");
    assert_eq!((tls.bolt, tls.http), (TlsMode::Required, TlsMode::Off));
    assert_eq!(tls.client_ca, Some(PathBuf::from("ca.pem")));

    let toml = "tls_cert = \"f.pem\"\ntls_key = \"f.key\"\nbolt_tls = \"optional\"\nhttp_tls = \"required\"\n";
    let tls = resolve_with_file(toml, &[], &[])
        .expect("valid")
        .tls
        .expect("TLS on");
    assert_eq!((tls.bolt, tls.http), (TlsMode::Optional, TlsMode::Required));

    for (args, named) in [
        (&["--tls-cert", "a.pem"][..], "tls_key"),
        (&["--tls-key", "a.key"][..], "tls_cert"),
        (&["--bolt-tls", "required"][..], "bolt_tls"),
        (&["--http-tls", "optional"][..], "http_tls"),
        (&["--tls-client-ca", "ca.pem"][..], "tls_client_ca"),
    ] {
        let error = resolve(flags(args), env(&[])).expect_err("incomplete");
        assert!(error.to_string().contains(named), "{args:?}: {error}");
    }
    assert!(resolve(flags(&["--bolt-tls", "off"]), env(&[])).is_ok());
    assert!(resolve(Layer::default(), env(&[("QUIVER_BOLT_TLS", "sometimes")])).is_err());
}

#[test]
fn a_raft_listener_beyond_loopback_needs_cluster_tls_or_a_deliberate_flag() {
    let base = "--node-id 1 --initial-members 1=10.0.0.1:7001 --data-dir /d";
    let with = |extra: &str| resolve(command_line(&format!("{base} {extra}")), env(&[]));
    match with("--raft-listen 0.0.0.0:7001") {
        Err(ConfigError::Invalid { setting, reason }) => {
            assert_eq!(setting, "raft_listen");
            assert!(reason.contains("--allow-plain-cluster-network"), "{reason}");
        }
        other => panic!("a plain Raft listener on 0.0.0.0 gave {other:?}"),
    }
    let allowed = with("--raft-listen 0.0.0.0:7001 --allow-plain-cluster-network")
        .expect("allowed on purpose");
    assert_eq!(allowed.cluster.expect("cluster mode").tls, None);
    let loopback = with("--raft-listen 127.0.0.1:7001").expect("loopback");
    assert_eq!(loopback.cluster.expect("cluster mode").tls, None);
    let tls = with("--raft-listen 0.0.0.0:7001 --cluster-tls-cert /m.pem --cluster-tls-key /m.key");
    assert!(
        matches!(
            tls,
            Err(ConfigError::Invalid {
                setting: "cluster_tls_ca",
                ..
            })
        ),
        "{tls:?}"
    );
    let config = resolve(
        command_line("--node-id 1 --initial-members 1=10.0.0.1:7001 --data-dir /d --raft-listen 0.0.0.0:7001"),
        env(&[
            ("QUIVER_CLUSTER_TLS_CERT", "/m.pem"),
            ("QUIVER_CLUSTER_TLS_KEY", "/m.key"),
            ("QUIVER_CLUSTER_TLS_CA", "/ca.pem"),
        ]),
    )
    .expect("cluster TLS from the environment");
    let tls = config
        .cluster
        .expect("cluster mode")
        .tls
        .expect("cluster TLS");
    assert_eq!(
        (tls.cert.to_str(), tls.key.to_str(), tls.ca.to_str()),
        (Some("/m.pem"), Some("/m.key"), Some("/ca.pem"))
    );
    let file = file(
        "cluster_tls_cert = \"/f.pem\"\ncluster_tls_key = \"/f.key\"\ncluster_tls_ca = \"/fca.pem\"\n",
    );
    let path = file.path().to_str().expect("path").to_owned();
    let config = with(&format!("--raft-listen 0.0.0.0:7001 --config {path}")).expect("from a file");
    assert_eq!(
        config.cluster.expect("cluster mode").tls.map(|t| t.ca),
        Some(std::path::PathBuf::from("/fca.pem"))
    );
    // Without cluster mode the cluster TLS files mean nothing: named, they are a mistake.
    assert!(matches!(
        resolve(flags(&["--cluster-tls-ca", "/ca.pem"]), env(&[])),
        Err(ConfigError::Invalid {
            setting: "cluster_tls_ca",
            ..
        })
    ));
}

#[test]
fn query_log_settings_come_from_every_source() {
    assert_eq!(Config::default().query_log, None);
    let config = resolve(
        command_line(
            "--query-log q.log --query-log-enabled VERBOSE --query-log-threshold-ms 250 \
             --query-log-parameters --query-log-rotation-bytes 4096 --query-log-rotation-keep 3",
        ),
        env(&[]),
    )
    .expect("valid");
    let log = config.query_log.expect("a query log");
    assert_eq!(log.path, PathBuf::from("q.log"));
    assert_eq!(log.mode, crate::query_log::Mode::Verbose);
    assert_eq!(log.threshold, Duration::from_millis(250));
    assert!(log.parameters);
    assert_eq!((log.rotation_bytes, log.rotation_keep), (4096, 3));
    let config = resolve_with_file(
        "query_log = \"f.log\"\nquery_log_enabled = \"OFF\"\n",
        &[],
        &[("QUIVER_QUERY_LOG_THRESHOLD_MS", "75")],
    )
    .expect("valid");
    let log = config.query_log.expect("a query log");
    assert_eq!(log.mode, crate::query_log::Mode::Off);
    assert_eq!(log.threshold, Duration::from_millis(75));
    assert!(!log.parameters);
    let config = resolve(
        Layer::default(),
        env(&[
            ("QUIVER_QUERY_LOG", "e.log"),
            ("QUIVER_QUERY_LOG_PARAMETERS", "true"),
        ]),
    )
    .expect("valid");
    let log = config.query_log.expect("a query log");
    assert_eq!(log.mode, crate::query_log::Mode::Info);
    assert!(log.parameters);
    // A rotation size under one line's worth is refused rather than rotating on every query.
    let error = resolve(
        command_line("--query-log q.log --query-log-rotation-bytes 10"),
        env(&[]),
    )
    .expect_err("too small");
    assert_mentions(&error, "query_log_rotation_bytes");
    let error = resolve(
        Layer::default(),
        env(&[
            ("QUIVER_QUERY_LOG", "e.log"),
            ("QUIVER_QUERY_LOG_ENABLED", "loud"),
        ]),
    )
    .expect_err("not a mode");
    assert_mentions(&error, "QUIVER_QUERY_LOG_ENABLED");
}
