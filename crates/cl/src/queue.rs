//! Command queues. Commands run in order on the queue's own thread; each
//! first waits for the events it depends on, then does its work and
//! completes its event. Enqueueing submits at once, so `clFlush` has
//! nothing left to do and `clFinish` waits for everything enqueued so far.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::event::Event;
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Condvar, Mutex};

/// The work of one command. An error fails its event with that status.
pub type Work = Box<dyn FnOnce() -> Result<(), cl_int> + Send>;

struct Command {
    event: Arc<ClObject<Event>>,
    waits: Vec<Arc<ClObject<Event>>>,
    work: Work,
}

/// Commands enqueued and finished, for `clFinish`.
#[derive(Default)]
struct Progress {
    counts: Mutex<(u64, u64)>,
    changed: Condvar,
}

pub struct Queue {
    pub context: Arc<ClObject<Context>>,
    pub device: Arc<ClObject<Device>>,
    pub properties: cl_command_queue_properties,
    properties_array: Vec<cl_queue_properties>,
    sender: Mutex<Option<Sender<Command>>>,
    progress: Arc<Progress>,
}

impl Kind for Queue {
    const INVALID: cl_int = CL_INVALID_COMMAND_QUEUE;

    fn on_last_release(q: &Arc<ClObject<Self>>) {
        // Pending commands still run; the thread ends after the last one.
        q.finish();
        q.sender.lock().unwrap().take();
    }
}

fn run_commands(commands: std::sync::mpsc::Receiver<Command>, progress: Arc<Progress>) {
    for c in commands {
        let failed = c.waits.iter().any(|e| e.wait() < 0);
        let result = if failed {
            Err(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        } else {
            Event::set_status(&c.event, CL_RUNNING);
            (c.work)()
        };
        Event::set_status(&c.event, result.err().unwrap_or(CL_COMPLETE));
        let mut n = progress.counts.lock().unwrap();
        n.1 += 1;
        drop(n);
        progress.changed.notify_all();
    }
}

impl Queue {
    /// Waits until every command enqueued so far has finished.
    pub fn finish(&self) {
        let mut n = self.progress.counts.lock().unwrap();
        let target = n.0;
        while n.1 < target {
            n = self.progress.changed.wait(n).unwrap();
        }
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
    let waits = wait_list(&queue.context, num_events, event_list)?;
    let event = object::new(Event::new(
        queue.context.clone(),
        Some(queue.clone()),
        command_type,
        CL_QUEUED,
    ));
    {
        let sender = queue.sender.lock().unwrap();
        let sender = sender.as_ref().ok_or(CL_INVALID_COMMAND_QUEUE)?;
        queue.progress.counts.lock().unwrap().0 += 1;
        Event::set_status(&event, CL_SUBMITTED);
        sender
            .send(Command {
                event: event.clone(),
                waits,
                work,
            })
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
    }
    if !event_out.is_null() {
        *event_out = object::register(&event);
    }
    if blocking {
        let s = event.wait();
        ensure(s >= 0, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)?;
    }
    Ok(())
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
    let (tx, rx) = channel();
    let progress = Arc::new(Progress::default());
    let p = progress.clone();
    std::thread::Builder::new()
        .name("ferrocl-queue".into())
        .spawn(move || run_commands(rx, p))
        .map_err(|_| CL_OUT_OF_HOST_MEMORY)?;
    let q = object::create(Queue {
        context: ctx,
        device: dev,
        properties,
        properties_array,
        sender: Mutex::new(Some(tx)),
        progress,
    });
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
    status(|| object::get::<Queue>(queue).map(|_| ()))
}

pub unsafe extern "C" fn finish(queue: cl_command_queue) -> cl_int {
    status(|| {
        object::get::<Queue>(queue)?.finish();
        Ok(())
    })
}

pub unsafe extern "C" fn enqueue_marker_with_wait_list(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        // In order: waiting for everything before it is what the queue does anyway.
        enqueue(
            &q,
            CL_COMMAND_MARKER,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
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
        let q = object::get::<Queue>(queue)?;
        enqueue(
            &q,
            CL_COMMAND_BARRIER,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
        )
    })
}

pub unsafe extern "C" fn enqueue_marker(queue: cl_command_queue, event: *mut cl_event) -> cl_int {
    status(|| {
        ensure(!event.is_null(), CL_INVALID_VALUE)?;
        let q = object::get::<Queue>(queue)?;
        enqueue(
            &q,
            CL_COMMAND_MARKER,
            0,
            std::ptr::null(),
            event,
            false,
            Box::new(|| Ok(())),
        )
    })
}

pub unsafe extern "C" fn enqueue_barrier(queue: cl_command_queue) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        enqueue(
            &q,
            CL_COMMAND_BARRIER,
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
            false,
            Box::new(|| Ok(())),
        )
    })
}

pub unsafe extern "C" fn enqueue_wait_for_events(
    queue: cl_command_queue,
    num_events: cl_uint,
    event_list: *const cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        ensure(num_events > 0 && !event_list.is_null(), CL_INVALID_VALUE)?;
        enqueue(
            &q,
            CL_COMMAND_MARKER,
            num_events,
            event_list,
            std::ptr::null_mut(),
            false,
            Box::new(|| Ok(())),
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
