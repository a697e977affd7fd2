//! Dumps and loads: a data directory survives the round trip through one file, and a damaged,
//! truncated or foreign file fails by name with nothing loaded.

mod common;

use std::fs;
use std::path::Path;

use common::{add_person, names, options};
use quiver_durability::Durability;
use quiver_durability::Mode;
use quiver_durability::dump::{dump, load};

fn written(dir: &Path, people: usize) {
    let (db, durability) = Durability::open(dir, Mode::Group, options()).unwrap();
    for i in 0..people {
        add_person(&db, &format!("p{i}")).unwrap();
    }
    durability.close().unwrap();
}

#[test]
fn a_dump_loads_into_an_equal_database() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, file, loaded) = (
        tmp.path().join("data"),
        tmp.path().join("db.dump"),
        tmp.path().join("loaded"),
    );
    written(&data, 300);
    let dumped = dump(&data, &file, &mut |_| {}).unwrap();
    assert_eq!(dumped.commit, 300);
    assert!(dumped.file_bytes < dumped.bytes, "compressed: {dumped:?}");
    let back = load(&file, &loaded, &mut |_| {}).unwrap();
    assert_eq!(back.commit, 300);
    let (db, _) = Durability::inspect(&loaded).unwrap();
    assert_eq!(db.last_committed(), 300);
    assert_eq!(names(&db).len(), 300);
    assert!(names(&db).contains("p299"));
    // A second dump to the same file is refused; the first stays.
    assert!(dump(&data, &file, &mut |_| {}).is_err());
    assert_eq!(fs::metadata(&file).unwrap().len(), dumped.file_bytes);
}

#[test]
fn an_empty_database_dumps_and_loads() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, file, loaded) = (
        tmp.path().join("data"),
        tmp.path().join("db.dump"),
        tmp.path().join("loaded"),
    );
    written(&data, 0);
    assert_eq!(dump(&data, &file, &mut |_| {}).unwrap().commit, 0);
    load(&file, &loaded, &mut |_| {}).unwrap();
    let (db, _) = Durability::inspect(&loaded).unwrap();
    assert_eq!(db.last_committed(), 0);
}

#[test]
fn a_damaged_or_truncated_dump_fails_by_name_and_loads_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, file) = (tmp.path().join("data"), tmp.path().join("db.dump"));
    written(&data, 200);
    dump(&data, &file, &mut |_| {}).unwrap();
    let good = fs::read(&file).unwrap();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("flipped", {
            let mut b = good.clone();
            let at = b.len() / 2;
            b[at] ^= 0x10;
            b
        }),
        ("truncated", good[..good.len() - 20].to_vec()),
        ("header", {
            let mut b = good.clone();
            b[20] ^= 1;
            b
        }),
        ("trailing", {
            let mut b = good.clone();
            b.extend_from_slice(b"more");
            b
        }),
        (
            "foreign",
            b"not a dump at all, just some bytes of text, long enough".to_vec(),
        ),
    ];
    for (what, bytes) in cases {
        let bad = tmp.path().join(format!("{what}.dump"));
        fs::write(&bad, bytes).unwrap();
        let target = tmp.path().join(format!("loaded-{what}"));
        let e = load(&bad, &target, &mut |_| {}).unwrap_err().to_string();
        assert!(e.contains(&format!("{what}.dump")), "{what}: {e}");
        assert!(!target.exists(), "{what}");
        assert!(!tmp.path().join(format!(".loaded-{what}.load")).exists());
    }
}

#[test]
fn a_directory_a_server_holds_is_not_dumped() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, file) = (tmp.path().join("data"), tmp.path().join("db.dump"));
    let (_db, durability) = Durability::open(&data, Mode::Group, options()).unwrap();
    let e = dump(&data, &file, &mut |_| {}).unwrap_err().to_string();
    assert!(e.contains("in use"), "{e}");
    assert!(!file.exists());
    durability.close().unwrap();
}
