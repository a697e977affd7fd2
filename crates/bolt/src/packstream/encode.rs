//! Writing values. Every function appends to the caller's buffer: a record goes from the
//! executor's `Value`s to wire bytes with no intermediate allocation.

use bytes::BufMut;
use quiver_value::{
    CoordinateType, DateTime, Node, Path, Point, RelData, Relationship, TimeZone, Uuid, Value,
    Vector,
};

use super::{Dialect, marker::*};
use crate::error::Error;

/// PackStream sizes are signed 32-bit on most clients.
const SIZE_MAX: usize = i32::MAX as usize;

pub fn write_null<B: BufMut>(buf: &mut B) {
    buf.put_u8(NULL);
}

pub fn write_bool<B: BufMut>(buf: &mut B, v: bool) {
    buf.put_u8(if v { TRUE } else { FALSE });
}

/// Integers take the smallest form that holds them.
pub fn write_int<B: BufMut>(buf: &mut B, v: i64) {
    if (-16..=127).contains(&v) {
        buf.put_u8(v as u8);
    } else if i8::try_from(v).is_ok() {
        buf.put_u8(INT_8);
        buf.put_i8(v as i8);
    } else if i16::try_from(v).is_ok() {
        buf.put_u8(INT_16);
        buf.put_i16(v as i16);
    } else if i32::try_from(v).is_ok() {
        buf.put_u8(INT_32);
        buf.put_i32(v as i32);
    } else {
        buf.put_u8(INT_64);
        buf.put_i64(v);
    }
}

pub fn write_float<B: BufMut>(buf: &mut B, v: f64) {
    buf.put_u8(FLOAT_64);
    buf.put_f64(v);
}

fn write_sized_header<B: BufMut>(
    buf: &mut B,
    tiny: Option<u8>,
    markers: [u8; 3],
    len: usize,
    what: &'static str,
) -> Result<(), Error> {
    if let Some(tiny) = tiny
        && len < 16
    {
        buf.put_u8(tiny | len as u8);
    } else if len <= 0xFF {
        buf.put_u8(markers[0]);
        buf.put_u8(len as u8);
    } else if len <= 0xFFFF {
        buf.put_u8(markers[1]);
        buf.put_u16(len as u16);
    } else if len <= SIZE_MAX {
        buf.put_u8(markers[2]);
        buf.put_u32(len as u32);
    } else {
        return Err(Error::TooLarge { what, len });
    }
    Ok(())
}

pub fn write_string<B: BufMut>(buf: &mut B, s: &str) -> Result<(), Error> {
    write_sized_header(
        buf,
        Some(TINY_STRING),
        [STRING_8, STRING_16, STRING_32],
        s.len(),
        "string",
    )?;
    buf.put_slice(s.as_bytes());
    Ok(())
}

pub fn write_bytes<B: BufMut>(buf: &mut B, b: &[u8]) -> Result<(), Error> {
    write_sized_header(
        buf,
        None,
        [BYTES_8, BYTES_16, BYTES_32],
        b.len(),
        "byte array",
    )?;
    buf.put_slice(b);
    Ok(())
}

pub fn write_list_header<B: BufMut>(buf: &mut B, len: usize) -> Result<(), Error> {
    write_sized_header(
        buf,
        Some(TINY_LIST),
        [LIST_8, LIST_16, LIST_32],
        len,
        "list",
    )
}

pub fn write_map_header<B: BufMut>(buf: &mut B, len: usize) -> Result<(), Error> {
    write_sized_header(
        buf,
        Some(TINY_MAP),
        [MAP_8, MAP_16, MAP_32],
        len,
        "dictionary",
    )
}

/// A structure header: `B<fields> <tag>`. Bolt never needs more than 15 fields.
pub fn write_struct_header<B: BufMut>(buf: &mut B, fields: u8, tag: u8) {
    debug_assert!(fields < 16, "structures hold at most 15 fields");
    buf.put_u8(TINY_STRUCT | (fields & 0x0F));
    buf.put_u8(tag);
}

/// A string of `prefix` followed by the decimal digits of `id`, formatted on the stack.
fn write_prefixed_id<B: BufMut>(buf: &mut B, prefix: &str, id: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = id;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let len = prefix.len() + (digits.len() - at);
    // An element id is at most 9 + 20 bytes, so the one-byte form always fits.
    if len < 16 {
        buf.put_u8(TINY_STRING | len as u8);
    } else {
        buf.put_u8(STRING_8);
        buf.put_u8(len as u8);
    }
    buf.put_slice(prefix.as_bytes());
    buf.put_slice(&digits[at..]);
}

/// Element ids have the shape of `quiver_value::graph::{node,relationship}_element_id`.
const NODE_ELEMENT_PREFIX: &str = "4:quiver:";
const REL_ELEMENT_PREFIX: &str = "5:quiver:";

pub fn write_node_element_id<B: BufMut>(buf: &mut B, id: u64) {
    write_prefixed_id(buf, NODE_ELEMENT_PREFIX, id);
}

pub fn write_relationship_element_id<B: BufMut>(buf: &mut B, id: u64) {
    write_prefixed_id(buf, REL_ELEMENT_PREFIX, id);
}

/// Ids are dense `u64`s far below `i64::MAX`; saturate rather than wrap if one ever is not.
fn wire_id(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

pub fn write_map<B: BufMut>(
    buf: &mut B,
    map: &quiver_value::Map,
    dialect: Dialect,
) -> Result<(), Error> {
    write_map_header(buf, map.len())?;
    for (k, v) in map {
        write_string(buf, k)?;
        write_value(buf, v, dialect)?;
    }
    Ok(())
}

/// Writes any value. Nodes and relationships must carry their data (see [`Error::NotMaterialised`]).
pub fn write_value<B: BufMut>(buf: &mut B, value: &Value, dialect: Dialect) -> Result<(), Error> {
    match value {
        Value::Null => write_null(buf),
        Value::Bool(b) => write_bool(buf, *b),
        Value::Int(i) => write_int(buf, *i),
        Value::Float(f) => write_float(buf, *f),
        Value::String(s) => write_string(buf, s)?,
        Value::Bytes(b) => write_bytes(buf, b)?,
        Value::List(items) => {
            write_list_header(buf, items.len())?;
            for item in items.iter() {
                write_value(buf, item, dialect)?;
            }
        }
        Value::Map(map) => write_map(buf, map, dialect)?,
        Value::Node(node) => write_node(buf, node, dialect)?,
        Value::Relationship(rel) => write_relationship(buf, rel, dialect, true)?,
        Value::Path(path) => write_path(buf, path, dialect)?,
        Value::Date(d) => {
            write_struct_header(buf, 1, tag::DATE);
            write_int(buf, d.days);
        }
        Value::LocalTime(t) => {
            write_struct_header(buf, 1, tag::LOCAL_TIME);
            write_int(buf, t.nanos);
        }
        Value::Time(t) => {
            write_struct_header(buf, 2, tag::TIME);
            write_int(buf, t.nanos);
            write_int(buf, i64::from(t.offset_seconds));
        }
        Value::LocalDateTime(t) => {
            write_struct_header(buf, 2, tag::LOCAL_DATE_TIME);
            write_int(buf, t.seconds);
            write_int(buf, i64::from(t.nanos));
        }
        Value::DateTime(dt) => write_datetime(buf, dt, dialect)?,
        Value::Duration(d) => {
            write_struct_header(buf, 4, tag::DURATION);
            write_int(buf, d.months);
            write_int(buf, d.days);
            write_int(buf, d.seconds);
            write_int(buf, d.nanos);
        }
        Value::Point(p) => write_point(buf, p),
        Value::Vector(v) => write_vector(buf, v, dialect)?,
        Value::Uuid(u) => write_uuid(buf, u, dialect)?,
    }
    Ok(())
}

/// Bolt 6.1's UUID: the marker, then the 16 bytes. 6.0 has no form for it but has the
/// unsupported-type marker, which drivers hand to applications as a value naming the type and
/// the version that can carry it (what Neo4j sends); below 6.0 there is neither, and the
/// request fails naming 6.1.
fn write_uuid<B: BufMut>(buf: &mut B, u: &Uuid, dialect: Dialect) -> Result<(), Error> {
    if dialect.uuids {
        buf.put_u8(UUID);
        buf.put_slice(u.as_bytes());
        Ok(())
    } else if dialect.vectors {
        write_unsupported(
            buf,
            "UUID",
            (6, 1),
            Some("UUID values need Bolt 6.1 or newer"),
        )
    } else {
        Err(Error::TypeNotInVersion {
            type_name: "UUID",
            version_min: "6.1",
        })
    }
}

/// The marker byte that names a coordinate type in a Vector structure.
pub fn vector_type_marker(t: CoordinateType) -> u8 {
    match t {
        CoordinateType::Int8 => INT_8,
        CoordinateType::Int16 => INT_16,
        CoordinateType::Int32 => INT_32,
        CoordinateType::Int64 => INT_64,
        CoordinateType::Float32 => FLOAT_32,
        CoordinateType::Float64 => FLOAT_64,
    }
}

/// Bolt 6's Vector structure. Below 6.0 there is no form for a vector, nor a marker to stand
/// in for one, so the value fails the request (as Neo4j does) rather than turning into a
/// list the client would write back as one.
fn write_vector<B: BufMut>(buf: &mut B, v: &Vector, dialect: Dialect) -> Result<(), Error> {
    if !dialect.vectors {
        return Err(Error::TypeNotInVersion {
            type_name: "Vector",
            version_min: "6.0",
        });
    }
    let bytes = v.heap_bytes();
    write_struct_header(buf, 2, tag::VECTOR);
    write_bytes(buf, &[vector_type_marker(v.coordinate_type())])?;
    write_sized_header(buf, None, [BYTES_8, BYTES_16, BYTES_32], bytes, "vector")?;
    let mut body = Vec::with_capacity(bytes);
    v.write_be_bytes(&mut body);
    buf.put_slice(&body);
    Ok(())
}

/// Bolt 6's unsupported-type marker: what the server sends in place of a value whose type
/// the negotiated version cannot carry, naming the type and the version that can.
pub fn write_unsupported<B: BufMut>(
    buf: &mut B,
    type_name: &str,
    version_min: (u8, u8),
    message: Option<&str>,
) -> Result<(), Error> {
    write_struct_header(buf, 4, tag::UNSUPPORTED);
    write_string(buf, type_name)?;
    write_int(buf, i64::from(version_min.0));
    write_int(buf, i64::from(version_min.1));
    match message {
        Some(m) => {
            write_map_header(buf, 1)?;
            write_string(buf, "message")?;
            write_string(buf, m)?;
        }
        None => write_map_header(buf, 0)?,
    }
    Ok(())
}

fn write_datetime<B: BufMut>(buf: &mut B, dt: &DateTime, dialect: Dialect) -> Result<(), Error> {
    // Legacy forms count seconds on the local wall clock rather than from UTC.
    let seconds = if dialect.utc_datetime {
        dt.seconds
    } else {
        dt.seconds
            .checked_add(i64::from(dt.offset_seconds))
            .ok_or(Error::TooLarge {
                what: "date-time seconds",
                len: 0,
            })?
    };
    // Offsets and named zones have their own tags, each in a UTC and a legacy form.
    let (utc, legacy) = match &dt.zone {
        TimeZone::Offset(_) => (tag::DATE_TIME, tag::LEGACY_DATE_TIME),
        TimeZone::Named(_) => (tag::DATE_TIME_ZONE_ID, tag::LEGACY_DATE_TIME_ZONE_ID),
    };
    write_struct_header(buf, 3, if dialect.utc_datetime { utc } else { legacy });
    write_int(buf, seconds);
    write_int(buf, i64::from(dt.nanos));
    match &dt.zone {
        TimeZone::Offset(offset) => write_int(buf, i64::from(*offset)),
        TimeZone::Named(name) => write_string(buf, name)?,
    }
    Ok(())
}

fn write_point<B: BufMut>(buf: &mut B, p: &Point) {
    match p.z {
        None => {
            write_struct_header(buf, 3, tag::POINT_2D);
            write_int(buf, i64::from(p.srid));
            write_float(buf, p.x);
            write_float(buf, p.y);
        }
        Some(z) => {
            write_struct_header(buf, 4, tag::POINT_3D);
            write_int(buf, i64::from(p.srid));
            write_float(buf, p.x);
            write_float(buf, p.y);
            write_float(buf, z);
        }
    }
}

fn write_node<B: BufMut>(buf: &mut B, node: &Node, dialect: Dialect) -> Result<(), Error> {
    let data = node.data.as_ref().ok_or(Error::NotMaterialised {
        kind: "node",
        id: node.id,
    })?;
    write_struct_header(buf, if dialect.element_ids { 4 } else { 3 }, tag::NODE);
    write_int(buf, wire_id(node.id));
    write_list_header(buf, data.labels.len())?;
    for label in &data.labels {
        write_string(buf, label)?;
    }
    write_map(buf, &data.properties, dialect)?;
    if dialect.element_ids {
        write_node_element_id(buf, node.id);
    }
    Ok(())
}

/// A relationship's start, end, type and properties, which must have been loaded to be sent.
fn rel_data(rel: &Relationship) -> Result<&RelData, Error> {
    rel.data.as_deref().ok_or(Error::NotMaterialised {
        kind: "relationship",
        id: rel.id,
    })
}

/// A relationship: on its own with the ids of its end nodes (`bound`), or as a path's
/// unbound relationship without them.
fn write_relationship<B: BufMut>(
    buf: &mut B,
    rel: &Relationship,
    dialect: Dialect,
    bound: bool,
) -> Result<(), Error> {
    let data = rel_data(rel)?;
    let (fields, tag) = match (bound, dialect.element_ids) {
        (true, true) => (8, tag::RELATIONSHIP),
        (true, false) => (5, tag::RELATIONSHIP),
        (false, true) => (4, tag::UNBOUND_RELATIONSHIP),
        (false, false) => (3, tag::UNBOUND_RELATIONSHIP),
    };
    write_struct_header(buf, fields, tag);
    write_int(buf, wire_id(rel.id));
    if bound {
        write_int(buf, wire_id(data.start));
        write_int(buf, wire_id(data.end));
    }
    write_string(buf, &data.rel_type)?;
    write_map(buf, &data.properties, dialect)?;
    if dialect.element_ids {
        write_relationship_element_id(buf, rel.id);
        if bound {
            write_node_element_id(buf, data.start);
            write_node_element_id(buf, data.end);
        }
    }
    Ok(())
}

/// Paths go out as distinct nodes, distinct unbound relationships, and a walk through them:
/// pairs of (relationship index, 1-based, negated when walked against its direction; node
/// index, 0-based). A path that revisits entities thus sends each one once.
fn write_path<B: BufMut>(buf: &mut B, path: &Path, dialect: Dialect) -> Result<(), Error> {
    if path.nodes.len() != path.relationships.len() + 1 {
        return Err(Error::InvalidValue {
            what: "path",
            detail: format!(
                "{} nodes for {} relationships",
                path.nodes.len(),
                path.relationships.len()
            ),
        });
    }
    let mut nodes: Vec<&Node> = Vec::with_capacity(path.nodes.len());
    let mut rels: Vec<&Relationship> = Vec::with_capacity(path.relationships.len());
    let mut indices: Vec<i64> = Vec::with_capacity(path.relationships.len() * 2);
    for n in &path.nodes {
        if !nodes.iter().any(|m| m.id == n.id) {
            nodes.push(n);
        }
    }
    for (step, rel) in path.relationships.iter().enumerate() {
        let data = rel_data(rel)?;
        let ri = match rels.iter().position(|r| r.id == rel.id) {
            Some(i) => i,
            None => {
                rels.push(rel);
                rels.len() - 1
            }
        };
        let from = &path.nodes[step];
        let to = &path.nodes[step + 1];
        let forward = data.start == from.id && data.end == to.id;
        let backward = data.end == from.id && data.start == to.id;
        if !forward && !backward {
            return Err(Error::InvalidValue {
                what: "path",
                detail: format!(
                    "relationship {} does not join nodes {} and {}",
                    rel.id, from.id, to.id
                ),
            });
        }
        let one_based = ri as i64 + 1;
        indices.push(if forward { one_based } else { -one_based });
        indices.push(nodes.iter().position(|m| m.id == to.id).unwrap_or(0) as i64);
    }
    write_struct_header(buf, 3, tag::PATH);
    write_list_header(buf, nodes.len())?;
    for n in &nodes {
        write_node(buf, n, dialect)?;
    }
    write_list_header(buf, rels.len())?;
    for r in &rels {
        write_relationship(buf, r, dialect, false)?;
    }
    write_list_header(buf, indices.len())?;
    for i in indices {
        write_int(buf, i);
    }
    Ok(())
}
