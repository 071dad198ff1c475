//! SPIR-V types: what each is, its LLVM type, and the checks on them.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, cstr};
use crate::translator::Tr;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMABISizeOfType;
use rspirv::dr::Operand;
use rspirv::spirv::{AccessQualifier, Decoration, Dim, Op, StorageClass};

/// An image type's operands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImageInfo {
    pub sampled_type: Id,
    pub dim: Dim,
    pub depth: u32,
    pub arrayed: u32,
    pub ms: u32,
    pub access: AccessQualifier,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Void,
    Bool,
    Int(u32),
    Float(u32),
    Vector(Id, u32),
    Array(Id, u64),
    RuntimeArray(Id),
    Struct(Vec<Id>),
    Pointer(StorageClass, Id),
    /// Declared by OpTypeForwardPointer, not yet defined.
    ForwardPointer(StorageClass),
    Function(Id, Vec<Id>),
    Opaque(String),
    Event,
    Sampler,
    Image(ImageInfo),
    SampledImage(Id),
}

#[derive(Debug, Clone)]
pub(crate) struct Type {
    pub kind: Kind,
    pub llvm: LLVMTypeRef,
}

/// The address space Clang's fake map gives a storage class.
pub(crate) fn address_space(sc: StorageClass) -> Option<u32> {
    Some(match sc {
        StorageClass::Function | StorageClass::Private | StorageClass::Input => 0,
        StorageClass::CrossWorkgroup | StorageClass::Image => 1,
        StorageClass::UniformConstant => 2,
        StorageClass::Workgroup => 3,
        StorageClass::Generic => 4,
        _ => return None,
    })
}

/// The most bytes one object (variable, array type) may take.
pub(crate) const MAX_OBJECT_BYTES: u64 = 1 << 32;

impl Tr<'_> {
    pub fn ty(&self, id: Id) -> Result<&Type> {
        self.types
            .get(&id)
            .ok_or_else(|| self.fail(format!("%{id} is not a type")))
    }

    pub fn kind(&self, id: Id) -> Result<&Kind> {
        Ok(&self.ty(id)?.kind)
    }

    pub fn llty(&self, id: Id) -> Result<LLVMTypeRef> {
        Ok(self.ty(id)?.llvm)
    }

    /// Bytes of a sized type in memory.
    pub fn size_of(&self, id: Id) -> Result<u64> {
        let t = self.ty(id)?;
        if !self.is_sized(id) {
            return Err(self.fail(format!("%{id} has no size")));
        }
        // SAFETY: the data layout is the module's, the type a sized one of its context.
        Ok(unsafe { LLVMABISizeOfType(self.td, t.llvm) })
    }

    pub fn is_sized(&self, id: Id) -> bool {
        matches!(
            self.types.get(&id).map(|t| &t.kind),
            Some(
                Kind::Bool
                    | Kind::Int(_)
                    | Kind::Float(_)
                    | Kind::Vector(..)
                    | Kind::Array(..)
                    | Kind::Struct(_)
                    | Kind::Pointer(..)
                    | Kind::ForwardPointer(_)
                    | Kind::Event
                    | Kind::Sampler
                    | Kind::Image(_)
                    | Kind::SampledImage(_)
            )
        )
    }

    /// The element type of a vector, or the type itself.
    pub fn scalar_of(&self, id: Id) -> Result<Id> {
        Ok(match self.kind(id)? {
            Kind::Vector(e, _) => *e,
            _ => id,
        })
    }

    /// Components of a vector, 1 for a scalar.
    pub fn width_of(&self, id: Id) -> Result<u32> {
        Ok(match self.kind(id)? {
            Kind::Vector(_, n) => *n,
            _ => 1,
        })
    }

    pub fn int_bits(&self, id: Id) -> Option<u32> {
        match self.types.get(&id)?.kind {
            Kind::Int(w) => Some(w),
            Kind::Vector(e, _) => match self.types.get(&e)?.kind {
                Kind::Int(w) => Some(w),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn float_bits(&self, id: Id) -> Option<u32> {
        match self.types.get(&id)?.kind {
            Kind::Float(w) => Some(w),
            Kind::Vector(e, _) => match self.types.get(&e)?.kind {
                Kind::Float(w) => Some(w),
                _ => None,
            },
            _ => None,
        }
    }

    pub fn is_bool(&self, id: Id) -> bool {
        match self.types.get(&id).map(|t| &t.kind) {
            Some(Kind::Bool) => true,
            Some(Kind::Vector(e, _)) => {
                matches!(self.types.get(e).map(|t| &t.kind), Some(Kind::Bool))
            }
            _ => false,
        }
    }

    pub fn pointer(&self, id: Id) -> Option<(StorageClass, Id)> {
        match self.types.get(&id)?.kind {
            Kind::Pointer(sc, p) => Some((sc, p)),
            _ => None,
        }
    }

    /// Whether two types are the same: the same id, or (as a module may
    /// declare a non-aggregate type twice) the same structure.
    pub fn same(&self, a: Id, b: Id) -> bool {
        self.same_depth(a, b, 0)
    }

    fn same_depth(&self, a: Id, b: Id, depth: u32) -> bool {
        if a == b {
            return true;
        }
        if depth > 32 {
            return false;
        }
        let (Some(x), Some(y)) = (self.types.get(&a), self.types.get(&b)) else {
            return false;
        };
        let s = |p: Id, q: Id| self.same_depth(p, q, depth + 1);
        match (&x.kind, &y.kind) {
            (Kind::Vector(p, n), Kind::Vector(q, m)) => n == m && s(*p, *q),
            (Kind::Array(p, n), Kind::Array(q, m)) => n == m && s(*p, *q),
            (Kind::RuntimeArray(p), Kind::RuntimeArray(q)) => s(*p, *q),
            (Kind::Pointer(c, p), Kind::Pointer(d, q)) => c == d && s(*p, *q),
            (Kind::Function(r, ps), Kind::Function(t, qs)) => {
                s(*r, *t) && ps.len() == qs.len() && ps.iter().zip(qs).all(|(p, q)| s(*p, *q))
            }
            // Structs and opaque types are distinct by id.
            (Kind::Struct(_), _) | (Kind::Opaque(_), _) => false,
            (Kind::Image(i), Kind::Image(j)) => {
                i.dim == j.dim
                    && i.arrayed == j.arrayed
                    && i.depth == j.depth
                    && i.access == j.access
            }
            (p, q) => p == q,
        }
    }

    /// Defines the type an OpType* instruction declares.
    pub fn declare_type(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id().or_else(|_| inst.id(0))?;
        let ctx = self.ctx;
        // SAFETY: every type is made in the translator's context.
        let (kind, llvm) = unsafe {
            match inst.op() {
                Op::TypeVoid => (Kind::Void, ll::void(ctx)),
                Op::TypeBool => (Kind::Bool, ll::int(ctx, 1)),
                Op::TypeInt => {
                    let w = inst.literal(0)?;
                    if !matches!(w, 8 | 16 | 32 | 64) {
                        return Err(inst.err(format!("integers of {w} bits are not supported")));
                    }
                    (Kind::Int(w), ll::int(ctx, w))
                }
                Op::TypeFloat => {
                    let w = inst.literal(0)?;
                    if inst.len() > 1 {
                        return Err(inst.err("floating-point encodings are not supported"));
                    }
                    let t = match w {
                        16 => LLVMHalfTypeInContext(ctx),
                        32 => LLVMFloatTypeInContext(ctx),
                        64 => LLVMDoubleTypeInContext(ctx),
                        _ => return Err(inst.err(format!("floats of {w} bits are not supported"))),
                    };
                    (Kind::Float(w), t)
                }
                Op::TypeVector => {
                    let e = inst.id(0)?;
                    let n = inst.literal(1)?;
                    if !matches!(self.kind(e)?, Kind::Bool | Kind::Int(_) | Kind::Float(_)) {
                        return Err(inst.err("a vector's component type must be a scalar"));
                    }
                    if !matches!(n, 2 | 3 | 4 | 8 | 16) {
                        return Err(
                            inst.err(format!("vectors of {n} components are not supported"))
                        );
                    }
                    (Kind::Vector(e, n), LLVMVectorType(self.llty(e)?, n))
                }
                Op::TypeArray => {
                    let e = inst.id(0)?;
                    let len = self
                        .const_u64(inst.id(1)?)
                        .ok_or_else(|| inst.err("the length is not an integer constant"))?;
                    if len == 0 {
                        return Err(inst.err("an array's length must be at least 1"));
                    }
                    if !self.is_sized(e) {
                        return Err(inst.err("the element type has no size"));
                    }
                    let esize = self.size_of(e)?.max(1);
                    if len.saturating_mul(esize) > MAX_OBJECT_BYTES {
                        return Err(inst.err("the array is too large"));
                    }
                    (Kind::Array(e, len), LLVMArrayType2(self.llty(e)?, len))
                }
                Op::TypeRuntimeArray => {
                    let e = inst.id(0)?;
                    if !self.is_sized(e) {
                        return Err(inst.err("the element type has no size"));
                    }
                    (Kind::RuntimeArray(e), LLVMArrayType2(self.llty(e)?, 0))
                }
                Op::TypeStruct => {
                    let members = inst.ids(0)?;
                    let mut tys = Vec::new();
                    for &m in &members {
                        if !self.is_sized(m) {
                            return Err(inst.err(format!("member type %{m} has no size")));
                        }
                        tys.push(self.llty(m)?);
                    }
                    let name = self
                        .names
                        .get(&id)
                        .map(|n| format!("struct.{n}"))
                        .unwrap_or_else(|| "spirv.struct".into());
                    let name = cstr(&name);
                    let t = LLVMStructCreateNamed(ctx, name.as_ptr());
                    let packed = self.deco.has(id, Decoration::CPacked);
                    LLVMStructSetBody(t, tys.as_mut_ptr(), tys.len() as u32, packed as i32);
                    (Kind::Struct(members), t)
                }
                Op::TypeOpaque => {
                    let name = inst.string(0)?.to_string();
                    let c = cstr(&format!("opaque.{name}"));
                    (Kind::Opaque(name), LLVMStructCreateNamed(ctx, c.as_ptr()))
                }
                Op::TypeForwardPointer => {
                    let sc = storage_class(inst, 1)?;
                    let space = address_space(sc).ok_or_else(|| {
                        inst.err(format!("storage class {sc:?} is not supported"))
                    })?;
                    if self.types.contains_key(&id) {
                        return Err(inst.err(format!("%{id} is declared twice")));
                    }
                    self.new_type(id, Kind::ForwardPointer(sc), ll::ptr(ctx, space))?;
                    return Ok(());
                }
                Op::TypePointer => {
                    let sc = storage_class(inst, 0)?;
                    let pointee = inst.id(1)?;
                    self.ty(pointee)?;
                    let space = address_space(sc).ok_or_else(|| {
                        inst.err(format!("storage class {sc:?} is not supported"))
                    })?;
                    if let Some(t) = self.types.get(&id) {
                        if t.kind != Kind::ForwardPointer(sc) {
                            return Err(inst.err(format!("%{id} is declared twice")));
                        }
                        self.types.remove(&id);
                    }
                    (Kind::Pointer(sc, pointee), ll::ptr(ctx, space))
                }
                Op::TypeFunction => {
                    let ret = inst.id(0)?;
                    let params = inst.ids(1)?;
                    let r = self.ty(ret)?;
                    if !matches!(r.kind, Kind::Void) && !self.is_sized(ret) {
                        return Err(inst.err("the return type has no value"));
                    }
                    let rt = r.llvm;
                    let mut ps = Vec::new();
                    for &p in &params {
                        if !self.is_sized(p) {
                            return Err(inst.err(format!("parameter type %{p} has no value")));
                        }
                        ps.push(self.llty(p)?);
                    }
                    let t = LLVMFunctionType(rt, ps.as_mut_ptr(), ps.len() as u32, 0);
                    (Kind::Function(ret, params), t)
                }
                Op::TypeEvent => (Kind::Event, ll::ptr(ctx, 0)),
                Op::TypeSampler => (Kind::Sampler, ll::ptr(ctx, 2)),
                Op::TypeImage => {
                    let info = self.image_info(inst)?;
                    (Kind::Image(info), ll::ptr(ctx, 1))
                }
                Op::TypeSampledImage => {
                    let image = inst.id(0)?;
                    if !matches!(self.kind(image)?, Kind::Image(_)) {
                        return Err(inst.err("the operand is not an image type"));
                    }
                    let mut fields = [ll::ptr(ctx, 1), ll::ptr(ctx, 2)];
                    (
                        Kind::SampledImage(image),
                        LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), 2, 0),
                    )
                }
                Op::TypeDeviceEvent
                | Op::TypeReserveId
                | Op::TypeQueue
                | Op::TypePipe
                | Op::TypePipeStorage
                | Op::TypeNamedBarrier => {
                    return Err(
                        inst.err("device-side enqueue, pipes and named barriers are not supported")
                    )
                }
                _ => return Err(inst.err("this type is not supported")),
            }
        };
        self.new_type(id, kind, llvm)
    }

    fn new_type(&mut self, id: Id, kind: Kind, llvm: LLVMTypeRef) -> Result<()> {
        self.claim(id)?;
        self.types.insert(id, Type { kind, llvm });
        Ok(())
    }

    fn image_info(&self, inst: &Inst) -> Result<ImageInfo> {
        let sampled_type = inst.id(0)?;
        if !matches!(
            self.kind(sampled_type)?,
            Kind::Void | Kind::Int(_) | Kind::Float(_)
        ) {
            return Err(inst.err("the sampled type is not void, an integer or a float"));
        }
        let dim = match inst.get(1) {
            Some(Operand::Dim(d)) => *d,
            _ => return Err(inst.err("the dimensionality is missing")),
        };
        if !matches!(dim, Dim::Dim1D | Dim::Dim2D | Dim::Dim3D | Dim::DimBuffer) {
            return Err(inst.err(format!("{dim:?} images are not supported")));
        }
        let access = match inst.get(7) {
            Some(Operand::AccessQualifier(a)) => *a,
            None => AccessQualifier::ReadOnly,
            _ => return Err(inst.err("the access qualifier is not one")),
        };
        let info = ImageInfo {
            sampled_type,
            dim,
            depth: inst.literal(2)?,
            arrayed: inst.literal(3)?,
            ms: inst.literal(4)?,
            access,
        };
        if info.ms != 0 {
            return Err(inst.err("multisampled images are not supported"));
        }
        Ok(info)
    }
}

fn storage_class(inst: &Inst, n: usize) -> Result<StorageClass> {
    match inst.get(n) {
        Some(Operand::StorageClass(sc)) => Ok(*sc),
        _ => Err(inst.err(format!("operand {n} is not a storage class"))),
    }
}

pub(crate) fn is_type_op(op: Op) -> bool {
    matches!(
        op,
        Op::TypeVoid
            | Op::TypeBool
            | Op::TypeInt
            | Op::TypeFloat
            | Op::TypeVector
            | Op::TypeMatrix
            | Op::TypeImage
            | Op::TypeSampler
            | Op::TypeSampledImage
            | Op::TypeArray
            | Op::TypeRuntimeArray
            | Op::TypeStruct
            | Op::TypeOpaque
            | Op::TypePointer
            | Op::TypeFunction
            | Op::TypeEvent
            | Op::TypeDeviceEvent
            | Op::TypeReserveId
            | Op::TypeQueue
            | Op::TypePipe
            | Op::TypeForwardPointer
            | Op::TypePipeStorage
            | Op::TypeNamedBarrier
    )
}
