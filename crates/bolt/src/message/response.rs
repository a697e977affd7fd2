//! Responses: encoded by the server (straight into its output buffer), decoded by clients.

use bytes::BufMut;
use quiver_value::{Map, Value};

use super::signature as sig;
use crate::chunk::write_message;
use crate::codec::Codec;
use crate::error::Error;
use crate::packstream::encode::{write_map, write_struct_header, write_value};
use crate::packstream::{Buffer, Decoder, Dialect, Side, write_list_header};

/// A server response.
#[derive(Clone, Debug)]
pub enum Response {
    Success(Map),
    Record(Vec<Value>),
    Ignored,
    Failure(Map),
}

impl Response {
    pub fn name(&self) -> &'static str {
        match self {
            Response::Success(_) => "SUCCESS",
            Response::Record(_) => "RECORD",
            Response::Ignored => "IGNORED",
            Response::Failure(_) => "FAILURE",
        }
    }

    /// Decodes one whole message sent by a server (the client direction: graph structures
    /// are accepted).
    pub fn decode(message: &[u8], codec: &Codec<'_>) -> Result<Response, Error> {
        let mut d = Decoder::new(
            message,
            codec.limits,
            codec.dialect,
            Side::Client,
            codec.zones,
        );
        let header = d.struct_header()?;
        let (name, fields) = match header.tag {
            sig::SUCCESS => ("SUCCESS", 1),
            sig::RECORD => ("RECORD", 1),
            sig::IGNORED => ("IGNORED", 0),
            sig::FAILURE => ("FAILURE", 1),
            signature => return Err(Error::UnknownMessage { signature }),
        };
        if header.fields != fields {
            return Err(Error::MessageFields {
                message: name,
                expected: if fields == 0 { "0" } else { "1" },
                found: header.fields,
            });
        }
        let response = match header.tag {
            sig::SUCCESS => Response::Success(d.map()?),
            sig::FAILURE => Response::Failure(d.map()?),
            sig::IGNORED => Response::Ignored,
            _ => {
                let len = d.list_len()?;
                let mut values = Vec::with_capacity(len.min(d.remaining()));
                for _ in 0..len {
                    values.push(d.value()?);
                }
                Response::Record(values)
            }
        };
        d.finish()?;
        Ok(response)
    }

    /// Appends this response, chunked, to `out`.
    pub fn encode<B: Buffer>(&self, out: &mut B, codec: &Codec<'_>) -> Result<(), Error> {
        match self {
            Response::Success(meta) => encode_success_map(out, meta, codec.dialect),
            Response::Record(values) => encode_record(out, values, codec.dialect),
            Response::Ignored => {
                encode_ignored(out);
                Ok(())
            }
            Response::Failure(meta) => encode_failure_message(out, meta, codec.dialect),
        }
    }
}

/// `RECORD [values]`. If a value cannot be encoded (an unmaterialised node), nothing is
/// written and the error says which.
pub fn encode_record<B: Buffer>(
    out: &mut B,
    values: &[Value],
    dialect: Dialect,
) -> Result<(), Error> {
    encode_record_with(out, values.iter(), dialect)
}

/// `RECORD` from any exactly sized sequence of values (a row of slots, say).
pub fn encode_record_with<'v, B, I>(out: &mut B, values: I, dialect: Dialect) -> Result<(), Error>
where
    B: Buffer,
    I: ExactSizeIterator<Item = &'v Value>,
{
    write_message(out, |b| {
        write_struct_header(b, 1, sig::RECORD);
        write_list_header(b, values.len())?;
        for v in values {
            write_value(b, v, dialect)?;
        }
        Ok(())
    })
}

pub fn encode_ignored<B: BufMut>(out: &mut B) {
    out.put_slice(&[0x00, 0x02, 0xB0, sig::IGNORED, 0x00, 0x00]);
}

pub fn encode_success_map<B: Buffer>(
    out: &mut B,
    meta: &Map,
    dialect: Dialect,
) -> Result<(), Error> {
    write_message(out, |b| {
        write_struct_header(b, 1, sig::SUCCESS);
        write_map(b, meta, dialect)
    })
}

pub fn encode_failure_message<B: Buffer>(
    out: &mut B,
    meta: &Map,
    dialect: Dialect,
) -> Result<(), Error> {
    write_message(out, |b| {
        write_struct_header(b, 1, sig::FAILURE);
        write_map(b, meta, dialect)
    })
}
