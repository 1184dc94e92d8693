/* How much of the gap between the pipelined and the standard CG iteration counts is rounding:
 * both recurrences on the host, Jacobi-preconditioned, b = A*1, x0 = 0, stopping at
 * ||r||/||b|| <= rtol on the recursive residual, with the SpMV and the vector recurrences
 * each in double or in long double (the dot products are summed in long double and rounded
 * to double, as the device's double-double sums are).  With both in long double the two
 * forms follow exact arithmetic more closely; the counts in double show what rounding adds.
 * usage: precision_model MATRIX.mtx [RTOL]   (default 1e-8) */
#include "csr.h"
#include "mm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef long double xreal;

static const clcg_csr *A;
static int spmv_wide, rec_wide;

/* a value of a recurrence: kept wide or rounded to double */
static xreal rec(xreal v)
{
    return rec_wide ? v : (xreal)(double)v;
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
    xreal s = 0;
    for (int64_t i = 0; i < A->nrows; i++)
        s += a[i] * b[i];
    return (double)s;
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
        z[i] = rec(dinv[i] * r[i]);
        p[i] = z[i];
    }
    const double bn = sqrt(dot(b, b));
    double rz = dot(r, z);
    long k = 0;
    for (; k < max_it && sqrt(dot(r, r)) > rtol * bn; k++) {
        spmv(p, q);
        const double alpha = rz / dot(p, q);
        for (int64_t i = 0; i < n; i++) {
            x[i] = rec(x[i] + alpha * p[i]);
            r[i] = rec(r[i] - alpha * q[i]);
            z[i] = rec(dinv[i] * r[i]);
        }
        const double rz_next = dot(r, z), beta = rz_next / rz;
        rz = rz_next;
        for (int64_t i = 0; i < n; i++)
            p[i] = rec(z[i] + beta * p[i]);
    }
    free(v);
    return k < max_it ? k : -1;
}

/* Ghysels-Vanroose pipelined CG, the recurrences of the device's update_pipe kernel. */
static long pipelined(const xreal *b, const xreal *dinv, double rtol, long max_it)
{
    const int64_t n = A->nrows;
    xreal *v = vectors(10);
    if (!v)
        return -2;
    xreal *x = v, *r = v + n, *u = v + 2 * n, *w = v + 3 * n, *m = v + 4 * n, *nv = v + 5 * n, *z = v + 6 * n,
          *q = v + 7 * n, *s = v + 8 * n, *p = v + 9 * n;
    for (int64_t i = 0; i < n; i++) {
        r[i] = b[i];
        u[i] = rec(dinv[i] * b[i]);
    }
    spmv(u, w);
    for (int64_t i = 0; i < n; i++)
        m[i] = rec(dinv[i] * w[i]);
    const double bn = sqrt(dot(b, b));
    double alpha = 0, beta = 0, gamma_prev = 1;
    long k = 0;
    for (; k < max_it; k++) {
        const double gamma = dot(r, u), rr = dot(r, r), delta = dot(w, u);
        if (sqrt(rr) <= rtol * bn)
            break;
        spmv(m, nv);
        beta = k == 0 ? 0 : gamma / gamma_prev;
        alpha = gamma / (k == 0 ? delta : delta - beta * gamma / alpha);
        gamma_prev = gamma;
        for (int64_t i = 0; i < n; i++) {
            z[i] = rec(nv[i] + beta * z[i]);
            q[i] = rec(m[i] + beta * q[i]);
            s[i] = rec(w[i] + beta * s[i]);
            p[i] = rec(u[i] + beta * p[i]);
            x[i] = rec(x[i] + alpha * p[i]);
            r[i] = rec(r[i] - alpha * s[i]);
            u[i] = rec(u[i] - alpha * q[i]);
            w[i] = rec(w[i] - alpha * z[i]);
            m[i] = rec(dinv[i] * w[i]);
        }
    }
    free(v);
    return k < max_it ? k : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s MATRIX.mtx [RTOL]\n", argv[0]);
        return 2;
    }
    char *end = NULL;
    const double rtol = argc > 2 ? strtod(argv[2], &end) : 1e-8;
    if (argc > 2 && (end == argv[2] || *end || !(rtol > 0.0 && rtol < 1.0))) {
        fprintf(stderr, "precision_model: RTOL '%s' is not a number in (0, 1)\n", argv[2]);
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
    xreal *one = vectors(3);
    if (!one) {
        fprintf(stderr, "precision_model: out of memory\n");
        return 1;
    }
    xreal *b = one + n, *dinv = one + 2 * n;
    for (int64_t i = 0; i < n; i++)
        one[i] = 1;
    spmv_wide = 0;
    spmv(one, b);   /* b = A*1 in double, as the program forms it */
    for (int64_t i = 0; i < n; i++)
        for (int64_t k = csr.rowptr[i]; k < csr.rowptr[i + 1]; k++)
            if (csr.colind[k] == i)
                dinv[i] = 1.0 / csr.val[k];
    const long max_it = 100 * (n > 100 ? n : 100);
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
