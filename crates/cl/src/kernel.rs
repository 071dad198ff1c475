//! Kernels: a program's kernel function with its argument values.

use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::memory::Mem;
use crate::object::{self, ClObject, Kind};
use crate::program::Program;
use crate::util::read_c_string;
use compiler::{AddressSpace, ArgKind, KernelInfo, ProgramModule};
use opencl_sys::*;
use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, Weak};

#[derive(Clone)]
pub enum ArgValue {
    /// A kernel argument does not keep its memory object alive: once the
    /// application releases it, its destructor callbacks run (commands
    /// already enqueued hold references of their own).
    Buffer(Option<Weak<ClObject<Mem>>>),
    Local(usize),
    Bytes(Vec<u8>),
    /// An address kernels use as it is: SVM or USM memory, or (a device
    /// sharing all host memory) any host memory.
    Pointer(usize),
    /// An image; like a buffer, not kept alive by the argument.
    Image(Weak<ClObject<Mem>>),
    /// A sampler's bits.
    Sampler(u32),
}

pub struct Kernel {
    pub program: Arc<ClObject<Program>>,
    pub module: Arc<ProgramModule>,
    pub info: KernelInfo,
    pub args: Mutex<Vec<Option<ArgValue>>>,
    /// The work-group function last used, with its local size: most
    /// enqueues repeat the previous one's size.
    pub last_specialized: Mutex<Option<(compiler::Specialization, mux::KernelRef)>>,
    /// A work-group function being compiled on a thread of its own while
    /// launches run a stand-in (`enqueue_kernel::specialize`): its
    /// specialization and where the thread leaves it (`None` while it
    /// compiles; an error leaves the stand-in for good).
    pub compiling: Mutex<Option<(compiler::Specialization, Arc<Mutex<Option<Compiled>>>)>>,
}

/// What a compilation of a work-group function gave.
pub type Compiled = Result<mux::KernelRef, String>;

impl Kind for Kernel {
    const INVALID: cl_int = CL_INVALID_KERNEL;
}

impl Drop for Kernel {
    fn drop(&mut self) {
        self.program.kernels_attached.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Kernel {
    /// The largest work-group this kernel can run with.
    pub fn max_work_group_size(&self, device: &Device) -> usize {
        device.info().max_work_group_size
    }

    /// `__local` bytes: the kernel's own variables plus its set arguments.
    pub fn local_memory(&self) -> usize {
        let args = self.args.lock().unwrap();
        let dynamic: usize = args
            .iter()
            .map(|a| match a {
                Some(ArgValue::Local(n)) => n.next_multiple_of(compiler::LOCAL_ALIGN),
                _ => 0,
            })
            .sum();
        self.info.static_local_memory + dynamic
    }
}

fn make(
    program: &Arc<ClObject<Program>>,
    module: Arc<ProgramModule>,
    info: KernelInfo,
) -> cl_kernel {
    program.kernels_attached.fetch_add(1, Ordering::AcqRel);
    let n = info.args.len();
    let k = object::create(Kernel {
        program: program.clone(),
        module,
        info,
        args: Mutex::new(vec![None; n]),
        last_specialized: Mutex::new(None),
        compiling: Mutex::new(None),
    });
    object::handle(&k)
}

pub unsafe extern "C" fn create_kernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let p = object::get::<Program>(program)?;
        let module = p.executable()?;
        ensure(!kernel_name.is_null(), CL_INVALID_VALUE)?;
        let name = read_c_string(kernel_name);
        let info = module.kernel(&name).ok_or(CL_INVALID_KERNEL_NAME)?.clone();
        Ok(make(&p, module, info))
    })
}

pub unsafe extern "C" fn create_kernels_in_program(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    status(|| {
        let p = object::get::<Program>(program)?;
        let module = p.executable()?;
        let all = module.kernels();
        ensure(
            kernels.is_null() || num_kernels as usize >= all.len(),
            CL_INVALID_VALUE,
        )?;
        if !kernels.is_null() {
            for (i, info) in all.iter().enumerate() {
                *kernels.add(i) = make(&p, module.clone(), info.clone());
            }
        }
        if !num_kernels_ret.is_null() {
            *num_kernels_ret = all.len() as cl_uint;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn clone_kernel(source: cl_kernel, errcode_ret: *mut cl_int) -> cl_kernel {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let k = object::get::<Kernel>(source)?;
        let args = k.args.lock().unwrap().clone();
        let h = make(&k.program, k.module.clone(), k.info.clone());
        let copy = object::get::<Kernel>(h)?;
        *copy.args.lock().unwrap() = args;
        Ok(h)
    })
}

pub unsafe extern "C" fn retain_kernel(kernel: cl_kernel) -> cl_int {
    object::retain::<Kernel>(kernel)
}

pub unsafe extern "C" fn release_kernel(kernel: cl_kernel) -> cl_int {
    object::release::<Kernel>(kernel)
}

pub unsafe extern "C" fn set_kernel_arg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    status(|| {
        let k = object::get::<Kernel>(kernel)?;
        let arg = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        let value = match arg.kind {
            ArgKind::Buffer => {
                ensure(
                    arg_size == std::mem::size_of::<cl_mem>(),
                    CL_INVALID_ARG_SIZE,
                )?;
                let handle = if arg_value.is_null() {
                    std::ptr::null_mut()
                } else {
                    *(arg_value as *const cl_mem)
                };
                if handle.is_null() {
                    ArgValue::Buffer(None)
                } else {
                    let m = crate::memory::get_buffer(handle)?;
                    ensure(
                        Arc::ptr_eq(&m.context, &k.program.context),
                        CL_INVALID_MEM_OBJECT,
                    )?;
                    ArgValue::Buffer(Some(Arc::downgrade(&m)))
                }
            }
            ArgKind::Image(t) => {
                ensure(
                    arg_size == std::mem::size_of::<cl_mem>(),
                    CL_INVALID_ARG_SIZE,
                )?;
                ensure(!arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
                let m = crate::enqueue_image::get_image(*(arg_value as *const cl_mem))?;
                ensure(
                    Arc::ptr_eq(&m.context, &k.program.context),
                    CL_INVALID_MEM_OBJECT,
                )?;
                let shape = &m.image.as_ref().expect("an image").shape;
                ensure(image_fits(t, shape), CL_INVALID_MEM_OBJECT)?;
                // The kernel may not do what the image's flags forbid.
                let forbidden = match arg.access.as_str() {
                    "read_only" => CL_MEM_WRITE_ONLY,
                    "write_only" => CL_MEM_READ_ONLY,
                    _ => CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
                };
                ensure(m.flags & forbidden == 0, CL_INVALID_ARG_VALUE)?;
                ArgValue::Image(Arc::downgrade(&m))
            }
            ArgKind::Sampler => {
                ensure(
                    arg_size == std::mem::size_of::<cl_sampler>(),
                    CL_INVALID_ARG_SIZE,
                )?;
                ensure(!arg_value.is_null(), CL_INVALID_SAMPLER)?;
                let s = object::get::<crate::sampler::Sampler>(*(arg_value as *const cl_sampler))?;
                ensure(
                    Arc::ptr_eq(&s.context, &k.program.context),
                    CL_INVALID_SAMPLER,
                )?;
                ArgValue::Sampler(s.bits)
            }
            ArgKind::Local => {
                ensure(arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
                ensure(arg_size > 0, CL_INVALID_ARG_SIZE)?;
                ArgValue::Local(arg_size)
            }
            ArgKind::Value | ArgKind::ByVal => {
                ensure(arg_size == arg.size, CL_INVALID_ARG_SIZE)?;
                ensure(!arg_value.is_null(), CL_INVALID_ARG_VALUE)?;
                ArgValue::Bytes(
                    std::slice::from_raw_parts(arg_value as *const u8, arg_size).to_vec(),
                )
            }
        };
        k.args.lock().unwrap()[arg_index as usize] = Some(value);
        Ok(())
    })
}

/// Whether an image of `shape` may be given for an argument of type `t`.
fn image_fits(t: compiler::ImageType, shape: &libimg::Shape) -> bool {
    use compiler::ImageType::*;
    let depth = shape.format.order == CL_DEPTH;
    match (t, shape.image_type) {
        (D1, CL_MEM_OBJECT_IMAGE1D)
        | (D1Buffer, CL_MEM_OBJECT_IMAGE1D_BUFFER)
        | (D1Array, CL_MEM_OBJECT_IMAGE1D_ARRAY)
        | (D3, CL_MEM_OBJECT_IMAGE3D) => true,
        (D2, CL_MEM_OBJECT_IMAGE2D) | (D2Array, CL_MEM_OBJECT_IMAGE2D_ARRAY) => !depth,
        (D2Depth, CL_MEM_OBJECT_IMAGE2D) | (D2ArrayDepth, CL_MEM_OBJECT_IMAGE2D_ARRAY) => depth,
        _ => false,
    }
}

pub unsafe extern "C" fn get_kernel_info(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Kernel>(kernel).and_then(|k| {
        Ok(match param_name {
            CL_KERNEL_FUNCTION_NAME => Info::string(&k.info.name),
            CL_KERNEL_NUM_ARGS => Info::value::<cl_uint>(k.info.args.len() as cl_uint),
            CL_KERNEL_REFERENCE_COUNT => Info::value::<cl_uint>(k.ref_count()),
            CL_KERNEL_CONTEXT => Info::value::<cl_context>(object::handle(&k.program.context)),
            CL_KERNEL_PROGRAM => Info::value::<cl_program>(object::handle(&k.program)),
            CL_KERNEL_ATTRIBUTES => Info::string(&k.info.attributes()),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

fn type_qualifier(text: &str) -> cl_kernel_arg_type_qualifier {
    text.split_whitespace()
        .map(|w| match w {
            "const" => CL_KERNEL_ARG_TYPE_CONST,
            "restrict" => CL_KERNEL_ARG_TYPE_RESTRICT,
            "volatile" => CL_KERNEL_ARG_TYPE_VOLATILE,
            "pipe" => CL_KERNEL_ARG_TYPE_PIPE,
            _ => 0,
        })
        .fold(CL_KERNEL_ARG_TYPE_NONE, |a, b| a | b)
}

pub unsafe extern "C" fn get_kernel_arg_info(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Kernel>(kernel).and_then(|k| {
        let a = k
            .info
            .args
            .get(arg_index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        // Clang keeps argument names only with -cl-kernel-arg-info.
        let name = a.name.as_ref().ok_or(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)?;
        Ok(match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => {
                Info::value::<cl_kernel_arg_address_qualifier>(match a.address_space {
                    AddressSpace::Global => CL_KERNEL_ARG_ADDRESS_GLOBAL,
                    AddressSpace::Constant => CL_KERNEL_ARG_ADDRESS_CONSTANT,
                    AddressSpace::Local => CL_KERNEL_ARG_ADDRESS_LOCAL,
                    _ => CL_KERNEL_ARG_ADDRESS_PRIVATE,
                })
            }
            CL_KERNEL_ARG_ACCESS_QUALIFIER => {
                Info::value::<cl_kernel_arg_access_qualifier>(match a.access.as_str() {
                    "read_only" => CL_KERNEL_ARG_ACCESS_READ_ONLY,
                    "write_only" => CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
                    "read_write" => CL_KERNEL_ARG_ACCESS_READ_WRITE,
                    _ => CL_KERNEL_ARG_ACCESS_NONE,
                })
            }
            CL_KERNEL_ARG_TYPE_NAME => Info::string(&a.type_name),
            // A cl_bitfield in cl.h (64 bits), whatever the binding's alias says.
            CL_KERNEL_ARG_TYPE_QUALIFIER => {
                Info::value::<cl_bitfield>(type_qualifier(&a.type_qualifier) as cl_bitfield)
            }
            CL_KERNEL_ARG_NAME => Info::string(name),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

/// The device a per-device query is about: NULL is fine with one device.
pub fn query_device(p: &Program, device: cl_device_id) -> Result<Arc<ClObject<Device>>, cl_int> {
    if device.is_null() {
        ensure(p.devices.len() == 1, CL_INVALID_DEVICE)?;
        return Ok(p.devices[0].clone());
    }
    let d = object::get::<Device>(device)?;
    ensure(
        p.devices.iter().any(|x| Arc::ptr_eq(x, &d)),
        CL_INVALID_DEVICE,
    )?;
    Ok(d)
}

pub unsafe extern "C" fn get_kernel_work_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Kernel>(kernel).and_then(|k| {
        let d = query_device(&k.program, device)?;
        Ok(match param_name {
            CL_KERNEL_WORK_GROUP_SIZE => Info::value::<usize>(k.max_work_group_size(&d)),
            CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
                Info::slice::<usize>(&k.info.reqd_work_group_size.unwrap_or([0; 3]))
            }
            CL_KERNEL_LOCAL_MEM_SIZE => Info::value::<cl_ulong>(k.local_memory() as cl_ulong),
            CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
                Info::value::<usize>(d.info().native_vector_width.float as usize)
            }
            CL_KERNEL_PRIVATE_MEM_SIZE => Info::value::<cl_ulong>(k.info.private_memory as u64),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

/// `CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL` (cl_intel_required_subgroup_size).
pub const CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: cl_kernel_sub_group_info = 0x410A;

/// Sub-groups are runs of the kernel's sub-group width along dimension 0
/// (`KernelInfo::sub_group_width`): a work-group of `(x, y, z)` has
/// `ceil(x / width) * y * z` of them, of `min(width, x)` work-items at most.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn get_kernel_sub_group_info(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_sub_group_info,
    input_size: usize,
    input: *const c_void,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    status(|| {
        let k = object::get::<Kernel>(kernel)?;
        let d = query_device(&k.program, device)?;
        let width = k
            .info
            .sub_group_width(d.info().native_vector_width.float as usize);
        let max_items = k
            .max_work_group_size(&d)
            .min(d.info().max_work_item_sizes[0]);
        // The input: one to three size_t (a local size), or one (a count).
        let sizes = |most: usize| -> Result<Vec<usize>, cl_int> {
            let n = input_size / std::mem::size_of::<usize>();
            ensure(
                !input.is_null()
                    && input_size % std::mem::size_of::<usize>() == 0
                    && (1..=most).contains(&n),
                CL_INVALID_VALUE,
            )?;
            Ok(std::slice::from_raw_parts(input as *const usize, n).to_vec())
        };
        let local = || -> Result<[usize; 3], cl_int> {
            let v = sizes(3)?;
            let mut l = [1; 3];
            l[..v.len()].copy_from_slice(&v);
            Ok(l)
        };
        let info = match param_name {
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE => {
                Info::value::<usize>(width.min(local()?[0]))
            }
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE => {
                let [x, y, z] = local()?;
                Info::value::<usize>(x.div_ceil(width) * y * z)
            }
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT => {
                let count = sizes(1)?[0];
                // As many dimensions as the answer has room for.
                let dims = if value.is_null() {
                    3
                } else {
                    size / std::mem::size_of::<usize>()
                };
                ensure((1..=3).contains(&dims), CL_INVALID_VALUE)?;
                // The widest run along x with exactly `count` sub-groups.
                let x = count.saturating_mul(width).min(max_items);
                let fits = count > 0 && x > (count - 1) * width;
                let mut answer = vec![0usize; dims];
                if fits {
                    answer[0] = x;
                    answer[1..].fill(1);
                }
                Info::slice::<usize>(&answer)
            }
            CL_KERNEL_MAX_NUM_SUB_GROUPS => {
                // A work-group one work-item wide has one sub-group per item.
                Info::value::<usize>(k.max_work_group_size(&d))
            }
            CL_KERNEL_COMPILE_NUM_SUB_GROUPS => {
                Info::value::<usize>(k.info.compile_num_sub_groups.unwrap_or(0) as usize)
            }
            CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL => {
                Info::value::<usize>(k.info.reqd_sub_group_size.unwrap_or(0) as usize)
            }
            _ => return Err(CL_INVALID_VALUE),
        };
        match info.write(size, value, size_ret) {
            CL_SUCCESS => Ok(()),
            e => Err(e),
        }
    })
}
