//! A small JSON writer over a byte buffer.
//!
//! Responses are written by hand rather than through `serde_json::Value` trees: a result row
//! goes straight from engine values to bytes, with no intermediate allocation per value, which
//! is most of the cost of a small request.

use std::io::Write as _;

/// Appends `text` as a JSON string literal.
pub fn string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, &byte) in bytes.iter().enumerate() {
        let escape: &[u8] = match byte {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f | 0x7f => {
                out.extend_from_slice(&bytes[start..at]);
                let _ = write!(out, "\\u{byte:04x}");
                start = at + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..at]);
        out.extend_from_slice(escape);
        start = at + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Appends an object key and the colon after it.
pub fn key(out: &mut Vec<u8>, name: &str) {
    string(out, name);
    out.push(b':');
}

pub fn int(out: &mut Vec<u8>, value: i64) {
    let _ = write!(out, "{value}");
}

pub fn uint(out: &mut Vec<u8>, value: u64) {
    let _ = write!(out, "{value}");
}

pub fn boolean(out: &mut Vec<u8>, value: bool) {
    out.extend_from_slice(if value { b"true" } else { b"false" });
}

pub fn null(out: &mut Vec<u8>) {
    out.extend_from_slice(b"null");
}

/// A float as Neo4j writes it: Java's shortest round-trip digits (`1.0`, `1.0E20`), and the
/// non-finite values, which JSON cannot carry as numbers, as the strings `"NaN"`,
/// `"Infinity"` and `"-Infinity"`.
pub fn float(out: &mut Vec<u8>, value: f64) {
    let text = quiver_value::display::float_to_string(value);
    if value.is_finite() {
        out.extend_from_slice(text.as_bytes());
    } else {
        string(out, &text);
    }
}

/// Writes `,` before every element but the first; `first` tracks the position.
pub fn comma(out: &mut Vec<u8>, first: &mut bool) {
    if *first {
        *first = false;
    } else {
        out.push(b',');
    }
}

/// `[...]`: each of `items` written by `write`, comma-separated.
pub fn array<T>(
    out: &mut Vec<u8>,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut Vec<u8>, T),
) {
    out.push(b'[');
    let mut first = true;
    for item in items {
        comma(out, &mut first);
        write(out, item);
    }
    out.push(b']');
}

/// What `f` writes, as text: for the tests of the writers.
#[cfg(test)]
pub(crate) fn text(f: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    f(&mut out);
    String::from_utf8(out).expect("utf-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_what_json_requires() {
        let written = text(|o| string(o, "a\"b\\c\nd\u{1}é\u{7f}"));
        assert_eq!(written, "\"a\\\"b\\\\c\\nd\\u0001é\\u007f\"");
        let parsed: String = serde_json::from_str(&written).expect("valid JSON");
        assert_eq!(parsed, "a\"b\\c\nd\u{1}é\u{7f}");
    }

    #[test]
    fn floats_read_back_and_non_finite_are_strings() {
        assert_eq!(text(|o| float(o, 1.0)), "1.0");
        assert_eq!(text(|o| float(o, 1e20)), "1.0E20");
        assert_eq!(text(|o| float(o, f64::NAN)), "\"NaN\"");
        assert_eq!(text(|o| float(o, f64::NEG_INFINITY)), "\"-Infinity\"");
        let parsed: f64 = serde_json::from_str(&text(|o| float(o, 0.1 + 0.2))).expect("number");
        assert_eq!(parsed, 0.1 + 0.2);
    }
}
