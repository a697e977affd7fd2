//! Quiver's Bolt layer: PackStream and the Bolt 5 protocol (plus 4.4), sans-IO.
//!
//! Bytes in, bytes out: the server crate owns sockets and drives these pieces, and Quiver's
//! load client uses the client direction of the same code. Nothing here blocks or performs
//! I/O, which is what lets it be fuzzed and property-tested without a server.
//!
//! A connection's life, from the server's side:
//! 1. [`handshake::negotiate`] on the first 20 bytes (manifest v1 or legacy slots).
//! 2. [`chunk::Dechunker::decode`] pulls whole messages out of the read buffer.
//! 3. [`message::Request::decode`] turns one into a request; [`state::Session::admit`] says
//!    whether to run it, IGNORE it, or treat it as a protocol violation.
//! 4. Replies are encoded straight into the write buffer ([`message::encode_record`],
//!    [`meta`] builders) held by an [`outbox::Outbox`], so K records cost about
//!    bytes / buffer size socket writes and a pipelined batch goes out in one flush.

pub mod chunk;
pub mod codec;
pub mod error;
pub mod handshake;
pub mod message;
pub mod meta;
pub mod outbox;
pub mod packstream;
pub mod state;
pub mod version;
pub mod zone;

pub use codec::Codec;
pub use error::Error;
pub use message::{Request, Response};
pub use version::Version;
pub use zone::{TzDatabase, UtcOnly, ZoneResolver};
