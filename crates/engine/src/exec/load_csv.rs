//! `LOAD CSV`: for each input row, the rows of a CSV file, one at a time.
//!
//! The file is read as a stream: the operator holds one record (and the reader's buffer), so a
//! load of any size runs in the same memory, and `CALL { } IN TRANSACTIONS` above it commits
//! as it goes. Both are counted against the query's memory limit while held.
//!
//! Only `file:///` URLs are read, and only under the configured import directory, which acts
//! as the root of every such URL (`file:///people.csv` is `<import dir>/people.csv`), as
//! Neo4j's `server.directories.import` does. A path that would leave it (`..` past the root,
//! a symbolic link pointing out) is refused, as is any URL when no import directory is set.
//! The server makes no network requests, so `http(s)://` URLs are refused by name.
//!
//! The format is Neo4j's: a field terminator (a comma unless `FIELDTERMINATOR` names another
//! single-byte character), fields optionally in double quotes, a quote inside a quoted field
//! doubled (`""`) or escaped with a backslash (`\"`), line breaks inside quoted fields kept.
//! An unquoted empty field is `null`; a quoted one (`""`) is the empty string. A byte order
//! mark opening the file is skipped and blank lines are skipped. Gzip files are recognised by
//! their magic number and decompressed as they are read.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use quiver_value::{Map, Value};

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result, code};
use crate::eval::CsvPosition;
use crate::eval::value_bytes;
use crate::ir::{LoadCsvSpec, Row};

/// Longest record accepted, in bytes (quoted line breaks included): a file with an
/// unterminated quote would otherwise be read whole into one field.
pub(crate) const RECORD_BYTES_MAX: usize = 16 << 20;

/// The reader's buffer.
const READ_BUFFER_BYTES: usize = 64 << 10;

/// What the memory errors name.
const WHAT: &str = "a LOAD CSV row";

pub(crate) struct LoadCsv {
    spec: Arc<LoadCsvSpec>,
    input: BoxCursor,
    source: Option<Source>,
    /// Bytes counted for the record handed on last, given back when the next replaces it.
    held: usize,
    /// Bytes still counted for a file a reset dropped (a reset has no context to give them
    /// back through): given back at the next row.
    dropped: usize,
}

/// An open file and where its reading stands.
struct Source {
    reader: CsvReader<Box<dyn BufRead + Send>>,
    headers: Option<Vec<Arc<str>>>,
    file: Arc<str>,
    fields: Vec<Option<String>>,
}

impl LoadCsv {
    pub fn boxed(spec: Arc<LoadCsvSpec>, input: BoxCursor) -> BoxCursor {
        Box::new(LoadCsv {
            spec,
            input,
            source: None,
            held: 0,
            dropped: 0,
        })
    }

    /// Opens the file the input row's URL names and reads its header when there is one.
    fn open(&mut self, cx: &mut Cx, row: &mut Row) -> Result<()> {
        let url = match self.spec.url.eval(row, cx)? {
            Value::String(s) => s,
            other => {
                return Err(Error::type_error(format!(
                    "LOAD CSV expects a String as its URL, got {other}"
                )));
            }
        };
        let root = cx.shared.config.import_dir.clone();
        let path = resolve(&url, root.as_deref())?;
        let reader = open_file(&url, &path)?;
        cx.reserve(READ_BUFFER_BYTES, WHAT)?;
        let file: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
        let mut source = Source {
            reader: CsvReader::new(reader, self.spec.terminator),
            headers: None,
            file,
            fields: Vec::new(),
        };
        if self.spec.headers {
            let mut names = Vec::new();
            if source
                .reader
                .next_record(&mut source.fields)
                .map_err(|e| e.into_error(&url))?
            {
                names = source
                    .fields
                    .iter()
                    .map(|f| Arc::<str>::from(f.as_deref().unwrap_or("")))
                    .collect();
            }
            source.headers = Some(names);
        }
        self.source = Some(source);
        Ok(())
    }

    /// Gives back what the open file holds.
    fn close(&mut self, cx: &mut Cx) {
        if self.source.take().is_some() {
            cx.release(READ_BUFFER_BYTES);
        }
        cx.release(std::mem::take(&mut self.held));
        cx.load_csv = None;
    }
}

impl Cursor for LoadCsv {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        cx.release(std::mem::take(&mut self.dropped));
        loop {
            cx.release(std::mem::take(&mut self.held));
            if let Some(source) = &mut self.source {
                cx.tick()?;
                let more = source
                    .reader
                    .next_record(&mut source.fields)
                    .map_err(|e| e.into_error(&source.file))?;
                if more {
                    let value = source.value();
                    let bytes = value_bytes(&value) + source.reader.record_bytes();
                    cx.reserve(bytes, WHAT)?;
                    self.held = bytes;
                    row[self.spec.slot] = value;
                    cx.load_csv = Some(CsvPosition {
                        line: i64::try_from(source.reader.record_line).unwrap_or(i64::MAX),
                        file: source.file.clone(),
                    });
                    return Ok(true);
                }
                self.close(cx);
            }
            cx.tick()?;
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            self.open(cx, row)?;
        }
    }

    fn reset(&mut self) {
        if self.source.take().is_some() {
            self.dropped += READ_BUFFER_BYTES;
        }
        self.dropped += std::mem::take(&mut self.held);
        self.input.reset();
    }
}

impl Source {
    /// The record just read as a row: a list of its fields, or a map by the header.
    fn value(&mut self) -> Value {
        let fields = self
            .fields
            .drain(..)
            .map(|f| f.map_or(Value::Null, Value::from));
        match &self.headers {
            None => Value::list(fields.collect::<Vec<_>>()),
            Some(names) => {
                let mut fields = fields;
                let mut map = Map::new();
                for name in names {
                    let v = fields.next().unwrap_or(Value::Null);
                    map.insert(name.clone(), v);
                }
                Value::map(map)
            }
        }
    }
}

/// A URL refused or a file that could not be read: Neo4j's `ExternalResourceFailed`.
fn failed(url: &str, why: impl std::fmt::Display) -> Error {
    Error::runtime(
        code::EXTERNAL_RESOURCE,
        None,
        format!("Couldn't load the external resource at: {url} ({why})"),
    )
}

/// The file a `file:` URL names under `root`, which stands for `/`: the path's components
/// are percent-decoded, `.` dropped and `..` taken back within the URL's own path, and a `..`
/// past the root refused. The file must exist, be a regular file, and still lie under the
/// root once every symbolic link is followed.
pub(crate) fn resolve(url: &str, root: Option<&Path>) -> Result<PathBuf> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    if lower.starts_with("http:") || lower.starts_with("https:") || lower.starts_with("ftp:") {
        return Err(failed(
            url,
            "LOAD CSV reads only file:/// URLs under the server's import directory; the \
             server makes no network requests: copy the file into the import directory",
        ));
    }
    let rest = if lower.starts_with("file:") {
        url.get(5..)
    } else {
        None
    };
    let Some(rest) = rest else {
        return Err(failed(
            url,
            "not a file:/// URL (LOAD CSV reads only files under the import directory)",
        ));
    };
    let Some(root) = root else {
        return Err(failed(
            url,
            "LOAD CSV is disabled: no import directory is configured (--import-dir)",
        ));
    };
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let (host, path) = authority_and_path
                .find('/')
                .map_or((authority_and_path, ""), |i| authority_and_path.split_at(i));
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return Err(failed(
                    url,
                    format!("a file URL names no host, got '{host}'"),
                ));
            }
            path
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or("");
    let mut parts: Vec<String> = Vec::new();
    for raw in path.split('/') {
        let part = percent_decode(raw).ok_or_else(|| failed(url, "a malformed %-escape"))?;
        match part.as_str() {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(outside(url));
                }
            }
            _ if part.contains(['/', '\\', '\0']) => {
                return Err(failed(url, "a path component holds a separator or NUL"));
            }
            _ => parts.push(part),
        }
    }
    if parts.is_empty() {
        return Err(failed(url, "the URL names no file"));
    }
    let mut joined = root.to_path_buf();
    for part in &parts {
        let p = Path::new(part);
        if p.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(outside(url));
        }
        joined.push(p);
    }
    let real_root = std::fs::canonicalize(root)
        .map_err(|e| failed(url, format!("the import directory cannot be read: {e}")))?;
    let real = std::fs::canonicalize(&joined).map_err(|e| failed(url, e))?;
    if !real.starts_with(&real_root) {
        return Err(outside(url));
    }
    let meta = std::fs::metadata(&real).map_err(|e| failed(url, e))?;
    if !meta.is_file() {
        return Err(failed(url, "not a regular file"));
    }
    Ok(real)
}

fn outside(url: &str) -> Error {
    failed(
        url,
        "the file URL points outside the configured import directory",
    )
}

/// `%XX` escapes decoded; `None` for a malformed one or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    if !s.contains('%') {
        return Some(s.to_owned());
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Opens the file, decompressing it when it opens with gzip's magic number.
fn open_file(url: &str, path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let file = File::open(path).map_err(|e| failed(url, e))?;
    let mut reader = BufReader::with_capacity(READ_BUFFER_BYTES, file);
    let head = reader.fill_buf().map_err(|e| failed(url, e))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        let decoder = flate2::bufread::MultiGzDecoder::new(reader);
        Ok(Box::new(BufReader::with_capacity(
            READ_BUFFER_BYTES,
            decoder,
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// Why a file could not be read as CSV.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CsvError {
    /// A quoted field still open at the end of the file.
    UnterminatedQuote { line: u64 },
    /// Characters after a quoted field's closing quote.
    AfterQuote { line: u64 },
    /// A record longer than [`RECORD_BYTES_MAX`].
    RecordTooLong { line: u64 },
    /// The file (or its decompression) failed.
    Io { line: u64, message: String },
}

impl CsvError {
    fn into_error(self, file: &str) -> Error {
        let message = match self {
            CsvError::UnterminatedQuote { line } => format!(
                "At {file} @ line {line}: a quoted field is not closed before the end of the file"
            ),
            CsvError::AfterQuote { line } => format!(
                "At {file} @ line {line}: a field that starts with a quote has characters after \
                 its closing quote, which is not supported"
            ),
            CsvError::RecordTooLong { line } => format!(
                "At {file} @ line {line}: the record is longer than {RECORD_BYTES_MAX} bytes \
                 (an unterminated quote?)"
            ),
            CsvError::Io { line, message } => {
                format!("At {file} @ line {line}: the file could not be read: {message}")
            }
        };
        Error::runtime(code::EXTERNAL_RESOURCE, None, message)
    }
}

/// A streaming CSV reader: one record at a time, in a buffer reused from record to record.
pub(crate) struct CsvReader<R> {
    input: R,
    terminator: u8,
    /// Physical lines read so far.
    lines: u64,
    /// The line the last record began on.
    pub record_line: u64,
    /// The last record's bytes, as read.
    record: Vec<u8>,
    field: Vec<u8>,
    started: bool,
}

impl<R: BufRead> CsvReader<R> {
    pub fn new(input: R, terminator: u8) -> Self {
        CsvReader {
            input,
            terminator,
            lines: 0,
            record_line: 0,
            record: Vec::new(),
            field: Vec::new(),
            started: false,
        }
    }

    /// What the reader's record buffers hold.
    pub fn record_bytes(&self) -> usize {
        self.record.capacity() + self.field.capacity()
    }

    /// Appends one physical line (with its line break) to the record; false at the end of
    /// the input with nothing read.
    fn read_line(&mut self) -> std::result::Result<bool, CsvError> {
        let mut any = false;
        loop {
            let available = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(CsvError::Io {
                        line: self.lines + 1,
                        message: e.to_string(),
                    });
                }
            };
            if available.is_empty() {
                break;
            }
            any = true;
            let (take, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            if self.record.len() + take > RECORD_BYTES_MAX {
                return Err(CsvError::RecordTooLong {
                    line: self.record_line.max(self.lines + 1),
                });
            }
            self.record.extend_from_slice(&available[..take]);
            self.input.consume(take);
            if done {
                break;
            }
        }
        if any {
            self.lines += 1;
        }
        Ok(any)
    }

    /// Reads the next record's fields into `fields`; false at the end of the file.
    pub fn next_record(
        &mut self,
        fields: &mut Vec<Option<String>>,
    ) -> std::result::Result<bool, CsvError> {
        fields.clear();
        // Skip blank lines; drop a byte order mark opening the file.
        loop {
            self.record.clear();
            if !self.read_line()? {
                return Ok(false);
            }
            if !self.started {
                self.started = true;
                if self.record.starts_with(&[0xef, 0xbb, 0xbf]) {
                    self.record.drain(..3);
                }
            }
            if !matches!(self.record.as_slice(), b"\n" | b"\r\n" | b"" | b"\r") {
                break;
            }
        }
        self.record_line = self.lines;
        let mut i = 0;
        loop {
            if self.record.get(i) == Some(&b'"') {
                i = self.quoted(i + 1)?;
                fields.push(Some(text(&self.field)));
                match self.record.get(i) {
                    Some(&b) if b == self.terminator => i += 1,
                    None | Some(b'\n') => return Ok(true),
                    Some(b'\r') if matches!(self.record.get(i + 1), None | Some(b'\n')) => {
                        return Ok(true);
                    }
                    Some(_) => {
                        return Err(CsvError::AfterQuote { line: self.lines });
                    }
                }
            } else {
                let start = i;
                let t = self.terminator;
                while let Some(&b) = self.record.get(i) {
                    let line_end = b == b'\n'
                        || (b == b'\r' && matches!(self.record.get(i + 1), None | Some(b'\n')));
                    if b == t || line_end {
                        break;
                    }
                    i += 1;
                }
                let value = &self.record[start..i];
                fields.push((!value.is_empty()).then(|| text(value)));
                match self.record.get(i) {
                    Some(&b) if b == t => i += 1,
                    _ => return Ok(true),
                }
            }
        }
    }

    /// Reads a quoted field from just after its opening quote into `field`, reading further
    /// lines while it stays open; returns the index just past its closing quote.
    fn quoted(&mut self, mut i: usize) -> std::result::Result<usize, CsvError> {
        self.field.clear();
        loop {
            let Some(&b) = self.record.get(i) else {
                if !self.read_line()? {
                    return Err(CsvError::UnterminatedQuote {
                        line: self.record_line,
                    });
                }
                continue;
            };
            match b {
                b'"' if self.record.get(i + 1) == Some(&b'"') => {
                    self.field.push(b'"');
                    i += 2;
                }
                b'"' => return Ok(i + 1),
                b'\\' if self.record.get(i + 1) == Some(&b'"') => {
                    self.field.push(b'"');
                    i += 2;
                }
                _ => {
                    self.field.push(b);
                    i += 1;
                }
            }
        }
    }
}

/// A field's bytes as text (bytes that are not UTF-8 become U+FFFD).
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Reads every record of `input` (for tests).
#[cfg(test)]
pub(crate) fn read_all(
    input: &[u8],
    terminator: u8,
) -> std::result::Result<Vec<Vec<Option<String>>>, CsvError> {
    let mut reader = CsvReader::new(input, terminator);
    let mut out = Vec::new();
    let mut fields = Vec::new();
    while reader.next_record(&mut fields)? {
        out.push(std::mem::take(&mut fields));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(input: &str) -> Vec<Vec<Option<String>>> {
        read_all(input.as_bytes(), b',').expect("parses")
    }

    /// A field with text (`String`'s parse cannot fail).
    fn s(v: &str) -> Option<String> {
        v.parse().ok()
    }

    #[test]
    fn fields_quotes_and_escapes() {
        assert_eq!(
            rows("a,b\n\"x, y\",\"say \"\"hi\"\"\"\n\"back\\\"slash\",\r\n"),
            vec![
                vec![s("a"), s("b")],
                vec![s("x, y"), s("say \"hi\"")],
                vec![s("back\"slash"), None],
            ]
        );
    }

    #[test]
    fn empty_fields_null_quoted_empty_string() {
        assert_eq!(rows(",\"\",x"), vec![vec![None, s(""), s("x")]]);
    }

    #[test]
    fn line_breaks_inside_quotes_and_blank_lines() {
        let input = "\u{feff}a,\"one\ntwo\"\n\n\nb,c";
        assert_eq!(
            rows(input),
            vec![vec![s("a"), s("one\ntwo")], vec![s("b"), s("c")]]
        );
    }

    #[test]
    fn line_numbers_count_physical_lines() {
        let mut reader = CsvReader::new("h\n\"a\nb\"\n\nc\n".as_bytes(), b',');
        let mut f = Vec::new();
        let mut lines = Vec::new();
        while reader.next_record(&mut f).expect("parses") {
            lines.push(reader.record_line);
        }
        assert_eq!(lines, vec![1, 2, 5]);
    }

    #[test]
    fn tab_terminator() {
        assert_eq!(
            read_all(b"a\tb,c\n", b'\t').expect("parses"),
            vec![vec![s("a"), s("b,c")]]
        );
    }

    #[test]
    fn malformed_input_names_the_line() {
        assert_eq!(
            read_all(b"a\nb\n\"open\nx", b','),
            Err(CsvError::UnterminatedQuote { line: 3 })
        );
        assert_eq!(
            read_all(b"a\n\"q\"x,b", b','),
            Err(CsvError::AfterQuote { line: 2 })
        );
        let long = vec![b'a'; RECORD_BYTES_MAX + 1];
        assert_eq!(
            read_all(&long, b','),
            Err(CsvError::RecordTooLong { line: 1 })
        );
    }

    #[test]
    fn urls_stay_under_the_import_directory() {
        let dir = std::env::temp_dir().join(format!("quiver-csv-{}", std::process::id()));
        let root = dir.join("import");
        std::fs::create_dir_all(root.join("sub")).expect("dirs");
        std::fs::write(root.join("a.csv"), "x\n").expect("write");
        std::fs::write(root.join("sub/b c.csv"), "x\n").expect("write");
        std::fs::write(dir.join("secret.csv"), "x\n").expect("write");
        #[cfg(unix)]
        {
            let _ = std::os::unix::fs::symlink(dir.join("secret.csv"), root.join("link.csv"));
            let _ = std::os::unix::fs::symlink(&dir, root.join("up"));
        }
        let ok = |url: &str| resolve(url, Some(&root)).expect(url);
        let real = std::fs::canonicalize(&root).expect("root");
        assert_eq!(ok("file:///a.csv"), real.join("a.csv"));
        assert_eq!(ok("file:/a.csv"), real.join("a.csv"));
        assert_eq!(ok("file://localhost/a.csv"), real.join("a.csv"));
        assert_eq!(ok("file:///sub/../a.csv"), real.join("a.csv"));
        assert_eq!(ok("file:///sub/b%20c.csv"), real.join("sub/b c.csv"));
        for url in [
            "file:///../secret.csv",
            "file:///sub/../../secret.csv",
            "file:///%2e%2e/secret.csv",
            "file:///..%2fsecret.csv",
            "file:///link.csv",
            "file:///up/secret.csv",
            &format!("file://{}", dir.join("secret.csv").display()),
            "file://otherhost/a.csv",
            "file:///sub",
            "file:///missing.csv",
            "http://example.com/a.csv",
            "https://example.com/a.csv",
            "/a.csv",
            "a.csv",
        ] {
            let e = resolve(url, Some(&root)).expect_err(url);
            assert_eq!(
                e.status_code(),
                quiver_status::Status::ExternalResourceFailed,
                "{url}"
            );
        }
        assert!(resolve("file:///a.csv", None).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
