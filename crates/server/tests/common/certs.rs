//! Test certificates made on the spot with rcgen: a CA, a server certificate for `localhost` and
//! 127.0.0.1, one for another host, a client certificate, and a second CA with its own server
//! certificate (for "wrong CA" and for reloading).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};

/// A certificate and its key, PEM.
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
}

/// Every certificate the TLS tests use.
pub struct TestPki {
    pub ca: Issued,
    pub server: Issued,
    pub wrong_host: Issued,
    pub client: Issued,
    pub other_ca: Issued,
    pub other_server: Issued,
}

/// The files [`TestPki::write`] makes.
pub struct PkiFiles {
    pub ca: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    pub wrong_host_cert: PathBuf,
    pub wrong_host_key: PathBuf,
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
    pub other_ca: PathBuf,
    pub other_server_cert: PathBuf,
    pub other_server_key: PathBuf,
}

fn new_ca(name: &str) -> (Issued, Issuer<'static, KeyPair>) {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    let key = KeyPair::generate().expect("CA key");
    let cert = params.self_signed(&key).expect("CA certificate");
    let issued = Issued {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    };
    (issued, Issuer::new(params, key))
}

fn leaf(
    names: &[&str],
    purpose: ExtendedKeyUsagePurpose,
    issuer: &Issuer<'static, KeyPair>,
) -> Issued {
    let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
    let mut params = CertificateParams::new(names).expect("leaf params");
    params
        .distinguished_name
        .push(DnType::CommonName, "quiver test");
    params.extended_key_usages = vec![purpose];
    let key = KeyPair::generate().expect("leaf key");
    let cert = params.signed_by(&key, issuer).expect("leaf certificate");
    Issued {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    }
}

impl TestPki {
    pub fn generate() -> TestPki {
        let (ca, issuer) = new_ca("Quiver test CA");
        let (other_ca, other_issuer) = new_ca("Quiver other test CA");
        let server_names = ["localhost", "127.0.0.1"];
        TestPki {
            server: leaf(&server_names, ExtendedKeyUsagePurpose::ServerAuth, &issuer),
            wrong_host: leaf(
                &["elsewhere.invalid"],
                ExtendedKeyUsagePurpose::ServerAuth,
                &issuer,
            ),
            client: leaf(&["client"], ExtendedKeyUsagePurpose::ClientAuth, &issuer),
            other_server: leaf(
                &server_names,
                ExtendedKeyUsagePurpose::ServerAuth,
                &other_issuer,
            ),
            ca,
            other_ca,
        }
    }

    /// Writes every certificate and key into `dir`.
    pub fn write(&self, dir: &Path) -> PkiFiles {
        let put = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).expect("write a test certificate");
            path
        };
        PkiFiles {
            ca: put("ca.pem", &self.ca.cert_pem),
            server_cert: put("server.pem", &self.server.cert_pem),
            server_key: put("server.key", &self.server.key_pem),
            wrong_host_cert: put("wrong-host.pem", &self.wrong_host.cert_pem),
            wrong_host_key: put("wrong-host.key", &self.wrong_host.key_pem),
            client_cert: put("client.pem", &self.client.cert_pem),
            client_key: put("client.key", &self.client.key_pem),
            other_ca: put("other-ca.pem", &self.other_ca.cert_pem),
            other_server_cert: put("other-server.pem", &self.other_server.cert_pem),
            other_server_key: put("other-server.key", &self.other_server.key_pem),
        }
    }
}
