//! Semaphores (`cl_khr_semaphore`): binary semaphores that a queue command
//! signals and a queue command waits on, across queues. A wait claims the
//! semaphore's next signal when it is enqueued, in the order of enqueueing:
//! its command then waits on a gate event that the signalling command
//! completes when it runs (or at once, if the semaphore is signalled
//! already and nobody claimed it first).

use crate::context::Context;
use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::event::Event;
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::queue::{enqueue_payload, Ordering, Payload, Queue};
use opencl_sys::*;
use std::collections::VecDeque;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

#[derive(Default)]
struct State {
    /// Signalled, and claimed by no wait yet.
    signalled: bool,
    /// Waits enqueued before their signal ran, earliest first.
    waiting: VecDeque<Arc<ClObject<Event>>>,
}

pub struct Semaphore {
    pub context: Arc<ClObject<Context>>,
    device: Arc<ClObject<Device>>,
    /// As given, with the terminating 0.
    properties: Vec<cl_semaphore_properties_khr>,
    state: Mutex<State>,
}

impl Kind for Semaphore {
    const INVALID: cl_int = CL_INVALID_SEMAPHORE_KHR;
}

impl Semaphore {
    /// A signal arriving: the earliest waiting claim goes on, else the
    /// semaphore stays signalled for the next wait.
    fn signal(&self) {
        let next = {
            let mut st = self.state.lock().unwrap();
            let next = st.waiting.pop_front();
            if next.is_none() {
                st.signalled = true;
            }
            next
        };
        if let Some(gate) = next {
            Event::set_status(&gate, CL_COMPLETE);
        }
    }

    /// A gate event that completes at this wait's signal.
    fn claim(&self) -> Arc<ClObject<Event>> {
        let gate = object::create(Event::new(
            self.context.clone(),
            None,
            CL_COMMAND_USER,
            CL_SUBMITTED,
        ));
        let mut st = self.state.lock().unwrap();
        if st.signalled {
            st.signalled = false;
            drop(st);
            Event::set_status(&gate, CL_COMPLETE);
        } else {
            st.waiting.push_back(gate.clone());
        }
        gate
    }
}

pub unsafe extern "C" fn create_semaphore_with_properties(
    context: cl_context,
    properties: *const cl_semaphore_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_semaphore_khr {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let c = object::get::<Context>(context)?;
        ensure(!properties.is_null(), CL_INVALID_VALUE)?;
        let mut array = Vec::new();
        let mut kind = None;
        let mut device = None;
        let mut p = properties;
        while *p != 0 {
            let name = *p;
            array.push(name);
            match name as cl_uint {
                CL_SEMAPHORE_TYPE_KHR => {
                    ensure(kind.is_none(), CL_INVALID_PROPERTY)?;
                    let value = *p.add(1);
                    ensure(
                        value == CL_SEMAPHORE_TYPE_BINARY_KHR as u64,
                        CL_INVALID_PROPERTY,
                    )?;
                    kind = Some(value);
                    array.push(value);
                    p = p.add(2);
                }
                CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR => {
                    ensure(device.is_none(), CL_INVALID_PROPERTY)?;
                    // Devices up to the list's end: exactly one, of the context.
                    let mut list = Vec::new();
                    p = p.add(1);
                    while *p != CL_SEMAPHORE_DEVICE_HANDLE_LIST_END_KHR as u64 {
                        list.push(*p);
                        array.push(*p);
                        p = p.add(1);
                    }
                    array.push(*p);
                    p = p.add(1);
                    ensure(list.len() == 1, CL_INVALID_DEVICE)?;
                    let d = object::get::<Device>(list[0] as cl_device_id)
                        .map_err(|_| CL_INVALID_DEVICE)?;
                    ensure(c.has_device(&d), CL_INVALID_DEVICE)?;
                    device = Some(d);
                }
                _ => return Err(CL_INVALID_PROPERTY),
            }
        }
        array.push(0);
        ensure(kind.is_some(), CL_INVALID_VALUE)?;
        let device = match device {
            Some(d) => d,
            None => {
                // A context of several devices must name one.
                ensure(c.devices.len() == 1, CL_INVALID_PROPERTY)?;
                c.devices[0].clone()
            }
        };
        let s = object::create(Semaphore {
            context: c,
            device,
            properties: array,
            state: Mutex::default(),
        });
        Ok(object::handle(&s) as cl_semaphore_khr)
    })
}

pub unsafe extern "C" fn retain_semaphore(s: cl_semaphore_khr) -> cl_int {
    object::retain::<Semaphore>(s as *mut c_void)
}

pub unsafe extern "C" fn release_semaphore(s: cl_semaphore_khr) -> cl_int {
    object::release::<Semaphore>(s as *mut c_void)
}

/// The semaphores of a wait or signal command, checked against its queue.
unsafe fn semaphores(
    q: &Arc<ClObject<Queue>>,
    count: cl_uint,
    list: *const cl_semaphore_khr,
) -> Result<Vec<Arc<ClObject<Semaphore>>>, cl_int> {
    ensure(count > 0 && !list.is_null(), CL_INVALID_VALUE)?;
    let all = object::get_list::<Semaphore>(count, list as *const *mut c_void, CL_INVALID_VALUE)?;
    for s in &all {
        ensure(Arc::ptr_eq(&s.context, &q.context), CL_INVALID_CONTEXT)?;
        ensure(Arc::ptr_eq(&s.device, &q.device), CL_INVALID_COMMAND_QUEUE)?;
    }
    Ok(all)
}

/// The events of a wait list, refused if one has failed already.
unsafe fn live_wait_list(
    q: &Arc<ClObject<Queue>>,
    count: cl_uint,
    list: *const cl_event,
) -> Result<Vec<cl_event>, cl_int> {
    let events = crate::queue::wait_list(&q.context, count, list)?;
    ensure(
        events.iter().all(|e| e.status() >= 0),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
    )?;
    Ok(events.iter().map(object::handle).collect())
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_wait_semaphores(
    queue: cl_command_queue,
    num_semaphores: cl_uint,
    semaphore_list: *const cl_semaphore_khr,
    _payloads: *const cl_semaphore_payload_khr,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let all = semaphores(&q, num_semaphores, semaphore_list)?;
        let mut waits = live_wait_list(&q, num_events, event_list)?;
        // Each semaphore's next signal, claimed now, in enqueue order.
        let gates: Vec<_> = all.iter().map(|s| s.claim()).collect();
        waits.extend(gates.iter().map(object::handle));
        let result = enqueue_payload(
            &q,
            CL_COMMAND_SEMAPHORE_WAIT_KHR,
            waits.len() as cl_uint,
            waits.as_ptr(),
            event,
            false,
            Ordering::Normal,
            Payload::Host(Box::new(|| Ok(()))),
        );
        // The command holds what it waits on; the handles were only for it.
        for g in &gates {
            object::release::<Event>(object::handle(g));
        }
        result
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_signal_semaphores(
    queue: cl_command_queue,
    num_semaphores: cl_uint,
    semaphore_list: *const cl_semaphore_khr,
    _payloads: *const cl_semaphore_payload_khr,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let all = semaphores(&q, num_semaphores, semaphore_list)?;
        let waits = live_wait_list(&q, num_events, event_list)?;
        let (n, list) = if waits.is_empty() {
            (0, std::ptr::null())
        } else {
            (waits.len() as cl_uint, waits.as_ptr())
        };
        enqueue_payload(
            &q,
            CL_COMMAND_SEMAPHORE_SIGNAL_KHR,
            n,
            list,
            event,
            false,
            Ordering::Normal,
            Payload::Host(Box::new(move || {
                for s in &all {
                    s.signal();
                }
                Ok(())
            })),
        )
    })
}

pub unsafe extern "C" fn get_semaphore_info(
    s: cl_semaphore_khr,
    param_name: cl_semaphore_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Semaphore>(s as *mut c_void).and_then(|s| {
        Ok(match param_name {
            CL_SEMAPHORE_CONTEXT_KHR => Info::value::<cl_context>(object::handle(&s.context)),
            CL_SEMAPHORE_REFERENCE_COUNT_KHR => Info::value::<cl_uint>(s.ref_count()),
            CL_SEMAPHORE_PROPERTIES_KHR => Info::slice(&s.properties),
            CL_SEMAPHORE_TYPE_KHR => {
                Info::value::<cl_semaphore_type_khr>(CL_SEMAPHORE_TYPE_BINARY_KHR)
            }
            CL_SEMAPHORE_PAYLOAD_KHR => Info::value::<cl_semaphore_payload_khr>(u64::from(
                s.state.lock().unwrap().signalled,
            )),
            CL_SEMAPHORE_DEVICE_HANDLE_LIST_KHR => {
                Info::slice::<cl_device_id>(&[object::handle(&s.device)])
            }
            // Nothing can be exported.
            x if x as u64 == CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => {
                Info::slice::<cl_external_semaphore_handle_type_khr>(&[])
            }
            CL_SEMAPHORE_EXPORTABLE_KHR => Info::bool(false),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

/// `clGetSemaphoreHandleForTypeKHR` (`cl_khr_external_semaphore`, which
/// the device does not offer): no semaphore is created exportable, so
/// there is no handle of any type to give.
pub unsafe extern "C" fn get_semaphore_handle_for_type(
    s: cl_semaphore_khr,
    device: cl_device_id,
    _handle_type: cl_external_semaphore_handle_type_khr,
    _size: usize,
    _handle: *mut c_void,
    _size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let s = object::get::<Semaphore>(s as *mut c_void)?;
        let d = object::get::<Device>(device).map_err(|_| CL_INVALID_DEVICE)?;
        ensure(Arc::ptr_eq(&d, &s.device), CL_INVALID_DEVICE)?;
        Err(CL_INVALID_VALUE)
    })
}

/// The extension's entry points by name.
pub fn function(name: &str) -> Option<*mut c_void> {
    Some(match name {
        "clCreateSemaphoreWithPropertiesKHR" => create_semaphore_with_properties as *mut c_void,
        "clEnqueueWaitSemaphoresKHR" => enqueue_wait_semaphores as *mut c_void,
        "clEnqueueSignalSemaphoresKHR" => enqueue_signal_semaphores as *mut c_void,
        "clGetSemaphoreInfoKHR" => get_semaphore_info as *mut c_void,
        "clRetainSemaphoreKHR" => retain_semaphore as *mut c_void,
        "clReleaseSemaphoreKHR" => release_semaphore as *mut c_void,
        "clGetSemaphoreHandleForTypeKHR" => get_semaphore_handle_for_type as *mut c_void,
        _ => return None,
    })
}
