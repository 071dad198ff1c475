//! A test process killed by a signal (a fault in the library or in a
//! kernel's machine code) says no more than "signal: 11". Before the signal
//! takes its course, this says on stderr which thread took it (libtest names
//! a test's thread after the test), at which instruction, in which mapping
//! of `/proc/self/maps` (the library, LLVM, or a kernel's code) and at
//! which address. Only async-signal-safe calls: the process may be anywhere.

use std::sync::Once;

const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

/// The handlers before ours (Rust's runtime detects stack overflows with
/// its own), called after the report.
static mut PREVIOUS: [Option<libc::sigaction>; 4] = [None; 4];

/// Installs the report for every fatal signal, once per process.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            let mut new: libc::sigaction = std::mem::zeroed();
            new.sa_sigaction = report as *const () as usize;
            new.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
            libc::sigemptyset(&mut new.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, &new, &mut old) == 0 {
                (*std::ptr::addr_of_mut!(PREVIOUS))[i] = Some(old);
            }
        }
    });
}

/// Bytes written into a fixed buffer (no allocation in a signal handler).
struct Line {
    buf: [u8; 512],
    len: usize,
}

impl Line {
    fn push(&mut self, s: &[u8]) {
        let n = s.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&s[..n]);
        self.len += n;
    }

    fn hex(&mut self, v: usize) {
        let mut digits = [0u8; 18];
        digits[0] = b'0';
        digits[1] = b'x';
        for i in 0..16 {
            digits[2 + i] = b"0123456789abcdef"[(v >> (60 - 4 * i)) & 15];
        }
        self.push(&digits);
    }

    fn write(&self) {
        unsafe { libc::write(2, self.buf.as_ptr().cast(), self.len) };
    }
}

fn parse_hex(s: &[u8]) -> usize {
    s.iter().fold(0, |v, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => 0,
        };
        (v << 4) | d as usize
    })
}

/// Writes the line of `/proc/self/maps` whose range holds `at`.
fn write_mapping(at: usize) {
    let fd = unsafe { libc::open(c"/proc/self/maps".as_ptr(), libc::O_RDONLY) };
    if fd < 0 {
        return;
    }
    let mut line = [0u8; 512];
    let mut len = 0;
    let mut chunk = [0u8; 4096];
    'read: loop {
        let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        if n <= 0 {
            break;
        }
        for &c in &chunk[..n as usize] {
            if c != b'\n' {
                if len < line.len() {
                    line[len] = c;
                    len += 1;
                }
                continue;
            }
            let l = &line[..len];
            let dash = l.iter().position(|&c| c == b'-').unwrap_or(0);
            let space = l.iter().position(|&c| c == b' ').unwrap_or(0);
            if dash > 0 && space > dash {
                let (lo, hi) = (parse_hex(&l[..dash]), parse_hex(&l[dash + 1..space]));
                if (lo..hi).contains(&at) {
                    let mut out = Line {
                        buf: [0; 512],
                        len: 0,
                    };
                    out.push(b"  in mapping: ");
                    out.push(l);
                    out.push(b"\n");
                    out.write();
                    break 'read;
                }
            }
            len = 0;
        }
    }
    unsafe { libc::close(fd) };
}

extern "C" fn report(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let mut name = [0u8; 16];
    unsafe { libc::prctl(libc::PR_GET_NAME, name.as_mut_ptr()) };
    let name_len = name.iter().position(|&c| c == 0).unwrap_or(16);
    let ip = unsafe {
        let uc = ctx as *const libc::ucontext_t;
        (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] as usize
    };
    let addr = unsafe { (*info).si_addr() as usize };
    let mut out = Line {
        buf: [0; 512],
        len: 0,
    };
    out.push(b"\nfatal signal ");
    out.push(&[b'0' + (sig / 10) as u8, b'0' + (sig % 10) as u8]);
    out.push(b" in thread \"");
    out.push(&name[..name_len]);
    out.push(b"\" at instruction ");
    out.hex(ip);
    out.push(b", address ");
    out.hex(addr);
    out.push(b"\n");
    out.write();
    write_mapping(ip);
    // The handler before ours, or the default action: the faulting
    // instruction runs again and the signal kills the process.
    let i = SIGNALS.iter().position(|&s| s == sig).unwrap_or(0);
    let previous = unsafe { (*std::ptr::addr_of!(PREVIOUS))[i] };
    match previous {
        Some(old) if old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN => {
            if old.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    unsafe { std::mem::transmute(old.sa_sigaction) };
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) =
                    unsafe { std::mem::transmute(old.sa_sigaction) };
                f(sig);
            }
        }
        _ => unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
        },
    }
}
