/* SpMV alone, q = A p, on one OpenCL device in every storage form: median kernel time of
 * 20 launches (profiling events) and GB/s by the traffic model 12*nnz + 20*n bytes.
 * usage: bench_spmv GENERATOR-SPEC|MATRIX.mtx [tune]   e.g. bench_spmv poisson3d:256
 * BENCH_FORMATS=csr-stream,sell (say) times only those forms.  Each form's q is checked
 * against the host's SpMV: a form off by more than rounding fails (exit status 1). */
#include "cg_ocl.h"
#include "clcg_impl.h"
#include "csr.h"
#include "mm.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* q = A p as the host computes it, row by row relative to sum_j |a_ij p_j|: the device adds
 * a row's products in another order, which can differ by up to about 2 len eps; allowed:
 * 1e-13, or 4 len eps for rows of more than ~110 entries */
#define CHECK_TOL 1e-13

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* whether name is one of the comma-separated names in only (all are when only is NULL) */
static int listed(const char *only, const char *name)
{
    const size_t len = strlen(name);
    for (const char *s = only; s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL)
        if (!strncmp(s, name, len) && (s[len] == ',' || s[len] == 0))
            return 1;
    return !only;
}

static clcg_status load(const char *spec, clcg_csr *A)
{
    clcg_coo t = {0};
    clcg_status st;
    if (strchr(spec, ':') && !strstr(spec, ".mtx")) {
        clcg_gen g;
        CLCG_CALL(clcg_gen_parse(spec, 1, &g));
        st = clcg_gen_rows(&g, 0, g.n, &t);
        if (st == CLCG_OK)
            st = clcg_csr_from_coo(spec, &t, 0, A);
    } else {
        clcg_mm_header h;
        st = clcg_mm_read_matrix(spec, &h, &t);
        if (st == CLCG_OK)
            st = clcg_csr_from_coo(spec, &t, 1, A);
    }
    clcg_coo_free(&t);
    return st;
}

static clcg_status run(const clcg_csr *A, const clcg_devinfo *di, clcg_fmt fmt, unsigned vs, int tune,
                       const char *opts)
{
    clcg_slice s;
    unsigned char *needed = calloc((size_t)A->nrows + 1, 1);
    double t[20], *xh = malloc(((size_t)A->nrows + 1) * sizeof *xh), *yh = malloc(((size_t)A->nrows + 1) * sizeof *yh),
                  *yr = malloc(((size_t)A->nrows + 1) * sizeof *yr);
    clcg_status st = CLCG_OK;
    char how[512] = "defaults";
    double tt = 0;
    memset(&s, 0, sizeof s);
    if (!needed || !xh || !yh || !yr) {
        st = clcg_error(CLCG_ERR_MEMORY, "out of memory");
        goto out;
    }
    CLCG_CHECK(st, clcg_dev_open(di, 1, opts, &s.dev), out);   /* as the solver builds them */
    s.vs = vs;
    s.C = di->is_gpu ? 32 : 8;
    clcg_tune_defaults(&s);
    CLCG_CHECK(st, clcg_slice_upload(&s, A, 0, A->nrows, needed, NULL, 0, fmt, 0), out);
    if (tune)
        CLCG_CHECK(st, clcg_tune(&s, NULL, 0, 0, how, sizeof how, &tt), out);
    /* p_j = 1 + (j mod 7)/8: the result is checked against the host's SpMV below */
    for (int64_t j = 0; j < A->nrows; j++)
        xh[j] = 1.0 + (double)(j % 7) / 8.0;
    CLCG_CHECK(st, clcg_cl_fail_if(clEnqueueWriteBuffer(s.dev.queue, s.p[0], CL_TRUE, 0, (size_t)A->nrows * sizeof(double),
                                                        xh, 0, NULL, NULL), "clEnqueueWriteBuffer(p)"), out);
    cl_kernel k = s.k[K_SPMV];
    cl_uint n = (cl_uint)(fmt == FMT_CSR_STREAM ? s.nblk : s.nrows), off = 0, v = fmt == FMT_CSR_VECTOR ? s.vs : s.C;
    st = clcg_cl_fail_if(clSetKernelArg(k, 0, sizeof n, &n) |
                         clSetKernelArg(k, 1, sizeof(cl_mem), fmt == FMT_CSR_STREAM ? &s.blk : NULL) |
                         clSetKernelArg(k, 2, sizeof(cl_mem), &s.ptr) | clSetKernelArg(k, 3, sizeof(cl_mem), &s.col) |
                         clSetKernelArg(k, 4, sizeof(cl_mem), &s.val) | clSetKernelArg(k, 5, sizeof(cl_mem), &s.p[0]) |
                         clSetKernelArg(k, 6, sizeof(cl_mem), &s.q) | clSetKernelArg(k, 7, sizeof(cl_mem), &s.part_pq) |
                         clSetKernelArg(k, 8, sizeof off, &off), "clSetKernelArg");
    const int teamed = fmt == FMT_CSR_VECTOR || fmt == FMT_SELL;
    cl_uint la = teamed ? 10 : 9;
    if (st == CLCG_OK && teamed)
        st = clcg_cl_fail_if(clSetKernelArg(k, 9, sizeof v, &v), "clSetKernelArg");
    if (st == CLCG_OK)
        st = clcg_cl_fail_if(clSetKernelArg(k, la, s.spmv.wg * sizeof(cl_double2), NULL), "clSetKernelArg");
    if (st != CLCG_OK)
        goto out;
    clcg_prof prof;
    memset(&prof, 0, sizeof prof);
    clcg_launch Lb[NBINS];
    for (int b = 0; fmt == FMT_CSR_ADAPTIVE && b < NBINS && st == CLCG_OK; b++) {   /* one kernel per row bin */
        cl_kernel kb = s.kbin_dot[b];
        cl_uint nb = (cl_uint)s.bin_n[b], offb = (cl_uint)(b * s.spmv.ng), vsb = s.bin_vs[b];
        Lb[b] = s.spmv;
        if (Lb[b].wg < vsb)
            Lb[b].wg = vsb;
        st = clcg_cl_fail_if(clSetKernelArg(kb, 0, sizeof nb, &nb) | clSetKernelArg(kb, 1, sizeof(cl_mem), &s.bin_rows[b]) |
                             clSetKernelArg(kb, 2, sizeof(cl_mem), &s.ptr) | clSetKernelArg(kb, 3, sizeof(cl_mem), &s.col) |
                             clSetKernelArg(kb, 4, sizeof(cl_mem), &s.val) | clSetKernelArg(kb, 5, sizeof(cl_mem), &s.p[0]) |
                             clSetKernelArg(kb, 6, sizeof(cl_mem), &s.q) | clSetKernelArg(kb, 7, sizeof(cl_mem), &s.part_pq) |
                             clSetKernelArg(kb, 8, sizeof offb, &offb), "clSetKernelArg(bin)");
        if (st == CLCG_OK && vsb > 1)
            st = clcg_cl_fail_if(clSetKernelArg(kb, 9, sizeof vsb, &vsb), "clSetKernelArg(bin)");
        if (st == CLCG_OK)
            st = clcg_cl_fail_if(clSetKernelArg(kb, vsb > 1 ? 10 : 9, Lb[b].wg * sizeof(cl_double2), NULL), "clSetKernelArg");
    }
    for (int r = 0; r < 23 && st == CLCG_OK; r++) {
        if (fmt == FMT_CSR_ADAPTIVE) {   /* all bins, timed together */
            double before = prof.time[K_SPMV];
            for (int b = 0; b < NBINS && st == CLCG_OK; b++)
                if (s.bin_n[b])
                    st = clcg_launch_kernel(&s, s.kbin_dot[b], K_SPMV, &Lb[b], &prof);
            if (st == CLCG_OK)
                st = clcg_prof_harvest(&prof, &s, 0);
            if (r >= 3)
                t[r - 3] = prof.time[K_SPMV] - before;
            continue;
        }
        st = clcg_launch_kernel(&s, k, K_SPMV, &s.spmv, &prof);
        if (st == CLCG_OK && r >= 3) {
            double before = prof.time[K_SPMV];
            st = clcg_prof_harvest(&prof, &s, 0);
            t[r - 3] = prof.time[K_SPMV] - before;
        } else if (st == CLCG_OK) {
            st = clcg_prof_harvest(&prof, &s, 0);
        }
    }
    free(prof.ev);
    free(prof.kid);
    if (st != CLCG_OK)
        goto out;
    /* q against the host's SpMV, each row relative to sum_j |a_ij p_j| */
    CLCG_CHECK(st, clcg_cl_fail_if(clEnqueueReadBuffer(s.dev.queue, s.q, CL_TRUE, 0, (size_t)A->nrows * sizeof(double), yh,
                                                       0, NULL, NULL), "clEnqueueReadBuffer(q)"), out);
    clcg_spmv_ref(A, xh, yr);
    double err = 0.0, worst_tol = CHECK_TOL;   /* the largest error relative to its row's bound */
    int64_t worst = 0;
    for (int64_t i = 0; i < A->nrows; i++) {
        double mag = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            mag += fabs(A->val[k] * xh[A->colind[k]]);
        const double e = fabs(yh[i] - yr[i]) / (mag > 0.0 ? mag : 1.0),
                     tol = fmax(CHECK_TOL, 4.0 * (double)(A->rowptr[i + 1] - A->rowptr[i]) * DBL_EPSILON);
        if (!(e / tol <= err / worst_tol)) {   /* NaN too */
            err = isnan(e) ? INFINITY : e;
            worst_tol = tol;
            worst = i;
        }
    }
    qsort(t, 20, sizeof t[0], cmpd);
    double bytes = 12.0 * (double)A->nnz + 20.0 * (double)A->nrows;
    printf("| %s | %s%s | %zu x %zu | %.1f | %.0f | %.1e |\n", di->name, clcg_format_name(fmt),
           fmt == FMT_CSR_VECTOR ? (vs >= 16 ? "(vs>=16)" : "(vs<16)") : "", s.spmv.wg, s.spmv.ng, 1e6 * t[10],
           bytes / t[10] / 1e9, err);
    if (!(err <= worst_tol))
        st = clcg_error(CLCG_ERR_INTERNAL, "%s: row %lld of q = A p is off by %.1e (relative), more than %.1e",
                        clcg_format_name(fmt), (long long)worst, err, worst_tol);
    if (tune)
        printf("|   | tuning: %s | | | | |\n", how);
out:
    free(needed);
    free(xh);
    free(yh);
    free(yr);
    clcg_slice_free(&s);
    return st;
}

int main(int argc, char **argv)
{
    clcg_csr A = {0};
    clcg_devinfo *list = NULL;
    int m = 0, rc = 0;
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: bench_spmv GENERATOR-SPEC|MATRIX.mtx [tune]\n");
        MPI_Finalize();
        return 2;
    }
    int tune = argc > 2 && !strcmp(argv[2], "tune");
    double t0 = MPI_Wtime();
    if (load(argv[1], &A) != CLCG_OK || clcg_ocl_find_devices(getenv("CLCG_DEVICE_TYPE"), NULL, &list, &m) != CLCG_OK) {
        fprintf(stderr, "bench_spmv: %s\n", clcg_error_message());
        MPI_Finalize();
        return 1;
    }
    const char *dump = getenv("CLCG_DUMP_CSR");
    if (dump) {   /* raw CSR (int32 row pointers and columns, float64 values) for the peer scripts */
        char path[4096];
        const char *ext[3] = {"rowptr.i32", "col.i32", "val.f64"};
        for (int f = 0; f < 3; f++) {
            snprintf(path, sizeof path, "%s.%s", dump, ext[f]);
            FILE *o = fopen(path, "wb");
            if (!o) {
                fprintf(stderr, "bench_spmv: cannot write %s\n", path);
                MPI_Finalize();
                return 1;
            }
            if (f == 0)
                for (int64_t i = 0; i <= A.nrows; i++) {
                    int32_t v = (int32_t)A.rowptr[i];
                    fwrite(&v, sizeof v, 1, o);
                }
            else if (f == 1)
                fwrite(A.colind, sizeof *A.colind, (size_t)A.nnz, o);
            else
                fwrite(A.val, sizeof *A.val, (size_t)A.nnz, o);
            fclose(o);
        }
    }
    clcg_row_stats rstat;   /* also what the automatic choice below goes by */
    clcg_row_stats_of(&A, &rstat);
    time_t now = time(NULL);
    printf("SpMV %s: n = %lld, nnz = %lld, mean row %.2f, max row %lld (built in %.1f s), %s", argv[1],
           (long long)A.nrows, (long long)A.nnz, (double)A.nnz / (double)A.nrows, (long long)rstat.maxlen,
           MPI_Wtime() - t0, ctime(&now));
    printf("| device | format | local x groups | us | GB/s (12 nnz + 20 n) | error (worst row) |\n"
           "| --- | --- | --- | --- | --- | --- |\n");
    unsigned vs = 2;
    char opts[256];
    clcg_build_options(&rstat, opts, sizeof opts);
    clcg_fmt autof = clcg_format_choose(&rstat, "auto", &list[0], &vs);
    const clcg_fmt fmts[] = {FMT_CSR_SCALAR, FMT_CSR_VECTOR, FMT_SELL, FMT_CSR_ADAPTIVE, FMT_CSR_STREAM};
    const char *only = getenv("BENCH_FORMATS");
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
        if (listed(only, clcg_format_name(fmts[f])) && run(&A, &list[0], fmts[f], vs, tune, opts) != CLCG_OK) {
            fprintf(stderr, "bench_spmv: %s\n", clcg_error_message());
            clcg_error_clear();
            rc = 1;
        }
    printf("automatic choice: %s\n", clcg_format_name(autof));
    free(list);
    clcg_csr_free(&A);
    MPI_Finalize();
    return rc;
}
