/* Independent check of a written solution: ||b - A x|| / ||b|| from the matrix file, the
 * solution file and b (file, or A*1), with plain loops over the triplets (no CSR, no solver).
 * usage: residual_check MATRIX X [RHS]   prints the relative residual. */
#include "clcg.h"
#include "mm.h"

#include <math.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    clcg_mm_header h;
    clcg_coo a = {0};
    double *x = NULL, *b = NULL, *ax = NULL, *ones = NULL;
    int rc = 2;
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: residual_check MATRIX X [RHS]\n");
        goto out;
    }
    if (clcg_mm_read_matrix(argv[1], &h, &a) != CLCG_OK || clcg_mm_read_vector(argv[2], a.n, &x) != CLCG_OK ||
        (argc > 3 && clcg_mm_read_vector(argv[3], a.n, &b) != CLCG_OK)) {
        fprintf(stderr, "residual_check: %s\n", clcg_error_message());
        goto out;
    }
    ax = calloc((size_t)a.n + 1, sizeof *ax);
    ones = calloc((size_t)a.n + 1, sizeof *ones);
    if (!ax || !ones)
        goto out;
    /* A*x and A*1 straight from the triplets, mirroring off-diagonal entries of symmetric files */
    for (int64_t k = 0; k < a.len; k++) {
        int64_t i = a.row[k], j = a.col[k];
        ax[i] += a.val[k] * x[j];
        ones[i] += a.val[k];
        if (a.symmetric && i != j) {
            ax[j] += a.val[k] * x[i];
            ones[j] += a.val[k];
        }
    }
    /* both norms over max|b_i|, so that values far from 1 neither overflow nor underflow */
    double rr = 0.0, bb = 0.0, bmax = 0.0;
    for (int64_t i = 0; i < a.n; i++) {
        double bi = fabs(b ? b[i] : ones[i]);
        bmax = bi > bmax ? bi : bmax;
    }
    int e = 0;   /* a power of two near 1/bmax: 1/bmax itself overflows below 2^-1024 */
    if (bmax > 0.0)
        frexp(bmax, &e);
    for (int64_t i = 0; i < a.n; i++) {
        double bi = ldexp(b ? b[i] : ones[i], -e), ri = bi - ldexp(ax[i], -e);
        rr += ri * ri;
        bb += bi * bi;
    }
    printf("%.6e\n", bb > 0 ? sqrt(rr / bb) : sqrt(rr));
    rc = 0;
out:
    clcg_coo_free(&a);
    free(x);
    free(b);
    free(ax);
    free(ones);
    MPI_Finalize();
    return rc;
}
