//! Panic isolation: a panic inside one connection's task is caught, counted, and ends that
//! connection alone (its socket is dropped with the future), never the listener or the process.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

/// A future that turns a panic while polling `inner` into `Err(message)`.
///
/// `AssertUnwindSafe` is sound here because the inner future is never polled again after a panic:
/// it is dropped with whatever state it had, and nothing else observes that state.
pub struct CatchPanic<F> {
    inner: Pin<Box<F>>,
}

impl<F: Future> CatchPanic<F> {
    pub fn new(inner: F) -> CatchPanic<F> {
        CatchPanic {
            inner: Box::pin(inner),
        }
    }
}

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, String>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.inner.as_mut();
        match catch_unwind(AssertUnwindSafe(move || inner.poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(panic_message(payload.as_ref()))),
        }
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_an_error() {
        let outcome = CatchPanic::new(async {
            tokio::task::yield_now().await;
            panic!("boom {}", 7);
        })
        .await;
        let message: Result<(), String> = outcome;
        assert_eq!(message, Err("boom 7".to_owned()));
    }

    #[tokio::test]
    async fn normal_output_passes_through() {
        assert_eq!(CatchPanic::new(async { 5 }).await, Ok(5));
    }
}
