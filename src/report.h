/* Human summary, per-kernel table and the JSON record of a run. */
#ifndef CLCG_REPORT_H
#define CLCG_REPORT_H

#include "solve.h"

clcg_status clcg_report_error_vs_ones(MPI_Comm comm, const clcg_problem *p, clcg_run_info *info);
void clcg_report_summary(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                         const clcg_solve_result *res, const clcg_run_info *info);
/* The --json record; with held != NULL (rank 0) its rename is left to clcg_held_commit. */
clcg_status clcg_report_json(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                             const clcg_solve_result *res, const clcg_run_info *info, clcg_held *held);

#endif
