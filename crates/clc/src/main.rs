//! `clc`, the offline compiler: OpenCL C (or SPIR-V) in, a ferrocl program
//! binary out, the one `clCreateProgramWithBinary` loads (seed 000's clc).
//! An executable carries its kernels' machine code for this CPU (or
//! `--target-cpu`): for the local sizes `--local-size` names, and a generic
//! form for any other (kernels without barriers); loading it then runs no
//! compiler.
//!
//! It also speaks the Khronos CTS's offline-compiler interface
//! (`--source F --output F --cl-device-info F --mode binary -- OPTIONS`).

use clap::{Parser, ValueEnum};
use compiler::{BuildOptions, Machine, ProgramModule, Specialization, SpecializedCode};
use host::cpu::LEVELS;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "clc",
    version,
    about = "The ferrocl offline compiler: OpenCL C or SPIR-V to a program binary",
    after_help = "OpenCL C build options (-cl-std=, -cl-opt-disable, -cl-mad-enable, -cl-fast-relaxed-math, \
-cl-denorms-are-zero, -cl-kernel-arg-info, any -cl-* option clBuildProgram takes, -w, -Werror) are \
given as they are.\nThe Khronos CTS's interface is taken too: \
clc --source F --output F --cl-device-info F --mode binary -- [OPTIONS]"
)]
struct Args {
    /// Input files (OpenCL C, or SPIR-V with -x spirv).
    inputs: Vec<PathBuf>,
    /// The binary to write.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Define a macro: NAME or NAME=VALUE.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    defines: Vec<String>,
    /// Add a directory to the include search path.
    #[arg(short = 'I', value_name = "DIR")]
    includes: Vec<PathBuf>,
    /// Compile only: write a compiled object (to link with clLinkProgram).
    #[arg(short = 'c')]
    compile_only: bool,
    /// Link the inputs into a library.
    #[arg(long = "create-library")]
    create_library: bool,
    /// The input language.
    #[arg(short = 'x', value_enum, default_value = "cl")]
    language: Language,
    /// What to write.
    #[arg(long, value_enum, default_value = "bin")]
    emit: Emit,
    /// The CPU machine code is for (a name from --list-targets, or any LLVM
    /// knows; default: this one).
    #[arg(long = "target-cpu", value_name = "CPU")]
    target_cpu: Option<String>,
    /// List the CPUs --target-cpu names.
    #[arg(long = "list-targets")]
    list_targets: bool,
    /// Compile each kernel's machine code for this local size (X[,Y[,Z]])
    /// into the binary; may be given several times. A kernel with
    /// reqd_work_group_size gets code for that size alone, always.
    #[arg(long = "local-size", value_name = "X[,Y[,Z]]")]
    local_sizes: Vec<String>,
    /// The CTS interface: the OpenCL C source.
    #[arg(long = "source", value_name = "FILE", hide = true)]
    source: Option<PathBuf>,
    /// The CTS interface: the device's description (read, not needed).
    #[arg(long = "cl-device-info", value_name = "FILE", hide = true)]
    device_info: Option<PathBuf>,
    /// The CTS interface: `binary` (SPIR-V is made by Clang, not here).
    #[arg(long = "mode", value_name = "MODE", hide = true)]
    mode: Option<String>,
    /// Build options after `--`, as clBuildProgram takes them.
    #[arg(last = true)]
    build_options: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Language {
    Cl,
    Spirv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// The program's LLVM IR, as text.
    Llvm,
    /// Each kernel's assembly for the target CPU and local size.
    Asm,
    /// The program binary.
    Bin,
}

fn machine(cpu: Option<&str>) -> Machine {
    let host = compiler::Target::machine(&host::HostTarget::new());
    match cpu {
        None | Some("host") | Some("native") => host,
        Some(name) => match LEVELS.iter().position(|(n, _)| *n == name) {
            Some(i) => Machine {
                cpu: name.to_string(),
                features: LEVELS[..=i]
                    .iter()
                    .map(|(_, f)| *f)
                    .collect::<Vec<_>>()
                    .join(","),
            },
            None if name == host.cpu => host,
            None => Machine {
                cpu: name.to_string(),
                features: String::new(),
            },
        },
    }
}

/// Splits off the options written the way `clBuildProgram` takes them
/// (`-cl-*`, `-w`, `-Werror`, `-g`), which are no flags clap knows.
fn split_build_options(args: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut rest = Vec::new();
    let mut options = Vec::new();
    let mut after_dashes = false;
    for a in args {
        if a == "--" {
            after_dashes = true;
        }
        let ours =
            !after_dashes && (a.starts_with("-cl-") || a == "-w" || a == "-Werror" || a == "-g");
        if ours {
            options.push(a);
        } else {
            rest.push(a);
        }
    }
    (rest, options)
}

fn parse_local_size(text: &str) -> Result<[usize; 3], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("bad --local-size {text}"));
    }
    let mut size = [1usize; 3];
    for (d, p) in parts.iter().enumerate() {
        size[d] = p
            .trim()
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| format!("bad --local-size {text}"))?;
    }
    Ok(size)
}

/// The build options string: `-D`, `-I` and the rest, quoted for the parser.
fn options_text(args: &Args, extra: &[String]) -> String {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut words = Vec::new();
    for d in &args.defines {
        words.push(format!("-D{}", quote(d)));
    }
    for i in &args.includes {
        words.push(format!("-I{}", quote(&i.to_string_lossy())));
    }
    words.extend(extra.iter().cloned());
    words.extend(args.build_options.iter().cloned());
    words.join(" ")
}

/// A build log in Clang's format, naming the file as given.
fn diagnostics(log: &str, file: &Path) {
    let name = file.display().to_string();
    for line in log.lines() {
        match line.strip_prefix("input.cl:") {
            Some(rest) => eprintln!("{name}:{rest}"),
            None => eprintln!("{line}"),
        }
    }
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("clc: error: {msg}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    let (argv, extra) = split_build_options(std::env::args().collect());
    let args = Args::parse_from(argv);
    if args.list_targets {
        let host = machine(None);
        println!("host (this CPU: {})", host.cpu);
        for (name, _) in LEVELS {
            println!("{name}");
        }
        return ExitCode::SUCCESS;
    }
    let mut inputs = args.inputs.clone();
    inputs.extend(args.source.clone());
    if inputs.is_empty() {
        return fail("no input files");
    }
    if let Some(mode) = &args.mode {
        if mode != "binary" {
            return fail(&format!("--mode {mode}: only binary is made here"));
        }
    }
    let _ = &args.device_info;
    let text = options_text(&args, &extra);
    let options = match BuildOptions::parse(&text) {
        Ok(o) => o,
        Err(e) => return fail(&format!("invalid build options: {}", e.0)),
    };
    let local_sizes = match args
        .local_sizes
        .iter()
        .map(|s| parse_local_size(s))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) => v,
        Err(e) => return fail(&e),
    };
    if args.compile_only && inputs.len() > 1 {
        return fail("cannot specify -o when generating multiple output files (-c)");
    }
    let target_machine = machine(args.target_cpu.as_deref());
    let target = host::HostTarget::for_machine(&target_machine);
    let front_cpu = compiler::Target::cpu(&target).to_string();

    // Each input compiled; several, or a library, linked.
    let whole = !args.compile_only && !args.create_library && inputs.len() == 1;
    let mut modules = Vec::new();
    for file in &inputs {
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => return fail(&format!("{}: {e}", file.display())),
        };
        let built = match (args.language, whole) {
            (Language::Cl, true) => ProgramModule::compile(&bytes, &options, &front_cpu, &[]),
            (Language::Cl, false) => {
                ProgramModule::compile_object(&bytes, &options, &front_cpu, &[])
            }
            (Language::Spirv, true) => {
                ProgramModule::compile_il(&bytes, &Default::default(), &options)
            }
            (Language::Spirv, false) => {
                ProgramModule::compile_il_object(&bytes, &Default::default(), &options)
            }
        };
        match built {
            Ok(m) => {
                diagnostics(&m.log, file);
                modules.push(m);
            }
            Err(e) => {
                diagnostics(&e.log, file);
                return ExitCode::FAILURE;
            }
        }
    }
    let program = if whole || args.compile_only {
        modules.pop().unwrap()
    } else {
        let views: Vec<&ProgramModule> = modules.iter().collect();
        match ProgramModule::link(&views, args.create_library) {
            Ok(p) => p,
            Err(e) => {
                eprint!("{}", e.log);
                return ExitCode::FAILURE;
            }
        }
    };

    let specs = |k: &compiler::KernelInfo| -> Vec<Specialization> {
        // A kernel that requires a size runs at no other: its code is made
        // for it (the only size it takes) whatever --local-size says.
        let mut sizes = match k.reqd_work_group_size {
            Some(r) => vec![r],
            None => local_sizes.clone(),
        };
        if sizes.is_empty() && args.emit == Emit::Asm {
            sizes.push([16, 1, 1]);
        }
        sizes
            .into_iter()
            .map(|s| Specialization {
                local_size: s,
                enqueued_local_size: s,
                streaming: 0,
                images: [None; compiler::MAX_SPECIALIZED_IMAGES],
            })
            .collect()
    };
    let output: Vec<u8> = match args.emit {
        Emit::Llvm => match program_ir(&program) {
            Ok(ir) => ir.into_bytes(),
            Err(e) => return fail(&e),
        },
        Emit::Asm => {
            let mut out = String::new();
            for k in program.kernels() {
                for spec in specs(k) {
                    match target.assembly(&program, k, spec) {
                        Ok(a) => out.push_str(&a),
                        Err(e) => return fail(&format!("kernel {}: {e}", k.name)),
                    }
                }
            }
            out.into_bytes()
        }
        Emit::Bin => {
            let mut code = Vec::new();
            if program.kind == compiler::ModuleKind::Executable {
                for k in program.kernels() {
                    for spec in specs(k) {
                        match target.executable(&program, k, spec) {
                            Ok(e) => code.push(SpecializedCode {
                                kernel: k.name.clone(),
                                spec,
                                executable: e.into(),
                            }),
                            Err(e) => return fail(&format!("kernel {}: {e:?}", k.name)),
                        }
                    }
                    // Any other local size: the generic form, where there is
                    // one (no barriers).
                    if k.reqd_work_group_size.is_none() && !k.uses_barrier {
                        let generic = Specialization::GENERIC;
                        match target.executable(&program, k, generic) {
                            Ok(e) => code.push(SpecializedCode {
                                kernel: k.name.clone(),
                                spec: generic,
                                executable: e.into(),
                            }),
                            Err(e) => return fail(&format!("kernel {}: {e:?}", k.name)),
                        }
                    }
                }
            }
            program.to_binary_with(&code, &target_machine)
        }
    };
    let out_path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(match args.emit {
            Emit::Llvm => "a.ll",
            Emit::Asm => "a.s",
            Emit::Bin => "a.bin",
        })
    });
    let written = if out_path.as_os_str() == "-" {
        use std::io::Write;
        std::io::stdout().write_all(&output)
    } else {
        std::fs::write(&out_path, &output)
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&format!("{}: {e}", out_path.display())),
    }
}

/// The program's IR as text.
fn program_ir(p: &ProgramModule) -> Result<String, String> {
    let ctx = compiler::Context::new();
    // SAFETY: the module lives in `ctx`, this thread's, and is disposed of
    // before it.
    unsafe {
        let m = p.load(ctx.0)?;
        let text = compiler::llvm::print_module(m);
        llvm_sys::core::LLVMDisposeModule(m);
        Ok(text)
    }
}
