//! Imports of small CSV sets, opened afterwards as a database: a round trip of every column
//! kind, and malformed inputs, each failing with its file, line and reason and leaving no
//! database behind (or skipped and reported, when the policy says so).

use std::fmt::Write as _;
use std::path::PathBuf;

use quiver_durability::Mode;
use quiver_engine::Database;
use quiver_import::{Error, FileKind, Group, IdType, Options, Policy, ProgressMode, Summary, run};
use quiver_value::{Map, Value};

mod support;
use support::write_input;

struct Case {
    dir: tempfile::TempDir,
    nodes: Vec<String>,
    relationships: Vec<String>,
    id_type: IdType,
    policy: Policy,
}

impl Case {
    fn new() -> Case {
        Case {
            dir: tempfile::tempdir().expect("tempdir"),
            nodes: Vec::new(),
            relationships: Vec::new(),
            id_type: IdType::String,
            policy: Policy {
                skip_bad_relationships: false,
                skip_duplicate_nodes: false,
                bad_tolerance: Some(1000),
            },
        }
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        write_input(&path, text);
        path
    }

    /// Adds a group: `prefix` is `Label=` / `TYPE=` or empty, then the named files.
    fn nodes(&mut self, prefix: &str, files: &[(&str, &str)]) -> &mut Case {
        let spec = self.spec(prefix, files);
        self.nodes.push(spec);
        self
    }

    fn relationships(&mut self, prefix: &str, files: &[(&str, &str)]) -> &mut Case {
        let spec = self.spec(prefix, files);
        self.relationships.push(spec);
        self
    }

    fn spec(&self, prefix: &str, files: &[(&str, &str)]) -> String {
        let paths: Vec<String> = files
            .iter()
            .map(|(name, text)| self.file(name, text).display().to_string())
            .collect();
        format!("{prefix}{}", paths.join(","))
    }

    fn target(&self) -> PathBuf {
        self.dir.path().join("graph")
    }

    fn report(&self) -> PathBuf {
        self.dir.path().join("import.report")
    }

    fn run(&self) -> Result<Summary, Error> {
        let groups = |specs: &[String], kind| {
            specs
                .iter()
                .map(|s| Group::parse(s, kind).expect("group"))
                .collect()
        };
        run(&Options {
            data_dir: self.target(),
            nodes: groups(&self.nodes, FileKind::Nodes),
            relationships: groups(&self.relationships, FileKind::Relationships),
            delimiter: b',',
            array_delimiter: ';',
            quote: b'"',
            ignore_empty_strings: false,
            id_type: self.id_type,
            policy: self.policy,
            report_file: self.report(),
            overwrite_destination: false,
            progress: ProgressMode::Off,
        })
    }

    /// Runs an import that must fail: nothing at the destination, no staging directory left,
    /// and the report's last line names the error. Returns the error's text.
    fn fails(&self) -> String {
        let error = self.run().expect_err("the import must fail");
        let text = error.to_string();
        assert!(!self.target().exists(), "a database was left behind");
        let leftovers: Vec<_> = std::fs::read_dir(self.dir.path())
            .expect("list")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with(".graph"))
            .collect();
        assert!(leftovers.is_empty(), "staging left behind: {leftovers:?}");
        let report = std::fs::read_to_string(self.report()).expect("report");
        assert!(
            report
                .trim_end()
                .ends_with(&format!("import failed: {text}")),
            "report: {report}"
        );
        text
    }

    fn open(&self) -> std::sync::Arc<Database> {
        Database::open(self.target(), Mode::Buffered).expect("open the imported directory")
    }
}

fn rows(db: &Database, query: &str) -> Vec<Vec<Value>> {
    db.execute(query, Map::new()).expect(query).rows
}

fn one(db: &Database, query: &str) -> Value {
    let mut r = rows(db, query);
    assert_eq!(r.len(), 1, "{query}");
    r.remove(0).remove(0)
}

fn list(items: &[Value]) -> Value {
    Value::List(items.to_vec().into())
}

const PEOPLE_HEADER: &str =
    "id:ID(Person),name,age:int,score:float,tags:string[],nums:long[],born:date,:LABEL\n";

/// Two node groups (one with a separate header file and a gzip part) and two relationship
/// groups (one typed by a column), ids repeating across the Person and City spaces.
fn round_trip_case() -> Case {
    let mut case = Case::new();
    case.nodes(
        "Person=",
        &[
            ("people_header.csv", PEOPLE_HEADER),
            (
                "people_1.csv",
                "p1,Ann,42,0.5,a;b,1;2;3,1980-05-17,Admin;User\np2,\"Bob, Jr.\",7,,,,,\n",
            ),
            ("people_2.csv.gz", "p3,Cy,19,1.25,c,9,2001-01-01,\n"),
        ],
    )
    .nodes(
        "City:Place=",
        &[("cities.csv", ":ID(City),name\np1,Bergen\nc2,Oslo\n")],
    )
    .relationships(
        "KNOWS=",
        &[(
            "knows.csv",
            ":START_ID(Person),:END_ID(Person),since:int\np1,p2,2001\np2,p3,2002\n",
        )],
    )
    .relationships(
        "",
        &[
            (
                "lives_header.csv",
                ":START_ID(Person),:END_ID(City),:TYPE,rent:double\n",
            ),
            ("lives.csv.gz", "p1,p1,LIVES_IN,10.5\np3,c2,VISITED,\n"),
        ],
    );
    case
}

#[test]
fn a_round_trip_keeps_every_column_kind_space_and_file() {
    let case = round_trip_case();
    let s = case.run().expect("import");
    assert_eq!((s.nodes, s.relationships), (5, 4));
    assert_eq!((s.skipped_nodes, s.skipped_relationships), (0, 0));
    let db = case.open();
    let ann = rows(
        &db,
        "MATCH (p:Person {id: 'p1'}) RETURN labels(p), p.name, p.age, p.score, p.tags, \
         p.nums, toString(p.born)",
    );
    assert_eq!(
        ann,
        vec![vec![
            list(&["Admin".into(), "Person".into(), "User".into()]),
            "Ann".into(),
            Value::Int(42),
            Value::Float(0.5),
            list(&["a".into(), "b".into()]),
            list(&[Value::Int(1), Value::Int(2), Value::Int(3)]),
            "1980-05-17".into(),
        ]]
    );
    // Empty fields are no property; a quoted delimiter stays in the value.
    assert_eq!(
        one(
            &db,
            "MATCH (p:Person {id: 'p2'}) RETURN [p.name, size(keys(p))]"
        ),
        list(&["Bob, Jr.".into(), Value::Int(3)])
    );
    // `:ID(City)` alone stores no id property; both group labels are given.
    assert_eq!(
        one(
            &db,
            "MATCH (c:City:Place) RETURN collect([c.name, c.id IS NULL]) "
        ),
        list(&[
            list(&["Bergen".into(), Value::Bool(true)]),
            list(&["Oslo".into(), Value::Bool(true)]),
        ])
    );
    // `p1` names Ann in the Person space and Bergen in the City space.
    assert_eq!(
        rows(
            &db,
            "MATCH (a)-[r]->(b) RETURN a.name, type(r), properties(r), b.name \
             ORDER BY a.name, type(r)"
        ),
        vec![
            vec![
                "Ann".into(),
                "KNOWS".into(),
                Value::Map(std::sync::Arc::new(
                    [("since".into(), Value::Int(2001))].into_iter().collect()
                )),
                "Bob, Jr.".into()
            ],
            vec![
                "Ann".into(),
                "LIVES_IN".into(),
                Value::Map(std::sync::Arc::new(
                    [("rent".into(), Value::Float(10.5))].into_iter().collect()
                )),
                "Bergen".into()
            ],
            vec![
                "Bob, Jr.".into(),
                "KNOWS".into(),
                Value::Map(std::sync::Arc::new(
                    [("since".into(), Value::Int(2002))].into_iter().collect()
                )),
                "Cy".into()
            ],
            vec![
                "Cy".into(),
                "VISITED".into(),
                Value::Map(std::sync::Arc::new(Map::new())),
                "Oslo".into()
            ],
        ]
    );
    db.close().expect("close");
}

#[test]
fn integer_ids_compare_as_numbers() {
    let mut case = Case::new();
    case.id_type = IdType::Integer;
    case.nodes("N=", &[("n.csv", "n:ID,v:boolean\n1,true\n02,false\n")])
        .relationships("R=", &[("r.csv", ":START_ID,:END_ID\n01,2\n")]);
    case.run().expect("import");
    let db = case.open();
    assert_eq!(
        one(&db, "MATCH (a:N)-[:R]->(b:N) RETURN [a.n, a.v, b.n, b.v]"),
        list(&[
            Value::Int(1),
            Value::Bool(true),
            Value::Int(2),
            Value::Bool(false)
        ])
    );
    db.close().expect("close");
}

#[test]
fn a_node_without_its_id_fails_naming_the_line() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", "id:ID,name\na,Ann\n,Nobody\n")]);
    let e = case.fails();
    assert!(e.ends_with("p.csv:3: the node has no ID (column 1)"), "{e}");
}

#[test]
fn duplicate_ids_fail_unless_skipped_and_then_are_reported() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", "id:ID(P),name\na,Ann\nb,Bob\na,Again\n")]);
    let e = case.fails();
    assert!(
        e.ends_with("p.csv:4: duplicate ID `a` in ID space `P`"),
        "{e}"
    );

    case.policy.skip_duplicate_nodes = true;
    let s = case.run().expect("import skipping the duplicate");
    assert_eq!((s.nodes, s.skipped_nodes), (2, 1));
    let report = std::fs::read_to_string(case.report()).expect("report");
    assert!(
        report.contains("p.csv:4: duplicate ID `a` in ID space `P` (skipped)"),
        "{report}"
    );
    let db = case.open();
    assert_eq!(
        one(&db, "MATCH (p:P) RETURN collect(p.name)"),
        list(&["Ann".into(), "Bob".into()])
    );
    db.close().expect("close");
}

fn dangling(case: &mut Case) {
    case.nodes("P=", &[("p.csv", ":ID,name\na,Ann\nb,Bob\n")])
        .relationships(
            "R=",
            &[("r.csv", ":START_ID,:END_ID\na,b\na,zz\n,b\nb,a\n")],
        );
}

#[test]
fn dangling_relationships_fail_without_the_skip_flag() {
    let mut case = Case::new();
    dangling(&mut case);
    let e = case.fails();
    assert!(
        e.ends_with("r.csv:3: end ID `zz` not found in the global ID space"),
        "{e}"
    );
}

#[test]
fn dangling_relationships_are_skipped_and_reported_with_the_flag() {
    let mut case = Case::new();
    dangling(&mut case);
    case.policy.skip_bad_relationships = true;
    let s = case.run().expect("import");
    assert_eq!((s.relationships, s.skipped_relationships), (2, 2));
    let report = std::fs::read_to_string(case.report()).expect("report");
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(lines.len(), 2, "{report}");
    assert!(lines[0].ends_with("r.csv:3: end ID `zz` not found in the global ID space (skipped)"));
    assert!(lines[1].ends_with("r.csv:4: the relationship has no start ID (skipped)"));
    let db = case.open();
    assert_eq!(
        one(&db, "MATCH ()-[r:R]->() RETURN count(r)"),
        Value::Int(2)
    );
    db.close().expect("close");
}

#[test]
fn skipped_entries_past_the_tolerance_fail_the_import() {
    let mut case = Case::new();
    dangling(&mut case);
    case.policy.skip_bad_relationships = true;
    case.policy.bad_tolerance = Some(1);
    let e = case.fails();
    assert!(
        e.starts_with("2 bad entries exceed the tolerance of 1"),
        "{e}"
    );
}

#[test]
fn a_bad_typed_value_fails_naming_column_and_text() {
    let mut case = Case::new();
    case.nodes(
        "P=",
        &[(
            "p.csv",
            ":ID,age:int,when:date\na,1,2020-01-01\nb,old,2020-01-01\n",
        )],
    );
    let e = case.fails();
    assert!(
        e.ends_with("p.csv:3: column 2: `old` is not a valid int"),
        "{e}"
    );
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID,when:date\na,2020-13-01\n")]);
    assert!(
        case.fails()
            .contains("p.csv:2: column 2: `2020-13-01` is not a valid date")
    );
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID,n:int[]\na,1;2;x\n")]);
    assert!(
        case.fails()
            .contains("array element 3: `x` is not a valid int")
    );
}

#[test]
fn wrong_column_counts_fail() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID,name\na,Ann,extra\n")]);
    assert!(
        case.fails()
            .ends_with("p.csv:2: the row has 3 fields, the header 2")
    );
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID,name\na,Ann\n")])
        .relationships("R=", &[("r.csv", ":START_ID,:END_ID,w:int\na,a\n")]);
    assert!(
        case.fails()
            .ends_with("r.csv:2: the row has 2 fields, the header 3")
    );
}

#[test]
fn a_truncated_gzip_file_fails() {
    let mut case = Case::new();
    let mut text = String::from(":ID,name\n");
    for i in 0..20_000 {
        writeln!(text, "n{i},name number {i}").expect("write");
    }
    let path = case.file("p.csv.gz", &text);
    let bytes = std::fs::read(&path).expect("read");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).expect("cut");
    case.nodes.push(format!("P={}", path.display()));
    let e = case.fails();
    assert!(e.contains("p.csv.gz:") && e.contains("cannot read"), "{e}");
}

#[test]
fn an_unknown_id_space_fails_before_any_row() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID(Person),name\na,Ann\n")])
        .relationships(
            "R=",
            &[("r.csv", ":START_ID(Person),:END_ID(Place)\na,a\n")],
        );
    let e = case.fails();
    assert!(
        e.ends_with("r.csv: ID space `Place` is not declared by any node file's :ID column"),
        "{e}"
    );
}

#[test]
fn bad_headers_and_missing_types_fail() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID,age:integer\na,1\n")]);
    assert!(case.fails().contains("unknown column type `integer`"));
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID\na\n")])
        .relationships("", &[("r.csv", ":START_ID,:END_ID\na,a\n")]);
    assert!(case.fails().contains("no relationship type"));
}

#[test]
fn a_non_empty_destination_is_refused_and_kept() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID\na\n")]);
    std::fs::create_dir(case.target()).expect("mkdir");
    std::fs::write(case.target().join("keep"), b"x").expect("write");
    let e = case.run().expect_err("refused");
    assert!(matches!(e, Error::Destination { .. }), "{e}");
    assert!(e.to_string().contains("--overwrite-destination"));
    assert!(case.target().join("keep").exists());
}

#[test]
fn an_empty_destination_directory_is_filled() {
    let mut case = Case::new();
    case.nodes("P=", &[("p.csv", ":ID\na\nb\n")]);
    std::fs::create_dir(case.target()).expect("mkdir");
    case.run().expect("import");
    let db = case.open();
    assert_eq!(one(&db, "MATCH (p:P) RETURN count(p)"), Value::Int(2));
    db.close().expect("close");
}

/// Many batches of relationships keep every relationship, with the right ends and property,
/// seen from both ends.
#[test]
fn many_relationships_load_whole() {
    let mut case = Case::new();
    let mut nodes = String::from(":ID,n:int\n");
    for i in 0..100 {
        writeln!(nodes, "v{i},{i}").expect("write");
    }
    let mut rels = String::from(":START_ID,:END_ID,k:int\n");
    for k in 0..10_000 {
        writeln!(rels, "v{},v{},{k}", k % 100, (k * 7 + 1) % 100).expect("write");
    }
    case.nodes("V=", &[("v.csv", &nodes)])
        .relationships("E=", &[("e.csv", &rels)]);
    let s = case.run().expect("import");
    assert_eq!(s.relationships, 10_000);
    let db = case.open();
    assert_eq!(
        one(&db, "MATCH ()-[e:E]->() RETURN count(e)"),
        Value::Int(10_000)
    );
    // Every relationship joins the ends its row names, seen from both ends.
    assert_eq!(
        one(
            &db,
            "MATCH (a:V)-[e:E]->(b:V) WHERE a.n <> e.k % 100 OR b.n <> (e.k * 7 + 1) % 100 \
             RETURN count(e)"
        ),
        Value::Int(0)
    );
    assert_eq!(
        one(&db, "MATCH (b:V)<-[e:E]-() RETURN count(e)"),
        Value::Int(10_000)
    );
    assert_eq!(
        one(&db, "MATCH (a:V {n: 3})-[e:E]->() RETURN count(e)"),
        Value::Int(100)
    );
    db.close().expect("close");
}
