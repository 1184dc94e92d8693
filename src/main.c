/* clcg-mpi: command-line driver.  Parse options, load the system, solve, report. */
#define _DEFAULT_SOURCE   /* setenv */
#include "config.h"
#include "mm.h"
#include "csr.h"
#include "dist.h"
#include "problem.h"
#include "report.h"
#include "solve.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(MPI_Comm comm, clcg_status st)
{
    int rank, size, who = -1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    st = clcg_agree(comm, st, &who);
    if (rank == 0) {
        if (size > 1 && who > 0)   /* another rank's failure */
            fprintf(stderr, "clcg-mpi: rank %d: %s\n", who, clcg_error_message());
        else
            fprintf(stderr, "clcg-mpi: %s\n", clcg_error_message());
    }
    return clcg_exit_code_status(st);
}

static int stdout_closed;   /* closed at the start (stand_in_for_closed) */

/* What rank 0 printed reached standard output (a full disk under a batch job's output file,
 * /dev/full): else a message and status 3, as for an output file that cannot be written. */
static clcg_status stdout_status(MPI_Comm comm)
{
    int rank;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        errno = 0;
        const int flushed = fflush(stdout) == 0, e = errno;
        if (!flushed || ferror(stdout))
            st = clcg_error(CLCG_ERR_INPUT, "cannot write the report to standard output: %s",
                            stdout_closed ? strerror(EBADF) : !flushed && e ? strerror(e) : "write error");
    }
    return clcg_agree(comm, st, NULL);
}

/* The exit status of a run that ends here well: 0, or 3 where the printed report was lost. */
static int finish(MPI_Comm comm)
{
    clcg_status st = stdout_status(comm);
    return st != CLCG_OK ? fail(comm, st) : 0;
}

/* Every rank must be started with the same arguments (and the same values of the variables
 * below: CLCG_DEVICE_TYPE sets an option, the others how many collective steps a solve or a
 * read takes): ranks that parse different options take different paths, and one would wait
 * forever in a collective call that another skips.  Compared by a hash, on every rank.  (The
 * CLCG_* switches that options.c reads are agreed after the parse, with their own message.) */
static const char *const same_env[] = {"CLCG_DEVICE_TYPE", "CLCG_WARMUP", "CLCG_MPIIO_ONLY", "CLCG_READ_CHUNK",
                                       "CLCG_PARSE_MIN", "CLCG_BINARY_WIDE"};
#define NSAME_ENV ((int)(sizeof same_env / sizeof same_env[0]))

static clcg_status same_arguments(MPI_Comm comm, int argc, char **argv)
{
    uint64_t h = 1469598103934665603ull, lo = 0, hi = 0;
    for (int i = 1; i < argc + NSAME_ENV; i++) {
        const char *a = i < argc ? argv[i] : getenv(same_env[i - argc]);
        for (const char *c = a ? a : ""; ; c++) {
            h = (h ^ (unsigned char)*c) * 1099511628211ull;
            if (!*c)
                break;
        }
        h = (h ^ (uint64_t)(a != NULL)) * 1099511628211ull;
    }
    if (MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the argument hash failed");
    if (lo != hi)
        return clcg_error(CLCG_ERR_USAGE, "the ranks were started with different arguments (or CLCG_DEVICE_TYPE, "
                          "CLCG_WARMUP, ...): give every rank the same");
    return CLCG_OK;
}

/* The line that says a matrix file was written, kept in line (len bytes) for place_written */
static void wrote_line(char *line, size_t len, const char *path, int64_t n, int64_t nnz, const char *how)
{
    snprintf(line, len, "wrote %s: n = %lld, nnz = %lld (%s)\n", path, (long long)n, (long long)nnz, how);
}

/* --write-matrix of a binary file: rank 0 reads it whole (its rows hold global columns) */
static clcg_status binary_to_mm(const clcg_options *o, clcg_held *held, char *line, size_t len)
{
    int64_t row_begin[2];
    clcg_csr A = {0};
    clcg_gidx *gcol = NULL;
    clcg_dist_info info;
    memset(&info, 0, sizeof info);
    clcg_status st = clcg_dist_read_binary(MPI_COMM_SELF, o->matrix, o->symmetry_check, row_begin, &A, &gcol, &info);
    if (st == CLCG_OK && A.n > INT32_MAX)
        st = clcg_error(CLCG_ERR_INPUT, "%s: %lld rows: too many for --write-matrix", o->matrix, (long long)A.n);
    for (int64_t k = 0; st == CLCG_OK && gcol && k < A.nnz; k++)   /* a file with 64-bit columns */
        A.colind[k] = (int32_t)gcol[k];   /* each < n <= INT32_MAX, checked by the reader */
    A.ncols = A.n;   /* no halo set up: the columns are global */
    /* both triangles are stored; one whose symmetry was never checked is written whole, and
       one marked as checked is tested here too (a file made by hand can carry the mark while
       its triangles differ, and writing the lower one would make another matrix of it) */
    int sym = !info.unchecked;
    if (st == CLCG_OK && sym && o->symmetry_check)
        st = clcg_csr_check_symmetric(o->matrix, &A, "a binary file marked as symmetric; --no-symmetry-check "
                                      "writes every entry, as a general matrix");
    else if (st == CLCG_OK && sym && clcg_csr_check_symmetric(o->matrix, &A, "") != CLCG_OK) {
        clcg_error_clear();   /* --no-symmetry-check: kept as it is, every entry */
        sym = 0;
    }
    if (st == CLCG_OK)
        st = clcg_mm_write_csr_held(o->write_matrix, &A, sym, held);
    if (st == CLCG_OK && !o->quiet)
        wrote_line(line, len, o->write_matrix, A.n, A.nnz,
                   sym ? "symmetric, lower triangle stored" : "general, every entry stored");
    free(gcol);
    clcg_csr_free(&A);
    return st;
}

/* What a --write-matrix refused for memory can do instead */
#define WM_ADVICE "--write-matrix assembles the whole matrix on rank 0 (--write-binary writes from every rank)"

/* --write-matrix: rank 0 builds or reads the whole matrix and writes it, left in held for
 * place_written with the line that says so; the rest wait. */
static clcg_status write_matrix(MPI_Comm comm, const clcg_options *o, clcg_held *held, char *line, size_t len)
{
    int rank, binary = 0;
    clcg_status st = CLCG_OK;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0)
        clcg_tmp_expect(o->write_matrix);
    if (o->matrix)
        CLCG_CALL(clcg_dist_probe_binary(comm, o->matrix, &binary));
    if (rank == 0 && binary) {
        st = binary_to_mm(o, held, line, len);
    } else if (rank == 0) {
        clcg_coo t = {0};
        clcg_csr A = {0};
        clcg_mm_header h = {0};
        if (o->generate) {   /* a -weak form is the size of this run's rank count */
            clcg_gen g;
            int size;
            MPI_Comm_size(comm, &size);
            st = clcg_gen_parse(o->generate, size, &g);
            if (st == CLCG_OK && g.n > INT32_MAX - 1)   /* rank 0 alone builds and writes it */
                st = clcg_error(CLCG_ERR_USAGE, "--write-matrix: --generate %s has %" PRId64 " rows, more than the "
                                "%d one rank writes (--write-binary writes on every rank)", o->generate, g.n,
                                INT32_MAX - 1);
            if (st == CLCG_OK) {   /* rank 0 builds all of it: triplets, then the rows */
                char what[200];
                const double nnz = clcg_gen_nnz_least(&g);
                snprintf(what, sizeof what, "--write-matrix: --generate %s (n = %" PRId64 ", nnz >= %.0f)", o->generate,
                         g.n, nnz);
                st = clcg_memory_check_advice(CLCG_PEAK_MTX_ENTRY * nnz + CLCG_PEAK_MTX_ROW * (double)g.n, 1, what,
                                              WM_ADVICE);
            }
            if (st == CLCG_OK)
                st = clcg_gen_rows(&g, 0, g.n, &t);
        } else {
            st = clcg_mm_read_matrix(o->matrix, &h, &t);
            if (st == CLCG_OK)   /* what a solve refuses before it makes anything of the rows' size */
                st = clcg_mm_enough_entries(o->matrix, &h);
            if (st == CLCG_OK)
                st = clcg_mm_one_triangle(o->matrix, t.line_below, t.line_above);
            if (st == CLCG_OK) {   /* rank 0 assembles all of it, as one rank's read does */
                char what[4200];
                const double e = (double)h.nentries, n = (double)h.nrows;
                const int sym = clcg_mm_is_symmetric(&h);
                const double stored = sym ? 2.0 * e - (e < n ? e : n) : e;
                /* a general file checked for symmetry holds its mirrors too, as the reader's */
                const double per = !sym && o->symmetry_check ? CLCG_PEAK_MTX_CHECKED_ENTRY : CLCG_PEAK_MTX_ENTRY;
                snprintf(what, sizeof what, "--write-matrix: %s (n = %" PRId64 ", %" PRId64 " entries)", o->matrix,
                         h.nrows, h.nentries);
                st = clcg_memory_check_advice(per * stored + CLCG_PEAK_MTX_ROW * n, 1, what, WM_ADVICE);
            }
        }
        if (st == CLCG_OK)
            st = clcg_csr_from_coo(o->generate ? o->generate : o->matrix, &t,
                                   o->symmetry_check && !o->generate, &A);
        clcg_coo_free(&t);
        /* a general file taken without the symmetry check may not be symmetric: all of it */
        const int sym = o->generate || o->symmetry_check || clcg_mm_is_symmetric(&h);
        if (st == CLCG_OK)
            st = clcg_mm_write_csr_held(o->write_matrix, &A, sym, held);
        if (st == CLCG_OK && !o->quiet)
            wrote_line(line, len, o->write_matrix, A.n, A.nnz,
                       sym ? "symmetric, lower triangle stored" : "general, every entry stored");
        clcg_csr_free(&A);
    }
    return clcg_agree(comm, st, NULL);
}

/* A matrix file written in full (held on rank 0) goes into place once every rank has done
 * its part and the line that says so (line, on rank 0; empty with -q) has reached standard
 * output: a run that fails, that line included, leaves a file of that name as it was, and a
 * run that another rank's failure ends prints no such line. */
static clcg_status place_written(MPI_Comm comm, clcg_held *out, clcg_status st, const char *line)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    st = clcg_agree(comm, st, NULL);
    if (st == CLCG_OK && rank == 0 && *line)
        fputs(line, stdout);
    if (st == CLCG_OK)
        st = stdout_status(comm);
    if (st == CLCG_OK)
        st = clcg_held_commit(out);
    clcg_held_drop(out);   /* no-op after a commit */
    return clcg_agree(comm, st, NULL);
}

/* The solution file and the --json record, each written in full to a temporary name, go
 * into place only once both are written and the report printed: a run that fails leaves
 * files of those names as they were.  The solution is renamed first; should that rename
 * fail, the record is not put in place either, and should the record's rename fail after
 * it, the earlier solution file (kept meanwhile under a second name, a hard link) goes back,
 * or the new one is removed where there was none.  (A device, pipe or descriptor output is
 * written through in place, before.) */
static clcg_status place_outputs(MPI_Comm comm, clcg_held *sol, clcg_held *rec, clcg_status st)
{
    char *target = NULL, *old = NULL;
    int had = -1, slot = 0;   /* had: 1 kept at old, 0 no earlier file, -1 no way back */
    if (st == CLCG_OK && sol->tmp && rec->tmp) {
        const size_t len = strlen(sol->target) + 32;
        target = strdup(sol->target);
        old = malloc(len);
        if (target && old) {
            snprintf(old, len, "%s.old.%ld", sol->target, (long)getpid());
            if (link(sol->target, old) == 0) {
                had = 1;
                slot = clcg_tmp_hold(old);
            } else if (errno == ENOENT) {
                had = 0;
            }
        }
    }
    if (st == CLCG_OK)
        st = clcg_held_commit(sol);
    if (st == CLCG_OK) {
        if (rec->tmp && clcg_fault_armed(0, "place"))   /* tests: the record's rename fails */
            unlink(rec->tmp);
        st = clcg_held_commit(rec);
        if (st != CLCG_OK && had == 1)
            rename(old, target);
        else if (st != CLCG_OK && had == 0)
            unlink(target);
    }
    if (had == 1)
        unlink(old);   /* no file of that name after a rename back */
    clcg_tmp_release(slot);
    free(target);
    free(old);
    clcg_held_drop(sol);   /* what is left after a failure (no-ops after a commit) */
    clcg_held_drop(rec);
    return clcg_agree(comm, st, NULL);
}

/* Standard input, output or error closed when the program starts: /dev/null put in its place,
 * read-only, before MPI_Init opens descriptors of its own.  Otherwise the MPI library's pipes
 * take those numbers and the report goes into one of them, lost without a word; a read-only
 * stand-in fails every write (EBADF) as the closed descriptor would. */
static void stand_in_for_closed(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            const int got = open("/dev/null", O_RDONLY);   /* the lowest free number: fd */
            stdout_closed |= fd == 1;
            if (got >= 0 && got != fd)
                close(got);
        }
}

int main(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    clcg_options o;
    clcg_problem p;
    clcg_solve_result res;
    clcg_run_info info;
    int rank, size, exit_now = 0, code;
    clcg_status st;

    stand_in_for_closed();
    /* Open MPI's "lockedfile" shared-file-pointer component overflows a fixed buffer on long
     * path names as soon as MPI_File_open considers it (abort, "buffer overflow detected");
     * shared file pointers are never used here, so it is left out unless the user chose. */
    setenv("OMPI_MCA_sharedfp", "^lockedfile", 0);
    /* Open MPI's hwloc loads its GPU plugins inside MPI_Init, and with them the OpenCL and
     * CUDA drivers, which a run that touches no device (--load-only, the writers) never
     * needs and a solve loads anyway: left out unless the user chose (2 H200, 2026-11-27: a
     * singleton's --load-only of Poisson 256^3 in binary form 1.28-1.34 s -> 0.72-0.77 s). */
    setenv("HWLOC_COMPONENTS", "-opencl,-cuda,-nvml,-gl,-rsmi,-levelzero", 0);
    clcg_tmp_ignored();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    clcg_tmp_guard();
    {   /* the other ranks guard rank 0's temporary files too */
        long pid0 = (long)getpid();
        MPI_Bcast(&pid0, 1, MPI_LONG, 0, comm);
        clcg_tmp_set_pid0(pid0);
    }
    {
        MPI_Comm node;
        int lsize = 1;
        if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
            MPI_Comm_size(node, &lsize);
            MPI_Comm_free(&node);
        }
        clcg_threads_share(lsize);
    }
    memset(&p, 0, sizeof p);
    memset(&res, 0, sizeof res);
    memset(&info, 0, sizeof info);

    st = same_arguments(comm, argc, argv);
    if (st == CLCG_OK)   /* the same arguments, but the CLCG_* switches it checks may differ */
        st = clcg_agree(comm, clcg_options_parse(argc, argv, rank, &o, &exit_now), NULL);
    if (st == CLCG_OK && !exit_now && !o.list_devices)
        st = clcg_options_check_paths(comm, &o);
    if (st != CLCG_OK || exit_now) {
        code = st != CLCG_OK ? fail(comm, st) : finish(comm);
        MPI_Finalize();
        return code;
    }
    clcg_options_warn_idle(&o, rank);
    if (o.list_devices) {
        st = clcg_solve_list_devices(comm, &o);
        code = st != CLCG_OK ? fail(comm, st) : finish(comm);
        MPI_Finalize();
        return code;
    }
    if (o.write_matrix) {
        clcg_held out = {0};
        char line[4400] = "";
        st = write_matrix(comm, &o, &out, line, sizeof line);
        st = place_written(comm, &out, st, line);
        code = st != CLCG_OK ? fail(comm, st) : 0;
        MPI_Finalize();
        return code;
    }

    if (o.write_binary) {
        int64_t bn = 0, bnnz = 0;
        clcg_held out = {0};
        char line[4400] = "";
        st = clcg_problem_write_binary(comm, &o, &out, &bn, &bnnz);
        if (st == CLCG_OK && rank == 0 && !o.quiet)
            wrote_line(line, sizeof line, o.write_binary, bn, bnnz, "binary, both triangles");
        st = place_written(comm, &out, st, line);
        code = st != CLCG_OK ? fail(comm, st) : 0;
        MPI_Finalize();
        return code;
    }

    st = clcg_problem_load(comm, &o, &p);
    if (st != CLCG_OK) {
        code = fail(comm, st);
        clcg_problem_free(&p);
        MPI_Finalize();
        return code;
    }
    if (o.load_only) {
        if (rank == 0 && !o.quiet)
            printf("%s: n = %lld, nnz = %lld, %d rank%s: read %.3f s, partition %.3f s, setup %.3f s, "
                   "at most %lld entries held on a rank at once while loading\n", p.name, (long long)p.A.n,
                   (long long)p.nnz, size, size == 1 ? "" : "s", p.t_read, p.t_partition, p.t_setup,
                   (long long)p.max_held);
        clcg_problem_free(&p);
        code = finish(comm);
        MPI_Finalize();
        return code;
    }

    clcg_report_header(comm, &o, &p, 1);
    st = clcg_solve(comm, &o, &p, &res, &info);
    if (st == CLCG_OK)
        st = clcg_report_error_vs_ones(comm, &p, &info);
    st = clcg_agree(comm, st, NULL);
    if (st != CLCG_OK) {
        code = fail(comm, st);
        clcg_solve_info_free(&info);
        clcg_problem_free(&p);
        clcg_allreduce_dd_free();
        MPI_Finalize();
        return code;
    }
    code = clcg_exit_code_outcome(res.outcome);
    clcg_held sol = {0}, rec = {0};
    if (res.outcome == CLCG_CONVERGED && o.output)
        st = clcg_problem_write_solution(comm, &p, o.output, &sol);
    if (st == CLCG_OK) {
        clcg_report_summary(comm, &o, &p, &res, &info);
        st = stdout_status(comm);
    }
    if (st == CLCG_OK && o.json)
        st = clcg_report_json(comm, &o, &p, &res, &info, &rec);
    st = place_outputs(comm, &sol, &rec, st);   /* a failed run leaves no output */
    if (st == CLCG_OK && rank == 0 && !o.quiet && o.output && res.outcome == CLCG_CONVERGED)
        printf("solution written to %s\n", o.output);   /* once it is in place */
    if (st == CLCG_OK)   /* that line lost (a reader gone, SIGPIPE ignored): status 3, as the report's */
        st = stdout_status(comm);
    if (st != CLCG_OK)
        code = fail(comm, st);
    clcg_solve_info_free(&info);
    clcg_problem_free(&p);
    clcg_allreduce_dd_free();
    MPI_Finalize();
    return code;
}
