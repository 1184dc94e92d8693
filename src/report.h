/* Human summary, per-kernel table and the JSON record of a run. */
#ifndef CLCG_REPORT_H
#define CLCG_REPORT_H

#include "solve.h"

clcg_status clcg_report_error_vs_ones(MPI_Comm comm, const clcg_problem *p, clcg_run_info *info);
/* The report's first line (the problem): with --monitor printed before the solve, above the
 * residuals, and left out of the summary then. */
void clcg_report_header(MPI_Comm comm, const clcg_options *o, const clcg_problem *p, int early);
void clcg_report_summary(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                         const clcg_solve_result *res, const clcg_run_info *info);
/* The --json record, written on rank 0 under a temporary name that held takes for
 * clcg_held_commit (a device, pipe or descriptor: written in place, held left empty). */
clcg_status clcg_report_json(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                             const clcg_solve_result *res, const clcg_run_info *info, clcg_held *held);

#endif
