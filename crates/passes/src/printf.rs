//! `printf` calls into writes to the printf buffer (seed 000). Each
//! work-group has a chunk of the buffer whose first 8 bytes are `length`
//! (bytes asked for so far, the header included) and `overflow` (bytes
//! asked for that did not fit). A call reserves its record with an atomic
//! add on `length`; if the record lies inside the chunk it writes its id
//! and its arguments there and returns 0, otherwise it adds its size to
//! `overflow` and returns -1. `length` only grows, so once a call has
//! overflowed every later one does too, and `length - overflow` is the
//! bytes of whole records the host reads.
//!
//! The chunk and its size come from two mux builtins that
//! [`crate::mux_builtins`] defines from the kernel's hidden argument.

use compiler::llvm::{self, cstr};
use compiler::printf::{call_id, is_printf_call, PrintfCall, ID_BYTES};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic;
use llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd;
use llvm_sys::LLVMIntPredicate::LLVMIntULE;

/// Address space of the buffer: `__global`.
const GLOBAL: u32 = 1;

/// Replaces every `printf` call in `f` (`calls` describes them by id);
/// returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns, `f` one of
/// its functions.
pub unsafe fn run(
    m: LLVMModuleRef,
    f: LLVMValueRef,
    calls: &[PrintfCall],
) -> Result<usize, String> {
    let printf_calls: Vec<_> = llvm::instructions(f)
        .into_iter()
        .filter(|&i| is_printf_call(i))
        .collect();
    if printf_calls.is_empty() {
        return Ok(0);
    }
    let ctx = LLVMGetModuleContext(m);
    let i8t = LLVMInt8TypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    let buffer_ty = LLVMPointerTypeInContext(ctx, GLOBAL);
    let chunk_fn = declare(m, builtins::mux::GET_PRINTF_BUFFER, buffer_ty);
    let size_fn = declare(m, builtins::mux::GET_PRINTF_BUFFER_SIZE, i32t);
    let byval = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
    let b = LLVMCreateBuilderInContext(ctx);
    let mut replaced = 0;
    let result = (|| {
        for call in printf_calls {
            let id = call_id(call).ok_or("a printf call has no id")?;
            let desc = calls
                .iter()
                .find(|c| c.id == id)
                .ok_or_else(|| format!("printf call {id} is not described"))?;
            let nargs = LLVMGetNumArgOperands(call) as usize;
            if nargs != desc.args.len() + 1 {
                return Err(format!("printf call {id} does not match its description"));
            }
            let block = LLVMGetInstructionParent(call);
            let done = kernel_ir::cfg::split_after(ctx, b, call, "printf.done");
            let write = LLVMInsertBasicBlockInContext(ctx, done, c"printf.write".as_ptr());
            let overflow = LLVMInsertBasicBlockInContext(ctx, done, c"printf.overflow".as_ptr());

            // Reserve the record.
            LLVMPositionBuilderAtEnd(b, block);
            let chunk = call0(b, chunk_fn, buffer_ty, "printf.chunk");
            let capacity = call0(b, size_fn, i32t, "printf.capacity");
            let len = LLVMConstInt(i32t, desc.record_bytes() as u64, 0);
            let start = LLVMBuildAtomicRMW(
                b,
                LLVMAtomicRMWBinOpAdd,
                chunk,
                len,
                LLVMAtomicOrderingMonotonic,
                0,
            );
            let small = LLVMBuildICmp(b, LLVMIntULE, len, capacity, c"".as_ptr());
            let room = LLVMBuildSub(b, capacity, len, c"printf.room".as_ptr());
            let inside = LLVMBuildICmp(b, LLVMIntULE, start, room, c"".as_ptr());
            let fits = LLVMBuildAnd(b, small, inside, c"printf.fits".as_ptr());
            LLVMBuildCondBr(b, fits, write, overflow);

            // It fits: the id, then each argument's bytes.
            LLVMPositionBuilderAtEnd(b, write);
            let start64 = LLVMBuildZExt(b, start, i64t, c"".as_ptr());
            let record = gep(b, i8t, chunk, start64, "printf.record");
            let s = LLVMBuildStore(b, LLVMConstInt(i32t, id as u64, 0), record);
            LLVMSetAlignment(s, 1);
            let mut at = ID_BYTES as u64;
            for (k, arg) in desc.args.iter().enumerate() {
                let index = k as u32 + 1;
                let v = LLVMGetOperand(call, index);
                let to = gep(b, i8t, record, LLVMConstInt(i64t, at, 0), "printf.arg");
                let bytes = arg.packed_bytes() as u64;
                if !LLVMGetCallSiteEnumAttribute(call, index + 1, byval).is_null() {
                    // A wide vector the ABI passes as a pointer to a copy.
                    LLVMBuildMemCpy(b, to, 1, v, 1, LLVMConstInt(i64t, bytes, 0));
                } else {
                    let s = LLVMBuildStore(b, v, to);
                    LLVMSetAlignment(s, 1);
                }
                at += bytes;
            }
            LLVMBuildBr(b, done);

            // It does not: count the bytes that were not written.
            LLVMPositionBuilderAtEnd(b, overflow);
            let header = LLVMConstInt(i64t, 4, 0);
            let counter = gep(b, i8t, chunk, header, "printf.overflow.field");
            LLVMBuildAtomicRMW(
                b,
                LLVMAtomicRMWBinOpAdd,
                counter,
                len,
                LLVMAtomicOrderingMonotonic,
                0,
            );
            LLVMBuildBr(b, done);

            LLVMPositionBuilder(b, done, LLVMGetFirstInstruction(done));
            let ret = LLVMBuildPhi(b, i32t, c"printf.ret".as_ptr());
            let mut values = [LLVMConstInt(i32t, 0, 0), LLVMConstAllOnes(i32t)];
            let mut blocks = [write, overflow];
            LLVMAddIncoming(ret, values.as_mut_ptr(), blocks.as_mut_ptr(), 2);
            LLVMReplaceAllUsesWith(call, ret);
            LLVMInstructionEraseFromParent(call);
            replaced += 1;
        }
        Ok(replaced)
    })();
    LLVMDisposeBuilder(b);
    result
}

unsafe fn declare(m: LLVMModuleRef, name: &str, ret: LLVMTypeRef) -> LLVMValueRef {
    let n = cstr(name);
    let f = LLVMGetNamedFunction(m, n.as_ptr());
    if !f.is_null() {
        return f;
    }
    let ty = LLVMFunctionType(ret, std::ptr::null_mut(), 0, 0);
    LLVMAddFunction(m, n.as_ptr(), ty)
}

unsafe fn call0(b: LLVMBuilderRef, f: LLVMValueRef, ret: LLVMTypeRef, name: &str) -> LLVMValueRef {
    let ty = LLVMFunctionType(ret, std::ptr::null_mut(), 0, 0);
    LLVMBuildCall2(b, ty, f, std::ptr::null_mut(), 0, cstr(name).as_ptr())
}

unsafe fn gep(
    b: LLVMBuilderRef,
    i8t: LLVMTypeRef,
    p: LLVMValueRef,
    offset: LLVMValueRef,
    name: &str,
) -> LLVMValueRef {
    let mut idx = [offset];
    LLVMBuildInBoundsGEP2(b, i8t, p, idx.as_mut_ptr(), 1, cstr(name).as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use compiler::PrintfArg;
    use kernel_ir::test_support::Ir;

    const KERNEL: &str = r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
@.fmt = private unnamed_addr addrspace(2) constant [11 x i8] c"%d %v8hlf\0A\00"
declare i32 @printf(ptr addrspace(2), ...)
define void @k(i32 %x, ptr %v, ptr addrspace(1) %out) {
entry:
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @.fmt, i32 %x, ptr byval(<8 x float>) align 32 %v), !ferrocl.printf.id !0
  store i32 %r, ptr addrspace(1) %out
  ret void
}
!0 = !{i32 7}
"#;

    fn described() -> Vec<PrintfCall> {
        vec![PrintfCall {
            id: 7,
            format: b"%d %v8hlf\n".to_vec(),
            args: vec![PrintfArg::Int(4), PrintfArg::Vector(32)],
        }]
    }

    #[test]
    fn a_call_reserves_its_record_and_writes_its_arguments() {
        let ir = Ir::parse(KERNEL);
        let n = unsafe { run(ir.m, ir.function("k"), &described()) }.unwrap();
        assert_eq!(n, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        assert!(
            !text.contains("call i32 (ptr addrspace(2), ...) @printf"),
            "{text}"
        );
        // The record is 4 + 4 + 32 bytes, reserved by one atomic add.
        assert!(
            text.contains("atomicrmw add ptr addrspace(1) %printf.chunk, i32 40 monotonic"),
            "{text}"
        );
        assert!(
            text.contains("call ptr addrspace(1) @__mux_get_printf_buffer()"),
            "{text}"
        );
        assert!(
            text.contains("call i32 @__mux_get_printf_buffer_size()"),
            "{text}"
        );
        // The id first, then the int, then the vector copied from its byval copy.
        assert!(
            text.contains("store i32 7, ptr addrspace(1) %printf.record, align 1"),
            "{text}"
        );
        assert!(
            text.contains("store i32 %x, ptr addrspace(1) %printf.arg, align 1"),
            "{text}"
        );
        assert!(
            text.contains("getelementptr inbounds i8, ptr addrspace(1) %printf.record, i64 8"),
            "{text}"
        );
        assert!(text.contains("@llvm.memcpy.p1.p0.i64(ptr addrspace(1) align 1 %printf.arg1, ptr align 1 %v, i64 32"), "{text}");
        // Overflow counts the bytes at offset 4 and returns -1; success 0.
        assert!(text.contains("%printf.overflow.field = getelementptr inbounds i8, ptr addrspace(1) %printf.chunk, i64 4"), "{text}");
        assert!(
            text.contains("phi i32 [ 0, %printf.write ], [ -1, %printf.overflow ]"),
            "{text}"
        );
        assert!(
            text.contains("store i32 %printf.ret, ptr addrspace(1) %out"),
            "{text}"
        );
    }

    #[test]
    fn an_undescribed_call_is_an_error() {
        let ir = Ir::parse(KERNEL);
        let e = unsafe { run(ir.m, ir.function("k"), &[]) }.unwrap_err();
        assert!(e.contains("not described"), "{e}");
    }

    #[test]
    fn a_function_without_printf_is_unchanged() {
        let ir = Ir::parse(
            r#"
define void @k(ptr addrspace(1) %out) {
  store i32 1, ptr addrspace(1) %out
  ret void
}
"#,
        );
        let before = ir.text();
        assert_eq!(unsafe { run(ir.m, ir.function("k"), &[]) }.unwrap(), 0);
        assert_eq!(ir.text(), before);
    }
}
