__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    int v = y[g];
    uint4 b = sub_group_ballot(v & 1);
    i[g] = sub_group_reduce_add(v) + sub_group_scan_inclusive_min(v) + (int)sub_group_scan_exclusive_max((uint)v)
         + sub_group_broadcast(v, 1) + sub_group_any(v > 3) + (int)sub_group_ballot_bit_count(b)
         + (int)sub_group_ballot_find_msb(b) + sub_group_shuffle_xor(v, 1) + sub_group_shuffle_up(v, 1)
         + sub_group_clustered_reduce_max(v, 4) + sub_group_non_uniform_reduce_and(v) + sub_group_elect()
         + (int)get_sub_group_local_id() + (int)get_sub_group_id() + (int)get_sub_group_eq_mask().x;
    if (v & 2)
        f[g] = sub_group_non_uniform_scan_inclusive_mul(x[g]) + sub_group_broadcast_first(x[g]);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
}
