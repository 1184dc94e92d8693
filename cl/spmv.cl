/* q = A*p for the rows this device owns, with the partial sums of p'q, in three storage
 * forms: CSR scalar (one work-item per row), CSR vector (a team of VS work-items per
 * row, for long rows) and SELL-C (slices of C rows stored column by column).
 *
 * This file is compiled twice (see src/ocl_program.c):
 *   CLCG_FUSED == 0: kernels *_dot read p as it is (ghosts already exchanged).
 *   CLCG_FUSED == 1: kernels *_cg first check the stop test on the partial sums of
 *     r'r and r'z, then form p = z + beta*pprev on the fly (z = M^-1 r), write it for
 *     the owned rows and multiply with it: one pass instead of two, no host trip. */

#if CLCG_FUSED
#define KNAME(base) base##_cg
#define P_ARGS global const real *r, global const real *dinv, global const real *pprev, \
               global real *p, global const dsum *rz_cur, uint n_cur,                  \
               global const dsum *rz_prev, uint n_prev, global const dsum *rr_cur,      \
               uint n_rr, uint first, global real *scal, uint its
#define FETCH(j) (zval(r, dinv, (j)) + beta * pprev[(j)])
#define STORE_P(i, v) (p[(i)] = (v))
/* stop test and beta; every group computes the same values from the same partials.
 * Every work-item reaches every barrier: a stopped solver skips the work only. */
#define PROLOGUE                                                                       \
    const int live = scal[S_STOP] == 0;                                                \
    const real rz = sum_parts(rz_cur, n_cur, buf);                                     \
    const real rr = sum_parts(rr_cur, n_rr, buf);                                      \
    const real rzp = sum_parts(rz_prev, n_prev, buf); /* unused when first */          \
    real stop = 0;                                                                     \
    if (!isfinite(rr) || !isfinite(rz))                                                \
        stop = STOP_NANORINF;                                                          \
    else if (rr <= scal[S_TOL2])                                                       \
        stop = STOP_CONVERGED;                                                         \
    else if (!(rz > 0))                                                                \
        stop = STOP_BREAKDOWN;                                                         \
    if (live && get_global_id(0) == 0) {                                               \
        scal[S_RR] = rr;                                                               \
        scal[S_RZ] = rz;                                                               \
        if (stop != 0) {                                                               \
            scal[S_ITS] = its;                                                         \
            scal[S_STOP] = stop;                                                       \
        }                                                                              \
    }                                                                                  \
    const int go = live && stop == 0;                                                  \
    const real beta = go && !first ? rz / rzp : 0;
#else
#define KNAME(base) base##_dot
#define P_ARGS global const real *p
#define FETCH(j) p[(j)]
#define STORE_P(i, v) ((void)0)
#define PROLOGUE const int go = 1;
#endif

/* rows: NULL for rows 0..n-1, else the list of n row numbers to do (overlap split);
 * the group's partial p'q goes to part[part_off + group]. */
kernel void KNAME(spmv_csr_scalar)(uint n, global const uint *rows, global const uint *rowptr,
                                   global const uint *col, global const real *val, P_ARGS,
                                   global real *q, global dsum *part, uint part_off,
                                   local dsum *buf)
{
    PROLOGUE
    dsum spq = DSUM0;
    for (uint t = get_global_id(0); go && t < n; t += get_global_size(0)) {
        const uint i = rows ? rows[t] : t;
        const uint end = rowptr[i + 1];
        real s = 0;
        for (uint k = rowptr[i]; k < end; k++)
            s += val[k] * FETCH(col[k]);
        const real pi = FETCH(i);
        STORE_P(i, pi);
        q[i] = s;
        spq = dd_acc(spq, pi * s);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
}

/* A team of vs work-items (a power of two dividing the local size) per row. */
kernel void KNAME(spmv_csr_vector)(uint n, global const uint *rows, global const uint *rowptr,
                                   global const uint *col, global const real *val, P_ARGS,
                                   global real *q, global dsum *part, uint part_off, uint vs,
                                   local dsum *buf)
{
    PROLOGUE
    const uint lid = get_local_id(0), lane = lid & (vs - 1);
    const uint per_group = get_local_size(0) / vs;
    local real *rb = (local real *)buf;   /* the row sums' tree: one real per work-item */
    dsum spq = DSUM0;
    for (uint b = get_group_id(0) * per_group; go && b < n; b += get_num_groups(0) * per_group) {
        const uint t = b + lid / vs;
        uint i = 0;
        real s = 0;
        if (t < n) {
            i = rows ? rows[t] : t;
            const uint end = rowptr[i + 1];
            for (uint k = rowptr[i] + lane; k < end; k += vs)
                s += val[k] * FETCH(col[k]);
        }
        rb[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint w = vs / 2; w > 0; w >>= 1) {
            if (lane < w)
                rb[lid] += rb[lid + w];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (t < n && lane == 0) {
            const real pi = FETCH(i);
            STORE_P(i, pi);
            q[i] = rb[lid];
            spq = dd_acc(spq, pi * rb[lid]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
}

/* SELL-C: row i lies in slice i/C at lane i%C; its k-th entry at
 * sptr[i/C] + k*C + i%C; padding has value 0 and a valid column. */
kernel void KNAME(spmv_sell)(uint n, global const uint *rows, global const uint *sptr,
                             global const uint *col, global const real *val, P_ARGS,
                             global real *q, global dsum *part, uint part_off, uint C,
                             local dsum *buf)
{
    PROLOGUE
    dsum spq = DSUM0;
    for (uint t = get_global_id(0); go && t < n; t += get_global_size(0)) {
        const uint i = rows ? rows[t] : t;
        const uint s0 = i / C, lane = i - s0 * C;
        const uint beg = sptr[s0] + lane, end = sptr[s0 + 1];
        real s = 0;
        for (uint k = beg; k < end; k += C)
            s += val[k] * FETCH(col[k]);
        const real pi = FETCH(i);
        STORE_P(i, pi);
        q[i] = s;
        spq = dd_acc(spq, pi * s);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
}

#undef KNAME
#undef P_ARGS
#undef FETCH
#undef STORE_P
#undef PROLOGUE
