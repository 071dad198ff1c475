//! Command queues over mux queues (seed 001). Enqueued commands are
//! recorded into a command buffer; a flush (`clFlush`, a blocking call,
//! `clFinish`, or a wait on one of its events) dispatches it to the
//! device's queue. In an in-order queue each dispatch waits on the
//! previous one's semaphore, and commands join the current buffer unless
//! they wait on something outside the queue; in an out-of-order queue each
//! command is its own dispatch, so independent ones overlap. Each command's
//! event is run through SUBMITTED, RUNNING and COMPLETE (or a failure) as
//! its buffer runs. Each dispatch signals a semaphore of its own: a
//! recorded command may still hold it to wait on after the dispatch
//! ended, so it is never reset and handed out again.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::event::Event;
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use mux::{CommandBuffer, SemaphoreRef};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// The work of one command. An error fails its event with that status.
pub type Work = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

/// What a command does on the device.
pub enum Payload {
    /// Work of the API layer's own, run in the command's place.
    Host(Work),
    /// An ND-range, checked (`mux::NdRange::is_valid`): its parts, each
    /// with the work-group function for its size.
    NdRange {
        parts: Vec<(mux::KernelRef, mux::NdRange)>,
        args: Arc<mux::Allocation>,
        /// Dropped once it has run: the memory objects its arguments name,
        /// and the program's block of variables.
        keep: Vec<Arc<ClObject<crate::memory::Mem>>>,
        globals: Option<Arc<crate::program_globals::GlobalsBlock>>,
        /// A printing kernel's buffer: its output is written before the
        /// event completes.
        printf: Option<Arc<crate::printf::PrintfBuffer>>,
    },
    /// Device commands (transfers).
    Device {
        commands: CommandBuffer,
        /// Dropped once the commands have run: the objects they name.
        keep: Vec<Arc<ClObject<crate::memory::Mem>>>,
    },
    /// A user command buffer's commands (`cl_khr_command_buffer`): one
    /// command of the queue, dispatched in a command buffer of its own.
    Sealed(CommandBuffer),
}

/// Commands recorded and not yet dispatched, with what they wait on.
#[derive(Default)]
struct Batch {
    commands: CommandBuffer,
    events: Vec<Arc<ClObject<Event>>>,
    /// Semaphores outside the queue's own order (other queues' events,
    /// user events, an out-of-order queue's barrier).
    waits: Vec<SemaphoreRef>,
    /// Holds a user command buffer: nothing else joins it.
    sealed: bool,
}

#[derive(Default)]
struct State {
    /// Recorded, not dispatched: one batch in order, one per command out of order.
    batches: Vec<Batch>,
    /// In order: the semaphore of the latest dispatch still running.
    last: Option<SemaphoreRef>,
    /// Out of order: dispatches still running, for markers and barriers.
    running: Vec<SemaphoreRef>,
    /// Out of order: the latest barrier, which later commands wait on.
    barrier: Option<SemaphoreRef>,
}

pub struct Queue {
    pub context: Arc<ClObject<Context>>,
    pub device: Arc<ClObject<Device>>,
    pub properties: cl_command_queue_properties,
    properties_array: Vec<cl_queue_properties>,
    mux: Arc<dyn mux::Queue>,
    state: Arc<Mutex<State>>,
}

impl Kind for Queue {
    const INVALID: cl_int = CL_INVALID_COMMAND_QUEUE;

    fn on_last_release(q: &Arc<ClObject<Self>>) {
        // Releasing a queue finishes its work first.
        q.finish();
    }
}

impl Queue {
    fn in_order(&self) -> bool {
        self.properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE == 0
    }

    /// Dispatches everything recorded.
    pub fn flush(&self) {
        let mut st = self.state.lock().unwrap();
        self.dispatch_all(&mut st);
    }

    /// Dispatches every recorded batch, in order.
    fn dispatch_all(&self, st: &mut State) {
        for batch in std::mem::take(&mut st.batches) {
            self.dispatch(st, batch);
        }
    }

    /// Flushes, then runs the queue's ready dispatches on the calling
    /// thread until `done` (`mux::Queue::dispatch_and_run_until`).
    pub fn flush_and_run_until(&self, done: &dyn Fn() -> bool) {
        self.mux.dispatch_and_run_until(&mut || self.flush(), done);
    }

    /// Flushes, then waits until every command so far has ended.
    pub fn finish(&self) {
        self.mux.dispatch_and_wait_all(&mut || self.flush());
    }

    /// Hands `batch` to the device: after the previous dispatch (in order)
    /// and whatever it waits on. Called with the state locked, so that
    /// the queue's view of what still runs changes in one step.
    fn dispatch(&self, st: &mut State, batch: Batch) {
        if batch.commands.is_empty() {
            return;
        }
        let mut waits = batch.waits;
        if self.in_order() {
            waits.extend(st.last.take());
        }
        let signal = self.device.mux.create_semaphore();
        if self.in_order() {
            st.last = Some(signal.clone());
        } else {
            st.running.push(signal.clone());
        }
        for e in &batch.events {
            Event::set_status(e, CL_SUBMITTED);
        }
        let events = batch.events;
        let state = self.state.clone();
        let sem = signal.clone();
        let context = self.context.clone();
        let done = Box::new(move |result: mux::Result<()>| {
            // Commands the buffer did not reach: a failed wait, or a
            // failed command before them.
            let status = match result {
                Ok(()) => CL_COMPLETE,
                Err(e) => {
                    if !matches!(e, mux::Error::WaitFailed | mux::Error::Status(_)) {
                        // The device failed: the context's callback hears why.
                        context.report(&format!("a command failed on the device: {e}"));
                    }
                    CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
                }
            };
            for e in &events {
                Event::set_status(e, status);
            }
            // The dispatch ended: later commands need not wait for it.
            // Commands recorded earlier may still hold its semaphore, which
            // stays signalled for them.
            let mut st = state.lock().unwrap();
            if st.last.as_ref().is_some_and(|l| Arc::ptr_eq(l, &sem)) {
                st.last = None;
            }
            st.running.retain(|r| !Arc::ptr_eq(r, &sem));
            if st.barrier.as_ref().is_some_and(|b| Arc::ptr_eq(b, &sem)) {
                st.barrier = None;
            }
        });
        self.mux.dispatch(batch.commands, waits, signal, None, done);
    }
}

/// Validates a wait list: all events live and of the queue's context.
///
/// # Safety
/// `list` must point to `count` handles when non-null.
pub unsafe fn wait_list(
    context: &Arc<ClObject<Context>>,
    count: cl_uint,
    list: *const cl_event,
) -> Result<Vec<Arc<ClObject<Event>>>, cl_int> {
    ensure((count == 0) == list.is_null(), CL_INVALID_EVENT_WAIT_LIST)?;
    let events = object::get_list::<Event>(count, list, CL_INVALID_EVENT_WAIT_LIST)
        .map_err(|_| CL_INVALID_EVENT_WAIT_LIST)?;
    ensure(
        events.iter().all(|e| Arc::ptr_eq(&e.context, context)),
        CL_INVALID_CONTEXT,
    )?;
    Ok(events)
}

/// A semaphore signalled when `event` ends (successfully or not).
fn semaphore_for(queue: &Queue, event: &Arc<ClObject<Event>>) -> SemaphoreRef {
    let s = queue.device.mux.create_semaphore();
    let signal = s.clone();
    event.on_end(Box::new(move |status| signal.signal(status == CL_COMPLETE)));
    s
}

/// How a command is ordered beside the others.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Ordering {
    /// After its wait list (and, in order, after what came before).
    Normal,
    /// A marker or barrier with no wait list: after everything enqueued
    /// before it; a barrier also before everything after it.
    Marker,
    Barrier,
}

/// Enqueues `work` on `queue` after the events of the wait list; writes the
/// command's event to `event_out` if asked; waits for it if `blocking`.
///
/// # Safety
/// Pointers as the calling entry point received them.
pub unsafe fn enqueue(
    queue: &Arc<ClObject<Queue>>,
    command_type: cl_command_type,
    num_events: cl_uint,
    event_list: *const cl_event,
    event_out: *mut cl_event,
    blocking: bool,
    work: Work,
) -> Result<(), cl_int> {
    enqueue_payload(
        queue,
        command_type,
        num_events,
        event_list,
        event_out,
        blocking,
        Ordering::Normal,
        Payload::Host(work),
    )
}

/// [`enqueue`] for any payload and ordering.
///
/// # Safety
/// Pointers as the calling entry point received them.
#[allow(clippy::too_many_arguments)]
pub unsafe fn enqueue_payload(
    queue: &Arc<ClObject<Queue>>,
    command_type: cl_command_type,
    num_events: cl_uint,
    event_list: *const cl_event,
    event_out: *mut cl_event,
    blocking: bool,
    ordering: Ordering,
    payload: Payload,
) -> Result<(), cl_int> {
    let waits = wait_list(&queue.context, num_events, event_list)?;
    let in_order = queue.in_order();
    // Events of other queues must be on their way before this one waits
    // for them, or nothing would ever dispatch them.
    for w in &waits {
        if let Some(other) = &w.queue {
            if !Arc::ptr_eq(other, queue) {
                other.flush();
            }
        }
    }
    // What this command waits on beyond its queue's own order: events
    // still pending or failed, except those of this in-order queue that
    // are behind it already and cannot fail for reasons of their own.
    let behind = |w: &Arc<ClObject<Event>>| {
        in_order
            && w.queue.as_ref().is_some_and(|q| Arc::ptr_eq(q, queue))
            && !w.waits_outside
            && w.status() >= 0
    };
    let mut outside: Vec<SemaphoreRef> = waits
        .iter()
        .filter(|w| !w.has_ended() || w.status() < 0)
        .filter(|w| !behind(w))
        .map(|w| semaphore_for(queue, w))
        .collect();
    // An event nobody can name or wait for is not made: the command then
    // costs no status updates.
    let event = (!event_out.is_null() || blocking).then(|| {
        let mut event = Event::new(
            queue.context.clone(),
            Some(queue.clone()),
            command_type,
            CL_QUEUED,
        );
        event.waits_outside = !outside.is_empty();
        object::new(event)
    });
    let mut st = queue.state.lock().unwrap();
    if !in_order {
        // Recorded, not dispatched: flush them so that they can be waited on.
        if ordering != Ordering::Normal || !outside.is_empty() {
            queue.dispatch_all(&mut st);
        }
        if ordering != Ordering::Normal && num_events == 0 {
            outside.extend(st.running.iter().cloned());
        }
        outside.extend(st.barrier.clone());
    }
    // Which command buffer (seed 001's five cases, in order):
    // - no outside waits, the pending buffer holds no user command buffer:
    //   join it;
    // - no outside waits, it holds one (sealed): a new buffer;
    // - waits only on events of this in-order queue: those are behind it
    //   already, so this is the first case;
    // - waits outside the queue (other queues, user events), pending or
    //   not: a new buffer, the pending one dispatched first, so that the
    //   commands before do not wait for that too; and nothing joins it
    //   after, so that a failed wait fails only the command that waited.
    // Which semaphores a dispatch waits on (`dispatch`): the previous
    // dispatch's while it runs (in order), plus one per outside event
    // still pending; nothing once those have ended.
    let alone = matches!(payload, Payload::Sealed(_));
    let joins = in_order
        && outside.is_empty()
        && !alone
        && st
            .batches
            .last()
            .is_some_and(|b| !b.sealed && b.waits.is_empty());
    if !joins {
        if in_order {
            queue.dispatch_all(&mut st);
        }
        st.batches.push(Batch {
            waits: outside,
            sealed: alone,
            ..Batch::default()
        });
    }
    let batch = st.batches.last_mut().expect("a batch was just made");
    record(&mut batch.commands, event.as_ref(), payload);
    batch.events.extend(event.clone());
    if !in_order && ordering == Ordering::Barrier {
        // Later commands wait for the barrier: dispatch it now, and keep
        // its semaphore.
        let b = st.batches.pop().expect("the barrier's batch");
        queue.dispatch(&mut st, b);
        st.barrier = st.running.last().cloned();
    }
    drop(st);
    if let Some(event) = event {
        if !event_out.is_null() {
            *event_out = object::register(&event);
        }
        if blocking {
            // The wait flushes the queue.
            let s = event.wait();
            ensure(s >= 0, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)?;
        }
    }
    Ok(())
}

/// Records `payload` between the updates of its event, if it has one.
fn record(commands: &mut CommandBuffer, event: Option<&Arc<ClObject<Event>>>, payload: Payload) {
    let notify = |commands: &mut CommandBuffer, status: cl_int| {
        if let Some(e) = event {
            commands.notify(e.clone(), status);
        }
    };
    // Drops what the payload kept once it has run.
    fn release<T: Send + 'static>(commands: &mut CommandBuffer, keep: Vec<T>) {
        if !keep.is_empty() {
            commands.host(Box::new(move || {
                drop(keep);
                Ok(())
            }));
        }
    }
    match payload {
        // A failed command fails its own event; the queue goes on.
        Payload::Host(work) => {
            notify(commands, CL_RUNNING);
            let e = event.cloned();
            commands.host(Box::new(move || {
                let status = work().err().unwrap_or(CL_COMPLETE);
                if let Some(e) = e {
                    Event::set_status(&e, status);
                }
                Ok(())
            }))
        }
        Payload::NdRange {
            mut parts,
            args,
            keep,
            globals,
            printf: None,
        } if parts.len() == 1 => {
            // The range itself reports its start and end: one command.
            let progress = event.map(|e| e.clone() as Arc<dyn mux::Progress>);
            let (kernel, range) = parts.remove(0);
            // Checked when the payload was made: this records it.
            let recorded = commands.nd_range_with_progress(kernel, args, range, progress);
            debug_assert!(recorded.is_ok());
            release(commands, keep);
            release(commands, globals.into_iter().collect());
        }
        Payload::NdRange {
            parts,
            args,
            keep,
            globals,
            printf,
        } => {
            notify(commands, CL_RUNNING);
            for (kernel, range) in parts {
                let recorded = commands.nd_range(kernel, args.clone(), range);
                debug_assert!(recorded.is_ok());
            }
            if let Some(printf) = printf {
                commands.host(Box::new(move || printf.print()));
            }
            release(commands, keep);
            release(commands, globals.into_iter().collect());
            notify(commands, CL_COMPLETE);
        }
        Payload::Device { commands: c, keep } => {
            notify(commands, CL_RUNNING);
            commands.append(c);
            release(commands, keep);
            notify(commands, CL_COMPLETE);
        }
        Payload::Sealed(c) => {
            notify(commands, CL_RUNNING);
            commands.append(c);
            notify(commands, CL_COMPLETE);
        }
    }
}

const KNOWN_PROPERTIES: cl_command_queue_properties = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
    | CL_QUEUE_PROFILING_ENABLE
    | CL_QUEUE_ON_DEVICE
    | CL_QUEUE_ON_DEVICE_DEFAULT;

fn make(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    properties_array: Vec<cl_queue_properties>,
) -> Result<cl_command_queue, cl_int> {
    let ctx = object::get::<Context>(context)?;
    let dev = object::get::<Device>(device)?;
    ensure(ctx.has_device(&dev), CL_INVALID_DEVICE)?;
    ensure(properties & !KNOWN_PROPERTIES == 0, CL_INVALID_VALUE)?;
    ensure(
        properties & (CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT) == 0,
        CL_INVALID_QUEUE_PROPERTIES,
    )?;
    let mux = dev.mux.create_queue();
    let q = object::create(Queue {
        context: ctx,
        device: dev,
        properties,
        properties_array,
        mux,
        state: Arc::default(),
    });
    q.context.shared.add_queue(&q);
    Ok(object::handle(&q))
}

pub unsafe extern "C" fn create_command_queue_with_properties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        object::get::<Device>(device)?;
        let mut bits = 0;
        let mut array = Vec::new();
        if !properties.is_null() {
            let mut p = properties;
            while *p != 0 {
                let (name, value) = (*p, *p.add(1));
                match name as cl_uint {
                    CL_QUEUE_PROPERTIES => bits = value,
                    // A size only means something for device-side queues.
                    CL_QUEUE_SIZE => return Err(CL_INVALID_QUEUE_PROPERTIES),
                    _ => return Err(CL_INVALID_VALUE),
                }
                array.extend([name, value]);
                p = p.add(2);
            }
            array.push(0);
        }
        make(context, device, bits, array)
    })
}

pub unsafe extern "C" fn create_command_queue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        make(context, device, properties, Vec::new())
    })
}

pub unsafe extern "C" fn retain_command_queue(queue: cl_command_queue) -> cl_int {
    object::retain::<Queue>(queue)
}

pub unsafe extern "C" fn release_command_queue(queue: cl_command_queue) -> cl_int {
    object::release::<Queue>(queue)
}

pub unsafe extern "C" fn get_command_queue_info(
    queue: cl_command_queue,
    param_name: cl_command_queue_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Queue>(queue).and_then(|q| {
        Ok(match param_name {
            CL_QUEUE_CONTEXT => Info::value::<cl_context>(object::handle(&q.context)),
            CL_QUEUE_DEVICE => Info::value::<cl_device_id>(object::handle(&q.device)),
            CL_QUEUE_REFERENCE_COUNT => Info::value::<cl_uint>(q.ref_count()),
            CL_QUEUE_PROPERTIES => Info::value::<cl_command_queue_properties>(q.properties),
            CL_QUEUE_PROPERTIES_ARRAY => Info::slice(&q.properties_array),
            CL_QUEUE_DEVICE_DEFAULT => Info::value::<cl_command_queue>(std::ptr::null_mut()),
            // Only device-side queues have a size.
            CL_QUEUE_SIZE => return Err(CL_INVALID_COMMAND_QUEUE),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn set_command_queue_property(
    queue: cl_command_queue,
    _properties: cl_command_queue_properties,
    _enable: cl_bool,
    _old: *mut cl_command_queue_properties,
) -> cl_int {
    // An OpenCL 1.0 entry point; since 1.1 queue properties are fixed at creation.
    status(|| {
        object::get::<Queue>(queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn flush(queue: cl_command_queue) -> cl_int {
    status(|| {
        object::get::<Queue>(queue)?.flush();
        Ok(())
    })
}

pub unsafe extern "C" fn finish(queue: cl_command_queue) -> cl_int {
    status(|| {
        object::get::<Queue>(queue)?.finish();
        Ok(())
    })
}

/// A marker or barrier: nothing to do but to end in order. With an empty
/// wait list it follows everything enqueued before it.
unsafe fn enqueue_sync_point(
    queue: cl_command_queue,
    command_type: cl_command_type,
    ordering: Ordering,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let q = object::get::<Queue>(queue)?;
    enqueue_payload(
        &q,
        command_type,
        num_events,
        event_list,
        event,
        false,
        ordering,
        Payload::Host(Box::new(|| Ok(()))),
    )
}

pub unsafe extern "C" fn enqueue_marker_with_wait_list(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        enqueue_sync_point(
            queue,
            CL_COMMAND_MARKER,
            Ordering::Marker,
            num_events,
            event_list,
            event,
        )
    })
}

pub unsafe extern "C" fn enqueue_barrier_with_wait_list(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        enqueue_sync_point(
            queue,
            CL_COMMAND_BARRIER,
            Ordering::Barrier,
            num_events,
            event_list,
            event,
        )
    })
}

pub unsafe extern "C" fn enqueue_marker(queue: cl_command_queue, event: *mut cl_event) -> cl_int {
    status(|| {
        ensure(!event.is_null(), CL_INVALID_VALUE)?;
        enqueue_sync_point(
            queue,
            CL_COMMAND_MARKER,
            Ordering::Marker,
            0,
            std::ptr::null(),
            event,
        )
    })
}

pub unsafe extern "C" fn enqueue_barrier(queue: cl_command_queue) -> cl_int {
    status(|| {
        enqueue_sync_point(
            queue,
            CL_COMMAND_BARRIER,
            Ordering::Barrier,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    })
}

pub unsafe extern "C" fn enqueue_wait_for_events(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    status(|| {
        object::get::<Queue>(queue)?;
        ensure(num_events > 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        // A barrier on those events (OpenCL 1.0's clEnqueueWaitForEvents).
        enqueue_sync_point(
            queue,
            CL_COMMAND_BARRIER,
            Ordering::Barrier,
            num_events,
            event_list,
            std::ptr::null_mut(),
        )
    })
}

/// On-device queues are not offered (`CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES`
/// is 0): a valid context and device get `CL_INVALID_OPERATION` (spec 5.1).
pub unsafe extern "C" fn set_default_device_command_queue(
    context: cl_context,
    device: cl_device_id,
    _queue: cl_command_queue,
) -> cl_int {
    status(|| {
        let c = object::get::<Context>(context)?;
        let d = object::get::<Device>(device)?;
        ensure(
            c.devices.iter().any(|x| Arc::ptr_eq(x, &d)),
            CL_INVALID_DEVICE,
        )?;
        Err(CL_INVALID_OPERATION)
    })
}
