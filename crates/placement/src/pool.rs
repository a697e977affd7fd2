//! The query pool: a few threads that run engine work which may take long, so that it never
//! occupies a runtime worker (and with it every connection that worker serves).
//!
//! Why a pool of its own rather than `spawn_blocking` alone: its threads stay warm and are
//! woken directly, and only when all of them are busy does a job take a thread of the
//! runtime's blocking pool (it never queues behind a long query). Rather than
//! `block_in_place`: a job is handed off while the connection's task keeps watching its socket,
//! so a client that leaves or sends RESET cancels it within one cancellation check.
//! `docs/ARCHITECTURE.md` (## Server) has the measurements.

use std::any::Any;
use std::collections::VecDeque;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use parking_lot::{Condvar, Mutex};
use tokio::sync::oneshot;

/// Upper bound on pool threads: more than this cannot help on any machine Quiver targets and
/// would only dilute the runtime workers' share of the CPU.
pub const QUERY_THREADS_LIMIT: usize = 256;

type Job = Box<dyn FnOnce() + Send>;

struct Queue {
    jobs: VecDeque<Job>,
    /// Threads asleep on the condition variable, ready for a job. A job is queued only while
    /// there are more of them than jobs queued: the decision and the queueing happen under
    /// one lock, so two jobs spawned at once never both count on the same idle thread (the
    /// one left behind would wait for a running job to end, and a running job may be waiting
    /// for it: a writer waiting for a lock whose holder's commit is the queued job).
    idle: usize,
    closed: bool,
}

struct PoolState {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Jobs running now, for the metrics and for tests.
    running: AtomicUsize,
    /// Jobs queued and not yet taken by a thread.
    queued: AtomicUsize,
    /// Jobs that found every thread busy and ran on a thread of their own.
    overflowed: AtomicUsize,
}

/// A fixed set of threads taking jobs from one queue. Dropping the pool lets its threads finish
/// the queued jobs and exit.
pub struct QueryPool {
    shared: Arc<PoolState>,
    threads: usize,
}

impl std::fmt::Debug for QueryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueryPool")
            .field("threads", &self.threads)
            .field("queued", &self.queued())
            .field("running", &self.running())
            .finish_non_exhaustive()
    }
}

/// Why a job gave no result.
#[derive(Debug)]
pub enum JobError {
    /// The job panicked; the payload is resumed by the caller, so the panic is isolated and
    /// counted exactly like one raised on the connection's own task.
    Panicked(Box<dyn Any + Send>),
    /// The pool was shut down before the job ran.
    Closed,
}

impl QueryPool {
    /// Starts `threads` threads (at least one, at most [`QUERY_THREADS_LIMIT`]).
    pub fn new(threads: usize) -> std::io::Result<QueryPool> {
        let threads = threads.clamp(1, QUERY_THREADS_LIMIT);
        let shared = Arc::new(PoolState {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                idle: 0,
                closed: false,
            }),
            ready: Condvar::new(),
            running: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
            overflowed: AtomicUsize::new(0),
        });
        for index in 0..threads {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name(format!("quiver-query-{index}"))
                .spawn(move || work(&shared))?;
        }
        Ok(QueryPool { shared, threads })
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Jobs waiting for a thread.
    pub fn queued(&self) -> usize {
        self.shared.queued.load(Ordering::Relaxed)
    }

    /// Pool threads asleep, ready for a job.
    pub fn idle(&self) -> usize {
        self.shared.queue.lock().idle
    }

    /// Jobs so far that ran beside the pool because every thread was busy.
    pub fn overflowed(&self) -> usize {
        self.shared.overflowed.load(Ordering::Relaxed)
    }

    /// Runs `job` on a pool thread if one is idle, else on a thread of its own (the runtime's
    /// blocking pool): work never waits behind jobs that occupy every pool thread, however long
    /// they run or whatever they wait for.
    pub fn spawn<R, F>(&self, job: F) -> JobHandle<R>
    where
        R: Send + 'static,
        F: FnOnce() -> R + Send + 'static,
    {
        let (boxed, handle) = package(job);
        let boxed = {
            let mut queue = self.shared.queue.lock();
            if queue.closed {
                // Dropping the job drops its sender: the handle reports `Closed`.
                return handle;
            }
            if queue.jobs.len() < queue.idle {
                queue.jobs.push_back(boxed);
                self.shared.queued.fetch_add(1, Ordering::Relaxed);
                drop(queue);
                self.shared.ready.notify_one();
                return handle;
            }
            boxed
        };
        self.shared.overflowed.fetch_add(1, Ordering::Relaxed);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn_blocking(boxed);
            }
            Err(_) => {
                if let Err(error) = std::thread::Builder::new()
                    .name("quiver-query-overflow".to_owned())
                    .spawn(boxed)
                {
                    // The job (and its sender) is gone: the handle reports the pool closed.
                    tracing::error!(%error, "cannot start a query thread");
                }
            }
        }
        handle
    }

    /// Jobs being run now.
    pub fn running(&self) -> usize {
        self.shared.running.load(Ordering::Relaxed)
    }
}

/// Wraps `job` so that its result, or its panic, reaches the returned handle.
fn package<R, F>(job: F) -> (Job, JobHandle<R>)
where
    R: Send + 'static,
    F: FnOnce() -> R + Send + 'static,
{
    let (sender, receiver) = oneshot::channel();
    let boxed: Job = Box::new(move || {
        let result = catch_unwind(AssertUnwindSafe(job));
        // The receiver is gone only if the connection task itself ended; nobody wants it.
        let _ = sender.send(result);
    });
    (boxed, JobHandle { receiver })
}

impl Drop for QueryPool {
    fn drop(&mut self) {
        self.shared.queue.lock().closed = true;
        self.shared.ready.notify_all();
    }
}

fn work(shared: &PoolState) {
    loop {
        let job = {
            let mut queue = shared.queue.lock();
            loop {
                if let Some(job) = queue.jobs.pop_front() {
                    shared.queued.fetch_sub(1, Ordering::Relaxed);
                    shared.running.fetch_add(1, Ordering::Relaxed);
                    break job;
                }
                if queue.closed {
                    return;
                }
                queue.idle += 1;
                shared.ready.wait(&mut queue);
                queue.idle -= 1;
            }
        };
        job();
        shared.running.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The result of a job on the pool.
#[derive(Debug)]
pub struct JobHandle<R> {
    receiver: oneshot::Receiver<std::thread::Result<R>>,
}

impl<R> Future for JobHandle<R> {
    type Output = Result<R, JobError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match Pin::new(&mut self.receiver).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(Ok(value))) => Poll::Ready(Ok(value)),
            Poll::Ready(Ok(Err(payload))) => Poll::Ready(Err(JobError::Panicked(payload))),
            Poll::Ready(Err(_)) => Poll::Ready(Err(JobError::Closed)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_off_the_calling_thread_and_return_their_result() {
        let pool = QueryPool::new(2).expect("pool");
        let caller = std::thread::current().id();
        let (value, thread) = pool
            .spawn(|| (6 * 7, std::thread::current().id()))
            .await
            .expect("result");
        assert_eq!(value, 42);
        assert_ne!(thread, caller);
        assert_eq!(pool.threads(), 2);
    }

    #[tokio::test]
    async fn a_panicking_job_reports_its_payload_and_the_pool_goes_on() {
        let pool = QueryPool::new(1).expect("pool");
        let outcome = pool.spawn(|| -> u8 { panic!("job failed") }).await;
        match outcome {
            Err(JobError::Panicked(payload)) => {
                assert_eq!(payload.downcast_ref::<&str>(), Some(&"job failed"));
            }
            other => panic!("expected a panic, got {other:?}"),
        }
        assert_eq!(pool.spawn(|| 1).await.expect("still serving"), 1);
    }

    #[tokio::test]
    async fn jobs_do_not_wait_behind_busy_threads() {
        let pool = QueryPool::new(1).expect("pool");
        // The thread starts asleep; until it is, a job would run beside the pool too.
        while pool.idle() == 0 {
            tokio::task::yield_now().await;
        }
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        let long = pool.spawn(move || blocked.recv().is_ok());
        while pool.running() == 0 {
            tokio::task::yield_now().await;
        }
        let probe = pool.spawn(|| 5);
        assert_eq!(probe.await.expect("ran beside the busy thread"), 5);
        assert_eq!(pool.overflowed(), 1);
        release.send(()).expect("release");
        assert!(long.await.expect("long job"));
    }

    /// Jobs spawned at the same moment from many threads each find a thread of their own: none
    /// is queued behind the jobs that fill the pool, so jobs that wait for one another (as a
    /// writer waits for the commit of the lock's holder) all meet.
    #[test]
    fn jobs_spawned_at_once_never_queue_behind_a_full_pool() {
        const JOBS: usize = 8;
        let pool = Arc::new(QueryPool::new(2).expect("pool"));
        let met = Arc::new((Mutex::new(0usize), Condvar::new()));
        let start = Arc::new(std::sync::Barrier::new(JOBS));
        let spawners: Vec<_> = (0..JOBS)
            .map(|_| {
                let (pool, met, start) = (pool.clone(), met.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    pool.spawn(move || {
                        let (count, all) = &*met;
                        let mut count = count.lock();
                        *count += 1;
                        all.notify_all();
                        let deadline =
                            std::time::Instant::now() + std::time::Duration::from_secs(30);
                        while *count < JOBS {
                            if all.wait_until(&mut count, deadline).timed_out() {
                                return false;
                            }
                        }
                        true
                    })
                })
            })
            .collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        for spawner in spawners {
            let handle = spawner.join().expect("spawner");
            assert!(
                runtime.block_on(handle).expect("result"),
                "a job waited behind the others"
            );
        }
    }

    #[tokio::test]
    async fn many_jobs_on_few_threads_all_complete() {
        let pool = QueryPool::new(2).expect("pool");
        let handles: Vec<_> = (0..100u64).map(|i| pool.spawn(move || i * 2)).collect();
        let mut total = 0;
        for handle in handles {
            total += handle.await.expect("result");
        }
        assert_eq!(total, (0..100u64).map(|i| i * 2).sum::<u64>());
        assert_eq!(pool.queued(), 0);
    }
}
