//! `LOAD CSV` through the engine: files are read under the import directory and nowhere else,
//! gzip files are decompressed, a load streams (its memory does not grow with the file), and a
//! uniqueness violation fails the statement of an explicit transaction that causes it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, PullState, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

const MIB: usize = 1 << 20;

/// A scratch directory holding `import/` (the import directory) and files beside it.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("import/sub")).unwrap();
        Scratch { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("import")
    }

    fn write(&self, relative: &str, content: &[u8]) -> PathBuf {
        let path = self.dir.path().join(relative);
        std::fs::write(&path, content).unwrap();
        path
    }

    fn db(&self, query_max: usize) -> Arc<Database> {
        Database::open_in_memory(EngineConfig {
            import_dir: Some(self.root()),
            query_memory_bytes_max: query_max,
            ..EngineConfig::default()
        })
    }
}

fn one(db: &Database, query: &str) -> Value {
    let r = db.execute(query, Map::new()).unwrap();
    r.rows[0][0].clone()
}

fn status(db: &Database, query: &str) -> Status {
    match db.execute(query, Map::new()) {
        Ok(_) => panic!("{query} succeeded"),
        Err(e) => e.status_code(),
    }
}

fn count_rows(db: &Database, url: &str) -> Value {
    one(
        db,
        &format!("LOAD CSV FROM '{url}' AS row RETURN count(row) AS n"),
    )
}

#[test]
fn every_way_out_of_the_import_directory_is_refused() {
    let s = Scratch::new();
    s.write("import/in.csv", b"a\n");
    let secret = s.write("secret.csv", b"top,secret\n");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&secret, s.root().join("link.csv")).unwrap();
        std::os::unix::fs::symlink(s.dir.path(), s.root().join("sub/up")).unwrap();
    }
    let db = s.db(1 << 30);
    assert_eq!(count_rows(&db, "file:///in.csv"), Value::Int(1));
    let absolute = format!("file://{}", secret.display());
    let attempts = [
        "file:///../secret.csv",
        "file:///sub/../../secret.csv",
        "file:///./../secret.csv",
        "file:///%2E%2E/secret.csv",
        "file:///sub/%2e%2e/%2e%2e/secret.csv",
        "file:///..%2Fsecret.csv",
        "file:///..%5Csecret.csv",
        "file:///link.csv",
        "file:///sub/up/secret.csv",
        absolute.as_str(),
        "file://elsewhere/in.csv",
        "file:///in.csv%00.txt",
        "file:///sub",
        "http://localhost/secret.csv",
        "https://example.com/secret.csv",
        "ftp://example.com/secret.csv",
        "secret.csv",
        "/secret.csv",
    ];
    for url in attempts {
        let query = format!("LOAD CSV FROM '{url}' AS row RETURN row");
        assert_eq!(status(&db, &query), Status::ExternalResourceFailed, "{url}");
    }
    // Without an import directory nothing is read.
    let closed = Database::open_in_memory(EngineConfig::default());
    assert_eq!(
        status(&closed, "LOAD CSV FROM 'file:///in.csv' AS row RETURN row"),
        Status::ExternalResourceFailed
    );
}

#[test]
fn gzip_files_are_decompressed() {
    let s = Scratch::new();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"id,name\n1,Ann\n2,Bo\n").unwrap();
    s.write("import/people.csv.gz", &gz.finish().unwrap());
    let db = s.db(1 << 30);
    let r = db
        .execute(
            "LOAD CSV WITH HEADERS FROM 'file:///people.csv.gz' AS row RETURN row.name AS n",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows,
        vec![vec![Value::from("Ann")], vec![Value::from("Bo")]]
    );
}

/// A CSV of `rows` rows of about 100 bytes each.
fn big_csv(path: &Path, rows: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, "id,payload").unwrap();
    let payload = "x".repeat(90);
    for i in 0..rows {
        writeln!(f, "{i},{payload}").unwrap();
    }
    f.flush().unwrap();
}

#[test]
fn a_load_streams_within_a_memory_limit_far_below_the_file() {
    let s = Scratch::new();
    // About 10 MiB of CSV against a 4 MiB query limit.
    big_csv(&s.root().join("big.csv"), 100_000);
    let db = s.db(4 * MIB);
    assert_eq!(
        one(
            &db,
            "LOAD CSV WITH HEADERS FROM 'file:///big.csv' AS row RETURN count(*) AS n"
        ),
        Value::Int(100_000)
    );
    db.execute(
        "LOAD CSV WITH HEADERS FROM 'file:///big.csv' AS row \
         CALL (row) { CREATE (:Row {id: toInteger(row.id), payload: row.payload}) } \
         IN TRANSACTIONS OF 1000 ROWS",
        Map::new(),
    )
    .unwrap();
    assert_eq!(
        one(&db, "MATCH (r:Row) RETURN count(r) AS n"),
        Value::Int(100_000)
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn malformed_files_fail_naming_the_line() {
    let s = Scratch::new();
    s.write("import/open.csv", b"a\nb\n\"never closed\nc\n");
    let db = s.db(1 << 30);
    let e = db
        .execute(
            "LOAD CSV FROM 'file:///open.csv' AS row RETURN row",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(e.status_code(), Status::ExternalResourceFailed);
    assert!(e.message().contains("line 3"), "{}", e.message());
}

#[test]
fn the_loading_query_reads_what_its_batches_committed() {
    let s = Scratch::new();
    s.write("import/ids.csv", b"1\n2\n3\n4\n5\n");
    let db = s.db(1 << 30);
    let r = db
        .execute(
            "LOAD CSV FROM 'file:///ids.csv' AS row \
             CALL (row) { CREATE (:I {v: toInteger(row[0])}) } IN TRANSACTIONS OF 2 ROWS \
             WITH count(*) AS loaded MATCH (i:I) RETURN loaded, count(i) AS seen",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(5), Value::Int(5)]]);
}

fn run_all(tx: &mut quiver_engine::Transaction, query: &str) -> quiver_engine::Result<()> {
    let q = tx.run(query, Map::new())?;
    let mut rows = Vec::new();
    while let PullState::HasMore = tx.pull(q, 100, &mut rows)? {}
    Ok(())
}

#[test]
fn a_uniqueness_violation_fails_the_statement_not_the_commit() {
    let db = Database::open_in_memory(EngineConfig::default());
    db.execute(
        "CREATE CONSTRAINT person_email FOR (p:Person) REQUIRE p.email IS UNIQUE",
        Map::new(),
    )
    .unwrap();
    db.execute("CREATE (:Person {email: 'taken'})", Map::new())
        .unwrap();
    for duplicate in [
        "CREATE (:Person {email: 'taken'})",
        "CREATE (:Person {email: 'mine'})",
        "MATCH (p:Person {email: 'fresh'}) SET p.email = 'taken'",
        "MERGE (p:Person {email: 'x'}) ON CREATE SET p.email = 'taken'",
        "CREATE (r:Robot {email: 'taken'}) SET r:Person",
    ] {
        let mut tx = db.begin(TxOptions::default()).unwrap();
        run_all(
            &mut tx,
            "CREATE (:Person {email: 'mine'}), (:Person {email: 'fresh'})",
        )
        .unwrap();
        let e = run_all(&mut tx, duplicate).expect_err(duplicate);
        assert_eq!(
            e.status_code(),
            Status::ConstraintValidationFailed,
            "{duplicate}"
        );
        // As in Neo4j, the failed statement fails the transaction: nothing of it commits.
        assert!(tx.is_failed());
        assert!(tx.commit().is_err());
        assert_eq!(
            one(&db, "MATCH (p:Person) RETURN count(p) AS n"),
            Value::Int(1),
            "{duplicate}"
        );
    }
    // A statement that frees a value and one that takes it, in one transaction, commit.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    run_all(
        &mut tx,
        "MATCH (p:Person {email: 'taken'}) SET p.email = 'old'",
    )
    .unwrap();
    run_all(&mut tx, "CREATE (:Person {email: 'taken'})").unwrap();
    tx.commit().unwrap();
    assert_eq!(
        one(&db, "MATCH (p:Person) RETURN count(p) AS n"),
        Value::Int(2)
    );
}
