//! The program binary (seed 000's serialized binary, in seed 002's shape:
//! an ELF file whose notes say what the runtime needs): one format for
//! `CL_PROGRAM_BINARIES`, the on-disk cache and `clc`.
//!
//! An x86-64 ELF relocatable file with four sections:
//! - `.ferrocl.notes`: magic, format version, binary type, triple, build
//!   options and log, the options that shape machine code, the kernel table
//!   (names, argument kinds, address spaces, access and type qualifiers,
//!   type names, attributes, printf descriptors), the program-scope
//!   variables' layout, and the CPU (name and features) the machine code is
//!   for, with a table of the kernels specialized for it;
//! - `.ferrocl.bitcode`: the portable bitcode, what any CPU can build from;
//! - `.ferrocl.code`: the machine code of those kernels, each as the
//!   target's executable (`mux::Device::create_executable` loads one);
//! - `.ferrocl.digest`: SHA-256 of the whole file with these 32 bytes as
//!   zeros, so that a truncated or damaged file is refused, never loaded.
//!
//! Every count and size read is checked against what holds it, and the
//! kernel table against what a kernel can be ([`check_kernels`]), so no
//! input crashes the reader or lies its way past it.

use crate::disk_cache::{Reader, Writer};
use crate::kernel_info::{self, AddressSpace, ArgKind, KernelInfo};
use crate::printf::PrintfArg;
use crate::program::{CodeGenOptions, ModuleKind};
use crate::program_globals::GlobalsImage;
use crate::{ImageFormat, Specialization, MAX_SPECIALIZED_IMAGES};
use object::write::{Object, StandardSegment};
use object::{Architecture, BinaryFormat, Endianness, SectionKind};
use object::{Object as _, ObjectSection as _};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The version of the layout of `.ferrocl.notes`; a binary of another is
/// refused.
pub const FORMAT_VERSION: u64 = 3;

const MAGIC: &[u8] = b"ferrocl program binary";
const NOTES: &str = ".ferrocl.notes";
const BITCODE: &str = ".ferrocl.bitcode";
const CODE: &str = ".ferrocl.code";
const DIGEST: &str = ".ferrocl.digest";

/// A CPU machine code is generated for, as LLVM names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Machine {
    pub cpu: String,
    /// LLVM's feature string (`+avx2,-avx512f,...`).
    pub features: String,
}

impl Machine {
    /// Whether code for `self` runs on `host`: the same CPU, or one whose
    /// every feature the host has.
    pub fn runs_on(&self, host: &Machine) -> bool {
        if self == host {
            return true;
        }
        if self.features.is_empty() {
            return false;
        }
        let have: std::collections::HashSet<&str> = host
            .features
            .split(',')
            .filter(|f| f.starts_with('+'))
            .collect();
        self.features
            .split(',')
            .filter(|f| f.starts_with('+'))
            .all(|f| have.contains(f))
    }
}

/// One kernel's work-group function for one specialization, as the
/// target's executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecializedCode {
    pub kernel: String,
    pub spec: Specialization,
    pub executable: Arc<[u8]>,
}

/// The machine code a binary carries, all for one CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MachineCode {
    pub machine: Machine,
    pub kernels: Vec<SpecializedCode>,
}

/// Everything a binary holds.
#[derive(Debug, Clone)]
pub struct Contents {
    pub kind: ModuleKind,
    pub triple: String,
    pub options: String,
    pub log: String,
    pub codegen: CodeGenOptions,
    pub kernels: Vec<KernelInfo>,
    pub globals: GlobalsImage,
    pub bitcode: Vec<u8>,
    pub machine_code: MachineCode,
}

fn write_spec(w: &mut Writer, s: &Specialization) {
    for v in s.local_size.iter().chain(&s.enqueued_local_size) {
        w.u64(*v as u64);
    }
    w.u64(s.streaming);
    for image in &s.images {
        match image {
            None => w.u64(0),
            Some(f) => w
                .u64(1)
                .u64(f.arg as u64)
                .u64(f.channel_order as u64)
                .u64(f.channel_data_type as u64)
                .u64(f.element_size as u64),
        };
    }
}

fn read_u32(r: &mut Reader) -> Option<u32> {
    u32::try_from(r.u64()?).ok()
}

fn read_spec(r: &mut Reader) -> Option<Specialization> {
    let mut sizes = [0usize; 6];
    for s in &mut sizes {
        *s = usize::try_from(r.u64()?).ok()?;
    }
    let streaming = r.u64()?;
    let mut images = [None; MAX_SPECIALIZED_IMAGES];
    for image in &mut images {
        *image = match r.u64()? {
            0 => None,
            1 => Some(ImageFormat {
                arg: read_u32(r)?,
                channel_order: read_u32(r)?,
                channel_data_type: read_u32(r)?,
                element_size: read_u32(r)?,
            }),
            _ => return None,
        };
    }
    Some(Specialization {
        local_size: [sizes[0], sizes[1], sizes[2]],
        enqueued_local_size: [sizes[3], sizes[4], sizes[5]],
        streaming,
        images,
    })
}

pub(crate) fn write_globals(w: &mut Writer, g: &GlobalsImage) {
    w.u64(g.size as u64)
        .u64(g.align as u64)
        .u64(g.data.len() as u64);
    for (at, bytes) in &g.data {
        w.u64(*at as u64).bytes(bytes);
    }
    w.u64(g.relocations.len() as u64);
    for (at, target) in &g.relocations {
        w.u64(*at as u64).u64(*target as u64);
    }
}

pub(crate) fn read_globals(r: &mut Reader) -> Option<GlobalsImage> {
    let size = usize::try_from(r.u64()?).ok()?;
    let align = usize::try_from(r.u64()?).ok()?;
    let mut data = Vec::new();
    for _ in 0..r.u64()? {
        data.push((usize::try_from(r.u64()?).ok()?, r.bytes()?.to_vec()));
    }
    let mut relocations = Vec::new();
    for _ in 0..r.u64()? {
        relocations.push((
            usize::try_from(r.u64()?).ok()?,
            usize::try_from(r.u64()?).ok()?,
        ));
    }
    Some(GlobalsImage {
        size,
        align,
        data,
        relocations,
    })
}

fn string(r: &mut Reader) -> Option<String> {
    String::from_utf8(r.bytes()?.to_vec()).ok()
}

/// The binary of `c`.
pub fn write(c: &Contents) -> Vec<u8> {
    let mut notes = Writer::default();
    notes
        .bytes(MAGIC)
        .u64(FORMAT_VERSION)
        .u64(c.kind.tag() as u64)
        .bytes(c.triple.as_bytes())
        .bytes(c.options.as_bytes())
        .bytes(c.log.as_bytes())
        .u64(c.codegen.opt_disable as u64)
        .u64(c.codegen.denorms_are_zero as u64);
    kernel_info::cached::write(&mut notes, &c.kernels);
    write_globals(&mut notes, &c.globals);
    let mc = &c.machine_code;
    notes
        .bytes(mc.machine.cpu.as_bytes())
        .bytes(mc.machine.features.as_bytes())
        .u64(mc.kernels.len() as u64);
    let mut code = Vec::new();
    for k in &mc.kernels {
        notes.bytes(k.kernel.as_bytes());
        write_spec(&mut notes, &k.spec);
        notes.u64(code.len() as u64).u64(k.executable.len() as u64);
        code.extend_from_slice(&k.executable);
        // Each executable 16-byte aligned within the section.
        code.resize(code.len().next_multiple_of(16), 0);
    }

    let mut elf = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
    let segment = elf.segment_name(StandardSegment::Data).to_vec();
    for (name, data, align) in [
        (NOTES, notes.0.as_slice(), 8),
        (BITCODE, c.bitcode.as_slice(), 8),
        (CODE, code.as_slice(), 16),
        (DIGEST, &[0u8; 32][..], 8),
    ] {
        let id = elf.add_section(
            segment.clone(),
            name.as_bytes().to_vec(),
            SectionKind::Other,
        );
        elf.append_section_data(id, data, align);
    }
    let mut out = elf
        .write()
        .expect("an ELF file of four sections is always writable");
    let at = digest_range(&out).expect("the digest section just written");
    let digest = Sha256::digest(&out);
    out[at..at + 32].copy_from_slice(&digest);
    out
}

/// Gives a binary edited in place (by a fuzzer) the digest of its new
/// bytes, so that what lies behind the digest is read too. False if it has
/// no digest to rewrite.
pub fn reseal(file: &mut [u8]) -> bool {
    let Some(at) = digest_range(file) else {
        return false;
    };
    file[at..at + 32].fill(0);
    let digest = Sha256::digest(&*file);
    file[at..at + 32].copy_from_slice(&digest);
    true
}

/// Where the notes lie in `file`, for a fuzzer to aim at.
pub fn notes_range(file: &[u8]) -> Option<std::ops::Range<usize>> {
    let elf = object::File::parse(file).ok()?;
    let (at, len) = elf.section_by_name(NOTES)?.file_range()?;
    let at = usize::try_from(at).ok()?;
    let end = at.checked_add(usize::try_from(len).ok()?)?;
    (end <= file.len()).then_some(at..end)
}

/// Where the digest lies in `file`.
fn digest_range(file: &[u8]) -> Option<usize> {
    let elf = object::File::parse(file).ok()?;
    let (at, len) = elf.section_by_name(DIGEST)?.file_range()?;
    let at = usize::try_from(at).ok()?;
    (len == 32 && at.checked_add(32)? <= file.len()).then_some(at)
}

/// Reads a binary, checking all of it. The error says why it is refused.
pub fn read(file: &[u8]) -> Result<Contents, String> {
    let elf = object::File::parse(file).map_err(|_| "not an ELF file".to_string())?;
    if elf.architecture() != Architecture::X86_64 || !elf.is_64() || !elf.is_little_endian() {
        return Err(format!(
            "a binary for another device ({:?})",
            elf.architecture()
        ));
    }
    let section = |name: &str| -> Result<&[u8], String> {
        elf.section_by_name(name)
            .and_then(|s| s.data().ok())
            .ok_or_else(|| format!("no {name} section"))
    };
    let notes = section(NOTES)?;
    let mut r = Reader(notes);
    if r.bytes() != Some(MAGIC) {
        return Err("not a ferrocl program binary".into());
    }
    let version = r.u64().ok_or("truncated notes")?;
    if version != FORMAT_VERSION {
        return Err(format!(
            "binary format version {version}; this library reads version {FORMAT_VERSION}"
        ));
    }
    let at = digest_range(file).ok_or("no digest")?;
    let mut h = Sha256::new();
    h.update(&file[..at]);
    h.update([0u8; 32]);
    h.update(&file[at + 32..]);
    if h.finalize().as_slice() != &file[at..at + 32] {
        return Err("the binary is damaged (its digest does not match)".into());
    }
    let contents =
        read_notes(&mut r, section(BITCODE)?, section(CODE)?).ok_or("the notes are malformed")?;
    if !r.0.is_empty() {
        return Err("the notes are malformed".into());
    }
    if contents.triple != crate::TRIPLE {
        return Err(format!("a binary for another device ({})", contents.triple));
    }
    check_kernels(&contents.kernels)?;
    check_globals(&contents.globals)?;
    for k in &contents.machine_code.kernels {
        if !contents.kernels.iter().any(|i| i.name == k.kernel) {
            return Err(format!("machine code of an unknown kernel `{}`", k.kernel));
        }
        check_spec(&k.spec)?;
    }
    Ok(contents)
}

fn read_notes(r: &mut Reader, bitcode: &[u8], code: &[u8]) -> Option<Contents> {
    let kind = ModuleKind::from_tag(u8::try_from(r.u64()?).ok()?)?;
    let triple = string(r)?;
    let options = string(r)?;
    let log = string(r)?;
    let flag = |r: &mut Reader| match r.u64()? {
        0 => Some(false),
        1 => Some(true),
        _ => None,
    };
    let codegen = CodeGenOptions {
        opt_disable: flag(r)?,
        denorms_are_zero: flag(r)?,
    };
    let kernels = kernel_info::cached::read(r)?;
    let globals = read_globals(r)?;
    let machine = Machine {
        cpu: string(r)?,
        features: string(r)?,
    };
    let mut specialized = Vec::new();
    for _ in 0..r.u64()? {
        let kernel = string(r)?;
        let spec = read_spec(r)?;
        let at = usize::try_from(r.u64()?).ok()?;
        let len = usize::try_from(r.u64()?).ok()?;
        let executable = code.get(at..at.checked_add(len)?)?;
        specialized.push(SpecializedCode {
            kernel,
            spec,
            executable: executable.into(),
        });
    }
    Some(Contents {
        kind,
        triple,
        options,
        log,
        codegen,
        kernels,
        globals,
        bitcode: bitcode.to_vec(),
        machine_code: MachineCode {
            machine,
            kernels: specialized,
        },
    })
}

/// Most work-items a specialization may have (the device's largest
/// work-group is far smaller).
const MAX_WORK_ITEMS: usize = 1 << 20;

fn check_spec(s: &Specialization) -> Result<(), String> {
    if *s == Specialization::GENERIC {
        return Ok(());
    }
    let items = s
        .local_size
        .iter()
        .try_fold(1usize, |n, &d| (d >= 1).then(|| n.checked_mul(d)).flatten());
    let fits = s
        .local_size
        .iter()
        .zip(&s.enqueued_local_size)
        .all(|(l, e)| l <= e && *e <= MAX_WORK_ITEMS);
    if items.is_none_or(|n| n > MAX_WORK_ITEMS) || !fits {
        return Err(format!("a specialization of impossible sizes {s:?}"));
    }
    Ok(())
}

/// Checks that a kernel table describes kernels that can be: what every
/// later step (argument checks, packing, printf records) relies on.
pub fn check_kernels(kernels: &[KernelInfo]) -> Result<(), String> {
    let mut names = std::collections::HashSet::new();
    for k in kernels {
        let lie = |what: &str| Err(format!("kernel `{}`: {what}", k.name));
        let ident = |s: &str| {
            !s.is_empty()
                && !s.starts_with(|c: char| c.is_ascii_digit())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        if !ident(&k.name) || !names.insert(k.name.as_str()) {
            return lie("a bad or repeated name");
        }
        if k.args.len() > 1024 {
            return lie("too many arguments");
        }
        let mut total = 0usize;
        for a in &k.args {
            let pointer_like = matches!(
                a.kind,
                ArgKind::Buffer | ArgKind::Local | ArgKind::Image(_) | ArgKind::Sampler
            );
            let sizes_ok = if pointer_like {
                a.size == 8 && a.align == 8
            } else {
                (1..=1 << 16).contains(&a.size)
                    && a.align.is_power_of_two()
                    && a.align <= 256
                    && a.size.is_multiple_of(a.align)
            };
            let space_ok = match a.kind {
                ArgKind::Buffer => matches!(
                    a.address_space,
                    AddressSpace::Global | AddressSpace::Constant | AddressSpace::Generic
                ),
                ArgKind::Local => a.address_space == AddressSpace::Local,
                _ => true,
            };
            let access_ok =
                ["none", "read_only", "write_only", "read_write"].contains(&a.access.as_str());
            if !sizes_ok || !space_ok || !access_ok {
                return lie("an argument of impossible kind, size or qualifier");
            }
            total += a.size.next_multiple_of(a.align);
        }
        if total > 1 << 20 {
            return lie("arguments larger than any device takes");
        }
        for size in [k.reqd_work_group_size, k.work_group_size_hint]
            .into_iter()
            .flatten()
        {
            if size.iter().any(|&d| d == 0 || d > MAX_WORK_ITEMS) {
                return lie("an impossible work-group size");
            }
        }
        if k.reqd_sub_group_size
            .is_some_and(|n| !crate::SUB_GROUP_SIZES.contains(&n))
        {
            return lie("a sub-group size no device has");
        }
        if k.compile_num_sub_groups == Some(0) {
            return lie("work-groups of no sub-groups");
        }
        if k.static_local_memory > 1 << 32 || k.private_memory > 1 << 40 {
            return lie("impossible memory sizes");
        }
        let mut ids = std::collections::HashSet::new();
        for c in &k.printf_calls {
            let args_ok = c.args.iter().all(|a| match a {
                PrintfArg::Int(n) => [1, 2, 4, 8].contains(n),
                PrintfArg::Float(n) => [2, 4, 8].contains(n),
                PrintfArg::Vector(n) => (1..=128).contains(n),
                PrintfArg::Pointer { .. } => true,
            });
            if !ids.insert(c.id) || !args_ok || c.args.len() > 1024 {
                return lie("a malformed printf descriptor");
            }
        }
    }
    Ok(())
}

/// Checks that the program-scope variables' image stays inside its block.
pub fn check_globals(g: &GlobalsImage) -> Result<(), String> {
    let inside = |at: usize, len: usize| at.checked_add(len).is_some_and(|end| end <= g.size);
    let ok = g.size <= 1 << 32
        // Objects and libraries have none: size and alignment 0.
        && (g.align.is_power_of_two() || g.size == 0)
        && g.align <= 4096
        && g.data.iter().all(|(at, bytes)| inside(*at, bytes.len()))
        && g
            .relocations
            .iter()
            .all(|&(at, target)| inside(at, 8) && target <= g.size);
    if ok {
        Ok(())
    } else {
        Err("program-scope variables outside their block".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel_info::ArgInfo;

    fn contents() -> Contents {
        Contents {
            kind: ModuleKind::Executable,
            triple: crate::TRIPLE.into(),
            options: "-cl-opt-disable".into(),
            log: "warning: none".into(),
            codegen: CodeGenOptions {
                opt_disable: true,
                denorms_are_zero: false,
            },
            kernels: vec![KernelInfo {
                name: "k".into(),
                args: vec![ArgInfo {
                    kind: ArgKind::Buffer,
                    address_space: AddressSpace::Global,
                    size: 8,
                    align: 8,
                    access: "none".into(),
                    type_name: "int*".into(),
                    type_qualifier: String::new(),
                    name: Some("out".into()),
                }],
                reqd_work_group_size: Some([4, 1, 1]),
                work_group_size_hint: None,
                vec_type_hint: None,
                uniform_work_group_size: true,
                reqd_sub_group_size: None,
                compile_num_sub_groups: None,
                uses_barrier: false,
                static_local_memory: 0,
                private_memory: 0,
                uses_program_globals: false,
                printf_calls: vec![],
            }],
            globals: GlobalsImage {
                size: 16,
                align: 8,
                data: vec![(0, vec![1, 2])],
                relocations: vec![(8, 0)],
            },
            bitcode: b"BC\xc0\xde and more".to_vec(),
            machine_code: MachineCode {
                machine: Machine {
                    cpu: "znver3".into(),
                    features: "+avx2,+fma".into(),
                },
                kernels: vec![SpecializedCode {
                    kernel: "k".into(),
                    spec: Specialization {
                        local_size: [4, 1, 1],
                        enqueued_local_size: [4, 1, 1],
                        streaming: 1,
                        images: [None; MAX_SPECIALIZED_IMAGES],
                    },
                    executable: Arc::from(&b"machine code"[..]),
                }],
            },
        }
    }

    #[test]
    fn a_binary_reads_back_whole() {
        let c = contents();
        let bytes = write(&c);
        let back = read(&bytes).unwrap();
        assert_eq!(back.kind, c.kind);
        assert_eq!(back.options, c.options);
        assert_eq!(back.log, c.log);
        assert_eq!(back.codegen, c.codegen);
        assert_eq!(back.kernels, c.kernels);
        assert_eq!(back.globals.data, c.globals.data);
        assert_eq!(back.bitcode, c.bitcode);
        assert_eq!(back.machine_code, c.machine_code);
        // An ELF file others' tools read: its sections are there by name.
        let elf = object::File::parse(&*bytes).unwrap();
        assert_eq!(elf.format(), BinaryFormat::Elf);
        assert!(elf.section_by_name(NOTES).is_some());
    }

    #[test]
    fn every_damage_is_refused() {
        let bytes = write(&contents());
        for len in 0..bytes.len() {
            assert!(read(&bytes[..len]).is_err(), "truncated to {len}");
        }
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x01;
            assert!(read(&bad).is_err(), "flipped at {at}");
        }
    }

    /// `c` edited, written under a valid digest.
    fn with_notes(c: &Contents, edit: impl FnOnce(&mut Contents)) -> Vec<u8> {
        let mut c = c.clone();
        edit(&mut c);
        write(&c)
    }

    /// An edit of a binary's contents, named.
    type Lie = (&'static str, Box<dyn FnOnce(&mut Contents)>);

    #[test]
    fn tables_that_lie_are_refused_even_with_a_valid_digest() {
        let c = contents();
        let cases: Vec<Lie> = vec![
            (
                "buffer of 4 bytes",
                Box::new(|c| c.kernels[0].args[0].size = 4),
            ),
            (
                "local buffer in global memory",
                Box::new(|c| c.kernels[0].args[0].kind = ArgKind::Local),
            ),
            ("no name", Box::new(|c| c.kernels[0].name.clear())),
            (
                "twice the same kernel",
                Box::new(|c| c.kernels.push(c.kernels[0].clone())),
            ),
            (
                "zero work-group size",
                Box::new(|c| c.kernels[0].reqd_work_group_size = Some([0, 1, 1])),
            ),
            (
                "global data past the block",
                Box::new(|c| c.globals.data.push((15, vec![1, 2]))),
            ),
            (
                "relocation past the block",
                Box::new(|c| c.globals.relocations.push((12, 0))),
            ),
            (
                "code for no kernel",
                Box::new(|c| c.machine_code.kernels[0].kernel = "other".into()),
            ),
            (
                "code of zero work-items",
                Box::new(|c| c.machine_code.kernels[0].spec.local_size = [0, 1, 1]),
            ),
            (
                "another architecture",
                Box::new(|c| c.triple = "aarch64-unknown-linux-gnu".into()),
            ),
        ];
        for (what, edit) in cases {
            assert!(read(&with_notes(&c, edit)).is_err(), "{what}");
        }
    }

    #[test]
    fn another_format_version_is_refused_by_name() {
        let mut bytes = write(&contents());
        // The version follows the magic in the notes.
        let elf = object::File::parse(&*bytes).unwrap();
        let (at, _) = elf.section_by_name(NOTES).unwrap().file_range().unwrap();
        let v = at as usize + 8 + MAGIC.len();
        bytes[v] = FORMAT_VERSION as u8 + 1;
        let e = read(&bytes).unwrap_err();
        assert!(
            e.contains(&format!("version {}", FORMAT_VERSION + 1)),
            "{e}"
        );
    }

    #[test]
    fn code_runs_on_a_cpu_with_all_its_features() {
        let m = |cpu: &str, f: &str| Machine {
            cpu: cpu.into(),
            features: f.into(),
        };
        let host = m("znver3", "+avx2,+fma,-avx512f");
        assert!(m("znver3", "+avx2,+fma,-avx512f").runs_on(&host));
        assert!(m("haswell", "+avx2,-avx512f").runs_on(&host));
        assert!(!m("skylake-avx512", "+avx2,+avx512f").runs_on(&host));
        assert!(!m("x86-64-v4", "").runs_on(&host));
    }
}
