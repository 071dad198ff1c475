//! ferrocl-bench: the same OpenCL kernels on every platform the ICD loader
//! shows, each result checked against a host reference, each figure beside
//! its ratio to ferrocl, plus the machine's own FMA peak and triad
//! bandwidth for scale.

mod check;
mod data;
mod kernels;
mod machine;
mod platforms;
mod report;
mod runner;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use runner::Row;

#[derive(Parser)]
#[command(about = "Runs the same OpenCL kernels on every platform present and compares them")]
struct Args {
    /// Where to write every figure as JSON.
    #[arg(long, default_value = "build/bench/results.json")]
    json: PathBuf,
    /// Where to draw the ratio chart (SVG).
    #[arg(long, default_value = "build/bench/ratios.svg")]
    svg: PathBuf,
    /// Timed runs of each kernel on each platform (the best counts).
    #[arg(short = 'n', long, default_value_t = 7, value_parser = clap::value_parser!(u64).range(1..))]
    reps: u64,
    /// Only the benchmarks whose names contain one of these (comma-separated).
    #[arg(short, long, value_delimiter = ',')]
    filter: Vec<String>,
    /// Only the platforms whose names contain one of these (comma-separated,
    /// case-insensitive), e.g. `ferrocl,pocl`.
    #[arg(short, long, value_delimiter = ',')]
    platforms: Vec<String>,
    /// Skip measuring the machine's FMA peak and triad bandwidth.
    #[arg(long)]
    no_machine: bool,
    /// Also run every kernel on ferrocl as the SPIR-V `clang-22
    /// --target=spirv64` makes of its source (a `ferrocl-spirv` column).
    #[arg(long)]
    spirv: bool,
    /// List the benchmark names and exit.
    #[arg(long)]
    list: bool,
    /// Internal (the build-cached row): build and launch the harness's
    /// source once on the platform with this label, print the milliseconds.
    #[arg(long, hide = true)]
    cached_build_child: Option<String>,
    /// Internal (the build-binary row): build the binary in the file given
    /// after the label on that platform, launch once, print the milliseconds.
    #[arg(long, hide = true, num_args = 2, value_names = ["LABEL", "FILE"])]
    binary_build_child: Option<Vec<String>>,
}

/// The whole-program figures, in the order they must run: the cold build
/// has to be the first build in the process.
const PROGRAM_ROWS: [&str; 7] = [
    "build-cold",
    "build-second",
    "build-cached",
    "build-binary",
    "launch-latency",
    "kernel-then-read",
    "throughput",
];

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(label) = &args.cached_build_child {
        return cached_build_child(label);
    }
    if let Some(v) = &args.binary_build_child {
        return binary_build_child(&v[0], &v[1]);
    }
    // Both platforms keep compiled kernels on disk between processes; the
    // build figures are for building from source. Set before any OpenCL
    // call; an explicit setting wins.
    for cache in ["POCL_KERNEL_CACHE", "FERROCL_CACHE"] {
        if std::env::var_os(cache).is_none() {
            std::env::set_var(cache, "0");
        }
    }

    let benchmarks = kernels::all();
    let selected = |name: &str| {
        args.filter.is_empty() || args.filter.iter().any(|f| name.contains(f.as_str()))
    };
    if args.list {
        for name in PROGRAM_ROWS
            .iter()
            .copied()
            .chain(benchmarks.iter().map(|b| b.name()))
        {
            println!("{name}");
        }
        return ExitCode::SUCCESS;
    }

    // Before OpenCL starts any threads of its own.
    let machine = (!args.no_machine).then(|| {
        eprintln!("measuring the machine's FMA peak and triad bandwidth...");
        machine::measure(kernels::TRIAD_LEN)
    });
    if let Some(m) = &machine {
        eprintln!(
            "{} ({} cores): FMA peak {:.1} GFLOP/s ({}), triad {:.1} GB/s",
            m.cpu, m.cores, m.fma_gflops_f32, m.isa, m.triad_gbs
        );
    }

    let targets = match platforms::discover(&args.platforms, args.spirv) {
        Ok(t) if !t.is_empty() => t,
        Ok(_) => {
            eprintln!("no OpenCL platform matches");
            return ExitCode::FAILURE;
        }
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for t in &targets {
        eprintln!(
            "platform {}: {} — {} ({})",
            t.label, t.platform_name, t.device_name, t.version
        );
    }

    let reps = args.reps as usize;
    let source = kernels::whole_source();
    if args.spirv {
        // Clang's time is not the device's: every module is made first.
        let parts = kernels::sources();
        let made = parts
            .iter()
            .map(|s| platforms::spirv_of(s).map(drop))
            .chain([platforms::spirv_of_parts(&source, &parts).map(drop)]);
        for r in made {
            if let Err(e) = r {
                eprintln!("no SPIR-V of a source: {e}");
            }
        }
    }
    let mut rows: Vec<Row> = Vec::new();
    let progress = |name: &str| eprintln!("running {name}...");
    if selected("build-cold") {
        progress("build-cold");
        rows.push(runner::cold_build(&source, &targets));
    }
    if selected("build-second") {
        progress("build-second");
        rows.push(runner::second_build(&source, &targets, reps.min(3)));
    }
    if selected("build-cached") {
        progress("build-cached");
        rows.push(runner::cached_build(&targets, reps.min(3)));
    }
    if selected("build-binary") {
        progress("build-binary");
        rows.push(runner::binary_build(&source, &targets, reps.min(3)));
    }
    if selected("launch-latency") {
        progress("launch-latency");
        rows.push(runner::launch_latency(&targets, 10, 300));
    }
    if selected("kernel-then-read") {
        progress("kernel-then-read");
        rows.push(runner::kernel_then_read(&targets, 10, 300));
    }
    if selected("throughput") {
        progress("throughput");
        rows.push(runner::throughput(&targets, 10, 2000));
    }
    for b in benchmarks.iter().filter(|b| selected(b.name())) {
        progress(b.name());
        rows.push(runner::kernel(b.as_ref(), &targets, reps));
    }

    let run = report::Run {
        targets: &targets,
        machine: machine.as_ref(),
        rows: &rows,
        reps,
    };
    println!();
    report::table::print(&run);
    let mut status = ExitCode::SUCCESS;
    for (what, r) in [
        ("JSON", report::json::write(&run, &args.json)),
        ("chart", report::chart::write(&run, &args.svg)),
    ] {
        if let Err(e) = r {
            eprintln!("writing the {what}: {e}");
            status = ExitCode::FAILURE;
        }
    }
    println!(
        "\nfigures: {}  chart: {}",
        args.json.display(),
        args.svg.display()
    );
    let failed = rows
        .iter()
        .flat_map(|r| &r.cells)
        .filter(|c| c.is_failure())
        .count();
    if failed > 0 {
        println!("{failed} result(s) failed to build or check");
        status = ExitCode::FAILURE;
    }
    status
}

/// The child process of the build-binary row: the binary in `file` built
/// and launched once on the platform labelled `label`.
fn binary_build_child(label: &str, file: &str) -> ExitCode {
    // A binary is a binary: the `-spirv` platform's came from its module.
    let spirv = label.ends_with("-spirv");
    let platform = label.trim_end_matches("-spirv").to_string();
    let targets = match platforms::discover(&[platform], spirv) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let (Some(t), Ok(binary)) = (
        targets.iter().find(|t| t.label == label),
        std::fs::read(file),
    ) else {
        eprintln!("no platform labelled {label}, or no binary {file}");
        return ExitCode::FAILURE;
    };
    match runner::binary_build_and_launch(t, &binary) {
        Ok(ms) => {
            println!("{ms}");
            ExitCode::SUCCESS
        }
        Err(_) => {
            eprintln!("build from binary or launch failed");
            ExitCode::FAILURE
        }
    }
}

/// The child process of the build-cached row: one build and launch on the
/// platform labelled `label`, with the cache the parent set up.
fn cached_build_child(label: &str) -> ExitCode {
    let spirv = label.ends_with("-spirv");
    if spirv {
        // The module is made before the clock starts, as in the parent.
        if let Err(e) = platforms::spirv_of_parts(&kernels::whole_source(), &kernels::sources()) {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    }
    let platform = label.trim_end_matches("-spirv").to_string();
    let targets = match platforms::discover(&[platform], spirv) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let Some(t) = targets.iter().find(|t| t.label == label) else {
        eprintln!("no platform labelled {label}");
        return ExitCode::FAILURE;
    };
    match runner::build_and_launch(t, &kernels::whole_source()) {
        Ok(ms) => {
            println!("{ms}");
            ExitCode::SUCCESS
        }
        Err(_) => {
            eprintln!("build or launch failed");
            ExitCode::FAILURE
        }
    }
}
