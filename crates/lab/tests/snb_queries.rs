//! The SNB Interactive queries against a small graph built by hand, run through Quiver's
//! engine in process: every complex and short read returns the rows the specification's
//! definition gives on it, and every update is seen by the read that follows it.
//!
//! The graph (all times in 2012, UTC):
//!
//! ```text
//! KNOWS:  1 ─ 2, 1 ─ 3, 1 ─ 9, 2 ─ 3, 2 ─ 5, 2 ─ 8, 3 ─ 4, 3 ─ 5, 4 ─ 6, 6 ─ 7, 9 ─ 10, 10 ─ 11
//!         12 knows no one.
//! from 1: distance 1 {2, 3, 9}; 2 {4, 5, 8, 10}; 3 {6, 11}; 4 {7}
//! ```
//!
//! Person 1 (Jan Kowalski, Berlin, interested in Mozart and Chess) starts most reads. Forums
//! 2000 "Berlin fans" (moderator 1), 2001 "Paris walks" (moderator 2) and 2002 "Empty room"
//! (moderator 3). Tag classes: Thing ⊃ Artist ⊃ Musician, Thing ⊃ Sport; tags Mozart and
//! Beatles are Musician, Picasso Artist, Football, Chess and Tennis Sport.

use std::fmt::Write as _;
use std::sync::Arc;

use quiver_engine::{Database, EngineConfig, PlanDescription};
use quiver_lab::snb::datagen::SCHEMA;
use quiver_lab::snb::ops::{
    AddComment, AddForum, AddPerson, AddPost, Class, Kind, Millis, Operation,
};
use quiver_lab::snb::queries::{date, datetime, result_ids, statement, text};
use quiver_value::temporal::calendar::days_from_ymd;
use quiver_value::{Map, Value};

/// Milliseconds of `YYYY-MM-DDTHH:MM[:SS]`, UTC.
fn at(when: &str) -> Millis {
    let n = |range: std::ops::Range<usize>| -> i64 { when[range].parse().expect(when) };
    let day = days_from_ymd(n(0..4), n(5..7) as u32, n(8..10) as u32);
    let seconds = if when.len() > 16 { n(17..19) } else { 0 };
    ((day * 24 + n(11..13)) * 60 + n(14..16)) * 60_000 + seconds * 1000
}

fn t(when: &str) -> Value {
    datetime(at(when))
}

fn i(n: i64) -> Value {
    Value::Int(n)
}

fn s(text: &str) -> Value {
    Value::String(Arc::from(text))
}

fn b(flag: bool) -> Value {
    Value::Bool(flag)
}

fn ids(items: &[i64]) -> Value {
    Value::List(items.iter().map(|&n| i(n)).collect())
}

fn map(entries: &[(&str, Value)]) -> Value {
    let m: Map = entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect();
    Value::Map(Arc::new(m))
}

fn run(db: &Database, query: &str, params: Map) -> (Vec<Arc<str>>, Vec<Vec<Value>>) {
    let r = db
        .execute(query, params)
        .unwrap_or_else(|e| panic!("{e}\n{query}"));
    (r.columns, r.rows)
}

/// Rows of an operation, as its columns name them.
struct Answer {
    columns: Vec<Arc<str>>,
    rows: Vec<Vec<Value>>,
}

impl Answer {
    /// The named columns of every row, in row order.
    fn pick(&self, names: &[&str]) -> Vec<Vec<Value>> {
        let at: Vec<usize> = names
            .iter()
            .map(|n| {
                self.columns
                    .iter()
                    .position(|c| &**c == *n)
                    .unwrap_or_else(|| panic!("no column {n} in {:?}", self.columns))
            })
            .collect();
        self.rows
            .iter()
            .map(|row| at.iter().map(|&k| row[k].clone()).collect())
            .collect()
    }

    fn column(&self, name: &str) -> Vec<Value> {
        self.pick(&[name])
            .into_iter()
            .map(|mut r| r.remove(0))
            .collect()
    }
}

fn op(db: &Database, op: &Operation) -> Answer {
    let st = statement(op);
    let (columns, rows) = run(db, st.text, st.params);
    Answer { columns, rows }
}

const PERSONS: &[(i64, &str, &str, &str, i64)] = &[
    // id, first name, last name, birthday, city
    (1, "Jan", "Kowalski", "1989-03-10", 1200),
    (2, "Jan", "Zimmer", "1991-03-30", 1201),
    (3, "Carol", "Lee", "1986-07-01", 1202),
    (4, "Jan", "Abel", "1990-03-21", 1203),
    (5, "Jan", "Abel", "1985-04-21", 1204),
    (6, "Jan", "Baker", "1990-03-25", 1200),
    (7, "Jan", "Young", "1980-01-01", 1201),
    (8, "Eve", "Stone", "1992-04-22", 1200),
    (9, "Jan", "Adams", "1993-06-15", 1202),
    (10, "Fay", "Moss", "1987-12-31", 1201),
    (11, "Gus", "Hill", "1979-09-09", 1203),
    (12, "Hal", "Ito", "1984-02-02", 1202),
];

const KNOWS: &[(i64, i64, &str)] = &[
    (1, 2, "2012-01-01T00:00"),
    (1, 3, "2012-01-01T00:00"),
    (1, 9, "2012-01-02T00:00"),
    (2, 3, "2012-01-01T00:00"),
    (2, 5, "2012-01-01T00:00"),
    (2, 8, "2012-01-01T00:00"),
    (3, 4, "2012-01-01T00:00"),
    (3, 5, "2012-01-01T00:00"),
    (4, 6, "2012-01-01T00:00"),
    (6, 7, "2012-01-01T00:00"),
    (9, 10, "2012-01-01T00:00"),
    (10, 11, "2012-01-01T00:00"),
];

// Countries: 1100 Germany, 1101 France, 1102 China, 1103 India.
const GERMANY: i64 = 1100;
const FRANCE: i64 = 1101;
const CHINA: i64 = 1102;

// Tags.
const MOZART: i64 = 1600;
const PICASSO: i64 = 1601;
const FOOTBALL: i64 = 1602;
const CHESS: i64 = 1603;
const BEATLES: i64 = 1604;
const TENNIS: i64 = 1605;

/// A post: id, author, time, forum, country, tags, and an image file instead of text when
/// given. Its text is `p<id>`.
type PostRow = (
    i64,
    i64,
    &'static str,
    i64,
    i64,
    &'static [i64],
    &'static str,
);
const POSTS: &[PostRow] = &[
    (
        3001,
        1,
        "2012-01-03T10:00",
        2000,
        GERMANY,
        &[FOOTBALL, BEATLES],
        "",
    ),
    (
        3002,
        1,
        "2012-01-06T12:00",
        2000,
        GERMANY,
        &[],
        "photo3002.jpg",
    ),
    (3010, 2, "2012-01-12T09:00", 2000, CHINA, &[FOOTBALL], ""),
    (3011, 2, "2012-01-20T00:00", 2000, FRANCE, &[TENNIS], ""),
    (
        3012,
        2,
        "2012-01-08T00:00",
        2000,
        GERMANY,
        &[MOZART, PICASSO],
        "",
    ),
    (3020, 3, "2012-01-05T00:00", 2000, GERMANY, &[CHESS], ""),
    (
        3021,
        3,
        "2012-01-15T00:00",
        2000,
        GERMANY,
        &[FOOTBALL, MOZART],
        "",
    ),
    (3022, 3, "2012-01-10T00:00", 2000, GERMANY, &[BEATLES], ""),
    (
        3030,
        9,
        "2012-01-11T00:00",
        2001,
        GERMANY,
        &[CHESS, TENNIS],
        "",
    ),
    (3040, 4, "2012-01-21T00:00", 2000, FRANCE, &[MOZART], ""),
    (
        3041,
        4,
        "2012-01-22T00:00",
        2001,
        FRANCE,
        &[FOOTBALL, CHESS],
        "",
    ),
    (3042, 4, "2012-01-23T00:00", 2001, CHINA, &[], ""),
    (
        3050,
        5,
        "2012-01-20T00:00",
        2001,
        FRANCE,
        &[CHESS, FOOTBALL],
        "",
    ),
    (
        3060,
        6,
        "2012-01-21T00:00",
        2000,
        FRANCE,
        &[FOOTBALL, CHESS],
        "",
    ),
    (3080, 8, "2012-01-21T00:00", 2000, FRANCE, &[], ""),
    (3081, 8, "2012-01-22T00:00", 2000, FRANCE, &[], ""),
    (3100, 10, "2012-01-26T00:00", 2001, GERMANY, &[FOOTBALL], ""),
];

/// A comment: id, author, time, the message it replies to, country, tags. Its text is
/// `c<id>`.
type CommentRow = (i64, i64, &'static str, i64, i64, &'static [i64]);
const COMMENTS: &[CommentRow] = &[
    (4001, 1, "2012-01-09T08:00", 3012, GERMANY, &[]),
    (4002, 3, "2012-01-04T09:00", 3001, GERMANY, &[]),
    (4003, 5, "2012-01-04T09:00", 3001, GERMANY, &[]),
    (4004, 2, "2012-01-10T00:00", 4001, GERMANY, &[]),
    (4005, 8, "2012-01-06T00:00", 4002, GERMANY, &[]),
    (4006, 5, "2012-01-13T00:00", 3010, GERMANY, &[]),
    (4007, 5, "2012-01-05T12:00", 4002, GERMANY, &[]),
    (4008, 2, "2012-01-21T00:00", 3040, CHINA, &[]),
    (4009, 9, "2012-01-14T00:00", 3010, GERMANY, &[]),
    (4010, 3, "2012-01-14T00:00", 3012, GERMANY, &[]),
    (4011, 1, "2012-01-03T12:00", 3001, GERMANY, &[]),
    (4050, 5, "2012-01-22T00:00", 3040, CHINA, &[]),
    (4051, 5, "2012-01-25T00:00", 3040, FRANCE, &[]),
    (4060, 6, "2012-01-22T00:00", 3060, CHINA, &[]),
    (4080, 8, "2012-01-23T00:00", 3080, FRANCE, &[]),
];

/// Likes: person, message, time.
const LIKES: &[(i64, i64, &str)] = &[
    (2, 3001, "2012-01-04T10:00"),
    (2, 3002, "2012-01-07T12:30"),
    (3, 3001, "2012-01-07T12:30"),
    (8, 3001, "2012-01-08T00:00"),
    (8, 3002, "2012-01-08T00:00"),
    (10, 4001, "2012-01-09T08:10:30"),
    (1, 3010, "2012-01-13T00:00"),
];

/// Forum memberships: forum, person, join time.
const MEMBERS: &[(i64, i64, &str)] = &[
    (2000, 2, "2012-01-05T00:00"),
    (2000, 3, "2012-01-10T00:00"),
    (2000, 4, "2012-01-20T00:00"),
    (2000, 8, "2012-01-02T00:00"),
    (2001, 4, "2012-01-25T00:00"),
    (2001, 5, "2012-01-03T00:00"),
    (2001, 9, "2012-01-04T00:00"),
    (2001, 10, "2012-01-21T00:00"),
    (2002, 5, "2012-01-30T00:00"),
];

/// Places, organisations, tags and forums: the graph's fixed frame.
const FRAME: &str = "
CREATE (europe:Continent:Place {id: 1000, name: 'Europe', url: 'u'}),
       (asia:Continent:Place {id: 1001, name: 'Asia', url: 'u'}),
       (germany:Country:Place {id: 1100, name: 'Germany', url: 'u'})-[:IS_PART_OF]->(europe),
       (france:Country:Place {id: 1101, name: 'France', url: 'u'})-[:IS_PART_OF]->(europe),
       (china:Country:Place {id: 1102, name: 'China', url: 'u'})-[:IS_PART_OF]->(asia),
       (india:Country:Place {id: 1103, name: 'India', url: 'u'})-[:IS_PART_OF]->(asia),
       (berlin:City:Place {id: 1200, name: 'Berlin', url: 'u'})-[:IS_PART_OF]->(germany),
       (paris:City:Place {id: 1201, name: 'Paris', url: 'u'})-[:IS_PART_OF]->(france),
       (:City:Place {id: 1202, name: 'Beijing', url: 'u'})-[:IS_PART_OF]->(china),
       (:City:Place {id: 1203, name: 'Delhi', url: 'u'})-[:IS_PART_OF]->(india),
       (:City:Place {id: 1204, name: 'Munich', url: 'u'})-[:IS_PART_OF]->(germany),
       (:University:Organisation {id: 1300, name: 'TU Berlin', url: 'u'})-[:IS_LOCATED_IN]->(berlin),
       (:University:Organisation {id: 1301, name: 'Sorbonne', url: 'u'})-[:IS_LOCATED_IN]->(paris),
       (:Company:Organisation {id: 1400, name: 'Acme', url: 'u'})-[:IS_LOCATED_IN]->(germany),
       (:Company:Organisation {id: 1401, name: 'Globex', url: 'u'})-[:IS_LOCATED_IN]->(france),
       (:Company:Organisation {id: 1402, name: 'Initech', url: 'u'})-[:IS_LOCATED_IN]->(china),
       (:Company:Organisation {id: 1403, name: 'Hansa', url: 'u'})-[:IS_LOCATED_IN]->(germany),
       (thing:TagClass {id: 1500, name: 'Thing', url: 'u'}),
       (artist:TagClass {id: 1501, name: 'Artist', url: 'u'})-[:IS_SUBCLASS_OF]->(thing),
       (musician:TagClass {id: 1502, name: 'Musician', url: 'u'})-[:IS_SUBCLASS_OF]->(artist),
       (sport:TagClass {id: 1503, name: 'Sport', url: 'u'})-[:IS_SUBCLASS_OF]->(thing),
       (:Tag {id: 1600, name: 'Mozart', url: 'u'})-[:HAS_TYPE]->(musician),
       (:Tag {id: 1601, name: 'Picasso', url: 'u'})-[:HAS_TYPE]->(artist),
       (:Tag {id: 1602, name: 'Football', url: 'u'})-[:HAS_TYPE]->(sport),
       (:Tag {id: 1603, name: 'Chess', url: 'u'})-[:HAS_TYPE]->(sport),
       (:Tag {id: 1604, name: 'Beatles', url: 'u'})-[:HAS_TYPE]->(musician),
       (:Tag {id: 1605, name: 'Tennis', url: 'u'})-[:HAS_TYPE]->(sport)";

/// Persons' places, interests, studies and jobs, and the forums with their moderators.
const TIES: &str = "
MATCH (p1:Person {id: 1}), (p2:Person {id: 2}), (p3:Person {id: 3}), (p4:Person {id: 4}),
      (p5:Person {id: 5}), (p6:Person {id: 6}), (p8:Person {id: 8}),
      (mozart:Tag {id: 1600}), (chess:Tag {id: 1603}),
      (tub:University {id: 1300}), (sorbonne:University {id: 1301}),
      (acme:Company {id: 1400}), (globex:Company {id: 1401}), (hansa:Company {id: 1403})
CREATE (p1)-[:HAS_INTEREST]->(mozart), (p1)-[:HAS_INTEREST]->(chess),
       (p2)-[:STUDY_AT {classYear: 2005}]->(sorbonne),
       (p2)-[:WORK_AT {workFrom: 2008}]->(globex), (p2)-[:WORK_AT {workFrom: 2010}]->(acme),
       (p4)-[:STUDY_AT {classYear: 2001}]->(tub), (p4)-[:WORK_AT {workFrom: 2005}]->(acme),
       (p5)-[:WORK_AT {workFrom: 2009}]->(acme), (p5)-[:WORK_AT {workFrom: 2009}]->(hansa),
       (p6)-[:WORK_AT {workFrom: 2000}]->(acme),
       (p8)-[:WORK_AT {workFrom: 2005}]->(acme),
       (:Forum {id: 2000, title: 'Berlin fans', creationDate: datetime('2012-01-01T00:00Z')})
         -[:HAS_MODERATOR]->(p1),
       (:Forum {id: 2001, title: 'Paris walks', creationDate: datetime('2012-01-01T00:00Z')})
         -[:HAS_MODERATOR]->(p2),
       (:Forum {id: 2002, title: 'Empty room', creationDate: datetime('2012-01-01T00:00Z')})
         -[:HAS_MODERATOR]->(p3)";

/// The graph above, with the data set's constraints ([`SCHEMA`]).
fn graph() -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig::default());
    add_persons(&db);
    add_messages(&db);
    db
}

/// `$rows` bound to `items`.
fn rows(items: Vec<Value>) -> Map {
    [(Arc::from("rows"), Value::List(items.into()))].into()
}

/// The constraints, the frame, persons with their ties, friendships and memberships.
fn add_persons(db: &Database) {
    for statement in SCHEMA {
        run(db, statement, Map::new());
    }
    run(db, FRAME, Map::new());
    let persons = PERSONS
        .iter()
        .map(|&(id, first, last, birthday, city)| {
            let n = |r: std::ops::Range<usize>| -> i64 { birthday[r].parse().expect(birthday) };
            let days = days_from_ymd(n(0..4), n(5..7) as u32, n(8..10) as u32);
            map(&[
                ("id", i(id)),
                ("firstName", s(first)),
                ("lastName", s(last)),
                ("birthday", date(i32::try_from(days).expect("a 2012 date"))),
                ("city", i(city)),
            ])
        })
        .collect();
    run(
        db,
        "UNWIND $persons AS p
         MATCH (city:City {id: p.city})
         CREATE (:Person {id: p.id, firstName: p.firstName, lastName: p.lastName,
                          gender: 'female', birthday: p.birthday,
                          creationDate: datetime('2011-12-01T00:00Z'), locationIP: '10.0.0.1',
                          browserUsed: 'Firefox', languages: ['en'], emails: ['x@example.org']})
                -[:IS_LOCATED_IN]->(city)",
        [(Arc::from("persons"), Value::List(persons))].into(),
    );
    run(db, TIES, Map::new());
    let knows = KNOWS
        .iter()
        .map(|&(a, b, when)| map(&[("a", i(a)), ("b", i(b)), ("at", t(when))]))
        .collect();
    run(
        db,
        "UNWIND $rows AS k MATCH (a:Person {id: k.a}), (b:Person {id: k.b})
         CREATE (a)-[:KNOWS {creationDate: k.at}]->(b)",
        rows(knows),
    );
    let members = MEMBERS
        .iter()
        .map(|&(f, p, when)| map(&[("f", i(f)), ("p", i(p)), ("at", t(when))]))
        .collect();
    run(
        db,
        "UNWIND $rows AS m MATCH (f:Forum {id: m.f}), (p:Person {id: m.p})
         CREATE (f)-[:HAS_MEMBER {joinDate: m.at}]->(p)",
        rows(members),
    );
}

/// Posts, comments, likes.
fn add_messages(db: &Database) {
    let posts = POSTS
        .iter()
        .map(|&(id, author, when, forum, country, tags, image)| {
            let (content, image) = if image.is_empty() {
                (s(&format!("p{id}")), Value::Null)
            } else {
                (Value::Null, s(image))
            };
            map(&[
                ("id", i(id)),
                ("author", i(author)),
                ("at", t(when)),
                ("forum", i(forum)),
                ("country", i(country)),
                ("tags", ids(tags)),
                ("content", content),
                ("image", image),
            ])
        })
        .collect();
    run(
        db,
        "UNWIND $rows AS p
         MATCH (a:Person {id: p.author}), (f:Forum {id: p.forum}), (c:Country {id: p.country})
         CREATE (f)-[:CONTAINER_OF]->(m:Post:Message {id: p.id, creationDate: p.at,
                   content: p.content, imageFile: p.image, locationIP: '10.0.0.1',
                   browserUsed: 'Firefox', language: 'en', length: 5})-[:HAS_CREATOR]->(a),
                (m)-[:IS_LOCATED_IN]->(c)
         WITH m, p UNWIND p.tags AS tagId MATCH (tag:Tag {id: tagId}) CREATE (m)-[:HAS_TAG]->(tag)",
        rows(posts),
    );
    // Each comment replies to an earlier row's message, so they are made one at a time.
    for &(id, author, when, parent, country, tags) in COMMENTS {
        let params: Map = [
            (Arc::from("id"), i(id)),
            (Arc::from("author"), i(author)),
            (Arc::from("at"), t(when)),
            (Arc::from("parent"), i(parent)),
            (Arc::from("country"), i(country)),
            (Arc::from("tags"), ids(tags)),
            (Arc::from("content"), s(&format!("c{id}"))),
        ]
        .into();
        run(
            db,
            "MATCH (a:Person {id: $author}), (parent:Message {id: $parent}), (c:Country {id: $country})
             CREATE (parent)<-[:REPLY_OF]-(m:Comment:Message {id: $id, creationDate: $at,
                       content: $content, locationIP: '10.0.0.1', browserUsed: 'Firefox',
                       length: 3})-[:HAS_CREATOR]->(a),
                    (m)-[:IS_LOCATED_IN]->(c)
             WITH m UNWIND $tags AS tagId MATCH (tag:Tag {id: tagId}) CREATE (m)-[:HAS_TAG]->(tag)",
            params,
        );
    }
    let likes = LIKES
        .iter()
        .map(|&(p, m, when)| map(&[("p", i(p)), ("m", i(m)), ("at", t(when))]))
        .collect();
    run(
        db,
        "UNWIND $rows AS l MATCH (p:Person {id: l.p}), (m:Message {id: l.m})
         CREATE (p)-[:LIKES {creationDate: l.at}]->(m)",
        rows(likes),
    );
    // Person 12's eleven posts, one a day from the 1st; the last two on the same day.
    run(
        db,
        "MATCH (p:Person {id: 12}), (f:Forum {id: 2002}), (c:Country {id: 1102})
         UNWIND range(1, 11) AS k
         CREATE (f)-[:CONTAINER_OF]->(m:Post:Message {id: 3200 + k,
                   creationDate: datetime('2012-01-01T00:00Z') + duration({days: CASE k WHEN 11 THEN 9 ELSE k - 1 END}),
                   content: 'p' + toString(3200 + k), locationIP: '10.0.0.1',
                   browserUsed: 'Firefox', language: 'en', length: 5})-[:HAS_CREATOR]->(p),
                (m)-[:IS_LOCATED_IN]->(c)",
        Map::new(),
    );
}

fn ic1(person_id: i64, first_name: &str) -> Operation {
    Operation::Ic1 {
        person_id,
        first_name: first_name.into(),
    }
}

#[test]
fn ic1_ranks_namesakes_by_distance_then_last_name_then_id() {
    let db = graph();
    let a = op(&db, &ic1(1, "Jan"));
    // Person 1 is a Jan too, and three hops away from itself round the triangle 1-2-3: the
    // start is excluded. Distance 1: Adams (9) before Zimmer (2), by last name; distance 2:
    // the two Abels, 4 before 5 by id; distance 3: Baker (6). Young (7) is four hops away.
    assert_eq!(
        a.pick(&["friendId", "distanceFromPerson", "friendLastName"]),
        [
            vec![i(9), i(1), s("Adams")],
            vec![i(2), i(1), s("Zimmer")],
            vec![i(4), i(2), s("Abel")],
            vec![i(5), i(2), s("Abel")],
            vec![i(6), i(3), s("Baker")],
        ]
    );
    assert_eq!(
        a.columns.iter().map(|c| &**c).collect::<Vec<_>>(),
        [
            "friendId",
            "friendLastName",
            "distanceFromPerson",
            "friendBirthday",
            "friendCreationDate",
            "friendGender",
            "friendBrowserUsed",
            "friendLocationIp",
            "friendEmails",
            "friendLanguages",
            "friendCityName",
            "friendUniversities",
            "friendCompanies",
        ]
    );
    // Zimmer's summary: where they live, the university with its year and city, and both
    // companies with their years and countries (in no defined order).
    let zimmer = &a.rows[1];
    assert_eq!(
        zimmer[3],
        date(i32::try_from(days(1991, 3, 30)).expect("fits"))
    );
    assert_eq!(zimmer[10], s("Paris"));
    assert_eq!(
        zimmer[11],
        Value::List(vec![Value::List(vec![s("Sorbonne"), i(2005), s("Paris")].into())].into())
    );
    let mut companies = zimmer[12].as_list().expect("a list").to_vec();
    companies.sort_by_key(|c| format!("{c:?}"));
    assert_eq!(
        companies,
        [
            Value::List(vec![s("Acme"), i(2010), s("Germany")].into()),
            Value::List(vec![s("Globex"), i(2008), s("France")].into()),
        ]
    );
    // Adams studied and worked nowhere: empty lists, not a list holding a null.
    assert_eq!(a.rows[0][11], Value::List(Vec::new().into()));
    assert_eq!(a.rows[0][12], Value::List(Vec::new().into()));
    // No Carol but the start's own friend 3: a name found at distance 1 only.
    assert_eq!(op(&db, &ic1(1, "Carol")).column("friendId"), [i(3)]);
    assert!(op(&db, &ic1(1, "Nobody")).rows.is_empty());
}

fn days(y: i64, m: u32, d: u32) -> i64 {
    days_from_ymd(y, m, d)
}

#[test]
fn ic2_lists_friends_messages_up_to_and_including_the_date() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic2 {
            person_id: 1,
            max_date: at("2012-01-15T00:00"),
        },
    );
    // Friends 2, 3 and 9. Post 3021 is at the bound itself and is kept; 2's later messages
    // (3011, 4008) are not. Messages sharing a time (4009 and 4010, 3022 and 4004) come by
    // id ascending. The start's own messages and friends of friends' (5's comments) are
    // not friends' messages.
    assert_eq!(
        a.pick(&["messageId", "personId", "messageCreationDate"]),
        [
            vec![i(3021), i(3), t("2012-01-15T00:00")],
            vec![i(4009), i(9), t("2012-01-14T00:00")],
            vec![i(4010), i(3), t("2012-01-14T00:00")],
            vec![i(3010), i(2), t("2012-01-12T09:00")],
            vec![i(3030), i(9), t("2012-01-11T00:00")],
            vec![i(3022), i(3), t("2012-01-10T00:00")],
            vec![i(4004), i(2), t("2012-01-10T00:00")],
            vec![i(3012), i(2), t("2012-01-08T00:00")],
            vec![i(3020), i(3), t("2012-01-05T00:00")],
            vec![i(4002), i(3), t("2012-01-04T09:00")],
        ]
    );
    assert_eq!(
        a.pick(&["personFirstName", "personLastName", "messageContent"])[0],
        [s("Carol"), s("Lee"), s("p3021")]
    );
}

#[test]
fn ic3_counts_messages_in_both_countries_by_friends_living_elsewhere() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic3 {
            person_id: 1,
            country_x_name: "France".into(),
            country_y_name: "China".into(),
            start_date: at("2012-01-20T00:00"),
            duration_days: 5,
        },
    );
    // The window is [20th, 25th). 4 (in India) wrote two messages located in France and one
    // in China within it; 5 (in Germany) one in each, the French one at the window's first
    // instant, a second French one at its end not counted. 8 wrote in France only; 2 lives
    // in France and 3 in China, so they are not foreign; 6 is three hops away.
    assert_eq!(
        a.pick(&[
            "personId",
            "personFirstName",
            "personLastName",
            "xCount",
            "yCount",
            "count"
        ]),
        [
            vec![i(4), s("Jan"), s("Abel"), i(2), i(1), i(3)],
            vec![i(5), s("Jan"), s("Abel"), i(1), i(1), i(2)],
        ]
    );
}

#[test]
fn ic4_keeps_tags_new_in_the_window_only() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic4 {
            person_id: 1,
            start_date: at("2012-01-10T00:00"),
            duration_days: 10,
        },
    );
    // Friends' posts in [10th, 20th): Football twice, Beatles at the window's first instant,
    // Tennis once (its other post is at the window's end, outside it), Chess and Mozart too,
    // but friends tagged those before the 10th, so they are not new. Ties by name.
    assert_eq!(
        a.pick(&["tagName", "postCount"]),
        [
            vec![s("Football"), i(2)],
            vec![s("Beatles"), i(1)],
            vec![s("Tennis"), i(1)],
        ]
    );
}

#[test]
fn ic5_counts_posts_of_those_who_joined_each_forum_after_the_date() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic5 {
            person_id: 1,
            min_date: at("2012-01-04T00:00"),
        },
    );
    // Berlin fans: 2, 3 and 4 joined after the 4th and wrote 3 + 3 + 1 posts there (8
    // joined on the 2nd; the start's and 6's posts do not count). Paris walks: 4 and 10,
    // 2 + 1 (5 joined on the 3rd, 9 on the 4th itself: "after" excludes it). Empty room: 5
    // joined and wrote nothing there, still listed with 0.
    assert_eq!(
        a.pick(&["forumTitle", "postCount"]),
        [
            vec![s("Berlin fans"), i(7)],
            vec![s("Paris walks"), i(3)],
            vec![s("Empty room"), i(0)],
        ]
    );
}

#[test]
fn ic6_counts_tags_beside_the_given_one_on_posts_within_two_hops() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic6 {
            person_id: 1,
            tag_name: "Football".into(),
        },
    );
    // Football posts of persons within two hops: 3010, 3021 (with Mozart), 3041 and 3050
    // (with Chess), 3100. The start's own post (with Beatles) and 6's (three hops, with
    // Chess) do not count; Football itself is not listed.
    assert_eq!(
        a.pick(&["tagName", "postCount"]),
        [vec![s("Chess"), i(2)], vec![s("Mozart"), i(1)]]
    );
}

#[test]
fn ic7_gives_each_likers_latest_like_with_latency_and_newness() {
    let db = graph();
    let a = op(&db, &Operation::Ic7 { person_id: 1 });
    // 10 liked the start's comment 10.5 minutes after it (whole minutes: 10). 8 liked both
    // posts at one instant: the lower id, 3001, is kept. 2's latest like is of the image
    // post (its text is the file), at the same instant as 3's like: liker ids ascending.
    // 2 and 3 are friends (not new); 8 and 10 are not. The start's own like of 2's post is
    // not a like of the start's messages.
    assert_eq!(
        a.pick(&[
            "personId",
            "likeCreationDate",
            "commentOrPostId",
            "commentOrPostContent",
            "minutesLatency",
            "isNew"
        ]),
        [
            vec![
                i(10),
                t("2012-01-09T08:10:30"),
                i(4001),
                s("c4001"),
                i(10),
                b(true)
            ],
            vec![
                i(8),
                t("2012-01-08T00:00"),
                i(3001),
                s("p3001"),
                i(6600),
                b(true)
            ],
            vec![
                i(2),
                t("2012-01-07T12:30"),
                i(3002),
                s("photo3002.jpg"),
                i(1470),
                b(false)
            ],
            vec![
                i(3),
                t("2012-01-07T12:30"),
                i(3001),
                s("p3001"),
                i(5910),
                b(false)
            ],
        ]
    );
    assert_eq!(
        a.pick(&["personFirstName", "personLastName"])[0],
        [s("Fay"), s("Moss")]
    );
}

#[test]
fn ic8_lists_direct_replies_to_the_persons_messages() {
    let db = graph();
    let a = op(&db, &Operation::Ic8 { person_id: 1 });
    // Replies to 3001 (4002 and 4003 at one instant: ids ascending; 4011 is the start
    // replying to themselves) and to the start's comment 4001 (4004). Replies to replies
    // (4005, 4007 answer 4002) are not direct.
    assert_eq!(
        a.pick(&[
            "commentId",
            "personId",
            "commentCreationDate",
            "commentContent"
        ]),
        [
            vec![i(4004), i(2), t("2012-01-10T00:00"), s("c4004")],
            vec![i(4002), i(3), t("2012-01-04T09:00"), s("c4002")],
            vec![i(4003), i(5), t("2012-01-04T09:00"), s("c4003")],
            vec![i(4011), i(1), t("2012-01-03T12:00"), s("c4011")],
        ]
    );
}

#[test]
fn ic9_lists_messages_within_two_hops_strictly_before_the_date() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic9 {
            person_id: 1,
            max_date: at("2012-01-15T00:00"),
        },
    );
    // Persons within two hops: 2, 3, 9, 4, 5, 8, 10. Post 3021, at the bound itself, is
    // excluded; equal times by message id ascending.
    assert_eq!(
        a.column("messageId"),
        [
            4009, 4010, 4006, 3010, 3030, 3022, 4004, 3012, 4005, 4007, 3020, 4002, 4003
        ]
        .map(i)
    );
    assert_eq!(
        a.pick(&["personId", "messageCreationDate"])[2],
        [i(5), t("2012-01-13T00:00")]
    );
}

#[test]
fn ic10_scores_friends_of_friends_born_around_the_month() {
    let db = graph();
    let ic10 = |month| {
        op(
            &db,
            &Operation::Ic10 {
                person_id: 1,
                month,
            },
        )
    };
    // March: 4 born on the 21st of March (the first day in), 5 on the 21st of April (the
    // last day in); 8 on the 22nd of April is out, 2 is in the range but a friend, 6 too
    // but three hops away. 4: two posts with a tag the start likes (Mozart, Chess), one
    // without: 1. 5: one with Chess: 1. Equal scores by id.
    assert_eq!(
        ic10(3).pick(&[
            "personId",
            "personFirstName",
            "commonInterestScore",
            "personGender",
            "personCityName"
        ]),
        [
            vec![i(4), s("Jan"), i(1), s("female"), s("Delhi")],
            vec![i(5), s("Jan"), i(1), s("female"), s("Munich")],
        ]
    );
    // April: 5, and 8 with two untagged posts (-2).
    assert_eq!(
        ic10(4).pick(&["personId", "commonInterestScore"]),
        [vec![i(5), i(1)], vec![i(8), i(-2)]]
    );
    // December runs into January: 10, born on the 31st of December, one Football post.
    assert_eq!(
        ic10(12).pick(&["personId", "commonInterestScore", "personLastName"]),
        [vec![i(10), i(-1), s("Moss")]]
    );
}

#[test]
fn ic11_lists_jobs_started_before_the_year_in_the_country() {
    let db = graph();
    let a = op(
        &db,
        &Operation::Ic11 {
            person_id: 1,
            country_name: "Germany".into(),
            work_from_year: 2010,
        },
    );
    // German companies are Acme and Hansa. 4 and 8 since 2005 (ids ascending), 5 at both
    // since 2009 (names descending). 2 started at Acme in 2010, not before; 6 is three hops
    // away; Globex is French.
    assert_eq!(
        a.pick(&["personId", "organizationName", "organizationWorkFromYear"]),
        [
            vec![i(4), s("Acme"), i(2005)],
            vec![i(8), s("Acme"), i(2005)],
            vec![i(5), s("Hansa"), i(2009)],
            vec![i(5), s("Acme"), i(2009)],
        ]
    );
}

/// IC12's rows with each tag set sorted: the specification gives the set no order.
fn ic12(db: &Database, tag_class_name: &str) -> Vec<(i64, i64, Vec<String>)> {
    let a = op(
        db,
        &Operation::Ic12 {
            person_id: 1,
            tag_class_name: tag_class_name.into(),
        },
    );
    a.pick(&["personId", "replyCount", "tagNames"])
        .into_iter()
        .map(|row| {
            let mut tags: Vec<String> = row[2]
                .as_list()
                .expect("a list")
                .iter()
                .map(|t| t.as_str().expect("a name").to_owned())
                .collect();
            tags.sort();
            (
                row[0].as_int().expect("an id"),
                row[1].as_int().expect("a count"),
                tags,
            )
        })
        .collect()
}

#[test]
fn ic12_counts_friends_replies_to_posts_tagged_within_the_class() {
    let db = graph();
    let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    // Artist and its subclass Musician: 3 replied to 3001 (Beatles) and to 3012 (Mozart and
    // Picasso); 2 to 3040 (Mozart); 2's reply to a comment is not a reply to a post, and 9
    // replied to a Football post only.
    assert_eq!(
        ic12(&db, "Artist"),
        [
            (3, 2, names(&["Beatles", "Mozart", "Picasso"])),
            (2, 1, names(&["Mozart"])),
        ]
    );
    // Thing, two classes above the tags: every reply to a post counts, and tags of any
    // class are collected; 2 and 9 tie on one reply each, by id.
    assert_eq!(
        ic12(&db, "Thing"),
        [
            (3, 2, names(&["Beatles", "Football", "Mozart", "Picasso"])),
            (2, 1, names(&["Mozart"])),
            (9, 1, names(&["Football"])),
        ]
    );
    // A class with tags of its own and no subclass.
    assert_eq!(
        ic12(&db, "Musician"),
        [
            (3, 2, names(&["Beatles", "Mozart"])),
            (2, 1, names(&["Mozart"]))
        ]
    );
}

fn ic13(db: &Database, person1_id: i64, person2_id: i64) -> Vec<Vec<Value>> {
    op(
        db,
        &Operation::Ic13 {
            person1_id,
            person2_id,
        },
    )
    .pick(&["shortestPathLength"])
}

#[test]
fn ic13_is_the_shortest_path_length_zero_for_oneself_and_minus_one_for_none() {
    let db = graph();
    assert_eq!(ic13(&db, 1, 7), [[i(4)]], "1-3-4-6-7");
    assert_eq!(ic13(&db, 7, 1), [[i(4)]], "KNOWS is read undirected");
    assert_eq!(ic13(&db, 1, 1), [[i(0)]], "a person is 0 from themselves");
    assert_eq!(ic13(&db, 1, 12), [[i(-1)]], "12 knows no one");
}

fn ic14(db: &Database, person1_id: i64, person2_id: i64) -> Answer {
    op(
        db,
        &Operation::Ic14 {
            person1_id,
            person2_id,
        },
    )
}

#[test]
fn ic14_weighs_every_shortest_path_by_replies_between_neighbours() {
    let db = graph();
    // Two shortest paths from 1 to 5. 1-2: 1's comment on 2's post (1.0), 2's reply to
    // 1's comment (0.5); 2-5: 5's comment on 2's post (1.0): 2.5. 1-3: 3's comment on
    // 1's post (1.0); 3-5: 5's reply to 3's comment (0.5): 1.5. 5's comment on 1's post
    // does not count: 1 and 5 are not neighbours on either path.
    assert_eq!(
        ic14(&db, 1, 5).pick(&["personIdsInPath", "pathWeight"]),
        [
            vec![ids(&[1, 2, 5]), Value::Float(2.5)],
            vec![ids(&[1, 3, 5]), Value::Float(1.5)],
        ]
    );
    assert!(ic14(&db, 1, 12).rows.is_empty(), "no path, no row");
    assert_eq!(
        ic14(&db, 1, 1).pick(&["personIdsInPath", "pathWeight"]),
        [vec![ids(&[1]), Value::Float(0.0)]],
        "a path of one person weighs nothing"
    );
}

#[test]
fn is1_reads_a_profile() {
    let db = graph();
    let a = op(&db, &Operation::Is1 { person_id: 1 });
    assert_eq!(
        a.pick(&[
            "firstName",
            "lastName",
            "birthday",
            "locationIP",
            "browserUsed",
            "cityId",
            "gender",
            "creationDate"
        ]),
        [vec![
            s("Jan"),
            s("Kowalski"),
            date(i32::try_from(days(1989, 3, 10)).expect("fits")),
            s("10.0.0.1"),
            s("Firefox"),
            i(1200),
            s("female"),
            t("2011-12-01T00:00"),
        ]]
    );
}

#[test]
fn is2_gives_the_ten_latest_messages_with_their_threads_post() {
    let db = graph();
    let a = op(&db, &Operation::Is2 { person_id: 2 });
    // A post is its own thread's post; comment 4004 answers 1's comment on 2's post 3012,
    // so its thread's post is 3012, two replies up.
    assert_eq!(
        a.pick(&[
            "messageId",
            "originalPostId",
            "originalPostAuthorId",
            "originalPostAuthorFirstName",
            "originalPostAuthorLastName"
        ]),
        [
            vec![i(4008), i(3040), i(4), s("Jan"), s("Abel")],
            vec![i(3011), i(3011), i(2), s("Jan"), s("Zimmer")],
            vec![i(3010), i(3010), i(2), s("Jan"), s("Zimmer")],
            vec![i(4004), i(3012), i(2), s("Jan"), s("Zimmer")],
            vec![i(3012), i(3012), i(2), s("Jan"), s("Zimmer")],
        ]
    );
    assert_eq!(
        a.pick(&["messageContent", "messageCreationDate"])[0],
        [s("c4008"), t("2012-01-21T00:00")]
    );
    // Person 12 wrote eleven posts: the ten latest, the two of the 10th by id descending.
    let twelve = op(&db, &Operation::Is2 { person_id: 12 });
    assert_eq!(
        twelve.column("messageId"),
        [3211, 3210, 3209, 3208, 3207, 3206, 3205, 3204, 3203, 3202].map(i)
    );
}

#[test]
fn is3_lists_friends_by_friendship_date() {
    let db = graph();
    let a = op(&db, &Operation::Is3 { person_id: 1 });
    // 9 became a friend last; 2 and 3 on the same day, by id.
    assert_eq!(
        a.pick(&[
            "personId",
            "firstName",
            "lastName",
            "friendshipCreationDate"
        ]),
        [
            vec![i(9), s("Jan"), s("Adams"), t("2012-01-02T00:00")],
            vec![i(2), s("Jan"), s("Zimmer"), t("2012-01-01T00:00")],
            vec![i(3), s("Carol"), s("Lee"), t("2012-01-01T00:00")],
        ]
    );
}

#[test]
fn is4_to_is6_read_a_messages_content_creator_and_forum() {
    let db = graph();
    let is4 = |message_id| op(&db, &Operation::Is4 { message_id });
    let content = ["messageCreationDate", "messageContent"];
    assert_eq!(
        is4(3002).pick(&content),
        [[t("2012-01-06T12:00"), s("photo3002.jpg")]],
        "an image post's content is its file"
    );
    assert_eq!(
        is4(4001).pick(&content),
        [[t("2012-01-09T08:00"), s("c4001")]]
    );
    assert_eq!(
        op(&db, &Operation::Is5 { message_id: 4002 }).pick(&["personId", "firstName", "lastName"]),
        [[i(3), s("Carol"), s("Lee")]]
    );
    let is6 = |message_id| {
        op(&db, &Operation::Is6 { message_id }).pick(&[
            "forumId",
            "forumTitle",
            "moderatorId",
            "moderatorFirstName",
            "moderatorLastName",
        ])
    };
    // Comment 4005 answers 4002, which answers post 3001 in Berlin fans.
    assert_eq!(
        is6(4005),
        [[i(2000), s("Berlin fans"), i(1), s("Jan"), s("Kowalski")]]
    );
    assert_eq!(
        is6(3041),
        [[i(2001), s("Paris walks"), i(2), s("Jan"), s("Zimmer")]]
    );
}

#[test]
fn is7_lists_replies_and_whether_their_authors_know_the_messages_author() {
    let db = graph();
    let a = op(&db, &Operation::Is7 { message_id: 3001 });
    // 4002 and 4003 at one instant, by their authors' ids. 3 knows 1, 5 does not, and 1
    // replying to themselves is not knowing.
    assert_eq!(
        a.pick(&[
            "commentId",
            "commentContent",
            "commentCreationDate",
            "replyAuthorId",
            "replyAuthorFirstName",
            "replyAuthorLastName",
            "replyAuthorKnowsOriginalMessageAuthor"
        ]),
        [
            vec![
                i(4002),
                s("c4002"),
                t("2012-01-04T09:00"),
                i(3),
                s("Carol"),
                s("Lee"),
                b(true)
            ],
            vec![
                i(4003),
                s("c4003"),
                t("2012-01-04T09:00"),
                i(5),
                s("Jan"),
                s("Abel"),
                b(false)
            ],
            vec![
                i(4011),
                s("c4011"),
                t("2012-01-03T12:00"),
                i(1),
                s("Jan"),
                s("Kowalski"),
                b(false)
            ],
        ]
    );
}

#[test]
fn each_update_is_seen_by_the_read_that_follows_it() {
    let db = graph();
    a_person_joins_and_befriends_the_start(&db);
    she_opens_a_forum_and_posts_in_it(&db);
    replies_and_likes_follow(&db);
}

/// The first value of a query's first row.
fn single(db: &Database, query: &str) -> Value {
    run(db, query, Map::new()).1[0][0].clone()
}

/// IU1 and IU8, read by IS1, IS3 and IC1.
fn a_person_joins_and_befriends_the_start(db: &Database) {
    // IU1: a person joins, interested in Chess, with a degree and a job.
    op(
        db,
        &Operation::Iu1(AddPerson {
            person_id: 13,
            first_name: "Ida".into(),
            last_name: "Lund".into(),
            gender: "female".into(),
            birthday: i32::try_from(days(1995, 5, 5)).expect("fits"),
            creation_date: at("2012-02-01T00:00"),
            location_ip: "10.0.0.13".into(),
            browser_used: "Chrome".into(),
            city_id: 1201,
            languages: vec!["fr".into(), "en".into()],
            emails: vec!["ida@example.org".into()],
            tag_ids: vec![CHESS],
            study_at: vec![(1301, 2015)],
            work_at: vec![(1401, 2016)],
        }),
    );
    assert_eq!(
        op(db, &Operation::Is1 { person_id: 13 }).pick(&[
            "firstName",
            "lastName",
            "cityId",
            "browserUsed",
            "creationDate"
        ]),
        [[
            s("Ida"),
            s("Lund"),
            i(1201),
            s("Chrome"),
            t("2012-02-01T00:00")
        ]]
    );
    assert_eq!(
        single(
            db,
            "MATCH (:Person {id: 13})-[:HAS_INTEREST]->(t:Tag) RETURN collect(t.name)"
        ),
        Value::List(vec![s("Chess")].into())
    );
    // IU8: the start befriends her; she is now their latest friend, and a friend named Ida
    // with her degree and job.
    op(
        db,
        &Operation::Iu8 {
            person1_id: 1,
            person2_id: 13,
            creation_date: at("2012-02-02T00:00"),
        },
    );
    assert_eq!(
        op(db, &Operation::Is3 { person_id: 1 }).pick(&["personId", "friendshipCreationDate"])[0],
        [i(13), t("2012-02-02T00:00")]
    );
    assert_eq!(
        op(db, &ic1(1, "Ida")).pick(&[
            "friendId",
            "distanceFromPerson",
            "friendUniversities",
            "friendCompanies",
            "friendLanguages"
        ]),
        [[
            i(13),
            i(1),
            Value::List(vec![Value::List(vec![s("Sorbonne"), i(2015), s("Paris")].into())].into()),
            Value::List(vec![Value::List(vec![s("Globex"), i(2016), s("France")].into())].into()),
            Value::List(vec![s("fr"), s("en")].into()),
        ]]
    );
}

/// IU4, IU5 and IU6, read by IS4, IS5, IS6 and IC5.
fn she_opens_a_forum_and_posts_in_it(db: &Database) {
    // IU4, IU5, IU6: she opens a forum, joins it and posts an image there.
    op(
        db,
        &Operation::Iu4(AddForum {
            forum_id: 2003,
            forum_title: "New forum".into(),
            creation_date: at("2012-02-03T00:00"),
            moderator_person_id: 13,
            tag_ids: vec![CHESS, TENNIS],
        }),
    );
    op(
        db,
        &Operation::Iu5 {
            forum_id: 2003,
            person_id: 13,
            join_date: at("2012-02-03T00:00"),
        },
    );
    op(
        db,
        &Operation::Iu6(AddPost {
            post_id: 3300,
            image_file: "new.jpg".into(),
            creation_date: at("2012-02-04T00:00"),
            location_ip: "10.0.0.13".into(),
            browser_used: "Chrome".into(),
            language: String::new(),
            content: String::new(),
            length: 0,
            author_person_id: 13,
            forum_id: 2003,
            country_id: FRANCE,
            tag_ids: vec![TENNIS],
        }),
    );
    assert_eq!(
        single(
            db,
            "MATCH (:Forum {id: 2003})-[:HAS_TAG]->(t:Tag) RETURN count(t)"
        ),
        i(2)
    );
    assert_eq!(
        single(
            db,
            "MATCH (:Post {id: 3300})-[:HAS_TAG]->(t:Tag) RETURN t.name"
        ),
        s("Tennis")
    );
    assert_eq!(
        single(
            db,
            "MATCH (p:Post {id: 3300}) RETURN [p.content, p.language, p.imageFile]"
        ),
        Value::List(vec![Value::Null, Value::Null, s("new.jpg")].into()),
        "an image post has no text nor language"
    );
    assert_eq!(
        op(db, &Operation::Is4 { message_id: 3300 }).pick(&["messageContent"]),
        [[s("new.jpg")]]
    );
    assert_eq!(
        op(db, &Operation::Is5 { message_id: 3300 }).column("personId"),
        [i(13)]
    );
    assert_eq!(
        op(db, &Operation::Is6 { message_id: 3300 }).pick(&["forumId", "moderatorId"]),
        [[i(2003), i(13)]]
    );
    // Her joining is the only one after the 31st among the start's two-hop circle.
    assert_eq!(
        op(
            db,
            &Operation::Ic5 {
                person_id: 1,
                min_date: at("2012-01-31T00:00")
            }
        )
        .pick(&["forumTitle", "postCount"]),
        [[s("New forum"), i(1)]]
    );
}

/// IU7, IU2 and IU3, read by IS7, IS6 and IC7.
fn replies_and_likes_follow(db: &Database) {
    // IU7: 2 replies to her post, and she to 2's comment.
    let comment = |comment_id, author_person_id, when, reply_to_post_id, reply_to_comment_id| {
        Operation::Iu7(AddComment {
            comment_id,
            creation_date: at(when),
            location_ip: "10.0.0.2".into(),
            browser_used: "Safari".into(),
            content: format!("c{comment_id}"),
            length: 5,
            author_person_id,
            country_id: GERMANY,
            reply_to_post_id,
            reply_to_comment_id,
            tag_ids: vec![MOZART],
        })
    };
    op(db, &comment(4300, 2, "2012-02-05T00:00", 3300, -1));
    op(db, &comment(4301, 13, "2012-02-06T00:00", -1, 4300));
    let replies = [
        "commentId",
        "replyAuthorId",
        "replyAuthorKnowsOriginalMessageAuthor",
    ];
    assert_eq!(
        op(db, &Operation::Is7 { message_id: 3300 }).pick(&replies),
        [[i(4300), i(2), b(false)]]
    );
    assert_eq!(
        op(db, &Operation::Is7 { message_id: 4300 }).pick(&replies),
        [[i(4301), i(13), b(false)]]
    );
    assert_eq!(
        op(db, &Operation::Is6 { message_id: 4301 }).column("forumId"),
        [i(2003)],
        "a reply to a reply is in its thread's forum"
    );
    // IU2, IU3: 2 likes her post, the start her comment; the start is her friend.
    op(
        db,
        &Operation::Iu2 {
            person_id: 2,
            post_id: 3300,
            creation_date: at("2012-02-07T00:00"),
        },
    );
    op(
        db,
        &Operation::Iu3 {
            person_id: 1,
            comment_id: 4301,
            creation_date: at("2012-02-08T00:00"),
        },
    );
    assert_eq!(
        op(db, &Operation::Ic7 { person_id: 13 }).pick(&[
            "personId",
            "commentOrPostId",
            "minutesLatency",
            "isNew"
        ]),
        [
            [i(1), i(4301), i(2 * 24 * 60), b(false)],
            [i(2), i(3300), i(3 * 24 * 60), b(true)],
        ]
    );
}

/// Every id column a driver is told to read is a column its query returns.
#[test]
fn id_columns_are_columns_of_their_queries() {
    let db = graph();
    for kind in Kind::ALL {
        let (persons, messages) = result_ids(kind);
        if persons.is_empty() && messages.is_empty() {
            continue;
        }
        let r = db
            .execute(&format!("EXPLAIN {}", text(kind)), sample_params(kind))
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        for name in persons.iter().chain(messages) {
            assert!(
                r.columns.iter().any(|c| &**c == *name),
                "{kind:?} has no column {name}: {:?}",
                r.columns
            );
        }
    }
}

/// Parameters for an operation of `kind` on the test graph, for plans.
fn sample_params(kind: Kind) -> Map {
    let op = match kind {
        Kind::Ic1 => ic1(1, "Jan"),
        Kind::Ic2 => Operation::Ic2 {
            person_id: 1,
            max_date: at("2012-01-15T00:00"),
        },
        Kind::Ic3 => Operation::Ic3 {
            person_id: 1,
            country_x_name: "France".into(),
            country_y_name: "China".into(),
            start_date: at("2012-01-20T00:00"),
            duration_days: 5,
        },
        Kind::Ic4 => Operation::Ic4 {
            person_id: 1,
            start_date: at("2012-01-10T00:00"),
            duration_days: 10,
        },
        Kind::Ic5 => Operation::Ic5 {
            person_id: 1,
            min_date: at("2012-01-04T00:00"),
        },
        Kind::Ic6 => Operation::Ic6 {
            person_id: 1,
            tag_name: "Football".into(),
        },
        Kind::Ic7 => Operation::Ic7 { person_id: 1 },
        Kind::Ic8 => Operation::Ic8 { person_id: 1 },
        Kind::Ic9 => Operation::Ic9 {
            person_id: 1,
            max_date: at("2012-01-15T00:00"),
        },
        Kind::Ic10 => Operation::Ic10 {
            person_id: 1,
            month: 3,
        },
        Kind::Ic11 => Operation::Ic11 {
            person_id: 1,
            country_name: "Germany".into(),
            work_from_year: 2010,
        },
        Kind::Ic12 => Operation::Ic12 {
            person_id: 1,
            tag_class_name: "Artist".into(),
        },
        Kind::Ic13 => Operation::Ic13 {
            person1_id: 1,
            person2_id: 7,
        },
        Kind::Ic14 => Operation::Ic14 {
            person1_id: 1,
            person2_id: 5,
        },
        Kind::Is1 => Operation::Is1 { person_id: 1 },
        Kind::Is2 => Operation::Is2 { person_id: 2 },
        Kind::Is3 => Operation::Is3 { person_id: 1 },
        Kind::Is4 => Operation::Is4 { message_id: 3001 },
        Kind::Is5 => Operation::Is5 { message_id: 3001 },
        Kind::Is6 => Operation::Is6 { message_id: 4005 },
        Kind::Is7 => Operation::Is7 { message_id: 3001 },
        update => sample_update(update),
    };
    statement(&op).params
}

/// An update of `kind` on the test graph, for plans.
fn sample_update(kind: Kind) -> Operation {
    match kind {
        Kind::Iu1 => Operation::Iu1(AddPerson {
            person_id: 13,
            first_name: "Ida".into(),
            last_name: "Lund".into(),
            gender: "female".into(),
            birthday: 0,
            creation_date: 0,
            location_ip: "10.0.0.13".into(),
            browser_used: "Chrome".into(),
            city_id: 1201,
            languages: vec![],
            emails: vec![],
            tag_ids: vec![CHESS],
            study_at: vec![(1301, 2015)],
            work_at: vec![(1401, 2016)],
        }),
        Kind::Iu2 => Operation::Iu2 {
            person_id: 1,
            post_id: 3010,
            creation_date: 0,
        },
        Kind::Iu3 => Operation::Iu3 {
            person_id: 1,
            comment_id: 4002,
            creation_date: 0,
        },
        Kind::Iu4 => Operation::Iu4(AddForum {
            forum_id: 2003,
            forum_title: "F".into(),
            creation_date: 0,
            moderator_person_id: 1,
            tag_ids: vec![CHESS],
        }),
        Kind::Iu5 => Operation::Iu5 {
            forum_id: 2000,
            person_id: 12,
            join_date: 0,
        },
        Kind::Iu6 => Operation::Iu6(AddPost {
            post_id: 3300,
            image_file: String::new(),
            creation_date: 0,
            location_ip: "10.0.0.1".into(),
            browser_used: "Chrome".into(),
            language: "en".into(),
            content: "text".into(),
            length: 4,
            author_person_id: 1,
            forum_id: 2000,
            country_id: GERMANY,
            tag_ids: vec![CHESS],
        }),
        Kind::Iu7 => Operation::Iu7(AddComment {
            comment_id: 4300,
            creation_date: 0,
            location_ip: "10.0.0.1".into(),
            browser_used: "Chrome".into(),
            content: "text".into(),
            length: 4,
            author_person_id: 1,
            country_id: GERMANY,
            reply_to_post_id: -1,
            reply_to_comment_id: 4002,
            tag_ids: vec![],
        }),
        Kind::Iu8 => Operation::Iu8 {
            person1_id: 1,
            person2_id: 12,
            creation_date: 0,
        },
        other => panic!("{other:?} is not an update"),
    }
}

fn render(plan: &PlanDescription, depth: usize, out: &mut String) {
    let rows = plan.profile.map(|p| (p.rows, p.db_hits));
    writeln!(
        out,
        "{:indent$}{} {} {:?}",
        "",
        plan.operator,
        plan.details,
        rows,
        indent = depth * 2
    )
    .expect("writing to a string");
    for child in &plan.children {
        render(child, depth + 1, out);
    }
}

/// Prints every read's profiled plan on the test graph (rows and store reads per
/// operator) and every update's plan, for reviewing plans by eye: `cargo test -p quiver-lab --test snb_queries --
/// --ignored --nocapture`.
#[test]
#[ignore = "prints plans for review; asserts nothing"]
fn print_profiled_plans() {
    let db = graph();
    for kind in Kind::ALL {
        // Updates are explained, not run: the graph stays as the reads expect it.
        let verb = if kind.class() == Class::Update {
            "EXPLAIN"
        } else {
            "PROFILE"
        };
        let r = db
            .execute(&format!("{verb} {}", text(kind)), sample_params(kind))
            .unwrap_or_else(|e| panic!("{kind:?}: {e}"));
        let mut out = String::new();
        if let Some(plan) = &r.summary.plan {
            render(plan, 0, &mut out);
        }
        println!("=== {}\n{out}", kind.name());
    }
}
