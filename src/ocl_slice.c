/* A device's share of the rank's rows: choose the storage form (CSR scalar, CSR vector,
 * SELL-C), build it with the device's local column numbering, and create the buffers,
 * pinned staging areas and kernels. */
#include "cg_ocl.h"
#include "clcg_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *clcg_format_name(clcg_fmt f)
{
    static const char *const names[] = {"csr-scalar", "csr-vector", "sell", "csr-adaptive", "csr-stream"};
    return names[f];
}

static const char *const knames[K_COUNT] = {"spmv_cg", "spmv", "update_p_cg", "update_xr", "update_p_pack", "update_p_list",
                                            "update_sr",
                                            "update_pipe", "residual_init", "reduce_sum", "check_stop",
                                            "pack", "dot_part", "jacobi", "update_r", "axpy"};

const char *clcg_kernel_name(int kid)
{
    return knames[kid];
}

void clcg_row_stats_of(const clcg_csr *A, clcg_row_stats *st)
{
    st->nrows = A->nrows;
    st->nnz = A->nnz;
    st->maxlen = 0;
    for (int64_t i = 0; i < A->nrows; i++)
        if (A->rowptr[i + 1] - A->rowptr[i] > st->maxlen)
            st->maxlen = A->rowptr[i + 1] - A->rowptr[i];
}

/* csr-stream asks L2 for its next block while it sums the current one (STREAM_PREFETCH in
 * cl/spmv.cl).  That pays with short rows and costs with longer ones: H200, power-law
 * matrices of 80 M entries, SpMV GB/s with / without (bench/RESULTS.md, 2026-11-24 01:19 UTC):
 * mean row 8: 3158 / 2928, 16: 3184 / 2936, 24: 2712 / 2702, 32: 2411 / 2576, 64: 2055 /
 * 2271, 128: 1726 / 1882.  So it is left out from a mean of 24 entries a row. */
#define STREAM_PREFETCH_BELOW 24.0

void clcg_build_options(const clcg_row_stats *st, char *buf, size_t size)
{
    const double mean = st->nrows ? (double)st->nnz / (double)st->nrows : 0.0;
    snprintf(buf, size, "-DCLCG_PRECISION=64%s", mean >= STREAM_PREFETCH_BELOW ? " -DSTREAM_PREFETCH=0" : "");
}

/* Row-length statistics decide: long rows want a team per row, regular short rows SELL
 * (GPUs) and plain CSR on CPUs. */
clcg_fmt clcg_format_choose(const clcg_row_stats *st, const char *name, const clcg_devinfo *d, unsigned *vs)
{
    const double mean = st->nrows ? (double)st->nnz / (double)st->nrows : 0.0;
    const int64_t maxlen = st->maxlen;
    *vs = 2;
    while (*vs < 32 && *vs * 2 <= mean)
        *vs *= 2;
    if (name && strcmp(name, "auto") != 0) {
        if (!strcmp(name, "csr-vector"))
            return FMT_CSR_VECTOR;
        if (!strcmp(name, "csr-adaptive"))
            return FMT_CSR_ADAPTIVE;
        if (!strcmp(name, "csr-stream"))
            return FMT_CSR_STREAM;
        return !strcmp(name, "sell") ? FMT_SELL : FMT_CSR_SCALAR;
    }
    if (!d->is_gpu)
        return FMT_CSR_SCALAR;
    if ((double)maxlen > 8.0 * mean + 16.0)
        return FMT_CSR_STREAM;     /* widely varying rows: blocks of bounded entries */
    if (mean >= 24.0)
        return FMT_CSR_VECTOR;     /* long rows: a team per row */
    return FMT_SELL;               /* short regular rows: slices of C rows, coalesced */
}

/* csr-stream blocks over rows 0..n-1 with row pointers ptr: block b is rows
 * [blk[b], blk[b+1]), a run of at most CLCG_STREAM_CAP rows holding at most CLCG_STREAM_CAP
 * entries in all, or a single longer row.  Returns the number of blocks (blk: n+1 room). */
int64_t clcg_stream_blocks(const cl_uint *ptr, int64_t n, cl_uint *blk)
{
    int64_t nb = 0;
    blk[0] = 0;
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && j - i < CLCG_STREAM_CAP && ptr[j + 1] - ptr[i] <= CLCG_STREAM_CAP)
            j++;
        blk[++nb] = (cl_uint)j;
        i = j;
    }
    return nb;
}

/* After the nb+1 block starts in blk: the block's rows longer than CLCG_STREAM_SEQ entries
 * (but inside a block of several, so at most CLCG_STREAM_CAP) that a team sums, as block
 * b's entries lp[b]..lp[b+1] of the list lr of row offsets within the block, with
 * lp = blk + nb + 1 and lr = lp + nb + 1.  The kernel reads its loop bounds there, so
 * every work-item sees the same ones.  Returns the entries of blk in all (room: 3n + 3). */
int64_t clcg_stream_longs(const cl_uint *ptr, int64_t nb, cl_uint *blk)
{
    cl_uint *lp = blk + nb + 1, *lr = lp + nb + 1;
    int64_t nl = 0;
    for (int64_t b = 0; b < nb; b++) {
        lp[b] = (cl_uint)nl;
        const cl_uint r0 = blk[b], r1 = blk[b + 1];
        if (ptr[r1] - ptr[r0] > CLCG_STREAM_CAP)
            continue;   /* one long row, a block of its own */
        for (cl_uint i = r0; i < r1; i++)
            if (ptr[i + 1] - ptr[i] > CLCG_STREAM_SEQ)
                lr[nl++] = i - r0;
    }
    lp[nb] = (cl_uint)nl;
    return 2 * (nb + 1) + nl;
}

static clcg_status buf_from(clcg_slice *s, const void *host, size_t bytes, const char *what, cl_mem *m)
{
    return clcg_dev_alloc(&s->dev, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                          (void *)host, what, m);
}

static clcg_status pinned(clcg_slice *s, size_t count, cl_mem *m, double **ptr)
{
    cl_int e;
    *m = clCreateBuffer(s->dev.ctx, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, (count ? count : 1) * sizeof(double),
                        NULL, &e);
    CLCG_CL(e);
    *ptr = clEnqueueMapBuffer(s->dev.queue, *m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                              (count ? count : 1) * sizeof(double), 0, NULL, NULL, &e);
    CLCG_CL(e);
    return CLCG_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

clcg_status clcg_slice_upload(clcg_slice *s, const clcg_csr *A, int64_t lo, int64_t hi,
                              const unsigned char *needed, const int32_t *order, int64_t norder,
                              clcg_fmt fmt, int jacobi)
{
    const int64_t n = hi - lo, nnz = A->rowptr[hi] - A->rowptr[lo];
    int64_t ng = 0, *ghost = NULL;
    cl_uint *ptr = NULL, *col = NULL, *rows = NULL, *pidx = NULL;
    double *val = NULL, *dinv = NULL, zero = 0.0;
    clcg_status st = CLCG_OK;

    s->row_lo = lo;
    s->nrows = n;
    s->nnz = nnz;
    s->fmt = fmt;
    if (nnz >= (int64_t)UINT32_MAX || A->ncols >= (int64_t)INT32_MAX)
        return clcg_error(CLCG_ERR_INPUT, "a device's share holds %lld entries: more than 32-bit indices allow; "
                          "use more ranks or devices", (long long)nnz);

    /* device ghosts: columns outside [lo,hi), ascending */
    CLCG_CHECK(st, clcg_malloc(&ghost, (size_t)nnz + 1, sizeof *ghost, "device ghost list"), out);
    for (int64_t k = A->rowptr[lo]; k < A->rowptr[hi]; k++)
        if (A->colind[k] < lo || A->colind[k] >= hi)
            ghost[ng++] = A->colind[k];
    qsort(ghost, (size_t)ng, sizeof *ghost, cmp_i64);
    {
        int64_t u = 0;
        for (int64_t k = 0; k < ng; k++)
            if (!u || ghost[u - 1] != ghost[k])
                ghost[u++] = ghost[k];
        ng = u;
    }
    s->ncols = n + ng;
    s->ghost_src = ghost;
    ghost = NULL;

    /* columns in device numbering, and the row split for overlap */
    CLCG_CHECK(st, clcg_malloc(&col, (size_t)nnz + 1, sizeof *col, "column indices"), out);
    CLCG_CHECK(st, clcg_malloc(&rows, (size_t)n + 1, sizeof *rows, "row split"), out);
    s->nint = 0;
    s->nbnd = 0;
    for (int64_t i = lo; i < hi; i++) {
        int bnd = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            int64_t c = A->colind[k];
            if (c >= lo && c < hi) {
                col[k - A->rowptr[lo]] = (cl_uint)(c - lo);
            } else {
                col[k - A->rowptr[lo]] = (cl_uint)(n + clcg_find_sorted(s->ghost_src, ng, c));
                bnd = 1;
            }
        }
        if (!bnd)
            rows[s->nint++] = (cl_uint)(i - lo);
    }
    for (int64_t i = lo, b = 0; i < hi; i++) {   /* boundary rows after the interior ones */
        int bnd = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1] && !bnd; k++)
            bnd = A->colind[k] < lo || A->colind[k] >= hi;
        if (bnd)
            rows[s->nint + b++] = (cl_uint)(i - lo);
    }
    s->nbnd = n - s->nint;
    s->int_first = s->nint > 0 && rows[s->nint - 1] - rows[0] == s->nint - 1 ? (int64_t)rows[0] : -1;
    s->bnd_first = s->nbnd > 0 && rows[n - 1] - rows[s->nint] == s->nbnd - 1 ? (int64_t)rows[s->nint] : -1;

    if (fmt == FMT_SELL) {
        const int64_t C = s->C, nsl = (n + C - 1) / C;
        int64_t total = 0;
        CLCG_CHECK(st, clcg_malloc(&ptr, (size_t)nsl + 1, sizeof *ptr, "slice pointers"), out);
        ptr[0] = 0;
        for (int64_t sl = 0; sl < nsl; sl++) {
            int64_t w = 0;
            for (int64_t i = sl * C; i < (sl + 1) * C && i < n; i++) {
                int64_t len = A->rowptr[lo + i + 1] - A->rowptr[lo + i];
                if (len > w)
                    w = len;
            }
            total += w * C;
            if (total >= (int64_t)UINT32_MAX) {
                st = clcg_error(CLCG_ERR_INPUT, "SELL storage too large for 32-bit offsets; use --format csr-vector");
                goto out;
            }
            ptr[sl + 1] = (cl_uint)total;
        }
        cl_uint *scol = NULL;
        double *sval = NULL;
        CLCG_CHECK(st, clcg_malloc(&scol, (size_t)total + 1, sizeof *scol, "SELL columns"), out);
        st = clcg_malloc(&sval, (size_t)total + 1, sizeof *sval, "SELL values");
        if (st != CLCG_OK) {
            free(scol);
            goto out;
        }
        for (int64_t sl = 0; sl < nsl; sl++) {
            int64_t w = (ptr[sl + 1] - ptr[sl]) / C;
            for (int64_t l = 0; l < C; l++) {
                int64_t i = sl * C + l;
                int64_t b0 = i < n ? A->rowptr[lo + i] - A->rowptr[lo] : 0;
                int64_t len = i < n ? A->rowptr[lo + i + 1] - A->rowptr[lo + i] : 0;
                for (int64_t k = 0; k < w; k++) {
                    int64_t at = ptr[sl] + k * C + l;
                    scol[at] = k < len ? col[b0 + k] : (cl_uint)(i < n ? i : 0);
                    sval[at] = k < len ? A->val[A->rowptr[lo] + b0 + k] *
                                             (s->scale ? s->scale[i] * s->scale[col[b0 + k]] : 1.0) : 0.0;
                }
            }
        }
        st = buf_from(s, ptr, ((size_t)nsl + 1) * sizeof *ptr, "SELL slice pointers", &s->ptr);
        if (st == CLCG_OK)
            st = buf_from(s, scol, (size_t)total * sizeof *scol, "SELL columns", &s->col);
        if (st == CLCG_OK)
            st = buf_from(s, sval, (size_t)total * sizeof *sval, "SELL values", &s->val);
        free(scol);
        free(sval);
        if (st != CLCG_OK)
            goto out;
    } else {
        int64_t base = A->rowptr[lo];
        CLCG_CHECK(st, clcg_malloc(&ptr, (size_t)n + 1, sizeof *ptr, "row pointers"), out);
        for (int64_t i = 0; i <= n; i++)
            ptr[i] = (cl_uint)(A->rowptr[lo + i] - base);
        CLCG_CHECK(st, buf_from(s, ptr, ((size_t)n + 1) * sizeof *ptr, "row pointers", &s->ptr), out);
        if (fmt == FMT_CSR_STREAM) {
            cl_uint *blk = NULL;
            CLCG_CHECK(st, clcg_malloc(&blk, 3 * (size_t)n + 3, sizeof *blk, "row blocks"), out);
            s->nblk = clcg_stream_blocks(ptr, n, blk);
            const int64_t len = clcg_stream_longs(ptr, s->nblk, blk);
            st = buf_from(s, blk, (size_t)len * sizeof *blk, "row blocks", &s->blk);
            free(blk);
            if (st != CLCG_OK)
                goto out;
        }
        CLCG_CHECK(st, buf_from(s, col, (size_t)nnz * sizeof *col, "column indices", &s->col), out);
        if (s->scale) {   /* a_ij s_i s_j, for the scaled system (one device, no ghosts) */
            CLCG_CHECK(st, clcg_malloc(&val, (size_t)nnz + 1, sizeof *val, "scaled values"), out);
            for (int64_t i = 0; i < n; i++)
                for (int64_t k = A->rowptr[lo + i]; k < A->rowptr[lo + i + 1]; k++)
                    val[k - base] = A->val[k] * s->scale[i] * s->scale[col[k - base]];
        }
        CLCG_CHECK(st, buf_from(s, val ? val : A->val + base, (size_t)nnz * sizeof(double), "matrix values", &s->val), out);
    }

    /* vectors: x, r, p[2] hold ghosts; partial sums sized for the largest launch */
    const size_t vb = (size_t)s->ncols * sizeof(double), ob = (size_t)(n ? n : 1) * sizeof(double);
    const size_t pb = s->nparts * 2 * sizeof(cl_double2);   /* (hi, lo) pairs, two regions */
    CLCG_CHECK(st, buf_from(s, NULL, vb, "vector x", &s->x), out);
    CLCG_CHECK(st, buf_from(s, NULL, ob, "vector r", &s->r), out);
    CLCG_CHECK(st, buf_from(s, NULL, ob, "vector q", &s->q), out);
    CLCG_CHECK(st, buf_from(s, NULL, ob, "vector b", &s->b), out);
    CLCG_CHECK(st, buf_from(s, NULL, vb, "vector p", &s->p[0]), out);
    CLCG_CHECK(st, buf_from(s, NULL, vb, "vector p (previous)", &s->p[1]), out);
    CLCG_CHECK(st, buf_from(s, NULL, pb, "partial sums", &s->part_pq), out);
    for (int i = 0; i < 2; i++) {
        CLCG_CHECK(st, buf_from(s, NULL, pb, "partial sums", &s->part_rz[i]), out);
        CLCG_CHECK(st, buf_from(s, NULL, pb, "partial sums", &s->part_rr[i]), out);
    }
    CLCG_CHECK(st, buf_from(s, NULL, 8 * sizeof(double), "reductions", &s->red), out);
    {
        const cl_uint zero = 0;
        CLCG_CHECK(st, buf_from(s, &zero, sizeof zero, "work-group ticket", &s->ticket), out);
    }
    {   /* the reduced values in one buffer, each slot a sub-buffer, so the host writes several
           in one command (slots: r'z, previous r'z, r'r, p'q) */
        cl_uint bits = 0;
        cl_mem *slot[4] = {&s->g_rz[0], &s->g_rz[1], &s->g_rr, &s->g_pq};
        clGetDeviceInfo(s->dev.info.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL);
        s->gstep = bits / 8 > sizeof(cl_double2) ? bits / 8 : sizeof(cl_double2);
        CLCG_CHECK(st, buf_from(s, NULL, 4 * s->gstep, "reduced values", &s->glob), out);
        for (int i = 0; i < 4 && st == CLCG_OK; i++) {
            cl_buffer_region reg = {(size_t)i * s->gstep, sizeof(cl_double2)};
            cl_int e;
            *slot[i] = clCreateSubBuffer(s->glob, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
            st = clcg_cl_fail_if(e, "clCreateSubBuffer(reduced values)");
        }
        if (st != CLCG_OK)
            goto out;
    }
    CLCG_CHECK(st, buf_from(s, NULL, S_COUNT * sizeof(double), "solver scalars", &s->scal), out);
    for (int i = 0; i < 2; i++)
        CLCG_CHECK(st, clcg_cl_fail_if(clEnqueueFillBuffer(s->dev.queue, s->p[i], &zero, sizeof zero, 0, vb, 0,
                                                            NULL, NULL), "clEnqueueFillBuffer"), out);
    CLCG_CHECK(st, clcg_cl_fail_if(clEnqueueFillBuffer(s->dev.queue, s->x, &zero, sizeof zero, 0, vb, 0, NULL, NULL),
                                   "clEnqueueFillBuffer"), out);
    if (jacobi) {
        CLCG_CHECK(st, clcg_malloc(&dinv, (size_t)n + 1, sizeof *dinv, "Jacobi diagonal"), out);
        for (int64_t i = lo; i < hi; i++) {
            double d = 0.0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] == i)
                    d += A->val[k];
            dinv[i - lo] = 1.0 / d;    /* positive: checked at assembly */
        }
        CLCG_CHECK(st, buf_from(s, dinv, ob, "Jacobi diagonal", &s->dinv), out);
    }
    if (s->scale) {
        CLCG_CHECK(st, clcg_malloc(&dinv, (size_t)n + 1, sizeof *dinv, "residual weights"), out);
        for (int64_t i = 0; i < n; i++)
            dinv[i] = 1.0 / (s->scale[i] * s->scale[i]);   /* d_i */
        CLCG_CHECK(st, buf_from(s, dinv, ob, "residual weights", &s->wrr), out);
    }
    if (s->nint < n && s->nint > 0) {
        CLCG_CHECK(st, buf_from(s, rows, (size_t)s->nint * sizeof *rows, "interior rows", &s->rows_int), out);
        CLCG_CHECK(st, buf_from(s, rows + s->nint, (size_t)s->nbnd * sizeof *rows, "boundary rows", &s->rows_bnd), out);
    }

    if (fmt == FMT_CSR_ADAPTIVE) {   /* row lists by length */
        cl_uint *lst = NULL;
        long lim[NBINS] = {BIN_SHORT_MAX, BIN_MEDIUM_MAX, 1L << 40};
        unsigned vsb[NBINS] = {4, 32, 256};   /* measured best on an H200 (bench/RESULTS.md) */
        const char *env = getenv("CLCG_BINS");   /* development: SHORT_MAX:VS0,MEDIUM_MAX:VS1,VS2 */
        if (env) {   /* team sizes must be powers of two: the kernels halve them in their sums */
            int used = 0;
            const int got = sscanf(env, "%ld:%u,%ld:%u,%u%n", &lim[0], &vsb[0], &lim[1], &vsb[1], &vsb[2], &used);
            int good = got == 5 && env[used] == '\0' && lim[0] >= 0 && lim[1] >= lim[0];
            for (int b = 0; b < NBINS; b++)
                good &= vsb[b] >= 1 && vsb[b] <= 1024 && (vsb[b] & (vsb[b] - 1)) == 0;
            if (!good) {
                st = clcg_error(CLCG_ERR_USAGE, "CLCG_BINS=%.100s: expected SHORT_MAX:VS0,MEDIUM_MAX:VS1,VS2 "
                                "(row lengths 0 <= SHORT_MAX <= MEDIUM_MAX; team sizes powers of two "
                                "from 1 to 1024)", env);
                goto out;
            }
        }
        CLCG_CHECK(st, clcg_malloc(&lst, (size_t)n + 1, sizeof *lst, "row bins"), out);
        for (int b = 0; b < NBINS && st == CLCG_OK; b++) {
            int64_t m = 0;
            for (int64_t i = 0; i < n; i++) {
                int64_t len = A->rowptr[lo + i + 1] - A->rowptr[lo + i];
                int bin = len <= lim[0] ? 0 : len <= lim[1] ? 1 : 2;
                if (bin == b)
                    lst[m++] = (cl_uint)i;
            }
            s->bin_n[b] = m;
            s->nbins_used += m > 0;
            s->bin_vs[b] = vsb[b] ? vsb[b] : 1;
            while (s->bin_vs[b] > s->dev.info.max_wg)
                s->bin_vs[b] /= 2;
            if (m)
                st = buf_from(s, lst, (size_t)m * sizeof *lst, "row bins", &s->bin_rows[b]);
        }
        free(lst);
        if (st != CLCG_OK)
            goto out;
    }
    /* what leaves the device: rows needed by siblings or other ranks (or the given order) */
    s->npack = order ? norder : 0;
    for (int64_t i = lo; i < hi && !order; i++)
        s->npack += needed[i] != 0;
    CLCG_CHECK(st, clcg_malloc(&s->pack_dst, (size_t)s->npack + 1, sizeof *s->pack_dst, "pack list"), out);
    CLCG_CHECK(st, clcg_malloc(&pidx, (size_t)s->npack + 1, sizeof *pidx, "pack list"), out);
    for (int64_t i = lo, k = 0; k < s->npack; i++) {
        const int64_t row = order ? order[k] : i;
        if (order && (row < lo || row >= hi)) {
            st = clcg_error(CLCG_ERR_INTERNAL, "pack entry %lld (row %lld) is not on this device", (long long)k,
                            (long long)row);
            goto out;
        }
        if (order || needed[i]) {
            s->pack_dst[k] = row;
            pidx[k++] = (cl_uint)(row - lo);
        }
    }
    {   /* rows whose p the host path forms before the exchange: boundary rows (their SpMV
           runs on a complete p) and the rows others need */
        unsigned char *mark = NULL;
        cl_uint *pb = NULL;
        CLCG_CHECK(st, clcg_calloc(&mark, (size_t)n + 1, 1, "row marks"), out);
        st = clcg_malloc(&pb, (size_t)n + 1, sizeof *pb, "boundary rows");
        if (st == CLCG_OK) {
            if (s->ncols > n)
                for (int64_t b = 0; b < s->nbnd; b++)
                    mark[rows[s->nint + b]] = 1;
            for (int64_t k = 0; k < s->npack; k++)
                mark[pidx[k]] = 1;
            s->npb = 0;
            for (int64_t i = 0; i < n; i++)
                if (mark[i])
                    pb[s->npb++] = (cl_uint)i;
            if (s->npb)
                st = buf_from(s, pb, (size_t)s->npb * sizeof *pb, "boundary rows", &s->rows_pb);
        }
        free(mark);
        free(pb);
        if (st != CLCG_OK)
            goto out;
    }
    if (s->npack) {
        CLCG_CHECK(st, buf_from(s, pidx, (size_t)s->npack * sizeof *pidx, "pack list", &s->pack_idx), out);
        CLCG_CHECK(st, buf_from(s, NULL, (size_t)s->npack * sizeof(double), "pack buffer", &s->pack_buf), out);
    }
    CLCG_CHECK(st, pinned(s, (size_t)s->npack, &s->hpin_pack, &s->hpack), out);
    CLCG_CHECK(st, pinned(s, (size_t)ng, &s->hpin_ghost, &s->hghost), out);
    CLCG_CHECK(st, pinned(s, 2 * S_COUNT, &s->hpin_red, &s->hred), out);
    CLCG_CHECK(st, pinned(s, 4 * s->gstep / sizeof(double), &s->hpin_glob, &s->hglob), out);

    for (int kid = 0; kid < K_COUNT; kid++) {
        char name[64];
        const char *spmv = fmt == FMT_SELL ? "spmv_sell" : fmt == FMT_CSR_VECTOR ? "spmv_csr_vector"
                           : fmt == FMT_CSR_STREAM ? "spmv_csr_stream" : "spmv_csr_scalar";
        if (kid == K_SPMV && fmt == FMT_CSR_ADAPTIVE)
            for (int b = 0; b < NBINS; b++) {
                const char *kb = s->bin_vs[b] == 1 ? "spmv_csr_scalar" : "spmv_csr_vector";
                snprintf(name, sizeof name, "%s_dot", kb);
                CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->kbin_dot[b]), out);
                snprintf(name, sizeof name, "%s_cg", kb);
                for (int par = 0; par < 2; par++)
                    CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->kbin_cg[par][b]), out);
            }
        if (kid == K_SPMV_CG || kid == K_SPMV)
            snprintf(name, sizeof name, "%s_%s", spmv, kid == K_SPMV_CG ? "cg" : "dot");
        else
            snprintf(name, sizeof name, "%s", knames[kid]);
        CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->k[kid]), out);
        /* no summing work-group unless a launch asks for one (fin, ticket, fin_n: the last three) */
        if (kid == K_SPMV)
            CLCG_CHECK(st, clcg_set_fin_n(s->k[kid], clcg_fin_arg(fmt), NULL, NULL, 0), out);
        if (kid == K_SPMV && fmt == FMT_CSR_ADAPTIVE)
            for (int b = 0; b < NBINS; b++)
                CLCG_CHECK(st, clcg_set_fin_n(s->kbin_dot[b], clcg_fin_arg(s->bin_vs[b] == 1 ? FMT_CSR_SCALAR : FMT_CSR_VECTOR),
                                              NULL, NULL, 0), out);
        if (kid == K_UPDATE_R)
            CLCG_CHECK(st, clcg_set_fin(s->k[kid], 9, NULL, NULL), out);
        if (kid == K_SPMV_CG)
            for (int i = 0; i < 2; i++)
                CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->kcg[i]), out);
        if (kid == K_UPDATE_XR)
            for (int i = 0; i < 2; i++)
                CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->kxr[i]), out);
        if (kid == K_UPDATE_P_CG)
            for (int i = 0; i < 2; i++)
                CLCG_CHECK(st, clcg_dev_kernel(&s->dev, name, &s->kpc[i]), out);
    }
out:
    free(ghost);
    free(ptr);
    free(col);
    free(rows);
    free(pidx);
    free(val);
    free(dinv);
    return st;
}

void clcg_slice_free(clcg_slice *s)
{
    cl_mem *mems[] = {&s->ptr, &s->col, &s->val, &s->x, &s->r, &s->q, &s->b, &s->dinv, &s->p[0], &s->p[1],
                      &s->part_pq, &s->part_rz[0], &s->part_rz[1], &s->part_rr[0], &s->part_rr[1], &s->red, &s->ticket,
                      &s->g_rz[0], &s->g_rz[1], &s->g_pq, &s->g_rr, &s->glob, &s->scal, &s->pack_idx, &s->pack_buf, &s->rows_int, &s->rows_bnd, &s->rows_pb,
                      &s->ext[0], &s->ext[1], &s->ext[2], &s->ext[3], &s->ext[4], &s->wrr, &s->blk};
    struct { cl_mem *m; double **p; } pins[] = {{&s->hpin_pack, &s->hpack}, {&s->hpin_ghost, &s->hghost},
                                                {&s->hpin_red, &s->hred}, {&s->hpin_glob, &s->hglob}};
    /* transfers into the pinned buffers end before those are unmapped */
    cl_event *evs[] = {&s->pack_ev, &s->red_ev, &s->packed_ev, &s->sum_ev,   /* left by a failed solve */
                       &s->int_ev,  &s->side_ev, &s->p_ev};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i]) {
            clWaitForEvents(1, evs[i]);
            clReleaseEvent(*evs[i]);
            *evs[i] = NULL;
        }
    if (s->xq) {
        clFinish(s->xq);
        clReleaseCommandQueue(s->xq);
        s->xq = NULL;
    }
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++)
        if (*pins[i].m) {
            if (*pins[i].p && s->dev.queue)
                clEnqueueUnmapMemObject(s->dev.queue, *pins[i].m, *pins[i].p, 0, NULL, NULL);
            clReleaseMemObject(*pins[i].m);
        }
    if (s->dev.queue)
        clFinish(s->dev.queue);
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; i++)
        if (*mems[i])
            clReleaseMemObject(*mems[i]);
    for (int i = 0; i < K_COUNT; i++)
        if (s->k[i])
            clReleaseKernel(s->k[i]);
    for (int i = 0; i < 2; i++) {
        if (s->kcg[i])
            clReleaseKernel(s->kcg[i]);
        if (s->kxr[i])
            clReleaseKernel(s->kxr[i]);
        if (s->kpc[i])
            clReleaseKernel(s->kpc[i]);
    }
    for (int b = 0; b < NBINS; b++) {
        if (s->bin_rows[b])
            clReleaseMemObject(s->bin_rows[b]);
        if (s->kbin_dot[b])
            clReleaseKernel(s->kbin_dot[b]);
        for (int i = 0; i < 2; i++)
            if (s->kbin_cg[i][b])
                clReleaseKernel(s->kbin_cg[i][b]);
    }
    free(s->pack_dst);
    free(s->ghost_src);
    clcg_dev_close(&s->dev);
    memset(s, 0, sizeof *s);
}

/* Bytes each kernel moves per call, by its traffic model (double values, 32-bit indices). */
double clcg_kernel_bytes(const clcg_slice *s, int kid, int jacobi)
{
    /* Jacobi reads D^-1 (or, scaled, the weights of r'r) in the vector kernels; the fused
     * SpMV gathers D^-1 only when not scaled */
    const double n = (double)s->nrows, nnz = (double)s->nnz, j = jacobi || s->wrr ? 8.0 * n : 0.0;
    const double js = s->dinv ? 8.0 * n : 0.0;
    switch (kid) {
    case K_SPMV: return (12.0 * nnz + 20.0 * n) / (s->fmt == FMT_CSR_ADAPTIVE ? s->nbins_used : 1);
    case K_SPMV_CG: return (12.0 * nnz + 36.0 * n + js) / (s->fmt == FMT_CSR_ADAPTIVE ? s->nbins_used : 1);
    case K_UPDATE_P_CG: return 24.0 * n + js;
    case K_UPDATE_XR: return 48.0 * n + j;
    case K_UPDATE_R: return 24.0 * n + j;
    case K_AXPY: return 12.0 * n;   /* the host path's x update: half the rows a launch */
    case K_UPDATE_P: return 24.0 * n + j + 28.0 * (double)s->npack;
    case K_UPDATE_P_LIST: return (28.0 + (s->dinv ? 8.0 : 0.0)) * (double)s->npb;
    case K_UPDATE_SR: return 88.0 * n + j;     /* read u p w s x r, write p s x r u */
    case K_UPDATE_PIPE: return 152.0 * n + j;  /* read 10 vectors, write 9 */
    case K_JACOBI: return 24.0 * n;
    case K_RESIDUAL_INIT: return 24.0 * n + j;
    case K_PACK: return 12.0 * (double)s->npack;
    case K_DOT: return 16.0 * n;
    default: return 8.0 * (double)s->nparts;
    }
}

/* The index of a plain SpMV kernel's argument fin (ticket follows it) in storage form fmt. */
cl_uint clcg_fin_arg(clcg_fmt fmt)
{
    return fmt == FMT_CSR_VECTOR || fmt == FMT_SELL ? 11 : 10;
}

/* A kernel's arguments fin and ticket, from index i: buffers, or NULL (no summing group). */
clcg_status clcg_set_fin(cl_kernel k, cl_uint i, cl_mem fin, cl_mem ticket)
{
    CLCG_CL(clSetKernelArg(k, i, sizeof(cl_mem), fin ? &fin : NULL));
    CLCG_CL(clSetKernelArg(k, i + 1, sizeof(cl_mem), ticket ? &ticket : NULL));
    return CLCG_OK;
}

/* A plain SpMV kernel's fin, ticket and fin_n (0: the launch alone; else the work-groups of
 * the launches that share the ticket, whose partial sums are part[0..n)), from index i. */
clcg_status clcg_set_fin_n(cl_kernel k, cl_uint i, cl_mem fin, cl_mem ticket, cl_uint n)
{
    CLCG_CALL(clcg_set_fin(k, i, fin, ticket));
    CLCG_CL(clSetKernelArg(k, i + 2, sizeof n, &n));
    return CLCG_OK;
}

clcg_status clcg_launch_kernel(clcg_slice *s, cl_kernel k, int kid, const clcg_launch *L, clcg_prof *prof)
{
    return clcg_launch_kernel_ev(s, k, kid, L, prof, NULL);
}

clcg_status clcg_launch_kernel_ev(clcg_slice *s, cl_kernel k, int kid, const clcg_launch *L, clcg_prof *prof,
                                  cl_event *out)
{
    return clcg_launch_kernel_q(s->dev.queue, k, kid, L, prof, NULL, out);
}

clcg_status clcg_launch_kernel_q(cl_command_queue q, cl_kernel k, int kid, const clcg_launch *L, clcg_prof *prof,
                                 cl_event after, cl_event *out)
{
    size_t g = L->wg * L->ng, l = L->wg;
    cl_event ev = NULL;
    if (prof && prof->n == prof->cap) {   /* room first: no event is left without an owner */
        int cap = prof->cap ? 2 * prof->cap : 256;
        CLCG_CALL(clcg_realloc(&prof->ev, (size_t)cap, sizeof *prof->ev, "profiling events"));
        CLCG_CALL(clcg_realloc(&prof->kid, (size_t)cap, sizeof *prof->kid, "profiling events"));
        prof->cap = cap;
    }
    CLCG_CL(clEnqueueNDRangeKernel(q, k, 1, L->off ? &L->off : NULL, &g, &l, after ? 1 : 0, after ? &after : NULL,
                                   prof || out ? &ev : NULL));
    if (prof) {
        prof->ev[prof->n] = ev;
        prof->kid[prof->n++] = kid;
    }
    if (out) {
        cl_int e = prof ? clRetainEvent(ev) : CL_SUCCESS;   /* one reference each */
        *out = e == CL_SUCCESS ? ev : NULL;
        CLCG_CL(e);
    }
    return CLCG_OK;
}

/* Development aid: CLCG_PROF_TIMELINE=N prints the last N kernels of each harvest (with
 * --profile): when each started after the first of them, how long it ran, and the device's
 * idle time before it. */
clcg_status clcg_prof_harvest(clcg_prof *prof, const clcg_slice *s, int jacobi)
{
    const char *tl = getenv("CLCG_PROF_TIMELINE");
    const int show = tl ? atoi(tl) : 0;
    cl_ulong first = 0, prev_end = 0;
    for (int i = 0; i < prof->n; i++) {
        cl_ulong t0 = 0, t1 = 0;
        CLCG_CL(clWaitForEvents(1, &prof->ev[i]));
        CLCG_CL(clGetEventProfilingInfo(prof->ev[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL));
        CLCG_CL(clGetEventProfilingInfo(prof->ev[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL));
        clReleaseEvent(prof->ev[i]);
        int kid = prof->kid[i];
        if (show > 0 && i >= prof->n - show) {
            if (i == prof->n - show || !first)
                first = prev_end = t0;
            fprintf(stderr, "timeline: %-14s start %9.1f us  ran %7.1f us  idle before %6.1f us\n",
                    clcg_kernel_name(kid), 1e-3 * (double)(t0 - first), 1e-3 * (double)(t1 - t0),
                    t0 > prev_end ? 1e-3 * (double)(t0 - prev_end) : 0.0);
            prev_end = t1;
        }
        prof->time[kid] += 1e-9 * (double)(t1 - t0);
        prof->calls[kid]++;
        prof->bytes[kid] += clcg_kernel_bytes(s, kid, jacobi);
    }
    prof->n = 0;
    return CLCG_OK;
}
