//! Private arrays kept per lane (`analysis::private`): one array of
//! `width` times the bytes, element `e` of lane `l` at `(e * width + l) *
//! size`. A pointer into one is the array and a byte offset into a lane's
//! own (a scalar where every lane's is the same); its loads and stores
//! are one vector at a uniform offset, gathers and scatters otherwise,
//! masked as any access is.

use super::Gen;
use crate::analysis::shape::Shape;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMABISizeOfType;

/// A pointer into a private array kept per lane.
#[derive(Clone, Copy)]
pub(crate) struct PrivatePointer {
    /// The lanes' arrays, element by element.
    array: LLVMValueRef,
    /// The byte offset into a lane's array: an `i64`, or a vector of them.
    offset: LLVMValueRef,
    varying: bool,
    /// Bytes of an element.
    element: u64,
}

/// The alignment of the lanes' arrays, enough for a vector of any lane
/// type.
const ALIGN: u32 = 64;

impl Gen {
    /// The lanes' copies of private array `a`, in the vector function's
    /// entry block.
    pub(super) unsafe fn private_alloca(&mut self, a: LLVMValueRef) -> Result<(), String> {
        let Some(p) = crate::analysis::private::private_array(self.m, a) else {
            unreachable!("legality takes only private arrays it keeps per lane")
        };
        let bytes = p.bytes * self.width as u64;
        if bytes > crate::analysis::private::MOST_BYTES {
            return Err(format!(
                "a private array of {bytes} bytes for {} lanes",
                self.width
            ));
        }
        let i8t = LLVMInt8TypeInContext(self.ctx);
        let here = LLVMGetInsertBlock(self.b);
        let entry = LLVMGetEntryBasicBlock(self.v);
        let first = LLVMGetFirstInstruction(entry);
        if first.is_null() {
            LLVMPositionBuilderAtEnd(self.b, entry);
        } else {
            LLVMPositionBuilderBefore(self.b, first);
        }
        let array = LLVMBuildAlloca(self.b, LLVMArrayType2(i8t, bytes), c"lanes".as_ptr());
        LLVMSetAlignment(array, ALIGN);
        LLVMPositionBuilderAtEnd(self.b, here);
        let i64t = LLVMInt64TypeInContext(self.ctx);
        self.private.insert(
            a,
            PrivatePointer {
                array,
                offset: LLVMConstInt(i64t, 0, 0),
                varying: false,
                element: p.element,
            },
        );
        Ok(())
    }

    /// A GEP into a private array: its offset, the sum of each index times
    /// the bytes it steps over.
    pub(super) unsafe fn private_gep(&mut self, i: LLVMValueRef) -> bool {
        let Some(&base) = self.private.get(&LLVMGetOperand(i, 0)) else {
            return false;
        };
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let mut offset = base.offset;
        let mut varying = base.varying;
        let mut ty = LLVMGetGEPSourceElementType(i);
        for k in 1..LLVMGetNumOperands(i) as u32 {
            if k > 1 {
                ty = LLVMGetElementType(ty);
            }
            let step = LLVMConstInt(i64t, LLVMABISizeOfType(self.layout, ty), 0);
            let x = LLVMGetOperand(i, k);
            let x_varies = self.shape(x) != Shape::Uniform;
            let (x, step) = if x_varies {
                (self.vector_of(x), self.splat(step))
            } else {
                (self.scalar_of(x), step)
            };
            let x = if x_varies {
                LLVMBuildSExtOrBitCast(self.b, x, LLVMVectorType(i64t, self.width), c"".as_ptr())
            } else {
                LLVMBuildSExtOrBitCast(self.b, x, i64t, c"".as_ptr())
            };
            let bytes = LLVMBuildMul(self.b, x, step, c"".as_ptr());
            if x_varies && !varying {
                offset = self.splat(offset);
                varying = true;
            }
            let bytes = if varying && !x_varies {
                self.splat(bytes)
            } else {
                bytes
            };
            offset = LLVMBuildAdd(self.b, offset, bytes, c"private.offset".as_ptr());
        }
        self.private.insert(
            i,
            PrivatePointer {
                offset,
                varying,
                ..base
            },
        );
        true
    }

    /// Each lane's address of an element at `p`: one address (a scalar
    /// pointer, the first lane's, the others after it) where the offset
    /// is uniform.
    unsafe fn private_address(&self, p: PrivatePointer) -> LLVMValueRef {
        let i8t = LLVMInt8TypeInContext(self.ctx);
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let width = LLVMConstInt(i64t, self.width as u64, 0);
        let mut at = if p.varying {
            let lanes: Vec<LLVMValueRef> = (0..self.width as u64)
                .map(|l| LLVMConstInt(i64t, l * p.element, 0))
                .collect();
            let mut lanes = lanes;
            let lanes = LLVMConstVector(lanes.as_mut_ptr(), self.width);
            let spread = LLVMBuildMul(self.b, p.offset, self.splat(width), c"".as_ptr());
            LLVMBuildAdd(self.b, spread, lanes, c"".as_ptr())
        } else {
            LLVMBuildMul(self.b, p.offset, width, c"".as_ptr())
        };
        let base = if p.varying {
            self.splat(p.array)
        } else {
            p.array
        };
        let mut idx = [at];
        at = LLVMBuildGEP2(self.b, i8t, base, idx.as_mut_ptr(), 1, c"private".as_ptr());
        at
    }

    /// A load through a pointer into a private array, if `i` is one.
    pub(super) unsafe fn private_load(&mut self, i: LLVMValueRef) -> Option<LLVMValueRef> {
        let &p = self.private.get(&LLVMGetOperand(i, 0))?;
        let ty = LLVMTypeOf(i);
        let vt = self.vec_type(ty);
        let at = self.private_address(p);
        let lanes = self.lanes_of(i, false);
        let l = match (p.varying, lanes) {
            (false, None) => {
                let l = LLVMBuildLoad2(self.b, vt, at, c"".as_ptr());
                LLVMSetAlignment(l, self.private_align(i, p));
                l
            }
            (false, Some(mask)) => {
                let mut args = [at, mask, LLVMGetPoison(vt)];
                let l = self.intrinsic("llvm.masked.load", &[vt, LLVMTypeOf(at)], &mut args);
                self.set_param_align(l, 0, self.private_align(i, p));
                l
            }
            (true, lanes) => {
                // A lane some mask leaves out may hold any offset: it
                // reads nothing.
                let mask = lanes.unwrap_or_else(|| self.all_lanes(ty));
                let mut args = [at, mask, LLVMGetPoison(vt)];
                let l = self.intrinsic("llvm.masked.gather", &[vt, LLVMTypeOf(at)], &mut args);
                self.set_param_align(l, 0, p.element as u32);
                l
            }
        };
        Some(l)
    }

    /// A store through a pointer into a private array, if `i` is one.
    pub(super) unsafe fn private_store(&mut self, i: LLVMValueRef) -> bool {
        let Some(&p) = self.private.get(&LLVMGetOperand(i, 1)) else {
            return false;
        };
        let v = self.vector_of(LLVMGetOperand(i, 0));
        let at = self.private_address(p);
        let lanes = self.lanes_of(i, true);
        let types = [LLVMTypeOf(v), LLVMTypeOf(at)];
        match (p.varying, lanes) {
            (false, None) => {
                let s = LLVMBuildStore(self.b, v, at);
                LLVMSetAlignment(s, self.private_align(i, p));
            }
            (false, Some(mask)) => {
                let mut args = [v, at, mask];
                let s = self.intrinsic("llvm.masked.store", &types, &mut args);
                self.set_param_align(s, 1, self.private_align(i, p));
            }
            (true, lanes) => {
                let mask =
                    lanes.unwrap_or_else(|| self.all_lanes(LLVMTypeOf(LLVMGetOperand(i, 0))));
                let mut args = [v, at, mask];
                let s = self.intrinsic("llvm.masked.scatter", &types, &mut args);
                self.set_param_align(s, 1, p.element as u32);
            }
        }
        true
    }

    /// A `memset` of whole elements of a private array: the same bytes of
    /// every lane's array, one run of the lanes' arrays, at a uniform
    /// offset, for every lane.
    pub(super) unsafe fn private_fill(&mut self, i: LLVMValueRef) -> Result<(), String> {
        let p = self.private[&LLVMGetOperand(i, 0)];
        let value = LLVMGetOperand(i, 1);
        if p.varying || self.shape(value) != Shape::Uniform || self.lanes_of(i, true).is_some() {
            return Err("a fill of a private array that differs between lanes".into());
        }
        let length = crate::analysis::private::fill_length(i).expect("legality checked the fill");
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let bytes = LLVMConstInt(i64t, length * self.width as u64, 0);
        let at = self.private_address(p);
        LLVMBuildMemSet(self.b, at, self.scalar_of(value), bytes, p.element as u32);
        Ok(())
    }

    /// The alignment of a whole vector at a uniform offset: the scalar
    /// access's alignment (what its offset is a multiple of) times the
    /// lanes, at most the arrays'.
    unsafe fn private_align(&self, i: LLVMValueRef, p: PrivatePointer) -> u32 {
        let scalar = LLVMGetAlignment(i).max(1) as u64;
        (scalar.min(p.element) * self.width as u64).min(ALIGN as u64) as u32
    }
}
