//! Decorations by target id (and struct member), with decoration groups
//! applied.

use crate::binary::Inst;
use crate::error::Result;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FunctionParameterAttribute, Op};
use std::collections::HashMap;

pub(crate) type Id = u32;

#[derive(Debug, Clone)]
pub(crate) struct Deco {
    pub kind: Decoration,
    pub args: Vec<Operand>,
}

/// Decorations of ids; member decorations (`Offset`...) change nothing
/// in the OpenCL environment and are read but kept apart.
#[derive(Default)]
pub(crate) struct Decorations {
    by_id: HashMap<Id, Vec<Deco>>,
    members: HashMap<(Id, u32), Vec<Deco>>,
}

fn split(inst: &Inst, from: usize) -> Result<Deco> {
    match inst.get(from) {
        Some(Operand::Decoration(d)) => Ok(Deco {
            kind: *d,
            args: inst.inst.operands[from + 1..].to_vec(),
        }),
        _ => Err(inst.err("the decoration is missing")),
    }
}

impl Decorations {
    /// Records one annotation instruction.
    pub fn add(&mut self, inst: &Inst) -> Result<()> {
        match inst.op() {
            Op::Decorate | Op::DecorateId | Op::DecorateString => {
                let target = inst.id(0)?;
                let d = split(inst, 1)?;
                self.by_id.entry(target).or_default().push(d);
            }
            Op::MemberDecorate | Op::MemberDecorateString => {
                let target = inst.id(0)?;
                let member = inst.literal(1)?;
                let d = split(inst, 2)?;
                self.members.entry((target, member)).or_default().push(d);
            }
            Op::GroupDecorate => {
                let group = inst.id(0)?;
                let ds = self.by_id.get(&group).cloned().unwrap_or_default();
                for t in inst.ids(1)? {
                    self.by_id.entry(t).or_default().extend(ds.iter().cloned());
                }
            }
            Op::GroupMemberDecorate => {
                let group = inst.id(0)?;
                let ds = self.by_id.get(&group).cloned().unwrap_or_default();
                let mut n = 1;
                while n + 1 < inst.len() {
                    let t = inst.id(n)?;
                    let member = inst.literal(n + 1)?;
                    self.members
                        .entry((t, member))
                        .or_default()
                        .extend(ds.iter().cloned());
                    n += 2;
                }
            }
            _ => {}
        }
        Ok(())
    }

    pub fn all(&self, id: Id) -> &[Deco] {
        self.by_id.get(&id).map_or(&[], |v| v.as_slice())
    }

    pub fn get(&self, id: Id, kind: Decoration) -> Option<&Deco> {
        self.all(id).iter().find(|d| d.kind == kind)
    }

    pub fn has(&self, id: Id, kind: Decoration) -> bool {
        self.get(id, kind).is_some()
    }

    /// A decoration's first literal argument.
    pub fn literal(&self, id: Id, kind: Decoration) -> Option<u32> {
        match self.get(id, kind)?.args.first()? {
            Operand::LiteralBit32(v) => Some(*v),
            _ => None,
        }
    }

    /// The `FuncParamAttr`s of a parameter.
    pub fn param_attrs(&self, id: Id) -> Vec<FunctionParameterAttribute> {
        self.all(id)
            .iter()
            .filter(|d| d.kind == Decoration::FuncParamAttr)
            .filter_map(|d| match d.args.first() {
                Some(Operand::FunctionParameterAttribute(a)) => Some(*a),
                _ => None,
            })
            .collect()
    }
}
