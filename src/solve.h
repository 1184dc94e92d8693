/* Solve dispatch (host reference or OpenCL devices) and what a run reports. */
#ifndef CLCG_SOLVE_H
#define CLCG_SOLVE_H

#include "problem.h"

#define CLCG_MAX_KSTATS 24

typedef struct {
    char name[40];
    int64_t calls;
    double time;        /* seconds, from OpenCL profiling events (max over ranks) */
    double bytes;       /* traffic by the kernel's model, summed over calls */
} clcg_kstat;

typedef struct {
    const char *backend;            /* "reference" or "opencl" */
    char device[256], platform[256], driver[128];
    int ndevices;                   /* devices on this rank */
    int ndevices_min, ndevices_max; /* the fewest and most a rank drives (one with fewer rows, fewer) */
    int nranks_per_device;          /* >1 when ranks share a device */
    int idle_gpus;                  /* GPUs of rank 0's node that no rank drives */
    char format[64], variant[32];
    char tuning[1024];              /* where the work-group sizes came from (each device's) */
    int nk;
    clcg_kstat k[CLCG_MAX_KSTATS];
    double t_device_setup, t_tune;  /* seconds */
    double t_exchange, t_allreduce; /* seconds in the halo exchange / reductions, max over ranks */
    double t_comm;                  /* the largest of the ranks' own exchange + reduction seconds */
    int64_t bytes_sent_min, bytes_sent_max;   /* per iteration, over ranks */
    int halo_in_place;              /* ranks whose exchange sent the device's pack and received
                                       into its ghost buffer, no copy on the host */
    int halo_links[3];              /* neighbour links (a rank receiving from another): through
                                       the shared-memory window of the node, and in all; ranks
                                       whose device reads and writes the windows in place */
    int pack_first;                 /* ranks whose ghost pack ran as a launch of its own (of
                                       those forming p in a pass of its own) */
    int side_spmv;                  /* ranks whose boundary SpMV ran beside the interior one */
    double solve_min, solve_max;    /* each rank's own time of the solve reported, min and max over ranks */
    int64_t timed_iterations;       /* the timed solve's iterations (the corrections after it are not timed) */
    double launches_per_it, syncs_per_it;
    int have_error;                 /* b = A*1: error against x = 1 */
    double err_inf, err_rel;
    int64_t iterations_run;         /* iterations enqueued (>= iterations when checked lazily) */
    int refinements;                /* correction solves after the first (cg_ocl.c: refine) */
    int rescued;                    /* the first solve (single-reduction or pipelined) broke down
                                       and the corrections ran the standard variant */
    int std_corrections;            /* corrections in the standard variant after those of the
                                       single-reduction or pipelined one stopped helping */
    clcg_outcome first_outcome;     /* ... the first solve's outcome, after first_iterations,
                                       and the true residual it left */
    int64_t first_iterations;
    double first_true_residual;
    char base_variant[32];          /* the variant asked for or chosen, without the scaling */
    int nrepeats;                   /* --repeat: timed solves, their times (max over ranks) */
    double solve_times[CLCG_MAX_REPEATS];
} clcg_run_info;

clcg_status clcg_solve(MPI_Comm comm, const clcg_options *o, clcg_problem *p,
                       clcg_solve_result *res, clcg_run_info *info);
clcg_status clcg_solve_list_devices(MPI_Comm comm, const clcg_options *o);
void clcg_solve_info_free(clcg_run_info *info);

/* OpenCL backend (cg_ocl.c). */
clcg_status clcg_cg_ocl(MPI_Comm comm, const clcg_options *o, clcg_problem *p,
                        clcg_solve_result *res, clcg_run_info *info);

#endif
