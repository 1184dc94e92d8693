/* q = A*p for the rows this device owns, with the partial sums of p'q, in four storage
 * forms: CSR scalar (one work-item per row), CSR vector (a team of VS work-items per
 * row, for long rows), SELL-C (slices of C rows stored column by column) and CSR stream
 * (blocks of rows with a bounded number of entries, for rows of widely varying length).
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
               uint n_rr, uint first, global real *scal, uint its, global dsum *rz_out
#define FETCH(j) (zval(r, dinv, (j)) + beta * pprev[(j)])
#define STORE_P(i, v) (p[(i)] = (v))
/* stop test and beta; every group computes the same values from the same partials.
 * Every work-item reaches every barrier: a stopped solver skips the work only.  r'z goes
 * to rz_out (unless NULL) as a (hi, lo) pair: the next kernels read it there as one
 * partial sum instead of adding up all of them again. */
#define PROLOGUE                                                                       \
    const int live = scal[S_STOP] == 0;                                                \
    const dsum rzd = sum_parts_dd(rz_cur, n_cur, buf);                                 \
    const real rz = rzd.x;                                                             \
    const real rr = sum_parts(rr_cur, n_rr, buf);                                      \
    const real rzp = sum_parts(rz_prev, n_prev, buf); /* unused when first */          \
    real stop = 0;                                                                     \
    if (!isfinite(rr) || !isfinite(rz))                                                \
        stop = STOP_NANORINF;                                                          \
    else if (rr <= scal[S_TOL2])                                                       \
        stop = STOP_CONVERGED;                                                         \
    else if (!(rz > 0))                                                                \
        stop = STOP_BREAKDOWN;                                                         \
    else if (scal[S_GROW2] > 0 && rz > scal[S_GROW2])                                  \
        stop = STOP_GREW;                                                              \
    if (live && get_global_id(0) == 0) {                                               \
        scal[S_RR] = rr;                                                               \
        scal[S_RZ] = rz;                                                               \
        if (rz_out)                                                                    \
            rz_out[0] = rzd;                                                           \
        if (stop != 0) {                                                               \
            scal[S_ITS] = its;                                                         \
            scal[S_STOP] = stop;                                                       \
        }                                                                              \
    }                                                                                  \
    const int go = live && stop == 0;                                                  \
    const real beta = go && !first ? rz / rzp : 0;
#define FIN_ARGS
#define FINISH
#else
#define KNAME(base) base##_dot
#define P_ARGS global const real *p
#define FETCH(j) p[(j)]
#define STORE_P(i, v) ((void)0)
#define PROLOGUE const int go = 1;
/* With a ticket (else NULL), the last work-group adds up the partial sums into fin[0]
 * (csr-stream excepted: see its kernel).
 * fin_n 0: the last of this launch, the partial sums part[0..part_off + groups) (those of
 * this launch and of the launches before it on the lower offsets: the interior rows, when
 * this one does the boundary rows).  Else fin_n work-groups of launches that may run at the
 * same time share the ticket (the interior and boundary rows, on two queues), and their
 * partial sums are part[0..fin_n): whichever group of them ends last adds them up. */
#define FIN_ARGS , global dsum *fin, volatile global uint *ticket, uint fin_n
#define FINISH                                                                         \
    if (last_group(ticket, buf, fin_n ? fin_n : get_num_groups(0))) {                  \
        const uint n_ = fin_n ? fin_n : part_off + get_num_groups(0);                  \
        const dsum all_ = sum_fresh_dd(part, n_, buf);                                 \
        if (get_local_id(0) == 0)                                                      \
            fin[0] = all_;                                                             \
    }
#endif

/* s += val[k] * FETCH(col[k]) for k = k0, k0+st, ... < end, added in that order (so the
 * sum is the same bits as the plain loop's).  Multiplying a given p, the loads of four
 * entries are issued together so that their gathers are in flight at once (H200, Poisson
 * 256^3: SELL 495 -> 468 us); forming p on the fly, the plain loop is faster (593 against
 * 734 us: the extra gathers and registers cost more than they hide).  CLCG_UNROLL=1 gives
 * the plain loop everywhere. */
#ifndef CLCG_UNROLL
#define CLCG_UNROLL 4
#endif
#if CLCG_UNROLL >= 4 && !CLCG_FUSED
#define ROW_SUM(s, k0, end, st, sm)                                                       \
    do {                                                                                  \
        const uint e_ = (end), st_ = (st);                                                \
        uint k_ = (k0);                                                                   \
        for (; k_ < e_ && e_ - k_ > 3 * st_; k_ += 4 * st_) {                             \
            const uint c0 = LDC(k_, sm), c1 = LDC(k_ + st_, sm);                          \
            const uint c2 = LDC(k_ + 2 * st_, sm), c3 = LDC(k_ + 3 * st_, sm);            \
            const real v0 = LDV(k_, sm), v1 = LDV(k_ + st_, sm);                          \
            const real v2 = LDV(k_ + 2 * st_, sm), v3 = LDV(k_ + 3 * st_, sm);            \
            const real f0 = FETCH(c0), f1 = FETCH(c1), f2 = FETCH(c2), f3 = FETCH(c3);    \
            s += v0 * f0;                                                                 \
            s += v1 * f1;                                                                 \
            s += v2 * f2;                                                                 \
            s += v3 * f3;                                                                 \
        }                                                                                 \
        for (; k_ < e_; k_ += st_)                                                        \
            s += LDV(k_, sm) * FETCH(LDC(k_, sm));                                        \
    } while (0)
#else
#define ROW_SUM(s, k0, end, st, sm)                                                       \
    do {                                                                                  \
        for (uint k_ = (k0); k_ < (end); k_ += (st))                                      \
            s += LDV(k_, sm) * FETCH(LDC(k_, sm));                                        \
    } while (0)
#endif

/* rows: NULL for rows 0..n-1, else the list of n row numbers to do (overlap split);
 * the group's partial p'q goes to part[part_off + group]. */
kernel void KNAME(spmv_csr_scalar)(uint n, global const uint *rows, global const uint *rowptr,
                                   global const uint *col, global const real *val, P_ARGS,
                                   global real *q, global dsum *part, uint part_off,
                                   local dsum *buf FIN_ARGS)
{
    PROLOGUE
    dsum spq = DSUM0;
    for (uint t = get_global_id(0); go && t < n; t += get_global_size(0)) {
        const uint i = rows ? rows[t] : t;
        const uint end = rowptr[i + 1];
        real s = 0;
        ROW_SUM(s, rowptr[i], end, 1, 0);
        const real pi = FETCH(i);
        STORE_P(i, pi);
        q[i] = s;
        spq = dd_acc(spq, pi * s);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
    FINISH
}

/* A team of vs work-items (a power of two dividing the local size) per row. */
kernel void KNAME(spmv_csr_vector)(uint n, global const uint *rows, global const uint *rowptr,
                                   global const uint *col, global const real *val, P_ARGS,
                                   global real *q, global dsum *part, uint part_off, uint vs,
                                   local dsum *buf FIN_ARGS)
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
            ROW_SUM(s, rowptr[i] + lane, end, vs, 0);
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
    FINISH
}

/* SELL-C: row i lies in slice i/C at lane i%C; its k-th entry at
 * sptr[i/C] + k*C + i%C; padding has value 0 and a valid column. */
kernel void KNAME(spmv_sell)(uint n, global const uint *rows, global const uint *sptr,
                             global const uint *col, global const real *val, P_ARGS,
                             global real *q, global dsum *part, uint part_off, uint C,
                             local dsum *buf FIN_ARGS)
{
    PROLOGUE
    dsum spq = DSUM0;
    for (uint t = get_global_id(0); go && t < n; t += get_global_size(0)) {
        const uint i = rows ? rows[t] : t;
        const uint s0 = i / C, lane = i - s0 * C;
        const uint beg = sptr[s0] + lane, end = sptr[s0 + 1];
        real s = 0;
        ROW_SUM(s, beg, end, C, 1);
        const real pi = FETCH(i);
        STORE_P(i, pi);
        q[i] = s;
        spq = dd_acc(spq, pi * s);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
    FINISH
}

/* CSR stream (row blocks): the host cuts the rows into blocks, each either a run of whole
 * rows with at most STREAM_CAP entries in all, or one longer row.  A work-group takes a
 * block: its entries' products val*p are read in one coalesced sweep into local memory,
 * then summed per row.  The order of a row's additions depends on the row alone, not on its
 * block or the launch shape, so q has the same bits however the rows are cut into blocks,
 * devices and ranks:
 *   up to STREAM_SEQ entries: by one work-item, in entry order (as the reference does);
 *   up to STREAM_CAP: by a team, in STREAM_TREE strided lanes (lane v: entries v, v+32, ..)
 *     and a tree over the lanes (stages w = 16, 8, .., 1: lane v += lane v+w);
 *   longer: a block of its own, in STREAM_LANES strided parts and a tree.
 * blk[b]..blk[b+1]: the rows of block b (nblk blocks). */
#ifndef STREAM_CAP
#define STREAM_CAP 2048
#endif
#ifndef STREAM_SEQ
#define STREAM_SEQ 128
#endif
#define STREAM_LANES 256
#define STREAM_TREE 32
/* STREAM_PRELOAD: a work-item loads its first row's bounds (and p there) before the sweep,
 * so those loads travel with the gathers instead of after the barrier.  STREAM_PAD: one
 * spare slot after every 16 products in local memory, so that work-items summing rows of
 * similar lengths side by side read different banks. */
#ifndef STREAM_PRELOAD
#define STREAM_PRELOAD 1
#endif
#ifndef STREAM_PAD
#define STREAM_PAD 0
#endif
/* STREAM_SUM2: a short row's sum reads its products two at a time from local memory (same
 * additions, same order).  STREAM_SHFL (NVIDIA): a team of 32 is one warp, and its tree runs
 * by register shuffles instead of local memory and a barrier a stage (same order).
 * STREAM_TEAM_REV: teams are taken from the last warp down, so the warps that have no short
 * rows in a block of few rows start on the longer ones at once (with STREAM_SHFL nothing
 * waits between the two phases).  STREAM_PREFETCH (NVIDIA): after its sweep, a work-group
 * asks L2 for the lines of its next block (bit 1: the values, bit 2: the columns), which
 * arrive while it adds up this block.  H200, random:5000000,16: 377 us without any of these,
 * 334 us with all (bench/RESULTS.md).  With longer rows the prefetch costs more than it
 * brings: the host builds without it from a mean of 24 entries a row (clcg_build_options). */
#ifndef STREAM_SUM2
#define STREAM_SUM2 1
#endif
#ifndef STREAM_SHFL
#define STREAM_SHFL 1
#endif
#ifndef STREAM_TEAM_REV
#define STREAM_TEAM_REV 1
#endif
#ifndef STREAM_PREFETCH
#define STREAM_PREFETCH 3
#endif
#if STREAM_PAD
#define SIX(k) ((k) + ((k) >> 4))
#else
#define SIX(k) (k)
#endif

/* A longer row's products lds[b..e): the share of work-item `lane` of a team of `team` (a
 * power of two up to STREAM_TREE), which the team's tree over w = team/2, .., 1 turns into
 * the row's sum.  With a whole STREAM_TREE, a lane's strided sum; with fewer work-items
 * (small work-groups), each takes the lanes v = lane + team*m and combines them as the
 * tree's stages w = STREAM_TREE/2, .., team do: pairwise over m in bit-reversed order
 * (neighbours there are lanes w apart), on a stack.  (Defined once: this file is compiled
 * twice into one program.) */
#ifndef STREAM_ROW_DEFINED
#define STREAM_ROW_DEFINED
inline real stream_lanes(local const real *lds, uint b, uint e, uint lane, uint team)
{
    uint bits = 0;
    while ((team << bits) < STREAM_TREE)
        bits++;
    real stack[8];
    uint top = 0;
    for (uint i = 0; i < (1u << bits); i++) {
        uint m = 0;
        for (uint j = 0; j < bits; j++)
            m |= ((i >> j) & 1u) << (bits - 1 - j);
        real s = 0;
        for (uint k = b + lane + team * m; k < e; k += STREAM_TREE)
            s += lds[SIX(k)];
        stack[top++] = s;
        for (uint c = i + 1; (c & 1u) == 0; c >>= 1) {
            top--;
            stack[top - 1] += stack[top];
        }
    }
    return stack[0];
}
#endif

kernel void KNAME(spmv_csr_stream)(uint nblk, global const uint *blk, global const uint *rowptr,
                                   global const uint *col, global const real *val, P_ARGS,
                                   global real *q, global dsum *part, uint part_off,
                                   local dsum *buf FIN_ARGS)
{
    local real lds[SIX(STREAM_CAP - 1) + 1] __attribute__((aligned(16)));
    PROLOGUE
    const uint lid = get_local_id(0), wg = get_local_size(0);
    local real *red = (local real *)buf;   /* team sums: one real per work-item */
    dsum spq = DSUM0;
    /* the bounds of a group's next block are loaded while it works on this one (H200,
     * random:5000000,16: 390 -> 382 us), so a block does not start with two loads in a row */
    const uint ng = get_num_groups(0);
    uint nrs = 0, nre = 0, nk0 = 0, nk1 = 0;
    if (get_group_id(0) < nblk) {
        nrs = blk[get_group_id(0)];
        nre = blk[get_group_id(0) + 1];
        nk0 = rowptr[nrs];
        nk1 = rowptr[nre];
    }
    for (uint b = get_group_id(0); go && b < nblk; b += ng) {
        const uint rs = nrs, re = nre, nrb = re - rs, k0 = nk0, k1 = nk1;
        if (b + ng < nblk) {
            nrs = blk[b + ng];
            nre = blk[b + ng + 1];
            nk0 = rowptr[nrs];
            nk1 = rowptr[nre];
        }
        if (k1 - k0 > STREAM_CAP) {   /* one long row */
            for (uint v = lid; v < STREAM_LANES; v += wg) {
                real s = 0;
                ROW_SUM(s, k0 + v, k1, STREAM_LANES, 1);
                lds[v] = s;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint w = STREAM_LANES / 2; w > 0; w >>= 1) {
                for (uint v = lid; v < w; v += wg)
                    lds[v] += lds[v + w];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lid == 0) {
                const real pi = FETCH(rs);
                STORE_P(rs, pi);
                q[rs] = lds[0];
                spq = dd_acc(spq, pi * lds[0]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            continue;
        }
#if STREAM_PRELOAD
        uint pb = 0, pe = 0;
        real pv = 0;
        if (lid < nrb) {
            pb = rowptr[rs + lid];
            pe = rowptr[rs + lid + 1];
            pv = FETCH(rs + lid);
        }
#define ROW_B(t) ((t) == lid ? pb : rowptr[rs + (t)])
#define ROW_E(t) ((t) == lid ? pe : rowptr[rs + (t) + 1])
#define ROW_P(t) ((t) == lid ? pv : FETCH(rs + (t)))
#else
#define ROW_B(t) rowptr[rs + (t)]
#define ROW_E(t) rowptr[rs + (t) + 1]
#define ROW_P(t) FETCH(rs + (t))
#endif
        uint k = k0 + lid;
#if CLCG_UNROLL >= 4
        /* four gathers in flight (H200, random:5000000,16: 472 us; eight: 546 us) */
        for (; k < k1 && k1 - k > 3 * wg; k += 4 * wg) {
            const uint c0 = LDC(k, 1), c1 = LDC(k + wg, 1), c2 = LDC(k + 2 * wg, 1), c3 = LDC(k + 3 * wg, 1);
            const real v0 = LDV(k, 1), v1 = LDV(k + wg, 1), v2 = LDV(k + 2 * wg, 1), v3 = LDV(k + 3 * wg, 1);
            const real f0 = FETCH(c0), f1 = FETCH(c1), f2 = FETCH(c2), f3 = FETCH(c3);
            lds[SIX(k - k0)] = v0 * f0;
            lds[SIX(k + wg - k0)] = v1 * f1;
            lds[SIX(k + 2 * wg - k0)] = v2 * f2;
            lds[SIX(k + 3 * wg - k0)] = v3 * f3;
        }
#endif
        for (; k < k1; k += wg)
            lds[SIX(k - k0)] = LDV(k, 1) * FETCH(LDC(k, 1));
#if STREAM_PREFETCH && defined(CLCG_NV_PTX) && CLCG_NV_PTX
        if (b + ng < nblk) {
            const uint ne = nk1 - nk0 < STREAM_CAP ? nk1 - nk0 : STREAM_CAP;
            if (STREAM_PREFETCH & 1)
                prefetch_l2_range((global const uchar *)(val + nk0), ne * sizeof(real), lid, wg);
            if (STREAM_PREFETCH & 2)
                prefetch_l2_range((global const uchar *)(col + nk0), ne * sizeof(uint), lid, wg);
        }
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
        /* short rows: a work-item each */
        for (uint t = lid; t < nrb; t += wg) {
            const uint rb = ROW_B(t) - k0, re_ = ROW_E(t) - k0;
            if (re_ - rb <= STREAM_SEQ) {
                real s = 0;
#if STREAM_SUM2 && !STREAM_PAD
                uint j = rb;
                if ((j & 1u) && j < re_)
                    s += lds[j++];
                for (; j + 1 < re_; j += 2) {
                    const real2 v = ((local const real2 *)lds)[j >> 1];
                    s += v.x;
                    s += v.y;
                }
                if (j < re_)
                    s += lds[j];
#else
                for (uint j = rb; j < re_; j++)
                    s += lds[SIX(j)];
#endif
                const real pi = ROW_P(t);
                STORE_P(rs + t, pi);
                q[rs + t] = s;
                spq = dd_acc(spq, pi * s);
            }
        }
        /* longer rows: a team each, from the host's list (blk after the block starts) */
        const uint l0 = blk[nblk + 1 + b], nl = blk[nblk + 2 + b] - l0;
        const uint team = wg < STREAM_TREE ? wg : STREAM_TREE, lane = lid & (team - 1);
#if STREAM_SHFL && defined(CLCG_NV_PTX) && CLCG_NV_PTX
        /* a team is a warp here: its tree by shuffles, the same additions in the same order */
#if STREAM_TEAM_REV
        /* the last warps first: those have no short rows when the block has few */
        for (uint j = (wg - 1 - lid) / STREAM_TREE; team == STREAM_TREE && j < nl; j += wg / STREAM_TREE) {
#else
        for (uint j = lid / STREAM_TREE; team == STREAM_TREE && j < nl; j += wg / STREAM_TREE) {
#endif
            const uint t = blk[2 * nblk + 2 + l0 + j];
            real s = stream_lanes(lds, rowptr[rs + t] - k0, rowptr[rs + t + 1] - k0, lane, team);
            for (uint w = STREAM_TREE / 2; w > 0; w >>= 1)
                s += warp_down(s, w);
            if (lane == 0) {
                const real pi = FETCH(rs + t);
                STORE_P(rs + t, pi);
                q[rs + t] = s;
                spq = dd_acc(spq, pi * s);
            }
        }
        for (uint base = 0; team < STREAM_TREE && base < nl; base += wg / team) {
#else
        for (uint base = 0; base < nl; base += wg / team) {   /* the same passes for all */
#endif
            const uint j = base + lid / team, t = j < nl ? blk[2 * nblk + 2 + l0 + j] : 0;
            red[lid] = j < nl ? stream_lanes(lds, rowptr[rs + t] - k0, rowptr[rs + t + 1] - k0, lane, team) : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint w = team / 2; w > 0; w >>= 1) {
                if (lane < w)
                    red[lid] += red[lid + w];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (j < nl && lane == 0) {
                const real pi = FETCH(rs + t);
                STORE_P(rs + t, pi);
                q[rs + t] = red[lid];
                spq = dd_acc(spq, pi * red[lid]);
            }
        }
#undef ROW_B
#undef ROW_E
#undef ROW_P
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    spq = group_sum(spq, buf);
    if (go && get_local_id(0) == 0)
        part[part_off + get_group_id(0)] = spq;
    /* no summing work-group here (FIN_ARGS unused): its code makes this kernel slower by a
       third (H200, random:5000000,16: 336 -> 448 us, Poisson 256^3: 565 -> 714 us), so the
       host path adds csr-stream's partial sums up with a reduce_sum launch */
}
#undef SIX

#if CLCG_FUSED
/* The stop test and p = z + beta pprev alone, for a format that then multiplies the complete
 * p (csr-stream: with rows of random columns, gathering one vector instead of forming
 * z + beta pprev at every entry saves more than this extra pass costs). */
kernel void update_p_cg(uint n, P_ARGS, local dsum *buf)
{
    PROLOGUE
    for (uint i = get_global_id(0); go && i < n; i += get_global_size(0))
        STORE_P(i, FETCH(i));
}
#endif

#undef KNAME
#undef P_ARGS
#undef FETCH
#undef STORE_P
#undef PROLOGUE
#undef FIN_ARGS
#undef FINISH
#undef ROW_SUM
