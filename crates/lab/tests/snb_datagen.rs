//! The SNB data generator's promises, at a small scale: a seed names its files byte for
//! byte; the manifest counts what the files hold; every relationship and every update refers
//! to what exists (updates to what the bulk load or an earlier update made, by their
//! `depends_on`); dates follow causality and the bulk cutoff; the parameters name entities
//! of the bulk load; and the files import into a database with the counts the manifest
//! promises.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;

use quiver_durability::Mode;
use quiver_engine::Database;
use quiver_lab::snb::datagen::{self, FILES, Holds, Manifest, Spec, time};
use quiver_lab::snb::ops::{Kind, Millis, Operation};
use quiver_value::{Map, Value};

fn small(persons: usize, seed: u64) -> Spec {
    Spec {
        params_per_kind: 25,
        ..Spec::new(persons, seed)
    }
}

fn generated(spec: &Spec) -> (tempfile::TempDir, Manifest) {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = datagen::generate(spec, dir.path()).expect("generate");
    (dir, manifest)
}

/// One CSV line's fields (quoted fields unquoted).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    out.push(field);
    out
}

/// A bulk file's rows, without the header.
fn rows(dir: &Path, name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("bulk").join(name)).expect("bulk file");
    text.lines().skip(1).map(fields).collect()
}

/// Millis of a datetime field as the files write it.
fn millis(text: &str) -> Millis {
    let (date, time_of_day) = text.split_once('T').expect("datetime");
    let d: Vec<i64> = date.split('-').map(|x| x.parse().expect("date")).collect();
    let t = time_of_day.trim_end_matches('Z');
    let (hms, ms) = t.split_once('.').expect("millis");
    let h: Vec<i64> = hms.split(':').map(|x| x.parse().expect("time")).collect();
    time::millis(d[0], d[1] as u32, d[2] as u32)
        + h[0] * time::HOUR
        + h[1] * time::MINUTE
        + h[2] * time::SECOND
        + ms.parse::<i64>().expect("ms")
}

/// The bulk load read back: every node's id and creation time by label, the friendships.
struct Bulk {
    /// label -> id -> creation time (0 for nodes without one)
    nodes: HashMap<&'static str, HashMap<i64, Millis>>,
    knows: Vec<(i64, i64, Millis)>,
    names: HashMap<&'static str, HashSet<String>>,
}

impl Bulk {
    fn read(dir: &Path) -> Bulk {
        let mut nodes: HashMap<&'static str, HashMap<i64, Millis>> = HashMap::new();
        let mut names: HashMap<&'static str, HashSet<String>> = HashMap::new();
        for file in FILES {
            let Holds::Nodes(labels) = file.holds else {
                continue;
            };
            let date_at = file
                .header
                .split(',')
                .position(|c| c == "creationDate:datetime");
            let name_at = file.header.split(',').position(|c| c == "name");
            for row in rows(dir, file.name) {
                let id: i64 = row[0].parse().expect("integer id");
                let date = date_at.map_or(0, |i| millis(&row[i]));
                for label in labels {
                    let before = nodes.entry(label).or_default().insert(id, date);
                    assert!(before.is_none(), "id {id} twice among {label}");
                    if let Some(i) = name_at {
                        names.entry(label).or_default().insert(row[i].clone());
                    }
                }
            }
        }
        let knows = rows(dir, "person_knows_person.csv")
            .iter()
            .map(|r| {
                (
                    r[0].parse().expect("id"),
                    r[1].parse().expect("id"),
                    millis(&r[2]),
                )
            })
            .collect();
        Bulk {
            nodes,
            knows,
            names,
        }
    }

    fn has(&self, label: &str, id: i64) -> bool {
        self.nodes.get(label).is_some_and(|m| m.contains_key(&id))
    }

    fn created(&self, label: &str, id: i64) -> Millis {
        self.nodes[label][&id]
    }

    /// Distances from `source` over bulk friendships.
    fn distances(&self, source: i64) -> HashMap<i64, u32> {
        let mut adjacent: HashMap<i64, Vec<i64>> = HashMap::new();
        for &(a, b, _) in &self.knows {
            adjacent.entry(a).or_default().push(b);
            adjacent.entry(b).or_default().push(a);
        }
        let mut dist = HashMap::from([(source, 0)]);
        let mut queue = VecDeque::from([source]);
        while let Some(v) = queue.pop_front() {
            let d = dist[&v];
            for &w in adjacent.get(&v).map_or(&[][..], |n| n) {
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(w) {
                    e.insert(d + 1);
                    queue.push_back(w);
                }
            }
        }
        dist
    }
}

fn file_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut names = vec![
        "manifest.json".to_string(),
        "params.json".to_string(),
        "updates.jsonl".to_string(),
    ];
    names.extend(FILES.iter().map(|f| format!("bulk/{}", f.name)));
    names
        .into_iter()
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).expect("output file");
            (n, bytes)
        })
        .collect()
}

#[test]
fn a_spec_writes_the_same_files_byte_for_byte() {
    let spec = small(120, 7);
    let (a, _) = generated(&spec);
    let (b, _) = generated(&spec);
    for ((name, x), (_, y)) in file_bytes(a.path()).into_iter().zip(file_bytes(b.path())) {
        assert!(x == y, "{name} differs between two runs of one spec");
    }
    let (c, _) = generated(&small(120, 8));
    assert_ne!(
        std::fs::read(a.path().join("bulk/person.csv")).expect("read"),
        std::fs::read(c.path().join("bulk/person.csv")).expect("read"),
        "another seed, other people"
    );
    assert!(
        !a.path().join("updates.tmp").exists(),
        "the stream's day files are removed"
    );
}

#[test]
fn the_manifest_counts_the_rows_of_every_file() {
    let (dir, manifest) = generated(&small(120, 1));
    assert_eq!(
        manifest,
        datagen::read_manifest(dir.path()).expect("manifest")
    );
    assert_eq!(manifest.files.len(), FILES.len());
    for (entry, file) in manifest.files.iter().zip(FILES) {
        let text = std::fs::read_to_string(dir.path().join(&entry.path)).expect("file");
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(file.header), "{}", entry.path);
        assert_eq!(lines.count() as u64, entry.rows, "{}", entry.path);
    }
    let updates = datagen::read_updates(dir.path(), None).expect("updates");
    assert_eq!(updates.len() as u64, manifest.updates);
    if let (Some(first), Some(last)) = (updates.first(), updates.last()) {
        assert_eq!(
            (first.due, last.due),
            (manifest.stream_start, manifest.stream_end)
        );
    }
    let params = datagen::read_params(dir.path()).expect("params");
    let counted: HashMap<String, u64> = manifest.params.clone().into_iter().collect();
    for (kind, ops) in &params {
        assert_eq!(counted[kind.name()], ops.len() as u64);
    }
    assert_eq!(
        params.len(),
        21,
        "every complex and short read has its list"
    );
    assert_eq!(manifest.bulk_cutoff, time::millis(2012, 9, 13));
}

#[test]
fn every_relationship_ends_at_nodes_of_its_labels_and_dates_keep_causality() {
    let (dir, _) = generated(&small(150, 2));
    let bulk = Bulk::read(dir.path());
    for file in FILES {
        let Holds::Relationships { start, end, .. } = file.holds else {
            continue;
        };
        for row in rows(dir.path(), file.name) {
            let (s, e): (i64, i64) = (row[0].parse().expect("id"), row[1].parse().expect("id"));
            assert!(bulk.has(start, s), "{}: no {start} {s}", file.name);
            assert!(bulk.has(end, e), "{}: no {end} {e}", file.name);
        }
    }
    let in_window = |t: Millis| (time::WINDOW_START..time::BULK_CUTOFF).contains(&t);
    for label in ["Person", "Forum", "Post", "Comment"] {
        for (&id, &t) in &bulk.nodes[label] {
            assert!(in_window(t), "{label} {id} created outside the bulk window");
        }
    }
    // (file, start label, end label): the relationship's date (or, without one, the start
    // node's) comes after both ends were created.
    let dated = [
        ("person_knows_person.csv", "Person", "Person"),
        ("person_likes_post.csv", "Person", "Post"),
        ("person_likes_comment.csv", "Person", "Comment"),
        ("forum_hasMember_person.csv", "Forum", "Person"),
        ("forum_containerOf_post.csv", "Forum", "Post"),
        ("forum_hasModerator_person.csv", "Forum", "Person"),
        ("post_hasCreator_person.csv", "Post", "Person"),
        ("comment_hasCreator_person.csv", "Comment", "Person"),
        ("comment_replyOf_post.csv", "Comment", "Post"),
        ("comment_replyOf_comment.csv", "Comment", "Comment"),
    ];
    for (name, start, end) in dated {
        for row in rows(dir.path(), name) {
            let (s, e): (i64, i64) = (row[0].parse().expect("id"), row[1].parse().expect("id"));
            let (ts, te) = (bulk.created(start, s), bulk.created(end, e));
            let when = row.get(2).map(|t| millis(t));
            match (name, when) {
                (_, Some(t)) => {
                    assert!(in_window(t), "{name}: {s}-{e} at {t}");
                    assert!(
                        t > ts && t > te,
                        "{name}: {s}-{e} at {t}, ends at {ts}, {te}"
                    );
                }
                // The forum's content and replies come after their container, creator and
                // what they reply to; the moderator joined before the forum opened.
                ("forum_containerOf_post.csv", None) => assert!(te > ts, "{name}: {s}-{e}"),
                (_, None) => assert!(ts > te, "{name}: {s}-{e}"),
            }
        }
    }
}

/// What an update refers to (label, id), what it makes (label, id, creation time), and the
/// date it carries.
struct Refers {
    refs: Vec<(&'static str, i64)>,
    makes: Option<(&'static str, i64)>,
    date: Millis,
}

fn refers(op: &Operation) -> Refers {
    let tags = |ids: &[i64]| ids.iter().map(|&t| ("Tag", t)).collect::<Vec<_>>();
    let (refs, makes, date) = match op {
        Operation::Iu1(p) => {
            let mut refs = tags(&p.tag_ids);
            refs.push(("City", p.city_id));
            refs.extend(p.study_at.iter().map(|&(o, _)| ("University", o)));
            refs.extend(p.work_at.iter().map(|&(o, _)| ("Company", o)));
            (refs, Some(("Person", p.person_id)), p.creation_date)
        }
        Operation::Iu2 {
            person_id: p,
            post_id: m,
            creation_date,
        } => (vec![("Person", *p), ("Post", *m)], None, *creation_date),
        Operation::Iu3 {
            person_id: p,
            comment_id: m,
            creation_date,
        } => (vec![("Person", *p), ("Comment", *m)], None, *creation_date),
        Operation::Iu4(f) => {
            let mut refs = tags(&f.tag_ids);
            refs.push(("Person", f.moderator_person_id));
            (refs, Some(("Forum", f.forum_id)), f.creation_date)
        }
        Operation::Iu5 {
            forum_id,
            person_id,
            join_date,
        } => (
            vec![("Forum", *forum_id), ("Person", *person_id)],
            None,
            *join_date,
        ),
        Operation::Iu6(p) => {
            let mut refs = tags(&p.tag_ids);
            refs.extend([
                ("Person", p.author_person_id),
                ("Forum", p.forum_id),
                ("Country", p.country_id),
            ]);
            (refs, Some(("Post", p.post_id)), p.creation_date)
        }
        Operation::Iu7(c) => {
            let mut refs = tags(&c.tag_ids);
            refs.extend([("Person", c.author_person_id), ("Country", c.country_id)]);
            match (c.reply_to_post_id, c.reply_to_comment_id) {
                (post, -1) => refs.push(("Post", post)),
                (-1, comment) => refs.push(("Comment", comment)),
                other => panic!("a comment replies to one message, not {other:?}"),
            }
            (refs, Some(("Comment", c.comment_id)), c.creation_date)
        }
        Operation::Iu8 {
            person1_id,
            person2_id,
            creation_date,
        } => (
            vec![("Person", *person1_id), ("Person", *person2_id)],
            None,
            *creation_date,
        ),
        other => panic!("a read in the update stream: {other:?}"),
    };
    Refers { refs, makes, date }
}

#[test]
fn updates_refer_to_the_bulk_or_to_updates_due_by_their_dependency() {
    let (dir, _) = generated(&small(150, 3));
    let bulk = Bulk::read(dir.path());
    let updates = datagen::read_updates(dir.path(), None).expect("updates");
    // label -> id -> the due time of the update that made it
    let mut made: HashMap<&str, HashMap<i64, Millis>> = HashMap::new();
    let mut last_due = Millis::MIN;
    for u in &updates {
        assert!(u.due >= last_due, "the stream is sorted by due time");
        last_due = u.due;
        assert!(u.depends_on <= u.due, "{u:?}");
        assert!(
            (time::BULK_CUTOFF..time::WINDOW_END).contains(&u.due),
            "{u:?} is due outside the stream's window"
        );
        let Refers { refs, makes, date } = refers(&u.op);
        assert_eq!(date, u.due, "an update is due when it happened: {u:?}");
        for (label, id) in refs {
            let made_by_then = made
                .get(label)
                .and_then(|m| m.get(&id))
                .is_some_and(|&due| due <= u.depends_on);
            assert!(bulk.has(label, id) || made_by_then, "{label} {id} of {u:?}");
        }
        if let Some((label, id)) = makes {
            let labels: &[&'static str] = match label {
                "Post" | "Comment" => &[label, "Message"],
                _ => &[label],
            };
            for &l in labels {
                assert!(!bulk.has(l, id), "{l} {id} is in the bulk and the stream");
                let before = made.entry(l).or_default().insert(id, u.due);
                assert!(before.is_none(), "{l} {id} made twice");
            }
        }
    }
}

/// What a parameter names: people, messages, (label, name) pairs, dates in the bulk window,
/// windows (start, days) that end by the cutoff.
#[derive(Default)]
struct Names {
    people: Vec<i64>,
    messages: Vec<i64>,
    named: Vec<(&'static str, String)>,
    dates: Vec<Millis>,
    windows: Vec<(Millis, i64)>,
}

fn names(op: &Operation) -> Names {
    let person = |id: &i64| Names {
        people: vec![*id],
        ..Names::default()
    };
    let message = |id: &i64| Names {
        messages: vec![*id],
        ..Names::default()
    };
    let n = match op {
        Operation::Ic1 { person_id, .. }
        | Operation::Ic7 { person_id }
        | Operation::Ic8 { person_id }
        | Operation::Ic10 { person_id, .. }
        | Operation::Is1 { person_id }
        | Operation::Is2 { person_id }
        | Operation::Is3 { person_id } => person(person_id),
        Operation::Ic2 {
            person_id,
            max_date: date,
        }
        | Operation::Ic9 {
            person_id,
            max_date: date,
        }
        | Operation::Ic5 {
            person_id,
            min_date: date,
        } => Names {
            dates: vec![*date],
            ..person(person_id)
        },
        Operation::Ic3 {
            person_id,
            country_x_name: x,
            country_y_name: y,
            start_date,
            duration_days,
        } => {
            assert_ne!(x, y, "IC3 names two countries");
            Names {
                named: vec![("Country", x.clone()), ("Country", y.clone())],
                windows: vec![(*start_date, *duration_days)],
                ..person(person_id)
            }
        }
        Operation::Ic4 {
            person_id,
            start_date,
            duration_days,
        } => Names {
            windows: vec![(*start_date, *duration_days)],
            ..person(person_id)
        },
        Operation::Ic6 {
            person_id,
            tag_name,
        } => Names {
            named: vec![("Tag", tag_name.clone())],
            ..person(person_id)
        },
        Operation::Ic11 {
            person_id,
            country_name,
            ..
        } => Names {
            named: vec![("Country", country_name.clone())],
            ..person(person_id)
        },
        Operation::Ic12 {
            person_id,
            tag_class_name,
        } => Names {
            named: vec![("TagClass", tag_class_name.clone())],
            ..person(person_id)
        },
        Operation::Ic13 {
            person1_id,
            person2_id,
        }
        | Operation::Ic14 {
            person1_id,
            person2_id,
        } => Names {
            people: vec![*person1_id, *person2_id],
            ..Names::default()
        },
        Operation::Is4 { message_id }
        | Operation::Is5 { message_id }
        | Operation::Is6 { message_id }
        | Operation::Is7 { message_id } => message(message_id),
        other => panic!("an update among the parameters: {other:?}"),
    };
    if let Operation::Ic10 { month, .. } = op {
        assert!((1..=12).contains(month), "{op:?}");
    }
    n
}

#[test]
fn parameters_name_entities_of_the_bulk_load() {
    let spec = small(150, 4);
    let (dir, _) = generated(&spec);
    let bulk = Bulk::read(dir.path());
    let params = datagen::read_params(dir.path()).expect("params");
    let first_names: HashMap<i64, String> = rows(dir.path(), "person.csv")
        .into_iter()
        .map(|r| (r[0].parse().expect("id"), r[1].clone()))
        .collect();
    let in_bulk = |t: Millis| (time::WINDOW_START..time::BULK_CUTOFF).contains(&t);
    for (kind, ops) in &params {
        assert!(ops.len() <= spec.params_per_kind, "{kind:?}");
        for op in ops {
            assert_eq!(op.kind(), *kind);
            let n = names(op);
            for id in n.people {
                assert!(bulk.has("Person", id), "person {id} of {op:?}");
            }
            for id in n.messages {
                assert!(bulk.has("Message", id), "message {id} of {op:?}");
            }
            for (label, name) in n.named {
                assert!(
                    bulk.names[label].contains(&name),
                    "{label} {name} of {op:?}"
                );
            }
            for t in n.dates {
                assert!(in_bulk(t), "{op:?}");
            }
            for (start, days) in n.windows {
                assert!(in_bulk(start) && start + days * time::DAY <= time::BULK_CUTOFF);
            }
            match op {
                Operation::Ic1 {
                    person_id,
                    first_name,
                } => {
                    let near = bulk.distances(*person_id);
                    assert!(
                        near.iter().any(|(q, &d)| (1..=3).contains(&d)
                            && first_names.get(q) == Some(first_name)),
                        "nobody named {first_name} within three hops of {person_id}"
                    );
                }
                Operation::Ic13 {
                    person1_id,
                    person2_id,
                }
                | Operation::Ic14 {
                    person1_id,
                    person2_id,
                } => {
                    let d = bulk.distances(*person1_id).get(person2_id).copied();
                    assert!(
                        d.is_none_or(|d| (2..=5).contains(&d)),
                        "{person1_id} and {person2_id} at distance {d:?}"
                    );
                }
                _ => {}
            }
        }
    }
    // What the curation promises whenever the bulk load allows it.
    let full = |kind: Kind| assert_eq!(params[&kind].len(), spec.params_per_kind, "{kind:?}");
    if !bulk.nodes["Person"].is_empty() {
        full(Kind::Is1);
    }
    if !bulk.knows.is_empty() {
        for kind in [
            Kind::Ic1,
            Kind::Ic2,
            Kind::Ic4,
            Kind::Ic5,
            Kind::Ic9,
            Kind::Ic10,
            Kind::Is3,
        ] {
            full(kind);
        }
    }
    if bulk.nodes.get("Message").is_some_and(|m| !m.is_empty()) {
        for kind in [
            Kind::Is4,
            Kind::Is5,
            Kind::Is6,
            Kind::Ic7,
            Kind::Ic8,
            Kind::Is2,
        ] {
            full(kind);
        }
    }
}

#[test]
fn scale_factors_name_their_sizes() {
    let persons = |sf: &str| Spec::scale_factor(sf).expect("known scale").persons;
    assert_eq!(
        [persons("0.1"), persons("1"), persons("3"), persons("10")],
        [1_500, 10_000, 27_000, 65_000]
    );
    assert!(Spec::scale_factor("30").is_err());
}

fn count(db: &Database, query: &str) -> u64 {
    let mut rows = db.execute(query, Map::new()).expect(query).rows;
    match rows.pop().and_then(|mut r| r.pop()) {
        Some(Value::Int(n)) => n as u64,
        other => panic!("{query}: {other:?}"),
    }
}

#[test]
fn the_bulk_files_import_into_a_database_with_the_manifests_counts() {
    let (dir, manifest) = generated(&small(60, 5));
    let data = dir.path().join("db");
    let summary = datagen::import(dir.path(), &data).expect("import");
    assert_eq!(
        (summary.nodes, summary.relationships),
        (manifest.nodes(), manifest.relationships())
    );
    let db = Database::open(&data, Mode::Buffered).expect("open the imported directory");
    assert_eq!(count(&db, "MATCH (n) RETURN count(n)"), manifest.nodes());
    assert_eq!(
        count(&db, "MATCH ()-[r]->() RETURN count(r)"),
        manifest.relationships()
    );
    for label in [
        "Person",
        "Message",
        "Post",
        "Comment",
        "Place",
        "Organisation",
        "Forum",
        "Tag",
    ] {
        assert_eq!(
            count(&db, &format!("MATCH (n:{label}) RETURN count(n)")),
            manifest.rows_with(label),
            "{label}"
        );
    }
    for ty in [
        "KNOWS",
        "LIKES",
        "HAS_MEMBER",
        "REPLY_OF",
        "IS_LOCATED_IN",
        "HAS_TAG",
    ] {
        assert_eq!(
            count(&db, &format!("MATCH ()-[r:{ty}]->() RETURN count(r)")),
            manifest.rows_with(ty),
            "{ty}"
        );
    }
    for statement in datagen::SCHEMA {
        db.execute(statement, Map::new()).expect(statement);
    }
    let ids = db
        .execute(
            "MATCH (t:Tag) RETURN t.id ORDER BY t.id LIMIT 1",
            Map::new(),
        )
        .expect("tag ids")
        .rows;
    assert_eq!(ids, vec![vec![Value::Int(0)]], "ids are integers");
}
