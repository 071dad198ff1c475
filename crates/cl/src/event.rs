//! Events: a command's status, the waits on it and its callbacks.

use crate::context::Context;
use crate::device::now_ns;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex};

type Callback = unsafe extern "C" fn(cl_event, cl_int, *mut c_void);

/// The runtime's own reaction to an event ending (a command of another
/// queue waiting for it), with the final status.
pub type Hook = Box<dyn FnOnce(cl_int) + Send>;

struct State {
    status: cl_int,
    /// QUEUED, SUBMIT, START, END, COMPLETE, in nanoseconds.
    times: [u64; 5],
    callbacks: Vec<(cl_int, Callback, usize)>,
    hooks: Vec<Hook>,
    /// Threads blocked in `wait`: only then is a status change announced
    /// (waking nobody still costs a system call).
    waiters: usize,
}

pub struct Event {
    pub context: Arc<ClObject<Context>>,
    pub queue: Option<Arc<ClObject<Queue>>>,
    pub command_type: cl_command_type,
    state: Mutex<State>,
    changed: Condvar,
    /// Timestamps are taken only for a queue with profiling enabled.
    profiled: bool,
    /// The command waits on events outside its queue's order, any of
    /// which may fail it: a command of the same queue that waits on this
    /// one must then hear of the failure too.
    pub waits_outside: bool,
}

impl Kind for Event {
    const INVALID: cl_int = CL_INVALID_EVENT;
}

/// A command reports its start and end to its event.
impl mux::Progress for ClObject<Event> {
    fn started(&self) {
        Event::set_status(self, CL_RUNNING);
    }

    fn ended(&self) {
        Event::set_status(self, CL_COMPLETE);
    }
}

/// A queue reaching a command's place in the order moves its event on.
impl mux::Notify for ClObject<Event> {
    fn notify(&self, status: i32) {
        Event::set_status(self, status);
    }
}

impl Event {
    pub fn new(
        context: Arc<ClObject<Context>>,
        queue: Option<Arc<ClObject<Queue>>>,
        command_type: cl_command_type,
        status: cl_int,
    ) -> Event {
        let profiled = queue
            .as_ref()
            .is_some_and(|q| q.properties & CL_QUEUE_PROFILING_ENABLE != 0);
        let now = if profiled { now_ns() } else { 0 };
        Event {
            context,
            queue,
            command_type,
            state: Mutex::new(State {
                status,
                times: [now, 0, 0, 0, 0],
                callbacks: Vec::new(),
                hooks: Vec::new(),
                waiters: 0,
            }),
            changed: Condvar::new(),
            profiled,
            waits_outside: false,
        }
    }

    pub fn status(&self) -> cl_int {
        self.state.lock().unwrap().status
    }

    /// Moves the event to `status` and runs the callbacks it makes due,
    /// outside the lock. Completed and failed events do not change again.
    pub fn set_status(this: &ClObject<Event>, status: cl_int) {
        let (due, hooks) = {
            let mut st = this.state.lock().unwrap();
            if st.status <= CL_COMPLETE {
                return;
            }
            // Statuses only move forward (QUEUED > SUBMITTED > RUNNING).
            if status > CL_COMPLETE && status >= st.status {
                return;
            }
            st.status = status;
            if this.profiled {
                let now = now_ns();
                match status {
                    CL_SUBMITTED => st.times[1] = now,
                    CL_RUNNING => st.times[2] = now,
                    _ => {
                        if st.times[2] == 0 {
                            st.times[2] = now;
                        }
                        st.times[3] = now;
                        st.times[4] = now;
                    }
                }
            }
            if st.waiters > 0 {
                this.changed.notify_all();
            }
            let due: Vec<_> = if st.callbacks.is_empty() {
                Vec::new()
            } else {
                let (due, keep): (Vec<_>, Vec<_>) = st
                    .callbacks
                    .drain(..)
                    .partition(|(when, _, _)| status <= *when);
                st.callbacks = keep;
                due
            };
            let hooks = if status <= CL_COMPLETE {
                std::mem::take(&mut st.hooks)
            } else {
                Vec::new()
            };
            (due, hooks)
        };
        let h = object::handle_of(this);
        if !due.is_empty() {
            // After the dispatch that completed the event, if one did: a
            // callback may release the queue or free memory blocking, which
            // waits for that dispatch.
            mux::after_dispatch(move || {
                for (_, cb, data) in due {
                    // SAFETY: the application's callback, with its own user data.
                    unsafe { cb(h, status, data as *mut c_void) };
                }
            });
        }
        for hook in hooks {
            hook(status);
        }
    }

    /// Runs `hook` with the final status once the event completes or
    /// fails (at once if it has).
    pub fn on_end(&self, hook: Hook) {
        let mut st = self.state.lock().unwrap();
        if st.status <= CL_COMPLETE {
            let status = st.status;
            drop(st);
            hook(status);
        } else {
            st.hooks.push(hook);
        }
    }

    /// The status, for the queue deciding what a command waits on.
    pub fn has_ended(&self) -> bool {
        self.status() <= CL_COMPLETE
    }

    /// Blocks until the event completes or fails; returns its final status.
    pub fn wait(&self) -> cl_int {
        // Waiting is an implicit flush of the event's queue; the waiting
        // thread then runs the queue's ready work itself until the event
        // ends, rather than sleep while another thread wakes to run it and
        // wake it again (a blocking read after a kernel: two hand-offs).
        if let Some(q) = &self.queue {
            if self.status() > CL_COMPLETE {
                q.flush_and_run_until(&|| self.status() <= CL_COMPLETE);
            }
        }
        let mut st = self.state.lock().unwrap();
        st.waiters += 1;
        while st.status > CL_COMPLETE {
            st = self.changed.wait(st).unwrap();
        }
        st.waiters -= 1;
        st.status
    }
}

pub unsafe extern "C" fn wait_for_events(
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    status(|| {
        ensure(num_events > 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        let events = object::get_list::<Event>(num_events, event_list, CL_INVALID_VALUE)?;
        let ctx = &events[0].context;
        ensure(
            events.iter().all(|e| Arc::ptr_eq(&e.context, ctx)),
            CL_INVALID_CONTEXT,
        )?;
        let mut failed = false;
        for e in &events {
            failed |= e.wait() < 0;
        }
        ensure(!failed, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    })
}

pub unsafe extern "C" fn get_event_info(
    event: cl_event,
    param_name: cl_event_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Event>(event).and_then(|e| {
        Ok(match param_name {
            CL_EVENT_COMMAND_QUEUE => Info::value::<cl_command_queue>(
                e.queue
                    .as_ref()
                    .map_or(std::ptr::null_mut(), object::handle),
            ),
            CL_EVENT_CONTEXT => Info::value::<cl_context>(object::handle(&e.context)),
            CL_EVENT_COMMAND_TYPE => Info::value::<cl_command_type>(e.command_type),
            CL_EVENT_COMMAND_EXECUTION_STATUS => Info::value::<cl_int>(e.status()),
            CL_EVENT_REFERENCE_COUNT => Info::value::<cl_uint>(e.ref_count()),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn get_event_profiling_info(
    event: cl_event,
    param_name: cl_profiling_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Event>(event).and_then(|e| {
        let profiled = e
            .queue
            .as_ref()
            .is_some_and(|q| q.properties & CL_QUEUE_PROFILING_ENABLE != 0);
        ensure(
            profiled && e.status() == CL_COMPLETE,
            CL_PROFILING_INFO_NOT_AVAILABLE,
        )?;
        let t = e.state.lock().unwrap().times;
        let i = match param_name {
            CL_PROFILING_COMMAND_QUEUED => 0,
            CL_PROFILING_COMMAND_SUBMIT => 1,
            CL_PROFILING_COMMAND_START => 2,
            CL_PROFILING_COMMAND_END => 3,
            CL_PROFILING_COMMAND_COMPLETE => 4,
            _ => return Err(CL_INVALID_VALUE),
        };
        Ok(Info::value::<cl_ulong>(t[i]))
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn retain_event(event: cl_event) -> cl_int {
    object::retain::<Event>(event)
}

pub unsafe extern "C" fn release_event(event: cl_event) -> cl_int {
    object::release::<Event>(event)
}

pub unsafe extern "C" fn create_user_event(
    context: cl_context,
    errcode_ret: *mut cl_int,
) -> cl_event {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let c = object::get::<Context>(context)?;
        let e = object::create(Event::new(c, None, CL_COMMAND_USER, CL_SUBMITTED));
        Ok(object::handle(&e))
    })
}

pub unsafe extern "C" fn set_user_event_status(
    event: cl_event,
    execution_status: cl_int,
) -> cl_int {
    status(|| {
        let e = object::get::<Event>(event)?;
        ensure(e.command_type == CL_COMMAND_USER, CL_INVALID_EVENT)?;
        ensure(
            execution_status == CL_COMPLETE || execution_status < 0,
            CL_INVALID_VALUE,
        )?;
        ensure(e.status() == CL_SUBMITTED, CL_INVALID_OPERATION)?;
        Event::set_status(&e, execution_status);
        Ok(())
    })
}

pub unsafe extern "C" fn set_event_callback(
    event: cl_event,
    callback_type: cl_int,
    pfn_notify: Option<Callback>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let e = object::get::<Event>(event)?;
        let cb = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        ensure(
            matches!(callback_type, CL_SUBMITTED | CL_RUNNING | CL_COMPLETE),
            CL_INVALID_VALUE,
        )?;
        let now = {
            let mut st = e.state.lock().unwrap();
            if st.status <= callback_type {
                Some(st.status)
            } else {
                st.callbacks.push((callback_type, cb, user_data as usize));
                None
            }
        };
        if let Some(s) = now {
            cb(event, s, user_data);
        }
        Ok(())
    })
}
