//! Images and samplers on the host side: creation of every image type,
//! their queries, the image commands (read, write, copy, fill, map, copies
//! to and from buffers, in command buffers too), images over buffers and
//! host memory, samplers, and each bad input's error code.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

fn rgba8() -> cl_image_format {
    image_format(CL_RGBA, CL_UNORM_INT8)
}

fn image_info(m: &Mem, name: cl_image_info) -> Info {
    ok(
        query(|s, v, r| cl!(clGetImageInfo(m.get(), name, s, v, r))),
        "clGetImageInfo",
    )
}

fn dinfo(name: cl_device_info) -> Info {
    ok(device_info(device(), name), "clGetDeviceInfo")
}

#[test]
fn the_device_reports_images_and_their_limits() {
    assert!(dinfo(CL_DEVICE_IMAGE_SUPPORT).bool());
    assert!(dinfo(CL_DEVICE_IMAGE2D_MAX_WIDTH).usize() >= 16384);
    assert!(dinfo(CL_DEVICE_IMAGE2D_MAX_HEIGHT).usize() >= 16384);
    assert!(dinfo(CL_DEVICE_IMAGE3D_MAX_WIDTH).usize() >= 2048);
    assert!(dinfo(CL_DEVICE_IMAGE3D_MAX_DEPTH).usize() >= 2048);
    assert!(dinfo(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE).usize() >= 65536);
    assert!(dinfo(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE).usize() >= 2048);
    assert!(dinfo(CL_DEVICE_MAX_SAMPLERS).u32() >= 16);
    assert!(dinfo(CL_DEVICE_MAX_READ_IMAGE_ARGS).u32() >= 128);
    assert!(dinfo(CL_DEVICE_MAX_WRITE_IMAGE_ARGS).u32() >= 64);
    assert!(dinfo(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS).u32() >= 64);
    assert!(dinfo(CL_DEVICE_IMAGE_PITCH_ALIGNMENT)
        .u32()
        .is_power_of_two());
    assert!(dinfo(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT)
        .u32()
        .is_power_of_two());
    let ext = ext_names(&dinfo(CL_DEVICE_EXTENSIONS).string());
    for e in [
        "cl_khr_3d_image_writes",
        "cl_khr_image2d_from_buffer",
        "cl_khr_depth_images",
    ] {
        assert!(ext.iter().any(|x| x == e), "{e} not reported");
    }
    let features: Vec<String> = dinfo(CL_DEVICE_OPENCL_C_FEATURES)
        .name_versions()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    for f in [
        "__opencl_c_images",
        "__opencl_c_read_write_images",
        "__opencl_c_3d_image_writes",
    ] {
        assert!(features.iter().any(|x| x == f), "{f} not reported");
    }
}

#[test]
fn kernels_see_image_support_defined() {
    let e = Env::new();
    let src = "#ifndef __IMAGE_SUPPORT__\n#error no images\n#endif\nkernel void k() {}";
    e.program(src, "");
}

#[test]
fn supported_formats_are_listed_per_access_and_type() {
    let e = Env::new();
    let formats = |flags, t| {
        let mut n = 0;
        check(
            cl!(clGetSupportedImageFormats(
                e.c(),
                flags,
                t,
                0,
                null_mut(),
                &mut n
            )),
            "clGetSupportedImageFormats",
        );
        let mut v = vec![rgba8(); n as usize];
        check(
            cl!(clGetSupportedImageFormats(
                e.c(),
                flags,
                t,
                n,
                v.as_mut_ptr(),
                null_mut()
            )),
            "clGetSupportedImageFormats",
        );
        v.into_iter()
            .map(|f| (f.image_channel_order, f.image_channel_data_type))
            .collect::<Vec<_>>()
    };
    // The spec's minimum list, for every image type.
    for t in [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ] {
        for flags in [
            CL_MEM_READ_ONLY,
            CL_MEM_WRITE_ONLY,
            CL_MEM_READ_WRITE,
            CL_MEM_KERNEL_READ_AND_WRITE,
        ] {
            let list = formats(flags, t);
            for order in [CL_R, CL_RG, CL_RGBA] {
                for ty in [
                    CL_UNORM_INT8,
                    CL_UNORM_INT16,
                    CL_SNORM_INT8,
                    CL_SNORM_INT16,
                    CL_SIGNED_INT8,
                    CL_SIGNED_INT16,
                    CL_SIGNED_INT32,
                    CL_UNSIGNED_INT8,
                    CL_UNSIGNED_INT16,
                    CL_UNSIGNED_INT32,
                    CL_HALF_FLOAT,
                    CL_FLOAT,
                ] {
                    assert!(list.contains(&(order, ty)), "{order:#x} {ty:#x} for {t:#x}");
                }
            }
            assert!(list.contains(&(CL_BGRA, CL_UNORM_INT8)));
            // sRGB is read-only.
            let srgb = list.contains(&(CL_sRGBA, CL_UNORM_INT8));
            assert_eq!(srgb, flags == CL_MEM_READ_ONLY, "{flags:#x} {t:#x}");
        }
    }
    assert!(formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D).contains(&(CL_DEPTH, CL_FLOAT)));
    assert!(!formats(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE3D).contains(&(CL_DEPTH, CL_FLOAT)));
    // A type that is not an image's, and a short array with entries.
    let mut n = 0;
    assert_code(
        cl!(clGetSupportedImageFormats(
            e.c(),
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_BUFFER,
            0,
            null_mut(),
            &mut n
        )),
        CL_INVALID_VALUE,
        "clGetSupportedImageFormats(buffer type)",
    );
    let mut one = rgba8();
    assert_code(
        cl!(clGetSupportedImageFormats(
            e.c(),
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            &mut one,
            null_mut()
        )),
        CL_INVALID_VALUE,
        "clGetSupportedImageFormats(0 entries)",
    );
}

#[test]
fn every_image_type_is_created_and_answers_its_queries() {
    let e = Env::new();
    let f = rgba8();
    let buffer = e.buffer(4 * 64);
    let mut one_d_buffer = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, 0, 0, 0);
    one_d_buffer.buffer = buffer.get();
    let cases = [
        (
            image_desc(CL_MEM_OBJECT_IMAGE1D, 64, 0, 0, 0),
            [64, 0, 0, 0],
            (256, 0),
        ),
        (one_d_buffer, [64, 0, 0, 0], (256, 0)),
        (
            image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 64, 0, 0, 3),
            [64, 0, 0, 3],
            (256, 256),
        ),
        (
            image_desc(CL_MEM_OBJECT_IMAGE2D, 64, 8, 0, 0),
            [64, 8, 0, 0],
            (256, 0),
        ),
        (
            image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 64, 8, 0, 3),
            [64, 8, 0, 3],
            (256, 2048),
        ),
        (
            image_desc(CL_MEM_OBJECT_IMAGE3D, 64, 8, 5, 0),
            [64, 8, 5, 0],
            (256, 2048),
        ),
    ];
    for (desc, [w, h, d, a], (row, slice)) in cases {
        let m = e.image(CL_MEM_READ_WRITE, &f, &desc);
        let t = desc.image_type;
        assert_eq!(
            ok(mem_info(m.get(), CL_MEM_TYPE), "CL_MEM_TYPE").u32(),
            t,
            "{t:#x}"
        );
        assert_eq!(image_info(&m, CL_IMAGE_WIDTH).usize(), w, "{t:#x}");
        assert_eq!(image_info(&m, CL_IMAGE_HEIGHT).usize(), h, "{t:#x}");
        assert_eq!(image_info(&m, CL_IMAGE_DEPTH).usize(), d, "{t:#x}");
        assert_eq!(image_info(&m, CL_IMAGE_ARRAY_SIZE).usize(), a, "{t:#x}");
        assert_eq!(image_info(&m, CL_IMAGE_ELEMENT_SIZE).usize(), 4);
        assert_eq!(image_info(&m, CL_IMAGE_ROW_PITCH).usize(), row, "{t:#x}");
        assert_eq!(
            image_info(&m, CL_IMAGE_SLICE_PITCH).usize(),
            slice,
            "{t:#x}"
        );
        assert_eq!(image_info(&m, CL_IMAGE_NUM_MIP_LEVELS).u32(), 0);
        assert_eq!(image_info(&m, CL_IMAGE_NUM_SAMPLES).u32(), 0);
        let fmt = image_info(&m, CL_IMAGE_FORMAT).0;
        assert_eq!(&fmt[..4], &CL_RGBA.to_ne_bytes());
        assert_eq!(&fmt[4..8], &CL_UNORM_INT8.to_ne_bytes());
        let associated = ok(mem_info(m.get(), CL_MEM_ASSOCIATED_MEMOBJECT), "assoc").ptr();
        let over_buffer = t == CL_MEM_OBJECT_IMAGE1D_BUFFER;
        assert_eq!(associated == buffer.get() as *mut c_void, over_buffer);
        assert_eq!(
            image_info(&m, CL_IMAGE_BUFFER).ptr() == buffer.get() as *mut c_void,
            over_buffer
        );
    }
}

/// RGBA8 texels numbered from `base`.
fn texels(n: usize, base: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| (base + i).wrapping_mul(0x0101_0101) ^ i)
        .collect()
}

#[test]
fn images_are_written_and_read_by_region_with_host_pitches() {
    let e = Env::new();
    let m = e.image(
        CL_MEM_READ_WRITE,
        &rgba8(),
        &image_desc(CL_MEM_OBJECT_IMAGE3D, 8, 6, 4, 0),
    );
    let all = texels(8 * 6 * 4, 7);
    e.write_image(&m, [0; 3], [8, 6, 4], &all);
    assert_eq!(e.read_image::<u32>(&m, [0; 3], [8, 6, 4], all.len()), all);
    // A 3x2x2 box at (2, 1, 1), read into rows of 5 texels and slices of
    // 3 rows.
    let (row, slice) = (5 * 4, 3 * 5 * 4);
    let mut host = vec![0u32; slice / 4 * 2];
    check(
        cl!(clEnqueueReadImage(
            e.q(),
            m.get(),
            CL_TRUE,
            [2, 1, 1].as_ptr(),
            [3, 2, 2].as_ptr(),
            row,
            slice,
            host.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueReadImage(pitches)",
    );
    for z in 0..2 {
        for y in 0..2 {
            for x in 0..3 {
                let want = all[(z + 1) * 48 + (y + 1) * 8 + x + 2];
                assert_eq!(host[z * 15 + y * 5 + x], want, "({x},{y},{z})");
            }
        }
    }
    // Written back elsewhere with the same pitches.
    check(
        cl!(clEnqueueWriteImage(
            e.q(),
            m.get(),
            CL_TRUE,
            [5, 4, 2].as_ptr(),
            [3, 2, 2].as_ptr(),
            row,
            slice,
            host.as_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueWriteImage(pitches)",
    );
    let back = e.read_image::<u32>(&m, [5, 4, 2], [3, 2, 2], 12);
    assert_eq!(back[0], all[48 + 8 + 2]);
    assert_eq!(back[11], all[2 * 48 + 2 * 8 + 4]);
}

#[test]
fn a_1d_array_read_takes_its_layer_pitch_as_the_slice_pitch() {
    let e = Env::new();
    let m = e.image(
        CL_MEM_READ_WRITE,
        &rgba8(),
        &image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 16, 0, 0, 4),
    );
    let all = texels(64, 3);
    e.write_image(&m, [0; 3], [16, 4, 1], &all);
    // Layers 1 and 2, texels 4..8, each layer 10 texels apart.
    let mut host = vec![0u32; 20];
    check(
        cl!(clEnqueueReadImage(
            e.q(),
            m.get(),
            CL_TRUE,
            [4, 1, 0].as_ptr(),
            [4, 2, 1].as_ptr(),
            0,
            40,
            host.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueReadImage(1D array)",
    );
    assert_eq!(&host[..4], &all[20..24]);
    assert_eq!(&host[10..14], &all[36..40]);
}

#[test]
fn images_are_copied_filled_and_copied_to_and_from_buffers() {
    let e = Env::new();
    let f = rgba8();
    let a = e.image(
        CL_MEM_READ_WRITE,
        &f,
        &image_desc(CL_MEM_OBJECT_IMAGE2D, 16, 16, 0, 0),
    );
    let b = e.image(
        CL_MEM_READ_WRITE,
        &f,
        &image_desc(CL_MEM_OBJECT_IMAGE3D, 16, 16, 2, 0),
    );
    let all = texels(256, 1);
    e.write_image(&a, [0; 3], [16, 16, 1], &all);
    // A 2D image's rectangle into a slice of a 3D one.
    check(
        cl!(clEnqueueCopyImage(
            e.q(),
            a.get(),
            b.get(),
            [4, 4, 0].as_ptr(),
            [0, 0, 1].as_ptr(),
            [8, 8, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueCopyImage",
    );
    let copied = e.read_image::<u32>(&b, [0, 0, 1], [8, 8, 1], 64);
    assert_eq!(copied[0], all[4 * 16 + 4]);
    assert_eq!(copied[63], all[11 * 16 + 11]);
    // Filled with a float4 colour, packed as the format says.
    let color = [1.0f32, 0.5, 0.0, 1.0];
    check(
        cl!(clEnqueueFillImage(
            e.q(),
            a.get(),
            color.as_ptr().cast(),
            [2, 3, 0].as_ptr(),
            [4, 2, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueFillImage",
    );
    let filled = e.read_image::<[u8; 4]>(&a, [2, 3, 0], [4, 2, 1], 8);
    assert!(
        filled.iter().all(|t| *t == [255, 128, 0, 255]),
        "{filled:?}"
    );
    let outside = e.read_image::<u32>(&a, [1, 3, 0], [1, 1, 1], 1);
    assert_eq!(outside[0], all[3 * 16 + 1]);
    // Out to a buffer, packed, and back into another place.
    let buf = e.buffer(4 * 64 + 12);
    check(
        cl!(clEnqueueCopyImageToBuffer(
            e.q(),
            a.get(),
            buf.get(),
            [8, 8, 0].as_ptr(),
            [8, 8, 1].as_ptr(),
            12,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueCopyImageToBuffer",
    );
    let bytes = e.read::<u32>(&buf, 12, 64);
    assert_eq!(bytes[0], all[8 * 16 + 8]);
    assert_eq!(bytes[63], all[15 * 16 + 15]);
    check(
        cl!(clEnqueueCopyBufferToImage(
            e.q(),
            buf.get(),
            b.get(),
            12,
            [8, 8, 0].as_ptr(),
            [8, 8, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueCopyBufferToImage",
    );
    assert_eq!(e.read_image::<u32>(&b, [8, 8, 0], [8, 8, 1], 64), bytes);
    e.finish();
}

#[test]
fn a_mapped_image_gives_its_pitches_and_its_writes_stay() {
    let e = Env::new();
    let m = e.image(
        CL_MEM_READ_WRITE,
        &rgba8(),
        &image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 4, 0, 3),
    );
    let all = texels(8 * 4 * 3, 9);
    e.write_image(&m, [0; 3], [8, 4, 3], &all);
    let (mut row, mut slice, mut rc) = (0usize, 0usize, 0);
    let p = cl!(clEnqueueMapImage(
        e.q(),
        m.get(),
        CL_TRUE,
        CL_MAP_READ | CL_MAP_WRITE,
        [1, 1, 1].as_ptr(),
        [2, 2, 2].as_ptr(),
        &mut row,
        &mut slice,
        0,
        null(),
        null_mut(),
        &mut rc
    )) as *mut u8;
    check(rc, "clEnqueueMapImage");
    assert!(row >= 32 && slice >= row * 4, "{row} {slice}");
    unsafe {
        let at = |x: usize, y: usize, z: usize| p.add(z * slice + y * row + x * 4) as *mut u32;
        assert_eq!(*at(0, 0, 0), all[32 + 8 + 1]);
        assert_eq!(*at(1, 1, 1), all[64 + 16 + 2]);
        *at(1, 0, 1) = 0xdead_beef;
    }
    check(
        cl!(clEnqueueUnmapMemObject(
            e.q(),
            m.get(),
            p.cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueUnmapMemObject",
    );
    assert_eq!(
        ok(mem_info(m.get(), CL_MEM_MAP_COUNT), "map count").u32(),
        0
    );
    let t = e.read_image::<u32>(&m, [2, 1, 2], [1, 1, 1], 1);
    assert_eq!(t[0], 0xdead_beef);
    // A 3D or array map needs somewhere to put the slice pitch.
    let p = cl!(clEnqueueMapImage(
        e.q(),
        m.get(),
        CL_TRUE,
        CL_MAP_READ,
        [0, 0, 0].as_ptr(),
        [1, 1, 1].as_ptr(),
        &mut row,
        null_mut(),
        0,
        null(),
        null_mut(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(
        rc,
        CL_INVALID_VALUE,
        "clEnqueueMapImage without slice pitch",
    );
}

#[test]
fn host_memory_images_are_used_in_place_or_copied() {
    let e = Env::new();
    let f = rgba8();
    // Rows of 12 texels, of which the image uses 10.
    let mut host: Vec<u32> = texels(12 * 5, 4);
    let mut desc = image_desc(CL_MEM_OBJECT_IMAGE2D, 10, 5, 0, 0);
    desc.image_row_pitch = 48;
    let used = ok(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            &f,
            &desc,
            host.as_mut_ptr().cast(),
        ),
        "clCreateImage(USE_HOST_PTR)",
    );
    assert_eq!(image_info(&used, CL_IMAGE_ROW_PITCH).usize(), 48);
    assert_eq!(
        ok(mem_info(used.get(), CL_MEM_HOST_PTR), "host ptr").ptr(),
        host.as_mut_ptr().cast()
    );
    let read = e.read_image::<u32>(&used, [0, 2, 0], [10, 1, 1], 10);
    assert_eq!(&read[..], &host[24..34]);
    // Writes land in the application's memory.
    e.write_image(&used, [3, 4, 0], [1, 1, 1], &[0x1234_5678u32]);
    assert_eq!(host[4 * 12 + 3], 0x1234_5678);
    let copied = ok(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            &f,
            &desc,
            host.as_mut_ptr().cast(),
        ),
        "clCreateImage(COPY_HOST_PTR)",
    );
    let read = e.read_image::<u32>(&copied, [0, 4, 0], [10, 1, 1], 10);
    assert_eq!(&read[..], &host[48..58]);
    e.write_image(&copied, [0, 0, 0], [1, 1, 1], &[7u32]);
    assert_ne!(host[0], 7);
}

#[test]
fn a_2d_image_from_a_buffer_shares_its_bytes() {
    let e = Env::new();
    let f = image_format(CL_R, CL_FLOAT);
    let data: Vec<f32> = (0..16 * 8).map(|i| i as f32).collect();
    let buffer = e.buffer_from(&data);
    let mut desc = image_desc(CL_MEM_OBJECT_IMAGE2D, 12, 8, 0, 0);
    desc.image_row_pitch = 64;
    desc.buffer = buffer.get();
    let img = ok(
        e.try_image(CL_MEM_READ_ONLY, &f, &desc, null_mut()),
        "clCreateImage(2D from buffer)",
    );
    assert_eq!(image_info(&img, CL_IMAGE_ROW_PITCH).usize(), 64);
    assert_eq!(
        e.read_image::<f32>(&img, [2, 3, 0], [2, 1, 1], 2),
        [50.0, 51.0]
    );
    // The buffer's writes are the image's.
    e.write(&buffer, 4 * (5 * 16 + 1), &[-1.0f32]);
    assert_eq!(e.read_image::<f32>(&img, [1, 5, 0], [1, 1, 1], 1), [-1.0]);
    // The buffer may not be used up while the image lives: it keeps it.
    let access = ok(mem_info(img.get(), CL_MEM_FLAGS), "flags").u64();
    assert_eq!(access & CL_MEM_READ_ONLY, CL_MEM_READ_ONLY);
    // Too small a buffer for its rows.
    desc.image_height = 9;
    assert_err(
        e.try_image(CL_MEM_READ_ONLY, &f, &desc, null_mut()),
        CL_INVALID_IMAGE_SIZE,
        "2D image past its buffer",
    );
}

#[test]
fn bad_image_creation_gets_the_specs_codes() {
    let e = Env::new();
    let f = rgba8();
    let d2 = image_desc(CL_MEM_OBJECT_IMAGE2D, 16, 16, 0, 0);
    let mut rc = 0;
    let m = cl!(clCreateImage(
        e.c(),
        CL_MEM_READ_WRITE,
        null(),
        &d2,
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "null format");
    let bad = image_format(CL_RGB, CL_UNORM_INT8);
    assert_err(
        e.try_image(CL_MEM_READ_WRITE, &bad, &d2, null_mut()),
        CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
        "CL_RGB with UNORM_INT8",
    );
    let m = cl!(clCreateImage(
        e.c(),
        CL_MEM_READ_WRITE,
        &f,
        null(),
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_IMAGE_DESCRIPTOR, "null descriptor");
    assert_err(
        e.try_image(
            CL_MEM_READ_WRITE,
            &f,
            &image_desc(CL_MEM_OBJECT_BUFFER, 16, 16, 0, 0),
            null_mut(),
        ),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "buffer as image type",
    );
    assert_err(
        e.try_image(
            CL_MEM_READ_WRITE,
            &f,
            &image_desc(CL_MEM_OBJECT_IMAGE2D, 0, 16, 0, 0),
            null_mut(),
        ),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "zero width",
    );
    let max = dinfo(CL_DEVICE_IMAGE2D_MAX_WIDTH).usize();
    assert_err(
        e.try_image(
            CL_MEM_READ_WRITE,
            &f,
            &image_desc(CL_MEM_OBJECT_IMAGE2D, max + 1, 1, 0, 0),
            null_mut(),
        ),
        CL_INVALID_IMAGE_SIZE,
        "width over the device's limit",
    );
    let mut pitched = d2;
    pitched.image_row_pitch = 128;
    assert_err(
        e.try_image(CL_MEM_READ_WRITE, &f, &pitched, null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "a row pitch without a host pointer",
    );
    let mut host = vec![0u8; 64 * 16];
    pitched.image_row_pitch = 62;
    assert_err(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            &f,
            &pitched,
            host.as_mut_ptr().cast(),
        ),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "a row pitch shorter than a row",
    );
    assert_err(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
            &f,
            &d2,
            null_mut(),
        ),
        CL_INVALID_HOST_PTR,
        "COPY_HOST_PTR without a pointer",
    );
    assert_err(
        e.try_image(CL_MEM_READ_WRITE, &f, &d2, host.as_mut_ptr().cast()),
        CL_INVALID_HOST_PTR,
        "a pointer without a host-pointer flag",
    );
    assert_err(
        e.try_image(CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, &f, &d2, null_mut()),
        CL_INVALID_VALUE,
        "two access flags",
    );
    assert_err(
        e.try_image(
            CL_MEM_WRITE_ONLY,
            &image_format(CL_sRGBA, CL_UNORM_INT8),
            &d2,
            null_mut(),
        ),
        CL_IMAGE_FORMAT_NOT_SUPPORTED,
        "a write-only sRGB image",
    );
    let mut one_d_buffer = image_desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, 16, 0, 0, 0);
    assert_err(
        e.try_image(CL_MEM_READ_WRITE, &f, &one_d_buffer, null_mut()),
        CL_INVALID_IMAGE_DESCRIPTOR,
        "a 1D image buffer without its buffer",
    );
    let small = e.buffer(32);
    one_d_buffer.buffer = small.get();
    assert_err(
        e.try_image(CL_MEM_READ_WRITE, &f, &one_d_buffer, null_mut()),
        CL_INVALID_IMAGE_SIZE,
        "a 1D image buffer past its buffer",
    );
    // Nothing above harmed the context.
    let fine = e.image(CL_MEM_READ_WRITE, &f, &d2);
    assert_eq!(image_info(&fine, CL_IMAGE_WIDTH).usize(), 16);
}

#[test]
fn bad_image_commands_get_the_specs_codes() {
    let e = Env::new();
    let img = e.image(
        CL_MEM_READ_WRITE,
        &rgba8(),
        &image_desc(CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0),
    );
    let buf = e.buffer(256);
    let mut host = vec![0u32; 64];
    let read = |m: cl_mem, origin: [usize; 3], region: [usize; 3], row: usize, ptr: *mut u32| {
        cl!(clEnqueueReadImage(
            e.q(),
            m,
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            row,
            0,
            ptr.cast(),
            0,
            null(),
            null_mut()
        ))
    };
    let p = host.as_mut_ptr();
    assert_code(
        read(img.get(), [4, 0, 0], [5, 1, 1], 0, p),
        CL_INVALID_VALUE,
        "past the width",
    );
    assert_code(
        read(img.get(), [0, 0, 1], [1, 1, 1], 0, p),
        CL_INVALID_VALUE,
        "a z origin of a 2D image",
    );
    assert_code(
        read(img.get(), [0, 0, 0], [0, 1, 1], 0, p),
        CL_INVALID_VALUE,
        "an empty region",
    );
    assert_code(
        read(img.get(), [0, 0, 0], [4, 1, 1], 8, p),
        CL_INVALID_VALUE,
        "a row pitch under a row",
    );
    assert_code(
        read(img.get(), [0, 0, 0], [1, 1, 1], 0, null_mut()),
        CL_INVALID_VALUE,
        "no pointer",
    );
    assert_code(
        read(buf.get(), [0, 0, 0], [1, 1, 1], 0, p),
        CL_INVALID_MEM_OBJECT,
        "a buffer as image",
    );
    assert_code(
        cl!(clEnqueueReadBuffer(
            e.q(),
            img.get(),
            CL_TRUE,
            0,
            4,
            p.cast(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "an image as buffer",
    );
    let other = e.image(
        CL_MEM_READ_WRITE,
        &image_format(CL_R, CL_FLOAT),
        &image_desc(CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0),
    );
    assert_code(
        cl!(clEnqueueCopyImage(
            e.q(),
            img.get(),
            other.get(),
            [0; 3].as_ptr(),
            [0; 3].as_ptr(),
            [1, 1, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        CL_IMAGE_FORMAT_MISMATCH,
        "copy between formats",
    );
    assert_code(
        cl!(clEnqueueCopyImage(
            e.q(),
            img.get(),
            img.get(),
            [0; 3].as_ptr(),
            [2, 2, 0].as_ptr(),
            [4, 4, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        CL_MEM_COPY_OVERLAP,
        "overlapping copy",
    );
    assert_code(
        cl!(clEnqueueFillImage(
            e.q(),
            img.get(),
            null(),
            [0; 3].as_ptr(),
            [1, 1, 1].as_ptr(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "fill without a colour",
    );
    assert_code(
        cl!(clEnqueueCopyImageToBuffer(
            e.q(),
            img.get(),
            buf.get(),
            [0; 3].as_ptr(),
            [8, 8, 1].as_ptr(),
            4,
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "copy past the buffer's end",
    );
    let host_only = ok(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY,
            &rgba8(),
            &image_desc(CL_MEM_OBJECT_IMAGE2D, 8, 8, 0, 0),
            null_mut(),
        ),
        "host write-only image",
    );
    assert_code(
        read(host_only.get(), [0; 3], [1, 1, 1], 0, p),
        CL_INVALID_OPERATION,
        "a read of a host write-only image",
    );
    assert_code(
        cl!(clGetImageInfo(
            buf.get(),
            CL_IMAGE_WIDTH,
            8,
            p.cast(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "clGetImageInfo of a buffer",
    );
    assert_code(
        cl!(clGetImageInfo(img.get(), 0x7777, 8, p.cast(), null_mut())),
        CL_INVALID_VALUE,
        "clGetImageInfo of an unknown name",
    );
    // The image is as it was.
    e.write_image(&img, [0; 3], [1, 1, 1], &[5u32]);
    assert_eq!(e.read_image::<u32>(&img, [0; 3], [1, 1, 1], 1), [5]);
}

#[test]
fn samplers_are_created_queried_and_refuse_bad_modes() {
    let e = Env::new();
    let s = ok(
        e.try_sampler(true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR),
        "clCreateSampler",
    );
    let info = |name| {
        ok(
            query(|sz, v, r| cl!(clGetSamplerInfo(s.get(), name, sz, v, r))),
            "clGetSamplerInfo",
        )
    };
    assert!(info(CL_SAMPLER_NORMALIZED_COORDS).bool());
    assert_eq!(info(CL_SAMPLER_ADDRESSING_MODE).u32(), CL_ADDRESS_REPEAT);
    assert_eq!(info(CL_SAMPLER_FILTER_MODE).u32(), CL_FILTER_LINEAR);
    assert_eq!(info(CL_SAMPLER_REFERENCE_COUNT).u32(), 1);
    assert_eq!(info(CL_SAMPLER_CONTEXT).ptr(), e.c().cast());
    assert_eq!(info(CL_SAMPLER_PROPERTIES).0.len(), 0);
    check(cl!(clRetainSampler(s.get())), "clRetainSampler");
    assert_eq!(info(CL_SAMPLER_REFERENCE_COUNT).u32(), 2);
    check(cl!(clReleaseSampler(s.get())), "clReleaseSampler");

    let props: [cl_sampler_properties; 5] = [
        CL_SAMPLER_ADDRESSING_MODE as _,
        CL_ADDRESS_MIRRORED_REPEAT as _,
        CL_SAMPLER_FILTER_MODE as _,
        CL_FILTER_NEAREST as _,
        0,
    ];
    let mut rc = 0;
    let p = Sampler(cl!(clCreateSamplerWithProperties(
        e.c(),
        props.as_ptr(),
        &mut rc
    )));
    check(rc, "clCreateSamplerWithProperties");
    let got = ok(
        query(|sz, v, r| cl!(clGetSamplerInfo(p.get(), CL_SAMPLER_PROPERTIES, sz, v, r))),
        "CL_SAMPLER_PROPERTIES",
    );
    assert_eq!(
        got.u64s(),
        props.iter().map(|&x| x as u64).collect::<Vec<_>>()
    );
    let normalized = ok(
        query(|sz, v, r| {
            cl!(clGetSamplerInfo(
                p.get(),
                CL_SAMPLER_NORMALIZED_COORDS,
                sz,
                v,
                r
            ))
        }),
        "normalized",
    );
    assert!(normalized.bool(), "the default is normalized");

    assert_err(
        e.try_sampler(false, 0x9999, CL_FILTER_NEAREST),
        CL_INVALID_VALUE,
        "addressing mode",
    );
    assert_err(
        e.try_sampler(false, CL_ADDRESS_CLAMP, 0x9999),
        CL_INVALID_VALUE,
        "filter mode",
    );
    let bad: [cl_sampler_properties; 3] = [0x7777, 1, 0];
    let none = cl!(clCreateSamplerWithProperties(e.c(), bad.as_ptr(), &mut rc));
    assert!(none.is_null());
    assert_code(rc, CL_INVALID_VALUE, "an unknown sampler property");
    let twice: [cl_sampler_properties; 5] = [
        CL_SAMPLER_FILTER_MODE as _,
        CL_FILTER_NEAREST as _,
        CL_SAMPLER_FILTER_MODE as _,
        CL_FILTER_LINEAR as _,
        0,
    ];
    let none = cl!(clCreateSamplerWithProperties(
        e.c(),
        twice.as_ptr(),
        &mut rc
    ));
    assert!(none.is_null());
    assert_code(rc, CL_INVALID_VALUE, "a property given twice");
    // A handle of another kind is not a sampler.
    assert_code(
        cl!(clRetainSampler(e.c() as cl_sampler)),
        CL_INVALID_SAMPLER,
        "a context as sampler",
    );
}

const ARGS_SRC: &str = r#"
kernel void k(read_only image2d_t r, write_only image2d_t w, sampler_t s,
              read_only image3d_t v, global int *out) {
    out[0] = 1;
}
"#;

#[test]
fn image_and_sampler_arguments_check_what_they_are_given() {
    let e = Env::new();
    let (_p, k) = e.kernel(ARGS_SRC, "k");
    let f = rgba8();
    let d2 = image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    let read_only = e.image(CL_MEM_READ_ONLY, &f, &d2);
    let write_only = e.image(CL_MEM_WRITE_ONLY, &f, &d2);
    let three = e.image(
        CL_MEM_READ_ONLY,
        &f,
        &image_desc(CL_MEM_OBJECT_IMAGE3D, 4, 4, 4, 0),
    );
    let buf = e.buffer(16);
    let s = ok(
        e.try_sampler(false, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
        "sampler",
    );
    let set = |i: cl_uint, h: cl_mem| set_arg(k.get(), i, &h);
    ok(set(0, read_only.get()), "read-only image");
    assert_err(
        set(0, write_only.get()),
        CL_INVALID_ARG_VALUE,
        "a write-only image to read_only",
    );
    assert_err(
        set(1, read_only.get()),
        CL_INVALID_ARG_VALUE,
        "a read-only image to write_only",
    );
    ok(set(1, write_only.get()), "write-only image");
    assert_err(
        set(3, read_only.get()),
        CL_INVALID_MEM_OBJECT,
        "a 2D image to image3d_t",
    );
    assert_err(
        set(0, buf.get()),
        CL_INVALID_MEM_OBJECT,
        "a buffer to image2d_t",
    );
    assert_err(
        set(4, read_only.get()),
        CL_INVALID_MEM_OBJECT,
        "an image to a global pointer",
    );
    ok(set(3, three.get()), "3D image");
    assert_err(
        result(
            cl!(clSetKernelArg(
                k.get(),
                0,
                4,
                (&read_only.get() as *const cl_mem).cast()
            )),
            (),
        ),
        CL_INVALID_ARG_SIZE,
        "an image of 4 bytes",
    );
    assert_err(
        set_arg(k.get(), 2, &buf.get()),
        CL_INVALID_SAMPLER,
        "a buffer as sampler",
    );
    ok(set_arg(k.get(), 2, &s.get()), "sampler");
    assert_err(
        result(
            cl!(clSetKernelArg(
                k.get(),
                2,
                4,
                (&s.get() as *const cl_sampler).cast()
            )),
            (),
        ),
        CL_INVALID_ARG_SIZE,
        "a sampler of 4 bytes",
    );
    // The kernel runs with them all.
    let out = e.buffer(4);
    ok(set_mem(k.get(), 4, &out), "out");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), [1]);
    // Argument info says what they are.
    let (_p2, k2) = e.kernel_opts(ARGS_SRC, "k", "-cl-kernel-arg-info");
    let type_name = ok(
        kernel_arg_info(k2.get(), 0, CL_KERNEL_ARG_TYPE_NAME),
        "type",
    )
    .string();
    assert_eq!(type_name, "image2d_t");
    let access = ok(
        kernel_arg_info(k2.get(), 1, CL_KERNEL_ARG_ACCESS_QUALIFIER),
        "access",
    )
    .u32();
    assert_eq!(access, CL_KERNEL_ARG_ACCESS_WRITE_ONLY);
    let sampler = ok(
        kernel_arg_info(k2.get(), 2, CL_KERNEL_ARG_TYPE_NAME),
        "type",
    )
    .string();
    assert_eq!(sampler, "sampler_t");
}

#[test]
fn command_buffers_record_image_commands() {
    let e = Env::new();
    let props: [cl_queue_properties; 1] = [0];
    let create =
        extension_function::<clCreateCommandBufferKHR_fn>("clCreateCommandBufferKHR").unwrap();
    let finalize =
        extension_function::<clFinalizeCommandBufferKHR_fn>("clFinalizeCommandBufferKHR").unwrap();
    let enqueue =
        extension_function::<clEnqueueCommandBufferKHR_fn>("clEnqueueCommandBufferKHR").unwrap();
    let release =
        extension_function::<clReleaseCommandBufferKHR_fn>("clReleaseCommandBufferKHR").unwrap();
    let fill = extension_function::<clCommandFillImageKHR_fn>("clCommandFillImageKHR").unwrap();
    let copy = extension_function::<clCommandCopyImageKHR_fn>("clCommandCopyImageKHR").unwrap();
    let to_buffer =
        extension_function::<clCommandCopyImageToBufferKHR_fn>("clCommandCopyImageToBufferKHR")
            .unwrap();
    let from_buffer =
        extension_function::<clCommandCopyBufferToImageKHR_fn>("clCommandCopyBufferToImageKHR")
            .unwrap();
    let f = image_format(CL_RGBA, CL_UNSIGNED_INT32);
    let d = image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 4, 0, 0);
    let a = e.image(CL_MEM_READ_WRITE, &f, &d);
    let b = e.image(CL_MEM_READ_WRITE, &f, &d);
    let buf = e.buffer(16 * 16);
    let c = e.buffer(16 * 16);
    let mut q = e.q();
    unsafe {
        let mut rc = 0;
        let cb = create(1, &mut q, props.as_ptr() as *const _, &mut rc);
        check(rc, "clCreateCommandBufferKHR");
        let color = [1u32, 2, 3, 4];
        let whole = [4usize, 4, 1];
        check(
            fill(
                cb,
                null_mut(),
                null(),
                a.get(),
                color.as_ptr().cast(),
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandFillImageKHR",
        );
        check(
            copy(
                cb,
                null_mut(),
                null(),
                a.get(),
                b.get(),
                [0; 3].as_ptr(),
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandCopyImageKHR",
        );
        check(
            to_buffer(
                cb,
                null_mut(),
                null(),
                b.get(),
                buf.get(),
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandCopyImageToBufferKHR",
        );
        check(
            from_buffer(
                cb,
                null_mut(),
                null(),
                buf.get(),
                a.get(),
                0,
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            "clCommandCopyBufferToImageKHR",
        );
        assert_code(
            fill(
                cb,
                null_mut(),
                null(),
                buf.get(),
                color.as_ptr().cast(),
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                null(),
                null_mut(),
                null_mut(),
            ),
            CL_INVALID_MEM_OBJECT,
            "clCommandFillImageKHR on a buffer",
        );
        check(finalize(cb), "clFinalizeCommandBufferKHR");
        check(
            enqueue(0, null_mut(), cb, 0, null(), null_mut()),
            "clEnqueueCommandBufferKHR",
        );
        e.finish();
        let texels = e.read::<u32>(&buf, 0, 64);
        assert!(texels.chunks(4).all(|t| t == color), "{texels:?}");
        check(
            cl!(clEnqueueCopyImageToBuffer(
                e.q(),
                a.get(),
                c.get(),
                [0; 3].as_ptr(),
                whole.as_ptr(),
                0,
                0,
                null(),
                null_mut()
            )),
            "copy out",
        );
        assert_eq!(e.read::<u32>(&c, 0, 64), texels);
        check(release(cb), "clReleaseCommandBufferKHR");
    }
}

#[test]
fn a_sampled_read_of_a_write_only_image_fails_the_build_with_a_log() {
    let e = Env::new();
    let src = "kernel void k(write_only image2d_t i, sampler_t s, global float4 *o) {\n\
               *o = read_imagef(i, s, (int2)(0, 0));\n}";
    let failure = build(e.c(), src, "").expect_err("a read of a write-only image built");
    let log = failure.to_string();
    assert!(log.contains("read_imagef"), "{log}");
    // The context builds other programs as before.
    e.program(
        "kernel void fine(read_only image2d_t i, global int *o) { *o = get_image_width(i); }",
        "",
    );
}
