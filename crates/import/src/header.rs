//! Header lines: one `name:type` entry per column, as `neo4j-admin database import` reads them.
//!
//! ```text
//! id:ID(Person),name,age:int,tags:string[],:LABEL      a node file
//! :START_ID(Person),:END_ID(Person),since:date,:TYPE   a relationship file
//! ```
//!
//! - `:ID` (node files) names the column the relationships refer to; `(Space)` puts the ids
//!   in an ID space of that name (ids repeat across spaces, never within one). With a name
//!   before the colon (`id:ID`) the id is also stored as that property; `:ID` alone stores
//!   nothing, as in Neo4j.
//! - `:LABEL` (node files) holds extra labels separated by the array delimiter.
//! - `:START_ID(Space)`, `:END_ID(Space)` and `:TYPE` (relationship files); the type may
//!   instead come from `--relationships TYPE=...`.
//! - `:IGNORE` skips the column; a name without a type is a `string` property.
//!
//! The special names are read in any case. Column options in braces (`{...}`) are refused
//! rather than silently dropped.

use crate::typed::FieldType;

/// Which kind of file a header is for: its allowed columns differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Nodes,
    Relationships,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// A stored property of the given type.
    Property {
        key: String,
        ty: FieldType,
    },
    /// The node's id in `space` (`None`: the global space), stored as `key` when named.
    Id {
        key: Option<String>,
        space: Option<String>,
    },
    Label,
    StartId {
        space: Option<String>,
    },
    EndId {
        space: Option<String>,
    },
    Type,
    Ignore,
}

/// A file group's parsed header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub columns: Vec<Column>,
}

impl Header {
    /// Parses a header line's fields for a file of `kind`. The error is a reason for the
    /// report; the caller names the file and line.
    pub fn parse(fields: &[&str], kind: FileKind) -> Result<Header, String> {
        let mut columns = Vec::with_capacity(fields.len());
        let mut keys: Vec<String> = Vec::new();
        for (i, field) in fields.iter().enumerate() {
            let at = |reason: String| format!("header column {} (`{field}`): {reason}", i + 1);
            let column = parse_column(field).map_err(at)?;
            let allowed = match (&column, kind) {
                (Column::Id { .. } | Column::Label, FileKind::Nodes) => true,
                (Column::StartId { .. } | Column::EndId { .. } | Column::Type, k) => {
                    k == FileKind::Relationships
                }
                (Column::Property { .. } | Column::Ignore, _) => true,
                _ => false,
            };
            if !allowed {
                let what = match kind {
                    FileKind::Nodes => "a node file",
                    FileKind::Relationships => "a relationship file",
                };
                return Err(at(format!("not allowed in {what}")));
            }
            let stored = match &column {
                Column::Property { key, .. } => Some(key.as_str()),
                Column::Id { key, .. } => key.as_deref(),
                _ => None,
            };
            if let Some(key) = stored {
                if keys.iter().any(|k| k == key) {
                    return Err(at(format!("property `{key}` appears twice")));
                }
                keys.push(key.to_string());
            }
            columns.push(column);
        }
        let count = |f: fn(&Column) -> bool| columns.iter().filter(|c| f(c)).count();
        if count(|c| matches!(c, Column::Id { .. })) > 1 {
            return Err("header has more than one :ID column".to_string());
        }
        if kind == FileKind::Relationships {
            for (name, n) in [
                (":START_ID", count(|c| matches!(c, Column::StartId { .. }))),
                (":END_ID", count(|c| matches!(c, Column::EndId { .. }))),
            ] {
                if n != 1 {
                    return Err(format!(
                        "a relationship header needs exactly one {name} column, found {n}"
                    ));
                }
            }
            if count(|c| matches!(c, Column::Type)) > 1 {
                return Err("header has more than one :TYPE column".to_string());
            }
        }
        Ok(Header { columns })
    }

    /// The ID spaces this header refers to (start and end ids) or declares (`:ID`).
    pub fn spaces(&self) -> impl Iterator<Item = &Option<String>> {
        self.columns.iter().filter_map(|c| match c {
            Column::Id { space, .. } | Column::StartId { space } | Column::EndId { space } => {
                Some(space)
            }
            _ => None,
        })
    }

    pub fn has_type(&self) -> bool {
        self.columns.iter().any(|c| matches!(c, Column::Type))
    }
}

fn parse_column(field: &str) -> Result<Column, String> {
    let field = field.trim();
    let (name, spec) = match field.split_once(':') {
        Some((name, spec)) => (name.trim(), Some(spec.trim())),
        None => (field, None),
    };
    let Some(spec) = spec else {
        if name.is_empty() {
            return Err("empty column name".to_string());
        }
        return Ok(Column::Property {
            key: name.to_string(),
            ty: FieldType::parse("string").ok_or("no string type")?,
        });
    };
    if spec.contains('{') {
        return Err("column options in braces are not supported".to_string());
    }
    let (word, space) = match spec.split_once('(') {
        Some((word, rest)) => {
            let space = rest
                .strip_suffix(')')
                .ok_or("an ID space must end with `)`")?
                .trim();
            if space.is_empty() {
                return Err("empty ID space name".to_string());
            }
            (word.trim(), Some(space.to_string()))
        }
        None => (spec, None),
    };
    let special = match word.to_ascii_uppercase().as_str() {
        "ID" => Some(Column::Id {
            key: (!name.is_empty()).then(|| name.to_string()),
            space: space.clone(),
        }),
        "START_ID" => Some(Column::StartId {
            space: space.clone(),
        }),
        "END_ID" => Some(Column::EndId {
            space: space.clone(),
        }),
        "LABEL" => Some(Column::Label),
        "TYPE" => Some(Column::Type),
        "IGNORE" => Some(Column::Ignore),
        _ => None,
    };
    if let Some(column) = special {
        let takes_space = matches!(
            column,
            Column::Id { .. } | Column::StartId { .. } | Column::EndId { .. }
        );
        if space.is_some() && !takes_space {
            return Err(format!("{word} takes no ID space"));
        }
        return Ok(column);
    }
    if space.is_some() {
        return Err(format!("unknown column type `{spec}`"));
    }
    if name.is_empty() {
        return Err("a property column needs a name".to_string());
    }
    let ty = FieldType::parse(word).ok_or_else(|| format!("unknown column type `{word}`"))?;
    Ok(Column::Property {
        key: name.to_string(),
        ty,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typed::Scalar;

    fn parse(line: &str, kind: FileKind) -> Result<Header, String> {
        Header::parse(&line.split(',').collect::<Vec<_>>(), kind)
    }

    #[test]
    fn a_node_header_reads_every_column_kind() {
        let h = parse(
            "id:ID(Person),name,age:int,tags:string[],:LABEL,x:IGNORE",
            FileKind::Nodes,
        )
        .expect("header");
        assert_eq!(
            h.columns[0],
            Column::Id {
                key: Some("id".into()),
                space: Some("Person".into())
            }
        );
        assert!(
            matches!(&h.columns[1], Column::Property { key, ty } if key == "name" && ty.scalar == Scalar::String)
        );
        assert!(
            matches!(&h.columns[2], Column::Property { ty, .. } if ty.scalar == Scalar::Int && !ty.array)
        );
        assert!(matches!(&h.columns[3], Column::Property { ty, .. } if ty.array));
        assert_eq!(h.columns[4], Column::Label);
        assert_eq!(h.columns[5], Column::Ignore);
        let bare = parse(":id", FileKind::Nodes).expect("lower-case :id");
        assert_eq!(
            bare.columns[0],
            Column::Id {
                key: None,
                space: None
            }
        );
    }

    #[test]
    fn a_relationship_header_needs_both_ends() {
        let h = parse(
            ":START_ID(A),:END_ID(B),w:double,:TYPE",
            FileKind::Relationships,
        )
        .expect("header");
        assert!(h.has_type());
        assert_eq!(h.spaces().count(), 2);
        assert!(
            parse(":START_ID,w:int", FileKind::Relationships)
                .unwrap_err()
                .contains(":END_ID")
        );
    }

    #[test]
    fn bad_headers_name_the_column() {
        let e = parse("id:ID,age:integer", FileKind::Nodes).unwrap_err();
        assert!(e.contains("column 2") && e.contains("integer"), "{e}");
        assert!(parse(":ID,:ID", FileKind::Nodes).is_err());
        assert!(
            parse("a,a:int", FileKind::Nodes)
                .unwrap_err()
                .contains("twice")
        );
        assert!(parse(":START_ID,:END_ID", FileKind::Nodes).is_err());
        assert!(parse(":ID,:START_ID,:END_ID", FileKind::Relationships).is_err());
        assert!(parse("p:point{crs:WGS-84}", FileKind::Nodes).is_err());
        assert!(parse(":ID(A", FileKind::Nodes).is_err());
        assert!(parse(":int", FileKind::Nodes).is_err());
    }
}
