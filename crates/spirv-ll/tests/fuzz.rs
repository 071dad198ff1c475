//! A short run of the fuzzer (`examples/fuzz.rs` runs long ones): mutated
//! corpus modules are refused or translated, never a panic or a crash, and
//! the corpus itself translates.

mod common;
#[path = "../fuzz/corpus.rs"]
mod corpus;
#[path = "../fuzz/mutate.rs"]
mod mutate;

use llvm_sys::core::*;
use std::collections::BTreeMap;

use common::options;

#[test]
fn the_corpus_translates_and_its_mutations_never_crash() {
    let modules = corpus::load();
    let spec = BTreeMap::new();
    let opts = options(&spec);
    // SAFETY: a context of this thread, disposed of at the end.
    unsafe {
        let ctx = LLVMContextCreate();
        for (name, words) in &modules {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            match spirv_ll::translate(ctx, &bytes, &opts) {
                Ok(m) => LLVMDisposeModule(m),
                Err(e) => panic!("{name}: {e}"),
            }
        }
        let mut rng = mutate::Rng(0x5eed);
        let mut translated = 0;
        for _ in 0..20_000 {
            let m = &modules[rng.below(modules.len())].1;
            let d = &modules[rng.below(modules.len())].1;
            let bytes = mutate::mutate(&mut rng, m, d);
            if let Ok(m) = spirv_ll::translate(ctx, &bytes, &opts) {
                translated += 1;
                LLVMDisposeModule(m);
            }
        }
        assert!(
            translated > 100,
            "only {translated} mutated modules translated"
        );
        LLVMContextDispose(ctx);
    }
}
