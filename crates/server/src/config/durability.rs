//! The commit durability mode, chosen here and carried out by the storage layer.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;

/// When a commit is acknowledged relative to its log record reaching the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(try_from = "String")]
pub enum Durability {
    /// Acknowledge at once; the log is synced in the background (a crash may lose the last moments).
    #[default]
    Buffered,
    /// Acknowledge after the sync that covers the record; concurrent commits share one sync.
    Group,
    /// Acknowledge after a sync of the commit's own record.
    Sync,
}

impl FromStr for Durability {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "buffered" => Ok(Durability::Buffered),
            "group" => Ok(Durability::Group),
            "sync" => Ok(Durability::Sync),
            _ => Err(format!(
                "unknown durability `{text}`: expected buffered, group or sync"
            )),
        }
    }
}

impl TryFrom<String> for Durability {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl fmt::Display for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Durability::Buffered => "buffered",
            Durability::Group => "group",
            Durability::Sync => "sync",
        })
    }
}
