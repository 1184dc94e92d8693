/* Pick the backend and run the solve. */
#include "solve.h"

#include <string.h>

clcg_status clcg_solve(MPI_Comm comm, const clcg_options *o, clcg_problem *p,
                       clcg_solve_result *res, clcg_run_info *info)
{
    clcg_solve_opts so = {o->rtol, o->max_it, o->precond, o->monitor && !o->quiet};
    memset(info, 0, sizeof *info);
    if (o->backend == CLCG_BACKEND_OPENCL)
        return clcg_cg_ocl(comm, o, p, res, info);
    info->backend = "reference";
    snprintf(info->device, sizeof info->device, "host (reference code)");
    snprintf(info->format, sizeof info->format, "csr");
    snprintf(info->variant, sizeof info->variant, "standard");
    info->ndevices = 0;
    info->bytes_sent_min = info->bytes_sent_max = p->halo.bytes_sent;
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_min, 1, MPI_INT64_T, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &info->bytes_sent_max, 1, MPI_INT64_T, MPI_MAX, comm);
    memset(p->x, 0, (size_t)p->A.ncols * sizeof *p->x);
    clcg_status st = clcg_cg_ref(&p->A, &p->halo, p->b, p->x, &so, res);
    info->iterations_run = res->iterations;
    info->solve_min = info->solve_max = res->solve_time;
    return st;
}

void clcg_solve_info_free(clcg_run_info *info)
{
    (void)info;
}
