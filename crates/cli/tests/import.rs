//! `quiver import` as a process: CSV files in Neo4j's import format become a data directory
//! that `quiver serve` opens and answers Cypher over Bolt from; a failed import exits 1 with
//! its reason and report and leaves nothing; a killed one leaves no database either.

#![cfg(unix)]

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_value::{Map, Value};

mod common;
#[path = "../../import/tests/support/mod.rs"]
mod import_support;
use common::quiver;
use import_support::write_input;

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    write_input(&path, text);
    path.display().to_string()
}

fn import(dir: &Path, args: &[String]) -> Output {
    quiver()
        .arg("import")
        .arg("--data-dir")
        .arg(dir.join("graph"))
        .arg("--report-file")
        .arg(dir.join("import.report"))
        .args(args)
        .output()
        .expect("run quiver import")
}

/// `quiver serve` over `data` on ephemeral loopback ports; returns it and its Bolt address.
fn serve(data: &Path) -> (Child, SocketAddr) {
    let (child, bolt, _) = common::spawn(common::serve().arg("--data-dir").arg(data));
    (child, bolt)
}

fn stop(mut child: Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if child.try_wait().expect("try_wait").is_some() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}

async fn query(bolt: SocketAddr, queries: &[&str]) -> Vec<Value> {
    let mut conn = common::connect(bolt).await.expect("bolt connection");
    let mut out = Vec::new();
    for q in queries {
        let v = conn
            .query_scalar(q, Map::new())
            .await
            .unwrap_or_else(|e| panic!("`{q}`: {e}"))
            .unwrap_or_else(|| panic!("`{q}` returned no row"));
        out.push(v);
    }
    conn.close().await;
    out
}

fn list(items: &[Value]) -> Value {
    Value::List(items.to_vec().into())
}

fn s(text: &str) -> Value {
    Value::String(Arc::from(text))
}

#[test]
fn an_imported_directory_is_served_with_the_exact_data() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    // A separate header file, tab-delimited data, several labels, typed columns and arrays.
    let header = write(
        d,
        "people.header.tsv",
        "uid:ID(Person)\tname\tage:int\theight:double\tpets:string[]\tlucky:int[]\tborn:date\tok:boolean\t:LABEL\n",
    );
    let people = write(
        d,
        "people.tsv",
        "u1\tAnn\t42\t1.75\tcat|dog\t3|7\t1980-05-17\ttrue\tAdmin|Staff\n\
         u2\tBob\t31\t\t\t\t\tfalse\t\n",
    );
    let cities = write(d, "cities.tsv.gz", ":ID(City)\tname\nu1\tBergen\n");
    let knows = write(
        d,
        "knows.tsv",
        ":START_ID(Person)\t:END_ID(Person)\tsince:int\nu1\tu2\t2001\nu2\tu1\t2002\n",
    );
    let lives = write(
        d,
        "lives.tsv.gz",
        ":START_ID(Person)\t:END_ID(City)\t:TYPE\nu1\tu1\tLIVES_IN\nu2\tu1\tVISITS\n",
    );
    let out = import(
        d,
        &[
            "--delimiter".into(),
            "TAB".into(),
            "--array-delimiter".into(),
            "|".into(),
            "--nodes".into(),
            format!("Person:Human={header},{people}"),
            "--nodes".into(),
            format!("City={cities}"),
            "--relationships".into(),
            format!("KNOWS={knows}"),
            "--relationships".into(),
            lives,
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("imported 3 nodes, 4 relationships"),
        "{stdout}"
    );

    let (server, bolt) = serve(&d.join("graph"));
    let rt = common::client_runtime();
    let got = rt.block_on(query(
        bolt,
        &[
            "MATCH (p:Person:Human {uid: 'u1'}) RETURN [labels(p), p.name, p.age, p.height, \
             p.pets, p.lucky, toString(p.born), p.ok]",
            "MATCH (p:Person {uid: 'u2'}) RETURN [p.name, p.age, p.ok, size(keys(p))]",
            "MATCH (c:City) RETURN [c.name, size(keys(c))]",
            "MATCH (a)-[r]->(b) WITH a, r, b ORDER BY a.name, type(r) \
             RETURN collect([a.name, type(r), r.since, b.name])",
            "MATCH (n) RETURN count(n)",
        ],
    ));
    stop(server);
    assert_eq!(
        got,
        vec![
            list(&[
                list(&[s("Admin"), s("Human"), s("Person"), s("Staff")]),
                s("Ann"),
                Value::Int(42),
                Value::Float(1.75),
                list(&[s("cat"), s("dog")]),
                list(&[Value::Int(3), Value::Int(7)]),
                s("1980-05-17"),
                Value::Bool(true),
            ]),
            list(&[s("Bob"), Value::Int(31), Value::Bool(false), Value::Int(4)]),
            list(&[s("Bergen"), Value::Int(1)]),
            list(&[
                list(&[s("Ann"), s("KNOWS"), Value::Int(2001), s("Bob")]),
                list(&[s("Ann"), s("LIVES_IN"), Value::Null, s("Bergen")]),
                list(&[s("Bob"), s("KNOWS"), Value::Int(2002), s("Ann")]),
                list(&[s("Bob"), s("VISITS"), Value::Null, s("Bergen")]),
            ]),
            Value::Int(3),
        ]
    );
}

#[test]
fn a_failed_import_exits_1_naming_the_line_and_leaves_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    let people = write(d, "p.csv", ":ID,name\na,Ann\nb,Bob\n");
    let rels = write(d, "r.csv", ":START_ID,:END_ID\na,b\nb,nobody\n");
    let out = import(
        d,
        &[
            "--nodes".into(),
            format!("P={people}"),
            "--relationships".into(),
            format!("R={rels}"),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("r.csv:3: end ID `nobody` not found in the global ID space"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!d.join("graph").exists());
    let report = std::fs::read_to_string(d.join("import.report")).expect("report");
    assert!(report.contains("import failed:"), "{report}");

    // The same files with the skip flag: imported, the bad one reported.
    let out = import(
        d,
        &[
            "--skip-bad-relationships".into(),
            "--nodes".into(),
            format!("P={people}"),
            "--relationships".into(),
            format!("R={rels}"),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("skipped 0 duplicate nodes and 1 bad relationships")
    );
    let report = std::fs::read_to_string(d.join("import.report")).expect("report");
    assert!(report.contains("r.csv:3: end ID `nobody`"), "{report}");

    // A second import onto the now full directory is refused without the flag.
    let out = import(d, &["--nodes".into(), format!("P={people}")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--overwrite-destination"));
}

#[test]
fn a_bad_flag_exits_2() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let people = write(tmp.path(), "p.csv", ":ID\na\n");
    let out = import(
        tmp.path(),
        &["--delimiter".into(), "ab".into(), "--nodes".into(), people],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--delimiter must be one character"));
}

/// Writes node and relationship files large enough that an import runs for seconds.
fn large_input(dir: &Path, nodes: u64, rels_per_node: u64) -> (PathBuf, PathBuf) {
    let mut n = String::from(":ID,name,age:int\n");
    for i in 0..nodes {
        writeln!(n, "n{i},person {i},{}", i % 90).expect("write");
    }
    let mut r = String::from(":START_ID,:END_ID,since:int\n");
    for i in 0..nodes {
        for k in 1..=rels_per_node {
            writeln!(r, "n{i},n{},{}", (i * 7 + k * 13) % nodes, 1990 + k).expect("write");
        }
    }
    let np = dir.join("n.csv");
    let rp = dir.join("r.csv");
    std::fs::write(&np, n).expect("write");
    std::fs::write(&rp, r).expect("write");
    (np, rp)
}

/// `kill -9` while rows are loading: no directory where the target was (so `serve` finds no
/// database there), only the staging directory, which the next import clears.
#[test]
fn an_import_killed_midway_leaves_no_database() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let d = tmp.path();
    let (nodes, rels) = large_input(d, 100_000, 8);
    let mut child = quiver()
        .arg("import")
        .arg("--data-dir")
        .arg(d.join("graph"))
        .arg("--report-file")
        .arg(d.join("import.report"))
        .args(["--progress", "plain"])
        .arg("--nodes")
        .arg(format!("P={}", nodes.display()))
        .arg("--relationships")
        .arg(format!("R={}", rels.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn quiver import");
    // The staging directory appears once the headers are checked and loading begins; the
    // rows then take seconds, so a kill shortly after lands among them.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !d.join(".graph.import").exists() {
        assert!(
            Instant::now() < deadline,
            "the import never started loading"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().expect("kill -9");
    let status = child.wait().expect("wait");
    assert!(
        !status.success(),
        "the import ended before the kill: {status}"
    );
    assert!(!d.join("graph").exists(), "a killed import left its target");
    assert!(d.join(".graph.import").exists(), "the staging directory");
    let rt = common::client_runtime();

    // `serve` on the target finds no database there: it ignores the half-built staging
    // directory beside it and serves nothing of the killed import.
    let (server, bolt) = serve(&d.join("graph"));
    let got = rt.block_on(query(bolt, &["MATCH (n) RETURN count(n)"]));
    stop(server);
    assert_eq!(
        got,
        vec![Value::Int(0)],
        "a killed import's rows were served"
    );
    assert!(
        d.join(".graph.import").exists(),
        "serve left the staging alone"
    );
    std::fs::remove_dir_all(d.join("graph")).expect("remove the empty database");

    // The next import clears the leftover and succeeds.
    let small = write(d, "s.csv", ":ID\na\nb\n");
    let out = import(d, &["--nodes".into(), format!("S={small}")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!d.join(".graph.import").exists());
    let (server, bolt) = serve(&d.join("graph"));
    let got = rt.block_on(query(bolt, &["MATCH (n) RETURN count(n)"]));
    stop(server);
    assert_eq!(got, vec![Value::Int(2)]);
}
