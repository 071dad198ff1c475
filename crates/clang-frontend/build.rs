use std::process::Command;

fn llvm_config(arg: &str) -> String {
    let out = Command::new("llvm-config-22")
        .arg(arg)
        .output()
        .expect("llvm-config-22 not found: install llvm-22-dev (see README)");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn main() {
    println!("cargo:rerun-if-changed=src/shim.cpp");
    let include = llvm_config("--includedir");
    let libdir = llvm_config("--libdir");
    cc::Build::new()
        .cpp(true)
        .file("src/shim.cpp")
        .include(&include)
        .flag("-std=c++17")
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        .flag("-w")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .compile("ferrocl_clang_shim");
    println!("cargo:rustc-link-search=native={libdir}");
    println!("cargo:rustc-link-lib=dylib=clang-cpp");
    println!("cargo:rustc-link-lib=dylib=LLVM-22");
    // The resource directory holds opencl-c-base.h; Debian's path is fixed per version.
    let clang = Command::new("clang-22")
        .arg("-print-resource-dir")
        .output()
        .expect("clang-22 not found: install clang-22 (see README)");
    let resource = String::from_utf8(clang.stdout).unwrap().trim().to_string();
    println!("cargo:rustc-env=FERROCL_CLANG_RESOURCE_DIR={resource}");
}
