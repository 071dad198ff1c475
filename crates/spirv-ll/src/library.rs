//! The builtins library's functions as the x86-64 ABI lowered them: which
//! exist, and how each passes its arguments (a `float2` as a `double`, a
//! `float8` in memory through `byval`...). A call from a translated module
//! is made to match, as Clang would have made it.

use crate::error::Result;
use crate::ll::{self, cstr, NONAME};
use crate::translator::Tr;
use llvm_sys::bit_reader::LLVMGetBitcodeModuleInContext2;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType};
use llvm_sys::LLVMTypeKind;
use std::collections::HashMap;
use std::sync::OnceLock;

/// An LLVM type, described outside any context.
#[derive(Debug, Clone, PartialEq)]
enum T {
    Void,
    Int(u32),
    Half,
    Float,
    Double,
    Ptr(u32),
    Vector(Box<T>, u32),
    Other,
}

#[derive(Debug, Clone)]
struct Param {
    ty: T,
    /// Passed in memory: `ptr byval(T)`.
    byval: Option<T>,
    /// The result, returned through this pointer: `ptr sret(T)`.
    sret: Option<T>,
    ext: Option<&'static str>,
}

#[derive(Debug, Clone)]
struct Sig {
    ret: T,
    params: Vec<Param>,
}

struct Library {
    sigs: HashMap<String, Sig>,
    features: String,
}

// SAFETY (for the functions below): types of a live context.
unsafe fn describe(t: LLVMTypeRef) -> T {
    match LLVMGetTypeKind(t) {
        LLVMTypeKind::LLVMVoidTypeKind => T::Void,
        LLVMTypeKind::LLVMIntegerTypeKind => T::Int(LLVMGetIntTypeWidth(t)),
        LLVMTypeKind::LLVMHalfTypeKind => T::Half,
        LLVMTypeKind::LLVMFloatTypeKind => T::Float,
        LLVMTypeKind::LLVMDoubleTypeKind => T::Double,
        LLVMTypeKind::LLVMPointerTypeKind => T::Ptr(LLVMGetPointerAddressSpace(t)),
        LLVMTypeKind::LLVMVectorTypeKind => T::Vector(
            Box::new(describe(LLVMGetElementType(t))),
            LLVMGetVectorSize(t),
        ),
        _ => T::Other,
    }
}

unsafe fn make(ctx: LLVMContextRef, t: &T) -> Option<LLVMTypeRef> {
    Some(match t {
        T::Void => ll::void(ctx),
        T::Int(w) => ll::int(ctx, *w),
        T::Half => LLVMHalfTypeInContext(ctx),
        T::Float => LLVMFloatTypeInContext(ctx),
        T::Double => LLVMDoubleTypeInContext(ctx),
        T::Ptr(a) => ll::ptr(ctx, *a),
        T::Vector(e, n) => LLVMVectorType(make(ctx, e)?, *n),
        T::Other => return None,
    })
}

unsafe fn string_attr(f: LLVMValueRef, key: &str) -> String {
    let a = LLVMGetStringAttributeAtIndex(
        f,
        llvm_sys::LLVMAttributeFunctionIndex,
        key.as_ptr().cast(),
        key.len() as u32,
    );
    if a.is_null() {
        return String::new();
    }
    let mut len = 0;
    let v = LLVMGetStringAttributeValue(a, &mut len);
    String::from_utf8_lossy(std::slice::from_raw_parts(v.cast::<u8>(), len as usize)).into_owned()
}

fn load() -> Library {
    let mut lib = Library {
        sigs: HashMap::new(),
        features: String::new(),
    };
    // SAFETY: a context of our own, disposed of with the lazily read module;
    // only declarations' types and attributes are read.
    unsafe {
        let ctx = LLVMContextCreate();
        let bc = builtins::BITCODE;
        let buf = LLVMCreateMemoryBufferWithMemoryRange(
            bc.as_ptr().cast(),
            bc.len(),
            c"builtins".as_ptr(),
            0,
        );
        let mut m = std::ptr::null_mut();
        if LLVMGetBitcodeModuleInContext2(ctx, buf, &mut m) == 0 {
            let kind = |n: &str| LLVMGetEnumAttributeKindForName(n.as_ptr().cast(), n.len());
            let (byval, sret, sext, zext) = (
                kind("byval"),
                kind("sret"),
                kind("signext"),
                kind("zeroext"),
            );
            let mut f = LLVMGetFirstFunction(m);
            while !f.is_null() {
                let linkage = LLVMGetLinkage(f);
                if linkage == llvm_sys::LLVMLinkage::LLVMExternalLinkage {
                    let mut len = 0;
                    let name = LLVMGetValueName2(f, &mut len);
                    let name =
                        String::from_utf8_lossy(std::slice::from_raw_parts(name.cast::<u8>(), len))
                            .into_owned();
                    let fty = LLVMGlobalGetValueType(f);
                    let n = LLVMCountParamTypes(fty) as usize;
                    let mut tys = vec![std::ptr::null_mut(); n];
                    LLVMGetParamTypes(fty, tys.as_mut_ptr());
                    let params = tys
                        .iter()
                        .enumerate()
                        .map(|(i, &t)| {
                            let at = |k| {
                                let a = LLVMGetEnumAttributeAtIndex(f, i as u32 + 1, k);
                                (!a.is_null()).then(|| describe(LLVMGetTypeAttributeValue(a)))
                            };
                            let has =
                                |k| !LLVMGetEnumAttributeAtIndex(f, i as u32 + 1, k).is_null();
                            Param {
                                ty: describe(t),
                                byval: at(byval),
                                sret: at(sret),
                                ext: if has(sext) {
                                    Some("signext")
                                } else if has(zext) {
                                    Some("zeroext")
                                } else {
                                    None
                                },
                            }
                        })
                        .collect();
                    if lib.features.is_empty() {
                        lib.features = string_attr(f, "target-features");
                    }
                    lib.sigs.insert(
                        name,
                        Sig {
                            ret: describe(LLVMGetReturnType(fty)),
                            params,
                        },
                    );
                }
                f = LLVMGetNextFunction(f);
            }
            LLVMDisposeModule(m);
        } else {
            LLVMDisposeMemoryBuffer(buf);
        }
        LLVMContextDispose(ctx);
    }
    lib
}

fn library() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    LIB.get_or_init(load)
}

/// Whether the library defines `name`.
pub(crate) fn exists(name: &str) -> bool {
    library().sigs.contains_key(name)
}

/// The target features the library was compiled for, which every
/// function of a translated module is given too (so that they inline).
pub(crate) fn target_features() -> &'static str {
    &library().features
}

impl Tr<'_> {
    /// An alloca of `ty` in the function's entry block.
    pub fn alloca(&mut self, ty: LLVMTypeRef) -> Result<LLVMValueRef> {
        let bb = self
            .cur
            .as_ref()
            .map(|f| f.allocas)
            .ok_or_else(|| self.fail("not inside a function"))?;
        // SAFETY: a builder of our own, placed in the function's alloca block.
        unsafe {
            let b = LLVMCreateBuilderInContext(self.ctx);
            LLVMPositionBuilderAtEnd(b, bb);
            let a = LLVMBuildAlloca(b, ty, NONAME);
            LLVMDisposeBuilder(b);
            Ok(a)
        }
    }

    /// `v` reinterpreted as `to` through memory (same bytes, another type).
    unsafe fn coerce(&mut self, v: LLVMValueRef, to: LLVMTypeRef) -> Result<LLVMValueRef> {
        let from = LLVMTypeOf(v);
        if from == to {
            return Ok(v);
        }
        if LLVMTypeIsSized(from) == 0 || LLVMTypeIsSized(to) == 0 {
            return Err(self.fail("a builtin's argument or result has no size"));
        }
        let size = |t| LLVMABISizeOfType(self.td, t);
        let bigger = if size(from) >= size(to) { from } else { to };
        let slot = self.alloca(bigger)?;
        LLVMSetAlignment(
            slot,
            LLVMABIAlignmentOfType(self.td, from).max(LLVMABIAlignmentOfType(self.td, to)),
        );
        LLVMBuildStore(self.b, v, slot);
        Ok(LLVMBuildLoad2(self.b, to, slot, NONAME))
    }

    /// Calls the library's `name` with `args` as a front end would pass them
    /// (their natural types), returning a value of type `ret` (or the
    /// library's return type when `None`).
    pub fn call_library(
        &mut self,
        name: &str,
        args: &[LLVMValueRef],
        ret: Option<LLVMTypeRef>,
    ) -> Result<LLVMValueRef> {
        let sig = library()
            .sigs
            .get(name)
            .ok_or_else(|| self.fail(format!("the builtins library has no function {name}")))?
            .clone();
        let sret = sig.params.first().and_then(|p| p.sret.clone());
        let natural = sig.params.len() - sret.is_some() as usize;
        if natural != args.len() {
            return Err(self.fail(format!(
                "{name} takes {natural} arguments, not {}",
                args.len()
            )));
        }
        // SAFETY: types and values of the translator's context; the call
        // matches the declaration made here from the library's signature.
        unsafe {
            let f = self.declare_library(name, &sig)?;
            let fty = LLVMGlobalGetValueType(f);
            let mut pass = Vec::new();
            let mut result_slot = None;
            if let Some(t) = &sret {
                let t = make(self.ctx, t).ok_or_else(|| self.fail("unsupported return type"))?;
                let slot = self.alloca(t)?;
                pass.push(slot);
                result_slot = Some((slot, t));
            }
            for (p, &a) in sig.params[sret.is_some() as usize..].iter().zip(args) {
                if let Some(t) = &p.byval {
                    let t =
                        make(self.ctx, t).ok_or_else(|| self.fail("unsupported argument type"))?;
                    let slot = self.alloca(t)?;
                    LLVMSetAlignment(slot, LLVMABIAlignmentOfType(self.td, t));
                    let v = self.coerce(a, t)?;
                    LLVMBuildStore(self.b, v, slot);
                    pass.push(slot);
                } else {
                    let t = make(self.ctx, &p.ty)
                        .ok_or_else(|| self.fail("unsupported argument type"))?;
                    pass.push(self.coerce(a, t)?);
                }
            }
            let call = ll::call(self.b, fty, f, &pass);
            for (i, p) in sig.params.iter().enumerate() {
                if let Some(e) = p.ext {
                    LLVMAddCallSiteAttribute(call, i as u32 + 1, ll::enum_attr(self.ctx, e, 0));
                }
                if let Some(t) = &p.byval {
                    if let Some(t) = make(self.ctx, t) {
                        LLVMAddCallSiteAttribute(
                            call,
                            i as u32 + 1,
                            ll::type_attr(self.ctx, "byval", t),
                        );
                    }
                }
                if let Some(t) = &p.sret {
                    if let Some(t) = make(self.ctx, t) {
                        LLVMAddCallSiteAttribute(
                            call,
                            i as u32 + 1,
                            ll::type_attr(self.ctx, "sret", t),
                        );
                    }
                }
            }
            let value = match result_slot {
                Some((slot, t)) => LLVMBuildLoad2(self.b, t, slot, NONAME),
                None => call,
            };
            match ret {
                Some(t) if sig.ret != T::Void || sret.is_some() => self.coerce(value, t),
                _ => Ok(value),
            }
        }
    }

    unsafe fn declare_library(&mut self, name: &str, sig: &Sig) -> Result<LLVMValueRef> {
        let c = cstr(name);
        let existing = LLVMGetNamedFunction(self.m, c.as_ptr());
        if !existing.is_null() {
            return Ok(existing);
        }
        let ret = make(self.ctx, &sig.ret)
            .ok_or_else(|| self.fail(format!("{name}: unsupported return type")))?;
        let mut ps = Vec::new();
        for p in &sig.params {
            ps.push(
                make(self.ctx, &p.ty)
                    .ok_or_else(|| self.fail(format!("{name}: unsupported parameter type")))?,
            );
        }
        let fty = LLVMFunctionType(ret, ps.as_mut_ptr(), ps.len() as u32, 0);
        let f = LLVMAddFunction(self.m, c.as_ptr(), fty);
        for (i, p) in sig.params.iter().enumerate() {
            let at = i as u32 + 1;
            if let Some(e) = p.ext {
                LLVMAddAttributeAtIndex(f, at, ll::enum_attr(self.ctx, e, 0));
            }
            if let Some(t) = p.byval.as_ref().and_then(|t| make(self.ctx, t)) {
                LLVMAddAttributeAtIndex(f, at, ll::type_attr(self.ctx, "byval", t));
            }
            if let Some(t) = p.sret.as_ref().and_then(|t| make(self.ctx, t)) {
                LLVMAddAttributeAtIndex(f, at, ll::type_attr(self.ctx, "sret", t));
            }
        }
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::{mangle, CType::*};

    #[test]
    fn the_library_is_read_with_its_target() {
        let features = target_features();
        assert!(features.contains("+sse2"), "{features}");
    }

    #[test]
    fn mangled_names_are_the_librarys() {
        let v = |t, n| Vector(Box::new(t), n);
        for name in [
            mangle("get_global_id", &[UInt]),
            mangle(
                "fract",
                &[
                    v(Float, 4),
                    crate::mangle::CType::pointer(1, false, v(Float, 4)),
                ],
            ),
            mangle(
                "vload3",
                &[ULong, crate::mangle::CType::pointer(2, true, Short)],
            ),
            mangle(
                "remquo",
                &[Double, Double, crate::mangle::CType::pointer(4, false, Int)],
            ),
            mangle("select", &[v(Float, 2), v(Float, 2), v(Int, 2)]),
            mangle("upsample", &[Char, UChar]),
            mangle("shuffle2", &[v(Float, 4), v(Float, 4), v(UInt, 8)]),
            mangle(
                "vstore_half8_rtz",
                &[
                    v(Double, 8),
                    ULong,
                    crate::mangle::CType::pointer(3, false, Half),
                ],
            ),
            mangle("convert_int_sat_rte", &[Float]),
            mangle("work_group_broadcast", &[Float, ULong, ULong]),
        ] {
            assert!(exists(&name), "{name} is not in the library");
        }
    }
}
