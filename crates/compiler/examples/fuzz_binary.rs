//! The program-binary loader's fuzzer: mutations of valid binaries of every
//! type (`fuzz/corpus.rs`), each loaded as `clCreateProgramWithBinary`
//! loads it; one that loads is written again and must read back the same.
//! Any panic is a failure (a crash ends the run, and the last index printed
//! finds the input again).
//!
//! `cargo run --release -p compiler --example fuzz_binary -- [inputs] [seed] [threads] [first]`
//! (defaults: 1000000 inputs, seed 1, 2 threads, from input 0; with one
//! thread each index is printed before its input runs, so a crash names
//! it). `--one <index> [seed]` replays one input and writes it to
//! `fuzz-input.bin`.

#[path = "../fuzz/corpus.rs"]
mod corpus;
#[path = "../fuzz/mutate.rs"]
mod mutate;

use compiler::ProgramModule;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Input `index` of run `seed`.
fn input(seed: u64, index: u64, corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut rng = mutate::Rng((seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index).max(1));
    for _ in 0..4 {
        rng.next();
    }
    let b = &corpus[rng.below(corpus.len())];
    let d = &corpus[rng.below(corpus.len())];
    mutate::mutate(&mut rng, b, d)
}

/// Loads `bytes`; a binary that loads must write back to one that loads
/// the same.
fn load(bytes: &[u8]) -> bool {
    match ProgramModule::from_binary(bytes) {
        Ok(p) => {
            let again =
                ProgramModule::from_binary(&p.to_binary()).expect("a loaded binary reloads");
            assert_eq!(again.kernels(), p.kernels(), "the kernel table reads back");
            assert_eq!(
                again.to_binary(),
                p.to_binary(),
                "the binary is written the same"
            );
            true
        }
        Err(e) => {
            assert!(e.log.starts_with("invalid program binary"), "{}", e.log);
            false
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = corpus::load();
    if args.first().map(String::as_str) == Some("--one") {
        let index: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(0);
        let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
        let bytes = input(seed, index, &corpus);
        std::fs::write("fuzz-input.bin", &bytes).expect("write fuzz-input.bin");
        match ProgramModule::from_binary(&bytes) {
            Ok(_) => println!("loaded"),
            Err(e) => print!("{}", e.log),
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
        "{} corpus binaries, {total} inputs, seed {seed}, {threads} threads",
        corpus.len()
    );
    let next = AtomicU64::new(first);
    let loaded = AtomicU64::new(0);
    let panics = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= first + total {
                    break;
                }
                if trace {
                    eprintln!("{i}");
                }
                if i.is_multiple_of(1_000_000) {
                    println!("input {i} ({:.0} s)", start.elapsed().as_secs_f64());
                }
                let bytes = input(seed, i, &corpus);
                match std::panic::catch_unwind(|| load(&bytes)) {
                    Ok(true) => {
                        loaded.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(false) => {}
                    Err(_) => {
                        panics.fetch_add(1, Ordering::Relaxed);
                        eprintln!("PANIC at input {i} (seed {seed}): replay with --one {i} {seed}");
                    }
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let (l, p) = (
        loaded.load(Ordering::Relaxed),
        panics.load(Ordering::Relaxed),
    );
    println!(
        "{total} inputs in {secs:.0} s ({:.0}/s): {l} loaded, {} refused, {p} panics",
        total as f64 / secs,
        total - l - p,
    );
    if p > 0 {
        std::process::exit(1);
    }
}
