//! Arbitrary bytes through everything a server reads from a socket: the handshake, the
//! de-chunker, and the request decoder of every version; and, since clients read servers'
//! bytes, the response decoder. Nothing may panic, and whatever decodes must re-encode and
//! decode again.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use quiver_bolt::chunk::Dechunker;
use quiver_bolt::handshake::{self, HANDSHAKE_BYTES};
use quiver_bolt::{Codec, Request, Response, Version};

fuzz_target!(|data: &[u8]| {
    if let Some(first) = data.get(..HANDSHAKE_BYTES) {
        let mut hello = [0u8; HANDSHAKE_BYTES];
        hello.copy_from_slice(first);
        let _ = handshake::negotiate(&hello, &Version::SUPPORTED);
        let _ = handshake::parse_server_reply(data);
    }

    // The raw bytes as one message body.
    decode_everywhere(data);

    // The raw bytes as a chunked stream.
    let mut input = BytesMut::from(data);
    let mut dechunker = Dechunker::new(1 << 16);
    while let Ok(Some(message)) = dechunker.decode(&mut input) {
        decode_everywhere(&message);
    }
});

fn decode_everywhere(message: &[u8]) {
    for version in Version::SUPPORTED {
        let codec = Codec::new(version);
        if let Ok(request) = Request::decode(message, &codec) {
            let mut out = Vec::new();
            request.encode(&mut out, &codec).expect("a decoded request re-encodes");
            let mut wire = BytesMut::from(&out[..]);
            let again = Dechunker::new(usize::MAX).decode(&mut wire).expect("own framing").expect("whole");
            Request::decode(&again, &codec).expect("a re-encoded request decodes");
        }
        let _ = Response::decode(message, &codec);
    }
}
