/* Human summary, per-kernel profile table and the JSON record of a run (rank 0 prints). */
#include "report.h"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

clcg_status clcg_report_error_vs_ones(MPI_Comm comm, const clcg_problem *p, clcg_run_info *info)
{
    double s[2] = {0.0, 0.0}, mx = 0.0;
    info->have_error = p->known_solution;
    if (!p->known_solution)
        return CLCG_OK;
    for (int64_t i = 0; i < p->A.nrows; i++) {
        double e = p->x[i] - 1.0;
        s[0] += e * e;
        if (!(fabs(e) <= mx))
            mx = fabs(e);
    }
    s[1] = (double)p->A.nrows;
    CLCG_CALL(clcg_allreduce_sum(comm, s, 2));
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
    info->err_inf = mx;
    info->err_rel = s[1] > 0 ? sqrt(s[0] / s[1]) : 0.0;
    return CLCG_OK;
}

static const char *precond_name(clcg_precond p)
{
    return p == CLCG_PRECOND_JACOBI ? "jacobi" : "none";
}

static const char *exchange_name(clcg_exchange e)
{
    static const char *const names[] = {"allgather", "needed", "neighbor"};
    return names[e];
}

/* The timed solve's iterations: the time per iteration leaves the corrections after it out,
 * as the solve time does. */
static int64_t timed_its(const clcg_solve_result *res, const clcg_run_info *info)
{
    return info->timed_iterations > 0 && info->timed_iterations <= res->iterations ? info->timed_iterations
                                                                                    : res->iterations;
}

/* "s" after a count other than 1 */
static const char *plural(int64_t n)
{
    return n == 1 ? "" : "s";
}

static void print_profile(const clcg_solve_result *res, const clcg_run_info *info, int size)
{
    double ktot = 0.0;
    printf("\nper-kernel profile (%s, %lld iteration%s run%s%s):\n", info->device,
           (long long)info->iterations_run, plural(info->iterations_run),
           info->iterations_run > res->iterations ? ", past the stop until its flag was read" : "",
           size > 1 ? ", max over ranks" : "");
    printf("  %-24s %8s %12s %10s %10s %8s\n", "kernel", "calls", "total ms", "us/call", "GB/s", "share");
    for (int i = 0; i < info->nk; i++)
        ktot += info->k[i].time;
    for (int i = 0; i < info->nk; i++) {
        const clcg_kstat *k = &info->k[i];
        if (!k->calls)
            continue;
        printf("  %-24s %8lld %12.3f %10.2f %10.1f %7.1f%%\n", k->name, (long long)k->calls,
               1e3 * k->time, 1e6 * k->time / (double)k->calls,
               k->time > 0 ? k->bytes / k->time / 1e9 : 0.0,
               res->solve_time > 0 ? 100.0 * k->time / res->solve_time : 0.0);
    }
    printf("  %-24s %8s %12.3f\n", "kernels total", "", 1e3 * ktot);
    printf("  %-24s %8s %12.3f   (solve time minus kernel time)\n", "overhead", "",
           1e3 * (res->solve_time - ktot));
    if (size > 1)
        printf("  exchange %.3f ms, allreduce %.3f ms in total (most on one rank: %.3f ms together); bytes sent per "
               "iteration: min %lld, max %lld\n"
               "  solve time over ranks: min %.3f s, max %.3f s\n",
               1e3 * info->t_exchange, 1e3 * info->t_allreduce, 1e3 * info->t_comm, (long long)info->bytes_sent_min,
               (long long)info->bytes_sent_max, info->solve_min, info->solve_max);
    if (info->launches_per_it > 0)
        printf("  kernel launches per iteration %.1f, host synchronizations per iteration %.2f\n",
               info->launches_per_it, info->syncs_per_it);
}

void clcg_report_header(MPI_Comm comm, const clcg_options *o, const clcg_problem *p, int early)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0 || o->quiet || early != (o->monitor != 0))
        return;
    printf("clcg-mpi %s: %s, n = %lld, nnz = %lld, %d rank%s\n", PACKAGE_VERSION, p->name,
           (long long)p->A.n, (long long)p->nnz, size, size > 1 ? "s" : "");
    if (early)
        fflush(stdout);   /* a batch job's log shows it while the solve runs */
}

void clcg_report_summary(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                         const clcg_solve_result *res, const clcg_run_info *info)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0)
        return;
    if (res->outcome == CLCG_DIVERGED_RESIDUAL_GAP) {   /* figures that are finite: say them */
        fprintf(stderr, "clcg-mpi: %s: %s (||b-Ax||/||b|| = %.3e after %lld iteration%s, where rounding explains "
                "up to %.1e: a fault in the halo exchange, a device or its memory?)\n", p->name,
                clcg_outcome_message(res->outcome), res->true_residual, (long long)res->iterations,
                plural(res->iterations), res->attainable);
        return;
    }
    if (res->outcome == CLCG_DIVERGED_SINGULAR && res->growth > 0.0) {
        fprintf(stderr, "clcg-mpi: %s: %s, or not positive definite: after %lld iteration%s the residual (sqrt(r'z), "
                "z the preconditioned one) had grown to %.1e times its start, which CG on an SPD matrix allows only "
                "where the (preconditioned) matrix's condition number is at least %.1e, past 1/(64 eps) = %.1e%s\n",
                p->name, clcg_outcome_message(res->outcome), (long long)res->iterations, plural(res->iterations),
                res->growth, res->cond_low, CLCG_COND_SINGULAR,
                o->precond == CLCG_PRECOND_NONE ? " (with --precond none, A's own: a matrix only badly scaled may "
                "still solve with --precond jacobi)" : "");
        return;
    }
    if (res->outcome == CLCG_DIVERGED_SINGULAR) {
        fprintf(stderr, "clcg-mpi: %s: %s: ||b-Ax||/||b|| = %.3e after %lld iteration%s, and x shows its condition "
                "number to be at least %.1e, past 1/(64 eps) = %.1e (a Laplacian without a boundary condition? a "
                "right-hand side outside its range?)\n", p->name, clcg_outcome_message(res->outcome),
                res->true_residual, (long long)res->iterations, plural(res->iterations), res->cond_low,
                CLCG_COND_SINGULAR);
        return;
    }
    if (res->outcome != CLCG_CONVERGED && res->outcome != CLCG_DIVERGED_ITS) {
        /* breakdown: one message, no figures that may hold NaN */
        fprintf(stderr, "clcg-mpi: %s: %s (CG stopped after %lld iteration%s)\n", p->name,
                clcg_outcome_message(res->outcome), (long long)res->iterations, plural(res->iterations));
        return;
    }
    if (o->quiet) {
        if (res->outcome != CLCG_CONVERGED)
            fprintf(stderr, "clcg-mpi: %s: not converged: %s after %lld iteration%s\n", p->name,
                    clcg_outcome_message(res->outcome), (long long)res->iterations, plural(res->iterations));
        return;
    }
    clcg_report_header(comm, o, p, 0);
    printf("solver: CG (%s), precond %s, rtol %g, on %s", info->variant, precond_name(o->precond),
           o->rtol, info->device);
    if (info->ndevices_min < info->ndevices_max)   /* a rank with fewer rows than --devices-per-rank drives fewer */
        printf(" (x%d-%d per rank)", info->ndevices_min, info->ndevices_max);
    else if (info->ndevices_max > 1)
        printf(" (x%d per rank)", info->ndevices_max);
    printf(", format %s", info->format);
    if (size > 1)
        printf(", exchange %s", exchange_name(o->exchange));
    if (size > 1 && info->halo_in_place)
        printf(" (in place on %d of %d ranks)", info->halo_in_place, size);
    if (info->halo_links[0])
        printf(", %d of %d links through shared memory", info->halo_links[0], info->halo_links[1]);
    printf("\n");
    if (info->idle_gpus > 0)
        printf("note: %d GPU%s of this node %s idle: a rank drives one GPU unless --devices-per-rank says more; a "
               "rank for each GPU is the fastest way to use them\n",
               info->idle_gpus, info->idle_gpus > 1 ? "s" : "", info->idle_gpus > 1 ? "are" : "is");
    if (p->exp_a || p->exp_b)
        printf("scaled for the solve: A by 2^%d, b by 2^%d (powers of two: exact; x as given)\n", p->exp_a,
               p->exp_b);
    if (res->outcome == CLCG_CONVERGED && res->at_limit)
        printf("converged in %lld iteration%s (to the limit of double precision, above --rtol)\n",
               (long long)res->iterations, plural(res->iterations));
    else if (res->outcome == CLCG_CONVERGED)
        printf("converged in %lld iteration%s\n", (long long)res->iterations, plural(res->iterations));
    else
        printf("NOT converged: %s (%lld iteration%s)\n", clcg_outcome_message(res->outcome),
               (long long)res->iterations, plural(res->iterations));
    if (info->refinements && info->rescued)
        printf("  refined: %d correction solve%s of A d = b - Ax in the standard variant: the %s recurrence broke down "
               "after %lld iteration%s (%s), true residual %.3e there\n", info->refinements,
               info->refinements > 1 ? "s" : "", info->base_variant, (long long)info->first_iterations,
               plural(info->first_iterations),
               info->first_outcome == CLCG_DIVERGED_INDEFINITE ? "p'Ap <= 0 from the recurrence"
               : info->first_outcome == CLCG_DIVERGED_SINGULAR ? "its residual grew past what an SPD matrix allows"
                                                                : clcg_outcome_message(info->first_outcome),
               info->first_true_residual);
    else if (info->refinements && info->std_corrections)
        printf("  refined: %d correction solve%s of A d = b - Ax (the recurrences had drifted from it), the last %d "
               "in the standard variant, where the %s one's stopped helping\n", info->refinements,
               info->refinements > 1 ? "s" : "", info->std_corrections, info->base_variant);
    else if (info->refinements)
        printf("  refined: %d correction solve%s of A d = b - Ax (the recurrences had drifted from it)\n",
               info->refinements, info->refinements > 1 ? "s" : "");
    printf("  ||r||/||b|| (recursive) = %.3e\n", res->rel_residual);
    printf("  ||b-Ax||/||b|| (true)   = %.3e\n", res->true_residual);
    if (info->have_error)
        printf("  error vs x = 1: max|x-1| = %.3e, ||x-1||/||1|| = %.3e\n", info->err_inf, info->err_rel);
    printf("time: read %.3f s, partition %.3f s, setup %.3f s", p->t_read, p->t_partition, p->t_setup);
    if (info->t_device_setup > 0)
        printf(", device setup %.3f s", info->t_device_setup);
    printf(", solve %.3f s", res->solve_time);
    if (res->iterations > 0)
        printf(" (%.4f ms per iteration)", 1e3 * res->solve_time / (double)timed_its(res, info));
    printf("\n");
    if (o->profile && o->backend != CLCG_BACKEND_REFERENCE)   /* no kernels there: warned of */
        print_profile(res, info, size);
    fflush(stdout);
}

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0 when the bytes there are not one
 * (stray continuation bytes, overlong forms, surrogates, beyond U+10FFFF, cut short). */
static int utf8_len(const unsigned char *s)
{
    const unsigned char c = s[0];
    int n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped; a byte that is no
 * part of valid UTF-8 (a file name in another encoding) becomes U+FFFD, so that the record
 * stays valid JSON. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    while (s && *s) {
        const unsigned char c = (unsigned char)*s;
        const int n = utf8_len((const unsigned char *)s);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else if (n == 0)
            fputs("\\ufffd", f);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n ? n : 1;
    }
    fputc('"', f);
}

/* the shortest form that reads back as v (an option as given: --rtol 0.99999 is not 1) */
static void json_exact(FILE *f, double v)
{
    char buf[32];
    fputs(clcg_show_double(v, buf), f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.9g", v);
    else
        fputs("null", f);
}

clcg_status clcg_report_json(MPI_Comm comm, const clcg_options *o, const clcg_problem *p,
                             const clcg_solve_result *res, const clcg_run_info *info, clcg_held *held)
{
    int rank, size;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != 0)
        clcg_tmp_expect(o->json);
    if (rank == 0) {
        char tmp[4096], date[64], host[256] = "", *target = NULL;
        int direct = 0;
        time_t now = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
        gethostname(host, sizeof host - 1);
        st = clcg_out_target(o->json, &target, &direct);
        if (st != CLCG_OK)
            return clcg_agree(comm, st, NULL);
        clcg_tmp_name(direct ? o->json : target, (long)getpid(), tmp, sizeof tmp);
        int dfd = direct ? clcg_out_open_direct(o->json) : clcg_tmp_create(tmp);
        FILE *f = dfd >= 0 ? fdopen(dfd, "w") : NULL;
        if (f && !direct)
            clcg_tmp_file(tmp);
        if (dfd >= 0 && !f) {
            const int e = errno;
            close(dfd);
            if (!direct)
                unlink(tmp);
            errno = e;
        }
        if (!f) {
            free(target);
            return clcg_agree(comm, clcg_error(CLCG_ERR_IO, "%s: cannot write: %s", o->json, strerror(errno)), NULL);
        }
        double per_it = res->iterations > 0 ? res->solve_time / (double)timed_its(res, info) : 0.0;
        fprintf(f, "{\n  \"program\": \"clcg-mpi\", \"version\": \"%s\", \"date\": \"%s\", \"host\": ",
                PACKAGE_VERSION, date);
        json_str(f, host);
        fprintf(f, ",\n  \"ranks\": %d, \"devices_per_rank\": %d, \"idle_gpus\": %d, \"backend\": ", size,
                info->ndevices, info->idle_gpus);
        json_str(f, info->backend);
        fprintf(f, ",\n  \"device\": ");
        json_str(f, info->device);
        fprintf(f, ", \"platform\": ");
        json_str(f, info->platform);
        fprintf(f, ", \"driver\": ");
        json_str(f, info->driver);
        fprintf(f, ",\n  \"matrix\": ");
        json_str(f, p->name);
        fprintf(f, ", \"n\": %lld, \"nnz\": %lld,\n", (long long)p->A.n, (long long)p->nnz);
        fprintf(f, "  \"options\": {\"rtol\": ");
        json_exact(f, o->rtol);
        fprintf(f, ", \"max_iterations\": %lld, \"precond\": \"%s\", "
                   "\"exchange\": \"%s\", \"format\": \"%s\", \"variant\": \"%s\", \"variant_asked\": \"%s\", "
                   "\"tuning\": ",
                (long long)o->max_it, precond_name(o->precond), exchange_name(o->exchange),
                info->format, info->variant, o->variant);
        json_str(f, info->tuning);
        fprintf(f, ", \"exchange_in_place_ranks\": %d, \"pack_first_ranks\": %d, \"boundary_beside_ranks\": %d",
                info->halo_in_place, info->pack_first, info->side_spmv);
        fprintf(f, ", \"exchange_links\": %d, \"exchange_shared_memory_links\": %d, \"exchange_window_ranks\": %d",
                info->halo_links[1], info->halo_links[0], info->halo_links[2]);
        fprintf(f, "},\n  \"outcome\": \"%s\", \"at_precision_limit\": %s, \"iterations\": %lld, "
                   "\"iterations_run\": %lld, \"timed_iterations\": %lld, \"refinements\": %d, \"correction_variant\": %s%s%s, "
                   "\"standard_corrections\": %d,\n",
                clcg_outcome_name(res->outcome), res->outcome == CLCG_CONVERGED && res->at_limit ? "true" : "false",
                (long long)res->iterations, (long long)info->iterations_run, (long long)timed_its(res, info),
                info->refinements,
                info->refinements ? "\"" : "",
                info->refinements ? (info->rescued || info->std_corrections ? "standard" : info->base_variant) : "null",
                info->refinements ? "\"" : "", info->rescued ? info->refinements : info->std_corrections);
        if (info->rescued)
            fprintf(f, "  \"first_solve\": {\"outcome\": \"%s\", \"iterations\": %lld, \"true_residual\": %.6e},\n",
                    clcg_outcome_name(info->first_outcome), (long long)info->first_iterations,
                    info->first_true_residual);
        fprintf(f, "  \"residual\": {\"recursive\": ");
        json_num(f, res->rel_residual);
        fprintf(f, ", \"true\": ");
        json_num(f, res->true_residual);
        fprintf(f, "}");
        if (info->have_error) {
            fprintf(f, ", \"error_vs_ones\": {\"max\": ");
            json_num(f, info->err_inf);
            fprintf(f, ", \"rel2\": ");
            json_num(f, info->err_rel);
            fprintf(f, "}");
        }
        fprintf(f, ",\n  \"times\": {\"read\": %.6f, \"partition\": %.6f, \"setup\": %.6f, \"device_setup\": %.6f, \"tune\": %.6f, "
                   "\"solve\": %.6f, \"solve_min\": %.6f, \"solve_max\": %.6f, \"per_iteration\": %.9f, "
                   "\"exchange\": %.6f, \"allreduce\": %.6f, \"comm\": %.6f},\n",
                p->t_read, p->t_partition, p->t_setup, info->t_device_setup, info->t_tune, res->solve_time,
                info->solve_min, info->solve_max, per_it, info->t_exchange, info->t_allreduce, info->t_comm);
        fprintf(f, "  \"solve_repeats\": [");
        for (int i = 0; i < info->nrepeats; i++)
            fprintf(f, "%s%.6f", i ? ", " : "", info->solve_times[i]);
        fprintf(f, "],\n");
        fprintf(f, "  \"comm\": {\"bytes_sent_per_iteration_min\": %lld, \"bytes_sent_per_iteration_max\": %lld},\n",
                (long long)info->bytes_sent_min, (long long)info->bytes_sent_max);
        fprintf(f, "  \"launches_per_iteration\": %.2f, \"syncs_per_iteration\": %.2f,\n",
                info->launches_per_it, info->syncs_per_it);
        fprintf(f, "  \"kernels\": [");
        for (int i = 0; i < info->nk; i++) {
            const clcg_kstat *k = &info->k[i];
            fprintf(f, "%s\n    {\"name\": \"%s\", \"calls\": %lld, \"time\": %.9f, \"bytes\": %.0f, \"gbps\": ",
                    i ? "," : "", k->name, (long long)k->calls, k->time, k->bytes);
            json_num(f, k->time > 0 ? k->bytes / k->time / 1e9 : 0.0);
            fprintf(f, "}");
        }
        fprintf(f, "%s]\n}\n", info->nk ? "\n  " : "");
        /* a write that failed on the way (a full disk) shows in the stream's error flag even
           where the last flush succeeds; on disk before the rename, as the other outputs */
        errno = 0;
        int bad = fflush(f) != 0 || ferror(f) ? (errno ? errno : EIO) : 0;
        if (!bad && !direct && fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS)
            bad = errno;
        if (fclose(f) != 0 || bad) {
            st = clcg_error(CLCG_ERR_IO, "%s: cannot write: %s", o->json, strerror(bad ? bad : errno));
            if (!direct)
                remove(tmp);
        } else if (!direct) {   /* renamed by clcg_held_commit */
            char *t = strdup(tmp);
            if (t) {
                clcg_held_keep(held, t, target, o->json);
                target = NULL;
            } else {
                remove(tmp);
                st = clcg_error(CLCG_ERR_MEMORY, "out of memory for a file name");
            }
        }
        clcg_tmp_file(NULL);
        free(target);
    }
    return clcg_agree(comm, st, NULL);
}
