//! The OpenCL C builtins library as LLVM bitcode. Programs link it before
//! optimization; whatever they don't call is dropped.
//!
//! The library calls a handful of "mux builtins" (`__mux_get_local_id` and
//! friends, see `src/cl/mux.h`) that only the work-group compiler can
//! define, since their values come from the work-group being run.

/// The whole library, one bitcode module.
pub static BITCODE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/builtins.bc"));

/// Declarations of the library's functions Clang does not declare itself
/// (the work-group functions of `cl_khr_work_group_uniform_arithmetic`): the compiler includes them
/// before every program.
pub static DECLARATIONS: &str = include_str!("cl/declarations.h");

/// Names of the mux builtins the library leaves for the compiler to define.
pub mod mux {
    pub const GET_LOCAL_ID: &str = "__mux_get_local_id";
    pub const GET_GROUP_ID: &str = "__mux_get_group_id";
    pub const GET_LOCAL_SIZE: &str = "__mux_get_local_size";
    pub const GET_ENQUEUED_LOCAL_SIZE: &str = "__mux_get_enqueued_local_size";
    pub const GET_GLOBAL_SIZE: &str = "__mux_get_global_size";
    pub const GET_GLOBAL_OFFSET: &str = "__mux_get_global_offset";
    pub const GET_NUM_GROUPS: &str = "__mux_get_num_groups";
    pub const GET_WORK_DIM: &str = "__mux_get_work_dim";
    pub const WORK_GROUP_BARRIER: &str = "__mux_work_group_barrier";
    /// A `__local` pointer to [`WORK_GROUP_SCRATCH_BYTES`] of the
    /// work-group's local memory, aligned to 8: where the work-group
    /// collectives combine their work-items' values.
    pub const GET_WORK_GROUP_SCRATCH: &str = "__mux_get_work_group_scratch";
    /// Bytes behind [`GET_WORK_GROUP_SCRATCH`]: the 8 partial results of
    /// a float reduction (`work_group.h`'s `WG_LANES`) of the widest type a
    /// collective takes (`double`).
    pub const WORK_GROUP_SCRATCH_BYTES: usize = 64;
    /// The kernel's sub-group width, an `i32` constant the compiler
    /// chooses per kernel.
    pub const GET_SUB_GROUP_WIDTH: &str = "__mux_get_sub_group_width";
    /// Where the work-items of a sub-group meet (a sub-group collective,
    /// `sub_group_barrier`): the barrier pass splits there too.
    pub const SUB_GROUP_BARRIER: &str = "__mux_sub_group_barrier";
    /// A `__local` pointer to [`SUB_GROUP_SCRATCH_BYTES`] of the
    /// work-group's local memory, aligned to [`SUB_GROUP_SCRATCH_ALIGN`]: a
    /// slot per lane (8 bytes each, a shuffle's `long` or `double`), which
    /// also holds the widest broadcast value (`double16`, 128 bytes), then
    /// at [`SUB_GROUP_SCRATCH_MASK`] a `u64` mask of the lanes that run the
    /// stretch after a sub-group barrier (bit `i`: sub-group local id `i`),
    /// written by the work-group function before it runs them.
    pub const GET_SUB_GROUP_SCRATCH: &str = "__mux_get_sub_group_scratch";
    /// The widest sub-group: its mask is one `u64`.
    pub const MAX_SUB_GROUP_WIDTH: usize = 64;
    /// Byte offset of the mask in the sub-group scratch.
    pub const SUB_GROUP_SCRATCH_MASK: usize = 8 * MAX_SUB_GROUP_WIDTH;
    /// The alignment of the widest value the slots hold (`double16`).
    pub const SUB_GROUP_SCRATCH_ALIGN: usize = 128;
    pub const SUB_GROUP_SCRATCH_BYTES: usize = SUB_GROUP_SCRATCH_MASK + 8;
    /// Whether a generic pointer points into the work-group's local
    /// memory, an `i1` (`to_local`, `get_fence`).
    pub const IS_LOCAL: &str = "__mux_is_local";
    /// Whether a generic pointer points into the calling work-item's
    /// private memory, an `i1` (`to_private`, `to_global`).
    pub const IS_PRIVATE: &str = "__mux_is_private";
    /// The work-group's chunk of the printf buffer (`passes::printf` calls
    /// them; the library does not).
    pub const GET_PRINTF_BUFFER: &str = "__mux_get_printf_buffer";
    /// Bytes of that chunk, an `i32`.
    pub const GET_PRINTF_BUFFER_SIZE: &str = "__mux_get_printf_buffer_size";
    /// How the names of the builtins that give an image argument's
    /// descriptor (`struct __mux_image`, `cl/image.h`) begin: one per image
    /// type and access, each the identity on the argument's pointer.
    pub const IMAGE_DESCRIPTOR_PREFIX: &str = "__mux_image_descriptor_";
    /// A sampler's `CLK_*` bits, an `i32` (a sampler is that integer).
    pub const SAMPLER_BITS: &str = "__mux_sampler_bits";
    /// What Clang calls to make a `sampler_t` from a constant initializer.
    pub const TRANSLATE_SAMPLER_INITIALIZER: &str = "__translate_sampler_initializer";
}

/// The float and double functions that stay calls until the loop vectorizer has run:
/// their scalar form has a rare path (the exact reduction of huge
/// arguments, exp's arguments near overflow and underflow) that would keep
/// a loop calling them inline from vectorizing, or have it computed for
/// every lane, so the compiler names their vector forms in the scalar
/// function's `vector-function-abi-variant` attribute, and the vectorizer
/// calls those. Every other math function is branch-free and is inlined.
pub mod vector_calls {
    /// The OpenCL C names, each with the element types (as mangled: 'f'
    /// float, 'd' double) whose forms stay calls.
    pub const NAMES: &[(&str, &[char])] = &[
        ("sin", &['f', 'd']),
        ("cos", &['f', 'd']),
        ("tan", &['f', 'd']),
        ("exp", &['d']),
    ];
    /// Every element type of any of them.
    pub const TYPES: &[char] = &['f', 'd'];
    /// The widths of the library's vector forms the vectorizers call.
    pub const WIDTHS: &[u32] = &[2, 3, 4, 8, 16];
    /// The forms a scalar call needs: the widths LLVM's loop vectorizer
    /// and `vecz` call it at.
    pub const SCALAR_WIDTHS: &[u32] = &[4, 8, 16];

    /// How a call of the `width`-lane form is computed for `k` work-items at
    /// once (2, 4 or 8): `(k, lanes, form)`, the `k * width` lanes through
    /// the form of that width, or where the library has none (a 3-vector's
    /// 6 and 12) through the next one up, its extra lanes padded.
    pub fn over_work_items(width: u32) -> impl Iterator<Item = (u32, u32, u32)> {
        [2, 4, 8].into_iter().filter_map(move |k| {
            let lanes = k * width;
            let form = if WIDTHS.contains(&lanes) {
                lanes
            } else {
                lanes.next_power_of_two()
            };
            WIDTHS.contains(&form).then_some((k, lanes, form))
        })
    }

    /// The forms a call of the overload of `width` lanes (`None`: the
    /// scalar) needs: [`SCALAR_WIDTHS`] for a scalar, for a vector form
    /// itself and those [`over_work_items`] computes its calls with.
    pub fn forms_needed(width: Option<u32>) -> Vec<u32> {
        match width {
            None => SCALAR_WIDTHS.to_vec(),
            Some(w) => std::iter::once(w)
                .chain(over_work_items(w).map(|(_, _, form)| form))
                .collect(),
        }
    }
    /// Library functions whose float or double forms call some of them: a
    /// program calling one needs the vector forms of those too, of the
    /// caller's type, or of double where the called function stays a call
    /// in double only (a float function computed in double).
    pub const CALLED_BY: &[(&str, &[&str])] = &[
        ("sincos", &["sin", "cos"]),
        ("native_sin", &["sin"]),
        ("native_cos", &["cos"]),
        ("native_tan", &["tan"]),
        ("half_sin", &["sin"]),
        ("half_cos", &["cos"]),
        ("half_tan", &["tan"]),
        ("tgamma", &["exp"]),
    ];

    /// Every function that stays a call, with its element type.
    pub fn all() -> impl Iterator<Item = (&'static str, char)> {
        NAMES
            .iter()
            .flat_map(|&(n, tys)| tys.iter().map(move |&ty| (n, ty)))
    }

    fn types_of(name: &str) -> &'static [char] {
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(&[], |(_, tys)| tys)
    }

    /// The mangled name of `name(float)` (`ty` 'f') or `name(double)` ('d');
    /// also how the name of any of its overloads with a first parameter of
    /// that type begins.
    pub fn scalar(name: &str, ty: char) -> String {
        format!("_Z{}{name}{ty}", name.len())
    }

    /// The width of `name`'s overload on `ty` that `mangled` is (`exact`)
    /// or begins as (a parameter after the first): `Some(None)` for the
    /// scalar, `Some(Some(w))` for the `w`-lane form.
    fn overload_width(mangled: &str, name: &str, ty: char, exact: bool) -> Option<Option<u32>> {
        let is = |o: String| {
            if exact {
                mangled == o
            } else {
                mangled.starts_with(&o)
            }
        };
        if is(scalar(name, ty)) {
            return Some(None);
        }
        WIDTHS
            .iter()
            .find(|&&w| is(vector(name, w, ty)))
            .map(|&w| Some(w))
    }

    /// Which of [`NAMES`], of which type, a program that calls `mangled` (a
    /// function of the library) calls, directly or through the library,
    /// and the width of the overload called (`None`: the scalar), whose
    /// [`forms_needed`] it needs.
    pub fn needed_by(
        mangled: &str,
    ) -> impl Iterator<Item = (&'static str, char, Option<u32>)> + '_ {
        let direct =
            all().filter_map(move |(n, ty)| Some((n, ty, overload_width(mangled, n, ty, true)?)));
        let through = TYPES.iter().flat_map(move |&ty| {
            CALLED_BY.iter().flat_map(move |&(caller, called)| {
                let width = overload_width(mangled, caller, ty, false);
                called.iter().filter_map(move |&n| {
                    let tys = types_of(n);
                    let t = if tys.contains(&ty) { ty } else { 'd' };
                    tys.contains(&t).then_some((n, t, width?))
                })
            })
        });
        direct.chain(through)
    }

    /// The mangled name of `name(floatN)` (`ty` 'f') or `name(doubleN)`.
    pub fn vector(name: &str, width: u32, ty: char) -> String {
        format!("_Z{}{name}Dv{width}_{ty}", name.len())
    }

    #[cfg(test)]
    mod tests {
        use super::{forms_needed, needed_by};

        fn needed(mangled: &str) -> Vec<(&'static str, char)> {
            let mut v: Vec<_> = needed_by(mangled).map(|(n, ty, _)| (n, ty)).collect();
            v.sort_unstable();
            v
        }

        fn widths(mangled: &str) -> Vec<Vec<u32>> {
            needed_by(mangled)
                .map(|(_, _, w)| forms_needed(w))
                .collect()
        }

        #[test]
        fn a_program_needs_the_vector_forms_of_what_it_calls_directly_or_through_the_library() {
            assert_eq!(needed("_Z3sinf"), [("sin", 'f')]);
            assert_eq!(needed("_Z3expd"), [("exp", 'd')]);
            // float exp is branch-free: inlined, no vector form needed.
            assert!(needed("_Z3expf").is_empty());
            assert_eq!(needed("_Z6sincosdPd"), [("cos", 'd'), ("sin", 'd')]);
            // float tgamma is computed in double, through double exp.
            assert_eq!(needed("_Z6tgammaf"), [("exp", 'd')]);
            assert!(needed("_Z4sqrtd").is_empty());
            // A vector form: the others, for wider work.
            assert_eq!(needed("_Z3sinDv8_f"), [("sin", 'f')]);
            assert_eq!(needed("_Z3cosDv4_d"), [("cos", 'd')]);
            assert_eq!(needed("_Z3sinDv2_d"), [("sin", 'd')]);
            assert_eq!(needed("_Z3sinDv2_f"), [("sin", 'f')]);
            assert_eq!(needed("_Z3cosDv3_f"), [("cos", 'f')]);
            assert!(needed("_Z3sinDv6_f").is_empty());
            // Each call the forms it may become.
            assert_eq!(widths("_Z3sinf"), [[4, 8, 16]]);
            assert_eq!(widths("_Z3sinDv8_f"), [vec![8, 16]]);
            assert_eq!(widths("_Z3sinDv3_f"), [[3, 8, 16]]);
            assert_eq!(widths("_Z3sinDv2_d"), [[2, 4, 8, 16]]);
            // A vector sincos calls sin and cos of its width.
            assert_eq!(needed("_Z6sincosDv4_fPS_"), [("cos", 'f'), ("sin", 'f')]);
            assert_eq!(widths("_Z6sincosDv4_fPS_"), [[4, 8, 16], [4, 8, 16]]);
        }
    }
}
