//! `printf` (OpenCL C 3.0 section 6.15.14) at build time: each call's format
//! string is parsed and checked, the call gets an id (metadata on the call
//! instruction), and reflection describes each call site: its format and
//! string literals, which the device never sends, and the kind and size of
//! each argument it packs into the printf buffer.
//!
//! The calls stay calls of `printf` in the program's bitcode; the work-group
//! compiler (`passes::printf`) replaces them with writes to the buffer, and
//! the API layer formats the buffer with the same parser. A record in the
//! buffer is the call's id (4 bytes) and then its arguments' bytes, packed
//! one after the other (see [`PrintfArg::packed_bytes`]).

#[cfg(feature = "front-end")]
use crate::llvm;
#[cfg(feature = "front-end")]
use llvm_sys::core::*;
#[cfg(feature = "front-end")]
use llvm_sys::prelude::*;
#[cfg(feature = "front-end")]
use llvm_sys::target::*;
#[cfg(feature = "front-end")]
use llvm_sys::LLVMTypeKind::*;

/// The OpenCL C function.
pub const PRINTF: &str = "printf";

/// Metadata kind on a `printf` call: `!{i32 id}`.
pub const ID_METADATA: &str = "ferrocl.printf.id";

/// Bytes of a work-group's chunk header: the bytes its calls asked for
/// (`length`, counting the header) and those that did not fit (`overflow`).
pub const CHUNK_HEADER: usize = 8;

/// Bytes of the id that starts every record.
pub const ID_BYTES: usize = 4;

/// The smallest chunk a work-group may get: its header (seed 000).
pub const MIN_CHUNK: usize = CHUNK_HEADER;

/// Each work-group's share of a printf buffer of `buffer` bytes, a multiple
/// of 4 (the header's fields are 32-bit atomics), or `None` when a
/// work-group would get less than [`MIN_CHUNK`].
pub fn chunk_bytes(buffer: usize, groups: usize) -> Option<usize> {
    let share = (buffer / groups.max(1)) & !3;
    (share >= MIN_CHUNK).then_some(share.min(u32::MAX as usize & !3))
}

/// One argument of a call, as the device packs it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PrintfArg {
    /// A signed or unsigned integer of this many bytes (after C's default
    /// promotions: `char` and `short` arrive as 4-byte `int`).
    Int(usize),
    /// A floating-point value of this many bytes (`float` arrives as `double`).
    Float(usize),
    /// A vector, its elements' bytes in order (however the ABI passed it:
    /// a `uchar2` is an `i16`, a `float8` a pointer to a copy).
    Vector(usize),
    /// A pointer (8 bytes); a string literal's text is known at build time.
    Pointer { literal: Option<Vec<u8>> },
}

impl PrintfArg {
    /// Bytes the device writes for it.
    pub fn packed_bytes(&self) -> usize {
        match self {
            PrintfArg::Int(n) | PrintfArg::Float(n) | PrintfArg::Vector(n) => *n,
            PrintfArg::Pointer { .. } => 8,
        }
    }
}

/// A call site of `printf`: what the host needs to format its records.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PrintfCall {
    pub id: u32,
    /// The format string, up to its terminating NUL.
    pub format: Vec<u8>,
    pub args: Vec<PrintfArg>,
}

impl PrintfCall {
    /// Bytes of one record of this call: its id and its arguments.
    pub fn record_bytes(&self) -> usize {
        ID_BYTES + self.args.iter().map(PrintfArg::packed_bytes).sum::<usize>()
    }
}

/// A length modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    None,
    /// `hh`: char.
    Char,
    /// `h`: short (or half, in a vector).
    Short,
    /// `hl`: int or float, in a vector only.
    Int,
    /// `l`: long or double.
    Long,
}

/// One conversion specification (`%-08.3v4hlf`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conversion {
    /// Flags, field width and precision exactly as written (`-08.3`), to
    /// hand to the C library.
    pub flags_width_precision: String,
    /// Elements of a vector conversion (`v2` .. `v16`).
    pub vector: Option<usize>,
    pub length: Length,
    /// `d i o u x X f F e E g G a A c s p`.
    pub specifier: u8,
}

impl Conversion {
    pub fn is_float(&self) -> bool {
        b"fFeEgGaA".contains(&self.specifier)
    }

    pub fn is_integer(&self) -> bool {
        b"diouxX".contains(&self.specifier)
    }

    pub fn is_signed(&self) -> bool {
        b"di".contains(&self.specifier)
    }

    /// Bytes of one value (one element of a vector) this conversion reads.
    pub fn element_bytes(&self) -> usize {
        match self.length {
            Length::Char => 1,
            Length::Short => 2,
            Length::Int => 4,
            Length::Long => 8,
            // A vector without a length modifier is undefined in the spec;
            // ferrocl reads what Clang's format check expects of it: int
            // elements, or double ones for a floating-point conversion.
            Length::None if self.vector.is_some() && !self.is_float() => 4,
            Length::None if self.is_float() => 8,
            Length::None if self.specifier == b'p' => 8,
            Length::None => 4,
        }
    }
}

/// A piece of a parsed format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text printed as it is (`%%` already made `%`).
    Text(Vec<u8>),
    Conversion(Conversion),
}

/// Parses an OpenCL C format string; an error says what is wrong with it.
pub fn parse(format: &[u8]) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = Vec::new();
    let mut i = 0;
    while i < format.len() {
        let c = format[i];
        i += 1;
        if c != b'%' {
            text.push(c);
            continue;
        }
        if format.get(i) == Some(&b'%') {
            text.push(b'%');
            i += 1;
            continue;
        }
        let start = i - 1;
        let shown = |end: usize| {
            String::from_utf8_lossy(&format[start..end.min(format.len())]).into_owned()
        };
        let mut spec = String::new();
        while let Some(&f) = format.get(i).filter(|f| b"-+ #0".contains(f)) {
            spec.push(f as char);
            i += 1;
        }
        let digits = |i: &mut usize, spec: &mut String| {
            while let Some(&d) = format.get(*i).filter(|d| d.is_ascii_digit()) {
                spec.push(d as char);
                *i += 1;
            }
        };
        digits(&mut i, &mut spec);
        if format.get(i) == Some(&b'.') {
            spec.push('.');
            i += 1;
            digits(&mut i, &mut spec);
        }
        if format.get(i) == Some(&b'*') {
            return Err(format!(
                "`{}`: a field width or precision of `*` is not supported",
                shown(i + 1)
            ));
        }
        let vector = if format.get(i) == Some(&b'v') {
            i += 1;
            let at = i;
            while format.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            let n = std::str::from_utf8(&format[at..i])
                .ok()
                .and_then(|s| s.parse::<usize>().ok());
            match n {
                Some(n @ (2 | 3 | 4 | 8 | 16)) => Some(n),
                _ => {
                    return Err(format!(
                        "`{}`: a vector has 2, 3, 4, 8 or 16 elements",
                        shown(i + 1)
                    ))
                }
            }
        } else {
            None
        };
        let length = match (format.get(i), format.get(i + 1)) {
            (Some(b'h'), Some(b'h')) => (Length::Char, 2),
            (Some(b'h'), Some(b'l')) => (Length::Int, 2),
            (Some(b'h'), _) => (Length::Short, 1),
            (Some(b'l'), _) => (Length::Long, 1),
            _ => (Length::None, 0),
        };
        let (length, skip) = length;
        i += skip;
        let Some(&specifier) = format.get(i) else {
            return Err(format!("`{}`: the conversion is incomplete", shown(i)));
        };
        i += 1;
        let conversion = Conversion {
            flags_width_precision: spec,
            vector,
            length,
            specifier,
        };
        check(&conversion).map_err(|why| format!("`{}`: {why}", shown(i)))?;
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(Piece::Conversion(conversion));
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

/// The rules of section 6.15.14.2 for one conversion.
fn check(c: &Conversion) -> Result<(), &'static str> {
    let s = c.specifier;
    if !b"diouxXfFeEgGaAcsp".contains(&s) {
        return Err("invalid conversion specifier");
    }
    match c.vector {
        Some(_) => {
            if !(c.is_integer() || c.is_float()) {
                return Err("a vector is printed with d, i, o, u, x, X, f, F, e, E, g, G, a or A");
            }
            match c.length {
                Length::Char if c.is_float() => Err("hh does not apply to floating-point vectors"),
                _ => Ok(()),
            }
        }
        None => match c.length {
            Length::Int => Err("hl applies to vectors only"),
            Length::None => Ok(()),
            _ if b"csp".contains(&s) => Err("c, s and p take no length modifier"),
            Length::Long => Ok(()),
            _ if c.is_float() => Err("hh and h apply to floating-point vectors only"),
            _ => Ok(()),
        },
    }
}

/// The conversions of a parsed format, in order.
pub fn conversions(pieces: &[Piece]) -> impl Iterator<Item = &Conversion> {
    pieces.iter().filter_map(|p| match p {
        Piece::Conversion(c) => Some(c),
        Piece::Text(_) => None,
    })
}

/// The text of a constant C string `v` points to (a global constant's
/// initializer, up to its first NUL), or `None` if it is not one.
///
/// # Safety
/// `v` must be a live value.
#[cfg(feature = "front-end")]
pub unsafe fn constant_string(v: LLVMValueRef) -> Option<Vec<u8>> {
    let mut v = v;
    // Casts of the global (an address-space cast, a GEP to its start).
    while !LLVMIsAConstantExpr(v).is_null() {
        let op = LLVMGetConstOpcode(v);
        use llvm_sys::LLVMOpcode::*;
        match op {
            LLVMAddrSpaceCast | LLVMBitCast => v = LLVMGetOperand(v, 0),
            LLVMGetElementPtr => {
                let zero = (1..LLVMGetNumOperands(v) as u32).all(|k| {
                    let idx = LLVMGetOperand(v, k);
                    !LLVMIsAConstantInt(idx).is_null() && LLVMConstIntGetZExtValue(idx) == 0
                });
                if !zero {
                    return None;
                }
                v = LLVMGetOperand(v, 0);
            }
            _ => return None,
        }
    }
    if LLVMIsAGlobalVariable(v).is_null() || LLVMIsGlobalConstant(v) == 0 {
        return None;
    }
    let init = LLVMGetInitializer(v);
    if init.is_null() {
        return None;
    }
    if !LLVMIsAConstantAggregateZero(init).is_null() {
        return Some(Vec::new());
    }
    if LLVMIsAConstantDataSequential(init).is_null() || LLVMIsConstantString(init) == 0 {
        return None;
    }
    let mut len = 0;
    let p = LLVMGetAsString(init, &mut len);
    let bytes = std::slice::from_raw_parts(p as *const u8, len);
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    Some(bytes[..end].to_vec())
}

#[cfg(feature = "front-end")]
unsafe fn md_kind(ctx: LLVMContextRef) -> u32 {
    LLVMGetMDKindIDInContext(
        ctx,
        ID_METADATA.as_ptr() as *const _,
        ID_METADATA.len() as u32,
    )
}

/// The id of a numbered `printf` call.
///
/// # Safety
/// `call` must be a live call instruction.
#[cfg(feature = "front-end")]
pub unsafe fn call_id(call: LLVMValueRef) -> Option<u32> {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(call));
    let md = LLVMGetMetadata(call, md_kind(ctx));
    if md.is_null() || LLVMGetMDNodeNumOperands(md) != 1 {
        return None;
    }
    let mut op = std::ptr::null_mut();
    LLVMGetMDNodeOperands(md, &mut op);
    if op.is_null() || LLVMIsAConstantInt(op).is_null() {
        return None;
    }
    u32::try_from(LLVMConstIntGetZExtValue(op)).ok()
}

/// Whether `call` calls `printf`.
///
/// # Safety
/// `call` must be a live instruction.
#[cfg(feature = "front-end")]
pub unsafe fn is_printf_call(call: LLVMValueRef) -> bool {
    llvm::called_function(call).is_some_and(|f| llvm::name(f) == PRINTF)
}

/// Checks every `printf` call of `m` and numbers it (an executable's
/// module, once linked). The error names each bad call: its function,
/// its place among that function's calls, and its format.
///
/// # Safety
/// `m` must be a live module.
#[cfg(feature = "front-end")]
pub unsafe fn number_calls(m: LLVMModuleRef) -> Result<(), String> {
    let name = llvm::cstr(PRINTF);
    let f = LLVMGetNamedFunction(m, name.as_ptr());
    if f.is_null() {
        return Ok(());
    }
    let ctx = LLVMGetModuleContext(m);
    let kind = md_kind(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let mut errors = Vec::new();
    let mut next_id = 0u32;
    let mut calls = 0usize;
    for g in llvm::functions(m) {
        let mut nth = 0;
        for i in llvm::instructions(g) {
            if !is_printf_call(i) {
                continue;
            }
            nth += 1;
            calls += 1;
            let name = llvm::name(g);
            // Clang's body of a kernel that other kernels may call.
            let shown = name.strip_prefix("__clang_ocl_kern_imp_").unwrap_or(&name);
            let place = format!("printf call {nth} in function `{shown}`");
            match check_call(i) {
                Ok(()) => {
                    let mut id = LLVMValueAsMetadata(LLVMConstInt(i32t, next_id as u64, 0));
                    let node = LLVMMDNodeInContext2(ctx, &mut id, 1);
                    LLVMSetMetadata(i, kind, LLVMMetadataAsValue(ctx, node));
                    next_id += 1;
                }
                Err(why) => errors.push(format!("error: {place}: {why}")),
            }
        }
    }
    // Anything else that names printf (its address taken) cannot be compiled.
    let mut uses = 0usize;
    let mut u = LLVMGetFirstUse(f);
    while !u.is_null() {
        uses += 1;
        u = LLVMGetNextUse(u);
    }
    if uses != calls {
        errors.push("error: printf is used other than by calling it".into());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// The format of a call, if it is a string literal.
#[cfg(feature = "front-end")]
unsafe fn format_of(call: LLVMValueRef) -> Option<Vec<u8>> {
    if LLVMGetNumArgOperands(call) == 0 {
        return None;
    }
    constant_string(LLVMGetOperand(call, 0))
}

/// What is wrong with a call, if anything: its format must be a literal
/// and well formed, and an argument `%s` prints a string literal.
#[cfg(feature = "front-end")]
unsafe fn check_call(call: LLVMValueRef) -> Result<(), String> {
    let format = format_of(call).ok_or("the format is not a string literal")?;
    let shown = String::from_utf8_lossy(&format).escape_debug().to_string();
    let pieces = parse(&format).map_err(|why| format!("{why} in format \"{shown}\""))?;
    let args = LLVMGetNumArgOperands(call);
    for (k, c) in conversions(&pieces).enumerate() {
        let at = k as u32 + 1;
        if c.specifier == b's' && at < args && constant_string(LLVMGetOperand(call, at)).is_none() {
            return Err(format!(
                "argument {at} of `%s` is not a string literal in format \"{shown}\""
            ));
        }
    }
    Ok(())
}

/// The descriptor of a numbered call.
///
/// # Safety
/// `call` must be a live call of `printf` in a module with a data layout.
#[cfg(feature = "front-end")]
pub unsafe fn describe(call: LLVMValueRef, td: LLVMTargetDataRef) -> Option<PrintfCall> {
    let id = call_id(call)?;
    let format = format_of(call)?;
    let byval = LLVMGetEnumAttributeKindForName(c"byval".as_ptr(), 5);
    let mut args = Vec::new();
    for k in 1..LLVMGetNumArgOperands(call) {
        let v = LLVMGetOperand(call, k);
        let ty = LLVMTypeOf(v);
        let by_value = LLVMGetCallSiteEnumAttribute(call, k + 1, byval);
        let arg = if !by_value.is_null() {
            let t = LLVMGetTypeAttributeValue(by_value);
            PrintfArg::Vector(LLVMStoreSizeOfType(td, t) as usize)
        } else {
            let bytes = LLVMStoreSizeOfType(td, ty) as usize;
            match LLVMGetTypeKind(ty) {
                LLVMIntegerTypeKind => PrintfArg::Int(bytes),
                LLVMHalfTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind => {
                    PrintfArg::Float(bytes)
                }
                LLVMPointerTypeKind => PrintfArg::Pointer {
                    literal: constant_string(v),
                },
                _ => PrintfArg::Vector(bytes),
            }
        };
        args.push(arg);
    }
    Some(PrintfCall { id, format, args })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conversion(format: &str) -> Conversion {
        match parse(format.as_bytes()).unwrap().as_slice() {
            [Piece::Conversion(c)] => c.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn conversions_are_read_whole() {
        let c = conversion("%-+#08.3v4hlf");
        assert_eq!(c.flags_width_precision, "-+#08.3");
        assert_eq!(
            (c.vector, c.length, c.specifier),
            (Some(4), Length::Int, b'f')
        );
        assert_eq!(c.element_bytes(), 4);
        let c = conversion("%v16hhd");
        assert_eq!(
            (c.vector, c.length, c.element_bytes()),
            (Some(16), Length::Char, 1)
        );
        assert_eq!(conversion("%.x").flags_width_precision, ".");
        assert_eq!(conversion("%ld").element_bytes(), 8);
        assert_eq!(conversion("%f").element_bytes(), 8);
        assert_eq!(conversion("%hd").element_bytes(), 2);
    }

    #[test]
    fn text_and_percent_signs() {
        let p = parse(b"a%%b%dc").unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], Piece::Text(b"a%b".to_vec()));
        assert_eq!(p[2], Piece::Text(b"c".to_vec()));
        assert!(parse(b"").unwrap().is_empty());
    }

    #[test]
    fn malformed_conversions_are_refused() {
        for bad in [
            "%", "%y", "%5", "%v5hlf", "%v1hd", "%vhd", "%v4hhf", "%hlf", "%hld", "%*d", "%.*f",
            "%lc", "%ls", "%hp", "%hf", "%hhf", "%lld", "%v4c", "%v2s", "%Lf", "%zd", "%5%",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad} accepted");
        }
        for good in [
            "%d", "%i", "%o", "%u", "%x", "%X", "%f", "%F", "%e", "%E", "%g", "%G", "%a", "%A",
            "%c", "%s", "%p", "%hhd", "%hd", "%ld", "%lf", "%v2hhd", "%v3hlf", "%v16ld", "%v4hf",
            "%v8hlx", "% d", "%#o", "%-10.4s", "%v2d", "%v4f",
        ] {
            assert!(parse(good.as_bytes()).is_ok(), "{good} refused");
        }
        let why = parse(b"x %v4hhf").unwrap_err();
        assert!(why.contains("%v4hhf") && why.contains("hh"), "{why}");
    }

    #[test]
    fn chunks_are_shared_out_evenly() {
        assert_eq!(chunk_bytes(1 << 20, 1), Some(1 << 20));
        assert_eq!(chunk_bytes(1 << 20, 3), Some(349524));
        assert_eq!(chunk_bytes(1 << 20, 1 << 17), Some(8));
        assert_eq!(chunk_bytes(1 << 20, (1 << 17) + 1), None);
    }
}
