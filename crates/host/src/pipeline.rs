//! The pass pipeline that turns one OpenCL kernel into a work-group
//! function for the host ABI (`kernel_ir::abi`): the passes of `passes`,
//! in order, and the vector forms `vecz` makes, where they pay. The
//! options it runs with are read from the environment here alone
//! ([`PipelineOptions::from_environment`]), and those that change the code
//! go into the kernel's cache key ([`PipelineOptions::add_to_key`]).

use compiler::disk_cache::KeyBuilder;
use compiler::KernelInfo;
use kernel_ir::builtin_kinds::{barrier_calls, Barrier};
use llvm_sys::prelude::*;
use llvm_sys::target_machine::LLVMTargetMachineRef;
use passes::{
    barriers, constant_privates, generic_pointers, image_arguments, image_formats, inline_all,
    jam_rows, local_atomics, local_memory, loop_barriers, mux_builtins, printf, private_casts,
    private_fields, program_globals, safe_division, single_exit_loops, streaming_stores,
    vector_stores, work_item_loops,
};

/// What the pipeline may do, beyond what the kernel and its
/// specialization say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineOptions {
    /// Vector forms of kernels and of barrier regions (`vecz`);
    /// `FERROCL_VECTORIZE=0` turns them off, to compare.
    pub vectorize: bool,
    /// Every vector form `vecz` can make, also those it expects to be
    /// slower than the scalar form (`FERROCL_VECTORIZE=all`).
    pub vectorize_all: bool,
    /// A barrier at the head of each uniform inner loop
    /// (`passes::loop_barriers`); `FERROCL_LOOP_BARRIERS=0` turns them off,
    /// to compare.
    pub loop_barriers: bool,
    /// What became of each kernel, on stderr
    /// (`FERROCL_VECTORIZE_EXPLAIN=1`); it changes no code.
    pub explain: bool,
    /// Bytes of the CPU's widest vector register: the vector forms' width
    /// and the sub-group size follow from it.
    pub vector_bytes: usize,
}

impl PipelineOptions {
    /// The options the environment's knobs (`compiler::knobs`) set, for
    /// this CPU's vectors.
    pub fn from_environment() -> PipelineOptions {
        PipelineOptions {
            vectorize: compiler::knobs::vectorize(),
            vectorize_all: compiler::knobs::vectorize_all(),
            loop_barriers: compiler::knobs::loop_barriers(),
            explain: compiler::knobs::vectorize_explain(),
            vector_bytes: crate::device_info::vector_bytes() as usize,
        }
    }

    /// Adds the options that change the code to a kernel's cache key, so
    /// that an entry made with one setting is never loaded under another.
    pub fn add_to_key(&self, key: &mut KeyBuilder) {
        let PipelineOptions {
            vectorize,
            vectorize_all,
            loop_barriers,
            explain: _,
            vector_bytes,
        } = *self;
        key.add(
            format!(
                "vectorize={vectorize} vectorize_all={vectorize_all} \
                 loop_barriers={loop_barriers} vector_bytes={vector_bytes}"
            )
            .as_bytes(),
        );
    }
}

/// What the runtime must know about a built work-group function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkGroupFunction {
    pub name: String,
    /// Bytes of the kernel's own `__local` variables, at the start of the
    /// local block; `__local` arguments follow.
    pub static_local_memory: usize,
    /// Bytes of per-work-item storage (values live across barriers) one
    /// work-group needs, passed as the `storage` parameter.
    pub work_item_storage: usize,
}

/// Runs the passes: `m` then holds the work-group function for `kernel`
/// at `spec`'s local size, and nothing else that is externally visible.
/// `tm` is the machine the code is for, whose costs guide unrolling.
///
/// # Safety
/// `m` must be a live module whose context this thread owns, and `tm` a
/// live target machine.
pub unsafe fn build_work_group_function(
    m: LLVMModuleRef,
    kernel: &KernelInfo,
    spec: compiler::Specialization,
    options: &PipelineOptions,
    tm: LLVMTargetMachineRef,
) -> Result<WorkGroupFunction, String> {
    let vector_bytes = options.vector_bytes;
    let local_size = spec.local_size;
    // The generic form reads the local size at run time: no vector form,
    // no loop barriers, and no barriers of the kernel's own.
    let generic = spec.is_generic();
    if generic && kernel.uses_barrier {
        return Err(format!(
            "kernel {} has barriers: it has no generic form",
            kernel.name
        ));
    }
    let name = compiler::llvm::cstr(&kernel.name);
    let k = llvm_sys::core::LLVMGetNamedFunction(m, name.as_ptr());
    if k.is_null() {
        return Err(format!("kernel {} not found", kernel.name));
    }
    // A kernel of math functions, told before they are inlined.
    let computing = kernel_ir::builtin_kinds::calls_transcendental(k);
    // Where the block of program-scope variables has each, before any
    // variable is dropped.
    let globals = program_globals::offsets(m);
    // Barriers in called functions become barriers in the kernel; the
    // sub-group functions stay calls until the vector form is made.
    inline_all::run_before_vector_form(m, k)?;
    let sub_group_functions: Vec<LLVMValueRef> = compiler::llvm::instructions(k)
        .into_iter()
        .filter_map(|i| compiler::llvm::called_function(i))
        .filter(|&f| kernel_ir::sub_group_calls::meets_sub_group(f))
        .collect();
    for &f in &sub_group_functions {
        safe_division::run(f);
    }
    // Image descriptors and sampler bits, so that a constant sampler's
    // branches fold in what follows.
    image_arguments::run(k);
    // Before anything folds a division by zero or copies the kernel.
    safe_division::run(k);
    // Private variables into SSA values first: the barrier pass then
    // keeps only what truly lives across a barrier, and computes ids
    // and sizes again rather than storing them.
    compiler::llvm::run_passes(m, "function(sroa,early-cse)", std::ptr::null_mut())?;
    // Then those reached through generic pointers are reached directly,
    // structs used through one array field narrowed to it, and variables
    // set to one constant made constants, for SROA again and `vecz`.
    if private_casts::run(k) + private_fields::run(m, k) + constant_privates::run(m, k) > 0 {
        compiler::llvm::run_passes(m, "function(sroa)", std::ptr::null_mut())?;
    }
    // Once the image arguments are values rather than stack slots.
    if image_formats::run(k, &spec.images) > 0 {
        compiler::llvm::run_passes(m, "function(sccp,simplifycfg)", std::ptr::null_mut())?;
    }
    let streaming = streaming_stores::run(k, spec.streaming) > 0;
    // A work-group of one work-item has nothing to vectorize across.
    let items: usize = local_size.iter().product();
    // A printing kernel's records come out in work-item order, as they
    // would be read: its vector form makes the calls lane after lane (and
    // takes one call, outside loops), and it is given no loop barriers.
    let printing = kernel.uses_printf();
    let sub_group_width = kernel.sub_group_width(vector_bytes / 4);
    if !compiler::SUB_GROUP_SIZES.contains(&(sub_group_width as u32)) {
        return Err(format!(
            "kernel {}: no sub-group size of {sub_group_width}",
            kernel.name
        ));
    }
    // A kernel whose sub-groups meet runs each whole sub-group through a
    // vector form of its width, where one is made, and the rest sub-group
    // by sub-group, lane after lane (`sub_group_loops`).
    let sub_groups = !sub_group_functions.is_empty();
    let work_group_barriers = !barrier_calls(k, Barrier::WorkGroup).is_empty();
    if work_group_barriers && items > 1 {
        // A loop of a few constant iterations around barriers (a tree
        // reduction's levels) is unrolled, as an optimizing front end
        // would: each level is then a region of its own whose bounds are
        // constants, and the work-item loops skip the lanes it leaves out.
        // The unroller's costs are the target's.
        let passes = "function(loop(loop-rotate,loop-unroll-full),sroa,early-cse)";
        compiler::llvm::run_passes(m, passes, tm)?;
    }
    let vector = if work_group_barriers || generic {
        None
    } else if sub_groups {
        sub_group_vector_form(m, k, sub_group_width, local_size[0], printing, options)
    } else {
        vector_form(m, k, local_size, options, streaming, printing)
    };
    if sub_groups {
        // The sub-group functions into the scalar kernel; the vector form,
        // not called yet, is left as it is.
        let vector_function: Vec<LLVMValueRef> = vector.iter().map(|v| v.function).collect();
        inline_all::run_leaving(m, k, &vector_function)?;
    }
    // A kernel with barriers vectorizes region by region where a trial on
    // a copy of the module shows every region takes; otherwise LLVM's loop
    // vectorizer takes its work-item loops, with loop barriers.
    let region_width = if kernel.uses_barrier && items > 1 && !printing && !sub_groups {
        region_vector_width(m, k, local_size, options)
    } else {
        None
    };
    if vector.is_none()
        && region_width.is_none()
        && items > 1
        && options.loop_barriers
        && !printing
        && !sub_groups
    {
        loop_barriers::run(m, k);
    }
    // Every call, in the kernel and its vector form, writes to the printf
    // buffer.
    printf::run(m, k, &kernel.printf_calls)?;
    if let Some(v) = &vector {
        printf::run(m, v.function, &kernel.printf_calls)?;
    }
    let regions = barriers::run(m, k, items)?;
    let vector = match (&regions, region_width) {
        (Some(r), Some(width)) => region_vector_form(m, r, width, options),
        _ => vector,
    };
    // LLVM's loop vectorizer does not widen non-temporal stores; where it
    // widens a kernel of math functions, it interleaves vectors of
    // work-items: four where there are 32 vector registers (AVX-512) to
    // hold their chains, two where there are 16.
    let x_loop = if streaming {
        work_item_loops::XLoop::Unrollable
    } else if computing && vector.is_none() && regions.is_none() {
        let interleave = if options.vector_bytes >= 64 { 4 } else { 2 };
        work_item_loops::XLoop::Compute { interleave }
    } else {
        work_item_loops::XLoop::Rolled
    };
    let wg = work_item_loops::run(
        m,
        kernel,
        local_size,
        regions.as_ref(),
        x_loop,
        vector,
        sub_group_width,
    )?;
    inline_all::run(m, wg)?;
    inline_all::drop_scope_declarations(wg);
    local_atomics::run(wg);
    let static_local_memory = local_memory::run(m, wg)?;
    if kernel.uses_program_globals {
        program_globals::run(m, wg, &globals, compiler::globals_arg_offset(kernel) as u64)?;
    }
    let printf_arg = kernel
        .uses_printf()
        .then(|| compiler::printf_arg_offset(&kernel.args) as u64);
    mux_builtins::run(
        m,
        wg,
        local_size,
        spec.enqueued_local_size,
        printf_arg,
        sub_group_width,
    )?;
    let storage_bytes = regions.as_ref().map_or(0, |r| r.storage_bytes);
    generic_pointers::run(m, wg, storage_bytes, compiler::arg_layout(&kernel.args).1);
    // Private copies into SSA values first: `out[i] = (float2)(a, b)` then
    // stores the assembled vector itself.
    compiler::llvm::run_passes(m, "function(sroa)", std::ptr::null_mut())?;
    vector_stores::run(wg);
    if streaming {
        streaming_stores::fence_at_exit(wg);
    }
    compiler::llvm::verify(m)?;
    Ok(WorkGroupFunction {
        name: compiler::llvm::name(wg),
        static_local_memory,
        work_item_storage: storage_bytes,
    })
}

/// Bytes of a page: work-items whose accesses are this far apart each
/// touch pages of their own.
const PAGE: u64 = 4096;

/// How many vector registers' worth of work-items one lane group takes:
/// several independent accumulators hide the latency of a loop-carried
/// FMA chain.
const INTERLEAVE: usize = 4;

/// Rows of a work-group the vector form runs together where they share
/// loads (`jam_rows`): each vector a row loads then feeds this many FMAs.
/// A target that compiles with these passes asks for a local size in y
/// that is a multiple of it.
pub const ROWS: usize = 4;

/// The vector form of kernel `k` (`vecz`), for a kernel without
/// barriers (the caller's check, from the reflection) that needs it: one
/// with a loop of its own or stores that stream (which LLVM's loop
/// vectorizer leaves scalar), or calls of math builtins with vector
/// variants, and at least a vector register's worth of work-items in
/// dimension 0. The width is `INTERLEAVE` registers of the kernel's widest
/// scalar (two with math calls, up to their widest variant), or fewer to
/// fit the local size. Where the local
/// size in y allows and rows share loads, it is the form of `ROWS` rows
/// jammed together (`jam_rows`), `ROWS` times narrower.
unsafe fn vector_form(
    m: LLVMModuleRef,
    k: LLVMValueRef,
    local_size: [usize; 3],
    options: &PipelineOptions,
    streaming: bool,
    printing: bool,
) -> Option<work_item_loops::VectorForm> {
    let (vector_bytes, explaining) = (options.vector_bytes, options.explain);
    let local_x = local_size[0];
    // LLVM's loop vectorizer takes the work-item loop of other kernels;
    // not one that calls printf, even where no work-item reaches it.
    // Nor one whose work-items call math builtins that stay calls: the
    // vector form calls their vector variants (a `float8` call for two
    // work-items one of a form twice as wide), inlined before the
    // optimizer runs, where the loop vectorizer's calls are inlined after.
    let math_lanes = math_call_lanes(k);
    let worth =
        |k| has_loop(k) || streaming || printing || math_lanes.is_some() || has_vector_access(k);
    if !options.vectorize || !worth(k) {
        return None;
    }
    // A loop of a few constant iterations (a filter's taps, `acc[r]` under
    // `#pragma unroll`) is unrolled, as an optimizing front end would:
    // its accesses become independent vector accesses rather than one
    // tested at run time each iteration, and a private array it indexes
    // one value per element (as memory, the vectorizer declines it).
    let private = has_private_memory(k);
    // A `switch` becomes a tree of two-way branches, which `vecz` takes as
    // if/else parts where work-items choose cases apart.
    let passes = "function(lower-switch,loop(loop-unroll-full),sroa,early-cse)";
    compiler::llvm::run_passes(m, passes, std::ptr::null_mut()).ok()?;
    if private {
        if explaining {
            let left = if has_private_memory(k) {
                "some"
            } else {
                "none"
            };
            eprintln!(
                "ferrocl: {}'s private arrays unrolled into values, {left} left",
                compiler::llvm::name(k)
            );
        }
        if !worth(k) {
            return None;
        }
    }
    // Math calls' variants run two vectors interleaved; wider than their
    // widest variant, they would run once per lane. Work-items a page or
    // more apart in memory (a scratch area each) touch pages of their own:
    // interleaved, four registers' worth of them take four times the
    // cache and TLB entries (memory-hard key derivation ran at 0.66 of
    // the one-register form).
    let interleave = if math_lanes.is_some() {
        2
    } else if vecz::widest_lane_stride(m, k) >= PAGE {
        1
    } else {
        INTERLEAVE
    };
    // A work-item's widest value (a `float8` is 32 bytes) sets how many
    // fill `interleave` registers.
    let (element, elements) = widest_value(m, k);
    let widest = |interleave: usize| {
        let most = (vector_bytes * interleave / (element * elements))
            .min(local_x)
            .min(math_lanes.unwrap_or(usize::MAX));
        (most >= 2).then(|| 1 << most.ilog2())
    };
    // What the kernel's loops carry from one iteration to the next stays
    // in registers: at most half of them, or the loop spills each turn
    // (four `float8` accumulators are 16 AVX2 registers at 4 work-items).
    let carried = loop_carried_bytes(m, k);
    let registers = if vector_bytes >= 64 { 32 } else { 16 };
    // Work-items whose carried values fit, for `rows` rows run together.
    let fits = |rows: usize| (carried > 0).then(|| registers * vector_bytes / 2 / (carried * rows));
    let width_for = |interleave: usize, rows: usize| {
        let w = widest(interleave)?;
        match fits(rows) {
            Some(f) if f < w => (f >= 2).then(|| 1 << f.ilog2()),
            _ => Some(w),
        }
    };
    let width: usize = width_for(interleave, 1)?;
    // Short conditions become selects (`while (i < n && x < 4)` tests
    // once), so that a loop left on a varying condition has one exit; a
    // rotated loop's two tests become one too.
    one_exit_loops(m, k).ok()?;
    // Rows run together are the independent chains the interleave was
    // for: they take its place, so that a value of the kernel's still
    // fills as many registers.
    let jammed = width_for((interleave / ROWS).max(1), ROWS)
        .filter(|_| local_size[1] % ROWS == 0 && !printing)
        .map(|w| (w, ROWS));
    let kname = compiler::llvm::name(k);
    for (width, rows) in jammed.into_iter().chain([(width, 1)]) {
        let together = if rows > 1 {
            format!(" of {rows} rows")
        } else {
            String::new()
        };
        match form_of(m, k, width, rows, forms(options)) {
            Ok(form) => {
                if explaining {
                    eprintln!("ferrocl: {kname} vectorized, {width} work-items{together} at once");
                }
                return Some(form);
            }
            Err(why) => {
                if explaining {
                    eprintln!("ferrocl: {kname} not vectorized{together}: {why}");
                }
            }
        }
    }
    None
}

/// The vector form of kernel `k` (without work-group barriers) that calls
/// sub-group functions: one sub-group of `width` lanes, its sub-group
/// functions computed across them (`vecz::run`).
unsafe fn sub_group_vector_form(
    m: LLVMModuleRef,
    k: LLVMValueRef,
    width: usize,
    local_x: usize,
    printing: bool,
    options: &PipelineOptions,
) -> Option<work_item_loops::VectorForm> {
    let explaining = options.explain;
    if !options.vectorize || width < 2 || local_x < width || printing {
        return None;
    }
    // As for the other vector forms: loops of a few constant iterations
    // unrolled, so that the private arrays they index become values (a
    // sliding window's registers, shifted along the sub-group).
    let passes = "function(lower-switch,loop(loop-unroll-full),sroa,early-cse)";
    compiler::llvm::run_passes(m, passes, std::ptr::null_mut()).ok()?;
    one_exit_loops(m, k).ok()?;
    let kname = compiler::llvm::name(k);
    // A sub-group's functions need its lanes together, whatever it costs.
    match vecz::run(m, k, width as u32, vecz::Forms::All) {
        Ok(function) => {
            if explaining {
                eprintln!("ferrocl: {kname} vectorized, a sub-group of {width} work-items at once");
            }
            Some(work_item_loops::VectorForm {
                function,
                width,
                rows: 1,
                rest: k,
                register_lanes: width,
                scalar_regions: vec![],
            })
        }
        Err(why) => {
            if explaining {
                eprintln!("ferrocl: {kname} not vectorized: {why}");
            }
            None
        }
    }
}

/// The vector form of `k` at `width` lanes, for `rows` rows together
/// (`jam_rows` first where more than one); nothing is left of a form
/// that fails.
unsafe fn form_of(
    m: LLVMModuleRef,
    k: LLVMValueRef,
    width: usize,
    rows: usize,
    forms: vecz::Forms,
) -> Result<work_item_loops::VectorForm, String> {
    let rest = if rows > 1 {
        jam_rows::run(m, k, rows as u32)?
    } else {
        k
    };
    match vecz::run(m, rest, width as u32, forms).and_then(|f| gathers_whole(f)) {
        Ok(function) => Ok(work_item_loops::VectorForm {
            function,
            width,
            rows,
            rest,
            // Its runs stop at the local size, never at a region's bound.
            register_lanes: width,
            scalar_regions: vec![],
        }),
        Err(why) => {
            if rest != k {
                llvm_sys::core::LLVMDeleteFunction(rest);
            }
            Err(why)
        }
    }
}

/// The width at which the regions of kernel `k` (with barriers, not yet
/// split) vectorize, if they do: tried on a copy of the module, so that a
/// kernel whose regions do not take keeps its loop barriers.
unsafe fn region_vector_width(
    m: LLVMModuleRef,
    k: LLVMValueRef,
    local_size: [usize; 3],
    options: &PipelineOptions,
) -> Option<usize> {
    let (vector_bytes, explaining) = (options.vector_bytes, options.explain);
    if !options.vectorize {
        return None;
    }
    let interleave = if calls_vector_variant(k) {
        1
    } else {
        INTERLEAVE
    };
    let (element, elements) = widest_value(m, k);
    let most = (vector_bytes * interleave / (element * elements))
        .min(local_size[0])
        .min(math_call_lanes(k).unwrap_or(usize::MAX));
    if most < 2 {
        return None;
    }
    let width = 1 << most.ilog2();
    // As for kernels without barriers: a loop left on a varying condition
    // gets one exit.
    one_exit_loops(m, k).ok()?;
    let items = local_size.iter().product();
    let name = compiler::llvm::name(k);
    let copy = llvm_sys::core::LLVMCloneModule(m);
    let trial = (|| {
        let kc = llvm_sys::core::LLVMGetNamedFunction(copy, compiler::llvm::cstr(&name).as_ptr());
        let r = barriers::run(copy, kc, items)?.ok_or("no barrier regions")?;
        regions_vectorized(copy, &r, width).map(drop)
    })();
    llvm_sys::core::LLVMDisposeModule(copy);
    match trial {
        Ok(()) => Some(width),
        Err(why) => {
            if explaining {
                eprintln!("ferrocl: {name}'s barrier regions not vectorized: {why}");
            }
            None
        }
    }
}

/// The vector form of region function `r.function` at `width`, and the
/// regions it leaves out: those where work-items combine values one after
/// the other (a work-group collective's), which run one at a time.
unsafe fn regions_vectorized(
    m: LLVMModuleRef,
    r: &barriers::Regions,
    width: usize,
) -> Result<(LLVMValueRef, Vec<u32>), String> {
    // The stack slots a single region uses become values again.
    compiler::llvm::run_passes(m, "function(sroa)", std::ptr::null_mut())?;
    let linear_id = kernel_ir::abi::linear_id_param(llvm_sys::core::LLVMCountParams(r.function));
    let scalar = barriers::combining_regions(r);
    if scalar.len() == r.count as usize {
        return Err("a work-group collective in every region".into());
    }
    let regions = if scalar.is_empty() {
        r.function
    } else {
        let kept = kernel_ir::form::clone_of(m, r.function, "kept");
        barriers::leave_out(kept, &scalar);
        kept
    };
    // Every form: the other way to run regions is one work-item at a
    // time, and a region's loop between barriers (a histogram's `if
    // (counts[b] != 0) atomic_add(..)` over its bins) was measured to gain
    // from its vector form.
    let made = vecz::run_regions(m, regions, width as u32, linear_id, vecz::Forms::All)
        .and_then(|f| gathers_whole(f));
    if regions != r.function {
        llvm_sys::core::LLVMDeleteFunction(regions);
    }
    made.map(|v| (v, scalar))
}

/// Which vector forms the options take.
fn forms(options: &PipelineOptions) -> vecz::Forms {
    if options.vectorize_all {
        vecz::Forms::All
    } else {
        vecz::Forms::Paying
    }
}

/// `single_exit_loops` on `k`, between CFG simplifications: the first
/// drops the empty blocks between a rotated loop's guard and the loop.
unsafe fn one_exit_loops(m: LLVMModuleRef, k: LLVMValueRef) -> Result<(), String> {
    compiler::llvm::run_passes(m, "function(simplifycfg)", std::ptr::null_mut())?;
    if single_exit_loops::run(k) > 0 {
        compiler::llvm::run_passes(m, "function(simplifycfg)", std::ptr::null_mut())?;
    }
    Ok(())
}

/// The region function's vector form for the work-item loops, or `None`
/// (the scalar regions then run) if it does not take after all.
unsafe fn region_vector_form(
    m: LLVMModuleRef,
    r: &barriers::Regions,
    width: usize,
    options: &PipelineOptions,
) -> Option<work_item_loops::VectorForm> {
    let explaining = options.explain;
    let name = compiler::llvm::name(r.function);
    match regions_vectorized(m, r, width) {
        Ok((function, scalar_regions)) => {
            if explaining {
                eprintln!("ferrocl: {name} vectorized, {width} work-items at once");
                if !scalar_regions.is_empty() {
                    eprintln!("ferrocl: {name}'s regions {scalar_regions:?} run one work-item at a time (a work-group collective)");
                }
            }
            let (element, elements) = widest_value(m, r.function);
            Some(work_item_loops::VectorForm {
                function,
                width,
                rows: 1,
                rest: r.function,
                register_lanes: (options.vector_bytes / (element * elements)).clamp(1, width),
                scalar_regions,
            })
        }
        Err(why) => {
            if explaining {
                eprintln!("ferrocl: {name} not vectorized: {why}");
            }
            None
        }
    }
}

/// Vector form `f`, unless it gathers or scatters bytes or shorts (a
/// `uchar3` pixel's channels, a byte table at computed places): x86 has
/// gathers of 32- and 64-bit elements only, so each such lane is a load
/// or store of its own, and the form, with the vectors it assembles and
/// takes apart besides, was measured slower than the scalar form (OpenCV's
/// resize, morphology and colour conversion kernels: 2 to 7 times). Nothing
/// is left of a form declined.
unsafe fn gathers_whole(f: LLVMValueRef) -> Result<LLVMValueRef, String> {
    use llvm_sys::core::*;
    let narrow = vecz::scattered_vectors(f).into_iter().any(|t| {
        let element = LLVMGetElementType(t);
        LLVMGetTypeKind(element) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
            && LLVMGetIntTypeWidth(element) < 32
    });
    if narrow {
        LLVMDeleteFunction(f);
        return Err("gathers or scatters of bytes or shorts, a load or store per lane".into());
    }
    Ok(f)
}

unsafe fn calls_vector_variant(k: LLVMValueRef) -> bool {
    compiler::llvm::instructions(k)
        .into_iter()
        .filter_map(|i| compiler::llvm::called_function(i))
        .any(|f| compiler::vector_variants::stays_a_call(f))
}

/// The most work-items whose calls of a math builtin one of its vector
/// variants (a scalar's, or a vector form's wider form) computes, for every
/// such call of `k` (`None`: it has none).
unsafe fn math_call_lanes(k: LLVMValueRef) -> Option<usize> {
    use compiler::vector_variants::{stays_a_call, widens};
    let m = llvm_sys::core::LLVMGetGlobalParent(k);
    compiler::llvm::instructions(k)
        .into_iter()
        .filter_map(|i| compiler::llvm::called_function(i))
        .filter(|&f| stays_a_call(f) || widens(f))
        .map(|f| {
            (1..=4)
                .map(|s| 1usize << s)
                .filter(|&w| compiler::vector_variants::variant_at(m, f, w as u32).is_some())
                .max()
                .unwrap_or(1)
        })
        .min()
}

unsafe fn has_private_memory(k: LLVMValueRef) -> bool {
    compiler::llvm::instructions(k)
        .into_iter()
        .any(|i| !llvm_sys::core::LLVMIsAAllocaInst(i).is_null())
}

unsafe fn has_loop(k: LLVMValueRef) -> bool {
    !kernel_ir::loops::natural_loops(&kernel_ir::cfg::Cfg::of(k)).is_empty()
}

/// Whether `k` loads a vector from memory work-items share, or stores
/// one there it did not assemble from scalars (`vector_stores` stores
/// those lane by lane): LLVM's loop
/// vectorizer widens loops of scalars only, and leaves a work-item loop
/// of vectors (a `uchar4` pixel made a `float4` and back) one work-item
/// an iteration.
unsafe fn has_vector_access(k: LLVMValueRef) -> bool {
    use llvm_sys::core::{
        LLVMGetOperand, LLVMGetPointerAddressSpace, LLVMGetTypeKind, LLVMIsAInsertElementInst,
        LLVMIsALoadInst, LLVMIsAStoreInst, LLVMTypeOf,
    };
    let is_vector =
        |v| LLVMGetTypeKind(LLVMTypeOf(v)) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind;
    // Memory the work-items share, not their private copies.
    let shared = |p| LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != 0;
    compiler::llvm::instructions(k).into_iter().any(|i| {
        if !LLVMIsALoadInst(i).is_null() {
            return is_vector(i) && shared(LLVMGetOperand(i, 0));
        }
        if LLVMIsAStoreInst(i).is_null() {
            return false;
        }
        let value = LLVMGetOperand(i, 0);
        is_vector(value)
            && LLVMIsAInsertElementInst(value).is_null()
            && shared(LLVMGetOperand(i, 1))
    })
}

/// Bytes of the floating-point values (scalars and vectors) the loops of
/// `k` keep in registers all through, per work-item: what they carry from
/// one iteration to the next (the phis of their headers). A loop left on
/// a value it computes (an escape-time loop's `|z|² > 4`) is one lanes
/// leave apart: its vector form also keeps what it reads every iteration
/// but computes before (`cr`), beside a mask and what each lane leaves
/// with. Integer values are left out: mostly counters and indices,
/// uniform.
unsafe fn loop_carried_bytes(m: LLVMModuleRef, k: LLVMValueRef) -> usize {
    use llvm_sys::core::{
        LLVMGetElementType, LLVMGetFirstUse, LLVMGetInstructionParent, LLVMGetNextUse,
        LLVMGetTypeKind, LLVMGetUser, LLVMTypeOf,
    };
    use llvm_sys::LLVMTypeKind::*;
    let layout = llvm_sys::target::LLVMGetModuleDataLayout(m);
    let cfg = kernel_ir::cfg::Cfg::of(k);
    let float_bytes = |v| {
        let t = LLVMTypeOf(v);
        let element = match LLVMGetTypeKind(t) {
            LLVMVectorTypeKind => LLVMGetElementType(t),
            _ => t,
        };
        if matches!(
            LLVMGetTypeKind(element),
            LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
        ) {
            llvm_sys::target::LLVMABISizeOfType(layout, t) as usize
        } else {
            0
        }
    };
    let mut bytes = 0;
    for l in kernel_ir::loops::natural_loops(&cfg) {
        let inside = |v| l.body.contains(&cfg.index[&LLVMGetInstructionParent(v)]);
        for phi in kernel_ir::cfg::phis(cfg.blocks[l.header]) {
            bytes += float_bytes(phi);
        }
        if !left_on_computed_value(&cfg, &l) {
            continue;
        }
        for i in compiler::llvm::instructions(k) {
            if inside(i) || float_bytes(i) == 0 {
                continue;
            }
            let mut u = LLVMGetFirstUse(i);
            while !u.is_null() {
                if inside(LLVMGetUser(u)) {
                    bytes += float_bytes(i);
                    break;
                }
                u = LLVMGetNextUse(u);
            }
        }
    }
    bytes
}

/// Whether loop `l` is left on a floating-point value or a load it
/// computes, rather than on counters alone.
unsafe fn left_on_computed_value(cfg: &kernel_ir::cfg::Cfg, l: &kernel_ir::loops::Loop) -> bool {
    use llvm_sys::core::*;
    use llvm_sys::LLVMTypeKind::*;
    let inside = |v: LLVMValueRef| {
        !LLVMIsAInstruction(v).is_null()
            && l.body.contains(&cfg.index[&LLVMGetInstructionParent(v)])
    };
    let mut work: Vec<LLVMValueRef> = l
        .body
        .iter()
        .filter(|&&b| cfg.succs[b].iter().any(|s| !l.body.contains(s)))
        .map(|&b| LLVMGetBasicBlockTerminator(cfg.blocks[b]))
        .filter(|&t| !LLVMIsABranchInst(t).is_null() && LLVMIsConditional(t) != 0)
        .map(|t| LLVMGetCondition(t))
        .filter(|&c| inside(c))
        .collect();
    let mut seen: std::collections::HashSet<LLVMValueRef> = work.iter().copied().collect();
    while let Some(v) = work.pop() {
        if !LLVMIsALoadInst(v).is_null()
            || matches!(
                LLVMGetTypeKind(LLVMTypeOf(v)),
                LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
            )
        {
            return true;
        }
        // Phis too: a value carried round is still computed in the loop.
        for k in 0..LLVMGetNumOperands(v) as u32 {
            let op = LLVMGetOperand(v, k);
            if inside(op) && seen.insert(op) {
                work.push(op);
            }
        }
    }
    false
}

/// Bytes of the widest floating-point element `k` computes (4 if none: the
/// ids and sizes are 64-bit in every kernel, and say nothing of its data),
/// and the most elements of a vector of numbers it computes (1 if none).
unsafe fn widest_value(m: LLVMModuleRef, k: LLVMValueRef) -> (usize, usize) {
    use llvm_sys::core::{LLVMGetElementType, LLVMGetTypeKind, LLVMGetVectorSize, LLVMTypeOf};
    use llvm_sys::LLVMTypeKind::*;
    let layout = llvm_sys::target::LLVMGetModuleDataLayout(m);
    let (mut element, mut elements) = (4, 1);
    for i in compiler::llvm::instructions(k) {
        // A `float2` passed as a `double` is still two floats.
        if !llvm_sys::core::LLVMIsABitCastInst(i).is_null() {
            continue;
        }
        let mut t = LLVMTypeOf(i);
        if LLVMGetTypeKind(t) == LLVMVectorTypeKind {
            t = LLVMGetElementType(t);
            if matches!(
                LLVMGetTypeKind(t),
                LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
            ) {
                elements = elements.max(LLVMGetVectorSize(LLVMTypeOf(i)) as usize);
            }
        }
        if matches!(
            LLVMGetTypeKind(t),
            LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
        ) {
            element = element.max(llvm_sys::target::LLVMABISizeOfType(layout, t) as usize);
        }
    }
    (element, elements)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    /// An escape-time loop (left on `|z|² > 4`) and a counted loop, each
    /// carrying two floats and reading one computed before it.
    const LOOPS: &str = r#"
define void @escape(float %cr, i32 %n) {
entry:
  %c = fmul float %cr, 2.0
  br label %loop
loop:
  %z = phi float [ 0.0, %entry ], [ %z.next, %loop ]
  %w = phi float [ 0.0, %entry ], [ %w.next, %loop ]
  %z.next = fadd float %z, %c
  %w.next = fmul float %w, %z
  %big = fcmp ogt float %z.next, 4.0
  br i1 %big, label %done, label %loop
done:
  ret void
}
define void @counted(float %cr, i32 %n) {
entry:
  %c = fmul float %cr, 2.0
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %z = phi float [ 0.0, %entry ], [ %z.next, %loop ]
  %w = phi float [ 0.0, %entry ], [ %w.next, %loop ]
  %z.next = fadd float %z, %c
  %w.next = fmul float %w, %z
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#;

    #[test]
    fn a_loop_left_on_a_computed_value_also_keeps_what_it_reads_every_iteration() {
        let ir = Ir::parse(LOOPS);
        unsafe {
            // The escape-time loop's lanes part: `%c`, read every
            // iteration, stays in registers beside its two phis.
            assert_eq!(loop_carried_bytes(ir.m, ir.function("escape")), 12);
            // The counted loop is left by all lanes at once: its phis only.
            assert_eq!(loop_carried_bytes(ir.m, ir.function("counted")), 8);
        }
    }

    #[test]
    fn math_calls_cover_the_lanes_of_their_narrowest_widest_variant() {
        let ir = Ir::parse(
            r#"
declare <4 x float> @sin4(<4 x float>)
declare <8 x float> @sin8(<8 x float>)
declare <16 x float> @sin16(<16 x float>)
declare float @sin(float) "vector-function-abi-variant"="_ZGV_LLVM_N4v_sin(sin4),_ZGV_LLVM_N8v_sin(sin8),_ZGV_LLVM_N16v_sin(sin16)"
declare <8 x float> @sinv8(<8 x float>) "ferrocl-wider-forms"="_ZGV_LLVM_N2v_sinv8(sin16)"
declare float @fabsf(float)
define void @scalar(float %x) {
  %s = call float @sin(float %x)
  ret void
}
define void @both(float %x, <8 x float> %v) {
  %s = call float @sin(float %x)
  %t = call <8 x float> @sinv8(<8 x float> %v)
  ret void
}
define void @none(float %x) {
  %a = call float @fabsf(float %x)
  ret void
}
"#,
        );
        unsafe {
            assert_eq!(math_call_lanes(ir.function("scalar")), Some(16));
            // A float8 call has a form for two work-items only.
            assert_eq!(math_call_lanes(ir.function("both")), Some(2));
            assert_eq!(math_call_lanes(ir.function("none")), None);
        }
    }
}
