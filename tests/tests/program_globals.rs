//! Program-scope global variables (OpenCL C 3.0 6.8 and
//! `__opencl_c_program_scope_global_variables`): `__global` variables at
//! program scope and `static` ones in functions keep their values from one
//! launch to the next and are shared by the program's kernels.

use ferrocl_tests::*;

const STD: &str = "-cl-std=CL3.0";

fn read_one<T: Copy + Default>(e: &Env, m: &Mem) -> T {
    e.read::<T>(m, 0, 1)[0]
}

#[test]
fn values_persist_across_launches_and_kernels() {
    let e = Env::new();
    let src = r#"
global int counter = 5;
global float scale[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
kernel void bump(global int* out) {
    if (get_global_id(0) == 0) { counter += 1; scale[1] *= 2.0f; }
    out[0] = 0;
}
kernel void read_back(global int* out, global float* f) {
    out[0] = counter;
    for (int i = 0; i < 4; i++) f[i] = scale[i];
}
"#;
    let p = e.program(src, STD);
    let bump = ok(create_kernel(p.get(), "bump"), "bump");
    let read = ok(create_kernel(p.get(), "read_back"), "read_back");
    let out = e.buffer_from(&[0i32]);
    let f = e.buffer_from(&[0f32; 4]);
    ok(set_mem(bump.get(), 0, &out), "arg");
    ok(set_mem(read.get(), 0, &out), "arg");
    ok(set_mem(read.get(), 1, &f), "arg");
    e.run(&read, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 5);
    for _ in 0..3 {
        e.run(&bump, &[16], Some(&[4]));
    }
    e.run(&read, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 8);
    assert_eq!(e.read::<f32>(&f, 0, 4), [1.0, 16.0, 3.0, 4.0]);
    // Another program from the same source has variables of its own.
    let (_p2, read2) = e.kernel_opts(src, "read_back", STD);
    ok(set_mem(read2.get(), 0, &out), "arg");
    ok(set_mem(read2.get(), 1, &f), "arg");
    e.run(&read2, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 5);
    // A rebuild starts again from the initializers.
    drop((bump, read));
    check(build_program(p.get(), STD), "rebuild");
    let read = ok(create_kernel(p.get(), "read_back"), "read_back");
    ok(set_mem(read.get(), 0, &out), "arg");
    ok(set_mem(read.get(), 1, &f), "arg");
    e.run(&read, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 5);
}

#[test]
fn pointer_initializers_and_static_variables() {
    let e = Env::new();
    let src = r#"
typedef struct { char c; int16 v; } thing_t;
global long table[3] = { 10, 20, 30 };
global long* global cursor = &table[1];
constant int primes[4] = { 2, 3, 5, 7 };
constant int* global prime = &primes[2];
global thing_t thing = { 'a', (int16)(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15) };
global uchar zeros[100000];

int next_ticket(void) {
    static global int ticket = 100;
    return ticket++;
}

kernel void k(global long* out) {
    out[0] = *cursor;
    cursor++;
    out[1] = *prime;
    out[2] = thing.c + thing.v.s7;
    thing.v.s7 += 1;
    out[3] = next_ticket();
    out[4] = zeros[get_global_id(0) * 997 % 100000];
    zeros[5] = 1;
}
"#;
    let (p, k) = e.kernel_opts(src, "k", STD);
    let out = e.buffer_from(&[0i64; 5]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i64>(&out, 0, 5), [20, 5, 97 + 7, 100, 0]);
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i64>(&out, 0, 5), [30, 5, 97 + 8, 101, 0]);
    let total = ok(
        build_info(
            p.get(),
            device(),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
        ),
        "CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE",
    )
    .usize();
    // table, cursor, primes, prime, thing, zeros and ticket, at least.
    assert!(total >= 24 + 8 + 16 + 8 + 128 + 100000 + 4, "{total}");
    assert!(total < 200000, "{total}");
}

#[test]
fn many_work_items_share_one_variable() {
    let e = Env::new();
    let src = r#"
global atomic_int hits = ATOMIC_VAR_INIT(0);
global int last;
kernel void hit(void) { atomic_fetch_add(&hits, 1); }
kernel void get(global int* out) { out[0] = atomic_load(&hits); }
"#;
    let p = e.program(src, STD);
    let hit = ok(create_kernel(p.get(), "hit"), "hit");
    let get = ok(create_kernel(p.get(), "get"), "get");
    let out = e.buffer_from(&[0i32]);
    ok(set_mem(get.get(), 0, &out), "arg");
    e.run(&hit, &[4096], Some(&[64]));
    e.run(&hit, &[1000], None);
    e.run(&get, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 5096);
}

#[test]
fn separately_compiled_programs_link_their_variables() {
    let e = Env::new();
    let defs = "global int shared_value = 42;\nvoid add(int x) { shared_value += x; }\n";
    let uses = r#"
extern global int shared_value;
void add(int x);
kernel void k(global int* out) { add(1); out[0] = shared_value; }
"#;
    let a = create_program(e.c(), defs);
    let b = create_program(e.c(), uses);
    for p in [&a, &b] {
        check(
            cl!(clCompileProgram(
                p.get(),
                0,
                std::ptr::null(),
                c"-cl-std=CL3.0".as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
                None,
                std::ptr::null_mut()
            )),
            "clCompileProgram",
        );
    }
    let inputs = [a.get(), b.get()];
    let mut rc = 0;
    let linked = cl!(clLinkProgram(
        e.c(),
        0,
        std::ptr::null(),
        std::ptr::null(),
        2,
        inputs.as_ptr(),
        None,
        std::ptr::null_mut(),
        &mut rc
    ));
    check(rc, "clLinkProgram");
    let linked = Prog(linked);
    let k = ok(create_kernel(linked.get(), "k"), "k");
    let out = e.buffer_from(&[0i32]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 43);
    e.run(&k, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 44);
}

#[test]
fn bad_variables_fail_the_build_with_a_log() {
    let e = Env::new();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE),
        "CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE",
    )
    .usize();
    assert!(max >= 64 * 1024, "{max}");
    let too_big = format!(
        "global char big[{}];\nkernel void k(global char* o) {{ o[0] = big[get_global_id(0)]; }}\n",
        max + 1
    );
    match build(e.c(), &too_big, STD) {
        Ok(_) => panic!("a variable above CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE built"),
        Err(f) => assert!(f.log.contains("`big`"), "{}", f.log),
    }
    let undefined =
        "extern global int nowhere;\nkernel void k(global int* o) { o[0] = nowhere; }\n";
    match build(e.c(), undefined, STD) {
        Ok(_) => panic!("an undefined variable built"),
        Err(f) => assert!(f.log.contains("nowhere"), "{}", f.log),
    }
    // OpenCL C 1.2 has no program-scope __global variables: Clang says so.
    match build(
        e.c(),
        "global int g;\nkernel void k(global int* o) { o[0] = g; }\n",
        "",
    ) {
        Ok(_) => panic!("a 1.2 program with a __global variable built"),
        Err(f) => assert!(!f.log.is_empty()),
    }
    // The context still works.
    let (_p, k) = e.kernel_opts(
        "global int g = 3;\nkernel void k(global int* o) { o[0] = g; }",
        "k",
        STD,
    );
    let out = e.buffer_from(&[0i32]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(read_one::<i32>(&e, &out), 3);
}

#[test]
fn the_device_reports_the_feature() {
    let features = ok(
        device_info(device(), CL_DEVICE_OPENCL_C_FEATURES),
        "CL_DEVICE_OPENCL_C_FEATURES",
    )
    .name_versions();
    assert!(features
        .iter()
        .any(|(n, _)| n == "__opencl_c_program_scope_global_variables"));
    let preferred = ok(
        device_info(device(), CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE),
        "CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE",
    )
    .usize();
    assert!(preferred > 0);
}
