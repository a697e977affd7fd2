//! Recovery: snapshot plus log, torn tails cut, corruption refused with file and offset,
//! segments rolled and removed once a snapshot covers them.

mod common;

use std::fs::OpenOptions;
use std::io::Write;

use common::{
    add_person, expect_err, frame_offsets, name_set, names, options, segments, snapshots,
};
use quiver_durability::{Durability, Error, Mode, Options};
use quiver_value::Value;

/// A directory holding `n` commits in the log (one segment, no snapshot).
fn log_of(n: usize) -> (tempfile::TempDir, Vec<String>) {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Sync, options()).unwrap();
    let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
    for name in &names {
        let info = add_person(&db, name).unwrap();
        d.wait(&info).unwrap();
    }
    d.close().unwrap();
    (tmp, names)
}

#[test]
fn a_torn_last_record_is_cut_and_reported() {
    let (tmp, names_written) = log_of(5);
    let seg = segments(tmp.path()).pop().unwrap();
    let offsets = frame_offsets(&seg);
    assert_eq!(offsets.len(), 5);
    let len = std::fs::metadata(&seg).unwrap().len();
    // A crash mid-write: the last record is only partly on disk.
    let cut_at = offsets[4] as u64 + 20;
    OpenOptions::new()
        .write(true)
        .open(&seg)
        .unwrap()
        .set_len(cut_at)
        .unwrap();
    // Inspecting reports the damage but changes nothing.
    let (_, report) = Durability::inspect(tmp.path()).unwrap();
    let torn = report.torn_tail.unwrap();
    assert_eq!(torn.offset, offsets[4] as u64);
    assert_eq!(std::fs::metadata(&seg).unwrap().len(), cut_at);

    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    let torn = d.recovery().torn_tail.clone().unwrap();
    assert_eq!(
        (torn.path.clone(), torn.offset),
        (seg.clone(), offsets[4] as u64)
    );
    assert_eq!(torn.bytes_cut, cut_at - offsets[4] as u64);
    assert_eq!(std::fs::metadata(&seg).unwrap().len(), offsets[4] as u64);
    assert!(len > cut_at);
    assert_eq!(names(&db), name_set(names_written[..4].to_vec()));
    // The log goes on from commit 5 in a new segment, and all of it recovers.
    let info = add_person(&db, "again").unwrap();
    assert_eq!(info.commit, 5);
    d.wait(&info).unwrap();
    d.close().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert!(d.recovery().torn_tail.is_none());
    assert_eq!(names(&db).len(), 5);
    assert!(names(&db).contains("again"));
}

#[test]
fn zeros_after_the_last_record_are_a_torn_tail() {
    let (tmp, names_written) = log_of(3);
    let seg = segments(tmp.path()).pop().unwrap();
    let len = std::fs::metadata(&seg).unwrap().len();
    // What a file system that extended the file but never wrote the data leaves behind.
    OpenOptions::new()
        .append(true)
        .open(&seg)
        .unwrap()
        .write_all(&[0u8; 4096])
        .unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert_eq!(d.recovery().torn_tail.as_ref().unwrap().offset, len);
    assert_eq!(std::fs::metadata(&seg).unwrap().len(), len);
    assert_eq!(names(&db), name_set(names_written));
}

#[test]
fn a_flipped_byte_in_the_last_record_is_cut_like_a_torn_write() {
    let (tmp, names_written) = log_of(4);
    let seg = segments(tmp.path()).pop().unwrap();
    let offsets = frame_offsets(&seg);
    let mut bytes = std::fs::read(&seg).unwrap();
    let at = offsets[3] + 30;
    bytes[at] ^= 0x40;
    std::fs::write(&seg, &bytes).unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert_eq!(
        d.recovery().torn_tail.as_ref().unwrap().offset,
        offsets[3] as u64
    );
    assert_eq!(names(&db), name_set(names_written[..3].to_vec()));
}

#[test]
fn a_flipped_byte_before_the_tail_refuses_to_start_and_names_file_and_offset() {
    let (tmp, _) = log_of(5);
    let seg = segments(tmp.path()).pop().unwrap();
    let offsets = frame_offsets(&seg);
    let original = std::fs::read(&seg).unwrap();
    // Every byte of the middle record, header and body alike.
    for at in offsets[2]..offsets[3] {
        let mut bytes = original.clone();
        bytes[at] ^= 0x01;
        std::fs::write(&seg, &bytes).unwrap();
        let err = expect_err(Durability::open(tmp.path(), Mode::Group, options()));
        match &err {
            Error::Corrupt { path, offset, .. } => {
                assert_eq!(path, &seg, "{err}");
                assert_eq!(*offset, offsets[2] as u64, "flip at {at}: {err}");
            }
            other => panic!("flip at {at}: expected corruption, got {other}"),
        }
        let text = err.to_string();
        assert!(
            text.contains(seg.file_name().unwrap().to_str().unwrap()),
            "{text}"
        );
        // Nothing was cut: the file is as the flip left it.
        assert_eq!(std::fs::read(&seg).unwrap(), bytes);
    }
    std::fs::write(&seg, &original).unwrap();
    let (db, _d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert_eq!(names(&db).len(), 5);
}

#[test]
fn damage_in_an_older_segment_is_never_a_torn_tail() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        segment_bytes_max: 4096,
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Sync, opts.clone()).unwrap();
    let pad = "x".repeat(1500);
    for i in 0..8 {
        let info = add_person(&db, &format!("{i}{pad}")).unwrap();
        d.wait(&info).unwrap();
    }
    d.close().unwrap();
    let segs = segments(tmp.path());
    assert!(segs.len() >= 3, "{segs:?}");
    // The last record of the first segment: at its file's tail, but not the log's.
    let first = &segs[0];
    let offsets = frame_offsets(first);
    let mut bytes = std::fs::read(first).unwrap();
    let last = *offsets.last().unwrap();
    bytes[last + 20] ^= 0xff;
    std::fs::write(first, &bytes).unwrap();
    let err = expect_err(Durability::open(tmp.path(), Mode::Group, opts));
    assert!(
        matches!(&err, Error::Corrupt { path, offset, .. } if path == first && *offset == last as u64),
        "{err}"
    );
}

#[test]
fn a_missing_segment_is_a_gap_not_a_shorter_history() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        segment_bytes_max: 4096,
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Sync, opts.clone()).unwrap();
    let pad = "y".repeat(1500);
    for i in 0..8 {
        let info = add_person(&db, &format!("{i}{pad}")).unwrap();
        d.wait(&info).unwrap();
    }
    d.close().unwrap();
    let segs = segments(tmp.path());
    std::fs::remove_file(&segs[1]).unwrap();
    let err = expect_err(Durability::open(tmp.path(), Mode::Group, opts));
    assert!(err.to_string().contains("missing commits"), "{err}");
}

#[test]
fn snapshot_plus_log_recovers_everything_and_old_segments_go() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        segment_bytes_max: 4096,
        snapshot_block_ops_max: 3,
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Group, opts.clone()).unwrap();
    // Schema, relationships, properties of every kind, deletions: all through a snapshot.
    let person = db.get_or_create_label("Person").unwrap();
    let name = db.get_or_create_property_key("name").unwrap();
    let since = db.get_or_create_property_key("since").unwrap();
    let knows = db.get_or_create_rel_type("KNOWS").unwrap();
    let tx = db.begin_write();
    tx.create_unique_constraint(person, name, Some("unique_name"))
        .unwrap();
    d.wait(&tx.commit().unwrap()).unwrap();
    let tx = db.begin_write();
    let mut ids = Vec::new();
    for i in 0..20 {
        ids.push(
            tx.create_node(&[person], &[(name, Value::from(format!("n{i}")))])
                .unwrap(),
        );
    }
    for w in ids.windows(2) {
        tx.create_relationship(w[0], w[1], knows, &[(since, Value::Int(2020))])
            .unwrap();
    }
    d.wait(&tx.commit().unwrap()).unwrap();
    let tx = db.begin_write();
    tx.detach_delete_node(ids[5]).unwrap();
    tx.set_node_property(ids[6], since, Value::Float(1.5))
        .unwrap();
    d.wait(&tx.commit().unwrap()).unwrap();
    let pad = "z".repeat(1500);
    for i in 0..4 {
        d.wait(&add_person(&db, &format!("pad{i}{pad}")).unwrap())
            .unwrap();
    }
    let before_segments = segments(tmp.path()).len();
    assert!(before_segments >= 2);
    let snap = d.snapshot().unwrap().unwrap();
    assert_eq!(snap.commit, db.last_committed());
    assert_eq!(snap.nodes, 23);
    assert_eq!(snap.relationships, 17);
    // Taking another with nothing new is a no-op.
    assert!(d.snapshot().unwrap().is_none());
    assert_eq!(
        segments(tmp.path()).len(),
        1,
        "covered segments are removed"
    );
    // More commits after the snapshot live only in the log.
    for i in 0..3 {
        d.wait(&add_person(&db, &format!("after{i}")).unwrap())
            .unwrap();
    }
    let expected = names(&db);
    let stats = d.stats();
    assert_eq!(stats.snapshots_taken, 1);
    assert!(stats.segments_removed >= 1);
    d.close().unwrap();

    let (db2, d2) = Durability::open(tmp.path(), Mode::Group, opts).unwrap();
    let r = d2.recovery();
    assert_eq!(r.snapshot_commit, snap.commit);
    assert_eq!(r.records_replayed, 3);
    assert_eq!(names(&db2), expected);
    let t = db2.begin_read();
    let person = db2.label_id("Person").unwrap();
    assert_eq!(t.count_label(person).unwrap(), 26);
    assert_eq!(t.count_rels().unwrap(), 17);
    // The constraint came back: a duplicate is refused.
    let tx = db2.begin_write();
    let name = db2.property_key_id("name").unwrap();
    tx.create_node(&[person], &[(name, Value::from("n1"))])
        .unwrap();
    assert!(tx.commit().is_err());
    assert_eq!(db2.constraints().len(), 1);
}

#[test]
fn close_writes_a_snapshot_so_the_next_start_replays_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        snapshot_on_close: true,
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Buffered, opts.clone()).unwrap();
    for i in 0..10 {
        add_person(&db, &format!("c{i}")).unwrap();
    }
    d.close().unwrap();
    assert_eq!(snapshots(tmp.path()).len(), 1);
    let (db, d) = Durability::open(tmp.path(), Mode::Buffered, opts).unwrap();
    assert_eq!(d.recovery().records_replayed, 0);
    assert_eq!(d.recovery().snapshot_commit, 10);
    assert_eq!(names(&db).len(), 10);
}

/// Writes `n` padded commits over several small segments and closes with a snapshot.
fn snapshotted(n: usize, opts: &Options) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, opts.clone()).unwrap();
    let pad = "s".repeat(1500);
    for i in 0..n {
        d.wait(&add_person(&db, &format!("s{i}{pad}")).unwrap())
            .unwrap();
    }
    d.close().unwrap();
    tmp
}

fn flip_middle(path: &std::path::Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x08;
    std::fs::write(path, &bytes).unwrap();
}

#[test]
fn a_corrupt_newest_snapshot_falls_back_to_the_log_when_it_reaches_back() {
    let opts = Options {
        snapshot_on_close: true,
        ..options()
    };
    // One segment: the snapshot could not remove it, so the whole history is still there.
    let tmp = snapshotted(3, &opts);
    assert_eq!(segments(tmp.path()).len(), 1);
    let snap = snapshots(tmp.path()).pop().unwrap();
    flip_middle(&snap);
    let (db, d) = Durability::open(tmp.path(), Mode::Group, opts).unwrap();
    assert_eq!(d.recovery().snapshot_commit, 0);
    assert_eq!(d.recovery().snapshots_rejected.len(), 1);
    assert_eq!(names(&db).len(), 3);
}

#[test]
fn a_corrupt_newest_snapshot_with_its_log_gone_refuses_to_start_naming_it() {
    let opts = Options {
        snapshot_on_close: true,
        segment_bytes_max: 4096,
        ..options()
    };
    let tmp = snapshotted(8, &opts);
    assert!(
        segments(tmp.path()).len() < 4,
        "covered segments were removed"
    );
    let snap = snapshots(tmp.path()).pop().unwrap();
    flip_middle(&snap);
    let err = expect_err(Durability::open(tmp.path(), Mode::Group, opts));
    assert!(
        matches!(&err, Error::Corrupt { path, .. } if *path == snap),
        "{err}"
    );
}

#[test]
fn a_killed_snapshot_leaves_only_a_temp_file_which_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    d.wait(&add_person(&db, "a").unwrap()).unwrap();
    d.close().unwrap();
    let tmp_file = tmp.path().join("snapshot-00000000000000000001.qsnap.tmp");
    std::fs::write(&tmp_file, b"QUIVSNAP half written").unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    assert!(!tmp_file.exists());
    assert_eq!(d.recovery().removed, vec![tmp_file]);
    assert_eq!(names(&db).len(), 1);
}

#[test]
fn an_empty_directory_opens_empty() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path().join("fresh"), Mode::Sync, options()).unwrap();
    assert_eq!(db.last_committed(), 0);
    assert_eq!(d.recovery().records_replayed, 0);
    assert!(d.snapshot().unwrap().is_none(), "nothing to snapshot yet");
}
