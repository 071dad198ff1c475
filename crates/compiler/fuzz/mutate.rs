//! Mutations of valid program binaries for fuzzing the loader: bits
//! flipped, bytes set to interesting values, little-endian counts and
//! lengths made huge, zero or off by a little, chunks deleted, repeated or
//! spliced from another binary, truncation. Half the inputs are aimed at
//! the notes and given a digest of their new bytes, so that the reader of
//! the kernel table, not only the digest, is what refuses them.
//! Deterministic: a seed and an index give the same input again.

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

const INTERESTING: [u64; 12] = [
    0,
    1,
    2,
    7,
    8,
    16,
    255,
    0x7fff_ffff,
    0xffff_ffff,
    1 << 32,
    i64::MAX as u64,
    u64::MAX,
];

/// One input from `binary`: 1 to 4 mutations, some taking bytes of `donor`.
pub fn mutate(rng: &mut Rng, binary: &[u8], donor: &[u8]) -> Vec<u8> {
    let mut b = binary.to_vec();
    let aimed = rng.below(2) == 0;
    let range = if aimed {
        compiler::binary::notes_range(&b).unwrap_or(0..b.len())
    } else {
        0..b.len()
    };
    for _ in 0..1 + rng.below(4) {
        if b.is_empty() || range.end > b.len() || range.is_empty() {
            break;
        }
        let at = range.start + rng.below(range.len());
        match rng.below(8) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = INTERESTING[rng.below(INTERESTING.len())] as u8,
            2 if at + 8 <= b.len() => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
            3 if at + 8 <= b.len() => {
                let mut v = [0u8; 8];
                v.copy_from_slice(&b[at..at + 8]);
                let n = u64::from_le_bytes(v)
                    .wrapping_add(rng.below(5) as u64)
                    .wrapping_sub(2);
                b[at..at + 8].copy_from_slice(&n.to_le_bytes());
            }
            4 if !aimed => {
                let n = 1 + rng.below(64).min(b.len() - at - 1);
                b.drain(at..at + n);
            }
            5 if !aimed => {
                let n = 1 + rng.below(64).min(b.len() - at - 1);
                let copy = b[at..at + n].to_vec();
                let to = rng.below(b.len());
                b.splice(to..to, copy);
            }
            6 if !donor.is_empty() => {
                let from = rng.below(donor.len());
                let n = (1 + rng.below(32))
                    .min(donor.len() - from)
                    .min(b.len() - at);
                b[at..at + n].copy_from_slice(&donor[from..from + n]);
            }
            7 if !aimed => b.truncate(at),
            _ => b[at] = b[at].wrapping_add(1),
        }
    }
    if aimed {
        compiler::binary::reseal(&mut b);
    }
    b
}
