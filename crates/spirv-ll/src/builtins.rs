//! Built-in variables (`GlobalInvocationId`, `SubgroupId`,
//! `SubgroupEqMask`...) as calls of the OpenCL C work-item and sub-group
//! functions, made where the variable is read.

use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::translator::{Tr, Val, Value};
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::spirv::BuiltIn;

/// How a built-in variable is read from its work-item function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Three integers, a call per dimension (`get_global_id(d)`).
    Dimensioned,
    /// One integer, one call (`get_work_dim()`).
    Scalar,
    /// A sub-group mask: four 32-bit words, one call returning a `uint4`
    /// (`get_sub_group_eq_mask()`).
    Mask,
}

/// The work-item function a built-in reads, and how.
fn function(var: BuiltIn) -> Option<(&'static str, Shape)> {
    use Shape::*;
    Some(match var {
        BuiltIn::GlobalInvocationId => ("get_global_id", Dimensioned),
        BuiltIn::LocalInvocationId => ("get_local_id", Dimensioned),
        BuiltIn::WorkgroupId => ("get_group_id", Dimensioned),
        BuiltIn::NumWorkgroups => ("get_num_groups", Dimensioned),
        BuiltIn::WorkgroupSize => ("get_local_size", Dimensioned),
        BuiltIn::EnqueuedWorkgroupSize => ("get_enqueued_local_size", Dimensioned),
        BuiltIn::GlobalSize => ("get_global_size", Dimensioned),
        BuiltIn::GlobalOffset => ("get_global_offset", Dimensioned),
        BuiltIn::WorkDim => ("get_work_dim", Scalar),
        BuiltIn::GlobalLinearId => ("get_global_linear_id", Scalar),
        BuiltIn::LocalInvocationIndex => ("get_local_linear_id", Scalar),
        BuiltIn::SubgroupSize => ("get_sub_group_size", Scalar),
        BuiltIn::SubgroupMaxSize => ("get_max_sub_group_size", Scalar),
        BuiltIn::NumSubgroups => ("get_num_sub_groups", Scalar),
        BuiltIn::NumEnqueuedSubgroups => ("get_enqueued_num_sub_groups", Scalar),
        BuiltIn::SubgroupId => ("get_sub_group_id", Scalar),
        BuiltIn::SubgroupLocalInvocationId => ("get_sub_group_local_id", Scalar),
        BuiltIn::SubgroupEqMask => ("get_sub_group_eq_mask", Mask),
        BuiltIn::SubgroupGeMask => ("get_sub_group_ge_mask", Mask),
        BuiltIn::SubgroupGtMask => ("get_sub_group_gt_mask", Mask),
        BuiltIn::SubgroupLeMask => ("get_sub_group_le_mask", Mask),
        BuiltIn::SubgroupLtMask => ("get_sub_group_lt_mask", Mask),
        _ => return None,
    })
}

/// Checks a built-in variable's type: three integers, one, or a mask's
/// four 32-bit ones.
pub(crate) fn check(tr: &Tr, var: BuiltIn, pointee: Id) -> std::result::Result<(), String> {
    let (_, shape) = function(var).ok_or("not supported on this device")?;
    let ok = match tr.kind(pointee).map_err(|e| e.reason)? {
        Kind::Vector(e, 3) if shape == Shape::Dimensioned => tr.int_bits(*e).is_some(),
        Kind::Vector(e, 4) if shape == Shape::Mask => tr.int_bits(*e) == Some(32),
        Kind::Int(_) => shape == Shape::Scalar,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err("the variable's type is not the built-in's".into())
    }
}

fn mangled(name: &str, shape: Shape) -> String {
    format!(
        "_Z{}{name}{}",
        name.len(),
        if shape == Shape::Dimensioned {
            "j"
        } else {
            "v"
        }
    )
}

/// How many components a built-in of this shape has.
fn components(shape: Shape) -> u32 {
    match shape {
        Shape::Dimensioned => 3,
        Shape::Mask => 4,
        Shape::Scalar => 1,
    }
}

impl Tr<'_> {
    /// One component (`dim`, an i32) of a built-in, as an integer of type `ty`.
    unsafe fn builtin_component(
        &mut self,
        var: BuiltIn,
        dim: Option<LLVMValueRef>,
        ty: Id,
    ) -> Result<LLVMValueRef> {
        let (name, shape) = function(var).ok_or_else(|| self.fail("unsupported built-in"))?;
        let r = match shape {
            Shape::Mask => {
                let d = dim.ok_or_else(|| self.fail("a mask's component without an index"))?;
                let mask = self.builtin_mask(name)?;
                LLVMBuildExtractElement(self.b, mask, d, NONAME)
            }
            _ => {
                let args: Vec<LLVMValueRef> = dim.into_iter().collect();
                self.call_library(&mangled(name, shape), &args, None)?
            }
        };
        Ok(LLVMBuildIntCast2(self.b, r, self.llty(ty)?, 0, NONAME))
    }

    /// A sub-group mask, the `uint4` its function returns.
    unsafe fn builtin_mask(&mut self, name: &str) -> Result<LLVMValueRef> {
        let uint4 = LLVMVectorType(LLVMInt32TypeInContext(self.ctx), 4);
        self.call_library(&mangled(name, Shape::Mask), &[], Some(uint4))
    }

    /// What a load of the whole built-in variable reads: the value, and for
    /// a vector of dimensions its components.
    pub fn load_builtin_parts(
        &mut self,
        var: BuiltIn,
        pointee: Id,
    ) -> Result<(LLVMValueRef, Vec<LLVMValueRef>)> {
        let (name, shape) = function(var).ok_or_else(|| self.fail("unsupported built-in"))?;
        // SAFETY: the builder is in a block of the function being translated.
        unsafe {
            match (shape, self.kind(pointee)?.clone()) {
                (Shape::Mask, _) => Ok((self.builtin_mask(name)?, Vec::new())),
                (Shape::Dimensioned, Kind::Vector(e, n)) => {
                    let mut v = LLVMGetPoison(self.llty(pointee)?);
                    let mut parts = Vec::new();
                    for i in 0..n {
                        let d = ll::i32c(self.ctx, i as u64);
                        let c = self.builtin_component(var, Some(d), e)?;
                        parts.push(c);
                        v = LLVMBuildInsertElement(self.b, v, c, d, NONAME);
                    }
                    Ok((v, parts))
                }
                _ => Ok((self.builtin_component(var, None, pointee)?, Vec::new())),
            }
        }
    }

    pub fn load_builtin(&mut self, var: BuiltIn, pointee: Id) -> Result<LLVMValueRef> {
        Ok(self.load_builtin_parts(var, pointee)?.0)
    }

    /// Drops the vectors of built-ins (and the calls) that only ever gave
    /// components: a kernel's widest value is what sets how many
    /// work-items run at once, and `<3 x i64>` is not the kernel's.
    pub fn drop_unused_builtin_vectors(&mut self) {
        let loads = std::mem::take(&mut self.builtin_loads);
        // SAFETY: instructions of the function just translated, erased only
        // once nothing uses them.
        unsafe {
            for (vector, parts) in loads {
                let mut chain = Vec::new();
                let mut v = vector;
                while !v.is_null() && !LLVMIsAInsertElementInst(v).is_null() {
                    chain.push(v);
                    v = LLVMGetOperand(v, 0);
                }
                for i in chain {
                    if LLVMGetFirstUse(i).is_null() {
                        LLVMInstructionEraseFromParent(i);
                    } else {
                        break;
                    }
                }
                for p in parts {
                    let mut v = p;
                    while !v.is_null()
                        && !LLVMIsAInstruction(v).is_null()
                        && LLVMGetFirstUse(v).is_null()
                    {
                        let next = if LLVMIsACallInst(v).is_null() {
                            LLVMGetOperand(v, 0)
                        } else {
                            std::ptr::null_mut()
                        };
                        LLVMInstructionEraseFromParent(v);
                        v = next;
                    }
                }
            }
        }
    }

    /// What a load through a pointer to one component reads.
    pub fn load_builtin_elem(
        &mut self,
        var: BuiltIn,
        index: LLVMValueRef,
        elem: Id,
    ) -> Result<LLVMValueRef> {
        // SAFETY: as above; the index is an integer of the context.
        unsafe {
            let i32t = LLVMInt32TypeInContext(self.ctx);
            let d = LLVMBuildIntCast2(self.b, index, i32t, 0, NONAME);
            self.builtin_component(var, Some(d), elem)
        }
    }

    /// A real pointer for a built-in variable (or a component of one) used
    /// other than by a load: a private copy, filled where it is used.
    pub fn materialize_builtin(&mut self, id: Id) -> Result<Val> {
        let (var, ptr_ty, index) = match self.lookup(id)? {
            Value::Builtin { var, ty } => (var, ty, None),
            Value::BuiltinElem { var, index, ty } => (var, ty, Some(index)),
            Value::Ll { v, ty } => return Ok(Val { v, ty }),
        };
        let pointee = match index {
            None => self.pointer(ptr_ty).map(|p| p.1),
            Some(_) => None,
        };
        let whole = match pointee {
            Some(p) => p,
            // A component: the whole variable is the vector of three
            // dimensions, or of a mask's four words.
            None => {
                let elem = self
                    .pointer(ptr_ty)
                    .map(|p| p.1)
                    .ok_or_else(|| self.fail("not a pointer"))?;
                let (_, shape) = function(var).ok_or_else(|| self.fail("unsupported built-in"))?;
                self.vector_type_of(elem, components(shape))?
            }
        };
        let value = self.load_builtin(var, whole)?;
        // SAFETY: the alloca goes in the function's entry block.
        unsafe {
            let slot = self.alloca(self.llty(whole)?)?;
            LLVMBuildStore(self.b, value, slot);
            let v = match index {
                None => slot,
                Some(i) => {
                    let mut idx = [ll::i64c(self.ctx, 0), i];
                    LLVMBuildGEP2(self.b, self.llty(whole)?, slot, idx.as_mut_ptr(), 2, NONAME)
                }
            };
            Ok(Val { v, ty: ptr_ty })
        }
    }
}
