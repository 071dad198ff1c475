//! A function's natural loops, found on its [`Cfg`].

use crate::cfg::Cfg;
use std::collections::HashSet;

/// A natural loop, by block index into its [`Cfg`].
pub struct Loop {
    pub header: usize,
    pub body: HashSet<usize>,
}

/// Each block with back edges to it (from blocks it dominates) heads a
/// loop: the blocks that reach those back edges without passing it.
pub fn natural_loops(cfg: &Cfg) -> Vec<Loop> {
    let mut loops = Vec::new();
    for h in 0..cfg.blocks.len() {
        let latches: Vec<usize> = cfg.preds[h]
            .iter()
            .copied()
            .filter(|&p| cfg.dom[p][h])
            .collect();
        if latches.is_empty() {
            continue;
        }
        let mut body: HashSet<usize> = HashSet::from([h]);
        let mut work = latches;
        while let Some(x) = work.pop() {
            if body.insert(x) {
                work.extend(&cfg.preds[x]);
            }
        }
        loops.push(Loop { header: h, body });
    }
    loops
}

/// The blocks outside loop `l` its blocks branch to, each once, in block
/// order.
pub fn exit_blocks(cfg: &Cfg, l: &Loop) -> Vec<usize> {
    let mut exits: Vec<usize> = l
        .body
        .iter()
        .flat_map(|&b| cfg.succs[b].iter().copied())
        .filter(|s| !l.body.contains(s))
        .collect();
    exits.sort_unstable();
    exits.dedup();
    exits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    #[test]
    fn a_loop_is_its_header_and_the_blocks_back_to_it() {
        let ir = Ir::parse(
            r#"
define void @f(i1 %c, i1 %d) {
entry:
  br label %head
head:
  br i1 %c, label %body, label %out
body:
  br i1 %d, label %head, label %out
out:
  ret void
}
"#,
        );
        let cfg = unsafe { Cfg::of(ir.function("f")) };
        let loops = natural_loops(&cfg);
        assert_eq!(loops.len(), 1);
        assert_eq!(loops[0].header, 1);
        assert_eq!(loops[0].body, HashSet::from([1, 2]));
    }
}
