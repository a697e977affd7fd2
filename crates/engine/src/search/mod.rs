//! The options of the search indexes (full-text and vector): read when `CREATE ... INDEX`
//! runs, shown by `SHOW INDEXES`. The procedures that query them are `quiver-procedures`'.

pub(crate) mod fulltext;
pub mod vector;
