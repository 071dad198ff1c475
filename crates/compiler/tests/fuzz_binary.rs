//! A short run of the binary fuzzer (`examples/fuzz_binary.rs` runs long
//! ones): mutated binaries are refused or load and read back the same,
//! never a panic or a crash, and the corpus itself loads. The corpus is
//! compiled from source, so not in a build without the front end.
#![cfg(feature = "front-end")]

#[path = "../fuzz/corpus.rs"]
mod corpus;
#[path = "../fuzz/mutate.rs"]
mod mutate;

use compiler::ProgramModule;

#[test]
fn the_corpus_loads_and_its_mutations_never_crash() {
    let corpus = corpus::load();
    assert!(corpus.len() >= 8);
    for b in &corpus {
        let p = ProgramModule::from_binary(b).expect("a corpus binary loads");
        assert_eq!(&p.to_binary(), b, "written back the same");
    }
    let mut rng = mutate::Rng(0x5eed);
    let (mut loaded, mut refused) = (0, 0);
    for _ in 0..50_000 {
        let b = &corpus[rng.below(corpus.len())];
        let d = &corpus[rng.below(corpus.len())];
        let bytes = mutate::mutate(&mut rng, b, d);
        match ProgramModule::from_binary(&bytes) {
            Ok(p) => {
                loaded += 1;
                let again = ProgramModule::from_binary(&p.to_binary()).unwrap();
                assert_eq!(again.kernels(), p.kernels());
            }
            Err(_) => refused += 1,
        }
    }
    // Both outcomes occur: the mutations reach past the digest.
    assert!(
        loaded > 100 && refused > 100,
        "{loaded} loaded, {refused} refused"
    );
}
