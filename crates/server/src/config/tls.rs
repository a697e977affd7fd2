//! TLS settings: the certificate and key, the optional client CA, and each listener's mode.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::Deserialize;

/// Whether a listener speaks TLS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum TlsMode {
    /// Every connection must open with a TLS handshake; a plain one is closed.
    Required,
    /// TLS and plain on the same port, told apart by the first byte (0x16 opens a TLS handshake
    /// record; Bolt's preamble opens with 0x60 and HTTP with ASCII letters).
    Optional,
    /// Plain only.
    Off,
}

impl FromStr for TlsMode {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.to_ascii_lowercase().as_str() {
            "required" => Ok(TlsMode::Required),
            "optional" => Ok(TlsMode::Optional),
            "off" => Ok(TlsMode::Off),
            _ => Err(format!(
                "`{text}` is not a TLS mode: expected required, optional or off"
            )),
        }
    }
}

impl TryFrom<String> for TlsMode {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl fmt::Display for TlsMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TlsMode::Required => "required",
            TlsMode::Optional => "optional",
            TlsMode::Off => "off",
        })
    }
}

/// Where the server's certificate chain and key are, checked to be given together. The files
/// are read when the server starts and again on SIGHUP, so a renewed certificate is taken up
/// without a restart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    /// PEM: the server's certificate first, then any intermediates.
    pub cert: PathBuf,
    /// PEM: the private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// PEM: the CAs client certificates must chain to. Given, every TLS client must present
    /// one (mutual TLS).
    pub client_ca: Option<PathBuf>,
    pub bolt: TlsMode,
    pub http: TlsMode,
}
