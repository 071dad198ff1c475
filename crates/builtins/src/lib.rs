//! The OpenCL C builtins library as LLVM bitcode. Programs link it before
//! optimization; whatever they don't call is dropped.
//!
//! The library calls a handful of "mux builtins" (`__mux_get_local_id` and
//! friends, see `src/cl/mux.h`) that only the work-group compiler can
//! define, since their values come from the work-group being run.

/// The whole library, one bitcode module.
pub static BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/builtins.bc"));

/// Names of the mux builtins the library leaves for the compiler to define.
pub mod mux {
    pub const GET_LOCAL_ID: &str = "__mux_get_local_id";
    pub const GET_GROUP_ID: &str = "__mux_get_group_id";
    pub const GET_LOCAL_SIZE: &str = "__mux_get_local_size";
    pub const GET_GLOBAL_SIZE: &str = "__mux_get_global_size";
    pub const GET_GLOBAL_OFFSET: &str = "__mux_get_global_offset";
    pub const GET_NUM_GROUPS: &str = "__mux_get_num_groups";
    pub const GET_WORK_DIM: &str = "__mux_get_work_dim";
    pub const WORK_GROUP_BARRIER: &str = "__mux_work_group_barrier";
}

/// The float functions that stay calls until the loop vectorizer has run:
/// their scalar form has a rare path (the exact reduction of huge
/// arguments) that would keep a loop calling them inline from vectorizing,
/// so the compiler names their vector forms in the scalar function's
/// `vector-function-abi-variant` attribute, and the vectorizer calls those.
/// Every other math function is branch-free and is inlined.
pub mod vector_calls {
    /// The OpenCL C names.
    pub const NAMES: &[&str] = &["sin", "cos", "tan"];
    /// The widths the vectorizer may call.
    pub const WIDTHS: &[u32] = &[4, 8, 16];
    /// Library functions whose float forms call some of them: a program
    /// calling one needs the vector forms of those too.
    pub const CALLED_BY: &[(&str, &[&str])] = &[
        ("sincos", &["sin", "cos"]),
        ("native_sin", &["sin"]),
        ("native_cos", &["cos"]),
        ("native_tan", &["tan"]),
        ("half_sin", &["sin"]),
        ("half_cos", &["cos"]),
        ("half_tan", &["tan"]),
    ];

    /// The mangled name of `name(float)`; also how the name of any of its
    /// overloads with a float first parameter begins.
    pub fn scalar(name: &str) -> String {
        format!("_Z{}{name}f", name.len())
    }

    /// Which of [`NAMES`] a program that calls `mangled` (a function of the
    /// library) calls, directly or through the library.
    pub fn needed_by(mangled: &str) -> impl Iterator<Item = &'static str> + '_ {
        let direct = NAMES.iter().copied().filter(move |n| mangled == scalar(n));
        let through = CALLED_BY
            .iter()
            .filter(move |(caller, _)| mangled.starts_with(&scalar(caller)))
            .flat_map(|(_, called)| called.iter().copied());
        direct.chain(through)
    }

    /// The mangled name of `name(floatN)`.
    pub fn vector(name: &str, width: u32) -> String {
        format!("_Z{}{name}Dv{width}_f", name.len())
    }
}
