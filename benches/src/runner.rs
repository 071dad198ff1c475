//! Runs each benchmark on every platform, alternating the platforms run by
//! run so that drifting machine load falls on all of them alike. Times are
//! host-clock spans around enqueue + clFinish, after a warm-up run that
//! also absorbs compilation at first launch. Each timed kernel run starts
//! after a pause, so that no platform's worker threads, which may spin for
//! a while after a run before they sleep, take cores from the next.

use std::time::{Duration, Instant};

use crate::kernels::{latency, Benchmark, Peak, Prepared, Unit};
use crate::platforms::{mem, Launch, Target};

/// One platform's result for one row.
pub enum Outcome {
    Ok(Timing),
    /// Not offered by the platform (an extension it does not report).
    NotAvailable(String),
    BuildFailed(String),
    /// An error at run time or a wrong result.
    Failed(String),
}

pub struct Timing {
    /// The figure in the row's unit.
    pub value: f64,
    pub best_ms: f64,
    pub median_ms: f64,
    pub times_ms: Vec<f64>,
    /// Build plus first (warm-up) launch, where there was one.
    pub build_ms: Option<f64>,
}

pub struct Row {
    pub name: String,
    pub unit: Unit,
    pub peak: Peak,
    /// What one figure is, for the JSON ("best of 7 runs", ...).
    pub note: String,
    pub cells: Vec<Outcome>,
}

impl Outcome {
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::BuildFailed(_) | Outcome::Failed(_))
    }
}

fn ms_since(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn timing(value: f64, times_ms: Vec<f64>, build_ms: Option<f64>) -> Timing {
    Timing {
        value,
        best_ms: times_ms.iter().copied().fold(f64::INFINITY, f64::min),
        median_ms: median(&times_ms),
        times_ms,
        build_ms,
    }
}

/// Longer than ferrocl's workers watch for more work after a run (200 µs);
/// other runtimes' idle workers may spin a while too.
const SETTLE: Duration = Duration::from_millis(3);

/// One kernel benchmark: prepare and warm up on each platform, then `reps`
/// alternating timed runs, then check each platform's last result.
pub fn kernel(b: &dyn Benchmark, targets: &[Target], reps: usize) -> Row {
    let mut states: Vec<Result<(Box<dyn Prepared + '_>, f64), Outcome>> =
        targets.iter().map(|t| prepare(b, t)).collect();
    let mut times = vec![Vec::new(); targets.len()];
    for _ in 0..reps {
        for (i, t) in targets.iter().enumerate() {
            if let Ok((p, _)) = &mut states[i] {
                std::thread::sleep(SETTLE);
                let start = Instant::now();
                match p.enqueue(t).and_then(|_| t.finish()) {
                    Ok(()) => times[i].push(ms_since(start)),
                    Err(e) => states[i] = Err(Outcome::Failed(e)),
                }
            }
        }
    }
    let cells = states
        .into_iter()
        .zip(targets)
        .zip(times)
        .map(|((state, t), times)| {
            let (mut p, build_ms) = state?;
            p.check(t).map_err(Outcome::Failed)?;
            let best_s = times.iter().copied().fold(f64::INFINITY, f64::min) / 1e3;
            Ok(timing(
                b.work() / best_s / b.unit().scale(),
                times,
                Some(build_ms),
            ))
        })
        .map(Outcome::from)
        .collect();
    Row {
        name: b.name().into(),
        unit: b.unit(),
        peak: b.peak(),
        note: format!("best of {reps} runs"),
        cells,
    }
}

impl From<Result<Timing, Outcome>> for Outcome {
    fn from(r: Result<Timing, Outcome>) -> Self {
        r.map_or_else(|o| o, Outcome::Ok)
    }
}

/// Builds, binds and runs once; the build plus that first run in ms.
fn prepare<'a>(b: &'a dyn Benchmark, t: &Target) -> Result<(Box<dyn Prepared + 'a>, f64), Outcome> {
    if b.needs_fp64() && !t.fp64 {
        return Err(Outcome::NotAvailable("no cl_khr_fp64".into()));
    }
    if b.needs_fp16() && !t.fp16 {
        return Err(Outcome::NotAvailable("no cl_khr_fp16".into()));
    }
    if b.needs_sub_groups() && !t.sub_groups {
        return Err(Outcome::NotAvailable("no sub-groups".into()));
    }
    let start = Instant::now();
    let program = t.build(b.source()).map_err(Outcome::BuildFailed)?;
    let build_ms = ms_since(start);
    let mut p = b.prepare(t, &program).map_err(Outcome::Failed)?;
    let start = Instant::now();
    p.enqueue(t)
        .and_then(|_| t.finish())
        .map_err(Outcome::Failed)?;
    Ok((p, build_ms + ms_since(start)))
}

/// Builds `source` and launches its triad kernel once on a small range:
/// some implementations compile a kernel only at its first launch.
pub fn build_and_launch(t: &Target, source: &str) -> Result<f64, Outcome> {
    let a = t.alloc::<f32>(1024).map_err(Outcome::Failed)?;
    let start = Instant::now();
    let program = t.build(source).map_err(Outcome::BuildFailed)?;
    let args = [mem(&a), mem(&a), mem(&a), crate::platforms::val(1.0f32)];
    Launch::new(&program, "triad_f32", &args, &[1024], None)
        .and_then(|l| l.enqueue(t))
        .and_then(|_| t.finish())
        .map_err(Outcome::Failed)?;
    Ok(ms_since(start))
}

/// The first build in the process of the whole harness source, plus one
/// launch: must run before any other build.
pub fn cold_build(source: &str, targets: &[Target]) -> Row {
    let cells = targets
        .iter()
        .map(|t| {
            build_and_launch(t, source)
                .map(|ms| timing(ms, vec![ms], None))
                .into()
        })
        .collect();
    Row {
        name: "build-cold".into(),
        unit: Unit::Ms,
        peak: Peak::None,
        note: "first clBuildProgram of the whole source in the process, plus one launch".into(),
        cells,
    }
}

/// The launch every build row ends with: the triad kernel once.
fn launch_triad(t: &Target, program: &opencl3::program::Program) -> Result<(), Outcome> {
    let a = t.alloc::<f32>(1024).map_err(Outcome::Failed)?;
    let args = [mem(&a), mem(&a), mem(&a), crate::platforms::val(1.0f32)];
    Launch::new(program, "triad_f32", &args, &[1024], None)
        .and_then(|l| l.enqueue(t))
        .and_then(|_| t.finish())
        .map_err(Outcome::Failed)
}

/// The program binary of `source` after one launch, so it holds the
/// launched kernel's machine code where the platform keeps it.
pub fn binary_after_launch(t: &Target, source: &str) -> Result<Vec<u8>, Outcome> {
    let program = t.build(source).map_err(Outcome::BuildFailed)?;
    launch_triad(t, &program)?;
    let mut binaries = program
        .get_binaries()
        .map_err(|e| Outcome::Failed(format!("CL_PROGRAM_BINARIES: {e}")))?;
    binaries
        .pop()
        .filter(|b| !b.is_empty())
        .ok_or_else(|| Outcome::Failed("no binary".into()))
}

/// `clCreateProgramWithBinary` + `clBuildProgram` of `binary`, plus one
/// launch, in milliseconds.
pub fn binary_build_and_launch(t: &Target, binary: &[u8]) -> Result<f64, Outcome> {
    let start = Instant::now();
    let program = t.build_binary(binary).map_err(Outcome::BuildFailed)?;
    launch_triad(t, &program)?;
    Ok(ms_since(start))
}

/// The source's binary (taken after one launch) built and launched once in
/// a fresh process with no on-disk cache: what an application that ships
/// binaries pays at each start. Each platform gets its own process (this
/// program, run with `--binary-build-child <label> <file>`); `rounds` are
/// timed, alternating the platforms; the best counts.
pub fn binary_build(source: &str, targets: &[Target], rounds: usize) -> Row {
    let dir = std::env::temp_dir().join(format!("ferrocl-bench-binary-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    // A platform whose source did not build or run has no binary: why.
    let files: Vec<Result<std::path::PathBuf, String>> = targets
        .iter()
        .map(|t| {
            let b = binary_after_launch(t, source).map_err(|o| match o {
                Outcome::BuildFailed(e) | Outcome::Failed(e) | Outcome::NotAvailable(e) => e,
                Outcome::Ok(_) => String::new(),
            })?;
            let f = dir.join(format!("{}.bin", t.label));
            std::fs::write(&f, b).map_err(|e| e.to_string())?;
            Ok(f)
        })
        .collect();
    let run = |t: &Target| -> Result<f64, Outcome> {
        let i = targets.iter().position(|u| u.label == t.label).unwrap_or(0);
        let file = files[i].as_ref().map_err(|e| Outcome::Failed(e.clone()))?;
        let exe = std::env::current_exe().map_err(|e| Outcome::Failed(e.to_string()))?;
        let out = std::process::Command::new(exe)
            .args(["--binary-build-child", &t.label])
            .arg(file)
            .env("FERROCL_CACHE", "0")
            .env("POCL_KERNEL_CACHE", "0")
            .output()
            .map_err(|e| Outcome::Failed(e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        match text.trim().parse::<f64>() {
            Ok(ms) if out.status.success() => Ok(ms),
            _ => Err(Outcome::Failed(format!(
                "child: {}{}",
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    };
    let results: Vec<Result<Vec<f64>, Outcome>> =
        targets.iter().map(|t| run(t).map(|_| Vec::new())).collect();
    let cells = best_of_rounds(targets, rounds, results, run);
    let _ = std::fs::remove_dir_all(&dir);
    Row {
        name: "build-binary".into(),
        unit: Unit::Ms,
        peak: Peak::None,
        note: format!(
            "clCreateProgramWithBinary + clBuildProgram of the program's binary (taken after one launch) plus one launch, in a new process without a cache; best of {rounds}"
        ),
        cells,
    }
}

/// Runs `once` on each platform `rounds` times, alternating them, adding
/// each time in milliseconds to its list in `results` (a platform whose
/// run fails keeps that failure); each platform's cell is its best time.
fn best_of_rounds(
    targets: &[Target],
    rounds: usize,
    mut results: Vec<Result<Vec<f64>, Outcome>>,
    once: impl Fn(&Target) -> Result<f64, Outcome>,
) -> Vec<Outcome> {
    for _ in 0..rounds {
        for (i, t) in targets.iter().enumerate() {
            if let Ok(v) = &mut results[i] {
                match once(t) {
                    Ok(ms) => v.push(ms),
                    Err(o) => results[i] = Err(o),
                }
            }
        }
    }
    results
        .into_iter()
        .map(|r| {
            r.map(|v| {
                let best = v.iter().copied().fold(f64::INFINITY, f64::min);
                timing(best, v, None)
            })
            .into()
        })
        .collect()
}

/// The same source built again, `rounds` times alternating; the best.
pub fn second_build(source: &str, targets: &[Target], rounds: usize) -> Row {
    let results: Vec<Result<Vec<f64>, Outcome>> = targets.iter().map(|_| Ok(Vec::new())).collect();
    let cells = best_of_rounds(targets, rounds, results, |t| build_and_launch(t, source));
    Row {
        name: "build-second".into(),
        unit: Unit::Ms,
        peak: Peak::None,
        note: format!("same source rebuilt in the same process, plus one launch; best of {rounds}"),
        cells,
    }
}

/// The source built and launched once in a fresh process whose on-disk
/// cache already holds it: what an application pays at each start after
/// its first. Each platform gets its own process (this program, run with
/// `--cached-build-child <label>`) and its own new cache directory; one
/// process fills the cache, then `rounds` more are timed, alternating the
/// platforms; the best counts.
pub fn cached_build(targets: &[Target], rounds: usize) -> Row {
    let dir = std::env::temp_dir().join(format!("ferrocl-bench-cache-{}", std::process::id()));
    let run = |t: &Target| -> Result<f64, Outcome> {
        let exe = std::env::current_exe().map_err(|e| Outcome::Failed(e.to_string()))?;
        let cache = dir.join(&t.label);
        let out = std::process::Command::new(exe)
            .args(["--cached-build-child", &t.label])
            .env("FERROCL_CACHE", "1")
            .env("FERROCL_CACHE_DIR", &cache)
            .env("POCL_KERNEL_CACHE", "1")
            .env("POCL_CACHE_DIR", &cache)
            .output()
            .map_err(|e| Outcome::Failed(e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        match text.trim().parse::<f64>() {
            Ok(ms) if out.status.success() => Ok(ms),
            _ => Err(Outcome::Failed(format!(
                "child: {}{}",
                text.trim(),
                String::from_utf8_lossy(&out.stderr).trim()
            ))),
        }
    };
    let results: Vec<Result<Vec<f64>, Outcome>> =
        targets.iter().map(|t| run(t).map(|_| Vec::new())).collect();
    let cells = best_of_rounds(targets, rounds, results, run);
    let _ = std::fs::remove_dir_all(&dir);
    Row {
        name: "build-cached".into(),
        unit: Unit::Ms,
        peak: Peak::None,
        note: format!(
            "build plus one launch in a new process whose on-disk cache holds the program; best of {rounds}"
        ),
        cells,
    }
}

/// Mean enqueue + clFinish time of an empty kernel on a one-item range, in
/// alternating blocks of `per_block` launches.
pub fn launch_latency(targets: &[Target], blocks: usize, per_block: usize) -> Row {
    empty_kernels(
        targets,
        blocks,
        per_block,
        |_| Ok(()),
        |l, _, t| (0..per_block).try_for_each(|_| l.enqueue(t).and_then(|_| t.finish())),
        "launch-latency",
        format!(
            "mean enqueue + clFinish of an empty kernel over {} launches",
            blocks * per_block
        ),
    )
}

/// Mean time of an empty kernel followed by a blocking read of 4 KiB, as
/// applications read each result back: against `launch-latency`, what
/// handing the read on from the kernel's end costs.
pub fn kernel_then_read(targets: &[Target], blocks: usize, per_block: usize) -> Row {
    const WORDS: usize = 1024;
    empty_kernels(
        targets,
        blocks,
        per_block,
        |t| t.upload(&[7u32; WORDS]),
        |l, buf, t| {
            (0..per_block).try_for_each(|_| {
                l.enqueue(t)?;
                let back = t.read(buf, WORDS)?;
                (back[WORDS - 1] == 7)
                    .then_some(())
                    .ok_or_else(|| "read back the wrong values".to_string())
            })
        },
        "kernel-then-read",
        format!(
            "mean enqueue of an empty kernel + a blocking read of 4 KiB after it, over {} launches",
            blocks * per_block
        ),
    )
}

/// Mean time per kernel when `per_block` empty kernels are enqueued and
/// then finished with one clFinish, in alternating blocks: what batching
/// commands buys.
pub fn throughput(targets: &[Target], blocks: usize, per_block: usize) -> Row {
    empty_kernels(
        targets,
        blocks,
        per_block,
        |_| Ok(()),
        |l, _, t| {
            (0..per_block)
                .try_for_each(|_| l.enqueue(t))
                .and_then(|_| t.finish())
        },
        "throughput",
        format!(
            "mean time per empty kernel, {per_block} enqueued then one clFinish, {blocks} blocks"
        ),
    )
}

/// Runs `block` (which launches `per_block` empty kernels, with what
/// `prepare` made for the target) once to warm up,
fn empty_kernels<S>(
    targets: &[Target],
    blocks: usize,
    per_block: usize,
    prepare: impl Fn(&Target) -> Result<S, String>,
    block: impl Fn(&Launch, &S, &Target) -> Result<(), String>,
    name: &str,
    note: String,
) -> Row {
    let mut states: Vec<Result<(Launch, S), Outcome>> = targets
        .iter()
        .map(|t| {
            let program = t.build(latency::SOURCE).map_err(Outcome::BuildFailed)?;
            let l =
                Launch::new(&program, latency::EMPTY, &[], &[1], None).map_err(Outcome::Failed)?;
            let state = prepare(t).map_err(Outcome::Failed)?;
            block(&l, &state, t).map_err(Outcome::Failed)?;
            Ok((l, state))
        })
        .collect();
    let mut block_us = vec![Vec::new(); targets.len()];
    for _ in 0..blocks {
        for (i, t) in targets.iter().enumerate() {
            let Ok((l, state)) = &states[i] else { continue };
            let start = Instant::now();
            match block(l, state, t) {
                Ok(()) => block_us[i].push(ms_since(start) * 1e3 / per_block as f64),
                Err(e) => states[i] = Err(Outcome::Failed(e)),
            }
        }
    }
    let cells = states
        .into_iter()
        .zip(block_us)
        .map(|(s, us)| {
            s.map(|_| {
                let mean = us.iter().sum::<f64>() / us.len() as f64;
                // Per-launch times of each block, in ms like the other rows.
                timing(mean, us.iter().map(|u| u / 1e3).collect(), None)
            })
            .into()
        })
        .collect();
    Row {
        name: name.into(),
        unit: Unit::Us,
        peak: Peak::None,
        note,
        cells,
    }
}
