//! Kernel reflection: names, arguments and attributes, read from the IR and
//! the `kernel_arg_*` metadata Clang attaches to each kernel.
#![cfg_attr(not(feature = "front-end"), allow(dead_code, unused_imports))]

#[cfg(feature = "front-end")]
use crate::llvm;
use crate::printf::{self, PrintfArg, PrintfCall};
#[cfg(feature = "front-end")]
use llvm_sys::core::*;
#[cfg(feature = "front-end")]
use llvm_sys::prelude::*;
#[cfg(feature = "front-end")]
use llvm_sys::target::*;
#[cfg(feature = "front-end")]
use llvm_sys::{LLVMCallConv, LLVMTypeKind};
use std::collections::HashSet;

/// OpenCL address spaces as Clang numbers them with `-ffake-address-space-map`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressSpace {
    Private = 0,
    Global = 1,
    Constant = 2,
    Local = 3,
    Generic = 4,
}

impl AddressSpace {
    fn from_number(n: u64) -> AddressSpace {
        match n {
            1 => AddressSpace::Global,
            2 => AddressSpace::Constant,
            3 => AddressSpace::Local,
            4 => AddressSpace::Generic,
            _ => AddressSpace::Private,
        }
    }
}

/// How an argument is passed, which decides what `clSetKernelArg` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgKind {
    /// A `__global` or `__constant` pointer: a `cl_mem` (or NULL).
    Buffer,
    /// A `__local` pointer: only a size.
    Local,
    /// A scalar or vector, passed by value.
    Value,
    /// A struct passed by value (in memory).
    ByVal,
    /// An image: a `cl_mem` image object of this type, passed as the
    /// address of its descriptor.
    Image(ImageType),
    /// A `sampler_t`: a `cl_sampler`, passed as its bits.
    Sampler,
}

/// The image types of OpenCL C, as a kernel argument declares them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImageType {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
    D2Depth,
    D2ArrayDepth,
}

impl ImageType {
    pub const ALL: [ImageType; 8] = [
        ImageType::D1,
        ImageType::D1Buffer,
        ImageType::D1Array,
        ImageType::D2,
        ImageType::D2Array,
        ImageType::D3,
        ImageType::D2Depth,
        ImageType::D2ArrayDepth,
    ];

    /// The type a kernel argument's base type name (`image2d_t`) names.
    pub fn from_type_name(name: &str) -> Option<ImageType> {
        Some(match name {
            "image1d_t" => ImageType::D1,
            "image1d_buffer_t" => ImageType::D1Buffer,
            "image1d_array_t" => ImageType::D1Array,
            "image2d_t" => ImageType::D2,
            "image2d_array_t" => ImageType::D2Array,
            "image3d_t" => ImageType::D3,
            "image2d_depth_t" => ImageType::D2Depth,
            "image2d_array_depth_t" => ImageType::D2ArrayDepth,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ArgInfo {
    pub kind: ArgKind,
    pub address_space: AddressSpace,
    /// Bytes `clSetKernelArg` must be given (for `Value` and `ByVal`).
    pub size: usize,
    pub align: usize,
    /// `none`, `read_only`, `write_only` or `read_write`.
    pub access: String,
    pub type_name: String,
    /// Space-separated `const`, `restrict`, `volatile`, `pipe`.
    pub type_qualifier: String,
    /// Present only with `-cl-kernel-arg-info`.
    pub name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelInfo {
    pub name: String,
    pub args: Vec<ArgInfo>,
    pub reqd_work_group_size: Option<[usize; 3]>,
    pub work_group_size_hint: Option<[usize; 3]>,
    pub vec_type_hint: Option<String>,
    /// Whether its work-groups must all have the enqueued size: the global
    /// size a multiple of the local size (OpenCL C 1.x, or
    /// `-cl-uniform-work-group-size`; Clang's function attribute says).
    pub uniform_work_group_size: bool,
    /// `intel_reqd_sub_group_size(n)`: its sub-group width, n.
    pub reqd_sub_group_size: Option<u32>,
    /// The number of sub-groups its work-groups have, as a SPIR-V
    /// module's `SubgroupsPerWorkgroup` says (`CL_KERNEL_COMPILE_NUM_SUB_GROUPS`).
    pub compile_num_sub_groups: Option<u32>,
    /// Whether the kernel reaches a work-group or a sub-group barrier (a
    /// sub-group collective is one): it is then cut into barrier regions.
    pub uses_barrier: bool,
    /// Bytes of its own `__local` variables.
    pub static_local_memory: usize,
    /// Bytes of private memory a work-item takes (`CL_KERNEL_PRIVATE_MEM_SIZE`):
    /// the arrays and structs the kernel and the functions it calls keep in
    /// memory rather than in registers.
    pub private_memory: usize,
    /// Whether it reaches a program-scope variable: it then gets the
    /// program's block of them as a hidden argument.
    pub uses_program_globals: bool,
    /// The `printf` calls it reaches, by id: a kernel with any gets the
    /// printf buffer as a hidden argument after its own.
    pub printf_calls: Vec<PrintfCall>,
}

/// The 32-bit values of one 64-byte cache line.
pub const LINE_LANES: usize = 16;

impl KernelInfo {
    /// Whether the kernel calls `printf`.
    pub fn uses_printf(&self) -> bool {
        !self.printf_calls.is_empty()
    }

    /// Its sub-group width on a device whose vectors hold `float_lanes`
    /// floats: the width it requires, else what one vector of 32-bit lanes
    /// holds, and at least [`LINE_LANES`]: the sub-group's consecutive
    /// floats then fill a cache line, so that a loop each work-item of it
    /// strides reads whole lines (not half of one, the other half read by
    /// the next sub-group long after).
    pub fn sub_group_width(&self, float_lanes: usize) -> usize {
        self.reqd_sub_group_size
            .map_or(float_lanes.max(LINE_LANES), |n| n as usize)
    }

    /// `CL_KERNEL_ATTRIBUTES`: the attributes as written in the source.
    pub fn attributes(&self) -> String {
        let mut parts = Vec::new();
        if let Some([x, y, z]) = self.reqd_work_group_size {
            parts.push(format!("reqd_work_group_size({x},{y},{z})"));
        }
        if let Some([x, y, z]) = self.work_group_size_hint {
            parts.push(format!("work_group_size_hint({x},{y},{z})"));
        }
        if let Some(t) = &self.vec_type_hint {
            parts.push(format!("vec_type_hint({t})"));
        }
        if let Some(n) = self.reqd_sub_group_size {
            parts.push(format!("intel_reqd_sub_group_size({n})"));
        }
        parts.join(" ")
    }
}

/// Whether `f` is an OpenCL kernel.
///
/// # Safety
/// `f` must be a live function.
#[cfg(feature = "front-end")]
pub unsafe fn is_kernel(f: LLVMValueRef) -> bool {
    LLVMGetFunctionCallConv(f) == LLVMCallConv::LLVMSPIRKERNELCallConv as u32
        && LLVMIsDeclaration(f) == 0
}

/// Reflects every kernel of `m` (what a build does: with no front end,
/// kernels are known from binaries alone).
#[cfg(feature = "front-end")]
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn reflect(m: LLVMModuleRef) -> Vec<KernelInfo> {
    let td = LLVMGetModuleDataLayout(m);
    let statics = local_variables(m, td);
    llvm::functions(m)
        .into_iter()
        .filter(|&f| is_kernel(f))
        .map(|f| reflect_kernel(f, td, &statics))
        .collect()
}

/// Sizes of `__local` globals, by the functions that use them.
#[cfg(feature = "front-end")]
unsafe fn local_variables(m: LLVMModuleRef, td: LLVMTargetDataRef) -> Vec<(LLVMValueRef, usize)> {
    llvm::globals(m)
        .into_iter()
        .filter(|&g| LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == AddressSpace::Local as u32)
        .map(|g| (g, LLVMABISizeOfType(td, LLVMGlobalGetValueType(g)) as usize))
        .collect()
}

#[cfg(feature = "front-end")]
unsafe fn strings(f: LLVMValueRef, kind: &str) -> Vec<String> {
    llvm::function_metadata(f, kind)
        .map(|ops| ops.iter().map(|&o| llvm::md_string(o)).collect())
        .unwrap_or_default()
}

#[cfg(feature = "front-end")]
unsafe fn ints(f: LLVMValueRef, kind: &str) -> Option<Vec<u64>> {
    llvm::function_metadata(f, kind).map(|ops| {
        ops.iter()
            .map(|&o| LLVMConstIntGetZExtValue(o) as u64)
            .collect()
    })
}

#[cfg(feature = "front-end")]
unsafe fn size3(f: LLVMValueRef, kind: &str) -> Option<[usize; 3]> {
    let v = ints(f, kind)?;
    (v.len() == 3).then(|| [v[0] as usize, v[1] as usize, v[2] as usize])
}

#[cfg(feature = "front-end")]
unsafe fn reflect_kernel(
    f: LLVMValueRef,
    td: LLVMTargetDataRef,
    statics: &[(LLVMValueRef, usize)],
) -> KernelInfo {
    let spaces = ints(f, "kernel_arg_addr_space").unwrap_or_default();
    let access = strings(f, "kernel_arg_access_qual");
    let types = strings(f, "kernel_arg_type");
    let base_types = strings(f, "kernel_arg_base_type");
    let quals = strings(f, "kernel_arg_type_qual");
    let names = strings(f, "kernel_arg_name");
    let byval_kind = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);

    let n = LLVMCountParams(f);
    let mut args = Vec::with_capacity(n as usize);
    for i in 0..n {
        let p = LLVMGetParam(f, i);
        let ty = LLVMTypeOf(p);
        let space = AddressSpace::from_number(spaces.get(i as usize).copied().unwrap_or(0));
        let byval = LLVMGetEnumAttributeAtIndex(f, i + 1, byval_kind);
        let base_type = base_types.get(i as usize).map_or("", |t| t.as_str());
        let image = ImageType::from_type_name(base_type);
        let (kind, size, align) = if let Some(t) = image {
            (ArgKind::Image(t), 8, 8)
        } else if base_type == "sampler_t" {
            (ArgKind::Sampler, 8, 8)
        } else if !byval.is_null() {
            let t = LLVMGetTypeAttributeValue(byval);
            (
                ArgKind::ByVal,
                LLVMABISizeOfType(td, t) as usize,
                LLVMABIAlignmentOfType(td, t) as usize,
            )
        } else if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind {
            let kind = if space == AddressSpace::Local {
                ArgKind::Local
            } else {
                ArgKind::Buffer
            };
            (kind, 8, 8)
        } else {
            (
                ArgKind::Value,
                LLVMABISizeOfType(td, ty) as usize,
                LLVMABIAlignmentOfType(td, ty) as usize,
            )
        };
        let get = |v: &Vec<String>| v.get(i as usize).cloned().unwrap_or_default();
        args.push(ArgInfo {
            kind,
            address_space: space,
            size,
            align,
            access: access
                .get(i as usize)
                .cloned()
                .unwrap_or_else(|| "none".into()),
            type_name: get(&types),
            type_qualifier: get(&quals),
            name: names.get(i as usize).cloned(),
        });
    }

    let reached = reachable(f);
    let reaches = |name: &str| reached.iter().any(|&g| llvm::name(g) == name);
    let sub_groups = reaches(builtins::mux::SUB_GROUP_BARRIER);
    let uses_barrier = sub_groups || reaches(builtins::mux::WORK_GROUP_BARRIER);
    // The collectives' scratch is the implementation's, but local memory
    // the kernel takes all the same.
    let mut scratch = 0;
    if reaches(builtins::mux::GET_WORK_GROUP_SCRATCH) {
        scratch += builtins::mux::WORK_GROUP_SCRATCH_BYTES;
    }
    // The work-group function writes the lanes' mask there at every
    // sub-group barrier.
    if sub_groups || reaches(builtins::mux::GET_SUB_GROUP_SCRATCH) {
        scratch += builtins::mux::SUB_GROUP_SCRATCH_BYTES;
    }
    let static_local_memory = statics
        .iter()
        .filter(|(g, _)| used_by(*g, &reached))
        .map(|(_, s)| *s)
        .sum::<usize>()
        + scratch;

    let mut printf_calls: Vec<PrintfCall> = reached
        .iter()
        .flat_map(|&g| llvm::instructions(g))
        .filter(|&i| printf::is_printf_call(i))
        .filter_map(|i| printf::describe(i, td))
        .collect();
    printf_calls.sort_by_key(|c| c.id);
    printf_calls.dedup_by_key(|c| c.id);

    KernelInfo {
        name: llvm::name(f),
        args,
        reqd_work_group_size: size3(f, "reqd_work_group_size"),
        work_group_size_hint: size3(f, "work_group_size_hint"),
        vec_type_hint: vec_type_hint(f),
        uniform_work_group_size: uniform_work_group_size(f),
        reqd_sub_group_size: ints(f, "intel_reqd_sub_group_size")
            .and_then(|v| v.first().map(|&n| n as u32)),
        compile_num_sub_groups: ints(f, "required_num_sub_groups")
            .and_then(|v| v.first().map(|&n| n as u32)),
        uses_barrier,
        static_local_memory,
        private_memory: private_memory(&reached, td),
        uses_program_globals: crate::program_globals::used_by(&reached),
        printf_calls,
    }
}

/// Bytes of the arrays and structs `functions` allocate: what stays in
/// memory once the optimizer has put scalars (which the front end gives
/// allocas too) in registers.
#[cfg(feature = "front-end")]
unsafe fn private_memory(functions: &[LLVMValueRef], td: LLVMTargetDataRef) -> usize {
    functions
        .iter()
        .flat_map(|&f| llvm::instructions(f))
        .filter(|&i| {
            !LLVMIsAAllocaInst(i).is_null()
                && matches!(
                    LLVMGetTypeKind(LLVMGetAllocatedType(i)),
                    LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMStructTypeKind
                )
        })
        .map(|i| {
            let count = LLVMGetOperand(i, 0);
            let n = if LLVMIsAConstantInt(count).is_null() {
                1
            } else {
                LLVMConstIntGetZExtValue(count) as usize
            };
            n * LLVMABISizeOfType(td, LLVMGetAllocatedType(i)) as usize
        })
        .sum()
}

/// `f` and every function it calls, directly or not.
#[cfg(feature = "front-end")]
unsafe fn reachable(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut seen = HashSet::new();
    let mut stack = vec![f];
    let mut out = Vec::new();
    while let Some(g) = stack.pop() {
        if !seen.insert(g as usize) {
            continue;
        }
        out.push(g);
        for i in llvm::instructions(g) {
            if let Some(callee) = llvm::called_function(i) {
                stack.push(callee);
            }
        }
    }
    out
}

/// Whether global `g` is used (possibly through constant expressions) by an
/// instruction in one of `functions`.
#[cfg(feature = "front-end")]
unsafe fn used_by(g: LLVMValueRef, functions: &[LLVMValueRef]) -> bool {
    let mut stack = vec![g];
    while let Some(v) = stack.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null() {
                let parent = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
                if functions.contains(&parent) {
                    return true;
                }
            } else if !LLVMIsAConstantExpr(user).is_null() {
                stack.push(user);
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Clang's `"uniform-work-group-size"` attribute; without it, as in
/// OpenCL C 1.x, work-groups are uniform.
#[cfg(feature = "front-end")]
unsafe fn uniform_work_group_size(f: LLVMValueRef) -> bool {
    const KEY: &str = "uniform-work-group-size";
    let a = LLVMGetStringAttributeAtIndex(
        f,
        llvm_sys::LLVMAttributeFunctionIndex,
        KEY.as_ptr().cast(),
        KEY.len() as u32,
    );
    if a.is_null() {
        return true;
    }
    let mut len = 0;
    let v = LLVMGetStringAttributeValue(a, &mut len);
    std::slice::from_raw_parts(v.cast::<u8>(), len as usize) != b"false"
}

#[cfg(feature = "front-end")]
unsafe fn vec_type_hint(f: LLVMValueRef) -> Option<String> {
    let ops = llvm::function_metadata(f, "vec_type_hint")?;
    let ty = LLVMTypeOf(*ops.first()?);
    let signed = ops
        .get(1)
        .map(|&s| LLVMConstIntGetZExtValue(s) != 0)
        .unwrap_or(true);
    let (elem, n) = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind {
        (LLVMGetElementType(ty), LLVMGetVectorSize(ty))
    } else {
        (ty, 1)
    };
    let base = match LLVMGetTypeKind(elem) {
        LLVMTypeKind::LLVMHalfTypeKind => "half",
        LLVMTypeKind::LLVMFloatTypeKind => "float",
        LLVMTypeKind::LLVMDoubleTypeKind => "double",
        LLVMTypeKind::LLVMIntegerTypeKind => match (LLVMGetIntTypeWidth(elem), signed) {
            (8, true) => "char",
            (8, false) => "uchar",
            (16, true) => "short",
            (16, false) => "ushort",
            (32, true) => "int",
            (32, false) => "uint",
            (64, true) => "long",
            _ => "ulong",
        },
        _ => return None,
    };
    Some(if n == 1 {
        base.to_string()
    } else {
        format!("{base}{n}")
    })
}

/// The reflection kept in the on-disk cache beside a program's bitcode, so
/// that a cached build need not read the bitcode back to know its kernels.
pub(crate) mod cached {
    use super::*;
    use crate::disk_cache::{Reader, Writer};

    fn string(w: &mut Writer, s: &str) {
        w.bytes(s.as_bytes());
    }

    fn read_string(r: &mut Reader) -> Option<String> {
        String::from_utf8(r.bytes()?.to_vec()).ok()
    }

    fn optional<T>(w: &mut Writer, v: &Option<T>, put: impl FnOnce(&mut Writer, &T)) {
        w.u64(v.is_some() as u64);
        if let Some(v) = v {
            put(w, v);
        }
    }

    fn read_optional<T>(
        r: &mut Reader,
        get: impl FnOnce(&mut Reader) -> Option<T>,
    ) -> Option<Option<T>> {
        match r.u64()? {
            0 => Some(None),
            1 => get(r).map(Some),
            _ => None,
        }
    }

    fn size3(w: &mut Writer, v: &[usize; 3]) {
        for &x in v {
            w.u64(x as u64);
        }
    }

    fn read_size3(r: &mut Reader) -> Option<[usize; 3]> {
        Some([r.u64()? as usize, r.u64()? as usize, r.u64()? as usize])
    }

    pub fn write(w: &mut Writer, kernels: &[KernelInfo]) {
        w.u64(kernels.len() as u64);
        for k in kernels {
            string(w, &k.name);
            w.u64(k.args.len() as u64);
            for a in &k.args {
                let kind = match a.kind {
                    ArgKind::Buffer => 0,
                    ArgKind::Local => 1,
                    ArgKind::Value => 2,
                    ArgKind::ByVal => 3,
                    ArgKind::Sampler => 4,
                    ArgKind::Image(t) => {
                        16 + ImageType::ALL.iter().position(|&u| u == t).unwrap() as u64
                    }
                };
                w.u64(kind)
                    .u64(a.address_space as u64)
                    .u64(a.size as u64)
                    .u64(a.align as u64);
                string(w, &a.access);
                string(w, &a.type_name);
                string(w, &a.type_qualifier);
                optional(w, &a.name, |w, n| string(w, n));
            }
            optional(w, &k.reqd_work_group_size, size3);
            optional(w, &k.work_group_size_hint, size3);
            optional(w, &k.vec_type_hint, |w, t| string(w, t));
            w.u64(k.uniform_work_group_size as u64);
            optional(w, &k.reqd_sub_group_size, |w, &n| {
                w.u64(n as u64);
            });
            optional(w, &k.compile_num_sub_groups, |w, &n| {
                w.u64(n as u64);
            });
            w.u64(k.uses_barrier as u64)
                .u64(k.static_local_memory as u64)
                .u64(k.private_memory as u64)
                .u64(k.uses_program_globals as u64);
            w.u64(k.printf_calls.len() as u64);
            for c in &k.printf_calls {
                w.u64(c.id as u64).bytes(&c.format).u64(c.args.len() as u64);
                for a in &c.args {
                    match a {
                        PrintfArg::Int(n) => w.u64(0).u64(*n as u64),
                        PrintfArg::Float(n) => w.u64(1).u64(*n as u64),
                        PrintfArg::Vector(n) => w.u64(2).u64(*n as u64),
                        PrintfArg::Pointer { literal: None } => w.u64(3),
                        PrintfArg::Pointer { literal: Some(s) } => w.u64(4).bytes(s),
                    };
                }
            }
        }
    }

    fn read_printf_calls(r: &mut Reader) -> Option<Vec<PrintfCall>> {
        let n = r.u64()?;
        let mut calls = Vec::new();
        for _ in 0..n {
            let id = u32::try_from(r.u64()?).ok()?;
            let format = r.bytes()?.to_vec();
            let nargs = r.u64()?;
            let mut args = Vec::new();
            for _ in 0..nargs {
                args.push(match r.u64()? {
                    0 => PrintfArg::Int(r.u64()? as usize),
                    1 => PrintfArg::Float(r.u64()? as usize),
                    2 => PrintfArg::Vector(r.u64()? as usize),
                    3 => PrintfArg::Pointer { literal: None },
                    4 => PrintfArg::Pointer {
                        literal: Some(r.bytes()?.to_vec()),
                    },
                    _ => return None,
                });
            }
            calls.push(PrintfCall { id, format, args });
        }
        Some(calls)
    }

    pub fn read(r: &mut Reader) -> Option<Vec<KernelInfo>> {
        let n = r.u64()?;
        let mut kernels = Vec::new();
        for _ in 0..n {
            let name = read_string(r)?;
            let nargs = r.u64()?;
            let mut args = Vec::new();
            for _ in 0..nargs {
                let kind = match r.u64()? {
                    0 => ArgKind::Buffer,
                    1 => ArgKind::Local,
                    2 => ArgKind::Value,
                    3 => ArgKind::ByVal,
                    4 => ArgKind::Sampler,
                    n @ 16..=23 => ArgKind::Image(ImageType::ALL[n as usize - 16]),
                    _ => return None,
                };
                args.push(ArgInfo {
                    kind,
                    address_space: AddressSpace::from_number(r.u64()?),
                    size: r.u64()? as usize,
                    align: r.u64()? as usize,
                    access: read_string(r)?,
                    type_name: read_string(r)?,
                    type_qualifier: read_string(r)?,
                    name: read_optional(r, read_string)?,
                });
            }
            kernels.push(KernelInfo {
                name,
                args,
                reqd_work_group_size: read_optional(r, read_size3)?,
                work_group_size_hint: read_optional(r, read_size3)?,
                vec_type_hint: read_optional(r, read_string)?,
                uniform_work_group_size: r.u64()? != 0,
                reqd_sub_group_size: read_optional(r, |r| r.u64().map(|n| n as u32))?,
                compile_num_sub_groups: read_optional(r, |r| r.u64().map(|n| n as u32))?,
                uses_barrier: r.u64()? != 0,
                static_local_memory: r.u64()? as usize,
                private_memory: r.u64()? as usize,
                uses_program_globals: r.u64()? != 0,
                printf_calls: read_printf_calls(r)?,
            });
        }
        Some(kernels)
    }
}
