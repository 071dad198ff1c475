//! Loads and stores: one vector access where the lanes' addresses are
//! contiguous, a test at run time where they may turn out consecutive,
//! gathers and scatters otherwise; masked for the lanes running; a store
//! to one place made by the last lane.

use super::Gen;
use crate::analysis::shape::Shape;
use crate::types::{elements, is_lane_type, is_vector};
use crate::values::is_instruction;
use compiler::llvm::{self, cstr};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMStoreSizeOfType};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

impl Gen {
    /// Whether an access of `ty` through `ptr` is one contiguous vector.
    pub(super) unsafe fn contiguous(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> bool {
        let size = LLVMABISizeOfType(self.layout, ty);
        matches!(self.shape(ptr), Shape::Affine(s) if s as u64 == size)
            && LLVMStoreSizeOfType(self.layout, ty) == size
    }

    /// The type a vector of `vt` is accessed in memory as: itself, but for
    /// booleans, which a vector packs into bits where the work-items'
    /// scalar accesses take a byte each: bytes then.
    unsafe fn in_memory(&self, vt: LLVMTypeRef) -> LLVMTypeRef {
        let element = LLVMGetElementType(vt);
        if LLVMGetTypeKind(element) == LLVMTypeKind::LLVMIntegerTypeKind
            && LLVMGetIntTypeWidth(element) == 1
        {
            LLVMVectorType(LLVMInt8TypeInContext(self.ctx), elements(vt))
        } else {
            vt
        }
    }

    pub(super) unsafe fn load(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let ty = LLVMTypeOf(i);
        let value_type = self.vec_type(ty);
        let vt = self.in_memory(value_type);
        let ptr = LLVMGetOperand(i, 0);
        let align = LLVMGetAlignment(i);
        let name = cstr(&llvm::name(i));
        let lanes = self
            .lanes_of(i, false)
            .map(|m| self.spread(m, elements(ty)));
        if self.shape(ptr) == Shape::Affine(0) {
            // One place for every lane (and some lane is running).
            let l = LLVMBuildLoad2(self.b, ty, self.scalar_of(ptr), name.as_ptr());
            LLVMSetAlignment(l, align);
            copy_metadata(i, l);
            return self.splat(l);
        }
        // Each access made carries the load's metadata.
        let whole = |g: &Self, first: LLVMValueRef| {
            let l = match lanes {
                None => {
                    let l = LLVMBuildLoad2(g.b, vt, first, name.as_ptr());
                    LLVMSetAlignment(l, align);
                    l
                }
                Some(mask) => {
                    let mut args = [first, mask, LLVMGetPoison(vt)];
                    let ptr_ty = LLVMTypeOf(first);
                    let l = g.intrinsic("llvm.masked.load", &[vt, ptr_ty], &mut args);
                    g.set_param_align(l, 0, align);
                    l
                }
            };
            copy_metadata(i, l);
            l
        };
        let gather = |g: &Self| {
            let (ptrs, align) = g.element_ptrs(ptr, ty, align);
            let mask = lanes.unwrap_or_else(|| g.all_lanes(ty));
            let mut args = [ptrs, mask, LLVMGetPoison(vt)];
            let l = g.intrinsic("llvm.masked.gather", &[vt, LLVMTypeOf(ptrs)], &mut args);
            g.set_param_align(l, 0, align);
            copy_metadata(i, l);
            l
        };
        let l = if self.contiguous(ptr, ty) {
            let first = self.scalar_of(ptr);
            self.prefetch_ahead(i, first, LLVMABISizeOfType(self.layout, vt));
            whole(self, first)
        } else if self.may_be_consecutive(ptr, ty) {
            self.when_consecutive(ptr, ty, lanes.is_some(), whole, gather)
        } else {
            gather(self)
        };
        if vt == value_type {
            l
        } else {
            LLVMBuildTrunc(self.b, l, value_type, c"".as_ptr())
        }
    }

    pub(super) unsafe fn store(&mut self, i: LLVMValueRef) -> Result<(), String> {
        let value = LLVMGetOperand(i, 0);
        let ptr = LLVMGetOperand(i, 1);
        let ty = LLVMTypeOf(value);
        let align = LLVMGetAlignment(i);
        let uniform_value = self.shape(value) == Shape::Uniform;
        let guard = self.guard_masks.get(&LLVMGetInstructionParent(i)).copied();
        let lanes = self.lanes_of(i, true).map(|m| self.spread(m, elements(ty)));
        match self.shape(ptr) {
            Shape::Uniform | Shape::Affine(0) if lanes.is_some() => {
                let Some(mask) = guard.filter(|_| is_lane_type(ty)) else {
                    return Err("a store to one place in a divergent loop".into());
                };
                // A guarded block runs when some lane takes it: the last
                // of them stores.
                let v = if uniform_value {
                    self.scalar_of(value)
                } else {
                    let last = self.last_lane(mask);
                    LLVMBuildExtractElement(self.b, self.vector_of(value), last, c"last".as_ptr())
                };
                let s = LLVMBuildStore(self.b, v, self.scalar_of(ptr));
                LLVMSetAlignment(s, align);
                copy_metadata(i, s);
                return Ok(());
            }
            Shape::Uniform if uniform_value => {
                self.clone_scalar(i);
                return Ok(());
            }
            Shape::Uniform | Shape::Affine(0) => {
                // Every lane stores to one place: the last work-item's
                // value is the one left.
                let v = if uniform_value {
                    self.scalar_of(value)
                } else {
                    self.lane(self.vector_of(value), ty, self.width - 1)
                };
                let s = LLVMBuildStore(self.b, v, self.scalar_of(ptr));
                LLVMSetAlignment(s, align);
                copy_metadata(i, s);
                return Ok(());
            }
            _ => {}
        }
        let v = self.vector_of(value);
        let mem_type = self.in_memory(LLVMTypeOf(v));
        let v = if mem_type == LLVMTypeOf(v) {
            v
        } else {
            LLVMBuildZExt(self.b, v, mem_type, c"".as_ptr())
        };
        // Each access made carries the store's metadata.
        let whole = |g: &Self, first: LLVMValueRef| {
            let s = match lanes {
                None => {
                    let s = LLVMBuildStore(g.b, v, first);
                    LLVMSetAlignment(s, align);
                    s
                }
                Some(mask) => {
                    let mut args = [v, first, mask];
                    let types = [LLVMTypeOf(v), LLVMTypeOf(first)];
                    let s = g.intrinsic("llvm.masked.store", &types, &mut args);
                    g.set_param_align(s, 1, align);
                    s
                }
            };
            copy_metadata(i, s);
            s
        };
        let scatter = |g: &Self| {
            let (ptrs, align) = g.element_ptrs(ptr, ty, align);
            let mask = lanes.unwrap_or_else(|| g.all_lanes(ty));
            let mut args = [v, ptrs, mask];
            let types = [LLVMTypeOf(v), LLVMTypeOf(ptrs)];
            let s = g.intrinsic("llvm.masked.scatter", &types, &mut args);
            g.set_param_align(s, 1, align);
            copy_metadata(i, s);
            s
        };
        if self.contiguous(ptr, ty) {
            whole(self, self.scalar_of(ptr));
        } else if self.may_be_consecutive(ptr, ty) {
            self.when_consecutive(ptr, ty, lanes.is_some(), whole, scatter);
        } else {
            scatter(self);
        }
        Ok(())
    }

    /// The index of the last lane `mask` (of `width` lanes, some set)
    /// holds: `width - 1 - ctlz(mask as an integer)`.
    pub(super) unsafe fn last_lane(&self, mask: LLVMValueRef) -> LLVMValueRef {
        let bits = LLVMIntTypeInContext(self.ctx, self.width);
        let as_int = LLVMBuildBitCast(self.b, mask, bits, c"lanes".as_ptr());
        let mut args = [as_int, LLVMConstInt(LLVMInt1TypeInContext(self.ctx), 1, 0)];
        let zeros = self.intrinsic("llvm.ctlz", &[bits], &mut args);
        let top = LLVMConstInt(bits, (self.width - 1) as u64, 0);
        let last = LLVMBuildSub(self.b, top, zeros, c"last_lane".as_ptr());
        let i32t = LLVMInt32TypeInContext(self.ctx);
        LLVMBuildIntCast2(self.b, last, i32t, 0, c"".as_ptr())
    }

    /// Whether an access of `ty` through `ptr` is worth testing for
    /// consecutive addresses at run time: a computed index (a clamped
    /// neighbour, a table of indices, a counter a loop lanes leave apart
    /// keeps for them) often gives them. Masked, the test is of every
    /// lane, so the lanes in are at their places in one masked access.
    pub(super) unsafe fn may_be_consecutive(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> bool {
        self.shape(ptr) == Shape::Varying
            && !is_vector(ty)
            && LLVMStoreSizeOfType(self.layout, ty) == LLVMABISizeOfType(self.layout, ty)
            && !self.picked_by_bits(ptr)
    }

    /// Whether address `ptr` indexes by bits taken from a value that
    /// already differs between lanes in no regular way (`t[s & 255]`,
    /// `v[x >> 24]`: a table lookup, a hash's bucket): such lanes hardly
    /// ever pick consecutive elements, and the test costs a compare, a
    /// reduction and a branch per access. Bits of a value stepping from
    /// lane to lane (a ring buffer's `(i + k) & mask`) are still tested.
    unsafe fn picked_by_bits(&self, ptr: LLVMValueRef) -> bool {
        use llvm_sys::LLVMOpcode::*;
        let mut p = ptr;
        while !LLVMIsACastInst(p).is_null() {
            p = LLVMGetOperand(p, 0);
        }
        if LLVMIsAGetElementPtrInst(p).is_null() {
            return false;
        }
        let mut index = LLVMGetOperand(p, LLVMGetNumOperands(p) as u32 - 1);
        while !LLVMIsACastInst(index).is_null() || is_add_of_constant(index) {
            index = LLVMGetOperand(index, 0);
        }
        if LLVMIsAInstruction(index).is_null()
            || !matches!(
                LLVMGetInstructionOpcode(index),
                LLVMAnd | LLVMLShr | LLVMAShr
            )
            || LLVMIsAConstantInt(LLVMGetOperand(index, 1)).is_null()
        {
            return false;
        }
        self.shape(LLVMGetOperand(index, 0)) == Shape::Varying
    }

    /// `fast(first lane's address)` where the lanes' addresses `ptr` turn
    /// out to be consecutive elements of `ty`, `slow` where not; the
    /// result of whichever ran. A lane a mask leaves out (`masked`) may
    /// hold poison: the addresses are then tested themselves, fixed
    /// (frozen) once, so that where the test holds, the lanes in are at the
    /// first lane's address and after it, whatever the first lane held.
    pub(super) unsafe fn when_consecutive(
        &mut self,
        ptr: LLVMValueRef,
        ty: LLVMTypeRef,
        masked: bool,
        fast: impl FnOnce(&Self, LLVMValueRef) -> LLVMValueRef,
        slow: impl FnOnce(&Self) -> LLVMValueRef,
    ) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let lane0 = LLVMConstInt(i32t, 0, 0);
        let (first, all) = if masked {
            let ptrs = LLVMBuildFreeze(self.b, self.vector_of(ptr), c"".as_ptr());
            let first = LLVMBuildExtractElement(self.b, ptrs, lane0, c"first".as_ptr());
            let size = LLVMABISizeOfType(self.layout, ty);
            (first, self.consecutive_from(ptrs, size))
        } else {
            let ptrs = self.vector_of(ptr);
            let first = LLVMBuildExtractElement(self.b, ptrs, lane0, c"first".as_ptr());
            (first, self.consecutive(ptr, ty))
        };
        let fast_bb = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"consecutive".as_ptr());
        let slow_bb = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"scattered".as_ptr());
        let join = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"accessed".as_ptr());
        LLVMBuildCondBr(self.b, all, fast_bb, slow_bb);
        LLVMPositionBuilderAtEnd(self.b, fast_bb);
        let a = fast(self, first);
        LLVMBuildBr(self.b, join);
        LLVMPositionBuilderAtEnd(self.b, slow_bb);
        let b = slow(self);
        LLVMBuildBr(self.b, join);
        LLVMPositionBuilderAtEnd(self.b, join);
        let ty = LLVMTypeOf(a);
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind {
            return a;
        }
        let p = LLVMBuildPhi(self.b, ty, c"".as_ptr());
        let (mut vals, mut blocks) = ([a, b], [fast_bb, slow_bb]);
        LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        p
    }

    /// Whether the lanes of pointer `ptr` address consecutive elements of
    /// `ty`. The test is made on the varying part of the address: the
    /// index of a GEP from a uniform base, less what it adds uniformly, so
    /// that it does not depend on values inside a loop (`clamp(x + dx, 0,
    /// w - 1) + y * w` is tested on the clamp, which LLVM then hoists).
    pub(super) unsafe fn consecutive(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
        use LLVMOpcode::*;
        let size = LLVMABISizeOfType(self.layout, ty);
        let (mut v, mut step) = (ptr, size);
        if !LLVMIsAGetElementPtrInst(ptr).is_null()
            && LLVMGetNumOperands(ptr) == 2
            && self.shape(LLVMGetOperand(ptr, 0)) == Shape::Uniform
            && LLVMABISizeOfType(self.layout, LLVMGetGEPSourceElementType(ptr)) == size
        {
            // A 32-bit index that wraps between lanes is out of range for
            // the scalar kernel too.
            (v, step) = (LLVMGetOperand(ptr, 1), 1);
            while is_instruction(v) {
                let u = |k| self.shape(LLVMGetOperand(v, k)) == Shape::Uniform;
                v = match LLVMGetInstructionOpcode(v) {
                    LLVMSExt | LLVMZExt => LLVMGetOperand(v, 0),
                    LLVMAdd if u(1) => LLVMGetOperand(v, 0),
                    LLVMAdd if u(0) => LLVMGetOperand(v, 1),
                    _ => break,
                };
            }
        }
        self.consecutive_from(self.vector_of(v), step)
    }

    /// Whether `lanes` (integers or pointers) step by `step` (bytes, for
    /// pointers) from lane to lane.
    unsafe fn consecutive_from(&self, lanes: LLVMValueRef, step: u64) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let first = LLVMBuildExtractElement(self.b, lanes, LLVMConstInt(i32t, 0, 0), c"".as_ptr());
        let element = LLVMTypeOf(first);
        let pointer = LLVMGetTypeKind(element) == LLVMTypeKind::LLVMPointerTypeKind;
        let int = if pointer {
            LLVMInt64TypeInContext(self.ctx)
        } else {
            element
        };
        let mut steps: Vec<LLVMValueRef> = (0..self.width as u64)
            .map(|l| LLVMConstInt(int, l * step, 0))
            .collect();
        let steps = LLVMConstVector(steps.as_mut_ptr(), self.width);
        let want = if pointer {
            let mut idx = [steps];
            let i8t = LLVMInt8TypeInContext(self.ctx);
            LLVMBuildGEP2(
                self.b,
                i8t,
                self.splat(first),
                idx.as_mut_ptr(),
                1,
                c"".as_ptr(),
            )
        } else {
            LLVMBuildAdd(self.b, self.splat(first), steps, c"".as_ptr())
        };
        let eq = llvm_sys::LLVMIntPredicate::LLVMIntEQ;
        let same = LLVMBuildICmp(self.b, eq, lanes, want, c"".as_ptr());
        let mut args = [same];
        self.intrinsic("llvm.vector.reduce.and", &[LLVMTypeOf(same)], &mut args)
    }

    /// A mask of every element of every lane of a value of type `ty`.
    pub(super) unsafe fn all_lanes(&self, ty: LLVMTypeRef) -> LLVMValueRef {
        let i1 = LLVMInt1TypeInContext(self.ctx);
        LLVMConstAllOnes(LLVMVectorType(i1, elements(ty) * self.width))
    }

    /// The address of each element a gather or scatter of `ty` through
    /// `ptr` reaches, lane after lane, and the alignment each of them has.
    pub(super) unsafe fn element_ptrs(
        &self,
        ptr: LLVMValueRef,
        ty: LLVMTypeRef,
        align: u32,
    ) -> (LLVMValueRef, u32) {
        let ptrs = self.vector_of(ptr);
        if !is_vector(ty) {
            return (ptrs, align);
        }
        let k = elements(ty);
        let element = LLVMGetElementType(ty);
        let size = LLVMABISizeOfType(self.layout, element);
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let mut offsets: Vec<LLVMValueRef> = (0..self.width)
            .flat_map(|_| (0..k as u64).map(|e| LLVMConstInt(i64t, e * size, 0)))
            .collect();
        let offsets = LLVMConstVector(offsets.as_mut_ptr(), offsets.len() as u32);
        let mut idx = [offsets];
        let p = LLVMBuildGEP2(
            self.b,
            LLVMInt8TypeInContext(self.ctx),
            self.spread(ptrs, k),
            idx.as_mut_ptr(),
            1,
            c"element".as_ptr(),
        );
        (p, align.min(size as u32))
    }
}

/// The metadata of a memory access (TBAA, non-temporal hints) on its
/// vector form.
unsafe fn copy_metadata(from: LLVMValueRef, to: LLVMValueRef) {
    let mut n = 0;
    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(from, &mut n);
    for k in 0..n as u32 {
        let kind = LLVMValueMetadataEntriesGetKind(entries, k);
        let md = LLVMValueMetadataEntriesGetMetadata(entries, k);
        LLVMSetMetadata(
            to,
            kind,
            LLVMMetadataAsValue(LLVMGetTypeContext(LLVMTypeOf(to)), md),
        );
    }
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
}

/// `x + c`: a table's part of a larger table (`t[256 + (s >> 8 & 255)]`).
unsafe fn is_add_of_constant(v: LLVMValueRef) -> bool {
    !LLVMIsAInstruction(v).is_null()
        && LLVMGetInstructionOpcode(v) == llvm_sys::LLVMOpcode::LLVMAdd
        && !LLVMIsAConstantInt(LLVMGetOperand(v, 1)).is_null()
}
