//! A kernel from OpenCL C source to results, through the host target alone
//! (so not in a build without a compiler).
#![cfg(feature = "compiler")]

use compiler::{arg_layout, BuildOptions, ProgramModule, Specialization, Target};
use host::{HostDevice, HostTarget};
use mux::{CommandBuffer, Device, NdRange};
use std::sync::Arc;

fn build(src: &str) -> ProgramModule {
    let target = HostTarget::new();
    ProgramModule::compile(
        src.as_bytes(),
        &BuildOptions::parse("").unwrap(),
        target.cpu(),
        &[],
    )
    .unwrap_or_else(|e| panic!("{}", e.log))
}

/// Runs `kernel` over `range` through a queue, and waits for it.
fn run(device: &dyn Device, kernel: mux::KernelRef, args: &[u8], range: NdRange) {
    let block = mux::Allocation::host(args.len(), 16).unwrap();
    // SAFETY: the block holds `args.len()` bytes.
    unsafe { std::ptr::copy_nonoverlapping(args.as_ptr(), block.as_ptr(), args.len()) };
    let mut commands = CommandBuffer::new();
    commands.nd_range(kernel, Arc::new(block), range).unwrap();
    let fence = device.create_fence();
    let (tx, rx) = std::sync::mpsc::channel();
    device.create_queue().dispatch(
        commands,
        vec![],
        device.create_semaphore(),
        Some(fence.clone()),
        Box::new(move |r| tx.send(r).unwrap()),
    );
    assert_eq!(fence.wait(None), Ok(true));
    assert_eq!(rx.recv().unwrap(), Ok(()));
}

fn pack(values: &[&[u8]], kernel: &compiler::KernelInfo) -> Vec<u8> {
    let (offsets, size) = arg_layout(&kernel.args);
    let mut block = vec![0u8; size];
    for (v, off) in values.iter().zip(offsets) {
        block[off..off + v.len()].copy_from_slice(v);
    }
    block
}

#[test]
fn global_ids_in_three_dimensions_with_an_offset() {
    let program = build(
        "kernel void ids(global uint *out, uint scale) {
            size_t x = get_global_id(0) - get_global_offset(0);
            size_t y = get_global_id(1) - get_global_offset(1);
            size_t z = get_global_id(2) - get_global_offset(2);
            size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
            out[i] = scale * (uint)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2))
                   + get_local_id(0) * 0 + (get_work_dim() == 3 ? 0 : 1000000);
        }",
    );
    let kernel = program.kernel("ids").unwrap();
    let device = HostDevice::new();
    let target = HostTarget::new();
    let compiled = target
        .specialize(
            &program,
            kernel,
            Specialization {
                local_size: [4, 2, 1],
                enqueued_local_size: [4, 2, 1],
                streaming: 0,
                images: [None; compiler::MAX_SPECIALIZED_IMAGES],
            },
        )
        .unwrap();
    let (gx, gy, gz) = (8usize, 6usize, 3usize);
    let mut out = vec![0u32; gx * gy * gz];
    let ptr = out.as_mut_ptr() as usize;
    let args = pack(&[&ptr.to_ne_bytes(), &2u32.to_ne_bytes()], kernel);
    let range = NdRange {
        work_dim: 3,
        global_size: [gx, gy, gz],
        global_offset: [1, 2, 3],
        local_size: [4, 2, 1],
        dynamic_local_memory: 0,
        remainder: [false; 3],
    };
    run(&device, compiled, &args, range);
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                let want = 2 * ((x + 1) + 100 * (y + 2) + 10000 * (z + 3)) as u32;
                assert_eq!(out[(z * gy + y) * gx + x], want, "at {x},{y},{z}");
            }
        }
    }
}

#[test]
fn local_variables_and_local_arguments_are_per_work_group() {
    let program = build(
        "kernel void loc(global int *out, local int *scratch) {
            local int mine[16];
            size_t l = get_local_id(0);
            mine[l] = (int)get_global_id(0);
            scratch[l] = 2 * (int)get_global_id(0);
            out[get_global_id(0)] = mine[l] + scratch[l];
        }",
    );
    let kernel = program.kernel("loc").unwrap();
    assert_eq!(kernel.static_local_memory, 64);
    let device = HostDevice::new();
    let compiled = HostTarget::new()
        .specialize(
            &program,
            kernel,
            Specialization {
                local_size: [16, 1, 1],
                enqueued_local_size: [16, 1, 1],
                streaming: 0,
                images: [None; compiler::MAX_SPECIALIZED_IMAGES],
            },
        )
        .unwrap();
    let n = 1 << 16;
    let mut out = vec![0i32; n];
    let ptr = out.as_mut_ptr() as usize;
    let args = pack(&[&ptr.to_ne_bytes(), &0u64.to_ne_bytes()], kernel);
    let range = NdRange {
        work_dim: 1,
        global_size: [n, 1, 1],
        global_offset: [0; 3],
        local_size: [16, 1, 1],
        dynamic_local_memory: 64,
        remainder: [false; 3],
    };
    run(&device, compiled, &args, range);
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, 3 * i as i32);
    }
}
