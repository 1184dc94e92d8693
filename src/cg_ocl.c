/* CG and Jacobi-PCG on OpenCL devices.
 *
 * One rank, one device: the fused path.  Two kernels per iteration,
 *   spmv_*_cg:  stop test on the partial sums of r'r, r'z; p = z + beta p; q = A p; p'q partials
 *   update_xr:  alpha = r'z / p'q; x += alpha p; r -= alpha q; r'z, r'r partials
 * with every scalar kept on the device (each work-group sums the previous kernel's
 * partials itself; r'z, once summed by the SpMV, is kept as one pair for update_xr and
 * the next SpMV), so the host only enqueues and reads the stop flag every few
 * iterations, without waiting in between.  csr-stream, and SELL on large slices, split the
 * first kernel in two (update_p_cg: stop test and p; then the plain SpMV; see split_p).
 *
 * Several ranks or devices: the host path.  Per iteration, p (either the boundary rows
 * only, the interior SpMV forming the rest on the fly, or all rows with the ghost pack in
 * the same pass); the ghost exchange (read, MPI, write) overlapped with the SpMV of the
 * interior rows; the boundary rows; then one MPI_Allreduce for p'q and one for (r'z, r'r),
 * each carrying an error flag so a fault on one rank ends all of them at the next
 * reduction, each reduction point's partial sums added up on the device in one launch and
 * read on the transfer queue.  While the host reduces, the device adds alpha p to x (half
 * the rows during r'z and r'r, the other half during the next p'q), so it does not idle. */
#include "cg_ocl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    MPI_Comm comm;
    int rank, size;
    const clcg_options *o;
    clcg_problem *p;
    int nd;
    clcg_slice *s;
    clcg_prof *prof;        /* per slice; NULL entries when not profiling */
    int jacobi;
    double *hp;             /* rank-local p with ghosts (host path) */
    double *scale;          /* D^-1/2 when Jacobi runs as a scaled system */
    const char *variant;    /* standard, single-reduction or pipelined */
    double t_exchange, t_allreduce;
    int64_t launches, syncs;
    int fin;                /* host path: the launches before a reduction point sum it up */
    int direct;             /* one device, neighbour exchange: MPI sends the device's pack and
                               receives into its ghost buffer, no copy through hp */
    int side;               /* a boundary SpMV has run beside the interior one (side_spmv) */
    int win;                /* direct, with the node's window registered (win_register) */
    int nwreg;
    cl_mem *wreg;
    cl_event win_ev;        /* the last writes of ghosts straight from the peers' windows */
    int64_t mon_base;       /* --monitor: iterations done before this solve (corrections) */
    double grow2;           /* r'z past this: stop, A singular or indefinite (clcg_grew) */
} cg_ctx;

/* v'M^-1 v over all ranks (M the diagonal with Jacobi, else I): r'z of a residual v, the
 * quantity whose growth clcg_grew bounds.  Collective. */
static double mnorm2(const cg_ctx *c, const double *v)
{
    const clcg_csr *A = &c->p->A;
    double s = 0.0;
    for (int64_t i = 0; i < A->nrows; i++)
        s += v[i] * v[i] / (c->jacobi ? clcg_diag_of(A, i) : 1.0);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, c->comm);
    return s;
}

#define ARG(k, i, v)                                                                   \
    do {                                                                               \
        __typeof__(v) arg_ = (v);                                                      \
        CLCG_CL(clSetKernelArg((k), (i), sizeof arg_, &arg_));                         \
    } while (0)
#define ARG_NULL(k, i) CLCG_CL(clSetKernelArg((k), (i), sizeof(cl_mem), NULL))
/* local memory for the reduction trees: one (hi, lo) pair per work-item */
#define ARG_LOCAL(k, i, wg) CLCG_CL(clSetKernelArg((k), (i), (wg) * sizeof(cl_double2), NULL))

static clcg_status launch(cg_ctx *c, int d, cl_kernel k, int kid, const clcg_launch *L)
{
    c->launches++;
    return clcg_launch_kernel(&c->s[d], k, kid, L, c->prof ? &c->prof[d] : NULL);
}

/* launch, with its event in *ev (for a transfer on the other queue to wait for) */
static clcg_status launch_ev(cg_ctx *c, int d, cl_kernel k, int kid, const clcg_launch *L, cl_event *ev)
{
    c->launches++;
    return clcg_launch_kernel_ev(&c->s[d], k, kid, L, c->prof ? &c->prof[d] : NULL, ev);
}

/* ---- argument setting, shared by both paths ---- */

static clcg_status set_dinv(cl_kernel k, int i, const clcg_slice *s)
{
    if (s->dinv)
        ARG(k, i, s->dinv);
    else
        ARG_NULL(k, i);
    return CLCG_OK;
}

/* spmv kernels: (n, rows, ptr, col, val, <p args>, q, part, part_off, [vs|C], buf) */
static clcg_status set_spmv_head(cl_kernel k, const clcg_slice *s, cl_uint n, cl_mem rows)
{
    ARG(k, 0, n);
    if (rows)
        ARG(k, 1, rows);
    else
        ARG_NULL(k, 1);
    ARG(k, 2, s->ptr);
    ARG(k, 3, s->col);
    ARG(k, 4, s->val);
    return CLCG_OK;
}

/* the head for all the device's rows: csr-stream takes its row blocks instead of a row count */
static clcg_status set_spmv_all(cl_kernel k, const clcg_slice *s)
{
    if (s->fmt == FMT_CSR_STREAM)
        return set_spmv_head(k, s, (cl_uint)s->nblk, s->blk);
    return set_spmv_head(k, s, (cl_uint)s->nrows, NULL);
}

static clcg_status set_spmv_tail(cl_kernel k, int i, const clcg_slice *s, cl_uint part_off)
{
    ARG(k, i, s->sp_out ? s->sp_out : s->q);
    ARG(k, i + 1, s->part_pq);
    ARG(k, i + 2, part_off);
    if (s->fmt == FMT_CSR_VECTOR) {
        ARG(k, i + 3, (cl_uint)s->vs);
        ARG_LOCAL(k, i + 4, s->spmv.wg);
    } else if (s->fmt == FMT_SELL) {
        ARG(k, i + 3, (cl_uint)s->C);
        ARG_LOCAL(k, i + 4, s->spmv.wg);
    } else {
        ARG_LOCAL(k, i + 3, s->spmv.wg);
    }
    return CLCG_OK;
}

/* the arguments of the fused p (stop test, beta, p = z + beta p) from index i: parity par
 * reads p[1-par] and writes p[par]; `first` at i+10, `its` at i+12 */
static clcg_status set_p_args(cl_kernel k, int i, clcg_slice *s, int par)
{
    cl_uint nv = (cl_uint)s->vec.ng;
    ARG(k, i, s->r);
    CLCG_CALL(set_dinv(k, i + 1, s));
    ARG(k, i + 2, s->p[1 - par]);
    ARG(k, i + 3, s->p[par]);
    ARG(k, i + 4, s->part_rz[par]);
    ARG(k, i + 5, nv);
    ARG(k, i + 6, s->g_rz[1 - par]);  /* the previous r'z, as the previous kernel left it */
    ARG(k, i + 7, (cl_uint)1);
    ARG(k, i + 8, s->part_rr[par]);
    ARG(k, i + 9, nv);
    ARG(k, i + 10, (cl_uint)0);       /* first */
    ARG(k, i + 11, s->scal);
    ARG(k, i + 12, (cl_uint)0);       /* its */
    ARG(k, i + 13, s->g_rz[par]);     /* r'z for update_xr and the next SpMV */
    return CLCG_OK;
}

/* fused spmv for parity par: reads p[1-par], writes p[par] */
static clcg_status set_spmv_cg(clcg_slice *s, int par)
{
    cl_kernel k = s->kcg[par];
    CLCG_CALL(set_spmv_all(k, s));
    CLCG_CALL(set_p_args(k, 5, s, par));
    return set_spmv_tail(k, 19, s, 0);
}

/* One device: form p in a pass of its own (update_p_cg, then the plain SpMV) rather than
 * inside the SpMV.  csr-stream always (its rows gather scattered columns: one vector
 * instead of three); SELL from SPLIT_P_ROWS rows on: the plain SELL kernel streams so much
 * better than the fused one that the extra pass pays (one H200, Poisson 256^3: 0.780
 * against 0.793 ms, Jacobi 0.841 against 0.870 ms), while at 128^3 (2.1 M rows) its launch
 * costs more than it saves (0.1255 against 0.1197 ms).  CLCG_P_PASS=split|fused overrides
 * the choice for every format (development and tests). */
#define SPLIT_P_ROWS 5000000
static int split_p(const clcg_slice *s)
{
    const char *e = getenv("CLCG_P_PASS");
    if (e && !strcmp(e, "split"))
        return 1;
    if (e && !strcmp(e, "fused"))
        return 0;
    return s->fmt == FMT_CSR_STREAM || (s->fmt == FMT_SELL && s->nrows >= SPLIT_P_ROWS);
}

/* update_p_cg forms p[par], then the plain SpMV multiplies it */
static clcg_status set_p_then_spmv(clcg_slice *s, int par)
{
    cl_kernel k = s->kpc[par];
    ARG(k, 0, (cl_uint)s->nrows);
    CLCG_CALL(set_p_args(k, 1, s, par));
    ARG_LOCAL(k, 15, s->vec.wg);
    CLCG_CALL(set_spmv_all(s->k[K_SPMV], s));
    return set_spmv_tail(s->k[K_SPMV], 6, s, 0);
}

/* csr-adaptive: the launch shape of bin b (a whole work-group per row in the last bin) */
static clcg_launch bin_launch(const clcg_slice *s, int b)
{
    clcg_launch L = s->spmv;
    if (L.wg < s->bin_vs[b])
        L.wg = s->bin_vs[b];
    return L;
}

/* csr-adaptive: arguments of bin b's kernel, plain (q = A in) or fused for parity par */
static clcg_status set_bin(clcg_slice *s, cl_kernel k, int b, int fused, int par, cl_mem in)
{
    const clcg_launch L = bin_launch(s, b);
    CLCG_CALL(set_spmv_head(k, s, (cl_uint)s->bin_n[b], s->bin_rows[b]));
    int i = 5;
    if (fused) {
        cl_uint nv = (cl_uint)s->vec.ng;
        ARG(k, 5, s->r);
        CLCG_CALL(set_dinv(k, 6, s));
        ARG(k, 7, s->p[1 - par]);
        ARG(k, 8, s->p[par]);
        ARG(k, 9, s->part_rz[par]);
        ARG(k, 10, nv);
        ARG(k, 11, s->g_rz[1 - par]);
        ARG(k, 12, (cl_uint)1);
        ARG(k, 13, s->part_rr[par]);
        ARG(k, 14, nv);
        ARG(k, 15, (cl_uint)0);
        ARG(k, 16, s->scal);
        ARG(k, 17, (cl_uint)0);
        ARG(k, 18, s->g_rz[par]);
        i = 19;
    } else {
        ARG(k, 5, in);
        i = 6;
    }
    ARG(k, i, fused ? s->q : (s->sp_out ? s->sp_out : s->q));
    ARG(k, i + 1, s->part_pq);
    ARG(k, i + 2, (cl_uint)(b * s->spmv.ng));
    if (s->bin_vs[b] > 1) {
        ARG(k, i + 3, (cl_uint)s->bin_vs[b]);
        ARG_LOCAL(k, i + 4, L.wg);
    } else {
        ARG_LOCAL(k, i + 3, L.wg);
    }
    return CLCG_OK;
}

/* partial sums of p'q that the SpMV step leaves (every bin its own region) */
static cl_uint pq_parts(const clcg_slice *s)
{
    return (cl_uint)(s->fmt == FMT_CSR_ADAPTIVE ? NBINS * s->spmv.ng : s->spmv.ng);
}

/* update_xr: (n, x, r, p, q, dinv, pq_part, n_pq, rz_part, n_rz, part_rz, part_rr, scal, its, buf) */
static clcg_status set_update_xr(clcg_slice *s, cl_kernel k, cl_mem p, cl_mem pq, cl_uint npq, cl_mem rz,
                                 cl_uint nrz, int out)
{
    ARG(k, 0, (cl_uint)s->nrows);
    ARG(k, 1, s->x);
    ARG(k, 2, s->r);
    ARG(k, 3, p);
    ARG(k, 4, s->q);
    CLCG_CALL(set_dinv(k, 5, s));
    ARG(k, 6, pq);
    ARG(k, 7, npq);
    ARG(k, 8, rz);
    ARG(k, 9, nrz);
    ARG(k, 10, s->part_rz[out]);
    ARG(k, 11, s->part_rr[out]);
    ARG(k, 12, s->scal);
    ARG(k, 13, (cl_uint)0);
    ARG_LOCAL(k, 14, s->vec.wg);
    if (s->wrr)
        ARG(k, 15, s->wrr);
    else
        ARG_NULL(k, 15);
    return CLCG_OK;
}

/* x0 = 0, r = b (b is on the device since setup); partial sums of r'z, r'r into part_rz[0], part_rr[0] */
static clcg_status start(cg_ctx *c, int d, double tol2)
{
    clcg_slice *s = &c->s[d];
    const double zero = 0.0;
    double sc[S_COUNT] = {0};
    const size_t ob = (size_t)(s->nrows ? s->nrows : 1) * sizeof(double);
    sc[S_TOL2] = tol2;
    sc[S_GROW2] = c->grow2;   /* the fused kernels' growth test (clcg_grew), every iteration */
    CLCG_CL(clEnqueueWriteBuffer(s->dev.queue, s->scal, CL_TRUE, 0, sizeof sc, sc, 0, NULL, NULL));
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->q, &zero, sizeof zero, 0, ob, 0, NULL, NULL));
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->x, &zero, sizeof zero, 0, ob, 0, NULL, NULL));
    for (int i = 0; i < 2; i++)   /* the first p = z + 0 * p[1-par] must not see stale NaNs */
        CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->p[i], &zero, sizeof zero, 0,
                                    (size_t)(s->ncols ? s->ncols : 1) * sizeof(double), 0, NULL, NULL));
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->part_pq, &zero, sizeof zero, 0, s->nparts * 2 * sizeof(cl_double2),
                                0, NULL, NULL));
    cl_kernel k = s->k[K_RESIDUAL_INIT];
    ARG(k, 0, (cl_uint)s->nrows);
    ARG(k, 1, s->b);
    ARG(k, 2, s->q);
    ARG(k, 3, s->r);
    CLCG_CALL(set_dinv(k, 4, s));
    ARG(k, 5, s->part_rz[0]);
    ARG(k, 6, s->part_rr[0]);
    ARG_LOCAL(k, 7, s->vec.wg);
    if (s->wrr)
        ARG(k, 8, s->wrr);
    else
        ARG_NULL(k, 8);
    return launch(c, d, k, K_RESIDUAL_INIT, &s->vec);
}

static clcg_outcome outcome_of(double code)
{
    switch ((int)code) {
    case STOP_CONVERGED: return CLCG_CONVERGED;
    case STOP_INDEFINITE: return CLCG_DIVERGED_INDEFINITE;
    case STOP_NANORINF: return CLCG_DIVERGED_NANORINF;
    case STOP_BREAKDOWN: return CLCG_DIVERGED_BREAKDOWN;
    case STOP_GREW: return CLCG_DIVERGED_SINGULAR;
    default: return CLCG_DIVERGED_ITS;
    }
}

/* ---- one rank, one device ---- */
static clcg_status solve_fused(cg_ctx *c, double tol2, double bnorm, clcg_solve_result *res, int64_t *run)
{
    clcg_slice *s = &c->s[0];
    const clcg_solve_opts so = {c->o->rtol, c->o->max_it, c->o->precond, c->o->monitor && !c->o->quiet, 0, 0.0};
    const int check_every = so.monitor ? 1 : 4;
    cl_event pending = NULL;
    int pend_slot = 0;
    double *sc = s->hred;         /* two slots of S_COUNT doubles, pinned */
    int64_t k;

    const int split = s->fmt != FMT_CSR_ADAPTIVE && split_p(s);

    CLCG_CALL(start(c, 0, tol2));
    for (int par = 0; par < 2; par++) {
        if (s->fmt == FMT_CSR_ADAPTIVE)
            for (int b = 0; b < NBINS; b++)
                CLCG_CALL(set_bin(s, s->kbin_cg[par][b], b, 1, par, NULL));
        else if (split)
            CLCG_CALL(set_p_then_spmv(s, par));
        else
            CLCG_CALL(set_spmv_cg(s, par));
        CLCG_CALL(set_update_xr(s, s->kxr[par], s->p[par], s->part_pq, pq_parts(s), s->g_rz[par], 1, 1 - par));
    }
    double stop = 0.0;
    int64_t shown = -1;   /* the last iteration --monitor printed */
    for (k = 0; k < so.max_it; k++) {
        const int par = (int)(k & 1);
        if (s->fmt == FMT_CSR_ADAPTIVE) {
            for (int b = 0; b < NBINS; b++) {
                if (!s->bin_n[b])
                    continue;
                const clcg_launch L = bin_launch(s, b);
                ARG(s->kbin_cg[par][b], 15, (cl_uint)(k == 0));
                ARG(s->kbin_cg[par][b], 17, (cl_uint)k);
                CLCG_CALL(launch(c, 0, s->kbin_cg[par][b], K_SPMV_CG, &L));
            }
        } else if (split) {
            cl_kernel ks = s->k[K_SPMV];
            ARG(s->kpc[par], 11, (cl_uint)(k == 0));
            ARG(s->kpc[par], 13, (cl_uint)k);
            CLCG_CALL(launch(c, 0, s->kpc[par], K_UPDATE_P_CG, &s->vec));
            ARG(ks, 5, s->p[par]);
            CLCG_CALL(launch(c, 0, ks, K_SPMV, &s->spmv));
        } else {
            ARG(s->kcg[par], 15, (cl_uint)(k == 0));
            ARG(s->kcg[par], 17, (cl_uint)k);
            CLCG_CALL(launch(c, 0, s->kcg[par], K_SPMV_CG, &s->spmv));
        }
        ARG(s->kxr[par], 13, (cl_uint)k);
        CLCG_CALL(launch(c, 0, s->kxr[par], K_UPDATE_XR, &s->vec));
        if (k == 2)   /* tests: CLCG_FAULT=0:solve, as on the host path */
            CLCG_CALL(clcg_fault_point(c->rank, "solve"));
        if (so.monitor) {
            CLCG_CL(clEnqueueReadBuffer(s->dev.queue, s->scal, CL_TRUE, 0, S_COUNT * sizeof(double), sc, 0, NULL, NULL));
            c->syncs++;
            if (c->rank == 0 && sc[S_STOP] == 0.0)
                printf("%6lld  ||r||/||b|| = %.6e\n", (long long)(c->mon_base + (shown = k)), sqrt(sc[S_RR]) / bnorm);
            if ((stop = sc[S_STOP]) != 0.0)
                break;
            continue;
        }
        if ((k + 1) % check_every == 0) {
            /* read the flag without waiting; look at the read issued one period ago */
            cl_event ev;
            const int slot = 1 - pend_slot;
            CLCG_CL(clEnqueueReadBuffer(s->dev.queue, s->scal, CL_FALSE, 0, S_COUNT * sizeof(double),
                                        sc + slot * S_COUNT, 0, NULL, &ev));
            CLCG_CL(clFlush(s->dev.queue));
            if (pending) {
                CLCG_CL(clWaitForEvents(1, &pending));
                clReleaseEvent(pending);
                c->syncs++;
                if ((stop = sc[pend_slot * S_COUNT + S_STOP]) != 0.0) {
                    pending = ev;
                    pend_slot = slot;
                    k++;
                    break;
                }
            }
            pending = ev;
            pend_slot = slot;
        }
    }
    *run = k;
    if (stop == 0.0 && k >= so.max_it) {
        /* the stop test of the last iterate */
        cl_kernel kc = s->k[K_CHECK];
        const int par = (int)(k & 1);
        clcg_launch one = {s->vec.wg, 1, 0};
        ARG(kc, 0, s->part_rr[par]);
        ARG(kc, 1, (cl_uint)s->vec.ng);
        ARG(kc, 2, s->part_rz[par]);
        ARG(kc, 3, (cl_uint)s->vec.ng);
        ARG(kc, 4, s->scal);
        ARG(kc, 5, (cl_uint)k);
        ARG_LOCAL(kc, 6, s->vec.wg);
        CLCG_CALL(launch(c, 0, kc, K_CHECK, &one));
    }
    if (pending) {
        clWaitForEvents(1, &pending);
        clReleaseEvent(pending);
    }
    CLCG_CL(clEnqueueReadBuffer(s->dev.queue, s->scal, CL_TRUE, 0, S_COUNT * sizeof(double), sc, 0, NULL, NULL));
    c->syncs++;
    res->outcome = outcome_of(sc[S_STOP]);
    res->iterations = sc[S_STOP] != 0.0 ? (int64_t)sc[S_ITS] : so.max_it;
    if (res->outcome == CLCG_DIVERGED_INDEFINITE || res->outcome == CLCG_DIVERGED_NANORINF)
        res->iterations = (int64_t)sc[S_ITS];
    res->rel_residual = sqrt(sc[S_RR]) / bnorm;
    if (sc[S_STOP] == STOP_GREW)   /* tested on the device every iteration, as on several */
        clcg_grew_stop(res, sc[S_RZ], c->grow2);
    /* the last residual, where the loop has not shown it: converged, at the limit, broken down */
    if (so.monitor && c->rank == 0 && res->iterations > shown && isfinite(res->rel_residual))
        printf("%6lld  ||r||/||b|| = %.6e\n", (long long)(c->mon_base + res->iterations), res->rel_residual);
    return CLCG_OK;
}

/* ---- several ranks or devices ---- */

enum { RED_PQ, RED_RZ_RR, RED_SR, RED_PIPE };

/* The partial-sum arrays a reduction point adds up, and how many entries each holds. */
static int red_parts(const clcg_slice *s, int which, cl_mem *part, cl_uint *cnt)
{
    const cl_uint nv = (cl_uint)s->vec.ng;
    switch (which) {
    case RED_PQ:
        part[0] = s->part_pq, cnt[0] = (cl_uint)s->npq_parts;
        return 1;
    case RED_RZ_RR:   /* r'z, r'r */
        part[0] = s->part_rz[0], cnt[0] = nv;
        part[1] = s->part_rr[0], cnt[1] = nv;
        return 2;
    case RED_SR:      /* r'u, r'r, u'w */
        part[0] = s->part_rz[0], cnt[0] = nv;
        part[1] = s->part_rr[0], cnt[1] = nv;
        part[2] = s->part_pq, cnt[2] = (cl_uint)s->npq_parts;
        return 3;
    default:          /* RED_PIPE: r'u, r'r, w'u */
        part[0] = s->part_rz[0], cnt[0] = nv;
        part[1] = s->part_rr[0], cnt[1] = nv;
        part[2] = s->part_rz[1], cnt[2] = nv;
        return 3;
    }
}

/* The queue of the transfers that overlap kernels, and of the boundary SpMV that runs beside
 * the interior one (side_spmv); made when first needed, profiled as the device queue is. */
static clcg_status xfer_queue(clcg_slice *s)
{
    cl_int e = CL_SUCCESS;
    if (!s->xq) {
        cl_command_queue_properties qp = 0;
        CLCG_CL(clGetCommandQueueInfo(s->dev.queue, CL_QUEUE_PROPERTIES, sizeof qp, &qp, NULL));
        s->xq = clCreateCommandQueue(s->dev.ctx, s->dev.info.device, qp & CL_QUEUE_PROFILING_ENABLE, &e);
        CLCG_CL(e);
    }
    return CLCG_OK;
}

/* Work the devices do while the host reduces: x += alpha p[par] on the first (half 0) or
 * second (half 1) half of each device's rows (the host path's update_r leaves x to this). */
typedef struct {
    double alpha;
    int par, half;
} x_tail;

/* Share of the rows in the first half (development: CLCG_X_SPLIT=F, 0 < F < 1). */
static double x_split(void)
{
    static double f = -1.0;
    if (f < 0.0) {
        const char *e = getenv("CLCG_X_SPLIT");
        f = e && *e ? strtod(e, NULL) : 0.5;
        if (!(f > 0.0 && f < 1.0))
            f = 0.5;
    }
    return f;
}

static clcg_status enqueue_x_tail(cg_ctx *c, int d, const x_tail *xt)
{
    clcg_slice *s = &c->s[d];
    cl_kernel ka = s->k[K_AXPY];
    const cl_uint h = (cl_uint)((double)s->nrows * x_split()), lo = xt->half ? h : 0,
                  hi = xt->half ? (cl_uint)s->nrows : h;
    if (lo == hi)
        return CLCG_OK;
    CLCG_CL(clSetKernelArg(ka, 0, sizeof(cl_uint), &lo));
    CLCG_CL(clSetKernelArg(ka, 1, sizeof(cl_uint), &hi));
    CLCG_CL(clSetKernelArg(ka, 2, sizeof(double), &xt->alpha));
    CLCG_CL(clSetKernelArg(ka, 3, sizeof(cl_mem), &s->p[xt->par]));
    CLCG_CL(clSetKernelArg(ka, 4, sizeof(cl_mem), &s->x));
    return launch(c, d, ka, K_AXPY, &s->vec);
}

/* This rank's sums (over its devices) of the partial sums of reduction point `which`,
 * as nv (hi, lo) pairs in v[0..2 nv); the pair after them carries the rank's status for
 * the MPI reduction that follows (v holds 8 doubles).  xt (or NULL): enqueued behind the
 * read of the sums, and not waited for. */
static clcg_status reduce_local(cg_ctx *c, int which, double *v, int *nvals, clcg_status local, const x_tail *xt)
{
    cl_mem part[3];
    cl_uint cnt[3];
    int nv = red_parts(&c->s[0], which, part, cnt);
    memset(v, 0, 8 * sizeof *v);
    for (int d = 0; d < c->nd && local == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        cl_event summed = s->sum_ev;   /* the last launch's last work-group has summed them into red */
        s->sum_ev = NULL;
        if (!summed) {   /* else a reduce_sum launch does */
            clcg_launch groups = {s->vec.wg, (size_t)nv, 0};   /* group i sums array i */
            cl_kernel k = s->k[K_REDUCE];
            cl_int e = CL_SUCCESS;
            red_parts(s, which, part, cnt);
            for (int i = 0; i < 3; i++) {
                const int j = i < nv ? i : 0;   /* unused arrays: any valid buffer, never read */
                e |= clSetKernelArg(k, (cl_uint)(2 * i), sizeof part[j], &part[j]) |
                     clSetKernelArg(k, (cl_uint)(2 * i + 1), sizeof cnt[j], &cnt[j]);
            }
            e |= clSetKernelArg(k, 6, sizeof(cl_mem), &s->red) | clSetKernelArg(k, 7, sizeof(cl_uint), &(cl_uint){0}) |
                 clSetKernelArg(k, 8, s->vec.wg * sizeof(cl_double2), NULL);
            local = clcg_cl_fail_if(e, "clSetKernelArg(reduce_sum)");
            if (local == CLCG_OK)
                local = launch_ev(c, d, k, K_REDUCE, &groups, &summed);
        }
        /* the sums are read on the transfer queue: the device queue goes on with xt at once */
        if (local == CLCG_OK)
            local = xfer_queue(s);
        if (local == CLCG_OK)
            local = clcg_cl_fail_if(clEnqueueReadBuffer(s->xq, s->red, CL_FALSE, 0, (size_t)nv * sizeof(cl_double2),
                                                        s->hred, 1, &summed, &s->red_ev),
                                    "clEnqueueReadBuffer(reductions)");
        if (summed)
            clReleaseEvent(summed);
        if (local == CLCG_OK)
            local = clcg_cl_fail_if(clFlush(s->xq), "clFlush");
        if (local == CLCG_OK && xt)
            local = enqueue_x_tail(c, d, xt);
        if (s->side_ev) {   /* what reads q next waits for the boundary rows' SpMV, beside */
            if (local == CLCG_OK)
                local = clcg_cl_fail_if(clEnqueueBarrierWithWaitList(s->dev.queue, 1, &s->side_ev, NULL),
                                        "clEnqueueBarrierWithWaitList(boundary SpMV)");
            clReleaseEvent(s->side_ev);
            s->side_ev = NULL;
        }
        if (local == CLCG_OK)
            local = clcg_cl_fail_if(clFlush(s->dev.queue), "clFlush");
    }
    for (int d = 0; d < c->nd; d++) {
        clcg_slice *s = &c->s[d];
        if (!s->red_ev)
            continue;
        if (local == CLCG_OK)
            local = clcg_cl_fail_if(clWaitForEvents(1, &s->red_ev), "clWaitForEvents(reductions)");
        clReleaseEvent(s->red_ev);
        s->red_ev = NULL;
        for (int i = 0; i < nv && local == CLCG_OK; i++)
            clcg_dd_add(v + 2 * i, s->hred + 2 * i);
    }
    c->syncs++;
    v[2 * nv] = local != CLCG_OK ? 1.0 : 0.0;
    *nvals = nv;
    return local;
}

static clcg_status reduce_finish(cg_ctx *c, const double *v, int nv, double *out, clcg_status local)
{
    if (local != CLCG_OK)
        return local;
    if (v[2 * nv] != 0.0)
        return CLCG_ERR_PEER;
    for (int i = 0; i < nv; i++)   /* in place when out == v */
        out[i] = v[2 * i];
    (void)c;
    return CLCG_OK;
}

/* Sum over devices and ranks of the partial sums of reduction point `which`.  The
 * MPI_Allreduce carries this rank's status as one more entry, so all ranks learn of a
 * fault at the same reduction and stop together. */
static clcg_status reduce_global(cg_ctx *c, int which, double *out, clcg_status local, const x_tail *xt)
{
    double v[8];
    int nv = 0;
    MPI_Datatype dt;
    MPI_Op op;
    local = reduce_local(c, which, v, &nv, local, xt);
    CLCG_CALL(clcg_dd_mpi(&dt, &op));
    double t0 = MPI_Wtime();
    if (MPI_Allreduce(MPI_IN_PLACE, v, nv + 1, dt, op, c->comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the dot products failed");
    c->t_allreduce += MPI_Wtime() - t0;
    return reduce_finish(c, v, nv, out, local);
}

/* The host's values of the reduced-value slots [first, first+count) (0 r'z, 1 previous r'z,
 * 2 r'r, 3 p'q; v[i] for slot first+i) to the device in one write, as (hi, lo) pairs: the
 * kernels read them as partial sums. */
static clcg_status write_scalars(clcg_slice *s, int first, int count, const double *v)
{
    const size_t step = s->gstep / sizeof(double);
    for (int i = 0; i < count; i++) {
        s->hglob[(size_t)(first + i) * step] = v[i];
        s->hglob[(size_t)(first + i) * step + 1] = 0.0;
    }
    CLCG_CL(clEnqueueWriteBuffer(s->dev.queue, s->glob, CL_FALSE, (size_t)first * s->gstep,
                                 (size_t)(count - 1) * s->gstep + sizeof(cl_double2), s->hglob + (size_t)first * step,
                                 0, NULL, NULL));
    return CLCG_OK;
}

/* The node's shared-memory window of the halo (halo_shm.c), registered with the device's
 * context as CL_MEM_USE_HOST_PTR buffers over my window and over each peer's, which no
 * command uses: the pack is read straight into my window and the ghosts are written straight
 * from the peers', at the speed of pinned memory (one H200, 1 MB: 30 us either way, against
 * 150-215 us for plain host memory; 2026-11-27, bench/RESULTS.md).  Where a buffer cannot
 * be made, or CLCG_HALO_SHM=2, the exchange copies through hpack and hghost instead. */
static void win_settle_hook(void *c);

static void win_register(cg_ctx *c)
{
    const clcg_halo *h = &c->p->halo;
    const clcg_slice *s = &c->s[0];
    const char *env = getenv("CLCG_HALO_SHM");
    if (!c->direct || !h->nshm_links || (env && !strcmp(env, "2")))
        return;
    c->wreg = calloc((size_t)h->nrecv + 1, sizeof *c->wreg);
    if (!c->wreg)
        return;
    cl_int e = CL_SUCCESS;
    const int64_t total = h->send_ptr[h->nsend];
    c->wreg[c->nwreg++] = clCreateBuffer(s->dev.ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE,
                                         2 * (size_t)total * sizeof(double), h->shm_mine, &e);
    for (int i = 0; i < h->nrecv && e == CL_SUCCESS; i++)
        if (h->recv_shm[i])
            c->wreg[c->nwreg++] = clCreateBuffer(s->dev.ctx, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE,
                                                 2 * (size_t)h->recv_stride[i] * sizeof(double),
                                                 (void *)(h->recv_src[i] - h->recv_off[i]), &e);
    c->win = e == CL_SUCCESS;
    if (c->win) {
        c->p->halo.settle = win_settle_hook;
        c->p->halo.settle_arg = c;
    }
}

/* The ghosts taken from the peers' windows are on the device (before this rank tells them,
 * at its next exchange, that they may fill those slots again: every exchange calls it, the
 * host's too, through the halo's settle hook). */
static void win_settle(cg_ctx *c)
{
    if (c->win_ev) {
        clWaitForEvents(1, &c->win_ev);
        clReleaseEvent(c->win_ev);
        c->win_ev = NULL;
    }
}

static void win_settle_hook(void *c)
{
    win_settle(c);
}

static void win_release(cg_ctx *c)
{
    win_settle(c);
    c->p->halo.settle = NULL;
    c->p->halo.settle_arg = NULL;
    if (c->nwreg && c->s[0].xq)
        clFinish(c->s[0].xq);
    for (int i = 0; i < c->nwreg; i++)
        if (c->wreg[i])
            clReleaseMemObject(c->wreg[i]);
    free(c->wreg);
    c->wreg = NULL;
    c->nwreg = c->win = 0;
}

/* The ghosts of sp_in from the host copy of p (c->direct: already in hghost), written on a
 * queue of their own while the interior SpMV runs (it reads no ghost); what follows on the
 * device queue waits for them.  The reduction read that comes next on that queue ends after
 * this write, so hghost is free again when the host has the next reduced values. */
static clcg_status write_ghosts_q(cg_ctx *c, clcg_slice *s, int64_t ng, int side)
{
    cl_int e = CL_SUCCESS;
    cl_event ev = NULL;
    for (int64_t k = 0; k < ng && !c->direct; k++)
        s->hghost[k] = c->hp[s->ghost_src[k]];
    CLCG_CALL(xfer_queue(s));
    if (c->win) {   /* each neighbour's part: from its window, or from hghost where MPI brought it */
        const clcg_halo *h = &c->p->halo;
        for (int i = 0; i < h->nrecv && e == CL_SUCCESS; i++) {
            const int64_t off = h->recv_ptr[i], cnt = h->recv_ptr[i + 1] - off;
            const double *src = h->recv_shm[i] ? h->recv_src[i] + h->slot * h->recv_stride[i] : s->hghost + off;
            if (ev)
                clReleaseEvent(ev);
            ev = NULL;
            e = clEnqueueWriteBuffer(s->xq, s->sp_in, CL_FALSE, (size_t)(s->nrows + off) * sizeof(double),
                                     (size_t)cnt * sizeof(double), src, 0, NULL, &ev);
        }
        if (e == CL_SUCCESS && ev) {   /* waited for before this rank's next exchange */
            clRetainEvent(ev);
            c->win_ev = ev;
        }
        if (e != CL_SUCCESS) {   /* writes enqueued before the failure may still read a peer's
                                    slot: done before this rank can tell the peers to refill it */
            clFinish(s->xq);
            if (ev)
                clReleaseEvent(ev);
        }
        CLCG_CL(e);
    } else {
        CLCG_CL(clEnqueueWriteBuffer(s->xq, s->sp_in, CL_FALSE, (size_t)s->nrows * sizeof(double),
                                     (size_t)ng * sizeof(double), s->hghost, 0, NULL, &ev));
    }
    e = clFlush(s->xq);
    if (e == CL_SUCCESS && !side)   /* side: the boundary SpMV follows it on xq */
        e = clEnqueueBarrierWithWaitList(s->dev.queue, 1, &ev, NULL);
    clReleaseEvent(ev);
    CLCG_CL(e);
    return CLCG_OK;
}

/* the ghosts' write, its host time counted in the exchange's */
static clcg_status write_ghosts(cg_ctx *c, clcg_slice *s, int64_t ng, int side)
{
    const double t0 = MPI_Wtime();
    const clcg_status st = write_ghosts_q(c, s, ng, side);
    c->t_exchange += MPI_Wtime() - t0;
    return st;
}

/* The host path's fused SpMV of the interior rows: p = z + beta p[1-par] formed on the fly
 * (written to p[par]) from the global r'z, previous r'z and r'r the host has written as
 * one pair each; the stop test in the kernel sees what the host has just seen. */
static clcg_status set_interior_cg(clcg_slice *s, cl_kernel k, int par, int64_t its, int all)
{
    CLCG_CALL(set_spmv_head(k, s, (cl_uint)(all ? s->nrows : s->nint), all ? NULL : s->rows_int));
    ARG(k, 5, s->r);
    CLCG_CALL(set_dinv(k, 6, s));
    ARG(k, 7, s->p[1 - par]);
    ARG(k, 8, s->p[par]);
    ARG(k, 9, s->g_rz[0]);
    ARG(k, 10, (cl_uint)1);
    ARG(k, 11, s->g_rz[1]);
    ARG(k, 12, (cl_uint)1);
    ARG(k, 13, s->g_rr);
    ARG(k, 14, (cl_uint)1);
    ARG(k, 15, (cl_uint)(its == 0));
    ARG(k, 16, s->scal);
    ARG(k, 17, (cl_uint)its);
    ARG_NULL(k, 18);
    return set_spmv_tail(k, 19, s, 0);
}

/* Whether the boundary rows' SpMV runs on the transfer queue, behind the ghosts' write and
 * beside the interior rows' SpMV on the device queue, instead of after it: the two launches
 * share the ticket, and whichever work-group of them ends last sums p'q (the same partial
 * sums in the same order: the same bits).  On GPUs with one device a rank, where the boundary
 * launch's own ramp, tail and gap are on the iteration's path otherwise (2 H200, Poisson
 * 256^3 on 2 ranks: 0.4092 against 0.4211 ms, 2026-11-27, bench/RESULTS.md), with the plain
 * SpMV of interior and boundary rows (not the fused host path, csr-stream or csr-adaptive).
 * CLCG_SIDE=0|1 overrides (development and tests; 1 also with several devices a rank). */
static int side_spmv(const cg_ctx *c, const clcg_slice *s, int fused)
{
    if (fused || !c->fin || s->nint == 0 || s->nbnd == 0 || s->ncols == s->nrows || !s->rows_int)
        return 0;
    if (s->fmt != FMT_SELL && s->fmt != FMT_CSR_SCALAR && s->fmt != FMT_CSR_VECTOR)
        return 0;
    static int force = -2;   /* CLCG_SIDE, read once: -1 unset */
    if (force == -2) {
        const char *e = getenv("CLCG_SIDE");
        force = e && *e ? *e != '0' : -1;
    }
    if (force >= 0)
        return force;
    return s->dev.info.is_gpu && c->nd == 1;   /* several devices a rank: measured and checked without it */
}

/* The plain SpMV of sp_in on device d: rows n (or the row list rows; csr-stream: all its
 * blocks), partial sums of p'q from part_off.  On a GPU, a list that is one run of rows from
 * `first` (else -1) goes as that run, a global offset (no list to read: 2 H200 ranks' interior
 * SpMV at 256^3, 222 -> 208 us), where the kernel numbers rows by work-item (CSR scalar,
 * SELL).  Not on CPU devices: PoCL 5.0 with two devices in a process aborted in 22 of 48 runs
 * once kernels ran with an offset (pocl_release_dlhandle_cache: ref_count assertion).  fin:
 * the last launch before p'q is reduced, whose last work-group sums up all of its partial
 * sums (s->sum_ev, for the read); else ev (or NULL) gets the launch's event. */
static clcg_status launch_spmv_in(cg_ctx *c, int d, cl_uint n, cl_mem rows, int64_t first, cl_uint part_off, int fin,
                                  cl_uint fin_n, int on_side, cl_event *ev)
{
    clcg_slice *s = &c->s[d];
    cl_kernel ks = s->k[K_SPMV];
    clcg_launch L = s->spmv;
    CLCG_CALL(clcg_set_fin_n(ks, clcg_fin_arg(s->fmt), fin ? s->red : NULL, fin ? s->ticket : NULL, fin ? fin_n : 0));
    if (rows && first >= 0 && s->dev.info.is_gpu && (s->fmt == FMT_SELL || s->fmt == FMT_CSR_SCALAR)) {
        L.off = (size_t)first;   /* the kernel's rows get_global_id(0) < first + n */
        n += (cl_uint)first;
        rows = NULL;
    }
    if (s->fmt == FMT_CSR_STREAM)
        CLCG_CALL(set_spmv_all(ks, s));
    else
        CLCG_CALL(set_spmv_head(ks, s, n, rows));
    ARG(ks, 5, s->sp_in);
    CLCG_CALL(set_spmv_tail(ks, 6, s, part_off));
    if (on_side) {   /* on xq behind the ghosts' write (and the pack's read, which waits for
                        update_p_pack); after update_p itself where it packed first or nothing */
        cl_event after = s->p_ev;
        s->p_ev = NULL;
        if (s->side_ev)
            clReleaseEvent(s->side_ev);
        s->side_ev = NULL;
        c->launches++;
        c->side = 1;
        clcg_status st = clcg_launch_kernel_q(s->xq, ks, K_SPMV, &L, c->prof ? &c->prof[d] : NULL, after, &s->side_ev);
        if (after)
            clReleaseEvent(after);
        return st;
    }
    if (!fin)
        return ev ? launch_ev(c, d, ks, K_SPMV, &L, ev) : launch(c, d, ks, K_SPMV, &L);
    if (s->sum_ev)
        clReleaseEvent(s->sum_ev);
    s->sum_ev = NULL;
    CLCG_CALL(launch_ev(c, d, ks, K_SPMV, &L, &s->sum_ev));
    if (ev)   /* the watch of pack_first as well */
        CLCG_CL(clRetainEvent(*ev = s->sum_ev));
    return CLCG_OK;
}

/* The host path forms p inside the SpMV when the storage takes row lists and the slice is
 * not one where the one-device path forms p in a pass of its own (split_p: large SELL
 * slices, where the plain kernel streams better than the fused one; then update_p forms
 * all of p and the ghosts' pack reads it). */
static int host_fused(const cg_ctx *c)
{
    for (int d = 0; d < c->nd; d++)
        if (c->s[d].fmt == FMT_CSR_ADAPTIVE || c->s[d].fmt == FMT_CSR_STREAM || split_p(&c->s[d]))
            return 0;
    return 1;
}

/* Whether update_p_pack's ghost pack runs as a launch of its own before all of p is formed,
 * so that the boundary values leave earlier, at the cost of one launch: 1 or 0, or -1 while
 * undecided (as 0).  It pays where the interior SpMV is shorter than the halo's way through
 * host memory: on 2 H200 (nvidia-h200-x2, 2026-11-23 09:40 UTC, Poisson 256^3, `neighbor`,
 * the halo copied through the host's p) the boundary SpMV waited 38-44 us for the ghosts, 3-9
 * us with the pack first (strong 0.489 -> 0.469 ms); on 2 H100 (2026-11-26 16:05 UTC, the
 * exchange in place) the interior SpMV of 295 us hid the halo, and the launch only cost
 * (0.5672 against 0.5750 ms).  So it is decided per device from the run itself: the first
 * PF_WATCH iterations (after the first of a solve) go without, and note whether the interior
 * SpMV had already ended when the ghosts left the host; in most of them, the pack goes first
 * from then on.  Where no SpMV of interior rows runs before the ghosts are in (csr-stream
 * and csr-adaptive multiply once the exchange is done; a slice of boundary rows only), the
 * pack always goes first: only the forming of p can hide the halo there.  Either way p, the
 * pack and every result are the same to the bit.  CLCG_PACK_FIRST=0|1 overrides
 * (development and tests). */
#define PF_WATCH 8
static int pack_first(const clcg_slice *s)
{
    const char *e = getenv("CLCG_PACK_FIRST");
    if (e && *e)
        return *e != '0';
    if (s->fmt == FMT_CSR_STREAM || s->fmt == FMT_CSR_ADAPTIVE || s->nint == 0)
        return 1;
    if (s->pf_seen < PF_WATCH)
        return -1;
    return 2 * s->pf_late > s->pf_seen;
}

/* sp_out = A sp_in on every device, with the ghost exchange of sp_in overlapped by the
 * SpMV of the interior rows; partial sums of sp_in'sp_out in part_pq.  fused (iteration
 * its, sp_in = p[par]): only the rows listed in rows_pb hold the new p yet; the interior
 * SpMV forms the rest on the fly.  packed: the boundary values are in pack_buf already
 * (update_p_pack put them there). */
static clcg_status spmv_with_exchange(cg_ctx *c, clcg_status st, int fused, int par, int64_t its, int packed)
{
    /* the exchange's time: the host's in it (the receives posted; from the wait for the
       boundary values to the ghosts' write), not the launches of the SpMVs around it */
    double t0 = MPI_Wtime();
    clcg_status ex = CLCG_OK;   /* the exchange's own status: every rank takes part even after a fault */
    if (c->direct)   /* the receives first, straight into the ghost buffer */
        ex = clcg_halo_post_recv(&c->p->halo, c->s[0].hghost);
    c->t_exchange += MPI_Wtime() - t0;
    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        cl_kernel kp = s->k[K_PACK];
        if (s->npack) {
            clcg_launch L = s->vec;
            /* the boundary values leave on the transfer queue once they are packed (the event
               of pack, or of the update_p_pack before), so the interior SpMV does not wait */
            cl_event packed_ev = packed ? s->packed_ev : NULL;
            s->packed_ev = NULL;
            if (!packed) {
                st = clcg_cl_fail_if(clSetKernelArg(kp, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->npack}) |
                                     clSetKernelArg(kp, 1, sizeof(cl_mem), &s->pack_idx) |
                                     clSetKernelArg(kp, 2, sizeof(cl_mem), &s->sp_in) |
                                     clSetKernelArg(kp, 3, sizeof(cl_mem), &s->pack_buf), "clSetKernelArg(pack)");
                if (st == CLCG_OK)
                    st = launch_ev(c, d, kp, K_PACK, &L, &packed_ev);
            }
            if (st == CLCG_OK)
                st = xfer_queue(s);
            if (st == CLCG_OK && !packed_ev)   /* update_p_pack hands its event over */
                st = clcg_error(CLCG_ERR_INTERNAL, "the ghost pack has no event to wait for");
            if (st == CLCG_OK)   /* with the window: straight into it */
                st = clcg_cl_fail_if(clEnqueueReadBuffer(s->xq, s->pack_buf, CL_FALSE, 0,
                                                         (size_t)s->npack * sizeof(double),
                                                         c->win ? clcg_halo_send_slot(&c->p->halo) : s->hpack, 1,
                                                         &packed_ev, &s->pack_ev),
                                     "clEnqueueReadBuffer(pack)");
            if (packed_ev)
                clReleaseEvent(packed_ev);
            if (st == CLCG_OK)
                st = clcg_cl_fail_if(clFlush(s->xq), "clFlush");
        }
        /* interior rows (or all rows when there are no ghosts) while the boundary travels */
        s->npq_parts = 0;
        if (s->fmt == FMT_CSR_ADAPTIVE) {
            s->npq_parts = pq_parts(s);
        } else if (s->fmt == FMT_CSR_STREAM) {   /* no row lists: all rows at once, once ghosts are in */
            s->npq_parts = s->spmv.ng;
            if (st == CLCG_OK && s->ncols == s->nrows)   /* its p'q summed by reduce_sum (spmv.cl) */
                st = launch_spmv_in(c, d, 0, NULL, -1, 0, 0, 0, 0, NULL);
        } else if (st == CLCG_OK && fused && (s->nint > 0 || s->ncols == s->nrows)) {
            int all = s->ncols == s->nrows || !s->rows_int;
            s->npq_parts = s->spmv.ng;
            st = set_interior_cg(s, s->k[K_SPMV_CG], par, its, all);
            if (st == CLCG_OK)
                st = launch(c, d, s->k[K_SPMV_CG], K_SPMV_CG, &s->spmv);
        } else if (st == CLCG_OK && (s->nint > 0 || s->ncols == s->nrows)) {
            int all = s->ncols == s->nrows || !s->rows_int;
            s->npq_parts = s->spmv.ng;
            /* while pack_first is undecided, its event shows whether the ghosts come in time;
               beside the boundary SpMV, the two share the summing of p'q */
            const int watch = packed && its > 0 && !all && s->npack && pack_first(s) < 0;
            const int side = side_spmv(c, s, fused);
            st = launch_spmv_in(c, d, (cl_uint)(all ? s->nrows : s->nint), all ? NULL : s->rows_int, s->int_first, 0,
                                (c->fin && s->ncols == s->nrows) || side, side ? 2 * (cl_uint)s->spmv.ng : 0, 0,
                                watch ? &s->int_ev : NULL);
        }
        if (st == CLCG_OK)
            st = clcg_cl_fail_if(clFlush(s->dev.queue), "clFlush");
    }
    /* boundary values to the host copy of p, then MPI; every rank takes part even after a fault */
    t0 = MPI_Wtime();
    for (int d = 0; d < c->nd; d++) {
        clcg_slice *s = &c->s[d];
        if (s->pack_ev) {   /* only the boundary read: the interior SpMV behind it keeps running */
            /* waited for even after a fault: MPI reads hpack next */
            clcg_status e = clcg_cl_fail_if(clWaitForEvents(1, &s->pack_ev), "clWaitForEvents(pack)");
            if (st == CLCG_OK)
                st = e;
            clReleaseEvent(s->pack_ev);
            s->pack_ev = NULL;
            for (int64_t k = 0; k < s->npack && st == CLCG_OK && !c->direct; k++)
                c->hp[s->pack_dst[k]] = s->hpack[k];
        }
    }
    if (c->direct) {   /* the pack is the send lists one after another */
        clcg_halo *h = &c->p->halo;
        clcg_status e = c->win ? clcg_halo_send_wait_keep(h, clcg_halo_send_slot(h))
                               : clcg_halo_send_wait(h, c->s[0].hpack);
        if (st == CLCG_OK)
            st = ex != CLCG_OK ? ex : e;
    } else if (c->size > 1) {
        clcg_status e = clcg_halo_exchange(&c->p->halo, c->hp);
        if (st == CLCG_OK)
            st = e;
    }
    c->t_exchange += MPI_Wtime() - t0;
    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        int64_t ng = s->ncols - s->nrows;
        if (s->fmt == FMT_CSR_ADAPTIVE) {   /* ghosts first, then every bin */
            if (ng > 0)
                st = write_ghosts(c, s, ng, 0);
            for (int b = 0; b < NBINS && st == CLCG_OK; b++) {
                if (!s->bin_n[b])
                    continue;
                const clcg_launch L = bin_launch(s, b);
                st = set_bin(s, s->kbin_dot[b], b, 0, 0, s->sp_in);
                if (st == CLCG_OK)
                    st = launch(c, d, s->kbin_dot[b], K_SPMV, &L);
            }
            continue;
        }
        if (ng == 0)
            continue;
        const int side = side_spmv(c, s, fused);
        st = write_ghosts(c, s, ng, side);
        if (s->int_ev) {   /* late: the interior SpMV has ended before the ghosts are on their way */
            cl_int state = CL_QUEUED;
            if (st == CLCG_OK)
                st = clcg_cl_fail_if(clGetEventInfo(s->int_ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state,
                                                    NULL), "clGetEventInfo(interior SpMV)");
            clReleaseEvent(s->int_ev);
            s->int_ev = NULL;
            s->pf_late += state == CL_COMPLETE;
            s->pf_seen++;
        }
        if (st == CLCG_OK && s->fmt == FMT_CSR_STREAM) {   /* p'q summed by reduce_sum (spmv.cl) */
            st = launch_spmv_in(c, d, 0, NULL, -1, 0, 0, 0, 0, NULL);
        } else if (st == CLCG_OK && s->nbnd > 0) {
            int only = s->nint == 0;
            s->npq_parts = only ? s->spmv.ng : 2 * s->spmv.ng;
            st = launch_spmv_in(c, d, (cl_uint)(only ? s->nrows : s->nbnd), only ? NULL : s->rows_bnd, s->bnd_first,
                                only ? 0 : (cl_uint)s->spmv.ng, c->fin, side ? 2 * (cl_uint)s->spmv.ng : 0, side,
                                NULL);
        }
    }
    return st;
}

static clcg_status solve_host(cg_ctx *c, double tol2, double bnorm, clcg_solve_result *res, int64_t *run)
{
    const clcg_solve_opts so = {c->o->rtol, c->o->max_it, c->o->precond, c->o->monitor && !c->o->quiet, 0, 0.0};
    clcg_status st = CLCG_OK;
    double v[2];
    int64_t k = 0;
    const int fused = host_fused(c);

    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        c->s[d].sp_in = c->s[d].p[0];
        c->s[d].sp_out = c->s[d].q;
        st = start(c, d, tol2);
    }
    st = reduce_global(c, RED_RZ_RR, v, st, NULL);
    if (st != CLCG_OK)
        return st;
    double rz = v[0], rr = v[1], rz_prev = 1.0;
    x_tail pending = {0.0, 0, 1};   /* the second half of the last x update, if has_pending */
    int has_pending = 0;
    res->outcome = CLCG_DIVERGED_ITS;
    for (k = 0;; k++) {
        res->rel_residual = sqrt(rr) / bnorm;
        if (!isfinite(rr) || !isfinite(rz)) {
            res->outcome = CLCG_DIVERGED_NANORINF;
            break;
        }
        if (so.monitor && c->rank == 0)
            printf("%6lld  ||r||/||b|| = %.6e\n", (long long)(c->mon_base + k), res->rel_residual);
        if (rr <= tol2) {
            res->outcome = CLCG_CONVERGED;
            break;
        }
        if (clcg_grew(rz, c->grow2)) {
            clcg_grew_stop(res, rz, c->grow2);
            break;
        }
        if (k >= so.max_it)
            break;
        if (!(rz > 0.0)) {
            res->outcome = CLCG_DIVERGED_BREAKDOWN;
            break;
        }
        /* p[par] = z + beta p[1-par]: fused, first the rows that the exchange and the
           boundary SpMV need, the others inside the interior SpMV; else all rows and the
           ghost pack in one pass */
        const int par = (int)(k & 1);
        for (int d = 0; fused && d < c->nd && st == CLCG_OK; d++) {
            clcg_slice *s = &c->s[d];
            cl_kernel ku = s->k[K_UPDATE_P_LIST];
            const double beta = k == 0 ? 0.0 : rz / rz_prev;
            s->sp_in = s->p[par];
            st = write_scalars(s, 0, 3, (const double[]){rz, rz_prev, rr});
            if (st == CLCG_OK && s->npb > 0) {
                st = clcg_cl_fail_if(clSetKernelArg(ku, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->npb}) |
                                     clSetKernelArg(ku, 1, sizeof(cl_mem), &s->rows_pb) |
                                     clSetKernelArg(ku, 2, sizeof(cl_mem), &s->r) |
                                     clSetKernelArg(ku, 4, sizeof(cl_mem), &s->p[1 - par]) |
                                     clSetKernelArg(ku, 5, sizeof(cl_mem), &s->p[par]) |
                                     clSetKernelArg(ku, 6, sizeof(double), &beta),
                                     "clSetKernelArg(update_p_list)");
                if (st == CLCG_OK)
                    st = set_dinv(ku, 3, s);
                if (st == CLCG_OK)
                    st = launch(c, d, ku, K_UPDATE_P_LIST, &s->vec);
            }
        }
        for (int d = 0; !fused && d < c->nd && st == CLCG_OK; d++) {
            clcg_slice *s = &c->s[d];
            cl_kernel ku = s->k[K_UPDATE_P];
            const double beta = k == 0 ? 0.0 : rz / rz_prev;   /* p starts as 0 */
            s->sp_in = s->p[par];
            st = clcg_cl_fail_if(clSetKernelArg(ku, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->nrows}) |
                                 clSetKernelArg(ku, 1, sizeof(cl_mem), &s->r) |
                                 clSetKernelArg(ku, 3, sizeof(cl_mem), &s->p[1 - par]) |
                                 clSetKernelArg(ku, 4, sizeof(cl_mem), &s->p[par]) |
                                 clSetKernelArg(ku, 5, sizeof(double), &beta) |
                                 clSetKernelArg(ku, 6, sizeof(cl_uint), &(cl_uint){(cl_uint)s->npack}) |
                                 clSetKernelArg(ku, 7, sizeof(cl_mem), &s->pack_idx) |
                                 clSetKernelArg(ku, 8, sizeof(cl_mem), &s->pack_buf),
                                 "clSetKernelArg(update_p_pack)");
            if (st == CLCG_OK)
                st = set_dinv(ku, 2, s);
            if (st == CLCG_OK && s->npack && pack_first(s) > 0) {
                /* the boundary values alone first, so that they leave while all of p is formed
                   (profiled as the pack: update_p_pack's count is of all rows) */
                st = clcg_cl_fail_if(clSetKernelArg(ku, 0, sizeof(cl_uint), &(cl_uint){0}), "clSetKernelArg");
                if (st == CLCG_OK)
                    st = launch_ev(c, d, ku, K_PACK, &s->vec, &s->packed_ev);
                if (st == CLCG_OK)
                    st = clcg_cl_fail_if(clSetKernelArg(ku, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->nrows}) |
                                         clSetKernelArg(ku, 6, sizeof(cl_uint), &(cl_uint){0}), "clSetKernelArg");
                if (st == CLCG_OK && side_spmv(c, s, fused))   /* the boundary SpMV on xq waits for it */
                    st = launch_ev(c, d, ku, K_UPDATE_P, &s->vec, &s->p_ev);
                else if (st == CLCG_OK)
                    st = launch(c, d, ku, K_UPDATE_P, &s->vec);
            } else if (st == CLCG_OK) {
                /* the pack read waits for it; with nothing to pack but ghosts to multiply,
                   the boundary SpMV beside (on xq) waits for it itself */
                cl_event *ev = s->npack ? &s->packed_ev : side_spmv(c, s, fused) ? &s->p_ev : NULL;
                st = launch_ev(c, d, ku, K_UPDATE_P, &s->vec, ev);
            }
        }
        if (k == 2 && st == CLCG_OK)
            st = clcg_fault_point(c->rank, "solve");
        st = spmv_with_exchange(c, st, fused, par, k, !fused);
        /* the second half of the previous iteration's x update while p'q travels */
        st = reduce_global(c, RED_PQ, v, st, has_pending ? &pending : NULL);
        has_pending = 0;
        if (st != CLCG_OK)
            return st;
        double pq = v[0];
        if (!isfinite(pq)) {
            res->outcome = CLCG_DIVERGED_NANORINF;
            break;
        }
        if (pq <= 0.0) {
            res->outcome = CLCG_DIVERGED_INDEFINITE;
            break;
        }
        /* r -= alpha q with alpha as an argument (nothing to write to the device first); x +=
           alpha p, the first half while r'z and r'r travel, the second while the next p'q does */
        const double alpha = rz / pq;
        for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
            clcg_slice *s = &c->s[d];
            cl_kernel ku = s->k[K_UPDATE_R];
            st = clcg_cl_fail_if(clSetKernelArg(ku, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->nrows}) |
                                 clSetKernelArg(ku, 1, sizeof(double), &alpha) |
                                 clSetKernelArg(ku, 2, sizeof(cl_mem), &s->r) |
                                 clSetKernelArg(ku, 3, sizeof(cl_mem), &s->q) |
                                 clSetKernelArg(ku, 5, sizeof(cl_mem), &s->part_rz[0]) |
                                 clSetKernelArg(ku, 6, sizeof(cl_mem), &s->part_rr[0]) |
                                 clSetKernelArg(ku, 7, s->vec.wg * sizeof(cl_double2), NULL) |
                                 clSetKernelArg(ku, 8, sizeof(cl_mem), s->wrr ? &s->wrr : NULL),
                                 "clSetKernelArg(update_r)");
            if (st == CLCG_OK)
                st = set_dinv(ku, 4, s);
            if (st == CLCG_OK)
                st = clcg_set_fin(ku, 9, c->fin ? s->red : NULL, c->fin ? s->ticket : NULL);
            if (st == CLCG_OK && c->fin)
                st = launch_ev(c, d, ku, K_UPDATE_R, &s->vec, &s->sum_ev);
            else if (st == CLCG_OK)
                st = launch(c, d, ku, K_UPDATE_R, &s->vec);
        }
        const x_tail xt = {alpha, par, 0};
        st = reduce_global(c, RED_RZ_RR, v, st, &xt);
        pending = (x_tail){xt.alpha, par, 1};
        has_pending = 1;
        if (st != CLCG_OK)
            return st;
        res->iterations = k + 1;
        rz_prev = rz;
        rz = v[0];
        rr = v[1];
    }
    for (int d = 0; has_pending && d < c->nd && st == CLCG_OK; d++)
        st = enqueue_x_tail(c, d, &pending);
    *run = res->iterations;
    return st;
}

/* ---- the other variants (host path) ---- */

static clcg_status fill0(clcg_slice *s, cl_mem m, int64_t count)
{
    const double zero = 0.0;
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, m, &zero, sizeof zero, 0, (size_t)(count ? count : 1) * sizeof(double),
                                0, NULL, NULL));
    return CLCG_OK;
}

/* Vectors a variant needs beyond those of the standard one. */
static clcg_status alloc_variant(clcg_slice *s, int pipelined)
{
    const size_t ob = (size_t)(s->nrows ? s->nrows : 1) * sizeof(double);
    const int first = pipelined ? EXT_U : EXT_S, last = EXT_S;
    static const char *const what[EXT_COUNT] = {"vector u", "vector w", "vector z", "vector q", "vector s"};
    for (int i = first; i <= last; i++)
        if (!s->ext[i])
            CLCG_CALL(clcg_dev_alloc(&s->dev, CL_MEM_READ_WRITE, ob, NULL, what[i], &s->ext[i]));
    return CLCG_OK;
}

static clcg_status set_update_sr(clcg_slice *s, double alpha, double beta)
{
    cl_kernel k = s->k[K_UPDATE_SR];
    ARG(k, 0, (cl_uint)s->nrows);
    ARG(k, 1, alpha);
    ARG(k, 2, beta);
    ARG(k, 3, s->x);
    ARG(k, 4, s->r);
    ARG(k, 5, s->p[1]);          /* u, with room for ghosts */
    ARG(k, 6, s->q);             /* w = A u */
    ARG(k, 7, s->p[0]);          /* p */
    ARG(k, 8, s->ext[EXT_S]);    /* s = A p */
    CLCG_CALL(set_dinv(k, 9, s));
    ARG(k, 10, s->part_rz[0]);
    ARG(k, 11, s->part_rr[0]);
    ARG_LOCAL(k, 12, s->vec.wg);
    return CLCG_OK;
}

/* One reduction point of the single-reduction and pipelined variants: from
 * (gamma = r'u, r'r, delta = w'u) decide whether to stop, else give alpha and beta
 * (Chronopoulos-Gear: p'Ap = delta - beta gamma / alpha_prev).  0: stop, outcome set. */
static int sr_step(const cg_ctx *c, clcg_solve_result *res, const double *v, int64_t k, double tol2, double bnorm,
                   int monitor, double *alpha, double *beta, double *gamma_prev)
{
    const double gamma = v[0], rr = v[1], delta = v[2];
    res->rel_residual = sqrt(rr) / bnorm;
    if (!isfinite(rr) || !isfinite(gamma) || !isfinite(delta)) {
        res->outcome = CLCG_DIVERGED_NANORINF;
        return 0;
    }
    if (monitor && c->rank == 0)
        printf("%6lld  ||r||/||b|| = %.6e\n", (long long)(c->mon_base + k), res->rel_residual);
    if (rr <= tol2) {
        res->outcome = CLCG_CONVERGED;
        return 0;
    }
    if (clcg_grew(gamma, c->grow2)) {
        clcg_grew_stop(res, gamma, c->grow2);
        return 0;
    }
    if (k >= c->o->max_it)
        return 0;
    if (!(gamma > 0.0)) {
        res->outcome = CLCG_DIVERGED_BREAKDOWN;
        return 0;
    }
    *beta = k == 0 ? 0.0 : gamma / *gamma_prev;
    const double pap = k == 0 ? delta : delta - *beta * gamma / *alpha;
    if (!(pap > 0.0)) {
        res->outcome = isfinite(pap) ? CLCG_DIVERGED_INDEFINITE : CLCG_DIVERGED_NANORINF;
        return 0;
    }
    *alpha = gamma / pap;
    *gamma_prev = gamma;
    return 1;
}

/* Chronopoulos-Gear: one reduction point (r'u, r'r, w'u) and one MPI_Allreduce per iteration. */
static clcg_status solve_sr(cg_ctx *c, double tol2, double bnorm, clcg_solve_result *res, int64_t *run)
{
    const int monitor = c->o->monitor && !c->o->quiet;
    clcg_status st = CLCG_OK;
    double v[3], alpha = 0.0, beta = 0.0, gamma_prev = 1.0;
    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        st = alloc_variant(s, 0);
        if (st == CLCG_OK)
            st = clcg_cl_fail_if(clEnqueueCopyBuffer(s->dev.queue, s->b, s->r, 0, 0,
                                                     (size_t)(s->nrows ? s->nrows : 1) * sizeof(double), 0, NULL, NULL),
                                 "clEnqueueCopyBuffer(r = b)");
        if (st == CLCG_OK)
            st = fill0(s, s->x, s->nrows);
        if (st == CLCG_OK)
            st = fill0(s, s->q, s->nrows);
        if (st == CLCG_OK)
            st = fill0(s, s->p[1], s->ncols);
        if (st == CLCG_OK)
            st = fill0(s, s->p[0], s->nrows);
        if (st == CLCG_OK)
            st = fill0(s, s->ext[EXT_S], s->nrows);
        if (st == CLCG_OK)   /* csr-adaptive leaves the parts of empty bins alone: zeros there */
            st = fill0(s, s->part_pq, (int64_t)s->nparts * 4);
        if (st == CLCG_OK)   /* alpha = beta = 0: r = b, u = M^-1 r, partial sums of r'u, r'r */
            st = set_update_sr(s, 0.0, 0.0);
        if (st == CLCG_OK)
            st = launch(c, d, s->k[K_UPDATE_SR], K_UPDATE_SR, &s->vec);
        s->sp_in = s->p[1];
        s->sp_out = s->q;
    }
    st = spmv_with_exchange(c, st, 0, 0, 0, 0);
    st = reduce_global(c, RED_SR, v, st, NULL);
    if (st != CLCG_OK)
        return st;
    res->outcome = CLCG_DIVERGED_ITS;
    for (int64_t k = 0;; k++) {
        if (!sr_step(c, res, v, k, tol2, bnorm, monitor, &alpha, &beta, &gamma_prev))
            break;
        for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
            st = set_update_sr(&c->s[d], alpha, beta);
            if (st == CLCG_OK)
                st = launch(c, d, c->s[d].k[K_UPDATE_SR], K_UPDATE_SR, &c->s[d].vec);
        }
        if (k == 2 && st == CLCG_OK)
            st = clcg_fault_point(c->rank, "solve");
        st = spmv_with_exchange(c, st, 0, 0, 0, 0);
        st = reduce_global(c, RED_SR, v, st, NULL);
        if (st != CLCG_OK)
            return st;
        res->iterations = k + 1;
    }
    *run = res->iterations;
    return CLCG_OK;
}

static clcg_status set_update_pipe(clcg_slice *s, double alpha, double beta)
{
    cl_kernel k = s->k[K_UPDATE_PIPE];
    ARG(k, 0, (cl_uint)s->nrows);
    ARG(k, 1, alpha);
    ARG(k, 2, beta);
    ARG(k, 3, s->x);
    ARG(k, 4, s->r);
    ARG(k, 5, s->ext[EXT_U]);
    ARG(k, 6, s->ext[EXT_W]);
    ARG(k, 7, s->p[1]);          /* m = M^-1 w, with room for ghosts */
    ARG(k, 8, s->q);             /* n = A m */
    ARG(k, 9, s->ext[EXT_Z]);
    ARG(k, 10, s->ext[EXT_Q]);
    ARG(k, 11, s->ext[EXT_S]);
    ARG(k, 12, s->p[0]);
    CLCG_CALL(set_dinv(k, 13, s));
    ARG(k, 14, s->part_rz[0]);
    ARG(k, 15, s->part_rz[1]);
    ARG(k, 16, s->part_rr[0]);
    ARG_LOCAL(k, 17, s->vec.wg);
    return CLCG_OK;
}

/* Ghysels-Vanroose: the reduction of (r'u, w'u, r'r) travels (MPI_Iallreduce) while m's
 * ghosts are exchanged and n = A m is computed. */
static clcg_status solve_pipe(cg_ctx *c, double tol2, double bnorm, clcg_solve_result *res, int64_t *run)
{
    const int monitor = c->o->monitor && !c->o->quiet;
    clcg_status st = CLCG_OK;
    double v[8], alpha = 0.0, beta = 0.0, gamma_prev = 1.0;
    int nv = 3;
    MPI_Datatype dt;
    MPI_Op op;
    CLCG_CALL(clcg_dd_mpi(&dt, &op));
    /* r = b, u0 = M^-1 b (placed in m to be exchanged), the other vectors 0; the SpMV step
     * then gives n = A u0. */
    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        const size_t ob = (size_t)(s->nrows ? s->nrows : 1) * sizeof(double);
        st = alloc_variant(s, 1);
        for (int i = 0; i < EXT_COUNT && st == CLCG_OK; i++)
            st = fill0(s, s->ext[i], s->nrows);
        if (st == CLCG_OK)   /* csr-adaptive leaves the parts of empty bins alone: zeros there */
            st = fill0(s, s->part_pq, (int64_t)s->nparts * 4);
        if (st == CLCG_OK)
            st = fill0(s, s->x, s->nrows);
        if (st == CLCG_OK)
            st = fill0(s, s->p[0], s->nrows);
        if (st == CLCG_OK)
            st = fill0(s, s->q, s->nrows);
        if (st == CLCG_OK)
            st = clcg_cl_fail_if(clEnqueueCopyBuffer(s->dev.queue, s->b, s->r, 0, 0, ob, 0, NULL, NULL), "clEnqueueCopyBuffer");
        /* m := M^-1 b (as u0), exchanged and multiplied: n = A u0 = w0 */
        if (st == CLCG_OK && s->dinv) {
            cl_kernel kj = s->k[K_JACOBI];
            st = clcg_cl_fail_if(clSetKernelArg(kj, 0, sizeof(cl_uint), &(cl_uint){(cl_uint)s->nrows}) |
                                 clSetKernelArg(kj, 1, sizeof(cl_mem), &s->dinv) |
                                 clSetKernelArg(kj, 2, sizeof(cl_mem), &s->b) |
                                 clSetKernelArg(kj, 3, sizeof(cl_mem), &s->p[1]), "clSetKernelArg(jacobi)");
            if (st == CLCG_OK)
                st = launch(c, d, kj, K_JACOBI, &s->vec);
        } else if (st == CLCG_OK) {
            st = clcg_cl_fail_if(clEnqueueCopyBuffer(s->dev.queue, s->b, s->p[1], 0, 0, ob, 0, NULL, NULL), "clEnqueueCopyBuffer");
        }
        if (st == CLCG_OK)
            st = clcg_cl_fail_if(clEnqueueCopyBuffer(s->dev.queue, s->p[1], s->ext[EXT_U], 0, 0, ob, 0, NULL, NULL),
                                 "clEnqueueCopyBuffer(u)");
        s->sp_in = s->p[1];
        s->sp_out = s->q;
    }
    st = spmv_with_exchange(c, st, 0, 0, 0, 0);
    /* w0 = n; then the update with alpha = beta = 0 leaves r, u, w as they are and gives
     * m0 = M^-1 w0 and the partial sums of r'u, w'u, r'r for the first reduction. */
    for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c->s[d];
        const size_t ob = (size_t)(s->nrows ? s->nrows : 1) * sizeof(double);
        st = clcg_cl_fail_if(clEnqueueCopyBuffer(s->dev.queue, s->q, s->ext[EXT_W], 0, 0, ob, 0, NULL, NULL),
                             "clEnqueueCopyBuffer(w)");
        if (st == CLCG_OK)
            st = fill0(s, s->q, s->nrows);
        if (st == CLCG_OK)
            st = set_update_pipe(s, 0.0, 0.0);
        if (st == CLCG_OK)
            st = launch(c, d, s->k[K_UPDATE_PIPE], K_UPDATE_PIPE, &s->vec);
    }
    res->outcome = CLCG_DIVERGED_ITS;
    for (int64_t k = 0;; k++) {
        MPI_Request req = MPI_REQUEST_NULL;
        st = reduce_local(c, RED_PIPE, v, &nv, st, NULL);
        double t0 = MPI_Wtime();
        if (MPI_Iallreduce(MPI_IN_PLACE, v, nv + 1, dt, op, c->comm, &req) != MPI_SUCCESS)
            return clcg_error(CLCG_ERR_MPI, "MPI_Iallreduce of the dot products failed");
        c->t_allreduce += MPI_Wtime() - t0;
        /* n = A m while the reduction travels (m's ghosts exchanged inside) */
        if (k < c->o->max_it)
            st = spmv_with_exchange(c, st, 0, 0, 0, 0);
        t0 = MPI_Wtime();
        if (MPI_Wait(&req, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return clcg_error(CLCG_ERR_MPI, "MPI_Wait of the dot products failed");
        c->t_allreduce += MPI_Wtime() - t0;
        st = reduce_finish(c, v, nv, v, st);
        if (st != CLCG_OK)
            return st;
        if (!sr_step(c, res, v, k, tol2, bnorm, monitor, &alpha, &beta, &gamma_prev))
            break;
        for (int d = 0; d < c->nd && st == CLCG_OK; d++) {
            st = set_update_pipe(&c->s[d], alpha, beta);
            if (st == CLCG_OK)
                st = launch(c, d, c->s[d].k[K_UPDATE_PIPE], K_UPDATE_PIPE, &c->s[d].vec);
        }
        if (k == 2 && st == CLCG_OK)
            st = clcg_fault_point(c->rank, "solve");
        res->iterations = k + 1;
    }
    *run = res->iterations;
    return CLCG_OK;
}

/* ---- device binding ---- */

#ifndef CL_DEVICE_PCI_BUS_ID_NV
#define CL_DEVICE_PCI_BUS_ID_NV 0x4008
#define CL_DEVICE_PCI_SLOT_ID_NV 0x4009
#endif

/* A name for the physical device: PCI location where the driver tells it. */
static void device_identity(const clcg_devinfo *d, int index, char *out, size_t len)
{
    cl_uint bus = 0, slot = 0;
    if (clGetDeviceInfo(d->device, CL_DEVICE_PCI_BUS_ID_NV, sizeof bus, &bus, NULL) == CL_SUCCESS &&
        clGetDeviceInfo(d->device, CL_DEVICE_PCI_SLOT_ID_NV, sizeof slot, &slot, NULL) == CL_SUCCESS)
        snprintf(out, len, "%.200s@pci:%u.%u", d->name, bus, slot);
    else
        snprintf(out, len, "%.200s#%d", d->name, index);
}

/* The node-local rank picks its devices.  When every rank on the node sees the same
 * devices, they are dealt out by node-local rank; when each rank sees only its own (SLURM
 * --gpus-per-task, CUDA_VISIBLE_DEVICES), it uses those.  One device a rank unless
 * --devices-per-rank says more: a rank driving several runs slower than a rank for each
 * (bench/RESULTS.md: on 4 H200, 2 ranks of 2 GPUs took 1.06 ms an iteration of Poisson 256^3,
 * 2 ranks of one GPU 0.44-0.50, 4 ranks 0.29; one rank of 4 GPUs 1.83-1.88, of one 0.73).
 * Sharing a GPU is reported; GPUs that no rank of the node uses are counted (*idle). */
static clcg_status pick_devices(MPI_Comm comm, const clcg_options *o, clcg_devinfo *list, int m, int *first,
                                int *count, int *sharers, int *idle)
{
    MPI_Comm node;
    int lrank, lsize, same = 1;
    char id[256], *all = NULL;
    clcg_status st = CLCG_OK;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &lrank);
    MPI_Comm_size(node, &lsize);
    memset(id, 0, sizeof id);
    device_identity(&list[0], 0, id, sizeof id);
    st = clcg_malloc(&all, (size_t)lsize, sizeof id, "device identities");
    if (st == CLCG_OK) {
        MPI_Allgather(id, sizeof id, MPI_CHAR, all, sizeof id, MPI_CHAR, node);
        for (int r = 0; r < lsize; r++)
            same &= !strcmp(all + (size_t)r * sizeof id, id);
    }
    *sharers = 1;
    if (st == CLCG_OK && o->device >= 0) {
        if (o->device >= m)
            st = clcg_error(CLCG_ERR_DEVICE, "--device %d: only %d matching device%s (see --list-devices)",
                            o->device, m, m == 1 ? "" : "s");
        *first = o->device;
        *count = 1;
    } else if (st == CLCG_OK && same && lsize > 1) {
        int per = o->devices_per_rank ? o->devices_per_rank : 1;
        /* the same verdict on every rank of the node: one device each may be shared */
        if (o->devices_per_rank && (per > m || (per > 1 && lsize * per > m))) {
            st = clcg_error(CLCG_ERR_DEVICE, "--devices-per-rank %d: %d ranks on this node see only %d device%s",
                            per, lsize, m, m == 1 ? "" : "s");
        } else if ((lrank + 1) * per <= m) {
            *first = lrank * per;
            *count = per;
        } else {
            *first = lrank % m;
            *count = 1;
        }
    } else if (st == CLCG_OK) {
        *first = 0;
        *count = o->devices_per_rank ? (o->devices_per_rank < m ? o->devices_per_rank : m) : 1;
        if (o->devices_per_rank > m)
            st = clcg_error(CLCG_ERR_DEVICE, "--devices-per-rank %d: this rank sees only %d device%s",
                            o->devices_per_rank, m, m == 1 ? "" : "s");
    }
    if (*count > CLCG_MAX_DEVS)
        *count = CLCG_MAX_DEVS;
    /* the node's GPUs that no rank takes (with the same list on every rank, those no rank's
       range covers; each its own: the ones each leaves), and whether some rank failed, so
       that none waits below for one that did */
    int failed = 0;
    {
        const int gpus = st == CLCG_OK && m > 0 && list[0].is_gpu;
        uint64_t mask[4] = {0, 0, 0, 0};   /* the devices of the list in use, up to 256 */
        long long n[2] = {gpus && *count < m ? m - *count : 0, st != CLCG_OK};
        for (int i = *first; gpus && same && i < *first + *count && i < 256; i++)
            mask[i / 64] |= (uint64_t)1 << (i % 64);
        MPI_Allreduce(MPI_IN_PLACE, mask, 4, MPI_UINT64_T, MPI_BOR, node);
        MPI_Allreduce(MPI_IN_PLACE, n, 2, MPI_LONG_LONG, MPI_SUM, node);
        int used = 0;
        for (int i = 0; i < 4; i++)
            used += __builtin_popcountll(mask[i]);
        failed = n[1] > 0;
        *idle = !gpus ? 0 : same ? (m > used ? m - used : 0) : (int)n[0];
    }
    /* who else on this node uses my first device? */
    if (st == CLCG_OK && !failed) {
        device_identity(&list[*first], *first, id, sizeof id);
        MPI_Allgather(id, sizeof id, MPI_CHAR, all, sizeof id, MPI_CHAR, node);
        *sharers = 0;
        for (int r = 0; r < lsize; r++)
            *sharers += !strcmp(all + (size_t)r * sizeof id, id);
        if (*sharers > 1 && list[*first].is_gpu && lrank == 0)
            fprintf(stderr, "clcg-mpi: warning: %d ranks on this node share GPU '%s'; give each rank its own "
                            "GPU (fewer ranks, or --gpus-per-task=1) for full speed\n", *sharers, id);
    }
    free(all);
    MPI_Comm_free(&node);
    return st;
}

static int64_t rows_nnz(int64_t i, const void *ctx)
{
    const clcg_csr *a = ctx;
    return a->rowptr[i + 1] - a->rowptr[i];
}

clcg_status clcg_solve_list_devices(MPI_Comm comm, const clcg_options *o)
{
    int rank;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        st = clcg_ocl_list(stdout, o->device_type, o->platform);
    return clcg_agree(comm, st, NULL);
}

static void fill_info(cg_ctx *c, clcg_run_info *info, int64_t run)
{
    const clcg_slice *s = &c->s[0];
    info->backend = "opencl";
    snprintf(info->device, sizeof info->device, "%s", s->dev.info.name);
    snprintf(info->platform, sizeof info->platform, "%s", s->dev.info.platform_name);
    snprintf(info->driver, sizeof info->driver, "%s", s->dev.info.driver);
    snprintf(info->format, sizeof info->format, "%s", clcg_format_name(s->fmt));
    if (s->fmt == FMT_CSR_VECTOR)
        snprintf(info->format + strlen(info->format), sizeof info->format - strlen(info->format), "(vs=%u)", s->vs);
    if (s->fmt == FMT_SELL)
        snprintf(info->format + strlen(info->format), sizeof info->format - strlen(info->format), "(C=%u)", s->C);
    if (s->fmt == FMT_CSR_ADAPTIVE)
        snprintf(info->format + strlen(info->format), sizeof info->format - strlen(info->format),
                 "(%lld/%lld/%lld rows)", (long long)s->bin_n[0], (long long)s->bin_n[1], (long long)s->bin_n[2]);
    if (s->fmt == FMT_CSR_STREAM)
        snprintf(info->format + strlen(info->format), sizeof info->format - strlen(info->format),
                 "(%lld blocks)", (long long)s->nblk);
    snprintf(info->variant, sizeof info->variant, "%s%s", c->variant, c->scale ? ", Jacobi scaled" : "");
    snprintf(info->base_variant, sizeof info->base_variant, "%s", c->variant);
    info->ndevices = info->ndevices_min = info->ndevices_max = c->nd;
    MPI_Allreduce(MPI_IN_PLACE, &info->ndevices_min, 1, MPI_INT, MPI_MIN, c->comm);
    MPI_Allreduce(MPI_IN_PLACE, &info->ndevices_max, 1, MPI_INT, MPI_MAX, c->comm);
    info->iterations_run = run;
    info->t_exchange = c->t_exchange;
    info->t_allreduce = c->t_allreduce;
    MPI_Allreduce(MPI_IN_PLACE, &info->t_exchange, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    MPI_Allreduce(MPI_IN_PLACE, &info->t_allreduce, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    info->t_comm = c->t_exchange + c->t_allreduce;
    MPI_Allreduce(MPI_IN_PLACE, &info->t_comm, 1, MPI_DOUBLE, MPI_MAX, c->comm);
    info->launches_per_it = run > 0 ? (double)c->launches / (double)run : 0.0;
    info->syncs_per_it = run > 0 ? (double)c->syncs / (double)run : 0.0;
    info->halo_in_place = c->direct;
    MPI_Allreduce(MPI_IN_PLACE, &info->halo_in_place, 1, MPI_INT, MPI_SUM, c->comm);
    info->halo_links[0] = c->size > 1 ? c->p->halo.nshm_links : 0;
    info->halo_links[1] = c->size > 1 && c->p->halo.mode == CLCG_EXCHANGE_NEIGHBOR ? c->p->halo.nrecv : 0;
    info->halo_links[2] = c->win;
    MPI_Allreduce(MPI_IN_PLACE, info->halo_links, 3, MPI_INT, MPI_SUM, c->comm);
    info->pack_first = 0;
    for (int d = 0; d < c->nd; d++)
        info->pack_first |= !host_fused(c) && c->s[d].npack && pack_first(&c->s[d]) > 0;
    MPI_Allreduce(MPI_IN_PLACE, &info->pack_first, 1, MPI_INT, MPI_SUM, c->comm);
    info->side_spmv = c->side;
    MPI_Allreduce(MPI_IN_PLACE, &info->side_spmv, 1, MPI_INT, MPI_SUM, c->comm);
    info->bytes_sent_min = info->bytes_sent_max = c->size > 1 ? c->p->halo.bytes_sent : 0;
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_min, 1, MPI_INT64_T, MPI_MIN, c->comm);
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_max, 1, MPI_INT64_T, MPI_MAX, c->comm);
    if (c->prof) {
        double t[K_COUNT], b[K_COUNT];
        int64_t n[K_COUNT];
        memset(t, 0, sizeof t);
        memset(b, 0, sizeof b);
        memset(n, 0, sizeof n);
        for (int d = 0; d < c->nd; d++)
            for (int kid = 0; kid < K_COUNT; kid++) {
                t[kid] = c->prof[d].time[kid] > t[kid] ? c->prof[d].time[kid] : t[kid];
                b[kid] = c->prof[d].bytes[kid] > b[kid] ? c->prof[d].bytes[kid] : b[kid];
                n[kid] = c->prof[d].calls[kid] > n[kid] ? c->prof[d].calls[kid] : n[kid];
            }
        MPI_Allreduce(MPI_IN_PLACE, t, K_COUNT, MPI_DOUBLE, MPI_MAX, c->comm);
        MPI_Allreduce(MPI_IN_PLACE, b, K_COUNT, MPI_DOUBLE, MPI_MAX, c->comm);
        MPI_Allreduce(MPI_IN_PLACE, n, K_COUNT, MPI_INT64_T, MPI_MAX, c->comm);
        info->nk = 0;
        for (int kid = 0; kid < K_COUNT && info->nk < CLCG_MAX_KSTATS; kid++) {
            if (!n[kid])
                continue;
            clcg_kstat *k = &info->k[info->nk++];
            snprintf(k->name, sizeof k->name, "%s", clcg_kernel_name(kid));
            if (kid == K_SPMV_CG || kid == K_SPMV)
                snprintf(k->name, sizeof k->name, "%s[%s]", clcg_kernel_name(kid), clcg_format_name(s->fmt));
            k->calls = n[kid];
            k->time = t[kid];
            k->bytes = b[kid];
        }
    }
}

/* One solve in the chosen variant from x = 0 with the b on the devices, waited for. */
static clcg_status solve_variant(cg_ctx *c, double tol2, double bnorm, clcg_solve_result *res, int64_t *run)
{
    clcg_status st;
    res->growth = 0.0;   /* set only by this solve's growth test */
    if (!strcmp(c->variant, "single-reduction"))
        st = solve_sr(c, tol2, bnorm, res, run);
    else if (!strcmp(c->variant, "pipelined"))
        st = solve_pipe(c, tol2, bnorm, res, run);
    else if (c->size == 1 && c->nd == 1 && !(getenv("CLCG_HOST_PATH") && *getenv("CLCG_HOST_PATH") == '1'))
        st = solve_fused(c, tol2, bnorm, res, run);   /* CLCG_HOST_PATH=1: the path of several (tests, timing) */
    else {
        /* the last launch before each reduction point sums it up (CLCG_FINISH=0: a
           reduce_sum launch of its own, as the other variants do; development and tests),
           where the last work-group can see the others' sums: a fence of the whole device */
        const char *e = getenv("CLCG_FINISH");
        c->fin = !(e && *e == '0');
        for (int d = 0; d < c->nd; d++)
            c->fin &= c->s[d].dev.fence_device;
        st = solve_host(c, tol2, bnorm, res, run);
        c->fin = 0;
    }
    for (int d = 0; d < c->nd && st == CLCG_OK; d++)
        st = clcg_cl_fail_if(clFinish(c->s[d].dev.queue), "clFinish");
    return st;
}

/* b (or, scaled, D^-1/2 b) of my rows onto the devices; hp: room for my rows */
static clcg_status put_b(cg_ctx *c, const double *b)
{
    for (int d = 0; d < c->nd; d++) {
        clcg_slice *s = &c->s[d];
        const double *bd = b + s->row_lo;
        if (!s->nrows)
            continue;
        if (c->scale) {
            for (int64_t i = 0; i < s->nrows; i++)
                c->hp[i] = c->scale[i] * bd[i];
            bd = c->hp;
        }
        CLCG_CALL(clcg_cl_fail_if(clEnqueueWriteBuffer(s->dev.queue, s->b, CL_TRUE, 0, (size_t)s->nrows * sizeof(double),
                                                       bd, 0, NULL, NULL), "clEnqueueWriteBuffer(b)"));
    }
    return CLCG_OK;
}

/* x of my rows from the devices into out (D^-1/2 y when scaled) */
static clcg_status get_x(cg_ctx *c, double *out)
{
    for (int d = 0; d < c->nd; d++) {
        clcg_slice *s = &c->s[d];
        if (!s->nrows)
            continue;
        CLCG_CALL(clcg_cl_fail_if(clEnqueueReadBuffer(s->dev.queue, s->x, CL_TRUE, 0, (size_t)s->nrows * sizeof(double),
                                                      out + s->row_lo, 0, NULL, NULL), "clEnqueueReadBuffer(x)"));
        for (int64_t i = 0; c->scale && i < s->nrows; i++)
            out[s->row_lo + i] *= c->scale[i];
    }
    return CLCG_OK;
}

/* The recurrences can drift from b - Ax, the pipelined form's most: it may stop with its
 * recursive residual under --rtol and the true one tens of times above.  Then A d = b - Ax
 * is solved on the devices for the correction (the same variant, to the same absolute
 * tolerance; the standard one after a breakdown, below), x += d, while the true residual
 * keeps falling, at most REFINE times.  Where the single-reduction or pipelined form's
 * corrections stop helping (or run out of rounds) above --rtol, that is their recurrences'
 * limit, not double precision's (on a 1-D Laplacian + 4e-10 I with b = A*1, --precond none,
 * --rtol 1e-10, pipelined's stalled at 2e-7, and one in the standard form reached 1e-15): up
 * to REFINE more corrections run in the standard form.  What stays above --rtol after those is reported as the limit
 * reached (res->at_limit). */
#define REFINE 4

static clcg_status refine(cg_ctx *c, clcg_solve_result *res, clcg_run_info *info, double **resid)
{
    clcg_problem *p = c->p;
    const double rtol = c->o->rtol;
    clcg_status st = CLCG_OK;
    double *r = *resid, *d = NULL, rel = 0.0;   /* r = b - Ax of the solve, made by the caller */
    const char *variant = c->variant;
    /* The single-reduction and pipelined forms take p'Ap from a recurrence, which rounding
     * can turn negative on an SPD matrix once the residual is small (the 1-D Laplacian at
     * --rtol 1e-12: pipelined "breaks down" right after CG's last step).  Their breakdown is
     * put to the standard form, which forms p'Ap itself: the corrections below run with it,
     * and only if it breaks down too (or gets nowhere) does the breakdown stand. */
    /* (a residual grown past what an SPD matrix allows is put to it too: a p'Ap from the
     * recurrence that rounding left tiny and positive instead of negative blows it up) */
    const int check = strcmp(variant, "standard") != 0 && !clcg_breakdown_at_limit(res) &&
                      (res->outcome == CLCG_DIVERGED_BREAKDOWN || res->outcome == CLCG_DIVERGED_INDEFINITE ||
                       (res->outcome == CLCG_DIVERGED_SINGULAR && res->growth > 0.0)) &&
                      isfinite(res->true_residual);
    int last = 0;       /* the last correction converged */
    int conv = 0;       /* some correction converged (and helped) */
    int out_of_its = 0; /* the corrections used up what --max-iterations left */
    if (!(res->outcome == CLCG_CONVERGED || clcg_breakdown_at_limit(res) || check))
        return CLCG_OK;
    if (!(res->true_residual > rtol)) {
        if (check)   /* x meets --rtol already: the breakdown came after the answer */
            res->outcome = CLCG_CONVERGED;
        return CLCG_OK;
    }
    const double first_growth = res->growth;   /* kept for the message, should the first outcome stand */
    if (check) {   /* said in the report and the record */
        info->rescued = 1;
        info->first_outcome = res->outcome;
        info->first_iterations = res->iterations;
        info->first_true_residual = res->true_residual;
        res->growth = 0.0;
    }
    st = clcg_malloc(&d, (size_t)p->A.ncols + 1, sizeof *d, "correction");
    CLCG_CHECK(st, clcg_agree(c->comm, st, NULL), out);
    /* each round makes the residual of the corrected x, into d */
    const double bnorm = res->bnorm > 0.0 ? res->bnorm : 1.0,
                 tol2 = fmax((rtol * bnorm) * (rtol * bnorm), CLCG_RR_FLOOR);
    int std_legs = check;   /* the corrections run the standard form */
    int legs = REFINE;
    for (int k = 0; k < legs && res->true_residual > rtol; k++) {
        clcg_solve_result rc = *res;
        int64_t run = 0;
        /* the corrections share --max-iterations with the solve before them */
        clcg_options left = *c->o;
        const clcg_options *given = c->o;
        left.max_it = c->o->max_it - res->iterations;
        if (left.max_it <= 0) {
            out_of_its = 1;
            break;
        }
        rc.iterations = 0;   /* a solve that stops at once leaves it as it was */
        CLCG_CHECK(st, clcg_agree(c->comm, put_b(c, r), NULL), out);
        if (std_legs)
            c->variant = "standard";
        if (left.monitor && !left.quiet && c->rank == 0)   /* its lines go on from the solve's count */
            printf("        correction %d: A d = b - Ax, ||b-Ax||/||b|| = %.6e\n", k + 1, res->true_residual);
        c->o = &left;
        c->mon_base = res->iterations;
        /* the growth test in standard-form legs only: in the others a p'Ap left tiny and
           positive by rounding is no verdict (the first solve's is put to the standard form) */
        const double grow2 = c->grow2;
        c->grow2 = !strcmp(c->variant, "standard") ? CLCG_COND_SINGULAR * mnorm2(c, r) : 0.0;
        st = solve_variant(c, tol2, bnorm, &rc, &run);
        c->grow2 = grow2;
        c->mon_base = 0;
        c->o = given;
        c->variant = variant;
        CLCG_CHECK(st, clcg_agree(c->comm, st, NULL), out);
        CLCG_CHECK(st, clcg_agree(c->comm, get_x(c, d), NULL), out);
        for (int64_t i = 0; i < p->A.nrows; i++) {
            r[i] = p->x[i];   /* kept, should the correction not help */
            p->x[i] += d[i];
        }
        CLCG_CHECK(st, clcg_agree(c->comm, clcg_residual(&p->A, &p->halo, p->b, p->x, d, &rel), NULL), out);
        res->iterations += rc.iterations;
        info->iterations_run += run;
        info->refinements++;
        info->std_corrections += std_legs && !check;
        out_of_its = rc.outcome == CLCG_DIVERGED_ITS;   /* cut short by the limit, helping or not */
        if (rc.outcome == CLCG_DIVERGED_SINGULAR) {   /* its residual grew: A is no SPD matrix to double precision */
            memcpy(p->x, r, (size_t)p->A.nrows * sizeof *r);
            res->outcome = rc.outcome;
            res->growth = rc.growth;
            res->cond_low = rc.cond_low;
            res->rel_residual = rc.rel_residual;
            res->at_limit = 0;
            goto out;
        }
        if (!(rel < res->true_residual)) {   /* it did not help: x as it was */
            memcpy(p->x, r, (size_t)p->A.nrows * sizeof *r);
            last = 0;
            if (std_legs || !strcmp(variant, "standard"))
                break;
            /* the standard form's turn, from x as it was and its residual */
            std_legs = 1;
            legs = k + 1 + REFINE;
            CLCG_CHECK(st, clcg_agree(c->comm, clcg_residual(&p->A, &p->halo, p->b, p->x, r, &rel), NULL), out);
            continue;
        }
        last = rc.outcome == CLCG_CONVERGED || clcg_breakdown_at_limit(&rc);
        conv |= last;
        res->true_residual = rel;
        res->rel_residual = rc.rel_residual;   /* the correction's: of b - A(x + d), as x is now */
        /* the standard form broke down too: the breakdown stands where none of its solves
           converged; after one that did, this is its rounding at the limit, as where the
           standard variant's own corrections break down */
        if (check && !last)
            break;
        double *t = r;   /* d holds the new residual: next round's right-hand side */
        r = d;
        d = t;
        if (k + 1 == legs && !std_legs && strcmp(variant, "standard")) {   /* rounds used up, helping */
            std_legs = 1;
            legs += REFINE;
        }
    }
    if (res->true_residual <= rtol) {
        res->outcome = CLCG_CONVERGED;
    } else if (out_of_its) {   /* --max-iterations reached before the true residual met --rtol */
        res->outcome = CLCG_DIVERGED_ITS;
    } else if (res->outcome == CLCG_CONVERGED || (check && conv)) {
        res->outcome = CLCG_CONVERGED;
        res->at_limit = 1;
    } else if (res->outcome == CLCG_DIVERGED_SINGULAR) {   /* the first solve's growth stands */
        res->growth = first_growth;
    }
out:
    *resid = r;   /* the two buffers may have swapped: the caller frees this one */
    free(d);
    return st;
}

/* Appends one device's tuning outcome to the record ("device D: " before it when D >= 0). */
static void tuning_add(char *out, size_t len, int d, const char *how)
{
    size_t used = strlen(out);
    if (used + 1 >= len)
        return;
    if (d >= 0)
        snprintf(out + used, len - used, "%sdevice %d: %s", used ? "; " : "", d, how);
    else
        snprintf(out + used, len - used, "%s", how);
}

/* --variant auto.  Standard, whose iterates (with double-double dot products) are the same
 * bits on any number of ranks and devices and in the host reference, and which runs fused on
 * one device; but where several GPUs each hold fewer than CLCG_SR_ROWS rows (default 6
 * million), single-reduction, whose one reduction point an iteration saves more than its
 * extra vector traffic costs there.  Measured on 4 H200 of one host (2026-11-27, Poisson,
 * bench/RESULTS.md), ms per iteration standard / single-reduction: 256^3 on 2 GPUs (8.4 M
 * rows each) 0.41 / 0.48, on 4 (4.2 M) 0.33 / 0.29; 128^3 on 4 (0.5 M) 0.23 / 0.15; 256^3
 * each on 4 0.77 / 0.88.  Other devices: standard, unless CLCG_SR_ROWS is set, which then
 * applies to any device.  The same choice on every rank. */
static const char *auto_variant(const cg_ctx *c, const clcg_devinfo *list, int first, int64_t n)
{
    int v[2] = {1, c->nd};   /* every device here a GPU; devices in all */
    for (int d = 0; d < c->nd; d++)
        v[0] &= list[first + d].is_gpu != 0;
    MPI_Allreduce(MPI_IN_PLACE, &v[0], 1, MPI_INT, MPI_MIN, c->comm);
    MPI_Allreduce(MPI_IN_PLACE, &v[1], 1, MPI_INT, MPI_SUM, c->comm);
    const char *e = getenv("CLCG_SR_ROWS");
    char *end = NULL;
    double rows = v[0] ? 6e6 : 0.0;
    if (e && *e) {
        double r = strtod(e, &end);
        if (*end == '\0' && r >= 0)
            rows = r;
    }
    int sr = v[1] > 1 && (double)n / v[1] < rows;   /* agreed, should the ranks' settings differ */
    MPI_Allreduce(MPI_IN_PLACE, &sr, 1, MPI_INT, MPI_MIN, c->comm);
    return sr ? "single-reduction" : "standard";
}

clcg_status clcg_cg_ocl(MPI_Comm comm, const clcg_options *o, clcg_problem *p, clcg_solve_result *res,
                        clcg_run_info *info)
{
    cg_ctx c;
    clcg_devinfo *list = NULL;
    clcg_status st = CLCG_OK;
    unsigned char *needed = NULL;
    double *resid = NULL;   /* b - Ax at the end, on the host */
    int m = 0, first = 0, count = 0, sharers = 1, idle = 0;
    int64_t run = 0, bounds[CLCG_MAX_DEVS + 1];
    /* profiling events cost the iteration time (2 H200, Poisson 256^3, 2026-11-27: 0.7301
       against 0.7130 ms on one GPU, 0.4058 against 0.3844 on two): only where asked for */
    const int profiling = o->profile;
    double t0 = MPI_Wtime();

    memset(&c, 0, sizeof c);
    memset(res, 0, sizeof *res);
    c.comm = comm;
    c.o = o;
    c.p = p;
    c.jacobi = o->precond == CLCG_PRECOND_JACOBI;
    MPI_Comm_rank(comm, &c.rank);
    MPI_Comm_size(comm, &c.size);

    st = clcg_ocl_find_devices(o->device_type, o->platform, &list, &m);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = pick_devices(comm, o, list, m, &first, &count, &sharers, &idle);
    info->idle_gpus = idle;
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    info->nranks_per_device = sharers;
    c.nd = count;
    if (p->A.nrows < c.nd)
        c.nd = p->A.nrows > 0 ? (int)p->A.nrows : 1;
    st = clcg_calloc(&c.s, (size_t)c.nd, sizeof *c.s, "device slices");
    if (st == CLCG_OK && profiling)
        st = clcg_calloc(&c.prof, (size_t)c.nd, sizeof *c.prof, "profiles");
    if (st == CLCG_OK)
        st = clcg_calloc(&needed, (size_t)p->A.nrows + 1, 1, "row marks");
    if (st == CLCG_OK)
        st = clcg_malloc(&c.hp, (size_t)p->A.ncols + 1, sizeof *c.hp, "host copy of p");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);

    c.variant = strcmp(o->variant, "auto") ? o->variant : auto_variant(&c, list, first, p->A.n);
    /* --jacobi-scaled, one device, fused form: CG on D^-1/2 A D^-1/2 instead, the same
     * iterates in exact arithmetic (x = D^-1/2 y) without gathering D^-1 in the SpMV; r'r is
     * weighed back to the original residual.  Otherwise the explicit preconditioner. */
    if (c.jacobi && o->jacobi_scaled && c.size == 1 && c.nd == 1 && !strcmp(c.variant, "standard")) {
        st = clcg_malloc(&c.scale, (size_t)p->A.nrows + 1, sizeof *c.scale, "Jacobi scaling");
        if (st == CLCG_OK)
            st = clcg_diag_inv_ref(&p->A, c.scale);
        for (int64_t i = 0; st == CLCG_OK && i < p->A.nrows; i++)
            c.scale[i] = sqrt(c.scale[i]);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    } else if (o->jacobi_scaled && c.rank == 0 && !o->quiet) {
        fprintf(stderr, "clcg-mpi: warning: --jacobi-scaled needs --precond jacobi, the standard variant, one rank "
                "and one device (here: %s, %s, %d rank%s, %d device%s): it does not apply here\n",
                c.jacobi ? "jacobi" : "none", c.variant, c.size, c.size == 1 ? "" : "s", c.nd, c.nd == 1 ? "" : "s");
    }
    /* rows of this rank over its devices, by nonzeros; rows that leave a device */
    clcg_partition_by_nnz(p->A.nrows, c.nd, rows_nnz, &p->A, bounds);
    if (c.size > 1) {
        const clcg_halo *h = &p->halo;
        if (h->mode == CLCG_EXCHANGE_ALLGATHER)
            memset(needed, 1, (size_t)p->A.nrows);
        else if (h->mode == CLCG_EXCHANGE_NEEDED)
            for (int64_t k = 0; k < h->nexport; k++)
                needed[h->export_idx[k]] = 1;
        else
            for (int64_t k = 0; k < h->send_ptr[h->nsend]; k++)
                needed[h->send_idx[k]] = 1;
    }
    for (int d = 0; d < c.nd && c.nd > 1; d++)
        for (int64_t k = p->A.rowptr[bounds[d]]; k < p->A.rowptr[bounds[d + 1]]; k++)
            if (p->A.colind[k] < p->A.nrows && (p->A.colind[k] < bounds[d] || p->A.colind[k] >= bounds[d + 1]))
                needed[p->A.colind[k]] = 1;

    /* the storage form and team size from the whole matrix's rows, the same on every rank:
     * each row is then summed in the same order on any number of ranks */
    clcg_row_stats rstat;
    clcg_row_stats_of(&p->A, &rstat);
    MPI_Allreduce(MPI_IN_PLACE, &rstat.nrows, 2, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, &rstat.maxlen, 1, MPI_INT64_T, MPI_MAX, comm);

    char opts[256];
    clcg_build_options(&rstat, opts, sizeof opts);
    for (int d = 0; d < c.nd && st == CLCG_OK; d++) {
        st = clcg_fault_point(c.rank, "device");
        if (st == CLCG_OK)
            st = clcg_dev_open(&list[first + (d % count)], profiling, opts, &c.s[d].dev);
    }
    /* this rank's devices open (their kernels built) and no rank's buffers made yet (none
       passes the agreement before every rank has come to it): what the node can still give,
       for the buffers of CPU devices */
    clcg_dev_host_room();
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    for (int d = 0; d < c.nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c.s[d];
        const clcg_devinfo *di = &list[first + (d % count)];
        clcg_fmt fmt = clcg_format_choose(&rstat, o->format, di, &s->vs);
        s->C = di->is_gpu ? 32 : 8;
        s->scale = c.scale;
        clcg_tune_defaults(s);
        /* one device, neighbour exchange: the pack in the order of the send lists, so that
           MPI sends it as it comes from the device (CLCG_HALO_COPY=1: through hp, for tests) */
        const clcg_halo *h = &p->halo;
        const char *hc = getenv("CLCG_HALO_COPY");
        const int direct = c.size > 1 && c.nd == 1 && h->mode == CLCG_EXCHANGE_NEIGHBOR && !(hc && *hc == '1');
        st = clcg_slice_upload(s, &p->A, bounds[d], bounds[d + 1], needed, direct ? h->send_idx : NULL,
                               direct ? h->send_ptr[h->nsend] : 0, fmt, c.jacobi && !c.scale);
        /* ... and the ghosts received in place, where the device's are the rank's in order */
        c.direct = direct && st == CLCG_OK && s->ncols - s->nrows == h->nghost;
        for (int64_t k = 0; c.direct && k < h->nghost; k++)
            c.direct = s->ghost_src[k] == s->nrows + k;
        if (st == CLCG_OK && s->nrows) {
            const double *b = p->b + s->row_lo;
            if (c.scale) {   /* b^ = D^-1/2 b */
                for (int64_t i = 0; i < s->nrows; i++)
                    c.hp[i] = c.scale[i] * b[i];
                b = c.hp;
            }
            st = clcg_cl_fail_if(clEnqueueWriteBuffer(s->dev.queue, s->b, CL_TRUE, 0, (size_t)s->nrows * sizeof(double),
                                                      b, 0, NULL, NULL), "clEnqueueWriteBuffer(b)");
        }
        char how[sizeof info->tuning] = "defaults (--no-tune)";
        if (st == CLCG_OK && !o->no_tune)
            st = clcg_tune(s, o->tune_cache, o->tune, c.jacobi, how, sizeof how, &info->t_tune);
        if (st == CLCG_OK)   /* several devices: each one's outcome, after its number */
            tuning_add(info->tuning, sizeof info->tuning, c.nd > 1 ? d : -1, how);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    clcg_tmp_guard();   /* the kernels' build may have taken signals (PoCL's LLVM registers lazily) */
    win_register(&c);
    info->t_device_setup = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &info->t_device_setup, 1, MPI_DOUBLE, MPI_MAX, comm);

    /* solve */
    {
        double bb = 0.0;
        for (int64_t i = 0; i < p->A.nrows; i++)
            bb += p->b[i] * p->b[i];
        MPI_Allreduce(MPI_IN_PLACE, &bb, 1, MPI_DOUBLE, MPI_SUM, comm);
        res->bnorm = sqrt(bb);
        const double bnorm = bb > 0.0 ? sqrt(bb) : 1.0;
        const double tol2 = fmax((o->rtol * bnorm) * (o->rtol * bnorm), CLCG_RR_FLOOR);
        c.grow2 = CLCG_COND_SINGULAR * mnorm2(&c, p->b);
        /* An untimed warm-up solve first: the driver's costs of first use (device memory
           taken when a kernel first touches it, the window's pages pinned at the first
           transfer: 0.1-0.45 s at 256^3 on an H200) fall there, not in the solve.  Two
           iterations, counted in the device setup; with --repeat R, a whole solve, then R
           timed ones, whose median is reported. */
        const int reps = o->repeat > 1 ? o->repeat : 1;
        /* each timed solve's time (max over ranks), the shortest rank's, and this rank's own
           exchange and reduction times: the figures reported are those of the median solve */
        double times[CLCG_MAX_REPEATS], tmin[CLCG_MAX_REPEATS], tex[CLCG_MAX_REPEATS], tar[CLCG_MAX_REPEATS];
        int order[CLCG_MAX_REPEATS];
        clcg_options warm = *o;
        warm.monitor = 0;
        if (reps == 1 && warm.max_it > 2)
            warm.max_it = 2;
        const char *we = getenv("CLCG_WARMUP");   /* development: 0 times the first solve */
        const int first = reps == 1 && we && !strcmp(we, "0") ? 0 : -1;
        int done = 0;   /* timed solves completed (a failure ends the loop: none of its figures count) */
        for (int rep = first; rep < reps && st == CLCG_OK; rep++) {
            c.o = rep < 0 ? &warm : o;
            if (rep >= 0 && reps > 1 && o->monitor && !o->quiet && c.rank == 0)   /* whose history follows */
                printf("solve %d of %d (--repeat)\n", rep + 1, reps);
            MPI_Barrier(comm);
            double ts = MPI_Wtime();
            c.launches = c.syncs = 0;
            c.t_exchange = c.t_allreduce = 0.0;
            res->iterations = 0;
            st = solve_variant(&c, tol2, bnorm, res, &run);
            double tt[2] = {MPI_Wtime() - ts, 0.0};
            tt[1] = -tt[0];
            MPI_Allreduce(MPI_IN_PLACE, tt, 2, MPI_DOUBLE, MPI_MAX, comm);
            const double t = tt[0];
            if (rep < 0 && reps == 1)
                info->t_device_setup += t;
            if (st == CLCG_OK && rep >= 0 && rep < CLCG_MAX_REPEATS) {   /* --repeat is at most that */
                done = rep + 1;
                times[rep] = info->solve_times[rep] = t;
                tmin[rep] = -tt[1];
                tex[rep] = c.t_exchange;
                tar[rep] = c.t_allreduce;
                order[rep] = rep;
            }
            if (rep < 0 && c.prof)   /* the warm-up does not count in the profile */
                for (int d = 0; d < c.nd && st == CLCG_OK; d++) {
                    st = clcg_prof_harvest(&c.prof[d], &c.s[d], c.jacobi);
                    memset(c.prof[d].time, 0, sizeof c.prof[d].time);
                    memset(c.prof[d].calls, 0, sizeof c.prof[d].calls);
                    memset(c.prof[d].bytes, 0, sizeof c.prof[d].bytes);
                }
        }
        info->nrepeats = st == CLCG_OK ? done : 0;
        for (int i = 1; i < info->nrepeats; i++)   /* insertion sort for the median (the same on every rank) */
            for (int j = i; j > 0 && times[order[j]] < times[order[j - 1]]; j--) {
                int tmp = order[j];
                order[j] = order[j - 1];
                order[j - 1] = tmp;
            }
        if (st == CLCG_OK) {
            const int m = order[info->nrepeats / 2];
            res->solve_time = info->solve_max = times[m];
            info->solve_min = tmin[m];
            c.t_exchange = tex[m];
            c.t_allreduce = tar[m];
        }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    for (int d = 0; d < c.nd && st == CLCG_OK; d++) {
        clcg_slice *s = &c.s[d];
        if (s->nrows)
            st = clcg_cl_fail_if(clEnqueueReadBuffer(s->dev.queue, s->x, CL_TRUE, 0, (size_t)s->nrows * sizeof(double),
                                                     p->x + s->row_lo, 0, NULL, NULL), "clEnqueueReadBuffer(x)");
        for (int64_t i = 0; c.scale && st == CLCG_OK && i < s->nrows; i++)
            p->x[s->row_lo + i] *= c.scale[i];   /* x = D^-1/2 y */
        if (st == CLCG_OK && c.prof)
            st = clcg_prof_harvest(&c.prof[d], s, c.jacobi);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    fill_info(&c, info, run);
    info->timed_iterations = res->iterations;
    /* the true residual, on the host, independent of the device kernels */
    st = clcg_malloc(&resid, (size_t)p->A.ncols + 1, sizeof *resid, "residual vector");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = clcg_residual(&p->A, &p->halo, p->b, p->x, resid, &res->true_residual);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, refine(&c, res, info, &resid), out);
out:
    if (c.s)
        win_release(&c);
    for (int d = 0; c.s && d < c.nd; d++) {
        if (c.prof && c.prof[d].n)
            clcg_prof_harvest(&c.prof[d], &c.s[d], c.jacobi);
        if (c.prof) {
            free(c.prof[d].ev);
            free(c.prof[d].kid);
        }
        clcg_slice_free(&c.s[d]);
    }
    free(c.s);
    free(c.prof);
    free(c.hp);
    free(c.scale);
    free(needed);
    free(resid);
    free(list);
    return st;
}
