//! Sub-devices (`clCreateSubDevices`) and the device's size: partitions
//! equally, by counts and by affinity domain, what each sub-device
//! reports, kernels on sub-devices and their parent in one context, the
//! threads a sub-device starts (bound to its cores, gone with it), and
//! `FERROCL_THREADS` and the affinity mask setting the compute units.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};
use std::sync::Mutex;

/// The tests count this process's threads: one test at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn units(d: cl_device_id) -> u32 {
    ok(device_info(d, CL_DEVICE_MAX_COMPUTE_UNITS), "compute units").u32()
}

fn props_of(d: cl_device_id, name: cl_device_info) -> Vec<isize> {
    ok(device_info(d, name), "partition query").isizes()
}

/// `clCreateSubDevices` with `props`: the count, then the devices.
fn partition(d: cl_device_id, props: &[isize]) -> Result<Vec<cl_device_id>, cl_int> {
    let mut n = 0;
    let rc = cl!(clCreateSubDevices(d, props.as_ptr(), 0, null_mut(), &mut n));
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    let mut out = vec![null_mut(); n as usize];
    let mut n2 = 0;
    let rc = cl!(clCreateSubDevices(
        d,
        props.as_ptr(),
        n,
        out.as_mut_ptr(),
        &mut n2
    ));
    result(rc, ())?;
    assert_eq!(n, n2);
    Ok(out)
}

/// The root device, if it has two compute units or more to partition.
fn partitionable() -> Option<cl_device_id> {
    let root = device();
    if units(root) < 2 {
        eprintln!("one compute unit: nothing to partition");
        return None;
    }
    Some(root)
}

fn release_all(devices: &[cl_device_id]) {
    for &d in devices {
        check(cl!(clReleaseDevice(d)), "clReleaseDevice");
    }
}

const EQUALLY: isize = CL_DEVICE_PARTITION_EQUALLY;
const BY_COUNTS: isize = CL_DEVICE_PARTITION_BY_COUNTS;
const BY_AFFINITY: isize = CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN;

#[test]
fn the_root_device_reports_how_it_partitions() {
    let _serial = serial();
    let d = device();
    let n = units(d);
    assert_eq!(
        ok(device_info(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), "max").u32(),
        n
    );
    let kinds = props_of(d, CL_DEVICE_PARTITION_PROPERTIES);
    assert!(
        kinds.contains(&EQUALLY) && kinds.contains(&BY_COUNTS),
        "{kinds:?}"
    );
    let domains = ok(
        device_info(d, CL_DEVICE_PARTITION_AFFINITY_DOMAIN),
        "domains",
    )
    .u64();
    if n > 1 {
        // Each core has an L1 cache of its own, which splits the device.
        assert!(kinds.contains(&BY_AFFINITY), "{kinds:?}");
        assert_ne!(
            domains & CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
            0,
            "{domains:#x}"
        );
        assert_ne!(domains & CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0);
    } else {
        assert!(!kinds.contains(&BY_AFFINITY), "{kinds:?}");
    }
    assert!(props_of(d, CL_DEVICE_PARTITION_TYPE)
        .iter()
        .all(|&p| p == 0));
}

#[test]
fn equal_parts_are_devices_of_their_own() {
    let _serial = serial();
    let Some(root) = partitionable() else {
        return;
    };
    let n = units(root) as isize;
    let props = [EQUALLY, 1, 0];
    let subs = partition(root, &props).unwrap();
    assert_eq!(subs.len() as isize, n);
    for &s in &subs {
        assert_eq!(units(s), 1);
        assert_eq!(
            ok(device_info(s, CL_DEVICE_PARENT_DEVICE), "parent").ptr(),
            root as _
        );
        assert_eq!(props_of(s, CL_DEVICE_PARTITION_TYPE), props.to_vec());
        assert_eq!(
            ok(device_info(s, CL_DEVICE_TYPE), "type").u64(),
            CL_DEVICE_TYPE_CPU
        );
        assert_eq!(
            ok(device_info(s, CL_DEVICE_REFERENCE_COUNT), "refs").u32(),
            1
        );
        // One unit does not split further.
        assert_err(
            partition(s, &[EQUALLY, 1, 0]),
            CL_DEVICE_PARTITION_FAILED,
            "EQUALLY 1 of 1",
        );
    }
    // Sub-devices count their references; the last release ends the handle.
    let s = subs[0];
    check(cl!(clRetainDevice(s)), "clRetainDevice");
    assert_eq!(
        ok(device_info(s, CL_DEVICE_REFERENCE_COUNT), "refs").u32(),
        2
    );
    release_all(&subs);
    assert_eq!(
        ok(device_info(s, CL_DEVICE_REFERENCE_COUNT), "refs").u32(),
        1
    );
    // The last release; the handle is not used after it (the loader
    // itself reads through a handle, so that would be undefined).
    check(cl!(clReleaseDevice(s)), "last clReleaseDevice");
}

#[test]
fn counts_and_affinity_domains_split_the_units() {
    let _serial = serial();
    let root = device();
    let n = units(root) as isize;
    if n >= 2 {
        let subs = partition(
            root,
            &[
                BY_COUNTS,
                1,
                n - 1,
                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
                0,
            ],
        )
        .unwrap();
        assert_eq!(
            subs.iter().map(|&s| units(s)).collect::<Vec<_>>(),
            vec![1, (n - 1) as u32]
        );
        release_all(&subs);
    }
    let domains = ok(
        device_info(root, CL_DEVICE_PARTITION_AFFINITY_DOMAIN),
        "domains",
    )
    .u64();
    for bit in 0..6 {
        let domain = 1u64 << bit;
        if domains & domain == 0 {
            continue;
        }
        // A domain reported is one the device splits by.
        let subs = partition(root, &[BY_AFFINITY, domain as isize, 0]).unwrap();
        assert!(subs.len() > 1, "domain {domain:#x} made one device");
        let total: u32 = subs.iter().map(|&s| units(s)).sum();
        assert_eq!(total as isize, n, "domain {domain:#x} covers every unit");
        release_all(&subs);
    }
}

#[test]
fn bad_partitions_get_the_spec_codes() {
    let _serial = serial();
    let root = device();
    let n = units(root) as isize;
    let end = CL_DEVICE_PARTITION_BY_COUNTS_LIST_END;
    let mut count = 0;
    assert_code(
        cl!(clCreateSubDevices(root, null(), 0, null_mut(), &mut count)),
        CL_INVALID_VALUE,
        "no properties",
    );
    assert_err(
        partition(root, &[EQUALLY, 0, 0]),
        CL_INVALID_VALUE,
        "EQUALLY 0",
    );
    assert_err(
        partition(root, &[EQUALLY, n + 1, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "EQUALLY n+1",
    );
    // One sub-device of every unit would be the device itself.
    assert_err(
        partition(root, &[EQUALLY, n, 0]),
        CL_DEVICE_PARTITION_FAILED,
        "EQUALLY n",
    );
    assert_err(
        partition(root, &[BY_COUNTS, n, end, 0]),
        CL_DEVICE_PARTITION_FAILED,
        "one count of every unit",
    );
    assert_err(
        partition(root, &[0x7777, 1, 0]),
        CL_INVALID_VALUE,
        "unknown partition",
    );
    assert_err(
        partition(root, &[BY_COUNTS, n, 1, end, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "counts beyond the units",
    );
    assert_err(
        partition(root, &[BY_COUNTS, -1, end, 0]),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "negative count",
    );
    assert_err(
        partition(
            root,
            &[BY_COUNTS, isize::MAX, isize::MAX, isize::MAX, end, 0],
        ),
        CL_INVALID_DEVICE_PARTITION_COUNT,
        "counts whose sum wraps around",
    );
    assert_err(
        partition(root, &[BY_AFFINITY, 0x3, 0]),
        CL_INVALID_VALUE,
        "two domains",
    );
    assert_code(
        cl!(clCreateSubDevices(
            null_mut(),
            [EQUALLY, 1, 0].as_ptr(),
            0,
            null_mut(),
            &mut count
        )),
        CL_INVALID_DEVICE,
        "no device",
    );
    // Room for fewer devices than the partition makes.
    let mut one = [null_mut(); 1];
    if n >= 2 {
        assert_code(
            cl!(clCreateSubDevices(
                root,
                [EQUALLY, 1, 0].as_ptr(),
                1,
                one.as_mut_ptr(),
                null_mut()
            )),
            CL_INVALID_VALUE,
            "num_devices too small",
        );
    }
}

/// Threads of this process whose name starts with `prefix`, with the CPUs
/// each may run on.
fn threads_named(prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let comm = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
        if comm.starts_with(prefix) {
            let status = std::fs::read_to_string(t.path().join("status")).unwrap_or_default();
            let cpus = status
                .lines()
                .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
                .unwrap_or("")
                .trim()
                .to_string();
            out.push(cpus);
        }
    }
    out
}

#[test]
fn kernels_run_on_sub_devices_beside_their_parent() {
    let _serial = serial();
    let Some(root) = partitionable() else {
        return;
    };
    let subs = partition(root, &[EQUALLY, 1, 0]).unwrap();
    let mut all = subs.clone();
    all.push(root);
    {
        let mut rc = 0;
        let ctx = Ctx(cl!(clCreateContext(
            null(),
            all.len() as u32,
            all.as_ptr(),
            None,
            null_mut(),
            &mut rc
        )));
        check(rc, "clCreateContext of sub-devices and parent");
        let prog = create_program(ctx.get(), "__kernel void k(__global int *a, int v) { a[get_global_id(0)] = a[get_global_id(0)] * 3 + v; }");
        check(build_program(prog.get(), ""), "build for every device");
        let k = create_kernel(prog.get(), "k").unwrap();
        let n = 4096usize;
        let mut host = vec![1i32; n];
        let mut rc = 0;
        let buf = Mem(cl!(clCreateBuffer(
            ctx.get(),
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            n * 4,
            host.as_mut_ptr().cast(),
            &mut rc
        )));
        check(rc, "clCreateBuffer");
        set_mem(k.get(), 0, &buf).unwrap();
        for (i, &d) in all.iter().enumerate() {
            let q = Queue(cl!(clCreateCommandQueueWithProperties(
                ctx.get(),
                d,
                null(),
                &mut rc
            )));
            check(rc, "queue on a sub-device");
            set_arg(k.get(), 1, &(i as i32)).unwrap();
            let global = [n];
            check(
                cl!(clEnqueueNDRangeKernel(
                    q.get(),
                    k.get(),
                    1,
                    null(),
                    global.as_ptr(),
                    null(),
                    0,
                    null(),
                    null_mut()
                )),
                "kernel on a sub-device",
            );
            check(cl!(clFinish(q.get())), "clFinish");
            for h in host.iter_mut() {
                *h = *h * 3 + i as i32;
            }
        }
        let q = Queue(cl!(clCreateCommandQueueWithProperties(
            ctx.get(),
            subs[0],
            null(),
            &mut rc
        )));
        let mut out = vec![0i32; n];
        check(
            cl!(clEnqueueReadBuffer(
                q.get(),
                buf.get(),
                CL_TRUE,
                0,
                n * 4,
                out.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            "read",
        );
        assert_eq!(out, host);
        // The sub-device's executor threads are bound to its one core.
        let bound = threads_named("ferrocl-queue")
            .into_iter()
            .filter(|cpus| !cpus.contains(',') && !cpus.contains('-'))
            .count();
        assert!(
            bound >= 2 * subs.len(),
            "executor threads bound to one CPU: {bound}"
        );
    }
    release_all(&subs);
}

#[test]
fn a_released_sub_device_leaves_no_thread_behind() {
    let _serial = serial();
    let Some(root) = partitionable() else {
        return;
    };
    // The root device's threads name themselves once they start.
    std::thread::sleep(std::time::Duration::from_millis(100));
    let before = threads_named("ferrocl-").len();
    for _ in 0..20 {
        let subs = partition(root, &[EQUALLY, 1, 0]).unwrap();
        let mut rc = 0;
        let ctx = Ctx(cl!(clCreateContext(
            null(),
            1,
            &subs[0],
            None,
            null_mut(),
            &mut rc
        )));
        let q = Queue(cl!(clCreateCommandQueueWithProperties(
            ctx.get(),
            subs[0],
            null(),
            &mut rc
        )));
        check(rc, "queue");
        check(cl!(clFinish(q.get())), "clFinish");
        drop(q);
        drop(ctx);
        release_all(&subs);
    }
    // Threads end on their own once their last user is gone.
    let mut after = threads_named("ferrocl-").len();
    for _ in 0..100 {
        if after <= before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        after = threads_named("ferrocl-").len();
    }
    assert!(after <= before, "threads before {before}, after {after}");
}

/// Runs this test binary's test `name` in a new process (the device is
/// probed once per process) under `wrapper` and `env`.
fn run_child(name: &str, wrapper: &[&str], env: &[(&str, &str)]) {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = match wrapper.split_first() {
        Some((w, rest)) => {
            let mut c = std::process::Command::new(w);
            c.args(rest).arg(&exe);
            c
        }
        None => std::process::Command::new(&exe),
    };
    cmd.args(["--exact", name, "--nocapture", "--include-ignored"]);
    // Only what the test sets decides the child's units.
    cmd.env_remove("FERROCL_THREADS");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running the child test");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "{name}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// In a child process: the device has as many units as the child was told.
#[test]
#[ignore = "run by the tests below in a process of its own"]
fn child_reports_expected_units() {
    let _serial = serial();
    let want: u32 = std::env::var("EXPECT_UNITS").unwrap().parse().unwrap();
    assert_eq!(units(device()), want);
    // And runs a kernel with that many threads.
    let e = Env::new();
    let (_p, k) = e.kernel(
        "__kernel void k(__global int *a) { a[get_global_id(0)] += 1; }",
        "k",
    );
    let a = e.buffer_from(&vec![0i32; 1 << 16]);
    set_mem(k.get(), 0, &a).unwrap();
    e.run(&k, &[1 << 16], None);
    assert_eq!(e.read::<i32>(&a, 0, 1 << 16), vec![1; 1 << 16]);
}

#[test]
fn ferrocl_threads_sets_the_compute_units() {
    let _serial = serial();
    run_child(
        "child_reports_expected_units",
        &[],
        &[("FERROCL_THREADS", "3"), ("EXPECT_UNITS", "3")],
    );
}

#[test]
fn the_affinity_mask_bounds_the_compute_units() {
    let _serial = serial();
    // taskset (util-linux) runs the child on CPU 0 alone.
    run_child(
        "child_reports_expected_units",
        &["taskset", "-c", "0"],
        &[("EXPECT_UNITS", "1")],
    );
}

/// `cl_intel_device_attribute_query` of a device: IP version, device id,
/// slices, sub-slices per slice, EUs per sub-slice, threads per EU.
fn intel_attributes(d: cl_device_id) -> [u32; 6] {
    let q = |p| ok(device_info(d, p), "an Intel device attribute").u32();
    [
        q(CL_DEVICE_IP_VERSION_INTEL),
        q(CL_DEVICE_ID_INTEL),
        q(CL_DEVICE_NUM_SLICES_INTEL),
        q(CL_DEVICE_NUM_SUB_SLICES_PER_SLICE_INTEL),
        q(CL_DEVICE_NUM_EUS_PER_SUB_SLICE_INTEL),
        q(CL_DEVICE_NUM_THREADS_PER_EU_INTEL),
    ]
}

/// The CPU's signature as CPUID leaf 1 gives it, put together from
/// `/proc/cpuinfo`'s family, model and stepping.
fn cpuinfo_signature() -> u32 {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let field = |name: &str| -> u32 {
        let line = text
            .lines()
            .find(|l| l.split(':').next().unwrap().trim() == name);
        line.unwrap()
            .split(':')
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let (family, model, stepping) = (field("cpu family"), field("model"), field("stepping"));
    let (base_family, extended_family) = if family >= 15 {
        (15, family - 15)
    } else {
        (family, 0)
    };
    extended_family << 20 | (model >> 4) << 16 | base_family << 8 | (model & 15) << 4 | stepping
}

#[test]
fn intel_device_attributes_describe_the_cpu_and_each_sub_device() {
    let _s = serial();
    let root = device();
    let exts = device_extensions();
    assert!(
        exts.iter().any(|e| e == "cl_intel_device_attribute_query"),
        "{exts:?}"
    );
    // No Intel architecture (SYCL's names start at IP version 8), one slice
    // of one sub-slice of the compute units, one thread each.
    assert_eq!(
        intel_attributes(root),
        [0, cpuinfo_signature(), 1, 1, units(root), 1]
    );
    let features = ok(
        device_info(root, CL_DEVICE_FEATURE_CAPABILITIES_INTEL),
        "features",
    );
    assert_eq!(features.u64(), 0, "no DP4A or DPAS");
    if let Some(root) = partitionable() {
        let subs = partition(root, &[EQUALLY, 1, 0]).unwrap();
        for &s in &subs {
            assert_eq!(intel_attributes(s)[4], 1, "a sub-device of one unit");
        }
        release_all(&subs);
    }
}
