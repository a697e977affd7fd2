//! Engine values as Neo4j's JSON: the transactional API's `row`, `meta` and `graph` formats
//! and the Query API's plain JSON.
//!
//! The shapes follow what Neo4j's server writes, including its quirks, because clients parse
//! them: in `row`, nodes and relationships are bare property maps and a path is the list of
//! its elements' property maps; `meta` has one entry per entity or typed value, flattening
//! lists and maps (so one column can contribute several entries, or none); byte arrays are
//! arrays of signed bytes; points are GeoJSON-like objects with a `crs` link; vectors are
//! arrays of their coordinates; temporal
//! values are ISO-8601 strings; non-finite floats are the strings `"NaN"`, `"Infinity"`.

use base64::Engine as _;
use rustc_hash::FxHashSet;

use quiver_value::graph::{node_element_id, relationship_element_id};
use quiver_value::spatial::{self, Point};
use quiver_value::temporal::format;
use quiver_value::{Map, Node, Relationship, Value};

use crate::json;

/// A value in the transactional API's `row` format.
pub fn row_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Node(node) => properties(out, node.data.as_ref().map(|d| &d.properties), row_value),
        Value::Relationship(rel) => {
            properties(out, rel.data.as_ref().map(|d| &d.properties), row_value);
        }
        Value::Path(path) => path_elements(out, path, row_value),
        Value::List(items) => json::array(out, items.iter(), row_value),
        Value::Map(map) => properties(out, Some(map), row_value),
        Value::Bytes(bytes) => json::array(out, bytes.iter(), |out, &byte| {
            json::int(out, i64::from(byte as i8));
        }),
        Value::Point(point) => geo_point(out, point),
        Value::Vector(v) => vector_numbers(out, v),
        other => scalar(out, other),
    }
}

/// Values that every format writes the same way.
fn scalar(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => json::null(out),
        Value::Bool(b) => json::boolean(out, *b),
        Value::Int(i) => json::int(out, *i),
        Value::Float(f) => json::float(out, *f),
        Value::String(s) => json::string(out, s),
        Value::Date(d) => json::string(out, &format::date_text(d)),
        Value::LocalTime(t) => json::string(out, &format::local_time_text(t)),
        Value::Time(t) => json::string(out, &format::time_text(t)),
        Value::LocalDateTime(t) => json::string(out, &format::local_date_time_text(t)),
        Value::DateTime(t) => json::string(out, &format::date_time_text(t)),
        Value::Duration(d) => json::string(out, &format::duration_text(d)),
        // Plain JSON has no UUID: its 8-4-4-4-12 text, as Neo4j writes `toString()` of one.
        Value::Uuid(u) => json::string(out, &u.to_string()),
        // Composite values are handled by each format before it falls back here.
        Value::Bytes(_)
        | Value::List(_)
        | Value::Map(_)
        | Value::Node(_)
        | Value::Relationship(_)
        | Value::Path(_)
        | Value::Point(_)
        | Value::Vector(_) => json::null(out),
    }
}

/// A vector in the untyped formats: the array of its coordinates, as a list of numbers is
/// written (JSON has no vector; the coordinate type is not kept).
fn vector_numbers(out: &mut Vec<u8>, v: &quiver_value::Vector) {
    json::array(out, v.values(), |out, c| scalar(out, &c));
}

/// A property map, `{...}` (empty without one), each value written by `write`.
pub(crate) fn properties(out: &mut Vec<u8>, map: Option<&Map>, write: fn(&mut Vec<u8>, &Value)) {
    out.push(b'{');
    if let Some(map) = map {
        let mut first = true;
        for (key, value) in map {
            json::comma(out, &mut first);
            json::key(out, key);
            write(out, value);
        }
    }
    out.push(b'}');
}

/// A node's labels, `[...]`.
fn labels(out: &mut Vec<u8>, node: &Node) {
    let labels = node.data.iter().flat_map(|data| data.labels.iter());
    json::array(out, labels, |out, label| json::string(out, label));
}

/// A path as the array of its elements in order, each written by `write`.
pub(crate) fn path_elements(
    out: &mut Vec<u8>,
    path: &quiver_value::Path,
    write: fn(&mut Vec<u8>, &Value),
) {
    out.push(b'[');
    let mut first = true;
    for_each_path_element(path, |element| {
        json::comma(out, &mut first);
        write(out, &element);
    });
    out.push(b']');
}

/// A node as an object under the keys a format gives its element id, labels and properties,
/// the property values written by `write`.
pub(crate) fn node_object(
    out: &mut Vec<u8>,
    node: &Node,
    [element_id, labels_key, properties_key]: [&str; 3],
    write: fn(&mut Vec<u8>, &Value),
) {
    out.push(b'{');
    json::key(out, element_id);
    json::string(out, &node_element_id(node.id));
    out.push(b',');
    json::key(out, labels_key);
    labels(out, node);
    out.push(b',');
    json::key(out, properties_key);
    properties(out, node.data.as_ref().map(|d| &d.properties), write);
    out.push(b'}');
}

/// A relationship as an object under the keys a format gives its element id, its start and end
/// nodes' element ids and its type (when it has its data), and its properties, the property
/// values written by `write`.
pub(crate) fn relationship_object(
    out: &mut Vec<u8>,
    rel: &Relationship,
    keys: [&str; 5],
    write: fn(&mut Vec<u8>, &Value),
) {
    let [element_id, start, end, rel_type, properties_key] = keys;
    out.push(b'{');
    json::key(out, element_id);
    json::string(out, &relationship_element_id(rel.id));
    if let Some(data) = &rel.data {
        for (key, text) in [
            (start, &*node_element_id(data.start)),
            (end, &*node_element_id(data.end)),
            (rel_type, &*data.rel_type),
        ] {
            out.push(b',');
            json::key(out, key);
            json::string(out, text);
        }
    }
    out.push(b',');
    json::key(out, properties_key);
    properties(out, rel.data.as_ref().map(|d| &d.properties), write);
    out.push(b'}');
}

/// The elements of a path in order: node, relationship, node, ...
fn for_each_path_element(path: &quiver_value::Path, mut f: impl FnMut(Value)) {
    for (at, node) in path.nodes.iter().enumerate() {
        if at > 0
            && let Some(rel) = path.relationships.get(at - 1)
        {
            f(Value::Relationship(rel.clone()));
        }
        f(Value::Node(node.clone()));
    }
}

/// The `href` of a CRS as Neo4j links it.
fn crs_href(srid: u32) -> &'static str {
    match srid {
        spatial::SRID_WGS84 => "http://spatialreference.org/ref/epsg/4326/ogcwkt/",
        spatial::SRID_WGS84_3D => "http://spatialreference.org/ref/epsg/4979/ogcwkt/",
        spatial::SRID_CARTESIAN_3D => "http://spatialreference.org/ref/sr-org/9157/ogcwkt/",
        _ => "http://spatialreference.org/ref/sr-org/7203/ogcwkt/",
    }
}

fn geo_point(out: &mut Vec<u8>, point: &Point) {
    out.extend_from_slice(br#"{"type":"Point","coordinates":["#);
    json::float(out, point.x);
    out.push(b',');
    json::float(out, point.y);
    if let Some(z) = point.z {
        out.push(b',');
        json::float(out, z);
    }
    out.extend_from_slice(br#"],"crs":{"srid":"#);
    json::uint(out, u64::from(point.srid));
    out.extend_from_slice(br#","name":"#);
    json::string(out, spatial::crs_name(point.srid));
    out.extend_from_slice(br#","type":"link","properties":{"href":"#);
    json::string(out, crs_href(point.srid));
    out.extend_from_slice(br#","type":"ogcwkt"}}}"#);
}

/// Appends the `meta` entries of one column value (zero or more, comma-separated from what is
/// already in the array, as tracked by `first`).
pub fn meta(out: &mut Vec<u8>, value: &Value, first: &mut bool) {
    match value {
        Value::Node(node) => {
            json::comma(out, first);
            entity_meta(out, node.id, &node_element_id(node.id), "node", false);
        }
        Value::Relationship(rel) => {
            json::comma(out, first);
            entity_meta(
                out,
                rel.id,
                &relationship_element_id(rel.id),
                "relationship",
                rel_deleted(rel),
            );
        }
        Value::Path(path) => {
            json::comma(out, first);
            out.push(b'[');
            let mut inner = true;
            for_each_path_element(path, |element| meta(out, &element, &mut inner));
            out.push(b']');
        }
        Value::List(items) => {
            for item in items.iter() {
                meta(out, item, first);
            }
        }
        Value::Map(map) => {
            for item in map.values() {
                meta(out, item, first);
            }
        }
        other => {
            json::comma(out, first);
            let kind = match other {
                Value::Date(_) => "date",
                Value::Time(_) => "time",
                Value::LocalTime(_) => "localtime",
                Value::DateTime(_) => "datetime",
                Value::LocalDateTime(_) => "localdatetime",
                Value::Duration(_) => "duration",
                Value::Point(_) => "point",
                _ => {
                    json::null(out);
                    return;
                }
            };
            out.extend_from_slice(br#"{"type":"#);
            json::string(out, kind);
            out.push(b'}');
        }
    }
}

/// A relationship deleted by the transaction reaches the encoder with empty data (every live
/// relationship has a type). A deleted node cannot be told from one without labels and
/// properties, so nodes are always reported as present.
fn rel_deleted(rel: &Relationship) -> bool {
    rel.data.as_ref().is_some_and(|d| d.rel_type.is_empty())
}

fn entity_meta(out: &mut Vec<u8>, id: u64, element_id: &str, kind: &str, deleted: bool) {
    out.extend_from_slice(br#"{"id":"#);
    json::uint(out, id);
    out.extend_from_slice(br#","elementId":"#);
    json::string(out, element_id);
    out.extend_from_slice(br#","type":"#);
    json::string(out, kind);
    out.extend_from_slice(br#","deleted":"#);
    json::boolean(out, deleted);
    out.push(b'}');
}

/// The nodes and relationships of one record, for the `graph` format: every entity in any
/// column (inside lists, maps and paths too), each once.
#[derive(Default)]
pub struct GraphRecord {
    pub nodes: Vec<Node>,
    pub relationships: Vec<Relationship>,
    node_ids: FxHashSet<u64>,
    relationship_ids: FxHashSet<u64>,
}

impl GraphRecord {
    pub fn collect(&mut self, value: &Value) {
        match value {
            Value::Node(node) => self.add_node(node),
            Value::Relationship(rel) => self.add_relationship(rel),
            Value::Path(path) => {
                for node in &path.nodes {
                    self.add_node(node);
                }
                for rel in &path.relationships {
                    self.add_relationship(rel);
                }
            }
            Value::List(items) => items.iter().for_each(|item| self.collect(item)),
            Value::Map(map) => map.values().for_each(|item| self.collect(item)),
            _ => {}
        }
    }

    fn add_node(&mut self, node: &Node) {
        if self.node_ids.insert(node.id) {
            self.nodes.push(node.clone());
        }
    }

    fn add_relationship(&mut self, rel: &Relationship) {
        if self.relationship_ids.insert(rel.id) {
            self.relationships.push(rel.clone());
        }
    }

    /// Endpoints of collected relationships that no column returned: Neo4j lists them too, so
    /// the caller looks them up and hands them to [`GraphRecord::add_endpoint`].
    pub fn missing_endpoints(&self) -> Vec<u64> {
        let mut missing = Vec::new();
        for rel in self.relationships.iter().filter(|r| !rel_deleted(r)) {
            if let Some(data) = &rel.data {
                for id in [data.start, data.end] {
                    if !self.node_ids.contains(&id) && !missing.contains(&id) {
                        missing.push(id);
                    }
                }
            }
        }
        missing
    }

    pub fn add_endpoint(&mut self, node: &Node) {
        self.add_node(node);
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.relationships.clear();
        self.node_ids.clear();
        self.relationship_ids.clear();
    }

    /// Writes `"graph":{"nodes":[...],"relationships":[...]}`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(br#""graph":{"nodes":["#);
        let mut first = true;
        for node in &self.nodes {
            json::comma(out, &mut first);
            out.extend_from_slice(br#"{"id":""#);
            json::uint(out, node.id);
            out.extend_from_slice(br#"","elementId":"#);
            json::string(out, &node_element_id(node.id));
            out.extend_from_slice(br#","labels":"#);
            labels(out, node);
            out.extend_from_slice(br#","properties":"#);
            properties(out, node.data.as_ref().map(|d| &d.properties), row_value);
            out.push(b'}');
        }
        out.extend_from_slice(br#"],"relationships":["#);
        let mut first = true;
        for rel in &self.relationships {
            json::comma(out, &mut first);
            out.extend_from_slice(br#"{"id":""#);
            json::uint(out, rel.id);
            out.extend_from_slice(br#"","elementId":"#);
            json::string(out, &relationship_element_id(rel.id));
            if rel_deleted(rel) {
                out.extend_from_slice(br#","deleted":true}"#);
                continue;
            }
            if let Some(data) = &rel.data {
                out.extend_from_slice(br#","type":"#);
                json::string(out, &data.rel_type);
                out.extend_from_slice(br#","startNode":""#);
                json::uint(out, data.start);
                out.extend_from_slice(br#"","startNodeElementId":"#);
                json::string(out, &node_element_id(data.start));
                out.extend_from_slice(br#","endNode":""#);
                json::uint(out, data.end);
                out.extend_from_slice(br#"","endNodeElementId":"#);
                json::string(out, &node_element_id(data.end));
            }
            out.extend_from_slice(br#","properties":"#);
            properties(out, rel.data.as_ref().map(|d| &d.properties), row_value);
            out.push(b'}');
        }
        out.extend_from_slice(b"]}");
    }
}

/// The keys of a node's members in the Query API's plain JSON.
const PLAIN_NODE: [&str; 3] = ["elementId", "labels", "properties"];
/// The keys of a relationship's members in the Query API's plain JSON.
const PLAIN_RELATIONSHIP: [&str; 5] = [
    "elementId",
    "startNodeElementId",
    "endNodeElementId",
    "type",
    "properties",
];

/// A value in the Query API's plain JSON: entities as objects with their element ids, labels
/// or type and properties; temporal, spatial and binary values as strings.
pub fn plain_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Node(node) => node_object(out, node, PLAIN_NODE, plain_value),
        Value::Relationship(rel) => relationship_object(out, rel, PLAIN_RELATIONSHIP, plain_value),
        Value::Path(path) => path_elements(out, path, plain_value),
        Value::List(items) => json::array(out, items.iter(), plain_value),
        Value::Map(map) => properties(out, Some(map), plain_value),
        Value::Bytes(bytes) => {
            json::string(
                out,
                &base64::engine::general_purpose::STANDARD.encode(bytes),
            );
        }
        Value::Point(point) => json::string(out, &wkt(point)),
        Value::Vector(v) => vector_numbers(out, v),
        other => scalar(out, other),
    }
}

/// A point as extended WKT, the Query API's text form: `SRID=4326;POINT (12.5 56.25)`.
pub fn wkt(point: &Point) -> String {
    let number = quiver_value::display::float_to_string;
    match point.z {
        Some(z) => format!(
            "SRID={};POINT Z ({} {} {})",
            point.srid,
            number(point.x),
            number(point.y),
            number(z)
        ),
        None => format!(
            "SRID={};POINT ({} {})",
            point.srid,
            number(point.x),
            number(point.y)
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use quiver_value::graph::{NodeData, RelData};

    use super::*;
    use crate::json::text;

    fn node(id: u64, label: &str, key: &str, value: Value) -> Node {
        let mut properties = Map::new();
        properties.insert(Arc::from(key), value);
        Node {
            id,
            data: Some(Arc::new(NodeData {
                labels: vec![Arc::from(label)],
                properties,
            })),
        }
    }

    fn rel(id: u64, start: u64, end: u64) -> Relationship {
        Relationship {
            id,
            data: Some(Arc::new(RelData {
                start,
                end,
                rel_type: Arc::from("HAS"),
                properties: Map::new(),
                ends: None,
            })),
        }
    }

    #[test]
    fn nodes_are_property_maps_with_meta() {
        let n = Value::Node(node(11, "Person", "name", Value::from("Phil")));
        assert_eq!(text(|o| row_value(o, &n)), r#"{"name":"Phil"}"#);
        let mut first = true;
        assert_eq!(
            text(|o| meta(o, &n, &mut first)),
            r#"{"id":11,"elementId":"4:quiver:11","type":"node","deleted":false}"#
        );
    }

    #[test]
    fn meta_flattens_lists_and_nests_paths() {
        let list = Value::from(vec![Value::Int(1), Value::Int(2)]);
        let mut first = true;
        assert_eq!(text(|o| meta(o, &list, &mut first)), "null,null");
        let empty = Value::from(Vec::<Value>::new());
        let mut first = true;
        assert_eq!(text(|o| meta(o, &empty, &mut first)), "");
        let path = Value::Path(Arc::new(quiver_value::Path {
            nodes: vec![
                node(1, "A", "k", Value::Int(1)),
                node(2, "B", "k", Value::Int(2)),
            ],
            relationships: vec![rel(7, 1, 2)],
        }));
        assert_eq!(text(|o| row_value(o, &path)), r#"[{"k":1},{},{"k":2}]"#);
        let mut first = true;
        let written = text(|o| meta(o, &path, &mut first));
        assert!(written.starts_with(r#"[{"id":1,"#), "{written}");
        assert!(written.contains(r#""type":"relationship""#), "{written}");
    }

    #[test]
    fn bytes_points_and_floats() {
        let bytes = Value::Bytes(Arc::from(&[1u8, 255][..]));
        assert_eq!(text(|o| row_value(o, &bytes)), "[1,-1]");
        assert_eq!(text(|o| plain_value(o, &bytes)), r#""Af8=""#);
        let point = Value::Point(Box::new(Point {
            srid: spatial::SRID_WGS84,
            x: 12.5,
            y: 56.25,
            z: None,
        }));
        let written = text(|o| row_value(o, &point));
        let parsed: serde_json::Value = serde_json::from_str(&written).expect("json");
        assert_eq!(parsed["coordinates"], serde_json::json!([12.5, 56.25]));
        assert_eq!(parsed["crs"]["srid"], 4326);
        assert_eq!(parsed["crs"]["name"], "wgs-84");
        assert_eq!(
            text(|o| plain_value(o, &point)),
            r#""SRID=4326;POINT (12.5 56.25)""#
        );
        let mut first = true;
        assert_eq!(text(|o| meta(o, &point, &mut first)), r#"{"type":"point"}"#);
        assert_eq!(
            text(|o| row_value(o, &Value::Float(f64::INFINITY))),
            r#""Infinity""#
        );
    }

    #[test]
    fn graph_lists_each_entity_once_and_names_missing_endpoints() {
        let mut graph = GraphRecord::default();
        graph.collect(&Value::Node(node(1, "A", "k", Value::Int(1))));
        graph.collect(&Value::from(vec![
            Value::Relationship(rel(7, 1, 2)),
            Value::Relationship(rel(7, 1, 2)),
        ]));
        assert_eq!(graph.missing_endpoints(), vec![2]);
        graph.add_endpoint(&node(2, "B", "k", Value::Int(2)));
        let written = text(|o| {
            o.push(b'{');
            graph.write(o);
            o.push(b'}');
        });
        let parsed: serde_json::Value = serde_json::from_str(&written).expect("json");
        assert_eq!(parsed["graph"]["nodes"].as_array().map(Vec::len), Some(2));
        let rels = &parsed["graph"]["relationships"];
        assert_eq!(rels.as_array().map(Vec::len), Some(1));
        assert_eq!(rels[0]["id"], "7");
        assert_eq!(rels[0]["startNode"], "1");
        assert_eq!(rels[0]["endNodeElementId"], "4:quiver:2");
        assert_eq!(
            parsed["graph"]["nodes"][1]["labels"],
            serde_json::json!(["B"])
        );
    }
}
