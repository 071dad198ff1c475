//! Itanium C++ mangling of OpenCL C builtin names, as Clang gives them with
//! OpenCL address spaces as vendor qualifiers (`PU8CLglobalKf`): how the
//! translator names the builtins library's functions.

/// An OpenCL C type, as far as a builtin's name tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CType {
    Void,
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    Half,
    Float,
    Double,
    Vector(Box<CType>, u32),
    Pointer(Box<Pointee>),
    /// A named type: `ocl_event`, `ocl_sampler`, `ocl_image2d_ro`...
    Named(String),
    /// `_Atomic(T)` (Clang spells it `U7_Atomic` before `T`).
    Atomic(Box<CType>),
}

/// What a pointer points to, with its qualifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pointee {
    /// Clang's fake address space: 0 private, 1 global, 2 constant, 3 local, 4 generic.
    pub space: u32,
    pub konst: bool,
    pub volatile: bool,
    pub ty: CType,
}

impl CType {
    pub fn int(bits: u32, signed: bool) -> CType {
        match (bits, signed) {
            (8, true) => CType::Char,
            (8, false) => CType::UChar,
            (16, true) => CType::Short,
            (16, false) => CType::UShort,
            (32, true) => CType::Int,
            (32, false) => CType::UInt,
            (64, true) => CType::Long,
            _ => CType::ULong,
        }
    }

    pub fn float(bits: u32) -> CType {
        match bits {
            16 => CType::Half,
            32 => CType::Float,
            _ => CType::Double,
        }
    }

    pub fn pointer(space: u32, konst: bool, ty: CType) -> CType {
        CType::Pointer(Box::new(Pointee {
            space,
            konst,
            volatile: false,
            ty,
        }))
    }

    fn builtin_code(&self) -> Option<&'static str> {
        Some(match self {
            CType::Void => "v",
            CType::Char => "c",
            CType::UChar => "h",
            CType::Short => "s",
            CType::UShort => "t",
            CType::Int => "i",
            CType::UInt => "j",
            CType::Long => "l",
            CType::ULong => "m",
            CType::Half => "Dh",
            CType::Float => "f",
            CType::Double => "d",
            _ => return None,
        })
    }

    /// The OpenCL C spelling (`float4`, `int*`), for kernel argument types.
    pub fn spelling(&self) -> String {
        match self {
            CType::Void => "void".into(),
            CType::Char => "char".into(),
            CType::UChar => "uchar".into(),
            CType::Short => "short".into(),
            CType::UShort => "ushort".into(),
            CType::Int => "int".into(),
            CType::UInt => "uint".into(),
            CType::Long => "long".into(),
            CType::ULong => "ulong".into(),
            CType::Half => "half".into(),
            CType::Float => "float".into(),
            CType::Double => "double".into(),
            CType::Vector(e, n) => format!("{}{n}", e.spelling()),
            CType::Pointer(p) => format!("{}*", p.ty.spelling()),
            CType::Named(n) => n.strip_prefix("ocl_").unwrap_or(n).to_string(),
            CType::Atomic(t) => format!("atomic_{}", t.spelling()),
        }
    }
}

fn space_name(space: u32) -> &'static str {
    match space {
        1 => "CLglobal",
        2 => "CLconstant",
        3 => "CLlocal",
        4 => "CLgeneric",
        _ => "CLprivate",
    }
}

/// A substitutable entity: a type, or a qualified pointee.
#[derive(PartialEq)]
enum Entity {
    Type(CType),
    Qualified(Pointee),
}

struct Mangler {
    out: String,
    subs: Vec<Entity>,
}

impl Mangler {
    fn substitute(&mut self, e: &Entity) -> bool {
        match self.subs.iter().position(|s| s == e) {
            Some(0) => {
                self.out.push_str("S_");
                true
            }
            Some(n) => {
                self.out.push('S');
                self.out.push_str(&base36(n - 1));
                self.out.push('_');
                true
            }
            None => false,
        }
    }

    fn ty(&mut self, t: &CType) {
        if let Some(code) = t.builtin_code() {
            self.out.push_str(code);
            return;
        }
        let e = Entity::Type(t.clone());
        if self.substitute(&e) {
            return;
        }
        match t {
            CType::Vector(elem, n) => {
                self.out.push_str(&format!("Dv{n}_"));
                self.ty(elem);
            }
            CType::Pointer(p) => {
                self.out.push('P');
                self.pointee(p);
            }
            CType::Named(n) => self.out.push_str(&format!("{}{n}", n.len())),
            CType::Atomic(t) => {
                self.out.push_str("U7_Atomic");
                self.ty(t);
            }
            _ => {}
        }
        self.subs.push(e);
    }

    fn pointee(&mut self, p: &Pointee) {
        let e = Entity::Qualified(p.clone());
        if self.substitute(&e) {
            return;
        }
        let name = space_name(p.space);
        self.out.push_str(&format!("U{}{name}", name.len()));
        if p.volatile {
            self.out.push('V');
        }
        if p.konst {
            self.out.push('K');
        }
        self.ty(&p.ty);
        self.subs.push(e);
    }
}

fn base36(mut n: usize) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = Vec::new();
    loop {
        s.push(DIGITS[n % 36]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// `name` mangled for arguments `args` (`v` for none).
pub(crate) fn mangle(name: &str, args: &[CType]) -> String {
    let mut m = Mangler {
        out: format!("_Z{}{name}", name.len()),
        subs: Vec::new(),
    };
    if args.is_empty() {
        m.out.push('v');
    }
    for a in args {
        m.ty(a);
    }
    m.out
}

/// Reads a name mangled as Clang mangles OpenCL C builtins, for SPIR
/// (`PU3AS1i`, private pointers unqualified) or for this target
/// (`PU8CLglobali`): the function's name and parameter types.
pub(crate) fn demangle(name: &str) -> Option<(String, Vec<CType>)> {
    let mut d = Demangler {
        s: name.strip_prefix("_Z")?.as_bytes(),
        subs: Vec::new(),
    };
    let base = d.source_name()?;
    let mut args = Vec::new();
    if d.s == b"v" {
        return Some((base, args));
    }
    while !d.s.is_empty() {
        args.push(d.ty()?);
        if args.len() > 64 {
            return None;
        }
    }
    Some((base, args))
}

struct Demangler<'a> {
    s: &'a [u8],
    subs: Vec<Entity>,
}

impl Demangler<'_> {
    fn number(&mut self) -> Option<usize> {
        let n = self.s.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 6 {
            return None;
        }
        let v = std::str::from_utf8(&self.s[..n]).ok()?.parse().ok()?;
        self.s = &self.s[n..];
        Some(v)
    }

    fn source_name(&mut self) -> Option<String> {
        let len = self.number()?;
        if len > self.s.len() {
            return None;
        }
        let name = std::str::from_utf8(&self.s[..len]).ok()?.to_string();
        self.s = &self.s[len..];
        Some(name)
    }

    fn eat(&mut self, prefix: &str) -> bool {
        match self.s.strip_prefix(prefix.as_bytes()) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }

    /// `S_`, `S0_`...: the substitution it names.
    fn substitution(&mut self) -> Option<&Entity> {
        let end = self.s.iter().position(|&c| c == b'_')?;
        let digits = std::str::from_utf8(&self.s[..end]).ok()?;
        self.s = &self.s[end + 1..];
        let n = if digits.is_empty() {
            0
        } else {
            usize::from_str_radix(digits, 36).ok()? + 1
        };
        self.subs.get(n)
    }

    fn ty(&mut self) -> Option<CType> {
        let builtin = [
            ("Dh", CType::Half),
            ("v", CType::Void),
            ("c", CType::Char),
            ("a", CType::Char),
            ("h", CType::UChar),
            ("s", CType::Short),
            ("t", CType::UShort),
            ("i", CType::Int),
            ("j", CType::UInt),
            ("l", CType::Long),
            ("m", CType::ULong),
            ("f", CType::Float),
            ("d", CType::Double),
        ];
        for (code, t) in builtin {
            if self.eat(code) {
                return Some(t);
            }
        }
        if self.eat("S") {
            return match self.substitution()? {
                Entity::Type(t) => Some(t.clone()),
                Entity::Qualified(_) => None,
            };
        }
        let t = if self.eat("Dv") {
            let n = self.number()? as u32;
            if !self.eat("_") {
                return None;
            }
            CType::Vector(Box::new(self.ty()?), n)
        } else if self.eat("P") {
            CType::Pointer(Box::new(self.pointee()?))
        } else if self.eat("U7_Atomic") {
            CType::Atomic(Box::new(self.ty()?))
        } else if self.s.first()?.is_ascii_digit() {
            CType::Named(self.source_name()?)
        } else {
            return None;
        };
        self.subs.push(Entity::Type(t.clone()));
        Some(t)
    }

    fn pointee(&mut self) -> Option<Pointee> {
        if self.s.first() == Some(&b'S') {
            self.s = &self.s[1..];
            return match self.substitution()?.clone_entity() {
                Entity::Qualified(p) => Some(p),
                Entity::Type(t) => Some(Pointee {
                    space: 0,
                    konst: false,
                    volatile: false,
                    ty: t,
                }),
            };
        }
        let mut space = None;
        while self.s.first() == Some(&b'U') && !self.s.starts_with(b"U7_Atomic") {
            self.s = &self.s[1..];
            let q = self.source_name()?;
            space = Some(match q.as_str() {
                "AS1" | "CLglobal" => 1,
                "AS2" | "CLconstant" => 2,
                "AS3" | "CLlocal" => 3,
                "AS4" | "CLgeneric" => 4,
                "AS0" | "CLprivate" => 0,
                _ => return None,
            });
        }
        self.eat("r");
        let volatile = self.eat("V");
        let konst = self.eat("K");
        let qualified = space.is_some() || volatile || konst;
        let ty = self.ty()?;
        let p = Pointee {
            space: space.unwrap_or(0),
            konst,
            volatile,
            ty,
        };
        if qualified {
            self.subs.push(Entity::Qualified(p.clone()));
        }
        Some(p)
    }
}

impl Entity {
    fn clone_entity(&self) -> Entity {
        match self {
            Entity::Type(t) => Entity::Type(t.clone()),
            Entity::Qualified(p) => Entity::Qualified(p.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CType::*;

    fn v(t: CType, n: u32) -> CType {
        Vector(Box::new(t), n)
    }

    #[test]
    fn scalars_vectors_and_repeats() {
        assert_eq!(mangle("sqrt", &[Float]), "_Z4sqrtf");
        assert_eq!(mangle("max", &[v(Float, 4), v(Float, 4)]), "_Z3maxDv4_fS_");
        assert_eq!(mangle("get_work_dim", &[]), "_Z12get_work_dimv");
        assert_eq!(
            mangle("shuffle2", &[v(Int, 4), v(Int, 4), v(UInt, 8)]),
            "_Z8shuffle2Dv4_iS_Dv8_j"
        );
    }

    #[test]
    fn pointers_take_address_space_qualifiers_and_substitutions() {
        assert_eq!(
            mangle(
                "fract",
                &[v(Float, 4), CType::pointer(0, false, v(Float, 4))]
            ),
            "_Z5fractDv4_fPU9CLprivateS_"
        );
        assert_eq!(
            mangle("vload4", &[ULong, CType::pointer(1, true, Float)]),
            "_Z6vload4mPU8CLglobalKf"
        );
        let ev = Named("ocl_event".into());
        assert_eq!(
            mangle(
                "async_work_group_copy",
                &[
                    CType::pointer(3, false, v(Char, 4)),
                    CType::pointer(1, true, v(Char, 4)),
                    ULong,
                    ev
                ]
            ),
            "_Z21async_work_group_copyPU7CLlocalDv4_cPU8CLglobalKS_m9ocl_event"
        );
    }

    #[test]
    fn spir_names_read_back_as_this_targets() {
        for (spir, ours) in [
            ("_Z10atomic_incPU3AS1Vi", "_Z10atomic_incPU8CLglobalVi"),
            ("_Z5fractDv4_fPS_", "_Z5fractDv4_fPU9CLprivateS_"),
            ("_Z6vload4mPU3AS2Kf", "_Z6vload4mPU10CLconstantKf"),
            (
                "_Z25atomic_fetch_add_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope",
                "_Z25atomic_fetch_add_explicitPU9CLgenericVU7_Atomicii12memory_order12memory_scope",
            ),
            (
                "_Z21async_work_group_copyPU3AS3Dv4_cPU3AS1KS_m9ocl_event",
                "_Z21async_work_group_copyPU7CLlocalDv4_cPU8CLglobalKS_m9ocl_event",
            ),
        ] {
            let (name, args) = demangle(spir).unwrap();
            assert_eq!(mangle(&name, &args), ours, "{spir}");
            let (name, args) = demangle(ours).unwrap();
            assert_eq!(mangle(&name, &args), ours);
        }
        assert!(demangle("_Z3fooPU3AS9i").is_none());
        assert!(demangle("not mangled").is_none());
    }

    #[test]
    fn substitutions_past_ten_use_base_36() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(10), "A");
        assert_eq!(base36(36), "10");
    }
}
