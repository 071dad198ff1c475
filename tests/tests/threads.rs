//! Thread safety (OpenCL 3.0 API spec, appendix A.2 "Multiple Host
//! Threads"): every API call is thread-safe except clSetKernelArg,
//! clSetKernelArgSVMPointer, clSetKernelExecInfo and clCloneKernel, which are
//! safe as long as concurrent calls use different cl_kernel objects. Several
//! threads share one context here; each uses its own kernels.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

const THREADS: usize = 6;
const ROUNDS: usize = 3;

const SRC: &str = r#"
__kernel void affine(__global const uint* in, __global uint* out, uint a) {
    size_t i = get_global_id(0);
    out[i] = in[i] * a + (uint)MAGIC;
}
"#;

fn expected(input: &[u32], a: u32, magic: u32) -> Vec<u32> {
    input
        .iter()
        .map(|&x| x.wrapping_mul(a).wrapping_add(magic))
        .collect()
}

#[test]
fn threads_create_buffers_build_programs_and_run_kernels_on_own_queues() {
    let ctx = ok(create_context(null()), "clCreateContext");
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let c = ctx.get() as usize;
            s.spawn(move || {
                let c = c as cl_context;
                let q = ok(create_queue(c, null()), "queue");
                for r in 0..ROUNDS {
                    let magic = (t * 100 + r) as u32;
                    let prog = match build(c, SRC, &format!("-D MAGIC={magic}")) {
                        Ok(p) => p,
                        Err(f) => panic!("thread {t} round {r}: {f}"),
                    };
                    let k = ok(create_kernel(prog.get(), "affine"), "kernel");
                    let n = 10_000 + t * 1000 + r;
                    let input: Vec<u32> = (0..n as u32).map(|i| i ^ (t as u32 * 7919)).collect();
                    let mut rc = 0;
                    let inb = Mem(cl!(clCreateBuffer(
                        c,
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        n * 4,
                        input.as_ptr() as *mut _,
                        &mut rc
                    )));
                    check(rc, "input buffer");
                    let out = Mem(cl!(clCreateBuffer(
                        c,
                        CL_MEM_WRITE_ONLY,
                        n * 4,
                        null_mut(),
                        &mut rc
                    )));
                    check(rc, "output buffer");
                    let a = (t + r + 3) as u32;
                    ok(set_mem(k.get(), 0, &inb), "arg 0");
                    ok(set_mem(k.get(), 1, &out), "arg 1");
                    ok(set_arg(k.get(), 2, &a), "arg 2");
                    let g = [n];
                    check(
                        cl!(clEnqueueNDRangeKernel(
                            q.get(),
                            k.get(),
                            1,
                            null(),
                            g.as_ptr(),
                            null(),
                            0,
                            null(),
                            null_mut()
                        )),
                        "ndrange",
                    );
                    let mut back = vec![0u32; n];
                    check(
                        cl!(clEnqueueReadBuffer(
                            q.get(),
                            out.get(),
                            CL_TRUE,
                            0,
                            n * 4,
                            back.as_mut_ptr().cast(),
                            0,
                            null(),
                            null_mut()
                        )),
                        "read",
                    );
                    assert_eq!(back, expected(&input, a, magic), "thread {t} round {r}");
                }
            });
        }
    });
}

#[test]
fn threads_share_one_program_with_own_kernels() {
    let e = Env::new();
    let prog = e.program(SRC, "-D MAGIC=5");
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let (c, p) = (e.c() as usize, prog.get() as usize);
            s.spawn(move || {
                let (c, p) = (c as cl_context, p as cl_program);
                let q = ok(create_queue(c, null()), "queue");
                let k = ok(create_kernel(p, "affine"), "kernel");
                for r in 0..ROUNDS {
                    let n = 4096 + r * 17;
                    let input: Vec<u32> = (0..n as u32).map(|i| i * (t as u32 + 1)).collect();
                    let mut rc = 0;
                    let inb = Mem(cl!(clCreateBuffer(
                        c,
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        n * 4,
                        input.as_ptr() as *mut _,
                        &mut rc
                    )));
                    check(rc, "input");
                    let out = Mem(cl!(clCreateBuffer(
                        c,
                        CL_MEM_READ_WRITE,
                        n * 4,
                        null_mut(),
                        &mut rc
                    )));
                    check(rc, "output");
                    let a = 3 + t as u32;
                    ok(set_mem(k.get(), 0, &inb), "arg 0");
                    ok(set_mem(k.get(), 1, &out), "arg 1");
                    ok(set_arg(k.get(), 2, &a), "arg 2");
                    let g = [n];
                    check(
                        cl!(clEnqueueNDRangeKernel(
                            q.get(),
                            k.get(),
                            1,
                            null(),
                            g.as_ptr(),
                            null(),
                            0,
                            null(),
                            null_mut()
                        )),
                        "ndrange",
                    );
                    let mut back = vec![0u32; n];
                    check(
                        cl!(clEnqueueReadBuffer(
                            q.get(),
                            out.get(),
                            CL_TRUE,
                            0,
                            n * 4,
                            back.as_mut_ptr().cast(),
                            0,
                            null(),
                            null_mut()
                        )),
                        "read",
                    );
                    assert_eq!(back, expected(&input, a, 5), "thread {t} round {r}");
                }
            });
        }
    });
}

#[test]
fn threads_enqueue_on_one_shared_queue() {
    let e = Env::new();
    let prog = e.program(SRC, "-D MAGIC=11");
    let n = 8192;
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let e = &e;
            let prog = &prog;
            s.spawn(move || {
                let k = ok(create_kernel(prog.get(), "affine"), "kernel");
                let input: Vec<u32> = (0..n as u32).map(|i| i + t as u32).collect();
                let inb = e.buffer_from(&input);
                let out = e.buffer(n * 4);
                ok(set_mem(k.get(), 0, &inb), "arg 0");
                ok(set_mem(k.get(), 1, &out), "arg 1");
                ok(set_arg(k.get(), 2, &7u32), "arg 2");
                for _ in 0..ROUNDS {
                    check(
                        e.enqueue(&k, None, &[n], None),
                        "ndrange on the shared queue",
                    );
                }
                // A blocking read on an in-order queue follows this thread's
                // kernels.
                assert_eq!(
                    e.read::<u32>(&out, 0, n),
                    expected(&input, 7, 11),
                    "thread {t}"
                );
            });
        }
    });
    e.finish();
}

#[test]
fn threads_retain_and_release_one_buffer() {
    let e = Env::new();
    let m = e.buffer(64);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            let h = m.get() as usize;
            s.spawn(move || {
                let h = h as cl_mem;
                for _ in 0..1000 {
                    check(cl!(clRetainMemObject(h)), "retain");
                    check(cl!(clReleaseMemObject(h)), "release");
                }
            });
        }
    });
    assert_eq!(
        ok(mem_info(m.get(), CL_MEM_REFERENCE_COUNT), "REFERENCE_COUNT").u32(),
        1
    );
}

#[test]
fn threads_create_and_release_contexts_and_queues() {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for r in 0..20 {
                    let c = ok(create_context(null()), "context");
                    let q = ok(create_queue(c.get(), null()), "queue");
                    let mut rc = 0;
                    let m = Mem(cl!(clCreateBuffer(
                        c.get(),
                        CL_MEM_READ_WRITE,
                        256,
                        null_mut(),
                        &mut rc
                    )));
                    check(rc, "buffer");
                    let pat = (t * 1000 + r) as u32;
                    check(
                        cl!(clEnqueueFillBuffer(
                            q.get(),
                            m.get(),
                            (&pat as *const u32).cast(),
                            4,
                            0,
                            256,
                            0,
                            null(),
                            null_mut()
                        )),
                        "fill",
                    );
                    let mut back = [0u32; 64];
                    check(
                        cl!(clEnqueueReadBuffer(
                            q.get(),
                            m.get(),
                            CL_TRUE,
                            0,
                            256,
                            back.as_mut_ptr().cast(),
                            0,
                            null(),
                            null_mut()
                        )),
                        "read",
                    );
                    assert!(back.iter().all(|&v| v == pat), "thread {t} round {r}");
                }
            });
        }
    });
}

#[test]
fn threads_wait_on_one_user_event() {
    let e = Env::new();
    let u = Ev(ok(cl3::event::create_user_event(e.c()), "user event"));
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            let h = u.get() as usize;
            s.spawn(move || {
                let h = h as cl_event;
                check(cl!(clWaitForEvents(1, &h)), "clWaitForEvents");
                assert_eq!(
                    ok(event_info(h, CL_EVENT_COMMAND_EXECUTION_STATUS), "status").i32(),
                    CL_COMPLETE
                );
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
        check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    });
}
