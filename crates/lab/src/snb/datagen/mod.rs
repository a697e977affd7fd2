//! The SNB data generator: a social network at a chosen scale, written as the bulk files
//! `quiver import` loads, the update stream that follows them in time, and the substitution
//! parameters of the reads.
//!
//! [`generate`] writes into one directory:
//!
//! ```text
//! manifest.json    the spec, every bulk file with its row count, the window, cutoff and stream
//! bulk/*.csv       one file per node label and per (type, start label, end label) (files::FILES)
//! updates.jsonl    the update stream: ops::Scheduled, one per line, sorted by due time
//! params.json      for every complex and short read ("IC1" ... "IS7"), a list of ops::Operation
//! ```
//!
//! [`import`] builds a Quiver data directory from the bulk files, and [`SCHEMA`] holds the
//! constraints and indexes the loaded database is given before it is queried.
//!
//! Everything is created in the window 2010-01-01 to 2013-01-01; what is created before
//! 2012-09-13 is in the bulk files, the rest is the update stream. The same spec writes the
//! same files, byte for byte. The generator is single-threaded and streams: it holds the
//! people, the friendships and one forum at a time, never the messages.
//!
//! # Where this differs from LDBC's Datagen
//! This is a generator written for Quiver's laboratory from the specification's description
//! of the data, not a port of Datagen, and it does not reproduce Datagen's files:
//!
//! - Names are synthetic (syllables) except continents, countries and tag classes; there is
//!   no DBpedia text. Tags are 16,080 names in 71 classes, countries 111, cities 1,343, as in
//!   Datagen, but which tag is popular where is a skewed draw shifted per country, not real
//!   data. Message texts are cut from a word list.
//! - Degrees are log-normal with Datagen's mean-degree fit (n^(0.512 - 0.028·log10 n)), not
//!   Datagen's Facebook degree table; friendships come from three passes over people sorted
//!   by university, by main interest and at random (45/45/10% of each person's target), a
//!   person befriending people a few places further along (a random step, not Datagen's
//!   distance-decaying probability), so the realised degrees fall somewhat short of the
//!   targets at the ends of the orders.
//! - A person's activity scales with their degree and with the time left in the window, so
//!   activity grows over time and the update stream holds more than a tenth of the messages;
//!   Datagen's dates are spread differently. People join uniformly over the window.
//! - Forums are walls (members: the owner's friends), photo albums (image posts by the
//!   owner, liked by friends, no comments, no members) and groups (members drawn from the
//!   moderator's friends, people with the group's interest and anyone). A moderator of a
//!   group is also its member; the owner of a wall is not.
//! - A message is located in its author's country, or with probability 0.1 in another
//!   country (travel), with an IP address of that country.
//! - The parameter curation picks by proxies (degree bands, popular countries and tags) rather
//!   than by measuring each candidate's intermediate result sizes (see [`params`]).
//! - Persons' ids are their numbers 0..n; forum ids and message ids are consecutive in
//!   generation order (posts and comments share one id space); places share one space
//!   (cities, then countries, then continents), as do organisations (universities, then
//!   companies).

pub mod activity;
pub mod dict;
pub mod files;
mod import;
pub mod params;
pub mod persons;
pub mod rng;
pub mod stream;
pub mod time;
pub mod world;

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use files::{BULK_DIR, BulkFile, FILES, Holds};
pub use import::{SCHEMA, import};

use crate::error::LabError;
use crate::snb::ops::{Kind, Millis, Operation, Scheduled};

/// The manifest's name in the output directory.
pub const MANIFEST: &str = "manifest.json";
/// The substitution parameters' file.
pub const PARAMS: &str = "params.json";
/// The update stream's file.
pub const UPDATES: &str = "updates.jsonl";

/// What to generate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    pub persons: usize,
    pub seed: u64,
    /// The mean number of friends aimed at (the realised mean is a little lower).
    pub mean_degree: f64,
    /// A factor on every per-person message rate (1: the rates that give Datagen's counts).
    pub activity: f64,
    /// Parameters picked per read kind.
    pub params_per_kind: usize,
}

impl Spec {
    pub const DEFAULT_SEED: u64 = 42;

    /// `persons` people with Datagen's mean degree for that many, the default activity and
    /// 200 parameters per kind.
    pub fn new(persons: usize, seed: u64) -> Spec {
        Spec {
            persons,
            seed,
            mean_degree: persons::mean_degree(persons),
            activity: 1.0,
            params_per_kind: 200,
        }
    }

    /// The shape of an SNB scale factor ("0.1", "1", "3", "10"): that scale's number of
    /// people (about 1,500, 10,000, 27,000 and 65,000).
    pub fn scale_factor(sf: &str) -> Result<Spec, LabError> {
        let persons = match sf.trim() {
            "0.1" => 1_500,
            "1" => 10_000,
            "3" => 27_000,
            "10" => 65_000,
            other => {
                return Err(LabError::Usage(format!(
                    "unknown SNB scale factor `{other}` (0.1, 1, 3 or 10)"
                )));
            }
        };
        Ok(Spec::new(persons, Spec::DEFAULT_SEED))
    }
}

/// One bulk file in the manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// The path under the output directory (`bulk/person.csv`).
    pub path: String,
    /// The labels of a node file (its own first); empty for a relationship file.
    pub labels: Vec<String>,
    /// A relationship file's type and its start and end labels.
    pub relationship: Option<(String, String, String)>,
    pub header: String,
    /// Rows, not counting the header.
    pub rows: u64,
}

/// What [`generate`] wrote, as `manifest.json` holds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub spec: Spec,
    pub files: Vec<FileEntry>,
    pub window_start: Millis,
    pub window_end: Millis,
    /// Everything created before this is in the bulk files.
    pub bulk_cutoff: Millis,
    /// The first and last update's due time (the cutoff when there is none).
    pub stream_start: Millis,
    pub stream_end: Millis,
    pub updates: u64,
    /// Parameters per read kind.
    pub params: BTreeMap<String, u64>,
}

impl Manifest {
    /// Rows in the node files with this label, and in the relationship files of this type.
    pub fn rows_with(&self, name: &str) -> u64 {
        self.files
            .iter()
            .filter(|f| {
                f.labels.iter().any(|l| l == name)
                    || f.relationship.as_ref().is_some_and(|r| r.0 == name)
            })
            .map(|f| f.rows)
            .sum()
    }

    pub fn nodes(&self) -> u64 {
        self.files
            .iter()
            .filter(|f| f.relationship.is_none())
            .map(|f| f.rows)
            .sum()
    }

    pub fn relationships(&self) -> u64 {
        self.files
            .iter()
            .filter(|f| f.relationship.is_some())
            .map(|f| f.rows)
            .sum()
    }
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> LabError + '_ {
    move |e| LabError::artifact(path, e)
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), LabError> {
    let file = fs::File::create(path).map_err(io_at(path))?;
    let mut w = BufWriter::new(file);
    serde_json::to_writer_pretty(&mut w, value)
        .map_err(|e| LabError::artifact(path, std::io::Error::other(e)))?;
    w.write_all(b"\n").map_err(io_at(path))?;
    w.flush().map_err(io_at(path))
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, LabError> {
    let file = fs::File::open(path).map_err(io_at(path))?;
    serde_json::from_reader(BufReader::new(file))
        .map_err(|e| LabError::artifact(path, std::io::Error::other(e)))
}

/// Generates the data set of `spec` into `dir` (created if missing; files of an earlier
/// run are replaced).
pub fn generate(spec: &Spec, dir: &Path) -> Result<Manifest, LabError> {
    fs::create_dir_all(dir).map_err(io_at(dir))?;
    let world = world::World::build(spec.seed);
    let people = persons::people(&world, spec.persons, spec.mean_degree, spec.seed);
    let knows = persons::knows(&people, spec.seed);
    let bulk_dir = dir.join(BULK_DIR);
    let mut bulk = files::Bulk::create(dir).map_err(io_at(&bulk_dir))?;
    world.write(&mut bulk).map_err(io_at(&bulk_dir))?;
    let tmp = dir.join("updates.tmp");
    let mut stream = stream::Stream::create(&tmp).map_err(io_at(&tmp))?;
    let mut activity =
        activity::Activity::new(spec, &world, &people, &knows, &mut bulk, &mut stream);
    activity.people().map_err(io_at(&bulk_dir))?;
    activity.knows(&knows).map_err(io_at(&bulk_dir))?;
    activity.forums().map_err(io_at(&bulk_dir))?;
    let (stats, friends) = activity.into_parts();
    bulk.finish().map_err(io_at(&bulk_dir))?;
    let (updates, first, last) = (stream.count, stream.first_due, stream.last_due);
    let updates_path = dir.join(UPDATES);
    stream.finish(&updates_path).map_err(io_at(&updates_path))?;

    let params = params::curate(
        spec.params_per_kind,
        spec.seed,
        &world,
        &people,
        &friends,
        &stats,
    );
    write_json(&dir.join(PARAMS), &params)?;

    let manifest = Manifest {
        spec: spec.clone(),
        files: FILES
            .iter()
            .zip(&bulk.rows)
            .map(|(file, &rows)| FileEntry {
                path: format!("{BULK_DIR}/{}", file.name),
                labels: match file.holds {
                    Holds::Nodes(labels) => labels.iter().map(ToString::to_string).collect(),
                    Holds::Relationships { .. } => Vec::new(),
                },
                relationship: match file.holds {
                    Holds::Nodes(_) => None,
                    Holds::Relationships { ty, start, end } => {
                        Some((ty.to_string(), start.to_string(), end.to_string()))
                    }
                },
                header: file.header.to_string(),
                rows,
            })
            .collect(),
        window_start: time::WINDOW_START,
        window_end: time::WINDOW_END,
        bulk_cutoff: time::BULK_CUTOFF,
        stream_start: first.unwrap_or(time::BULK_CUTOFF),
        stream_end: last.unwrap_or(time::BULK_CUTOFF),
        updates,
        params: params
            .iter()
            .map(|(k, v)| (k.clone(), v.len() as u64))
            .collect(),
    };
    write_json(&dir.join(MANIFEST), &manifest)?;
    Ok(manifest)
}

/// The manifest of a generated directory.
pub fn read_manifest(dir: &Path) -> Result<Manifest, LabError> {
    read_json(&dir.join(MANIFEST))
}

/// The substitution parameters of a generated directory, by kind.
pub fn read_params(dir: &Path) -> Result<BTreeMap<Kind, Vec<Operation>>, LabError> {
    let path = dir.join(PARAMS);
    let by_name: BTreeMap<String, Vec<Operation>> = read_json(&path)?;
    by_name
        .into_iter()
        .map(|(name, ops)| {
            Kind::parse(&name).map(|kind| (kind, ops)).ok_or_else(|| {
                LabError::Usage(format!("{}: unknown kind `{name}`", path.display()))
            })
        })
        .collect()
}

/// The update stream of a generated directory, in order: all of it, or (with `span`) the
/// updates due within `span` of the first, the rest of the file left unread.
pub fn read_updates(dir: &Path, span: Option<Millis>) -> Result<Vec<Scheduled>, LabError> {
    let path = dir.join(UPDATES);
    let file = fs::File::open(&path).map_err(io_at(&path))?;
    let mut updates: Vec<Scheduled> = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line.map_err(io_at(&path))?;
        let update: Scheduled = serde_json::from_str(&line)
            .map_err(|e| LabError::artifact(&path, std::io::Error::other(e)))?;
        if let (Some(span), Some(first)) = (span, updates.first())
            && update.due - first.due > span
        {
            break;
        }
        updates.push(update);
    }
    Ok(updates)
}
