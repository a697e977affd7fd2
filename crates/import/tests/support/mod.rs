//! What the import tests share with the `quiver import` process tests, which include this
//! file (`crates/cli/tests/import.rs`).

use std::io::Write;
use std::path::Path;

/// Writes an import's input file: `text`, gzip-compressed when the name ends in `.gz`.
pub fn write_input(path: &Path, text: &str) {
    if path.extension().is_some_and(|e| e == "gz") {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(text.as_bytes()).expect("gzip");
        std::fs::write(path, gz.finish().expect("gzip")).expect("write");
    } else {
        std::fs::write(path, text).expect("write");
    }
}
