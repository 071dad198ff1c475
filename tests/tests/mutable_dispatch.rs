//! `cl_khr_command_buffer_mutable_dispatch` 0.9.5 over
//! `cl_khr_command_buffer` 0.9.8: ND-ranges recorded into a mutable
//! command buffer take new arguments, sizes and offsets between enqueues.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type CbHandle = *mut c_void;
type MutHandle = *mut c_void;

type CreateFn = unsafe extern "C" fn(
    cl_uint,
    *const cl_command_queue,
    *const cl_ulong,
    *mut cl_int,
) -> CbHandle;
type HandleFn = unsafe extern "C" fn(CbHandle) -> cl_int;
type EnqueueFn = unsafe extern "C" fn(
    cl_uint,
    *mut cl_command_queue,
    CbHandle,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type NdRangeFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *const usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut MutHandle,
) -> cl_int;
type UpdateFn =
    unsafe extern "C" fn(CbHandle, cl_uint, *const cl_uint, *const *const c_void) -> cl_int;
type InfoFn = unsafe extern "C" fn(*mut c_void, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

const CL_COMMAND_BUFFER_FLAGS_KHR: cl_ulong = 0x1293;
const CL_COMMAND_BUFFER_MUTABLE_KHR: cl_ulong = 1 << 1;
const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
const CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR: cl_uint = 1;
const CL_COMMAND_BUFFER_STATE_FINALIZED_KHR: cl_uint = 2;
const CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR: cl_ulong = 0x12B1;
const CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR: cl_ulong = 1 << 1;
const CL_MUTABLE_DISPATCH_ARGUMENTS_KHR: cl_ulong = 1 << 3;
const CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR: cl_uint = 0x12B0;
const CL_INVALID_MUTABLE_COMMAND_KHR: cl_int = -1141;
const CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A1;
const CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR: cl_uint = 0x12AD;
const CL_MUTABLE_DISPATCH_KERNEL_KHR: cl_uint = 0x12A3;
const CL_MUTABLE_DISPATCH_DIMENSIONS_KHR: cl_uint = 0x12A4;
const CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR: cl_uint = 0x12A6;

#[repr(C)]
struct Arg {
    index: cl_uint,
    size: usize,
    value: *const c_void,
}

#[repr(C)]
struct Config {
    command: MutHandle,
    num_args: cl_uint,
    num_svm_args: cl_uint,
    num_exec_infos: cl_uint,
    work_dim: cl_uint,
    arg_list: *const Arg,
    arg_svm_list: *const Arg,
    exec_info_list: *const c_void,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
}

impl Config {
    fn new(command: MutHandle) -> Config {
        Config {
            command,
            num_args: 0,
            num_svm_args: 0,
            num_exec_infos: 0,
            work_dim: 0,
            arg_list: null(),
            arg_svm_list: null(),
            exec_info_list: null(),
            global_work_offset: null(),
            global_work_size: null(),
            local_work_size: null(),
        }
    }
    fn args(mut self, args: &[Arg]) -> Config {
        self.num_args = args.len() as cl_uint;
        self.arg_list = args.as_ptr();
        self
    }
}

struct Ext {
    create: CreateFn,
    finalize: HandleFn,
    release: HandleFn,
    enqueue: EnqueueFn,
    ndrange: NdRangeFn,
    update: UpdateFn,
    info: InfoFn,
    command_info: InfoFn,
}

fn ext() -> Ext {
    Ext {
        create: extension_function("clCreateCommandBufferKHR"),
        finalize: extension_function("clFinalizeCommandBufferKHR"),
        release: extension_function("clReleaseCommandBufferKHR"),
        enqueue: extension_function("clEnqueueCommandBufferKHR"),
        ndrange: extension_function("clCommandNDRangeKernelKHR"),
        update: extension_function("clUpdateMutableCommandsKHR"),
        info: extension_function("clGetCommandBufferInfoKHR"),
        command_info: extension_function("clGetMutableCommandInfoKHR"),
    }
}

const ADD: &str = "__kernel void add(__global int* p, int v) { p[get_global_id(0)] += v; }";

fn create(x: &Ext, q: cl_command_queue, mutable: bool) -> CbHandle {
    let props = [
        CL_COMMAND_BUFFER_FLAGS_KHR,
        if mutable {
            CL_COMMAND_BUFFER_MUTABLE_KHR
        } else {
            0
        },
        0,
    ];
    let mut rc = 0;
    let cb = unsafe { (x.create)(1, [q].as_ptr(), props.as_ptr(), &mut rc) };
    check(rc, "clCreateCommandBufferKHR");
    cb
}

/// Records `k` over `n` items, updatable in `fields` (all if `None`).
fn record(
    x: &Ext,
    cb: CbHandle,
    k: &Kern,
    n: usize,
    fields: Option<cl_ulong>,
) -> Result<MutHandle, cl_int> {
    let props = fields.map(|f| [CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR, f, 0]);
    let mut handle = null_mut();
    let rc = unsafe {
        (x.ndrange)(
            cb,
            null_mut(),
            props.as_ref().map_or(null(), |p| p.as_ptr()),
            k.get(),
            1,
            null(),
            [n].as_ptr(),
            null(),
            0,
            null(),
            null_mut(),
            &mut handle,
        )
    };
    result(rc, handle)
}

fn update(x: &Ext, cb: CbHandle, configs: &[&Config]) -> cl_int {
    let types = vec![0 as cl_uint; configs.len()];
    let ptrs: Vec<*const c_void> = configs
        .iter()
        .map(|c| (*c as *const Config).cast())
        .collect();
    unsafe { (x.update)(cb, configs.len() as cl_uint, types.as_ptr(), ptrs.as_ptr()) }
}

fn run(x: &Ext, e: &Env, cb: CbHandle) {
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        "clEnqueueCommandBufferKHR",
    );
    e.finish();
}

fn state(x: &Ext, cb: CbHandle) -> cl_uint {
    let mut s: cl_uint = 99;
    check(
        unsafe {
            (x.info)(
                cb,
                CL_COMMAND_BUFFER_STATE_KHR,
                4,
                (&mut s as *mut cl_uint).cast(),
                null_mut(),
            )
        },
        "state",
    );
    s
}

fn value_arg(index: cl_uint, v: &i32) -> Arg {
    Arg {
        index,
        size: 4,
        value: (v as *const i32).cast(),
    }
}

fn mem_arg(index: cl_uint, m: &cl_mem) -> Arg {
    Arg {
        index,
        size: std::mem::size_of::<cl_mem>(),
        value: (m as *const cl_mem).cast(),
    }
}

#[test]
fn the_device_reports_both_extensions_at_their_versions() {
    let with = ok(
        device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION),
        "with version",
    )
    .name_versions();
    let version = |name: &str| {
        with.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| version_parts(*v))
    };
    assert_eq!(version("cl_khr_command_buffer"), Some((0, 9, 8)));
    assert_eq!(
        version("cl_khr_command_buffer_mutable_dispatch"),
        Some((0, 9, 5))
    );
    let caps = ok(
        device_info(device(), CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR),
        "caps",
    )
    .u64();
    assert_eq!(caps, 0x1f, "every field can be updated");
}

#[test]
fn arguments_and_sizes_change_between_enqueues() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 32]);
    let b = e.buffer_from(&[0i32; 32]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    let cb = create(&x, e.q(), true);
    let cmd = ok(record(&x, cb, &k, 16, None), "record");
    check(unsafe { (x.finalize)(cb) }, "finalize");
    run(&x, &e, cb);
    assert_eq!(
        e.read::<i32>(&a, 0, 32)[..17],
        [[1; 16].as_slice(), &[0]].concat()
    );
    // b += 10 over 32 items; a is left alone.
    let (ten, bm) = (10i32, b.get());
    let args = [mem_arg(0, &bm), value_arg(1, &ten)];
    let size = [32usize];
    let mut config = Config::new(cmd).args(&args);
    config.global_work_size = size.as_ptr();
    check(update(&x, cb, &[&config]), "update");
    run(&x, &e, cb);
    assert_eq!(e.read::<i32>(&b, 0, 32), vec![10; 32]);
    assert_eq!(
        e.read::<i32>(&a, 0, 32)[..17],
        [[1; 16].as_slice(), &[0]].concat()
    );
    // The kernel object itself did not change.
    e.run(&k, &[4], None);
    assert_eq!(e.read::<i32>(&a, 0, 4), vec![2; 4]);
    // What the command reports.
    let query = |name| query(|s, v, r| unsafe { (x.command_info)(cmd, name, s, v, r) });
    assert_eq!(
        ok(query(CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR), "size").usizes(),
        vec![32]
    );
    assert_eq!(
        ok(query(CL_MUTABLE_DISPATCH_DIMENSIONS_KHR), "dims").u32(),
        1
    );
    assert_eq!(
        ok(query(CL_MUTABLE_DISPATCH_KERNEL_KHR), "kernel").ptr(),
        k.get()
    );
    assert_eq!(
        ok(query(CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR), "cb").ptr(),
        cb
    );
    assert_eq!(
        ok(query(CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR), "type").u32(),
        CL_COMMAND_NDRANGE_KERNEL
    );
    check(unsafe { (x.release)(cb) }, "release");
    // The command went with its buffer.
    assert_err(
        query(CL_MUTABLE_DISPATCH_DIMENSIONS_KHR),
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "after release",
    );
}

#[test]
fn an_update_leaves_an_enqueue_made_before_it_as_it_was() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    let cb = create(&x, e.q(), true);
    let cmd = ok(record(&x, cb, &k, 8, None), "record");
    check(unsafe { (x.finalize)(cb) }, "finalize");
    let mut rc = 0;
    let gate = Ev(cl!(clCreateUserEvent(e.c(), &mut rc)));
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 1, &gate.get(), null_mut()) },
        "enqueue behind a user event",
    );
    let hundred = 100i32;
    let args = [value_arg(1, &hundred)];
    check(update(&x, cb, &[&Config::new(cmd).args(&args)]), "update");
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        "enqueue after the update",
    );
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    e.finish();
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![101; 8]);
    check(unsafe { (x.release)(cb) }, "release");
}

#[test]
fn a_failed_update_keeps_none_of_the_calls_updates() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    let cb = create(&x, e.q(), true);
    let first = ok(record(&x, cb, &k, 8, None), "record");
    let only_size = ok(
        record(&x, cb, &k, 8, Some(CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR)),
        "record",
    );
    check(unsafe { (x.finalize)(cb) }, "finalize");
    let (five, bad_index) = (5i32, 7i32);
    let good = [value_arg(1, &five)];
    let bad = [value_arg(9, &bad_index)];
    assert_code(
        update(
            &x,
            cb,
            &[
                &Config::new(first).args(&good),
                &Config::new(first).args(&bad),
            ],
        ),
        CL_INVALID_ARG_INDEX,
        "an argument the kernel does not have",
    );
    // Arguments of a command recorded with only its size updatable.
    assert_code(
        update(
            &x,
            cb,
            &[
                &Config::new(first).args(&good),
                &Config::new(only_size).args(&good),
            ],
        ),
        CL_INVALID_OPERATION,
        "a field not updatable",
    );
    assert_code(
        update(&x, cb, &[&Config::new(a.get().cast())]),
        CL_INVALID_MUTABLE_COMMAND_KHR,
        "not a mutable command",
    );
    run(&x, &e, cb);
    assert_eq!(
        e.read::<i32>(&a, 0, 8),
        vec![2; 8],
        "both commands still add 1"
    );
    check(unsafe { (x.release)(cb) }, "release");
}

#[test]
fn an_immutable_or_recording_buffer_takes_no_update() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    let one = 1i32;
    let args = [value_arg(1, &one)];
    for mutable in [true, false] {
        let cb = create(&x, e.q(), mutable);
        let cmd = ok(record(&x, cb, &k, 8, None), "record");
        assert_code(
            update(&x, cb, &[&Config::new(cmd).args(&args)]),
            CL_INVALID_OPERATION,
            "while recording",
        );
        check(unsafe { (x.finalize)(cb) }, "finalize");
        if !mutable {
            assert_code(
                update(&x, cb, &[&Config::new(cmd).args(&args)]),
                CL_INVALID_OPERATION,
                "an immutable buffer",
            );
        }
        check(unsafe { (x.release)(cb) }, "release");
    }
}

#[test]
fn arguments_set_only_after_finalizing_make_the_buffer_executable() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[3i32; 8]);
    let cb = create(&x, e.q(), true);
    // No argument set yet: allowed where arguments can be updated.
    let cmd = ok(
        record(&x, cb, &k, 8, Some(CL_MUTABLE_DISPATCH_ARGUMENTS_KHR)),
        "record",
    );
    check(unsafe { (x.finalize)(cb) }, "finalize");
    assert_eq!(state(&x, cb), CL_COMMAND_BUFFER_STATE_FINALIZED_KHR);
    assert_code(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        CL_INVALID_OPERATION,
        "enqueue with arguments unset",
    );
    let (am, four) = (a.get(), 4i32);
    let args = [mem_arg(0, &am), value_arg(1, &four)];
    check(update(&x, cb, &[&Config::new(cmd).args(&args)]), "update");
    assert_eq!(state(&x, cb), CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR);
    run(&x, &e, cb);
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![7; 8]);
    // Where arguments cannot be updated, unset arguments are an error.
    let cb2 = create(&x, e.q(), true);
    let (_p2, k2) = e.kernel(ADD, "add");
    assert_err(
        record(&x, cb2, &k2, 8, Some(CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR)),
        CL_INVALID_KERNEL_ARGS,
        "unset arguments, not updatable",
    );
    check(unsafe { (x.release)(cb2) }, "release");
    check(unsafe { (x.release)(cb) }, "release");
}
