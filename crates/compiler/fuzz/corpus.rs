//! The binary fuzzer's corpus: programs of every binary type built from
//! the OpenCL C below, with kernels of every argument kind, attributes,
//! printf calls and program-scope variables, and stand-in machine code.

use compiler::{BuildOptions, Machine, ProgramModule, Specialization, SpecializedCode};

const SOURCES: &[(&str, &str)] = &[
    (
        "-cl-kernel-arg-info",
        "__kernel __attribute__((reqd_work_group_size(4, 2, 1))) void k(__global int* restrict a,
    __constant float* c, __local int* l, int4 v, float f) {
    l[get_local_id(0)] = a[0] + v.x; barrier(CLK_LOCAL_MEM_FENCE); a[1] = l[1] + (int)(c[0] * f); }
__kernel void img(read_only image2d_t i, sampler_t s, __global float4* o) {
    o[0] = read_imagef(i, s, (int2)(0, 0)); }",
    ),
    (
        "-cl-std=CL3.0 -cl-opt-disable -cl-denorms-are-zero",
        "__global int counter = 3; __global int* where = &counter;
typedef struct { int a; float b; char c; } S;
__kernel void p(S s, __global int* o) { printf(\"%d %f %s %v4hd\\n\", s.a, s.b, \"lit\", (short4)(1));
    *where += s.a; o[0] = counter; }",
    ),
    ("", "int helper(int x) { return x * 3; }"),
];

pub fn load() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (options, source) in SOURCES {
        let o = BuildOptions::parse(options).expect("corpus options");
        let exe = ProgramModule::compile(source.as_bytes(), &o, "x86-64", &[]);
        let object = ProgramModule::compile_object(source.as_bytes(), &o, "x86-64", &[])
            .expect("corpus source compiles");
        let library = ProgramModule::link(&[&object], true).expect("corpus library");
        out.push(object.to_binary());
        out.push(library.to_binary());
        if let Ok(exe) = exe {
            let machine = Machine {
                cpu: "znver3".into(),
                features: "+avx2,+fma,-avx512f".into(),
            };
            // Each kernel at one size, the first in its generic form too.
            let mut code: Vec<SpecializedCode> = exe
                .kernels()
                .iter()
                .enumerate()
                .map(|(i, k)| SpecializedCode {
                    kernel: k.name.clone(),
                    spec: Specialization {
                        local_size: [4, 2, 1],
                        enqueued_local_size: [4, 2, 1],
                        streaming: i as u64,
                        images: [None; compiler::MAX_SPECIALIZED_IMAGES],
                    },
                    executable: vec![0x90u8; 64 + 32 * i].into(),
                })
                .collect();
            if let Some(first) = exe.kernels().first() {
                code.push(SpecializedCode {
                    kernel: first.name.clone(),
                    spec: Specialization::GENERIC,
                    executable: vec![0xccu8; 48].into(),
                });
            }
            out.push(exe.to_binary());
            out.push(exe.to_binary_with(&code, &machine));
        }
    }
    out
}
