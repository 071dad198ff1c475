//! A program's block of program-scope variables on one device: device
//! memory holding the initial contents `compiler::program_globals` computed,
//! made at the first launch on that device of a kernel that reaches them,
//! and kept with the build (a rebuild starts again from the initializers).

use compiler::program_globals::GlobalsImage;
use opencl_sys::*;

pub struct GlobalsBlock {
    memory: mux::MemoryRef,
}

impl GlobalsBlock {
    /// Device memory holding `image`, its addresses made real.
    pub fn new(device: &dyn mux::Device, image: &GlobalsImage) -> Result<GlobalsBlock, cl_int> {
        let size = image.size.max(1);
        // Every run and relocation inside the block, whatever wrote the image.
        let inside = |at: usize, len: usize| at.checked_add(len).is_some_and(|end| end <= size);
        if !image.data.iter().all(|(at, b)| inside(*at, b.len()))
            || !image.relocations.iter().all(|&(at, _)| inside(at, 8))
        {
            return Err(CL_INVALID_PROGRAM_EXECUTABLE);
        }
        let memory = device
            .allocate_memory(size, image.align.max(8))
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
        let base = memory.device_address();
        let p = memory.map(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
        // SAFETY: the mapping covers `size` bytes, and the image's runs and
        // relocations were checked to lie inside them.
        unsafe {
            std::ptr::write_bytes(p, 0, size);
            for (at, bytes) in &image.data {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.add(*at), bytes.len());
            }
            for &(at, target) in &image.relocations {
                std::ptr::write_unaligned(p.add(at).cast::<u64>(), base + target as u64);
            }
        }
        memory.unmap(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
        Ok(GlobalsBlock { memory })
    }

    /// The kernels' hidden argument: the block's device address.
    pub fn hidden_arg(&self) -> [u8; compiler::program_globals::GLOBALS_ARG_BYTES] {
        self.memory.device_address().to_ne_bytes()
    }
}
