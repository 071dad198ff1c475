//! The identity of this build of the library: the GNU build-id the linker
//! wrote into `libferrocl.so`, which changes whenever any of its code does.
//! It is part of `CL_DRIVER_VERSION`, so applications that cache program
//! binaries per driver (pyopencl does) never hand one build's binary to
//! another, and of every key of the on-disk cache, for the same reason.

use std::sync::LazyLock;

static BUILD_ID: LazyLock<Option<String>> = LazyLock::new(read_build_id);

/// The build-id as lowercase hex, if the library carries one.
pub fn build_id() -> Option<&'static str> {
    BUILD_ID.as_deref()
}

/// The file this code was loaded from, as the dynamic linker knows it.
fn own_path() -> Option<std::path::PathBuf> {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: dladdr only reads the address and fills `info`.
    let found = unsafe { libc::dladdr(read_build_id as *const libc::c_void, &mut info) };
    if found == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returns a NUL-terminated path owned by the linker.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    use std::os::unix::ffi::OsStrExt;
    Some(std::ffi::OsStr::from_bytes(name.to_bytes()).into())
}

fn read_build_id() -> Option<String> {
    use object::Object;
    // Read through a cache: only the headers and the note are read, not
    // the whole (large) library, which would cost every process's first
    // build tens of milliseconds.
    let data = object::ReadCache::new(std::fs::File::open(own_path()?).ok()?);
    let file = object::File::parse(&data).ok()?;
    let id = file.build_id().ok()??;
    Some(id.iter().map(|b| format!("{b:02x}")).collect())
}
