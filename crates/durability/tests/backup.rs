//! Backups and restores: a chain taken from a running store while it is written rebuilds
//! exactly the commits it covers, up to any commit or time, and a damaged chain fails by
//! name with nothing left at the target.

mod common;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use common::{add_person, names, options};
use quiver_durability::backup::{BackupDir, Piece, RestoreUntil, restore};
use quiver_durability::{Durability, Error, Mode, Options, Retention};
use quiver_storage::Storage;

/// Keeps `piece` in the backup directory at `dir`.
fn keep(dir: &Path, piece: &Piece) -> quiver_durability::backup::Manifest {
    let mut backups = BackupDir::open(dir).unwrap();
    let mut file = fs::File::open(&piece.path).unwrap();
    backups.keep(piece, &mut file, &mut |_| {}).unwrap()
}

fn restored_names(dir: &Path) -> BTreeSet<String> {
    let (storage, _) = Durability::inspect(dir).unwrap();
    names(&storage)
}

fn people(range: std::ops::Range<usize>) -> BTreeSet<String> {
    range.map(|i| format!("p{i}")).collect()
}

/// A store, its backups directory and a scratch directory for the server's pieces.
struct Setup {
    _tmp: tempfile::TempDir,
    data: std::path::PathBuf,
    backups: std::path::PathBuf,
    staging: std::path::PathBuf,
    restored: std::path::PathBuf,
}

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    Setup {
        data: root.join("data"),
        backups: root.join("backups"),
        staging: root.join("staging"),
        restored: root.join("restored"),
        _tmp: tmp,
    }
}

#[test]
fn a_full_and_incremental_chain_restores_every_commit_it_covers_and_none_after() {
    let s = setup();
    let (db, durability) = Durability::open(&s.data, Mode::Group, options()).unwrap();
    for i in 0..50 {
        durability
            .wait(&add_person(&db, &format!("p{i}")).unwrap())
            .unwrap();
    }
    let full = durability.backup_full(&s.staging.join("1")).unwrap();
    assert_eq!(full.last_commit, db.last_committed());
    assert!(full.last_time.is_some());
    keep(&s.backups, &full);
    for i in 50..80 {
        durability
            .wait(&add_person(&db, &format!("p{i}")).unwrap())
            .unwrap();
    }
    let incremental = keep_incremental(&s, &durability, full.last_commit);
    assert_eq!(incremental.first_commit, full.last_commit + 1);
    assert_eq!(incremental.last_commit, db.last_committed());
    // Nothing new: no piece.
    assert!(
        durability
            .backup_since(incremental.last_commit, None, &s.staging.join("3"))
            .unwrap()
            .is_none()
    );
    // Writes after the last backup are in no piece.
    add_person(&db, "late").unwrap();
    durability.close().unwrap();

    let backups = BackupDir::open(&s.backups).unwrap();
    backups.verify().unwrap();
    let report = restore(&backups, &s.restored, RestoreUntil::End, &mut |_| {}).unwrap();
    assert_eq!(report.last_commit, incremental.last_commit);
    assert_eq!(report.pieces, vec![1, 2]);
    assert_eq!(restored_names(&s.restored), people(0..80));
}

#[test]
fn a_restore_until_a_commit_or_a_time_stops_exactly_there() {
    let s = setup();
    let (db, durability) = Durability::open(&s.data, Mode::Group, options()).unwrap();
    durability.wait(&add_person(&db, "p0").unwrap()).unwrap();
    let full = durability.backup_full(&s.staging.join("1")).unwrap();
    keep(&s.backups, &full);
    let mut stamps = Vec::new();
    for i in 1..40 {
        let info = add_person(&db, &format!("p{i}")).unwrap();
        durability.wait(&info).unwrap();
        stamps.push((info.commit, db.last_commit_time().unwrap()));
        if i % 8 == 0 {
            std::thread::sleep(std::time::Duration::from_millis(3));
        }
    }
    keep_incremental(&s, &durability, full.last_commit);
    durability.close().unwrap();
    let backups = BackupDir::open(&s.backups).unwrap();

    // Until a commit: p0 is commit 1 (the labels and keys it made ride in its commit).
    let target = s.restored.join("by-commit");
    let (commit_17, _) = stamps[16];
    let report = restore(
        &backups,
        &target,
        RestoreUntil::Commit(commit_17),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.last_commit, commit_17);
    assert_eq!(restored_names(&target), people(0..18));

    // Until a time: every commit stamped at or before it, none after, even when several
    // commits share a microsecond.
    let (_, time) = stamps[24];
    let expected = stamps.iter().filter(|(_, t)| *t <= time).count() + 1;
    let target = s.restored.join("by-time");
    let report = restore(&backups, &target, RestoreUntil::Time(time), &mut |_| {}).unwrap();
    assert_eq!(report.last_time, Some(time));
    assert_eq!(restored_names(&target), people(0..expected));

    // Before the full backup's own time: refused, nothing written.
    let target = s.restored.join("too-early");
    let early = full.last_time.unwrap() - 1;
    let e = restore(&backups, &target, RestoreUntil::Time(early), &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("after the time asked for"), "{e}");
    assert!(!target.exists());
}

/// Takes a chain of a full and an incremental piece; returns the backups directory.
fn chain(s: &Setup) {
    let (db, durability, full) = full_backup_of_people(s, options(), 0..20);
    keep(&s.backups, &full);
    add_people(&db, 20..40);
    durability.sync().unwrap();
    keep_incremental(s, &durability, full.last_commit);
    durability.close().unwrap();
}

/// Leaves nothing a server would open: neither the target nor a staging directory.
fn assert_nothing_restored(s: &Setup) {
    assert!(!s.restored.exists());
    let parent = s.restored.parent().unwrap();
    for entry in fs::read_dir(parent).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains("restored"), "{name} left behind");
    }
}

fn restore_fails(s: &Setup) -> Error {
    let backups = BackupDir::open(&s.backups).unwrap();
    let e = restore(&backups, &s.restored, RestoreUntil::End, &mut |_| {}).unwrap_err();
    assert_nothing_restored(s);
    e
}

#[test]
fn a_corrupted_piece_fails_naming_the_file_and_restores_nothing() {
    let s = setup();
    chain(&s);
    let file = s.backups.join("backup-000002-incremental.qlog");
    let mut bytes = fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    fs::write(&file, bytes).unwrap();
    let e = restore_fails(&s).to_string();
    assert!(e.contains("backup-000002-incremental.qlog"), "{e}");
    assert!(e.contains("checksum") || e.contains("CRC32C"), "{e}");
    assert!(BackupDir::open(&s.backups).unwrap().verify().is_err());
}

#[test]
fn a_truncated_piece_fails_naming_the_file_and_restores_nothing() {
    let s = setup();
    chain(&s);
    let file = s.backups.join("backup-000001-full.qsnap");
    let bytes = fs::read(&file).unwrap();
    fs::write(&file, &bytes[..bytes.len() - 7]).unwrap();
    let e = restore_fails(&s).to_string();
    assert!(e.contains("backup-000001-full.qsnap"), "{e}");
}

#[test]
fn a_missing_piece_or_a_broken_chain_fails_by_name_and_restores_nothing() {
    let s = setup();
    chain(&s);
    let file = s.backups.join("backup-000002-incremental.qlog");
    let kept = fs::read(&file).unwrap();
    fs::remove_file(&file).unwrap();
    let e = restore_fails(&s).to_string();
    assert!(
        e.contains("backup-000002-incremental.qlog") && e.contains("missing"),
        "{e}"
    );
    fs::write(&file, kept).unwrap();

    // A manifest that no longer continues the piece before it.
    let manifest = s.backups.join("backup-000002.json");
    let text = fs::read_to_string(&manifest).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = value["first_commit"].as_u64().unwrap();
    value["first_commit"] = (first + 1).into();
    fs::write(&manifest, value.to_string()).unwrap();
    let e = restore_fails(&s).to_string();
    assert!(
        e.contains("backup-000002.json") && e.contains("chain is broken"),
        "{e}"
    );
}

#[test]
fn a_restore_refuses_a_target_that_is_not_empty() {
    let s = setup();
    chain(&s);
    fs::create_dir_all(&s.restored).unwrap();
    fs::write(s.restored.join("keep-me"), b"x").unwrap();
    let backups = BackupDir::open(&s.backups).unwrap();
    let e = restore(&backups, &s.restored, RestoreUntil::End, &mut |_| {}).unwrap_err();
    assert!(e.to_string().contains("not empty"), "{e}");
    assert_eq!(fs::read(s.restored.join("keep-me")).unwrap(), b"x");
}

#[test]
fn an_incremental_after_a_snapshot_removed_its_log_says_to_restart_the_chain() {
    let s = setup();
    let (db, durability, full) = full_backup_of_people(&s, options(), 0..10);
    add_people(&db, 10..200);
    // A snapshot rolls the log; the next one, after one more commit, covers every segment
    // before that roll and removes them.
    snapshot_twice(&db, &durability, "last");
    let e = durability
        .backup_since(full.last_commit, None, &s.staging.join("2"))
        .unwrap_err();
    assert!(matches!(e, Error::LogGone { .. }), "{e}");
    assert!(e.to_string().contains("restart with a full backup"), "{e}");
    // And a chain position this store never reached is another store's chain.
    let e = durability
        .backup_since(db.last_committed() + 10, None, &s.staging.join("3"))
        .unwrap_err();
    assert!(e.to_string().contains("another database's chain"), "{e}");
    durability.close().unwrap();
}

#[test]
fn a_retention_window_keeps_the_log_an_incremental_backup_needs() {
    let s = setup();
    let opts = Options {
        log_retention: Retention {
            age: Some(std::time::Duration::from_secs(3600)),
            bytes: 0,
        },
        log_archive_dir: Some(s.staging.join("archive")),
        ..options()
    };
    let (db, durability, full) = full_backup_of_people(&s, opts, 0..10);
    keep(&s.backups, &full);
    add_people(&db, 10..50);
    snapshot_twice(&db, &durability, "p50");
    // The snapshots covered the log after the full backup, and the window kept it.
    keep_incremental(&s, &durability, full.last_commit);
    // Every closed segment went to the archive too.
    assert!(fs::read_dir(s.staging.join("archive")).unwrap().count() >= 1);
    durability.close().unwrap();
    let backups = BackupDir::open(&s.backups).unwrap();
    restore(&backups, &s.restored, RestoreUntil::End, &mut |_| {}).unwrap();
    assert_eq!(restored_names(&s.restored), people(0..51));
}

#[test]
fn an_incremental_refuses_a_chain_whose_last_commit_this_database_made_at_another_time() {
    let s = setup();
    let (db, durability, full) = full_backup_of_people(&s, options(), 0..10);
    add_person(&db, "p10").unwrap();
    durability.sync().unwrap();
    let time = full.last_time.unwrap();
    let e = durability
        .backup_since(full.last_commit, Some(time - 1), &s.staging.join("2"))
        .unwrap_err();
    assert!(e.to_string().contains("another database's history"), "{e}");
    let piece = durability
        .backup_since(full.last_commit, Some(time), &s.staging.join("3"))
        .unwrap()
        .unwrap();
    assert_eq!(piece.first_commit, full.last_commit + 1);
    durability.close().unwrap();
}

#[test]
fn a_chain_started_before_the_first_commit_restores_from_an_empty_store() {
    let s = setup();
    let (db, durability) = Durability::open(&s.data, Mode::Group, options()).unwrap();
    let empty = durability.backup_full(&s.staging.join("1")).unwrap();
    assert_eq!((empty.last_commit, empty.bytes), (0, 0));
    keep(&s.backups, &empty);
    add_people(&db, 0..5);
    durability.sync().unwrap();
    let incremental = durability
        .backup_since(0, empty.last_time, &s.staging.join("2"))
        .unwrap()
        .unwrap();
    assert_eq!(incremental.first_commit, 1);
    keep(&s.backups, &incremental);
    durability.close().unwrap();
    let backups = BackupDir::open(&s.backups).unwrap();
    backups.verify().unwrap();
    let report = restore(&backups, &s.restored, RestoreUntil::Commit(3), &mut |_| {}).unwrap();
    assert_eq!(report.last_commit, 3);
    assert_eq!(restored_names(&s.restored), people(0..3));
}

/// Opens the store at `s.data` in group mode with `opts`, adds the people of `range` (see
/// [`add_people`]) and takes a full backup of them into the staging directory's `1`.
fn full_backup_of_people(
    s: &Setup,
    opts: Options,
    range: std::ops::Range<usize>,
) -> (Arc<Storage>, Durability, Piece) {
    let (db, durability) = Durability::open(&s.data, Mode::Group, opts).unwrap();
    add_people(&db, range);
    durability.sync().unwrap();
    let full = durability.backup_full(&s.staging.join("1")).unwrap();
    (db, durability, full)
}

/// Takes the incremental piece of the commits after `after` into the staging directory's
/// `2` and keeps it in the backups directory.
fn keep_incremental(s: &Setup, durability: &Durability, after: u64) -> Piece {
    let incremental = durability
        .backup_since(after, None, &s.staging.join("2"))
        .unwrap()
        .unwrap();
    keep(&s.backups, &incremental);
    incremental
}

/// Adds the people `p{i}` for each `i` of `range`.
fn add_people(db: &Arc<Storage>, range: std::ops::Range<usize>) {
    for i in range {
        add_person(db, &format!("p{i}")).unwrap();
    }
}

/// Takes a snapshot, adds the person `name`, and takes another: the second covers every
/// segment before the first one's log roll, so a store without a retention window removes
/// them.
fn snapshot_twice(db: &Arc<Storage>, durability: &Durability, name: &str) {
    durability.sync().unwrap();
    durability.snapshot().unwrap();
    add_person(db, name).unwrap();
    durability.sync().unwrap();
    durability.snapshot().unwrap();
}
