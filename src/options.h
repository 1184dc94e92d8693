/* Command-line options of clcg-mpi. */
#ifndef CLCG_OPTIONS_H
#define CLCG_OPTIONS_H

#include "clcg_impl.h"

/* --repeat N: at most this many timed solves (the record keeps each one's time) */
#define CLCG_MAX_REPEATS 64

typedef enum { CLCG_BACKEND_OPENCL = 0, CLCG_BACKEND_REFERENCE } clcg_backend;

typedef struct {
    const char *matrix;        /* positional MATRIX.mtx[.gz] */
    const char *generate;      /* --generate KIND:SIZE */
    const char *write_matrix;  /* --write-matrix FILE: write the matrix and stop */
    const char *write_binary;  /* --write-binary FILE: write the matrix in binary and stop */
    const char *rhs;           /* --rhs FILE */
    const char *output;        /* -o FILE */
    const char *json;          /* --json FILE */
    double rtol;
    int64_t max_it;
    clcg_precond precond;
    int monitor, quiet, profile, symmetry_check;
    clcg_backend backend;
    clcg_exchange exchange;
    /* OpenCL device selection and tuning */
    const char *device_type;   /* gpu|cpu|all (NULL: gpu if any, else cpu) */
    const char *platform;      /* substring */
    int device;                /* index among the matching devices, -1: by node-local rank */
    int devices_per_rank;      /* 0: all this rank gets */
    int list_devices;
    const char *format;        /* auto|csr-scalar|csr-vector|sell */
    const char *variant;       /* standard|single-reduction|pipelined */
    int tune;                  /* --tune: search again */
    const char *tune_cache;    /* --tune-cache FILE */
    int no_tune;               /* --no-tune: built-in defaults only */
    int load_only;             /* --load-only: read, partition, set up, report times */
    int repeat;                /* --repeat N: solve N times (benchmarks) */
    int jacobi_scaled;         /* --jacobi-scaled: Jacobi as CG on D^-1/2 A D^-1/2 (one device) */
} clcg_options;

/* The tuning cache's path: given (--tune-cache), else the default one. */
void clcg_tune_cache_path(const char *given, char *out, size_t len);

/* Parse argv (every rank does it).  Returns CLCG_OK, CLCG_ERR_USAGE with a message, or
 * sets *exit_now for --help/--version (text printed on rank 0). */
clcg_status clcg_options_parse(int argc, char **argv, int rank, clcg_options *o, int *exit_now);

/* Before any work: no output (-o, --json, --write-matrix, --write-binary, --tune-cache) may
 * be empty, name an input (the matrix, --rhs) or another output (usage error), or lie in a
 * directory that is missing or not writable (I/O error).  Rank 0 looks; all ranks return
 * its verdict.  Collective. */
clcg_status clcg_options_check_paths(MPI_Comm comm, const clcg_options *o);

/* Options given that this run has no use for (device options with --reference; solver and
 * device options with --write-matrix, --write-binary, --load-only): one warning, on rank 0,
 * unless -q. */
void clcg_options_warn_idle(const clcg_options *o, int rank);

#endif
