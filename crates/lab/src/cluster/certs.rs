//! `--cluster-tls`: a cluster CA made for the run, and each member's certificate naming it as
//! `member-<id>.quiver-cluster` (the scheme `quiver serve --cluster-tls-cert` expects), with
//! rcgen, written beside the members' directories.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
};

use crate::error::LabError;

/// One member's cluster TLS files.
#[derive(Clone, Debug)]
pub struct MemberTls {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

fn generated(what: &str, error: &rcgen::Error) -> LabError {
    LabError::Server(format!("generating the {what}: {error}"))
}

/// Writes a CA into `dir` and a certificate and key for each member id in `ids`.
pub fn write(dir: &Path, ids: impl IntoIterator<Item = u64>) -> Result<Vec<MemberTls>, LabError> {
    let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(|e| generated("CA", &e))?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(DnType::CommonName, "quiver lab cluster CA");
    let ca_key = KeyPair::generate().map_err(|e| generated("CA key", &e))?;
    let ca_cert = ca.self_signed(&ca_key).map_err(|e| generated("CA", &e))?;
    let ca_path = dir.join("cluster-ca.pem");
    put(&ca_path, &ca_cert.pem())?;
    let issuer = Issuer::new(ca, ca_key);
    let mut out = Vec::new();
    for id in ids {
        let name = quiver_cluster::member_name(id);
        let mut params =
            CertificateParams::new(vec![name]).map_err(|e| generated("member certificate", &e))?;
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().map_err(|e| generated("member key", &e))?;
        let cert = params
            .signed_by(&key, &issuer)
            .map_err(|e| generated("member certificate", &e))?;
        let files = MemberTls {
            cert: dir.join(format!("member-{id}.pem")),
            key: dir.join(format!("member-{id}.key")),
            ca: ca_path.clone(),
        };
        put(&files.cert, &cert.pem())?;
        put(&files.key, &key.serialize_pem())?;
        out.push(files);
    }
    Ok(out)
}

fn put(path: &Path, text: &str) -> Result<(), LabError> {
    std::fs::write(path, text).map_err(|e| LabError::artifact(path, e))
}
