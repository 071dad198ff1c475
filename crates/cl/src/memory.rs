//! Memory objects: buffers and sub-buffers, over the device's memory
//! (`mux`): a buffer is the whole of a memory the device allocated, or that
//! it uses in place of the application's (`CL_MEM_USE_HOST_PTR`); a
//! sub-buffer is a range of its parent's memory. An image is a memory
//! object too, with an image part (`crate::image`).

use crate::context::Context;
use crate::entry::{self, ensure, status};
use crate::image::ImagePart;
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::shared_memory::Origin;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

type Destructor = unsafe extern "C" fn(cl_mem, *mut c_void);

/// A range of a buffer mapped into the host's address space.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Mapping {
    /// What the application was given.
    pub ptr: usize,
    pub size: usize,
    pub writing: bool,
    /// Where the range starts in the buffer's memory.
    pub at: usize,
}

pub struct Mem {
    pub context: Arc<ClObject<Context>>,
    /// Flags as given.
    pub flags: cl_mem_flags,
    pub size: usize,
    host_ptr: usize,
    /// What commands and kernel arguments name.
    pub buffer: mux::BufferRef,
    /// Made over an SVM allocation (`CL_MEM_USE_HOST_PTR`), or a sub-buffer
    /// of one.
    uses_svm_pointer: bool,
    /// A sub-buffer's parent, and where it starts in it.
    parent: Option<(Arc<ClObject<Mem>>, usize)>,
    /// Live mappings.
    pub maps: Mutex<Vec<Mapping>>,
    /// `CL_MEM_PROPERTIES` as given (empty if none).
    properties: Vec<cl_mem_properties>,
    destructors: Mutex<Vec<(Destructor, usize)>>,
    handle: std::sync::OnceLock<usize>,
    /// What makes it an image; `None` for a buffer.
    pub image: Option<ImagePart>,
}

impl Kind for Mem {
    const INVALID: cl_int = CL_INVALID_MEM_OBJECT;
}

impl Drop for Mem {
    fn drop(&mut self) {
        let h = self.handle.get().copied().unwrap_or(0) as cl_mem;
        let callbacks = std::mem::take(&mut *self.destructors.lock().unwrap());
        for (cb, data) in callbacks.into_iter().rev() {
            // SAFETY: the application's callback, with its own user data.
            unsafe { cb(h, data as *mut c_void) };
        }
    }
}

/// A memory object that must be a buffer: an image is
/// `CL_INVALID_MEM_OBJECT`.
pub fn get_buffer(mem: cl_mem) -> Result<Arc<ClObject<Mem>>, cl_int> {
    let m = object::get::<Mem>(mem)?;
    ensure(m.image.is_none(), CL_INVALID_MEM_OBJECT)?;
    Ok(m)
}

/// Makes the memory object of an image: `buffer` spans its memory.
pub fn create_image_object(
    context: Arc<ClObject<Context>>,
    flags: cl_mem_flags,
    host_ptr: usize,
    buffer: mux::BufferRef,
    image: ImagePart,
    properties: Vec<cl_mem_properties>,
) -> cl_mem {
    let m = object::create(Mem {
        context,
        uses_svm_pointer: false,
        flags,
        size: buffer.size(),
        host_ptr,
        buffer,
        parent: None,
        properties,
        maps: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
        handle: Default::default(),
        image: Some(image),
    });
    let h = object::handle(&m);
    let _ = m.handle.set(h as usize);
    h
}

impl Mem {
    pub fn host_readable(&self) -> bool {
        self.flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS) == 0
    }

    pub fn host_writable(&self) -> bool {
        self.flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS) == 0
    }

    pub fn map_count(&self) -> cl_uint {
        self.maps.lock().unwrap().len() as cl_uint
    }
}

const ACCESS: cl_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;
const HOST_ACCESS: cl_mem_flags =
    CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
const HOST_PTR: cl_mem_flags = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

/// The combinations of flags the spec allows for a buffer.
pub(crate) fn valid_flags(flags: cl_mem_flags) -> bool {
    let one_of = |set: cl_mem_flags| (flags & set).count_ones() <= 1;
    flags & !(ACCESS | HOST_ACCESS | HOST_PTR) == 0
        && one_of(ACCESS)
        && one_of(HOST_ACCESS)
        && !(flags & CL_MEM_USE_HOST_PTR != 0
            && flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0)
}

/// The flags of a memory object made over `parent_flags`' memory (a
/// sub-buffer, an image over a buffer): host-pointer flags are the
/// parent's alone, access the parent forbids cannot be asked for, and
/// access left unnamed is the parent's (spec 5.2.1).
pub(crate) fn inherit_flags(
    flags: cl_mem_flags,
    parent_flags: cl_mem_flags,
) -> Result<cl_mem_flags, cl_int> {
    let pf = parent_flags;
    ensure(flags & HOST_PTR == 0, CL_INVALID_VALUE)?;
    let bad_access = (pf & CL_MEM_WRITE_ONLY != 0
        && flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY) != 0)
        || (pf & CL_MEM_READ_ONLY != 0 && flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY) != 0)
        || (pf & CL_MEM_HOST_WRITE_ONLY != 0 && flags & CL_MEM_HOST_READ_ONLY != 0)
        || (pf & CL_MEM_HOST_READ_ONLY != 0 && flags & CL_MEM_HOST_WRITE_ONLY != 0)
        || (pf & CL_MEM_HOST_NO_ACCESS != 0
            && flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY) != 0);
    ensure(!bad_access, CL_INVALID_VALUE)?;
    let mut own = flags;
    if own & ACCESS == 0 {
        own |= pf & ACCESS;
    }
    if own & HOST_ACCESS == 0 {
        own |= pf & HOST_ACCESS;
    }
    Ok(own | (pf & HOST_PTR))
}

/// A memory object's properties as `CL_MEM_PROPERTIES` keeps them: the
/// core spec defines none, so only an empty list is accepted.
pub(crate) unsafe fn properties(
    properties: *const cl_mem_properties,
) -> Result<Vec<cl_mem_properties>, cl_int> {
    ensure(
        properties.is_null() || *properties == 0,
        CL_INVALID_PROPERTY,
    )?;
    Ok(if properties.is_null() {
        Vec::new()
    } else {
        vec![0]
    })
}

unsafe fn create(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    properties: Vec<cl_mem_properties>,
) -> Result<cl_mem, cl_int> {
    let ctx = object::get::<Context>(context)?;
    ensure(valid_flags(flags), CL_INVALID_VALUE)?;
    let max = ctx
        .devices
        .iter()
        .map(|d| d.info().max_mem_alloc_size)
        .min()
        .unwrap_or(0);
    ensure(size > 0 && size as u64 <= max, CL_INVALID_BUFFER_SIZE)?;
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    ensure(wants_ptr == !host_ptr.is_null(), CL_INVALID_HOST_PTR)?;
    let device = &ctx.devices[0].mux;
    // Host memory inside an SVM or USM allocation: that allocation's memory.
    let shared = if flags & CL_MEM_USE_HOST_PTR != 0 {
        ctx.shared.find(host_ptr as usize)
    } else {
        None
    };
    if let Some((a, offset)) = &shared {
        ensure(size <= a.size - offset, CL_INVALID_BUFFER_SIZE)?;
    }
    let memory = if let Some((a, _)) = &shared {
        Ok(a.memory.clone())
    } else if flags & CL_MEM_USE_HOST_PTR != 0 {
        device.memory_from_host(host_ptr as *mut u8, size)
    } else {
        let align = ctx.devices[0].info().mem_base_addr_align_bits as usize / 8;
        device.allocate_memory(size, align)
    }
    .map_err(|_| CL_MEM_OBJECT_ALLOCATION_FAILURE)?;
    if flags & CL_MEM_COPY_HOST_PTR != 0 {
        let p = memory.map(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
        std::ptr::copy_nonoverlapping(host_ptr as *const u8, p, size);
        memory.unmap(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
    }
    let at = shared.as_ref().map_or(0, |(_, offset)| *offset);
    let buffer = device
        .create_buffer(memory, at, size)
        .map_err(|_| CL_OUT_OF_RESOURCES)?;
    let uses_svm_pointer = shared.is_some_and(|(a, _)| a.origin == Origin::Svm);
    let m = object::create(Mem {
        context: ctx,
        uses_svm_pointer,
        flags,
        size,
        host_ptr: if flags & CL_MEM_USE_HOST_PTR != 0 {
            host_ptr as usize
        } else {
            0
        },
        buffer,
        parent: None,
        properties,
        maps: Mutex::new(Vec::new()),
        destructors: Mutex::new(Vec::new()),
        handle: Default::default(),
        image: None,
    });
    let h = object::handle(&m);
    let _ = m.handle.set(h as usize);
    Ok(h)
}

pub unsafe extern "C" fn create_buffer(
    context: cl_context,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        create(context, flags, size, host_ptr, Vec::new())
    })
}

pub unsafe extern "C" fn create_buffer_with_properties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    size: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        let given = self::properties(properties)?;
        create(context, flags, size, host_ptr, given)
    })
}

pub unsafe extern "C" fn create_sub_buffer(
    buffer: cl_mem,
    flags: cl_mem_flags,
    create_type: cl_buffer_create_type,
    info: *const c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let parent = get_buffer(buffer)?;
        ensure(parent.parent.is_none(), CL_INVALID_MEM_OBJECT)?;
        ensure(valid_flags(flags), CL_INVALID_VALUE)?;
        // Checked before the region, as the spec lists them.
        let own = inherit_flags(flags, parent.flags)?;
        ensure(
            create_type == CL_BUFFER_CREATE_TYPE_REGION && !info.is_null(),
            CL_INVALID_VALUE,
        )?;
        let region = &*(info as *const cl_buffer_region);
        ensure(region.size > 0, CL_INVALID_BUFFER_SIZE)?;
        let end = region
            .origin
            .checked_add(region.size)
            .ok_or(CL_INVALID_VALUE)?;
        ensure(end <= parent.size, CL_INVALID_VALUE)?;
        let align = parent.context.devices[0].info().mem_base_addr_align_bits as usize / 8;
        ensure(region.origin % align == 0, CL_MISALIGNED_SUB_BUFFER_OFFSET)?;
        let host_ptr = if parent.host_ptr != 0 {
            parent.host_ptr + region.origin
        } else {
            0
        };
        let buffer = parent.context.devices[0]
            .mux
            .create_buffer(
                parent.buffer.memory().clone(),
                parent.buffer.offset() + region.origin,
                region.size,
            )
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
        let m = object::create(Mem {
            context: parent.context.clone(),
            uses_svm_pointer: parent.uses_svm_pointer,
            flags: own,
            size: region.size,
            host_ptr,
            buffer,
            parent: Some((parent.clone(), region.origin)),
            properties: Vec::new(),
            maps: Mutex::new(Vec::new()),
            destructors: Mutex::new(Vec::new()),
            handle: Default::default(),
            image: None,
        });
        let h = object::handle(&m);
        let _ = m.handle.set(h as usize);
        Ok(h)
    })
}

pub unsafe extern "C" fn retain_mem_object(mem: cl_mem) -> cl_int {
    object::retain::<Mem>(mem)
}

pub unsafe extern "C" fn release_mem_object(mem: cl_mem) -> cl_int {
    object::release::<Mem>(mem)
}

pub unsafe extern "C" fn get_mem_object_info(
    mem: cl_mem,
    param_name: cl_mem_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Mem>(mem).and_then(|m| {
        let (parent, offset) = match (&m.parent, &m.image) {
            (Some((parent, offset)), _) => (object::handle(parent), *offset),
            (None, Some(image)) => (
                image
                    .buffer
                    .as_ref()
                    .map_or(std::ptr::null_mut(), object::handle),
                0,
            ),
            (None, None) => (std::ptr::null_mut(), 0),
        };
        let mem_type = m
            .image
            .as_ref()
            .map_or(CL_MEM_OBJECT_BUFFER, |i| i.shape.image_type);
        Ok(match param_name {
            CL_MEM_TYPE => Info::value::<cl_mem_object_type>(mem_type),
            CL_MEM_FLAGS => Info::value::<cl_mem_flags>(m.flags),
            CL_MEM_SIZE => Info::value::<usize>(m.size),
            CL_MEM_HOST_PTR => Info::value::<*mut c_void>(m.host_ptr as *mut c_void),
            CL_MEM_MAP_COUNT => Info::value::<cl_uint>(m.map_count()),
            CL_MEM_REFERENCE_COUNT => Info::value::<cl_uint>(m.ref_count()),
            CL_MEM_CONTEXT => Info::value::<cl_context>(object::handle(&m.context)),
            CL_MEM_ASSOCIATED_MEMOBJECT => Info::value::<cl_mem>(parent),
            CL_MEM_OFFSET => Info::value::<usize>(offset),
            CL_MEM_USES_SVM_POINTER => Info::bool(m.uses_svm_pointer),
            CL_MEM_PROPERTIES => Info::slice::<cl_mem_properties>(&m.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn set_mem_object_destructor_callback(
    mem: cl_mem,
    pfn_notify: Option<Destructor>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let m = object::get::<Mem>(mem)?;
        let cb = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        m.destructors.lock().unwrap().push((cb, user_data as usize));
        Ok(())
    })
}
