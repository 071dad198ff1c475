//! Program-scope `__global` variables (and `static __global` ones in
//! functions): one block of memory per program and device, which every
//! kernel of the program reaches through a hidden argument, so that values
//! persist from one launch to the next and are shared by the kernels.
//!
//! The block's layout comes from the module alone (its variables in module
//! order, each at its alignment), so the reflection of a program and the
//! specialization of each of its kernels, which load the same bitcode
//! separately, agree on it. The block's initial bytes are computed from
//! the variables' initializers here, with the places where an initializer
//! holds the address of another variable (`global int* p = &x;`) as
//! relocations the runtime fills in once it knows the block's address.
//! `__constant` variables such an initializer points to are placed in the
//! block too.

#[cfg(feature = "front-end")]
use crate::llvm;
#[cfg(feature = "front-end")]
use llvm_sys::core::*;
#[cfg(feature = "front-end")]
use llvm_sys::prelude::*;
#[cfg(feature = "front-end")]
use llvm_sys::target::*;
#[cfg(feature = "front-end")]
use llvm_sys::LLVMOpcode;
#[cfg(feature = "front-end")]
use llvm_sys::LLVMTypeKind::*;
#[cfg(feature = "front-end")]
use std::collections::HashMap;

/// Address space of `__global` in the IR.
pub const GLOBAL_AS: u32 = 1;

/// The largest program-scope variable the device takes
/// (`CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE`): larger ones fail the build.
pub const MAX_VARIABLE_SIZE: usize = 64 << 20;

/// Bytes of the hidden argument: the block's device address.
pub const GLOBALS_ARG_BYTES: usize = 8;

/// The block's initial contents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalsImage {
    pub size: usize,
    pub align: usize,
    /// Non-zero runs of bytes, by offset; the rest of the block is zero.
    pub data: Vec<(usize, Vec<u8>)>,
    /// `(at, target)`: the 8 bytes at `at` hold the block's address plus
    /// `target`.
    pub relocations: Vec<(usize, usize)>,
}

/// The variables in the block and their offsets, its size and alignment.
#[cfg(feature = "front-end")]
pub struct Layout {
    pub members: Vec<(LLVMValueRef, usize)>,
    pub size: usize,
    pub align: usize,
}

#[cfg(feature = "front-end")]
impl Layout {
    /// Lays out the program-scope variables of `m`.
    ///
    /// # Safety
    /// `m` must be a live module.
    pub unsafe fn of(m: LLVMModuleRef) -> Layout {
        let td = LLVMGetModuleDataLayout(m);
        let globals = llvm::globals(m);
        let defined = |g: LLVMValueRef| LLVMIsDeclaration(g) == 0;
        let mut chosen: Vec<LLVMValueRef> = globals
            .iter()
            .copied()
            .filter(|&g| defined(g) && address_space(g) == GLOBAL_AS)
            .collect();
        // The variables an initializer points to, however deep.
        let mut seen: std::collections::HashSet<LLVMValueRef> = chosen.iter().copied().collect();
        let mut i = 0;
        while i < chosen.len() {
            let mut pointed = Vec::new();
            referenced_globals(LLVMGetInitializer(chosen[i]), &mut pointed);
            for g in pointed {
                if defined(g) && seen.insert(g) {
                    chosen.push(g);
                }
            }
            i += 1;
        }
        // Module order, whatever order they were found in.
        chosen.sort_by_key(|g| globals.iter().position(|x| x == g));
        let (mut end, mut block_align) = (0usize, 1usize);
        let mut members = Vec::new();
        for g in chosen {
            let ty = LLVMGlobalGetValueType(g);
            let align = (LLVMGetAlignment(g) as usize)
                .max(LLVMABIAlignmentOfType(td, ty) as usize)
                .max(1);
            let at = end.next_multiple_of(align);
            end = at + LLVMABISizeOfType(td, ty) as usize;
            block_align = block_align.max(align);
            members.push((g, at));
        }
        Layout {
            members,
            size: end,
            align: block_align,
        }
    }

    /// The block's initial bytes, or why the variables cannot be offered:
    /// one too large, one declared but defined nowhere, an initializer of a
    /// kind this does not read.
    ///
    /// # Safety
    /// `m` must be the live module the layout was made of.
    pub unsafe fn image(&self, m: LLVMModuleRef) -> Result<GlobalsImage, String> {
        let td = LLVMGetModuleDataLayout(m);
        let undefined: Vec<String> = llvm::globals(m)
            .into_iter()
            .filter(|&g| {
                LLVMIsDeclaration(g) != 0
                    && address_space(g) == GLOBAL_AS
                    && !LLVMGetFirstUse(g).is_null()
            })
            .map(|g| llvm::name(g))
            .collect();
        if !undefined.is_empty() {
            return Err(format!(
                "error: undefined program-scope variable(s): {}",
                undefined.join(", ")
            ));
        }
        let offsets: HashMap<LLVMValueRef, usize> = self.members.iter().copied().collect();
        let mut w = ImageWriter {
            td,
            offsets: &offsets,
            data: Vec::new(),
            relocations: Vec::new(),
        };
        for &(g, at) in &self.members {
            let size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(g)) as usize;
            if address_space(g) == GLOBAL_AS && size > MAX_VARIABLE_SIZE {
                return Err(format!(
                    "error: program-scope variable `{}` takes {size} bytes, more than the \
                     device's CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE of {MAX_VARIABLE_SIZE}",
                    llvm::name(g)
                ));
            }
            w.constant(LLVMGetInitializer(g), at).map_err(|e| {
                format!(
                    "error: the initializer of program-scope variable `{}`: {e}",
                    llvm::name(g)
                )
            })?;
        }
        let mut data = w.data;
        data.sort_by_key(|(at, _)| *at);
        // Adjacent writes as one run.
        let mut merged: Vec<(usize, Vec<u8>)> = Vec::new();
        for (at, bytes) in data {
            match merged.last_mut() {
                Some((start, run)) if *start + run.len() == at => run.extend(bytes),
                _ => merged.push((at, bytes)),
            }
        }
        Ok(GlobalsImage {
            size: self.size,
            align: self.align,
            data: merged,
            relocations: w.relocations,
        })
    }
}

/// Whether `f` reaches a program-scope variable: its kernel then gets the
/// block as a hidden argument.
///
/// # Safety
/// `functions` must be live functions.
#[cfg(feature = "front-end")]
pub unsafe fn used_by(functions: &[LLVMValueRef]) -> bool {
    functions.iter().any(|&f| {
        llvm::instructions(f).into_iter().any(|i| {
            (0..LLVMGetNumOperands(i).max(0) as u32).any(|k| {
                let mut found = Vec::new();
                referenced_globals(LLVMGetOperand(i, k), &mut found);
                found
                    .iter()
                    .any(|&g| LLVMIsDeclaration(g) == 0 && address_space(g) == GLOBAL_AS)
            })
        })
    })
}

#[cfg(feature = "front-end")]
unsafe fn address_space(g: LLVMValueRef) -> u32 {
    LLVMGetPointerAddressSpace(LLVMTypeOf(g))
}

/// The global variables constant `c` names, through constant expressions
/// and aggregates.
#[cfg(feature = "front-end")]
unsafe fn referenced_globals(c: LLVMValueRef, out: &mut Vec<LLVMValueRef>) {
    if c.is_null() {
        return;
    }
    if !LLVMIsAGlobalVariable(c).is_null() {
        out.push(c);
        return;
    }
    if LLVMIsAConstant(c).is_null() || !LLVMIsAGlobalValue(c).is_null() {
        return;
    }
    // Plain data has no operands; aggregates and expressions do.
    for k in 0..LLVMGetNumOperands(c).max(0) as u32 {
        referenced_globals(LLVMGetOperand(c, k), out);
    }
}

#[cfg(feature = "front-end")]
struct ImageWriter<'a> {
    td: LLVMTargetDataRef,
    offsets: &'a HashMap<LLVMValueRef, usize>,
    data: Vec<(usize, Vec<u8>)>,
    relocations: Vec<(usize, usize)>,
}

#[cfg(feature = "front-end")]
impl ImageWriter<'_> {
    /// Writes constant `c` at offset `at` of the block.
    unsafe fn constant(&mut self, c: LLVMValueRef, at: usize) -> Result<(), String> {
        if c.is_null()
            || !LLVMIsAConstantAggregateZero(c).is_null()
            || !LLVMIsAConstantPointerNull(c).is_null()
            || !LLVMIsAUndefValue(c).is_null()
            || !LLVMIsAPoisonValue(c).is_null()
        {
            return Ok(());
        }
        let ty = LLVMTypeOf(c);
        if !LLVMIsAConstantInt(c).is_null() {
            let bytes = LLVMStoreSizeOfType(self.td, ty) as usize;
            if bytes > 8 {
                return Err("an integer wider than 64 bits".into());
            }
            let v = LLVMConstIntGetZExtValue(c).to_le_bytes();
            self.write(at, &v[..bytes]);
            return Ok(());
        }
        if !LLVMIsAConstantFP(c).is_null() {
            // Its bits, as LLVM folds a cast of a constant: exact for every
            // floating-point type.
            let bits = LLVMStoreSizeOfType(self.td, ty) as u32 * 8;
            let int = LLVMConstBitCast(c, LLVMIntTypeInContext(LLVMGetTypeContext(ty), bits));
            if bits > 64 || LLVMIsAConstantInt(int).is_null() {
                return Err("a floating-point type wider than 64 bits".into());
            }
            let v = LLVMConstIntGetZExtValue(int).to_le_bytes();
            self.write(at, &v[..bits as usize / 8]);
            return Ok(());
        }
        match LLVMGetTypeKind(ty) {
            LLVMArrayTypeKind | LLVMVectorTypeKind | LLVMStructTypeKind => {
                return self.aggregate(c, ty, at)
            }
            LLVMPointerTypeKind => {
                let (target, offset) = self.address(c)?;
                self.relocations
                    .push((at, target.wrapping_add_signed(offset)));
                return Ok(());
            }
            _ => {}
        }
        Err("a constant of a kind that cannot be laid out".into())
    }

    unsafe fn aggregate(
        &mut self,
        c: LLVMValueRef,
        ty: LLVMTypeRef,
        at: usize,
    ) -> Result<(), String> {
        let n = match LLVMGetTypeKind(ty) {
            LLVMArrayTypeKind => LLVMGetArrayLength2(ty) as u32,
            LLVMVectorTypeKind => LLVMGetVectorSize(ty),
            _ => LLVMCountStructElementTypes(ty),
        };
        for i in 0..n {
            let offset = match LLVMGetTypeKind(ty) {
                LLVMStructTypeKind => LLVMOffsetOfElement(self.td, ty, i) as usize,
                _ => i as usize * LLVMABISizeOfType(self.td, LLVMGetElementType(ty)) as usize,
            };
            let e = LLVMGetAggregateElement(c, i);
            if e.is_null() {
                return Err("an aggregate whose elements cannot be read".into());
            }
            self.constant(e, at + offset)?;
        }
        Ok(())
    }

    /// The member and byte offset into it that pointer constant `c` holds.
    unsafe fn address(&self, c: LLVMValueRef) -> Result<(usize, isize), String> {
        if let Some(&at) = self.offsets.get(&c) {
            return Ok((at, 0));
        }
        if LLVMIsAConstantExpr(c).is_null() {
            return Err("the address of something that is not a program-scope variable".into());
        }
        match LLVMGetConstOpcode(c) {
            LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMBitCast => {
                self.address(LLVMGetOperand(c, 0))
            }
            LLVMOpcode::LLVMGetElementPtr => {
                let (target, base) = self.address(LLVMGetOperand(c, 0))?;
                let mut ty = LLVMGetGEPSourceElementType(c);
                let mut offset = base;
                for k in 1..LLVMGetNumOperands(c) as u32 {
                    let idx = LLVMGetOperand(c, k);
                    if LLVMIsAConstantInt(idx).is_null() {
                        return Err("an address with a non-constant index".into());
                    }
                    let i = LLVMConstIntGetSExtValue(idx) as isize;
                    if k == 1 {
                        offset += i * LLVMABISizeOfType(self.td, ty) as isize;
                        continue;
                    }
                    match LLVMGetTypeKind(ty) {
                        LLVMStructTypeKind => {
                            offset += LLVMOffsetOfElement(self.td, ty, i as u32) as isize;
                            ty = LLVMStructGetTypeAtIndex(ty, i as u32);
                        }
                        _ => {
                            ty = LLVMGetElementType(ty);
                            offset += i * LLVMABISizeOfType(self.td, ty) as isize;
                        }
                    }
                }
                Ok((target, offset))
            }
            _ => Err("an address computed in a way this does not read".into()),
        }
    }

    fn write(&mut self, at: usize, bytes: &[u8]) {
        if bytes.iter().any(|&b| b != 0) {
            self.data.push((at, bytes.to_vec()));
        }
    }
}

#[cfg(all(test, feature = "front-end"))]
mod tests {
    use super::*;

    fn parse(ctx: LLVMContextRef, ir: &str) -> LLVMModuleRef {
        unsafe { llvm::parse_ir(ctx, ir).expect("test IR parses") }
    }

    const IR: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
@c = addrspace(2) constant [2 x i32] [i32 7, i32 8]
@g = addrspace(1) global i32 5, align 4
@a = addrspace(1) global [2 x i64] [i64 1, i64 -1], align 8
@p = addrspace(1) global ptr addrspace(1) getelementptr inbounds ([2 x i64], ptr addrspace(1) @a, i64 0, i64 1), align 8
@q = addrspace(1) global ptr addrspace(2) @c, align 8
@s = internal addrspace(1) global { i8, float, <2 x half> } { i8 97, float 1.5, <2 x half> <half 0xH3C00, half 0xH0000> }, align 4
@z = addrspace(1) global [1000 x i32] zeroinitializer, align 4
@unused_constant = addrspace(2) constant i32 3
"#;

    #[test]
    fn variables_are_laid_out_with_their_initial_bytes_and_addresses() {
        unsafe {
            let ctx = LLVMContextCreate();
            let m = parse(ctx, IR);
            let layout = Layout::of(m);
            let names: Vec<(String, usize)> = layout
                .members
                .iter()
                .map(|&(g, at)| (llvm::name(g), at))
                .collect();
            // The constant @q points to joins the block, in module order.
            assert_eq!(
                names,
                [
                    ("c".to_string(), 0),
                    ("g".to_string(), 8),
                    ("a".to_string(), 16),
                    ("p".to_string(), 32),
                    ("q".to_string(), 40),
                    ("s".to_string(), 48),
                    ("z".to_string(), 60),
                ]
            );
            assert_eq!(layout.size, 4060);
            assert_eq!(layout.align, 8);
            let image = layout.image(m).unwrap();
            let mut block = vec![0u8; image.size];
            for (at, bytes) in &image.data {
                block[*at..*at + bytes.len()].copy_from_slice(bytes);
            }
            assert_eq!(&block[0..8], &[7, 0, 0, 0, 8, 0, 0, 0]);
            assert_eq!(&block[8..12], &5i32.to_le_bytes());
            assert_eq!(
                &block[16..32],
                &[&1i64.to_le_bytes()[..], &(-1i64).to_le_bytes()].concat()
            );
            assert_eq!(block[48], 97);
            assert_eq!(&block[52..56], &1.5f32.to_le_bytes());
            assert_eq!(&block[56..60], &[0x00, 0x3c, 0, 0]);
            // &a[1] and &c, relative to the block.
            assert_eq!(image.relocations, [(32, 24), (40, 0)]);
            // The zeros are not stored.
            assert!(image.data.iter().all(|(at, _)| *at < 60));
            LLVMDisposeModule(m);
            LLVMContextDispose(ctx);
        }
    }

    #[test]
    fn an_undefined_or_oversized_variable_is_a_build_error() {
        unsafe {
            let ctx = LLVMContextCreate();
            let m = parse(
                ctx,
                "@x = external addrspace(1) global i32\n\
                 define void @k(ptr addrspace(1) %o) {\n  %v = load i32, ptr addrspace(1) @x\n  \
                 store i32 %v, ptr addrspace(1) %o\n  ret void\n}\n",
            );
            let e = Layout::of(m).image(m).unwrap_err();
            assert!(e.contains("undefined program-scope variable(s): x"), "{e}");
            LLVMDisposeModule(m);
            let big = format!(
                "@big = addrspace(1) global [{} x i8] zeroinitializer\n",
                MAX_VARIABLE_SIZE + 1
            );
            let m = parse(ctx, &big);
            let e = Layout::of(m).image(m).unwrap_err();
            assert!(e.contains("`big`"), "{e}");
            LLVMDisposeModule(m);
            LLVMContextDispose(ctx);
        }
    }
}
