//! Fences and query pools of the host device.

use mux::{Fence, QueryPool};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
pub struct HostFence {
    signalled: Mutex<bool>,
    changed: Condvar,
}

impl Fence for HostFence {
    fn wait(&self, timeout: Option<Duration>) -> mux::Result<bool> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut s = self.signalled.lock().unwrap();
        while !*s {
            match deadline {
                None => s = self.changed.wait(s).unwrap(),
                Some(end) => {
                    let now = Instant::now();
                    if now >= end {
                        return Ok(false);
                    }
                    s = self.changed.wait_timeout(s, end - now).unwrap().0;
                }
            }
        }
        Ok(true)
    }

    fn is_signalled(&self) -> bool {
        *self.signalled.lock().unwrap()
    }

    fn reset(&self) {
        *self.signalled.lock().unwrap() = false;
    }

    fn signal(&self) {
        *self.signalled.lock().unwrap() = true;
        self.changed.notify_all();
    }
}

/// Nanoseconds of the monotonic clock: the device's time.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a plain system call into a local.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Each slot holds a start and an end stamp; 0 is "not yet".
pub struct HostQueryPool {
    slots: Vec<[AtomicU64; 2]>,
}

impl HostQueryPool {
    pub fn new(count: usize) -> HostQueryPool {
        HostQueryPool {
            slots: (0..count)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
        }
    }
}

impl QueryPool for HostQueryPool {
    fn count(&self) -> usize {
        self.slots.len()
    }

    fn duration(&self, index: usize) -> mux::Result<Option<mux::Duration>> {
        let [start, end] = self.slots.get(index).ok_or(mux::Error::InvalidValue)?;
        let (start, end) = (start.load(Ordering::Acquire), end.load(Ordering::Acquire));
        Ok((start != 0 && end != 0).then_some(mux::Duration { start, end }))
    }

    fn stamp(&self, index: usize, begin: bool) {
        if let Some(slot) = self.slots.get(index) {
            slot[usize::from(!begin)].store(now_ns(), Ordering::Release);
        }
    }

    fn reset(&self, first: usize, count: usize) {
        for slot in self.slots.iter().skip(first).take(count) {
            slot[0].store(0, Ordering::Release);
            slot[1].store(0, Ordering::Release);
        }
    }
}
