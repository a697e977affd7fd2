//! Loading the bulk files into a Quiver data directory, and the schema a loaded database is
//! given.

use std::path::Path;

use quiver_import::{Group, IdType, Options, Policy, ProgressMode, Summary};

use super::files::{BULK_DIR, FILES, Holds};
use crate::error::LabError;

/// The constraints and indexes of an SNB database, run once after the import: a unique `id`
/// on every entity label the reads and updates look up by id, unique names where the reads look up by
/// name, and an index on first names (IC1).
pub const SCHEMA: &[&str] = &[
    "CREATE CONSTRAINT snb_person_id IF NOT EXISTS FOR (n:Person) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_message_id IF NOT EXISTS FOR (n:Message) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_post_id IF NOT EXISTS FOR (n:Post) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_comment_id IF NOT EXISTS FOR (n:Comment) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_forum_id IF NOT EXISTS FOR (n:Forum) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_tag_id IF NOT EXISTS FOR (n:Tag) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_tag_name IF NOT EXISTS FOR (n:Tag) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT snb_tagclass_name IF NOT EXISTS FOR (n:TagClass) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT snb_place_id IF NOT EXISTS FOR (n:Place) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_city_id IF NOT EXISTS FOR (n:City) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_country_id IF NOT EXISTS FOR (n:Country) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_country_name IF NOT EXISTS FOR (n:Country) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT snb_organisation_id IF NOT EXISTS FOR (n:Organisation) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_company_id IF NOT EXISTS FOR (n:Company) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT snb_university_id IF NOT EXISTS FOR (n:University) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX snb_person_first_name IF NOT EXISTS FOR (n:Person) ON (n.firstName)",
];

/// Builds a Quiver data directory at `data_dir` (which must not exist) from the bulk files
/// [`super::generate`] wrote to `dir`: integer ids, stored as `id`; posts and comments also
/// labelled `Message`, cities, countries and continents `Place`, universities and companies
/// `Organisation`. Any bad row fails the import. The import's report is `dir/import.report`.
pub fn import(dir: &Path, data_dir: &Path) -> Result<Summary, LabError> {
    let bulk = dir.join(BULK_DIR);
    let mut nodes = Vec::new();
    let mut relationships = Vec::new();
    for file in &FILES {
        let files = vec![bulk.join(file.name)];
        match file.holds {
            Holds::Nodes(labels) => nodes.push(Group {
                names: labels.iter().map(ToString::to_string).collect(),
                files,
            }),
            Holds::Relationships { ty, .. } => relationships.push(Group {
                names: vec![ty.to_string()],
                files,
            }),
        }
    }
    let options = Options {
        data_dir: data_dir.to_path_buf(),
        nodes,
        relationships,
        delimiter: b',',
        array_delimiter: ';',
        quote: b'"',
        ignore_empty_strings: false,
        id_type: IdType::Integer,
        policy: Policy {
            skip_bad_relationships: false,
            skip_duplicate_nodes: false,
            bad_tolerance: Some(0),
        },
        report_file: dir.join("import.report"),
        overwrite_destination: false,
        progress: ProgressMode::Off,
    };
    quiver_import::run(&options)
        .map_err(|e| LabError::Seed(format!("importing the SNB files: {e}")))
}
