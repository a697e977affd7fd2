//! Requests: decoded by the server, encoded by clients.

use bytes::BufMut;
use quiver_value::Map;

use super::extra::{DictWriter, invalid, string_list};
use super::signature as sig;
use super::{Auth, HelloExtra, RouteExtra, TelemetryApi, TxExtra};
use crate::codec::Codec;
use crate::error::Error;
use crate::packstream::encode::{write_int, write_map, write_string, write_struct_header};
use crate::packstream::{Buffer, Decoder, Side, write_list_header};
use crate::version::Version;

/// RUN's extra: the same dictionary as BEGIN's (it is empty inside an explicit transaction).
pub type RunExtra = TxExtra;

/// A client request.
#[derive(Clone, Debug)]
pub enum Request {
    Hello {
        extra: HelloExtra,
    },
    Logon {
        auth: Auth,
    },
    Logoff,
    Telemetry {
        api: TelemetryApi,
    },
    Goodbye,
    Reset,
    Run {
        query: String,
        params: Map,
        extra: RunExtra,
    },
    Begin {
        extra: TxExtra,
    },
    Commit,
    Rollback,
    /// `n` records to throw away (−1: all) from stream `qid` (−1: the last one opened).
    Discard {
        n: i64,
        qid: i64,
    },
    /// `n` records to send (−1: all) from stream `qid` (−1: the last one opened).
    Pull {
        n: i64,
        qid: i64,
    },
    Route {
        routing: Map,
        bookmarks: Vec<String>,
        extra: RouteExtra,
    },
}

/// The signature of an encoded message, without decoding it: lets a server spot a RESET
/// queued behind running work (it jumps the queue) or a GOODBYE.
pub fn peek_signature(message: &[u8]) -> Option<u8> {
    match message {
        [marker, signature, ..] if marker & 0xF0 == 0xB0 => Some(*signature),
        _ => None,
    }
}

impl Request {
    pub fn name(&self) -> &'static str {
        match self {
            Request::Hello { .. } => "HELLO",
            Request::Logon { .. } => "LOGON",
            Request::Logoff => "LOGOFF",
            Request::Telemetry { .. } => "TELEMETRY",
            Request::Goodbye => "GOODBYE",
            Request::Reset => "RESET",
            Request::Run { .. } => "RUN",
            Request::Begin { .. } => "BEGIN",
            Request::Commit => "COMMIT",
            Request::Rollback => "ROLLBACK",
            Request::Discard { .. } => "DISCARD",
            Request::Pull { .. } => "PULL",
            Request::Route { .. } => "ROUTE",
        }
    }

    /// Decodes one whole message (as the dechunker hands it out) sent by a client.
    pub fn decode(message: &[u8], codec: &Codec<'_>) -> Result<Request, Error> {
        let mut d = Decoder::new(
            message,
            codec.limits,
            codec.dialect,
            Side::Server,
            codec.zones,
        );
        let header = d.struct_header()?;
        let version = codec.version;
        let (name, fields, since) = match header.tag {
            sig::HELLO => ("HELLO", 1, None),
            sig::LOGON => ("LOGON", 1, Some(Version::V5_1)),
            sig::LOGOFF => ("LOGOFF", 0, Some(Version::V5_1)),
            sig::TELEMETRY => ("TELEMETRY", 1, Some(Version::V5_4)),
            sig::GOODBYE => ("GOODBYE", 0, None),
            sig::RESET => ("RESET", 0, None),
            sig::RUN => ("RUN", 3, None),
            sig::BEGIN => ("BEGIN", 1, None),
            sig::COMMIT => ("COMMIT", 0, None),
            sig::ROLLBACK => ("ROLLBACK", 0, None),
            sig::DISCARD => ("DISCARD", 1, None),
            sig::PULL => ("PULL", 1, None),
            sig::ROUTE => ("ROUTE", 3, Some(Version::V4_3)),
            signature => return Err(Error::UnknownMessage { signature }),
        };
        if since.is_some_and(|since| version < since) {
            return Err(Error::MessageNotInVersion {
                message: name,
                version: version.to_string(),
            });
        }
        if header.fields != fields {
            return Err(Error::MessageFields {
                message: name,
                expected: FIELD_COUNTS[fields],
                found: header.fields,
            });
        }
        let request = match header.tag {
            sig::HELLO => Request::Hello {
                extra: HelloExtra::decode(&mut d, version)?,
            },
            sig::LOGON => Request::Logon {
                auth: Auth::decode(&mut d)?,
            },
            sig::LOGOFF => Request::Logoff,
            sig::TELEMETRY => {
                let api = d
                    .int()
                    .map_err(|_| invalid("TELEMETRY", "api", "must be an integer"))?;
                Request::Telemetry {
                    api: TelemetryApi::from_wire(api),
                }
            }
            sig::GOODBYE => Request::Goodbye,
            sig::RESET => Request::Reset,
            sig::RUN => Self::decode_run(&mut d)?,
            sig::BEGIN => Request::Begin {
                extra: TxExtra::decode(&mut d, "BEGIN")?,
            },
            sig::COMMIT => Request::Commit,
            sig::ROLLBACK => Request::Rollback,
            sig::DISCARD => {
                let (n, qid) = decode_stream_extra(&mut d, "DISCARD")?;
                Request::Discard { n, qid }
            }
            sig::PULL => {
                let (n, qid) = decode_stream_extra(&mut d, "PULL")?;
                Request::Pull { n, qid }
            }
            _ => Self::decode_route(&mut d)?,
        };
        d.finish()?;
        Ok(request)
    }

    /// The fields of a RUN: query, parameters (null reads as none) and extra.
    fn decode_run(d: &mut Decoder<'_>) -> Result<Request, Error> {
        let query = d
            .string()
            .map_err(|e| field_error(e, "RUN", "query", "must be a string"))?
            .to_owned();
        let params = if d.take_null()? {
            Map::new()
        } else {
            d.map()
                .map_err(|e| field_error(e, "RUN", "parameters", "must be a dictionary"))?
        };
        let extra = TxExtra::decode(d, "RUN")?;
        Ok(Request::Run {
            query,
            params,
            extra,
        })
    }

    /// The fields of a ROUTE: routing context (null reads as empty), bookmarks and extra.
    fn decode_route(d: &mut Decoder<'_>) -> Result<Request, Error> {
        let routing = if d.take_null()? {
            Map::new()
        } else {
            d.map()
                .map_err(|e| field_error(e, "ROUTE", "routing", "must be a dictionary"))?
        };
        let bookmarks = string_list(d, "ROUTE", "bookmarks")?;
        let extra = RouteExtra::decode(d)?;
        Ok(Request::Route {
            routing,
            bookmarks,
            extra,
        })
    }

    /// Appends this request, chunked, to `out` (the client direction).
    pub fn encode<B: Buffer>(&self, out: &mut B, codec: &Codec<'_>) -> Result<(), Error> {
        crate::chunk::write_message(out, |b| self.encode_body(b, codec))
    }

    /// Writes the message body without chunk framing.
    pub fn encode_body<B: BufMut>(&self, b: &mut B, codec: &Codec<'_>) -> Result<(), Error> {
        let version = codec.version;
        match self {
            Request::Hello { extra } => {
                write_struct_header(b, 1, sig::HELLO);
                extra.encode(b, version)?;
            }
            Request::Logon { auth } => {
                write_struct_header(b, 1, sig::LOGON);
                auth.encode(b)?;
            }
            Request::Logoff => write_struct_header(b, 0, sig::LOGOFF),
            Request::Telemetry { api } => {
                write_struct_header(b, 1, sig::TELEMETRY);
                write_int(b, api.to_wire());
            }
            Request::Goodbye => write_struct_header(b, 0, sig::GOODBYE),
            Request::Reset => write_struct_header(b, 0, sig::RESET),
            Request::Run {
                query,
                params,
                extra,
            } => {
                write_struct_header(b, 3, sig::RUN);
                write_string(b, query)?;
                write_map(b, params, codec.dialect)?;
                extra.encode(b, version)?;
            }
            Request::Begin { extra } => {
                write_struct_header(b, 1, sig::BEGIN);
                extra.encode(b, version)?;
            }
            Request::Commit => write_struct_header(b, 0, sig::COMMIT),
            Request::Rollback => write_struct_header(b, 0, sig::ROLLBACK),
            Request::Discard { n, qid } => {
                write_struct_header(b, 1, sig::DISCARD);
                encode_stream_extra(b, *n, *qid)?;
            }
            Request::Pull { n, qid } => {
                write_struct_header(b, 1, sig::PULL);
                encode_stream_extra(b, *n, *qid)?;
            }
            Request::Route {
                routing,
                bookmarks,
                extra,
            } => {
                write_struct_header(b, 3, sig::ROUTE);
                write_map(b, routing, codec.dialect)?;
                write_list_header(b, bookmarks.len())?;
                for bm in bookmarks {
                    write_string(b, bm)?;
                }
                extra.encode(b)?;
            }
        }
        Ok(())
    }
}

const FIELD_COUNTS: [&str; 4] = ["0", "1", "2", "3"];

fn field_error(
    e: Error,
    message: &'static str,
    field: &'static str,
    problem: &'static str,
) -> Error {
    match e {
        Error::InvalidValue { .. } | Error::NonStringKey { .. } => invalid(message, field, problem),
        other => other,
    }
}

/// PULL and DISCARD: `n` is required (−1 or positive); `qid` defaults to −1.
fn decode_stream_extra(d: &mut Decoder<'_>, message: &'static str) -> Result<(i64, i64), Error> {
    let len = d
        .map_len()
        .map_err(|e| field_error(e, message, "extra", "must be a dictionary"))?;
    let mut n = None;
    let mut qid = -1;
    for _ in 0..len {
        match d.key()? {
            "n" => {
                n = Some(
                    d.int()
                        .map_err(|e| field_error(e, message, "n", "must be an integer"))?,
                );
            }
            "qid" => {
                qid = d
                    .int()
                    .map_err(|e| field_error(e, message, "qid", "must be an integer"))?;
            }
            _ => d.skip()?,
        }
    }
    let n = n.ok_or(invalid(message, "n", "is required"))?;
    if n != -1 && n <= 0 {
        return Err(invalid(message, "n", "must be -1 or positive"));
    }
    if qid < -1 {
        return Err(invalid(message, "qid", "must be -1 or a query id"));
    }
    Ok((n, qid))
}

fn encode_stream_extra<B: BufMut>(b: &mut B, n: i64, qid: i64) -> Result<(), Error> {
    let mut w = DictWriter::new(b, if qid == -1 { 1 } else { 2 })?;
    w.int("n", n)?;
    if qid != -1 {
        w.int("qid", qid)?;
    }
    Ok(())
}
