//! The OpenCL 1.x atomic functions (atomic_*, and atom_* of the
//! cl_khr_*_atomics extensions) under real contention: many work-groups on
//! every core update the same words.

use ferrocl_tests::*;

/// Enough work-items that every pool thread takes many work-groups.
const N: usize = 1 << 18;

fn run_1d(e: &Env, src: &str, name: &str, options: &str, args: &[&Mem], global: usize) {
    let (_p, k) = e.kernel_opts(src, name, options);
    for (i, m) in args.iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[global], None);
}

#[test]
fn atomic_inc_hands_out_every_ticket_once() {
    let e = Env::new();
    let src = r#"
    __kernel void k(volatile __global uint* counter, __global uint* seen) {
        uint ticket = atomic_inc(counter);
        seen[ticket] += 1u;   // each ticket is owned by one work-item
    }"#;
    let counter = e.buffer_from(&[0u32]);
    let seen = e.buffer_from(&vec![0u32; N]);
    run_1d(&e, src, "k", "", &[&counter, &seen], N);
    assert_eq!(e.read::<u32>(&counter, 0, 1), vec![N as u32]);
    let s = e.read::<u32>(&seen, 0, N);
    assert!(
        s.iter().all(|&c| c == 1),
        "a ticket was handed out twice or never"
    );
}

#[test]
fn atomic_add_sub_and_dec_total_correctly() {
    let e = Env::new();
    let src = r#"
    __kernel void k(volatile __global int* sum, volatile __global int* down,
                    volatile __global uint* dec) {
        int i = (int)get_global_id(0);
        atomic_add(sum, i % 7 - 3);
        atomic_sub(down, i % 5);
        atomic_dec(dec);
    }"#;
    let sum = e.buffer_from(&[0i32]);
    let down = e.buffer_from(&[1_000_000i32]);
    let dec = e.buffer_from(&[N as u32 + 5]);
    run_1d(&e, src, "k", "", &[&sum, &down, &dec], N);
    let want_sum: i32 = (0..N as i32).map(|i| i % 7 - 3).sum();
    let want_down: i32 = 1_000_000 - (0..N as i32).map(|i| i % 5).sum::<i32>();
    assert_eq!(e.read::<i32>(&sum, 0, 1), vec![want_sum]);
    assert_eq!(e.read::<i32>(&down, 0, 1), vec![want_down]);
    assert_eq!(e.read::<u32>(&dec, 0, 1), vec![5]);
}

#[test]
fn atomic_min_and_max_respect_signedness() {
    let e = Env::new();
    let src = r#"
    __kernel void k(volatile __global int* smin, volatile __global int* smax,
                    volatile __global uint* umin, volatile __global uint* umax) {
        int i = (int)get_global_id(0);
        int v = (i * 7919) % 100003 - 50000;
        atomic_min(smin, v);
        atomic_max(smax, v);
        atomic_min(umin, (uint)v);
        atomic_max(umax, (uint)v);
    }"#;
    let vals: Vec<i32> = (0..N as i32).map(|i| (i * 7919) % 100003 - 50000).collect();
    let smin = e.buffer_from(&[i32::MAX]);
    let smax = e.buffer_from(&[i32::MIN]);
    let umin = e.buffer_from(&[u32::MAX]);
    let umax = e.buffer_from(&[0u32]);
    run_1d(&e, src, "k", "", &[&smin, &smax, &umin, &umax], N);
    assert_eq!(e.read::<i32>(&smin, 0, 1)[0], *vals.iter().min().unwrap());
    assert_eq!(e.read::<i32>(&smax, 0, 1)[0], *vals.iter().max().unwrap());
    let uvals = vals.iter().map(|&v| v as u32);
    assert_eq!(e.read::<u32>(&umin, 0, 1)[0], uvals.clone().min().unwrap());
    assert_eq!(e.read::<u32>(&umax, 0, 1)[0], uvals.max().unwrap());
}

#[test]
fn atomic_and_or_xor_combine_bits() {
    let e = Env::new();
    let src = r#"
    __kernel void k(volatile __global uint* ors, volatile __global uint* ands,
                    volatile __global uint* xors) {
        uint i = (uint)get_global_id(0);
        atomic_or(ors, 1u << (i % 32u));
        atomic_and(ands, ~(1u << (i % 31u)));
        atomic_xor(xors, i);
    }"#;
    let ors = e.buffer_from(&[0u32]);
    let ands = e.buffer_from(&[u32::MAX]);
    let xors = e.buffer_from(&[0xdead_beefu32]);
    run_1d(&e, src, "k", "", &[&ors, &ands, &xors], N);
    let want_xor = (0..N as u32).fold(0xdead_beefu32, |a, i| a ^ i);
    assert_eq!(e.read::<u32>(&ors, 0, 1), vec![u32::MAX]);
    assert_eq!(e.read::<u32>(&ands, 0, 1), vec![1u32 << 31]);
    assert_eq!(e.read::<u32>(&xors, 0, 1), vec![want_xor]);
}

#[test]
fn atomic_cmpxchg_loop_adds_without_losing_updates() {
    let e = Env::new();
    let src = r#"
    __kernel void k(volatile __global int* total) {
        int add = (int)(get_global_id(0) % 3u) + 1;
        int old = *total;
        for (;;) {
            int seen = atomic_cmpxchg(total, old, old + add);
            if (seen == old) break;
            old = seen;
        }
    }"#;
    let total = e.buffer_from(&[0i32]);
    run_1d(&e, src, "k", "", &[&total], N);
    let want: i32 = (0..N as i32).map(|i| i % 3 + 1).sum();
    assert_eq!(e.read::<i32>(&total, 0, 1), vec![want]);
}

#[test]
fn atomic_xchg_passes_every_value_along_once() {
    let e = Env::new();
    // Each work-item swaps its own value in and records the one it took
    // out: the values taken out plus the one left are the initial value
    // plus every work-item's value, each exactly once.
    let src = r#"
    __kernel void k(volatile __global uint* slot, __global uint* took,
                    volatile __global float* fslot, __global float* ftook) {
        uint i = (uint)get_global_id(0);
        took[i] = atomic_xchg(slot, i + 1u);
        ftook[i] = atomic_xchg(fslot, (float)(i + 1u));
    }"#;
    let n = 1 << 14;
    let slot = e.buffer_from(&[0u32]);
    let took = e.buffer_from(&vec![u32::MAX; n]);
    let fslot = e.buffer_from(&[0.0f32]);
    let ftook = e.buffer_from(&vec![-1.0f32; n]);
    run_1d(&e, src, "k", "", &[&slot, &took, &fslot, &ftook], n);
    let mut all = e.read::<u32>(&took, 0, n);
    all.extend(e.read::<u32>(&slot, 0, 1));
    all.sort_unstable();
    assert_eq!(all, (0..=n as u32).collect::<Vec<_>>());
    let mut fall = e.read::<f32>(&ftook, 0, n);
    fall.extend(e.read::<f32>(&fslot, 0, 1));
    let mut fall: Vec<u32> = fall.iter().map(|&f| f as u32).collect();
    fall.sort_unstable();
    assert_eq!(fall, (0..=n as u32).collect::<Vec<_>>());
}

#[test]
fn atom_functions_of_the_int32_extensions_work_after_the_pragma() {
    let e = Env::new();
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_global_int32_base_atomics : enable
    #pragma OPENCL EXTENSION cl_khr_global_int32_extended_atomics : enable
    __kernel void k(volatile __global int* c, volatile __global int* m) {
    #if !defined(cl_khr_global_int32_base_atomics) || !defined(cl_khr_global_int32_extended_atomics)
        c[0] = -1;  // the extension macros must be defined
    #else
        atom_inc(c);
        atom_add(c + 1, 2);
        atom_max(m, (int)get_global_id(0));
    #endif
    }"#;
    let c = e.buffer_from(&[0i32, 0]);
    let m = e.buffer_from(&[-5i32]);
    run_1d(&e, src, "k", "-cl-std=CL1.0", &[&c, &m], N);
    assert_eq!(e.read::<i32>(&c, 0, 2), vec![N as i32, 2 * N as i32]);
    assert_eq!(e.read::<i32>(&m, 0, 1), vec![N as i32 - 1]);
}

#[test]
fn atom_functions_on_64_bit_integers() {
    let e = Env::new();
    let src = r#"
    #pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
    #pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
    __kernel void k(volatile __global long* sum, volatile __global ulong* bits,
                    volatile __global long* lo) {
        long i = (long)get_global_id(0);
        atom_add(sum, i << 20);
        atom_or(bits, 1ul << (i % 64));
        atom_min(lo, -i * 1000000000L);
    }"#;
    let sum = e.buffer_from(&[0i64]);
    let bits = e.buffer_from(&[0u64]);
    let lo = e.buffer_from(&[0i64]);
    run_1d(&e, src, "k", "", &[&sum, &bits, &lo], N);
    let want: i64 = (0..N as i64).map(|i| i << 20).sum();
    assert!(want > i64::from(u32::MAX), "the sum must need 64 bits");
    assert_eq!(e.read::<i64>(&sum, 0, 1), vec![want]);
    assert_eq!(e.read::<u64>(&bits, 0, 1), vec![u64::MAX]);
    assert_eq!(
        e.read::<i64>(&lo, 0, 1),
        vec![-(N as i64 - 1) * 1_000_000_000]
    );
}

#[test]
fn local_atomics_count_the_work_group() {
    let e = Env::new();
    let src = r#"
    __kernel void k(__global uint* out) {
        __local uint count;
        if (get_local_id(0) == 0) count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_inc(&count);
        atomic_add(&count, 2u);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (get_local_id(0) == 0)
            out[get_group_id(0)] = count == 3u * (uint)get_local_size(0);
    }"#;
    let n = 4096;
    let (_p, k) = e.kernel(src, "k");
    let out = e.buffer_from(&vec![7u32; n]);
    ok(set_mem(k.get(), 0, &out), "set arg");
    let wg = ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_WORK_GROUP_SIZE),
        "CL_KERNEL_WORK_GROUP_SIZE",
    )
    .usize();
    let groups = n / wg;
    e.run(&k, &[n], Some(&[wg]));
    assert_eq!(e.read::<u32>(&out, 0, groups), vec![1u32; groups]);
}

#[test]
fn device_reports_the_atomics_extensions() {
    let exts = ext_names(
        &ok(
            device_info(device(), CL_DEVICE_EXTENSIONS),
            "CL_DEVICE_EXTENSIONS",
        )
        .string(),
    );
    for want in [
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_int64_base_atomics",
        "cl_khr_int64_extended_atomics",
    ] {
        assert!(
            exts.iter().any(|e| e == want),
            "{want} missing from {exts:?}"
        );
    }
}

#[test]
fn a_histogram_in_local_memory_counts_every_item() {
    // Many work-items of a group hit the same local bins; the group's
    // counts are then added into the global bins.
    let e = Env::new();
    let src = r#"
    __kernel void k(__global const uint* in, volatile __global uint* bins) {
        __local uint local_bins[64];
        uint lid = (uint)get_local_id(0);
        for (uint b = lid; b < 64u; b += (uint)get_local_size(0)) local_bins[b] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_inc(&local_bins[in[get_global_id(0)] % 64u]);
        atomic_add(&local_bins[(in[get_global_id(0)] >> 8) % 64u], 2u);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint b = lid; b < 64u; b += (uint)get_local_size(0)) atomic_add(&bins[b], local_bins[b]);
    }"#;
    let n = 1 << 16;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let mut want = vec![0u32; 64];
    for v in &input {
        want[(v % 64) as usize] += 1;
        want[((v >> 8) % 64) as usize] += 2;
    }
    let inb = e.buffer_from(&input);
    let bins = e.buffer_from(&[0u32; 64]);
    let (_p, k) = e.kernel(src, "k");
    ok(set_mem(k.get(), 0, &inb), "arg 0");
    ok(set_mem(k.get(), 1, &bins), "arg 1");
    for wg in [256usize, 64, 16] {
        e.write(&bins, 0, &[0u32; 64]);
        e.run(&k, &[n], Some(&[wg]));
        assert_eq!(e.read::<u32>(&bins, 0, 64), want, "work-group size {wg}");
    }
}
