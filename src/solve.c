/* Pick the backend and run the solve. */
#include "solve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference's corrections, as the device's (cg_ocl.c, refine): where the recurrences
 * met --rtol but b - Ax did not (they drift from it on ill-conditioned systems), A d = b - Ax
 * (the residual's rows summed in twice the working precision) is solved from d = 0 to the
 * same absolute tolerance, x += d, at most REF_REFINE times while the true residual keeps
 * falling: the device's standard corrections, step for step.  What stays above --rtol is the
 * limit reached. */
#define REF_REFINE 4

static clcg_status ref_refine(MPI_Comm comm, const clcg_solve_opts *so, clcg_problem *p, clcg_solve_result *res,
                              clcg_run_info *info)
{
    clcg_status st = CLCG_OK;
    double *r = NULL, *d = NULL, *keep = NULL, rel = 0.0;
    int out_of_its = 0;
    if (!(res->outcome == CLCG_CONVERGED || clcg_breakdown_at_limit(res)) ||
        !(res->true_residual > so->rtol))
        return CLCG_OK;
    const int64_t n = p->A.nrows;
    st = clcg_malloc(&r, (size_t)n + 1, sizeof *r, "the residual");
    if (st == CLCG_OK)
        st = clcg_malloc(&d, (size_t)p->A.ncols + 1, sizeof *d, "a correction");
    if (st == CLCG_OK)
        st = clcg_malloc(&keep, (size_t)n + 1, sizeof *keep, "the solution before a correction");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_residual(&p->A, &p->halo, p->b, p->x, r, &rel), out);
    for (int k = 0; k < REF_REFINE && res->true_residual > so->rtol; k++) {
        clcg_solve_opts left = *so;
        clcg_solve_result rc;
        double s[2];
        left.max_it = so->max_it - res->iterations;   /* shared with the solve before */
        if (left.max_it <= 0) {
            out_of_its = 1;
            break;
        }
        /* ||r|| as the solve below takes it: its tolerance relative to that, --rtol ||b|| */
        clcg_dot_dd(n, r, r, s);
        CLCG_CHECK(st, clcg_allreduce_dd(comm, s, 1), out);
        const double rnorm = sqrt(s[0]);
        if (!(rnorm > 0.0))
            break;
        left.rtol = so->rtol * res->bnorm / rnorm;
        left.mon_base = res->iterations;
        left.mon_scale = rnorm / (res->bnorm > 0.0 ? res->bnorm : 1.0);
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (so->monitor && rank == 0)   /* as the device's corrections say it (cg_ocl.c) */
            printf("        correction %d: A d = b - Ax, ||b-Ax||/||b|| = %.6e\n", k + 1, res->true_residual);
        memset(d, 0, (size_t)p->A.ncols * sizeof *d);
        CLCG_CHECK(st, clcg_cg_ref(&p->A, &p->halo, r, d, &left, &rc), out);
        memcpy(keep, p->x, (size_t)n * sizeof *keep);
        for (int64_t i = 0; i < n; i++)
            p->x[i] += d[i];
        CLCG_CHECK(st, clcg_residual(&p->A, &p->halo, p->b, p->x, r, &rel), out);
        res->iterations += rc.iterations;
        info->iterations_run += rc.iterations;
        info->refinements++;
        out_of_its = rc.outcome == CLCG_DIVERGED_ITS;
        if (rc.outcome == CLCG_DIVERGED_SINGULAR) {   /* its residual grew, as the device's corrections stop */
            memcpy(p->x, keep, (size_t)n * sizeof *keep);
            res->outcome = rc.outcome;
            res->growth = rc.growth;
            res->cond_low = rc.cond_low;
            res->at_limit = 0;
            goto out;
        }
        if (!(rel < res->true_residual)) {   /* it did not help: x as it was */
            memcpy(p->x, keep, (size_t)n * sizeof *keep);
            break;
        }
        res->true_residual = rel;
        res->rel_residual = rc.rel_residual * rnorm / (res->bnorm > 0.0 ? res->bnorm : 1.0);
    }
    if (res->true_residual <= so->rtol) {
        res->outcome = CLCG_CONVERGED;
        res->at_limit = 0;
    } else if (out_of_its) {
        res->outcome = CLCG_DIVERGED_ITS;
        res->at_limit = 0;
    }
out:
    free(r);
    free(d);
    free(keep);
    return st;
}

static clcg_status solve(MPI_Comm comm, const clcg_options *o, clcg_problem *p, clcg_solve_result *res,
                         clcg_run_info *info)
{
    clcg_solve_opts so = {o->rtol, o->max_it, o->precond, o->monitor && !o->quiet, 0, 0.0};
    memset(info, 0, sizeof *info);
    if (o->backend == CLCG_BACKEND_OPENCL)
        return clcg_cg_ocl(comm, o, p, res, info);
    info->backend = "reference";
    snprintf(info->device, sizeof info->device, "host (reference code)");
    snprintf(info->format, sizeof info->format, "csr");
    snprintf(info->variant, sizeof info->variant, "standard");
    info->ndevices = info->ndevices_min = info->ndevices_max = 0;
    info->bytes_sent_min = info->bytes_sent_max = p->halo.bytes_sent;
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_min, 1, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_max, 1, MPI_INT64_T, MPI_MAX, comm);
    memset(p->x, 0, (size_t)p->A.ncols * sizeof *p->x);
    snprintf(info->base_variant, sizeof info->base_variant, "standard");
    clcg_status st = clcg_cg_ref(&p->A, &p->halo, p->b, p->x, &so, res);
    info->iterations_run = info->timed_iterations = res->iterations;
    if (st == CLCG_OK)
        st = ref_refine(comm, &so, p, res, info);
    /* where it stopped with a true residual still above --rtol (its recursive one met --rtol
       or fell below CLCG_RR_FLOOR: a --rtol under what double precision reaches, and the
       corrections got no further), it says so */
    if (st == CLCG_OK && res->outcome == CLCG_CONVERGED && res->true_residual > o->rtol)
        res->at_limit = 1;
    info->solve_min = res->solve_min;
    info->solve_max = info->solve_times[0] = res->solve_time;
    info->nrepeats = 1;
    return st;
}

/* A breakdown (r'z or p'Ap not positive) once the recursive residual is below 1e-12, under a
 * --rtol smaller still, is the arithmetic running out, not an indefinite matrix: vectors in
 * the underflow range (the standard form: r'z exactly 0 near 1e-160 on LFAT5 and Poisson),
 * or the pipelined form's recurrences lost in rounding (p'Ap <= 0 at 8e-14 on Poisson 20^2).
 * The solve has converged as far as it can; a genuine breakdown comes long before, and were
 * it to come this late, Ax = b would already hold to 1e-12 (CLCG_LIMIT_REL). */
int clcg_breakdown_at_limit(const clcg_solve_result *res)
{
    return (res->outcome == CLCG_DIVERGED_BREAKDOWN || res->outcome == CLCG_DIVERGED_INDEFINITE) &&
           res->rel_residual <= CLCG_LIMIT_REL;
}

static clcg_status precision_limit(clcg_status st, clcg_solve_result *res)
{
    if (st == CLCG_OK && clcg_breakdown_at_limit(res)) {
        res->outcome = CLCG_CONVERGED;
        res->at_limit = 1;
    }
    return st;
}

/* A lower bound on cond_2 of A^ = D^-1/2 A D^-1/2 (D = diag(A)) from x, the larger of two:
 * - with x^ = D^1/2 x, b^ = D^-1/2 b and r^ = D^-1/2 (b - Ax), x^ = A^^-1 (b^ - r^), so
 *   cond_2(A^) >= the largest row 2-norm of A^ times ||x^|| / (||b^|| + ||r^||);
 * - lambda_min(A^) <= x^'A^x^ / x^'x^ = x'Ax / x'Dx (a Rayleigh quotient), and lambda_max(A^)
 *   is at least that row norm and, A^'s diagonal being 1, at least 1 + its largest |a^_ij|
 *   off the diagonal (the larger eigenvalue of a 2x2 principal submatrix, which interlaces).
 * Where A is near singular and b has some part along its near null vectors, x is made of them
 * (x^ grows as b^'s part along each eigenvector over its eigenvalue): the quotient comes close
 * to lambda_min, while the first bound falls short of cond by b's share along them.  x'Ax, of
 * large terms that cancel, is taken as x'b - x'r, r = b - Ax with its rows in twice the
 * working precision (clcg_residual: Dot2, rounded once), each product split exactly by fma
 * and summed over rows and ranks in double-double.  What rounding can leave, bounded below
 * (u = eps/2), is added to the quotient, so that it stays above lambda_min, and x'Dx, a sum
 * of positive terms, is taken its rounding smaller.  Taken on A^, not A, so that a matrix
 * only badly scaled (which Jacobi solves as well as any) is not called singular.  -1 where
 * x'Ax <= 0 even so: A is not positive definite.  Collective. */
static clcg_status cond_bound(MPI_Comm comm, clcg_problem *p, double *out)
{
    const clcg_csr *A = &p->A;
    double *d = NULL, *r = NULL, rel = 0.0;
    clcg_status st = clcg_malloc(&d, (size_t)A->ncols + 1, sizeof *d, "the diagonal");
    if (st == CLCG_OK)
        st = clcg_malloc(&r, (size_t)A->nrows + 1, sizeof *r, "the residual");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    for (int64_t i = 0; i < A->nrows; i++)
        d[i] = clcg_diag_of(A, i);   /* positive: checked as the matrix was read */
    CLCG_CHECK(st, clcg_agree(comm, clcg_halo_exchange_plain(&p->halo, d), NULL), out);
    /* (x's ghosts are those of the exchange in clcg_residual) */
    CLCG_CHECK(st, clcg_residual(A, &p->halo, p->b, p->x, r, &rel), out);
    const double *x = p->x;
    /* ||x^||^2, ||b^||^2, ||r^||^2, |x|'(|A||x| + |b|), |x|'|r|; x'Ax and x'Dx in
       double-double (pairs); the largest row of A^, squared, the longest row, the largest
       |a^_ij| off the diagonal, the most rows a rank holds */
    double s[5] = {0.0, 0.0, 0.0, 0.0, 0.0}, dd[4] = {0.0, 0.0, 0.0, 0.0};
    double mx[4] = {0.0, 0.0, 0.0, (double)A->nrows};
    for (int64_t i = 0; i < A->nrows; i++) {
        double row2 = 0.0, ex = 0.0;
        const double si = sqrt(d[i]), bi = p->b[i];
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
            const int64_t j = A->colind[k];
            const double ah = A->val[k] / si / sqrt(d[j]);   /* a^_ij, no product of two d below range */
            row2 += ah * ah;
            if (j != i)
                mx[2] = fmax(mx[2], fabs(ah));
            ex += fabs(A->val[k] * x[j]);
        }
        mx[0] = fmax(mx[0], row2);
        mx[1] = fmax(mx[1], (double)(A->rowptr[i + 1] - A->rowptr[i]));
        s[0] += d[i] * x[i] * x[i];
        s[1] += bi * bi / d[i];
        s[2] += r[i] * r[i] / d[i];
        s[3] += fabs(x[i]) * (ex + fabs(bi));
        s[4] += fabs(x[i] * r[i]);
        const double pb = x[i] * bi, pr = x[i] * r[i];   /* x_i (Ax)_i = x_i b_i - x_i r_i */
        clcg_dd_acc(dd, pb);
        clcg_dd_acc(dd, fma(x[i], bi, -pb));
        clcg_dd_acc(dd, -pr);
        clcg_dd_acc(dd, -fma(x[i], r[i], -pr));
        clcg_dd_acc(dd + 2, d[i] * x[i] * x[i]);
    }
    if (MPI_Allreduce(MPI_IN_PLACE, s, 5, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, mx, 4, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the condition bound failed");
    if (st == CLCG_OK)
        st = clcg_allreduce_dd(comm, dd, 2);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    const double amax = sqrt(mx[0]);
    *out = amax * sqrt(s[0]) / (sqrt(s[1]) + sqrt(s[2]));
    /* What rounding leaves of x'Ax (u = eps/2, m the longest row, n the rows of a rank, at
       most the largest row count, P the ranks): r_i by Dot2 then rounded, gamma_m^2 (|b_i| +
       sum_j |a_ij x_j|) + u |r_i|, times |x_i|; each double-double addition (one without
       renormalizing the low parts) about 4 u^2 of the sums so far, at most |x|'(|A||x| + |b|)
       + |x|'|r|, 4 a row and P - 1 over the ranks; the pair rounded to one double, u |x'Ax|.
       x'Dx: 2 roundings a term and the additions, relative.  lambda_max's bound: m + 4
       roundings, relative.  All doubled for what the bounds leave out (the rounding of the
       magnitudes themselves). */
    int size = 1;
    MPI_Comm_size(comm, &size);
    const double nmax = mx[3], ranks = size;
    const double u = DBL_EPSILON / 2.0, gm = mx[1] * u / (1.0 - mx[1] * u);
    const double dd_rel = 4.0 * (4.0 * nmax + ranks) * u * u;
    const double xax = dd[0] + dd[1], xdx = dd[2] + dd[3];
    const double err = 2.0 * ((gm * gm + dd_rel) * s[3] + (u + dd_rel) * s[4] + u * fabs(xax));
    const double xdx_low = xdx * (1.0 - 2.0 * (3.0 * u + 4.0 * (nmax + ranks) * u * u));
    const double lmax = fmax(amax, 1.0 + mx[2]) * (1.0 - 2.0 * (mx[1] + 4.0) * u);
    if (isfinite(*out) && xdx_low > 0.0 && isfinite(xdx_low) && isfinite(xax + err) && mx[1] * u < 0.5) {
        const double rq = (xax + err) / xdx_low;   /* >= lambda_min(A^) */
        if (!(rq > 0.0))
            *out = -1.0;   /* x'Ax <= 0 past its rounding: A is not positive definite */
        else if (lmax / rq > *out)
            *out = lmax / rq;
    }
out:
    free(d);
    free(r);
    return st;
}

/* "Converged as far as double precision goes" is a claim about rounding: x_k drifts from
 * what the recurrences say by at most about eps k ||A|| max ||x_j|| (Greenbaum, 1997), and
 * b - Ax itself is computed to about eps ||A|| ||x||.  A true residual that stays above
 * 64 eps k ||A||_inf ||x|| / ||b|| (||A||_2 <= ||A||_inf for a symmetric A) is not rounding:
 * the iterates are wrong (a corrupted halo, a faulty device), and the solve says so rather
 * than call x converged.
 * Nor is x a solution where A is singular to double precision, as a Laplacian without a
 * boundary condition is: with b outside its range the recurrences still "converge", x grows
 * along the null vector until rounding explains any residual, and b - Ax stays near b.  Any
 * x and its residual r = b - Ax give x = A^-1 (b - r), so ||x|| <= ||A^-1|| (||b|| + ||r||),
 * and with ||A||_2 >= the largest row's 2-norm, cond_2(A) >= that norm ||x|| / (||b|| + ||r||);
 * taken on D^-1/2 A D^-1/2 (cond_bound), which a mere scaling of A does not change.
 * Past 1/(64 eps) (7e13), relative changes of A of the order of its own rounding can make it
 * singular: the solve says so (DIVERGED_SINGULAR) instead of calling x converged.
 * Collective. */
static clcg_status residual_gap(MPI_Comm comm, clcg_problem *p, clcg_solve_result *res)
{
    /* (the bound holds for any x: at the iteration limit too, where CG on a singular A can
       wander without end, its residual rising and falling by orders of magnitude) */
    const int at_its = res->outcome == CLCG_DIVERGED_ITS && isfinite(res->true_residual);
    if (!(res->outcome == CLCG_CONVERGED && res->at_limit) && !at_its)
        return CLCG_OK;
    const clcg_csr *A = &p->A;
    double s[2] = {0.0, 0.0}, amax = 0.0;   /* ||x||^2, ||b||^2; max row sum of |A| */
    for (int64_t i = 0; i < A->nrows; i++) {
        double row = 0.0;
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            row += fabs(A->val[k]);
        amax = fmax(amax, row);
        s[0] += p->x[i] * p->x[i];
        s[1] += p->b[i] * p->b[i];
    }
    if (MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(MPI_IN_PLACE, &amax, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the attainable residual failed");
    if (!(s[1] > 0.0))
        return CLCG_OK;
    const double k = res->iterations > 1 ? (double)res->iterations : 1.0;
    res->attainable = 64.0 * DBL_EPSILON * k * amax * sqrt(s[0]) / sqrt(s[1]);
    CLCG_CALL(cond_bound(comm, p, &res->cond_low));
    if (res->cond_low < 0.0) {
        res->outcome = CLCG_DIVERGED_INDEFINITE;
        res->at_limit = 0;
        res->cond_low = 0.0;
    } else if (res->cond_low >= CLCG_COND_SINGULAR) {   /* a NaN x falls to the gap test, as before */
        res->outcome = CLCG_DIVERGED_SINGULAR;
        res->at_limit = 0;
    } else if (at_its) {
        res->cond_low = 0.0;   /* no more than the limit reached */
    } else if (!(res->true_residual <= res->attainable)) {
        res->outcome = CLCG_DIVERGED_RESIDUAL_GAP;
        res->at_limit = 0;
    }
    return CLCG_OK;
}

clcg_status clcg_solve(MPI_Comm comm, const clcg_options *o, clcg_problem *p,
                       clcg_solve_result *res, clcg_run_info *info)
{
    clcg_status st = precision_limit(solve(comm, o, p, res, info), res);
    if (st == CLCG_OK)
        st = clcg_agree(comm, residual_gap(comm, p, res), NULL);
    return st == CLCG_OK ? clcg_problem_unscale(comm, p, o->rtol, res) : st;
}

void clcg_solve_info_free(clcg_run_info *info)
{
    (void)info;
}
