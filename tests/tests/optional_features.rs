//! Features OpenCL 3.0 makes optional and the device does not report
//! (images, samplers, pipes, sub-groups, on-device queues): the device
//! queries say so, and every entry point answers with the spec's code for a
//! device without the feature, after checking its handles.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

fn dinfo(name: cl_device_info) -> Info {
    ok(device_info(device(), name), "clGetDeviceInfo")
}

#[test]
fn device_queries_report_the_features_absent() {
    assert!(!dinfo(CL_DEVICE_IMAGE_SUPPORT).bool());
    assert!(!dinfo(CL_DEVICE_PIPE_SUPPORT).bool());
    assert_eq!(dinfo(CL_DEVICE_MAX_NUM_SUB_GROUPS).u32(), 0);
    assert_eq!(dinfo(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES).u64(), 0);
}

#[test]
fn image_creation_is_invalid_operation_and_checks_the_context() {
    let e = Env::new();
    let format = cl_image_format {
        image_channel_order: CL_RGBA,
        image_channel_data_type: CL_UNORM_INT8,
    };
    let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 16;
    desc.image_height = 16;
    for (ctx, want) in [
        (e.c(), CL_INVALID_OPERATION),
        (null_mut(), CL_INVALID_CONTEXT),
    ] {
        let mut rc = 0;
        let m = cl!(clCreateImage(
            ctx,
            CL_MEM_READ_WRITE,
            &format,
            &desc,
            null_mut(),
            &mut rc
        ));
        assert!(m.is_null());
        assert_code(rc, want, "clCreateImage");
        let mut rc = 0;
        let m = cl!(clCreateImageWithProperties(
            ctx,
            null(),
            CL_MEM_READ_WRITE,
            &format,
            &desc,
            null_mut(),
            &mut rc
        ));
        assert!(m.is_null());
        assert_code(rc, want, "clCreateImageWithProperties");
        let mut rc = 0;
        let mut format2 = format;
        let m = cl!(clCreateImage2D(
            ctx,
            CL_MEM_READ_WRITE,
            &mut format2,
            16,
            16,
            0,
            null_mut(),
            &mut rc
        ));
        assert!(m.is_null());
        assert_code(rc, want, "clCreateImage2D");
    }
}

#[test]
fn no_image_format_is_supported() {
    let e = Env::new();
    let mut n = 99;
    check(
        cl!(clGetSupportedImageFormats(
            e.c(),
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            null_mut(),
            &mut n
        )),
        "clGetSupportedImageFormats",
    );
    assert_eq!(n, 0);
}

#[test]
fn a_buffer_is_not_an_image_or_a_pipe() {
    let e = Env::new();
    let b = e.buffer(64);
    let mut v = [0u8; 16];
    assert_code(
        cl!(clGetImageInfo(
            b.get(),
            CL_IMAGE_WIDTH,
            16,
            v.as_mut_ptr().cast(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "clGetImageInfo of a buffer",
    );
    assert_code(
        cl!(clGetPipeInfo(
            b.get(),
            CL_PIPE_PACKET_SIZE,
            16,
            v.as_mut_ptr().cast(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "clGetPipeInfo of a buffer",
    );
}

#[test]
fn image_commands_check_the_queue_then_refuse() {
    let e = Env::new();
    let b = e.buffer(64);
    let origin = [0usize; 3];
    let region = [1usize; 3];
    let mut host = [0u8; 64];
    for (q, want) in [
        (e.q(), CL_INVALID_OPERATION),
        (null_mut(), CL_INVALID_COMMAND_QUEUE),
    ] {
        assert_code(
            cl!(clEnqueueReadImage(
                q,
                b.get(),
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                host.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            want,
            "clEnqueueReadImage",
        );
        assert_code(
            cl!(clEnqueueWriteImage(
                q,
                b.get(),
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                host.as_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            want,
            "clEnqueueWriteImage",
        );
        assert_code(
            cl!(clEnqueueCopyImageToBuffer(
                q,
                b.get(),
                b.get(),
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                null(),
                null_mut()
            )),
            want,
            "clEnqueueCopyImageToBuffer",
        );
        let mut rc = 0;
        let (mut rp, mut sp) = (0usize, 0usize);
        let p = cl!(clEnqueueMapImage(
            q,
            b.get(),
            CL_TRUE,
            CL_MAP_READ,
            origin.as_ptr(),
            region.as_ptr(),
            &mut rp,
            &mut sp,
            0,
            null(),
            null_mut(),
            &mut rc
        ));
        assert!(p.is_null());
        assert_code(rc, want, "clEnqueueMapImage");
    }
}

#[test]
fn samplers_cannot_be_created_and_no_handle_is_one() {
    let e = Env::new();
    let mut rc = 0;
    let s = cl!(clCreateSampler(
        e.c(),
        CL_FALSE,
        CL_ADDRESS_CLAMP,
        CL_FILTER_NEAREST,
        &mut rc
    ));
    assert!(s.is_null());
    assert_code(rc, CL_INVALID_OPERATION, "clCreateSampler");
    let s = cl!(clCreateSampler(
        null_mut(),
        CL_FALSE,
        CL_ADDRESS_CLAMP,
        CL_FILTER_NEAREST,
        &mut rc
    ));
    assert!(s.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreateSampler without a context");
    let s = cl!(clCreateSamplerWithProperties(e.c(), null(), &mut rc));
    assert!(s.is_null());
    assert_code(rc, CL_INVALID_OPERATION, "clCreateSamplerWithProperties");
    // A live handle of another kind is not a sampler.
    let not_sampler = e.c() as cl_sampler;
    assert_code(
        cl!(clRetainSampler(not_sampler)),
        CL_INVALID_SAMPLER,
        "clRetainSampler",
    );
    assert_code(
        cl!(clReleaseSampler(not_sampler)),
        CL_INVALID_SAMPLER,
        "clReleaseSampler",
    );
    let mut v = 0u32;
    assert_code(
        cl!(clGetSamplerInfo(
            not_sampler,
            CL_SAMPLER_REFERENCE_COUNT,
            4,
            (&mut v as *mut u32).cast(),
            null_mut()
        )),
        CL_INVALID_SAMPLER,
        "clGetSamplerInfo",
    );
    // The context is untouched by all that.
    let refs = ok(
        context_info(e.c(), CL_CONTEXT_REFERENCE_COUNT),
        "context info",
    )
    .u32();
    assert_eq!(refs, 1);
}

#[test]
fn pipes_cannot_be_created() {
    let e = Env::new();
    let mut rc = 0;
    let p = cl!(clCreatePipe(
        e.c(),
        CL_MEM_READ_WRITE,
        4,
        16,
        null(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_OPERATION, "clCreatePipe");
    let p = cl!(clCreatePipe(
        null_mut(),
        CL_MEM_READ_WRITE,
        4,
        16,
        null(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreatePipe without a context");
}

#[test]
fn sub_group_queries_are_invalid_operation() {
    let e = Env::new();
    let (_p, k) = e.kernel("__kernel void k(__global int* p) { p[0] = 1; }", "k");
    let local = [64usize];
    let mut n = 0usize;
    assert_code(
        cl!(clGetKernelSubGroupInfo(
            k.get(),
            device(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            std::mem::size_of_val(&local),
            local.as_ptr().cast(),
            std::mem::size_of::<usize>(),
            (&mut n as *mut usize).cast(),
            null_mut()
        )),
        CL_INVALID_OPERATION,
        "clGetKernelSubGroupInfo",
    );
    assert_code(
        cl!(clGetKernelSubGroupInfo(
            null_mut(),
            device(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            0,
            null(),
            0,
            null_mut(),
            null_mut()
        )),
        CL_INVALID_KERNEL,
        "clGetKernelSubGroupInfo without a kernel",
    );
}

#[test]
fn no_default_device_queue_can_be_set() {
    let e = Env::new();
    assert_code(
        cl!(clSetDefaultDeviceCommandQueue(e.c(), device(), e.q())),
        CL_INVALID_OPERATION,
        "clSetDefaultDeviceCommandQueue",
    );
    assert_code(
        cl!(clSetDefaultDeviceCommandQueue(null_mut(), device(), e.q())),
        CL_INVALID_CONTEXT,
        "clSetDefaultDeviceCommandQueue without a context",
    );
}
