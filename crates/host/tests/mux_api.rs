//! The whole `mux` API on the host target, through the validating layer as
//! the API layer uses it: memory, buffers, images, transfer commands,
//! executables, fences and query pools, and what the layer refuses.

use host::HostDevice;
use mux::{BufferRef, CommandBuffer, Device, Error, HostPtr, ImageDesc, ImageKind, ImageRef, Rect};
use std::sync::Arc;
use std::time::Duration;

fn device() -> Arc<dyn Device> {
    mux::validating(Arc::new(HostDevice::new()))
}

fn buffer(d: &dyn Device, size: usize) -> BufferRef {
    let memory = d.allocate_memory(size, 64).unwrap();
    d.create_buffer(memory, 0, size).unwrap()
}

/// Dispatches `commands` and waits for them on a fence.
fn run(d: &dyn Device, commands: CommandBuffer) -> mux::Result<()> {
    let fence = d.create_fence();
    let (tx, rx) = std::sync::mpsc::channel();
    d.create_queue().dispatch(
        commands,
        vec![],
        d.create_semaphore(),
        Some(fence.clone()),
        Box::new(move |r| tx.send(r).unwrap()),
    );
    assert_eq!(fence.wait(Some(Duration::from_secs(10))), Ok(true));
    rx.recv().unwrap()
}

fn read(d: &dyn Device, b: &BufferRef, offset: usize, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    let mut c = CommandBuffer::new();
    c.read_buffer(b.clone(), offset, HostPtr::new(out.as_mut_ptr()), n)
        .unwrap();
    run(d, c).unwrap();
    out
}

#[test]
fn buffer_commands_move_the_bytes_they_name() {
    let d = device();
    let (a, b) = (buffer(&*d, 64), buffer(&*d, 64));
    let data: Vec<u8> = (0..64).collect();
    let mut c = CommandBuffer::new();
    c.write_buffer(a.clone(), 0, HostPtr::new(data.as_ptr()), 64)
        .unwrap();
    c.fill_buffer(b.clone(), 0, 64, &[0xab, 0xcd]).unwrap();
    c.copy_buffer(a.clone(), 8, b.clone(), 16, 8).unwrap();
    run(&*d, c).unwrap();
    let got = read(&*d, &b, 0, 64);
    assert_eq!(&got[..4], &[0xab, 0xcd, 0xab, 0xcd]);
    assert_eq!(&got[16..24], &data[8..16]);
    assert_eq!(&got[24..26], &[0xab, 0xcd]);
    // A 4x4 box of bytes at (2, 0) in rows of 16, into a packed host box.
    let mut boxed = vec![0u8; 16];
    let mut c = CommandBuffer::new();
    let rect = Rect {
        origin: [2, 0, 0],
        row_pitch: 16,
        slice_pitch: 64,
    };
    let host = Rect {
        origin: [0; 3],
        row_pitch: 4,
        slice_pitch: 16,
    };
    c.read_buffer_rect(
        a.clone(),
        rect,
        HostPtr::new(boxed.as_mut_ptr()),
        host,
        [4, 4, 1],
    )
    .unwrap();
    run(&*d, c).unwrap();
    let want: Vec<u8> = (0..4)
        .flat_map(|y| (2..6).map(move |x| (y * 16 + x) as u8))
        .collect();
    assert_eq!(boxed, want);
}

#[test]
fn sub_ranges_of_one_memory_share_bytes_and_overlap_is_refused() {
    let d = device();
    let memory = d.allocate_memory(128, 64).unwrap();
    let whole = d.create_buffer(memory.clone(), 0, 128).unwrap();
    let tail = d.create_buffer(memory.clone(), 64, 64).unwrap();
    assert_eq!(tail.device_address(), whole.device_address() + 64);
    let mut c = CommandBuffer::new();
    c.fill_buffer(tail.clone(), 0, 64, &[7]).unwrap();
    run(&*d, c).unwrap();
    assert_eq!(read(&*d, &whole, 64, 4), vec![7; 4]);
    let mut c = CommandBuffer::new();
    assert_eq!(
        c.copy_buffer(whole.clone(), 60, tail.clone(), 0, 8),
        Err(Error::CopyOverlap)
    );
    assert!(c.copy_buffer(whole.clone(), 0, tail.clone(), 0, 64).is_ok());
    // Mapping gives the same bytes to the host.
    let p = memory.map(64, 4).unwrap();
    assert_eq!(unsafe { std::slice::from_raw_parts(p, 4) }, &[7; 4]);
    memory.unmap(64, 4).unwrap();
}

#[test]
fn the_validating_layer_refuses_what_does_not_fit() {
    let d = device();
    let b = buffer(&*d, 16);
    let mut host = [0u8; 32];
    let mut c = CommandBuffer::new();
    let p = HostPtr::new(host.as_mut_ptr());
    assert_eq!(c.read_buffer(b.clone(), 8, p, 9), Err(Error::InvalidValue));
    assert_eq!(
        c.read_buffer(b.clone(), usize::MAX, p, 2),
        Err(Error::InvalidValue)
    );
    assert_eq!(
        c.read_buffer(b.clone(), 0, HostPtr(0), 4),
        Err(Error::InvalidValue)
    );
    assert_eq!(
        c.fill_buffer(b.clone(), 0, 16, &[1, 2, 3]),
        Err(Error::InvalidValue)
    );
    assert_eq!(
        c.fill_buffer(b.clone(), 2, 8, &[1, 2, 3, 4]),
        Err(Error::InvalidValue)
    );
    assert!(c.is_empty(), "nothing refused was recorded");
    assert_eq!(d.allocate_memory(0, 64).err(), Some(Error::InvalidValue));
    assert_eq!(d.allocate_memory(64, 3).err(), Some(Error::InvalidValue));
    let m = d.allocate_memory(64, 64).unwrap();
    assert_eq!(
        d.create_buffer(m.clone(), 32, 33).err(),
        Some(Error::InvalidValue)
    );
    assert_eq!(m.map(60, 8).err(), Some(Error::InvalidValue));
    assert_eq!(d.create_executable(&[]).err(), Some(Error::InvalidBinary));
    assert_eq!(
        d.create_executable(b"not a binary").err(),
        Some(Error::InvalidBinary)
    );
    assert_eq!(d.create_query_pool(0).err(), Some(Error::InvalidValue));
}

fn image(d: &dyn Device, kind: ImageKind, extent: [usize; 3], layers: usize) -> ImageRef {
    let desc = ImageDesc {
        kind,
        element_size: 4,
        extent,
        layers,
        format: [0; 2],
        pitches: [0; 2],
    };
    let layout = d.image_layout(&desc).unwrap();
    let memory = d.allocate_memory(layout.size, layout.align).unwrap();
    d.create_image(memory, 0, desc).unwrap()
}

#[test]
fn images_are_written_read_filled_and_copied_by_region() {
    let d = device();
    let a = image(&*d, ImageKind::D2, [8, 4, 1], 1);
    let b = image(&*d, ImageKind::D2Array, [8, 4, 1], 2);
    let pixels: Vec<u32> = (0..32).collect();
    let mut c = CommandBuffer::new();
    c.write_image(
        a.clone(),
        [0; 3],
        [8, 4, 1],
        HostPtr::new(pixels.as_ptr()),
        0,
        0,
    )
    .unwrap();
    c.fill_image(b.clone(), &9u32.to_ne_bytes(), [0; 3], [8, 4, 2])
        .unwrap();
    // A 2x2 block of `a` at (3, 1) into layer 1 of `b` at (0, 2).
    c.copy_image(a.clone(), [3, 1, 0], b.clone(), [0, 2, 1], [2, 2, 1])
        .unwrap();
    run(&*d, c).unwrap();
    let mut layer = vec![0u32; 32];
    let mut c = CommandBuffer::new();
    c.read_image(
        b.clone(),
        [0, 0, 1],
        [8, 4, 1],
        HostPtr::new(layer.as_mut_ptr()),
        0,
        0,
    )
    .unwrap();
    run(&*d, c).unwrap();
    assert_eq!(layer[0], 9);
    assert_eq!(&layer[16..18], &[11, 12]);
    assert_eq!(&layer[24..26], &[19, 20]);
    assert_eq!(layer[18], 9);
    // Through a buffer and back: rows packed one after another.
    let buf = buffer(&*d, 64);
    let mut c = CommandBuffer::new();
    c.copy_image_to_buffer(a.clone(), [4, 2, 0], [4, 2, 1], buf.clone(), 16)
        .unwrap();
    c.copy_buffer_to_image(buf.clone(), 16, b.clone(), [4, 0, 0], [4, 2, 1])
        .unwrap();
    run(&*d, c).unwrap();
    let bytes = read(&*d, &buf, 16, 32);
    let words: Vec<u32> = bytes
        .chunks(4)
        .map(|w| u32::from_ne_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(words, vec![20, 21, 22, 23, 28, 29, 30, 31]);
    let mut c = CommandBuffer::new();
    assert_eq!(
        c.read_image(
            b.clone(),
            [7, 0, 0],
            [2, 1, 1],
            HostPtr::new(layer.as_mut_ptr()),
            0,
            0
        ),
        Err(Error::InvalidValue),
        "past the image's width"
    );
    assert_eq!(
        c.copy_image(b.clone(), [0, 0, 0], b.clone(), [1, 1, 0], [2, 2, 1]),
        Err(Error::CopyOverlap)
    );
}

#[test]
fn query_pools_time_the_commands_between_begin_and_end() {
    let d = device();
    let pool = d.create_query_pool(2).unwrap();
    let b = buffer(&*d, 1 << 20);
    let mut c = CommandBuffer::new();
    c.reset_queries(pool.clone(), 0, 2).unwrap();
    c.begin_query(pool.clone(), 1).unwrap();
    c.fill_buffer(b.clone(), 0, 1 << 20, &[1]).unwrap();
    c.end_query(pool.clone(), 1).unwrap();
    assert_eq!(c.begin_query(pool.clone(), 2), Err(Error::InvalidValue));
    run(&*d, c).unwrap();
    let t = pool.duration(1).unwrap().expect("both stamps taken");
    assert!(t.start > 0 && t.end >= t.start);
    assert_eq!(pool.duration(0).unwrap(), None);
}

#[test]
fn a_fence_times_out_until_its_dispatch_ends() {
    let d = device();
    let gate = d.create_semaphore();
    let fence = d.create_fence();
    let mut c = CommandBuffer::new();
    c.host(Box::new(|| Ok(())));
    d.create_queue().dispatch(
        c,
        vec![gate.clone()],
        d.create_semaphore(),
        Some(fence.clone()),
        Box::new(|_| {}),
    );
    assert_eq!(fence.wait(Some(Duration::from_millis(20))), Ok(false));
    assert!(!fence.is_signalled());
    gate.signal(true);
    assert_eq!(fence.wait(None), Ok(true));
    fence.reset();
    assert!(!fence.is_signalled());
}

/// Compiles its kernel: not in a build without a compiler.
#[cfg(feature = "compiler")]
#[test]
fn an_executable_from_a_binary_runs_its_kernel() {
    use compiler::{BuildOptions, ProgramModule, Specialization, Target};
    use host::HostTarget;
    let target = HostTarget::new();
    let program = ProgramModule::compile(
        b"kernel void twice(global int *p) { p[get_global_id(0)] *= 2; }",
        &BuildOptions::parse("").unwrap(),
        target.cpu(),
        &[],
    )
    .unwrap();
    let info = program.kernel("twice").unwrap();
    let spec = Specialization {
        local_size: [8, 1, 1],
        enqueued_local_size: [8, 1, 1],
        streaming: 0,
        images: [None; compiler::MAX_SPECIALIZED_IMAGES],
    };
    let binary = target.executable(&program, info, spec).unwrap();
    let d = device();
    let exe = d.create_executable(&binary).unwrap();
    assert_eq!(exe.kernel_names(), vec!["twice".to_string()]);
    assert_eq!(exe.kernel("thrice").err(), Some(Error::NoSuchKernel));
    let kernel = exe.kernel("twice").unwrap();
    let b = buffer(&*d, 64);
    let data: Vec<i32> = (0..16).collect();
    let args = mux::Allocation::host(8, 16).unwrap();
    // SAFETY: the block holds the one pointer-sized argument.
    unsafe { std::ptr::write(args.as_ptr() as *mut u64, b.device_address()) };
    let range = mux::NdRange {
        work_dim: 1,
        global_size: [16, 1, 1],
        global_offset: [0; 3],
        local_size: [8, 1, 1],
        dynamic_local_memory: 0,
        remainder: [false; 3],
    };
    let mut c = CommandBuffer::new();
    c.write_buffer(b.clone(), 0, HostPtr::new(data.as_ptr()), 64)
        .unwrap();
    c.nd_range(kernel, Arc::new(args), range).unwrap();
    run(&*d, c).unwrap();
    let out = read(&*d, &b, 0, 64);
    let got: Vec<i32> = out
        .chunks(4)
        .map(|w| i32::from_ne_bytes(w.try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..16).map(|x| 2 * x).collect::<Vec<_>>());
}
