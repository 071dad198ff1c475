/// A feature or extension name with its version (`CL_MAKE_VERSION` packed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameVersion {
    pub name: String,
    pub version: u32,
}

/// Packs a version the way `CL_MAKE_VERSION` does.
pub const fn make_version(major: u32, minor: u32, patch: u32) -> u32 {
    (major << 22) | (minor << 12) | patch
}

/// Vector widths per element type, in elements.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VectorWidths {
    pub char: u32,
    pub short: u32,
    pub int: u32,
    pub long: u32,
    pub float: u32,
    pub double: u32,
    pub half: u32,
}

/// Floating-point capability bits, as `cl_device_fp_config` defines them.
pub mod fp {
    pub const DENORM: u64 = 1 << 0;
    pub const INF_NAN: u64 = 1 << 1;
    pub const ROUND_TO_NEAREST: u64 = 1 << 2;
    pub const ROUND_TO_ZERO: u64 = 1 << 3;
    pub const ROUND_TO_INF: u64 = 1 << 4;
    pub const FMA: u64 = 1 << 5;
    pub const SOFT_FLOAT: u64 = 1 << 6;
    pub const CORRECTLY_ROUNDED_DIVIDE_SQRT: u64 = 1 << 7;
}

/// The cache between the device and global memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cache {
    pub size: u64,
    pub line_size: u32,
}

/// What sort of device it is (`CL_DEVICE_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    Cpu,
    Gpu,
    Accelerator,
    Custom,
}

/// What compute units of a device may share, to partition it by
/// (`CL_DEVICE_AFFINITY_DOMAIN_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AffinityDomain {
    Numa,
    L4Cache,
    L3Cache,
    L2Cache,
    L1Cache,
}

/// How the host and kernels share memory by address (OpenCL's shared
/// virtual memory, Intel's unified shared memory). Memory made by
/// [`Device::allocate_shared`](crate::Device::allocate_shared) is reached
/// by the host and by kernels at one address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SharedMemory {
    /// Shared allocations exist; host and kernels agree on their contents
    /// at command boundaries and at map and unmap (coarse grain).
    pub buffers: bool,
    /// They agree at any time, also while a kernel runs (fine grain).
    pub fine_grain: bool,
    /// Any host memory (`malloc`, the stack) is reached by kernels at its
    /// host address, with the same guarantees as `fine_grain`.
    pub system: bool,
    /// Kernels' atomics on shared memory are atomic towards the host's
    /// own atomics while both run.
    pub host_atomics: bool,
}

/// What a device reports about itself. The API layer answers
/// `clGetDeviceInfo` from this; nothing in it is guessed by the API layer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub kind: DeviceKind,
    pub name: String,
    pub vendor: String,
    pub vendor_id: u32,
    pub compute_units: u32,
    pub max_clock_frequency_mhz: u32,
    pub max_work_group_size: usize,
    pub max_work_item_sizes: [usize; 3],
    pub preferred_vector_width: VectorWidths,
    pub native_vector_width: VectorWidths,
    /// Rows (work-items along y) the target's compiler runs together where
    /// they share loads; a local size it picks is a multiple of it in y
    /// where the range allows.
    pub local_rows: usize,
    pub global_mem_size: u64,
    pub max_mem_alloc_size: u64,
    pub global_mem_cache: Cache,
    pub local_mem_size: u64,
    pub max_constant_buffer_size: u64,
    pub max_parameter_size: usize,
    /// Alignment of every buffer's base, in bits (`CL_DEVICE_MEM_BASE_ADDR_ALIGN`).
    pub mem_base_addr_align_bits: u32,
    pub single_fp_config: u64,
    pub double_fp_config: u64,
    pub half_fp_config: u64,
    pub profiling_timer_resolution_ns: usize,
    /// OpenCL C extensions the compiler and builtins implement.
    pub extensions: Vec<NameVersion>,
    /// OpenCL C 3.0 optional features (`__opencl_c_*`) supported.
    pub opencl_c_features: Vec<NameVersion>,
    /// Largest printf buffer, in bytes.
    pub printf_buffer_size: usize,
    /// The target CPU name the compiler tunes for (e.g. `znver4`).
    pub target_cpu: String,
    /// For each affinity domain the device can be partitioned by, its
    /// compute units (indices below `compute_units`) grouped by what they
    /// share, in two groups or more; no entry for a domain the device knows
    /// nothing of, or whose one group would be the whole device.
    pub affinity_domains: Vec<(AffinityDomain, Vec<Vec<u32>>)>,
    /// The same for this device on every run (`CL_DEVICE_UUID_KHR`).
    pub uuid: [u8; 16],
    /// The same for every device of this build of the library, different
    /// for another build (`CL_DRIVER_UUID_KHR`).
    pub driver_uuid: [u8; 16],
    /// The vendor's number for this model of device: for a CPU, its
    /// family, model and stepping as CPUID leaf 1 gives them
    /// (`CL_DEVICE_ID_INTEL`).
    pub model_id: u32,
    /// What memory the host and kernels share by address.
    pub shared_memory: SharedMemory,
    /// The device's images, or `None` if it has none.
    pub images: Option<ImageLimits>,
}

/// How large a device's images may be and how many a kernel may take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImageLimits {
    /// Width and height of a 2D image, in texels.
    pub max_2d: [usize; 2],
    /// Width, height and depth of a 3D image.
    pub max_3d: [usize; 3],
    /// Texels of a 1D image over a buffer.
    pub max_buffer_texels: usize,
    /// Layers of an image array.
    pub max_array_size: usize,
    /// Samplers a kernel may use.
    pub max_samplers: u32,
    /// Image arguments a kernel may take, by access.
    pub max_read_args: u32,
    pub max_write_args: u32,
    pub max_read_write_args: u32,
    /// Texels a row pitch of an image over a buffer must be a multiple of.
    pub pitch_alignment: u32,
    /// Texels the address of a buffer an image is made over must be a
    /// multiple of.
    pub base_address_alignment: u32,
}
