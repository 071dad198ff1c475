//! Devices, as their `mux` targets describe them.

use crate::entry::{ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::platform::{self, make_version};
use crate::sub_device;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

pub struct Device {
    pub mux: Arc<dyn mux::Device>,
    pub compiler: Arc<dyn compiler::Target>,
    platform: AtomicPtr<c_void>,
    /// A sub-device's parent; `None` for a root device.
    parent: Option<Arc<ClObject<Device>>>,
    /// The properties a sub-device was made with, 0-terminated
    /// (`CL_DEVICE_PARTITION_TYPE`); empty for a root device.
    partition_type: Vec<cl_device_partition_property>,
}

impl Kind for Device {
    const INVALID: cl_int = CL_INVALID_DEVICE;
}

impl Device {
    pub fn set_platform(&self, p: cl_platform_id) {
        self.platform.store(p, Ordering::Release);
    }

    pub fn info(&self) -> &mux::DeviceInfo {
        self.mux.info()
    }

    /// A sub-device of `parent` (this device) running on `mux`.
    pub fn sub_device(
        &self,
        mux: Arc<dyn mux::Device>,
        partition_type: Vec<cl_device_partition_property>,
        parent: &Arc<ClObject<Device>>,
    ) -> Device {
        Device {
            mux,
            compiler: self.compiler.clone(),
            platform: AtomicPtr::new(self.platform.load(Ordering::Acquire)),
            parent: Some(parent.clone()),
            partition_type,
        }
    }

    /// Extensions as reported: the platform's plus the device's own.
    pub fn extensions(&self) -> Vec<(String, cl_version)> {
        let mut v: Vec<(String, cl_version)> = platform::EXTENSIONS
            .iter()
            .map(|e| (e.to_string(), make_version(1, 0, 0)))
            .collect();
        v.extend(
            self.info()
                .extensions
                .iter()
                .map(|e| (e.name.clone(), e.version)),
        );
        // The runtime's own extensions, beside the compiler's.
        for &(name, (major, minor, patch)) in RUNTIME_EXTENSIONS
            .iter()
            .chain(&crate::command_buffer::EXTENSIONS)
            // SPIR-V needs the compiler.
            .filter(|(name, _)| {
                crate::program::COMPILER || !name.contains("spirv") && !name.contains("il_program")
            })
        {
            v.push((name.to_string(), make_version(major, minor, patch)));
        }
        if self.info().images.is_some() {
            v.push(("cl_khr_image2d_from_buffer".into(), make_version(1, 0, 0)));
        }
        v
    }
}

/// The SPIR-V the device takes, as the translator defines it.
#[cfg(feature = "compiler")]
mod spirv {
    use compiler::spirv_ll;
    use opencl_sys::{cl_uint, cl_version};
    use std::ffi::{c_char, CString};
    use std::sync::LazyLock;

    pub fn il_version() -> String {
        spirv_ll::VERSIONS
            .iter()
            .map(|(major, minor)| format!("SPIR-V_{major}.{minor}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn ils_with_version() -> Vec<(String, cl_version)> {
        spirv_ll::VERSIONS
            .iter()
            .map(|&(major, minor)| {
                (
                    "SPIR-V".to_string(),
                    super::make_version(major as u32, minor as u32, 0),
                )
            })
            .collect()
    }

    pub static EXTENDED_INSTRUCTION_SETS: LazyLock<Vec<CString>> =
        LazyLock::new(|| c_strings(spirv_ll::EXTENDED_INSTRUCTION_SETS));
    pub static EXTENSIONS: LazyLock<Vec<CString>> =
        LazyLock::new(|| c_strings(spirv_ll::EXTENSIONS));

    fn c_strings(names: &[&str]) -> Vec<CString> {
        names.iter().filter_map(|n| CString::new(*n).ok()).collect()
    }

    /// The strings' addresses, which live as long as the process: what the
    /// `cl_khr_spirv_queries` string-array queries return.
    pub fn names(list: &'static [CString]) -> Vec<*const c_char> {
        list.iter().map(|s| s.as_ptr()).collect()
    }

    pub fn capabilities() -> Vec<cl_uint> {
        spirv_ll::CAPABILITIES
            .iter()
            .map(|&c| c as cl_uint)
            .collect()
    }
}

/// Without a compiler, no SPIR-V: every list is empty.
#[cfg(not(feature = "compiler"))]
mod spirv {
    use opencl_sys::{cl_uint, cl_version};
    use std::ffi::{c_char, CString};
    use std::sync::LazyLock;

    pub fn il_version() -> String {
        String::new()
    }

    pub fn ils_with_version() -> Vec<(String, cl_version)> {
        Vec::new()
    }

    pub static EXTENDED_INSTRUCTION_SETS: LazyLock<Vec<CString>> = LazyLock::new(Vec::new);
    pub static EXTENSIONS: LazyLock<Vec<CString>> = LazyLock::new(Vec::new);

    pub fn names(list: &'static [CString]) -> Vec<*const c_char> {
        list.iter().map(|s| s.as_ptr()).collect()
    }

    pub fn capabilities() -> Vec<cl_uint> {
        Vec::new()
    }
}

impl Device {
    /// `CL_DEVICE_TYPE`.
    pub fn device_type(&self) -> cl_device_type {
        match self.info().kind {
            mux::DeviceKind::Cpu => CL_DEVICE_TYPE_CPU,
            mux::DeviceKind::Gpu => CL_DEVICE_TYPE_GPU,
            mux::DeviceKind::Accelerator => CL_DEVICE_TYPE_ACCELERATOR,
            mux::DeviceKind::Custom => CL_DEVICE_TYPE_CUSTOM,
        }
    }
}

pub fn create_host_device() -> Arc<ClObject<Device>> {
    object::create(Device {
        mux: mux::validating(Arc::new(host::HostDevice::new())),
        compiler: Arc::new(host::HostTarget::new()),
        platform: AtomicPtr::new(std::ptr::null_mut()),
        parent: None,
        partition_type: Vec::new(),
    })
}

pub unsafe extern "C" fn get_device_ids(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    status(|| {
        let p = platform::resolve(platform)?;
        const KNOWN: cl_device_type = CL_DEVICE_TYPE_CPU
            | CL_DEVICE_TYPE_GPU
            | CL_DEVICE_TYPE_ACCELERATOR
            | CL_DEVICE_TYPE_DEFAULT
            | CL_DEVICE_TYPE_CUSTOM;
        ensure(
            device_type == CL_DEVICE_TYPE_ALL || device_type & !KNOWN == 0,
            CL_INVALID_DEVICE_TYPE,
        )?;
        ensure(device_type != 0, CL_INVALID_DEVICE_TYPE)?;
        ensure(!(num_entries == 0 && !devices.is_null()), CL_INVALID_VALUE)?;
        ensure(
            !(devices.is_null() && num_devices.is_null()),
            CL_INVALID_VALUE,
        )?;
        let matching: Vec<_> = p
            .devices
            .iter()
            .enumerate()
            // The first device is the default one.
            .filter(|(i, d)| {
                device_type & d.device_type() != 0
                    || (*i == 0 && device_type & CL_DEVICE_TYPE_DEFAULT != 0)
            })
            .map(|(_, d)| d)
            .collect();
        ensure(!matching.is_empty(), CL_DEVICE_NOT_FOUND)?;
        if !devices.is_null() {
            for (i, d) in matching.iter().take(num_entries as usize).enumerate() {
                *devices.add(i) = object::handle(d);
            }
        }
        if !num_devices.is_null() {
            *num_devices = matching.len() as cl_uint;
        }
        Ok(())
    })
}

/// Every `clGetDeviceInfo` query of OpenCL 3.0, answered from the device.
fn query(obj: &ClObject<Device>, param: cl_device_info) -> Result<Info, cl_int> {
    let d = &obj.body;
    let i = d.info();
    // All zero for a device without images.
    let image = i.images.unwrap_or_default();
    let pw = i.preferred_vector_width;
    let nw = i.native_vector_width;
    let c_versions: Vec<(String, cl_version)> = [(1, 0), (1, 1), (1, 2), (3, 0)]
        .iter()
        .map(|&(a, b)| ("OpenCL C".to_string(), make_version(a, b, 0)))
        .collect();
    let features: Vec<(String, cl_version)> = i
        .opencl_c_features
        .iter()
        .map(|f| (f.name.clone(), f.version))
        .collect();
    let extensions = d.extensions();
    let ext_string = extensions
        .iter()
        .map(|e| e.0.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(match param {
        CL_DEVICE_TYPE => Info::value::<cl_device_type>(d.device_type()),
        CL_DEVICE_VENDOR_ID => Info::value::<cl_uint>(i.vendor_id),
        CL_DEVICE_MAX_COMPUTE_UNITS => Info::value::<cl_uint>(i.compute_units),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => Info::value::<cl_uint>(3),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => Info::value::<usize>(i.max_work_group_size),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => Info::slice::<usize>(&i.max_work_item_sizes),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR => Info::value::<cl_uint>(pw.char),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT => Info::value::<cl_uint>(pw.short),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT => Info::value::<cl_uint>(pw.int),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG => Info::value::<cl_uint>(pw.long),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT => Info::value::<cl_uint>(pw.float),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE => Info::value::<cl_uint>(pw.double),
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF => Info::value::<cl_uint>(pw.half),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR => Info::value::<cl_uint>(nw.char),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT => Info::value::<cl_uint>(nw.short),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_INT => Info::value::<cl_uint>(nw.int),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG => Info::value::<cl_uint>(nw.long),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT => Info::value::<cl_uint>(nw.float),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE => Info::value::<cl_uint>(nw.double),
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF => Info::value::<cl_uint>(nw.half),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => Info::value::<cl_uint>(i.max_clock_frequency_mhz),
        CL_DEVICE_ADDRESS_BITS => Info::value::<cl_uint>(64),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => Info::value::<cl_ulong>(i.max_mem_alloc_size),
        CL_DEVICE_GLOBAL_MEM_SIZE => Info::value::<cl_ulong>(i.global_mem_size),
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => {
            Info::value::<cl_device_mem_cache_type>(CL_READ_WRITE_CACHE)
        }
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => Info::value::<cl_uint>(i.global_mem_cache.line_size),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => Info::value::<cl_ulong>(i.global_mem_cache.size),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => Info::value::<cl_ulong>(i.max_constant_buffer_size),
        CL_DEVICE_MAX_CONSTANT_ARGS => Info::value::<cl_uint>(8),
        CL_DEVICE_LOCAL_MEM_TYPE => Info::value::<cl_device_local_mem_type>(CL_GLOBAL),
        CL_DEVICE_LOCAL_MEM_SIZE => Info::value::<cl_ulong>(i.local_mem_size),
        CL_DEVICE_MAX_PARAMETER_SIZE => Info::value::<usize>(i.max_parameter_size),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => Info::value::<cl_uint>(i.mem_base_addr_align_bits),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => Info::value::<cl_uint>(128),
        CL_DEVICE_SINGLE_FP_CONFIG => Info::value::<cl_device_fp_config>(i.single_fp_config),
        CL_DEVICE_DOUBLE_FP_CONFIG => Info::value::<cl_device_fp_config>(i.double_fp_config),
        CL_DEVICE_HALF_FP_CONFIG => Info::value::<cl_device_fp_config>(i.half_fp_config),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => Info::bool(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => Info::bool(true),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => {
            Info::value::<usize>(i.profiling_timer_resolution_ns)
        }
        CL_DEVICE_ENDIAN_LITTLE => Info::bool(true),
        CL_DEVICE_AVAILABLE => Info::bool(true),
        CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => {
            Info::bool(crate::program::COMPILER)
        }
        CL_DEVICE_EXECUTION_CAPABILITIES => {
            Info::value::<cl_device_exec_capabilities>(CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL)
        }
        CL_DEVICE_QUEUE_ON_HOST_PROPERTIES => Info::value::<cl_command_queue_properties>(
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE,
        ),
        CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES => Info::value::<cl_command_queue_properties>(0),
        CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE | CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE => {
            Info::value::<cl_uint>(0)
        }
        CL_DEVICE_MAX_ON_DEVICE_QUEUES | CL_DEVICE_MAX_ON_DEVICE_EVENTS => {
            Info::value::<cl_uint>(0)
        }
        CL_DEVICE_PLATFORM => Info::value::<cl_platform_id>(d.platform.load(Ordering::Acquire)),
        CL_DEVICE_NAME => Info::string(&i.name),
        CL_DEVICE_VENDOR => Info::string(&i.vendor),
        CL_DRIVER_VERSION => Info::string(&driver_version()),
        CL_DEVICE_PROFILE => Info::string(crate::program::PROFILE),
        CL_DEVICE_VERSION => {
            Info::string(&format!("OpenCL 3.0 ferrocl {}", env!("CARGO_PKG_VERSION")))
        }
        CL_DEVICE_NUMERIC_VERSION => Info::value::<cl_version>(platform::VERSION),
        CL_DEVICE_OPENCL_C_VERSION => Info::string("OpenCL C 1.2 ferrocl"),
        CL_DEVICE_OPENCL_C_ALL_VERSIONS => Info::name_versions(&c_versions),
        CL_DEVICE_OPENCL_C_FEATURES => Info::name_versions(&features),
        CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR => Info::value::<
            cl_device_command_buffer_capabilities_khr,
        >(crate::command_buffer::CAPABILITIES),
        // Binary semaphores, none imported or exported.
        CL_DEVICE_SEMAPHORE_TYPES_KHR => {
            Info::slice::<cl_semaphore_type_khr>(&[CL_SEMAPHORE_TYPE_BINARY_KHR])
        }
        CL_DEVICE_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR
        | CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => {
            Info::slice::<cl_external_semaphore_handle_type_khr>(&[])
        }
        CL_DEVICE_MUTABLE_DISPATCH_CAPABILITIES_KHR => {
            Info::value::<cl_mutable_dispatch_fields_khr>(crate::mutable_command::CAPABILITIES)
        }
        CL_DEVICE_COMMAND_BUFFER_REQUIRED_QUEUE_PROPERTIES_KHR => {
            Info::value::<cl_command_queue_properties>(0)
        }
        CL_DEVICE_COMMAND_BUFFER_SUPPORTED_QUEUE_PROPERTIES_KHR => {
            Info::value::<cl_command_queue_properties>(
                crate::command_buffer::SUPPORTED_QUEUE_PROPERTIES,
            )
        }
        CL_DEVICE_EXTENSIONS => Info::string(&ext_string),
        CL_DEVICE_EXTENSIONS_WITH_VERSION => Info::name_versions(&extensions),
        CL_DEVICE_BUILT_IN_KERNELS => Info::string(""),
        CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION => Info::name_versions(&[]),
        CL_DEVICE_IL_VERSION => Info::string(&spirv::il_version()),
        CL_DEVICE_ILS_WITH_VERSION => Info::name_versions(&spirv::ils_with_version()),
        CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR => {
            Info::slice(&spirv::names(&spirv::EXTENDED_INSTRUCTION_SETS))
        }
        CL_DEVICE_SPIRV_EXTENSIONS_KHR => Info::slice(&spirv::names(&spirv::EXTENSIONS)),
        CL_DEVICE_SPIRV_CAPABILITIES_KHR => Info::slice::<cl_uint>(&spirv::capabilities()),
        CL_DEVICE_PRINTF_BUFFER_SIZE => Info::value::<usize>(i.printf_buffer_size),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => Info::bool(true),
        CL_DEVICE_PARENT_DEVICE => Info::value::<cl_device_id>(
            d.parent
                .as_ref()
                .map_or(std::ptr::null_mut(), object::handle),
        ),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => Info::value::<cl_uint>(i.compute_units),
        CL_DEVICE_PARTITION_PROPERTIES => {
            Info::slice::<cl_device_partition_property>(&sub_device::partition_properties(i))
        }
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => {
            Info::value::<cl_device_affinity_domain>(sub_device::affinity_domains(i))
        }
        CL_DEVICE_PARTITION_TYPE => Info::slice::<cl_device_partition_property>(&d.partition_type),
        CL_DEVICE_REFERENCE_COUNT => Info::value::<cl_uint>(match d.parent {
            Some(_) => obj.ref_count(),
            None => 1,
        }),
        CL_DEVICE_IMAGE_SUPPORT => Info::bool(i.images.is_some()),
        CL_DEVICE_MAX_READ_IMAGE_ARGS => Info::value::<cl_uint>(image.max_read_args),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => Info::value::<cl_uint>(image.max_write_args),
        CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS => Info::value::<cl_uint>(image.max_read_write_args),
        CL_DEVICE_IMAGE2D_MAX_WIDTH => Info::value::<usize>(image.max_2d[0]),
        CL_DEVICE_IMAGE2D_MAX_HEIGHT => Info::value::<usize>(image.max_2d[1]),
        CL_DEVICE_IMAGE3D_MAX_WIDTH => Info::value::<usize>(image.max_3d[0]),
        CL_DEVICE_IMAGE3D_MAX_HEIGHT => Info::value::<usize>(image.max_3d[1]),
        CL_DEVICE_IMAGE3D_MAX_DEPTH => Info::value::<usize>(image.max_3d[2]),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => Info::value::<usize>(image.max_buffer_texels),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => Info::value::<usize>(image.max_array_size),
        CL_DEVICE_MAX_SAMPLERS => Info::value::<cl_uint>(image.max_samplers),
        CL_DEVICE_IMAGE_PITCH_ALIGNMENT => Info::value::<cl_uint>(image.pitch_alignment),
        CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT => {
            Info::value::<cl_uint>(image.base_address_alignment)
        }
        CL_DEVICE_MAX_PIPE_ARGS
        | CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS
        | CL_DEVICE_PIPE_MAX_PACKET_SIZE => Info::value::<cl_uint>(0),
        // Larger variables fail the build (compiler::program_globals); any
        // total that fits in memory is as fast.
        CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE | CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE => {
            Info::value::<usize>(compiler::program_globals::MAX_VARIABLE_SIZE)
        }
        CL_DEVICE_SVM_CAPABILITIES
        | CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL => {
            crate::shared_memory::device_query(d, param).ok_or(CL_INVALID_VALUE)?
        }
        CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT
        | CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT => Info::value::<cl_uint>(0),
        // Sub-groups run along dimension 0: a work-group one work-item
        // wide has as many as it has work-items.
        CL_DEVICE_MAX_NUM_SUB_GROUPS => Info::value::<cl_uint>(i.max_work_group_size as cl_uint),
        // A work-group's sub-groups run one after the other on one thread:
        // one that waits for another never ends.
        CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS => Info::bool(false),
        CL_DEVICE_SUB_GROUP_SIZES_INTEL => {
            let sizes: Vec<usize> = compiler::SUB_GROUP_SIZES
                .iter()
                .map(|&n| n as usize)
                .collect();
            Info::slice::<usize>(&sizes)
        }
        // Generic pointers (`__opencl_c_generic_address_space`): the passes
        // tell local and private memory apart by address.
        CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT => Info::bool(true),
        // Every order and scope of the OpenCL C atomics (the builtins'
        // atomics_c11.cl; the __opencl_c_atomic_* features say the same).
        // Work-item scope is for fences only; there are no sub-groups.
        CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES => {
            Info::value::<cl_device_atomic_capabilities>(ATOMIC_ORDERS | ATOMIC_SCOPES)
        }
        CL_DEVICE_ATOMIC_FENCE_CAPABILITIES => Info::value::<cl_device_atomic_capabilities>(
            ATOMIC_ORDERS | ATOMIC_SCOPES | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM,
        ),
        // The last work-group of a dimension may be smaller (OpenCL C 2.0
        // and later programs without -cl-uniform-work-group-size).
        CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT => Info::bool(true),
        // The builtins' work_group_collectives.cl, as the feature says.
        CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT => Info::bool(
            features
                .iter()
                .any(|(name, _)| name == "__opencl_c_work_group_collective_functions"),
        ),
        CL_DEVICE_PIPE_SUPPORT => Info::bool(false),
        CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES => {
            Info::value::<cl_device_device_enqueue_capabilities>(0)
        }
        CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => Info::value::<usize>(nw.float as usize),
        // The Khronos CTS release ferrocl's conformance runs are made with.
        CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED => Info::string(CTS_VERSION),
        // cl_khr_device_uuid; no Windows LUID on this platform.
        CL_DEVICE_UUID_KHR => Info::slice::<u8>(&i.uuid),
        CL_DRIVER_UUID_KHR => Info::slice::<u8>(&i.driver_uuid),
        CL_DEVICE_LUID_VALID_KHR => Info::bool(false),
        CL_DEVICE_LUID_KHR => Info::slice::<u8>(&[0; 8]),
        CL_DEVICE_NODE_MASK_KHR => Info::value::<cl_uint>(0),
        // cl_ext_float_atomics: float and double, global and local; no half.
        CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT
        | CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT => Info::value::<cl_bitfield>(FP_ATOMICS),
        CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT => Info::value::<cl_bitfield>(0),
        // cl_khr_integer_dot_product: both input forms; none is faster than
        // the multiplies and adds it is made of (the struct's six cl_bools).
        CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR => {
            Info::value::<cl_device_integer_dot_product_capabilities_khr>(
                CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR
                    | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR,
            )
        }
        #[allow(non_upper_case_globals)] // the header's spelling: 4x8BIT
        CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR
        | CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR => {
            Info::slice::<cl_bool>(&[CL_FALSE; 6])
        }
        // cl_khr_kernel_clock: the time-stamp counter, at every scope.
        CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR => {
            Info::value::<cl_device_kernel_clock_capabilities_khr>(
                CL_DEVICE_KERNEL_CLOCK_SCOPE_DEVICE_KHR
                    | CL_DEVICE_KERNEL_CLOCK_SCOPE_WORK_GROUP_KHR
                    | CL_DEVICE_KERNEL_CLOCK_SCOPE_SUB_GROUP_KHR,
            )
        }
        _ => intel_attribute(i, param).ok_or(CL_INVALID_VALUE)?,
    })
}

/// `cl_intel_device_attribute_query`, as Intel's CPU runtime answers it for
/// a CPU: one slice of one sub-slice whose "execution units" are the
/// compute units, one thread each; no DP4A or DPAS instructions.
fn intel_attribute(i: &mux::DeviceInfo, param: cl_device_info) -> Option<Info> {
    Some(match param {
        // The IP versions SYCL maps to an architecture name are Intel
        // GPUs' and Intel's server CPUs' own; 0 names none of them, so
        // SYCL calls the device plain x86-64.
        CL_DEVICE_IP_VERSION_INTEL => Info::value::<cl_uint>(0),
        CL_DEVICE_ID_INTEL => Info::value::<cl_uint>(i.model_id),
        CL_DEVICE_NUM_SLICES_INTEL | CL_DEVICE_NUM_SUB_SLICES_PER_SLICE_INTEL => {
            Info::value::<cl_uint>(1)
        }
        CL_DEVICE_NUM_EUS_PER_SUB_SLICE_INTEL => Info::value::<cl_uint>(i.compute_units),
        CL_DEVICE_NUM_THREADS_PER_EU_INTEL => Info::value::<cl_uint>(1),
        CL_DEVICE_FEATURE_CAPABILITIES_INTEL => {
            Info::value::<cl_device_feature_capabilities_intel>(0)
        }
        _ => return None,
    })
}

/// The memory orders of kernels' atomics and fences.
// cl_ext_float_atomics (not in opencl-sys): the queries and their bits.
const CL_DEVICE_SINGLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4231;
const CL_DEVICE_DOUBLE_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4232;
const CL_DEVICE_HALF_FP_ATOMIC_CAPABILITIES_EXT: cl_device_info = 0x4233;
/// Load, store, add and min/max, in global and local memory: the
/// builtins' `float_atomics.cl` and `atomics_c11.cl`, and the
/// `__opencl_c_ext_fp*` features `compiler::OPENCL_C_FEATURES` lists.
const FP_ATOMICS: cl_bitfield = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 16) | (1 << 17) | (1 << 18);

const ATOMIC_ORDERS: cl_device_atomic_capabilities = CL_DEVICE_ATOMIC_ORDER_RELAXED
    | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
    | CL_DEVICE_ATOMIC_ORDER_SEQ_CST;

/// The memory scopes of kernels' atomics and fences, beyond the work-item.
const ATOMIC_SCOPES: cl_device_atomic_capabilities = CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
    | CL_DEVICE_ATOMIC_SCOPE_DEVICE
    | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;

/// Extensions of the runtime alone, with their versions.
const RUNTIME_EXTENSIONS: [(&str, (u32, u32, u32)); 11] = [
    ("cl_intel_device_attribute_query", (1, 0, 0)),
    // Kernels' `__devicelib_assert_fail` (`compiler::device_library`).
    ("cl_intel_devicelib_assert", (1, 0, 0)),
    ("cl_intel_unified_shared_memory", (1, 1, 0)),
    ("cl_khr_create_command_queue", (1, 0, 0)),
    ("cl_khr_device_uuid", (1, 0, 0)),
    // SPIR-V programs (`spirv-ll`): the versions and what modules may
    // declare are the `spirv` module's.
    ("cl_khr_il_program", (1, 0, 0)),
    ("cl_khr_spirv_linkonce_odr", (1, 0, 0)),
    ("cl_khr_spirv_no_integer_wrap_decoration", (1, 0, 0)),
    ("cl_khr_spirv_queries", (1, 0, 0)),
    ("cl_khr_semaphore", (1, 0, 0)),
    ("cl_khr_suggested_local_work_size", (1, 0, 0)),
];

/// The Khronos OpenCL CTS release (its tag) the conformance runs use.
pub const CTS_VERSION: &str = "v2026-07-09-00";

pub unsafe extern "C" fn get_device_info(
    device: cl_device_id,
    param_name: cl_device_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    platform::platform();
    let result = object::get::<Device>(device).and_then(|d| query(&d, param_name));
    answer(result, size, value, size_ret)
}

// Root devices are not reference counted (the spec: a no-op); sub-devices
// are, as other objects.
pub unsafe extern "C" fn retain_device(device: cl_device_id) -> cl_int {
    status(|| match object::get::<Device>(device)?.parent {
        Some(_) => result(object::retain::<Device>(device)),
        None => Ok(()),
    })
}

pub unsafe extern "C" fn release_device(device: cl_device_id) -> cl_int {
    status(|| match object::get::<Device>(device)?.parent {
        Some(_) => result(object::release::<Device>(device)),
        None => Ok(()),
    })
}

fn result(code: cl_int) -> Result<(), cl_int> {
    if code == CL_SUCCESS {
        Ok(())
    } else {
        Err(code)
    }
}

/// Nanoseconds on the clock profiling and host timers share.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the struct it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

pub unsafe extern "C" fn get_device_and_host_timer(
    device: cl_device_id,
    device_timestamp: *mut cl_ulong,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    status(|| {
        object::get::<Device>(device)?;
        ensure(
            !device_timestamp.is_null() && !host_timestamp.is_null(),
            CL_INVALID_VALUE,
        )?;
        let t = now_ns();
        *device_timestamp = t;
        *host_timestamp = t;
        Ok(())
    })
}

pub unsafe extern "C" fn get_host_timer(
    device: cl_device_id,
    host_timestamp: *mut cl_ulong,
) -> cl_int {
    status(|| {
        object::get::<Device>(device)?;
        ensure(!host_timestamp.is_null(), CL_INVALID_VALUE)?;
        *host_timestamp = now_ns();
        Ok(())
    })
}

/// `CL_DRIVER_VERSION`: the release, then the build's identity.
fn driver_version() -> String {
    match compiler::build_id() {
        Some(id) => format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            &id[..id.len().min(16)]
        ),
        None => env!("CARGO_PKG_VERSION").to_string(),
    }
}
