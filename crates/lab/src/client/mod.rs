//! A lean Bolt client over `quiver-bolt`'s client direction.
//!
//! Official drivers spend more per query than Quiver does answering it, which would make the
//! lab measure itself. This client keeps per-unit work to a socket write of pre-encoded bytes,
//! reads into one reusable buffer, and checks rows in place; its own CPU time is measured
//! separately (see [`crate::sampler`]) so every report says how much of the machine the client
//! took.

mod conn;
mod dial;

pub use conn::{
    ClientError, Connection, Credentials, Exchanged, OFFERED, Replies, Summary, USER_AGENT,
    UnitOutcome,
};
pub use dial::{Dialer, SOURCE_ADDRS_MAX};
