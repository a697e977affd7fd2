//! `quiver import`: an offline bulk loader for Neo4j's import CSV format, writing a data
//! directory that `quiver serve` opens.
//!
//! The input is what `neo4j-admin database import full` reads: groups of node files and of
//! relationship files, each group's header the first line of its first file ([`header`]),
//! typed columns ([`typed`]), ids in ID spaces ([`idmap`]), plain or gzip files ([`input`]).
//! Bad entries are skipped or fatal by Neo4j's flags and listed in a report ([`report`]).
//! The graph is built in memory through one seam ([`sink`]) and written as one snapshot by
//! the durability crate's writer, into a staging directory renamed onto the destination only
//! when complete ([`dest`]): an import that fails or is killed leaves no database behind.
//!
//! ```no_run
//! use quiver_import::{FileKind, Group, Options, run};
//! # fn options(data_dir: std::path::PathBuf, nodes: Vec<Group>) -> Options { unimplemented!() }
//! let nodes = Group::parse("Person=people.csv", FileKind::Nodes)?;
//! let summary = run(&options("data".into(), vec![nodes])).map_err(|e| e.to_string())?;
//! println!("{} nodes", summary.nodes);
//! # Ok::<(), String>(())
//! ```

pub mod dest;
mod error;
pub mod header;
pub mod idmap;
pub mod input;
mod load;
pub mod progress;
pub mod report;
pub mod sink;
pub mod typed;

pub use error::Error;
pub use header::FileKind;
pub use idmap::IdType;
pub use load::{BATCH_ROWS, Group, Options, Summary, run};
pub use progress::ProgressMode;
pub use report::Policy;
