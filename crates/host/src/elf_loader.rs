//! The loader of kernels' machine code: a relocatable x86-64 ELF object, as
//! the code generator emits it for the host (small code model, PIC), put
//! in memory of its own and linked there, with no LLVM.
//!
//! Every section the object asks to be allocated (`SHF_ALLOC`) gets a place
//! in one mapping: executable code first (with a stub per external function
//! called, jumping through the object's own GOT), then read-only data and
//! the GOT, then writable data and zeroed `.bss`, each part on pages of its
//! own. The relocations are applied, undefined symbols found in the device
//! library (`device_library`), the process (the C library), `libm` and
//! GCC's runtime (half conversions), the last three with `dlsym`, and the
//! pages given their protections: code read and execute, constants and the
//! GOT read only. The mapping goes when the [`LoadedObject`] does.
//!
//! Whatever the input, loading fails with an error rather than crashing:
//! every offset, size, index and computed value is checked, and an object
//! with a relocation of a kind not handled here is refused.

use object::elf;
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym, SymbolTable};
use object::read::SymbolIndex;
use object::LittleEndian as LE;
use std::ffi::CString;
use std::sync::OnceLock;

type Header = elf::FileHeader64<LE>;
type Section = elf::SectionHeader64<LE>;

/// The most memory one object may take: its parts must reach each other
/// with 32-bit displacements, and a `.bss` size is only a number in a file.
const MAX_IMAGE: u64 = 1 << 30;

/// The largest section alignment taken.
const MAX_ALIGN: u64 = 1 << 20;

/// A stub: `jmp *disp32(%rip)` through the GOT, padded with `int3`.
const STUB_BYTES: u64 = 8;

/// An object loaded in memory; unmapped when dropped.
#[derive(Debug)]
pub struct LoadedObject {
    /// The mapping as `mmap` returned it.
    map: usize,
    map_len: usize,
}

impl Drop for LoadedObject {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours, and nothing runs its code any more:
        // every kernel holds the object it came from.
        unsafe { libc::munmap(self.map as *mut libc::c_void, self.map_len) };
    }
}

/// Anonymous memory, unmapped on every path out unless kept.
struct Mapping(LoadedObject);

impl Mapping {
    fn new(len: usize) -> Result<Mapping, String> {
        // SAFETY: a fresh private anonymous mapping.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!("cannot map {len} bytes for the object's code"));
        }
        Ok(Mapping(LoadedObject {
            map: p as usize,
            map_len: len,
        }))
    }
}

/// Where the parts of the image go.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    Code,
    ReadOnly,
    Writable,
}

const PARTS: [Part; 3] = [Part::Code, Part::ReadOnly, Part::Writable];

/// A section given a place: its part and offset there.
#[derive(Clone, Copy)]
struct Placed {
    part: Part,
    offset: u64,
    size: u64,
}

/// How a symbol is reached from a relocation.
#[derive(Clone, Copy)]
enum Need {
    /// Its address in a GOT entry.
    Got,
    /// A stub to call it through (an external function), and so a GOT
    /// entry too.
    Stub,
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as u64
    } else {
        4096
    }
}

fn align_up(v: u64, align: u64) -> Result<u64, String> {
    v.checked_add(align - 1)
        .map(|v| v & !(align - 1))
        .ok_or_else(|| "the object is too large".to_string())
}

/// The libraries searched after the process's global symbols: `libm`, as
/// the loader may have opened this library (and so libm) with
/// `RTLD_LOCAL` and an application need not link libm itself, and GCC's
/// runtime, whose `__extendhfsf2` and `__truncsfhf2` LLVM calls to convert
/// half on a CPU without F16C.
fn libraries() -> &'static [usize] {
    static LIBRARIES: OnceLock<Vec<usize>> = OnceLock::new();
    LIBRARIES.get_or_init(|| {
        [c"libm.so.6", c"libgcc_s.so.1"]
            .iter()
            // SAFETY: opening a system library by name; never closed.
            .map(|name| unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) })
            .filter(|h| !h.is_null())
            .map(|h| h as usize)
            .collect()
    })
}

/// The address of the device library's function `name`, else of the
/// process's symbol `name`, if any.
fn find_external(name: &[u8]) -> Option<u64> {
    if let Some(a) = crate::device_library::address(name) {
        return Some(a);
    }
    let name = CString::new(name).ok()?;
    std::iter::once(libc::RTLD_DEFAULT as usize)
        .chain(libraries().iter().copied())
        .find_map(|handle| {
            // SAFETY: a lookup by a NUL-terminated name in a live handle.
            let p = unsafe { libc::dlsym(handle as *mut libc::c_void, name.as_ptr()) };
            (!p.is_null()).then_some(p as u64)
        })
}

/// The parsed object: its sections and symbols.
struct Object<'a> {
    data: &'a [u8],
    sections: SectionTable<'a, Header, &'a [u8]>,
    symbols: SymbolTable<'a, Header, &'a [u8]>,
}

fn err(e: object::read::Error) -> String {
    format!("malformed object: {e}")
}

impl<'a> Object<'a> {
    fn parse(data: &'a [u8]) -> Result<Object<'a>, String> {
        let header = Header::parse(data).map_err(err)?;
        if !header.is_little_endian() || !header.is_class_64() {
            return Err("not a 64-bit little-endian ELF object".into());
        }
        if header.e_machine(LE) != elf::EM_X86_64 {
            return Err(format!(
                "an object for machine {}, not x86-64",
                header.e_machine(LE)
            ));
        }
        if header.e_type(LE) != elf::ET_REL {
            return Err("not a relocatable object".into());
        }
        let sections = header.sections(LE, data).map_err(err)?;
        let symbols = sections.symbols(LE, data, elf::SHT_SYMTAB).map_err(err)?;
        Ok(Object {
            data,
            sections,
            symbols,
        })
    }

    fn section(&self, index: usize) -> Result<&'a Section, String> {
        self.sections
            .section(object::SectionIndex(index))
            .map_err(err)
    }

    fn section_name(&self, s: &Section) -> String {
        let name = self.sections.section_name(LE, s).unwrap_or(b"?");
        String::from_utf8_lossy(name).into_owned()
    }

    fn symbol_name(&self, sym: &elf::Sym64<LE>) -> Result<&'a [u8], String> {
        self.symbols.symbol_name(LE, sym).map_err(err)
    }
}

/// Loads `object` and returns the addresses of its `symbols`, functions it
/// defines.
pub fn load(object: &[u8], symbols: &[&str]) -> Result<(LoadedObject, Vec<u64>), String> {
    // The ELF structures are read in place and must be aligned: a copy on
    // 8-byte words.
    let mut words = vec![0u64; object.len().div_ceil(8)];
    // SAFETY: the words hold at least `object.len()` bytes, and the slice
    // borrows them.
    let aligned = unsafe {
        let p = words.as_mut_ptr() as *mut u8;
        std::ptr::copy_nonoverlapping(object.as_ptr(), p, object.len());
        std::slice::from_raw_parts(p as *const u8, object.len())
    };
    Loader::new(Object::parse(aligned)?)?.load(symbols)
}

/// A relocation section's entries, and the section they apply to.
type Relocations<'a> = (&'a [elf::Rela64<LE>], usize);

/// One object being loaded.
struct Loader<'a> {
    obj: Object<'a>,
    /// Each section's place, if it is loaded.
    placed: Vec<Option<Placed>>,
    /// Each part's offset from the image's start, and size.
    parts: [(u64, u64); 3],
    /// The symbols with a GOT entry, in the GOT's order, each with the
    /// number of its stub if calls go through one.
    got: Vec<(usize, Option<usize>)>,
    got_offset: u64,
    stubs_offset: u64,
    /// Each symbol's address once resolved.
    resolved: Vec<Option<u64>>,
    /// The image's start in memory, once mapped.
    base: u64,
}

impl<'a> Loader<'a> {
    fn new(obj: Object<'a>) -> Result<Loader<'a>, String> {
        let n = obj.sections.len();
        let mut l = Loader {
            placed: vec![None; n],
            parts: [(0, 0); 3],
            got: Vec::new(),
            got_offset: 0,
            stubs_offset: 0,
            resolved: vec![None; obj.symbols.len()],
            base: 0,
            obj,
        };
        l.place_sections()?;
        l.find_needs()?;
        Ok(l)
    }

    /// Gives every allocated section a place in its part.
    fn place_sections(&mut self) -> Result<(), String> {
        let mut ends = [0u64; 3];
        for (index, s) in self.obj.sections.enumerate() {
            let flags = s.sh_flags(LE);
            if flags & u64::from(elf::SHF_ALLOC) == 0 {
                continue;
            }
            let name = || self.obj.section_name(s);
            if flags & u64::from(elf::SHF_TLS) != 0 {
                return Err(format!("section {} is thread-local storage", name()));
            }
            let size = s.sh_size(LE);
            let ty = s.sh_type(LE);
            if matches!(
                ty,
                elf::SHT_INIT_ARRAY | elf::SHT_FINI_ARRAY | elf::SHT_PREINIT_ARRAY
            ) && size > 0
            {
                return Err(format!(
                    "section {} holds constructors or destructors",
                    name()
                ));
            }
            let exec = flags & u64::from(elf::SHF_EXECINSTR) != 0;
            let write = flags & u64::from(elf::SHF_WRITE) != 0;
            let part = match (exec, write) {
                (true, true) => return Err(format!("section {} is writable code", name())),
                (true, false) => Part::Code,
                (false, false) => Part::ReadOnly,
                (false, true) => Part::Writable,
            };
            let align = s.sh_addralign(LE).max(1);
            if !align.is_power_of_two() || align > MAX_ALIGN {
                return Err(format!("section {} has alignment {align}", name()));
            }
            if ty != elf::SHT_NOBITS {
                // Its bytes must be in the file.
                s.data(LE, self.obj.data).map_err(err)?;
            }
            let i = part as usize;
            let offset = align_up(ends[i], align)?;
            ends[i] = offset
                .checked_add(size)
                .filter(|&e| e <= MAX_IMAGE)
                .ok_or_else(|| format!("section {} is too large", name()))?;
            self.placed[index.0] = Some(Placed { part, offset, size });
        }
        self.parts = [(0, ends[0]), (0, ends[1]), (0, ends[2])];
        Ok(())
    }

    /// The loaded section a relocation section applies to, if any.
    fn target(&self, s: &Section) -> Result<Option<usize>, String> {
        let target = s.sh_info(LE) as usize;
        self.obj.section(target)?;
        Ok(self.placed[target].map(|_| target))
    }

    /// The relocation sections that apply to loaded sections, with their
    /// entries and target.
    fn relocations(&self) -> Result<Vec<Relocations<'a>>, String> {
        let mut out = Vec::new();
        for s in self.obj.sections.iter() {
            match s.sh_type(LE) {
                elf::SHT_RELA => {
                    let Some(target) = self.target(s)? else {
                        continue;
                    };
                    let Some((rela, link)) = s.rela(LE, self.obj.data).map_err(err)? else {
                        continue;
                    };
                    if link != self.obj.symbols.section() {
                        return Err("relocations against another symbol table".into());
                    }
                    out.push((rela, target));
                }
                elf::SHT_REL if self.target(s)?.is_some() => {
                    return Err("relocations without addends (SHT_REL)".into());
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Which symbols need a GOT entry or a stub; where the GOT and stubs go.
    fn find_needs(&mut self) -> Result<(), String> {
        let mut needs: Vec<Option<Need>> = vec![None; self.resolved.len()];
        for (rela, _) in self.relocations()? {
            for r in rela {
                let (sym, ty) = split_info(r.r_info.get(LE));
                let need = match ty {
                    elf::R_X86_64_GOTPCREL
                    | elf::R_X86_64_GOTPCRELX
                    | elf::R_X86_64_REX_GOTPCRELX
                    | elf::R_X86_64_GOTPCREL64 => Need::Got,
                    elf::R_X86_64_PLT32 if self.is_undefined(sym)? => Need::Stub,
                    _ => continue,
                };
                let slot = needs
                    .get_mut(sym)
                    .ok_or_else(|| format!("relocation against symbol {sym}, which is not"))?;
                if !matches!(slot, Some(Need::Stub)) {
                    *slot = Some(need);
                }
            }
        }
        let mut stubs = 0u64;
        for (sym, need) in needs.iter().enumerate() {
            match need {
                Some(Need::Got) => self.got.push((sym, None)),
                Some(Need::Stub) => {
                    self.got.push((sym, Some(stubs as usize)));
                    stubs += 1;
                }
                None => {}
            }
        }
        let code = &mut self.parts[Part::Code as usize].1;
        self.stubs_offset = align_up(*code, 16)?;
        *code = self.stubs_offset + stubs * STUB_BYTES;
        let ro = &mut self.parts[Part::ReadOnly as usize].1;
        self.got_offset = align_up(*ro, 8)?;
        *ro = self.got_offset + 8 * self.got.len() as u64;
        Ok(())
    }

    fn is_undefined(&self, sym: usize) -> Result<bool, String> {
        let s = self.obj.symbols.symbol(SymbolIndex(sym)).map_err(err)?;
        Ok(sym != 0 && s.st_shndx(LE) == elf::SHN_UNDEF)
    }

    /// Lays the parts out, each on pages of its own; returns the image's
    /// size and alignment.
    fn lay_out(&mut self) -> Result<(u64, u64), String> {
        let max_align = self
            .obj
            .sections
            .iter()
            .zip(&self.placed)
            .filter(|(_, p)| p.is_some())
            .map(|(s, _)| s.sh_addralign(LE).max(1))
            .max()
            .unwrap_or(1);
        let align = max_align.max(page_size());
        let mut at = 0;
        for part in &mut self.parts {
            part.0 = at;
            at = align_up(at + part.1, align)?;
        }
        if at > MAX_IMAGE {
            return Err("the object is too large".into());
        }
        Ok((at.max(align), align))
    }

    fn section_address(&self, index: usize) -> Option<u64> {
        let p = self.placed.get(index).copied().flatten()?;
        Some(self.base + self.parts[p.part as usize].0 + p.offset)
    }

    /// The address symbol `sym` stands for.
    fn symbol_address(&mut self, sym: usize) -> Result<u64, String> {
        if let Some(Some(a)) = self.resolved.get(sym) {
            return Ok(*a);
        }
        let s = self.obj.symbols.symbol(SymbolIndex(sym)).map_err(err)?;
        let value = s.st_value(LE);
        let address = match s.st_shndx(LE) {
            _ if sym == 0 => 0,
            elf::SHN_UNDEF => {
                let name = self.obj.symbol_name(s)?;
                match find_external(name) {
                    Some(a) => a,
                    None if s.st_bind() == elf::STB_WEAK => 0,
                    None => {
                        return Err(format!(
                            "undefined symbol `{}`",
                            String::from_utf8_lossy(name)
                        ))
                    }
                }
            }
            elf::SHN_ABS => value,
            elf::SHN_COMMON => return Err("a common symbol".into()),
            _ => {
                if matches!(s.st_type(), elf::STT_TLS | elf::STT_GNU_IFUNC) {
                    return Err(format!("symbol {sym} is thread-local or indirect"));
                }
                let index = self
                    .obj
                    .symbols
                    .symbol_section(LE, s, SymbolIndex(sym))
                    .map_err(err)?
                    .ok_or_else(|| format!("symbol {sym} has a reserved section index"))?;
                let placed =
                    self.placed.get(index.0).copied().flatten().ok_or_else(|| {
                        format!("symbol {sym} is in a section that is not loaded")
                    })?;
                if value > placed.size {
                    return Err(format!("symbol {sym} lies outside its section"));
                }
                self.section_address(index.0).unwrap() + value
            }
        };
        self.resolved[sym] = Some(address);
        Ok(address)
    }

    fn got_entry(&self, sym: usize) -> u64 {
        let i = self.got.iter().position(|g| g.0 == sym).unwrap() as u64;
        self.base + self.parts[Part::ReadOnly as usize].0 + self.got_offset + 8 * i
    }

    fn stub(&self, sym: usize) -> Option<u64> {
        let stub = self.got.iter().find(|g| g.0 == sym)?.1? as u64;
        Some(self.base + self.parts[Part::Code as usize].0 + self.stubs_offset + stub * STUB_BYTES)
    }

    /// Writes `bytes` at `address`, which must lie in the image.
    fn write(&self, image: &mut [u8], address: u64, bytes: &[u8]) {
        let at = (address - self.base) as usize;
        image[at..at + bytes.len()].copy_from_slice(bytes);
    }

    fn load(mut self, names: &[&str]) -> Result<(LoadedObject, Vec<u64>), String> {
        let (size, align) = self.lay_out()?;
        // Room to align the image's start where a section wants more than a page.
        let extra = align - page_size().min(align);
        let mapping = Mapping::new((size + extra) as usize)?;
        self.base = align_up(mapping.0.map as u64, align)?;
        // SAFETY: [base, base + size) lies in the fresh mapping, writable,
        // and nothing else refers to it yet.
        let image = unsafe { std::slice::from_raw_parts_mut(self.base as *mut u8, size as usize) };
        for (index, s) in self.obj.sections.enumerate() {
            if self.placed[index.0].is_some() && s.sh_type(LE) != elf::SHT_NOBITS {
                let data = s.data(LE, self.obj.data).map_err(err)?;
                let at = self.section_address(index.0).unwrap();
                self.write(image, at, data);
            }
        }
        for i in 0..self.got.len() {
            let (sym, stub) = self.got[i];
            let address = self.symbol_address(sym)?;
            let entry = self.got_entry(sym);
            self.write(image, entry, &address.to_le_bytes());
            if let Some(stub) = stub.and_then(|_| self.stub(sym)) {
                // jmp *disp32(%rip), from the end of the 6-byte instruction.
                let disp = (entry as i64 - (stub as i64 + 6)) as i32;
                let mut code = [0xff, 0x25, 0, 0, 0, 0, 0xcc, 0xcc];
                code[2..6].copy_from_slice(&disp.to_le_bytes());
                self.write(image, stub, &code);
            }
        }
        for (rela, target) in self.relocations()? {
            for r in rela {
                self.relocate(image, target, r)?;
            }
        }
        let addresses = names
            .iter()
            .map(|n| self.function(n))
            .collect::<Result<Vec<_>, _>>()?;
        self.protect()?;
        Ok((mapping.0, addresses))
    }

    /// Applies one relocation to section `target`.
    fn relocate(
        &mut self,
        image: &mut [u8],
        target: usize,
        r: &elf::Rela64<LE>,
    ) -> Result<(), String> {
        let (sym, ty) = split_info(r.r_info.get(LE));
        let offset = r.r_offset.get(LE);
        let addend = r.r_addend.get(LE);
        let placed = self.placed[target].unwrap();
        let width = match ty {
            elf::R_X86_64_NONE => return Ok(()),
            elf::R_X86_64_64
            | elf::R_X86_64_PC64
            | elf::R_X86_64_GOTOFF64
            | elf::R_X86_64_GOTPC64
            | elf::R_X86_64_GOTPCREL64 => 8,
            elf::R_X86_64_PC32
            | elf::R_X86_64_PLT32
            | elf::R_X86_64_32
            | elf::R_X86_64_32S
            | elf::R_X86_64_GOTPCREL
            | elf::R_X86_64_GOTPCRELX
            | elf::R_X86_64_REX_GOTPCRELX
            | elf::R_X86_64_GOTPC32 => 4,
            _ => {
                return Err(format!(
                    "relocation type {ty} (in section {}) is not supported",
                    self.obj.section_name(self.obj.section(target)?)
                ))
            }
        };
        let target_section = self.obj.section(target)?;
        if target_section.sh_type(LE) == elf::SHT_NOBITS
            || offset
                .checked_add(width)
                .is_none_or(|end| end > placed.size)
        {
            return Err(format!(
                "relocation at offset {offset:#x} outside section {}",
                self.obj.section_name(target_section)
            ));
        }
        let place = self.section_address(target).unwrap() + offset;
        let p = place as i64;
        let got = (self.base + self.parts[Part::ReadOnly as usize].0 + self.got_offset) as i64;
        // A call of an external function goes through its stub.
        let stub = (ty == elf::R_X86_64_PLT32)
            .then(|| self.stub(sym))
            .flatten();
        let got_relative = matches!(
            ty,
            elf::R_X86_64_GOTPCREL
                | elf::R_X86_64_GOTPCRELX
                | elf::R_X86_64_REX_GOTPCRELX
                | elf::R_X86_64_GOTPCREL64
                | elf::R_X86_64_GOTPC32
                | elf::R_X86_64_GOTPC64
        );
        let s = match stub {
            Some(stub) => stub as i64,
            None if got_relative => 0,
            None => self.symbol_address(sym)? as i64,
        };
        let value: i64 = match ty {
            elf::R_X86_64_64 | elf::R_X86_64_32 | elf::R_X86_64_32S => s.wrapping_add(addend),
            elf::R_X86_64_PC32 | elf::R_X86_64_PC64 | elf::R_X86_64_PLT32 => {
                s.wrapping_add(addend).wrapping_sub(p)
            }
            elf::R_X86_64_GOTPCREL
            | elf::R_X86_64_GOTPCRELX
            | elf::R_X86_64_REX_GOTPCRELX
            | elf::R_X86_64_GOTPCREL64 => (self.got_entry(sym) as i64)
                .wrapping_add(addend)
                .wrapping_sub(p),
            elf::R_X86_64_GOTOFF64 => s.wrapping_add(addend).wrapping_sub(got),
            _ => got.wrapping_add(addend).wrapping_sub(p),
        };
        let fits = match (ty, width) {
            (_, 8) => true,
            (elf::R_X86_64_32, _) => u32::try_from(value).is_ok(),
            _ => i32::try_from(value).is_ok(),
        };
        if !fits {
            return Err(format!(
                "relocation type {ty} at offset {offset:#x} of section {}: {value:#x} does not fit",
                self.obj.section_name(target_section)
            ));
        }
        let bytes = value.to_le_bytes();
        self.write(image, place, &bytes[..width as usize]);
        Ok(())
    }

    /// The address of the function `name` the object defines.
    fn function(&mut self, name: &str) -> Result<u64, String> {
        let found = self.obj.symbols.enumerate().find(|(_, s)| {
            s.st_bind() != elf::STB_LOCAL
                && s.st_shndx(LE) != elf::SHN_UNDEF
                && self.obj.symbol_name(s).ok() == Some(name.as_bytes())
        });
        let (index, s) = found.ok_or_else(|| format!("the object does not define `{name}`"))?;
        let section = self
            .obj
            .symbols
            .symbol_section(LE, s, index)
            .map_err(err)?
            .and_then(|i| self.placed.get(i.0).copied().flatten());
        match section {
            Some(p) if p.part == Part::Code && s.st_value(LE) < p.size => {
                self.symbol_address(index.0)
            }
            _ => Err(format!("`{name}` is not code of the object")),
        }
    }

    /// Gives each part its protection.
    fn protect(&self) -> Result<(), String> {
        for part in PARTS {
            let (offset, size) = self.parts[part as usize];
            if size == 0 {
                continue;
            }
            let prot = match part {
                Part::Code => libc::PROT_READ | libc::PROT_EXEC,
                Part::ReadOnly => libc::PROT_READ,
                Part::Writable => libc::PROT_READ | libc::PROT_WRITE,
            };
            let len = align_up(size, page_size())? as usize;
            // SAFETY: whole pages of the image, which is ours.
            let failed =
                unsafe { libc::mprotect((self.base + offset) as *mut libc::c_void, len, prot) };
            if failed != 0 {
                return Err("cannot protect the object's code".into());
            }
        }
        Ok(())
    }
}

/// A relocation's symbol and type.
fn split_info(info: u64) -> (usize, u32) {
    ((info >> 32) as usize, info as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::SymbolSection;
    use object::write::{self, Relocation, SectionId, StandardSection, Symbol, SymbolId};
    use object::{Architecture, BinaryFormat, Endianness, RelocationFlags};
    use object::{SymbolFlags, SymbolKind, SymbolScope};

    /// An object being written: its sections and symbols by name.
    struct Builder {
        obj: write::Object<'static>,
        text: SectionId,
        rodata: SectionId,
        data: SectionId,
        bss: SectionId,
    }

    impl Builder {
        fn new() -> Builder {
            let mut obj =
                write::Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
            let text = obj.section_id(StandardSection::Text);
            let rodata = obj.section_id(StandardSection::ReadOnlyData);
            let data = obj.section_id(StandardSection::Data);
            let bss = obj.section_id(StandardSection::UninitializedData);
            Builder {
                obj,
                text,
                rodata,
                data,
                bss,
            }
        }

        fn symbol(&mut self, name: &str, section: SectionId, value: u64, global: bool) -> SymbolId {
            let kind = if section == self.text {
                SymbolKind::Text
            } else {
                SymbolKind::Data
            };
            self.obj.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value,
                size: 0,
                kind,
                scope: if global {
                    SymbolScope::Dynamic
                } else {
                    SymbolScope::Compilation
                },
                weak: false,
                section: SymbolSection::Section(section),
                flags: SymbolFlags::None,
            })
        }

        /// A global function of `code`, whose 4 or 8 bytes at `at` are
        /// relocated by `r_type` against `target` with `addend`.
        fn function(
            &mut self,
            name: &str,
            code: &[u8],
            relocs: &[(u64, SymbolId, i64, u32)],
        ) -> SymbolId {
            let at = self.obj.append_section_data(self.text, code, 16);
            for &(offset, target, addend, r_type) in relocs {
                self.reloc(self.text, at + offset, target, addend, r_type);
            }
            self.symbol(name, self.text, at, true)
        }

        fn reloc(
            &mut self,
            section: SectionId,
            offset: u64,
            symbol: SymbolId,
            addend: i64,
            r_type: u32,
        ) {
            self.obj
                .add_relocation(
                    section,
                    Relocation {
                        offset,
                        symbol,
                        addend,
                        flags: RelocationFlags::Elf { r_type },
                    },
                )
                .unwrap();
        }

        fn undefined(&mut self, name: &str, weak: bool) -> SymbolId {
            self.obj.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value: 0,
                size: 0,
                kind: SymbolKind::Unknown,
                scope: SymbolScope::Unknown,
                weak,
                section: SymbolSection::Undefined,
                flags: SymbolFlags::None,
            })
        }

        fn absolute(&mut self, name: &str, value: u64) -> SymbolId {
            self.obj.add_symbol(Symbol {
                name: name.as_bytes().to_vec(),
                value,
                size: 0,
                kind: SymbolKind::Data,
                scope: SymbolScope::Compilation,
                weak: false,
                section: SymbolSection::Absolute,
                flags: SymbolFlags::None,
            })
        }

        fn bytes(&self) -> Vec<u8> {
            self.obj.write().unwrap()
        }
    }

    const VALUE: u32 = 0x1234_5678;

    /// The offsets of the slots of `.data` the relocations fill.
    const POINTER: u64 = 0;
    const PC64: u64 = 8;
    const GOTOFF64: u64 = 16;
    const GOTPC64: u64 = 24;
    const GOTPCREL64: u64 = 32;

    /// An object with a function per relocation kind the code generator
    /// emits, or might.
    fn every_kind() -> Vec<u8> {
        use elf::*;
        let mut b = Builder::new();
        let at = b
            .obj
            .append_section_data(b.rodata, &VALUE.to_le_bytes(), 16);
        let value = b.symbol("value", b.rodata, at, false);
        let data = b.obj.append_section_data(b.data, &[0; 40], 8);
        let data_start = b.symbol("data_start", b.data, data, false);
        let at = b.obj.append_section_bss(b.bss, 8, 8);
        let counter = b.symbol("counter", b.bss, at, false);
        let code = b.text;
        let at = b
            .obj
            .append_section_data(code, &[0xb8, 42, 0, 0, 0, 0xc3], 16);
        let forty_two = b.symbol("forty_two", code, at, false);
        let abs = b.undefined("abs", false);
        let small = b.absolute("small", 0x1000);
        let data_reloc = |b: &mut Builder, slot, target, addend, ty| {
            let section = b.data;
            b.reloc(section, data + slot, target, addend, ty)
        };
        // mov value(%rip), %eax; ret
        b.function(
            "pc32",
            &[0x8b, 0x05, 0, 0, 0, 0, 0xc3],
            &[(2, value, -4, R_X86_64_PC32)],
        );
        // call forty_two; ret
        b.function(
            "plt32",
            &[0xe8, 0, 0, 0, 0, 0xc3],
            &[(1, forty_two, -4, R_X86_64_PLT32)],
        );
        // sub $8, %rsp; mov $-5, %edi; call abs@PLT; add $8, %rsp; ret
        b.function(
            "plt32_external",
            &[
                0x48, 0x83, 0xec, 0x08, 0xbf, 0xfb, 0xff, 0xff, 0xff, 0xe8, 0, 0, 0, 0, 0x48, 0x83,
                0xc4, 0x08, 0xc3,
            ],
            &[(10, abs, -4, R_X86_64_PLT32)],
        );
        // mov value@GOTPCREL(%rip), %rax; mov (%rax), %eax; ret
        let through_got = [0x48, 0x8b, 0x05, 0, 0, 0, 0, 0x8b, 0x00, 0xc3];
        for (name, ty) in [
            ("gotpcrel", R_X86_64_GOTPCREL),
            ("gotpcrelx", R_X86_64_GOTPCRELX),
            ("rex_gotpcrelx", R_X86_64_REX_GOTPCRELX),
        ] {
            b.function(name, &through_got, &[(3, value, -4, ty)]);
        }
        // mov abs@GOTPCREL(%rip), %rax; ret
        b.function(
            "got_external",
            &[0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3],
            &[(3, abs, -4, R_X86_64_REX_GOTPCRELX)],
        );
        // mov data_start(%rip), %rax; mov (%rax), %eax; ret: through .data's pointer.
        b.function(
            "pointer",
            &through_got,
            &[(3, data_start, -4, R_X86_64_PC32)],
        );
        data_reloc(&mut b, POINTER, value, 0, R_X86_64_64);
        // mov $small+3, %eax; ret
        b.function(
            "imm32",
            &[0xb8, 0, 0, 0, 0, 0xc3],
            &[(1, small, 3, R_X86_64_32)],
        );
        // mov $small-0x1007, %rax (sign-extended); ret
        b.function(
            "imm32s",
            &[0x48, 0xc7, 0xc0, 0, 0, 0, 0, 0xc3],
            &[(3, small, -0x1007, R_X86_64_32S)],
        );
        // lea x(%rip), %rax; ret
        let lea = [0x48, 0x8d, 0x05, 0, 0, 0, 0, 0xc3];
        b.function("counter_address", &lea, &[(3, counter, -4, R_X86_64_PC32)]);
        b.function("value_address", &lea, &[(3, value, -4, R_X86_64_PC32)]);
        b.function("data_address", &lea, &[(3, data_start, -4, R_X86_64_PC32)]);
        b.function("got_address", &lea, &[(3, value, -4, R_X86_64_GOTPC32)]);
        data_reloc(&mut b, PC64, value, 0, R_X86_64_PC64);
        data_reloc(&mut b, GOTOFF64, value, 0, R_X86_64_GOTOFF64);
        data_reloc(&mut b, GOTPC64, value, 0, R_X86_64_GOTPC64);
        data_reloc(&mut b, GOTPCREL64, value, 0, R_X86_64_GOTPCREL64);
        data_reloc(&mut b, 0, value, 0, R_X86_64_NONE);
        b.bytes()
    }

    const FUNCTIONS: &[&str] = &[
        "pc32",
        "plt32",
        "plt32_external",
        "gotpcrel",
        "gotpcrelx",
        "rex_gotpcrelx",
        "got_external",
        "pointer",
        "imm32",
        "imm32s",
        "counter_address",
        "value_address",
        "data_address",
        "got_address",
    ];

    /// The permissions /proc/self/maps gives the page holding `address`.
    fn permissions(address: u64) -> String {
        let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
        for line in maps.lines() {
            let mut fields = line.split_whitespace();
            let range = fields.next().unwrap();
            let (start, end) = range.split_once('-').unwrap();
            let (start, end) = (
                u64::from_str_radix(start, 16).unwrap(),
                u64::from_str_radix(end, 16).unwrap(),
            );
            if (start..end).contains(&address) {
                return fields.next().unwrap()[..3].to_string();
            }
        }
        panic!("{address:#x} is not mapped");
    }

    #[test]
    fn every_relocation_kind_is_applied() {
        let (loaded, at) = load(&every_kind(), FUNCTIONS).unwrap();
        let f = |name: &str| at[FUNCTIONS.iter().position(|n| *n == name).unwrap()];
        // SAFETY: the functions just loaded, each of this signature.
        let call =
            |name: &str| unsafe { std::mem::transmute::<u64, extern "C" fn() -> u64>(f(name))() };
        let low = |name: &str| call(name) as u32;
        assert_eq!(low("pc32"), VALUE);
        assert_eq!(low("plt32"), 42);
        assert_eq!(low("plt32_external"), 5, "abs(-5) through a stub");
        for name in ["gotpcrel", "gotpcrelx", "rex_gotpcrelx", "pointer"] {
            assert_eq!(low(name), VALUE, "{name}");
        }
        let abs = find_external(b"abs").unwrap();
        assert_eq!(call("got_external"), abs);
        assert_eq!(low("imm32"), 0x1003);
        assert_eq!(call("imm32s") as i64, -7);
        let value = call("value_address");
        let got = call("got_address");
        let data = call("data_address");
        // SAFETY: the .data slots of the object, loaded and writable.
        let slot = |offset: u64| unsafe { ((data + offset) as *const u64).read() };
        assert_eq!(slot(POINTER), value);
        assert_eq!(slot(PC64).wrapping_add(data + PC64), value);
        assert_eq!(slot(GOTOFF64).wrapping_add(got), value);
        assert_eq!(slot(GOTPC64).wrapping_add(data + GOTPC64), got);
        let entry = slot(GOTPCREL64).wrapping_add(data + GOTPCREL64);
        // SAFETY: the GOT entry of `value`, in the loaded object.
        assert_eq!(unsafe { (entry as *const u64).read() }, value);
        // .bss is zeroed and writable.
        let counter = call("counter_address") as *mut u64;
        // SAFETY: the object's .bss word.
        unsafe {
            assert_eq!(counter.read(), 0);
            counter.write(7);
            assert_eq!(counter.read(), 7);
        }
        // Code runs but is not writable; constants and the GOT are read only.
        assert_eq!(permissions(f("pc32")), "r-x");
        assert_eq!(permissions(value), "r--");
        assert_eq!(permissions(got), "r--");
        assert_eq!(permissions(data), "rw-");
        drop(loaded);
    }

    #[test]
    fn a_weak_symbol_not_found_is_null_and_a_strong_one_refuses_the_object() {
        for weak in [true, false] {
            let mut b = Builder::new();
            let missing = b.undefined("__ferrocl_no_such_function", weak);
            b.function(
                "f",
                &[0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3],
                &[(3, missing, -4, elf::R_X86_64_REX_GOTPCRELX)],
            );
            match load(&b.bytes(), &["f"]) {
                // SAFETY: the function just loaded, which returns its GOT entry.
                Ok((_l, at)) if weak => unsafe {
                    assert_eq!(
                        std::mem::transmute::<u64, extern "C" fn() -> u64>(at[0])(),
                        0
                    );
                },
                Err(e) if !weak => assert!(e.contains("__ferrocl_no_such_function"), "{e}"),
                other => panic!("weak {weak}: {:?}", other.map(|o| o.1)),
            }
        }
    }

    #[test]
    fn a_relocation_of_an_unknown_type_refuses_the_object() {
        for ty in [elf::R_X86_64_TPOFF32, elf::R_X86_64_IRELATIVE, 200] {
            let mut b = Builder::new();
            let at = b.obj.append_section_data(b.rodata, &[0; 8], 8);
            let value = b.symbol("value", b.rodata, at, false);
            b.function("f", &[0xb8, 0, 0, 0, 0, 0xc3], &[(1, value, 0, ty)]);
            let e = load(&b.bytes(), &["f"]).err().unwrap();
            assert!(e.contains(&format!("relocation type {ty}")), "{e}");
        }
    }

    /// The offset of field `at` of section `index`'s header.
    fn section_field(bytes: &[u8], name: &str, at: usize) -> usize {
        let header = Header::parse(bytes).unwrap();
        let sections = header.sections(LE, bytes).unwrap();
        let (index, _) = sections.section_by_name(LE, name.as_bytes()).unwrap();
        header.e_shoff(LE) as usize + index.0 * std::mem::size_of::<Section>() + at
    }

    const SH_OFFSET: usize = 24;
    const SH_SIZE: usize = 32;

    #[test]
    fn malformed_objects_are_refused() {
        let good = every_kind();
        assert!(load(&good, FUNCTIONS).is_ok());
        // Truncated anywhere.
        for len in 0..good.len() {
            assert!(load(&good[..len], FUNCTIONS).is_err(), "truncated to {len}");
        }
        let patched = |at: usize, v: u64| {
            let mut b = good.clone();
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
            b
        };
        // A section's bytes beyond the file.
        for v in [good.len() as u64, u64::MAX - 4, 1 << 40] {
            let b = patched(section_field(&good, ".text", SH_OFFSET), v);
            assert!(load(&b, FUNCTIONS).is_err(), ".text at {v:#x}");
        }
        let b = patched(section_field(&good, ".rodata", SH_SIZE), 1 << 20);
        assert!(load(&b, FUNCTIONS).is_err(), ".rodata past the end");
        // A .bss larger than the image may be, and one as large as u64.
        for v in [1 << 40, u64::MAX] {
            let b = patched(section_field(&good, ".bss", SH_SIZE), v);
            assert!(load(&b, FUNCTIONS).is_err(), ".bss of {v:#x}");
        }
        // Relocations past the end of their section's data.
        let b = patched(section_field(&good, ".rela.text", SH_SIZE), 1 << 30);
        assert!(load(&b, FUNCTIONS).is_err());
        // Another machine's object.
        let mut b = good.clone();
        b[18] = elf::EM_386 as u8;
        assert!(load(&b, FUNCTIONS).is_err());
        // A function the object lacks.
        assert!(load(&good, &["nowhere"]).is_err());
    }

    #[test]
    fn a_relocation_outside_its_section_or_symbol_table_refuses_the_object() {
        let mut b = Builder::new();
        let at = b.obj.append_section_data(b.rodata, &[0; 8], 8);
        let value = b.symbol("value", b.rodata, at, false);
        b.function(
            "f",
            &[0xc3, 0, 0, 0, 0, 0],
            &[(1, value, 0, elf::R_X86_64_PC32)],
        );
        let good = b.bytes();
        assert!(load(&good, &["f"]).is_ok());
        // Each relocation's offset moved past .text, then its symbol past the table.
        let rela = section_field(&good, ".rela.text", SH_OFFSET);
        let rela = u64::from_le_bytes(good[rela..rela + 8].try_into().unwrap()) as usize;
        let mut far = good.clone();
        far[rela..rela + 8].copy_from_slice(&0x1_0000u64.to_le_bytes());
        assert!(load(&far, &["f"]).unwrap_err().contains("outside"));
        let mut far = good.clone();
        far[rela + 12..rela + 16].copy_from_slice(&0xffffu32.to_le_bytes());
        assert!(load(&far, &["f"]).is_err());
    }

    #[test]
    fn damaged_objects_never_crash_the_loader() {
        let good = every_kind();
        let mut rng = kernel_ir::test_support::XorShift(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next();
        for _ in 0..3000 {
            let mut b = good.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = next() as u8;
            }
            // Loading may fail or not (a changed byte of code loads), but returns.
            let _ = load(&b, FUNCTIONS);
        }
    }

    #[cfg(feature = "compiler")]
    #[test]
    fn half_code_for_a_cpu_without_f16c_loads_and_rounds() {
        use llvm_sys::core::LLVMDisposeModule;
        let ctx = compiler::Context::new();
        let ir = r#"
define i16 @to_half(float %x) {
  %h = fptrunc float %x to half
  %b = bitcast half %h to i16
  ret i16 %b
}
define float @from_half(i16 %b) {
  %h = bitcast i16 %b to half
  %x = fpext half %h to float
  ret float %x
}
"#;
        let object = unsafe {
            let m = compiler::llvm::parse_ir(ctx.0, ir).unwrap();
            let tm =
                crate::codegen::target_machine_for(compiler::TRIPLE, "x86-64", "-f16c,-avx512fp16")
                    .unwrap();
            let o = tm.emit_object(m).unwrap();
            LLVMDisposeModule(m);
            o
        };
        // GCC's runtime converts: the calls go through stubs.
        let (_loaded, at) = load(&object, &["to_half", "from_half"]).unwrap();
        // SAFETY: the functions just loaded, of these signatures.
        let (to_half, from_half) = unsafe {
            (
                std::mem::transmute::<u64, extern "C" fn(f32) -> i16>(at[0]),
                std::mem::transmute::<u64, extern "C" fn(i16) -> f32>(at[1]),
            )
        };
        // 1 + 2^-11 is a tie: to even, 1.
        assert_eq!(to_half(1.0 + 2f32.powi(-11)) as u16, 0x3c00);
        assert_eq!(to_half(1.0 + 3.0 * 2f32.powi(-11)) as u16, 0x3c02);
        assert_eq!(to_half(65520.0) as u16, 0x7c00);
        assert_eq!(from_half(0x0001), 2f32.powi(-24));
    }
}
