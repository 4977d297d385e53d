//! Time and memory limits for one unit of work (a ytt package's check, a
//! render): the work runs on its own thread, and the caller gives up on it
//! once it runs past its time or memory, reports that, and goes on.
//!
//! Most runaway input is stopped inside the interpreter, at the statement
//! or call that crosses a limit (see the ytt engine's sandbox). This is the
//! net under those checks, for work no statement boundary sees: a deep
//! comparison of two structures that share their parts (`a == b` over 2^40
//! elements), or starlark-rust writing a shared value out whole into a type
//! error. Neither can be interrupted, and a failed allocation aborts the
//! process, so:
//! - a thread whose work ended well waits for the next unit's work; one
//!   that panicked ends;
//! - the caller stops waiting at the time limit; the thread is left
//!   behind, owning everything it uses (the closure is `'static`), and ends
//!   with the process;
//! - memory is counted per thread by [`CountingAllocator`] (when the binary
//!   installs it); a large allocation that would take a limited thread past
//!   its limit is never made: the thread sleeps for good instead of
//!   aborting, and the caller reports it at once.

pub mod allocator;

use allocator::SplitAllocator;
use std::alloc::{GlobalAlloc, Layout};

/// The allocator behind the counting.
static BACKING: SplitAllocator = SplitAllocator;
use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};

/// The message a caught panic carried.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string())
}

/// How long and how much memory one unit may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub time: Duration,
    /// Bytes the unit's thread may hold at once.
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            time: Duration::from_secs(DEFAULT_SECONDS),
            memory: (DEFAULT_MEMORY_MIB * 1024 * 1024) as usize,
        }
    }
}

/// Real packages, upstream bundles included, check in well under a second
/// of CPU time; a debug build (the tests) runs some ten times slower.
pub const DEFAULT_SECONDS: u64 = if cfg!(debug_assertions) { 120 } else { 10 };

/// Time is the CPU time of the unit's thread where it can be read (a busy
/// machine does not stop a unit early), with its wall time as a backstop at
/// this multiple of the limit.
const WALL_TIME_FACTOR: u32 = 6;
/// Real packages hold tens of megabytes while checked.
pub const DEFAULT_MEMORY_MIB: u64 = 512;

/// Why a unit's work was given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    Time(Duration),
    Memory(usize),
    /// No thread could be started for it.
    NoThread,
    /// Its caller no longer wants it: the language server's check of a
    /// document that changed since.
    Cancelled,
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Time(limit) => write!(
                f,
                "it ran for more than {} s, the limit (--unit-timeout)",
                limit.as_secs()
            ),
            Stopped::Memory(limit) => write!(
                f,
                "it needed more than {} MiB, the limit (--unit-memory)",
                limit / 1024 / 1024
            ),
            Stopped::NoThread => write!(f, "no thread could be started for it"),
            Stopped::Cancelled => write!(f, "it was cancelled"),
        }
    }
}

/// The stack of a unit's thread: Starlark's parser and evaluator recurse
/// once per level of an expression, up to the translation's nesting limit.
const STACK_BYTES: usize = 64 * 1024 * 1024;

/// Allocations below this size never stop a thread: small ones are made
/// while holding locks other threads wait on, and a runaway value grows by
/// large steps anyway (a string or a heap chunk doubling).
const CHECKED_FROM_BYTES: usize = 1024 * 1024;

/// What a limited thread may hold, and what it holds.
struct Budget {
    limit: isize,
    held: AtomicIsize,
    over: AtomicBool,
}

thread_local! {
    /// The budget of the current thread, when it runs limited work.
    static BUDGET: Cell<*const Budget> = const { Cell::new(std::ptr::null()) };
    /// Set once the work the current thread runs is no longer wanted.
    static CANCEL: std::cell::RefCell<Option<Arc<AtomicBool>>> = const { std::cell::RefCell::new(None) };
}

/// Whether the work the current thread runs was cancelled: evaluation
/// checks it between statements and stops there.
pub fn cancelled() -> bool {
    CANCEL.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    })
}

/// Why a unit's work gave no result.
#[derive(Debug)]
pub enum Failure {
    /// It panicked; the panic's payload.
    Panicked(Box<dyn std::any::Any + Send>),
    /// It was given up, past its limits.
    Stopped(Stopped),
}

/// Runs `work` on the current thread: what it returns, or its panic.
pub fn catch<T>(work: impl FnOnce() -> T) -> Result<T, Failure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).map_err(Failure::Panicked)
}

/// Runs `work` under `limits` on a thread of its own: what the work
/// returned, or why it gave none (its panic, or the limit it ran past).
pub fn run<T, F>(limits: Limits, work: F) -> Result<T, Failure>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    run_cancellable(limits, None, work)
}

/// [`run`], given up on as soon as `cancel` is set: the caller goes on at
/// once, and the work stops at its next statement ([`cancelled`]).
pub fn run_cancellable<T, F>(
    limits: Limits,
    cancel: Option<&Arc<AtomicBool>>,
    work: F,
) -> Result<T, Failure>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let budget = Arc::new(Budget {
        limit: isize::try_from(limits.memory).unwrap_or(isize::MAX),
        held: AtomicIsize::new(0),
        over: AtomicBool::new(false),
    });
    let (done, result) = std::sync::mpsc::sync_channel(1);
    let own = Arc::clone(&budget);
    let flag = cancel.cloned();
    let job: Job = Box::new(move || {
        BUDGET.with(|b| b.set(Arc::as_ptr(&own)));
        CANCEL.with(|c| *c.borrow_mut() = flag);
        let outcome = catch(work);
        CANCEL.with(|c| *c.borrow_mut() = None);
        BUDGET.with(|b| b.set(std::ptr::null()));
        // A thread whose work panicked may have left its thread-local
        // state half way: it takes no more work.
        let reusable = outcome.is_ok();
        let _ = done.send(outcome);
        drop(own);
        reusable
    });
    let Some(worker) = Worker::take(job) else {
        return Err(Failure::Stopped(Stopped::NoThread));
    };
    let spent_before = worker.cpu_clock.and_then(cpu_time);
    let start = Instant::now();
    // The work's answer comes at once; the short waits only bound how late
    // a thread stopped for memory is noticed.
    let poll = Duration::from_millis(20);
    loop {
        match result.recv_timeout(poll) {
            Ok(outcome) => {
                if outcome.is_ok() {
                    worker.give_back();
                }
                return outcome;
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Failure::Stopped(Stopped::NoThread));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
        }
        // A thread given up on is never given back: it keeps its work.
        if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(Failure::Stopped(Stopped::Cancelled));
        }
        if budget.over.load(Ordering::Acquire) {
            return Err(Failure::Stopped(Stopped::Memory(limits.memory)));
        }
        let wall = start.elapsed();
        let spent = worker
            .cpu_clock
            .and_then(cpu_time)
            .zip(spent_before)
            .map_or(wall, |(now, before)| now.saturating_sub(before));
        if spent >= limits.time || wall >= limits.time * WALL_TIME_FACTOR {
            return Err(Failure::Stopped(Stopped::Time(limits.time)));
        }
    }
}

/// Work for a unit's thread; says whether the thread may take more after.
type Job = Box<dyn FnOnce() -> bool + Send>;

/// A unit's thread, kept between units: starting one per ytt package cost
/// a fresh stack and a fresh allocator heap each time, and the heaps of
/// the threads that ended left their pages half used.
struct Worker {
    jobs: std::sync::mpsc::Sender<Job>,
    /// The clock that counts the thread's CPU time, where there is one.
    cpu_clock: Option<ClockId>,
}

/// Threads that finished their work and wait for more.
static IDLE: std::sync::Mutex<Vec<Worker>> = std::sync::Mutex::new(Vec::new());

impl Worker {
    /// A waiting thread (or a new one) running `job`; None when no thread
    /// could be started.
    fn take(job: Job) -> Option<Worker> {
        let mut job = job;
        loop {
            let idle = IDLE.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some(worker) = idle else {
                return Worker::spawn(job);
            };
            // A thread that ended (it cannot, short of a bug) hands the
            // job back.
            match worker.jobs.send(job) {
                Ok(()) => return Some(worker),
                Err(returned) => job = returned.0,
            }
        }
    }

    fn spawn(job: Job) -> Option<Worker> {
        let (jobs, waiting) = std::sync::mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("confvet-unit".into())
            .stack_size(STACK_BYTES)
            .spawn(move || {
                for job in waiting {
                    if !job() {
                        break;
                    }
                }
            })
            .ok()?;
        let cpu_clock = cpu_clock(&thread);
        jobs.send(job).ok()?;
        Some(Worker { jobs, cpu_clock })
    }

    /// Back to the waiting threads, its work done.
    fn give_back(self) {
        IDLE.lock().unwrap_or_else(|e| e.into_inner()).push(self);
    }
}

#[cfg(target_os = "linux")]
type ClockId = libc::clockid_t;
#[cfg(not(target_os = "linux"))]
type ClockId = i32;

/// The clock that counts `thread`'s CPU time, where there is one.
#[cfg(target_os = "linux")]
fn cpu_clock(thread: &std::thread::JoinHandle<()>) -> Option<ClockId> {
    use std::os::unix::thread::JoinHandleExt;
    let mut clock: libc::clockid_t = 0;
    // SAFETY: the handle names a thread that is not joined or detached yet.
    let status = unsafe { libc::pthread_getcpuclockid(thread.as_pthread_t(), &mut clock) };
    (status == 0).then_some(clock)
}

#[cfg(not(target_os = "linux"))]
fn cpu_clock(_thread: &std::thread::JoinHandle<()>) -> Option<ClockId> {
    None
}

#[cfg(target_os = "linux")]
fn cpu_time(clock: ClockId) -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write to.
    let status = unsafe { libc::clock_gettime(clock, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

#[cfg(not(target_os = "linux"))]
fn cpu_time(_clock: ClockId) -> Option<Duration> {
    None
}

/// Runs `f` with the current thread's allocations neither counted nor
/// stopped: for the few allocations made while holding a lock that other
/// threads wait on.
pub fn unchecked<R>(f: impl FnOnce() -> R) -> R {
    let saved = BUDGET.with(|b| b.replace(std::ptr::null()));
    let result = f();
    BUDGET.with(|b| b.set(saved));
    result
}

/// Counts what each limited thread holds, and stops one (for good) before
/// an allocation that would take it past its limit. Install it in the
/// binary with `#[global_allocator]`; without it only time is limited.
pub struct CountingAllocator;

impl CountingAllocator {
    /// Accounts `grow` more bytes (less when negative) to the current
    /// thread, and stops the thread if `request` bytes would pass its limit.
    #[inline]
    fn account(grow: isize, request: usize) {
        let budget = BUDGET.with(Cell::get);
        if budget.is_null() {
            return;
        }
        // SAFETY: the pointer is set by `run` from an `Arc` the thread owns
        // until after it is cleared.
        let budget = unsafe { &*budget };
        // Only this thread changes its count: a load and a store, no atomic
        // read-modify-write on every allocation.
        let held = budget.held.load(Ordering::Relaxed) + grow;
        budget.held.store(held, Ordering::Relaxed);
        if request >= CHECKED_FROM_BYTES && held > budget.limit {
            budget.over.store(true, Ordering::Release);
            // Failing the allocation would abort the process, and unwinding
            // out of an allocator is not allowed: the thread waits for the
            // process to end. `sleep` allocates nothing.
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
    }
}

// SAFETY: every call is passed to `System` unchanged; the accounting only
// reads and writes the current thread's budget.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::account(layout.size() as isize, layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { BACKING.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::account(layout.size() as isize, layout.size());
        // SAFETY: the caller's contract, passed on.
        unsafe { BACKING.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        Self::account(-(layout.size() as isize), 0);
        // SAFETY: the caller's contract, passed on.
        unsafe { BACKING.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        Self::account(new_size as isize - layout.size() as isize, new_size);
        // SAFETY: the caller's contract, passed on.
        unsafe { BACKING.realloc(ptr, layout, new_size) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_within_its_limits_returns_its_value() {
        let got = run(Limits::default(), || 6 * 7);
        assert_eq!(got.ok(), Some(42));
    }

    #[test]
    fn a_panic_comes_back_as_a_panic() {
        let got = run(Limits::default(), || -> u8 { panic!("boom") });
        assert!(matches!(got, Err(Failure::Panicked(_))));
    }

    #[test]
    fn work_past_its_time_is_given_up_at_the_limit() {
        let limits = Limits {
            time: Duration::from_millis(300),
            ..Limits::default()
        };
        let start = Instant::now();
        // Busy: CPU time reaches the limit.
        let got = run(limits, || {
            let mut x = 0u64;
            loop {
                x = std::hint::black_box(x.wrapping_add(1));
            }
        });
        assert!(matches!(got, Err(Failure::Stopped(Stopped::Time(t))) if t == limits.time));
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn work_that_waits_is_given_up_at_the_wall_time_backstop() {
        let limits = Limits {
            time: Duration::from_millis(100),
            ..Limits::default()
        };
        let start = Instant::now();
        let got = run(limits, || std::thread::sleep(Duration::from_secs(600)));
        assert!(matches!(got, Err(Failure::Stopped(Stopped::Time(t))) if t == limits.time));
        assert!(start.elapsed() >= limits.time * WALL_TIME_FACTOR);
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn cancelled_work_is_given_up_at_once_and_sees_it_was_cancelled() {
        let cancel = Arc::new(AtomicBool::new(false));
        let (saw, seen) = std::sync::mpsc::channel();
        let setter = Arc::clone(&cancel);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            setter.store(true, Ordering::Relaxed);
        });
        let start = Instant::now();
        let got = run_cancellable(Limits::default(), Some(&cancel), move || {
            // As evaluation does between statements.
            while !cancelled() {
                std::thread::sleep(Duration::from_millis(1));
            }
            let _ = saw.send(());
            // Then work no statement boundary sees: the caller does not
            // wait for it.
            std::thread::sleep(Duration::from_secs(600));
        });
        assert!(matches!(got, Err(Failure::Stopped(Stopped::Cancelled))));
        assert!(start.elapsed() < Duration::from_secs(5));
        seen.recv_timeout(Duration::from_secs(5))
            .expect("the work itself saw the cancellation and ended");
        assert!(!cancelled(), "only the work's own thread is cancelled");
    }
}
