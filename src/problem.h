/* The linear system as this rank holds it: its rows of A, the halo plan, b and x. */
#ifndef CLCG_PROBLEM_H
#define CLCG_PROBLEM_H

#include "mm.h"
#include "options.h"

typedef struct {
    clcg_csr A;            /* my rows, local columns (ghosts after the owned rows) */
    clcg_halo halo;
    double *b;             /* nrows */
    double *x;             /* ncols (room for ghosts) */
    int known_solution;    /* b = A*1, so the exact solution is all ones */
    int64_t nnz;           /* global nonzeros */
    char name[512];
    double t_read;         /* seconds reading and parsing, max over ranks */
    double t_partition;    /* seconds moving entries to their owners, assembling, checking */
    double t_setup;        /* seconds for the halo plan and b */
    int64_t max_held;      /* most matrix entries one rank held at once while loading */
    int unchecked;         /* the symmetry of the values was never checked (--no-symmetry-check) */
    int exp_a, exp_b;      /* A as held is 2^exp_a times the input's, b 2^exp_b times the
                            * given one or 2^(exp_a + exp_b) times A*1 (clcg_problem_load) */
    int exp_x;             /* the solution of the system as given is 2^exp_x times the held one's */
} clcg_problem;

clcg_status clcg_problem_load(MPI_Comm comm, const clcg_options *o, clcg_problem *p);
void clcg_problem_free(clcg_problem *p);

/* After a solve of the scaled system: x = 2^exp_x y, the solution of the system as given.  An
 * error (on all ranks) when it lies beyond double precision, or when entries below its normal
 * range lose so many bits that x as written is off by more than twice rtol and twice where the
 * solve stopped (res converged; above rtol otherwise, or under CLCG_LIMIT_REL: converged at the
 * limit); otherwise, where bits were lost,
 * res->true_residual becomes that of x as written.  Collective. */
clcg_status clcg_problem_unscale(MPI_Comm comm, clcg_problem *p, double rtol, clcg_solve_result *res);

/* Load my rows as clcg_problem_load does, then write the whole matrix as one binary
 * file (o->write_binary) in parallel, left on rank 0 in held for clcg_held_commit.  *n,
 * *nnz: its size.  Collective. */
clcg_status clcg_problem_write_binary(MPI_Comm comm, const clcg_options *o, clcg_held *held, int64_t *n,
                                      int64_t *nnz);

/* Split rows 0..n-1 into size contiguous blocks of about equal nonzeros; row_nnz(i, ctx). */
void clcg_partition_by_nnz(int64_t n, int size, int64_t (*row_nnz)(int64_t, const void *),
                           const void *ctx, int64_t *row_begin);

/* Gather the solution in global order and write it from rank 0 (tmp file + rename; with
 * held != NULL, rank 0's rename is left to clcg_held_commit). */
clcg_status clcg_problem_write_solution(MPI_Comm comm, const clcg_problem *p, const char *path, clcg_held *held);

#endif
