//! The ICD dispatch table every handle points to, and the loader's entry
//! points (`cl_khr_icd`). Entry points are not exported by name: the
//! loader reaches them through this table only.

use crate::*;
use opencl_sys::*;
use std::ffi::{c_char, c_void, CStr};
use std::sync::LazyLock;

struct Table(opencl_sys::cl_icd::_cl_icd_dispatch);

// The table holds only function pointers and never changes.
unsafe impl Sync for Table {}
unsafe impl Send for Table {}

static DISPATCH: LazyLock<Table> = LazyLock::new(|| {
    // SAFETY: every field is an `Option` of a function pointer; all-zero is
    // all `None`, which the loader treats as absent.
    let mut d: opencl_sys::cl_icd::_cl_icd_dispatch = unsafe { std::mem::zeroed() };
    d.clGetPlatformIDs = Some(platform::get_platform_ids);
    d.clGetPlatformInfo = Some(platform::get_platform_info);
    d.clGetDeviceIDs = Some(device::get_device_ids);
    d.clGetDeviceInfo = Some(device::get_device_info);
    d.clCreateContext = Some(context::create_context);
    d.clCreateContextFromType = Some(context::create_context_from_type);
    d.clRetainContext = Some(context::retain_context);
    d.clReleaseContext = Some(context::release_context);
    d.clGetContextInfo = Some(context::get_context_info);
    d.clCreateCommandQueue = Some(queue::create_command_queue);
    d.clRetainCommandQueue = Some(queue::retain_command_queue);
    d.clReleaseCommandQueue = Some(queue::release_command_queue);
    d.clGetCommandQueueInfo = Some(queue::get_command_queue_info);
    d.clSetCommandQueueProperty = Some(queue::set_command_queue_property);
    d.clCreateBuffer = Some(memory::create_buffer);
    d.clRetainMemObject = Some(memory::retain_mem_object);
    d.clReleaseMemObject = Some(memory::release_mem_object);
    d.clGetMemObjectInfo = Some(memory::get_mem_object_info);
    d.clCreateProgramWithSource = Some(program::create_program_with_source);
    d.clCreateProgramWithBinary = Some(program::create_program_with_binary);
    d.clRetainProgram = Some(program::retain_program);
    d.clReleaseProgram = Some(program::release_program);
    d.clBuildProgram = Some(program::build_program);
    d.clUnloadCompiler = Some(platform::unload_compiler);
    d.clGetProgramInfo = Some(program::get_program_info);
    d.clGetProgramBuildInfo = Some(program::get_program_build_info);
    d.clCreateKernel = Some(kernel::create_kernel);
    d.clCreateKernelsInProgram = Some(kernel::create_kernels_in_program);
    d.clRetainKernel = Some(kernel::retain_kernel);
    d.clReleaseKernel = Some(kernel::release_kernel);
    d.clSetKernelArg = Some(kernel::set_kernel_arg);
    d.clGetKernelInfo = Some(kernel::get_kernel_info);
    d.clGetKernelWorkGroupInfo = Some(kernel::get_kernel_work_group_info);
    d.clWaitForEvents = Some(event::wait_for_events);
    d.clGetEventInfo = Some(event::get_event_info);
    d.clRetainEvent = Some(event::retain_event);
    d.clReleaseEvent = Some(event::release_event);
    d.clGetEventProfilingInfo = Some(event::get_event_profiling_info);
    d.clFlush = Some(queue::flush);
    d.clFinish = Some(queue::finish);
    d.clEnqueueReadBuffer = Some(enqueue_buffer::enqueue_read_buffer);
    d.clEnqueueWriteBuffer = Some(enqueue_buffer::enqueue_write_buffer);
    d.clEnqueueCopyBuffer = Some(enqueue_buffer::enqueue_copy_buffer);
    d.clEnqueueMapBuffer = Some(enqueue_buffer::enqueue_map_buffer);
    d.clEnqueueUnmapMemObject = Some(enqueue_buffer::enqueue_unmap_mem_object);
    d.clEnqueueNDRangeKernel = Some(enqueue_kernel::enqueue_nd_range_kernel);
    d.clEnqueueTask = Some(enqueue_kernel::enqueue_task);
    d.clEnqueueNativeKernel = Some(enqueue_kernel::enqueue_native_kernel);
    d.clEnqueueMarker = Some(queue::enqueue_marker);
    d.clEnqueueWaitForEvents = Some(queue::enqueue_wait_for_events);
    d.clEnqueueBarrier = Some(queue::enqueue_barrier);
    d.clGetExtensionFunctionAddress = Some(get_extension_function_address);
    // OpenCL 1.1
    d.clSetEventCallback = Some(event::set_event_callback);
    d.clCreateSubBuffer = Some(memory::create_sub_buffer);
    d.clSetMemObjectDestructorCallback = Some(memory::set_mem_object_destructor_callback);
    d.clCreateUserEvent = Some(event::create_user_event);
    d.clSetUserEventStatus = Some(event::set_user_event_status);
    d.clEnqueueReadBufferRect = Some(enqueue_buffer::enqueue_read_buffer_rect);
    d.clEnqueueWriteBufferRect = Some(enqueue_buffer::enqueue_write_buffer_rect);
    d.clEnqueueCopyBufferRect = Some(enqueue_buffer::enqueue_copy_buffer_rect);
    // OpenCL 1.2
    d.clCreateSubDevices = Some(sub_device::create_sub_devices);
    d.clRetainDevice = Some(device::retain_device);
    d.clReleaseDevice = Some(device::release_device);
    d.clCreateProgramWithBuiltInKernels = Some(program::create_program_with_built_in_kernels);
    d.clGetKernelArgInfo = Some(kernel::get_kernel_arg_info);
    d.clCompileProgram = Some(program::compile_program);
    d.clLinkProgram = Some(program::link_program);
    d.clEnqueueFillBuffer = Some(enqueue_buffer::enqueue_fill_buffer);
    d.clEnqueueMigrateMemObjects = Some(enqueue_buffer::enqueue_migrate_mem_objects);
    d.clEnqueueMarkerWithWaitList = Some(queue::enqueue_marker_with_wait_list);
    d.clEnqueueBarrierWithWaitList = Some(queue::enqueue_barrier_with_wait_list);
    d.clGetExtensionFunctionAddressForPlatform = Some(get_extension_function_address_for_platform);
    d.clUnloadPlatformCompiler = Some(platform::unload_platform_compiler);
    // OpenCL 2.0
    d.clCreateCommandQueueWithProperties = Some(queue::create_command_queue_with_properties);
    // OpenCL 2.1
    d.clCloneKernel = Some(kernel::clone_kernel);
    d.clCreateProgramWithIL = Some(program::create_program_with_il);
    d.clGetDeviceAndHostTimer = Some(device::get_device_and_host_timer);
    d.clGetHostTimer = Some(device::get_host_timer);
    // OpenCL 2.2 and 3.0
    d.clSetProgramReleaseCallback = Some(program::set_program_release_callback);
    d.clSetProgramSpecializationConstant = Some(program::set_program_specialization_constant);
    d.clCreateBufferWithProperties = Some(memory::create_buffer_with_properties);
    d.clSetContextDestructorCallback = Some(context::set_context_destructor_callback);
    optional_features(&mut d);
    Table(d)
});

/// The entry points of optional features: SVM, and those the device does
/// not offer (images, samplers, pipes, sub-groups, on-device queues), each
/// of which checks its handles and answers as the spec says for a device
/// without the feature.
fn optional_features(d: &mut opencl_sys::cl_icd::_cl_icd_dispatch) {
    d.clCreateImage2D = Some(image::create_image_2d);
    d.clCreateImage3D = Some(image::create_image_3d);
    d.clCreateImage = Some(image::create_image);
    d.clCreateImageWithProperties = Some(image::create_image_with_properties);
    d.clGetSupportedImageFormats = Some(image::get_supported_image_formats);
    d.clGetImageInfo = Some(image::get_image_info);
    d.clEnqueueReadImage = Some(enqueue_image::enqueue_read_image);
    d.clEnqueueWriteImage = Some(enqueue_image::enqueue_write_image);
    d.clEnqueueCopyImage = Some(enqueue_image::enqueue_copy_image);
    d.clEnqueueFillImage = Some(enqueue_image::enqueue_fill_image);
    d.clEnqueueMapImage = Some(enqueue_image::enqueue_map_image);
    d.clEnqueueCopyImageToBuffer = Some(enqueue_image::enqueue_copy_image_to_buffer);
    d.clEnqueueCopyBufferToImage = Some(enqueue_image::enqueue_copy_buffer_to_image);
    d.clCreateSampler = Some(sampler::create_sampler);
    d.clCreateSamplerWithProperties = Some(sampler::create_sampler_with_properties);
    d.clRetainSampler = Some(sampler::retain_sampler);
    d.clReleaseSampler = Some(sampler::release_sampler);
    d.clGetSamplerInfo = Some(sampler::get_sampler_info);
    d.clCreatePipe = Some(pipe::create_pipe);
    d.clGetPipeInfo = Some(pipe::get_pipe_info);
    d.clSVMAlloc = Some(svm::svm_alloc);
    d.clSVMFree = Some(svm::svm_free);
    d.clEnqueueSVMFree = Some(svm::enqueue_svm_free);
    d.clEnqueueSVMMemcpy = Some(svm::enqueue_svm_memcpy);
    d.clEnqueueSVMMemFill = Some(svm::enqueue_svm_mem_fill);
    d.clEnqueueSVMMap = Some(svm::enqueue_svm_map);
    d.clEnqueueSVMUnmap = Some(svm::enqueue_svm_unmap);
    d.clEnqueueSVMMigrateMem = Some(svm::enqueue_svm_migrate_mem);
    d.clSetKernelArgSVMPointer = Some(svm::set_kernel_arg_svm_pointer);
    d.clSetKernelExecInfo = Some(svm::set_kernel_exec_info);
    d.clGetKernelSubGroupInfo = Some(kernel::get_kernel_sub_group_info);
    d.clGetKernelSubGroupInfoKHR = Some(kernel::get_kernel_sub_group_info);
    d.clSetDefaultDeviceCommandQueue = Some(queue::set_default_device_command_queue);
}

pub fn dispatch_table() -> *const opencl_sys::cl_icd::_cl_icd_dispatch {
    &DISPATCH.0
}

/// Extension functions by name: the loader's own. ocl-icd also asks for
/// `clGetPlatformInfo` this way, to read the ICD suffix.
fn extension_function(name: &str) -> *mut c_void {
    match name {
        "clIcdGetPlatformIDsKHR" => clIcdGetPlatformIDsKHR as *mut c_void,
        "clGetPlatformInfo" => platform::get_platform_info as *mut c_void,
        "clGetKernelSuggestedLocalWorkSizeKHR" => {
            enqueue_kernel::get_kernel_suggested_local_work_size as *mut c_void
        }
        "clCreateCommandQueueWithPropertiesKHR" => {
            queue::create_command_queue_with_properties as *mut c_void
        }
        "clCreateProgramWithILKHR" => program::create_program_with_il as *mut c_void,
        "clGetKernelSubGroupInfoKHR" => kernel::get_kernel_sub_group_info as *mut c_void,
        _ => command_buffer::function(name)
            .or_else(|| semaphore::function(name))
            .or_else(|| usm::function(name))
            .unwrap_or(std::ptr::null_mut()),
    }
}

/// # Safety
/// `name` must be null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    extension_function(&CStr::from_ptr(name).to_string_lossy())
}

unsafe extern "C" fn get_extension_function_address(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    extension_function(&CStr::from_ptr(name).to_string_lossy())
}

unsafe extern "C" fn get_extension_function_address_for_platform(
    platform: cl_platform_id,
    name: *const c_char,
) -> *mut c_void {
    if name.is_null() || platform::resolve(platform).is_err() {
        return std::ptr::null_mut();
    }
    // Not through the exported `clGetExtensionFunctionAddress`: in a
    // program linked against the ICD loader, that name is the loader's.
    extension_function(&CStr::from_ptr(name).to_string_lossy())
}

/// The loader's way in (`cl_khr_icd`).
///
/// # Safety
/// Pointers as `clGetPlatformIDs` takes them.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    platform::get_platform_ids(num_entries, platforms, num_platforms)
}
