//! Images: memory objects with an image part. `libimg` checks the format
//! and descriptor and says which formats the device offers; the image is a
//! `mux` image over memory of its own, over the application's
//! (`CL_MEM_USE_HOST_PTR`, used in place with its pitches) or over a
//! buffer's (1D image buffers, and 2D images from a buffer,
//! `cl_khr_image2d_from_buffer`). The commands on images are in
//! `enqueue_image.rs`.

use crate::context::Context;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::memory::{self, Mem};
use crate::object::{self, ClObject};
use libimg::validate::{self, Parent};
use libimg::{format, Format, Limits, Shape};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// What makes a memory object an image.
pub struct ImagePart {
    pub mux: mux::ImageRef,
    pub shape: Shape,
    /// The buffer it is made over (`mem_object`), kept alive by it.
    pub buffer: Option<Arc<ClObject<Mem>>>,
}

impl ImagePart {
    /// The row and slice pitch of the image's bytes as the spec reports
    /// them (`CL_IMAGE_ROW_PITCH`, `clEnqueueMapImage`): a slice pitch for
    /// arrays and 3D images only.
    pub fn pitches(&self) -> (usize, usize) {
        let layout = self.mux.layout();
        let row_bytes = self.shape.width * self.shape.format.element_size();
        match self.shape.image_type {
            // `mux` keeps a 1D array's layers as rows.
            CL_MEM_OBJECT_IMAGE1D_ARRAY => (row_bytes, layout.row_pitch),
            CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
                (layout.row_pitch, layout.slice_pitch)
            }
            _ => (layout.row_pitch, 0),
        }
    }
}

/// The image limits every device of `ctx` has, or `CL_INVALID_OPERATION`
/// if one has no images.
pub fn limits(ctx: &Context) -> Result<Limits, cl_int> {
    let mut all: Option<Limits> = None;
    for d in &ctx.devices {
        let info = d.info();
        let i = info.images.ok_or(CL_INVALID_OPERATION)?;
        let l = Limits {
            image2d_max: i.max_2d,
            image3d_max: i.max_3d,
            max_buffer_size: i.max_buffer_texels,
            max_array_size: i.max_array_size,
            pitch_alignment: i.pitch_alignment as usize,
            base_address_alignment: i.base_address_alignment as usize,
            max_mem_alloc: info.max_mem_alloc_size,
        };
        all = Some(match all {
            None => l,
            Some(a) => Limits {
                image2d_max: [0, 1].map(|k| a.image2d_max[k].min(l.image2d_max[k])),
                image3d_max: [0, 1, 2].map(|k| a.image3d_max[k].min(l.image3d_max[k])),
                max_buffer_size: a.max_buffer_size.min(l.max_buffer_size),
                max_array_size: a.max_array_size.min(l.max_array_size),
                pitch_alignment: a.pitch_alignment.max(l.pitch_alignment),
                base_address_alignment: a.base_address_alignment.max(l.base_address_alignment),
                max_mem_alloc: a.max_mem_alloc.min(l.max_mem_alloc),
            },
        });
    }
    all.ok_or(CL_INVALID_OPERATION)
}

fn mux_kind(image_type: cl_mem_object_type) -> mux::ImageKind {
    match image_type {
        CL_MEM_OBJECT_IMAGE1D => mux::ImageKind::D1,
        CL_MEM_OBJECT_IMAGE1D_BUFFER => mux::ImageKind::D1Buffer,
        CL_MEM_OBJECT_IMAGE1D_ARRAY => mux::ImageKind::D1Array,
        CL_MEM_OBJECT_IMAGE2D => mux::ImageKind::D2,
        CL_MEM_OBJECT_IMAGE2D_ARRAY => mux::ImageKind::D2Array,
        _ => mux::ImageKind::D3,
    }
}

/// The `mux` description of `shape`; `laid_out` says its bytes have the
/// shape's pitches already (a host pointer's or a buffer's).
fn mux_desc(shape: &Shape, laid_out: bool) -> mux::ImageDesc {
    let kind = mux_kind(shape.image_type);
    let pitches = if !laid_out {
        [0, 0]
    } else {
        match kind {
            mux::ImageKind::D1 | mux::ImageKind::D1Buffer => [0, 0],
            // Layers are rows in `mux`.
            mux::ImageKind::D1Array => [shape.slice_pitch, 0],
            mux::ImageKind::D2 => [shape.row_pitch, 0],
            mux::ImageKind::D2Array | mux::ImageKind::D3 => [shape.row_pitch, shape.slice_pitch],
        }
    };
    mux::ImageDesc {
        kind,
        element_size: shape.format.element_size(),
        extent: [shape.width, shape.height, shape.depth],
        layers: shape.array_size,
        format: [shape.format.order, shape.format.data_type],
        pitches,
    }
}

/// Copies the texels of an image of `shape` laid out with its own pitches
/// at `src` into `dst`, laid out as `layout` says.
unsafe fn copy_in(shape: &Shape, src: *const u8, dst: *mut u8, layout: &mux::ImageLayout) {
    let desc = mux_desc(shape, true);
    let [w, rows, slices] = desc.addressable();
    let (src_row, src_slice) = match desc.kind {
        mux::ImageKind::D1Array => (shape.slice_pitch, 0),
        _ => (shape.row_pitch, shape.slice_pitch),
    };
    let bytes = w * desc.element_size;
    for z in 0..slices {
        for y in 0..rows {
            std::ptr::copy_nonoverlapping(
                src.add(z * src_slice + y * src_row),
                dst.add(z * layout.slice_pitch + y * layout.row_pitch),
                bytes,
            );
        }
    }
}

unsafe fn create(
    context: cl_context,
    properties: Vec<cl_mem_properties>,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
) -> Result<cl_mem, cl_int> {
    let ctx = object::get::<Context>(context)?;
    ensure(memory::valid_flags(flags), CL_INVALID_VALUE)?;
    let format = validate::check_format(format.as_ref())?;
    let limits = limits(&ctx)?;
    let desc = desc.as_ref();
    let over = match desc.map(|d| d.buffer).filter(|b| !b.is_null()) {
        Some(b) => {
            let m = object::get::<Mem>(b).map_err(|_| CL_INVALID_IMAGE_DESCRIPTOR)?;
            // An image from another image is not offered.
            ensure(m.image.is_none(), CL_INVALID_IMAGE_DESCRIPTOR)?;
            ensure(Arc::ptr_eq(&m.context, &ctx), CL_INVALID_IMAGE_DESCRIPTOR)?;
            Some(m)
        }
        None => None,
    };
    let parent = over.as_ref().map_or(Parent::None, |m| Parent::Buffer {
        size: m.size,
        address: m.buffer.device_address() as usize,
    });
    let shape = validate::check_desc(desc, format, !host_ptr.is_null(), parent, &limits)?;
    let flags = match &over {
        Some(m) => memory::inherit_flags(flags, m.flags)?,
        None => {
            let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
            ensure(wants_ptr != host_ptr.is_null(), CL_INVALID_HOST_PTR)?;
            flags
        }
    };
    ensure(
        format::is_supported(format, flags, shape.image_type),
        CL_IMAGE_FORMAT_NOT_SUPPORTED,
    )?;

    let device = &ctx.devices[0].mux;
    let in_place = over.is_some() || flags & CL_MEM_USE_HOST_PTR != 0;
    let desc = mux_desc(&shape, in_place);
    let layout = device
        .image_layout(&desc)
        .map_err(|_| CL_INVALID_IMAGE_SIZE)?;
    ensure(
        layout.size as u64 <= limits.max_mem_alloc,
        CL_INVALID_IMAGE_SIZE,
    )?;
    let (memory, offset) = match &over {
        Some(m) => (m.buffer.memory().clone(), m.buffer.offset()),
        None if flags & CL_MEM_USE_HOST_PTR != 0 => (
            device
                .memory_from_host(host_ptr as *mut u8, layout.size)
                .map_err(|_| CL_MEM_OBJECT_ALLOCATION_FAILURE)?,
            0,
        ),
        None => (
            device
                .allocate_memory(layout.size, layout.align)
                .map_err(|_| CL_MEM_OBJECT_ALLOCATION_FAILURE)?,
            0,
        ),
    };
    if flags & CL_MEM_COPY_HOST_PTR != 0 && over.is_none() {
        let p = memory
            .map(offset, layout.size)
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
        copy_in(&shape, host_ptr as *const u8, p, &layout);
        memory
            .unmap(offset, layout.size)
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
    }
    let image = device
        .create_image(memory.clone(), offset, desc)
        .map_err(|_| CL_OUT_OF_RESOURCES)?;
    let buffer = device
        .create_buffer(memory, offset, layout.size)
        .map_err(|_| CL_OUT_OF_RESOURCES)?;
    let host_ptr = if flags & CL_MEM_USE_HOST_PTR != 0 && over.is_none() {
        host_ptr as usize
    } else {
        0
    };
    Ok(memory::create_image_object(
        ctx,
        flags,
        host_ptr,
        buffer,
        ImagePart {
            mux: image,
            shape,
            buffer: over,
        },
        properties,
    ))
}

pub unsafe extern "C" fn create_image(
    context: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        create(context, Vec::new(), flags, format, desc, host_ptr)
    })
}

pub unsafe extern "C" fn create_image_with_properties(
    context: cl_context,
    properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        let given = memory::properties(properties)?;
        create(context, given, flags, format, desc, host_ptr)
    })
}

/// The OpenCL 1.0 forms of `clCreateImage`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn create_image_2d(
    context: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    width: usize,
    height: usize,
    row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE2D,
        image_width: width,
        image_height: height,
        image_depth: 1,
        image_array_size: 1,
        image_row_pitch: row_pitch,
        image_slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    };
    create_image(context, flags, format, &desc, host_ptr, errcode_ret)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn create_image_3d(
    context: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    width: usize,
    height: usize,
    depth: usize,
    row_pitch: usize,
    slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    let desc = cl_image_desc {
        image_type: CL_MEM_OBJECT_IMAGE3D,
        image_width: width,
        image_height: height,
        image_depth: depth,
        image_array_size: 1,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    };
    create_image(context, flags, format, &desc, host_ptr, errcode_ret)
}

const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

pub unsafe extern "C" fn get_supported_image_formats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    formats: *mut cl_image_format,
    num_formats: *mut cl_uint,
) -> cl_int {
    status(|| {
        let ctx = object::get::<Context>(context)?;
        // Only this query may name kernel read-and-write access.
        let query_flags = flags & !CL_MEM_KERNEL_READ_AND_WRITE;
        ensure(memory::valid_flags(query_flags), CL_INVALID_VALUE)?;
        ensure(IMAGE_TYPES.contains(&image_type), CL_INVALID_VALUE)?;
        ensure(num_entries != 0 || formats.is_null(), CL_INVALID_VALUE)?;
        let list: Vec<Format> = if limits(&ctx).is_ok() {
            format::supported(flags, image_type)
        } else {
            Vec::new()
        };
        if !formats.is_null() {
            for (i, f) in list.iter().take(num_entries as usize).enumerate() {
                *formats.add(i) = f.to_cl();
            }
        }
        if !num_formats.is_null() {
            *num_formats = list.len() as cl_uint;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn get_image_info(
    image: cl_mem,
    param_name: cl_image_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Mem>(image).and_then(|m| {
        let part = m.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)?;
        let s = &part.shape;
        let (row_pitch, slice_pitch) = part.pitches();
        let t = s.image_type;
        let is_array = matches!(t, CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY);
        let has_height = matches!(
            t,
            CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D
        );
        Ok(match param_name {
            CL_IMAGE_FORMAT => Info::value::<cl_image_format>(s.format.to_cl()),
            CL_IMAGE_ELEMENT_SIZE => Info::value::<usize>(s.format.element_size()),
            CL_IMAGE_ROW_PITCH => Info::value::<usize>(row_pitch),
            CL_IMAGE_SLICE_PITCH => Info::value::<usize>(slice_pitch),
            CL_IMAGE_WIDTH => Info::value::<usize>(s.width),
            CL_IMAGE_HEIGHT => Info::value::<usize>(if has_height { s.height } else { 0 }),
            CL_IMAGE_DEPTH => Info::value::<usize>(if t == CL_MEM_OBJECT_IMAGE3D {
                s.depth
            } else {
                0
            }),
            CL_IMAGE_ARRAY_SIZE => Info::value::<usize>(if is_array { s.array_size } else { 0 }),
            CL_IMAGE_BUFFER => Info::value::<cl_mem>(
                part.buffer
                    .as_ref()
                    .filter(|_| t == CL_MEM_OBJECT_IMAGE1D_BUFFER)
                    .map_or(std::ptr::null_mut(), object::handle),
            ),
            CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => Info::value::<cl_uint>(0),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}
