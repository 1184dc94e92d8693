/* Load the system: generate my rows, or read my share of a Matrix Market or binary file
 * (mm_read_dist.c, binary_io.c); partition rows by nonzeros, build the halo plan, and set
 * b (file, or A*1) and x = 0. */
#include "problem.h"
#include "dist.h"
#include "mm.h"
#include "csr.h"

#include <float.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void clcg_partition_by_nnz(int64_t n, int size, int64_t (*row_nnz)(int64_t, const void *),
                           const void *ctx, int64_t *row_begin)
{
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += row_nnz(i, ctx);
    int r = 1;
    int64_t acc = 0;
    row_begin[0] = 0;
    for (int64_t i = 0; i < n && r < size; i++) {
        acc += row_nnz(i, ctx);
        /* boundary after row i once the running sum passes r/size of the total */
        while (r < size && (double)acc >= (double)total * r / size) {
            row_begin[r++] = i + 1;
        }
    }
    while (r <= size)
        row_begin[r++] = n;
}

clcg_status clcg_partition_by_nnz_dist(MPI_Comm comm, int64_t n, int64_t row0, int64_t nrows,
                                       const int64_t *row_nnz, int64_t *row_begin)
{
    int size, rank;
    int64_t local = 0, before = 0, total = 0, acc;
    int r = 1;

    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    for (int64_t i = 0; i < nrows; i++)
        local += row_nnz[i];
    if (MPI_Exscan(&local, &before, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&local, &total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Exscan of the row counts failed");
    if (rank == 0)
        before = 0;
    for (int k = 0; k <= size; k++)
        row_begin[k] = -1;
    /* as clcg_partition_by_nnz: boundary r after the first row i whose running sum
       reaches total*r/size; those reached before my rows are set by an earlier rank */
    acc = before;
    while (row0 > 0 && r < size && (double)acc >= (double)total * r / size)
        r++;
    for (int64_t i = 0; i < nrows && r < size; i++) {
        acc += row_nnz[i];
        while (r < size && (double)acc >= (double)total * r / size)
            row_begin[r++] = row0 + i + 1;
    }
    if (MPI_Allreduce(MPI_IN_PLACE, row_begin, size + 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the partition failed");
    row_begin[0] = 0;
    for (int k = 1; k <= size; k++)
        if (row_begin[k] < 0)
            row_begin[k] = n;
    return CLCG_OK;
}

static int64_t gen_nnz(int64_t i, const void *ctx)
{
    return clcg_gen_row_nnz((const clcg_gen *)ctx, i);
}

/* Entries of a generated matrix, at the least: the stencils' exact counts; random: its
 * path and diagonal, and from 10 000 rows on 90 % of the requested mean a row (its mean
 * came to 98.8-100 % of it from 5000 rows on; 75 % at 1000 rows, where hubs reach the ends). */
double clcg_gen_nnz_least(const clcg_gen *g)
{
    const double x = (double)g->nx, y = (double)g->ny, z = (double)g->nz, n = (double)g->n;
    switch (g->kind) {
    case CLCG_GEN_POISSON2D:
    case CLCG_GEN_POISSON3D:
        return n + 2 * ((x - 1) * y * z + x * (y - 1) * z + x * y * (z - 1));
    case CLCG_GEN_POISSON3D27:
        return (3 * x - 2) * (3 * y - 2) * (3 * z - 2);
    default:
        return n >= 10000 && 0.9 * g->avg_degree * n > 3 * n - 2 ? 0.9 * g->avg_degree * n : 3 * n - 2;
    }
}

/* My rows of a generated problem, built here only (entries come out sorted). */
static clcg_status load_generated(const clcg_options *o, int rank, int size, clcg_problem *p,
                                  int64_t *row_begin, clcg_gidx **gcol)
{
    clcg_gen g;
    clcg_coo t = {0};
    clcg_status st = CLCG_OK;
    clcg_csr *A = &p->A;
    CLCG_CALL(clcg_gen_parse(o->generate, size, &g));
    snprintf(p->name, sizeof p->name, "%s", g.name);
    {   /* refused before the rows are walked to partition them */
        char what[200];
        double nnz = clcg_gen_nnz_least(&g);
        snprintf(what, sizeof what, "--generate %s (n = %" PRId64 ", nnz >= %.0f)", o->generate, g.n, nnz);
        CLCG_CALL(clcg_memory_check(CLCG_PEAK_GEN_ENTRY * nnz + CLCG_PEAK_GEN_ROW * (double)g.n, size, what));
    }
    clcg_partition_by_nnz(g.n, size, gen_nnz, &g, row_begin);
    A->n = g.n;
    A->row0 = row_begin[rank];
    A->nrows = row_begin[rank + 1] - row_begin[rank];
    CLCG_CHECK(st, clcg_gen_rows(&g, A->row0, A->nrows, &t), out);
    if (!t.col)   /* no rows here (more ranks than rows): still a column list, empty */
        CLCG_CHECK(st, clcg_coo_reserve(&t, 1), out);
    A->nnz = t.len;
    CLCG_CHECK(st, clcg_calloc(&A->rowptr, (size_t)A->nrows + 1, sizeof *A->rowptr, "row pointers"), out);
    CLCG_CHECK(st, clcg_malloc(&A->colind, (size_t)t.len, sizeof *A->colind, "column indices"), out);
    for (int64_t k = 0; k < t.len; k++)
        A->rowptr[t.row[k] - A->row0 + 1]++;
    for (int64_t i = 0; i < A->nrows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    *gcol = t.col;      /* generator rows come sorted by row, then column */
    A->val = t.val;
    t.col = NULL;
    t.val = NULL;
out:
    clcg_coo_free(&t);
    return st;
}

/* A binary file's mark "symmetric", tested without moving an entry between ranks: for x and y
 * drawn from each global index and a seed of this run (rank 0's clock, so that no file can be
 * made to cancel them), x'Ay - y'Ax = the sum over the off-diagonal entries of
 * a_ij w_ij, w_ij = x_i y_j - y_i x_j.  w is formed for the pair (i < j) and negated for
 * (j, i), so that the terms of A(i,j) and A(j,i) cancel exactly when the two are equal, and
 * stay within 32 eps of their magnitudes where the text reader's test lets them differ by
 * 64 eps.  Summed in double-double (per block of rows, the blocks in order, then over the
 * ranks), the sum keeps that to far below 64 eps of the sum of |terms|, the bound; triangles
 * that differ leave more, but for a difference that small against the whole matrix.  A is
 * taken at a power-of-two scale (exact) so that no term or sum leaves the range of double. */
#define SYM_BLOCKS 256

typedef struct {
    const clcg_csr *A;
    const clcg_gidx *gcol;   /* global columns (a file with 64-bit ones), else A->colind */
    double scale;            /* a power of two */
    uint64_t seed;           /* rank 0's, the same on every rank */
    int64_t nblocks;
    double (*part)[3];       /* each block's sum (double-double) and its sum of |terms| */
} sym_job;

static uint64_t mix64(uint64_t h)   /* splitmix64's finaliser */
{
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9u;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

static void xy_of(uint64_t seed, clcg_gidx g, double *x, double *y)
{
    const uint64_t h = mix64(seed + (uint64_t)g * 0x9e3779b97f4a7c15u);
    *x = ldexp((double)(h >> 32), -32) - 0.5;   /* in [-1/2, 1/2) */
    *y = ldexp((double)(h & 0xffffffffu), -32) - 0.5;
}

static void sym_blocks(void *arg, int64_t lo, int64_t hi)
{
    const sym_job *j = arg;
    const clcg_csr *A = j->A;
    for (int64_t b = lo; b < hi; b++) {
        double sum[2] = {0.0, 0.0}, mag = 0.0;
        for (int64_t i = A->nrows * b / j->nblocks; i < A->nrows * (b + 1) / j->nblocks; i++) {
            const clcg_gidx gi = A->row0 + i;
            double xi, yi;
            xy_of(j->seed, gi, &xi, &yi);
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const clcg_gidx gj = j->gcol ? j->gcol[k] : A->colind[k];
                double xj, yj;
                if (gj == gi)
                    continue;
                xy_of(j->seed, gj, &xj, &yj);
                const double w = gi < gj ? xi * yj - yi * xj : -(xj * yi - yj * xi);
                const double t = (A->val[k] * j->scale) * w;
                clcg_dd_acc(sum, t);
                mag += fabs(t);
            }
        }
        j->part[b][0] = sum[0];
        j->part[b][1] = sum[1];
        j->part[b][2] = mag;
    }
}

static int range_exponent(MPI_Comm comm, const double *v, int64_t n);

static clcg_status check_symmetric_mark(MPI_Comm comm, const char *path, const clcg_csr *A, const clcg_gidx *gcol)
{
    double part[SYM_BLOCKS][3], d[4] = {0.0, 0.0, 0.0, 0.0};   /* the sum; the sum of |terms| (, 0) */
    const int e = range_exponent(comm, A->val, A->nnz);
    sym_job j = {A, gcol, ldexp(1.0, e), 0,
                 A->nrows < SYM_BLOCKS ? (A->nrows > 0 ? A->nrows : 1) : SYM_BLOCKS, part};
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        j.seed = mix64(mix64((uint64_t)ts.tv_sec) ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32));
    }
    if (MPI_Bcast(&j.seed, 1, MPI_UINT64_T, 0, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Bcast of the symmetry test's seed failed");
    memset(part, 0, sizeof part);
    clcg_parallel_for(j.nblocks, sym_blocks, &j);
    for (int64_t b = 0; b < j.nblocks; b++) {
        clcg_dd_add(d, part[b]);
        d[2] += part[b][2];
    }
    CLCG_CALL(clcg_allreduce_dd(comm, d, 2));
    const double bound = 64 * DBL_EPSILON * d[2];
    if (fabs(d[0]) <= bound)
        return CLCG_OK;
    MPI_Comm_size(comm, &size);
    if (size == 1 && !gcol)   /* all of it here: the pair test decides, and names one */
        return clcg_csr_check_symmetric(path, A, "a binary file marked as symmetric; --no-symmetry-check "
                                        "solves it anyway");
    return clcg_error(CLCG_ERR_INPUT, "%s: matrix is not symmetric (a binary file marked as symmetric): for "
                      "random x and y, x'Ay - y'Ax = %.3e, past the rounding bound %.3e; "
                      "--no-symmetry-check solves it anyway", path, ldexp(d[0], -e), ldexp(bound, -e));
}

/* My rows with global columns and the partition: generated here, or read in parallel
 * from a binary or Matrix Market file (each rank its share).  Not agreed. */
static clcg_status load_rows(MPI_Comm comm, const clcg_options *o, clcg_problem *p,
                             int64_t *row_begin, clcg_gidx **gcol)
{
    int rank, size, binary = 0;
    clcg_dist_info info;
    clcg_status st;
    double t0 = MPI_Wtime();

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (o->generate) {
        st = load_generated(o, rank, size, p, row_begin, gcol);
        p->t_read = MPI_Wtime() - t0;
        p->max_held = p->A.nnz;
        return st;
    }
    snprintf(p->name, sizeof p->name, "%s", o->matrix);
    CLCG_CALL(clcg_dist_probe_binary(comm, o->matrix, &binary));
    if (binary) {
        st = clcg_dist_read_binary(comm, o->matrix, o->symmetry_check, row_begin, &p->A, gcol, &info);
        st = clcg_agree(comm, st, NULL);
        if (st == CLCG_OK && o->symmetry_check && !info.unchecked) {   /* part of the read */
            const double t1 = MPI_Wtime();
            st = check_symmetric_mark(comm, o->matrix, &p->A, *gcol);
            info.t_read += MPI_Wtime() - t1;
        }
    } else
        st = clcg_dist_read_mm(comm, o->matrix, o->symmetry_check, row_begin, &p->A, gcol, &info);
    p->t_read = info.t_read;
    p->t_partition = info.t_exchange;
    p->max_held = info.held;
    p->unchecked = info.unchecked;
    return st;
}

/* y = A*x over rows [lo, hi): the reference SpMV on that slice of the rows. */
typedef struct {
    const clcg_csr *A;
    const double *x;
    double *y;
} spmv_job;

static void spmv_rows(void *arg, int64_t lo, int64_t hi)
{
    const spmv_job *j = arg;
    clcg_csr s = *j->A;
    s.rowptr += lo;
    s.nrows = hi - lo;
    clcg_spmv_ref(&s, j->x, j->y + lo);
}

/* Rank 0's whole vector full[n] and each rank's rows mine[nrows], one way or the other
 * (to_root: gathered, else scattered): a message a rank in rank order, whose count (a rank's
 * rows, below 2^31 - 1) fits an int where displacements into n rows of 2^31 or more would
 * not.  Collective; every rank returns the same status. */
#define MOVE_TAG 7301   /* a tag of its own: no other message of the run can match */

static clcg_status move_rows(MPI_Comm comm, const clcg_problem *p, double *full, double *mine, int to_root,
                             const char *what)
{
    int rank, size, ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int64_t *rb = p->halo.row_begin;
    if (rank == 0) {
        if (to_root)
            memcpy(full, mine, (size_t)p->A.nrows * sizeof *full);
        else
            memcpy(mine, full, (size_t)p->A.nrows * sizeof *full);
        for (int r = 1; r < size; r++) {   /* every rank's, after a failure too: none is left waiting */
            const int count = (int)(rb[r + 1] - rb[r]);
            if ((to_root ? MPI_Recv(full + rb[r], count, MPI_DOUBLE, r, MOVE_TAG, comm, MPI_STATUS_IGNORE)
                         : MPI_Send(full + rb[r], count, MPI_DOUBLE, r, MOVE_TAG, comm)) != MPI_SUCCESS)
                ok = 0;
        }
    } else {
        const int count = (int)p->A.nrows;
        ok = (to_root ? MPI_Send(mine, count, MPI_DOUBLE, 0, MOVE_TAG, comm)
                      : MPI_Recv(mine, count, MPI_DOUBLE, 0, MOVE_TAG, comm, MPI_STATUS_IGNORE)) == MPI_SUCCESS;
    }
    return clcg_agree(comm, ok ? CLCG_OK : clcg_error(CLCG_ERR_MPI, "moving %s between the ranks failed", what), NULL);
}

/* b from --rhs: rank 0 reads the vector and sends each rank its rows. */
static clcg_status read_rhs(MPI_Comm comm, const char *path, clcg_problem *p)
{
    int rank;
    double *bfull = NULL;
    clcg_status st = CLCG_OK;

    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        st = clcg_mm_read_vector(path, p->A.n, &bfull);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = move_rows(comm, p, bfull, p->b, 0, "the right-hand side");
out:
    free(bfull);
    return st;
}

/* Entries whose largest magnitude lies in [2^-RANGE, 2^RANGE] are solved as they are; with
 * n < 2^63 rows and condition numbers below 2^53, no sum of squares in CG then leaves double
 * range before the residual reaches 1e-14. */
#define RANGE 200

/* The power of two that brings the largest |v[i]| over all ranks into [0.5, 1), where it
 * lies outside [2^-RANGE, 2^RANGE] (0 otherwise, and for all zeros; the readers refuse values
 * that are not finite).  Collective. */
#define MAX_PIECES 64

typedef struct {
    const double *v;
    int64_t n;
    double m[MAX_PIECES];
} absmax_job;

static void absmax_pieces(void *arg, int64_t lo, int64_t hi)
{
    absmax_job *j = arg;
    for (int64_t c = lo; c < hi; c++) {
        double m = 0.0;
        for (int64_t i = j->n * c / MAX_PIECES; i < j->n * (c + 1) / MAX_PIECES; i++)
            m = fabs(j->v[i]) > m ? fabs(j->v[i]) : m;
        j->m[c] = m;
    }
}

static int range_exponent(MPI_Comm comm, const double *v, int64_t n)
{
    absmax_job j = {v, n, {0}};
    double m = 0.0;
    int e = 0;
    clcg_parallel_for(MAX_PIECES, absmax_pieces, &j);
    for (int c = 0; c < MAX_PIECES; c++)
        m = j.m[c] > m ? j.m[c] : m;
    MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (m == 0.0 || !isfinite(m) || (m >= ldexp(1.0, -RANGE) && m <= ldexp(1.0, RANGE)))
        return 0;
    frexp(m, &e);
    return -e;
}

static void scale_by(double *v, int64_t n, int e)
{
    for (int64_t i = 0; e && i < n; i++)
        v[i] = ldexp(v[i], e);
}

/* Whether scaling A by 2^e (e < 0) would take a nonzero entry below the normal range.
 * Collective. */
static int loses_digits(MPI_Comm comm, const clcg_csr *A, int e)
{
    int lost = 0;
    for (int64_t k = 0; e < 0 && k < A->nnz && !lost; k++)
        lost = A->val[k] != 0.0 && fabs(ldexp(A->val[k], e)) < DBL_MIN;
    MPI_Allreduce(MPI_IN_PLACE, &lost, 1, MPI_INT, MPI_MAX, comm);
    return lost;
}

/* Scaling A down (e < 0) keeps every entry exact unless one falls below 2^-1022, where it
 * loses bits or vanishes: such a matrix spans more than double precision holds (an entry of
 * 1e-300 beside one of 1e300 would become 0, and the solve would answer another matrix).
 * Before the scaling.  Collective. */
static clcg_status check_scaling(MPI_Comm comm, const char *name, const clcg_csr *A, int e)
{
    clcg_status st = CLCG_OK;
    char sv[32];
    for (int64_t i = 0; e < 0 && i < A->nrows && st == CLCG_OK; i++)
        for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
            if (A->val[k] != 0.0 && fabs(ldexp(A->val[k], e)) < DBL_MIN) {
                st = clcg_error(CLCG_ERR_INPUT, "%s: the entries span more than the solve can hold in double "
                                "precision: the largest must be scaled by 2^%d to keep the solve's sums in range, "
                                "and an entry of row %lld, %s, would then lose its digits (scale the rows and "
                                "columns alike, D A D, to bring them closer)", name, e,
                                (long long)(A->row0 + i + 1), clcg_show_double(A->val[k], sv));
                break;
            }
    return clcg_agree(comm, st, NULL);
}

typedef struct {
    const clcg_csr *A;
    int e;                     /* the scaling of A to come */
    int64_t bad[MAX_PIECES];   /* 1 + the first row whose 1/a_ii overflows, or 0 */
} diag_job;

static void diag_pieces(void *arg, int64_t lo, int64_t hi)
{
    diag_job *j = arg;
    const clcg_csr *A = j->A;
    for (int64_t c = lo; c < hi; c++) {
        j->bad[c] = 0;
        for (int64_t i = A->nrows * c / MAX_PIECES; i < A->nrows * (c + 1) / MAX_PIECES && !j->bad[c]; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] == i && !isfinite(1.0 / ldexp(A->val[k], j->e)))
                    j->bad[c] = i + 1;
    }
}

/* Jacobi divides by the diagonal: one so small that its inverse overflows (a subnormal below
 * 2^-1024) once A is scaled by 2^exp_a is refused as input rather than turning the iteration
 * into Inf and NaN.  Before the scaling, so that the message shows the value given.
 * Collective. */
static clcg_status check_jacobi(MPI_Comm comm, const char *name, const clcg_csr *A, int exp_a)
{
    diag_job j = {A, exp_a, {0}};
    clcg_status st = CLCG_OK;
    char sd[32];
    clcg_parallel_for(MAX_PIECES, diag_pieces, &j);
    for (int c = 0; c < MAX_PIECES && st == CLCG_OK; c++)
        if (j.bad[c]) {
            const int64_t i = j.bad[c] - 1;
            double d = 0.0;
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
                if (A->colind[k] == i)
                    d = A->val[k];
            st = clcg_error(CLCG_ERR_INPUT, "%s: diagonal entry A(%lld,%lld) = %s, %s: Jacobi cannot divide by it "
                            "(--precond none does without)", name, (long long)(A->row0 + i + 1),
                            (long long)(A->row0 + i + 1), clcg_show_double(d, sd),
                            exp_a ? "too small beside the largest entry" : "its inverse overflows");
        }
    return clcg_agree(comm, st, NULL);
}

clcg_status clcg_problem_unscale(MPI_Comm comm, clcg_problem *p, double rtol, clcg_solve_result *res)
{
    clcg_status st = CLCG_OK;
    const int e = p->exp_x;
    int64_t lost = 0;   /* 1 + the first entry that lost bits below the normal range */
    if (!e)
        return CLCG_OK;
    for (int64_t i = 0; i < p->A.nrows && st == CLCG_OK; i++) {
        const double y = p->x[i];
        if (isfinite(y) && !isfinite(p->x[i] = ldexp(y, e)))   /* a NaN of a breakdown stays one */
            st = clcg_error(CLCG_ERR_INPUT, "%s: the solution lies beyond double precision (entry %lld "
                            "overflows): scale the system", p->name, (long long)(p->A.row0 + i + 1));
        else if (isfinite(y) && !lost && ldexp(p->x[i], -e) != y)
            lost = i + 1;
    }
    CLCG_CALL(clcg_agree(comm, st, NULL));
    /* Entries that fell below the normal range kept fewer bits, or none: the true residual
     * is that of x as written (taken back to the scaled system, exactly), and a solve that
     * x as written no longer meets may be refused rather than written (below). */
    int64_t first = lost ? p->A.row0 + lost : INT64_MAX;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT64_T, MPI_MIN, comm);
    if (first == INT64_MAX)
        return CLCG_OK;
    double *y = NULL, rel = 0.0;
    st = clcg_malloc(&y, (size_t)p->A.ncols + 1, sizeof *y, "solution check");
    for (int64_t i = 0; st == CLCG_OK && i < p->A.nrows; i++)
        y[i] = ldexp(p->x[i], -e);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_agree(comm, clcg_true_residual(&p->A, &p->halo, p->b, y, &rel), NULL), out);
    /* refused: a converged solve that x as written no longer meets, unless only by what
     * double precision holds anyway (then, as for any true residual at that limit: converged,
     * above --rtol), nor by a factor of more than 2 over --rtol and over where it had stopped;
     * every rank decides alike (rel and res come from reductions), and all take part in the
     * agreement.  Kept, it is converged as far as x as written goes: above --rtol, at the limit. */
    const double before = res->true_residual;
    const int refuse = res->outcome == CLCG_CONVERGED && !(rel <= 2.0 * rtol) && !(rel <= CLCG_LIMIT_REL) &&
                       !(rel <= 2.0 * before);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (refuse && rank == 0)   /* rank 0's message, every rank's status */
        st = clcg_error(CLCG_ERR_INPUT, "%s: the solution lies below double precision (entry %lld underflows, and "
                        "x as written has a true residual of %.3e): scale the system", p->name, (long long)first, rel);
    st = clcg_agree(comm, st, NULL);
    if (st == CLCG_OK) {
        res->true_residual = rel;
        if (res->outcome == CLCG_CONVERGED && !(rel <= rtol))
            res->at_limit = 1;
    }
out:
    free(y);
    return st;
}

/* The default right-hand side b = A*1 (as any SpMV forms it), where A*1 is so small that the
 * matrix is singular to double precision.  A*1 is taken here with each row's sum carried in
 * twice the working precision: that of the values read, not the error of adding them up
 * (in plain double, len_i eps sum_j |a_ij| at worst).  With D = diag(A) and v = D^1/2 1,
 * Ahat = D^-1/2 A D^-1/2 has Ahat v = D^-1/2 A*1 and a largest eigenvalue of at least 1 (its
 * diagonal), so cond_2(Ahat) >= ||v|| / ||D^-1/2 A*1||: where every |b_i| <= 64 eps a_ii
 * (sum b_i^2/a_ii <= (64 eps)^2 sum a_ii), that bound passes 1/(64 eps), the rule the solve's
 * verdicts take too, and it is taken on Ahat so that a matrix only badly scaled is never
 * called singular.  A Laplacian without a boundary condition is such a matrix: its rows sum
 * to zero up to the rounding of values read from decimals (u sum_j |a_ij| = 2u a_ii), and
 * b = A*1 would be noise, which CG would "converge" to.
 * The same within a block of rows: rows with no entry outside the block (a connected part
 * of A's graph) whose |b_i| are all at most 64 eps a_ii make A singular as well, by the
 * same bound on that block (its eigenvalues are A's), 1 on the block and 0 elsewhere being
 * nearly a null vector (a Laplacian block without a boundary condition beside others with
 * one).  From the rows past that bound each rank follows its own entries; then the rows
 * reached go to the ranks that hold them as ghosts, which follow on from there, round after
 * round, until no rank reaches more.  A row none of them reaches is in such a block.  (After
 * CHECK_ROUNDS rounds, rare orderings whose paths cross ranks at nearly every step, the test
 * gives up without a verdict.)  Blocks only with h, where the pattern is symmetric: the rows
 * are followed through their columns, across ranks the other way.  Collective. */
#define CHECK_ROUNDS 64
static clcg_status check_ones(MPI_Comm comm, const char *name, const clcg_csr *A, clcg_halo *h,
                              const double *ones)
{
    const int64_t n = A->nrows;
    int32_t *queue = NULL;
    double *seen = NULL;   /* 1 reached, 0 not, over the columns (ghosts from their owners) */
    double *b = NULL;      /* A*1, each row's sum in twice the working precision */
    clcg_status st = clcg_malloc(&queue, (size_t)n + 1, sizeof *queue, "row queue");
    if (st == CLCG_OK)
        st = clcg_calloc(&seen, (size_t)A->ncols + 1, sizeof *seen, "row marks");
    if (st == CLCG_OK)
        st = clcg_calloc(&b, (size_t)n + 1, sizeof *b, "the row sums");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    clcg_residual_rows(A, ones, b, b);   /* 0 - A*1 */
    int64_t head = 0, tail = 0, more = 1;
    const double tau = 1.0 / CLCG_COND_SINGULAR;   /* 64 eps */
    double s[2] = {0.0, 0.0};   /* sum b_i^2 / a_ii, sum a_ii */
    for (int64_t i = 0; i < n; i++) {
        const double d = clcg_diag_of(A, i);   /* positive: checked as the matrix was read */
        const double q = d > 0.0 ? b[i] / sqrt(d) : 0.0;   /* (b_i^2 itself may underflow; the sign of
                                                                 0 - A*1 is of no matter) */
        s[0] += q * q;
        s[1] += d > 0.0 ? d : 0.0;
        if (!(fabs(b[i]) <= tau * d)) {   /* a seed: its sum is past the bound */
            seen[i] = 1.0;
            queue[tail++] = (int32_t)i;
        }
    }
    if (MPI_Allreduce(MPI_IN_PLACE, s, 2, MPI_DOUBLE, MPI_SUM, comm) != MPI_SUCCESS)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the row sums failed");
    else if (s[1] > 0.0 && s[0] <= tau * tau * s[1])
        st = clcg_error(CLCG_ERR_NOT_SPD, "%s: the matrix is singular to double precision: its rows sum to zero "
                        "within rounding (A*1 gives cond(D^-1/2 A D^-1/2) >= %.3e, past 1/(64 eps) = %.1e), as a "
                        "Laplacian's do without a boundary condition; A*1, the right-hand side when --rhs is not "
                        "given, is only noise", name, s[0] > 0.0 ? sqrt(s[1] / s[0]) : INFINITY, 1.0 / tau);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (!h)
        goto out;
    for (int round = 0; more && round < CHECK_ROUNDS; round++) {
        const int64_t before = tail;
        if (round > 0) {   /* rows reached through a ghost reached on its own rank */
            CLCG_CHECK(st, clcg_agree(comm, clcg_halo_exchange_plain(h, seen), NULL), out);
            for (int64_t i = 0; i < n; i++)
                for (int64_t k = A->rowptr[i]; !seen[i] && k < A->rowptr[i + 1]; k++)
                    if (A->colind[k] >= n && seen[A->colind[k]] != 0.0) {
                        seen[i] = 1.0;
                        queue[tail++] = (int32_t)i;
                    }
        }
        while (head < tail) {
            const int32_t i = queue[head++];
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const int32_t j = A->colind[k];
                if (j < n && seen[j] == 0.0) {
                    seen[j] = 1.0;
                    queue[tail++] = j;
                }
            }
        }
        more = tail > before || round == 0;   /* round 0 reached from the seeds alone */
        if (MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
            st = clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the rows reached failed");
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    }
    int64_t left[2] = {n - tail, INT64_MAX};   /* rows not reached, the first of them (global, 1-based) */
    for (int64_t i = 0; left[0] > 0 && i < n; i++)
        if (seen[i] == 0.0) {
            left[1] = -(A->row0 + i + 1);   /* (the largest of -row is the first row) */
            break;
        }
    if (left[0] == 0)
        left[1] = INT64_MIN;
    const int e1 = MPI_Allreduce(MPI_IN_PLACE, &left[0], 1, MPI_INT64_T, MPI_SUM, comm);
    const int e2 = MPI_Allreduce(MPI_IN_PLACE, &left[1], 1, MPI_INT64_T, MPI_MAX, comm);
    if (e1 != MPI_SUCCESS || e2 != MPI_SUCCESS)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the rows reached failed");
    else if (!more && left[0] > 0)
        st = clcg_error(CLCG_ERR_NOT_SPD, "%s: the matrix is singular to double precision: %" PRId64 " of its rows "
                        "(row %" PRId64 " among them) have no entry outside them and sum to zero within rounding, "
                        "as a Laplacian's rows do without a boundary condition; A*1, the right-hand side when "
                        "--rhs is not given, is only noise there", name, left[0], -left[1]);
    st = clcg_agree(comm, st, NULL);
out:
    free(queue);
    free(seen);
    free(b);
    return st;
}

clcg_status clcg_problem_load(MPI_Comm comm, const clcg_options *o, clcg_problem *p)
{
    int rank, size;
    int64_t *row_begin = NULL;
    clcg_gidx *gcol = NULL;
    double *ones = NULL;
    clcg_status st = CLCG_OK;
    double t0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(p, 0, sizeof *p);
    CLCG_CHECK(st, clcg_malloc(&row_begin, (size_t)size + 1, sizeof *row_begin, "partition"), out);
    st = load_rows(comm, o, p, row_begin, &gcol);
    if (st == CLCG_OK)
        st = clcg_fault_point(rank, "load");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);

    t0 = MPI_Wtime();
    st = clcg_halo_setup(comm, o->exchange, row_begin, gcol, &p->A, &p->halo);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_agree(comm, clcg_halo_shm_setup(&p->halo), NULL), out);
    free(gcol);
    gcol = NULL;
    p->nnz = p->A.nnz;
    MPI_Allreduce(MPI_IN_PLACE, &p->nnz, 1, MPI_INT64_T, MPI_SUM, comm);

    /* values far from 1 (whose b'b, p'Ap or residuals would overflow or underflow) by a
     * power of two first: exact, the same iterates up to that factor */
    p->exp_a = range_exponent(comm, p->A.val, p->A.nnz);
    if (p->exp_a < 0 && loses_digits(comm, &p->A, p->exp_a) && !loses_digits(comm, &p->A, p->exp_a + RANGE))
        p->exp_a += RANGE;   /* the largest to the top of the range instead of near 1: the smallest keep theirs */
    CLCG_CHECK(st, check_scaling(comm, p->name, &p->A, p->exp_a), out);
    if (o->precond == CLCG_PRECOND_JACOBI)
        CLCG_CHECK(st, check_jacobi(comm, p->name, &p->A, p->exp_a), out);
    scale_by(p->A.val, p->A.nnz, p->exp_a);

    /* b: from --rhs, else A*1 (the exact solution is then known) */
    st = clcg_malloc(&p->b, (size_t)p->A.nrows + 1, sizeof *p->b, "right-hand side");
    if (st == CLCG_OK)
        st = clcg_calloc(&p->x, (size_t)p->A.ncols + 1, sizeof *p->x, "solution");
    if (st == CLCG_OK && !o->rhs)
        st = clcg_malloc(&ones, (size_t)p->A.ncols + 1, sizeof *ones, "vector of ones");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (o->rhs) {
        CLCG_CHECK(st, read_rhs(comm, o->rhs, p), out);
    } else {
        spmv_job j = {&p->A, ones, p->b};
        for (int64_t i = 0; i < p->A.ncols; i++)
            ones[i] = 1.0;
        clcg_parallel_for(p->A.nrows, spmv_rows, &j);   /* rows apart: the same sums */
        p->known_solution = 1;
        CLCG_CHECK(st, check_ones(comm, p->name, &p->A, p->unchecked ? NULL : &p->halo, ones), out);
    }
    p->exp_b = range_exponent(comm, p->b, p->A.nrows);
    scale_by(p->b, p->A.nrows, p->exp_b);
    /* 2^ea A y = 2^eb b gives x = 2^(ea - eb) y; with b = (2^ea A) 1 scaled, y = 2^eb 1 */
    p->exp_x = (o->rhs ? p->exp_a : 0) - p->exp_b;
    p->t_setup = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &p->t_read, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &p->t_partition, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &p->t_setup, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &p->max_held, 1, MPI_INT64_T, MPI_MAX, comm);
out:
    free(row_begin);
    free(gcol);
    free(ones);
    return st;
}

clcg_status clcg_problem_write_binary(MPI_Comm comm, const clcg_options *o, clcg_held *held, int64_t *n,
                                      int64_t *nnz)
{
    int size;
    int64_t *row_begin = NULL;
    clcg_gidx *gcol = NULL;
    clcg_problem p;
    clcg_status st = CLCG_OK;

    MPI_Comm_size(comm, &size);
    memset(&p, 0, sizeof p);
    st = clcg_malloc(&row_begin, (size_t)size + 1, sizeof *row_begin, "partition");
    if (st == CLCG_OK)
        st = load_rows(comm, o, &p, row_begin, &gcol);
    if (st == CLCG_OK && !gcol) {   /* one rank, read from a binary file: columns in colind */
        st = clcg_malloc(&gcol, (size_t)p.A.nnz + 1, sizeof *gcol, "global column indices");
        for (int64_t k = 0; st == CLCG_OK && k < p.A.nnz; k++)
            gcol[k] = p.A.colind[k];
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_dist_write_binary(comm, o->write_binary, row_begin, &p.A, gcol, !p.unchecked, held), out);
    *n = p.A.n;
    *nnz = p.A.nnz;
    MPI_Allreduce(MPI_IN_PLACE, nnz, 1, MPI_INT64_T, MPI_SUM, comm);
out:
    free(row_begin);
    free(gcol);
    clcg_problem_free(&p);
    return st;
}

void clcg_problem_free(clcg_problem *p)
{
    clcg_csr_free(&p->A);
    clcg_halo_free(&p->halo);
    free(p->b);
    free(p->x);
    memset(p, 0, sizeof *p);
}

clcg_status clcg_problem_write_solution(MPI_Comm comm, const clcg_problem *p, const char *path, clcg_held *held)
{
    int rank;
    double *x = NULL;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        st = clcg_malloc(&x, (size_t)p->A.n + 1, sizeof *x, "solution");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (rank != 0)
        clcg_tmp_expect(path);
    CLCG_CHECK(st, move_rows(comm, p, x, p->x, 1, "the solution"), out);
    if (rank == 0)
        st = clcg_mm_write_vector_held(path, x, p->A.n, held);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    free(x);
    return st;
}
