/* Matrix Market reading speed: clcg_mm_read_matrix (MB/s of file text) and
 * clcg_csr_from_coo, timed apart with MPI_Wtime on one process.
 *
 *   bench_mm_read [M] [--random-values]   write the 3D Poisson 7-point matrix of an
 *                                         M^3 grid (lower triangle, default M = 160,
 *                                         about 300 MB) to a temporary file, read it
 *                                         back, remove it
 *   bench_mm_read FILE                    read an existing file (plain or .gz)
 *
 * --random-values replaces the integer stencil values by full-precision ones
 * (17 significant digits, as "%.17g" writes them), which take the strtod path. */
#include "csr.h"
#include "mm.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Lower triangle of the 7-point Laplacian on an m^3 grid, as CSR. */
static clcg_status poisson_lower(int64_t m, int random_values, clcg_csr *a)
{
    int64_t n = m * m * m, i, x, y, z, k = 0;
    uint64_t r = 12345;

    memset(a, 0, sizeof *a);
    a->n = a->nrows = a->ncols = n;
    CLCG_CALL(clcg_malloc(&a->rowptr, (size_t)n + 1, sizeof *a->rowptr, "row pointers"));
    CLCG_CALL(clcg_malloc(&a->colind, (size_t)(4 * n), sizeof *a->colind, "column indices"));
    CLCG_CALL(clcg_malloc(&a->val, (size_t)(4 * n), sizeof *a->val, "values"));
    for (z = 0; z < m; z++)
        for (y = 0; y < m; y++)
            for (x = 0; x < m; x++) {
                int64_t nb[3], t;
                int c = 0;
                i = (z * m + y) * m + x;
                a->rowptr[i] = k;
                if (z > 0)
                    nb[c++] = i - m * m;
                if (y > 0)
                    nb[c++] = i - m;
                if (x > 0)
                    nb[c++] = i - 1;
                for (t = 0; t < c; t++) {
                    double v = -1.0;
                    if (random_values) {
                        r ^= r << 13;
                        r ^= r >> 7;
                        r ^= r << 17;
                        v = -1.0 + (double)(r >> 11) / 9007199254740992.0 * 1e-3;
                    }
                    a->colind[k] = (int32_t)nb[t];
                    a->val[k++] = v;
                }
                a->colind[k] = (int32_t)i;
                a->val[k++] = 6.0;
            }
    a->rowptr[n] = k;
    a->nnz = k;
    return CLCG_OK;
}

static void machine(void)
{
    struct utsname u;
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", localtime(&now));
    if (uname(&u) == 0)
        printf("machine: %s %s %s %s\n", u.sysname, u.nodename, u.release, u.machine);
    printf("date:    %s\n", when);
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_mm_read: %s: %s\n", what, clcg_error_message());
    MPI_Finalize();
    return 1;
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    char made[512] = "";
    int64_t m = 160;
    int random_values = 0, k;
    struct stat sb;
    clcg_mm_header h;
    clcg_coo a;
    clcg_csr c;
    double t0, t_read, t_asm;

    MPI_Init(&argc, &argv);
    for (k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--random-values") == 0)
            random_values = 1;
        else if (stat(argv[k], &sb) == 0)
            file = argv[k];
        else if (atoll(argv[k]) > 1)
            m = atoll(argv[k]);
        else {
            fprintf(stderr, "usage: %s [M] [--random-values] | FILE\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    machine();

    if (!file) {
        const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        clcg_csr g;
        snprintf(made, sizeof made, "%s/bench_mm_read_%lld_%ld.mtx", tmpdir, (long long)m,
                 (long)getpid());
        if (poisson_lower(m, random_values, &g) != CLCG_OK)
            return fail("generating the matrix");
        t0 = MPI_Wtime();
        if (clcg_mm_write_csr(made, &g, 1) != CLCG_OK)
            return fail("writing the matrix");
        printf("wrote   %s: 3D Poisson %lld^3, %lld entries (%s values) in %.2f s\n", made,
               (long long)m, (long long)g.nnz, random_values ? "17-digit" : "integer",
               MPI_Wtime() - t0);
        clcg_csr_free(&g);
        file = made;
    }
    if (stat(file, &sb) != 0) {
        fprintf(stderr, "bench_mm_read: %s vanished\n", file);
        MPI_Finalize();
        return 1;
    }

    t0 = MPI_Wtime();
    if (clcg_mm_read_matrix(file, &h, &a) != CLCG_OK)
        return fail("reading");
    t_read = MPI_Wtime() - t0;
    t0 = MPI_Wtime();
    if (clcg_csr_from_coo(file, &a, 1, &c) != CLCG_OK)
        return fail("assembling");
    t_asm = MPI_Wtime() - t0;

    printf("file    %s: %.4s, n = %lld, %lld entries, %.1f MB on disk%s\n", file, h.type,
           (long long)h.nrows, (long long)h.nentries, (double)sb.st_size / 1e6,
           h.gz ? " (gzip)" : "");
    printf("read    %8.3f s  %8.1f MB/s of %s  %6.1f M entries/s\n", t_read,
           (double)sb.st_size / 1e6 / t_read, h.gz ? "compressed file" : "file text",
           (double)h.nentries / 1e6 / t_read);
    printf("csr     %8.3f s  %8.1f M triplets/s  (nnz %lld after expansion and merging)\n",
           t_asm, (double)a.len / 1e6 / t_asm, (long long)c.nnz);

    clcg_coo_free(&a);
    clcg_csr_free(&c);
    if (made[0])
        unlink(made);
    MPI_Finalize();
    return 0;
}
