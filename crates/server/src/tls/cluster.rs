//! Cluster TLS's files: this member's certificate (naming its member id, see
//! `quiver_cluster::transport`) and key, and the cluster CA. They are read like the listeners'
//! certificate and key, and again on SIGHUP: handshakes from then on use the new ones, open
//! connections between members keep theirs.

use std::sync::Arc;

use quiver_cluster::{NodeId, PeerTls};

use super::{TlsError, read_certificates, read_key};
use crate::config::ClusterTlsSettings;

/// A member's cluster TLS, as loaded from its files, and the handle its Raft network uses.
#[derive(Debug)]
pub struct ClusterTls {
    settings: ClusterTlsSettings,
    peer: Arc<PeerTls>,
}

impl ClusterTls {
    /// Reads the files `settings` names, for member `id`: its certificate must name it.
    pub fn load(id: NodeId, settings: &ClusterTlsSettings) -> Result<ClusterTls, TlsError> {
        let (ca, chain, key) = read(settings)?;
        let peer = PeerTls::new(id, ca, chain, key).map_err(TlsError::Cluster)?;
        Ok(ClusterTls {
            settings: settings.clone(),
            peer: Arc::new(peer),
        })
    }

    /// Reads the files again; on any error the certificates in use stay.
    pub fn reload(&self) -> Result<(), TlsError> {
        let (ca, chain, key) = read(&self.settings)?;
        self.peer.replace(ca, chain, key).map_err(TlsError::Cluster)
    }

    /// What the member's Raft network handshakes with.
    pub fn peer(&self) -> &Arc<PeerTls> {
        &self.peer
    }
}

type Parts = (
    Vec<rustls::pki_types::CertificateDer<'static>>,
    Vec<rustls::pki_types::CertificateDer<'static>>,
    rustls::pki_types::PrivateKeyDer<'static>,
);

fn read(settings: &ClusterTlsSettings) -> Result<Parts, TlsError> {
    Ok((
        read_certificates(&settings.ca)?,
        read_certificates(&settings.cert)?,
        read_key(&settings.key)?,
    ))
}
