//! Programs: OpenCL C source or a ferrocl binary, built for the context's
//! devices. Kernels specialized from a program are cached with it.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::program_globals::GlobalsBlock;
use crate::util::read_c_string;
use compiler::{BuildOptions, ModuleKind, ProgramModule};
use opencl_sys::*;
use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type BuildCallback = unsafe extern "C" fn(cl_program, *mut c_void);

/// Whether this build of the library compiles programs (its `compiler`
/// feature): `CL_DEVICE_COMPILER_AVAILABLE` and `_LINKER_AVAILABLE`.
pub const COMPILER: bool = cfg!(feature = "compiler");

/// The profile: a device without a compiler is of the embedded profile, the
/// only one the specification lets lack it.
pub const PROFILE: &str = if COMPILER {
    "FULL_PROFILE"
} else {
    "EMBEDDED_PROFILE"
};

pub struct BuildState {
    pub status: cl_build_status,
    pub options: String,
    pub log: String,
    pub binary_type: cl_program_binary_type,
    pub module: Option<Arc<ProgramModule>>,
}

pub struct Program {
    pub context: Arc<ClObject<Context>>,
    pub devices: Vec<Arc<ClObject<Device>>>,
    source: Option<String>,
    /// The SPIR-V module of a program made with `clCreateProgramWithIL`.
    il: Option<Vec<u8>>,
    /// Values `clSetProgramSpecializationConstant` set, for the next build.
    spec_constants: Mutex<compiler::SpecConstants>,
    pub build: Mutex<BuildState>,
    /// Kernel objects alive: a program with kernels cannot be rebuilt.
    pub kernels_attached: AtomicUsize,
    /// Work-group functions already compiled, by kernel and local size.
    pub specialized: Mutex<HashMap<(String, compiler::Specialization), Arc<dyn mux::Kernel>>>,
    /// The block of program-scope variables of each device (by its
    /// object's address) a kernel has run on since the last build.
    globals: Mutex<HashMap<usize, Arc<GlobalsBlock>>>,
    /// The binary last reported by `CL_PROGRAM_BINARY_SIZES`, with the
    /// number of specializations it holds: `CL_PROGRAM_BINARIES` copies
    /// exactly it, whatever was compiled in between.
    binary: Mutex<Option<(usize, Arc<Vec<u8>>)>>,
}

impl Kind for Program {
    const INVALID: cl_int = CL_INVALID_PROGRAM;
}

impl Program {
    /// The program's binary: its module with the machine code of every
    /// kernel specialized so far. `fresh` makes it anew if kernels were
    /// specialized since it was last made.
    fn binary(&self, module: Option<&ProgramModule>, fresh: bool) -> Arc<Vec<u8>> {
        let Some(module) = module else {
            return Arc::new(Vec::new());
        };
        let specialized = self.specialized.lock().unwrap();
        let mut kept = self.binary.lock().unwrap();
        if let Some((n, b)) = &*kept {
            if !fresh || *n == specialized.len() {
                return b.clone();
            }
        }
        let code: Vec<compiler::SpecializedCode> = specialized
            .iter()
            .filter_map(|((name, spec), k)| {
                Some(compiler::SpecializedCode {
                    kernel: name.clone(),
                    spec: *spec,
                    executable: k.executable()?,
                })
            })
            .collect();
        let machine = self.devices[0].compiler.machine();
        let b = Arc::new(module.to_binary_with(&code, &machine));
        *kept = Some((specialized.len(), b.clone()));
        b
    }

    /// The built module, or `CL_INVALID_PROGRAM_EXECUTABLE`.
    pub fn executable(&self) -> Result<Arc<ProgramModule>, cl_int> {
        let b = self.build.lock().unwrap();
        match (&b.module, b.status, b.binary_type) {
            (Some(m), CL_BUILD_SUCCESS, CL_PROGRAM_BINARY_TYPE_EXECUTABLE) => Ok(m.clone()),
            _ => Err(CL_INVALID_PROGRAM_EXECUTABLE),
        }
    }

    /// The block of the executable's program-scope variables on `device`,
    /// made with their initial values the first time it is asked for.
    pub fn globals_block(&self, device: &ClObject<Device>) -> Result<Arc<GlobalsBlock>, cl_int> {
        let module = self.executable()?;
        let mut blocks = self.globals.lock().unwrap();
        let key = device as *const ClObject<Device> as usize;
        if let Some(b) = blocks.get(&key) {
            return Ok(b.clone());
        }
        let block = Arc::new(GlobalsBlock::new(&*device.mux, module.globals())?);
        blocks.insert(key, block.clone());
        Ok(block)
    }
}

fn binary_type(kind: ModuleKind) -> cl_program_binary_type {
    match kind {
        ModuleKind::Executable => CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
        ModuleKind::Object => CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
        ModuleKind::Library => CL_PROGRAM_BINARY_TYPE_LIBRARY,
    }
}

fn new_program(
    context: Arc<ClObject<Context>>,
    devices: Vec<Arc<ClObject<Device>>>,
    source: Option<String>,
    module: Option<ProgramModule>,
    il: Option<Vec<u8>>,
) -> cl_program {
    let binary_type = module
        .as_ref()
        .map_or(CL_PROGRAM_BINARY_TYPE_NONE, |m| binary_type(m.kind));
    let p = object::create(Program {
        context,
        devices,
        source,
        il,
        spec_constants: Mutex::new(Default::default()),
        build: Mutex::new(BuildState {
            status: CL_BUILD_NONE,
            options: String::new(),
            log: String::new(),
            binary_type,
            module: module.map(Arc::new),
        }),
        kernels_attached: AtomicUsize::new(0),
        specialized: Mutex::new(HashMap::new()),
        globals: Mutex::new(HashMap::new()),
        binary: Mutex::new(None),
    });
    object::handle(&p)
}

pub unsafe extern "C" fn create_program_with_source(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(count > 0 && !strings.is_null(), CL_INVALID_VALUE)?;
        let mut source = Vec::new();
        for i in 0..count as usize {
            let s = *strings.add(i);
            ensure(!s.is_null(), CL_INVALID_VALUE)?;
            let len = if lengths.is_null() {
                0
            } else {
                *lengths.add(i)
            };
            if len == 0 {
                source.extend_from_slice(std::ffi::CStr::from_ptr(s).to_bytes());
            } else {
                source.extend_from_slice(std::slice::from_raw_parts(s as *const u8, len));
            }
        }
        let devices = ctx.devices.clone();
        Ok(new_program(
            ctx,
            devices,
            Some(String::from_utf8_lossy(&source).into_owned()),
            None,
            None,
        ))
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn create_program_with_binary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const u8,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(num_devices > 0 && !device_list.is_null(), CL_INVALID_VALUE)?;
        let devices = object::get_list::<Device>(num_devices, device_list, CL_INVALID_VALUE)?;
        ensure(devices.iter().all(|d| ctx.has_device(d)), CL_INVALID_DEVICE)?;
        ensure(!lengths.is_null() && !binaries.is_null(), CL_INVALID_VALUE)?;
        let mut module = None;
        let mut result = Ok(());
        for i in 0..num_devices as usize {
            let (len, bin) = (*lengths.add(i), *binaries.add(i));
            let status = if len == 0 || bin.is_null() {
                result = Err(CL_INVALID_VALUE);
                CL_INVALID_VALUE
            } else {
                match ProgramModule::from_binary(std::slice::from_raw_parts(bin, len)) {
                    Ok(m) => {
                        module = Some(m);
                        CL_SUCCESS
                    }
                    Err(_) => {
                        result = result.and(Err(CL_INVALID_BINARY));
                        CL_INVALID_BINARY
                    }
                }
            };
            if !binary_status.is_null() {
                *binary_status.add(i) = status;
            }
        }
        result?;
        Ok(new_program(ctx, devices, None, module, None))
    })
}

pub unsafe extern "C" fn create_program_with_built_in_kernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(
            num_devices > 0 && !device_list.is_null() && !kernel_names.is_null(),
            CL_INVALID_VALUE,
        )?;
        let devices = object::get_list::<Device>(num_devices, device_list, CL_INVALID_VALUE)?;
        ensure(devices.iter().all(|d| ctx.has_device(d)), CL_INVALID_DEVICE)?;
        // CL_DEVICE_BUILT_IN_KERNELS is empty: no name can be valid.
        Err(CL_INVALID_VALUE)
    })
}

pub unsafe extern "C" fn create_program_with_il(
    context: cl_context,
    il: *const c_void,
    length: usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(!il.is_null() && length > 0, CL_INVALID_VALUE)?;
        let bytes = std::slice::from_raw_parts(il as *const u8, length).to_vec();
        // A whole number of words with a SPIR-V header of a version taken.
        #[cfg(feature = "compiler")]
        compiler::spirv_ll::check_header(&bytes).map_err(|_| CL_INVALID_VALUE)?;
        // No device of this build takes IL.
        #[cfg(not(feature = "compiler"))]
        ensure(false, CL_INVALID_OPERATION)?;
        let devices = ctx.devices.clone();
        Ok(new_program(ctx, devices, None, None, Some(bytes)))
    })
}

pub unsafe extern "C" fn retain_program(program: cl_program) -> cl_int {
    object::retain::<Program>(program)
}

pub unsafe extern "C" fn release_program(program: cl_program) -> cl_int {
    object::release::<Program>(program)
}

/// The devices a build applies to: all of the program's, or a subset.
unsafe fn build_devices(
    p: &Program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
) -> Result<(), cl_int> {
    ensure(
        (num_devices == 0) == device_list.is_null(),
        CL_INVALID_VALUE,
    )?;
    let list = object::get_list::<Device>(num_devices, device_list, CL_INVALID_VALUE)?;
    ensure(
        list.iter()
            .all(|d| p.devices.iter().any(|x| Arc::ptr_eq(x, d))),
        CL_INVALID_DEVICE,
    )
}

pub unsafe extern "C" fn build_program(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let p = object::get::<Program>(program)?;
        build_devices(&p, num_devices, device_list)?;
        ensure(
            !(pfn_notify.is_none() && !user_data.is_null()),
            CL_INVALID_VALUE,
        )?;
        ensure(
            p.kernels_attached.load(Ordering::Acquire) == 0,
            CL_INVALID_OPERATION,
        )?;
        let text = read_c_string(options);
        let parsed = BuildOptions::parse(&text).map_err(|_| CL_INVALID_BUILD_OPTIONS)?;
        ensure(
            COMPILER || (p.source.is_none() && p.il.is_none()),
            CL_COMPILER_NOT_AVAILABLE,
        )?;
        let result = {
            let mut b = p.build.lock().unwrap();
            ensure(b.status != CL_BUILD_IN_PROGRESS, CL_INVALID_OPERATION)?;
            b.options = text;
            let from_source = |src: &String| {
                let cpu = p.devices[0].compiler.cpu().to_string();
                ProgramModule::compile(src.as_bytes(), &parsed, &cpu, &[])
            };
            let from_il = |il: &Vec<u8>| {
                let spec = p.spec_constants.lock().unwrap().clone();
                ProgramModule::compile_il(il, &spec, &parsed)
            };
            let built = p
                .source
                .as_ref()
                .map(from_source)
                .or_else(|| p.il.as_ref().map(from_il));
            match built {
                Some(built) => {
                    b.status = CL_BUILD_IN_PROGRESS;
                    match built {
                        Ok(m) => {
                            b.log = m.log.clone();
                            b.module = Some(Arc::new(m));
                            b.status = CL_BUILD_SUCCESS;
                            b.binary_type = CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
                            Ok(())
                        }
                        Err(e) => {
                            b.log = e.log;
                            b.module = None;
                            b.status = CL_BUILD_ERROR;
                            b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
                            Err(CL_BUILD_PROGRAM_FAILURE)
                        }
                    }
                }
                None if b.module.is_some() => {
                    // A binary: an executable takes the options that shape
                    // code; an object or a library is linked into one.
                    let m = b.module.clone().unwrap();
                    let built = match m.kind {
                        ModuleKind::Executable => {
                            Ok(m.with_codegen(compiler::CodeGenOptions::of(&parsed)))
                        }
                        _ => ProgramModule::link(&[&*m], false)
                            .map(|e| e.with_codegen(compiler::CodeGenOptions::of(&parsed))),
                    };
                    let settled = settle(&mut b, built, CL_BUILD_PROGRAM_FAILURE);
                    if settled.is_ok() {
                        // Nothing was compiled: the original build's log
                        // belongs to that build.
                        b.log.clear();
                    }
                    settled
                }
                None => Err(CL_INVALID_BINARY),
            }
        };
        p.specialized.lock().unwrap().clear();
        *p.binary.lock().unwrap() = None;
        // The variables start again from their initializers.
        p.globals.lock().unwrap().clear();
        if let Some(cb) = pfn_notify {
            cb(program, user_data);
        }
        result
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn compile_program(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let p = object::get::<Program>(program)?;
        build_devices(&p, num_devices, device_list)?;
        ensure(
            !(pfn_notify.is_none() && !user_data.is_null()),
            CL_INVALID_VALUE,
        )?;
        let no_headers = input_headers.is_null() && header_include_names.is_null();
        ensure(
            if num_input_headers == 0 {
                no_headers
            } else {
                !input_headers.is_null() && !header_include_names.is_null()
            },
            CL_INVALID_VALUE,
        )?;
        ensure(
            p.kernels_attached.load(Ordering::Acquire) == 0,
            CL_INVALID_OPERATION,
        )?;
        ensure(p.source.is_some() || p.il.is_some(), CL_INVALID_OPERATION)?;
        ensure(COMPILER, CL_COMPILER_NOT_AVAILABLE)?;
        let text = read_c_string(options);
        let parsed = BuildOptions::parse(&text).map_err(|_| CL_INVALID_COMPILER_OPTIONS)?;
        let mut headers = Vec::new();
        for i in 0..num_input_headers as usize {
            let h = object::get::<Program>(*input_headers.add(i))?;
            let name = read_c_string(*header_include_names.add(i));
            headers.push((name, h.source.clone().unwrap_or_default()));
        }
        let views: Vec<compiler::Header<'_>> = headers
            .iter()
            .map(|(n, s)| compiler::Header {
                name: n,
                source: s.as_bytes(),
            })
            .collect();
        let cpu = p.devices[0].compiler.cpu().to_string();
        let result = match (&p.source, &p.il) {
            (Some(source), _) => {
                ProgramModule::compile_object(source.as_bytes(), &parsed, &cpu, &views)
            }
            // An IL program's headers are ignored.
            (None, il) => {
                let spec = p.spec_constants.lock().unwrap().clone();
                ProgramModule::compile_il_object(il.as_deref().unwrap_or_default(), &spec, &parsed)
            }
        };
        let outcome = {
            let mut b = p.build.lock().unwrap();
            b.options = text;
            settle(&mut b, result, CL_COMPILE_PROGRAM_FAILURE)
        };
        p.specialized.lock().unwrap().clear();
        *p.binary.lock().unwrap() = None;
        // The variables start again from their initializers.
        p.globals.lock().unwrap().clear();
        if let Some(cb) = pfn_notify {
            cb(program, user_data);
        }
        outcome
    })
}

/// Records a compile or link result in the build state.
fn settle(
    b: &mut BuildState,
    result: Result<ProgramModule, compiler::BuildError>,
    failure: cl_int,
) -> Result<(), cl_int> {
    match result {
        Ok(m) => {
            b.log = m.log.clone();
            b.binary_type = binary_type(m.kind);
            b.module = Some(Arc::new(m));
            b.status = CL_BUILD_SUCCESS;
            Ok(())
        }
        Err(e) => {
            b.log = e.log;
            b.module = None;
            b.binary_type = CL_PROGRAM_BINARY_TYPE_NONE;
            b.status = CL_BUILD_ERROR;
            Err(failure)
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn link_program(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: Option<BuildCallback>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    let mut failed = false;
    let h = entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(
            (num_devices == 0) == device_list.is_null(),
            CL_INVALID_VALUE,
        )?;
        let devices = object::get_list::<Device>(num_devices, device_list, CL_INVALID_VALUE)?;
        ensure(devices.iter().all(|d| ctx.has_device(d)), CL_INVALID_DEVICE)?;
        ensure(
            !(pfn_notify.is_none() && !user_data.is_null()),
            CL_INVALID_VALUE,
        )?;
        ensure(
            num_input_programs > 0 && !input_programs.is_null(),
            CL_INVALID_VALUE,
        )?;
        let inputs =
            object::get_list::<Program>(num_input_programs, input_programs, CL_INVALID_VALUE)?;
        ensure(COMPILER, CL_LINKER_NOT_AVAILABLE)?;
        let text = read_c_string(options);
        let library = compiler::parse_link_options(&text).map_err(|_| CL_INVALID_LINKER_OPTIONS)?;
        let mut modules = Vec::new();
        for i in &inputs {
            ensure(Arc::ptr_eq(&i.context, &ctx), CL_INVALID_CONTEXT)?;
            let b = i.build.lock().unwrap();
            let linkable = matches!(
                b.binary_type,
                CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT | CL_PROGRAM_BINARY_TYPE_LIBRARY
            );
            ensure(linkable && b.module.is_some(), CL_INVALID_OPERATION)?;
            modules.push(b.module.clone().unwrap());
        }
        let views: Vec<&ProgramModule> = modules.iter().map(|m| m.as_ref()).collect();
        let result = ProgramModule::link(&views, library);
        let devices = if devices.is_empty() {
            ctx.devices.clone()
        } else {
            devices
        };
        let handle = new_program(ctx, devices, None, None, None);
        let p = object::get::<Program>(handle)?;
        {
            let mut b = p.build.lock().unwrap();
            b.options = text;
            // A failed link still returns the program, with its log.
            failed = settle(&mut b, result, CL_LINK_PROGRAM_FAILURE).is_err();
        }
        if let Some(cb) = pfn_notify {
            cb(handle, user_data);
        }
        Ok(handle)
    });
    if failed && !errcode_ret.is_null() {
        *errcode_ret = CL_LINK_PROGRAM_FAILURE;
    }
    h
}

pub unsafe extern "C" fn get_program_info(
    program: cl_program,
    param_name: cl_program_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Program>(program).and_then(|p| {
        let b = p.build.lock().unwrap();
        let kernels = || -> Result<Vec<String>, cl_int> {
            let m = b
                .module
                .as_ref()
                // Objects and libraries have no executable yet.
                .filter(|_| {
                    b.status == CL_BUILD_SUCCESS
                        && b.binary_type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                })
                .ok_or(CL_INVALID_PROGRAM_EXECUTABLE)?;
            Ok(m.kernels().iter().map(|k| k.name.clone()).collect())
        };
        let binary = || p.binary(b.module.as_deref(), param_name == CL_PROGRAM_BINARY_SIZES);
        Ok(match param_name {
            CL_PROGRAM_REFERENCE_COUNT => Info::value::<cl_uint>(p.ref_count()),
            CL_PROGRAM_CONTEXT => Info::value::<cl_context>(object::handle(&p.context)),
            CL_PROGRAM_NUM_DEVICES => Info::value::<cl_uint>(p.devices.len() as cl_uint),
            CL_PROGRAM_DEVICES => {
                let v: Vec<cl_device_id> = p.devices.iter().map(object::handle).collect();
                Info::slice(&v)
            }
            CL_PROGRAM_SOURCE => Info::string(p.source.as_deref().unwrap_or("")),
            CL_PROGRAM_IL => Info::slice::<u8>(p.il.as_deref().unwrap_or_default()),
            CL_PROGRAM_BINARY_SIZES => Info::slice::<usize>(&vec![binary().len(); p.devices.len()]),
            CL_PROGRAM_BINARIES => {
                // The application gives one buffer per device; fill each.
                let binary = binary();
                let n = p.devices.len();
                if !value.is_null() {
                    ensure(size >= n * std::mem::size_of::<*mut u8>(), CL_INVALID_VALUE)?;
                    let ptrs = std::slice::from_raw_parts(value as *const *mut u8, n);
                    for &dst in ptrs {
                        if !dst.is_null() {
                            std::ptr::copy_nonoverlapping(binary.as_ptr(), dst, binary.len());
                        }
                    }
                }
                if !size_ret.is_null() {
                    *size_ret = n * std::mem::size_of::<*mut u8>();
                }
                return Ok(None);
            }
            CL_PROGRAM_NUM_KERNELS => Info::value::<usize>(kernels()?.len()),
            CL_PROGRAM_KERNEL_NAMES => Info::string(&kernels()?.join(";")),
            CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT | CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT => {
                Info::bool(false)
            }
            _ => return Err(CL_INVALID_VALUE),
        })
        .map(Some)
    });
    match result {
        Ok(None) => CL_SUCCESS,
        Ok(Some(info)) => info.write(size, value, size_ret),
        Err(e) => e,
    }
}

pub unsafe extern "C" fn get_program_build_info(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Program>(program).and_then(|p| {
        let d = object::get::<Device>(device)?;
        ensure(
            p.devices.iter().any(|x| Arc::ptr_eq(x, &d)),
            CL_INVALID_DEVICE,
        )?;
        let b = p.build.lock().unwrap();
        Ok(match param_name {
            CL_PROGRAM_BUILD_STATUS => Info::value::<cl_build_status>(b.status),
            CL_PROGRAM_BUILD_OPTIONS => Info::string(&b.options),
            CL_PROGRAM_BUILD_LOG => Info::string(&b.log),
            CL_PROGRAM_BINARY_TYPE => Info::value::<cl_program_binary_type>(b.binary_type),
            CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE => {
                Info::value::<usize>(b.module.as_ref().map_or(0, |m| m.globals().size))
            }
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn set_program_release_callback(
    program: cl_program,
    _pfn_notify: Option<BuildCallback>,
    _user_data: *mut c_void,
) -> cl_int {
    // Deprecated in 3.0: allowed to fail when no global destructors exist.
    status(|| {
        object::get::<Program>(program)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn set_program_specialization_constant(
    program: cl_program,
    spec_id: cl_uint,
    spec_size: usize,
    spec_value: *const c_void,
) -> cl_int {
    status(|| {
        let p = object::get::<Program>(program)?;
        let il = p.il.as_ref().ok_or(CL_INVALID_PROGRAM)?;
        ensure(!spec_value.is_null(), CL_INVALID_VALUE)?;
        // Without a compiler no program has IL (clCreateProgramWithIL fails).
        #[cfg(not(feature = "compiler"))]
        {
            let _ = (il, spec_id, spec_size);
            Err(CL_INVALID_PROGRAM)
        }
        #[cfg(feature = "compiler")]
        {
            let constants =
                compiler::spirv_ll::spec_constants(il).map_err(|_| CL_INVALID_PROGRAM)?;
            let c = constants
                .iter()
                .find(|c| c.id == spec_id)
                .ok_or(CL_INVALID_SPEC_ID)?;
            ensure(c.size == spec_size, CL_INVALID_VALUE)?;
            let value = std::slice::from_raw_parts(spec_value as *const u8, spec_size).to_vec();
            p.spec_constants.lock().unwrap().insert(spec_id, value);
            Ok(())
        }
    })
}
