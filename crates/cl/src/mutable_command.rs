//! Mutable commands (`cl_khr_command_buffer_mutable_dispatch`): an ND-range
//! recorded into a command buffer, whose arguments, sizes and offset can be
//! changed between enqueues with `clUpdateMutableCommandsKHR`. Each holds a
//! private copy of its kernel (the recorded argument values) and the
//! range prepared from it; an update prepares a new one from an updated copy
//! and takes effect only if every update of the call succeeded.

use crate::enqueue_kernel::{prepare_range, PreparedRange};
use crate::entry::ensure;
use crate::info::{answer, Info};
use crate::kernel::Kernel;
use crate::object::{self, ClObject, Kind};
use crate::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// Every field of a dispatch can be updated.
pub const CAPABILITIES: cl_mutable_dispatch_fields_khr = CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR
    | CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR
    | CL_MUTABLE_DISPATCH_ARGUMENTS_KHR
    | CL_MUTABLE_DISPATCH_EXEC_INFO_KHR;

/// A kernel object of the command's own, released with it.
pub struct KernelCopy(cl_kernel);

// A registered kernel handle, used under the command's lock.
unsafe impl Send for KernelCopy {}
unsafe impl Sync for KernelCopy {}

impl KernelCopy {
    /// A copy of `kernel` with its current argument values.
    fn of(kernel: cl_kernel) -> Result<KernelCopy, cl_int> {
        let mut rc = CL_SUCCESS;
        // SAFETY: `kernel` is checked by `clone_kernel` itself.
        let h = unsafe { crate::kernel::clone_kernel(kernel, &mut rc) };
        ensure(rc == CL_SUCCESS, rc)?;
        Ok(KernelCopy(h))
    }
}

impl Drop for KernelCopy {
    fn drop(&mut self) {
        // SAFETY: the handle is this copy's own reference.
        unsafe { crate::kernel::release_kernel(self.0) };
    }
}

/// A dispatch's configuration, and the range prepared from it.
pub struct Dispatch {
    kernel: KernelCopy,
    pub work_dim: cl_uint,
    pub offset: [usize; 3],
    pub global: [usize; 3],
    /// As given: `None` lets the runtime choose.
    pub local: Option<[usize; 3]>,
    /// `None` while arguments are still unset (the buffer is Finalized,
    /// not Executable).
    pub prepared: Option<PreparedRange>,
}

impl Dispatch {
    /// Prepares the range as configured. Unset arguments leave it
    /// unprepared where `args_may_wait` says they can be set later.
    fn prepare(&mut self, queue: &Arc<ClObject<Queue>>, args_may_wait: bool) -> Result<(), cl_int> {
        let dims = self.work_dim as usize;
        let local = self.local.map(|l| l[..dims].to_vec());
        // SAFETY: the pointers name arrays of `work_dim` sizes.
        let prepared = unsafe {
            prepare_range(
                queue,
                self.kernel.0,
                self.work_dim,
                self.offset.as_ptr(),
                self.global.as_ptr(),
                local.as_ref().map_or(std::ptr::null(), |l| l.as_ptr()),
            )
        };
        match prepared {
            Ok(p) => {
                ensure(
                    p.parts.iter().all(|(_, r)| r.is_valid()),
                    CL_INVALID_WORK_GROUP_SIZE,
                )?;
                self.prepared = Some(p);
                Ok(())
            }
            Err(CL_INVALID_KERNEL_ARGS) if args_may_wait => {
                self.prepared = None;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

pub struct MutableCommand {
    /// The command buffer's handle: the command lives as long as it does.
    pub command_buffer: usize,
    pub queue: Arc<ClObject<Queue>>,
    /// The kernel as recorded, for `CL_MUTABLE_DISPATCH_KERNEL_KHR`.
    pub kernel: Arc<ClObject<Kernel>>,
    properties: Vec<cl_command_properties_khr>,
    /// What `clUpdateMutableCommandsKHR` may change.
    pub updatable: cl_mutable_dispatch_fields_khr,
    pub dispatch: Mutex<Dispatch>,
}

impl Kind for MutableCommand {
    const INVALID: cl_int = CL_INVALID_MUTABLE_COMMAND_KHR;
}

/// Reads `n` sizes from `p` into a 3-vector padded with `pad`.
unsafe fn sizes(p: *const usize, n: usize, pad: usize) -> [usize; 3] {
    let mut v = [pad; 3];
    for (d, x) in v.iter_mut().enumerate().take(n) {
        *x = *p.add(d);
    }
    v
}

impl MutableCommand {
    /// Records an ND-range of `kernel` on `queue`, with the properties of
    /// `clCommandNDRangeKernelKHR` (already validated into `updatable`).
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn record(
        command_buffer: usize,
        queue: &Arc<ClObject<Queue>>,
        properties: Vec<cl_command_properties_khr>,
        updatable: cl_mutable_dispatch_fields_khr,
        kernel: cl_kernel,
        work_dim: cl_uint,
        global_work_offset: *const usize,
        global_work_size: *const usize,
        local_work_size: *const usize,
    ) -> Result<MutableCommand, cl_int> {
        let original = object::get::<Kernel>(kernel)?;
        ensure((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
        let dims = work_dim as usize;
        let mut dispatch = Dispatch {
            kernel: KernelCopy::of(kernel)?,
            work_dim,
            offset: if global_work_offset.is_null() {
                [0; 3]
            } else {
                sizes(global_work_offset, dims, 0)
            },
            global: if global_work_size.is_null() {
                [0; 3]
            } else {
                sizes(global_work_size, dims, 1)
            },
            local: (!local_work_size.is_null()).then(|| sizes(local_work_size, dims, 1)),
            prepared: None,
        };
        dispatch.prepare(queue, updatable & CL_MUTABLE_DISPATCH_ARGUMENTS_KHR != 0)?;
        Ok(MutableCommand {
            command_buffer,
            queue: queue.clone(),
            kernel: original,
            properties,
            updatable,
            dispatch: Mutex::new(dispatch),
        })
    }

    /// The dispatch `config` makes of this one, prepared; `self` unchanged.
    pub unsafe fn updated(
        &self,
        config: &cl_mutable_dispatch_config_khr,
    ) -> Result<Dispatch, cl_int> {
        let current = self.dispatch.lock().unwrap();
        let may = |field| self.updatable & field != 0;
        ensure(
            config.work_dim == 0 || config.work_dim == current.work_dim,
            CL_INVALID_OPERATION,
        )?;
        ensure(
            config.global_work_offset.is_null() || may(CL_MUTABLE_DISPATCH_GLOBAL_OFFSET_KHR),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            config.global_work_size.is_null() || may(CL_MUTABLE_DISPATCH_GLOBAL_SIZE_KHR),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            config.local_work_size.is_null() || may(CL_MUTABLE_DISPATCH_LOCAL_SIZE_KHR),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            (config.num_args == 0 && config.num_svm_args == 0)
                || may(CL_MUTABLE_DISPATCH_ARGUMENTS_KHR),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            config.num_exec_infos == 0 || may(CL_MUTABLE_DISPATCH_EXEC_INFO_KHR),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            (config.num_args == 0) == config.arg_list.is_null(),
            CL_INVALID_VALUE,
        )?;
        ensure(
            (config.num_svm_args == 0) == config.arg_svm_list.is_null(),
            CL_INVALID_VALUE,
        )?;
        ensure(
            (config.num_exec_infos == 0) == config.exec_info_list.is_null(),
            CL_INVALID_VALUE,
        )?;
        let dims = current.work_dim as usize;
        let kernel = KernelCopy::of(current.kernel.0)?;
        let status = |rc: cl_int| ensure(rc == CL_SUCCESS, rc);
        for i in 0..config.num_args as usize {
            let a = &*config.arg_list.add(i);
            status(crate::kernel::set_kernel_arg(
                kernel.0,
                a.arg_index,
                a.arg_size,
                a.arg_value,
            ))?;
        }
        for i in 0..config.num_svm_args as usize {
            let a = &*config.arg_svm_list.add(i);
            status(crate::svm::set_kernel_arg_svm_pointer(
                kernel.0,
                a.arg_index,
                a.arg_value,
            ))?;
        }
        for i in 0..config.num_exec_infos as usize {
            let e = &*config.exec_info_list.add(i);
            status(crate::svm::set_kernel_exec_info(
                kernel.0,
                e.param_name,
                e.param_value_size,
                e.param_value,
            ))?;
        }
        let mut next = Dispatch {
            kernel,
            work_dim: current.work_dim,
            offset: if config.global_work_offset.is_null() {
                current.offset
            } else {
                sizes(config.global_work_offset, dims, 0)
            },
            global: if config.global_work_size.is_null() {
                current.global
            } else {
                sizes(config.global_work_size, dims, 1)
            },
            local: if config.local_work_size.is_null() {
                current.local
            } else {
                Some(sizes(config.local_work_size, dims, 1))
            },
            prepared: None,
        };
        drop(current);
        next.prepare(&self.queue, may(CL_MUTABLE_DISPATCH_ARGUMENTS_KHR))?;
        Ok(next)
    }
}

pub unsafe extern "C" fn get_mutable_command_info(
    command: cl_mutable_command_khr,
    param_name: cl_mutable_command_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<MutableCommand>(command as *mut c_void).and_then(|c| {
        let d = c.dispatch.lock().unwrap();
        let dims = d.work_dim as usize;
        Ok(match param_name {
            CL_MUTABLE_COMMAND_COMMAND_QUEUE_KHR => {
                Info::value::<cl_command_queue>(object::handle(&c.queue))
            }
            CL_MUTABLE_COMMAND_COMMAND_BUFFER_KHR => {
                Info::value::<cl_command_buffer_khr>(c.command_buffer as cl_command_buffer_khr)
            }
            CL_MUTABLE_COMMAND_COMMAND_TYPE_KHR => {
                Info::value::<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL)
            }
            CL_MUTABLE_COMMAND_PROPERTIES_ARRAY_KHR => Info::slice(&c.properties),
            CL_MUTABLE_DISPATCH_KERNEL_KHR => Info::value::<cl_kernel>(object::handle(&c.kernel)),
            CL_MUTABLE_DISPATCH_DIMENSIONS_KHR => Info::value::<cl_uint>(d.work_dim),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_OFFSET_KHR => Info::slice(&d.offset[..dims]),
            CL_MUTABLE_DISPATCH_GLOBAL_WORK_SIZE_KHR => Info::slice(&d.global[..dims]),
            CL_MUTABLE_DISPATCH_LOCAL_WORK_SIZE_KHR => {
                // The size chosen where none was given.
                let local = d
                    .local
                    .or_else(|| d.prepared.as_ref().map(|p| p.range.local_size))
                    .unwrap_or([0; 3]);
                Info::slice(&local[..dims])
            }
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}
