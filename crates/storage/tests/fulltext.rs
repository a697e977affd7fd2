//! Full-text indexes in the store: kept at commit, confirmed against the reader's snapshot.

use std::sync::Arc;

use quiver_storage::{Error, FulltextEntity, FulltextError, FulltextSpec, Storage};
use quiver_value::Value;

fn spec(name: &str, analyzer: &str) -> FulltextSpec {
    FulltextSpec {
        name: name.to_string(),
        entity: FulltextEntity::Node,
        tokens: vec!["Doc".into(), "Note".into()],
        keys: vec!["title".into(), "body".into()],
        analyzer: analyzer.to_string(),
        eventually_consistent: false,
    }
}

fn ids(hits: &[(u64, f64)]) -> Vec<u64> {
    let mut v: Vec<u64> = hits.iter().map(|h| h.0).collect();
    v.sort_unstable();
    v
}

fn create(db: &Arc<Storage>, s: FulltextSpec) {
    let tx = db.begin_write();
    tx.create_fulltext_index(s).unwrap();
    tx.commit().unwrap();
}

#[test]
fn commits_update_the_index_and_snapshots_confirm_hits() {
    let db = Storage::new();
    let doc = db.get_or_create_label("Doc").unwrap();
    let title = db.get_or_create_property_key("title").unwrap();
    let tx = db.begin_write();
    let a = tx
        .create_node(&[doc], &[(title, Value::from("The quick brown fox"))])
        .unwrap();
    tx.commit().unwrap();
    create(&db, spec("docs", "english"));

    let old = db.begin_read();
    let hits = old
        .fulltext_search("docs", FulltextEntity::Node, "foxes", 0, 10)
        .unwrap();
    assert_eq!(ids(&hits), vec![a.0], "stemmed by the english analyzer");

    let tx = db.begin_write();
    let b = tx
        .create_node(&[doc], &[(title, Value::from("A lazy fox sleeps"))])
        .unwrap();
    tx.set_node_property(a, title, Value::from("Nothing here"))
        .unwrap();
    // Uncommitted: not in the index.
    tx.commit().unwrap();

    let new = db.begin_read();
    let hits = new
        .fulltext_search("docs", FulltextEntity::Node, "fox", 0, 10)
        .unwrap();
    assert_eq!(ids(&hits), vec![b.0]);
    // The older snapshot never sees b, and a's hit is not confirmed by text it no longer has
    // in the index.
    let hits = old
        .fulltext_search("docs", FulltextEntity::Node, "fox", 0, 10)
        .unwrap();
    assert!(!ids(&hits).contains(&b.0));

    let tx = db.begin_write();
    tx.create_node(&[doc], &[(title, Value::from("rolled back fox"))])
        .unwrap();
    tx.rollback().unwrap();
    let hits = db
        .begin_read()
        .fulltext_search("docs", FulltextEntity::Node, "fox", 0, 10)
        .unwrap();
    assert_eq!(ids(&hits), vec![b.0]);
}

#[test]
fn bad_arguments_fail_by_kind() {
    let db = Storage::new();
    create(&db, spec("docs", "standard"));
    let read = db.begin_read();
    assert!(matches!(
        read.fulltext_search("nope", FulltextEntity::Node, "x", 0, 1),
        Err(Error::Fulltext(FulltextError::UnknownIndex { .. }))
    ));
    assert!(matches!(
        read.fulltext_search("docs", FulltextEntity::Relationship, "x", 0, 1),
        Err(Error::Fulltext(FulltextError::WrongEntity { .. }))
    ));
    assert!(matches!(
        read.fulltext_search("docs", FulltextEntity::Node, "title:(", 0, 1),
        Err(Error::Fulltext(FulltextError::Query { .. }))
    ));
    let tx = db.begin_write();
    assert!(matches!(
        tx.create_fulltext_index(spec("other", "klingon")),
        Err(Error::Fulltext(FulltextError::UnknownAnalyzer { .. }))
    ));
}

#[test]
fn query_syntax_and_limits() {
    let db = Storage::new();
    let note = db.get_or_create_label("Note").unwrap();
    let title = db.get_or_create_property_key("title").unwrap();
    let body = db.get_or_create_property_key("body").unwrap();
    create(&db, spec("docs", "standard-no-stop-words"));
    let tx = db.begin_write();
    let mut made = Vec::new();
    for i in 0..50 {
        let text = format!("graph database number {i}");
        made.push(
            tx.create_node(
                &[note],
                &[(title, Value::from(text)), (body, Value::from("quiver"))],
            )
            .unwrap(),
        );
    }
    let special = tx
        .create_node(&[note], &[(title, Value::from("Graph theory"))])
        .unwrap();
    tx.commit().unwrap();
    let read = db.begin_read();
    let q = |s: &str, skip, limit| {
        read.fulltext_search("docs", FulltextEntity::Node, s, skip, limit)
            .unwrap()
    };
    assert_eq!(q("graph", 0, 100).len(), 51);
    assert_eq!(q("graph", 0, 7).len(), 7);
    assert_eq!(q("graph", 45, 100).len(), 6);
    assert_eq!(ids(&q("\"graph theory\"", 0, 10)), vec![special.0]);
    assert_eq!(ids(&q("graph AND NOT database", 0, 10)), vec![special.0]);
    assert_eq!(ids(&q("+graph -body:quiver", 0, 10)), vec![special.0]);
    assert_eq!(ids(&q("theroy~", 0, 10)), vec![special.0]);
    assert_eq!(ids(&q("theo*", 0, 10)), vec![special.0]);
    assert_eq!(q("title:graph", 0, 100).len(), 51);
    let scores = q("graph theory", 0, 100);
    assert_eq!(scores[0].0, special.0, "best first");
    assert!(scores.windows(2).all(|w| w[0].1 >= w[1].1));
}

/// Writers commit without waiting on the index (a worker applies their commits off the commit
/// lock), yet a reader finds exactly what its snapshot holds: each writer, right after its
/// commit, finds its own word on its own document, and once they are done the index holds
/// each document's last word and no other, the document every writer rewrote included.
#[test]
fn racing_writers_leave_the_index_at_the_newest_state_and_readers_see_their_snapshot() {
    const WRITERS: u64 = 4;
    const ROUNDS: u64 = 40;
    let db = Storage::new();
    create(&db, spec("docs", "standard"));
    let doc = db.get_or_create_label("Doc").unwrap();
    let title = db.get_or_create_property_key("title").unwrap();
    let own = |writer: u64, round: u64| format!("w{writer}r{round}");
    let shared_word = |writer: u64, round: u64| format!("s{writer}r{round}");
    let tx = db.begin_write();
    let nodes: Vec<_> = (0..WRITERS)
        .map(|w| {
            tx.create_node(&[doc], &[(title, Value::from(own(w, 0)))])
                .unwrap()
        })
        .collect();
    let shared = tx
        .create_node(&[doc], &[(title, Value::from(shared_word(0, 0)))])
        .unwrap();
    tx.commit().unwrap();
    std::thread::scope(|scope| {
        for (w, node) in nodes.iter().enumerate() {
            let (db, w) = (&db, w as u64);
            scope.spawn(move || {
                for round in 1..=ROUNDS {
                    let tx = db.begin_write();
                    let wrote = tx
                        .set_node_property(*node, title, Value::from(own(w, round)))
                        .and_then(|_| {
                            tx.set_node_property(shared, title, Value::from(shared_word(w, round)))
                        })
                        .and_then(|_| tx.commit().map(|_| ()));
                    match wrote {
                        Ok(()) => {}
                        // Another writer holds the shared document: this round is lost.
                        Err(e) if e.is_retryable() => continue,
                        Err(e) => panic!("commit: {e}"),
                    }
                    let read = db.begin_read();
                    let hits = read
                        .fulltext_search("docs", FulltextEntity::Node, &own(w, round), 0, 10)
                        .unwrap();
                    assert_eq!(
                        ids(&hits),
                        vec![node.0],
                        "{} after its commit",
                        own(w, round)
                    );
                }
            });
        }
    });
    let read = db.begin_read();
    for node in nodes.iter().chain([&shared]) {
        let Some(Value::String(text)) = read.node_property(*node, title).unwrap() else {
            panic!("no title on {node:?}");
        };
        let hits = read
            .fulltext_search("docs", FulltextEntity::Node, &text, 0, 10)
            .unwrap();
        assert_eq!(ids(&hits), vec![node.0], "{text}");
    }
    // No document is found by a word it no longer has.
    let found: usize = (0..WRITERS)
        .flat_map(|w| (0..=ROUNDS).map(move |r| (w, r)))
        .flat_map(|(w, r)| [own(w, r), shared_word(w, r)])
        .map(|word| {
            read.fulltext_search("docs", FulltextEntity::Node, &word, 0, 10)
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(found, nodes.len() + 1);
}
