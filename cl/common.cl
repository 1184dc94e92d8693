/* Precision, helpers and the device-resident scalar slots shared by every kernel.
 * real is double unless built with -DCLCG_PRECISION=32. */
/* No contraction of a*b+c into fma: the kernels then round like the host reference, so
 * device and reference runs agree closely (memory-bound kernels lose nothing by it). */
#pragma OPENCL FP_CONTRACT OFF

#ifndef CLCG_PRECISION
#define CLCG_PRECISION 64
#endif
#if CLCG_PRECISION == 64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double2 real2;
#else
typedef float real;
typedef float2 real2;
#endif

/* Loads of the matrix (columns, values), which an SpMV reads once: LDC(k, 1) / LDV(k, 1) in
 * kernels whose work-items read neighbouring entries together (SELL, the csr-stream sweep) are,
 * on NVIDIA devices (-DCLCG_NV_PTX=1, set by the host), marked "streaming" (ld.global.cs:
 * evict-first in L1 and L2), so they do not push the gathered vector out of L2 (H200, Poisson
 * 256^3: SELL 464 -> 415 us).  LDC(k, 0) / LDV(k, 0), plain loads, where one work-item walks
 * a row (CSR scalar): it needs the line in L1 again (streaming there: 581 -> 1353 us).
 * Elsewhere both are plain loads.  Kernels name their arrays col and val. */
#if defined(CLCG_NV_PTX) && CLCG_NV_PTX
inline uint ld_stream_u32(global const uint *p)
{
    uint v;
    asm("ld.global.cs.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}
#if CLCG_PRECISION == 64
inline real ld_stream_real(global const real *p)
{
    real v;
    asm("ld.global.cs.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
}
#else
inline real ld_stream_real(global const real *p)
{
    real v;
    asm("ld.global.cs.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
#endif
/* Fetch the 128-byte lines of bytes [a, a + len) into L2 (no register waits for it). */
inline void prefetch_l2_range(global const uchar *a, uint len, uint lid, uint wg)
{
    global const uchar *l0 = a - ((ulong)a & 127);
    for (uint o = lid * 128; l0 + o < a + len; o += wg * 128)
        asm volatile("prefetch.global.L2 [%0];" : : "l"(l0 + o));
}
/* v of the work-item w places further in the same warp of 32 (every one of the 32 takes
 * part): a tree over a warp without local memory or barriers. */
inline real warp_down(real v, uint w)
{
#if CLCG_PRECISION == 64
    const uint2 u = as_uint2(v);
    uint2 r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r.x) : "r"(u.x), "r"(w));
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r.y) : "r"(u.y), "r"(w));
    return as_double(r);
#else
    uint r;
    asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(as_uint(v)), "r"(w));
    return as_float(r);
#endif
}
#define LDC_1(k) ld_stream_u32(col + (k))
#define LDV_1(k) ld_stream_real(val + (k))
#else
#define LDC_1(k) col[(k)]
#define LDV_1(k) val[(k)]
#endif
#define LDC_0(k) col[(k)]
#define LDV_0(k) val[(k)]
#define LDC(k, sm) LDC_##sm(k)
#define LDV(k, sm) LDV_##sm(k)

/* Slots of the scalar buffer `scal` (see src/ocl.h, which mirrors them). */
#define S_STOP 0    /* 0 running; else a stop code below */
#define S_ITS 1     /* iteration at which the solver stopped */
#define S_TOL2 2    /* (rtol * ||b||)^2, set by the host */
#define S_RR 3      /* r'r at the last check */
#define S_ALPHA 4
#define S_BETA 5
#define S_RZ 6
#define S_PQ 7
#define S_GROW2 8   /* r'z past this (when positive): stop, STOP_GREW; set by the host */

#define STOP_CONVERGED 1.0
#define STOP_INDEFINITE 2.0
#define STOP_NANORINF 3.0
#define STOP_BREAKDOWN 4.0
#define STOP_GREW 5.0   /* r'z grew past what CG on an SPD matrix allows (src/clcg_impl.h) */

/* Dot products are summed in double-double: a pair (hi, lo) with hi + lo the sum and
 * |lo| <= ulp(hi)/2 (error-free TwoSum, then renormalized).  The rounded result hi is then
 * the sum of the products rounded once, whatever the order of the additions, so the
 * launch shape, the number of devices and ranks, and the host reference all give the
 * same bits (the host twin is in src/clcg_impl.h).  Needs FP_CONTRACT OFF, set above. */
typedef real2 dsum;

inline dsum dd_add(dsum a, dsum b)
{
    const real s = a.x + b.x, v = s - a.x;
    real e = (a.x - (s - v)) + (b.x - v);
    e += a.y + b.y;
    const real h = s + e;
    /* an infinite sum stays infinite (the error terms would turn it into NaN) */
    return isfinite(s) ? (dsum)(h, e - (h - s)) : (dsum)(s, 0);
}

/* a + t for a running sum: the rounding error of each addition (TwoSum) is gathered in
 * .y, off the dependency chain of .x, and the pair is left unnormalized (dd_add, which
 * every pair passes through before it is used, normalizes it; an infinite .x with a NaN
 * .y becomes (inf, 0) there). */
inline dsum dd_acc(dsum a, real t)
{
    const real s = a.x + t, v = s - a.x;
    return (dsum)(s, a.y + ((a.x - (s - v)) + (t - v)));
}

#define DSUM0 ((dsum)(0, 0))

/* Sum of v over the work-group by a tree in local memory (local size a power of two);
 * every work-item gets the result.  (Its last five stages by warp shuffles on NVIDIA, the
 * same pairs without barriers, made the one-GPU iteration at 256^3 slower on two H200,
 * 0.775 against 0.730 ms, and did not help the two-rank one.) */
inline dsum group_sum(dsum v, local dsum *buf)
{
    const uint l = get_local_id(0);
    buf[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            buf[l] = dd_add(buf[l], buf[l + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    v = buf[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return v;
}

/* Sum of the n partial sums a[0..n): each work-group computes it the same way, in the
 * same order, so every group holds the same bits (no second kernel, no host trip). */
inline dsum sum_parts_dd(global const dsum *a, uint n, local dsum *buf)
{
    dsum s = DSUM0;
    for (uint i = get_local_id(0); i < n; i += get_local_size(0))
        s = dd_add(s, a[i]);
    return group_sum(s, buf);
}

inline real sum_parts(global const dsum *a, uint n, local dsum *buf)
{
    return sum_parts_dd(a, n, buf).x;
}

/* Device-wide order of global memory: on NVIDIA the PTX fence of the whole GPU. */
#if defined(CLCG_NV_PTX) && CLCG_NV_PTX
#define FENCE_DEVICE() asm volatile("membar.gl;" : : : "memory")
#else
#define FENCE_DEVICE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* Whether this work-group is the last of `groups` to get here, once its partial sums are
 * written (by its work-item 0): the last one then adds up the partial sums itself, so that a
 * reduction point of the host path needs no launch of its own.  ticket (NULL: no group is
 * last) counts the groups, of this launch or of launches that share it (groups is then the
 * count of them all); the last one sets it back to 0 for the next launch.  Every work-item
 * calls it; buf is free again when it returns. */
inline int last_group(volatile global uint *ticket, local dsum *buf, uint groups)
{
    if (!ticket)
        return 0;
    local uint *flag = (local uint *)buf;
    if (get_local_id(0) == 0) {
        FENCE_DEVICE();   /* this group's partial sums, then its ticket */
        const uint last = atomic_inc(ticket) == groups - 1;
        if (last)
            atomic_xchg(ticket, 0);
        flag[0] = last;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int last = flag[0] != 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last)
        FENCE_DEVICE();   /* the others' tickets, then their partial sums */
    return last;
}

/* sum_parts_dd of partial sums that other work-groups of this launch have just written:
 * read past any cache of this compute unit.  (Issuing a work-item's reads four at a time
 * before adding them made the kernels with this tail slower on an H200, update_r by 6-8 us
 * and the one-GPU iteration at 256^3 by 30 us: the registers it takes are the whole
 * kernel's.) */
inline dsum sum_fresh_dd(global const dsum *a, uint n, local dsum *buf)
{
    volatile global const dsum *v = (volatile global const dsum *)a;
    dsum s = DSUM0;
    for (uint i = get_local_id(0); i < n; i += get_local_size(0))
        s = dd_add(s, v[i]);
    return group_sum(s, buf);
}

/* Entry j of z = M^-1 r (Jacobi when dinv is given, identity otherwise). */
inline real zval(global const real *r, global const real *dinv, uint j)
{
    return dinv ? dinv[j] * r[j] : r[j];
}
