/* Vector operations on the local part (reference versions, the test oracle):
 * dot = x'y (summed in double-double, see clcg_impl.h), y = a*x + y (axpy),
 * y = x + a*y (xpay), z = D^-1 r (Jacobi). */
#include "clcg_impl.h"

void clcg_dot_dd(int64_t n, const double *x, const double *y, double *d)
{
    d[0] = d[1] = 0.0;
    for (int64_t i = 0; i < n; i++)
        clcg_dd_acc(d, x[i] * y[i]);
}

double clcg_dot_ref(int64_t n, const double *x, const double *y)
{
    double d[2];
    clcg_dot_dd(n, x, y, d);
    return d[0];
}

void clcg_axpy_ref(int64_t n, double a, const double *x, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] += a * x[i];
}

void clcg_xpay_ref(int64_t n, const double *x, double a, double *y)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] + a * y[i];
}

void clcg_jacobi_ref(int64_t n, const double *dinv, const double *r, double *z)
{
    for (int64_t i = 0; i < n; i++)
        z[i] = dinv[i] * r[i];
}

/* dinv = 1 / diag(A); the diagonal must be positive (checked at assembly). */
clcg_status clcg_diag_inv_ref(const clcg_csr *A, double *dinv)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        const double d = clcg_diag_of(A, i);
        if (!(d > 0.0))
            return clcg_error(CLCG_ERR_NOT_SPD,
                              "diagonal entry A(%lld,%lld) = %g is not positive: the matrix is not positive definite",
                              (long long)(A->row0 + i + 1), (long long)(A->row0 + i + 1), d);
        dinv[i] = 1.0 / d;
    }
    return CLCG_OK;
}
