//! Vector variants of the builtins that stay calls ([`builtins::vector_calls`]):
//! the loop vectorizer widens a call to `sin(float)` into a call to a
//! function of its own ABI, `<16 x float> (<16 x float>)` (the same for
//! double), when the call names one in its `vector-function-abi-variant`
//! attribute (read from the called function when the call has none). The library's vector forms take
//! wide vectors in memory (the baseline x86-64 ABI it is compiled for), so
//! each variant is a small function around one of them, which the inlining
//! of the work-group compiler then fills with the vector body.
//!
//! The variants are referenced by name only, so they sit in
//! `llvm.compiler.used` until the optimizer has run ([`release`]).

use crate::llvm::{self, cstr};
use builtins::vector_calls::{self, WIDTHS};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAttributeFunctionIndex, LLVMLinkage, LLVMTypeKind};

/// The attribute LLVM reads the variants from.
pub const ATTRIBUTE: &str = "vector-function-abi-variant";

/// The attribute of a value form naming its forms over several work-items
/// (`_ZGV_LLVM_N2v_<form>(<form twice as wide>)`), for `vecz`: LLVM's loop
/// vectorizer, which widens scalars only, must not read them.
pub const WIDER: &str = "ferrocl-wider-forms";

const USED: &str = "llvm.compiler.used";

/// The name of the variant of `scalar` (a mangled name) at `width`: the
/// vector function ABI's own name for it.
fn variant_name(scalar: &str, width: u32) -> String {
    format!("_ZGV_LLVM_N{width}v_{scalar}")
}

/// The LLVM element type of a mangled type letter ('f' or 'd'), and its
/// size in bytes.
unsafe fn element(ctx: LLVMContextRef, ty: char) -> (LLVMTypeRef, u32) {
    if ty == 'd' {
        (LLVMDoubleTypeInContext(ctx), 8)
    } else {
        (LLVMFloatTypeInContext(ctx), 4)
    }
}

unsafe fn function(m: LLVMModuleRef, name: &str) -> Option<LLVMValueRef> {
    let f = LLVMGetNamedFunction(m, cstr(name).as_ptr());
    (!f.is_null()).then_some(f)
}

/// Declares the vector forms of each of those builtins that `m` calls
/// (itself or through another builtin), where `m` lacks them. True if any
/// was declared: linking the library then brings them in with the rest.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn declare_vector_forms(m: LLVMModuleRef) -> bool {
    let ctx = LLVMGetModuleContext(m);
    let ptr = LLVMPointerTypeInContext(ctx, 0);
    let mut needed: Vec<(&str, char, u32)> = Vec::new();
    for f in llvm::functions(m) {
        for (name, ty, width) in vector_calls::needed_by(&llvm::name(f)) {
            let forms = vector_calls::forms_needed(width);
            needed.extend(forms.into_iter().map(|w| (name, ty, w)));
        }
    }
    needed.sort_unstable();
    needed.dedup();
    let mut declared = false;
    for (name, ty, w) in needed {
        let (elem, size) = element(ctx, ty);
        let vname = vector_calls::vector(name, w, ty);
        if function(m, &vname).is_some() {
            continue;
        }
        // As the library defines it (the x86-64 ABI): vectors over 16
        // bytes in memory, of 8 bytes (`float2`) as a double.
        let vec = LLVMVectorType(elem, w);
        let double = LLVMDoubleTypeInContext(ctx);
        let (param, ret) = match w * size {
            8 => (double, double),
            n if n > 16 => (ptr, vec),
            _ => (vec, vec),
        };
        let mut params = [param];
        let ty = LLVMFunctionType(ret, params.as_mut_ptr(), 1, 0);
        LLVMAddFunction(m, cstr(&vname).as_ptr(), ty);
        declared = true;
    }
    declared
}

/// Defines the variants of each of those builtins that `m` defines, names
/// them in the scalar function's attribute, and keeps them in
/// `llvm.compiler.used`. The variant of width `w` is also the library's
/// `w`-wide form with its vector passed in a register (its value form):
/// the program's calls of the library's forms become calls of these, and
/// each names the wider ones in [`WIDER`], for `vecz` to widen a call of a
/// work-item's `float8` into one of `float16` across two work-items.
///
/// # Safety
/// `m` must be a live module, linked with the library.
pub unsafe fn define(m: LLVMModuleRef) -> Result<(), String> {
    let ctx = LLVMGetModuleContext(m);
    let builder = LLVMCreateBuilderInContext(ctx);
    let mut used = Vec::new();
    let mut result = Ok(());
    let defined = |name: &str| function(m, name).filter(|&f| LLVMIsDeclaration(f) == 0);
    'names: for (name, ty) in vector_calls::all() {
        let (elem, _) = element(ctx, ty);
        let scalar = vector_calls::scalar(name, ty);
        let scalar_fn = defined(&scalar);
        // The forms `declare_vector_forms` asked for: those the program's
        // calls may become.
        let wanted: Vec<u32> = WIDTHS
            .iter()
            .copied()
            .filter(|&w| function(m, &vector_calls::vector(name, w, ty)).is_some())
            .collect();
        if scalar_fn.is_none() && wanted.is_empty() {
            continue;
        }
        let mut mappings = Vec::new();
        let mut forms = Vec::new();
        let scalar_widths = vector_calls::SCALAR_WIDTHS
            .iter()
            .filter(|_| scalar_fn.is_some());
        let mut widths: Vec<u32> = wanted
            .iter()
            .copied()
            .chain(scalar_widths.copied())
            .collect();
        widths.sort_unstable();
        widths.dedup();
        for w in widths {
            let vname = vector_calls::vector(name, w, ty);
            let Some(lib) = defined(&vname) else {
                result = Err(format!("the library lacks {vname}"));
                break 'names;
            };
            let variant = variant_name(&scalar, w);
            let vec = LLVMVectorType(elem, w);
            let mut params = [vec];
            let ty = LLVMFunctionType(vec, params.as_mut_ptr(), 1, 0);
            let f = LLVMAddFunction(m, cstr(&variant).as_ptr(), ty);
            LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
            let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
            LLVMPositionBuilderAtEnd(builder, entry);
            // Lanes the loop masks off come as poison, and the library's
            // form branches on every lane (its rare path): frozen, they
            // are some value, and the branch is defined.
            let x = LLVMBuildFreeze(builder, LLVMGetParam(f, 0), c"lanes".as_ptr());
            let call = call_library_form(builder, lib, x);
            LLVMBuildRet(builder, call);
            // The loop vectorizer's widths: powers of two.
            if w.is_power_of_two() {
                mappings.push(format!("_ZGV_LLVM_N{w}v_{scalar}({variant})"));
            }
            used.push(f);
            forms.push((w, lib, f, variant));
        }
        if let Some(scalar_fn) = scalar_fn {
            crate::llvm::set_function_attribute(scalar_fn, ATTRIBUTE, &mappings.join(","));
        }
        let value_forms: Vec<LLVMValueRef> = forms.iter().map(|&(_, _, f, _)| f).collect();
        for &(w, lib, f, ref variant) in &forms {
            let mut wider = Vec::new();
            for (k, lanes, up) in vector_calls::over_work_items(w) {
                let Some((_, _, over, over_name)) = forms.iter().find(|(v, ..)| *v == up) else {
                    continue;
                };
                // The form itself, or one padded up to it.
                let name = if lanes == up {
                    over_name.clone()
                } else {
                    let name = variant_name(&scalar, lanes);
                    used.push(padded_form(m, builder, elem, lanes, up, *over, &name));
                    name
                };
                wider.push(format!("_ZGV_LLVM_N{k}v_{variant}({name})"));
            }
            if !wider.is_empty() {
                crate::llvm::set_function_attribute(f, WIDER, &wider.join(","));
            }
            to_value_form_calls(builder, lib, f, &value_forms);
        }
    }
    LLVMDisposeBuilder(builder);
    result?;
    if !used.is_empty() {
        let mut all = used_values(m);
        all.extend(used);
        set_used(m, &all);
    }
    Ok(())
}

/// The form of `lanes` lanes over value form `over` of `up` lanes (the
/// next power of two): the vector padded with zeros (on which the functions
/// take their common path), and the result's first `lanes` lanes.
unsafe fn padded_form(
    m: LLVMModuleRef,
    builder: LLVMBuilderRef,
    elem: LLVMTypeRef,
    lanes: u32,
    up: u32,
    over: LLVMValueRef,
    name: &str,
) -> LLVMValueRef {
    let ctx = LLVMGetModuleContext(m);
    let i32t = LLVMInt32TypeInContext(ctx);
    let vec = LLVMVectorType(elem, lanes);
    let mut params = [vec];
    let f = LLVMAddFunction(
        m,
        cstr(name).as_ptr(),
        LLVMFunctionType(vec, params.as_mut_ptr(), 1, 0),
    );
    LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
    let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
    LLVMPositionBuilderAtEnd(builder, entry);
    let mask = |n: u32| {
        let mut v: Vec<LLVMValueRef> = (0..n).map(|i| LLVMConstInt(i32t, i as u64, 0)).collect();
        LLVMConstVector(v.as_mut_ptr(), n)
    };
    // Lanes past `lanes` come from the zero vector.
    let padded = LLVMBuildShuffleVector(
        builder,
        LLVMGetParam(f, 0),
        LLVMConstNull(vec),
        mask(up),
        c"padded".as_ptr(),
    );
    let mut args = [padded];
    let wide = LLVMBuildCall2(
        builder,
        LLVMGlobalGetValueType(over),
        over,
        args.as_mut_ptr(),
        1,
        c"".as_ptr(),
    );
    let r = LLVMBuildShuffleVector(
        builder,
        wide,
        LLVMGetPoison(LLVMTypeOf(wide)),
        mask(lanes),
        c"".as_ptr(),
    );
    LLVMBuildRet(builder, r);
    f
}

/// A call of the library's form `lib` on vector `x`, as the library's
/// form takes it: the vector itself, a copy in memory (wider than 16
/// bytes), or its bits as a double (`float2`, whose result comes so too).
/// The builder is in an entry block.
unsafe fn call_library_form(
    builder: LLVMBuilderRef,
    lib: LLVMValueRef,
    x: LLVMValueRef,
) -> LLVMValueRef {
    let vec = LLVMTypeOf(x);
    let param = LLVMTypeOf(LLVMGetParam(lib, 0));
    let arg = if param == vec {
        x
    } else if LLVMGetTypeKind(param) == LLVMTypeKind::LLVMPointerTypeKind {
        // Aligned as the library's copy is (`byval`, the vector's size: a
        // `double16` on 128 bytes), and stored so.
        let m = LLVMGetGlobalParent(lib);
        let bytes =
            llvm_sys::target::LLVMABISizeOfType(llvm_sys::target::LLVMGetModuleDataLayout(m), vec);
        let align = bytes.next_power_of_two().clamp(16, 128) as u32;
        let slot = LLVMBuildAlloca(builder, vec, c"".as_ptr());
        LLVMSetAlignment(slot, align);
        let store = LLVMBuildStore(builder, x, slot);
        LLVMSetAlignment(store, align);
        slot
    } else {
        LLVMBuildBitCast(builder, x, param, c"".as_ptr())
    };
    let mut args = [arg];
    let lib_ty = LLVMGlobalGetValueType(lib);
    let call = LLVMBuildCall2(builder, lib_ty, lib, args.as_mut_ptr(), 1, c"".as_ptr());
    if LLVMTypeOf(call) == vec {
        call
    } else {
        LLVMBuildBitCast(builder, call, vec, c"".as_ptr())
    }
}

/// Every call of the library's form `lib` outside the value forms becomes
/// a call of its value form `f`: a vector in a register, which `vecz`
/// widens and which inlining and SROA make the library's body on values.
unsafe fn to_value_form_calls(
    builder: LLVMBuilderRef,
    lib: LLVMValueRef,
    f: LLVMValueRef,
    value_forms: &[LLVMValueRef],
) {
    let ty = LLVMGlobalGetValueType(f);
    let vec = LLVMTypeOf(LLVMGetParam(f, 0));
    let mut calls = Vec::new();
    let mut u = LLVMGetFirstUse(lib);
    while !u.is_null() {
        let call = LLVMGetUser(u);
        u = LLVMGetNextUse(u);
        // A call through another type (a module's own declaration of the
        // name) is left as it is.
        if LLVMIsACallInst(call).is_null()
            || LLVMGetCalledValue(call) != lib
            || LLVMGetCalledFunctionType(call) != LLVMGlobalGetValueType(lib)
            || value_forms.contains(&LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)))
        {
            continue;
        }
        calls.push(call);
    }
    for call in calls {
        LLVMPositionBuilderBefore(builder, call);
        let arg = LLVMGetOperand(call, 0);
        let x = if LLVMTypeOf(arg) == vec {
            arg
        } else if LLVMGetTypeKind(LLVMTypeOf(arg)) != LLVMTypeKind::LLVMPointerTypeKind {
            LLVMBuildBitCast(builder, arg, vec, c"".as_ptr())
        } else {
            let x = LLVMBuildLoad2(builder, vec, arg, c"".as_ptr());
            // The caller's copy, as Clang makes it, is an aligned slot.
            let align = if LLVMIsAAllocaInst(arg).is_null() {
                1
            } else {
                LLVMGetAlignment(arg)
            };
            LLVMSetAlignment(x, align);
            x
        };
        let mut args = [x];
        let mut c = LLVMBuildCall2(builder, ty, f, args.as_mut_ptr(), 1, c"".as_ptr());
        if LLVMTypeOf(call) != vec {
            c = LLVMBuildBitCast(builder, c, LLVMTypeOf(call), c"".as_ptr());
        }
        LLVMReplaceAllUsesWith(call, c);
        LLVMInstructionEraseFromParent(call);
    }
}

/// Whether `f` is a builtin the vectorizer is to see as a call.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn stays_a_call(f: LLVMValueRef) -> bool {
    string_attribute(f, ATTRIBUTE).is_some()
}

/// Whether `f` is a value form with wider forms, which stays a call until
/// `vecz` has made a kernel's vector form.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn widens(f: LLVMValueRef) -> bool {
    string_attribute(f, WIDER).is_some()
}

/// The function that computes a call of `f` for `width` work-items at
/// once: a scalar's variant, or a value form's wider form, if `m` has one.
///
/// # Safety
/// `m` must be a live module holding function `f`.
pub unsafe fn variant_at(m: LLVMModuleRef, f: LLVMValueRef, width: u32) -> Option<LLVMValueRef> {
    let text = string_attribute(f, ATTRIBUTE).or_else(|| string_attribute(f, WIDER))?;
    let prefix = format!("_ZGV_LLVM_N{width}v_");
    let mapping = text.split(',').find(|m| m.starts_with(&prefix))?;
    let name = mapping.split_once('(')?.1.strip_suffix(')')?;
    function(m, name)
}

unsafe fn string_attribute(f: LLVMValueRef, key: &str) -> Option<String> {
    let a = LLVMGetStringAttributeAtIndex(
        f,
        LLVMAttributeFunctionIndex,
        key.as_ptr() as *const _,
        key.len() as u32,
    );
    if a.is_null() {
        return None;
    }
    let mut len = 0;
    let p = LLVMGetStringAttributeValue(a, &mut len);
    let bytes = std::slice::from_raw_parts(p as *const u8, len as usize);
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// Takes the variants out of `llvm.compiler.used`: those no loop calls go
/// with the next `globaldce`.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn release(m: LLVMModuleRef) {
    release_if(m, |_| true);
}

/// Marks every variant a loop now calls to be inlined into it, once the
/// loop vectorizer has made the calls: inlined, the constants of its
/// polynomials are made once outside the loop and the calls of an
/// unrolled loop overlap. Returns whether any is called.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn inline_called_variants(m: LLVMModuleRef) -> bool {
    let ctx = LLVMGetModuleContext(m);
    let kind = LLVMGetEnumAttributeKindForName(c"alwaysinline".as_ptr(), 12);
    let noinline = LLVMGetEnumAttributeKindForName(c"noinline".as_ptr(), 8);
    let mut any = false;
    for f in llvm::functions(m) {
        if !llvm::name(f).starts_with("_ZGV_LLVM_") || LLVMIsDeclaration(f) != 0 {
            continue;
        }
        // Only the uses outside `llvm.compiler.used` are calls.
        let mut called = false;
        let mut u = LLVMGetFirstUse(f);
        while !u.is_null() {
            if !LLVMIsACallInst(LLVMGetUser(u)).is_null() {
                called = true;
            }
            u = LLVMGetNextUse(u);
        }
        if called {
            LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, noinline);
            LLVMAddAttributeAtIndex(
                f,
                LLVMAttributeFunctionIndex,
                LLVMCreateEnumAttribute(ctx, kind, 0),
            );
            any = true;
        }
    }
    any
}

/// Takes the variants of the functions nothing calls any more (a kernel
/// of the program that calls none of them) out of `llvm.compiler.used`, so
/// that the optimizer does not work on them for nothing.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn release_unused(m: LLVMModuleRef) {
    let called: Vec<String> = vector_calls::all()
        .map(|(n, ty)| vector_calls::scalar(n, ty))
        .filter(|s| function(m, s).is_some_and(|f| !LLVMGetFirstUse(f).is_null()))
        .collect();
    release_if(m, |variant| {
        !called.iter().any(|s| variant.ends_with(s.as_str()))
    });
}

unsafe fn release_if(m: LLVMModuleRef, drop: impl Fn(&str) -> bool) {
    let all = used_values(m);
    let keep: Vec<_> = all
        .iter()
        .copied()
        .filter(|&v| {
            let name = llvm::name(v);
            !(name.starts_with("_ZGV_LLVM_") && drop(&name))
        })
        .collect();
    if keep.len() != all.len() {
        set_used(m, &keep);
    }
}

/// The values in `llvm.compiler.used`.
unsafe fn used_values(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let g = LLVMGetNamedGlobal(m, cstr(USED).as_ptr());
    if g.is_null() {
        return Vec::new();
    }
    let init = LLVMGetInitializer(g);
    if init.is_null() {
        return Vec::new();
    }
    (0..LLVMGetNumOperands(init))
        .map(|i| LLVMGetOperand(init, i as u32))
        .collect()
}

/// Replaces `llvm.compiler.used` by one holding `values` (none: no global).
unsafe fn set_used(m: LLVMModuleRef, values: &[LLVMValueRef]) {
    let old = LLVMGetNamedGlobal(m, cstr(USED).as_ptr());
    if !old.is_null() {
        LLVMDeleteGlobal(old);
    }
    if values.is_empty() {
        return;
    }
    let ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(m), 0);
    let mut vals = values.to_vec();
    let init = LLVMConstArray2(ptr, vals.as_mut_ptr(), vals.len() as u64);
    let g = LLVMAddGlobal(m, LLVMTypeOf(init), cstr(USED).as_ptr());
    LLVMSetInitializer(g, init);
    LLVMSetLinkage(g, LLVMLinkage::LLVMAppendingLinkage);
    LLVMSetSection(g, c"llvm.metadata".as_ptr());
}
