/* y = A*x for the local rows (reference: plain loops, the test oracle). */
#include "clcg_impl.h"

void clcg_spmv_ref(const clcg_csr *A, const double *x, double *y)
{
    for (int64_t i = 0; i < A->nrows; i++) {
        double s = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            s += A->val[k] * x[A->colind[k]];
        y[i] = s;
    }
}
