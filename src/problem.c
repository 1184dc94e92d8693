/* Load the system: generate my rows, or read a Matrix Market file; partition rows by
 * nonzeros, build the halo plan, and set b (file, or A*1) and x = 0. */
#include "problem.h"
#include "mm.h"
#include "csr.h"

#include <stdlib.h>
#include <string.h>

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

static int64_t gen_nnz(int64_t i, const void *ctx)
{
    return clcg_gen_row_nnz((const clcg_gen *)ctx, i);
}

static int64_t csr_nnz(int64_t i, const void *ctx)
{
    const clcg_csr *a = ctx;
    return a->rowptr[i + 1] - a->rowptr[i];
}

/* Rows [row0,row1) of A as this rank's block, with global columns in *gcol. */
static clcg_status take_rows(const clcg_csr *full, int64_t row0, int64_t row1, clcg_csr *A,
                             clcg_gidx **gcol)
{
    int64_t nnz = full->rowptr[row1] - full->rowptr[row0];
    memset(A, 0, sizeof *A);
    A->n = full->n;
    A->row0 = row0;
    A->nrows = row1 - row0;
    A->nnz = nnz;
    CLCG_CALL(clcg_malloc(&A->rowptr, (size_t)A->nrows + 1, sizeof *A->rowptr, "row pointers"));
    CLCG_CALL(clcg_malloc(&A->colind, (size_t)nnz, sizeof *A->colind, "column indices"));
    CLCG_CALL(clcg_malloc(&A->val, (size_t)nnz, sizeof *A->val, "matrix values"));
    CLCG_CALL(clcg_malloc(gcol, (size_t)nnz, sizeof **gcol, "global column indices"));
    for (int64_t i = 0; i <= A->nrows; i++)
        A->rowptr[i] = full->rowptr[row0 + i] - full->rowptr[row0];
    for (int64_t k = 0; k < nnz; k++) {
        (*gcol)[k] = full->colind[full->rowptr[row0] + k];
        A->val[k] = full->val[full->rowptr[row0] + k];
    }
    return CLCG_OK;
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
    clcg_partition_by_nnz(g.n, size, gen_nnz, &g, row_begin);
    A->n = g.n;
    A->row0 = row_begin[rank];
    A->nrows = row_begin[rank + 1] - row_begin[rank];
    CLCG_CHECK(st, clcg_gen_rows(&g, A->row0, A->nrows, &t), out);
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

/* Whole file read by every rank, rows kept by partition (to be replaced by byte-range reading). */
static clcg_status load_file(const clcg_options *o, int rank, int size, clcg_problem *p,
                             int64_t *row_begin, clcg_gidx **gcol)
{
    clcg_mm_header h;
    clcg_coo t = {0};
    clcg_csr full = {0};
    clcg_status st = CLCG_OK;
    snprintf(p->name, sizeof p->name, "%s", o->matrix);
    CLCG_CHECK(st, clcg_mm_read_matrix(o->matrix, &h, &t), out);
    CLCG_CHECK(st, clcg_csr_from_coo(o->matrix, &t, o->symmetry_check, &full), out);
    clcg_coo_free(&t);
    clcg_partition_by_nnz(full.n, size, csr_nnz, &full, row_begin);
    CLCG_CHECK(st, take_rows(&full, row_begin[rank], row_begin[rank + 1], &p->A, gcol), out);
out:
    clcg_coo_free(&t);
    clcg_csr_free(&full);
    return st;
}

clcg_status clcg_problem_load(MPI_Comm comm, const clcg_options *o, clcg_problem *p)
{
    int rank, size;
    int64_t *row_begin = NULL;
    clcg_gidx *gcol = NULL;
    double *ones = NULL, *bfull = NULL;
    clcg_status st = CLCG_OK;
    double t0 = MPI_Wtime();

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(p, 0, sizeof *p);
    CLCG_CHECK(st, clcg_malloc(&row_begin, (size_t)size + 1, sizeof *row_begin, "partition"), out);
    if (o->generate)
        st = load_generated(o, rank, size, p, row_begin, &gcol);
    else
        st = load_file(o, rank, size, p, row_begin, &gcol);
    if (st == CLCG_OK)
        st = clcg_fault_point(rank, "load");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    p->t_read = MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    st = clcg_halo_setup(comm, o->exchange, row_begin, gcol, &p->A, &p->halo);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    free(gcol);
    gcol = NULL;
    p->nnz = p->A.nnz;
    MPI_Allreduce(MPI_IN_PLACE, &p->nnz, 1, MPI_INT64_T, MPI_SUM, comm);

    /* b: from --rhs, else A*1 (the exact solution is then known) */
    CLCG_CHECK(st, clcg_malloc(&p->b, (size_t)p->A.nrows + 1, sizeof *p->b, "right-hand side"), out);
    CLCG_CHECK(st, clcg_calloc(&p->x, (size_t)p->A.ncols + 1, sizeof *p->x, "solution"), out);
    if (o->rhs) {
        st = clcg_mm_read_vector(o->rhs, p->A.n, &bfull);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
        memcpy(p->b, bfull + p->A.row0, (size_t)p->A.nrows * sizeof *p->b);
    } else {
        CLCG_CHECK(st, clcg_malloc(&ones, (size_t)p->A.ncols + 1, sizeof *ones, "vector of ones"), out);
        for (int64_t i = 0; i < p->A.ncols; i++)
            ones[i] = 1.0;
        clcg_spmv_ref(&p->A, ones, p->b);
        p->known_solution = 1;
    }
    p->t_setup = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &p->t_read, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Allreduce(MPI_IN_PLACE, &p->t_setup, 1, MPI_DOUBLE, MPI_MAX, comm);
out:
    free(row_begin);
    free(gcol);
    free(ones);
    free(bfull);
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

clcg_status clcg_problem_write_solution(MPI_Comm comm, const clcg_problem *p, const char *path)
{
    int rank, size;
    int *counts = NULL, *displs = NULL;
    double *x = NULL;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        st = clcg_malloc(&counts, (size_t)size, sizeof *counts, "gather counts");
        if (st == CLCG_OK)
            st = clcg_malloc(&displs, (size_t)size, sizeof *displs, "gather displacements");
        if (st == CLCG_OK)
            st = clcg_malloc(&x, (size_t)p->A.n, sizeof *x, "solution");
        if (st == CLCG_OK)
            for (int r = 0; r < size; r++) {
                counts[r] = (int)(p->halo.row_begin[r + 1] - p->halo.row_begin[r]);
                displs[r] = (int)p->halo.row_begin[r];
            }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (MPI_Gatherv(p->x, (int)p->A.nrows, MPI_DOUBLE, x, counts, displs, MPI_DOUBLE, 0, comm) != MPI_SUCCESS) {
        st = clcg_error(CLCG_ERR_MPI, "MPI_Gatherv of the solution failed");
        goto out;
    }
    if (rank == 0)
        st = clcg_mm_write_vector(path, x, p->A.n);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    free(counts);
    free(displs);
    free(x);
    return st;
}
