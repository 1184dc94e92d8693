/* clcg-mpi: distributed Conjugate Gradient on OpenCL devices.  Public API. */
#ifndef CLCG_H
#define CLCG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

/* ---- status codes: what went wrong in the program (not the solver outcome) ---- */
typedef enum {
    CLCG_OK = 0,
    CLCG_ERR_USAGE,        /* bad command line */
    CLCG_ERR_INPUT,        /* bad input file or data (also unsymmetric input) */
    CLCG_ERR_NOT_SPD,      /* matrix seen not to be positive definite before solving */
    CLCG_ERR_MEMORY,       /* host allocation failed or would be too large */
    CLCG_ERR_IO,           /* cannot open, read or write a file */
    CLCG_ERR_OPENCL,       /* OpenCL call failed */
    CLCG_ERR_DEVICE,       /* no suitable device, device out of memory */
    CLCG_ERR_MPI,          /* MPI call failed */
    CLCG_ERR_INTERNAL,     /* a bug */
    CLCG_ERR_PEER,         /* stopped because another rank failed (that rank reports) */
    CLCG_ERR_COUNT
} clcg_status;

const char *clcg_status_name(clcg_status s);

/* ---- solver outcomes, kept apart from errors ---- */
typedef enum {
    CLCG_CONVERGED = 0,
    CLCG_DIVERGED_ITS,          /* iteration limit reached */
    CLCG_DIVERGED_INDEFINITE,   /* p'Ap <= 0: matrix (or preconditioner) not positive definite */
    CLCG_DIVERGED_NANORINF,     /* NaN or Inf in a scalar */
    CLCG_DIVERGED_BREAKDOWN,    /* r'z <= 0 or other loss of the recurrence */
    CLCG_DIVERGED_RESIDUAL_GAP, /* the recurrences met --rtol, ||b - Ax|| stayed far above what
                                   rounding explains: the iterates are wrong */
    CLCG_DIVERGED_SINGULAR,     /* the recurrences met --rtol, ||b - Ax|| did not, and A's
                                   condition number is past what double precision resolves */
    CLCG_OUTCOME_COUNT
} clcg_outcome;

const char *clcg_outcome_name(clcg_outcome o);
const char *clcg_outcome_message(clcg_outcome o);

/* ---- exit codes of the clcg-mpi program (documented in README) ---- */
enum {
    CLCG_EXIT_CONVERGED = 0,
    CLCG_EXIT_NOT_CONVERGED = 1,
    CLCG_EXIT_USAGE = 2,
    CLCG_EXIT_INPUT = 3,
    CLCG_EXIT_NOT_SPD = 4,
    CLCG_EXIT_RUNTIME = 5
};
int clcg_exit_code_status(clcg_status s);
int clcg_exit_code_outcome(clcg_outcome o);

/* ---- error protocol ----
 * The first failure records one user-facing message with clcg_error(); callers
 * propagate the status with CLCG_CALL, which adds a traceback line to stderr only
 * when CLCG_TRACE is set in the environment.  Library code never exits. */
#if defined(__GNUC__)
#define CLCG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLCG_PRINTF(a, b)
#endif
clcg_status clcg_error(clcg_status s, const char *fmt, ...) CLCG_PRINTF(2, 3);
const char *clcg_error_message(void);
void clcg_error_clear(void);
/* The shortest %g form of v (6 digits at least, trailing zeros dropped) that reads back as v,
 * for messages and records: out. */
const char *clcg_show_double(double v, char out[32]);
void clcg_error_trace(const char *file, int line, const char *call, clcg_status s);
clcg_status clcg_fault_point(int rank, const char *phase);
/* The same test, without an error: whether CLCG_FAULT names this rank and phase. */
int clcg_fault_armed(int rank, const char *phase);
/* A development switch of the environment set on: to anything but nothing or "0" (the program
 * refuses values other than 0 and 1 at the start). */
int clcg_env_on(const char *name);

#define CLCG_CALL(call)                                                        \
    do {                                                                       \
        clcg_status clcg_s_ = (call);                                          \
        if (clcg_s_ != CLCG_OK) {                                              \
            clcg_error_trace(__FILE__, __LINE__, #call, clcg_s_);              \
            return clcg_s_;                                                    \
        }                                                                      \
    } while (0)

/* Same, but jump to a cleanup label with the status stored in `st`. */
#define CLCG_CHECK(st, call, label)                                            \
    do {                                                                       \
        (st) = (call);                                                         \
        if ((st) != CLCG_OK) {                                                 \
            clcg_error_trace(__FILE__, __LINE__, #call, (st));                 \
            goto label;                                                        \
        }                                                                      \
    } while (0)

/* Allocation helpers: checked sizes, message on failure. */
clcg_status clcg_malloc(void *pptr, size_t count, size_t size, const char *what);
clcg_status clcg_calloc(void *pptr, size_t count, size_t size, const char *what);
clcg_status clcg_realloc(void *pptr, size_t count, size_t size, const char *what);
/* Outputs (mm_write.c).  Where an output named PATH goes: *direct = 1: PATH exists and is
 * no regular file (a device such as /dev/stdout, a FIFO): write it in place.  Otherwise
 * *target (malloc'd) is the regular file to create beside and rename onto: PATH, or where
 * its symbolic link points (so the link stays a link). */
clcg_status clcg_out_target(const char *path, char **target, int *direct);
/* PATH, or the file its chain of symbolic links ends at, dangling links included (each
 * relative name taken beside its link), malloc'd; NULL with errno set (ELOOP for a loop). */
char *clcg_link_end(const char *path);
/* A descriptor open for writing to PATH in place (*direct above), or -1 (errno set). */
int clcg_out_open_direct(const char *path);
/* PATH names an open descriptor (/dev/stdout, /dev/fd/N, ...): written through it. */
int clcg_out_is_descriptor(const char *path);
/* The directory part of PATH ("." for none, "/" for the root) in buf. */
void clcg_dir_of(const char *path, char *buf, size_t size);
/* The last component of PATH (after its last '/'), pointing into PATH. */
const char *clcg_base_of(const char *path);

/* fn(ctx, lo, hi) over [0, n) cut into contiguous ranges, one per CPU this process may run
 * on (at most 32; in this thread when there is one CPU or a thread cannot start).  fn must
 * only touch what its range owns. */
void clcg_parallel_for(int64_t n, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx);
/* n processes of the job share this node: a process allowed on every CPU (not bound by
 * mpirun) then runs its fair share of threads, not one per CPU. */
void clcg_threads_share(int n);
/* A problem that takes at least `total` bytes of host memory over nranks ranks, an even
 * share each: refused (CLCG_ERR_MEMORY, naming `what`) when the share of this node's ranks
 * exceeds the memory the node can still give (available memory and free swap, within the
 * job's cgroup limit), before the allocations the system would answer by killing the
 * process.  Unknown available memory passes. */
clcg_status clcg_memory_check(double total, int nranks, const char *what);
/* The same, with the advice that ends the message (clcg_memory_check: "use more nodes"). */
clcg_status clcg_memory_check_advice(double total, int nranks, const char *what, const char *advice);
/* Peak host memory of loading, bytes an entry (of the matrix as stored, both triangles)
 * and a row: the lower of the maximum resident sizes measured with /usr/bin/time on the
 * development machine (2026-11-27; Poisson 100^3 and 150^3, 27-point 100^3,
 * random:1000000,64, a chain of 3 M rows; 1 and 2 ranks; less a run's 30 MB and a mapped
 * file's pages): the matrix and its triplets or blocks as read, and the rows' exchange.  A
 * general .mtx checked for symmetry holds a mirror of each entry too.  Array files count
 * the matrix alone (12 and 8), every position as an entry: their zeros are not kept. */
#define CLCG_PEAK_GEN_ENTRY 28.0
#define CLCG_PEAK_GEN_ROW 24.0
#define CLCG_PEAK_MTX_ENTRY 32.0
#define CLCG_PEAK_MTX_CHECKED_ENTRY 64.0
#define CLCG_PEAK_MTX_ROW 24.0
#define CLCG_PEAK_BIN_ENTRY 14.0
#define CLCG_PEAK_BIN_ENTRY_RANKS 22.0   /* on several ranks, each entry's global column too: 17.5-21.2 measured on 2-3 */
#define CLCG_PEAK_BIN_ROW 12.0
/* This rank's share of the memory the node can still give (bytes; -1 when unknown): what a
 * CPU device, whose buffers are host memory, may take. */
double clcg_host_share(void);
/* n rows over nranks ranks: refused (CLCG_ERR_USAGE, "WHAT: ... use more ranks") when the
 * largest even share passes the 2^31 - 2 rows a rank's devices number in 32 bits. */
clcg_status clcg_rows_fit(int64_t n, int nranks, const char *what);

/* The temporary file being written (NULL: none): removed should SIGTERM, SIGINT or SIGHUP
 * end the process (a job cancelled or past its time limit), or SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGALRM or SIGXCPU where they end the process; then the signal takes its usual course.
 * clcg_tmp_ignored, called before any library (MPI_Init) installs handlers of its own,
 * ignores SIGXFSZ (a write past ulimit -f then fails, EFBIG, and is reported), notes which
 * signals are ignored (as a background job's SIGINT is; they stay ignored) and takes the
 * others beneath those libraries; clcg_tmp_guard, after MPI_Init and again
 * once the OpenCL runtimes are loaded and the kernels built (PoCL's LLVM takes signals
 * there), ignores again what was ignored and takes the first three over the handlers. */
void clcg_tmp_ignored(void);
void clcg_tmp_guard(void);
void clcg_tmp_file(const char *path);
/* A finished temporary file whose rename waits until the run's other outputs are written:
 * removed on those signals as the one being written is, until clcg_tmp_release(the slot
 * returned; 0 where none was free, as never with the two outputs held). */
int clcg_tmp_hold(const char *path);
void clcg_tmp_release(int slot);
/* The temporary name an output TARGET is written under before the rename: TARGET.tmp.PID,
 * or DIR/.clcg-PID-HASH.tmp (HASH: of the name) where that would pass the longest file name. */
void clcg_tmp_name(const char *target, long pid, char *out, size_t len);
/* Create the temporary file TMP (a name of clcg_tmp_name) for writing, as a new regular file:
 * never through a symbolic link or onto an existing file of that name (one left by an
 * earlier process with the same pid, or planted there, is removed first, not written
 * through).  A descriptor, or -1 with errno set. */
int clcg_tmp_create(const char *tmp);
/* The other ranks guard rank 0's temporary files too: a launcher ending the job (mpirun
 * passing on SIGTERM) may signal another rank first and, once that one has died, kill rank
 * 0 before its handler runs.  clcg_tmp_set_pid0 (every rank, after MPI_Init) keeps rank 0's
 * pid; clcg_tmp_peer guards a name that a peer writes (removed on the signals, as this
 * rank's own; kept to the end: once renamed, the name is gone and its removal does nothing);
 * clcg_tmp_expect (ranks other than 0) guards the name rank 0 writes output PATH under. */
void clcg_tmp_set_pid0(long pid);
long clcg_tmp_pid0(void);
void clcg_tmp_peer(const char *path);
void clcg_tmp_expect(const char *path);

/* ---- sparse matrices ---- */
typedef int64_t clcg_gidx;   /* global row/column index */

/* Coordinate triplets, 0-based global indices (the reader's output). */
typedef struct {
    int64_t n;          /* global size (square) */
    int64_t len, cap;   /* triplets held */
    clcg_gidx *row, *col;
    double *val;
    int symmetric;      /* file stored one triangle; expand when assembling */
    int fixed;          /* a view into storage owned elsewhere: never grows or frees */
    int64_t line_below, line_above;   /* symmetric files: the first line of an off-diagonal
                                       * entry below / above the diagonal (0: none yet) */
} clcg_coo;

void clcg_coo_free(clcg_coo *a);
clcg_status clcg_coo_push(clcg_coo *a, clcg_gidx i, clcg_gidx j, double v);
clcg_status clcg_coo_reserve(clcg_coo *a, int64_t cap);

/* Compressed sparse rows of the rows this rank owns.  Columns are local
 * indices: owned columns first (0..nrows-1), ghosts after.  With one rank
 * the ghosts are empty and ncols == nrows == n. */
typedef struct {
    int64_t n;          /* global size */
    int64_t row0;       /* first global row owned here */
    int64_t nrows;      /* rows owned here */
    int64_t ncols;      /* nrows + ghosts */
    int64_t nnz;
    int64_t *rowptr;    /* nrows+1 */
    int32_t *colind;    /* nnz, sorted within a row */
    double *val;        /* nnz */
    clcg_gidx *ghost;   /* ncols-nrows global indices of the ghost columns, ascending */
} clcg_csr;

void clcg_csr_free(clcg_csr *a);

#endif
