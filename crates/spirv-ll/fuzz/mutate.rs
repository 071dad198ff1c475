//! Mutations of valid SPIR-V modules for fuzzing the translator: bit flips,
//! ids in and past the bound, interesting values, opcodes swapped, whole
//! instructions deleted, repeated, swapped or spliced from another module,
//! word counts broken and truncation. Deterministic: a seed and an index
//! give the same input again.

/// xorshift64*: small, fast and reproducible.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Where each instruction starts and how many words it has.
fn instructions(w: &[u32]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < w.len() {
        let n = (w[at] >> 16) as usize;
        if n == 0 || at + n > w.len() {
            break;
        }
        out.push((at, n));
        at += n;
    }
    out
}

const INTERESTING: [u32; 10] = [0, 1, 2, 3, 4, 16, 64, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];

/// Opcodes the translator handles, to swap in where another was.
const OPCODES: [u32; 40] = [
    1, 19, 20, 21, 22, 23, 24, 30, 32, 33, 43, 44, 46, 59, 61, 62, 65, 67, 70, 71, 77, 79, 80, 81,
    124, 126, 128, 129, 132, 170, 180, 194, 245, 246, 247, 248, 249, 250, 251, 253,
];

/// One input from `module`: 1 to 4 mutations, some taking instructions
/// from `donor`.
pub fn mutate(rng: &mut Rng, module: &[u32], donor: &[u32]) -> Vec<u8> {
    let mut w = module.to_vec();
    let bound = w.get(3).copied().unwrap_or(16) as usize;
    for _ in 0..1 + rng.below(4) {
        let insts = instructions(&w);
        if insts.is_empty() || w.len() <= 5 {
            break;
        }
        let (at, n) = insts[rng.below(insts.len())];
        match rng.below(11) {
            0 => {
                let i = if rng.below(20) == 0 {
                    rng.below(5)
                } else {
                    5 + rng.below(w.len() - 5)
                };
                w[i] ^= 1 << rng.below(32);
            }
            1 if n > 1 => w[at + 1 + rng.below(n - 1)] = rng.below(bound + 4) as u32,
            2 if n > 1 => w[at + 1 + rng.below(n - 1)] = INTERESTING[rng.below(INTERESTING.len())],
            3 => w[at] = (w[at] & 0xffff_0000) | OPCODES[rng.below(OPCODES.len())],
            4 => {
                w.drain(at..at + n);
            }
            5 => {
                let copy = w[at..at + n].to_vec();
                let to = insts[rng.below(insts.len())].0;
                w.splice(to..to, copy);
            }
            6 => {
                let (bt, bn) = insts[rng.below(insts.len())];
                if bt > at + n {
                    let b = w[bt..bt + bn].to_vec();
                    let a = w[at..at + n].to_vec();
                    w.splice(bt..bt + bn, a);
                    w.splice(at..at + n, b);
                }
            }
            7 => {
                let d = instructions(donor);
                if !d.is_empty() {
                    let (dt, dn) = d[rng.below(d.len())];
                    let copy = donor[dt..dt + dn].to_vec();
                    w.splice(at..at, copy);
                }
            }
            8 => w.truncate(5 + rng.below(w.len() - 4)),
            9 => w[at] = (w[at] & 0xffff) | ((rng.below(n + 3) as u32) << 16),
            _ if n > 1 => {
                let i = at + 1 + rng.below(n - 1);
                w[i] = w[i].wrapping_add(rng.below(5) as u32).wrapping_sub(2);
            }
            _ => {}
        }
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
