//! Certificates re-read on SIGHUP.

#[cfg(unix)]
use std::sync::Arc;

/// SIGHUP re-reads the TLS certificate, key and client CA (or, for `what` = cluster TLS, the
/// member's certificate, key and cluster CA): handshakes from then on use them, connections
/// already open keep theirs. A file that does not load leaves the old ones in use.
#[cfg(unix)]
pub async fn reload_tls_on_hangup<F>(
    mut hangup: tokio::signal::unix::Signal,
    what: &'static str,
    reload: F,
) where
    F: Fn() -> Result<(), quiver_server::tls::TlsError> + Send + Sync + 'static,
{
    let reload = Arc::new(reload);
    while hangup.recv().await.is_some() {
        let reloading = Arc::clone(&reload);
        match tokio::task::spawn_blocking(move || reloading()).await {
            Ok(Ok(())) => tracing::info!("{what} certificate and key reloaded"),
            Ok(Err(error)) => {
                tracing::error!(%error, "{what} reload failed; the previous certificate stays in use");
            }
            Err(error) => tracing::error!(%error, "{what} reload stopped"),
        }
    }
}
