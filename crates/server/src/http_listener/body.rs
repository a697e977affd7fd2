//! Reading a request body whole, within the size limit and the body-read deadline.

use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use tokio::time::Instant;

/// Why a body could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("request body larger than {0} bytes")]
    TooLarge(u64),
    #[error("request body not received within the body-read deadline")]
    Deadline,
    #[error("reading the request body failed: {0}")]
    Client(String),
}

/// Collects `body`, failing at `bytes_max` bytes or at `deadline`, whichever comes first.
pub async fn collect(
    body: Incoming,
    bytes_max: u64,
    deadline: Instant,
) -> Result<Bytes, BodyError> {
    let limit = usize::try_from(bytes_max).unwrap_or(usize::MAX);
    let collecting = Limited::new(body, limit).collect();
    match tokio::time::timeout_at(deadline, collecting).await {
        Err(_) => Err(BodyError::Deadline),
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(error)) if error.downcast_ref::<LengthLimitError>().is_some() => {
            Err(BodyError::TooLarge(bytes_max))
        }
        Ok(Err(error)) => Err(BodyError::Client(error.to_string())),
    }
}
