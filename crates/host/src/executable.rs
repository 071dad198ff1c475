//! The host's executables: an ELF object of work-group functions with a
//! table saying which symbol is which kernel and what each needs. The
//! compiler half (`target.rs`) writes them; `create_executable` loads them.

use crate::elf_loader::{self, LoadedObject};
use crate::kernel::HostKernel;
use compiler::disk_cache::{Reader, Writer};
use mux::{Executable, KernelRef};
use std::sync::Arc;

const MAGIC: &[u8] = b"ferrocl host executable 1";

/// What the binary says of one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelEntry {
    pub name: String,
    /// The work-group function's symbol in the object.
    pub symbol: String,
    pub static_local_memory: usize,
    pub work_item_storage: usize,
    /// Run with denormals flushed (`-cl-denorms-are-zero`).
    pub flush_denormals: bool,
}

/// A host executable before loading: its kernel table and object code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    pub kernels: Vec<KernelEntry>,
    pub object: Vec<u8>,
}

impl Binary {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(MAGIC).u64(self.kernels.len() as u64);
        for k in &self.kernels {
            w.bytes(k.name.as_bytes())
                .bytes(k.symbol.as_bytes())
                .u64(k.static_local_memory as u64)
                .u64(k.work_item_storage as u64)
                .u64(u64::from(k.flush_denormals));
        }
        w.bytes(&self.object);
        w.0
    }

    /// `None` for anything that is not a whole binary of this format.
    pub fn from_bytes(bytes: &[u8]) -> Option<Binary> {
        let mut r = Reader(bytes);
        if r.bytes()? != MAGIC {
            return None;
        }
        let n = r.u64()?;
        let mut kernels = Vec::new();
        for _ in 0..n {
            kernels.push(KernelEntry {
                name: String::from_utf8(r.bytes()?.to_vec()).ok()?,
                symbol: String::from_utf8(r.bytes()?.to_vec()).ok()?,
                static_local_memory: usize::try_from(r.u64()?).ok()?,
                work_item_storage: usize::try_from(r.u64()?).ok()?,
                flush_denormals: match r.u64()? {
                    0 => false,
                    1 => true,
                    _ => return None,
                },
            });
        }
        let object = r.bytes()?.to_vec();
        r.0.is_empty().then_some(Binary { kernels, object })
    }
}

pub struct HostExecutable {
    kernels: Vec<(String, Arc<HostKernel>)>,
}

impl HostExecutable {
    /// Loads the object and finds every kernel's function.
    pub fn load(bytes: &[u8]) -> mux::Result<HostExecutable> {
        let binary = Binary::from_bytes(bytes).ok_or(mux::Error::InvalidBinary)?;
        let symbols: Vec<&str> = binary.kernels.iter().map(|k| k.symbol.as_str()).collect();
        let (code, addresses) =
            elf_loader::load(&binary.object, &symbols).map_err(|_| mux::Error::InvalidBinary)?;
        let code = Arc::new(code);
        let bytes: Arc<[u8]> = Arc::from(bytes);
        let kernels = binary
            .kernels
            .into_iter()
            .zip(addresses)
            .map(|(k, address)| {
                let kernel = HostKernel::new(
                    code.clone(),
                    address,
                    k.static_local_memory,
                    k.work_item_storage,
                    k.flush_denormals,
                    bytes.clone(),
                );
                (k.name, Arc::new(kernel))
            })
            .collect();
        Ok(HostExecutable { kernels })
    }

    pub fn host_kernel(&self, name: &str) -> mux::Result<Arc<HostKernel>> {
        self.kernels
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| k.clone())
            .ok_or(mux::Error::NoSuchKernel)
    }
}

impl Executable for HostExecutable {
    fn kernel_names(&self) -> Vec<String> {
        self.kernels.iter().map(|(n, _)| n.clone()).collect()
    }

    fn kernel(&self, name: &str) -> mux::Result<KernelRef> {
        Ok(self.host_kernel(name)?)
    }
}

/// Kept so that a kernel's code stays loaded while the kernel lives.
pub type Code = Arc<LoadedObject>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_reads_back_and_damage_is_refused() {
        let b = Binary {
            kernels: vec![KernelEntry {
                name: "k".into(),
                symbol: "__ferrocl_wg.k.0123".into(),
                static_local_memory: 64,
                work_item_storage: 128,
                flush_denormals: true,
            }],
            object: vec![1, 2, 3],
        };
        let bytes = b.to_bytes();
        assert_eq!(Binary::from_bytes(&bytes), Some(b));
        assert_eq!(Binary::from_bytes(&bytes[..bytes.len() - 1]), None);
        assert_eq!(Binary::from_bytes(b"not a binary"), None);
        assert!(matches!(
            HostExecutable::load(b"junk"),
            Err(mux::Error::InvalidBinary)
        ));
    }
}
