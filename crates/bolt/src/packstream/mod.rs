//! PackStream v1: the binary value format every Bolt message is written in.
//!
//! ```text
//! marker   meaning                      marker   meaning
//! 00–7F    tiny int 0..127              C0       null
//! F0–FF    tiny int -16..-1             C1       f64 (8 bytes BE)
//! 80–8F    string, len in low nibble    C2 / C3  false / true
//! 90–9F    list, len in low nibble      C8–CB    i8 / i16 / i32 / i64
//! A0–AF    dict, len in low nibble      CC–CE    bytes, u8/u16/u32 length
//! B0–BF    struct, fields in low nibble D0–D2    string, u8/u16/u32 length
//!          (then one tag byte)          D4–D6    list, u8/u16/u32 length
//!                                       D8–DA    dict, u8/u16/u32 length
//! reserved: C4–C7 CF D3 D7 DB DC–DF E0–EF
//! ```
//!
//! Bolt 6 adds structures (Vector, 0x56, and the unsupported-type marker, 0x3F), no markers.
//! Bolt 6.1 adds one marker: `E0`, a UUID, followed by its 16 bytes (most significant first);
//! the drivers call PackStream with it v2. Below 6.1 `E0` stays reserved.
//!
//! The encoder writes straight into the caller's output buffer; the decoder reads from a
//! borrowed, complete message and enforces [`Limits`] so a hostile client cannot make it
//! allocate or recurse without bound.

pub mod decode;
pub mod encode;
mod marker;

pub use decode::Decoder;
pub use encode::{
    write_list_header, write_map_header, write_string, write_struct_header, write_value,
};
pub use marker::*;

use bytes::{BufMut, BytesMut};

use crate::version::Version;

/// Caps the decoder enforces. Every one is also bounded by the message size, but a small
/// declared-length header can still ask for a huge allocation or a deep recursion, so each
/// gets its own limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nesting of lists, dictionaries and structures.
    pub depth_max: usize,
    /// Bytes in one string or byte array.
    pub string_bytes_max: usize,
    /// Entries in one list or dictionary.
    pub collection_len_max: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth_max: 64,
            string_bytes_max: 16 << 20,
            collection_len_max: 1 << 20,
        }
    }
}

/// The structure dialect of a connection: which graph and date-time structures it uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// Bolt 5: Node, Relationship and UnboundRelationship carry element ids.
    pub element_ids: bool,
    /// Zoned date-times as UTC seconds (0x49/0x69) rather than local seconds (0x46/0x66).
    pub utc_datetime: bool,
    /// Bolt 6: the Vector structure (0x56) and the unsupported-type marker (0x3F).
    pub vectors: bool,
    /// Bolt 6.1: the UUID marker (0xE0).
    pub uuids: bool,
}

impl Dialect {
    /// The dialect of `version`; `utc_patch` is 4.4's negotiated `patch_bolt: ["utc"]`.
    pub fn of(version: Version, utc_patch: bool) -> Dialect {
        Dialect {
            element_ids: version.has_element_ids(),
            utc_datetime: version.has_utc_datetime() || utc_patch,
            vectors: version.has_vectors(),
            uuids: version.has_uuids(),
        }
    }

    pub const BOLT5: Dialect = Dialect {
        element_ids: true,
        utc_datetime: true,
        vectors: false,
        uuids: false,
    };

    pub const BOLT6: Dialect = Dialect {
        element_ids: true,
        utc_datetime: true,
        vectors: true,
        uuids: false,
    };

    pub const BOLT6_1: Dialect = Dialect {
        element_ids: true,
        utc_datetime: true,
        vectors: true,
        uuids: true,
    };
}

/// Which end of the connection is decoding. A server refuses graph structures from clients
/// (they only ever flow outwards); a client must accept them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Server,
    Client,
}

/// An output buffer that can be rolled back, so a message whose encoding fails half-way
/// leaves no bytes behind.
pub trait Buffer: BufMut {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn truncate(&mut self, len: usize);
    fn bytes_mut(&mut self) -> &mut [u8];
}

impl Buffer for Vec<u8> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len);
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.as_mut_slice()
    }
}

impl Buffer for BytesMut {
    fn len(&self) -> usize {
        BytesMut::len(self)
    }
    fn truncate(&mut self, len: usize) {
        BytesMut::truncate(self, len);
    }
    fn bytes_mut(&mut self) -> &mut [u8] {
        self.as_mut()
    }
}
