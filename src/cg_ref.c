/* Host reference CG and Jacobi-PCG in double (never optimized: the test oracle).
 *   r = b - A x, z = M^-1 r, p = z
 *   repeat: q = A p; alpha = r'z / p'q; x += alpha p; r -= alpha q;
 *           stop if ||r|| <= rtol ||b|| (or r'r <= CLCG_RR_FLOOR: as far as double goes);
 *           z = M^-1 r; beta = r'z_new / r'z; p = z + beta p */
#include "clcg_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

clcg_status clcg_allreduce_sum(MPI_Comm comm, double *v, int count)
{
    if (MPI_Allreduce(MPI_IN_PLACE, v, count, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce failed");
    return CLCG_OK;
}

static MPI_Datatype dd_type = MPI_DATATYPE_NULL;
static MPI_Op dd_op = MPI_OP_NULL;

static void dd_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const double *a = in;
    double *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++)
        clcg_dd_add(b + 2 * i, a + 2 * i);
}

clcg_status clcg_dd_mpi(MPI_Datatype *type, MPI_Op *op)
{
    if (dd_op == MPI_OP_NULL) {
        if (MPI_Type_contiguous(2, MPI_DOUBLE, &dd_type) != MPI_SUCCESS || MPI_Type_commit(&dd_type) != MPI_SUCCESS ||
            MPI_Op_create(dd_sum, 1, &dd_op) != MPI_SUCCESS)
            return clcg_error(CLCG_ERR_MPI, "cannot create the double-double MPI reduction");
    }
    *type = dd_type;
    *op = dd_op;
    return CLCG_OK;
}

clcg_status clcg_allreduce_dd(MPI_Comm comm, double *v, int npairs)
{
    MPI_Datatype t;
    MPI_Op op;
    CLCG_CALL(clcg_dd_mpi(&t, &op));
    if (MPI_Allreduce(MPI_IN_PLACE, v, npairs, t, op, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce failed");
    return CLCG_OK;
}

void clcg_allreduce_dd_free(void)
{
    if (dd_op != MPI_OP_NULL)
        MPI_Op_free(&dd_op);
    if (dd_type != MPI_DATATYPE_NULL)
        MPI_Type_free(&dd_type);
}

clcg_status clcg_residual(const clcg_csr *A, clcg_halo *h, const double *b, double *x, double *r,
                          double *rel)
{
    clcg_status st;
    double s[2];
    /* apart from the solver's exchange (its window, its hooks); a fault in one rank's
       exchange is every rank's here, before the reduction below */
    CLCG_CALL(clcg_agree(h->comm, clcg_halo_exchange_plain(h, x), NULL));
    clcg_residual_rows(A, x, b, r);
    s[0] = s[1] = 0.0;
    for (int64_t i = 0; i < A->nrows; i++) {
        s[0] += r[i] * r[i];
        s[1] += b[i] * b[i];
    }
    st = clcg_allreduce_sum(h->comm, s, 2);
    *rel = s[1] > 0.0 ? sqrt(s[0] / s[1]) : sqrt(s[0]);
    return st;
}

clcg_status clcg_true_residual(const clcg_csr *A, clcg_halo *h, const double *b, double *x,
                               double *rel)
{
    double *r = NULL;
    CLCG_CALL(clcg_malloc(&r, (size_t)A->nrows + 1, sizeof *r, "residual vector"));
    clcg_status st = clcg_residual(A, h, b, x, r, rel);
    free(r);
    return st;
}

clcg_status clcg_cg_ref(const clcg_csr *A, clcg_halo *h, const double *b, double *x,
                        const clcg_solve_opts *o, clcg_solve_result *res)
{
    const int64_t n = A->nrows;
    double *r = NULL, *z = NULL, *p = NULL, *q = NULL, *dinv = NULL;
    clcg_status st = CLCG_OK;
    int rank;
    double t0 = MPI_Wtime(), s[4];

    MPI_Comm_rank(h->comm, &rank);
    memset(res, 0, sizeof *res);
    /* a failure here on one rank is every rank's before the first exchange (the others
     * would wait there for it) */
    st = clcg_malloc(&r, (size_t)n, sizeof *r, "residual r");
    if (st == CLCG_OK)
        st = clcg_malloc(&q, (size_t)n, sizeof *q, "vector q");
    if (st == CLCG_OK)
        st = clcg_malloc(&p, (size_t)A->ncols, sizeof *p, "direction p");
    if (st == CLCG_OK && o->precond == CLCG_PRECOND_JACOBI) {
        st = clcg_malloc(&z, (size_t)n, sizeof *z, "preconditioned residual z");
        if (st == CLCG_OK)
            st = clcg_malloc(&dinv, (size_t)n, sizeof *dinv, "Jacobi diagonal");
        if (st == CLCG_OK)
            st = clcg_diag_inv_ref(A, dinv);
    } else {
        z = r;
    }
    CLCG_CHECK(st, clcg_agree(h->comm, st, NULL), done);

    /* r = b - A x */
    CLCG_CHECK(st, clcg_agree(h->comm, clcg_halo_exchange(h, x), NULL), done);
    clcg_spmv_ref(A, x, q);
    for (int64_t i = 0; i < n; i++)
        r[i] = b[i] - q[i];
    if (dinv)
        clcg_jacobi_ref(n, dinv, r, z);
    memcpy(p, z, (size_t)n * sizeof *p);
    clcg_dot_dd(n, b, b, s);
    clcg_dot_dd(n, r, z, s + 2);
    CLCG_CHECK(st, clcg_allreduce_dd(h->comm, s, 2), done);
    res->bnorm = sqrt(s[0]);
    double rz = s[2];
    clcg_dot_dd(n, r, r, s);
    CLCG_CHECK(st, clcg_allreduce_dd(h->comm, s, 1), done);
    double bnorm = res->bnorm > 0.0 ? res->bnorm : 1.0;
    double rr = s[0];
    const double grow2 = CLCG_COND_SINGULAR * rz;   /* r'z past this: A singular or indefinite */
    res->rel_residual = sqrt(rr) / bnorm;
    res->outcome = CLCG_DIVERGED_ITS;

    for (int64_t k = 0;; k++) {
        if (!isfinite(res->rel_residual)) {
            res->outcome = CLCG_DIVERGED_NANORINF;
            break;
        }
        if (o->monitor && rank == 0)
            printf("%6lld  ||r||/||b|| = %.6e\n", (long long)(o->mon_base + k),
                   res->rel_residual * (o->mon_scale > 0.0 ? o->mon_scale : 1.0));
        /* as far as double goes (CLCG_RR_FLOOR, as the device solves stop): below it r'z keeps
           ever fewer digits and CG wanders instead of reaching --rtol (solve.c says so) */
        if (res->rel_residual <= o->rtol || rr <= CLCG_RR_FLOOR) {
            res->outcome = CLCG_CONVERGED;
            break;
        }
        if (clcg_grew(rz, grow2)) {   /* as the device solves stop (clcg_impl.h) */
            clcg_grew_stop(res, rz, grow2);
            break;
        }
        if (k >= o->max_it)
            break;
        if (!(rz > 0.0)) {
            res->outcome = isfinite(rz) ? CLCG_DIVERGED_BREAKDOWN : CLCG_DIVERGED_NANORINF;
            break;
        }
        if (k == 2)   /* tests: CLCG_FAULT=RANK:solve, as in the device solves */
            CLCG_CHECK(st, clcg_agree(h->comm, clcg_fault_point(h->rank, "solve"), NULL), done);
        CLCG_CHECK(st, clcg_agree(h->comm, clcg_halo_exchange(h, p), NULL), done);
        clcg_spmv_ref(A, p, q);
        clcg_dot_dd(n, p, q, s);
        CLCG_CHECK(st, clcg_allreduce_dd(h->comm, s, 1), done);
        double pq = s[0];
        if (!isfinite(pq)) {
            res->outcome = CLCG_DIVERGED_NANORINF;
            break;
        }
        if (pq <= 0.0) {
            res->outcome = CLCG_DIVERGED_INDEFINITE;
            break;
        }
        double alpha = rz / pq;
        clcg_axpy_ref(n, alpha, p, x);
        clcg_axpy_ref(n, -alpha, q, r);
        res->iterations = k + 1;
        if (dinv)
            clcg_jacobi_ref(n, dinv, r, z);
        clcg_dot_dd(n, r, r, s);
        clcg_dot_dd(n, r, z, s + 2);
        CLCG_CHECK(st, clcg_allreduce_dd(h->comm, s, 2), done);
        rr = s[0];
        res->rel_residual = sqrt(rr) / bnorm;
        double beta = s[2] / rz;
        rz = s[2];
        clcg_xpay_ref(n, z, beta, p);
    }
    double t[2] = {MPI_Wtime() - t0, 0.0};
    t[1] = -t[0];
    MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, h->comm);
    res->solve_time = t[0];
    res->solve_min = -t[1];
    CLCG_CHECK(st, clcg_true_residual(A, h, b, x, &res->true_residual), done);
done:
    free(r);
    free(q);
    free(p);
    if (z != r)
        free(z);
    free(dinv);
    return st;
}
