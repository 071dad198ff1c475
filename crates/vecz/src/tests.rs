//! The vectorizer's tests: kernels in, vector forms (or why none) out.

use super::*;
use kernel_ir::test_support::Ir;

use kernel_ir::test_support::HEAD;

/// `c[lid] = sum over k < n of a[k] * b[k * 64 + lid]`.
pub(crate) fn gemm_row() -> String {
    format!(
        "{HEAD}
define void @k(ptr %a, ptr %b, ptr %c, i32 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %k64 = sext i32 %k to i64
  %pa = getelementptr float, ptr %a, i64 %k64
  %x = load float, ptr %pa, align 4
  %row = mul nsw i32 %k, 64
  %row64 = sext i32 %row to i64
  %at = add i64 %row64, %lid
  %pb = getelementptr float, ptr %b, i64 %at
  %y = load float, ptr %pb, align 4
  %acc1 = call float @llvm.fmuladd.f32(float %x, float %y, float %acc)
  %k1 = add nsw i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %out
out:
  %pc = getelementptr float, ptr %c, i64 %lid
  store float %acc1, ptr %pc, align 4
  ret void
}}"
    )
}

pub(crate) fn vectorize(ir: &Ir, width: u32) -> Result<LLVMValueRef, String> {
    unsafe { run(ir.m, ir.function("k"), width, Forms::All) }
}

/// The vector form of `@k` at `width`, as text, once the module with
/// it verifies.
pub(crate) fn vector_text(src: &str, width: u32) -> String {
    let ir = Ir::parse(src);
    vectorize(&ir, width).unwrap();
    unsafe { compiler::llvm::verify(ir.m).unwrap() };
    let text = ir.text();
    let at = text.find(&format!("define internal void @k.v{width}"));
    text[at.expect("no vector form")..].to_string()
}

#[test]
fn a_uniform_loop_keeps_its_accumulator_in_a_vector() {
    let v = vector_text(&gemm_row(), 4);
    // The accumulator is a vector phi; the loop counter stays scalar.
    assert!(v.contains("phi <4 x float>"), "{v}");
    assert!(v.contains("phi i32"), "{v}");
    // a[k] is the same for every lane: one scalar load.
    assert!(v.contains("load float, ptr %pa"), "{v}");
    // b[k * 64 + lid] steps by one float per lane: one vector load.
    assert!(v.contains("load <4 x float>, ptr %pb"), "{v}");
    assert!(v.contains("@llvm.fmuladd.v4f32"), "{v}");
    assert!(v.contains("store <4 x float>"), "{v}");
    assert!(!v.contains("masked"), "{v}");
    // The lanes are work-items lid .. lid + 3.
    assert!(v.contains("<i64 0, i64 1, i64 2, i64 3>"), "{v}");
}

/// `for (i = lid; i < n; i += 64) sum += in[i]`, lanes leaving apart;
/// `t`, computed from `i` in the loop's test, is stored after it when
/// `t_outlives`.
fn grid_stride_loop(t_outlives: bool) -> String {
    let (value, ty) = if t_outlives {
        ("%t", "i64")
    } else {
        ("%sum", "float")
    };
    format!(
        "{HEAD}
define void @k(ptr %in, ptr %out, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %head
head:
  %i = phi i64 [ %lid, %entry ], [ %i1, %body ]
  %sum = phi float [ 0.0, %entry ], [ %sum1, %body ]
  %t = shl i64 %i, 1
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %p, align 4
  %sum1 = fadd float %sum, %x
  %i1 = add i64 %i, 64
  br label %head
done:
  %q = getelementptr {ty}, ptr %out, i64 %lid
  store {ty} {value}, ptr %q, align 4
  ret void
}}"
    )
}

#[test]
fn a_grid_stride_loop_reads_its_lanes_elements_as_one_masked_vector() {
    // `i` stays consecutive across the lanes, those that left too.
    let v = vector_text(&grid_stride_loop(false), 8);
    assert!(v.contains("@llvm.masked.load.v8f32"), "{v}");
    assert!(!v.contains("gather"), "{v}");
    assert!(!v.contains("select <8 x i1> %staying, <8 x i64>"), "{v}");
    // `i` goes round as lane 0's value alone; its lanes, for the test,
    // are made from it.
    assert!(!v.contains("phi <8 x i64>"), "{v}");
    assert!(v.contains("%lanes = add <8 x i64>"), "{v}");
    // The sum, read after the loop, is each lane's own.
    assert!(v.contains("%kept = select <8 x i1>"), "{v}");
}

#[test]
fn a_grid_stride_loop_runs_first_as_a_copy_every_lane_stays_in() {
    let v = vector_text(&grid_stride_loop(false), 8);
    // The copy stays while the group's last work-item would: `i - lid`,
    // the same in every lane, plus the local size less one, below `n`.
    assert!(v.contains("%group.first = sub i128"), "{v}");
    assert!(v.contains("%all.stay = icmp ult i128 %group.last"), "{v}");
    assert!(
        v.contains("br i1 %all.stay, label %body.all, label %head.rest"),
        "{v}"
    );
    // Its lanes read one whole vector, unmasked; the loop after it, from
    // the copy's `i` and sum on, masks what it reads.
    let copy = &v[v.find("body.all:").unwrap()..];
    let copy = &copy[..copy.find("\n\n").unwrap()];
    assert!(copy.contains("load <8 x float>, ptr"), "{copy}");
    assert!(!copy.contains("masked"), "{copy}");
    assert!(v.contains("@llvm.masked.load.v8f32"), "{v}");
    assert!(v.contains("head.rest:"), "{v}");
}

/// `if (gid < n) do { sum += in[i]; i += size; } while (i < n)`, as loop
/// rotation leaves a loop: the test at the end of the iteration, on 32-bit
/// signed values.
fn rotated_grid_stride_loop() -> String {
    format!(
        "{HEAD}
define void @k(ptr %in, ptr %out, i32 %n, i32 %size) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %gid = trunc i64 %lid to i32
  %any = icmp slt i32 %gid, %n
  br i1 %any, label %loop, label %done
loop:
  %i = phi i32 [ %gid, %entry ], [ %i1, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum1, %loop ]
  %i64 = sext i32 %i to i64
  %p = getelementptr float, ptr %in, i64 %i64
  %x = load float, ptr %p, align 4
  %sum1 = fadd float %sum, %x
  %i1 = add nsw i32 %i, %size
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %after
after:
  %sum.out = phi float [ %sum1, %loop ]
  br label %done
done:
  %s = phi float [ 0.0, %entry ], [ %sum.out, %after ]
  %q = getelementptr float, ptr %out, i64 %lid
  store float %s, ptr %q, align 4
  ret void
}}"
    )
}

/// How many loops of `@k` `group_loops` splits, by its shapes.
fn split_loops(ir: &Ir) -> usize {
    unsafe {
        let k = ir.function("k");
        let cfg = Cfg::of(k);
        let insts = instructions_in(&cfg, &reverse_post_order(&cfg));
        let shapes = shapes(ir.m, &insts, &HashSet::new(), None).unwrap();
        group_loops::split(ir.m, k, &shapes)
    }
}

#[test]
fn a_loop_testing_at_its_end_goes_on_from_the_copy_or_leaves_with_its_values() {
    let src = rotated_grid_stride_loop();
    // The scalar kernel split: the copy's test in 64 bits, exact; the loop
    // after it tests the copy's `i` again, and the exit takes the copy's
    // sum where the loop does not run again.
    let ir = Ir::parse(&src);
    assert_eq!(split_loops(&ir), 1);
    unsafe { compiler::llvm::verify(ir.m).unwrap() };
    let text = ir.text();
    assert!(
        text.contains("%all.stay = icmp slt i64 %group.last"),
        "{text}"
    );
    assert!(
        text.contains("br i1 %all.stay, label %loop.all, label %loop.rest"),
        "{text}"
    );
    assert!(
        text.contains("br i1 %more.all, label %loop, label %after"),
        "{text}"
    );
    // The loop leaves through a block of its own, a plain branch on.
    assert!(
        text.contains("br i1 %more, label %loop, label %loop.left"),
        "{text}"
    );
    assert!(text.contains("[ %sum1.all, %loop.rest ]"), "{text}");
    assert!(
        text.contains("%i = phi i32 [ %i1.all, %loop.rest ], [ %i1, %loop ]"),
        "{text}"
    );
    // And its vector form: the copy reads under the lanes the test before
    // the loop let in, the same every iteration; it computes no mask of
    // its own, nor keeps the sum of lanes that left.
    let v = vector_text(&src, 8);
    let copy = &v[v.find("loop.all:").unwrap()..];
    let copy = &copy[..copy.find("\n\n").unwrap()];
    assert!(
        copy.contains("@llvm.masked.load.v8f32.p0(ptr align 4 %p.all, <8 x i1> %any,"),
        "{copy}"
    );
    assert!(!copy.contains("select <8 x i1>"), "{copy}");
    assert!(!copy.contains("staying"), "{copy}");
    assert!(v.contains("loop.left:"), "{v}");
}

#[test]
fn loops_of_other_tests_are_not_split() {
    // A test of a value two apart from lane to lane: the copy's test would
    // differ between lanes too.
    let v = vector_text(
        &grid_stride_loop(false)
            .replace(
                "%i = phi i64 [ %lid, %entry ]",
                "%i = phi i64 [ %lid2, %entry ]",
            )
            .replace(
                "br label %head\nhead:",
                "%lid2 = shl i64 %lid, 1\n  br label %head\nhead:",
            ),
        8,
    );
    assert!(!v.contains("all.stay"), "{v}");
    // A loop that tests `!=`.
    let v = vector_text(
        &grid_stride_loop(false).replace("icmp ult i64 %i, %n", "icmp ne i64 %i, %n"),
        8,
    );
    assert!(!v.contains("all.stay"), "{v}");
    // A loop the same for every lane needs no copy.
    let v = vector_text(&gemm_row(), 8);
    assert!(!v.contains("all.stay"), "{v}");
    // Nor is a loop whose work-items meet (a sub-group barrier) copied.
    let src = grid_stride_loop(false)
        .replace(
            "%sum1 = fadd float %sum, %x",
            "%sum1 = fadd float %sum, %x\n  call void @__mux_sub_group_barrier(i32 0, i32 0, i32 0)",
        )
        .replace("define void @k(", "declare void @__mux_sub_group_barrier(i32, i32, i32)\ndefine void @k(");
    assert_eq!(split_loops(&Ir::parse(&src)), 0);
}

#[test]
fn a_loop_striding_pages_prefetches_the_lines_its_lanes_read_later() {
    // The grid-stride loop stepped by a size known at run time: a
    // prefetch of the lines 8 iterations on where the step is a page or
    // more, of the line being read otherwise.
    let src = grid_stride_loop(false).replace(
        "define void @k(ptr %in, ptr %out, i64 %n)",
        "define void @k(ptr %in, ptr %out, i64 %n, i64 %size)",
    );
    let v = vector_text(
        &src.replace("%i1 = add i64 %i, 64", "%i1 = add i64 %i, %size"),
        8,
    );
    assert!(v.contains("%step.bytes = mul i64 %size, 4"), "{v}");
    assert!(
        v.contains("%strides.far = icmp sge i64 %step.bytes, 4096"),
        "{v}"
    );
    assert!(v.contains("select i1 %strides.far, i64"), "{v}");
    // Eight floats are one line (in the copy every lane stays in, and in
    // the loop after it).
    assert_eq!(v.matches("call void @llvm.prefetch.p0").count(), 2, "{v}");
    // Thirty-two are two.
    let v = vector_text(
        &src.replace("%i1 = add i64 %i, 64", "%i1 = add i64 %i, %size"),
        32,
    );
    assert_eq!(v.matches("call void @llvm.prefetch.p0").count(), 4, "{v}");
}

#[test]
fn loops_of_a_near_step_or_no_induction_prefetch_nothing() {
    // 64 floats a step: the CPU's own prefetchers follow it.
    let v = vector_text(&grid_stride_loop(false), 8);
    assert!(!v.contains("prefetch"), "{v}");
    // `b[k * 64 + lid]` is not an induction of the loop.
    let v = vector_text(&gemm_row(), 8);
    assert!(!v.contains("prefetch"), "{v}");
}

#[test]
fn an_induction_whose_value_outlives_the_loop_is_kept_per_lane() {
    // `t`, computed from `i`, is read after the loop: a lane that left
    // keeps its own, from the iteration it left in, while `i` steps on as
    // one scalar.
    let v = vector_text(&grid_stride_loop(true), 8);
    assert!(v.contains("%left.with = phi <8 x i64>"), "{v}");
    assert!(v.contains("select <8 x i1> %active, <8 x i64>"), "{v}");
    assert!(!v.contains("select <8 x i1> %staying, <8 x i64>"), "{v}");
}

#[test]
fn a_guarded_store_to_one_place_stores_the_last_lane_taking_it() {
    // `if (lid == 0) partial[0] = x`, and a varying value stored there
    // by the lanes of `x > 0`.
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p, ptr %out) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %pa, align 4
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %join
then:
  store float %x, ptr %out, align 4
  br label %join
join:
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("@llvm.ctlz.i8"), "{v}");
    assert!(v.contains("extractelement <8 x float>"), "{v}");
    assert!(v.contains("store float %last, ptr %out"), "{v}");
}

#[test]
fn a_guarded_block_runs_for_its_lanes_when_any_takes_it() {
    let v = vector_text(
        &format!(
            "{HEAD}
@fmt = private addrspace(2) constant [4 x i8] c\"%f\\0A\\00\"
declare i32 @printf(ptr addrspace(2), ...)
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %pa, align 4
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %then, label %join
then:
  %pq = getelementptr float, ptr %q, i64 %lid
  %y = load float, ptr %pq, align 4
  %neg = fneg float %y
  store float %neg, ptr %pq, align 4
  %d = fpext float %y to double
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, double %d), !ferrocl.printf.id !0
  br label %join
join:
  %z = phi float [ %x, %entry ], [ %neg, %then ]
  store float %z, ptr %pa, align 4
  ret void
}}
!0 = !{{i32 0}}"
        ),
        4,
    );
    // The block runs if any lane's condition holds ...
    assert!(
        v.contains("@llvm.vector.reduce.or.v4i1(<4 x i1> %c)"),
        "{v}"
    );
    // ... its memory accesses for those lanes only ...
    assert!(v.contains("@llvm.masked.load.v4f32"), "{v}");
    assert!(v.contains("@llvm.masked.store.v4f32"), "{v}");
    // ... printf once per lane that takes it, in lane order ...
    assert_eq!(
        v.matches("call i32 (ptr addrspace(2), ...) @printf")
            .count(),
        4,
        "{v}"
    );
    assert_eq!(v.matches("!ferrocl.printf.id").count(), 4, "{v}");
    assert!(v.contains("extractelement <4 x i1> %c, i32 3"), "{v}");
    // ... and the join takes its value where the lane ran it.
    assert!(v.contains("select <4 x i1> %c, <4 x float>"), "{v}");
    assert!(v.contains("phi <4 x float>"), "{v}");
}

#[test]
fn an_if_else_runs_each_arm_for_its_lanes_and_the_join_chooses_by_arm() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %pa, align 4
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %then, label %else
then:
  %neg = fneg float %x
  %pq = getelementptr float, ptr %q, i64 %lid
  store float %neg, ptr %pq, align 4
  br label %join
else:
  %twice = fmul float %x, 2.0
  store float %twice, ptr %pa, align 4
  br label %join
join:
  %z = phi float [ %neg, %then ], [ %twice, %else ]
  %pz = getelementptr float, ptr %q, i64 %lid
  %old = load float, ptr %pz, align 4
  %sum = fadd float %old, %z
  store float %sum, ptr %pz, align 4
  ret void
}}"
        ),
        4,
    );
    // The then block runs if any lane's condition holds, the else block
    // after it if any lane's does not, each storing for its own lanes ...
    assert!(
        v.contains("@llvm.vector.reduce.or.v4i1(<4 x i1> %c)"),
        "{v}"
    );
    assert!(
        v.contains("%guarded = xor <4 x i1> %c, splat (i1 true)"),
        "{v}"
    );
    assert!(
        v.contains("@llvm.vector.reduce.or.v4i1(<4 x i1> %guarded)"),
        "{v}"
    );
    assert_eq!(
        v.matches("call void @llvm.masked.store.v4f32").count(),
        2,
        "{v}"
    );
    assert!(v.contains("br i1 %2, label %then, label %else.test"), "{v}");
    assert!(v.contains("br i1 %6, label %else, label %join"), "{v}");
    // ... the then block goes on to the else test ...
    let then = &v[v.find("\nthen:").expect(&v)..];
    assert!(
        then[..then.find("\n\n").unwrap()].contains("br label %else.test"),
        "{v}"
    );
    // ... and the join takes each lane's value from its arm.
    assert!(
        v.contains("%from.then = phi <4 x float> [ %neg, %then ], [ zeroinitializer, %entry ]"),
        "{v}"
    );
    assert!(
        v.contains("%arms = select <4 x i1> %guarded, <4 x float> %twice, <4 x float> %from.then"),
        "{v}"
    );
    assert!(
        v.contains("phi <4 x float> [ %from.then, %else.test ], [ %arms, %else ]"),
        "{v}"
    );
    // The unmasked store after the join is whole.
    assert!(v.contains("store <4 x float> %sum"), "{v}");
}

#[test]
fn printf_in_a_loop_or_twice_is_declined() {
    let head = format!(
        "{HEAD}
@fmt = private addrspace(2) constant [4 x i8] c\"%d\\0A\\00\"
declare i32 @printf(ptr addrspace(2), ...)"
    );
    let twice = Ir::parse(&format!(
        "{head}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %a = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  %b = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  ret void
}}"
    ));
    let err = vectorize(&twice, 4).unwrap_err();
    assert!(err.contains("more than one printf"), "{err}");
    let looped = Ir::parse(&format!(
        "{head}
define void @k(ptr %p, i32 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %a = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}"
    ));
    let err = vectorize(&looped, 4).unwrap_err();
    assert!(err.contains("printf call in a loop"), "{err}");
}

#[test]
fn a_generic_pointer_cast_from_a_contiguous_one_is_still_contiguous() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr addrspace(1) %p, ptr addrspace(1) %o) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %g = addrspacecast ptr addrspace(1) %p to ptr addrspace(4)
  %q = getelementptr float, ptr addrspace(4) %g, i64 %lid
  %x = load float, ptr addrspace(4) %q, align 4
  %r = getelementptr float, ptr addrspace(1) %o, i64 %lid
  %rg = addrspacecast ptr addrspace(1) %r to ptr addrspace(4)
  store float %x, ptr addrspace(4) %rg, align 4
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("load <8 x float>, ptr addrspace(4)"), "{v}");
    assert!(v.contains("store <8 x float> "), "{v}");
    assert!(!v.contains("masked"), "{v}");
}

/// Booleans a work-item keeps in memory, a byte each (as the barriers
/// pass keeps a value live across a barrier): a vector of them packs its
/// lanes into bits, so the vector form goes through bytes, contiguous,
/// masked or gathered, and each lane reads the byte its work-item wrote.
#[test]
fn booleans_in_memory_take_a_byte_per_lane_as_the_work_items_do() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %flags, ptr %out, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %odd = trunc i64 %lid to i1
  %f = getelementptr i1, ptr %flags, i64 %lid
  store i1 %odd, ptr %f, align 1
  %in = icmp ult i64 %lid, %n
  br i1 %in, label %then, label %done
then:
  %back = load i1, ptr %f, align 1
  %sq = mul i64 %lid, %lid
  %g = getelementptr i1, ptr %flags, i64 %sq
  %other = load i1, ptr %g, align 1
  %both = and i1 %back, %other
  %o = getelementptr i1, ptr %out, i64 %lid
  store i1 %both, ptr %o, align 1
  br label %done
done:
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("store <8 x i8> "), "{v}");
    assert!(v.contains("@llvm.masked.load.v8i8"), "{v}");
    assert!(v.contains("@llvm.masked.gather.v8i8"), "{v}");
    assert!(v.contains("@llvm.masked.store.v8i8"), "{v}");
    for packed in [
        "store <8 x i1>",
        "load <8 x i1>",
        "masked.load.v8i1",
        "masked.gather.v8i1",
    ] {
        assert!(!v.contains(packed), "{packed} in {v}");
    }
}

/// An assumption about each work-item's values (`__builtin_assume`, and
/// what SYCL's compiler and LLVM's passes put in) is a hint the vector
/// form does without: the kernel vectorizes, the assumption gone.
#[test]
fn an_assumption_about_each_work_item_is_dropped() {
    let v = vector_text(
        &format!(
            "{HEAD}
declare void @llvm.assume(i1)
define void @k(ptr %p, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %in = icmp ult i64 %lid, %n
  call void @llvm.assume(i1 %in)
  %q = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %q, align 4
  %y = fmul float %x, 2.0
  store float %y, ptr %q, align 4
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("load <8 x float>"), "{v}");
    assert!(!v.contains("llvm.assume"), "{v}");
}

/// A kernel whose every store is a scatter, 40 of them: at 16 lanes its
/// vector form is made, at 32 (1,280 lanes, each an access of its own on
/// most CPUs) it is declined.
#[test]
fn a_form_of_too_many_scattered_lanes_is_declined() {
    let stores: String = (0..40)
        .map(|k| {
            format!(
                "  %p{k} = getelementptr i8, ptr %q, i64 {k}\n  store i8 {k}, ptr %p{k}, align 1\n"
            )
        })
        .collect();
    let src = format!(
        "{HEAD}
define void @k(ptr %a) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %at = mul i64 %lid, 40
  %q = getelementptr i8, ptr %a, i64 %at
{stores}  ret void
}}"
    );
    assert!(vector_text(&src, 16).contains("@llvm.masked.scatter.v16i8"));
    let ir = Ir::parse(&src);
    let why = vectorize(&ir, 32).unwrap_err();
    assert!(why.contains("1280 lanes of gathers and scatters"), "{why}");
}

/// A division under a guard against a zero divisor: the vector form runs
/// it for every lane, the lanes the guard keeps out dividing by 1.
#[test]
fn a_guarded_division_divides_the_lanes_left_out_by_one() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %a, ptr %b) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pb = getelementptr i32, ptr %b, i64 %lid
  %d = load i32, ptr %pb, align 4
  %nz = icmp ne i32 %d, 0
  br i1 %nz, label %then, label %done
then:
  %pa = getelementptr i32, ptr %a, i64 %lid
  %x = load i32, ptr %pa, align 4
  %q = srem i32 %x, %d
  store i32 %q, ptr %pa, align 4
  br label %done
done:
  ret void
}}"
        ),
        8,
    );
    let select = v
        .lines()
        .find(|l| l.contains("%divisor = select"))
        .unwrap_or_else(|| panic!("no divisor chosen by lane in {v}"));
    assert!(select.contains("<8 x i32> splat (i32 1)"), "{select}");
    assert!(
        v.contains("srem <8 x i32> ") && v.contains(", %divisor\n"),
        "{v}"
    );
}

#[test]
fn an_address_that_is_not_affine_is_a_gather_and_a_scatter() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %sq = mul i64 %lid, %lid
  %q = getelementptr float, ptr %p, i64 %sq
  %x = load float, ptr %q, align 4
  %three = mul i64 %lid, 3
  %r = getelementptr float, ptr %p, i64 %three
  store float %x, ptr %r, align 4
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("@llvm.masked.gather.v8f32"), "{v}");
    // A stride of 3 floats is not contiguous either.
    assert!(v.contains("@llvm.masked.scatter.v8f32"), "{v}");
    // Computed indices are tested for consecutive lanes at run time,
    // the gather kept for when they are not; a constant stride is not.
    assert_eq!(v.matches("@llvm.vector.reduce.and").count(), 2, "{v}");
    assert!(v.contains("load <8 x float>, ptr %first"), "{v}");
    assert!(!v.contains("store <8 x float>"), "{v}");
}

#[test]
fn consecutive_lanes_are_tested_on_the_index_without_its_uniform_part() {
    let v = vector_text(
        &format!(
            "{HEAD}
declare i32 @llvm.smax.i32(i32, i32)
define void @k(ptr %p, ptr %q, i32 %row) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %x = trunc i64 %lid to i32
  %c = call i32 @llvm.smax.i32(i32 %x, i32 3)
  %i = add nsw i32 %c, %row
  %i64 = sext i32 %i to i64
  %pa = getelementptr float, ptr %p, i64 %i64
  %v = load float, ptr %pa, align 4
  %pq = getelementptr float, ptr %q, i64 %i64
  store float %v, ptr %pq, align 4
  ret void
}}"
        ),
        4,
    );
    // The clamped x itself is compared with x0 + <0, 1, 2, 3>.
    assert!(v.contains("icmp eq <4 x i32> %c"), "{v}");
    assert!(v.contains("<i32 0, i32 1, i32 2, i32 3>"), "{v}");
    assert!(v.contains("load <4 x float>, ptr %first"), "{v}");
    assert!(v.contains("store <4 x float>"), "{v}");
    assert!(v.contains("@llvm.masked.gather.v4f32"), "{v}");
    assert!(v.contains("@llvm.masked.scatter.v4f32"), "{v}");
}

/// An if/else whose then part is two blocks.
fn if_else_of_two_then_blocks() -> String {
    format!(
        "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %odd = trunc i64 %lid to i1
  %q = getelementptr float, ptr %p, i64 %lid
  br i1 %odd, label %then, label %else
then:
  store float 1.0, ptr %q, align 4
  br label %then.more
then.more:
  store float 3.0, ptr %q, align 4
  br label %out
else:
  store float 2.0, ptr %q, align 4
  br label %out
out:
  ret void
}}"
    )
}

#[test]
fn an_if_else_of_regions_runs_each_part_for_its_lanes() {
    let v = vector_text(&if_else_of_two_then_blocks(), 4);
    // Both blocks of the then part store for the odd lanes, the else
    // block for the others, after the test of whether any takes it.
    let mask_of = |value: &str| {
        let line = v
            .lines()
            .find(|l| l.contains("@llvm.masked.store") && l.contains(value))
            .unwrap_or_else(|| panic!("no masked store of {value}:\n{v}"));
        line.rsplit("<4 x i1> ")
            .next()
            .unwrap()
            .trim_end_matches(')')
            .to_string()
    };
    let then_mask = mask_of("float 1.0");
    assert!(then_mask.starts_with("%odd"), "{v}");
    assert_eq!(mask_of("float 3.0"), then_mask, "{v}");
    assert_eq!(mask_of("float 2.0"), "%guarded", "{v}");
    assert!(v.contains("else.test:"), "{v}");
}

#[test]
fn a_branch_work_items_take_differently_is_declined() {
    // A switch on the local id.
    let ir = Ir::parse(&format!(
        "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %q = getelementptr float, ptr %p, i64 %lid
  %r = and i64 %lid, 3
  switch i64 %r, label %out [
    i64 0, label %zero
    i64 1, label %one
  ]
zero:
  store float 1.0, ptr %q, align 4
  br label %out
one:
  store float 2.0, ptr %q, align 4
  br label %out
out:
  ret void
}}"
    ));
    let err = vectorize(&ir, 4).unwrap_err();
    assert!(err.contains("differently"), "{err}");
    // Nothing is left behind.
    assert!(!ir.text().contains("@k.v4"));
}

/// `n = 0; while (n < lid) { p[lid] += 1; n++ }; q[lid] = n`, with
/// `extra` as a second exit.
fn escape(extra: bool) -> String {
    let (test, more) = if extra {
        (
            "br i1 %go, label %check, label %out",
            "check:\n  %big = icmp ugt i64 %n, 100\n  br i1 %big, label %out, label %body",
        )
    } else {
        ("br i1 %go, label %body, label %out", "")
    };
    format!(
        "{HEAD}
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %head
head:
  %n = phi i64 [ 0, %entry ], [ %n1, %body ]
  %go = icmp ult i64 %n, %lid
  {test}
{more}
body:
  %at = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %at, align 4
  %x1 = fadd float %x, 1.0
  store float %x1, ptr %at, align 4
  %n1 = add i64 %n, 1
  br label %head
out:
  %f = uitofp i64 %n to float
  %to = getelementptr float, ptr %q, i64 %lid
  store float %f, ptr %to, align 4
  ret void
}}"
    )
}

#[test]
fn a_loop_left_on_a_varying_condition_runs_under_a_mask() {
    let v = vector_text(&escape(false), 4);
    // The counter steps on as one scalar; what each lane read after the
    // loop is the count it left with, kept from the iteration it left in.
    assert!(v.contains("phi i64 [ 0, %entry ]"), "{v}");
    assert!(v.contains("%left.with = phi <4 x i64>"), "{v}");
    assert!(v.contains("select <4 x i1> %active, <4 x i64>"), "{v}");
    assert!(v.contains("%active = phi <4 x i1>"), "{v}");
    // The loop goes round while any lane stays.
    assert!(v.contains("@llvm.vector.reduce.or.v4i1"), "{v}");
    // Only the lanes that stayed read and write p.
    assert!(v.contains("@llvm.masked.load.v4f32"), "{v}");
    assert!(v.contains("@llvm.masked.store.v4f32"), "{v}");
    // After the loop every lane stores its own count.
    assert!(v.contains("store <4 x float>"), "{v}");
}

#[test]
fn a_divergent_loop_with_two_exits_to_one_place_is_left_once_under_a_mask() {
    let v = vector_text(&escape(true), 4);
    // Both exits meet at the end of the iteration, the loop's one test.
    assert!(v.contains("iteration.end:"), "{v}");
    assert!(v.contains("%active = phi <4 x i1>"), "{v}");
    assert!(v.contains("%staying = and <4 x i1> %active"), "{v}");
}

/// `for (j = 0; j < lid; j++) for (k = 0; k < j + lid; k++) s += p[k + lid];`
/// then `q[lid] = s`: a loop work-items leave apart inside another.
const NESTED_DIVERGENT: &str = r#"
define void @k(ptr %p, ptr %q) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %outer
outer:
  %j = phi i64 [ 0, %entry ], [ %j1, %outer.latch ]
  %s = phi float [ 0.0, %entry ], [ %s.in, %outer.latch ]
  %go = icmp ult i64 %j, %lid
  br i1 %go, label %inner.pre, label %out
inner.pre:
  %m = add i64 %j, %lid
  br label %inner
inner:
  %k = phi i64 [ 0, %inner.pre ], [ %k1, %inner.body ]
  %t = phi float [ %s, %inner.pre ], [ %t1, %inner.body ]
  %more = icmp ult i64 %k, %m
  br i1 %more, label %inner.body, label %outer.latch
inner.body:
  %kl = add i64 %k, %lid
  %at = getelementptr float, ptr %p, i64 %kl
  %x = load float, ptr %at, align 4
  %t1 = fadd float %t, %x
  %k1 = add i64 %k, 1
  br label %inner
outer.latch:
  %s.in = phi float [ %t, %inner ]
  %j1 = add i64 %j, 1
  br label %outer
out:
  %to = getelementptr float, ptr %q, i64 %lid
  store float %s, ptr %to, align 4
  ret void
}
"#;

#[test]
fn a_divergent_loop_inside_another_starts_from_the_lanes_that_stayed_in_it() {
    let v = vector_text(&format!("{HEAD}{NESTED_DIVERGENT}"), 4);
    // Two masks: the inner loop's lanes on entry are the outer loop's
    // that stayed, and its loads are masked by its own lanes (a lane that
    // left the outer loop would read where it never read).
    let actives = v.matches("= phi <4 x i1>").count();
    assert!(actives >= 2, "{v}");
    let inner = &v[v.find("\ninner:").expect("the inner loop")..];
    let active = inner
        .lines()
        .find(|l| l.contains("phi <4 x i1>"))
        .expect(&v);
    assert!(active.contains("[ %staying, %inner.pre ]"), "{active}\n{v}");
    assert!(v.contains("@llvm.masked.load.v4f32"), "{v}");
}

#[test]
fn a_divergent_loop_leaving_to_two_places_keeps_where_each_lane_left() {
    let src = escape(true)
        .replace(
            "br i1 %big, label %out, label %body",
            "br i1 %big, label %gone, label %body",
        )
        .replace(
            "out:\n",
            "gone:\n  %none = getelementptr float, ptr %q, i64 %lid\n  \
             store float -1.0, ptr %none, align 4\n  br label %done\nout:\n",
        )
        .replace("  ret void\n}", "  br label %done\ndone:\n  ret void\n}");
    let v = vector_text(&src, 4);
    // Left once; which way each lane left is kept from the iteration it
    // left in, not taken from the last one, and the lanes go their ways.
    assert!(v.contains("%staying = and <4 x i1> %active"), "{v}");
    assert!(v.contains("%left.with = phi <4 x i32>"), "{v}");
    assert!(v.contains("select <4 x i1> %active, <4 x i32>"), "{v}");
    assert!(v.contains("loop.exit:"), "{v}");
}

#[test]
fn vector_values_are_held_lane_after_lane() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p, ptr %q, i1 %u) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr <4 x float>, ptr %p, i64 %lid
  %v = load <4 x float>, ptr %pa, align 16
  %s = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %x = extractelement <4 x float> %v, i64 1
  %y = fmul float %x, 2.0
  %w = insertelement <4 x float> %s, float %y, i64 0
  %odd = trunc i64 %lid to i1
  %z = select i1 %odd, <4 x float> %w, <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>
  %pq = getelementptr <4 x float>, ptr %q, i64 %lid
  store <4 x float> %z, ptr %pq, align 16
  ret void
}}"
        ),
        2,
    );
    // Two work-items' float4s are one contiguous <8 x float>.
    assert!(v.contains("load <8 x float>, ptr %pa"), "{v}");
    assert!(v.contains("store <8 x float>"), "{v}");
    // A swizzle reorders within each lane.
    assert!(
        v.contains("<8 x i32> <i32 3, i32 2, i32 1, i32 0, i32 7, i32 6, i32 5, i32 4>"),
        "{v}"
    );
    // Element 1 of each lane is a vector of two scalars.
    assert!(v.contains("<2 x i32> <i32 1, i32 5>"), "{v}");
    assert!(v.contains("fmul <2 x float>"), "{v}");
    // The scalar goes into element 0 of each lane.
    assert!(
        v.contains("<8 x i32> <i32 8, i32 1, i32 2, i32 3, i32 12, i32 5, i32 6, i32 7>"),
        "{v}"
    );
    // A work-item's condition chooses all four of its elements, and
    // the constant is the same in every lane.
    assert!(v.contains("select <8 x i1>"), "{v}");
    assert!(
        v.contains("<float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00, float 1.000000e+00"),
        "{v}"
    );
    assert!(!v.contains("gather") && !v.contains("scatter"), "{v}");
}

#[test]
fn vectors_at_other_strides_are_gathered_element_by_element() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %two = mul i64 %lid, 2
  %pa = getelementptr <2 x double>, ptr %p, i64 %two
  %v = load <2 x double>, ptr %pa, align 16
  %d = fadd <2 x double> %v, %v
  store <2 x double> %d, ptr %pa, align 16
  ret void
}}"
        ),
        4,
    );
    // Each lane's pointer, once per element, plus the element's offset.
    assert!(
        v.contains("<i64 0, i64 8, i64 0, i64 8, i64 0, i64 8, i64 0, i64 8>"),
        "{v}"
    );
    assert!(v.contains("@llvm.masked.gather.v8f64"), "{v}");
    assert!(v.contains("fadd <8 x double>"), "{v}");
    assert!(v.contains("@llvm.masked.scatter.v8f64"), "{v}");
}

#[test]
fn a_class_test_widens_on_its_operand() {
    let v = vector_text(
        &format!(
            "{HEAD}
declare i1 @llvm.is.fpclass.f64(double, i32)
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr double, ptr %p, i64 %lid
  %x = load double, ptr %pa, align 8
  %nan = call i1 @llvm.is.fpclass.f64(double %x, i32 3)
  %r = select i1 %nan, double 0.0, double %x
  store double %r, ptr %pa, align 8
  ret void
}}"
        ),
        8,
    );
    assert!(
        v.contains("<8 x i1> @llvm.is.fpclass.v8f64(<8 x double>"),
        "{v}"
    );
}

#[test]
fn private_arrays_are_kept_per_lane_element_by_element() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %p) {{
entry:
  %arr = alloca [4 x float], align 4
  call void @llvm.memset.p0.i64(ptr align 4 %arr, i8 0, i64 16, i1 false)
  %lid = call i64 @__mux_get_local_id(i32 0)
  %x = uitofp i64 %lid to float
  %second = getelementptr [4 x float], ptr %arr, i64 0, i64 1
  store float %x, ptr %second, align 4
  %i = and i64 %lid, 3
  %q = getelementptr [4 x float], ptr %arr, i64 0, i64 %i
  %y = load float, ptr %q, align 4
  %out = getelementptr float, ptr %p, i64 %lid
  store float %y, ptr %out, align 4
  ret void
}}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)"
        ),
        4,
    );
    // Four lanes' arrays, element by element: the fill covers them all,
    // element 1 is one vector at byte 16, and an index that differs
    // between lanes gathers.
    assert!(v.contains("%lanes = alloca [64 x i8], align 64"), "{v}");
    assert!(v.contains("i64 64, i1 false)"), "{v}");
    assert!(v.contains("store <4 x float> %"), "{v}");
    assert!(v.contains("@llvm.masked.gather.v4f32"), "{v}");
    assert!(!v.contains("alloca [4 x float]"), "{v}");
}

#[test]
fn a_private_array_whose_address_escapes_is_declined() {
    let ir = Ir::parse(&format!(
        "{HEAD}
define void @k(ptr %p) {{
entry:
  %arr = alloca [4 x float], align 4
  %lid = call i64 @__mux_get_local_id(i32 0)
  %i = and i64 %lid, 3
  %q = getelementptr [4 x float], ptr %arr, i64 0, i64 %i
  store float 1.0, ptr %q, align 4
  store ptr %arr, ptr %p, align 8
  ret void
}}"
    ));
    let err = vectorize(&ir, 4).unwrap_err();
    assert!(err.contains("does not keep per lane"), "{err}");
}

/// The column loop of a matrix product as a code generator's loop
/// strength reduction leaves it (LLVM's SPIR-V back end does): the
/// index sign-extended by shifts, the address a pointer induction.
fn gemm_column_reduced() -> String {
    format!(
        "{HEAD}
define void @k(ptr %b, ptr %c, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %hi = shl i64 %lid, 32
  %off = ashr exact i64 %hi, 30
  %p0 = getelementptr i8, ptr %b, i64 %off
  %step = shl i64 %n, 2
  br label %loop
loop:
  %left = phi i64 [ %n, %entry ], [ %left1, %loop ]
  %p = phi ptr [ %p0, %entry ], [ %p1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %y = load float, ptr %p, align 4
  %acc1 = fadd float %acc, %y
  %p1 = getelementptr i8, ptr %p, i64 %step
  %left1 = add i64 %left, -1
  %done = icmp eq i64 %left1, 0
  br i1 %done, label %out, label %loop
out:
  %pc = getelementptr float, ptr %c, i64 %lid
  store float %acc1, ptr %pc, align 4
  ret void
}}"
    )
}

#[test]
fn shifts_and_pointer_inductions_stay_affine() {
    let ir = Ir::parse(&gemm_column_reduced());
    let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
    let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
    let named = |n: &str| unsafe {
        let i = insts.iter().copied().find(|&i| llvm::name(i) == n).unwrap();
        shape_of(i, &shapes)
    };
    assert_eq!(named("hi"), Shape::Affine(1 << 32));
    assert_eq!(named("off"), Shape::Affine(4));
    assert_eq!(named("p"), Shape::Affine(4));
    assert_eq!(named("p1"), Shape::Affine(4));
    // Each lane's column is one vector load, with no test at run time.
    let v = vector_text(&gemm_column_reduced(), 8);
    assert!(v.contains("load <8 x float>, ptr"), "{v}");
    assert!(!v.contains("gather") && !v.contains("consecutive"), "{v}");
}

/// A region function (`passes::barriers`): the work-item's slot in the
/// storage block at its linear id, and the barrier reached returned.
fn region_function(ret: &str) -> String {
    format!(
        "{HEAD}
define i32 @k(ptr %out, i32 %region, ptr %storage, i64 %linear_id, ptr %staged) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %slot = getelementptr float, ptr %storage, i64 %linear_id
  %x = load float, ptr %slot, align 4
  %y = fadd float %x, 1.0
  %p = getelementptr float, ptr %out, i64 %lid
  store float %y, ptr %p, align 4
  {ret}
}}"
    )
}

#[test]
fn a_region_reads_its_lanes_slots_as_one_vector_and_returns_the_barrier_reached() {
    let ir = Ir::parse(&region_function("ret i32 1"));
    let v = unsafe { run_regions(ir.m, ir.function("k"), 8, 3, Forms::All) }.unwrap();
    unsafe { compiler::llvm::verify(ir.m).unwrap() };
    assert_eq!(unsafe { llvm::name(v) }, "k.v8");
    let text = ir.text();
    let text = &text[text.find("define internal i32 @k.v8").unwrap()..];
    assert!(text.contains("load <8 x float>, ptr %slot"), "{text}");
    assert!(text.contains("store <8 x float>"), "{text}");
    assert!(text.contains("ret i32 1"), "{text}");
}

#[test]
fn a_region_whose_lanes_would_return_apart_is_declined() {
    let ir = Ir::parse(&region_function("%r = trunc i64 %lid to i32\n  ret i32 %r"));
    let err = unsafe { run_regions(ir.m, ir.function("k"), 8, 3, Forms::All) }.unwrap_err();
    assert!(err.contains("returned value"), "{err}");
}

/// `for (i = lid; i < n; i += 64) { b = in[i]; if (b != 0) atomic_add(&bins[b & 7], b); }`:
/// a guarded block in a loop lanes leave apart, and an atomic in it whose
/// lanes may name one bin.
fn binned_sums() -> String {
    format!(
        "{HEAD}
define void @k(ptr %in, ptr %bins, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %head
head:
  %i = phi i64 [ %lid, %entry ], [ %i1, %join ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr i32, ptr %in, i64 %i
  %b = load i32, ptr %p, align 4
  %some = icmp ne i32 %b, 0
  br i1 %some, label %then, label %join
then:
  %bin = and i32 %b, 7
  %bin64 = zext i32 %bin to i64
  %at = getelementptr i32, ptr %bins, i64 %bin64
  %old = atomicrmw add ptr %at, i32 %b monotonic, align 4
  br label %join
join:
  %i1 = add i64 %i, 64
  br label %head
done:
  ret void
}}"
    )
}

#[test]
fn a_guarded_block_in_a_loop_lanes_leave_apart_runs_for_the_lanes_in_both() {
    let v = vector_text(&binned_sums(), 4);
    // The guard's lanes are those still in the loop whose value is not 0.
    assert!(v.contains("and <4 x i1> %some, %staying"), "{v}");
    assert!(v.contains("@llvm.vector.reduce.or.v4i1"), "{v}");
}

#[test]
fn an_atomic_is_made_lane_after_lane_for_the_lanes_that_reach_it() {
    let v = vector_text(&binned_sums(), 4);
    // One atomic per lane, each behind its lane's bit of the guard: in the
    // loop lanes leave apart, its lanes still in and whose value is not 0;
    // in the copy before it, which all lanes are in, those not 0.
    assert_eq!(v.matches("atomicrmw add ptr").count(), 8, "{v}");
    assert_eq!(
        v.matches("= extractelement <4 x i1> %guarded").count(),
        4,
        "{v}"
    );
    assert_eq!(
        v.matches("= extractelement <4 x i1> %some").count(),
        4,
        "{v}"
    );
    assert!(v.contains("atomic.lane"), "{v}");
    // An atomic of uniform operands is still each lane's own.
    let uniform = format!(
        "{HEAD}
define void @k(ptr %count, ptr %in) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %old = atomicrmw add ptr %count, i32 1 monotonic, align 4
  %k1 = add i32 %k, 1
  %again = icmp ult i32 %k1, 3
  br i1 %again, label %loop, label %out
out:
  ret void
}}"
    );
    let v = vector_text(&uniform, 4);
    assert_eq!(
        v.matches("atomicrmw add ptr %count, i32 1").count(),
        4,
        "{v}"
    );
}

#[test]
fn a_value_no_lane_needs_after_leaving_takes_its_new_value_in_every_lane() {
    // `while (n < 64 && z <= 4) { z = z * z + x; n++ } out = n`: z is
    // read only in the loop, by arithmetic and the exit test.
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %in, ptr %out) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pi = getelementptr float, ptr %in, i64 %lid
  %x = load float, ptr %pi, align 4
  br label %head
head:
  %n = phi i32 [ 0, %entry ], [ %n1, %body ]
  %z = phi float [ 0.0, %entry ], [ %z1, %body ]
  %few = icmp slt i32 %n, 64
  %small = fcmp ole float %z, 4.0
  %go = and i1 %few, %small
  br i1 %go, label %body, label %done
body:
  %z1 = call float @llvm.fmuladd.f32(float %z, float %z, float %x)
  %n1 = add i32 %n, 1
  br label %head
done:
  %po = getelementptr i32, ptr %out, i64 %lid
  store i32 %n, ptr %po, align 4
  ret void
}}"
        ),
        4,
    );
    // The count, read after the loop, is kept where a lane left; z is not.
    assert!(v.contains("%left.with = phi <4 x i32>"), "{v}");
    assert!(v.contains("select <4 x i1> %active, <4 x i32>"), "{v}");
    assert!(!v.contains("select <4 x i1> %staying, <4 x float>"), "{v}");
}

#[test]
fn a_value_that_goes_round_only_into_a_kept_phi_takes_its_new_value_in_every_lane() {
    // `while (n < 64 && z <= 4) { .. }` as an optimizer and
    // `single_exit_loops` leave it: the count a lane leaves with is a phi
    // of its own, `e`, chosen by the exit test from `z`, and the test is
    // a phi too. `e` is kept where a lane left; `z`, which reaches only
    // header phis on the way round, is not.
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %in, ptr %out) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pi = getelementptr float, ptr %in, i64 %lid
  %x = load float, ptr %pi, align 4
  br label %head
head:
  %n = phi i32 [ 0, %entry ], [ %n1, %body ]
  %z = phi float [ 0.0, %entry ], [ %z1, %body ]
  %e = phi i32 [ 0, %entry ], [ %e1, %body ]
  %go = phi i1 [ true, %entry ], [ %stay, %body ]
  br i1 %go, label %body, label %done
body:
  %big = fcmp ugt float %z, 4.0
  %z1 = call float @llvm.fmuladd.f32(float %z, float %z, float %x)
  %n1 = add i32 %n, 1
  %e1 = select i1 %big, i32 %n, i32 64
  %last = icmp eq i32 %n1, 64
  %leave = or i1 %big, %last
  %stay = xor i1 %leave, true
  br label %head
done:
  %po = getelementptr i32, ptr %out, i64 %lid
  store i32 %e, ptr %po, align 4
  ret void
}}"
        ),
        4,
    );
    assert!(v.contains("select <4 x i1> %staying, <4 x i32> %e1"), "{v}");
    assert!(!v.contains("select <4 x i1> %staying, <4 x float>"), "{v}");
}

/// `if (lid >= n) return;` before a loop each work-item leaves after `lid`
/// iterations, and a store after it: a region under a varying guard.
fn early_return_before_a_loop() -> String {
    format!(
        "{HEAD}
define void @k(ptr %a, ptr %o, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %skip = icmp uge i64 %lid, %n
  br i1 %skip, label %done, label %head
head:
  %j = phi i64 [ 0, %entry ], [ %j1, %head ]
  %s = phi float [ 0.0, %entry ], [ %s1, %head ]
  %p = getelementptr float, ptr %a, i64 %j
  %x = load float, ptr %p, align 4
  %s1 = fadd float %s, %x
  %j1 = add i64 %j, 1
  %more = icmp ult i64 %j1, %lid
  br i1 %more, label %head, label %after
after:
  %q = getelementptr float, ptr %o, i64 %lid
  store float %s1, ptr %q, align 4
  br label %done
done:
  ret void
}}"
    )
}

#[test]
fn a_region_under_a_varying_guard_runs_for_the_lanes_it_lets_in() {
    let v = vector_text(&early_return_before_a_loop(), 4);
    // Where the group's last work-item is not let in, the region runs when
    // any lane is; the loop in it starts from those lanes, and the store
    // after it is for them alone.
    assert!(
        v.contains("@llvm.vector.reduce.or.v4i1(<4 x i1> %guarded)"),
        "{v}"
    );
    assert!(
        v.contains("%active = phi <4 x i1> [ %guarded, %entry.some ]"),
        "{v}"
    );
    assert!(
        v.contains("@llvm.masked.store.v4f32.p0(<4 x float> %")
            && v.contains(", <4 x i1> %guarded)"),
        "{v}"
    );
}

#[test]
fn forms_expected_to_be_slower_are_made_only_when_all_are_asked_for() {
    // A branch lanes take apart inside a loop: every lane runs both paths
    // each iteration.
    let src = format!(
        "{HEAD}
define void @k(ptr %p, i32 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %at = getelementptr float, ptr %p, i64 %lid
  br label %head
head:
  %j = phi i32 [ 0, %entry ], [ %j1, %next ]
  %more = icmp slt i32 %j, %n
  br i1 %more, label %body, label %out
body:
  %x = load float, ptr %at, align 4
  %big = fcmp ogt float %x, 1.0
  br i1 %big, label %halve, label %next
halve:
  %h = fmul float %x, 0.5
  store float %h, ptr %at, align 4
  br label %next
next:
  %j1 = add i32 %j, 1
  br label %head
out:
  ret void
}}"
    );
    let ir = Ir::parse(&src);
    let err = unsafe { run(ir.m, ir.function("k"), 4, Forms::Paying) }.unwrap_err();
    assert!(err.contains("slower than the scalar form"), "{err}");
    let v = vector_text(&src, 4);
    assert!(v.contains("@llvm.masked.store.v4f32"), "{v}");
    // A loop lanes leave apart inside another loop.
    let ir = Ir::parse(&format!("{HEAD}{NESTED_DIVERGENT}"));
    let err = unsafe { run(ir.m, ir.function("k"), 4, Forms::Paying) }.unwrap_err();
    assert!(err.contains("slower than the scalar form"), "{err}");
    // One loop lanes leave apart, with nothing apart inside it, pays.
    let ir = Ir::parse(&escape(false));
    assert!(unsafe { run(ir.m, ir.function("k"), 4, Forms::Paying) }.is_ok());
}

/// `out[lid] = sin8(in[lid])`, a work-item's `float8` through a value form
/// whose two-work-item form is `@sin16`.
fn float8_sin() -> String {
    format!(
        "{HEAD}
define internal <8 x float> @sin8(<8 x float> %x) #0 {{
  ret <8 x float> %x
}}
define internal <16 x float> @sin16(<16 x float> %x) {{
  ret <16 x float> %x
}}
define void @k(ptr %in, ptr %out) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pi = getelementptr <8 x float>, ptr %in, i64 %lid
  %x = load <8 x float>, ptr %pi, align 32
  %y = call <8 x float> @sin8(<8 x float> %x)
  %po = getelementptr <8 x float>, ptr %out, i64 %lid
  store <8 x float> %y, ptr %po, align 32
  ret void
}}
attributes #0 = {{ \"ferrocl-wider-forms\"=\"_ZGV_LLVM_N2v_sin8(sin16)\" }}"
    )
}

#[test]
fn two_work_items_vector_math_call_is_one_call_of_the_form_twice_as_wide() {
    let v = vector_text(&float8_sin(), 2);
    // One call for both lanes' eight elements, lane 0's first.
    assert!(v.contains("call <16 x float> @sin16(<16 x float>"), "{v}");
    assert!(!v.contains("@sin8"), "{v}");
    assert!(v.contains("load <16 x float>"), "{v}");
    assert!(v.contains("store <16 x float>"), "{v}");
}

#[test]
fn a_vector_math_call_without_a_form_that_wide_is_declined() {
    let ir = Ir::parse(&float8_sin());
    let err = vectorize(&ir, 4).unwrap_err();
    assert!(err.contains("no form 4 times as wide"), "{err}");
}

/// `if (gid < n) o[gid] = a[gid] * 2` with `gid = group * 64 + lid`.
fn guarded_elementwise() -> String {
    format!(
        "{HEAD}
define void @k(ptr %a, ptr %o, i64 %group, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %base = mul i64 %group, 64
  %gid = add i64 %base, %lid
  %in = icmp ult i64 %gid, %n
  br i1 %in, label %body, label %done
body:
  %p = getelementptr float, ptr %a, i64 %gid
  %x = load float, ptr %p, align 4
  %y = fmul float %x, 2.0
  %q = getelementptr float, ptr %o, i64 %gid
  store float %y, ptr %q, align 4
  br label %done
done:
  ret void
}}"
    )
}

#[test]
fn a_guard_on_a_consecutive_id_runs_unmasked_where_the_whole_group_passes() {
    let v = vector_text(&guarded_elementwise(), 8);
    // The group's last work-item tested once, in a wider integer: where it
    // passes, plain vector accesses; otherwise the guard's masked ones.
    assert!(v.contains("%all.stay = icmp ult i128 %group.last"), "{v}");
    assert!(
        v.contains("br i1 %all.stay, label %body.all, label %entry.some"),
        "{v}"
    );
    let all = &v[v.find("\nbody.all:").expect("the copy")..];
    let all = &all[..all.find("\n\n").unwrap()];
    assert!(all.contains("load <8 x float>, ptr %p.all"), "{all}");
    assert!(all.contains("store <8 x float>"), "{all}");
    assert!(!all.contains("masked"), "{all}");
    let some = &v[v.find("\nbody:").expect("the guarded part")..];
    let some = &some[..some.find("\n\n").unwrap()];
    assert!(some.contains("@llvm.masked.load.v8f32"), "{some}");
    assert!(some.contains("@llvm.masked.store.v8f32"), "{some}");
}

#[test]
fn a_guard_that_may_let_in_work_items_apart_is_left_as_it_is() {
    // `gid * 2 < n` does not step by one: no copy.
    let src = guarded_elementwise().replace(
        "%in = icmp ult i64 %gid, %n",
        "%twice = shl i64 %gid, 1\n  %in = icmp ult i64 %twice, %n",
    );
    let v = vector_text(&src, 8);
    assert!(!v.contains("all.stay"), "{v}");
    assert!(v.contains("@llvm.masked.store.v8f32"), "{v}");
}

#[test]
fn a_guard_on_a_consecutive_id_and_a_uniform_test_runs_unmasked_where_both_pass() {
    // `if (gid < n && row < rows)`, as a front end leaves `&&`: a select.
    let src = guarded_elementwise()
        .replace("ptr %o, i64 %group, i64 %n)", "ptr %o, i64 %group, i64 %n, i32 %row, i32 %rows)")
        .replace(
            "%in = icmp ult i64 %gid, %n",
            "%inx = icmp ult i64 %gid, %n\n  %iny = icmp slt i32 %row, %rows\n  %in = select i1 %inx, i1 %iny, i1 false",
        );
    let v = vector_text(&src, 8);
    assert!(
        v.contains("%all.pass = select i1 %all.stay, i1 %iny, i1 false"),
        "{v}"
    );
    let all = &v[v.find("\nbody.all:").expect("the copy")..];
    let all = &all[..all.find("\n\n").unwrap()];
    assert!(!all.contains("masked"), "{all}");
}

/// `t[x & 255]` with `x` a value loaded per lane: a table lookup, gathered
/// with no test for consecutive lanes; `a[(lid + k) & 63]`, a ring buffer,
/// keeps the test, as its lanes mostly are consecutive.
#[test]
fn a_lookup_by_bits_of_data_is_gathered_untested_and_a_ring_buffer_tested() {
    let src = format!(
        "{HEAD}
define void @k(ptr %t, ptr %x, ptr %ring, ptr %o, i64 %k) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %px = getelementptr i32, ptr %x, i64 %lid
  %v = load i32, ptr %px, align 4
  %bits = and i32 %v, 255
  %bits64 = zext i32 %bits to i64
  %pt = getelementptr i32, ptr %t, i64 %bits64
  %e = load i32, ptr %pt, align 4
  %at = add i64 %lid, %k
  %wrapped = and i64 %at, 63
  %pr = getelementptr i32, ptr %ring, i64 %wrapped
  %r = load i32, ptr %pr, align 4
  %sum = add i32 %e, %r
  %po = getelementptr i32, ptr %o, i64 %lid
  store i32 %sum, ptr %po, align 4
  ret void
}}"
    );
    let v = vector_text(&src, 8);
    // One test, the ring buffer's; two gathers (the lookup, and the ring
    // buffer's slow path).
    assert_eq!(v.matches("\nconsecutive").count(), 1, "{v}");
    assert_eq!(
        v.matches("= call <8 x i32> @llvm.masked.gather").count(),
        2,
        "{v}"
    );
}

/// A select of elements by a constant vector condition (SROA's blend of a
/// `float3` into a `float4`) over values that differ between work-items:
/// the condition is repeated for each lane's elements.
#[test]
fn a_constant_vector_condition_picks_the_elements_of_every_lane() {
    let v = vector_text(
        &format!(
            "{HEAD}
define void @k(ptr %a, ptr %o) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr <4 x float>, ptr %a, i64 %lid
  %x = load <4 x float>, ptr %pa, align 16
  %y = fmul <4 x float> %x, splat (float 2.0)
  %b = select <4 x i1> <i1 true, i1 true, i1 true, i1 false>, <4 x float> %y, <4 x float> %x
  %po = getelementptr <4 x float>, ptr %o, i64 %lid
  store <4 x float> %b, ptr %po, align 16
  ret void
}}"
        ),
        8,
    );
    assert!(v.contains("select <32 x i1>"), "{v}");
}

/// How far apart neighbouring work-items' accesses are: 16 KiB for a
/// scratch area each (`v = scratch + lid * 4096` words), 4 bytes for one
/// `float` each.
#[test]
fn the_widest_lane_stride_is_that_of_the_farthest_apart_access() {
    let src = format!(
        "{HEAD}
define void @k(ptr %scratch, ptr %o, i64 %j) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %base = mul i64 %lid, 4096
  %at = add i64 %base, %j
  %pv = getelementptr i32, ptr %scratch, i64 %at
  %v = load i32, ptr %pv, align 4
  %po = getelementptr i32, ptr %o, i64 %lid
  store i32 %v, ptr %po, align 4
  ret void
}}"
    );
    let ir = Ir::parse(&src);
    assert_eq!(unsafe { widest_lane_stride(ir.m, ir.function("k")) }, 16384);
    let near = src.replace("%base = mul i64 %lid, 4096", "%base = add i64 %lid, 0");
    let ir = Ir::parse(&near);
    assert_eq!(unsafe { widest_lane_stride(ir.m, ir.function("k")) }, 4);
}
