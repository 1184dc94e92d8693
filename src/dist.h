/* Distributed input: each rank reads a share of the matrix file and ends up with its own
 * rows only.  No rank ever holds the whole matrix.
 *
 * Both readers return what clcg_halo_setup needs: row_begin[size+1] (the partition,
 * balanced by nonzeros), and in A the rows [A->row0, A->row0 + A->nrows) as CSR with
 * A->rowptr, A->val and A->nnz set, their global column indices in *gcol (ascending
 * within a row, duplicates summed); A->colind is allocated (nnz) for clcg_halo_setup to
 * fill, A->ghost stays NULL.  On one rank the binary reader may instead leave *gcol NULL
 * with the columns already in A->colind (global = local there).  Collective over
 * comm; on failure every rank returns the same status and message (clcg_agree), and
 * A and *gcol are left empty. */
#ifndef CLCG_DIST_H
#define CLCG_DIST_H

#include "clcg_impl.h"
#include "mm.h"

typedef struct {
    double t_read;        /* seconds reading and parsing (this rank) */
    double t_exchange;    /* seconds moving entries, partitioning, assembling, checking */
    int64_t held;         /* most matrix entries this rank held in one array at a time */
    int unchecked;        /* the values' symmetry was never checked (a general file read
                             without the check, or a binary file so marked) */
} clcg_dist_info;

/* Matrix Market file (plain or gzip).  Plain coordinate files: each rank parses an equal
 * byte range; gzip: rank 0 inflates a chunk at a time and scatters line-aligned pieces;
 * array files (dense, small): rank 0 reads them.  The checks of clcg_csr_from_coo hold,
 * with its messages: symmetry of a general file (check_symmetry), no empty row,
 * positive diagonal. */
clcg_status clcg_dist_read_mm(MPI_Comm comm, const char *path, int check_symmetry,
                              int64_t *row_begin, clcg_csr *A, clcg_gidx **gcol,
                              clcg_dist_info *info);

/* Binary matrix (see binary_io.c for the format), read with MPI-IO: each rank reads only
 * its rows and verifies the checksums of what it reads. */
clcg_status clcg_dist_read_binary(MPI_Comm comm, const char *path, int check_symmetry, int64_t *row_begin,
                                  clcg_csr *A, clcg_gidx **gcol, clcg_dist_info *info);

/* Write the distributed rows (global columns gcol) as one binary file with collective
 * MPI-IO, to PATH.tmp.PID renamed to PATH when complete (with held != NULL, rank 0 leaves
 * the rename to clcg_held_commit); checked = 0 marks a matrix whose symmetry was never
 * checked (readers then want --no-symmetry-check). */
clcg_status clcg_dist_write_binary(MPI_Comm comm, const char *path, const int64_t *row_begin,
                                   const clcg_csr *A, const clcg_gidx *gcol, int checked, clcg_held *held);

/* Collective: *is_binary = 1 when the file at path starts with the binary magic. */
clcg_status clcg_dist_probe_binary(MPI_Comm comm, const char *path, int *is_binary);

/* The partition of clcg_partition_by_nnz computed from distributed row counts: this rank
 * gives the nonzeros of rows [row0, row0+nrows) (consecutive blocks in rank order);
 * every rank gets the same row_begin[size+1].  Collective. */
clcg_status clcg_partition_by_nnz_dist(MPI_Comm comm, int64_t n, int64_t row0, int64_t nrows,
                                       const int64_t *row_nnz, int64_t *row_begin);

/* The first row of rank r in an even split of n rows over size ranks. */
int64_t clcg_block_begin(int64_t n, int size, int r);

/* The checks a CG matrix needs on rows [row0, row0+nrows) with sorted global columns (gcol,
 * or when it is NULL the 32-bit col32): no empty row, a positive diagonal; CLCG_ERR_NOT_SPD
 * naming the first bad row.  Local. */
clcg_status clcg_dist_check_rows(const char *path, int64_t row0, int64_t nrows,
                                 const int64_t *rowptr, const clcg_gidx *gcol, const int32_t *col32,
                                 const double *val);

#endif
