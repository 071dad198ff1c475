//! Shared virtual memory: coarse- and fine-grained SVM buffers and
//! fine-grained system SVM, their commands with events and wait lists,
//! SVM pointers as kernel arguments (and pointers kernels follow inside
//! SVM data), buffers over SVM memory, the command-buffer SVM commands,
//! and every bad input the spec names.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

fn svm_alloc(e: &Env, flags: cl_svm_mem_flags, size: usize, align: cl_uint) -> *mut u8 {
    cl!(clSVMAlloc(e.c(), flags, size, align)) as *mut u8
}

/// An allocation of `size` bytes the test frees at the end.
struct Svm<'a> {
    e: &'a Env,
    p: *mut u8,
}

impl<'a> Svm<'a> {
    #[track_caller]
    fn new(e: &'a Env, flags: cl_svm_mem_flags, size: usize) -> Svm<'a> {
        let p = svm_alloc(e, flags, size, 0);
        assert!(!p.is_null(), "clSVMAlloc({flags:#x}, {size}) failed");
        Svm { e, p }
    }

    fn at(&self, offset: usize) -> *mut c_void {
        self.p.wrapping_add(offset).cast()
    }
}

impl Drop for Svm<'_> {
    fn drop(&mut self) {
        cl!(clSVMFree(self.e.c(), self.p.cast()));
    }
}

fn user_event(e: &Env) -> Ev {
    let mut rc = 0;
    let u = cl!(clCreateUserEvent(e.c(), &mut rc));
    check(rc, "clCreateUserEvent");
    Ev(u)
}

fn command_type(ev: &Ev) -> cl_command_type {
    ok(
        event_info(ev.get(), CL_EVENT_COMMAND_TYPE),
        "CL_EVENT_COMMAND_TYPE",
    )
    .u32()
}

fn memcpy(e: &Env, blocking: bool, dst: *mut c_void, src: *const c_void, size: usize) -> cl_int {
    cl!(clEnqueueSVMMemcpy(
        e.q(),
        blocking as cl_bool,
        dst,
        src,
        size,
        0,
        null(),
        null_mut()
    ))
}

fn fill(e: &Env, ptr: *mut c_void, pattern: &[u8], size: usize) -> cl_int {
    cl!(clEnqueueSVMMemFill(
        e.q(),
        ptr,
        pattern.as_ptr().cast(),
        pattern.len(),
        size,
        0,
        null(),
        null_mut()
    ))
}

fn finish(e: &Env) {
    check(cl!(clFinish(e.q())), "clFinish");
}

#[test]
fn the_device_reports_svm_buffers_system_svm_and_atomics() {
    let caps = ok(
        device_info(device(), CL_DEVICE_SVM_CAPABILITIES),
        "CL_DEVICE_SVM_CAPABILITIES",
    )
    .u64();
    assert_eq!(
        caps,
        CL_DEVICE_SVM_COARSE_GRAIN_BUFFER
            | CL_DEVICE_SVM_FINE_GRAIN_BUFFER
            | CL_DEVICE_SVM_FINE_GRAIN_SYSTEM
            | CL_DEVICE_SVM_ATOMICS
    );
}

#[test]
fn allocations_are_aligned_usable_and_freed() {
    let e = Env::new();
    for flags in [
        CL_MEM_READ_WRITE,
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
        CL_MEM_SVM_FINE_GRAIN_BUFFER,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
    ] {
        let p = svm_alloc(&e, flags, 1000, 0);
        assert!(!p.is_null(), "flags {flags:#x}");
        // The default alignment is the largest data type's, long16.
        assert_eq!(p as usize % 128, 0);
        // The host may use fine-grained (and, mapped, coarse) memory.
        unsafe { std::ptr::write_bytes(p, 0x5a, 1000) };
        cl!(clSVMFree(e.c(), p.cast()));
    }
    let p = svm_alloc(&e, CL_MEM_READ_WRITE, 64, 4096);
    assert!(!p.is_null() && p as usize % 4096 == 0);
    cl!(clSVMFree(e.c(), p.cast()));
    // Freeing NULL, twice, or what SVM never allocated does nothing.
    cl!(clSVMFree(e.c(), null_mut()));
    cl!(clSVMFree(e.c(), p.cast()));
    let mut own = [0u8; 8];
    cl!(clSVMFree(e.c(), own.as_mut_ptr().cast()));
}

#[test]
fn allocation_refuses_bad_flags_sizes_alignments_and_contexts() {
    let e = Env::new();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE),
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
    )
    .u64() as usize;
    // The same allocation with valid arguments succeeds.
    let good = svm_alloc(&e, CL_MEM_READ_WRITE, 64, 0);
    assert!(!good.is_null());
    cl!(clSVMFree(e.c(), good.cast()));
    for (flags, size, align, what) in [
        (CL_MEM_READ_WRITE, 0, 0, "size 0"),
        (
            CL_MEM_READ_WRITE,
            max + 1,
            0,
            "larger than the largest allocation",
        ),
        (CL_MEM_READ_WRITE, 64, 3, "alignment not a power of two"),
        (
            CL_MEM_READ_WRITE | CL_MEM_READ_ONLY,
            64,
            0,
            "two access flags",
        ),
        (1 << 40, 64, 0, "an unknown flag"),
        (CL_MEM_USE_HOST_PTR, 64, 0, "a buffer-only flag"),
        // SVM atomics need fine grain.
        (CL_MEM_SVM_ATOMICS, 64, 0, "atomics without fine grain"),
    ] {
        assert!(svm_alloc(&e, flags, size, align).is_null(), "{what}");
    }
    assert!(cl!(clSVMAlloc(null_mut(), CL_MEM_READ_WRITE, 64, 0)).is_null());
    // Freeing NULL does nothing.
    let ctx = ok(create_context(null()), "clCreateContext");
    let live = cl!(clSVMAlloc(ctx.get(), CL_MEM_READ_WRITE, 64, 0));
    assert!(!live.is_null());
    cl!(clSVMFree(ctx.get(), live));
    cl!(clSVMFree(ctx.get(), null_mut()));
}

#[test]
fn fill_and_memcpy_wait_for_their_wait_lists_and_report_their_types() {
    let e = Env::new();
    let n = 4096;
    let a = Svm::new(&e, CL_MEM_READ_WRITE, n);
    let b = Svm::new(&e, CL_MEM_READ_WRITE, n);
    let gate = user_event(&e);
    let mut fills = [null_mut(); 2];
    let pattern = [1u8, 2, 3, 4];
    check(
        cl!(clEnqueueSVMMemFill(
            e.q(),
            a.at(0),
            pattern.as_ptr().cast(),
            4,
            n,
            1,
            &gate.get(),
            &mut fills[0]
        )),
        "clEnqueueSVMMemFill",
    );
    let zero = [0u8; 16];
    check(
        cl!(clEnqueueSVMMemFill(
            e.q(),
            b.at(0),
            zero.as_ptr().cast(),
            16,
            n,
            1,
            &gate.get(),
            &mut fills[1]
        )),
        "clEnqueueSVMMemFill",
    );
    let fills = fills.map(Ev);
    // A copy of the middle of `a` into the middle of `b`, after both fills.
    let mut copy = null_mut();
    check(
        cl!(clEnqueueSVMMemcpy(
            e.q(),
            CL_FALSE,
            b.at(1001),
            a.at(100),
            2000,
            2,
            [fills[0].get(), fills[1].get()].as_ptr(),
            &mut copy
        )),
        "clEnqueueSVMMemcpy",
    );
    let copy = Ev(copy);
    check(cl!(clFlush(e.q())), "clFlush");
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert!(fills[0].status() > CL_COMPLETE && copy.status() > CL_COMPLETE);
    check(
        cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)),
        "clSetUserEventStatus",
    );
    // A blocking copy back to host memory, after the copy.
    let mut host = vec![0xffu8; n];
    check(
        cl!(clEnqueueSVMMemcpy(
            e.q(),
            CL_TRUE,
            host.as_mut_ptr().cast(),
            b.at(0),
            n,
            1,
            &copy.get(),
            null_mut()
        )),
        "clEnqueueSVMMemcpy to the host",
    );
    for (i, &v) in host.iter().enumerate() {
        let want = if (1001..3001).contains(&i) {
            pattern[(i - 1001 + 100) % 4]
        } else {
            0
        };
        assert_eq!(v, want, "byte {i}");
    }
    assert_eq!(command_type(&fills[0]), CL_COMMAND_SVM_MEMFILL);
    assert_eq!(command_type(&copy), CL_COMMAND_SVM_MEMCPY);
    // Host to SVM and host to host.
    let src: Vec<u8> = (0..64).collect();
    let mut dst = vec![0u8; 64];
    check(
        memcpy(&e, true, a.at(64), src.as_ptr().cast(), 64),
        "to SVM",
    );
    check(
        memcpy(&e, true, dst.as_mut_ptr().cast(), a.at(64), 64),
        "from SVM",
    );
    assert_eq!(dst, src);
    let mut dst2 = vec![0u8; 64];
    check(
        memcpy(&e, true, dst2.as_mut_ptr().cast(), dst.as_ptr().cast(), 64),
        "host to host",
    );
    assert_eq!(dst2, src);
}

#[test]
fn memcpy_refuses_null_pointers_overlap_and_ranges_past_an_allocation() {
    let e = Env::new();
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 256);
    let mut host = [0u8; 256];
    let h = host.as_mut_ptr().cast::<c_void>();
    assert_code(
        memcpy(&e, true, null_mut(), a.at(0), 16),
        CL_INVALID_VALUE,
        "NULL dst",
    );
    assert_code(
        memcpy(&e, true, a.at(0), null(), 16),
        CL_INVALID_VALUE,
        "NULL src",
    );
    for (dst, src) in [(a.at(8), a.at(0)), (a.at(0), a.at(8)), (a.at(0), a.at(0))] {
        assert_code(
            memcpy(&e, true, dst, src, 16),
            CL_MEM_COPY_OVERLAP,
            "overlap",
        );
    }
    // Starts in the allocation, ends past it.
    assert_code(
        memcpy(&e, true, h, a.at(200), 100),
        CL_INVALID_VALUE,
        "a range past the allocation",
    );
    // Nothing to copy is no error.
    check(memcpy(&e, true, h, a.at(0), 0), "an empty copy");
    assert_code(
        cl!(clEnqueueSVMMemcpy(
            e.q(),
            CL_TRUE,
            h,
            a.at(0),
            16,
            1,
            null(),
            null_mut()
        )),
        CL_INVALID_EVENT_WAIT_LIST,
        "a wait list without events",
    );
    assert_code(
        cl!(clEnqueueSVMMemcpy(
            null_mut(),
            CL_TRUE,
            h,
            a.at(0),
            16,
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_COMMAND_QUEUE,
        "no queue",
    );
    // The memory is as it was.
    check(memcpy(&e, true, h, a.at(0), 256), "read back");
    assert!(host.iter().all(|&b| b == 0));
}

#[test]
fn fill_refuses_bad_patterns_alignments_and_sizes() {
    let e = Env::new();
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 1024);
    let p = [7u8; 256];
    assert_code(
        fill(&e, a.at(0), &p[..3], 96),
        CL_INVALID_VALUE,
        "pattern of 3",
    );
    assert_code(
        fill(&e, a.at(0), &p[..256], 256),
        CL_INVALID_VALUE,
        "pattern of 256",
    );
    assert_code(
        fill(&e, a.at(0), &p[..0], 16),
        CL_INVALID_VALUE,
        "pattern of 0",
    );
    assert_code(
        fill(&e, a.at(2), &p[..4], 16),
        CL_INVALID_VALUE,
        "misaligned",
    );
    assert_code(
        fill(&e, a.at(0), &p[..4], 18),
        CL_INVALID_VALUE,
        "size not a multiple",
    );
    assert_code(
        fill(&e, null_mut(), &p[..4], 16),
        CL_INVALID_VALUE,
        "NULL pointer",
    );
    assert_code(
        fill(&e, a.at(1000), &p[..4], 64),
        CL_INVALID_VALUE,
        "past the end",
    );
    assert_code(
        cl!(clEnqueueSVMMemFill(
            e.q(),
            a.at(0),
            null(),
            4,
            16,
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "NULL pattern",
    );
    // A pattern of 128 bytes, the largest, into the middle.
    let big: Vec<u8> = (0..128).collect();
    check(fill(&e, a.at(256), &big, 512), "fill of 128-byte patterns");
    let mut host = vec![0u8; 1024];
    check(
        memcpy(&e, true, host.as_mut_ptr().cast(), a.at(0), 1024),
        "read",
    );
    for (i, &v) in host.iter().enumerate() {
        let want = if (256..768).contains(&i) {
            (i % 128) as u8
        } else {
            0
        };
        assert_eq!(v, want, "byte {i}");
    }
}

#[test]
fn fine_grained_system_svm_fills_host_memory() {
    let e = Env::new();
    let mut host = vec![0u32; 256];
    check(
        fill(
            &e,
            host.as_mut_ptr().cast(),
            &0xabcd_0123u32.to_ne_bytes(),
            1024,
        ),
        "fill of malloc'd memory",
    );
    finish(&e);
    assert!(host.iter().all(|&v| v == 0xabcd_0123));
}

#[test]
fn map_and_unmap_are_queue_commands() {
    let e = Env::new();
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 4096);
    let gate = user_event(&e);
    let mut map = null_mut();
    check(
        cl!(clEnqueueSVMMap(
            e.q(),
            CL_FALSE,
            CL_MAP_WRITE,
            a.at(512),
            1024,
            1,
            &gate.get(),
            &mut map
        )),
        "clEnqueueSVMMap",
    );
    let map = Ev(map);
    check(cl!(clFlush(e.q())), "clFlush");
    std::thread::sleep(std::time::Duration::from_millis(10));
    assert!(
        map.status() > CL_COMPLETE,
        "the map waits for its wait list"
    );
    check(
        cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)),
        "clSetUserEventStatus",
    );
    map.wait();
    unsafe { std::ptr::write_bytes(a.p.add(512), 9, 1024) };
    let mut unmap = null_mut();
    check(
        cl!(clEnqueueSVMUnmap(e.q(), a.at(512), 0, null(), &mut unmap)),
        "clEnqueueSVMUnmap",
    );
    let unmap = Ev(unmap);
    unmap.wait();
    assert_eq!(command_type(&map), CL_COMMAND_SVM_MAP);
    assert_eq!(command_type(&unmap), CL_COMMAND_SVM_UNMAP);
    let mut host = vec![0u8; 4096];
    check(
        memcpy(&e, true, host.as_mut_ptr().cast(), a.at(0), 4096),
        "read",
    );
    assert!(host[512..1536].iter().all(|&b| b == 9) && host[..512].iter().all(|&b| b == 0));
    // A blocking map of host memory (system SVM) is a command too.
    let mut own = [0u8; 64];
    check(
        cl!(clEnqueueSVMMap(
            e.q(),
            CL_TRUE,
            CL_MAP_READ,
            own.as_mut_ptr().cast(),
            64,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueSVMMap of host memory",
    );
    check(
        cl!(clEnqueueSVMUnmap(
            e.q(),
            own.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueSVMUnmap of host memory",
    );
    for (flags, ptr, size, what) in [
        (CL_MAP_READ, a.at(0), 0, "size 0"),
        (CL_MAP_READ, null_mut(), 16, "NULL pointer"),
        (1 << 7, a.at(0), 16, "unknown flag"),
        (
            CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
            a.at(0),
            16,
            "read and invalidate",
        ),
        (CL_MAP_READ, a.at(4000), 200, "past the end"),
    ] {
        assert_code(
            cl!(clEnqueueSVMMap(
                e.q(),
                CL_TRUE,
                flags,
                ptr,
                size,
                0,
                null(),
                null_mut()
            )),
            CL_INVALID_VALUE,
            what,
        );
    }
    assert_code(
        cl!(clEnqueueSVMUnmap(e.q(), null_mut(), 0, null(), null_mut())),
        CL_INVALID_VALUE,
        "unmap of NULL",
    );
}

static FREED: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn free_callback(
    _queue: cl_command_queue,
    n: cl_uint,
    pointers: *mut *mut c_void,
    user_data: *mut c_void,
) {
    // The context to free them in, as the application passed it.
    let ctx = user_data as cl_context;
    for i in 0..n as usize {
        cl!(clSVMFree(ctx, *pointers.add(i)));
    }
    FREED.fetch_add(n as usize, Ordering::SeqCst);
}

fn uses_svm(e: &Env, p: *mut u8, size: usize) -> bool {
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, size, p.cast()),
        "clCreateBuffer",
    );
    ok(
        mem_info(m.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER",
    )
    .bool()
}

#[test]
fn enqueued_free_frees_in_order_or_calls_back() {
    let e = Env::new();
    let p = svm_alloc(&e, CL_MEM_READ_WRITE, 256, 0);
    let q = svm_alloc(&e, CL_MEM_READ_WRITE, 256, 0);
    assert!(uses_svm(&e, p, 256));
    let gate = user_event(&e);
    let mut free = null_mut();
    let list = [p.cast::<c_void>()];
    check(
        cl!(clEnqueueSVMFree(
            e.q(),
            1,
            list.as_ptr() as *const *const c_void,
            None,
            null_mut(),
            1,
            &gate.get(),
            &mut free
        )),
        "clEnqueueSVMFree",
    );
    let free = Ev(free);
    check(cl!(clFlush(e.q())), "clFlush");
    // Not before its wait list.
    assert!(uses_svm(&e, p, 256), "freed before its wait list");
    check(
        cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)),
        "clSetUserEventStatus",
    );
    free.wait();
    assert_eq!(command_type(&free), CL_COMMAND_SVM_FREE);
    assert!(
        !uses_svm(&e, p, 16),
        "still an SVM allocation after the free"
    );
    // With a callback, the application frees them itself.
    let before = FREED.load(Ordering::SeqCst);
    let list = [q.cast::<c_void>()];
    check(
        cl!(clEnqueueSVMFree(
            e.q(),
            1,
            list.as_ptr() as *const *const c_void,
            Some(free_callback),
            e.c() as *mut c_void,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueSVMFree with a callback",
    );
    finish(&e);
    assert_eq!(FREED.load(Ordering::SeqCst), before + 1);
    assert!(!uses_svm(&e, q, 16));
    // An empty list is nothing to free; half an empty list is an error.
    check(
        cl!(clEnqueueSVMFree(
            e.q(),
            0,
            null(),
            None,
            null_mut(),
            0,
            null(),
            null_mut()
        )),
        "an empty free",
    );
    assert_code(
        cl!(clEnqueueSVMFree(
            e.q(),
            1,
            null(),
            None,
            null_mut(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "one pointer, no list",
    );
    assert_code(
        cl!(clEnqueueSVMFree(
            e.q(),
            0,
            list.as_ptr() as *const *const c_void,
            None,
            null_mut(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "a list of no pointers",
    );
}

#[test]
fn migration_checks_its_ranges_and_is_a_command() {
    let e = Env::new();
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 1024);
    let b = Svm::new(&e, CL_MEM_READ_WRITE, 1024);
    let ptrs = [a.at(0) as *const c_void, b.at(100) as *const c_void];
    let mut ev = null_mut();
    check(
        cl!(clEnqueueSVMMigrateMem(
            e.q(),
            2,
            ptrs.as_ptr(),
            null(),
            CL_MIGRATE_MEM_OBJECT_HOST,
            0,
            null(),
            &mut ev
        )),
        "clEnqueueSVMMigrateMem",
    );
    let ev = Ev(ev);
    ev.wait();
    assert_eq!(command_type(&ev), CL_COMMAND_SVM_MIGRATE_MEM);
    let sizes = [1024usize, 924];
    check(
        cl!(clEnqueueSVMMigrateMem(
            e.q(),
            2,
            ptrs.as_ptr(),
            sizes.as_ptr(),
            0,
            0,
            null(),
            null_mut()
        )),
        "sizes to the end",
    );
    let past = [1024usize, 925];
    let null_ptrs = [null::<c_void>()];
    for (n, list, sizes, flags, what) in [
        (2, ptrs.as_ptr(), past.as_ptr(), 0, "a size past the end"),
        (1, null_ptrs.as_ptr(), null(), 0, "a NULL pointer"),
        (0, ptrs.as_ptr(), null(), 0, "no pointers"),
        (1, null(), null(), 0, "no list"),
        (1, ptrs.as_ptr(), null(), 1 << 5, "an unknown flag"),
    ] {
        assert_code(
            cl!(clEnqueueSVMMigrateMem(
                e.q(),
                n,
                list,
                sizes,
                flags,
                0,
                null(),
                null_mut()
            )),
            CL_INVALID_VALUE,
            what,
        );
    }
}

/// A node of a list the host builds and a kernel walks: the kernel's
/// `struct node` is laid out the same.
#[repr(C)]
struct Node {
    value: i32,
    next: *mut Node,
}

const WALK: &str = r#"
struct node { int value; __global struct node* next; };
__kernel void walk(__global struct node* head, __global long* out) {
    long sum = 0;
    int steps = 0;
    for (__global struct node* n = head; n; n = n->next) {
        sum += n->value;
        steps++;
    }
    out[0] = sum;
    out[1] = steps;
    // Written through the list: the host sees it in place.
    head->value = -1;
}
"#;

#[test]
fn a_kernel_walks_a_linked_list_the_host_built_in_fine_grained_svm() {
    let e = Env::new();
    let count = 100;
    let nodes = Svm::new(
        &e,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER,
        count * std::mem::size_of::<Node>(),
    );
    let out = Svm::new(&e, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 16);
    let base = nodes.p as *mut Node;
    // Linked in a scrambled order, the head in the middle of the allocation.
    let order: Vec<usize> = (0..count).map(|i| (i * 37 + 11) % count).collect();
    unsafe {
        for (k, &i) in order.iter().enumerate() {
            let next = order.get(k + 1).map_or(null_mut(), |&j| base.add(j));
            base.add(i).write(Node {
                value: i as i32,
                next,
            });
        }
    }
    let head = unsafe { base.add(order[0]) };
    let (_p, k) = e.kernel(WALK, "walk");
    check(
        cl!(clSetKernelArgSVMPointer(k.get(), 0, head as *const c_void)),
        "clSetKernelArgSVMPointer(head)",
    );
    check(
        cl!(clSetKernelArgSVMPointer(k.get(), 1, out.at(0))),
        "clSetKernelArgSVMPointer(out)",
    );
    // The kernel reaches the other nodes through the data.
    let indirect = [nodes.at(0)];
    check(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            std::mem::size_of_val(&indirect),
            indirect.as_ptr().cast()
        )),
        "clSetKernelExecInfo(SVM_PTRS)",
    );
    let one = 1usize;
    check(
        cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            1,
            null(),
            &one,
            &one,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueNDRangeKernel",
    );
    finish(&e);
    let result = unsafe { std::slice::from_raw_parts(out.p as *const i64, 2) };
    assert_eq!(result, [(0..count as i64).sum::<i64>(), count as i64]);
    assert_eq!(unsafe { (*head).value }, -1);
}

#[test]
fn a_kernel_writes_host_memory_with_fine_grained_system_svm() {
    let e = Env::new();
    let (_p, k) = e.kernel(
        "__kernel void k(__global int* p) { size_t i = get_global_id(0); p[i] = (int)i * 3; }",
        "k",
    );
    let mut host = vec![0i32; 1024];
    let on = CL_TRUE;
    check(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
            std::mem::size_of_val(&on),
            (&on as *const cl_bool).cast()
        )),
        "clSetKernelExecInfo(FINE_GRAIN_SYSTEM)",
    );
    // A pointer into the middle of the vector.
    check(
        cl!(clSetKernelArgSVMPointer(
            k.get(),
            0,
            host.as_mut_ptr().wrapping_add(24).cast()
        )),
        "clSetKernelArgSVMPointer(host memory)",
    );
    let n = 1000usize;
    check(
        cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            1,
            null(),
            &n,
            null(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueNDRangeKernel",
    );
    finish(&e);
    for (i, &v) in host.iter().enumerate() {
        let want = if (24..1024).contains(&i) {
            (i as i32 - 24) * 3
        } else {
            0
        };
        assert_eq!(v, want, "element {i}");
    }
}

#[test]
fn a_host_thread_and_a_kernel_increment_one_fine_grained_counter_with_no_lost_update() {
    use std::sync::atomic::{AtomicBool, AtomicU64};
    let e = Env::new();
    // The kernel adds 1 per round (half its work-items with fetch_add, half
    // with compare-exchange loops); the host adds 1 << 32 from its own
    // thread all the while. Work-item 0 also waits to see a thousand of the
    // host's additions made after it started, so the two surely overlap.
    let src = r#"
    __kernel void count(volatile __global atomic_ulong *counter, __global uint *saw_host,
                        uint rounds) {
        for (uint r = 0; r < rounds; r++) {
            if (get_global_id(0) % 2 == 0) {
                atomic_fetch_add_explicit(counter, 1ul, memory_order_relaxed,
                                          memory_scope_all_svm_devices);
            } else {
                ulong old = atomic_load_explicit(counter, memory_order_relaxed,
                                                 memory_scope_all_svm_devices);
                while (!atomic_compare_exchange_weak_explicit(counter, &old, old + 1ul,
                                                              memory_order_acq_rel,
                                                              memory_order_relaxed,
                                                              memory_scope_all_svm_devices))
                    ;
            }
        }
        if (get_global_id(0) == 0) {
            ulong host_start = atomic_load_explicit(counter, memory_order_acquire,
                                                    memory_scope_all_svm_devices) >> 32;
            ulong host_now = host_start;
            for (ulong spins = 0; host_now < host_start + 1000 && spins < (1ul << 32); spins++)
                host_now = atomic_load_explicit(counter, memory_order_acquire,
                                                memory_scope_all_svm_devices) >> 32;
            *saw_host = host_now >= host_start + 1000;
        }
    }"#;
    let (_p, k) = e.kernel_opts(src, "count", "-cl-std=CL3.0");
    let counter = Svm::new(
        &e,
        CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS,
        8,
    );
    let saw_host = Svm::new(&e, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 4);
    unsafe {
        (counter.p as *mut u64).write(0);
        (saw_host.p as *mut u32).write(7);
    }
    let (items, rounds) = (4096usize, 256u32);
    check(
        cl!(clSetKernelArgSVMPointer(k.get(), 0, counter.at(0))),
        "counter",
    );
    check(
        cl!(clSetKernelArgSVMPointer(k.get(), 1, saw_host.at(0))),
        "saw_host",
    );
    ok(set_arg(k.get(), 2, &rounds), "rounds");
    let stop = AtomicBool::new(false);
    let address = counter.p as usize;
    let host_adds = std::thread::scope(|s| {
        let host = s.spawn(|| {
            // SAFETY: 8 aligned bytes of fine-grained SVM with atomics, alive
            // until the scope ends.
            let c = unsafe { &*(address as *const AtomicU64) };
            let mut n = 0u64;
            while !stop.load(Ordering::Acquire) {
                c.fetch_add(1 << 32, Ordering::Relaxed);
                n += 1;
            }
            n
        });
        let mut done = null_mut();
        check(
            cl!(clEnqueueNDRangeKernel(
                e.q(),
                k.get(),
                1,
                null(),
                &items,
                null(),
                0,
                null(),
                &mut done
            )),
            "clEnqueueNDRangeKernel",
        );
        let done = Ev(done);
        done.wait();
        assert_eq!(done.status(), CL_COMPLETE);
        stop.store(true, Ordering::Release);
        host.join().unwrap()
    });
    let total = unsafe { (counter.p as *const u64).read() };
    assert_eq!(
        unsafe { (saw_host.p as *const u32).read() },
        1,
        "the host's adds showed"
    );
    assert_eq!(
        total,
        (host_adds << 32) + items as u64 * rounds as u64,
        "{host_adds} host adds"
    );
}

#[test]
fn kernel_arguments_and_exec_infos_refuse_bad_input() {
    let e = Env::new();
    let (_p, k) = e.kernel(
        "__kernel void k(__global int* p, int n, __local int* l) { p[0] = n; }",
        "k",
    );
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 64);
    assert_code(
        cl!(clSetKernelArgSVMPointer(k.get(), 3, a.at(0))),
        CL_INVALID_ARG_INDEX,
        "an index past the arguments",
    );
    for index in [1, 2] {
        assert_code(
            cl!(clSetKernelArgSVMPointer(k.get(), index, a.at(0))),
            CL_INVALID_ARG_INDEX,
            "an argument that is no global pointer",
        );
    }
    assert_code(
        cl!(clSetKernelArgSVMPointer(null_mut(), 0, a.at(0))),
        CL_INVALID_KERNEL,
        "no kernel",
    );
    check(
        cl!(clSetKernelArgSVMPointer(k.get(), 0, null())),
        "a NULL pointer",
    );
    let ptrs = [a.at(0), a.at(8)];
    assert_code(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            12,
            ptrs.as_ptr().cast()
        )),
        CL_INVALID_VALUE,
        "a size that is no number of pointers",
    );
    assert_code(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            16,
            null()
        )),
        CL_INVALID_VALUE,
        "a list at NULL",
    );
    check(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_PTRS,
            0,
            null()
        )),
        "an empty list unsets the previous one",
    );
    let on = CL_TRUE;
    assert_code(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
            8,
            (&on as *const cl_bool).cast()
        )),
        CL_INVALID_VALUE,
        "a cl_bool of 8 bytes",
    );
    assert_code(
        cl!(clSetKernelExecInfo(
            k.get(),
            0x7777,
            4,
            (&on as *const cl_bool).cast()
        )),
        CL_INVALID_VALUE,
        "an unknown name",
    );
}

#[test]
fn buffers_over_svm_memory_share_it() {
    let e = Env::new();
    let a = Svm::new(&e, CL_MEM_READ_WRITE, 4096);
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 1024, a.at(1024)),
        "clCreateBuffer over SVM",
    );
    assert!(ok(
        mem_info(m.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER"
    )
    .bool());
    let region = cl_buffer_region {
        origin: 512,
        size: 256,
    };
    let mut rc = 0;
    let sub = Mem(cl!(clCreateSubBuffer(
        m.get(),
        0,
        CL_BUFFER_CREATE_TYPE_REGION,
        (&region as *const cl_buffer_region).cast(),
        &mut rc
    )));
    check(rc, "clCreateSubBuffer");
    assert!(ok(
        mem_info(sub.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER"
    )
    .bool());
    let plain = e.buffer(64);
    assert!(!ok(
        mem_info(plain.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER"
    )
    .bool());
    let mut own = vec![0u8; 64];
    let over_host = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 64, own.as_mut_ptr().cast()),
        "clCreateBuffer over host memory",
    );
    assert!(!ok(
        mem_info(over_host.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER"
    )
    .bool());
    // What the buffer is written is the SVM memory's, at its place.
    e.write(&sub, 0, &[0x77u8; 256]);
    let mut host = vec![0u8; 4096];
    check(
        memcpy(&e, true, host.as_mut_ptr().cast(), a.at(0), 4096),
        "read",
    );
    for (i, &v) in host.iter().enumerate() {
        assert_eq!(
            v,
            if (1536..1792).contains(&i) { 0x77 } else { 0 },
            "byte {i}"
        );
    }
    // A buffer that would not fit in the allocation.
    assert_err(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 4096, a.at(1)),
        CL_INVALID_BUFFER_SIZE,
        "a buffer past the allocation",
    );
}

type CbHandle = *mut c_void;
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
type SvmMemcpyFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;
type SvmFillFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;

#[test]
fn command_buffer_svm_commands_run_at_each_enqueue() {
    let e = Env::new();
    let create: CreateFn = extension_function("clCreateCommandBufferKHR");
    let finalize: HandleFn = extension_function("clFinalizeCommandBufferKHR");
    let release: HandleFn = extension_function("clReleaseCommandBufferKHR");
    let enqueue: EnqueueFn = extension_function("clEnqueueCommandBufferKHR");
    let svm_fill: SvmFillFn = extension_function("clCommandSVMMemFillKHR");
    let svm_memcpy: SvmMemcpyFn = extension_function("clCommandSVMMemcpyKHR");
    let a = Svm::new(&e, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 256);
    let b = Svm::new(&e, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 256);
    let mut rc = 0;
    let q = e.q();
    let cb = unsafe { create(1, &q, null(), &mut rc) };
    check(rc, "clCreateCommandBufferKHR");
    let pattern = 0x1122_3344u32;
    unsafe {
        check(
            svm_fill(
                cb,
                null_mut(),
                null(),
                a.at(64),
                (&pattern as *const u32).cast(),
                4,
                128,
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandSVMMemFillKHR",
        );
        check(
            svm_memcpy(
                cb,
                null_mut(),
                null(),
                b.at(0),
                a.at(32),
                192,
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandSVMMemcpyKHR",
        );
        // Bad input is refused as the queue's commands refuse it.
        assert_code(
            svm_memcpy(
                cb,
                null_mut(),
                null(),
                a.at(8),
                a.at(0),
                16,
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            CL_MEM_COPY_OVERLAP,
            "an overlapping clCommandSVMMemcpyKHR",
        );
        assert_code(
            svm_fill(
                cb,
                null_mut(),
                null(),
                a.at(2),
                (&pattern as *const u32).cast(),
                4,
                16,
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            CL_INVALID_VALUE,
            "a misaligned clCommandSVMMemFillKHR",
        );
        check(finalize(cb), "clFinalizeCommandBufferKHR");
        for round in 0..2 {
            std::ptr::write_bytes(b.p, 0, 256);
            let mut q = e.q();
            check(
                enqueue(1, &mut q, cb, 0, null(), null_mut()),
                "clEnqueueCommandBufferKHR",
            );
            finish(&e);
            let words = std::slice::from_raw_parts(b.p as *const u32, 64);
            for (i, &w) in words.iter().enumerate() {
                // b[0..192) is a[32..224): a's pattern is at [64, 192).
                let want = if (8..40).contains(&i) { pattern } else { 0 };
                assert_eq!(w, want, "round {round}, word {i}");
            }
        }
        check(release(cb), "clReleaseCommandBufferKHR");
    }
}
