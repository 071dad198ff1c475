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
    fn substitutions_past_ten_use_base_36() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(10), "A");
        assert_eq!(base36(36), "10");
    }
}
