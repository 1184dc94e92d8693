/* Work-group shapes per kernel and device: local size and work-groups per compute unit.
 * Defaults need no search; the search tries local sizes in turn and, for each, more
 * work-groups per compute unit until the time stops falling (the first local minimum),
 * then keeps the best in a cache file keyed by device, driver, kernel form and size. */
#include "cg_ocl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Work-groups per compute unit: partial sums are summed again by every work-group of the
 * next kernel, so their count must stay small; the search does not go past SEARCH_GPC. */
enum { MAX_GPC = 64, SEARCH_GPC = 8 };

void clcg_tune_defaults(clcg_slice *s)
{
    const size_t cu = s->dev.info.compute_units ? s->dev.info.compute_units : 1;
    size_t wg = s->dev.info.is_gpu ? 256 : 64;
    while (wg > s->dev.info.max_wg)
        wg /= 2;
    if (wg < s->vs)
        wg = s->vs;
    s->spmv.wg = s->vec.wg = wg;
    s->spmv.ng = s->vec.ng = cu * (s->dev.info.is_gpu ? 8 : 4);
    s->nparts = cu * MAX_GPC;
}

static void make_parent(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *q = dir + 1; *q; q++)
        if (*q == '/') {
            *q = '\0';
            mkdir(dir, 0755);
            *q = '/';
        }
}

static void tune_key(const clcg_slice *s, const char *kernel, char *key, size_t len)
{
    int cls = 0;
    for (int64_t n = s->nrows; n > 1; n >>= 2)
        cls++;
    snprintf(key, len, "%s|%s|%s|%s|vs%u|C%u|n4^%d", s->dev.info.name, s->dev.info.driver, kernel,
             clcg_format_name(s->fmt), s->vs, s->C, cls);
    for (char *q = key; *q; q++)
        if (*q == '\t' || *q == '\n')
            *q = ' ';
}

/* A shape the search could have chosen on this device: anything else in the cache (edited,
 * or damaged) is ignored, for the reductions need a power-of-two group size. */
static int shape_valid(const clcg_slice *s, unsigned long wg, unsigned long ng)
{
    const unsigned long cu = s->dev.info.compute_units ? s->dev.info.compute_units : 1;
    return wg >= 32 && wg <= 1024 && !(wg & (wg - 1)) && wg <= s->dev.info.max_wg && wg >= s->vs && ng >= 1 &&
           ng <= SEARCH_GPC * cu;
}

/* The cache file opened only if it is a regular file: a device or FIFO in its place (the
 * default path included) would never end or never open; it is then not used. */
static FILE *open_regular(const char *path, int flags, const char *mode)
{
    struct stat sb;
    const int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return NULL;
    FILE *f = NULL;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && fcntl(fd, F_SETFL, flags & O_APPEND) == 0)
        f = fdopen(fd, mode);
    if (!f)
        close(fd);
    return f;
}

static int cache_lookup(const clcg_slice *s, const char *path, const char *key, clcg_launch *L)
{
    char line[1024];
    int found = 0;
    FILE *f = open_regular(path, O_RDONLY, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        unsigned long wg, ng;
        if (!tab)
            continue;
        *tab = '\0';
        if (!strcmp(line, key) && sscanf(tab + 1, "%lu %lu", &wg, &ng) == 2 && shape_valid(s, wg, ng)) {
            L->wg = wg;
            L->ng = ng;
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* 1: the line is in the cache; 0: it could not be written (that only costs a new search
 * next time).  One write of the whole line, appended: should it fall short (a full disk), the
 * file is cut back to where it ended, unless another run has appended since; a file whose
 * last line was torn before (a crash, an older run on a full disk) gets a line end first, so
 * the new line is not glued onto the torn one. */
static int cache_store(const char *path, const char *key, const clcg_launch *L)
{
    char line[1100];
    struct stat sb;
    make_parent(path);
    const int n = snprintf(line + 1, sizeof line - 1, "%s\t%lu %lu\n", key, (unsigned long)L->wg,
                           (unsigned long)L->ng);
    if (n < 0 || n >= 1023)   /* longer than cache_lookup reads a line */
        return 0;
    const int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return 0;
    int ok = 0;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        char last = '\n';
        if (sb.st_size > 0 && pread(fd, &last, 1, sb.st_size - 1) != 1)
            last = '\n';
        const int torn = last != '\n';
        line[0] = '\n';
        const size_t len = (size_t)n + (size_t)torn;
        const ssize_t put = write(fd, line + 1 - torn, len);
        ok = put == (ssize_t)len;
        struct stat now;
        if (!ok && put > 0 && fstat(fd, &now) == 0 && now.st_size == sb.st_size + put)
            (void)!ftruncate(fd, sb.st_size);   /* should this fail too, the next store ends the torn line */
    }
    return (close(fd) == 0) & ok;
}

/* Median device time (profiling events on a queue of its own) of a few launches of
 * kernel kid with shape L, after one warm-up. */
static clcg_status time_shape(clcg_slice *s, cl_command_queue q, int kid, const clcg_launch *L, double *t)
{
    enum { REPS = 7 };
    cl_kernel k = s->k[kid];
    cl_event ev[REPS];
    double d[REPS];
    size_t g = L->wg * L->ng, l = L->wg;
    int local_arg = kid == K_SPMV ? (s->fmt == FMT_CSR_VECTOR || s->fmt == FMT_SELL ? 10 : 9) : 14;
    CLCG_CL(clSetKernelArg(k, (cl_uint)local_arg, L->wg * sizeof(cl_double2), NULL));
    CLCG_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    for (int r = 0; r < REPS; r++)
        CLCG_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &ev[r]));
    CLCG_CL(clFinish(q));
    for (int r = 0; r < REPS; r++) {
        cl_ulong t0 = 0, t1 = 0;
        clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ev[r], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev[r]);
        d[r] = 1e-9 * (double)(t1 - t0);
        for (int j = r; j > 0 && d[j] < d[j - 1]; j--) {
            double x = d[j];
            d[j] = d[j - 1];
            d[j - 1] = x;
        }
    }
    *t = d[REPS / 2];
    return CLCG_OK;
}

static clcg_status search(clcg_slice *s, cl_command_queue q, int kid, clcg_launch *best)
{
    const size_t cu = s->dev.info.compute_units ? s->dev.info.compute_units : 1;
    double tbest = INFINITY, tprev_l = INFINITY;
    for (size_t wg = 32; wg <= 1024 && wg <= s->dev.info.max_wg; wg *= 2) {
        if (wg < s->vs)
            continue;
        double tl = INFINITY, tprev = INFINITY;
        for (size_t gpc = 1; gpc <= SEARCH_GPC; gpc *= 2) {
            clcg_launch L = {wg, gpc * cu, 0};
            double t = INFINITY;
            CLCG_CALL(time_shape(s, q, kid, &L, &t));
            if (t < tl)
                tl = t;
            if (t < tbest) {
                tbest = t;
                *best = L;
            }
            if (t > tprev)
                break;             /* first local minimum along the group count */
            tprev = t;
        }
        if (tl > tprev_l)
            break;                 /* and along the local size */
        tprev_l = tl;
    }
    return CLCG_OK;
}

clcg_status clcg_tune(clcg_slice *s, const char *cache, int force, int jacobi, char *how, size_t howlen,
                      double *seconds)
{
    char path[4096], key[2][1024];
    clcg_launch L[2] = {s->spmv, s->vec};
    const int kids[2] = {K_SPMV, K_UPDATE_XR};
    int hits = 0;
    double t0 = MPI_Wtime(), zero = 0.0, one = 1.0;
    (void)jacobi;
    clcg_tune_cache_path(cache, path, sizeof path);
    tune_key(s, "spmv", key[0], sizeof key[0]);
    tune_key(s, "update_xr", key[1], sizeof key[1]);
    for (int i = 0; i < 2; i++)
        hits += !force && cache_lookup(s, path, key[i], &L[i]);
    if (hits == 2 && L[0].ng <= s->nparts && L[1].ng <= s->nparts) {
        s->spmv = L[0];
        s->vec = L[1];
        snprintf(how, howlen, "cached in %s", path);
        return CLCG_OK;
    }
    /* run the real kernels on harmless data: p = 0, alpha = 0 (x and r keep their values) */
    const size_t ob = (size_t)(s->nrows ? s->nrows : 1) * sizeof(double);
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->q, &zero, sizeof zero, 0, ob, 0, NULL, NULL));
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->r, &zero, sizeof zero, 0, ob, 0, NULL, NULL));
    const double one2[2] = {one, 0.0}, zero2[2] = {0.0, 0.0};   /* (hi, lo) pairs */
    CLCG_CL(clEnqueueWriteBuffer(s->dev.queue, s->g_pq, CL_TRUE, 0, sizeof one2, one2, 0, NULL, NULL));
    CLCG_CL(clEnqueueWriteBuffer(s->dev.queue, s->g_rz[0], CL_TRUE, 0, sizeof zero2, zero2, 0, NULL, NULL));
    CLCG_CL(clEnqueueFillBuffer(s->dev.queue, s->scal, &zero, sizeof zero, 0, S_COUNT * sizeof(double), 0, NULL, NULL));
    {
        cl_kernel k = s->k[K_SPMV];
        cl_uint n = (cl_uint)s->nrows, off = 0;
        if (s->fmt == FMT_CSR_STREAM) {   /* row blocks instead of a row count */
            n = (cl_uint)s->nblk;
            CLCG_CL(clSetKernelArg(k, 1, sizeof(cl_mem), &s->blk));
        } else {
            CLCG_CL(clSetKernelArg(k, 1, sizeof(cl_mem), NULL));
        }
        CLCG_CL(clSetKernelArg(k, 0, sizeof n, &n));
        CLCG_CL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->ptr));
        CLCG_CL(clSetKernelArg(k, 3, sizeof(cl_mem), &s->col));
        CLCG_CL(clSetKernelArg(k, 4, sizeof(cl_mem), &s->val));
        CLCG_CL(clSetKernelArg(k, 5, sizeof(cl_mem), &s->p[0]));
        CLCG_CL(clSetKernelArg(k, 6, sizeof(cl_mem), &s->q));
        CLCG_CL(clSetKernelArg(k, 7, sizeof(cl_mem), &s->part_pq));
        CLCG_CL(clSetKernelArg(k, 8, sizeof off, &off));
        if (s->fmt == FMT_CSR_VECTOR || s->fmt == FMT_SELL) {
            cl_uint v = s->fmt == FMT_SELL ? s->C : s->vs;
            CLCG_CL(clSetKernelArg(k, 9, sizeof v, &v));
        }
    }
    {
        cl_kernel k = s->k[K_UPDATE_XR];
        cl_uint n = (cl_uint)s->nrows, c1 = 1, its = 0;
        CLCG_CL(clSetKernelArg(k, 0, sizeof n, &n));
        CLCG_CL(clSetKernelArg(k, 1, sizeof(cl_mem), &s->x));
        CLCG_CL(clSetKernelArg(k, 2, sizeof(cl_mem), &s->r));
        CLCG_CL(clSetKernelArg(k, 3, sizeof(cl_mem), &s->p[0]));
        CLCG_CL(clSetKernelArg(k, 4, sizeof(cl_mem), &s->q));
        CLCG_CL(clSetKernelArg(k, 5, sizeof(cl_mem), s->dinv ? &s->dinv : NULL));
        CLCG_CL(clSetKernelArg(k, 6, sizeof(cl_mem), &s->g_pq));
        CLCG_CL(clSetKernelArg(k, 7, sizeof c1, &c1));
        CLCG_CL(clSetKernelArg(k, 8, sizeof(cl_mem), &s->g_rz[0]));
        CLCG_CL(clSetKernelArg(k, 9, sizeof c1, &c1));
        CLCG_CL(clSetKernelArg(k, 10, sizeof(cl_mem), &s->part_rz[1]));
        CLCG_CL(clSetKernelArg(k, 11, sizeof(cl_mem), &s->part_rr[1]));
        CLCG_CL(clSetKernelArg(k, 12, sizeof(cl_mem), &s->scal));
        CLCG_CL(clSetKernelArg(k, 13, sizeof its, &its));
        CLCG_CL(clSetKernelArg(k, 15, sizeof(cl_mem), NULL));
    }
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(s->dev.ctx, s->dev.info.device, CL_QUEUE_PROFILING_ENABLE, &e);
    CLCG_CL(e);
    CLCG_CL(clFinish(s->dev.queue));
    clcg_status st = CLCG_OK;
    int saved = 1;
    for (int i = 0; i < 2 && st == CLCG_OK; i++) {
        st = search(s, q, kids[i], &L[i]);
        if (st == CLCG_OK)
            saved &= cache_store(path, key[i], &L[i]);
    }
    clReleaseCommandQueue(q);
    CLCG_CALL(st);
    s->spmv = L[0];
    s->vec = L[1];
    *seconds += MPI_Wtime() - t0;
    snprintf(how, howlen, "searched (spmv %zux%zu, vector %zux%zu), %s %s", L[0].wg, L[0].ng, L[1].wg,
             L[1].ng, saved ? "saved in" : "not saved: cannot write", path);
    return CLCG_OK;
}
