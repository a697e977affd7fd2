//! The commit log: an in-memory append under storage's commit lock, one writer that writes and
//! syncs whole batches, and a durable watermark that committers wait on holding nothing.
//!
//! ```text
//!  commit lock held            no lock held
//!  ─────────────────           ─────────────────────────────────────────────
//!  append: encode, push  ──▶   pending ──swap──▶ leader: write, fdatasync ──▶ durable
//!  into `pending`                                 (a committer or the writer    │
//!                                                 thread, whoever holds `io`)   ▼
//!                                              readers' watermark, then waiters woken
//! ```
//!
//! Whoever holds the `io` lock is the leader: it takes everything pending, writes it, syncs
//! once and publishes the new watermark; every commit in that batch rode on one sync. A
//! blocking waiter becomes the leader itself when the lock is free (no thread hand-off on
//! the path of a lone committer); an async waiter asks the writer thread instead, since it
//! must not block its executor on a disk.
//!
//! Readers never touch any of this: in `group` and `sync` modes the storage's visible
//! watermark is advanced to the durable one, so a new reader simply starts at a commit that
//! is already on disk.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use event_listener::{Event, EventListener, Listener};
use parking_lot::{Condvar, Mutex};
use quiver_storage::{
    AcknowledgeWait, AppendError, CommitLog, DurabilityTicket, LogError, RedoRecord, Storage,
};

use crate::disk::{Disk, DiskFile};
use crate::error::{Error, Result};
use crate::frame::{SEGMENT_HEADER_BYTES, put_frame, put_segment_header, segment_name};
use crate::mode::{Mode, Options};
use crate::stats::Counters;

/// Records appended but not yet handed to a leader.
#[derive(Default)]
struct Pending {
    bytes: Vec<u8>,
    first: u64,
    last: u64,
    commits: u64,
    flush_requested: bool,
}

struct OpenSegment {
    file: Box<dyn DiskFile>,
    path: PathBuf,
    len: u64,
}

/// What only the leader touches.
struct Writer {
    disk: Arc<dyn Disk>,
    dir: PathBuf,
    segment: Option<OpenSegment>,
    /// The other half of the double buffer: `pending.bytes` is swapped with it.
    spare: Vec<u8>,
    segment_bytes_max: u64,
}

impl Writer {
    fn open_segment(&mut self, base: u64, stats: &Counters) -> std::result::Result<(), String> {
        // The previous segment needs no sync here: every batch is synced before the next.
        self.segment = None;
        let path = self.dir.join(segment_name(base));
        let fail = |what: &str, e: std::io::Error| format!("{what} {} failed: {e}", path.display());
        let mut file = self.disk.create(&path).map_err(|e| fail("creating", e))?;
        let mut header = Vec::with_capacity(SEGMENT_HEADER_BYTES);
        put_segment_header(&mut header, base);
        file.write_all(&header)
            .map_err(|e| fail("writing the header of", e))?;
        file.sync_all().map_err(|e| fail("fsync of", e))?;
        self.disk
            .sync_dir(&self.dir)
            .map_err(|e| fail("directory fsync for", e))?;
        stats.segments_created.fetch_add(1, Ordering::Relaxed);
        self.segment = Some(OpenSegment {
            file,
            path,
            len: SEGMENT_HEADER_BYTES as u64,
        });
        Ok(())
    }

    /// Writes a batch and syncs it. On failure the segment is cut back to where the batch
    /// began, so that what stays on disk is a clean prefix of the log.
    fn write_batch(
        &mut self,
        bytes: &[u8],
        first: u64,
        roll: bool,
        stats: &Counters,
    ) -> std::result::Result<Duration, String> {
        let full = self
            .segment
            .as_ref()
            .is_none_or(|s| s.len >= self.segment_bytes_max);
        if full || roll {
            self.open_segment(first, stats)?;
        }
        let Some(seg) = self.segment.as_mut() else {
            return Err("no open log segment".to_string());
        };
        let good = seg.len;
        if let Err(e) = seg.file.write_all(bytes) {
            let _ = seg.file.set_len(good);
            return Err(format!("write to {} failed: {e}", seg.path.display()));
        }
        seg.len += bytes.len() as u64;
        let started = Instant::now();
        if let Err(e) = seg.file.sync_data() {
            // After a failed fsync the kernel may have dropped the dirty pages: nothing past
            // `good` can be trusted, and none of it was acknowledged.
            let _ = seg.file.set_len(good);
            seg.len = good;
            return Err(format!("fdatasync of {} failed: {e}", seg.path.display()));
        }
        let took = started.elapsed();
        stats.sync_done(took);
        Ok(took)
    }
}

/// The commit log shared by storage (as its [`CommitLog`]), waiters and the writer thread.
pub(crate) struct LogCore {
    mode: Mode,
    flush_interval: Duration,
    group_window: Duration,
    pending_bytes_max: usize,
    pending_flush_bytes: usize,
    record_bytes_max: usize,
    pending: Mutex<Pending>,
    /// Wakes the writer thread; paired with `pending`.
    wake: Condvar,
    io: Mutex<Writer>,
    pending_bytes: AtomicUsize,
    appended: AtomicU64,
    durable: AtomicU64,
    /// Notified whenever `durable` advances, a fault is recorded, or a leader lets go of `io`.
    event: Event,
    fault: OnceLock<Arc<str>>,
    closed: AtomicBool,
    roll: AtomicBool,
    /// Commits in the last synced batch: how many committers are likely to come back at once.
    last_batch: AtomicU64,
    /// A moving average of how long a sync takes, in microseconds: gathering for longer than
    /// a fraction of it costs more than the shared sync saves.
    sync_micros_avg: AtomicU64,
    /// Weak: storage owns this log, so a strong reference would be a cycle.
    storage: Weak<Storage>,
    pub stats: Counters,
}

impl LogCore {
    /// A log whose records start after `durable`, the last commit recovery found on disk.
    pub fn new(
        mode: Mode,
        options: &Options,
        disk: Arc<dyn Disk>,
        dir: PathBuf,
        storage: &Arc<Storage>,
        durable: u64,
    ) -> Arc<LogCore> {
        Arc::new(LogCore {
            mode,
            flush_interval: options.flush_interval,
            group_window: options.group_window,
            pending_bytes_max: options.pending_bytes_max,
            pending_flush_bytes: options.pending_flush_bytes,
            record_bytes_max: options.record_bytes_max,
            pending: Mutex::new(Pending::default()),
            wake: Condvar::new(),
            io: Mutex::new(Writer {
                disk,
                dir,
                segment: None,
                spare: Vec::new(),
                segment_bytes_max: options.segment_bytes_max,
            }),
            pending_bytes: AtomicUsize::new(0),
            appended: AtomicU64::new(durable),
            durable: AtomicU64::new(durable),
            event: Event::new(),
            fault: OnceLock::new(),
            closed: AtomicBool::new(false),
            roll: AtomicBool::new(false),
            last_batch: AtomicU64::new(0),
            sync_micros_avg: AtomicU64::new(0),
            storage: Arc::downgrade(storage),
            stats: Counters::default(),
        })
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub fn durable(&self) -> u64 {
        self.durable.load(Ordering::Acquire)
    }

    pub fn appended(&self) -> u64 {
        self.appended.load(Ordering::Acquire)
    }

    pub fn fault(&self) -> Option<Arc<str>> {
        self.fault.get().cloned()
    }

    /// Starts a new segment with the next batch, so the current one can be removed once a
    /// snapshot covers it.
    pub fn request_roll(&self) {
        self.roll.store(true, Ordering::Release);
    }

    fn set_fault(&self, reason: String) -> Arc<str> {
        let _ = self.fault.set(Arc::from(reason.as_str()));
        let fault = self
            .fault
            .get()
            .cloned()
            .unwrap_or_else(|| Arc::from(reason));
        tracing::error!(%fault, "commit log disk fault: refusing further writes");
        fault
    }

    /// Whether new readers already see everything durable (always in buffered mode, where
    /// readers follow commits directly).
    fn revealed(&self) -> bool {
        !self.mode.is_durable()
            || self
                .storage
                .upgrade()
                .is_none_or(|storage| storage.visible_watermark() >= self.durable())
    }

    /// Lets new readers see everything durable (group and sync modes; buffered readers follow
    /// commits directly).
    pub fn reveal(&self) {
        if self.mode.is_durable()
            && let Some(storage) = self.storage.upgrade()
        {
            storage.advance_visible(self.durable());
            // Read in this order, the bound holds at the later read too (both only grow):
            // readers see nothing that is not on disk. (The durable watermark may run a
            // moment ahead of the last published commit: a record is appended before its
            // commit is published.)
            let visible = storage.visible_watermark();
            let durable = self.durable();
            debug_assert!(
                visible <= durable,
                "visible {visible} passed the durable watermark {durable}"
            );
        }
    }

    /// Waits while the leader's batch is still growing, when the last batch showed that
    /// several committers tend to arrive together. The leader yields its core rather than
    /// sleeping: the committers it waits for need a core to finish their transactions, and a
    /// timed sleep on a busy machine oversleeps by far more than the sync it means to share.
    /// It stops once the batch is as large as the last one, once a few yields brought nobody,
    /// or at the window, itself capped by a quarter of a typical sync (on a disk that syncs
    /// in 100 µs, waiting a millisecond for company would cost ten syncs' worth of time).
    fn gather(&self) {
        const IDLE_YIELDS_MAX: u32 = 16;
        let target = self.last_batch.load(Ordering::Relaxed);
        let sync = Duration::from_micros(self.sync_micros_avg.load(Ordering::Relaxed));
        let window = self.group_window.min(sync / 4);
        if target <= 1 || window.is_zero() {
            return;
        }
        let deadline = Instant::now() + window;
        let mut seen = self.pending.lock().commits;
        let mut idle = 0;
        while seen < target && idle < IDLE_YIELDS_MAX && Instant::now() < deadline {
            std::thread::yield_now();
            let now_seen = self.pending.lock().commits;
            if now_seen > seen {
                seen = now_seen;
                idle = 0;
            } else {
                idle += 1;
            }
        }
    }

    /// Writes and syncs everything pending. Called with `io` held.
    fn flush(&self, w: &mut Writer, gather: bool) -> std::result::Result<(), Arc<str>> {
        if let Some(f) = self.fault.get() {
            return Err(f.clone());
        }
        if gather {
            self.gather();
        }
        let (first, last, commits) = {
            let mut p = self.pending.lock();
            if p.commits == 0 {
                return Ok(());
            }
            std::mem::swap(&mut p.bytes, &mut w.spare);
            let meta = (p.first, p.last, p.commits);
            p.commits = 0;
            self.pending_bytes.store(0, Ordering::Release);
            meta
        };
        let batch = std::mem::take(&mut w.spare);
        let roll = self.roll.swap(false, Ordering::AcqRel);
        let result = w.write_batch(&batch, first, roll, &self.stats);
        let bytes = batch.len() as u64;
        w.spare = batch;
        w.spare.clear();
        if w.spare.capacity() > self.pending_flush_bytes.saturating_mul(4) {
            w.spare.shrink_to(self.pending_flush_bytes);
        }
        match result {
            Ok(took) => {
                let avg = self.sync_micros_avg.load(Ordering::Relaxed);
                let took = took.as_micros() as u64;
                // An exponential moving average with weight 1/8 for the newest sync.
                let next = if avg == 0 {
                    took
                } else {
                    avg - avg / 8 + took / 8
                };
                self.sync_micros_avg.store(next, Ordering::Relaxed);
                self.stats.batch_done(commits, bytes);
                self.last_batch.store(commits, Ordering::Relaxed);
                // The durable watermark first, then readers: a reader's snapshot never
                // passes the watermark it can read back. A committer that hears "done" still
                // finds its write visible: `check` reveals up to the watermark before it
                // returns.
                debug_assert!(
                    self.durable() <= last && last <= self.appended(),
                    "the durable watermark moves forward and never passes the last append"
                );
                self.durable.store(last, Ordering::Release);
                if self.mode.is_durable()
                    && let Some(storage) = self.storage.upgrade()
                {
                    storage.advance_visible(last);
                }
                Ok(())
            }
            Err(reason) => Err(self.set_fault(reason)),
        }
    }

    /// Becomes the leader, waiting for `io` if another leader holds it.
    pub fn lead(&self, gather: bool) {
        {
            let mut w = self.io.lock();
            let _ = self.flush(&mut w, gather);
        }
        // After letting go of `io`: a woken waiter that still needs a sync can lead one.
        self.event.notify(usize::MAX);
    }

    fn try_lead(&self) -> bool {
        let Some(mut w) = self.io.try_lock() else {
            return false;
        };
        let _ = self.flush(&mut w, self.mode == Mode::Group);
        drop(w);
        self.event.notify(usize::MAX);
        true
    }

    /// Wakes the writer thread to flush now.
    fn request_flush(&self) {
        let mut p = self.pending.lock();
        p.flush_requested = true;
        self.wake.notify_one();
    }

    /// Whether a wait for `target` is over, and how it ended. Unless `force`d, a buffered
    /// wait ends at once while the buffer is within its limit.
    fn check(&self, target: u64, force: bool) -> Option<Result<()>> {
        if self.durable() >= target {
            self.reveal();
            return Some(Ok(()));
        }
        if let Some(f) = self.fault.get() {
            return Some(Err(Error::Faulted(f.clone())));
        }
        if !force
            && !self.mode.is_durable()
            && self.pending_bytes.load(Ordering::Acquire) <= self.pending_bytes_max
        {
            return Some(Ok(()));
        }
        None
    }

    /// Blocks until `commit` is durable (in buffered mode, unless `force`d, only while the
    /// buffer is over its limit). Holds no lock while it waits.
    pub fn wait_blocking(&self, commit: u64, force: bool) -> Result<()> {
        // A number beyond the log's end names no record; wait for what there is.
        let target = commit.min(self.appended());
        loop {
            if let Some(done) = self.check(target, force) {
                return done;
            }
            if self.try_lead() {
                continue;
            }
            let listener = self.event.listen();
            if self.check(target, force).is_some() || self.try_lead() {
                continue;
            }
            listener.wait();
        }
    }

    pub fn wait_async(self: &Arc<Self>, commit: u64) -> DurableWait {
        DurableWait {
            target: commit.min(self.appended()),
            core: self.clone(),
            listener: None,
        }
    }

    /// The writer thread: flushes on its interval (buffered mode's background sync, and
    /// the pick-up of commits nobody waits on), when the buffer grows large, and when an
    /// async waiter asks. Returns once the log is closed.
    pub fn run_writer(&self) {
        let mut next_tick = Instant::now() + self.flush_interval;
        loop {
            {
                let mut p = self.pending.lock();
                loop {
                    if self.closed.load(Ordering::Acquire) {
                        return;
                    }
                    if Instant::now() >= next_tick
                        || p.flush_requested
                        || p.bytes.len() >= self.pending_flush_bytes
                    {
                        break;
                    }
                    if p.bytes.is_empty() && self.revealed() {
                        // Nothing to write and readers see all that is durable: sleep until
                        // an append (the first of a batch wakes the writer) or a flush
                        // request, so an idle log costs no wake-ups; then the batch gathers
                        // for a flush interval as before.
                        self.wake.wait(&mut p);
                        next_tick = Instant::now() + self.flush_interval;
                        continue;
                    }
                    self.wake.wait_until(&mut p, next_tick);
                }
                p.flush_requested = false;
            }
            next_tick = Instant::now() + self.flush_interval;
            self.lead(self.mode == Mode::Group);
            // A batch may end in a commit still finishing its publication, which caps the
            // readers' watermark below it; catch up on the next round.
            self.reveal();
        }
    }

    /// Refuses further appends, wakes the writer thread so it exits, and flushes the rest.
    pub fn close(&self) {
        {
            let _p = self.pending.lock();
            self.closed.store(true, Ordering::Release);
        }
        self.wake.notify_all();
        self.lead(false);
        self.reveal();
    }
}

impl CommitLog for LogCore {
    fn append(&self, record: &RedoRecord) -> std::result::Result<DurabilityTicket, AppendError> {
        if let Some(f) = self.fault.get() {
            return Err(AppendError::Refused(format!(
                "writes are refused after a disk fault: {f}"
            )));
        }
        let body = record.encode();
        if body.len() > self.record_bytes_max {
            return Err(AppendError::TooLarge {
                bytes: body.len(),
                limit: self.record_bytes_max,
            });
        }
        let wake = {
            let mut p = self.pending.lock();
            if self.closed.load(Ordering::Acquire) {
                return Err(AppendError::Closed("the commit log is closed"));
            }
            if p.commits == 0 {
                p.first = record.commit;
            }
            // The first record of a batch wakes a writer asleep on an idle log.
            let first = p.bytes.is_empty();
            put_frame(&mut p.bytes, record.commit, &body);
            p.last = record.commit;
            p.commits += 1;
            debug_assert!(
                self.appended() < record.commit,
                "records are appended in commit order"
            );
            // Under `pending`'s lock: a leader that takes this record finds it counted.
            self.appended.store(record.commit, Ordering::Release);
            self.pending_bytes.store(p.bytes.len(), Ordering::Release);
            first || p.bytes.len() >= self.pending_flush_bytes
        };
        if wake {
            self.wake.notify_one();
        }
        Ok(DurabilityTicket(record.commit))
    }

    /// Durable in `group` and `sync` modes; in `buffered` mode at once, unless the buffer is
    /// over its limit (then the wait is the back-pressure).
    fn wait(&self, ticket: DurabilityTicket) -> std::result::Result<(), LogError> {
        self.wait_blocking(ticket.0, false)
            .map_err(|error| LogError::Failed(error.to_string()))
    }

    fn wait_async(self: Arc<Self>, ticket: DurabilityTicket) -> AcknowledgeWait {
        let wait = LogCore::wait_async(&self, ticket.0);
        Box::pin(async move {
            wait.await
                .map_err(|error| LogError::Failed(error.to_string()))
        })
    }

    fn writes_refused(&self) -> Option<String> {
        self.fault()
            .map(|fault| format!("writes are refused after a disk fault: {fault}"))
    }
}

/// A future that resolves once a commit is durable (see [`crate::Durability::durable`]).
pub struct DurableWait {
    core: Arc<LogCore>,
    target: u64,
    listener: Option<EventListener>,
}

impl Future for DurableWait {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        loop {
            if let Some(done) = this.core.check(this.target, false) {
                return Poll::Ready(done);
            }
            match this.listener.as_mut() {
                None => {
                    this.listener = Some(this.core.event.listen());
                    this.core.request_flush();
                }
                Some(listener) => match Pin::new(listener).poll(cx) {
                    Poll::Ready(()) => this.listener = None,
                    Poll::Pending => return Poll::Pending,
                },
            }
        }
    }
}

impl std::fmt::Debug for DurableWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurableWait")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}
