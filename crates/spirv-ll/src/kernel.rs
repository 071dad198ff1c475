//! Entry points as the OpenCL C front end makes kernels: the `kernel_arg_*`
//! metadata reflection reads (address space, access qualifier, type name,
//! type qualifiers, names) and the execution modes as attributes
//! (`reqd_work_group_size`, `work_group_size_hint`, `vec_type_hint`,
//! `intel_reqd_sub_group_size`, `required_num_sub_groups`).

use crate::decorations::Id;
use crate::error::Result;
use crate::ll;
use crate::translator::Tr;
use crate::types::{address_space, Kind};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::dr::Operand;
use rspirv::spirv::{
    AccessQualifier, Decoration, ExecutionMode, FunctionParameterAttribute as Fpa, Op,
};

impl Tr<'_> {
    /// An argument's OpenCL C type name, from its SPIR-V type.
    fn type_name(&self, ty: Id, depth: u32) -> String {
        let Ok(kind) = self.kind(ty) else {
            return String::new();
        };
        match kind {
            Kind::Void => "void".into(),
            Kind::Bool => "bool".into(),
            Kind::Int(w) => crate::mangle::CType::int(*w, true).spelling(),
            Kind::Float(w) => crate::mangle::CType::float(*w).spelling(),
            Kind::Vector(e, n) => format!("{}{n}", self.type_name(*e, depth + 1)),
            Kind::Pointer(_, p) if depth < 8 => format!("{}*", self.type_name(*p, depth + 1)),
            Kind::Struct(_) => match self.names.get(&ty) {
                Some(n) => n.strip_prefix("struct.").unwrap_or(n).to_string(),
                None => "struct".into(),
            },
            Kind::Image(i) => crate::images::type_name(i, false),
            Kind::Sampler => "sampler_t".into(),
            Kind::Event => "event_t".into(),
            Kind::Opaque(n) => n.clone(),
            _ => String::new(),
        }
    }

    /// Type names an `OpString "kernel_arg_type.<kernel>.<t>,<t>,"` gives.
    fn declared_type_names(&self, kernel: &str) -> Option<Vec<String>> {
        let prefix = format!("kernel_arg_type.{kernel}.");
        let s = self
            .strings
            .values()
            .find_map(|s| s.strip_prefix(&prefix))?;
        Some(
            s.split(',')
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect(),
        )
    }

    pub fn kernels(&mut self) -> Result<()> {
        let eps = self.entry_points.clone();
        let mut seen = std::collections::HashSet::new();
        for ep in eps {
            self.at = (ep.at, "OpEntryPoint".into());
            if !seen.insert(ep.function) {
                return Err(self.fail("a function is two entry points"));
            }
            let f = self
                .fns
                .get(&ep.function)
                .cloned()
                .ok_or_else(|| self.fail(format!("%{} is not a function", ep.function)))?;
            // SAFETY: metadata of the kernel's function in the module.
            unsafe {
                if LLVMIsDeclaration(f.llvm) != 0 {
                    return Err(self.fail("the entry point has no body"));
                }
                self.arg_metadata(&ep.name, &f)?;
                self.execution_modes(ep.function, f.llvm)?;
            }
        }
        Ok(())
    }

    unsafe fn arg_metadata(&mut self, kernel: &str, func: &crate::translator::Func) -> Result<()> {
        let ctx = self.ctx;
        let (f, params) = (func.llvm, &func.params);
        let Kind::Function(_, ptys) = self.kind(func.fn_type)?.clone() else {
            return Err(self.fail("the entry point has no function type"));
        };
        let declared = self.declared_type_names(kernel);
        let (mut spaces, mut access, mut types, mut quals) = (vec![], vec![], vec![], vec![]);
        for (i, &p) in params.iter().enumerate() {
            let pty = ptys.get(i).copied().unwrap_or(0);
            let attrs = self.deco.param_attrs(p);
            let byval = attrs.contains(&Fpa::ByVal);
            let (space, name) = match self.kind(pty)?.clone() {
                Kind::Pointer(sc, pointee) if byval => {
                    let _ = sc;
                    (0, self.type_name(pointee, 0))
                }
                Kind::Pointer(sc, _) => (address_space(sc).unwrap_or(0), self.type_name(pty, 0)),
                Kind::Image(_) => (1, self.type_name(pty, 0)),
                _ => (0, self.type_name(pty, 0)),
            };
            let acc = match self.kind(pty)? {
                Kind::Image(i) => match i.access {
                    AccessQualifier::ReadOnly => "read_only",
                    AccessQualifier::WriteOnly => "write_only",
                    AccessQualifier::ReadWrite => "read_write",
                },
                _ => "none",
            };
            let mut q = Vec::new();
            if matches!(self.kind(pty)?, Kind::Pointer(..)) && !byval {
                if attrs.contains(&Fpa::NoWrite) || space == 2 {
                    q.push("const");
                }
                if attrs.contains(&Fpa::NoAlias) || self.deco.has(p, Decoration::Restrict) {
                    q.push("restrict");
                }
                if self.deco.has(p, Decoration::Volatile) {
                    q.push("volatile");
                }
            }
            let name = declared
                .as_ref()
                .and_then(|d| d.get(i).cloned())
                .unwrap_or(name);
            spaces.push(ll::md_value(ll::i32c(ctx, space as u64)));
            access.push(ll::md_string(ctx, acc));
            types.push(ll::md_string(ctx, &name));
            quals.push(ll::md_string(ctx, &q.join(" ")));
        }
        ll::set_function_metadata(f, "kernel_arg_addr_space", &spaces);
        ll::set_function_metadata(f, "kernel_arg_access_qual", &access);
        ll::set_function_metadata(f, "kernel_arg_type", &types);
        ll::set_function_metadata(f, "kernel_arg_base_type", &types);
        ll::set_function_metadata(f, "kernel_arg_type_qual", &quals);
        // No kernel_arg_name: argument information is the source's
        // (`-cl-kernel-arg-info`), which a program from IL lacks.
        Ok(())
    }

    unsafe fn execution_modes(&mut self, function: Id, f: LLVMValueRef) -> Result<()> {
        let modes: Vec<_> = self
            .modes
            .iter()
            .filter(|m| m.id(0).ok() == Some(function))
            .cloned()
            .collect();
        let ctx = self.ctx;
        for m in modes {
            self.enter(&m);
            let mode = match m.get(1) {
                Some(Operand::ExecutionMode(e)) => *e,
                _ => return Err(m.err("the execution mode is missing")),
            };
            let size3 = |tr: &Self| -> Result<Vec<LLVMMetadataRef>> {
                (2..5)
                    .map(|n| {
                        let v = if m.op() == Op::ExecutionModeId {
                            tr.const_u64(m.id(n)?)
                                .ok_or_else(|| m.err("a size is not an integer constant"))?
                        } else {
                            m.literal(n)? as u64
                        };
                        if v == 0 {
                            return Err(m.err("a work-group size of 0"));
                        }
                        Ok(ll::md_value(ll::i32c(ctx, v)))
                    })
                    .collect()
            };
            match mode {
                ExecutionMode::LocalSize | ExecutionMode::LocalSizeId => {
                    let s = size3(self)?;
                    ll::set_function_metadata(f, "reqd_work_group_size", &s);
                }
                ExecutionMode::LocalSizeHint | ExecutionMode::LocalSizeHintId => {
                    let s = size3(self)?;
                    ll::set_function_metadata(f, "work_group_size_hint", &s);
                }
                ExecutionMode::VecTypeHint => {
                    let hint = m.literal(2)?;
                    let (elem, signed) = match hint & 0xffff {
                        0 => (ll::int(ctx, 8), true),
                        1 => (ll::int(ctx, 16), true),
                        2 => (ll::int(ctx, 32), true),
                        3 => (ll::int(ctx, 64), true),
                        4 => (LLVMHalfTypeInContext(ctx), true),
                        5 => (LLVMFloatTypeInContext(ctx), true),
                        6 => (LLVMDoubleTypeInContext(ctx), true),
                        t => return Err(m.err(format!("vector type hint {t} is not a type"))),
                    };
                    let n = hint >> 16;
                    let t = match n {
                        0 | 1 => elem,
                        2 | 3 | 4 | 8 | 16 => LLVMVectorType(elem, n),
                        _ => return Err(m.err(format!("vector type hint of {n} components"))),
                    };
                    let vals = [
                        ll::md_value(LLVMGetUndef(t)),
                        ll::md_value(ll::i32c(ctx, signed as u64)),
                    ];
                    ll::set_function_metadata(f, "vec_type_hint", &vals);
                }
                // SubgroupDispatch: the sub-group width the kernel requires
                // (Clang's `intel_reqd_sub_group_size`, whose sizes the
                // compiler checks), and the number of sub-groups its
                // work-groups have (`CL_KERNEL_COMPILE_NUM_SUB_GROUPS`).
                ExecutionMode::SubgroupSize
                | ExecutionMode::SubgroupsPerWorkgroup
                | ExecutionMode::SubgroupsPerWorkgroupId => {
                    let n = if m.op() == Op::ExecutionModeId {
                        self.const_u64(m.id(2)?)
                            .ok_or_else(|| m.err("the count is not an integer constant"))?
                    } else {
                        m.literal(2)? as u64
                    };
                    if n == 0 || n > u32::MAX as u64 {
                        return Err(m.err(format!("{mode:?} of {n}")));
                    }
                    let kind = if mode == ExecutionMode::SubgroupSize {
                        "intel_reqd_sub_group_size"
                    } else {
                        "required_num_sub_groups"
                    };
                    ll::set_function_metadata(f, kind, &[ll::md_value(ll::i32c(ctx, n))]);
                }
                ExecutionMode::ContractionOff
                | ExecutionMode::Initializer
                | ExecutionMode::Finalizer => {}
                other => return Err(m.err(format!("execution mode {other:?} is not supported"))),
            }
        }
        Ok(())
    }
}
