//! Writes the TLS tests' CA, certificates and keys (made with rcgen) into a directory, for the
//! official drivers' tests: `cargo run -p quiver-server --example test_certs -- DIR`.
//!
//! The same certificates as the Rust tests make for themselves: `ca.pem`, `server.pem` and
//! `server.key` (localhost and 127.0.0.1), `wrong-host.pem`/`.key` (another host, the same CA),
//! `client.pem`/`.key` (a client certificate from the CA), `other-ca.pem` and
//! `other-server.pem`/`.key` (a CA no client trusts).

// The fields of the file list are for the Rust tests.
#[allow(dead_code)]
#[path = "../tests/common/certs.rs"]
mod certs;

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: test_certs DIR");
        return ExitCode::from(2);
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(error) = std::fs::create_dir_all(&dir) {
        eprintln!("test_certs: {}: {error}", dir.display());
        return ExitCode::FAILURE;
    }
    certs::TestPki::generate().write(&dir);
    println!("{}", dir.display());
    ExitCode::SUCCESS
}
