//! A persistent pool of one worker per core. An ND-range is handed out in
//! chunks of work-groups through an atomic counter; the thread that asked
//! for the run works too. A worker that finishes a run watches for the
//! next for a short while before it sleeps on a condition variable: waking
//! a sleeping thread takes longer than a short ND-range runs.

use mux::{Kernel, ScheduleInfo};
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long a worker watches for the next run before it sleeps: longer
/// than the gap between back-to-back enqueues, far shorter than a tick.
const WATCH: Duration = Duration::from_micros(200);

/// One ND-range being run.
struct Job {
    kernel: *const dyn Kernel,
    args: *const u8,
    info: ScheduleInfo,
    local_bytes: usize,
    storage_bytes: usize,
    total: u64,
    chunk: u64,
    next: AtomicU64,
    finished: AtomicU64,
    /// (finished, the caller is waiting for it).
    done: Mutex<(bool, bool)>,
    done_cv: Condvar,
}

// The pointers name the kernel and arguments of a run whose caller waits
// until every group has finished, so they outlive all uses by workers.
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

thread_local! {
    /// Each thread's block for a work-group's local memory and work-item
    /// storage, reused across work-groups.
    static LOCAL: RefCell<Option<mux::Allocation>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's local memory (`local_bytes`) and work-item
/// storage (`storage_bytes`) blocks.
fn with_scratch<R>(
    local_bytes: usize,
    storage_bytes: usize,
    f: impl FnOnce(*mut u8, *mut u8) -> R,
) -> R {
    LOCAL.with(|cell| {
        let mut slot = cell.borrow_mut();
        // [local memory][work-item storage], each aligned as `__local` memory
        // is; kernels find the local memory's end at `storage`
        // (`mux::Kernel::run_groups`).
        let storage_at = local_bytes.next_multiple_of(compiler::LOCAL_ALIGN);
        let bytes = storage_at + storage_bytes;
        if slot.as_ref().is_none_or(|a| a.size() < bytes) {
            *slot = mux::Allocation::host(bytes.max(1024), compiler::LOCAL_ALIGN);
        }
        let local = slot.as_ref().map_or(std::ptr::null_mut(), |a| a.as_ptr());
        // SAFETY: the block holds `bytes` bytes.
        let storage = unsafe { local.add(storage_at) };
        f(local, storage)
    })
}

impl Job {
    /// Runs chunks until none are left.
    fn work(&self) {
        with_scratch(self.local_bytes, self.storage_bytes, |local, storage| {
            loop {
                let first = self.next.fetch_add(self.chunk, Ordering::Relaxed);
                if first >= self.total {
                    break;
                }
                let last = (first + self.chunk).min(self.total);
                // SAFETY: see `unsafe impl Send for Job`.
                unsafe {
                    (*self.kernel).run_groups(self.args, &self.info, local, storage, first, last)
                };
                let done = self.finished.fetch_add(last - first, Ordering::AcqRel) + (last - first);
                if done == self.total {
                    let mut d = self.done.lock().unwrap();
                    d.0 = true;
                    // Only a caller already asleep needs waking.
                    if d.1 {
                        self.done_cv.notify_all();
                    }
                }
            }
        })
    }
}

struct State {
    job: Option<Arc<Job>>,
    shutdown: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Runs posted so far: changed only under `state`'s lock, so that a
    /// worker checking it there before it sleeps misses no wake-up, and
    /// read without it by a watching worker.
    posted: AtomicU64,
    wake: Condvar,
    /// One ND-range at a time: concurrent runs queue here.
    run_lock: Mutex<()>,
}

pub struct ThreadPool {
    shared: Arc<Shared>,
    threads: usize,
}

impl ThreadPool {
    /// Starts `workers` threads (the caller of [`run`](Self::run) is one
    /// more), bound to `cpus` if given (a sub-device's cores).
    pub fn new(workers: usize, cpus: Option<Vec<usize>>) -> ThreadPool {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                job: None,
                shutdown: false,
            }),
            posted: AtomicU64::new(0),
            wake: Condvar::new(),
            run_lock: Mutex::new(()),
        });
        for i in 0..workers {
            let s = shared.clone();
            let cpus = cpus.clone();
            thread::Builder::new()
                .name(format!("ferrocl-worker-{i}"))
                .stack_size(8 << 20)
                .spawn(move || {
                    if let Some(cpus) = cpus {
                        crate::topology::pin_current_thread(&cpus);
                    }
                    worker(s)
                })
                .expect("spawning a worker thread");
        }
        ThreadPool {
            shared,
            threads: workers + 1,
        }
    }

    /// Runs every work-group of `info` and returns when all have finished.
    ///
    /// # Safety
    /// `args` must be the packed arguments `kernel` expects, valid for the call.
    pub unsafe fn run(
        &self,
        kernel: &dyn Kernel,
        args: *const u8,
        info: ScheduleInfo,
        groups: u64,
        local_bytes: usize,
    ) {
        if groups == 0 {
            return;
        }
        // Several chunks per thread balance uneven groups; one group per
        // chunk when there are few.
        let chunk = (groups / (self.threads as u64 * 4)).max(1);
        let storage_bytes = kernel.work_item_storage();
        if groups <= chunk || self.threads == 1 {
            // Nothing to share out: the caller runs it all, no pool involved.
            with_scratch(local_bytes, storage_bytes, |local, storage| {
                kernel.run_groups(args, &info, local, storage, 0, groups)
            });
            return;
        }
        let _one_at_a_time = self.shared.run_lock.lock().unwrap();
        // SAFETY: erases the borrow's lifetime; the job is finished before we return.
        let kernel: *const dyn Kernel =
            std::mem::transmute::<&dyn Kernel, &'static dyn Kernel>(kernel);
        let job = Arc::new(Job {
            kernel,
            args,
            info,
            local_bytes,
            storage_bytes,
            total: groups,
            chunk,
            next: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            done: Mutex::new((false, false)),
            done_cv: Condvar::new(),
        });
        {
            let mut st = self.shared.state.lock().unwrap();
            st.job = Some(job.clone());
            self.shared.posted.fetch_add(1, Ordering::Release);
            drop(st);
            self.shared.wake.notify_all();
        }
        job.work();
        let mut done = job.done.lock().unwrap();
        while !done.0 {
            done.1 = true;
            done = job.done_cv.wait(done).unwrap();
        }
        drop(done);
        self.shared.state.lock().unwrap().job = None;
    }
}

fn worker(shared: Arc<Shared>) {
    let mut seen = 0u64;
    loop {
        watch(&shared, seen);
        let job = {
            let mut st = shared.state.lock().unwrap();
            while shared.posted.load(Ordering::Acquire) == seen && !st.shutdown {
                st = shared.wake.wait(st).unwrap();
            }
            if st.shutdown {
                return;
            }
            seen = shared.posted.load(Ordering::Acquire);
            st.job.clone()
        };
        if let Some(job) = job {
            job.work();
        }
    }
}

/// Spins until a run after `seen` is posted or `WATCH` has passed.
fn watch(shared: &Shared, seen: u64) {
    let start = Instant::now();
    while shared.posted.load(Ordering::Acquire) == seen {
        for _ in 0..64 {
            std::hint::spin_loop();
        }
        if start.elapsed() > WATCH {
            return;
        }
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap().shutdown = true;
        self.shared.wake.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;
    use std::sync::atomic::AtomicU32;

    /// Counts the runs of each group and notes the threads that ran them.
    struct Counting {
        runs: Vec<AtomicU32>,
        threads: Mutex<HashSet<thread::ThreadId>>,
    }

    impl Kernel for Counting {
        fn static_local_memory(&self) -> usize {
            0
        }
        fn work_item_storage(&self) -> usize {
            0
        }
        unsafe fn run_groups(
            &self,
            _: *const u8,
            _: &ScheduleInfo,
            _: *mut u8,
            _: *mut u8,
            first: u64,
            last: u64,
        ) {
            for g in first..last {
                self.runs[g as usize].fetch_add(1, Ordering::Relaxed);
            }
            // Long enough that a watching worker takes a chunk too.
            thread::sleep(Duration::from_micros(200));
            self.threads.lock().unwrap().insert(thread::current().id());
        }
    }

    #[test]
    fn every_group_runs_once_whether_the_worker_watches_or_sleeps() {
        let pool = ThreadPool::new(1, None);
        let groups = 64;
        let kernel = Counting {
            runs: (0..groups).map(|_| AtomicU32::new(0)).collect(),
            threads: Mutex::new(HashSet::new()),
        };
        // Back to back (the worker still watching), then with gaps longer
        // than the watch (asleep, woken by the condition variable).
        let gaps = [Duration::ZERO, WATCH * 3];
        let rounds = 20;
        for gap in gaps {
            for _ in 0..rounds {
                unsafe {
                    pool.run(
                        &kernel,
                        std::ptr::null(),
                        ScheduleInfo::default(),
                        groups,
                        0,
                    )
                };
                thread::sleep(gap);
            }
        }
        let want = (rounds * gaps.len()) as u32;
        for (g, runs) in kernel.runs.iter().enumerate() {
            assert_eq!(runs.load(Ordering::Relaxed), want, "group {g}");
        }
        assert_eq!(
            kernel.threads.lock().unwrap().len(),
            2,
            "the worker ran no chunk"
        );
    }
}
