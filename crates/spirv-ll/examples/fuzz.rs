//! The translator's fuzzer: mutations of valid modules (`fuzz/corpus`),
//! each translated; any panic is a failure (LLVM aborting or a crash ends
//! the run, and the last index printed finds the input again).
//!
//! `cargo run --release -p spirv-ll --example fuzz -- [inputs] [seed] [threads] [first]`
//! (defaults: 1000000 inputs, seed 1, 2 threads, from input 0; with one
//! thread each index is printed before its input runs, so a crash names
//! it). `--one <index> [seed]` replays one input and writes it to
//! `fuzz-input.spv`.

#[path = "../fuzz/corpus.rs"]
mod corpus;
#[path = "../fuzz/mutate.rs"]
mod mutate;

use llvm_sys::core::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

const LAYOUT: &str =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

/// Input `index` of run `seed`.
fn input(seed: u64, index: u64, modules: &[(String, Vec<u32>)]) -> Vec<u8> {
    let mut rng = mutate::Rng((seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index).max(1));
    for _ in 0..4 {
        rng.next();
    }
    let m = &modules[rng.below(modules.len())].1;
    let d = &modules[rng.below(modules.len())].1;
    mutate::mutate(&mut rng, m, d)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let modules = corpus::load();
    let spec = BTreeMap::from([(3u32, 7u32.to_le_bytes().to_vec())]);
    let opts = spirv_ll::Options {
        triple: "x86_64-unknown-linux-gnu",
        data_layout: LAYOUT,
        spec_constants: &spec,
        uniform_work_group_size: false,
    };
    if args.first().map(String::as_str) == Some("--one") {
        let index: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
        let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
        let bytes = input(seed, index, &modules);
        std::fs::write("fuzz-input.spv", &bytes).expect("write fuzz-input.spv");
        // SAFETY: a context of this thread.
        unsafe {
            let ctx = LLVMContextCreate();
            match spirv_ll::translate(ctx, &bytes, &opts) {
                Ok(m) => {
                    println!("translated");
                    LLVMDisposeModule(m)
                }
                Err(e) => println!("{e}"),
            }
            LLVMContextDispose(ctx);
        }
        return;
    }
    let total: u64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let threads: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(2);
    let first: u64 = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(0);
    let trace = threads == 1;
    println!(
        "{} corpus modules, {total} inputs, seed {seed}, {threads} threads",
        modules.len()
    );
    let next = AtomicU64::new(first);
    let translated = AtomicU64::new(0);
    let panics = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                // SAFETY: each thread has its own context, renewed now and then
                // (named struct types pile up in it).
                let mut ctx = unsafe { LLVMContextCreate() };
                let mut since = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= first + total {
                        break;
                    }
                    if trace {
                        eprintln!("{i}");
                    }
                    if i.is_multiple_of(100_000) {
                        println!("input {i} ({:.0} s)", start.elapsed().as_secs_f64());
                    }
                    let bytes = input(seed, i, &modules);
                    let r = std::panic::catch_unwind(|| unsafe {
                        spirv_ll::translate(ctx, &bytes, &opts)
                    });
                    match r {
                        Ok(Ok(m)) => {
                            translated.fetch_add(1, Ordering::Relaxed);
                            unsafe { LLVMDisposeModule(m) }
                        }
                        Ok(Err(_)) => {}
                        Err(_) => {
                            panics.fetch_add(1, Ordering::Relaxed);
                            eprintln!(
                                "PANIC at input {i} (seed {seed}): replay with --one {i} {seed}"
                            );
                        }
                    }
                    since += 1;
                    if since == 20_000 {
                        unsafe {
                            LLVMContextDispose(ctx);
                            ctx = LLVMContextCreate();
                        }
                        since = 0;
                    }
                }
                unsafe { LLVMContextDispose(ctx) }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{total} inputs in {secs:.0} s ({:.0}/s): {} translated, {} refused, {} panics",
        total as f64 / secs,
        translated.load(Ordering::Relaxed),
        total - translated.load(Ordering::Relaxed) - panics.load(Ordering::Relaxed),
        panics.load(Ordering::Relaxed)
    );
    if panics.load(Ordering::Relaxed) > 0 {
        std::process::exit(1);
    }
}
