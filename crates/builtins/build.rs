//! Compiles the library's OpenCL C sources to one LLVM bitcode file with
//! clang-22 (the "bakery": the bitcode is embedded in the driver).
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let src = PathBuf::from("src/cl");
    println!("cargo:rerun-if-changed=src/cl");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    sources.sort();
    let mut bitcode = Vec::new();
    for s in &sources {
        let bc = out.join(s.file_stem().unwrap()).with_extension("bc");
        let status = Command::new("clang-22")
            .args([
                "-cc1",
                "-triple",
                "x86_64-unknown-linux-gnu",
                "-emit-llvm-bc",
            ])
            .args([
                "-cl-std=CL3.0",
                "-finclude-default-header",
                "-ffake-address-space-map",
                // Declares what the library defines (atom_* and friends).
                "-cl-ext=+cl_khr_global_int32_base_atomics,+cl_khr_global_int32_extended_atomics,\
                 +cl_khr_local_int32_base_atomics,+cl_khr_local_int32_extended_atomics,\
                 +cl_khr_int64_base_atomics,+cl_khr_int64_extended_atomics,\
                 +cl_khr_extended_bit_ops,+cl_khr_integer_dot_product,\
                 +__opencl_c_integer_dot_product_input_4x8bit,\
                 +__opencl_c_integer_dot_product_input_4x8bit_packed,\
                 +cl_khr_kernel_clock,+__opencl_c_kernel_clock_scope_device,\
                 +__opencl_c_kernel_clock_scope_work_group,\
                 +__opencl_c_generic_address_space,+cl_khr_fp16,+__opencl_c_fp16",
            ])
            .args(["-cl-ext=+__opencl_c_work_group_collective_functions"])
            .args([
                "-cl-ext=+cl_khr_subgroups,+__opencl_c_subgroups,\
                 +cl_khr_subgroup_extended_types,+cl_khr_subgroup_non_uniform_vote,\
                 +cl_khr_subgroup_ballot,+cl_khr_subgroup_non_uniform_arithmetic,\
                 +cl_khr_subgroup_shuffle,+cl_khr_subgroup_shuffle_relative,\
                 +cl_khr_subgroup_clustered_reduce,+cl_khr_subgroup_rotate,\
                 +__opencl_c_kernel_clock_scope_sub_group,\
                 +cl_intel_subgroups,+cl_intel_subgroups_char,+cl_intel_subgroups_short,\
                 +cl_intel_subgroups_long,+cl_intel_subgroup_local_block_io,\
                 +cl_intel_bfloat16_conversions",
            ])
            .args([
                "-cl-ext=+__opencl_c_images,+__opencl_c_read_write_images,\
                 +__opencl_c_3d_image_writes,+cl_khr_3d_image_writes",
            ])
            .args([
                "-cl-ext=+cl_ext_float_atomics,\
                 +__opencl_c_ext_fp32_global_atomic_add,+__opencl_c_ext_fp32_local_atomic_add,\
                 +__opencl_c_ext_fp32_global_atomic_min_max,+__opencl_c_ext_fp32_local_atomic_min_max,\
                 +__opencl_c_ext_fp64_global_atomic_add,+__opencl_c_ext_fp64_local_atomic_add,\
                 +__opencl_c_ext_fp64_global_atomic_min_max,+__opencl_c_ext_fp64_local_atomic_min_max",
            ])
            // The library's own divisions and roots are the exact ones its
            // error bounds are worked out with: no `!fpmath` lets
            // `passes::reciprocal_estimates` make them estimates.
            .arg("-cl-fp32-correctly-rounded-divide-sqrt")
            .args(["-O2", "-fno-builtin"])
            .arg("-resource-dir")
            .arg(resource_dir())
            .arg("-internal-isystem")
            .arg(format!("{}/include", resource_dir()))
            .arg("-I")
            .arg(&src)
            .arg("-o")
            .arg(&bc)
            .arg(s)
            .status()
            .expect("clang-22 not found: install clang-22 (see README)");
        assert!(status.success(), "compiling {} failed", s.display());
        bitcode.push(bc);
    }
    let linked = out.join("builtins.bc");
    let status = Command::new("llvm-link-22")
        .args(&bitcode)
        .arg("-o")
        .arg(&linked)
        .status()
        .expect("llvm-link-22 not found: install llvm-22 (see README)");
    assert!(status.success(), "linking the builtins failed");
}

fn resource_dir() -> String {
    let out = Command::new("clang-22")
        .arg("-print-resource-dir")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}
