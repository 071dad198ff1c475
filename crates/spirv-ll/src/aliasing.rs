//! SPV_INTEL_memory_access_aliasing: alias domains, scopes and scope lists
//! become LLVM's scoped no-alias metadata, put on the loads, stores, copies
//! and calls that name a list, by a memory operand (`AliasScopeINTELMask`,
//! `NoAliasINTELMask`) or by a decoration of their result
//! (`AliasScopeINTEL`, `NoAliasINTEL`). Accesses the producer proved apart
//! are then apart for LLVM's alias analysis too, which is what lets the
//! vectorizers and LICM keep a loaded value in a register across a store.
//!
//! A domain and a scope are each a node that names itself (so two declared
//! alike stay two), a list a node of its scopes, as Clang's own `restrict`
//! scopes are.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll;
use crate::translator::{AliasNode, Tr};
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use llvm_sys::prelude::*;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, Op};

/// The alias lists one access names: its own scopes, and the scopes it does
/// not alias with.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct AliasLists {
    pub scope: Option<Id>,
    pub no_alias: Option<Id>,
}

impl Tr<'_> {
    /// `OpAliasDomainDeclINTEL`, `OpAliasScopeDeclINTEL` and
    /// `OpAliasScopeListDeclINTEL`, at module scope.
    pub fn alias_declaration(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id()?;
        // SAFETY: metadata of the translator's context.
        let node = unsafe {
            match inst.op() {
                Op::AliasDomainDeclINTEL => {
                    let name = self.alias_name(inst, 0);
                    AliasNode::Domain(self.self_naming_node(&[], name))
                }
                Op::AliasScopeDeclINTEL => {
                    let domain = inst.id(0)?;
                    let Some(AliasNode::Domain(d)) = self.alias_nodes.get(&domain) else {
                        return Err(inst.err(format!("%{domain} is not an alias domain")));
                    };
                    let name = self.alias_name(inst, 1);
                    AliasNode::Scope(self.self_naming_node(&[*d], name))
                }
                _ => {
                    let mut scopes = Vec::new();
                    for s in inst.ids(0)? {
                        match self.alias_nodes.get(&s) {
                            Some(AliasNode::Scope(n)) => scopes.push(*n),
                            _ => return Err(inst.err(format!("%{s} is not an alias scope"))),
                        }
                    }
                    if scopes.is_empty() {
                        return Err(inst.err("the list names no scope"));
                    }
                    AliasNode::List(LLVMMDNodeInContext2(
                        self.ctx,
                        scopes.as_mut_ptr(),
                        scopes.len(),
                    ))
                }
            }
        };
        self.claim(id)?;
        self.alias_nodes.insert(id, node);
        Ok(())
    }

    /// The optional name operand at `n`: an `OpString`'s text.
    fn alias_name(&self, inst: &Inst, n: usize) -> Option<String> {
        let id = inst.id(n).ok()?;
        self.strings.get(&id).cloned()
    }

    /// A node whose first operand is itself, then `rest` and the name.
    unsafe fn self_naming_node(
        &self,
        rest: &[LLVMMetadataRef],
        name: Option<String>,
    ) -> LLVMMetadataRef {
        let placeholder = LLVMTemporaryMDNode(self.ctx, std::ptr::null_mut(), 0);
        let mut ops = vec![placeholder];
        ops.extend_from_slice(rest);
        if let Some(n) = name {
            ops.push(ll::md_string(self.ctx, &n));
        }
        let node = LLVMMDNodeInContext2(self.ctx, ops.as_mut_ptr(), ops.len());
        // The placeholder is freed by the replacement.
        LLVMMetadataReplaceAllUsesWith(placeholder, node);
        node
    }

    /// A scope list by id.
    fn alias_list(&self, inst: &Inst, id: Id) -> Result<LLVMMetadataRef> {
        match self.alias_nodes.get(&id) {
            Some(AliasNode::List(n)) => Ok(*n),
            _ => Err(inst.err(format!("%{id} is not an alias scope list"))),
        }
    }

    /// Puts `lists` on the access `v`.
    pub unsafe fn set_alias_lists(
        &self,
        inst: &Inst,
        v: LLVMValueRef,
        lists: AliasLists,
    ) -> Result<()> {
        for (list, kind) in [(lists.scope, "alias.scope"), (lists.no_alias, "noalias")] {
            if let Some(id) = list {
                let node = self.alias_list(inst, id)?;
                let k = LLVMGetMDKindIDInContext(self.ctx, kind.as_ptr().cast(), kind.len() as u32);
                LLVMSetMetadata(v, k, LLVMMetadataAsValue(self.ctx, node));
            }
        }
        Ok(())
    }

    /// The `AliasScopeINTEL` and `NoAliasINTEL` decorations of the result
    /// of `inst`, put on the instruction that result is (a call, a load).
    pub fn decorated_alias_lists(&self, inst: &Inst) -> Result<()> {
        let Some(id) = inst.inst.result_id else {
            return Ok(());
        };
        let list = |kind| match self.deco.get(id, kind)?.args.first()? {
            Operand::IdRef(l) => Some(*l),
            _ => None,
        };
        let lists = AliasLists {
            scope: list(Decoration::AliasScopeINTEL),
            no_alias: list(Decoration::NoAliasINTEL),
        };
        if lists.scope.is_none() && lists.no_alias.is_none() {
            return Ok(());
        }
        let Some(v) = self.llvm_of(id) else {
            return Ok(());
        };
        // SAFETY: a value of the translator's context; metadata only on
        // instructions that reach memory.
        unsafe {
            let reaches_memory = !LLVMIsALoadInst(v).is_null()
                || !LLVMIsAStoreInst(v).is_null()
                || !LLVMIsACallInst(v).is_null()
                || !LLVMIsAAtomicRMWInst(v).is_null()
                || !LLVMIsAAtomicCmpXchgInst(v).is_null();
            if reaches_memory {
                self.set_alias_lists(inst, v, lists)?;
            }
        }
        Ok(())
    }
}
