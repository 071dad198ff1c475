//! Object handles: NULL and wrong-type handles get the matching CL_INVALID_*
//! code (the error lists of each entry point in the OpenCL 3.0 API spec),
//! objects of another context get CL_INVALID_CONTEXT, and the implicit
//! references the spec defines keep objects alive (clReleaseContext,
//! clReleaseMemObject, clReleaseProgram in sections 4.4, 5.5 and 5.8).
//!
//! Handles of the wrong type are real ferrocl objects, so the ICD loader
//! dispatches the call to ferrocl, which must notice the type. Released
//! handles are not used: the spec leaves using a handle after its last
//! release undefined (the loader itself reads through the handle).

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const SRC: &str = r#"
__kernel void inc(__global uint* p) { p[get_global_id(0)] += 1u; }
"#;

struct Objects {
    e: Env,
    m: Mem,
    p: Prog,
    k: Kern,
    u: Ev,
}

fn objects() -> Objects {
    let e = Env::new();
    let m = e.buffer_from(&[0u32; 64]);
    let (p, k) = e.kernel(SRC, "inc");
    let u = Ev(ok(
        cl3::event::create_user_event(e.c()),
        "clCreateUserEvent",
    ));
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    Objects { e, m, p, k, u }
}

fn info_rc(f: impl FnOnce(usize, *mut c_void, *mut usize) -> cl_int) -> cl_int {
    let mut buf = [0u8; 256];
    let mut size = 0usize;
    f(buf.len(), buf.as_mut_ptr().cast(), &mut size)
}

// ---------------------------------------------------------------------------
// wrong-type handles

#[test]
fn context_used_as_queue_is_invalid_command_queue() {
    let o = objects();
    assert_code(
        cl!(clFinish(o.e.c())),
        CL_INVALID_COMMAND_QUEUE,
        "clFinish(context)",
    );
    assert_code(
        cl!(clFlush(o.m.get())),
        CL_INVALID_COMMAND_QUEUE,
        "clFlush(buffer)",
    );
    let rc = info_rc(|s, v, r| cl!(clGetCommandQueueInfo(o.e.c(), CL_QUEUE_CONTEXT, s, v, r)));
    assert_code(
        rc,
        CL_INVALID_COMMAND_QUEUE,
        "clGetCommandQueueInfo(context)",
    );
    let mut data = [0u32; 4];
    let rc = cl!(clEnqueueReadBuffer(
        o.e.c(),
        o.m.get(),
        CL_TRUE,
        0,
        16,
        data.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_COMMAND_QUEUE,
        "clEnqueueReadBuffer(context, ...)",
    );
}

#[test]
fn buffer_used_as_kernel_is_invalid_kernel() {
    let o = objects();
    let v = 0i32;
    let rc = cl!(clSetKernelArg(o.m.get(), 0, 4, (&v as *const i32).cast()));
    assert_code(rc, CL_INVALID_KERNEL, "clSetKernelArg(buffer)");
    let rc = info_rc(|s, v, r| cl!(clGetKernelInfo(o.p.get(), CL_KERNEL_NUM_ARGS, s, v, r)));
    assert_code(rc, CL_INVALID_KERNEL, "clGetKernelInfo(program)");
    let g = [1usize];
    let rc = cl!(clEnqueueNDRangeKernel(
        o.e.q(),
        o.m.get(),
        1,
        null(),
        g.as_ptr(),
        null(),
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_KERNEL,
        "clEnqueueNDRangeKernel(queue, buffer)",
    );
    let rc = cl!(clEnqueueTask(o.e.q(), o.p.get(), 0, null(), null_mut()));
    assert_code(rc, CL_INVALID_KERNEL, "clEnqueueTask(queue, program)");
}

#[test]
fn queue_used_as_context_is_invalid_context() {
    let o = objects();
    let mut rc = 0;
    let m = cl!(clCreateBuffer(
        o.e.q(),
        CL_MEM_READ_WRITE,
        64,
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreateBuffer(queue)");
    let rc = info_rc(|s, v, r| cl!(clGetContextInfo(o.e.q(), CL_CONTEXT_NUM_DEVICES, s, v, r)));
    assert_code(rc, CL_INVALID_CONTEXT, "clGetContextInfo(queue)");
    let mut rc = 0;
    let q = cl!(clCreateCommandQueueWithProperties(
        o.m.get(),
        device(),
        null(),
        &mut rc
    ));
    assert!(q.is_null());
    assert_code(
        rc,
        CL_INVALID_CONTEXT,
        "clCreateCommandQueueWithProperties(buffer)",
    );
    let mut rc = 0;
    let ev = cl!(clCreateUserEvent(o.k.get(), &mut rc));
    assert!(ev.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreateUserEvent(kernel)");
}

#[test]
fn wrong_object_as_mem_object_is_invalid_mem_object() {
    let o = objects();
    let rc = info_rc(|s, v, r| cl!(clGetMemObjectInfo(o.k.get(), CL_MEM_SIZE, s, v, r)));
    assert_code(rc, CL_INVALID_MEM_OBJECT, "clGetMemObjectInfo(kernel)");
    let mut data = [0u32; 4];
    let rc = cl!(clEnqueueReadBuffer(
        o.e.q(),
        o.e.c(),
        CL_TRUE,
        0,
        16,
        data.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_MEM_OBJECT,
        "clEnqueueReadBuffer(queue, context)",
    );
    let rc = cl!(clEnqueueCopyBuffer(
        o.e.q(),
        o.m.get(),
        o.p.get(),
        0,
        0,
        16,
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_MEM_OBJECT,
        "clEnqueueCopyBuffer(dst = program)",
    );
}

#[test]
fn wrong_object_as_program_is_invalid_program() {
    let o = objects();
    let rc = info_rc(|s, v, r| cl!(clGetProgramInfo(o.e.c(), CL_PROGRAM_NUM_DEVICES, s, v, r)));
    assert_code(rc, CL_INVALID_PROGRAM, "clGetProgramInfo(context)");
    let rc = cl!(clBuildProgram(
        o.k.get(),
        0,
        null(),
        null(),
        None,
        null_mut()
    ));
    assert_code(rc, CL_INVALID_PROGRAM, "clBuildProgram(kernel)");
    let mut rc = 0;
    let k = cl!(clCreateKernel(o.m.get(), c"inc".as_ptr(), &mut rc));
    assert!(k.is_null());
    assert_code(rc, CL_INVALID_PROGRAM, "clCreateKernel(buffer)");
}

#[test]
fn wrong_object_as_event_is_invalid_event() {
    let o = objects();
    let rc = info_rc(|s, v, r| cl!(clGetEventInfo(o.m.get(), CL_EVENT_COMMAND_TYPE, s, v, r)));
    assert_code(rc, CL_INVALID_EVENT, "clGetEventInfo(buffer)");
    let list = [o.e.q()];
    assert_code(
        cl!(clWaitForEvents(1, list.as_ptr())),
        CL_INVALID_EVENT,
        "clWaitForEvents([queue])",
    );
    assert_code(
        cl!(clSetUserEventStatus(o.k.get(), CL_COMPLETE)),
        CL_INVALID_EVENT,
        "clSetUserEventStatus(kernel)",
    );
}

#[test]
fn wrong_object_in_wait_list_is_invalid_event_wait_list() {
    let o = objects();
    let data = [0u32; 4];
    let list = [o.m.get()];
    let rc = cl!(clEnqueueWriteBuffer(
        o.e.q(),
        o.m.get(),
        CL_TRUE,
        0,
        16,
        data.as_ptr().cast(),
        1,
        list.as_ptr(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_EVENT_WAIT_LIST, "wait list holding a buffer");
}

#[test]
fn wrong_object_as_device_is_invalid_device() {
    let o = objects();
    let rc = info_rc(|s, v, r| cl!(clGetDeviceInfo(o.e.c(), CL_DEVICE_TYPE, s, v, r)));
    assert_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(context)");
    let rc = info_rc(|s, v, r| cl!(clGetDeviceInfo(platform(), CL_DEVICE_TYPE, s, v, r)));
    assert_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(platform)");
    let mut rc = 0;
    let q = cl!(clCreateCommandQueueWithProperties(
        o.e.c(),
        o.e.q(),
        null(),
        &mut rc
    ));
    assert!(q.is_null());
    assert_code(
        rc,
        CL_INVALID_DEVICE,
        "clCreateCommandQueueWithProperties(ctx, queue as device)",
    );
    let not_dev = o.e.c();
    let mut rc = 0;
    let c = cl!(clCreateContext(
        null(),
        1,
        &not_dev,
        None,
        null_mut(),
        &mut rc
    ));
    assert!(c.is_null());
    assert_code(
        rc,
        CL_INVALID_DEVICE,
        "clCreateContext([context as device])",
    );
}

#[test]
fn wrong_object_as_platform_is_invalid_platform() {
    let rc = info_rc(|s, v, r| cl!(clGetPlatformInfo(device(), CL_PLATFORM_NAME, s, v, r)));
    assert_code(rc, CL_INVALID_PLATFORM, "clGetPlatformInfo(device)");
    let mut n: cl_uint = 0;
    let rc = cl!(clGetDeviceIDs(
        device(),
        CL_DEVICE_TYPE_ALL,
        0,
        null_mut(),
        &mut n
    ));
    assert_code(rc, CL_INVALID_PLATFORM, "clGetDeviceIDs(device)");
}

#[test]
fn retain_of_wrong_object_type_is_rejected() {
    let o = objects();
    let counts = |o: &Objects| {
        (
            ok(context_info(o.e.c(), CL_CONTEXT_REFERENCE_COUNT), "ctx rc").u32(),
            ok(queue_info(o.e.q(), CL_QUEUE_REFERENCE_COUNT), "queue rc").u32(),
            ok(mem_info(o.m.get(), CL_MEM_REFERENCE_COUNT), "mem rc").u32(),
            ok(
                program_info(o.p.get(), CL_PROGRAM_REFERENCE_COUNT),
                "prog rc",
            )
            .u32(),
            ok(kernel_info(o.k.get(), CL_KERNEL_REFERENCE_COUNT), "kern rc").u32(),
        )
    };
    let before = counts(&o);
    assert_code(
        cl!(clRetainMemObject(o.e.c())),
        CL_INVALID_MEM_OBJECT,
        "clRetainMemObject(context)",
    );
    assert_code(
        cl!(clRetainKernel(o.p.get())),
        CL_INVALID_KERNEL,
        "clRetainKernel(program)",
    );
    assert_code(
        cl!(clRetainProgram(o.k.get())),
        CL_INVALID_PROGRAM,
        "clRetainProgram(kernel)",
    );
    assert_code(
        cl!(clRetainCommandQueue(o.m.get())),
        CL_INVALID_COMMAND_QUEUE,
        "clRetainCommandQueue(buffer)",
    );
    assert_code(
        cl!(clRetainContext(o.e.q())),
        CL_INVALID_CONTEXT,
        "clRetainContext(queue)",
    );
    assert_code(
        cl!(clRetainEvent(o.m.get())),
        CL_INVALID_EVENT,
        "clRetainEvent(buffer)",
    );
    assert_eq!(
        counts(&o),
        before,
        "a rejected retain changed a reference count"
    );
}

#[test]
fn release_of_wrong_object_type_is_rejected_and_changes_nothing() {
    let o = objects();
    // Extra references so that a wrongly accepted release cannot free anything.
    check(cl!(clRetainProgram(o.p.get())), "retain program");
    check(cl!(clRetainMemObject(o.m.get())), "retain buffer");
    assert_code(
        cl!(clReleaseKernel(o.p.get())),
        CL_INVALID_KERNEL,
        "clReleaseKernel(program)",
    );
    assert_code(
        cl!(clReleaseEvent(o.m.get())),
        CL_INVALID_EVENT,
        "clReleaseEvent(buffer)",
    );
    assert_eq!(
        ok(
            program_info(o.p.get(), CL_PROGRAM_REFERENCE_COUNT),
            "prog rc"
        )
        .u32(),
        2
    );
    assert_eq!(
        ok(mem_info(o.m.get(), CL_MEM_REFERENCE_COUNT), "mem rc").u32(),
        2
    );
    check(cl!(clReleaseProgram(o.p.get())), "release program");
    check(cl!(clReleaseMemObject(o.m.get())), "release buffer");
}

// ---------------------------------------------------------------------------
// NULL handles

#[test]
fn null_queue_is_invalid_command_queue() {
    assert_code(
        cl!(clFinish(null_mut())),
        CL_INVALID_COMMAND_QUEUE,
        "clFinish(NULL)",
    );
    assert_code(
        cl!(clFlush(null_mut())),
        CL_INVALID_COMMAND_QUEUE,
        "clFlush(NULL)",
    );
    assert_code(
        cl!(clRetainCommandQueue(null_mut())),
        CL_INVALID_COMMAND_QUEUE,
        "clRetainCommandQueue(NULL)",
    );
    assert_code(
        cl!(clReleaseCommandQueue(null_mut())),
        CL_INVALID_COMMAND_QUEUE,
        "clReleaseCommandQueue(NULL)",
    );
    let o = objects();
    let mut data = [0u32; 4];
    let rc = cl!(clEnqueueReadBuffer(
        null_mut(),
        o.m.get(),
        CL_TRUE,
        0,
        16,
        data.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_COMMAND_QUEUE,
        "clEnqueueReadBuffer(NULL, ...)",
    );
}

#[test]
fn null_context_is_invalid_context() {
    let rc = info_rc(|s, v, r| {
        cl!(clGetContextInfo(
            null_mut(),
            CL_CONTEXT_NUM_DEVICES,
            s,
            v,
            r
        ))
    });
    assert_code(rc, CL_INVALID_CONTEXT, "clGetContextInfo(NULL)");
    assert_code(
        cl!(clRetainContext(null_mut())),
        CL_INVALID_CONTEXT,
        "clRetainContext(NULL)",
    );
    assert_code(
        cl!(clReleaseContext(null_mut())),
        CL_INVALID_CONTEXT,
        "clReleaseContext(NULL)",
    );
    let mut rc = 0;
    let m = cl!(clCreateBuffer(
        null_mut(),
        CL_MEM_READ_WRITE,
        64,
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreateBuffer(NULL)");
    let mut rc = 0;
    let q = cl!(clCreateCommandQueueWithProperties(
        null_mut(),
        device(),
        null(),
        &mut rc
    ));
    assert!(q.is_null());
    assert_code(
        rc,
        CL_INVALID_CONTEXT,
        "clCreateCommandQueueWithProperties(NULL)",
    );
    assert_err(
        cl3::program::create_program_with_source(null_mut(), &[SRC]),
        CL_INVALID_CONTEXT,
        "clCreateProgramWithSource(NULL)",
    );
    let mut rc = 0;
    let u = cl!(clCreateUserEvent(null_mut(), &mut rc));
    assert!(u.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreateUserEvent(NULL)");
}

#[test]
fn null_mem_object_is_invalid_mem_object() {
    let rc = info_rc(|s, v, r| cl!(clGetMemObjectInfo(null_mut(), CL_MEM_SIZE, s, v, r)));
    assert_code(rc, CL_INVALID_MEM_OBJECT, "clGetMemObjectInfo(NULL)");
    assert_code(
        cl!(clRetainMemObject(null_mut())),
        CL_INVALID_MEM_OBJECT,
        "clRetainMemObject(NULL)",
    );
    assert_code(
        cl!(clReleaseMemObject(null_mut())),
        CL_INVALID_MEM_OBJECT,
        "clReleaseMemObject(NULL)",
    );
    let o = objects();
    let mut data = [0u32; 4];
    let rc = cl!(clEnqueueReadBuffer(
        o.e.q(),
        null_mut(),
        CL_TRUE,
        0,
        16,
        data.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_MEM_OBJECT, "clEnqueueReadBuffer(q, NULL)");
    let rc = cl!(clEnqueueCopyBuffer(
        o.e.q(),
        o.m.get(),
        null_mut(),
        0,
        0,
        16,
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_MEM_OBJECT, "clEnqueueCopyBuffer(dst NULL)");
    let region = cl_buffer_region {
        origin: 0,
        size: 16,
    };
    let mut rc = 0;
    let s = cl!(clCreateSubBuffer(
        null_mut(),
        0,
        CL_BUFFER_CREATE_TYPE_REGION,
        (&region as *const cl_buffer_region).cast(),
        &mut rc
    ));
    assert!(s.is_null());
    assert_code(rc, CL_INVALID_MEM_OBJECT, "clCreateSubBuffer(NULL)");
}

#[test]
fn null_program_is_invalid_program() {
    let rc = info_rc(|s, v, r| {
        cl!(clGetProgramInfo(
            null_mut(),
            CL_PROGRAM_NUM_DEVICES,
            s,
            v,
            r
        ))
    });
    assert_code(rc, CL_INVALID_PROGRAM, "clGetProgramInfo(NULL)");
    assert_code(
        cl!(clRetainProgram(null_mut())),
        CL_INVALID_PROGRAM,
        "clRetainProgram(NULL)",
    );
    assert_code(
        cl!(clReleaseProgram(null_mut())),
        CL_INVALID_PROGRAM,
        "clReleaseProgram(NULL)",
    );
    assert_code(
        cl!(clBuildProgram(
            null_mut(),
            0,
            null(),
            null(),
            None,
            null_mut()
        )),
        CL_INVALID_PROGRAM,
        "clBuildProgram(NULL)",
    );
    let mut rc = 0;
    let k = cl!(clCreateKernel(null_mut(), c"inc".as_ptr(), &mut rc));
    assert!(k.is_null());
    assert_code(rc, CL_INVALID_PROGRAM, "clCreateKernel(NULL)");
}

#[test]
fn null_kernel_is_invalid_kernel() {
    let rc = info_rc(|s, v, r| cl!(clGetKernelInfo(null_mut(), CL_KERNEL_NUM_ARGS, s, v, r)));
    assert_code(rc, CL_INVALID_KERNEL, "clGetKernelInfo(NULL)");
    assert_code(
        cl!(clRetainKernel(null_mut())),
        CL_INVALID_KERNEL,
        "clRetainKernel(NULL)",
    );
    assert_code(
        cl!(clReleaseKernel(null_mut())),
        CL_INVALID_KERNEL,
        "clReleaseKernel(NULL)",
    );
    let v = 0i32;
    assert_code(
        cl!(clSetKernelArg(null_mut(), 0, 4, (&v as *const i32).cast())),
        CL_INVALID_KERNEL,
        "clSetKernelArg(NULL)",
    );
    let o = objects();
    let g = [1usize];
    let rc = cl!(clEnqueueNDRangeKernel(
        o.e.q(),
        null_mut(),
        1,
        null(),
        g.as_ptr(),
        null(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_KERNEL, "clEnqueueNDRangeKernel(q, NULL)");
    let rc = cl!(clEnqueueTask(o.e.q(), null_mut(), 0, null(), null_mut()));
    assert_code(rc, CL_INVALID_KERNEL, "clEnqueueTask(q, NULL)");
}

#[test]
fn null_event_is_invalid_event() {
    let rc = info_rc(|s, v, r| cl!(clGetEventInfo(null_mut(), CL_EVENT_COMMAND_TYPE, s, v, r)));
    assert_code(rc, CL_INVALID_EVENT, "clGetEventInfo(NULL)");
    assert_code(
        cl!(clRetainEvent(null_mut())),
        CL_INVALID_EVENT,
        "clRetainEvent(NULL)",
    );
    assert_code(
        cl!(clReleaseEvent(null_mut())),
        CL_INVALID_EVENT,
        "clReleaseEvent(NULL)",
    );
    let list: [cl_event; 1] = [null_mut()];
    assert_code(
        cl!(clWaitForEvents(1, list.as_ptr())),
        CL_INVALID_EVENT,
        "clWaitForEvents([NULL])",
    );
    let o = objects();
    let list2 = [o.u.get(), null_mut()];
    assert_code(
        cl!(clWaitForEvents(2, list2.as_ptr())),
        CL_INVALID_EVENT,
        "clWaitForEvents([ev, NULL])",
    );
}

#[test]
fn null_event_in_wait_list_is_invalid_event_wait_list() {
    let o = objects();
    let data = [0u32; 4];
    let list: [cl_event; 1] = [null_mut()];
    let rc = cl!(clEnqueueWriteBuffer(
        o.e.q(),
        o.m.get(),
        CL_TRUE,
        0,
        16,
        data.as_ptr().cast(),
        1,
        list.as_ptr(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_EVENT_WAIT_LIST, "wait list [NULL]");
}

#[test]
fn null_device_is_invalid_device() {
    let rc = info_rc(|s, v, r| cl!(clGetDeviceInfo(null_mut(), CL_DEVICE_TYPE, s, v, r)));
    assert_code(rc, CL_INVALID_DEVICE, "clGetDeviceInfo(NULL)");
    let o = objects();
    let list: [cl_device_id; 1] = [null_mut()];
    let p = create_program(o.e.c(), SRC);
    let rc = cl!(clBuildProgram(
        p.get(),
        1,
        list.as_ptr(),
        null(),
        None,
        null_mut()
    ));
    assert_code(rc, CL_INVALID_DEVICE, "clBuildProgram(devices [NULL])");
}

// ---------------------------------------------------------------------------
// objects of another context

#[test]
fn buffer_of_another_context_is_invalid_context() {
    let a = Env::new();
    let b = Env::new();
    let mb = b.buffer(64);
    let ma = a.buffer(64);
    let mut data = [0u32; 16];
    let rc = cl!(clEnqueueReadBuffer(
        a.q(),
        mb.get(),
        CL_TRUE,
        0,
        64,
        data.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_CONTEXT, "read a buffer of another context");
    let rc = cl!(clEnqueueCopyBuffer(
        a.q(),
        ma.get(),
        mb.get(),
        0,
        0,
        64,
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_CONTEXT,
        "copy into a buffer of another context",
    );
}

#[test]
fn kernel_of_another_context_is_invalid_context() {
    let a = Env::new();
    let b = Env::new();
    let (_p, k) = b.kernel(SRC, "inc");
    let m = b.buffer(64);
    ok(set_mem(k.get(), 0, &m), "arg");
    assert_code(
        a.enqueue(&k, None, &[16], None),
        CL_INVALID_CONTEXT,
        "enqueue a kernel of another context",
    );
}

#[test]
fn kernel_arg_from_another_context_is_rejected() {
    // 3.0: "All OpenCL objects set as kernel arguments must be created from
    // the same context as the kernel object." The 3.0 error list has no
    // dedicated code (later revisions use CL_INVALID_CONTEXT); the buffer is
    // not a valid memory object for this kernel either.
    let a = Env::new();
    let b = Env::new();
    let (_p, k) = a.kernel(SRC, "inc");
    let m = b.buffer(64);
    assert_err_in(
        set_mem(k.get(), 0, &m),
        &[CL_INVALID_CONTEXT, CL_INVALID_MEM_OBJECT],
        "buffer of another context",
    );
}

// ---------------------------------------------------------------------------
// implicit references

#[test]
fn kernel_keeps_its_program_alive() {
    let e = Env::new();
    let (p, k) = e.kernel(SRC, "inc");
    let praw = p.get();
    drop(p); // the application's only program reference
    assert_eq!(
        ok(kernel_info(k.get(), CL_KERNEL_PROGRAM), "CL_KERNEL_PROGRAM").ptr(),
        praw
    );
    let m = e.buffer_from(&[1u32; 32]);
    ok(set_mem(k.get(), 0, &m), "arg");
    e.run(&k, &[32], None);
    assert_eq!(e.read::<u32>(&m, 0, 32), vec![2; 32]);
}

#[test]
fn queue_and_buffer_keep_their_context_alive() {
    let ctx = ok(create_context(null()), "clCreateContext");
    let q = ok(create_queue(ctx.get(), null()), "queue");
    let mut rc = 0;
    let m = Mem(cl!(clCreateBuffer(
        ctx.get(),
        CL_MEM_READ_WRITE,
        64,
        null_mut(),
        &mut rc
    )));
    check(rc, "clCreateBuffer");
    drop(ctx); // the application's only context reference
    let data: Vec<u32> = (0..16).collect();
    check(
        cl!(clEnqueueWriteBuffer(
            q.get(),
            m.get(),
            CL_TRUE,
            0,
            64,
            data.as_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "write",
    );
    let mut back = vec![0u32; 16];
    check(
        cl!(clEnqueueReadBuffer(
            q.get(),
            m.get(),
            CL_TRUE,
            0,
            64,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "read",
    );
    assert_eq!(back, data);
}

static PENDING_DTOR: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_pending_mem_destroyed(_m: cl_mem, _u: *mut c_void) {
    PENDING_DTOR.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn released_buffer_lives_until_its_commands_finish() {
    // "After the memobj reference count becomes zero and commands queued for
    // execution on a command-queue(s) that use memobj have finished, the
    // memory object is deleted."
    let e = Env::new();
    let m = e.buffer(4096).into_raw();
    check(
        cl!(clSetMemObjectDestructorCallback(
            m,
            Some(on_pending_mem_destroyed),
            null_mut()
        )),
        "destructor callback",
    );
    let u = Ev(ok(cl3::event::create_user_event(e.c()), "user event"));
    let data = vec![7u8; 4096];
    let mut w = null_mut();
    check(
        cl!(clEnqueueWriteBuffer(
            e.q(),
            m,
            CL_FALSE,
            0,
            4096,
            data.as_ptr().cast(),
            1,
            &u.0,
            &mut w
        )),
        "gated write",
    );
    let w = ev(w);
    check(
        cl!(clReleaseMemObject(m)),
        "release while a command is pending",
    );
    check(cl!(clFlush(e.q())), "flush");
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(
        PENDING_DTOR.load(Ordering::SeqCst),
        0,
        "buffer deleted while a command using it was pending"
    );
    check(
        cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)),
        "release the gate",
    );
    w.wait();
    e.finish();
    let t = Instant::now();
    while PENDING_DTOR.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(
        PENDING_DTOR.load(Ordering::SeqCst),
        1,
        "buffer not deleted after its last command finished"
    );
}
