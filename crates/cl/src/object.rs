//! Handles: every OpenCL object is an `Arc<ClObject<T>>` whose address is
//! the handle. The ICD dispatch table is its first field, as `cl_khr_icd`
//! requires. A registry of live handles makes foreign, wrong-type and
//! released handles errors instead of crashes: nothing is dereferenced
//! before the registry vouches for it.

use crate::dispatch::dispatch_table;
use opencl_sys::*;
use std::any::Any;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock, RwLock};

/// An object as the application sees it.
#[repr(C)]
pub struct ClObject<T> {
    dispatch: *const opencl_sys::cl_icd::_cl_icd_dispatch,
    /// The application's references (`clRetain*`/`clRelease*`). Internal
    /// references are `Arc` clones and do not show here.
    user_refs: AtomicU32,
    pub body: T,
}

// The dispatch pointer names an immutable static table.
unsafe impl<T: Send> Send for ClObject<T> {}
unsafe impl<T: Sync> Sync for ClObject<T> {}

impl<T> std::ops::Deref for ClObject<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.body
    }
}

impl<T> ClObject<T> {
    pub fn ref_count(&self) -> cl_uint {
        self.user_refs.load(Ordering::Acquire)
    }
}

/// The kinds of objects, with the error each kind's invalid handle gives.
pub trait Kind: Send + Sync + 'static {
    const INVALID: cl_int;
    /// Runs when the application's last reference goes.
    fn on_last_release(_obj: &Arc<ClObject<Self>>)
    where
        Self: Sized,
    {
    }
}

type Registry = HashMap<usize, Arc<dyn Any + Send + Sync>, BuildAddressHasher>;

static REGISTRY: LazyLock<RwLock<Registry>> =
    LazyLock::new(|| RwLock::new(HashMap::with_hasher(BuildAddressHasher)));

/// Hashes the registry's keys, which are heap addresses the library chose
/// (an application cannot pick them to collide): one multiply spreads the
/// aligned low bits, where SipHash would cost more than the lookup.
#[derive(Default, Clone, Copy)]
struct BuildAddressHasher;

#[derive(Default)]
struct AddressHasher(u64);

impl std::hash::BuildHasher for BuildAddressHasher {
    type Hasher = AddressHasher;
    fn build_hasher(&self) -> AddressHasher {
        AddressHasher(0)
    }
}

impl std::hash::Hasher for AddressHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Makes a new object with one application reference and returns it.
pub fn create<T: Kind>(body: T) -> Arc<ClObject<T>> {
    let obj = new(body);
    register(&obj);
    obj
}

/// An object the application cannot name yet (e.g. an event nobody asked for).
pub fn new<T: Kind>(body: T) -> Arc<ClObject<T>> {
    Arc::new(ClObject {
        dispatch: dispatch_table(),
        user_refs: AtomicU32::new(1),
        body,
    })
}

/// Makes `obj` nameable by its handle; returns the handle.
pub fn register<T: Kind>(obj: &Arc<ClObject<T>>) -> *mut c_void {
    let h = handle(obj);
    REGISTRY.write().unwrap().insert(h as usize, obj.clone());
    h
}

/// Makes `obj`'s handle invalid, whatever the application's references:
/// for objects that live only as long as their parent (a command buffer's
/// mutable commands).
pub fn unregister<T: Kind>(obj: &Arc<ClObject<T>>) {
    REGISTRY.write().unwrap().remove(&(handle(obj) as usize));
}

/// The handle the application gets for `obj`.
pub fn handle<T>(obj: &Arc<ClObject<T>>) -> *mut c_void {
    Arc::as_ptr(obj) as *mut c_void
}

/// [`handle`] for an object reached through a plain reference (the
/// handle is the object's address either way).
pub fn handle_of<T>(obj: &ClObject<T>) -> *mut c_void {
    obj as *const ClObject<T> as *mut c_void
}

/// The live object of kind `T` named by `handle`, or `T::INVALID`.
pub fn get<T: Kind>(handle: *mut c_void) -> Result<Arc<ClObject<T>>, cl_int> {
    if handle.is_null() {
        return Err(T::INVALID);
    }
    let reg = REGISTRY.read().unwrap();
    let any = reg.get(&(handle as usize)).ok_or(T::INVALID)?.clone();
    drop(reg);
    any.downcast::<ClObject<T>>().map_err(|_| T::INVALID)
}

pub fn retain<T: Kind>(handle: *mut c_void) -> cl_int {
    match get::<T>(handle) {
        Ok(o) => {
            o.user_refs.fetch_add(1, Ordering::AcqRel);
            CL_SUCCESS
        }
        Err(e) => e,
    }
}

pub fn release<T: Kind>(handle: *mut c_void) -> cl_int {
    let o = match get::<T>(handle) {
        Ok(o) => o,
        Err(e) => return e,
    };
    let before = o
        .user_refs
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    match before {
        Ok(1) => {
            REGISTRY.write().unwrap().remove(&(handle as usize));
            T::on_last_release(&o);
            CL_SUCCESS
        }
        Ok(_) => CL_SUCCESS,
        Err(_) => T::INVALID,
    }
}

/// Looks up each handle of a C array (`count` entries at `list`).
///
/// # Safety
/// `list` must point to `count` handles when `count > 0`.
pub unsafe fn get_list<T: Kind>(
    count: cl_uint,
    list: *const *mut c_void,
    empty_error: cl_int,
) -> Result<Vec<Arc<ClObject<T>>>, cl_int> {
    if count == 0 || list.is_null() {
        return if count == 0 && list.is_null() {
            Ok(Vec::new())
        } else {
            Err(empty_error)
        };
    }
    std::slice::from_raw_parts(list, count as usize)
        .iter()
        .map(|&h| get::<T>(h))
        .collect()
}
