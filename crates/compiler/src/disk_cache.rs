//! The on-disk cache of compiled code (seeds 001 and 003): built programs
//! and specialized kernels, so that building the same program again, in
//! this process or a later one, runs neither Clang nor LLVM's optimizer or
//! code generator.
//!
//! An entry's key hashes every input of what it holds, always with the
//! library's build-id and LLVM's version: a new build of ferrocl, or of
//! LLVM, never reads an older one's entries. Entries carry a digest of
//! their contents and are written whole (a temporary file, then a rename):
//! a damaged or half-written file is a miss, never a wrong program.
//!
//! Where: `$FERROCL_CACHE_DIR` if set, else `$XDG_CACHE_HOME/ferrocl`, else
//! `~/.cache/ferrocl`. `FERROCL_CACHE=0` (or `off`) turns it off.
//!
//! Size: at most `FERROCL_CACHE_MAX_MB` MiB (default 512). A hit marks its
//! entry used (its modification time); a write that takes the directory
//! past the cap removes the entries least recently used until it is 90%
//! full. Several processes may share the directory: every write is a
//! rename, and an entry removed under a reader is a miss.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::SystemTime;

const MAGIC: &[u8; 8] = b"FRCLCACH";

/// A finished key: the SHA-256 of an entry's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Key {
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Hashes the inputs of one entry, each part length-prefixed so that no two
/// different lists of parts give the same bytes.
pub struct KeyBuilder(Sha256);

impl KeyBuilder {
    /// A key of `kind` ("program", "kernel", ...), for this library and LLVM.
    pub fn new(kind: &str) -> KeyBuilder {
        let mut k = KeyBuilder(Sha256::new());
        k.add(kind.as_bytes());
        k.add(
            crate::build_id()
                .unwrap_or(env!("CARGO_PKG_VERSION"))
                .as_bytes(),
        );
        k.add(llvm_version().as_bytes());
        k
    }

    pub fn add(&mut self, part: &[u8]) -> &mut KeyBuilder {
        self.0.update((part.len() as u64).to_le_bytes());
        self.0.update(part);
        self
    }

    pub fn finish(&self) -> Key {
        Key(self.0.clone().finalize().into())
    }
}

/// The version of the LLVM that builds here; none in a library without a
/// compiler, which writes no entries of code it built.
fn llvm_version() -> String {
    #[cfg(feature = "front-end")]
    {
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: writes three unsigned integers.
        unsafe { llvm_sys::core::LLVMGetVersion(&mut major, &mut minor, &mut patch) };
        format!("{major}.{minor}.{patch}")
    }
    #[cfg(not(feature = "front-end"))]
    String::from("none")
}

/// A cache directory, or none (caching off).
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: Option<PathBuf>,
    /// The most bytes its entries may take.
    max_bytes: u64,
    /// Bytes in the directory as last counted, plus what this process
    /// wrote since (`None`: not counted yet).
    size: Arc<Mutex<Option<u64>>>,
}

/// The default cap on the cache's size.
pub const DEFAULT_MAX_MB: u64 = 512;

/// Makes temporary file names unique within the process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

static GLOBAL: LazyLock<DiskCache> = LazyLock::new(DiskCache::from_env);

/// The process's cache, as the environment set it at first use.
pub fn global() -> &'static DiskCache {
    &GLOBAL
}

impl DiskCache {
    /// A cache in `dir`, of the size `FERROCL_CACHE_MAX_MB` allows.
    pub fn at(dir: impl Into<PathBuf>) -> DiskCache {
        let mb = crate::knobs::cache_max_mb().unwrap_or(DEFAULT_MAX_MB);
        DiskCache::with_cap(dir, mb.saturating_mul(1 << 20))
    }

    /// A cache in `dir` of at most `max_bytes`.
    pub fn with_cap(dir: impl Into<PathBuf>, max_bytes: u64) -> DiskCache {
        DiskCache {
            dir: Some(dir.into()),
            max_bytes,
            size: Arc::new(Mutex::new(None)),
        }
    }

    /// No caching.
    pub fn off() -> DiskCache {
        DiskCache {
            dir: None,
            max_bytes: 0,
            size: Arc::new(Mutex::new(None)),
        }
    }

    /// The cache the environment asks for (see the module's notes).
    pub fn from_env() -> DiskCache {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
        if crate::knobs::cache_off() {
            return DiskCache::off();
        }
        if let Some(dir) = crate::knobs::cache_dir() {
            return DiskCache::at(dir);
        }
        if let Some(xdg) = var("XDG_CACHE_HOME") {
            return DiskCache::at(Path::new(&xdg).join("ferrocl"));
        }
        match var("HOME") {
            Some(home) => DiskCache::at(Path::new(&home).join(".cache").join("ferrocl")),
            None => DiskCache::off(),
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn path(&self, key: &Key) -> Option<PathBuf> {
        let hex = key.hex();
        Some(self.dir.as_ref()?.join(&hex[..2]).join(&hex[2..]))
    }

    /// The entry for `key`, if present and intact.
    pub fn get(&self, key: &Key) -> Option<Vec<u8>> {
        let path = self.path(key)?;
        let data = std::fs::read(&path).ok()?;
        let intact = data.len() >= 40
            && &data[..8] == MAGIC
            && Sha256::digest(&data[40..]).as_slice() == &data[8..40];
        if intact {
            // Used now: the last entry eviction takes.
            if let Ok(f) = std::fs::File::options().write(true).open(&path) {
                let _ = f.set_modified(SystemTime::now());
            }
            Some(data[40..].to_vec())
        } else {
            // Damaged: make room for a good copy.
            let _ = std::fs::remove_file(&path);
            None
        }
    }

    /// Stores `payload` under `key`. The cache is an optimization: a
    /// directory that cannot be written only means the next build compiles.
    pub fn put(&self, key: &Key, payload: &[u8]) {
        let Some(path) = self.path(key) else { return };
        let Some(parent) = path.parent() else { return };
        if std::fs::create_dir_all(parent).is_err() {
            return;
        }
        let temp = parent.join(format!(
            ".{}.{}.{}",
            key.hex(),
            std::process::id(),
            NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
        ));
        let mut data = Vec::with_capacity(40 + payload.len());
        data.extend_from_slice(MAGIC);
        data.extend_from_slice(&Sha256::digest(payload));
        data.extend_from_slice(payload);
        if std::fs::write(&temp, &data).is_err() || std::fs::rename(&temp, &path).is_err() {
            let _ = std::fs::remove_file(&temp);
            return;
        }
        self.account(data.len() as u64);
    }

    /// Counts `written` more bytes, and evicts if the cache is over its cap.
    fn account(&self, written: u64) {
        let Some(dir) = &self.dir else { return };
        let mut size = self.size.lock().unwrap();
        let now = match *size {
            Some(n) => n + written,
            None => entries(dir).iter().map(|e| e.1).sum(),
        };
        *size = Some(if now > self.max_bytes {
            evict(dir, self.max_bytes / 10 * 9)
        } else {
            now
        });
    }
}

/// Every file in the cache directory: path, size and last use.
fn entries(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(m) = f.metadata() {
                if m.is_file() {
                    let used = m.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                    out.push((f.path(), m.len(), used));
                }
            }
        }
    }
    out
}

/// Removes the least recently used entries of `dir` until it holds at most
/// `target` bytes; returns what it holds then.
fn evict(dir: &Path, target: u64) -> u64 {
    let mut all = entries(dir);
    all.sort_by_key(|e| e.2);
    let mut total: u64 = all.iter().map(|e| e.1).sum();
    for (path, len, _) in all {
        if total <= target {
            break;
        }
        // Another process may have removed it first.
        let _ = std::fs::remove_file(path);
        total -= len;
    }
    total
}

/// Little-endian length-prefixed fields, to pack an entry's payload.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u64(&mut self, v: u64) -> &mut Writer {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Writer {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
}

/// Reads what a [`Writer`] wrote; `None` on anything short or malformed.
pub struct Reader<'a>(pub &'a [u8]);

impl<'a> Reader<'a> {
    pub fn u64(&mut self) -> Option<u64> {
        let (head, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(u64::from_le_bytes(*head))
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        if n > self.0.len() {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("ferrocl-cache-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn entries_round_trip_and_keys_separate_their_parts() {
        let cache = DiskCache::at(temp_dir("round-trip"));
        let a = KeyBuilder::new("t").add(b"ab").add(b"c").finish();
        let b = KeyBuilder::new("t").add(b"a").add(b"bc").finish();
        assert_ne!(a, b);
        assert_eq!(cache.get(&a), None);
        cache.put(&a, b"payload");
        assert_eq!(cache.get(&a).as_deref(), Some(&b"payload"[..]));
        assert_eq!(cache.get(&b), None);
    }

    #[test]
    fn a_damaged_entry_is_a_miss() {
        let cache = DiskCache::at(temp_dir("damaged"));
        let k = KeyBuilder::new("t").add(b"x").finish();
        cache.put(&k, b"good contents");
        let path = cache.path(&k).unwrap();
        let mut data = std::fs::read(&path).unwrap();
        let last = data.len() - 1;
        data[last] ^= 1;
        std::fs::write(&path, &data).unwrap();
        assert_eq!(cache.get(&k), None);
        std::fs::write(&path, b"FRCL").unwrap();
        assert_eq!(cache.get(&k), None);
    }

    #[test]
    fn a_torn_entry_is_a_miss_and_is_removed() {
        let cache = DiskCache::at(temp_dir("torn"));
        let k = KeyBuilder::new("t").add(b"y").finish();
        cache.put(&k, &[7u8; 1000]);
        let path = cache.path(&k).unwrap();
        let data = std::fs::read(&path).unwrap();
        std::fs::write(&path, &data[..data.len() / 2]).unwrap();
        assert_eq!(cache.get(&k), None);
        assert!(!path.exists());
        cache.put(&k, &[7u8; 1000]);
        assert_eq!(cache.get(&k).map(|v| v.len()), Some(1000));
    }

    #[test]
    fn the_least_recently_used_entries_go_past_the_cap() {
        let dir = temp_dir("lru");
        // Room for about five entries of 1000 bytes (40 of header each).
        let cache = DiskCache::with_cap(&dir, 5 * 1040 + 100);
        let keys: Vec<Key> = (0..12u8)
            .map(|i| KeyBuilder::new("t").add(&[i]).finish())
            .collect();
        for (i, k) in keys.iter().enumerate() {
            cache.put(k, &[i as u8; 1000]);
            // The first entry is used all along: it stays.
            std::thread::sleep(std::time::Duration::from_millis(5));
            assert!(cache.get(&keys[0]).is_some(), "entry 0 after {i}");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let total: u64 = entries(&dir).iter().map(|e| e.1).sum();
        assert!(total <= 5 * 1040 + 100, "{total} bytes kept");
        assert!(cache.get(&keys[11]).is_some(), "the newest is kept");
        assert!(cache.get(&keys[1]).is_none(), "an old unused one is gone");
        // Another process's view: counted afresh, the same cap holds.
        let other = DiskCache::with_cap(&dir, 3 * 1040);
        other.put(&keys[1], &[1; 1000]);
        let total: u64 = entries(&dir).iter().map(|e| e.1).sum();
        assert!(total <= 3 * 1040, "{total} bytes kept");
    }

    #[test]
    fn writers_and_readers_at_once_never_see_a_torn_entry() {
        // Caches of one directory, as several processes have: each writes
        // whole entries by renaming, so a reader sees one whole or none.
        let dir = temp_dir("concurrent");
        let keys: Vec<Key> = (0..4u8)
            .map(|i| KeyBuilder::new("t").add(&[i]).finish())
            .collect();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let (dir, keys) = (&dir, &keys);
                s.spawn(move || {
                    let cache = DiskCache::with_cap(dir, 1 << 20);
                    for round in 0..200usize {
                        let k = &keys[(round + t as usize) % keys.len()];
                        let len = 1000 + 37 * (round % 50);
                        cache.put(k, &vec![t; len]);
                        if let Some(v) = cache.get(&keys[round % keys.len()]) {
                            assert!(v.len() >= 1000 && v.iter().all(|&b| b == v[0]));
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn off_stores_nothing() {
        let cache = DiskCache::off();
        let k = KeyBuilder::new("t").finish();
        cache.put(&k, b"x");
        assert_eq!(cache.get(&k), None);
    }

    #[test]
    fn fields_read_back_and_short_input_is_refused() {
        let mut w = Writer::default();
        w.u64(7).bytes(b"abc");
        let mut r = Reader(&w.0);
        assert_eq!((r.u64(), r.bytes()), (Some(7), Some(&b"abc"[..])));
        assert_eq!(Reader(&w.0[..10]).bytes(), None);
    }
}
