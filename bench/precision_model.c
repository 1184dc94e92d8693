/* How much of the gap between the pipelined and the standard CG iteration counts is rounding:
 * both recurrences on the host, Jacobi-preconditioned, b = A*1, x0 = 0, stopping at
 * ||r||/||b|| <= rtol on the recursive residual, with the SpMV and the vector recurrences
 * each in double or in long double (the dot products summed in double-double from the
 * products rounded to double, as the device and the host reference sum them).  With both in
 * long double the two forms follow exact arithmetic more closely; the counts in double show
 * what rounding adds.
 *
 * With DRAWS > 0 it asks instead how far apart the counts lie by chance: b = A*1 with each
 * entry times 1 + 1e-15 g (g standard normal, fixed seed), and for each form the mean count
 * over the draws and how often it lies more than 2 from the standard form's count of the
 * same b: the standard form, Chronopoulos-Gear (single reduction), pipelined in double, and
 * pipelined with the SpMV and every recurrence in long double; and two published remedies for
 * the pipelined form's rounding, both in double: Chen and Carson's pipelined predict-and-recompute
 * CG (r'M^-1 r and p'Ap from dot products of the current vectors, A M^-1 r formed afresh by a
 * second SpMV each iteration), and Ghysels-Vanroose with residual replacement every REPLACE
 * iterations (r = b - A x and the auxiliary vectors formed afresh: four more SpMVs each time);
 * and Jacobi as a symmetric scaling instead (the device's --jacobi-scaled): Ghysels-Vanroose
 * without a preconditioner on D^-1/2 A D^-1/2 and D^-1/2 b, the stop test on ||D^1/2 r||, the
 * residual of the unscaled system (u = r, m = w, q = s: the recurrences of three vectors fewer);
 * and Gropp's asynchronous CG (two reduction points, p's summed afresh).
 * usage: precision_model MATRIX.mtx [RTOL [DRAWS [REPLACE]]]   (default 1e-8, 0, 20) */
#include "clcg_impl.h"
#include "csr.h"
#include "mm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef long double xreal;

static const clcg_csr *A;
static int spmv_wide, rec_wide;
static long replace_every;   /* the pipelined form's residual replacement; 0: none */
static const xreal *rweight; /* the scaled form: the diagonal d, for ||r|| = ||D^1/2 r_scaled|| */

/* a + s b and d v of a recurrence, in long double or in double arithmetic (each operation
 * rounded to double, as on the device: not the long double result rounded once) */
static xreal axpy(xreal a, double s, xreal b)
{
    return rec_wide ? a + s * b : (xreal)((double)a + s * (double)b);
}

static xreal mul(xreal d, xreal v)
{
    return rec_wide ? d * v : (xreal)((double)d * (double)v);
}

static void spmv(const xreal *x, xreal *y)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        xreal wide = 0;
        double narrow = 0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            wide += (xreal)A->val[k] * x[A->colind[k]];
            narrow += A->val[k] * (double)x[A->colind[k]];
        }
        y[i] = spmv_wide ? wide : (xreal)narrow;
    }
}

static double dot(const xreal *a, const xreal *b)
{
    double s[2] = {0.0, 0.0};
    for (int64_t i = 0; i < A->nrows; i++)
        clcg_dd_acc(s, (double)a[i] * (double)b[i]);
    return s[0] + s[1];
}

/* ||v|| summed as dot() sums; in the scaled form ||D^1/2 v||, the unscaled system's norm */
static double norm(const xreal *v)
{
    if (!rweight)
        return sqrt(dot(v, v));
    double s[2] = {0.0, 0.0};
    for (int64_t i = 0; i < A->nrows; i++)
        clcg_dd_acc(s, (double)rweight[i] * (double)v[i] * (double)v[i]);
    return sqrt(s[0] + s[1]);
}

/* nv vectors of n entries, zeroed, in one block; NULL when memory is short */
static xreal *vectors(int nv)
{
    return calloc((size_t)nv * (size_t)A->nrows, sizeof(xreal));
}

/* Standard preconditioned CG; iterations to rtol, -1 past max_it, -2 out of memory. */
static long pcg(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(5);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *z = v + 2 * n, *p = v + 3 * n, *q = v + 4 * n;
    for (int64_t i = 0; i < n; i++) {
        r[i] = b[i];
        z[i] = mul(dinv[i], r[i]);
        p[i] = z[i];
    }
    const double bn = sqrt(dot(b, b));
    double rz = dot(r, z);
    long k = 0;
    for (; k < max_it && sqrt(dot(r, r)) > rtol * bn; k++) {
        spmv(p, q);
        const double alpha = rz / dot(p, q);
        for (int64_t i = 0; i < n; i++) {
            x[i] = axpy(x[i], alpha, p[i]);
            r[i] = axpy(r[i], -alpha, q[i]);
            z[i] = mul(dinv[i], r[i]);
        }
        const double rz_next = dot(r, z), beta = rz_next / rz;
        rz = rz_next;
        for (int64_t i = 0; i < n; i++)
            p[i] = axpy(z[i], beta, p[i]);
    }
    free(v);
    return k < max_it ? k : -1;
}

/* Chronopoulos-Gear: one reduction point (r'u, r'r, w'u, w = A u), the recurrences of the
 * device's update_sr kernel. */
static long single_reduction(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(6);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *u = v + 2 * n, *w = v + 3 * n, *s = v + 4 * n, *p = v + 5 * n;
    for (int64_t i = 0; i < n; i++) {
        r[i] = b[i];
        u[i] = mul(dinv[i], b[i]);
    }
    const double bn = sqrt(dot(b, b));
    double alpha = 0, beta = 0, gamma_prev = 1;
    long k = 0;
    for (; k < max_it; k++) {
        spmv(u, w);
        const double gamma = dot(r, u), rr = dot(r, r), delta = dot(w, u);
        if (sqrt(rr) <= rtol * bn)
            break;
        beta = k == 0 ? 0 : gamma / gamma_prev;
        alpha = gamma / (k == 0 ? delta : delta - beta * gamma / alpha);
        gamma_prev = gamma;
        for (int64_t i = 0; i < n; i++) {
            p[i] = axpy(u[i], beta, p[i]);
            s[i] = axpy(w[i], beta, s[i]);
            x[i] = axpy(x[i], alpha, p[i]);
            r[i] = axpy(r[i], -alpha, s[i]);
            u[i] = mul(dinv[i], r[i]);
        }
    }
    free(v);
    return k < max_it ? k : -1;
}

/* The pipelined forms' start from x0 = 0: r = b, u = M^-1 r, w = A u, m = M^-1 w. */
static void pipe_start(const xreal *b, const xreal *dinv, xreal *r, xreal *u, xreal *w, xreal *m)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        r[i] = b[i];
        u[i] = mul(dinv[i], b[i]);
    }
    spmv(u, w);
    for (int64_t i = 0; i < A->nrows; i++)
        m[i] = mul(dinv[i], w[i]);
}

/* Ghysels-Vanroose pipelined CG, the recurrences of the device's update_pipe kernel; with
 * replace_every, every replace_every iterations r = b - A x, u = M^-1 r, w = A u, s = A p,
 * q = M^-1 s and z = A q formed afresh (the true residual and its images in place of the
 * recurred ones). */
static long pipelined(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(10);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *u = v + 2 * n, *w = v + 3 * n, *m = v + 4 * n, *nv = v + 5 * n, *z = v + 6 * n,
          *q = v + 7 * n, *s = v + 8 * n, *p = v + 9 * n;
    pipe_start(b, dinv, r, u, w, m);
    const double bn = norm(b);
    double alpha = 0, beta = 0, gamma_prev = 1;
    long k = 0;
    for (; k < max_it; k++) {
        const double gamma = dot(r, u), rn = norm(r), delta = dot(w, u);
        if (rn <= rtol * bn)
            break;
        spmv(m, nv);
        beta = k == 0 ? 0 : gamma / gamma_prev;
        alpha = gamma / (k == 0 ? delta : delta - beta * gamma / alpha);
        gamma_prev = gamma;
        for (int64_t i = 0; i < n; i++) {
            z[i] = axpy(nv[i], beta, z[i]);
            q[i] = axpy(m[i], beta, q[i]);
            s[i] = axpy(w[i], beta, s[i]);
            p[i] = axpy(u[i], beta, p[i]);
            x[i] = axpy(x[i], alpha, p[i]);
            r[i] = axpy(r[i], -alpha, s[i]);
            u[i] = axpy(u[i], -alpha, q[i]);
            w[i] = axpy(w[i], -alpha, z[i]);
            m[i] = mul(dinv[i], w[i]);
        }
        if (replace_every > 0 && (k + 1) % replace_every == 0) {
            spmv(x, nv);
            for (int64_t i = 0; i < n; i++) {
                r[i] = (xreal)((double)b[i] - (double)nv[i]);
                u[i] = mul(dinv[i], r[i]);
            }
            spmv(u, w);
            spmv(p, s);
            for (int64_t i = 0; i < n; i++) {
                m[i] = mul(dinv[i], w[i]);
                q[i] = mul(dinv[i], s[i]);
            }
            spmv(q, z);
        }
    }
    free(v);
    return k < max_it ? k : -1;
}

/* Gropp's asynchronous CG: two reduction points an iteration, p's overlapped with q = M^-1 s
 * and r'u, ||r|| with w = A u; p's is summed from the vectors, not recurred as in
 * Ghysels-Vanroose, and s = A p and u = M^-1 r are recurred. */
static long gropp(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(7);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *u = v + 2 * n, *w = v + 3 * n, *s = v + 4 * n, *p = v + 5 * n, *q = v + 6 * n;
    for (int64_t i = 0; i < n; i++) {
        r[i] = b[i];
        u[i] = mul(dinv[i], r[i]);
        p[i] = u[i];
    }
    spmv(p, s);
    const double bn = norm(b);
    double gamma = dot(r, u);
    long k = 0;
    for (; k < max_it && norm(r) > rtol * bn; k++) {
        const double delta = dot(p, s);
        for (int64_t i = 0; i < n; i++)
            q[i] = mul(dinv[i], s[i]);
        const double alpha = gamma / delta;
        for (int64_t i = 0; i < n; i++) {
            x[i] = axpy(x[i], alpha, p[i]);
            r[i] = axpy(r[i], -alpha, s[i]);
            u[i] = axpy(u[i], -alpha, q[i]);
        }
        const double gn = dot(r, u);
        spmv(u, w);
        const double beta = gn / gamma;
        gamma = gn;
        for (int64_t i = 0; i < n; i++) {
            p[i] = axpy(u[i], beta, p[i]);
            s[i] = axpy(w[i], beta, s[i]);
        }
    }
    free(v);
    return k < max_it ? k : -1;
}


/* Pipelined predict-and-recompute CG (Chen and Carson): one reduction point of r'M^-1 r,
 * p's, M^-1 r's and (M^-1 s)'s with s = A p recurred; alpha from the fresh r'M^-1 r and p's,
 * beta from r'M^-1 r predicted by the other two; the SpMV of M^-1 s overlaps the reduction,
 * and w = A M^-1 r is formed afresh by a second SpMV rather than only recurred. */
static long pipe_pr(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(8);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *rt = v + 2 * n, *w = v + 3 * n, *p = v + 4 * n, *s = v + 5 * n, *st = v + 6 * n,
          *u = v + 7 * n;
    pipe_start(b, dinv, r, rt, w, st);   /* p = M^-1 r, s = A p, st = M^-1 s */
    for (int64_t i = 0; i < n; i++) {
        p[i] = rt[i];
        s[i] = w[i];
    }
    const double bn = sqrt(dot(b, b));
    long k = 0;
    for (; k < max_it; k++) {
        const double nu = dot(rt, r), mu = dot(p, s), delta = dot(rt, s), gamma = dot(st, s), rr = dot(r, r);
        if (sqrt(rr) <= rtol * bn)
            break;
        spmv(st, u);
        if (k > 0)
            spmv(rt, w);
        const double alpha = nu / mu;
        const double beta = (nu - 2.0 * alpha * delta + alpha * alpha * gamma) / nu;
        for (int64_t i = 0; i < n; i++) {
            x[i] = axpy(x[i], alpha, p[i]);
            r[i] = axpy(r[i], -alpha, s[i]);
            rt[i] = mul(dinv[i], r[i]);
            w[i] = axpy(w[i], -alpha, u[i]);
            p[i] = axpy(rt[i], beta, p[i]);
            s[i] = axpy(w[i], beta, s[i]);
            st[i] = mul(dinv[i], s[i]);
        }
    }
    free(v);
    return k < max_it ? k : -1;
}

/* Jacobi as a symmetric scaling: As = S A S with S = D^-1/2 (each value times s_i, then
 * s_j, in double), s and d, and a vector of ones for the preconditioner (u = 1 * r = r). */
typedef struct {
    clcg_csr as;
    xreal *s, *d, *ones;
} scaled_sys;

/* Ghysels-Vanroose on As y = S b without a preconditioner (multiplying by 1 is exact, so u,
 * m and q equal r, w and s), stopping on ||D^1/2 r||; bs: room for S b. */
static long pipe_scaled(const scaled_sys *sc, const xreal *b, xreal *bs, double rtol, long max_it)
{
    const clcg_csr *a0 = A;
    for (int64_t i = 0; i < a0->nrows; i++)
        bs[i] = mul(sc->s[i], b[i]);
    A = &sc->as;
    rweight = sc->d;
    const long it = pipelined(bs, sc->ones, rtol, max_it);
    rweight = NULL;
    A = a0;
    return it;
}

/* a standard normal draw (Box-Muller on a 64-bit xorshift): the same sequence everywhere */
static double normal(uint64_t *state)
{
    double u[2];
    for (int i = 0; i < 2; i++) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        u[i] = ((double)(*state >> 11) + 0.5) / 9007199254740992.0;   /* in (0, 1) */
    }
    return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* The counts' spread over DRAWS right-hand sides b = A*1 perturbed by 1e-15 relative;
 * 0, or 1 when memory is short. */
static int draws_study(const xreal *b0, const xreal *dinv, const scaled_sys *sc, double rtol, long max_it, int draws,
                       long replace)
{
    enum { NF = 8 };
    static const char *name[NF] = {"standard", "single-reduction", "pipelined", "pipelined, long double",
                                   "predict-and-recompute", "pipelined, replacement", "pipelined, scaled", "Gropp"};
    const int64_t n = A->nrows;
    xreal *b = vectors(2), *bs = b + n;
    double sum[NF] = {0};
    int off[NF] = {0}, done[NF] = {0};
    uint64_t state = 88172645463325252u;
    if (!b) {
        fprintf(stderr, "precision_model: out of memory\n");
        return 1;
    }
    printf("%-6s %9s %9s %9s %9s %9s %9s %9s %9s\n", "draw", "standard", "single-r.", "pipelined", "pipe, ld", "pipe-PR",
           "pipe, rr", "pipe, sc", "Gropp");
    for (int d = 0; d < draws; d++) {
        for (int64_t i = 0; i < n; i++)
            b[i] = d == 0 ? b0[i] : (xreal)(double)(b0[i] * (1.0 + 1e-15 * normal(&state)));
        long it[NF];
        spmv_wide = rec_wide = 0;
        it[0] = pcg(b, dinv, rtol, max_it);
        it[1] = single_reduction(b, dinv, rtol, max_it);
        it[2] = pipelined(b, dinv, rtol, max_it);
        spmv_wide = rec_wide = 1;
        it[3] = pipelined(b, dinv, rtol, max_it);
        spmv_wide = rec_wide = 0;
        it[4] = pipe_pr(b, dinv, rtol, max_it);
        replace_every = replace;
        it[5] = pipelined(b, dinv, rtol, max_it);
        replace_every = 0;
        it[6] = pipe_scaled(sc, b, bs, rtol, max_it);
        it[7] = gropp(b, dinv, rtol, max_it);
        printf("%-6d %9ld %9ld %9ld %9ld %9ld %9ld %9ld %9ld\n", d, it[0], it[1], it[2], it[3], it[4], it[5], it[6],
               it[7]);
        for (int f = 0; f < NF; f++) {   /* -1: the iteration limit, counted apart */
            sum[f] += it[f] < 0 ? 0.0 : (double)it[f];
            done[f] += it[f] >= 0;
            off[f] += it[f] < 0 || it[0] < 0 || labs(it[f] - it[0]) > 2;
        }
    }
    printf("\n%-24s %10s %s\n", "form", "mean", "draws more than 2 from standard (or at the limit)");
    for (int f = 0; f < NF; f++)
        printf("%-24s %10.1f %d of %d\n", name[f], done[f] ? sum[f] / done[f] : 0.0, off[f], draws);
    free(b);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 5) {
        fprintf(stderr, "usage: %s MATRIX.mtx [RTOL [DRAWS [REPLACE]]]\n", argv[0]);
        return 2;
    }
    char *end = NULL;
    const double rtol = argc > 2 ? strtod(argv[2], &end) : 1e-8;
    if (argc > 2 && (end == argv[2] || *end || !(rtol > 0.0 && rtol < 1.0))) {
        fprintf(stderr, "precision_model: RTOL '%s' is not a number in (0, 1)\n", argv[2]);
        return 2;
    }
    const long draws = argc > 3 ? strtol(argv[3], &end, 10) : 0;
    if (argc > 3 && (end == argv[3] || *end || draws < 0 || draws > 100000)) {
        fprintf(stderr, "precision_model: DRAWS '%s' is not a count from 0 to 100000\n", argv[3]);
        return 2;
    }
    const long replace = argc > 4 ? strtol(argv[4], &end, 10) : 20;
    if (argc > 4 && (end == argv[4] || *end || replace < 1 || replace > 1000000)) {
        fprintf(stderr, "precision_model: REPLACE '%s' is not an interval from 1 to 1000000\n", argv[4]);
        return 2;
    }
    clcg_mm_header h;
    clcg_coo t = {0};
    clcg_csr csr = {0};
    clcg_status st = clcg_mm_read_matrix(argv[1], &h, &t);
    if (st == CLCG_OK)
        st = clcg_csr_from_coo(argv[1], &t, 1, &csr);
    clcg_coo_free(&t);
    if (st != CLCG_OK) {
        fprintf(stderr, "precision_model: %s\n", clcg_error_message());
        return 1;
    }
    A = &csr;
    const int64_t n = csr.nrows;
    xreal *one = vectors(4);
    if (!one) {
        fprintf(stderr, "precision_model: out of memory\n");
        return 1;
    }
    xreal *b = one + n, *dinv = one + 2 * n, *diag = one + 3 * n;
    for (int64_t i = 0; i < n; i++)
        one[i] = 1;
    spmv_wide = 0;
    spmv(one, b);   /* b = A*1 in double, as the program forms it */
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = csr.rowptr[i]; k < csr.rowptr[i + 1]; k++)
            if (csr.colind[k] == i) {
                diag[i] = csr.val[k];
                dinv[i] = 1.0 / csr.val[k];
            }
    const long max_it = 100 * (n > 100 ? n : 100);
    if (draws > 0) {
        printf("%s, Jacobi, rtol %g, %ld right-hand sides (b = A*1, then times 1 + 1e-15 g); replacement every %ld\n",
               argv[1], rtol, draws, replace);
        scaled_sys sc = {.as = csr, .s = vectors(2), .d = diag};
        double *sval = malloc((size_t)csr.rowptr[n] * sizeof *sval + 1);
        int rc = 1;
        if (sc.s && sval) {
            sc.ones = sc.s + n;
            for (int64_t i = 0; i < n; i++) {
                sc.s[i] = 1.0 / sqrt((double)diag[i]);
                sc.ones[i] = 1;
            }
            for (int64_t i = 0; i < n; i++)
                for (int64_t k = csr.rowptr[i]; k < csr.rowptr[i + 1]; k++)
                    sval[k] = csr.val[k] * (double)sc.s[i] * (double)sc.s[csr.colind[k]];
            sc.as.val = sval;
            rc = draws_study(b, dinv, &sc, rtol, max_it, (int)draws, replace);
        } else {
            fprintf(stderr, "precision_model: out of memory\n");
        }
        free(sval);
        free(sc.s);
        free(one);
        clcg_csr_free(&csr);
        return rc;
    }
    printf("%s, Jacobi, rtol %g (long double: %d-bit significand)\n", argv[1], rtol, (int)LDBL_MANT_DIG);
    printf("%-12s %-12s %9s %9s\n", "SpMV", "recurrences", "standard", "pipelined");
    for (spmv_wide = 0; spmv_wide < 2; spmv_wide++)
        for (rec_wide = 0; rec_wide < 2; rec_wide++)
            printf("%-12s %-12s %9ld %9ld\n", spmv_wide ? "long double" : "double",
                   rec_wide ? "long double" : "double", pcg(b, dinv, rtol, max_it), pipelined(b, dinv, rtol, max_it));
    free(one);
    clcg_csr_free(&csr);
    return 0;
}
