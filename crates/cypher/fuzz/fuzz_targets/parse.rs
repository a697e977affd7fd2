//! Any text: parsing never panics or overflows the stack; whatever parses prints as Cypher
//! that parses back to the same tree, and the semantic pass never panics on it.
//!
//! Run with `cargo +nightly fuzz run parse` from `crates/cypher`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(query) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(statement) = quiver_cypher::parse(query) else {
        return;
    };
    let printed = statement.to_string();
    let again = quiver_cypher::parse(&printed)
        .unwrap_or_else(|e| panic!("print of a parsed query does not parse:\n{printed}\n{e}"));
    assert_eq!(statement, again, "round trip changed the tree:\n{query}\n{printed}");
    let _ = quiver_cypher::analyze(&statement, query);
});
