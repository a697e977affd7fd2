//! The loader: headers first (every group's, so a bad header or an unknown ID space fails
//! before any row is read), then every node file, then every relationship file, into the
//! [`Sink`] on a thread of its own so parsing and storing overlap.
//!
//! Nodes are numbered densely from 0 in input order; the id map turns each `:ID` into its
//! node for the relationships that follow. Rows travel to the sink in batches of
//! [`BATCH_ROWS`] over a short bounded channel, so memory holds a few batches, not the input.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use csv::ByteRecord;
use quiver_value::Value;
use rustc_hash::FxHashMap;

use crate::dest::Staging;
use crate::error::Error;
use crate::header::{Column, FileKind, Header};
use crate::idmap::{IdMap, IdType, Space};
use crate::input::{self, Dialect, Records};
use crate::progress::{Progress, ProgressMode};
use crate::report::{BadKind, Policy, Report};
use crate::sink::{LabelId, PropKeyId, RelTypeId, Sink, Tokens};
use crate::typed::FieldType;

/// Rows sent to the sink at once.
pub const BATCH_ROWS: usize = 4096;
/// Batches in flight between the parser and the sink.
const BATCHES_IN_FLIGHT: usize = 4;

/// One `--nodes` or `--relationships` argument: labels (or a type) and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// Labels given to every node of the group, or the group's relationship type (one).
    pub names: Vec<String>,
    pub files: Vec<PathBuf>,
}

impl Group {
    /// `[LABEL[:LABEL]=]FILE[,FILE]` (nodes) or `[TYPE=]FILE[,FILE]` (relationships), as
    /// neo4j-admin spells them.
    pub fn parse(spec: &str, kind: FileKind) -> Result<Group, String> {
        let (names, files) = match spec.split_once('=') {
            Some((names, files)) => (
                names
                    .split(':')
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_string)
                    .collect(),
                files,
            ),
            None => (Vec::new(), spec),
        };
        let names: Vec<String> = names;
        if kind == FileKind::Relationships && names.len() > 1 {
            return Err(format!(
                "`{spec}`: a relationship group takes one type, not {}",
                names.len()
            ));
        }
        let files: Vec<PathBuf> = files
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(PathBuf::from)
            .collect();
        if files.is_empty() {
            return Err(format!("`{spec}` names no file"));
        }
        Ok(Group { names, files })
    }
}

/// Everything `quiver import` is told.
#[derive(Clone, Debug)]
pub struct Options {
    pub data_dir: PathBuf,
    pub nodes: Vec<Group>,
    pub relationships: Vec<Group>,
    pub delimiter: u8,
    pub array_delimiter: char,
    pub quote: u8,
    /// Accepted for neo4j-admin's command lines: every empty field is already no property.
    pub ignore_empty_strings: bool,
    pub id_type: IdType,
    pub policy: Policy,
    pub report_file: PathBuf,
    pub overwrite_destination: bool,
    pub progress: ProgressMode,
}

/// What an import did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub data_dir: PathBuf,
    pub nodes: u64,
    pub relationships: u64,
    pub properties: u64,
    pub skipped_nodes: u64,
    pub skipped_relationships: u64,
    pub bytes_read: u64,
    /// Reading, converting and storing every row.
    pub load: Duration,
    /// Writing the snapshot and moving the directory into place.
    pub write: Duration,
    pub snapshot_bytes: u64,
}

impl Summary {
    pub fn rows_per_second(&self) -> f64 {
        (self.nodes + self.relationships) as f64 / self.load.as_secs_f64().max(1e-6)
    }
}

/// Runs an import. On any error nothing is left at the destination (it is as it was) and the
/// report file ends with the error.
pub fn run(options: &Options) -> Result<Summary, Error> {
    let mut report = Report::create(&options.report_file, options.policy)?;
    let result = run_with(options, &mut report);
    report.close(result.as_ref().err())?;
    result
}

fn run_with(options: &Options, report: &mut Report) -> Result<Summary, Error> {
    if options.nodes.is_empty() {
        return Err(Error::Usage(
            "at least one --nodes group is needed".to_string(),
        ));
    }
    let dialect = Dialect {
        delimiter: options.delimiter,
        quote: options.quote,
    };
    let (node_headers, rel_headers, ids) = headers(options, dialect)?;
    let mut total_bytes = 0;
    for group in options.nodes.iter().chain(&options.relationships) {
        for file in &group.files {
            total_bytes += input::size(file)?;
        }
    }

    let staging = Staging::prepare(&options.data_dir, options.overwrite_destination)?;
    let started = Instant::now();
    let sink = Sink::new();
    let tokens = sink.tokens();
    let (to_sink, from_parser) = sync_channel(BATCHES_IN_FLIGHT);
    let dir = staging.dir().to_path_buf();
    let sink_thread = std::thread::Builder::new()
        .name("import-sink".to_string())
        .spawn(move || drain(sink, from_parser, &dir))
        .map_err(|e| Error::Store(format!("cannot start the sink thread: {e}")))?;
    let read = Arc::new(AtomicU64::new(0));
    let mut loader = Loader {
        options,
        dialect,
        tokens,
        ids,
        report,
        progress: Progress::new(options.progress, total_bytes, Arc::clone(&read)),
        to_sink,
        next_node: 0,
        relationships: 0,
        properties: 0,
        nodes_batch: Nodes::default(),
        rels_batch: Relationships::default(),
        labels: FxHashMap::default(),
        types: FxHashMap::default(),
    };
    let parsed = loader.load(&node_headers, &rel_headers);
    let Loader {
        next_node,
        relationships,
        properties,
        to_sink,
        progress,
        ..
    } = loader;
    if parsed.is_ok() {
        // A failed send means the sink stopped; its own error is the one to report.
        let _ = to_sink.send(Batch::Done);
    }
    drop(to_sink);
    let sunk = sink_thread
        .join()
        .unwrap_or_else(|_| Err(Error::Store("the sink thread panicked".to_string())));
    progress.finish();
    let info = match (parsed, sunk) {
        (Ok(()), Ok(info)) => info,
        (_, Err(e)) | (Err(e), Ok(_)) => return Err(e),
    };
    let snapshot = info.as_ref().map_or(Duration::ZERO, |i| i.duration);
    let load = started.elapsed().saturating_sub(snapshot);
    let data_dir = staging.commit()?;
    Ok(Summary {
        data_dir,
        nodes: next_node,
        relationships,
        properties,
        skipped_nodes: loader.report.skipped_nodes,
        skipped_relationships: loader.report.skipped_relationships,
        bytes_read: read.load(std::sync::atomic::Ordering::Relaxed),
        load,
        write: started.elapsed().saturating_sub(load),
        snapshot_bytes: info.map_or(0, |i| i.bytes),
    })
}

/// Reads and checks every group's header: columns, ID spaces (a relationship's must be
/// declared by some node file) and relationship types. Returns the id map with every space.
fn headers(
    options: &Options,
    dialect: Dialect,
) -> Result<(Vec<Header>, Vec<Header>, IdMap), Error> {
    let node_headers = options
        .nodes
        .iter()
        .map(|g| read_header(g, FileKind::Nodes, dialect))
        .collect::<Result<Vec<_>, _>>()?;
    let rel_headers = options
        .relationships
        .iter()
        .map(|g| read_header(g, FileKind::Relationships, dialect))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ids = IdMap::new(options.id_type);
    for (group, header) in options.nodes.iter().zip(&node_headers) {
        for space in header.spaces() {
            if options.id_type == IdType::Actual && space.is_some() {
                return Err(Error::Header {
                    file: group.files[0].clone(),
                    reason: "ID spaces need --id-type string or integer, not actual".to_string(),
                });
            }
            ids.declare(space);
        }
    }
    for (group, header) in options.relationships.iter().zip(&rel_headers) {
        let file = || group.files[0].clone();
        for space in header.spaces() {
            if ids.space(space).is_none() {
                let name = match space {
                    Some(name) => format!("ID space `{name}`"),
                    None => "the global ID space".to_string(),
                };
                return Err(Error::Header {
                    file: file(),
                    reason: format!("{name} is not declared by any node file's :ID column"),
                });
            }
        }
        if !header.has_type() && group.names.is_empty() {
            return Err(Error::Header {
                file: file(),
                reason: "no relationship type: add a :TYPE column or give TYPE=FILES".to_string(),
            });
        }
    }
    Ok((node_headers, rel_headers, ids))
}

/// The first record of a group's first file.
fn read_header(group: &Group, kind: FileKind, dialect: Dialect) -> Result<Header, Error> {
    let path = &group.files[0];
    let mut records = Records::open(path, dialect, &Arc::new(AtomicU64::new(0)))?;
    let mut record = ByteRecord::new();
    if records.next(&mut record)?.is_none() {
        return Err(Error::Header {
            file: path.clone(),
            reason: "the file is empty: its first line must be the header".to_string(),
        });
    }
    let fields = (0..record.len())
        .map(|i| input::field(&record, i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|reason| Error::Header {
            file: path.clone(),
            reason,
        })?;
    Header::parse(&fields, kind).map_err(|reason| Error::Header {
        file: path.clone(),
        reason,
    })
}

/// A node of a batch: its labels and properties end where these say in the batch's shared
/// vectors (and start where the previous row's end), so a row costs no allocation of its own.
struct NodeRow {
    id: u64,
    labels_end: usize,
    props_end: usize,
}

struct RelRow {
    start: u64,
    end: u64,
    ty: RelTypeId,
    props_end: usize,
}

#[derive(Default)]
struct Nodes {
    rows: Vec<NodeRow>,
    labels: Vec<LabelId>,
    props: Vec<(PropKeyId, Value)>,
}

#[derive(Default)]
struct Relationships {
    rows: Vec<RelRow>,
    props: Vec<(PropKeyId, Value)>,
}

enum Batch {
    Nodes(Nodes),
    Relationships(Relationships),
    /// Everything was sent: write the snapshot. A channel closed without it means the
    /// import failed and nothing is written.
    Done,
}

fn drain(
    sink: Sink,
    batches: Receiver<Batch>,
    dir: &Path,
) -> Result<Option<quiver_durability::SnapshotInfo>, Error> {
    sink.load(dir, |loading| {
        while let Ok(batch) = batches.recv() {
            match batch {
                Batch::Nodes(b) => {
                    let (mut l, mut p) = (0, 0);
                    for r in b.rows {
                        loading.node(r.id, &b.labels[l..r.labels_end], &b.props[p..r.props_end])?;
                        (l, p) = (r.labels_end, r.props_end);
                    }
                }
                Batch::Relationships(b) => {
                    let mut p = 0;
                    for r in b.rows {
                        loading.relationship(r.start, r.end, r.ty, &b.props[p..r.props_end])?;
                        p = r.props_end;
                    }
                }
                Batch::Done => return Ok(true),
            }
        }
        Ok(false)
    })
}

/// A header column with its tokens and ID space resolved.
enum Col {
    Prop(PropKeyId, FieldType),
    Id(Option<PropKeyId>, Space),
    Label,
    Start(Space),
    End(Space),
    Type,
    Ignore,
}

/// Converts the field of property column `column` and adds it to `props`; an empty field
/// sets nothing.
fn push_prop(
    props: &mut Vec<(PropKeyId, Value)>,
    (key, ty): (PropKeyId, FieldType),
    text: &str,
    column: usize,
    array_delimiter: char,
) -> Result<(), String> {
    if !text.is_empty() {
        let value = ty
            .convert(text, array_delimiter)
            .map_err(|e| format!("column {}: {e}", column + 1))?;
        props.push((key, value));
    }
    Ok(())
}

/// The maker of the errors of the row at `line` of `file`.
fn input_error(file: &Path, line: u64) -> impl Fn(String) -> Error + Copy + '_ {
    move |reason| Error::Input {
        file: file.to_path_buf(),
        line,
        reason,
    }
}

struct Loader<'a> {
    options: &'a Options,
    dialect: Dialect,
    tokens: Tokens,
    ids: IdMap,
    report: &'a mut Report,
    progress: Progress,
    to_sink: SyncSender<Batch>,
    next_node: u64,
    relationships: u64,
    properties: u64,
    nodes_batch: Nodes,
    rels_batch: Relationships,
    labels: FxHashMap<String, LabelId>,
    types: FxHashMap<String, RelTypeId>,
}

impl Loader<'_> {
    fn load(&mut self, node_headers: &[Header], rel_headers: &[Header]) -> Result<(), Error> {
        self.progress.phase("nodes");
        for (group, header) in self.options.nodes.iter().zip(node_headers) {
            let cols = self.resolve(header)?;
            let labels = group
                .names
                .iter()
                .map(|l| self.tokens.label(l))
                .collect::<Result<Vec<_>, _>>()?;
            self.each_row(group, |this, record, file, line| {
                this.node(&cols, &labels, record, file, line)
            })?;
        }
        self.flush_nodes()?;
        self.progress.phase("relationships");
        for (group, header) in self.options.relationships.iter().zip(rel_headers) {
            let cols = self.resolve(header)?;
            let ty = match group.names.first() {
                Some(name) => Some(self.tokens.rel_type(name)?),
                None => None,
            };
            self.each_row(group, |this, record, file, line| {
                this.relationship(&cols, ty, record, file, line)
            })?;
        }
        self.flush_relationships()
    }

    fn resolve(&self, header: &Header) -> Result<Vec<Col>, Error> {
        let space = |s: &Option<String>| {
            self.ids
                .space(s)
                .ok_or_else(|| Error::Store("an ID space was not declared".to_string()))
        };
        header
            .columns
            .iter()
            .map(|c| {
                Ok(match c {
                    Column::Property { key, ty } => Col::Prop(self.tokens.key(key)?, *ty),
                    Column::Id { key, space: s } => Col::Id(
                        key.as_deref().map(|k| self.tokens.key(k)).transpose()?,
                        space(s)?,
                    ),
                    Column::Label => Col::Label,
                    Column::StartId { space: s } => Col::Start(space(s)?),
                    Column::EndId { space: s } => Col::End(space(s)?),
                    Column::Type => Col::Type,
                    Column::Ignore => Col::Ignore,
                })
            })
            .collect()
    }

    /// Calls `row` for every data record of the group's files (all but the first file's
    /// first record, the header).
    fn each_row(
        &mut self,
        group: &Group,
        mut row: impl FnMut(&mut Self, &ByteRecord, &Path, u64) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let read = self.progress.counter();
        let mut record = ByteRecord::new();
        for (i, path) in group.files.iter().enumerate() {
            let mut records = Records::open(path, self.dialect, &read)?;
            if i == 0 {
                records.next(&mut record)?;
            }
            let mut since_tick = 0u64;
            while let Some(line) = records.next(&mut record)? {
                row(self, &record, records.path(), line)?;
                since_tick += 1;
                if since_tick == BATCH_ROWS as u64 {
                    self.progress.rows(since_tick);
                    since_tick = 0;
                }
            }
            self.progress.rows(since_tick);
        }
        Ok(())
    }

    fn fields_match(
        cols: &[Col],
        record: &ByteRecord,
        file: &Path,
        line: u64,
    ) -> Result<(), Error> {
        if record.len() != cols.len() {
            return Err(input_error(file, line)(format!(
                "the row has {} fields, the header {}",
                record.len(),
                cols.len()
            )));
        }
        Ok(())
    }

    fn node(
        &mut self,
        cols: &[Col],
        group_labels: &[LabelId],
        record: &ByteRecord,
        file: &Path,
        line: u64,
    ) -> Result<(), Error> {
        Self::fields_match(cols, record, file, line)?;
        let fail = input_error(file, line);
        let (labels_start, props_start) =
            (self.nodes_batch.labels.len(), self.nodes_batch.props.len());
        self.nodes_batch.labels.extend_from_slice(group_labels);
        let mut id = None;
        for (i, col) in cols.iter().enumerate() {
            let text = input::field(record, i).map_err(fail)?;
            match col {
                Col::Prop(key, ty) => {
                    let props = &mut self.nodes_batch.props;
                    push_prop(props, (*key, *ty), text, i, self.options.array_delimiter)
                        .map_err(fail)?;
                }
                Col::Id(key, space) => {
                    if text.is_empty() {
                        return Err(fail(format!("the node has no ID (column {})", i + 1)));
                    }
                    if let Some(key) = key {
                        let value = self.options.id_type.stored(text).map_err(fail)?;
                        self.nodes_batch.props.push((*key, value));
                    }
                    id = Some((text, *space));
                }
                Col::Label => {
                    for label in text.split(self.options.array_delimiter) {
                        let label = label.trim();
                        if !label.is_empty() {
                            let label = self.label(label)?;
                            self.nodes_batch.labels.push(label);
                        }
                    }
                }
                Col::Ignore | Col::Start(_) | Col::End(_) | Col::Type => {}
            }
        }
        if let Some((raw, space)) = id {
            match self.ids.insert(space, raw, self.next_node) {
                Ok(true) => {}
                Ok(false) => {
                    self.nodes_batch.labels.truncate(labels_start);
                    self.nodes_batch.props.truncate(props_start);
                    let reason = format!("duplicate ID `{raw}` in {}", self.ids.describe(space));
                    return self.report.bad(BadKind::DuplicateNode, file, line, reason);
                }
                Err(reason) => return Err(fail(reason)),
            }
        }
        self.properties += (self.nodes_batch.props.len() - props_start) as u64;
        self.nodes_batch.rows.push(NodeRow {
            id: self.next_node,
            labels_end: self.nodes_batch.labels.len(),
            props_end: self.nodes_batch.props.len(),
        });
        self.next_node += 1;
        if self.nodes_batch.rows.len() >= BATCH_ROWS {
            self.flush_nodes()?;
        }
        Ok(())
    }

    fn relationship(
        &mut self,
        cols: &[Col],
        group_type: Option<RelTypeId>,
        record: &ByteRecord,
        file: &Path,
        line: u64,
    ) -> Result<(), Error> {
        Self::fields_match(cols, record, file, line)?;
        let fail = input_error(file, line);
        let props_start = self.rels_batch.props.len();
        let (mut start, mut end) = (None, None);
        let mut ty = group_type;
        for (i, col) in cols.iter().enumerate() {
            let text = input::field(record, i).map_err(fail)?;
            match col {
                Col::Prop(key, t) => {
                    let props = &mut self.rels_batch.props;
                    push_prop(props, (*key, *t), text, i, self.options.array_delimiter)
                        .map_err(fail)?;
                }
                Col::Start(space) => start = Some((text, *space)),
                Col::End(space) => end = Some((text, *space)),
                Col::Type => {
                    let name = text.trim();
                    if !name.is_empty() {
                        ty = Some(self.rel_type(name)?);
                    }
                }
                Col::Ignore | Col::Id(..) | Col::Label => {}
            }
        }
        let Some(ty) = ty else {
            return Err(fail("the relationship has no type".to_string()));
        };
        let mut ends = [0u64; 2];
        for (slot, (which, end)) in ends.iter_mut().zip([("start", start), ("end", end)]) {
            let Some((raw, space)) = end else {
                return Err(fail(format!("no {which} ID column")));
            };
            let bad = if raw.is_empty() {
                format!("the relationship has no {which} ID")
            } else {
                match self.ids.get(space, raw).map_err(fail)? {
                    Some(node) => {
                        *slot = node;
                        continue;
                    }
                    None => format!(
                        "{which} ID `{raw}` not found in {}",
                        self.ids.describe(space)
                    ),
                }
            };
            self.rels_batch.props.truncate(props_start);
            return self.report.bad(BadKind::BadRelationship, file, line, bad);
        }
        self.properties += (self.rels_batch.props.len() - props_start) as u64;
        self.relationships += 1;
        self.rels_batch.rows.push(RelRow {
            start: ends[0],
            end: ends[1],
            ty,
            props_end: self.rels_batch.props.len(),
        });
        if self.rels_batch.rows.len() >= BATCH_ROWS {
            self.flush_relationships()?;
        }
        Ok(())
    }

    fn label(&mut self, name: &str) -> Result<LabelId, Error> {
        if let Some(l) = self.labels.get(name) {
            return Ok(*l);
        }
        let l = self.tokens.label(name)?;
        self.labels.insert(name.to_string(), l);
        Ok(l)
    }

    fn rel_type(&mut self, name: &str) -> Result<RelTypeId, Error> {
        if let Some(t) = self.types.get(name) {
            return Ok(*t);
        }
        let t = self.tokens.rel_type(name)?;
        self.types.insert(name.to_string(), t);
        Ok(t)
    }

    fn send(&self, batch: Batch) -> Result<(), Error> {
        self.to_sink
            .send(batch)
            .map_err(|_| Error::Store("the store stopped taking rows".to_string()))
    }

    fn flush_nodes(&mut self) -> Result<(), Error> {
        if self.nodes_batch.rows.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.nodes_batch);
        self.send(Batch::Nodes(batch))
    }

    fn flush_relationships(&mut self) -> Result<(), Error> {
        if self.rels_batch.rows.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.rels_batch);
        self.send(Batch::Relationships(batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_read_as_neo4j_admin_spells_them() {
        let g = Group::parse("Person:Admin=h.csv,a.csv", FileKind::Nodes).unwrap();
        assert_eq!(g.names, vec!["Person", "Admin"]);
        assert_eq!(
            g.files,
            vec![PathBuf::from("h.csv"), PathBuf::from("a.csv")]
        );
        let g = Group::parse("r.csv.gz", FileKind::Relationships).unwrap();
        assert!(g.names.is_empty());
        assert!(Group::parse("A:B=r.csv", FileKind::Relationships).is_err());
        assert!(Group::parse("A=", FileKind::Nodes).is_err());
    }
}
