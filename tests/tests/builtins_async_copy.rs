//! async_work_group_copy, async_work_group_strided_copy, wait_group_events
//! and prefetch (OpenCL C 3.0 section 6.15.11): global -> local -> global
//! round trips, plain and strided, for several element types, with the
//! work-group size the device reports for the kernel.

use ferrocl_tests::*;

/// Elements each work-group copies: more than any work-group has items, and
/// not a multiple of common group sizes.
const PER_GROUP: usize = 37;
const STRIDE: usize = 3;
const GROUPS: usize = 5;

/// The kernel for element type `t` (`bytes` each, in memory): group g copies
/// its block of `src` to local memory with async_work_group_copy, and a
/// strided selection with async_work_group_strided_copy; after waiting, each
/// item transforms its share in local memory; then both go back to global
/// memory (the second one strided) and are waited for.
fn source(t: &str) -> String {
    format!(
        r#"
    __kernel void k(__global const {t}* src, __global {t}* out, __global {t}* sout,
                    __local {t}* tile, __local {t}* stile) {{
        size_t g = get_group_id(0);
        prefetch(src + g * {P}, {P});
        event_t e = async_work_group_copy(tile, src + g * {P}, {P}, 0);
        event_t s = async_work_group_strided_copy(stile, src + g * {P} * {S}, {P}, {S}, 0);
        event_t both[2] = {{e, s}};
        wait_group_events(2, both);
        // Each item reverses the bytes' order of its own share: a copy that
        // was incomplete for any item would show in the results.
        for (size_t i = get_local_id(0); i < {P}; i += get_local_size(0)) {{
            tile[i] = ~tile[i];
            stile[i] = ~stile[i];
        }}
        barrier(CLK_LOCAL_MEM_FENCE);
        e = async_work_group_copy(out + g * {P}, tile, {P}, 0);
        s = async_work_group_strided_copy(sout + g * {P} * {S}, stile, {P}, {S}, s);
        wait_group_events(1, &e);
        wait_group_events(1, &s);
    }}"#,
        P = PER_GROUP,
        S = STRIDE
    )
}

fn check(t: &str, bytes: usize) {
    let e = Env::new();
    let (_p, k) = e.kernel(&source(t), "k");
    let wg = ok(
        kernel_wg_info(k.get(), e.device, CL_KERNEL_WORK_GROUP_SIZE),
        "CL_KERNEL_WORK_GROUP_SIZE",
    )
    .usize();
    assert!(wg >= 1);
    // Several items per group where the kernel allows it.
    let local = wg.min(8);
    let n_src = GROUPS * PER_GROUP * STRIDE;
    let input: Vec<u8> = (0..n_src * bytes).map(|i| (i * 131 + 7) as u8).collect();
    let src = e.buffer_from(&input);
    let out = e.buffer_from(&vec![0x55u8; GROUPS * PER_GROUP * bytes]);
    let sout = e.buffer_from(&vec![0x55u8; n_src * bytes]);
    ok(set_mem(k.get(), 0, &src), "arg");
    ok(set_mem(k.get(), 1, &out), "arg");
    ok(set_mem(k.get(), 2, &sout), "arg");
    ok(set_local(k.get(), 3, PER_GROUP * bytes), "arg");
    ok(set_local(k.get(), 4, PER_GROUP * bytes), "arg");
    e.run(&k, &[GROUPS * local], Some(&[local]));
    let got = e.read::<u8>(&out, 0, GROUPS * PER_GROUP * bytes);
    let sgot = e.read::<u8>(&sout, 0, n_src * bytes);
    // Only the vector's value bytes: a 3-vector's fourth element is padding.
    let value_bytes = |i: usize| {
        if t.ends_with('3') {
            i % bytes < bytes / 4 * 3
        } else {
            true
        }
    };
    for g in 0..GROUPS {
        for i in 0..PER_GROUP * bytes {
            if !value_bytes(i) {
                continue;
            }
            let want = !input[g * PER_GROUP * bytes + i];
            assert_eq!(
                got[g * PER_GROUP * bytes + i],
                want,
                "{t}, local size {local}: async_work_group_copy group {g} byte {i}"
            );
        }
        for el in 0..PER_GROUP * STRIDE {
            for b in 0..bytes {
                if !value_bytes(b) {
                    continue;
                }
                let at = (g * PER_GROUP * STRIDE + el) * bytes + b;
                // Only every STRIDE-th element is written back.
                let want = if el % STRIDE == 0 { !input[at] } else { 0x55 };
                assert_eq!(
                    sgot[at], want,
                    "{t}, local size {local}: strided copy group {g} element {el} byte {b}"
                );
            }
        }
    }
}

#[test]
fn async_copies_of_scalars() {
    for (t, bytes) in [("char", 1), ("ushort", 2), ("int", 4), ("ulong", 8)] {
        check(t, bytes);
    }
}

#[test]
fn async_copies_of_vectors() {
    for (t, bytes) in [
        ("uchar2", 2),
        ("char3", 4),
        ("short4", 8),
        ("uint8", 32),
        ("long16", 128),
        ("int3", 16),
    ] {
        check(t, bytes);
    }
}

/// float copies keep every bit pattern (the copy is not an arithmetic move).
#[test]
fn async_copies_of_floats() {
    let e = Env::new();
    let src = r#"
    __kernel void k(__global const float4* src, __global float4* out, __local float4* tile) {
        event_t ev = async_work_group_copy(tile, src, 16, 0);
        wait_group_events(1, &ev);
        ev = async_work_group_copy(out, tile, 16, 0);
        wait_group_events(1, &ev);
    }"#;
    let (_p, k) = e.kernel(src, "k");
    let wg = ok(
        kernel_wg_info(k.get(), e.device, CL_KERNEL_WORK_GROUP_SIZE),
        "CL_KERNEL_WORK_GROUP_SIZE",
    )
    .usize();
    let local = wg.min(4);
    let bits: Vec<u32> = (0..64u32)
        .map(|i| match i % 4 {
            0 => 0x7f80_0001 + i, // signalling NaNs
            1 => 0x8000_0000,
            2 => 0x0000_0001,
            _ => i.wrapping_mul(0x9e37_79b9),
        })
        .collect();
    let m = e.buffer_from(&bits);
    let o = e.buffer_from(&[0u32; 64]);
    ok(set_mem(k.get(), 0, &m), "arg");
    ok(set_mem(k.get(), 1, &o), "arg");
    ok(set_local(k.get(), 2, 16 * 16), "arg");
    e.run(&k, &[local], Some(&[local]));
    assert_eq!(e.read::<u32>(&o, 0, 64), bits);
}
