/* Internal structures shared by the host code: halo plan, solver options and results. */
#ifndef CLCG_IMPL_H
#define CLCG_IMPL_H

#include "clcg.h"

#include <float.h>

#include <math.h>

/* ---- communication plan for the ghost entries of p (built once) ---- */
typedef enum { CLCG_EXCHANGE_ALLGATHER = 0, CLCG_EXCHANGE_NEEDED, CLCG_EXCHANGE_NEIGHBOR } clcg_exchange;

typedef struct {
    MPI_Comm comm;
    int rank, size;
    clcg_exchange mode;
    int64_t n;            /* global size */
    int64_t nrows;        /* owned rows here */
    int64_t nghost;       /* ghosts stored after the owned rows */
    int64_t *row_begin;   /* size+1: rows [row_begin[r], row_begin[r+1]) belong to rank r */
    /* neighbour mode: what I send to whom, and where what I receive goes */
    int nsend, nrecv;
    int *send_rank, *recv_rank;
    int64_t *send_ptr;    /* nsend+1 offsets into send_idx */
    int32_t *send_idx;    /* local (owned) indices to pack */
    int64_t *recv_ptr;    /* nrecv+1 offsets into the ghost block */
    double *send_buf;
    MPI_Request *req;     /* nsend + nrecv, preallocated */
    /* needed mode: the union of my entries anyone needs, gathered from all ranks */
    int64_t nexport;      /* my packed count */
    int32_t *export_idx;  /* local indices of the exported entries */
    int *gather_counts, *gather_displs;
    int64_t *ghost_src;   /* for each ghost: its position in the gathered buffer (needed) or global index (allgather) */
    double *gather_buf;
    /* allgather mode: whole p */
    int *full_counts, *full_displs;
    double *full_buf;
    /* bytes this rank sends per exchange, by mode */
    int64_t bytes_sent;
    /* neighbour mode, with peers on this node (halo_shm.c): they take what I send from a
       shared-memory window of two slots (exchanges alternate), and a message of no bytes
       says it is there, in place of MPI's copies */
    int shm;                     /* what exists to be freed: CLCG_SHM_COMM | _WIN | _LOCKED */
    MPI_Comm node_comm;
    MPI_Win win;
    double *shm_mine;            /* 2 x send_ptr[nsend] entries, in the order of send_idx */
    char *send_shm, *recv_shm;   /* per neighbour: through the window */
    const double **recv_src;     /* per receive neighbour: its slot 0, at my part */
    int64_t *recv_off;           /* ... which is this far into its window */
    int64_t *recv_stride;        /* per receive neighbour: the length of its slot */
    double *ghost_dst;           /* where clcg_halo_post_recv was told to put the ghosts */
    unsigned parity;             /* exchanges so far (the next one's slot: parity & 1) */
    unsigned slot;               /* the last exchange's slot */
    void (*settle)(void *);      /* called before each exchange says a slot is ready: the
                                    caller's reads of the peers' windows are done (cg_ocl.c) */
    void *settle_arg;
    int nshm_links;              /* receive neighbours through the window */
} clcg_halo;

enum { CLCG_SHM_COMM = 1, CLCG_SHM_WIN = 2, CLCG_SHM_LOCKED = 4 };
/* Set up the window for the neighbour mode's peers on this node, after the plan is made
 * (collective over h->comm; nothing to do in other modes, on one rank, or with
 * CLCG_HALO_SHM=0).  CLCG_SHM_RANKS=K counts every K ranks of a node as a node of their
 * own (tests of peers on both sides of a node's edge). */
clcg_status clcg_halo_shm_setup(clcg_halo *h);
void clcg_halo_shm_free(clcg_halo *h);

void clcg_halo_free(clcg_halo *h);
/* Position of g in the ascending v[0..n), or -1. */
int64_t clcg_find_sorted(const clcg_gidx *v, int64_t n, clcg_gidx g);
/* Build the plan from A's rows with global column indices gcol[nnz]; writes A->colind
 * (local numbering), A->ghost and A->ncols.  Collective over comm. */
clcg_status clcg_halo_setup(MPI_Comm comm, clcg_exchange mode, const int64_t *row_begin,
                            const clcg_gidx *gcol, clcg_csr *A, clcg_halo *h);
/* Fill the ghost part x[nrows .. nrows+nghost) from the owners (x has ncols entries). */
clcg_status clcg_halo_exchange(clcg_halo *h, double *x);
/* The same ghosts through MPI's messages alone (tag CLCG_TAG_PLAIN), for the check of a
 * solve's result: it takes no part of the path it checks (the node's window, the test
 * hooks of the exchange). */
#define CLCG_TAG_PLAIN 3
clcg_status clcg_halo_exchange_plain(clcg_halo *h, double *x);
/* Neighbour mode in two steps, with no copy on the host: the receives into ghost[0..nghost)
 * (posted first), then the sends of send[0..send_ptr[nsend]), the entries of send_idx in
 * that order, and the wait for all of them. */
clcg_status clcg_halo_post_recv(clcg_halo *h, double *ghost);
clcg_status clcg_halo_send_wait(clcg_halo *h, const double *send);
/* With peers through the window: the slot the next exchange sends from (the device may read
 * the pack straight into it: clcg_halo_send_wait then copies nothing), and the exchange
 * that leaves what those peers sent in their windows (recv_src + slot * recv_stride) for
 * the caller to take; it must have taken it before its next exchange. */
double *clcg_halo_send_slot(const clcg_halo *h);
clcg_status clcg_halo_send_wait_keep(clcg_halo *h, const double *send);

/* ---- solver ---- */
typedef enum { CLCG_PRECOND_NONE = 0, CLCG_PRECOND_JACOBI } clcg_precond;

typedef struct {
    double rtol;
    int64_t max_it;
    clcg_precond precond;
    int monitor;          /* print the residual each iteration (rank 0) */
    int64_t mon_base;     /* a correction: the lines go on from this count... */
    double mon_scale;     /* ...relative to the first solve's ||b||: ||b_here|| / ||b|| (0: 1) */
} clcg_solve_opts;

typedef struct {
    clcg_outcome outcome;
    int64_t iterations;
    double bnorm;
    double rel_residual;      /* recursive ||r||/||b|| when the solver stopped */
    double true_residual;     /* ||b - A x|| / ||b|| computed afresh */
    double solve_time;        /* seconds, max over ranks */
    double solve_min;         /* the shortest of the ranks' own times of that solve */
    int at_limit;             /* converged as far as double precision goes, before --rtol (solve.c) */
    double attainable;        /* DIVERGED_RESIDUAL_GAP: the true residual rounding could explain */
    double cond_low;          /* DIVERGED_SINGULAR: a lower bound on a condition number, that of
                                 D^-1/2 A D^-1/2 (from x) or of the preconditioned A (growth) */
    double growth;            /* DIVERGED_SINGULAR from the residual's growth: sqrt(r_k'z_k / r_0'z_0) */
} clcg_solve_result;

/* A breakdown (r'z or p'Ap not positive) with the recursive residual already below what
 * double precision can be asked for: the arithmetic ran out, the solve converged as far as
 * it goes (solve.c). */
int clcg_breakdown_at_limit(const clcg_solve_result *res);
/* Residuals below this are as far as double precision goes (solve.c, problem.c). */
#define CLCG_LIMIT_REL 1e-12
/* The device solves stop once r'r is below this (2^-970) even when --rtol asks for less:
 * the products r_i z_i then fall below double's normal range, r'z keeps fewer and fewer
 * digits, and CG can wander there without end instead of reaching an exact 0. */
#define CLCG_RR_FLOOR (DBL_MIN / DBL_EPSILON)
/* A lower bound on A's condition number past this (1/(64 eps), 7e13), where a solve met
 * --rtol in its recurrences but not in b - Ax: A is singular to double precision (solve.c). */
#define CLCG_COND_SINGULAR (1.0 / (64.0 * DBL_EPSILON))
/* CG on an SPD A with an SPD preconditioner M (I without one) does not let the A-norm of
 * the error grow.  With A^ = M^-1/2 A M^-1/2 and e^ = M^1/2 e, r'z = r'M^-1 r = e^'A^^2 e^, so
 * r_k'z_k <= lambda_max(A^) ||e_k||_A^2 <= lambda_max(A^) ||e_0||_A^2 <= cond_2(A^) r_0'z_0.
 * An r'z grown to rz0 (its start's) times this or more shows cond_2(A^) past
 * CLCG_COND_SINGULAR, or A not positive definite: the solves stop there (DIVERGED_SINGULAR,
 * growth set) rather than run to the limit.  (In r'z, not r'r: with Jacobi, ||r|| of a
 * badly scaled matrix can grow a billionfold on the way to a clean solution.)
 * grow2 = this * rz0 (0: no test). */
static inline int clcg_grew(double rz, double grow2)
{
    return grow2 > 0.0 && rz > grow2;
}
/* The outcome where clcg_grew holds: the growth of sqrt(r'z), and the bound it gives. */
static inline void clcg_grew_stop(clcg_solve_result *res, double rz, double grow2)
{
    res->outcome = CLCG_DIVERGED_SINGULAR;
    res->growth = sqrt(rz / (grow2 / CLCG_COND_SINGULAR));
    res->cond_low = res->growth * res->growth;
}

/* Host reference CG / Jacobi-PCG in double, distributed over the ranks of the halo's
 * communicator.  x (ncols entries) is the initial guess on entry, the solution on exit. */
clcg_status clcg_cg_ref(const clcg_csr *A, clcg_halo *h, const double *b, double *x,
                        const clcg_solve_opts *o, clcg_solve_result *res);

/* Sums of products in double-double: d[0] + d[1] is the sum, |d[1]| <= ulp(d[0])/2.
 * Every dot product (host and device, see cl/common.cl) is summed this way, so its
 * rounded value d[0] does not depend on the order of the additions: the same bits for
 * any launch shape, device count, rank count, and in the reference. */
static inline void clcg_dd_add(double *a, const double *b)
{
    const double s = a[0] + b[0], v = s - a[0];
    double e = (a[0] - (s - v)) + (b[0] - v);
    e += a[1] + b[1];
    const double h = s + e;
    a[0] = isfinite(s) ? h : s;   /* an infinite sum stays infinite, not NaN */
    a[1] = isfinite(s) ? e - (h - s) : 0.0;
}

static inline void clcg_dd_acc(double *a, double t)
{
    const double b[2] = {t, 0.0};
    clcg_dd_add(a, b);
}

/* Reference kernels (never optimized: the test oracle). */
void clcg_spmv_ref(const clcg_csr *A, const double *x, double *y);
/* r = b - A*x for the local rows, each row summed in twice the working precision. */
void clcg_residual_rows(const clcg_csr *A, const double *x, const double *b, double *r);
double clcg_dot_ref(int64_t n, const double *x, const double *y);
void clcg_dot_dd(int64_t n, const double *x, const double *y, double *d);
void clcg_axpy_ref(int64_t n, double a, const double *x, double *y);
void clcg_xpay_ref(int64_t n, const double *x, double a, double *y);
void clcg_jacobi_ref(int64_t n, const double *dinv, const double *r, double *z);
clcg_status clcg_diag_inv_ref(const clcg_csr *A, double *dinv);
/* a_ii of my row i (0 where the row has none) */
static inline double clcg_diag_of(const clcg_csr *A, int64_t i)
{
    double d = 0.0;
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->colind[k] == i)
            d += A->val[k];
    return d;
}

/* Global reductions with an error flag carried along, so a fault on one rank is
 * seen by all at the next collective. */
clcg_status clcg_allreduce_sum(MPI_Comm comm, double *v, int count);
/* v[0..2*npairs): (hi, lo) pairs summed over the ranks in double-double (in place);
 * identical on every rank. */
clcg_status clcg_allreduce_dd(MPI_Comm comm, double *v, int npairs);
/* The MPI datatype (two doubles) and sum operation used by clcg_allreduce_dd. */
clcg_status clcg_dd_mpi(MPI_Datatype *type, MPI_Op *op);
void clcg_allreduce_dd_free(void);

/* r = b - A x (my rows) and *rel = ||b - A x|| / ||b|| over all ranks (x with room for
 * ghosts; exchanged inside).  Collective. */
clcg_status clcg_residual(const clcg_csr *A, clcg_halo *h, const double *b, double *x, double *r,
                          double *rel);
/* ||b - A x|| / ||b|| over all ranks (x with room for ghosts; exchanged inside). */
clcg_status clcg_true_residual(const clcg_csr *A, clcg_halo *h, const double *b, double *x,
                               double *rel);

/* Collective: if any rank failed, every rank returns the lowest failing rank's status
 * and message (and *failed_rank, -1 when none failed). */
clcg_status clcg_agree(MPI_Comm comm, clcg_status st, int *failed_rank);
/* root's status and message (root's st; the others' are not looked at) to every rank, as
 * clcg_agree does for the first failing rank: a failure root alone can tell.  Collective. */
clcg_status clcg_agree_from(MPI_Comm comm, int root, clcg_status st);

/* ---- generated model problems ---- */
typedef enum { CLCG_GEN_POISSON2D = 0, CLCG_GEN_POISSON3D, CLCG_GEN_POISSON3D27, CLCG_GEN_RANDOM } clcg_gen_kind;

/* random: hub levels and the most long-range offsets (see gen.c) */
#define CLCG_GEN_LEVELS 8
#define CLCG_GEN_MAX_LONG 256
/* no row of random has more entries than this (3072 hub edges, 2 path, 2*256 long, diagonal) */
#define CLCG_GEN_MAX_ROW 3587

typedef struct {
    clcg_gen_kind kind;
    int64_t nx, ny, nz;       /* grid (poisson); the weak forms multiply the last by nranks */
    int weak;                 /* poisson: sized per rank (KIND-weak:...) */
    int64_t n;                /* rows */
    double avg_degree;        /* random: requested mean entries per row */
    uint64_t seed;            /* random */
    /* random: drawn from the seed by clcg_gen_parse, identical on every rank */
    int nlong;                                   /* long-range offsets in use */
    int64_t long_off[CLCG_GEN_MAX_LONG];         /* ascending, all >= the widest hub block */
    uint64_t long_key[CLCG_GEN_MAX_LONG];
    uint64_t long_thr, hub_thr;                  /* edge probabilities in units of 2^-53 */
    uint64_t member_key[CLCG_GEN_LEVELS], hub_key[CLCG_GEN_LEVELS], weight_key;
    char name[128];
} clcg_gen;

/* Parse KIND:SPEC (see the usage message) for a run on nranks ranks. */
clcg_status clcg_gen_parse(const char *spec, int nranks, clcg_gen *g);
/* Entries of rows [row0, row0+nrows) in full (not triangle) storage, global indices,
 * appended to out sorted by row, then column.  Any block of rows comes out the same as
 * that block of the whole matrix, so each rank builds only its own rows. */
clcg_status clcg_gen_rows(const clcg_gen *g, int64_t row0, int64_t nrows, clcg_coo *out);
/* Entries in row i (for partitioning by nonzeros without building the rows): O(1) for
 * poisson; for random O(long offsets + levels), and O(entries) for a hub row. */
int64_t clcg_gen_row_nnz(const clcg_gen *g, int64_t i);
/* At least how many entries the whole matrix has (for the memory check before it is built). */
double clcg_gen_nnz_least(const clcg_gen *g);

#endif
