/* Every OpenCL kernel against its host twin (spmv_ref.c, vec_ref.c) on fresh random data:
 * outputs poisoned with NaN before each launch, so an entry left unwritten fails, and a
 * guard zone after every buffer, so an entry written past the end fails too; sizes that
 * are not multiples of the work-group size, n = 1, empty and very long rows; several
 * launch shapes.  Tolerances in units of machine epsilon, scaled by sums of magnitudes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "cg_ocl.h"
#include "clcg_impl.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EPS DBL_EPSILON
#define SENTINEL (-123.25)   /* scalar slots a kernel must leave alone */
/* a launch still running after this is a hang (a launch of the stream kernel was still running
 * after 10 s on 2 cores loaded by make -j2 check, and passed alone: PoCL compiles a kernel for
 * its local size at its first launch) */
#define HANG_SECONDS 60.0

/* GUARD entries after every buffer (more than the largest local size, so a work-group
 * running past the end stays inside them); index buffers are padded so that rows past
 * the end are empty. */
/* Partial sums are (hi, lo) pairs (double-double, see cl/common.cl): NPARTS doubles hold
 * NPARTS / 2 of them, and part offsets count pairs. */
enum { NPARTS = 512, PART_OFF = 5, SHOW = 3, GUARD = 256 };

static clcg_dev dev;
static int stuck;   /* a launch never finished: the queue is blocked, nothing more runs */

/* Launch shapes: local size x work-groups.  All nine for the kernels whose results hold
 * partial sums per group; three (one per local size) for the rest. */
typedef struct {
    size_t wg, ng;
} shape;
static const shape all_shapes[] = {{32, 1}, {32, 3}, {32, 7}, {64, 1}, {64, 3},
                                   {64, 7}, {128, 1}, {128, 3}, {128, 7}};
static const shape few_shapes[] = {{32, 7}, {64, 3}, {128, 1}};
#define NSHAPES(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* ---- OpenCL plumbing: a failure of the machinery (not of a kernel's result) ends the test ---- */

static void bail_out(const char *file, int line, const char *call, const char *why)
{
    printf("Bail out! %s:%d: %s -> %s\n", file, line, call, why);
    fflush(stdout);
    MPI_Finalize();
    exit(1);
}
#define CL(call)                                                                        \
    do {                                                                                \
        cl_int e_ = (call);                                                             \
        if (e_ != CL_SUCCESS)                                                           \
            bail_out(__FILE__, __LINE__, #call, clcg_cl_error_name(e_));                \
    } while (0)
#define CALL(call)                                                                      \
    do {                                                                                \
        if ((call) != CLCG_OK)                                                          \
            bail_out(__FILE__, __LINE__, #call, clcg_error_message());                  \
    } while (0)

static void *xmalloc(size_t count, size_t size)
{
    void *p = NULL;
    CALL(clcg_malloc(&p, count + 1, size, "test data"));
    return p;
}

/* Each buffer's guard zone holds its own finite, unlikely value, so that a kernel copying
 * one buffer's guard into another's is caught too. */
enum { MAX_BUFS = 64 };
static struct {
    cl_mem m;
    double guard;
} bufs[MAX_BUFS];
static unsigned buf_serial;

static double guard_of(cl_mem m)
{
    for (int i = 0; i < MAX_BUFS; i++)
        if (bufs[i].m == m)
            return bufs[i].guard;
    return 0.0;
}

/* [0,n) NaN, the guard zone its guard value */
static void poison(cl_mem m, size_t n)
{
    const double nan = NAN, g = guard_of(m);
    if (stuck)
        return;
    if (n)
        CL(clEnqueueFillBuffer(dev.queue, m, &nan, sizeof nan, 0, n * sizeof nan, 0, NULL, NULL));
    CL(clEnqueueFillBuffer(dev.queue, m, &g, sizeof g, n * sizeof g, GUARD * sizeof g, 0, NULL, NULL));
    CL(clFinish(dev.queue));
}

/* [0,n) from h, the guard zone its guard value */
static void put(cl_mem m, size_t n, const double *h)
{
    poison(m, n);
    if (n && !stuck)
        CL(clEnqueueWriteBuffer(dev.queue, m, CL_TRUE, 0, n * sizeof *h, h, 0, NULL, NULL));
}

/* [0,n) to h; all NaN once the device is stuck, so every check fails */
static void get(cl_mem m, size_t n, double *h)
{
    if (stuck)
        for (size_t i = 0; i < n; i++)
            h[i] = NAN;
    else if (n)
        CL(clEnqueueReadBuffer(dev.queue, m, CL_TRUE, 0, n * sizeof *h, h, 0, NULL, NULL));
}

/* n doubles and the guard zone, poisoned */
static cl_mem dbuf(size_t n)
{
    cl_int e;
    int slot = 0;
    cl_mem m = clCreateBuffer(dev.ctx, CL_MEM_READ_WRITE, (n + GUARD) * sizeof(double), NULL, &e);
    CL(e);
    while (slot < MAX_BUFS && bufs[slot].m)
        slot++;
    if (slot == MAX_BUFS)
        bail_out(__FILE__, __LINE__, "dbuf", "too many test buffers");
    bufs[slot].m = m;
    bufs[slot].guard = ldexp(1.0 + (double)(++buf_serial % 4096) / 4096.0, 777);
    poison(m, n);
    return m;
}

static cl_mem dbuf_from(size_t n, const double *h)
{
    cl_mem m = dbuf(n);
    put(m, n, h);
    return m;
}

/* n indices and GUARD copies of pad */
static cl_mem ubuf_from(size_t n, const cl_uint *h, cl_uint pad)
{
    cl_int e;
    cl_uint *t = malloc((n + GUARD) * sizeof *t);
    if (!t)
        bail_out(__FILE__, __LINE__, "malloc", "out of memory");
    if (n)
        memcpy(t, h, n * sizeof *t);
    for (size_t i = n; i < n + GUARD; i++)
        t[i] = pad;
    cl_mem m = clCreateBuffer(dev.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (n + GUARD) * sizeof *t, t, &e);
    free(t);
    CL(e);
    return m;
}

/* Entries of m's guard zone (after its n entries) that a kernel wrote. */
static int64_t guard_broken(const char *what, cl_mem m, size_t n)
{
    double g[GUARD];
    const double want = guard_of(m);
    int64_t bad = 0;
    if (stuck)
        return 1;
    CL(clEnqueueReadBuffer(dev.queue, m, CL_TRUE, n * sizeof(double), sizeof g, g, 0, NULL, NULL));
    for (int i = 0; i < GUARD; i++)
        if (memcmp(&g[i], &want, sizeof want) != 0 && bad++ < SHOW)
            tap_diag("  %s[%zu] = %.17g written past the end (n = %zu)", what, n + (size_t)i, g[i], n);
    if (bad > SHOW)
        tap_diag("  %s: %lld entries written past the end", what, (long long)bad);
    return bad;
}

static void release(cl_mem m)
{
    for (int i = 0; i < MAX_BUFS; i++)
        if (bufs[i].m == m)
            bufs[i].m = NULL;
    if (m && !stuck)
        clReleaseMemObject(m);
}

static cl_kernel kernel(const char *name)
{
    cl_kernel k;
    CALL(clcg_dev_kernel(&dev, name, &k));
    return k;
}

/* Kernel arguments in order, each setter taking the next index. */
typedef struct {
    cl_kernel k;
    cl_uint i;
} argset;

static void au(argset *a, cl_uint v)
{
    CL(clSetKernelArg(a->k, a->i++, sizeof v, &v));
}

static void ad(argset *a, double v)
{
    CL(clSetKernelArg(a->k, a->i++, sizeof v, &v));
}

/* a buffer, or NULL for a null pointer in the kernel */
static void am(argset *a, cl_mem m)
{
    CL(clSetKernelArg(a->k, a->i++, sizeof m, m ? &m : NULL));
}

/* local memory of wg (hi, lo) pairs */
static void al(argset *a, size_t wg)
{
    CL(clSetKernelArg(a->k, a->i++, wg * sizeof(cl_double2), NULL));
}

/* Run k and wait at most HANG_SECONDS: a kernel that never finishes becomes a failed
 * check, and from then on nothing is enqueued (the queue stays blocked behind it). */
static void launch_at(cl_kernel k, const shape *s, size_t off)
{
    size_t g = s->wg * s->ng, l = s->wg;
    cl_event ev;
    cl_int status = CL_QUEUED;
    char name[64] = "?";
    if (stuck)
        return;
    CL(clEnqueueNDRangeKernel(dev.queue, k, 1, off ? &off : NULL, &g, &l, 0, NULL, &ev));
    CL(clFlush(dev.queue));
    const double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < HANG_SECONDS) {
        CL(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
        if (status <= CL_COMPLETE)
            break;
        nanosleep(&(struct timespec){0, 200000}, NULL);
    }
    if (status < CL_COMPLETE)
        bail_out(__FILE__, __LINE__, "clEnqueueNDRangeKernel", clcg_cl_error_name(status));
    if (status == CL_COMPLETE) {
        clReleaseEvent(ev);
        return;
    }
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    tap_diag("  %s (wg %zu x %zu) still running after %.0f s: the kernel hangs; no further launches",
             name, s->wg, s->ng, HANG_SECONDS);
    stuck = 1;
}

/* launch_at with no global offset */
static void launch(cl_kernel k, const shape *s)
{
    launch_at(k, s, 0);
}

static int shape_fits(const shape *s)
{
    return s->wg <= dev.info.max_wg;
}

/* ---- random data, seeds printed ---- */

static uint64_t rng, next_seed = 0x5eed0001;

/* A fresh seed for the data of one check group, printed so a failure can be replayed. */
static void reseed(const char *what)
{
    rng = next_seed++ * 0x9e3779b97f4a7c15ull;
    tap_diag("seed %#llx: %s", (unsigned long long)(next_seed - 1), what);
}

static uint64_t next_rand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545f4914f6cdd1dull;
}

static int64_t below(int64_t n)
{
    return (int64_t)(next_rand() % (uint64_t)n);
}

static double uni(double lo, double hi)
{
    return lo + (hi - lo) * (double)(next_rand() >> 11) * 0x1p-53;
}

static double *rvec(int64_t n, double lo, double hi)
{
    double *v = xmalloc((size_t)n, sizeof *v);
    for (int64_t i = 0; i < n; i++)
        v[i] = uni(lo, hi);
    return v;
}

/* ---- comparisons ---- */

/* Entries where got misses want by more than tol[i] (a NaN always misses); the first few
 * are shown. */
static int64_t mismatches(const char *what, int64_t n, const double *got, const double *want, const double *tol)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(got[i] - want[i]) <= tol[i]) && bad++ < SHOW && !stuck)
            tap_diag("  %s[%lld] = %.17g, want %.17g (tolerance %.3g)", what, (long long)i, got[i], want[i], tol[i]);
    return bad;
}

/* Entries of v[lo..hi) that are no longer NaN: written where the kernel must not write. */
static int64_t touched(const char *what, int64_t lo, int64_t hi, const double *v)
{
    int64_t bad = 0;
    for (int64_t i = lo; i < hi; i++)
        if (!isnan(v[i]) && bad++ < SHOW && !stuck)
            tap_diag("  %s[%lld] = %.17g was written, should be untouched", what, (long long)i, v[i]);
    return bad;
}

static int close_to(const char *what, double got, double want, double tol)
{
    if (fabs(got - want) <= tol)
        return 1;
    if (!stuck)
        tap_diag("  %s = %.17g, want %.17g (|diff| %.3g, tolerance %.3g = %.1f eps-units)", what, got, want,
                 fabs(got - want), tol, tol / EPS);
    return 0;
}

static double sum(int64_t n, const double *v)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Sum of the n (hi, lo) pairs in v, in double-double; its rounded value. */
static double psum(int64_t n, const double *v)
{
    double s[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; i++)
        clcg_dd_add(s, v + 2 * i);
    return s[0];
}

/* n partial sums v as (v[i], 0) pairs in a new buffer / into m */
static void pput(cl_mem m, size_t n, const double *v)
{
    double *t = xmalloc(2 * n + 1, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        t[2 * i] = v[i];
        t[2 * i + 1] = 0.0;
    }
    put(m, 2 * n, t);
    free(t);
}

static cl_mem pbuf_from(size_t n, const double *v)
{
    cl_mem m = dbuf(2 * n);
    pput(m, n, v);
    return m;
}

static double abs_sum(int64_t n, const double *v)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += fabs(v[i]);
    return s;
}


/* ---- test matrices: random values in [-1,1), row lengths chosen by the caller ---- */

typedef struct {
    char name[64];
    clcg_csr A;
    int64_t maxlen;
} tmat;

/* len distinct columns of [0,n), ascending (selection sampling). */
static void pick_columns(int64_t n, int64_t len, int32_t *out)
{
    for (int64_t j = 0, got = 0; got < len; j++)
        if (below(n - j) < len - got)
            out[got++] = (int32_t)j;
}

static void mat_build(tmat *m, int64_t n, const int64_t *len)
{
    clcg_csr *A = &m->A;
    A->n = A->nrows = A->ncols = n;
    A->row0 = 0;
    A->ghost = NULL;
    A->rowptr = xmalloc((size_t)n + 1, sizeof *A->rowptr);
    A->rowptr[0] = 0;
    m->maxlen = 0;
    for (int64_t i = 0; i < n; i++) {
        A->rowptr[i + 1] = A->rowptr[i] + len[i];
        if (len[i] > m->maxlen)
            m->maxlen = len[i];
    }
    A->nnz = A->rowptr[n];
    A->colind = xmalloc((size_t)A->nnz, sizeof *A->colind);
    A->val = xmalloc((size_t)A->nnz, sizeof *A->val);
    for (int64_t i = 0; i < n; i++)
        pick_columns(n, len[i], A->colind + A->rowptr[i]);
    for (int64_t k = 0; k < A->nnz; k++)
        A->val[k] = uni(-1.0, 1.0);
}

enum { MAT_MIXED, MAT_LONG, MAT_ONE, MAT_SPARSE, MAT_MEDIUM, NMATS };

static void mat_make(tmat *m, int kind)
{
    static const int64_t sizes[NMATS] = {1000, 6007, 1, 37, 2600};
    const int64_t n = sizes[kind];
    int64_t *len = xmalloc((size_t)n, sizeof *len);
    for (int64_t i = 0; i < n; i++) {
        switch (kind) {
        case MAT_MIXED:   /* 1..15 entries, one row in eight empty, empty runs at both ends */
            len[i] = (i < 3 || i >= n - 10 || below(8) == 0) ? 0 : 1 + below(15);
            break;
        case MAT_LONG:    /* 0..5 entries, one row of 5000 and a last row of 400 */
            len[i] = i == 3001 ? 5000 : i == n - 1 ? 400 : below(6);
            break;
        case MAT_ONE:
            len[i] = 1;
            break;
        case MAT_MEDIUM:  /* every third row 100..599 entries, one in fifty 2100..2499, else 0..11 */
            len[i] = i % 50 == 7 ? 2100 + below(400) : i % 3 == 0 ? 100 + below(500) : below(12);
            break;
        default:          /* nearly empty: three rows hold 6 entries */
            len[i] = i == 0 ? 1 : i == 17 ? 2 : i == 36 ? 3 : 0;
            break;
        }
    }
    mat_build(m, n, len);
    free(len);
    static const char *const names[NMATS] = {"mixed", "long-row", "one", "sparse", "medium"};
    snprintf(m->name, sizeof m->name, "%s(n=%lld,nnz=%lld,max row %lld)", names[kind], (long long)m->A.nrows,
             (long long)m->A.nnz, (long long)m->maxlen);
}

/* qabs = |A| pabs: the scale of each row's rounding error */
static void spmv_abs(const clcg_csr *A, const double *pabs, double *qabs)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += fabs(A->val[k]) * pabs[A->colind[k]];
        qabs[i] = s;
    }
}

/* Tolerance of q_i = sum_k a_ik p_k in any order: a few eps per term, scaled by |A| |p|. */
static void spmv_tol(const clcg_csr *A, const double *qabs, double *tol)
{
    for (int64_t i = 0; i < A->nrows; i++)
        tol[i] = 2.0 * (double)(A->rowptr[i + 1] - A->rowptr[i] + 8) * EPS * qabs[i];
}

/* ---- storage forms ---- */

typedef struct {
    clcg_fmt fmt;
    unsigned param;       /* vs for csr-vector, C for sell */
} tfmt;
static const tfmt fmts[] = {{FMT_CSR_SCALAR, 0}, {FMT_CSR_VECTOR, 2}, {FMT_CSR_VECTOR, 4}, {FMT_CSR_VECTOR, 8},
                            {FMT_CSR_VECTOR, 32}, {FMT_SELL, 8}, {FMT_SELL, 32}, {FMT_CSR_STREAM, 0}};

static void fmt_label(const tfmt *f, char *out, size_t len)
{
    if (f->fmt == FMT_CSR_VECTOR)
        snprintf(out, len, "csr-vector vs=%u", f->param);
    else if (f->fmt == FMT_SELL)
        snprintf(out, len, "sell C=%u", f->param);
    else if (f->fmt == FMT_CSR_STREAM)
        snprintf(out, len, "csr-stream");
    else
        snprintf(out, len, "csr-scalar");
}

static const char *spmv_base(const tfmt *f)
{
    return f->fmt == FMT_SELL ? "spmv_sell" : f->fmt == FMT_CSR_VECTOR ? "spmv_csr_vector"
           : f->fmt == FMT_CSR_STREAM ? "spmv_csr_stream" : "spmv_csr_scalar";
}

/* The matrix as the kernels read it (the layout in cl/spmv.cl), built here with guard
 * zones: row or slice pointers padded with the last offset, so rows past the end are
 * empty; columns padded with 0, values with 0. */
typedef struct {
    int64_t nptr, nent;   /* pointers, stored entries (with SELL padding) */
    cl_uint *ptr, *col;
    double *val;
    cl_mem bptr, bcol, bval;
    int64_t nblk;         /* csr-stream: row blocks, and blk's entries with the longer rows */
    int64_t nblkent;
    cl_uint *blk;
    cl_mem bblk;
} tstore;

/* csr-stream blocks, the obvious way: rows join the open block while it keeps at most
 * max_rows rows (the solver's: CLCG_STREAM_CAP) and CLCG_STREAM_CAP entries; a longer row
 * stands alone. */
static int64_t stream_blocks(const clcg_csr *A, int64_t max_rows, cl_uint *blk)
{
    int64_t nb = 0, rows = 0, ents = 0;
    blk[0] = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
        if (rows > 0 && (rows + 1 > max_rows || ents + len > CLCG_STREAM_CAP)) {
            blk[++nb] = (cl_uint)i;
            rows = ents = 0;
        }
        rows++;
        ents += len;
    }
    if (A->nrows > 0)
        blk[++nb] = (cl_uint)A->nrows;
    return nb;
}

/* After the nb+1 block starts: lp (nb+1 entries), then the list lr of each block's rows of
 * more than CLCG_STREAM_SEQ entries (offsets in the block; none in a block of one row longer
 * than CLCG_STREAM_CAP).  Returns blk's entries in all. */
static int64_t stream_longs(const clcg_csr *A, int64_t nb, cl_uint *blk)
{
    int64_t nl = 0;
    for (int64_t b = 0; b < nb; b++) {
        blk[nb + 1 + b] = (cl_uint)nl;
        const int64_t r0 = blk[b], r1 = blk[b + 1];
        for (int64_t i = r0; i < r1; i++) {
            const int64_t len = A->rowptr[i + 1] - A->rowptr[i];
            if (len > CLCG_STREAM_SEQ && len <= CLCG_STREAM_CAP)
                blk[2 * nb + 2 + nl++] = (cl_uint)(i - r0);
        }
    }
    blk[2 * nb + 1] = (cl_uint)nl;
    return 2 * nb + 2 + nl;
}

/* q_i as csr-stream adds up row i's products (cl/spmv.cl), written plainly: up to
 * CLCG_STREAM_SEQ entries in entry order; up to CLCG_STREAM_CAP in 32 strided lanes, longer
 * rows in 256, then a tree over the lanes (lane v += lane v+w for w = lanes/2, .., 1). */
static void stream_order_ref(const clcg_csr *A, const double *p, double *q)
{
    double lane[256];
    for (int64_t i = 0; i < A->nrows; i++) {
        const int64_t k0 = A->rowptr[i], len = A->rowptr[i + 1] - k0;
        if (len <= CLCG_STREAM_SEQ) {
            double s = 0.0;
            for (int64_t k = k0; k < k0 + len; k++)
                s += A->val[k] * p[A->colind[k]];
            q[i] = s;
            continue;
        }
        const int lanes = len <= CLCG_STREAM_CAP ? 32 : 256;
        for (int v = 0; v < lanes; v++) {
            lane[v] = 0.0;
            for (int64_t k = k0 + v; k < k0 + len; k += lanes)
                lane[v] += A->val[k] * p[A->colind[k]];
        }
        for (int w = lanes / 2; w > 0; w >>= 1)
            for (int v = 0; v < w; v++)
                lane[v] += lane[v + w];
        q[i] = lane[0];
    }
}

static void store_build(tstore *t, const clcg_csr *A, const tfmt *f)
{
    const int64_t n = A->nrows;
    if (f->fmt != FMT_SELL) {
        t->nptr = n + 1;
        t->nent = A->nnz;
        t->ptr = xmalloc((size_t)t->nptr, sizeof *t->ptr);
        t->col = xmalloc((size_t)t->nent, sizeof *t->col);
        t->val = xmalloc((size_t)t->nent, sizeof *t->val);
        for (int64_t i = 0; i <= n; i++)
            t->ptr[i] = (cl_uint)A->rowptr[i];
        for (int64_t k = 0; k < A->nnz; k++) {
            t->col[k] = (cl_uint)A->colind[k];
            t->val[k] = A->val[k];
        }
        if (f->fmt == FMT_CSR_STREAM) {
            t->blk = xmalloc(3 * (size_t)n + 3, sizeof *t->blk);
            t->nblk = stream_blocks(A, CLCG_STREAM_CAP, t->blk);
            t->nblkent = stream_longs(A, t->nblk, t->blk);
            t->bblk = ubuf_from((size_t)t->nblkent, t->blk, (cl_uint)n);
        }
    } else {
        /* SELL-C: slice s holds rows sC..sC+C-1 column by column, as wide as its
         * longest row; entry k of row i at ptr[i/C] + k*C + i%C; padding has value 0 and
         * column i (0 past the last row) */
        const int64_t C = f->param, nsl = (n + C - 1) / C;
        t->nptr = nsl + 1;
        t->ptr = xmalloc((size_t)t->nptr, sizeof *t->ptr);
        t->ptr[0] = 0;
        for (int64_t sl = 0; sl < nsl; sl++) {
            int64_t w = 0;
            for (int64_t i = sl * C; i < (sl + 1) * C && i < n; i++)
                if (A->rowptr[i + 1] - A->rowptr[i] > w)
                    w = A->rowptr[i + 1] - A->rowptr[i];
            t->ptr[sl + 1] = t->ptr[sl] + (cl_uint)(w * C);
        }
        t->nent = t->ptr[nsl];
        t->col = xmalloc((size_t)t->nent, sizeof *t->col);
        t->val = xmalloc((size_t)t->nent, sizeof *t->val);
        for (int64_t sl = 0; sl < nsl; sl++) {
            const int64_t w = (t->ptr[sl + 1] - t->ptr[sl]) / C;
            for (int64_t l = 0; l < C; l++) {
                const int64_t i = sl * C + l, len = i < n ? A->rowptr[i + 1] - A->rowptr[i] : 0;
                for (int64_t k = 0; k < w; k++) {
                    const int64_t at = t->ptr[sl] + k * C + l;
                    t->col[at] = k < len ? (cl_uint)A->colind[A->rowptr[i] + k] : (cl_uint)(i < n ? i : 0);
                    t->val[at] = k < len ? A->val[A->rowptr[i] + k] : 0.0;
                }
            }
        }
    }
    t->bptr = ubuf_from((size_t)t->nptr, t->ptr, t->ptr[t->nptr - 1]);
    t->bcol = ubuf_from((size_t)t->nent, t->col, 0);
    t->bval = dbuf_from((size_t)t->nent, t->val);
    {
        /* values' guard zone: zeros (rows past the end read none, but stay harmless) */
        const double zero = 0.0;
        CL(clEnqueueFillBuffer(dev.queue, t->bval, &zero, sizeof zero, (size_t)t->nent * sizeof zero,
                               GUARD * sizeof zero, 0, NULL, NULL));
        CL(clFinish(dev.queue));
    }
}

static void store_free(tstore *t)
{
    release(t->bptr);
    release(t->bcol);
    release(t->bval);
    release(t->bblk);
    free(t->blk);
    free(t->ptr);
    free(t->col);
    free(t->val);
    memset(t, 0, sizeof *t);
}

/* A slice that borrows the test's device for clcg_slice_upload: it holds its own references
 * to the context, queue and program, which clcg_slice_free gives back. */
static void slice_on_device(clcg_slice *s, const tfmt *f)
{
    memset(s, 0, sizeof *s);
    s->dev = dev;
    s->dev.allocated = 0;
    CL(clRetainContext(dev.ctx));
    CL(clRetainCommandQueue(dev.queue));
    CL(clRetainProgram(dev.prog));
    s->vs = f->fmt == FMT_CSR_VECTOR ? f->param : 2;
    s->C = f->fmt == FMT_SELL ? f->param : 8;
    clcg_tune_defaults(s);
}

/* The ghost pack of clcg_slice_upload: the rows marked needed, ascending; or a given order
 * (the send lists of a neighbour exchange one after another), kept as given, repeats and
 * all.  pack_dst holds the rows, the device's pack list the same rows. */
static void test_upload_pack(const tmat *m, const tfmt *f, const char *label)
{
    const int64_t n = m->A.nrows, norder = n / 2 + 2;
    unsigned char *needed = xmalloc((size_t)n + 1, 1);
    int32_t *order = xmalloc((size_t)norder, sizeof *order);
    cl_uint *got = xmalloc((size_t)norder + (size_t)n, sizeof *got);
    int64_t nmarked = 0;
    for (int64_t i = 0; i < n; i++)
        nmarked += needed[i] = i % 3 == 1;
    for (int64_t k = 0; k < norder; k++)   /* every other row descending, then one ascending and the first again */
        order[k] = (int32_t)(k + 2 < norder ? n - 1 - (2 * k) % n : k % n);
    order[norder - 1] = order[0];
    for (int pass = 0; pass < 2; pass++) {
        clcg_slice s;
        int bad = 0;
        slice_on_device(&s, f);
        CALL(clcg_slice_upload(&s, &m->A, 0, n, needed, pass ? order : NULL, pass ? norder : 0, f->fmt, 0));
        const int64_t want = pass ? norder : nmarked;
        if (s.npack != want) {
            bad = 1;
        } else if (want > 0) {
            CL(clEnqueueReadBuffer(dev.queue, s.pack_idx, CL_TRUE, 0, (size_t)want * sizeof *got, got, 0, NULL, NULL));
            for (int64_t k = 0, i = 0; k < want; k++) {
                while (!pass && i < n && !needed[i])
                    i++;
                const int64_t row = pass ? order[k] : i++;
                bad += s.pack_dst[k] != row || got[k] != (cl_uint)row;
            }
        }
        tap_ok(!bad, "%s: clcg_slice_upload packs %s (%lld rows; %lld expected)", label,
               pass ? "the rows in the order given, a repeat included" : "the rows marked needed, ascending",
               (long long)s.npack, (long long)want);
        clcg_slice_free(&s);
    }
    free(needed);
    free(order);
    free(got);
}

/* The solver's upload (clcg_slice_upload) must build exactly the storage the kernels are
 * tested on here. */
static void test_upload(const tmat *m, const tfmt *f, const tstore *t, const char *label)
{
    clcg_slice s;
    unsigned char *needed = xmalloc((size_t)m->A.nrows, 1);
    cl_uint *ptr = xmalloc((size_t)t->nptr, sizeof *ptr), *col = xmalloc((size_t)t->nent, sizeof *col);
    double *val = xmalloc((size_t)t->nent, sizeof *val);
    memset(needed, 0, (size_t)m->A.nrows + 1);
    slice_on_device(&s, f);
    CALL(clcg_slice_upload(&s, &m->A, 0, m->A.nrows, needed, NULL, 0, f->fmt, 0));
    CL(clEnqueueReadBuffer(dev.queue, s.ptr, CL_TRUE, 0, (size_t)t->nptr * sizeof *ptr, ptr, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(dev.queue, s.col, CL_TRUE, 0, (size_t)t->nent * sizeof *col, col, 0, NULL, NULL));
    CL(clEnqueueReadBuffer(dev.queue, s.val, CL_TRUE, 0, (size_t)t->nent * sizeof *val, val, 0, NULL, NULL));
    if (t->blk) {   /* csr-stream: the same row blocks */
        cl_uint *blk = xmalloc((size_t)t->nblkent, sizeof *blk);
        CL(clEnqueueReadBuffer(dev.queue, s.blk, CL_TRUE, 0, (size_t)t->nblkent * sizeof *blk, blk, 0, NULL, NULL));
        tap_ok(s.nblk == t->nblk && !memcmp(blk, t->blk, (size_t)t->nblkent * sizeof *blk),
               "%s: clcg_slice_upload builds the row blocks tested here (%lld blocks, %lld longer rows)", label,
               (long long)t->nblk, (long long)(t->nblkent - 2 * t->nblk - 2));
        free(blk);
    }
    tap_ok(s.nrows == m->A.nrows && s.ncols == m->A.nrows && s.nnz == m->A.nnz &&
           !memcmp(ptr, t->ptr, (size_t)t->nptr * sizeof *ptr) && !memcmp(col, t->col, (size_t)t->nent * sizeof *col) &&
           !memcmp(val, t->val, (size_t)t->nent * sizeof *val),
           "%s: clcg_slice_upload builds the layout tested here (%lld pointers, %lld stored entries)", label,
           (long long)t->nptr, (long long)t->nent);
    clcg_slice_free(&s);
    test_upload_pack(m, f, label);
    free(needed);
    free(ptr);
    free(col);
    free(val);
}

/* spmv_* head: (n, rows, ptr, col, val); csr-stream: (blocks, block list, ...) */
static void spmv_head(argset *a, const tstore *t, cl_uint n, cl_mem rows)
{
    au(a, t->bblk ? (cl_uint)t->nblk : n);
    am(a, t->bblk ? t->bblk : rows);
    am(a, t->bptr);
    am(a, t->bcol);
    am(a, t->bval);
}

/* spmv_* tail: (q, part, part_off, [vs | C], local) */
static void spmv_tail(argset *a, const tfmt *f, cl_mem q, cl_mem part, cl_uint off, size_t wg)
{
    am(a, q);
    am(a, part);
    au(a, off);
    if (f->fmt == FMT_CSR_VECTOR || f->fmt == FMT_SELL)
        au(a, f->param);
    al(a, wg);
}

/* A ticket for the summing work-group: one uint, 0. */
static cl_mem ticket_buf(void)
{
    cl_int e;
    const cl_uint zero = 0;
    cl_mem m = clCreateBuffer(dev.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, (void *)&zero, &e);
    CL(e);
    return m;
}

static cl_uint ticket_value(cl_mem m)
{
    cl_uint v = 0xdeadu;
    if (!stuck)
        CL(clEnqueueReadBuffer(dev.queue, m, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL));
    return v;
}

/* The (hi, lo) sum of n partial sums as the host adds them up: the bits a summing
 * work-group must give in hi (dot products in double-double do not depend on the order). */
static int fin_matches(const char *what, const double *fin, int64_t n, const double *part)
{
    double s[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; i++)
        clcg_dd_add(s, part + 2 * i);
    if (memcmp(&fin[0], &s[0], sizeof s[0]) == 0 && fabs(fin[1]) <= 0.5 * fabs(nextafter(s[0], INFINITY) - s[0]))
        return 1;
    tap_diag("  %s: summed (%.17g, %.3g), the partial sums add up to (%.17g, %.3g)", what, fin[0], fin[1], s[0], s[1]);
    return 0;
}

/* Rows 0, 3, 6, ...: the subset the overlap split would pass as `rows`. */
static cl_uint *every_third(int64_t n, int64_t *count)
{
    cl_uint *rows = xmalloc((size_t)n, sizeof *rows);
    *count = 0;
    for (int64_t i = 0; i < n; i += 3)
        rows[(*count)++] = (cl_uint)i;
    return rows;
}

/* fin (and its guard) after a launch given a ticket: the sum of the n partial sums where the
 * kernel has a summing work-group (sums), else left as poisoned.  The count of what is wrong. */
static int fin_bad(const char *what, const double *fin, int64_t n, const double *part, int sums, cl_mem bfin)
{
    int bad = 0;
    if (sums) {
        bad += !fin_matches(what, fin, n, part);
    } else if (!(isnan(fin[0]) && isnan(fin[1]))) {
        tap_diag("  %s: fin written (%.17g) by a kernel without a summing work-group", what, fin[0]);
        bad++;
    }
    return bad + guard_broken("fin", bfin, 2);
}

/* ---- spmv_*_dot: q = A p and the partial sums of p'q ---- */

static void test_spmv_dot(const tmat *m, const tfmt *f, const tstore *st, cl_kernel k, const char *label)
{
    const clcg_csr *A = &m->A;
    const int64_t n = A->nrows;
    int64_t nsub, bad_q = 0, bad_pq = 0, bad_rows = 0, bad_fin = 0, bad_share = 0, bad_off = 0, same = 1;
    char what[96];
    reseed(label);
    double *p = rvec(n, -1.0, 1.0), *pabs = xmalloc((size_t)n, sizeof *pabs);
    double *qref = xmalloc((size_t)n, sizeof *qref), *qabs = xmalloc((size_t)n, sizeof *qabs);
    double *tol = xmalloc((size_t)n, sizeof *tol), *q = xmalloc((size_t)n, sizeof *q);
    double *q0 = xmalloc((size_t)n, sizeof *q0), *part = xmalloc(NPARTS, sizeof *part);
    cl_uint *rows = every_third(n, &nsub);
    for (int64_t i = 0; i < n; i++)
        pabs[i] = fabs(p[i]);
    clcg_spmv_ref(A, p, qref);
    spmv_abs(A, pabs, qabs);
    spmv_tol(A, qabs, tol);
    const double pq = clcg_dot_ref(n, p, qref);
    double pq_sub = 0.0, scale = 0.0, scale_sub = 0.0;
    for (int64_t i = 0; i < n; i++) {
        scale += pabs[i] * qabs[i];
        if (i % 3 == 0) {
            pq_sub += p[i] * qref[i];
            scale_sub += pabs[i] * qabs[i];
        }
    }
    const double pq_tol = (4.0 * (double)n + 4.0 * (double)m->maxlen + 16.0) * EPS * scale;
    const double sub_tol = (4.0 * (double)n + 4.0 * (double)m->maxlen + 16.0) * EPS * scale_sub;
    cl_mem bp = dbuf_from((size_t)n, p), bq = dbuf((size_t)n), bpart = dbuf(NPARTS);
    cl_mem brows = ubuf_from((size_t)nsub, rows, (cl_uint)n), bfin = dbuf(2), bticket = ticket_buf();
    int nrun = 0;
    /* rows from n/3 on, as the solver passes a run of rows on a GPU (a global offset; the
       storage forms that number rows by work-item): their q and p'q */
    const int64_t first = n / 3;
    const int by_item = dev.info.is_gpu && (f->fmt == FMT_CSR_SCALAR || f->fmt == FMT_SELL);
    double pq_tail = 0.0, scale_tail = 0.0;
    for (int64_t i = first; i < n; i++) {
        pq_tail += p[i] * qref[i];
        scale_tail += pabs[i] * qabs[i];
    }
    const double tail_tol = (4.0 * (double)n + 4.0 * (double)m->maxlen + 16.0) * EPS * scale_tail;
    /* csr-stream has no summing work-group (spmv.cl): given a ticket, it leaves fin and the
       ticket alone (the host path sums its p'q with reduce_sum) */
    const int sums = !st->bblk;

    for (int t = 0; t < NSHAPES(all_shapes); t++) {
        const shape *L = &all_shapes[t];
        if (!shape_fits(L))
            continue;
        /* all rows */
        poison(bq, (size_t)n);
        poison(bpart, NPARTS);
        argset a = {k, 0};
        spmv_head(&a, st, (cl_uint)n, NULL);
        am(&a, bp);
        spmv_tail(&a, f, bq, bpart, 0, L->wg);
        am(&a, NULL);   /* fin, ticket: no summing work-group */
        am(&a, NULL);
        au(&a, 0);
        launch(k, L);
        get(bq, (size_t)n, q);
        get(bpart, NPARTS, part);
        snprintf(what, sizeof what, "q (wg %zu x %zu)", L->wg, L->ng);
        bad_q += mismatches(what, n, q, qref, tol) + guard_broken(what, bq, (size_t)n);
        if (nrun++ == 0)
            memcpy(q0, q, (size_t)n * sizeof *q);
        else if (memcmp(q0, q, (size_t)n * sizeof *q) != 0)
            same = 0;
        snprintf(what, sizeof what, "sum part[0..%zu) (wg %zu)", L->ng, L->wg);
        if (!close_to(what, psum((int64_t)L->ng, part), pq, pq_tol) ||
            touched("part", 2 * (int64_t)L->ng, NPARTS, part) + guard_broken("part", bpart, NPARTS) != 0)
            bad_pq++;

        /* a summing work-group: all rows with partial sums from 0, then again from ng (as the
           boundary rows after the interior ones); fin[0] the host's sum of part[0..ng), then
           of part[0..2 ng); q as without it; the ticket back to 0 after each */
        for (int h = 0; h < 2; h++) {
            double fin[2];
            const cl_uint off = h ? (cl_uint)L->ng : 0;
            poison(bq, (size_t)n);
            poison(bfin, 2);
            if (h == 0)
                poison(bpart, NPARTS);
            a.i = 0;
            spmv_head(&a, st, (cl_uint)n, NULL);
            am(&a, bp);
            spmv_tail(&a, f, bq, bpart, off, L->wg);
            am(&a, bfin);
            am(&a, bticket);
            au(&a, 0);   /* fin_n: the launch alone */
            launch(k, L);
            get(bq, (size_t)n, q);
            get(bpart, NPARTS, part);
            get(bfin, 2, fin);
            snprintf(what, sizeof what, "summing group, part_off %u: q (wg %zu x %zu)", off, L->wg, L->ng);
            bad_fin += mismatches(what, n, q, qref, tol);
            snprintf(what, sizeof what, "fin[0] = sum part[0..%zu) (wg %zu)", off + L->ng, L->wg);
            bad_fin += fin_bad(what, fin, (int64_t)(off + L->ng), part, sums, bfin);
            const cl_uint tv = ticket_value(bticket);
            if (tv != 0 && bad_fin++ < SHOW)
                tap_diag("  %s: ticket left at %u", what, tv);
        }

        /* two launches that share the ticket (fin_n = 2 ng, as the interior and boundary rows
           on two queues), part_off 0 and ng, in either order: the first leaves fin alone, the
           last group of the second sums part[0..2 ng); q as without it; the ticket back to 0 */
        for (int order = 0; order < 2; order++) {
            double fin[2], fin_mid[2] = {0.0, 0.0};
            poison(bq, (size_t)n);
            poison(bfin, 2);
            poison(bpart, NPARTS);
            for (int j = 0; j < 2; j++) {
                a.i = 0;
                spmv_head(&a, st, (cl_uint)n, NULL);
                am(&a, bp);
                spmv_tail(&a, f, bq, bpart, (j ^ order) ? (cl_uint)L->ng : 0, L->wg);
                am(&a, bfin);
                am(&a, bticket);
                au(&a, 2 * (cl_uint)L->ng);
                launch(k, L);
                if (j == 0)
                    get(bfin, 2, fin_mid);
            }
            get(bq, (size_t)n, q);
            get(bpart, NPARTS, part);
            get(bfin, 2, fin);
            snprintf(what, sizeof what, "shared ticket, order %d: q (wg %zu x %zu)", order, L->wg, L->ng);
            bad_share += mismatches(what, n, q, qref, tol);
            if (!(isnan(fin_mid[0]) && isnan(fin_mid[1])) && bad_share++ < SHOW)
                tap_diag("  %s: fin written by the first launch (%.17g)", what, fin_mid[0]);
            snprintf(what, sizeof what, "shared ticket, order %d: fin[0] = sum part[0..%zu) (wg %zu)", order,
                     2 * L->ng, L->wg);
            bad_share += fin_bad(what, fin, 2 * (int64_t)L->ng, part, sums, bfin);
            const cl_uint tv = ticket_value(bticket);
            if (tv != 0 && bad_share++ < SHOW)
                tap_diag("  %s: ticket left at %u", what, tv);
        }

        if (by_item && !st->bblk) {   /* rows [first, n) as a run: get_global_id(0) from first */
            poison(bq, (size_t)n);
            poison(bpart, NPARTS);
            a.i = 0;
            spmv_head(&a, st, (cl_uint)n, NULL);
            am(&a, bp);
            spmv_tail(&a, f, bq, bpart, 0, L->wg);
            am(&a, NULL);
            am(&a, NULL);
            au(&a, 0);
            launch_at(k, L, (size_t)first);
            get(bq, (size_t)n, q);
            get(bpart, NPARTS, part);
            for (int64_t i = 0; i < n; i++) {
                if (i >= first) {
                    if (!(fabs(q[i] - qref[i]) <= tol[i]) && bad_off++ < SHOW)
                        tap_diag("  rows from %lld: q[%lld] = %.17g, want %.17g", (long long)first, (long long)i, q[i],
                                 qref[i]);
                } else if (!isnan(q[i]) && bad_off++ < SHOW) {
                    tap_diag("  rows from %lld: q[%lld] written", (long long)first, (long long)i);
                }
            }
            snprintf(what, sizeof what, "rows from %lld: sum part[0..%zu) (wg %zu)", (long long)first, L->ng, L->wg);
            if (!close_to(what, psum((int64_t)L->ng, part), pq_tail, tail_tol) ||
                touched("part", 2 * (int64_t)L->ng, NPARTS, part) + guard_broken("rows from: q", bq, (size_t)n) != 0)
                bad_off++;
        }

        /* every third row, partial sums at PART_OFF (csr-stream takes no row list) */
        if (st->bblk)
            continue;
        poison(bq, (size_t)n);
        poison(bpart, NPARTS);
        a.i = 0;
        spmv_head(&a, st, (cl_uint)nsub, brows);
        am(&a, bp);
        spmv_tail(&a, f, bq, bpart, PART_OFF, L->wg);
        am(&a, NULL);
        am(&a, NULL);
        au(&a, 0);
        launch(k, L);
        get(bq, (size_t)n, q);
        get(bpart, NPARTS, part);
        for (int64_t i = 0; i < n; i++) {
            if (i % 3 == 0) {
                if (!(fabs(q[i] - qref[i]) <= tol[i]) && bad_rows++ < SHOW)
                    tap_diag("  rows list: q[%lld] = %.17g, want %.17g", (long long)i, q[i], qref[i]);
            } else if (!isnan(q[i]) && bad_rows++ < SHOW) {
                tap_diag("  rows list: q[%lld] written, row not listed", (long long)i);
            }
        }
        snprintf(what, sizeof what, "rows list: sum part[%d..%d) (wg %zu)", PART_OFF, PART_OFF + (int)L->ng, L->wg);
        if (!close_to(what, psum((int64_t)L->ng, part + 2 * PART_OFF), pq_sub, sub_tol) ||
            touched("part", 0, 2 * PART_OFF, part) + touched("part", 2 * (PART_OFF + (int64_t)L->ng), NPARTS, part) != 0)
            bad_rows++;
        bad_rows += guard_broken("rows list: q", bq, (size_t)n) + guard_broken("rows list: part", bpart, NPARTS);
    }
    tap_ok(bad_q == 0, "%s: q = A p, nothing written past n, %d launch shapes", label, nrun);
    tap_ok(same, "%s: q bit-identical over the launch shapes", label);
    if (st->bblk && nrun > 0) {
        /* each row's sum in its own order, whatever the blocks: the same bits as the plain
         * emulation, and again with blocks cut elsewhere (as other ranks or devices cut them) */
        double *qo = xmalloc((size_t)n, sizeof *qo);
        cl_uint *blk = xmalloc(3 * (size_t)n + 3, sizeof *blk);
        stream_order_ref(A, p, qo);
        int64_t diff = 0;
        for (int64_t i = 0; i < n; i++)
            if (memcmp(&q0[i], &qo[i], sizeof *qo) != 0 && diff++ < SHOW)
                tap_diag("  q[%lld] = %.17g, in the stated order %.17g", (long long)i, q0[i], qo[i]);
        tap_ok(diff == 0, "%s: every row summed in its stated order (entry order up to %d entries, then 32 or 256 lanes)",
               label, CLCG_STREAM_SEQ);
        const int64_t nb = stream_blocks(A, 7, blk), nent = stream_longs(A, nb, blk);
        cl_mem bblk = ubuf_from((size_t)nent, blk, (cl_uint)n);
        tstore other = *st;
        other.nblk = nb;
        other.bblk = bblk;
        const shape *L = &all_shapes[0];
        for (int t = 0; !shape_fits(L) && t + 1 < NSHAPES(all_shapes); t++)
            L = &all_shapes[t + 1];
        poison(bq, (size_t)n);
        argset a = {k, 0};
        spmv_head(&a, &other, (cl_uint)n, NULL);
        am(&a, bp);
        spmv_tail(&a, f, bq, bpart, 0, L->wg);
        am(&a, NULL);
        am(&a, NULL);
        au(&a, 0);
        launch(k, L);
        get(bq, (size_t)n, q);
        tap_ok(memcmp(q, q0, (size_t)n * sizeof *q) == 0, "%s: the same bits with blocks of at most 7 rows (%lld blocks)",
               label, (long long)nb);
        /* work-groups of 8: each work-item takes 4 of a longer row's 32 lanes */
        const shape small = {8, 3};
        poison(bq, (size_t)n);
        a.i = 0;
        spmv_head(&a, st, (cl_uint)n, NULL);
        am(&a, bp);
        spmv_tail(&a, f, bq, bpart, 0, small.wg);
        am(&a, NULL);
        am(&a, NULL);
        au(&a, 0);
        launch(k, &small);
        get(bq, (size_t)n, q);
        tap_ok(memcmp(q, q0, (size_t)n * sizeof *q) == 0, "%s: the same bits with work-groups of 8", label);
        release(bblk);
        free(blk);
        free(qo);
    }
    tap_ok(bad_pq == 0, "%s: sum of the partials = p'q (host), |err| <= %.0f eps |p|'|A||p|", label,
           pq_tol / EPS / (scale > 0 ? scale : 1));
    if (!st->bblk)
        tap_ok(bad_rows == 0, "%s: rows list (every third row), part_off %d: listed rows and their p'q only", label,
               PART_OFF);
    if (sums) {
        tap_ok(bad_fin == 0, "%s: a summing work-group (part_off 0 and ng): q unchanged, fin = the partial sums' sum, "
               "ticket back to 0", label);
        tap_ok(bad_share == 0, "%s: two launches sharing a ticket (fin_n = 2 ng), in either order: q unchanged, only "
               "the last group of the second sums part[0..2 ng), ticket back to 0", label);
    } else {
        tap_ok(bad_fin == 0 && bad_share == 0, "%s: given a ticket (alone or shared), q unchanged, fin untouched and the "
               "ticket at 0 (no summing work-group)", label);
    }
    if (by_item && !st->bblk)
        tap_ok(bad_off == 0, "%s: rows %lld..%lld as a run (global offset): those rows and their p'q only", label,
               (long long)first, (long long)n - 1);
    release(bfin);
    clReleaseMemObject(bticket);
    release(bp);
    release(bq);
    release(bpart);
    release(brows);
    free(p);
    free(pabs);
    free(qref);
    free(qabs);
    free(tol);
    free(q);
    free(q0);
    free(part);
    free(rows);
}

/* ---- spmv_*_cg: stop test, p = z + beta pprev, q = A p, partial sums of p'q ---- */

enum { N_CUR = 5, N_PREV = 3, N_RR = 4 };

typedef struct {
    const char *name;
    double rz_cur[N_CUR], rz_prev[N_PREV], rr[N_RR];
    int prev_poisoned;    /* rz_prev all NaN (first = 1 must not read it) */
    cl_uint first;
    int jacobi;
    double stop_in, tol2;
    double want_stop;     /* 0: runs; else the stop code */
    int rows;             /* every third row, part_off PART_OFF */
    double grow2;         /* scal[S_GROW2] where positive (else left SENTINEL: no growth test) */
} cg_case;

static const cg_case cg_cases[] = {
    {"runs, Jacobi, first=0", {0.5, 1.5, 0.25, 2.0, 0.75}, {1.0, 0.5, 2.5}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 0, 0, 0},
    {"runs, no preconditioner, first=0", {0.3, 0.1, 0.2, 0.4, 0.6}, {2.0, 1.0, 0.125}, {1.0, 1.0, 1.0, 1.0}, 0, 0, 0, 0, 1e-12, 0, 0, 0},
    {"runs, Jacobi, first=1 (beta = 0, rz_prev NaN and unused)", {1.0, 2.0, 3.0, 4.0, 5.0}, {0}, {1.0, 2.0, 3.0, 4.0}, 1, 1, 1, 0, 1e-12, 0, 0, 0},
    {"runs, rows list", {0.5, 1.5, 0.25, 2.0, 0.75}, {1.0, 0.5, 2.5}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 0, 1, 0},
    {"converged: rr <= tol2", {1.0, 1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1e-4, 2e-4, 0.0, 1e-4}, 0, 0, 1, 0, 1e-3, 1, 0, 0},
    {"converged: rr = tol2 exactly", {1.0, 1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {0.25, 0.5, 0.125, 0.125}, 0, 0, 1, 0, 1.0, 1, 0, 0},
    {"breakdown: rz < 0", {0.5, -1.0, 0.25, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 4, 0, 0},
    {"breakdown: rz = 0", {0.0, 0.0, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 0, 0, 1e-12, 4, 0, 0},
    {"NaN in rr", {1.0, 1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, NAN, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 3, 0, 0},
    {"Inf in rz", {1.0, INFINITY, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 3, 0, 0},
    {"converged before breakdown (rr <= tol2, rz < 0)", {-1.0, 0.0, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1e-6, 0.0, 0.0, 0.0}, 0, 0, 1, 0, 1.0, 1, 0, 0},
    {"NaN before converged (rr <= tol2, rz NaN)", {1.0, NAN, 0.0, 0.0, 0.0}, {1.0, 1.0, 1.0}, {1e-6, 0.0, 0.0, 0.0}, 0, 0, 1, 0, 1.0, 3, 0, 0},
    {"already stopped: nothing written", {1.0, 1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 2.0, 1e-12, -1, 0, 0},
    {"grew: rz > grow2", {1.0, 2.0, 3.0, 4.0, 5.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 1, 0, 1e-12, 5, 0, 10.0},
    {"runs: rz = grow2 exactly", {1.0, 2.0, 3.0, 4.0, 5.0}, {1.0, 1.0, 1.0}, {1.0, 2.0, 3.0, 4.0}, 0, 0, 0, 0, 1e-12, 0, 0, 15.0},
    {"converged before growth (rr <= tol2, rz > grow2)", {1.0, 2.0, 3.0, 4.0, 5.0}, {1.0, 1.0, 1.0}, {1e-6, 0.0, 0.0, 0.0}, 0, 0, 1, 0, 1.0, 1, 0, 10.0},
};

static void test_spmv_cg(const tmat *m, const tfmt *f, const tstore *st, cl_kernel k, const char *label)
{
    const clcg_csr *A = &m->A;
    const int64_t n = A->nrows;
    const cl_uint its = 17;
    int64_t nsub;
    char what[96];
    reseed(label);
    double *r = rvec(n, -1.0, 1.0), *dinv = rvec(n, 0.5, 2.0), *pprev = rvec(n, -1.0, 1.0);
    double *pref = xmalloc((size_t)n, sizeof *pref), *pabs = xmalloc((size_t)n, sizeof *pabs);
    double *qref = xmalloc((size_t)n, sizeof *qref), *qabs = xmalloc((size_t)n, sizeof *qabs);
    double *ptol = xmalloc((size_t)n, sizeof *ptol), *qtol = xmalloc((size_t)n, sizeof *qtol);
    double *p = xmalloc((size_t)n, sizeof *p), *q = xmalloc((size_t)n, sizeof *q);
    double *part = xmalloc(NPARTS, sizeof *part), nanv[N_PREV] = {NAN, NAN, NAN}, rzout[2];
    cl_uint *rows = every_third(n, &nsub);
    cl_mem br = dbuf_from((size_t)n, r), bdinv = dbuf_from((size_t)n, dinv), bpprev = dbuf_from((size_t)n, pprev);
    cl_mem bp = dbuf((size_t)n), bq = dbuf((size_t)n), bpart = dbuf(NPARTS), bscal = dbuf(S_COUNT);
    cl_mem bcur = dbuf(2 * N_CUR), bprev = dbuf(2 * N_PREV), brr = dbuf(2 * N_RR), brows = ubuf_from((size_t)nsub, rows, (cl_uint)n);
    cl_mem brzout = dbuf(2);

    for (size_t c = 0; c < sizeof cg_cases / sizeof cg_cases[0]; c++) {
        const cg_case *cc = &cg_cases[c];
        const double rz = sum(N_CUR, cc->rz_cur), rr = sum(N_RR, cc->rr);
        const double beta = cc->first ? 0.0 : rz / sum(N_PREV, cc->rz_prev);
        const int64_t nrows = cc->rows ? nsub : n;
        if (cc->rows && st->bblk)
            continue;   /* csr-stream takes no row list */
        const cl_uint off = cc->rows ? PART_OFF : 0;
        int64_t bad = 0;
        double pq = 0.0, scale = 0.0;

        /* the host's expectation when the kernel runs */
        for (int64_t i = 0; i < n; i++) {
            const double z = cc->jacobi ? dinv[i] * r[i] : r[i];
            pref[i] = z + beta * pprev[i];
            pabs[i] = fabs(z) + fabs(beta * pprev[i]);
            ptol[i] = 8.0 * EPS * pabs[i];
        }
        clcg_spmv_ref(A, pref, qref);
        spmv_abs(A, pabs, qabs);
        spmv_tol(A, qabs, qtol);
        for (int64_t t = 0; t < nrows; t++) {
            const int64_t i = cc->rows ? rows[t] : t;
            pq += pref[i] * qref[i];
            scale += pabs[i] * qabs[i];
        }
        const double pq_tol = (4.0 * (double)n + 4.0 * (double)m->maxlen + 32.0) * EPS * scale;

        for (int t = 0; t < NSHAPES(few_shapes); t++) {
            const shape *L = &few_shapes[t];
            double scal[S_COUNT], scal_in[S_COUNT];
            if (!shape_fits(L))
                continue;
            for (int j = 0; j < S_COUNT; j++)
                scal_in[j] = SENTINEL;
            scal_in[S_STOP] = cc->stop_in;
            scal_in[S_TOL2] = cc->tol2;
            if (cc->grow2 > 0)
                scal_in[S_GROW2] = cc->grow2;
            put(bscal, S_COUNT, scal_in);
            pput(bcur, N_CUR, cc->rz_cur);
            pput(bprev, N_PREV, cc->prev_poisoned ? nanv : cc->rz_prev);
            pput(brr, N_RR, cc->rr);
            poison(bp, (size_t)n);
            poison(bq, (size_t)n);
            poison(bpart, NPARTS);
            argset a = {k, 0};
            spmv_head(&a, st, (cl_uint)nrows, cc->rows ? brows : NULL);
            am(&a, br);
            am(&a, cc->jacobi ? bdinv : NULL);
            am(&a, bpprev);
            am(&a, bp);
            am(&a, bcur);
            au(&a, N_CUR);
            am(&a, bprev);
            au(&a, N_PREV);
            am(&a, brr);
            au(&a, N_RR);
            au(&a, cc->first);
            am(&a, bscal);
            au(&a, its);
            am(&a, brzout);
            poison(brzout, 2);
            spmv_tail(&a, f, bq, bpart, off, L->wg);
            launch(k, L);
            get(bp, (size_t)n, p);
            get(bq, (size_t)n, q);
            get(bpart, NPARTS, part);
            get(bscal, S_COUNT, scal);
            get(brzout, 2, rzout);
            bad += guard_broken("rz_out", brzout, 2);
            if (cc->want_stop < 0) {
                bad += touched("rz_out", 0, 2, rzout);
            } else if (isfinite(rz) && isfinite(rr)) {   /* r'z as a normalized pair, hi = scal[S_RZ] */
                bad += !close_to("rz_out hi", rzout[0], rz, 4.0 * N_CUR * EPS * abs_sum(N_CUR, cc->rz_cur));
                bad += !close_to("rz_out hi = scal[S_RZ]", rzout[0], scal[S_RZ], 0.0);
                bad += !close_to("rz_out normalized", rzout[0] + rzout[1], rzout[0], 0.0);
            }
            snprintf(what, sizeof what, "p (wg %zu x %zu)", L->wg, L->ng);
            bad += guard_broken(what, bp, (size_t)n);
            snprintf(what, sizeof what, "q (wg %zu x %zu)", L->wg, L->ng);
            bad += guard_broken(what, bq, (size_t)n);
            bad += guard_broken("part", bpart, NPARTS) + guard_broken("scal", bscal, S_COUNT);

            if (cc->want_stop < 0) {           /* stopped on entry: nothing at all changes */
                bad += memcmp(scal, scal_in, sizeof scal) != 0;
                bad += touched("p", 0, n, p) + touched("q", 0, n, q) + touched("part", 0, NPARTS, part);
            } else if (cc->want_stop > 0) {    /* stops now: flag, iteration, r'r and r'z; no p, q */
                bad += !close_to("scal[S_STOP]", scal[S_STOP], cc->want_stop, 0.0);
                bad += !close_to("scal[S_ITS]", scal[S_ITS], its, 0.0);
                if (isfinite(rr) && isfinite(rz)) {
                    bad += !close_to("scal[S_RR]", scal[S_RR], rr, 4.0 * N_RR * EPS * abs_sum(N_RR, cc->rr));
                    bad += !close_to("scal[S_RZ]", scal[S_RZ], rz, 4.0 * N_CUR * EPS * abs_sum(N_CUR, cc->rz_cur));
                }
                bad += touched("p", 0, n, p) + touched("q", 0, n, q) + touched("part", 0, NPARTS, part);
            } else {                           /* runs */
                bad += !close_to("scal[S_STOP]", scal[S_STOP], 0.0, 0.0);
                bad += !close_to("scal[S_ITS] (untouched)", scal[S_ITS], SENTINEL, 0.0);
                bad += !close_to("scal[S_RR]", scal[S_RR], rr, 4.0 * N_RR * EPS * abs_sum(N_RR, cc->rr));
                bad += !close_to("scal[S_RZ]", scal[S_RZ], rz, 4.0 * N_CUR * EPS * abs_sum(N_CUR, cc->rz_cur));
                for (int j = S_ALPHA; j < S_COUNT; j++)
                    if (j != S_RZ)
                        bad += !close_to("scal[other] (untouched)", scal[j], scal_in[j], 0.0);
                if (cc->rows) {
                    for (int64_t i = 0; i < n; i++) {
                        const int listed = i % 3 == 0;
                        if (listed ? !(fabs(p[i] - pref[i]) <= ptol[i] && fabs(q[i] - qref[i]) <= qtol[i])
                                   : !(isnan(p[i]) && isnan(q[i]))) {
                            if (bad++ < SHOW)
                                tap_diag("  row %lld (%s): p = %.17g (want %.17g), q = %.17g (want %.17g)", (long long)i,
                                         listed ? "listed" : "not listed", p[i], pref[i], q[i], qref[i]);
                        }
                    }
                    bad += touched("part", 0, 2 * (int64_t)off, part);
                } else {
                    snprintf(what, sizeof what, "p (wg %zu x %zu)", L->wg, L->ng);
                    bad += mismatches(what, n, p, pref, ptol);
                    snprintf(what, sizeof what, "q (wg %zu x %zu)", L->wg, L->ng);
                    bad += mismatches(what, n, q, qref, qtol);
                }
                snprintf(what, sizeof what, "sum part[%u..%u) (wg %zu)", off, off + (cl_uint)L->ng, L->wg);
                bad += !close_to(what, psum((int64_t)L->ng, part + 2 * off), pq, pq_tol);
                bad += touched("part", 2 * (off + (int64_t)L->ng), NPARTS, part);
            }
        }
        tap_ok(bad == 0, "%s: %s", label, cc->name);
    }
    release(br);
    release(bdinv);
    release(bpprev);
    release(bp);
    release(bq);
    release(bpart);
    release(bscal);
    release(bcur);
    release(brzout);
    release(bprev);
    release(brr);
    release(brows);
    free(r);
    free(dinv);
    free(pprev);
    free(pref);
    free(pabs);
    free(qref);
    free(qabs);
    free(ptol);
    free(qtol);
    free(p);
    free(q);
    free(part);
    free(rows);
}

static const int64_t vec_sizes[] = {1, 100, 1000, 4099};
#define NSIZES ((int)(sizeof vec_sizes / sizeof vec_sizes[0]))

/* update_p_cg: the fused path's stop test and p = z + beta pprev on their own (before a
 * plain SpMV), on the same cases as spmv_*_cg */
static void test_update_p_cg(void)
{
    cl_kernel k = kernel("update_p_cg");
    const cl_uint its = 9;
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        char label[96];
        snprintf(label, sizeof label, "update_p_cg, n=%lld", (long long)n);
        reseed(label);
        double *r = rvec(n, -1.0, 1.0), *dinv = rvec(n, 0.5, 2.0), *pprev = rvec(n, -1.0, 1.0);
        double *pref = xmalloc((size_t)n, sizeof *pref), *ptol = xmalloc((size_t)n, sizeof *ptol);
        double *p = xmalloc((size_t)n, sizeof *p), nanv[N_PREV] = {NAN, NAN, NAN}, rzout[2];
        cl_mem br = dbuf_from((size_t)n, r), bdinv = dbuf_from((size_t)n, dinv), bpprev = dbuf_from((size_t)n, pprev);
        cl_mem bp = dbuf((size_t)n), bscal = dbuf(S_COUNT), brzout = dbuf(2);
        cl_mem bcur = dbuf(2 * N_CUR), bprev = dbuf(2 * N_PREV), brr = dbuf(2 * N_RR);
        for (size_t c = 0; c < sizeof cg_cases / sizeof cg_cases[0]; c++) {
            const cg_case *cc = &cg_cases[c];
            const double rz = sum(N_CUR, cc->rz_cur), rr = sum(N_RR, cc->rr);
            const double beta = cc->first ? 0.0 : rz / sum(N_PREV, cc->rz_prev);
            int64_t bad = 0;
            if (cc->rows)
                continue;
            for (int64_t i = 0; i < n; i++) {
                const double z = cc->jacobi ? dinv[i] * r[i] : r[i];
                pref[i] = z + beta * pprev[i];
                ptol[i] = 8.0 * EPS * (fabs(z) + fabs(beta * pprev[i]));
            }
            for (int t = 0; t < NSHAPES(few_shapes); t++) {
                const shape *L = &few_shapes[t];
                double scal[S_COUNT], scal_in[S_COUNT];
                char what[64];
                if (!shape_fits(L))
                    continue;
                for (int j = 0; j < S_COUNT; j++)
                    scal_in[j] = SENTINEL;
                scal_in[S_STOP] = cc->stop_in;
                scal_in[S_TOL2] = cc->tol2;
                if (cc->grow2 > 0)
                    scal_in[S_GROW2] = cc->grow2;
                put(bscal, S_COUNT, scal_in);
                pput(bcur, N_CUR, cc->rz_cur);
                pput(bprev, N_PREV, cc->prev_poisoned ? nanv : cc->rz_prev);
                pput(brr, N_RR, cc->rr);
                poison(bp, (size_t)n);
                poison(brzout, 2);
                argset a = {k, 0};
                au(&a, (cl_uint)n);
                am(&a, br);
                am(&a, cc->jacobi ? bdinv : NULL);
                am(&a, bpprev);
                am(&a, bp);
                am(&a, bcur);
                au(&a, N_CUR);
                am(&a, bprev);
                au(&a, N_PREV);
                am(&a, brr);
                au(&a, N_RR);
                au(&a, cc->first);
                am(&a, bscal);
                au(&a, its);
                am(&a, brzout);
                al(&a, L->wg);
                launch(k, L);
                get(bp, (size_t)n, p);
                get(bscal, S_COUNT, scal);
                get(brzout, 2, rzout);
                bad += guard_broken("p", bp, (size_t)n) + guard_broken("scal", bscal, S_COUNT) +
                       guard_broken("rz_out", brzout, 2);
                if (cc->want_stop < 0) {           /* stopped on entry: nothing changes */
                    bad += memcmp(scal, scal_in, sizeof scal) != 0;
                    bad += touched("p", 0, n, p) + touched("rz_out", 0, 2, rzout);
                    continue;
                }
                if (isfinite(rz) && isfinite(rr)) {
                    bad += !close_to("scal[S_RR]", scal[S_RR], rr, 4.0 * N_RR * EPS * abs_sum(N_RR, cc->rr));
                    bad += !close_to("scal[S_RZ]", scal[S_RZ], rz, 4.0 * N_CUR * EPS * abs_sum(N_CUR, cc->rz_cur));
                    bad += !close_to("rz_out hi = scal[S_RZ]", rzout[0], scal[S_RZ], 0.0);
                    bad += !close_to("rz_out normalized", rzout[0] + rzout[1], rzout[0], 0.0);
                }
                if (cc->want_stop > 0) {           /* stops now: flag and iteration; no p */
                    bad += !close_to("scal[S_STOP]", scal[S_STOP], cc->want_stop, 0.0);
                    bad += !close_to("scal[S_ITS]", scal[S_ITS], its, 0.0);
                    bad += touched("p", 0, n, p);
                } else {                           /* runs: p for every row */
                    bad += !close_to("scal[S_STOP]", scal[S_STOP], 0.0, 0.0);
                    bad += !close_to("scal[S_ITS] (untouched)", scal[S_ITS], SENTINEL, 0.0);
                    snprintf(what, sizeof what, "p (wg %zu x %zu)", L->wg, L->ng);
                    bad += mismatches(what, n, p, pref, ptol);
                }
            }
            tap_ok(bad == 0, "%s: %s", label, cc->name);
        }
        release(br);
        release(bdinv);
        release(bpprev);
        release(bp);
        release(bscal);
        release(brzout);
        release(bcur);
        release(bprev);
        release(brr);
        free(r);
        free(dinv);
        free(pprev);
        free(pref);
        free(ptol);
        free(p);
    }
    clReleaseKernel(k);
}

static void test_spmv(void)
{
    for (int kind = 0; kind < NMATS; kind++) {
        tmat m;
        memset(&m, 0, sizeof m);
        reseed("matrix");
        mat_make(&m, kind);
        for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
            tstore st;
            char fl[32], label[200], name[64];
            memset(&st, 0, sizeof st);
            fmt_label(&fmts[i], fl, sizeof fl);
            store_build(&st, &m.A, &fmts[i]);
            snprintf(label, sizeof label, "%s, %s", fl, m.name);
            test_upload(&m, &fmts[i], &st, label);
            snprintf(name, sizeof name, "%s_dot", spmv_base(&fmts[i]));
            snprintf(label, sizeof label, "%s (%s), %s", name, fl, m.name);
            cl_kernel k = kernel(name);
            test_spmv_dot(&m, &fmts[i], &st, k, label);
            clReleaseKernel(k);
            snprintf(name, sizeof name, "%s_cg", spmv_base(&fmts[i]));
            snprintf(label, sizeof label, "%s (%s), %s", name, fl, m.name);
            k = kernel(name);
            test_spmv_cg(&m, &fmts[i], &st, k, label);
            clReleaseKernel(k);
            store_free(&st);
        }
        clcg_csr_free(&m.A);
    }
}

/* ---- vector kernels ---- */


/* dot_part then reduce_sum: the two-stage dot product */
static void test_dot(void)
{
    cl_kernel kd = kernel("dot_part"), kr = kernel("reduce_sum");
    const cl_uint slot = 3;
    for (int si = -1; si < NSIZES; si++) {
        const int64_t n = si < 0 ? 0 : vec_sizes[si];
        char label[64];
        int64_t bad = 0;
        snprintf(label, sizeof label, "dot_part + reduce_sum, n=%lld", (long long)n);
        reseed(label);
        double *x = rvec(n, -1.0, 1.0), *y = rvec(n, -1.0, 1.0), part[NPARTS], out[8];
        /* the device sums the same rounded products in double-double: the result is the
         * host's to within one rounding, whatever the launch shape */
        double pabs = 0.0;
        for (int64_t i = 0; i < n; i++)
            pabs += fabs(x[i] * y[i]);
        const double ref = clcg_dot_ref(n, x, y), tol = EPS * fabs(ref) + 4.0 * (double)n * EPS * EPS * pabs;
        cl_mem bx = dbuf_from((size_t)n, x), by = dbuf_from((size_t)n, y), bpart = dbuf(NPARTS), bout = dbuf(8);
        for (int t = 0; t < NSHAPES(all_shapes); t++) {
            const shape *L = &all_shapes[t];
            const shape one = {L->wg, 1};
            char what[64];
            if (!shape_fits(L))
                continue;
            poison(bpart, NPARTS);
            poison(bout, 8);
            argset a = {kd, 0};
            au(&a, (cl_uint)n);
            am(&a, bx);
            am(&a, by);
            am(&a, bpart);
            al(&a, L->wg);
            launch(kd, L);
            argset b = {kr, 0};
            for (int i = 0; i < 3; i++) {   /* one group: only the first array is summed */
                am(&b, bpart);
                au(&b, (cl_uint)L->ng);
            }
            am(&b, bout);
            au(&b, slot);
            al(&b, L->wg);
            launch(kr, &one);
            get(bpart, NPARTS, part);
            get(bout, 8, out);
            snprintf(what, sizeof what, "x'y (wg %zu x %zu)", L->wg, L->ng);
            bad += !close_to(what, out[2 * slot], ref, tol);
            snprintf(what, sizeof what, "sum part (wg %zu x %zu)", L->wg, L->ng);
            bad += !close_to(what, psum((int64_t)L->ng, part), ref, tol);
            bad += touched("part", 2 * (int64_t)L->ng, NPARTS, part);
            bad += touched("out", 0, 2 * slot, out) + touched("out", 2 * slot + 2, 8, out);
            bad += guard_broken("part", bpart, NPARTS) + guard_broken("out", bout, 8);
        }
        tap_ok(bad == 0, "%s: d = x'y to one rounding on %d launch shapes, only part[0..ng) and out[%u] written",
               label, NSHAPES(all_shapes), slot);
        release(bx);
        release(by);
        release(bpart);
        release(bout);
        free(x);
        free(y);
    }

    /* reduce_sum over more partials than work-items */
    {
        const int64_t np = 300;
        int64_t bad = 0;
        double out[8];
        reseed("reduce_sum of 300 partials");
        double *v = rvec(np, -1.0, 1.0);
        double exact[2] = {0.0, 0.0};
        for (int64_t i = 0; i < np; i++)
            clcg_dd_acc(exact, v[i]);
        const double ref = exact[0], tol = EPS * fabs(ref) + 4.0 * (double)np * EPS * EPS * abs_sum(np, v);
        cl_mem bv = pbuf_from((size_t)np, v), bout = dbuf(8);
        for (int t = 0; t < NSHAPES(few_shapes); t++) {
            const shape one = {few_shapes[t].wg, 1};
            if (!shape_fits(&one))
                continue;
            poison(bout, 8);
            argset b = {kr, 0};
            for (int i = 0; i < 3; i++) {
                am(&b, bv);
                au(&b, (cl_uint)np);
            }
            am(&b, bout);
            au(&b, 0);
            al(&b, one.wg);
            launch(kr, &one);
            get(bout, 8, out);
            bad += !close_to("sum", out[0], ref, tol) + touched("out", 2, 8, out) + guard_broken("out", bout, 8);
        }
        tap_ok(bad == 0, "reduce_sum of 300 partials with local sizes 32/64/128 (more partials than work-items)");
        release(bv);
        release(bout);
        free(v);
    }

    /* reduce_sum of three arrays of different lengths in one launch: group g sums array g
     * into out[slot + g], and a fourth group writes nothing */
    {
        const int64_t len[3] = {300, 1, 77};
        const cl_uint slot = 1;
        int64_t bad = 0;
        double out[12], *v[3], ref[3], tol[3];
        cl_mem bv[3], bout = dbuf(12);
        reseed("reduce_sum of three arrays");
        for (int a = 0; a < 3; a++) {
            double exact[2] = {0.0, 0.0};
            v[a] = rvec(len[a], -1.0, 1.0);
            for (int64_t i = 0; i < len[a]; i++)
                clcg_dd_acc(exact, v[a][i]);
            ref[a] = exact[0];
            tol[a] = EPS * fabs(ref[a]) + 4.0 * (double)len[a] * EPS * EPS * abs_sum(len[a], v[a]);
            bv[a] = pbuf_from((size_t)len[a], v[a]);
        }
        for (int t = 0; t < NSHAPES(few_shapes); t++) {
            for (size_t ng = 1; ng <= 4; ng++) {
                const shape L = {few_shapes[t].wg, ng};
                const size_t done = ng < 3 ? ng : 3;
                if (!shape_fits(&L))
                    continue;
                poison(bout, 12);
                argset b = {kr, 0};
                for (int a = 0; a < 3; a++) {
                    am(&b, bv[a]);
                    au(&b, (cl_uint)len[a]);
                }
                am(&b, bout);
                au(&b, slot);
                al(&b, L.wg);
                launch(kr, &L);
                get(bout, 12, out);
                for (size_t a = 0; a < done; a++)
                    bad += !close_to("sum", out[2 * (slot + a)], ref[a], tol[a]);
                bad += touched("out", 0, 2 * slot, out) + touched("out", 2 * (slot + (cl_uint)done), 12, out) +
                       guard_broken("out", bout, 12);
            }
        }
        tap_ok(bad == 0, "reduce_sum of arrays of 300, 1 and 77 partials with 1-4 groups: group g sums array g, "
                         "nothing else written");
        for (int a = 0; a < 3; a++) {
            release(bv[a]);
            free(v[a]);
        }
        release(bout);
    }
    clReleaseKernel(kd);
    clReleaseKernel(kr);
}

/* axpy, xpay, jacobi, pack: elementwise, compared entry by entry */
static void test_elementwise(void)
{
    cl_kernel kaxpy = kernel("axpy"), kxpay = kernel("xpay"), kjac = kernel("jacobi"), kpack = kernel("pack");
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        char label[64];
        int64_t bad_axpy = 0, bad_xpay = 0, bad_jac = 0, bad_pack = 0, npack = n / 3 + 1;
        snprintf(label, sizeof label, "n=%lld", (long long)n);
        reseed(label);
        double *x = rvec(n, -1.0, 1.0), *y = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0);
        double *want = xmalloc((size_t)n, sizeof *want), *tol = xmalloc((size_t)n, sizeof *tol);
        double *got = xmalloc((size_t)n, sizeof *got);
        const double alpha = uni(-2.0, 2.0);
        cl_uint *idx = xmalloc((size_t)npack, sizeof *idx);
        for (int64_t k = 0; k < npack; k++)
            idx[k] = (cl_uint)below(n);
        cl_mem bx = dbuf_from((size_t)n, x), by = dbuf((size_t)n), bd = dbuf_from((size_t)n, d);
        cl_mem bz = dbuf((size_t)n), bidx = ubuf_from((size_t)npack, idx, 0), bbuf = dbuf((size_t)npack);
        for (int t = 0; t < NSHAPES(few_shapes); t++) {
            const shape *L = &few_shapes[t];
            char what[64];
            if (!shape_fits(L))
                continue;
            /* axpy: y = a x + y from entry lo on (lo = 0, then a third of n) */
            for (int part = 0; part < 2; part++) {
                const int64_t lo = part ? n / 3 : 0;
                char whatp[80];
                put(by, (size_t)n, y);
                argset ap = {kaxpy, 0};
                au(&ap, (cl_uint)lo);
                au(&ap, (cl_uint)n);
                ad(&ap, alpha);
                am(&ap, bx);
                am(&ap, by);
                launch(kaxpy, L);
                get(by, (size_t)n, got);
                memcpy(want, y, (size_t)n * sizeof *y);
                clcg_axpy_ref(n - lo, alpha, x + lo, want + lo);
                for (int64_t i = 0; i < n; i++)
                    tol[i] = i < lo ? 0.0 : 2.0 * EPS * (fabs(alpha * x[i]) + fabs(y[i]));
                snprintf(whatp, sizeof whatp, "axpy from %lld, y (wg %zu x %zu)", (long long)lo, L->wg, L->ng);
                bad_axpy += mismatches(whatp, n, got, want, tol) + guard_broken(whatp, by, (size_t)n);
            }
            argset a = {kaxpy, 0};
            /* xpay: y = x + a y */
            put(by, (size_t)n, y);
            a.k = kxpay;
            a.i = 0;
            au(&a, (cl_uint)n);
            am(&a, bx);
            ad(&a, alpha);
            am(&a, by);
            launch(kxpay, L);
            get(by, (size_t)n, got);
            memcpy(want, y, (size_t)n * sizeof *y);
            clcg_xpay_ref(n, x, alpha, want);
            for (int64_t i = 0; i < n; i++)
                tol[i] = 2.0 * EPS * (fabs(x[i]) + fabs(alpha * y[i]));
            snprintf(what, sizeof what, "xpay y (wg %zu x %zu)", L->wg, L->ng);
            bad_xpay += mismatches(what, n, got, want, tol) + guard_broken(what, by, (size_t)n);
            /* jacobi: z = D^-1 r, one rounding: exact */
            poison(bz, (size_t)n);
            a.k = kjac;
            a.i = 0;
            au(&a, (cl_uint)n);
            am(&a, bd);
            am(&a, bx);
            am(&a, bz);
            launch(kjac, L);
            get(bz, (size_t)n, got);
            clcg_jacobi_ref(n, d, x, want);
            for (int64_t i = 0; i < n; i++)
                tol[i] = 0.0;
            snprintf(what, sizeof what, "jacobi z (wg %zu x %zu)", L->wg, L->ng);
            bad_jac += mismatches(what, n, got, want, tol) + guard_broken(what, bz, (size_t)n);
            /* pack: buf[k] = x[idx[k]], a copy: exact */
            poison(bbuf, (size_t)npack);
            a.k = kpack;
            a.i = 0;
            au(&a, (cl_uint)npack);
            am(&a, bidx);
            am(&a, bx);
            am(&a, bbuf);
            launch(kpack, L);
            double *buf = xmalloc((size_t)npack, sizeof *buf);
            get(bbuf, (size_t)npack, buf);
            for (int64_t k = 0; k < npack; k++)
                if (memcmp(&buf[k], &x[idx[k]], sizeof *buf) != 0 && bad_pack++ < SHOW)
                    tap_diag("  pack buf[%lld] = %.17g, want x[%u] = %.17g", (long long)k, buf[k], idx[k], x[idx[k]]);
            free(buf);
            bad_pack += guard_broken("pack buf", bbuf, (size_t)npack);
        }
        tap_ok(bad_axpy == 0, "axpy, %s: y = a x + y within 2 eps (|a x| + |y|) from entry 0 and from n/3 (below: "
               "untouched), 3 launch shapes", label);
        tap_ok(bad_xpay == 0, "xpay, %s: y = x + a y within 2 eps (|x| + |a y|), 3 launch shapes", label);
        tap_ok(bad_jac == 0, "jacobi, %s: z = D^-1 r exactly, 3 launch shapes", label);
        tap_ok(bad_pack == 0, "pack, %s: buf = x[idx] exactly, %lld entries with repeats, 3 launch shapes", label,
               (long long)npack);
        release(bx);
        release(by);
        release(bd);
        release(bz);
        release(bidx);
        release(bbuf);
        free(x);
        free(y);
        free(d);
        free(want);
        free(tol);
        free(got);
        free(idx);
    }
    clReleaseKernel(kaxpy);
    clReleaseKernel(kxpay);
    clReleaseKernel(kjac);
    clReleaseKernel(kpack);
}

/* After a launch of shape L that wrote r (n entries) and the partial sums of r'z and r'r:
 * r against want (within tol), the sums against rz and rr (sums: how to name them), nothing
 * past 2 ng partials written, no guard broken.  got: room for n entries.  Returns the faults. */
static int64_t check_r_sums(const shape *L, int64_t n, cl_mem br, cl_mem brz, cl_mem brr, double *got,
                            const double *want, const double *tol, const char *sums, double rz, double rz_tol,
                            double rr, double rr_tol)
{
    double prz[NPARTS], prr[NPARTS];
    char what[64];
    int64_t bad = 0;
    get(br, (size_t)n, got);
    get(brz, NPARTS, prz);
    get(brr, NPARTS, prr);
    snprintf(what, sizeof what, "r (wg %zu x %zu)", L->wg, L->ng);
    bad += mismatches(what, n, got, want, tol) + guard_broken(what, br, (size_t)n);
    snprintf(what, sizeof what, "%sr'z (wg %zu x %zu)", sums, L->wg, L->ng);
    bad += !close_to(what, psum((int64_t)L->ng, prz), rz, rz_tol);
    snprintf(what, sizeof what, "%sr'r (wg %zu x %zu)", sums, L->wg, L->ng);
    bad += !close_to(what, psum((int64_t)L->ng, prr), rr, rr_tol);
    bad += touched("part_rz", 2 * (int64_t)L->ng, NPARTS, prz) + touched("part_rr", 2 * (int64_t)L->ng, NPARTS, prr);
    bad += guard_broken("part_rz", brz, NPARTS) + guard_broken("part_rr", brr, NPARTS);
    return bad;
}

/* residual_init: r = b - q and the partial sums of r'z, r'r */
static void test_residual_init(void)
{
    cl_kernel k = kernel("residual_init");
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        for (int jac = 0; jac < 2; jac++) {
            char label[96];
            int64_t bad = 0;
            snprintf(label, sizeof label, "residual_init, n=%lld, %s", (long long)n, jac ? "Jacobi" : "no preconditioner");
            reseed(label);
            double *b = rvec(n, -1.0, 1.0), *q = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0);
            double *want = xmalloc((size_t)n, sizeof *want), *got = xmalloc((size_t)n, sizeof *got);
            double *tol = xmalloc((size_t)n, sizeof *tol);
            double rz = 0.0, rr = 0.0, rzabs = 0.0;
            for (int64_t i = 0; i < n; i++) {
                want[i] = b[i] - q[i];
                tol[i] = 0.0;   /* one subtraction: exact */
                const double z = jac ? d[i] * want[i] : want[i];
                rz += want[i] * z;
                rzabs += fabs(want[i] * z);
                rr += want[i] * want[i];
            }
            const double rz_tol = (4.0 * (double)n + 8.0) * EPS * rzabs, rr_tol = (4.0 * (double)n + 8.0) * EPS * rr;
            cl_mem bb = dbuf_from((size_t)n, b), bq = dbuf_from((size_t)n, q), bd = dbuf_from((size_t)n, d);
            cl_mem br = dbuf((size_t)n), brz = dbuf(NPARTS), brr = dbuf(NPARTS);
            for (int t = 0; t < NSHAPES(all_shapes); t++) {
                const shape *L = &all_shapes[t];
                if (!shape_fits(L))
                    continue;
                poison(br, (size_t)n);
                poison(brz, NPARTS);
                poison(brr, NPARTS);
                argset a = {k, 0};
                au(&a, (cl_uint)n);
                am(&a, bb);
                am(&a, bq);
                am(&a, br);
                am(&a, jac ? bd : NULL);
                am(&a, brz);
                am(&a, brr);
                al(&a, L->wg);
                am(&a, NULL);   /* wrr: unweighted r'r */
                launch(k, L);
                bad += check_r_sums(L, n, br, brz, brr, got, want, tol, "", rz, rz_tol, rr, rr_tol);
            }
            tap_ok(bad == 0, "%s: r = b - q exactly, r'z and r'r partials, %d launch shapes", label,
                   NSHAPES(all_shapes));
            release(bb);
            release(bq);
            release(bd);
            release(br);
            release(brz);
            release(brr);
            free(b);
            free(q);
            free(d);
            free(want);
            free(got);
            free(tol);
        }
    }
    clReleaseKernel(k);
}

/* update_p_pack: p = z + beta pprev for all rows (beta from the host; 0 in the first
 * iteration) and buf[k] = p[idx[k]] for the pack list (every fifth row, descending, one row
 * twice), the same bits as the p the kernel wrote; nothing written past n or npack */
static void test_update_p_pack(void)
{
    cl_kernel k = kernel("update_p_pack");
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        for (int c = 0; c < 4; c++) {
            const int jac = c == 0 || c == 2, first = c >= 2;
            static const char *const names[4] = {"beta != 0, Jacobi", "beta != 0, no preconditioner",
                                                 "beta = 0, Jacobi", "beta = 0, no preconditioner"};
            char label[128];
            int64_t bad = 0, m = 0;
            snprintf(label, sizeof label, "update_p_pack, n=%lld, %s", (long long)n, names[c]);
            reseed(label);
            double *r = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0), *pprev = rvec(n, -1.0, 1.0);
            double *want = xmalloc((size_t)n, sizeof *want), *got = xmalloc((size_t)n, sizeof *got);
            double *tol = xmalloc((size_t)n, sizeof *tol), *pk = xmalloc((size_t)n + 2, sizeof *pk);
            cl_uint *idx = xmalloc((size_t)n + 2, sizeof *idx);
            const double beta = first ? 0.0 : uni(0.1, 2.0);
            for (int64_t i = n - 1; i >= 0; i--)
                if (i % 5 == 0)
                    idx[m++] = (cl_uint)i;
            if (n > 0)
                idx[m++] = (cl_uint)(n / 2);
            for (int64_t i = 0; i < n; i++) {
                const double z = jac ? d[i] * r[i] : r[i];
                want[i] = z + beta * pprev[i];
                tol[i] = first ? 0.0 : 2.0 * EPS * (fabs(z) + fabs(beta * pprev[i]));
            }
            cl_mem br = dbuf_from((size_t)n, r), bd = dbuf_from((size_t)n, d), bpp = dbuf_from((size_t)n, pprev);
            cl_mem bp = dbuf((size_t)n), bbuf = dbuf((size_t)m), bidx = ubuf_from((size_t)m, idx, (cl_uint)n);
            for (int t = 0; t < NSHAPES(few_shapes); t++) {
                const shape *L = &few_shapes[t];
                char what[64];
                if (!shape_fits(L))
                    continue;
                poison(bp, (size_t)n);
                poison(bbuf, (size_t)m);
                argset a = {k, 0};
                au(&a, (cl_uint)n);
                am(&a, br);
                am(&a, jac ? bd : NULL);
                am(&a, bpp);
                am(&a, bp);
                ad(&a, beta);
                au(&a, (cl_uint)m);
                am(&a, bidx);
                am(&a, bbuf);
                launch(k, L);
                get(bp, (size_t)n, got);
                get(bbuf, (size_t)m, pk);
                snprintf(what, sizeof what, "p (wg %zu x %zu)", L->wg, L->ng);
                bad += mismatches(what, n, got, want, tol) + guard_broken(what, bp, (size_t)n);
                for (int64_t j = 0; j < m; j++)
                    if (memcmp(&pk[j], &got[idx[j]], sizeof(double)) != 0 && bad++ < SHOW)
                        tap_diag("  buf[%lld] = %.17g, p[%u] = %.17g", (long long)j, pk[j], idx[j], got[idx[j]]);
                bad += guard_broken("buf", bbuf, (size_t)m);
            }
            tap_ok(bad == 0, "%s: p = z + beta pprev%s, the %lld packed entries bit-identical to p, 3 launch shapes",
                   label, first ? " = z exactly" : "", (long long)m);
            release(br);
            release(bd);
            release(bpp);
            release(bp);
            release(bbuf);
            release(bidx);
            free(r);
            free(d);
            free(pprev);
            free(want);
            free(got);
            free(tol);
            free(pk);
            free(idx);
        }
    }
    clReleaseKernel(k);
}

/* update_r: r -= alpha q (alpha an argument), partial sums of the new r'z and r'r, with and
 * without Jacobi; the host's r to within rounding, the sums within the dot's bound, nothing
 * past ng partials written */
static void test_update_r(void)
{
    cl_kernel k = kernel("update_r");
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        for (int jac = 0; jac < 2; jac++) {
            char label[128];
            int64_t bad = 0;
            snprintf(label, sizeof label, "update_r, n=%lld, %s", (long long)n, jac ? "Jacobi" : "no preconditioner");
            reseed(label);
            double *r = rvec(n, -1.0, 1.0), *q = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0);
            double *rw = xmalloc((size_t)n, sizeof *rw), *rt = xmalloc((size_t)n, sizeof *rt);
            double *got = xmalloc((size_t)n, sizeof *got);
            const double alpha = uni(0.1, 2.0);
            double srz = 0.0, srr = 0.0, srz_abs = 0.0, srr_abs = 0.0;
            memcpy(rw, r, (size_t)n * sizeof *r);
            clcg_axpy_ref(n, -alpha, q, rw);
            for (int64_t i = 0; i < n; i++) {
                const double ra = fabs(r[i]) + fabs(alpha * q[i]), di = jac ? d[i] : 1.0;
                rt[i] = 8.0 * EPS * ra;
                srz += rw[i] * di * rw[i];
                srr += rw[i] * rw[i];
                srz_abs += ra * di * ra;
                srr_abs += ra * ra;
            }
            const double rz_tol = (4.0 * (double)n + 16.0) * EPS * srz_abs, rr_tol = (4.0 * (double)n + 16.0) * EPS * srr_abs;
            cl_mem br = dbuf((size_t)n), bq = dbuf_from((size_t)n, q), bd = dbuf_from((size_t)n, d);
            cl_mem brz = dbuf(NPARTS), brr = dbuf(NPARTS), bfin = dbuf(4), bticket = ticket_buf();
            for (int t = 0; t < NSHAPES(all_shapes); t++) {
                const shape *L = &all_shapes[t];
                if (!shape_fits(L))
                    continue;
                put(br, (size_t)n, r);
                poison(brz, NPARTS);
                poison(brr, NPARTS);
                argset a = {k, 0};
                au(&a, (cl_uint)n);
                ad(&a, alpha);
                am(&a, br);
                am(&a, bq);
                am(&a, jac ? bd : NULL);
                am(&a, brz);
                am(&a, brr);
                al(&a, L->wg);
                am(&a, NULL);   /* wrr: unweighted r'r */
                am(&a, NULL);   /* fin, ticket: no summing work-group */
                am(&a, NULL);
                launch(k, L);
                bad += check_r_sums(L, n, br, brz, brr, got, rw, rt, "new ", srz, rz_tol, srr, rr_tol);
                /* again with a summing work-group, twice (the ticket is set back to 0): r as
                   before, and fin the host's sums of the partial sums */
                for (int rep = 0; rep < 2; rep++) {
                    double pz[2 * NPARTS], pr[2 * NPARTS], fin[4];
                    put(br, (size_t)n, r);
                    poison(brz, NPARTS);
                    poison(brr, NPARTS);
                    poison(bfin, 4);
                    a.i = 9;
                    am(&a, bfin);
                    am(&a, bticket);
                    launch(k, L);
                    bad += check_r_sums(L, n, br, brz, brr, got, rw, rt, "new ", srz, rz_tol, srr, rr_tol);
                    get(brz, NPARTS, pz);
                    get(brr, NPARTS, pr);
                    get(bfin, 4, fin);
                    bad += !fin_matches("update_r fin[0] (r'z)", fin, (int64_t)L->ng, pz);
                    bad += !fin_matches("update_r fin[1] (r'r)", fin + 2, (int64_t)L->ng, pr);
                    bad += guard_broken("fin", bfin, 4);
                    const cl_uint tv = ticket_value(bticket);
                    if (tv != 0) {
                        bad++;
                        tap_diag("  update_r: ticket left at %u", tv);
                    }
                }
            }
            tap_ok(bad == 0, "%s: r = r - alpha q, r'z and r'r partials, %d launch shapes; a summing work-group's "
                   "fin = the partials' sums, ticket back to 0", label, NSHAPES(all_shapes));
            release(bfin);
            clReleaseMemObject(bticket);
            release(br);
            release(bq);
            release(bd);
            release(brz);
            release(brr);
            free(r);
            free(q);
            free(d);
            free(rw);
            free(rt);
            free(got);
        }
    }
    clReleaseKernel(k);
}

/* update_p_list: p[i] = z_i + beta pprev_i for the listed rows (every third, in descending
 * order), the others untouched; the same bits as the expression on the host */
static void test_update_p_list(void)
{
    cl_kernel k = kernel("update_p_list");
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        for (int jac = 0; jac < 2; jac++) {
            char label[128];
            int64_t bad = 0, m = 0;
            snprintf(label, sizeof label, "update_p_list, n=%lld, %s", (long long)n, jac ? "Jacobi" : "no preconditioner");
            reseed(label);
            double *r = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0), *pprev = rvec(n, -1.0, 1.0);
            double *want = xmalloc((size_t)n, sizeof *want), *got = xmalloc((size_t)n, sizeof *got);
            cl_uint *rows = xmalloc((size_t)n, sizeof *rows);
            const double beta = uni(0.1, 2.0);
            for (int64_t i = n - 1; i >= 0; i--)
                if (i % 3 == 0)
                    rows[m++] = (cl_uint)i;
            for (int64_t i = 0; i < n; i++) {
                const double z = jac ? d[i] * r[i] : r[i];
                want[i] = i % 3 == 0 ? z + beta * pprev[i] : NAN;
            }
            cl_mem br = dbuf_from((size_t)n, r), bd = dbuf_from((size_t)n, d), bpp = dbuf_from((size_t)n, pprev);
            cl_mem bp = dbuf((size_t)n), brows = ubuf_from((size_t)m, rows, (cl_uint)n);
            for (int t = 0; t < NSHAPES(few_shapes); t++) {
                const shape *L = &few_shapes[t];
                if (!shape_fits(L))
                    continue;
                poison(bp, (size_t)n);
                argset a = {k, 0};
                au(&a, (cl_uint)m);
                am(&a, brows);
                am(&a, br);
                am(&a, jac ? bd : NULL);
                am(&a, bpp);
                am(&a, bp);
                ad(&a, beta);
                launch(k, L);
                get(bp, (size_t)n, got);
                for (int64_t i = 0; i < n; i++)
                    if (!(i % 3 == 0 ? got[i] == want[i] : isnan(got[i])) && bad++ < SHOW)
                        tap_diag("  p[%lld] = %.17g, want %.17g", (long long)i, got[i], want[i]);
                bad += guard_broken("p", bp, (size_t)n);
            }
            tap_ok(bad == 0, "%s: listed rows bit-exact, others untouched, 3 launch shapes", label);
            release(br);
            release(bd);
            release(bpp);
            release(bp);
            release(brows);
            free(r);
            free(d);
            free(pprev);
            free(want);
            free(got);
            free(rows);
        }
    }
    clReleaseKernel(k);
}

/* update_xr: alpha = rz / pq, x += alpha p, r -= alpha q, partials of the new r'z, r'r;
 * a non-positive or non-finite p'q (or r'z) stops instead */
typedef struct {
    const char *name;
    double pq[3], rz[2];
    int jacobi;
    double stop_in, want_stop;   /* want_stop: 0 runs, > 0 stop code, < 0 stopped on entry */
} xr_case;

static const xr_case xr_cases[] = {
    {"runs, Jacobi", {0.75, 1.5, 0.25}, {0.5, 1.0}, 1, 0.0, 0.0},
    {"runs, no preconditioner", {2.0, 1.0, 0.5}, {0.25, 0.5}, 0, 0.0, 0.0},
    {"p'q < 0: indefinite", {0.5, -1.0, 0.25}, {0.5, 1.0}, 1, 0.0, 2.0},
    {"p'q = 0: indefinite", {0.0, 0.0, 0.0}, {0.5, 1.0}, 1, 0.0, 2.0},
    {"p'q NaN", {0.5, NAN, 0.25}, {0.5, 1.0}, 1, 0.0, 3.0},
    {"p'q Inf", {0.5, INFINITY, 0.25}, {0.5, 1.0}, 0, 0.0, 3.0},
    {"r'z NaN, p'q > 0", {0.5, 1.0, 0.25}, {NAN, 1.0}, 1, 0.0, 3.0},
    {"stopped on entry: nothing written", {0.5, 1.0, 0.25}, {0.5, 1.0}, 1, 4.0, -1.0},
};

static void test_update_xr(void)
{
    cl_kernel k = kernel("update_xr");
    const cl_uint its = 23;
    for (int si = 0; si < NSIZES; si++) {
        const int64_t n = vec_sizes[si];
        for (size_t c = 0; c < sizeof xr_cases / sizeof xr_cases[0]; c++) {
            const xr_case *xc = &xr_cases[c];
            char label[128];
            int64_t bad = 0;
            snprintf(label, sizeof label, "update_xr, n=%lld, %s", (long long)n, xc->name);
            reseed(label);
            double *x = rvec(n, -1.0, 1.0), *r = rvec(n, -1.0, 1.0), *p = rvec(n, -1.0, 1.0);
            double *q = rvec(n, -1.0, 1.0), *d = rvec(n, 0.5, 2.0);
            double *xw = xmalloc((size_t)n, sizeof *xw), *rw = xmalloc((size_t)n, sizeof *rw);
            double *xt = xmalloc((size_t)n, sizeof *xt), *rt = xmalloc((size_t)n, sizeof *rt);
            double *got = xmalloc((size_t)n, sizeof *got), prz[NPARTS], prr[NPARTS];
            double scal_in[S_COUNT], scal[S_COUNT];
            const double pq = sum(3, xc->pq), rz = sum(2, xc->rz), alpha = rz / pq;
            double srz = 0.0, srr = 0.0, srz_abs = 0.0, srr_abs = 0.0;
            memcpy(xw, x, (size_t)n * sizeof *x);
            memcpy(rw, r, (size_t)n * sizeof *r);
            if (xc->want_stop == 0.0) {
                clcg_axpy_ref(n, alpha, p, xw);
                clcg_axpy_ref(n, -alpha, q, rw);
            }
            for (int64_t i = 0; i < n; i++) {
                const double ra = fabs(r[i]) + fabs(alpha * q[i]), di = xc->jacobi ? d[i] : 1.0;
                xt[i] = 8.0 * EPS * (fabs(x[i]) + fabs(alpha * p[i]));
                rt[i] = 8.0 * EPS * ra;
                if (xc->want_stop != 0.0)
                    xt[i] = rt[i] = 0.0;
                srz += rw[i] * di * rw[i];
                srr += rw[i] * rw[i];
                srz_abs += ra * di * ra;
                srr_abs += ra * ra;
            }
            const double rz_tol = (4.0 * (double)n + 16.0) * EPS * srz_abs, rr_tol = (4.0 * (double)n + 16.0) * EPS * srr_abs;
            for (int j = 0; j < S_COUNT; j++)
                scal_in[j] = SENTINEL;
            scal_in[S_STOP] = xc->stop_in;
            cl_mem bx = dbuf((size_t)n), br = dbuf((size_t)n), bp = dbuf_from((size_t)n, p);
            cl_mem bq = dbuf_from((size_t)n, q), bd = dbuf_from((size_t)n, d), bpq = pbuf_from(3, xc->pq);
            cl_mem brzin = pbuf_from(2, xc->rz), brz = dbuf(NPARTS), brr = dbuf(NPARTS), bscal = dbuf(S_COUNT);
            for (int t = 0; t < NSHAPES(all_shapes); t++) {
                const shape *L = &all_shapes[t];
                char what[64];
                if (!shape_fits(L))
                    continue;
                put(bx, (size_t)n, x);
                put(br, (size_t)n, r);
                put(bscal, S_COUNT, scal_in);
                poison(brz, NPARTS);
                poison(brr, NPARTS);
                argset a = {k, 0};
                au(&a, (cl_uint)n);
                am(&a, bx);
                am(&a, br);
                am(&a, bp);
                am(&a, bq);
                am(&a, xc->jacobi ? bd : NULL);
                am(&a, bpq);
                au(&a, 3);
                am(&a, brzin);
                au(&a, 2);
                am(&a, brz);
                am(&a, brr);
                am(&a, bscal);
                au(&a, its);
                al(&a, L->wg);
                am(&a, NULL);   /* wrr: unweighted r'r */
                launch(k, L);
                get(bx, (size_t)n, got);
                snprintf(what, sizeof what, "x (wg %zu x %zu)", L->wg, L->ng);
                bad += mismatches(what, n, got, xw, xt);
                get(br, (size_t)n, got);
                snprintf(what, sizeof what, "r (wg %zu x %zu)", L->wg, L->ng);
                bad += mismatches(what, n, got, rw, rt);
                get(brz, NPARTS, prz);
                get(brr, NPARTS, prr);
                get(bscal, S_COUNT, scal);
                snprintf(what, sizeof what, "x (wg %zu x %zu)", L->wg, L->ng);
                bad += guard_broken(what, bx, (size_t)n);
                snprintf(what, sizeof what, "r (wg %zu x %zu)", L->wg, L->ng);
                bad += guard_broken(what, br, (size_t)n);
                bad += guard_broken("part_rz", brz, NPARTS) + guard_broken("part_rr", brr, NPARTS) +
                       guard_broken("scal", bscal, S_COUNT);
                if (xc->want_stop < 0) {
                    bad += memcmp(scal, scal_in, sizeof scal) != 0;
                    bad += touched("part_rz", 0, NPARTS, prz) + touched("part_rr", 0, NPARTS, prr);
                } else if (xc->want_stop > 0) {
                    bad += !close_to("scal[S_STOP]", scal[S_STOP], xc->want_stop, 0.0);
                    bad += !close_to("scal[S_ITS]", scal[S_ITS], its, 0.0);
                    if (isfinite(pq))
                        bad += !close_to("scal[S_PQ]", scal[S_PQ], pq, 8.0 * EPS * abs_sum(3, xc->pq));
                    else if (!(isnan(pq) ? isnan(scal[S_PQ]) : scal[S_PQ] == pq) && bad++ < SHOW)
                        tap_diag("  scal[S_PQ] = %g, want %g", scal[S_PQ], pq);
                    bad += !close_to("scal[S_ALPHA] (untouched)", scal[S_ALPHA], SENTINEL, 0.0);
                    bad += touched("part_rz", 0, NPARTS, prz) + touched("part_rr", 0, NPARTS, prr);
                } else {
                    bad += !close_to("scal[S_STOP]", scal[S_STOP], 0.0, 0.0);
                    bad += !close_to("scal[S_ITS] (untouched)", scal[S_ITS], SENTINEL, 0.0);
                    bad += !close_to("scal[S_ALPHA]", scal[S_ALPHA], alpha, 8.0 * EPS * fabs(alpha));
                    bad += !close_to("scal[S_PQ]", scal[S_PQ], pq, 8.0 * EPS * abs_sum(3, xc->pq));
                    snprintf(what, sizeof what, "new r'z (wg %zu x %zu)", L->wg, L->ng);
                    bad += !close_to(what, psum((int64_t)L->ng, prz), srz, rz_tol);
                    snprintf(what, sizeof what, "new r'r (wg %zu x %zu)", L->wg, L->ng);
                    bad += !close_to(what, psum((int64_t)L->ng, prr), srr, rr_tol);
                    bad += touched("part_rz", 2 * (int64_t)L->ng, NPARTS, prz) +
                           touched("part_rr", 2 * (int64_t)L->ng, NPARTS, prr);
                }
            }
            tap_ok(bad == 0, "%s, %d launch shapes", label, NSHAPES(all_shapes));
            release(bx);
            release(br);
            release(bp);
            release(bq);
            release(bd);
            release(bpq);
            release(brzin);
            release(brz);
            release(brr);
            release(bscal);
            free(x);
            free(r);
            free(p);
            free(q);
            free(d);
            free(xw);
            free(rw);
            free(xt);
            free(rt);
            free(got);
        }
    }
    clReleaseKernel(k);
}

/* ---- the fused updates of the other CG variants: update_sr, update_pipe ----
 * Arguments (n, alpha, beta, <vectors>, dinv, <partial sums>, local); the host twin below
 * updates the vectors in place and gives each entry's magnitude (the scale of its
 * rounding error) and the sums with their magnitudes. */
enum { MAXV = 10, MAXS = 3 };

typedef struct {
    const char *kname, *what;
    int nvec, nsum;
    const char *names[MAXV], *sums[MAXS];
    int written[MAXV];
    void (*ref)(int64_t i, double alpha, double beta, const double *d, double **v, double **mag, double *s,
                double *sabs);
} upd_desc;

/* Chronopoulos-Gear: x r u w p s */
static void sr_ref(int64_t i, double al, double be, const double *d, double **v, double **mg, double *s, double *sa)
{
    double *x = v[0], *r = v[1], *u = v[2], *w = v[3], *p = v[4], *sv = v[5];
    const double di = d ? d[i] : 1.0;
    const double mp = fabs(u[i]) + fabs(be * p[i]), ms = fabs(w[i]) + fabs(be * sv[i]);
    const double mx = fabs(x[i]) + fabs(al) * mp, mr = fabs(r[i]) + fabs(al) * ms;
    const double pi = u[i] + be * p[i], si = w[i] + be * sv[i];
    p[i] = pi;
    sv[i] = si;
    x[i] += al * pi;
    r[i] = r[i] - al * si;
    u[i] = d ? di * r[i] : r[i];
    mg[0][i] = mx, mg[1][i] = mr, mg[2][i] = di * mr, mg[3][i] = 0.0, mg[4][i] = mp, mg[5][i] = ms;
    s[0] += r[i] * u[i], sa[0] += mr * di * mr;
    s[1] += r[i] * r[i], sa[1] += mr * mr;
}

/* Ghysels-Vanroose: x r u w m nv z q s p */
static void pipe_ref(int64_t i, double al, double be, const double *d, double **v, double **mg, double *s, double *sa)
{
    double *x = v[0], *r = v[1], *u = v[2], *w = v[3], *m = v[4], *nv = v[5], *z = v[6], *q = v[7], *sv = v[8],
           *p = v[9];
    const double di = d ? d[i] : 1.0;
    const double mz = fabs(nv[i]) + fabs(be * z[i]), mq = fabs(m[i]) + fabs(be * q[i]);
    const double ms = fabs(w[i]) + fabs(be * sv[i]), mp = fabs(u[i]) + fabs(be * p[i]);
    const double mx = fabs(x[i]) + fabs(al) * mp, mr = fabs(r[i]) + fabs(al) * ms;
    const double mu = fabs(u[i]) + fabs(al) * mq, mw = fabs(w[i]) + fabs(al) * mz;
    const double zi = nv[i] + be * z[i], qi = m[i] + be * q[i], si = w[i] + be * sv[i], pi = u[i] + be * p[i];
    z[i] = zi, q[i] = qi, sv[i] = si, p[i] = pi;
    x[i] += al * pi;
    r[i] = r[i] - al * si;
    u[i] = u[i] - al * qi;
    w[i] = w[i] - al * zi;
    m[i] = d ? di * w[i] : w[i];
    mg[0][i] = mx, mg[1][i] = mr, mg[2][i] = mu, mg[3][i] = mw, mg[4][i] = di * mw, mg[5][i] = 0.0;
    mg[6][i] = mz, mg[7][i] = mq, mg[8][i] = ms, mg[9][i] = mp;
    s[0] += r[i] * u[i], sa[0] += mr * mu;
    s[1] += w[i] * u[i], sa[1] += mw * mu;
    s[2] += r[i] * r[i], sa[2] += mr * mr;
}

static const upd_desc upds[] = {
    {"update_sr", "p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s, u = M^-1 r; r'u, r'r", 6, 2,
     {"x", "r", "u", "w", "p", "s"}, {"r'u", "r'r"}, {1, 1, 1, 0, 1, 1}, sr_ref},
    {"update_pipe", "z q s p recurrences, x r u w updates, m = M^-1 w; r'u, w'u, r'r", 10, 3,
     {"x", "r", "u", "w", "m", "nv", "z", "q", "s", "p"}, {"r'u", "w'u", "r'r"}, {1, 1, 1, 1, 1, 0, 1, 1, 1, 1},
     pipe_ref},
};

static void test_updates(void)
{
    for (size_t ui = 0; ui < sizeof upds / sizeof upds[0]; ui++) {
        const upd_desc *U = &upds[ui];
        cl_int e;
        cl_kernel k = clCreateKernel(dev.prog, U->kname, &e);
        if (e == CL_INVALID_KERNEL_NAME) {
            tap_ok(1, "%s # SKIP not in the kernels of this build", U->kname);
            continue;
        }
        CL(e);
        for (int si = 0; si < NSIZES; si++) {
            for (int jac = 0; jac < 2; jac++) {
                const int64_t n = vec_sizes[si];
                char label[192];
                int64_t bad = 0;
                snprintf(label, sizeof label, "%s, n=%lld, %s", U->kname, (long long)n, jac ? "Jacobi" : "no preconditioner");
                reseed(label);
                double *in[MAXV], *want[MAXV], *mag[MAXV], *tol = xmalloc((size_t)n, sizeof *tol);
                double *got = xmalloc((size_t)n, sizeof *got), *d = rvec(n, 0.5, 2.0);
                double sums[MAXS] = {0}, sabs[MAXS] = {0}, parts[NPARTS];
                cl_mem bv[MAXV], bs[MAXS], bd = dbuf_from((size_t)n, d);
                const double alpha = uni(0.1, 2.0), beta = uni(0.1, 2.0);
                for (int j = 0; j < U->nvec; j++) {
                    in[j] = rvec(n, -1.0, 1.0);
                    want[j] = xmalloc((size_t)n, sizeof *want[j]);
                    mag[j] = xmalloc((size_t)n, sizeof *mag[j]);
                    memcpy(want[j], in[j], (size_t)n * sizeof *in[j]);
                    bv[j] = dbuf((size_t)n);
                }
                for (int64_t i = 0; i < n; i++)
                    U->ref(i, alpha, beta, jac ? d : NULL, want, mag, sums, sabs);
                for (int j = 0; j < U->nsum; j++)
                    bs[j] = dbuf(NPARTS);
                for (int t = 0; t < NSHAPES(few_shapes); t++) {
                    const shape *L = &few_shapes[t];
                    char what[64];
                    if (!shape_fits(L))
                        continue;
                    argset a = {k, 0};
                    au(&a, (cl_uint)n);
                    ad(&a, alpha);
                    ad(&a, beta);
                    for (int j = 0; j < U->nvec; j++) {
                        put(bv[j], (size_t)n, in[j]);
                        am(&a, bv[j]);
                    }
                    am(&a, jac ? bd : NULL);
                    for (int j = 0; j < U->nsum; j++) {
                        poison(bs[j], NPARTS);
                        am(&a, bs[j]);
                    }
                    al(&a, L->wg);
                    launch(k, L);
                    for (int j = 0; j < U->nvec; j++) {
                        get(bv[j], (size_t)n, got);
                        for (int64_t i = 0; i < n; i++)
                            tol[i] = U->written[j] ? 8.0 * EPS * mag[j][i] : 0.0;
                        snprintf(what, sizeof what, "%s (wg %zu x %zu)", U->names[j], L->wg, L->ng);
                        bad += mismatches(what, n, got, want[j], tol) + guard_broken(what, bv[j], (size_t)n);
                    }
                    for (int j = 0; j < U->nsum; j++) {
                        get(bs[j], NPARTS, parts);
                        snprintf(what, sizeof what, "%s (wg %zu x %zu)", U->sums[j], L->wg, L->ng);
                        bad += !close_to(what, psum((int64_t)L->ng, parts), sums[j], (4.0 * (double)n + 16.0) * EPS * sabs[j]);
                        bad += touched(U->sums[j], 2 * (int64_t)L->ng, NPARTS, parts) + guard_broken(what, bs[j], NPARTS);
                    }
                }
                tap_ok(bad == 0, "%s: %s, 3 launch shapes", label, U->what);
                for (int j = 0; j < U->nvec; j++) {
                    release(bv[j]);
                    free(in[j]);
                    free(want[j]);
                    free(mag[j]);
                }
                for (int j = 0; j < U->nsum; j++)
                    release(bs[j]);
                release(bd);
                free(tol);
                free(got);
                free(d);
            }
        }
        clReleaseKernel(k);
    }
}

/* check_stop: one work-group sums the r'r and r'z partials and sets the stop flag */
static void test_check_stop(void)
{
    cl_kernel k = kernel("check_stop");
    enum { NRR = 5, NRZ = 300 };   /* more r'z partials than work-items */
    static const struct {
        const char *name;
        double rr_scale, rz_shift, tol2, stop_in, want;   /* want < 0: stopped on entry */
        int nan_rr, inf_rz;
        double grow2;   /* scal[S_GROW2] where positive, else left SENTINEL (no growth test) */
    } cases[] = {
        {"runs: r'r > tol2, r'z > 0", 1.0, 1.0, 1e-12, 0.0, 0.0, 0, 0, 0},
        {"converged: r'r <= tol2", 1e-8, 1.0, 1e-3, 0.0, 1.0, 0, 0, 0},
        {"converged: r'r = tol2 exactly", -1.0, 1.0, 1.0, 0.0, 1.0, 0, 0, 0},
        {"breakdown: r'z < 0", 1.0, -1.0, 1e-12, 0.0, 4.0, 0, 0, 0},
        {"NaN in r'r", 1.0, 1.0, 1e-12, 0.0, 3.0, 1, 0, 0},
        {"Inf in r'z", 1.0, 1.0, 1e-12, 0.0, 3.0, 0, 1, 0},
        {"converged before breakdown", 1e-8, -1.0, 1e-3, 0.0, 1.0, 0, 0, 0},
        {"NaN before converged", 1e-8, 1.0, 1e-3, 0.0, 3.0, 1, 0, 0},
        {"stopped on entry: nothing written", 1.0, 1.0, 1e-12, 3.0, -1.0, 0, 0, 0},
        {"grew: r'z > grow2", 1.0, 8.0, 1e-12, 0.0, 5.0, 0, 0, 4.0},
        {"runs: r'z below grow2", 1.0, 1.0, 1e-12, 0.0, 0.0, 0, 0, 4.0},
        {"converged before growth", 1e-8, 8.0, 1e-3, 0.0, 1.0, 0, 0, 4.0},
    };
    const cl_uint its = 41;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char label[96];
        int64_t bad = 0;
        double rr[NRR], rz[NRZ], scal_in[S_COUNT], scal[S_COUNT];
        snprintf(label, sizeof label, "check_stop, %s", cases[c].name);
        if (stuck) {
            tap_ok(0, "%s: not run, the device is blocked by a launch that hangs", label);
            continue;
        }
        reseed(label);
        for (int i = 0; i < NRR; i++)   /* rr_scale < 0: dyadic parts summing to 1 exactly */
            rr[i] = cases[c].rr_scale < 0 ? (i < NRR - 1 ? 0.125 : 0.5) : cases[c].rr_scale * uni(0.0, 1.0);
        for (int i = 0; i < NRZ; i++)   /* mixed signs; the sum has the sign of rz_shift */
            rz[i] = uni(-1.0, 1.0);
        const double shift = cases[c].rz_shift - sum(NRZ, rz);
        rz[NRZ - 1] += shift;
        if (cases[c].nan_rr)
            rr[2] = NAN;
        if (cases[c].inf_rz)
            rz[7] = INFINITY;
        const double srr = sum(NRR, rr), srz = sum(NRZ, rz);
        for (int j = 0; j < S_COUNT; j++)
            scal_in[j] = SENTINEL;
        scal_in[S_STOP] = cases[c].stop_in;
        scal_in[S_TOL2] = cases[c].tol2;
        if (cases[c].grow2 > 0)
            scal_in[S_GROW2] = cases[c].grow2;
        cl_mem brr = pbuf_from(NRR, rr), brz = pbuf_from(NRZ, rz), bscal = dbuf(S_COUNT);
        for (int t = 0; t < NSHAPES(few_shapes); t++) {
            const shape one = {few_shapes[t].wg, 1};
            if (!shape_fits(&one))
                continue;
            put(bscal, S_COUNT, scal_in);
            argset a = {k, 0};
            am(&a, brr);
            au(&a, NRR);
            am(&a, brz);
            au(&a, NRZ);
            am(&a, bscal);
            au(&a, its);
            al(&a, one.wg);
            launch(k, &one);
            get(bscal, S_COUNT, scal);
            bad += guard_broken("scal", bscal, S_COUNT);
            if (cases[c].want < 0) {
                bad += memcmp(scal, scal_in, sizeof scal) != 0;
                continue;
            }
            bad += !close_to("scal[S_STOP]", scal[S_STOP], cases[c].want, 0.0);
            bad += !close_to("scal[S_ITS]", scal[S_ITS], cases[c].want != 0.0 ? its : SENTINEL, 0.0);
            if (isfinite(srr) && isfinite(srz)) {
                bad += !close_to("scal[S_RR]", scal[S_RR], srr, 4.0 * NRR * EPS * abs_sum(NRR, rr));
                bad += !close_to("scal[S_RZ]", scal[S_RZ], srz, 4.0 * NRZ * EPS * abs_sum(NRZ, rz));
            }
            bad += !close_to("scal[S_TOL2] (untouched)", scal[S_TOL2], cases[c].tol2, 0.0);
            for (int j = S_ALPHA; j < S_COUNT; j++)
                if (j != S_RZ)
                    bad += !close_to("scal[other] (untouched)", scal[j], scal_in[j], 0.0);
        }
        tap_ok(bad == 0, "%s (%d r'r and %d r'z partials, local sizes 32/64/128)", label, NRR, NRZ);
        release(brr);
        release(brz);
        release(bscal);
    }
    if (!stuck)
        clReleaseKernel(k);
}

int main(int argc, char **argv)
{
    const char *type = getenv("CLCG_DEVICE_TYPE");
    clcg_devinfo *list = NULL;
    int count = 0;
    double t0;

    MPI_Init(&argc, &argv);
    t0 = MPI_Wtime();
    if (clcg_ocl_find_devices(type && *type ? type : "cpu", NULL, &list, &count) != CLCG_OK || count == 0) {
        tap_skip_all("no OpenCL device");
        MPI_Finalize();
        return 0;
    }
    if (!list[0].has_fp64) {
        tap_skip_all("the OpenCL device lacks cl_khr_fp64");
        free(list);
        MPI_Finalize();
        return 0;
    }
    tap_diag("device: %s (%s, %s), %u compute units", list[0].name, list[0].platform_name, list[0].driver,
             list[0].compute_units);
    {   /* the build options by the mean row length: csr-stream's L2 prefetch below 24 entries */
        const clcg_row_stats r16 = {1000, 16000, 900}, r24 = {1000, 24000, 900}, r23 = {1000, 23999, 900};
        char a[256], b[256], c[256];
        clcg_build_options(&r16, a, sizeof a);
        clcg_build_options(&r24, b, sizeof b);
        clcg_build_options(&r23, c, sizeof c);
        tap_ok(!strcmp(a, "-DCLCG_PRECISION=64") && !strcmp(c, a) && !strcmp(b, "-DCLCG_PRECISION=64 -DSTREAM_PREFETCH=0"),
               "build options: prefetch kept at a mean row of 16 and 23.999 ('%s'), left out at 24 ('%s')", a, b);
    }
    if (clcg_dev_open(&list[0], 0, "-DCLCG_PRECISION=64", &dev) != CLCG_OK) {
        tap_ok(0, "open the device and build the kernels: %s", clcg_error_message());
        free(list);
        MPI_Finalize();
        return tap_done();
    }
    test_dot();
    test_elementwise();
    test_residual_init();
    test_update_p_pack();
    test_update_p_list();
    test_update_xr();
    test_update_r();
    test_updates();
    test_spmv();
    test_update_p_cg();
    test_check_stop();   /* last: a kernel that hangs blocks the queue for good */
    tap_diag("%.1f s", MPI_Wtime() - t0);
    if (stuck) {
        /* the device thread still spins in the hung kernel: releasing the queue would
         * wait for it forever, so leave without tearing down OpenCL */
        MPI_Finalize();
        tap_done();
        _exit(0);
    }
    clcg_dev_close(&dev);
    free(list);
    MPI_Finalize();
    return tap_done();
}
