//! The host half of `printf` (OpenCL C 3.0 section 6.15.14): the printf
//! buffer of one ND-range, split into a chunk per work-group (seed 000),
//! and, once the range has run, its records formatted in work-group order
//! and written to the process's stdout before the command's event
//! completes.
//!
//! Every conversion is made by the C library's `snprintf`, one value at a
//! time, with a C conversion of the value's own C type: the output is the C
//! library's to the byte, and no argument the device wrote can make the C
//! call read something it was not given.

use compiler::printf::{self, Conversion, Piece, PrintfArg, PrintfCall};
use opencl_sys::*;
use std::ffi::{c_char, c_int, c_long, c_ulong, c_void, CString};
use std::sync::Arc;

/// One ND-range's printf buffer.
pub struct PrintfBuffer {
    memory: mux::MemoryRef,
    /// Bytes of each work-group's chunk.
    chunk: usize,
    groups: usize,
    calls: Arc<[PrintfCall]>,
}

impl PrintfBuffer {
    /// A buffer of the device's printf size (`buffer_bytes`) shared
    /// between `groups` work-groups, each chunk's header set to
    /// `length = 8, overflow = 0`. Chunks smaller than the header are
    /// `CL_OUT_OF_RESOURCES`.
    pub fn new(
        device: &dyn mux::Device,
        buffer_bytes: usize,
        groups: usize,
        calls: Arc<[PrintfCall]>,
    ) -> Result<PrintfBuffer, cl_int> {
        let chunk = printf::chunk_bytes(buffer_bytes, groups).ok_or(CL_OUT_OF_RESOURCES)?;
        let size = chunk * groups;
        let memory = device
            .allocate_memory(size, 8)
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
        let p = memory.map(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
        for g in 0..groups {
            let header = [printf::CHUNK_HEADER as u32, 0];
            // SAFETY: the mapping covers every chunk, 4-byte aligned, of at
            // least a header's bytes.
            unsafe { std::ptr::copy_nonoverlapping(header.as_ptr(), p.add(g * chunk).cast(), 2) };
        }
        memory.unmap(0, size).map_err(|_| CL_OUT_OF_RESOURCES)?;
        Ok(PrintfBuffer {
            memory,
            chunk,
            groups,
            calls,
        })
    }

    /// The kernel's hidden argument: the buffer's address and each chunk's bytes.
    pub fn hidden_arg(&self) -> [u8; compiler::PRINTF_ARG_BYTES] {
        let mut arg = [0u8; compiler::PRINTF_ARG_BYTES];
        arg[..8].copy_from_slice(&self.memory.device_address().to_ne_bytes());
        arg[8..].copy_from_slice(&(self.chunk as u64).to_ne_bytes());
        arg
    }

    /// Formats what the range printed and writes it to stdout, flushed.
    pub fn print(&self) -> mux::Result<()> {
        let size = self.chunk * self.groups;
        let p = self.memory.map(0, size)?;
        // SAFETY: mapped for `size` bytes until the unmap below; the range
        // that wrote it has ended.
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, size) };
        let sites = Site::all(&self.calls);
        let mut out = Vec::new();
        for chunk in bytes.chunks_exact(self.chunk) {
            format_chunk(chunk, &sites, &mut out);
        }
        self.memory.unmap(0, size)?;
        write_stdout(&out);
        Ok(())
    }
}

/// A call site with its format parsed, once for all of its records.
pub struct Site<'a> {
    call: &'a PrintfCall,
    pieces: Vec<Piece>,
}

impl<'a> Site<'a> {
    /// The sites of `calls` (a format that does not parse, which the build
    /// already refused, prints nothing).
    pub fn all(calls: &'a [PrintfCall]) -> Vec<Site<'a>> {
        calls
            .iter()
            .filter_map(|call| {
                let pieces = printf::parse(&call.format).ok()?;
                Some(Site { call, pieces })
            })
            .collect()
    }
}

/// The records of one work-group's chunk, formatted in the order written.
fn format_chunk(chunk: &[u8], sites: &[Site], out: &mut Vec<u8>) {
    let word = |at: usize| u32::from_ne_bytes(chunk[at..at + 4].try_into().unwrap()) as usize;
    let (length, overflow) = (word(0), word(4));
    // Whole records: what was asked for less what did not fit.
    let end = length.saturating_sub(overflow).min(chunk.len());
    let mut at = printf::CHUNK_HEADER;
    while at + printf::ID_BYTES <= end {
        let id = word(at) as u32;
        let Some(site) = sites.iter().find(|s| s.call.id == id) else {
            return;
        };
        let call = site.call;
        let Some(record) = chunk
            .get(at..at + call.record_bytes())
            .filter(|_| at + call.record_bytes() <= end)
        else {
            return;
        };
        format_record(site, &record[printf::ID_BYTES..], out);
        at += call.record_bytes();
    }
}

/// One call's output from its arguments' packed bytes. A conversion with
/// no argument, or one too short for it, ends the output of the call (the
/// spec leaves that undefined).
pub fn format_record(site: &Site, packed: &[u8], out: &mut Vec<u8>) {
    let call = site.call;
    // Each argument's bytes.
    let mut args = Vec::with_capacity(call.args.len());
    let mut at = 0;
    for a in &call.args {
        let n = a.packed_bytes();
        let Some(bytes) = packed.get(at..at + n) else {
            return;
        };
        args.push((a, bytes));
        at += n;
    }
    let mut next = args.into_iter();
    for piece in &site.pieces {
        match piece {
            Piece::Text(t) => out.extend_from_slice(t),
            Piece::Conversion(c) => {
                let Some((arg, bytes)) = next.next() else {
                    return;
                };
                if !format_conversion(c, arg, bytes, out) {
                    return;
                }
            }
        }
    }
}

/// A value as the C library is handed it.
enum CValue<'a> {
    Signed(i64),
    Unsigned(u64),
    Double(f64),
    Char(c_int),
    String(&'a [u8]),
    Pointer(u64),
}

/// Formats one conversion of `arg`; false if its bytes do not hold it.
fn format_conversion(c: &Conversion, arg: &PrintfArg, bytes: &[u8], out: &mut Vec<u8>) -> bool {
    let element = c.element_bytes();
    match c.vector {
        Some(n) => {
            if bytes.len() < n * element {
                return false;
            }
            for (k, e) in bytes.chunks_exact(element).take(n).enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                let value = if c.is_float() {
                    CValue::Double(float(e))
                } else {
                    integer(c, raw(e))
                };
                snprintf(c, &value, out);
            }
            true
        }
        None => {
            let value = match c.specifier {
                b's' => match arg {
                    PrintfArg::Pointer { literal: Some(s) } => CValue::String(s),
                    _ => return false,
                },
                b'p' => CValue::Pointer(raw(bytes)),
                b'c' => CValue::Char(raw(bytes) as c_int),
                _ if c.is_float() => CValue::Double(match arg {
                    PrintfArg::Float(_) => float(bytes),
                    // Not a floating-point argument: its bits, as C would.
                    _ => match bytes.len() {
                        4 => f32::from_bits(raw(bytes) as u32) as f64,
                        _ => f64::from_bits(raw(bytes)),
                    },
                }),
                _ => integer(c, raw(bytes)),
            };
            snprintf(c, &value, out);
            true
        }
    }
}

/// Up to 8 little-endian bytes as a number.
fn raw(bytes: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = bytes.len().min(8);
    b[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(b)
}

/// A floating-point value of 2, 4 or 8 bytes, as a double.
fn float(bytes: &[u8]) -> f64 {
    match bytes.len() {
        2 => half_to_f32(raw(bytes) as u16) as f64,
        4 => f32::from_bits(raw(bytes) as u32) as f64,
        _ => f64::from_bits(raw(bytes)),
    }
}

fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let mant = (h & 0x3ff) as f32;
    match exp {
        0 => sign * mant * 2f32.powi(-24),
        0x1f if mant == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        e => sign * (1.0 + mant / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// The integer a conversion prints: the argument converted to the type
/// its length modifier names (`%hhd` of 300 is 44), as C does.
fn integer(c: &Conversion, bits: u64) -> CValue<'static> {
    let width = 8 * c.element_bytes() as u32;
    let kept = if width >= 64 {
        bits
    } else {
        bits & ((1u64 << width) - 1)
    };
    if c.is_signed() {
        let shift = 64 - width;
        CValue::Signed(((kept << shift) as i64) >> shift)
    } else {
        CValue::Unsigned(kept)
    }
}

/// `snprintf` of one value, with the conversion's flags, width and
/// precision and the C length of the value's type.
fn snprintf(c: &Conversion, value: &CValue, out: &mut Vec<u8>) {
    let specifier = c.specifier as char;
    let length = match value {
        CValue::Signed(_) | CValue::Unsigned(_) => "l",
        _ => "",
    };
    let Ok(format) = CString::new(format!("%{}{length}{specifier}", c.flags_width_precision))
    else {
        return;
    };
    let string = match value {
        CValue::String(s) => CString::new(*s).ok(),
        _ => None,
    };
    let call = |buf: *mut c_char, n: usize| -> c_int {
        // SAFETY: `format` has exactly one conversion, whose C type is the
        // type of the value passed (`l` for the 64-bit integers, none for
        // the double, the int, the string and the pointer).
        unsafe {
            match value {
                CValue::Signed(v) => libc::snprintf(buf, n, format.as_ptr(), *v as c_long),
                CValue::Unsigned(v) => libc::snprintf(buf, n, format.as_ptr(), *v as c_ulong),
                CValue::Double(v) => libc::snprintf(buf, n, format.as_ptr(), *v),
                CValue::Char(v) => libc::snprintf(buf, n, format.as_ptr(), *v),
                CValue::String(_) => match &string {
                    Some(s) => libc::snprintf(buf, n, format.as_ptr(), s.as_ptr()),
                    None => -1,
                },
                CValue::Pointer(v) => {
                    libc::snprintf(buf, n, format.as_ptr(), *v as usize as *const c_void)
                }
            }
        }
    };
    let mut buf = [0 as c_char; 128];
    let n = call(buf.as_mut_ptr(), buf.len());
    let Ok(n) = usize::try_from(n) else {
        return;
    };
    if n < buf.len() {
        out.extend(buf[..n].iter().map(|&b| b as u8));
        return;
    }
    // Wider than the stack buffer: once more, with room for all of it.
    let mut big: Vec<c_char> = Vec::new();
    if big.try_reserve_exact(n + 1).is_err() {
        return;
    }
    big.resize(n + 1, 0);
    let m = call(big.as_mut_ptr(), big.len());
    if usize::try_from(m) == Ok(n) {
        out.extend(big[..n].iter().map(|&b| b as u8));
    }
}

extern "C" {
    /// The C library's standard output, which an application's own
    /// `printf` writes to (and may have redirected with `freopen`).
    static mut stdout: *mut libc::FILE;
}

/// Writes `bytes` to the C library's stdout and flushes it, so that the
/// output lies among the application's own in the order things happened.
fn write_stdout(bytes: &[u8]) {
    // SAFETY: `stdout` is the C library's stream, valid for the process.
    unsafe {
        let out = stdout;
        if !bytes.is_empty() {
            libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), out);
        }
        libc::fflush(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn formatted(format: &str, args: Vec<PrintfArg>, packed: &[u8]) -> String {
        let call = PrintfCall {
            id: 0,
            format: format.as_bytes().to_vec(),
            args,
        };
        let mut out = Vec::new();
        format_record(&Site::all(std::slice::from_ref(&call))[0], packed, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn integers_take_the_type_their_length_names() {
        let v = 300i32.to_le_bytes();
        assert_eq!(
            formatted("%hhd|%hhu", vec![PrintfArg::Int(4); 2], &[v, v].concat()),
            "44|44"
        );
        let v = (-32767i32).to_le_bytes();
        assert_eq!(formatted("%hx", vec![PrintfArg::Int(4)], &v), "8001");
        let v = (-1i64).to_le_bytes();
        assert_eq!(
            formatted("%lu %d", vec![PrintfArg::Int(8); 2], &[v, v].concat()),
            "18446744073709551615 -1"
        );
    }

    #[test]
    fn vectors_are_printed_element_by_element() {
        let v: Vec<u8> = [1.0f32, 2.5, -0.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        assert_eq!(
            formatted("%v3hlf", vec![PrintfArg::Vector(12)], &v),
            "1.000000,2.500000,-0.000000"
        );
        assert_eq!(
            formatted("<%#v2hhx>", vec![PrintfArg::Int(2)], &[0xfa, 0xfb]),
            "<0xfa,0xfb>"
        );
        // Too few bytes for the vector: the output of the call ends there.
        assert_eq!(
            formatted("a%v4hlfb", vec![PrintfArg::Vector(8)], &[0; 8]),
            "a"
        );
    }

    #[test]
    fn missing_arguments_end_the_output() {
        assert_eq!(
            formatted("x%dy%d", vec![PrintfArg::Int(4)], &7i32.to_le_bytes()),
            "x7y"
        );
    }

    #[test]
    fn a_chunk_reads_whole_records_only() {
        let call = PrintfCall {
            id: 3,
            format: b"%d;".to_vec(),
            args: vec![PrintfArg::Int(4)],
        };
        let mut chunk = vec![0u8; 32];
        let put = |chunk: &mut Vec<u8>, at: usize, v: u32| {
            chunk[at..at + 4].copy_from_slice(&v.to_ne_bytes())
        };
        // Two records of 8 bytes, then one that overflowed.
        put(&mut chunk, 0, 8 + 16 + 8);
        put(&mut chunk, 4, 8);
        for (k, v) in [(8, 3), (12, 1), (16, 3), (20, 2)] {
            put(&mut chunk, k, v);
        }
        let mut out = Vec::new();
        format_chunk(&chunk, &Site::all(&[call]), &mut out);
        assert_eq!(out, b"1;2;");
    }
}
