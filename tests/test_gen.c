/* Generated problems: any block of rows equals that block of the whole matrix, the row
 * counts used for partitioning match, rows sorted without duplicates, exact symmetry,
 * strict diagonal dominance and power-law row lengths for random, the weak sizes, and the
 * usage errors.  Ends by timing one random generation (random:1000000,16, or argv[1]). */
#include "clcg_impl.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Row r's entries [ptr[r], ptr[r+1]) of a full generation; -1 on a malformed layout. */
static int row_pointers(const clcg_coo *a, int64_t n, int64_t *ptr)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        ptr[i] = k;
        while (k < a->len && a->row[k] == i)
            k++;
    }
    ptr[n] = k;
    return k == a->len ? 0 : -1;
}

static int same_triplets(const clcg_coo *a, const clcg_coo *b)
{
    if (a->len != b->len)
        return 0;
    return !memcmp(a->row, b->row, (size_t)a->len * sizeof *a->row) &&
           !memcmp(a->col, b->col, (size_t)a->len * sizeof *a->col) &&
           !memcmp(a->val, b->val, (size_t)a->len * sizeof *a->val);
}

/* Position of column j in row i, or -1. */
static int64_t find(const clcg_coo *a, const int64_t *ptr, int64_t i, int64_t j)
{
    int64_t lo = ptr[i], hi = ptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->col[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ptr[i + 1] && a->col[lo] == j ? lo : -1;
}

static void check_spec(const char *spec, int nranks, int64_t expect_n)
{
    clcg_gen g;
    clcg_coo full = {0}, parts = {0};
    int64_t *ptr = NULL;
    clcg_status st = clcg_gen_parse(spec, nranks, &g);
    tap_ok(st == CLCG_OK, "%s on %d rank%s parses (%s)", spec, nranks, nranks == 1 ? "" : "s",
           st == CLCG_OK ? g.name : clcg_error_message());
    if (st != CLCG_OK)
        return;
    const int64_t n = g.n;
    if (expect_n > 0)
        tap_ok(n == expect_n, "%s: n = %lld (want %lld)", spec, (long long)n, (long long)expect_n);

    st = clcg_gen_rows(&g, 0, n, &full);
    tap_ok(st == CLCG_OK && full.n == n && !full.symmetric, "%s: all %lld rows, %lld entries", spec,
           (long long)n, (long long)full.len);
    if (st != CLCG_OK)
        goto out;

    /* three blocks at uneven cuts, appended to one array */
    int64_t c1 = n / 7, c2 = n - n / 3;
    st = clcg_gen_rows(&g, 0, c1, &parts);
    if (st == CLCG_OK)
        st = clcg_gen_rows(&g, c1, c2 - c1, &parts);
    if (st == CLCG_OK)
        st = clcg_gen_rows(&g, c2, n - c2, &parts);
    tap_ok(st == CLCG_OK && same_triplets(&full, &parts),
           "%s: rows [0,%lld) [%lld,%lld) [%lld,%lld) equal the whole", spec, (long long)c1,
           (long long)c1, (long long)c2, (long long)c2, (long long)n);

    if (clcg_malloc(&ptr, (size_t)n + 1, sizeof *ptr, "row pointers") != CLCG_OK)
        goto out;
    int layout = row_pointers(&full, n, ptr) == 0;
    int64_t bad_count = -1, bad_order = -1, empty = -1;
    int64_t minlen = INT64_MAX, maxlen = 0;
    for (int64_t i = 0; layout && i < n; i++) {
        int64_t len = ptr[i + 1] - ptr[i];
        if (len < minlen) minlen = len;
        if (len > maxlen) maxlen = len;
        if (len == 0 && empty < 0)
            empty = i;
        if (clcg_gen_row_nnz(&g, i) != len && bad_count < 0)
            bad_count = i;
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++)
            if (full.col[k] < 0 || full.col[k] >= n ||
                (k > ptr[i] && full.col[k] <= full.col[k - 1])) {
                if (bad_order < 0)
                    bad_order = i;
            }
    }
    tap_ok(layout && empty < 0, "%s: rows in order, none empty (first empty %lld)", spec,
           (long long)empty);
    tap_ok(layout && bad_count < 0, "%s: clcg_gen_row_nnz matches every row (first bad %lld)", spec,
           (long long)bad_count);
    tap_ok(layout && bad_order < 0, "%s: columns in range, strictly ascending (first bad row %lld)",
           spec, (long long)bad_order);
    if (!layout)
        goto out;

    /* exact symmetry: (j,i) holds the same double as (i,j) */
    int64_t asym = -1;
    for (int64_t k = 0; k < full.len && asym < 0; k++) {
        int64_t t = find(&full, ptr, full.col[k], full.row[k]);
        if (t < 0 || full.val[t] != full.val[k])
            asym = k;
    }
    tap_ok(asym < 0, "%s: exactly symmetric%s", spec, asym < 0 ? "" : " (mismatch found)");

    if (g.kind == CLCG_GEN_RANDOM) {
        int64_t weak_row = -1, bad_w = -1;
        double margin_lo = INFINITY, margin_hi = -INFINITY;
        for (int64_t i = 0; i < n && weak_row < 0; i++) {
            double diag = 0, off = 0;
            for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
                if (full.col[k] == i) {
                    diag = full.val[k];
                } else {
                    off += fabs(full.val[k]);
                    if (!(full.val[k] >= -1.5 && full.val[k] < -0.5) && bad_w < 0)
                        bad_w = i;
                }
            }
            if (!(diag > 0 && diag > off))
                weak_row = i;
            if (diag - off < margin_lo) margin_lo = diag - off;
            if (diag - off > margin_hi) margin_hi = diag - off;
        }
        tap_ok(weak_row < 0, "%s: diagonal positive, strictly dominant (first bad row %lld)", spec,
               (long long)weak_row);
        tap_ok(bad_w < 0, "%s: off-diagonals in [-1.5, -0.5) (first bad row %lld)", spec,
               (long long)bad_w);
        /* A*1 is the row margins: a varied vector, so b = A*1 is no eigenvector of A */
        if (n >= 100)
            tap_ok(margin_lo > 0.49 && margin_hi < 1.51 && margin_hi - margin_lo > 0.5,
                   "%s: diagonal margins a_ii - sum|a_ij| in [%.3f, %.3f]", spec, margin_lo,
                   margin_hi);
        double mean = (double)full.len / (double)n;
        tap_diag("%s: nnz %lld, nnz/n %.2f (AVG %g), rows %lld..%lld, max/mean %.1f", spec,
                 (long long)full.len, mean, g.avg_degree, (long long)minlen, (long long)maxlen,
                 (double)maxlen / mean);
        tap_ok(minlen >= 1 && maxlen <= CLCG_GEN_MAX_ROW, "%s: row lengths in [1, %d]", spec,
               CLCG_GEN_MAX_ROW);
        if (n >= 100000) {
            tap_ok(fabs(mean - g.avg_degree) <= 0.3 * g.avg_degree, "%s: nnz/n %.2f within 30%% of %g",
                   spec, mean, g.avg_degree);
            tap_ok(maxlen >= 20 * mean, "%s: max/mean row length %.1f >= 20", spec,
                   (double)maxlen / mean);
            int64_t hist[13] = {0};
            for (int64_t i = 0; i < n; i++) {
                int64_t len = ptr[i + 1] - ptr[i];
                int b = 0;
                while (b < 12 && ((int64_t)2 << b) <= len)
                    b++;
                hist[b]++;
            }
            for (int b = 0; b < 13; b++)
                if (hist[b])
                    tap_diag("  rows of length [%lld, %lld): %lld", (long long)1 << b,
                             (long long)2 << b, (long long)hist[b]);
        }
    }
out:
    free(ptr);
    clcg_coo_free(&full);
    clcg_coo_free(&parts);
}

static void check_bad(const char *spec, int nranks)
{
    clcg_gen g;
    clcg_error_clear();
    clcg_status st = clcg_gen_parse(spec, nranks, &g);
    const char *msg = clcg_error_message();
    tap_ok(st == CLCG_ERR_USAGE && msg && *msg, "'%s' is a usage error: %s", spec,
           msg ? msg : "(no message)");
    clcg_error_clear();
}

/* Same seed, same matrix; another seed, another one. */
static void check_seeds(void)
{
    clcg_gen a, b, c;
    clcg_coo ta = {0}, tb = {0}, tc = {0};
    int ok = clcg_gen_parse("random:50000,12,5", 1, &a) == CLCG_OK &&
             clcg_gen_parse("random:50000,12,5", 1, &b) == CLCG_OK &&
             clcg_gen_parse("random:50000,12,6", 1, &c) == CLCG_OK &&
             clcg_gen_rows(&a, 0, a.n, &ta) == CLCG_OK && clcg_gen_rows(&b, 0, b.n, &tb) == CLCG_OK &&
             clcg_gen_rows(&c, 0, c.n, &tc) == CLCG_OK;
    tap_ok(ok && same_triplets(&ta, &tb), "random: same seed, same matrix");
    tap_ok(ok && !same_triplets(&ta, &tc), "random: another seed, another matrix");
    clcg_coo_free(&ta);
    clcg_coo_free(&tb);
    clcg_coo_free(&tc);
}

static void time_random(const char *spec)
{
    clcg_gen g;
    clcg_coo t = {0};
    if (clcg_gen_parse(spec, 1, &g) != CLCG_OK) {
        tap_ok(0, "%s parses", spec);
        return;
    }
    double t0 = MPI_Wtime();
    int64_t total = 0, maxlen = 0;
    for (int64_t i = 0; i < g.n; i++) {
        int64_t len = clcg_gen_row_nnz(&g, i);
        total += len;
        if (len > maxlen)
            maxlen = len;
    }
    double t1 = MPI_Wtime();
    clcg_status st = clcg_gen_rows(&g, 0, g.n, &t);
    double t2 = MPI_Wtime();
    tap_ok(st == CLCG_OK && t.len == total, "%s: %lld entries generated, as counted", spec,
           (long long)t.len);
    tap_diag("%s: count all rows %.3f s, generate all rows %.3f s (%.1f M entries/s), "
             "nnz/n %.2f, max row %lld", spec, t1 - t0, t2 - t1, (double)t.len / (t2 - t1) / 1e6,
             (double)total / (double)g.n, (long long)maxlen);
    clcg_coo_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);

    check_spec("poisson2d:7,5", 1, 35);
    check_spec("poisson3d:6,5,4", 1, 120);
    check_spec("poisson3d27:5", 1, 125);
    check_spec("poisson3d27:4,3,5", 1, 60);
    check_spec("poisson2d-weak:9", 3, 9 * 9 * 3);
    check_spec("poisson3d-weak:5", 4, 5 * 5 * 5 * 4);
    check_spec("poisson3d27-weak:4,3,2", 2, 4 * 3 * 2 * 2);
    check_spec("poisson3d-weak:6", 1, 216);
    {
        clcg_gen w, s;
        clcg_coo tw = {0}, ts = {0};
        int ok = clcg_gen_parse("poisson3d-weak:6", 5, &w) == CLCG_OK &&
                 clcg_gen_parse("poisson3d:6,6,30", 1, &s) == CLCG_OK &&
                 clcg_gen_rows(&w, 0, w.n, &tw) == CLCG_OK && clcg_gen_rows(&s, 0, s.n, &ts) == CLCG_OK;
        tap_ok(ok && same_triplets(&tw, &ts), "poisson3d-weak:6 on 5 ranks is poisson3d:6,6,30");
        clcg_coo_free(&tw);
        clcg_coo_free(&ts);
    }
    check_spec("random:1", 1, 1);
    check_spec("random:2", 1, 2);
    check_spec("random:100,5", 1, 100);
    check_spec("random:5000,32,3", 1, 5000);
    check_spec("random:20000", 1, 20000);
    check_spec("random:200000", 1, 200000);
    check_spec("random:300000,8,7", 1, 300000);
    check_spec("random:150000,40,11", 1, 150000);
    check_seeds();

    check_bad("random:0", 1);
    check_bad("random:10,x", 1);
    check_bad("random:10,2", 1);
    check_bad("random:10,16,-3", 1);
    check_bad("random:10,16,4,1", 1);
    check_bad("random:", 1);
    check_bad("poisson3d-weak:0", 4);
    check_bad("poisson3d-weak:2,2", 2);
    check_bad("poisson2d:0,4", 1);
    check_bad("poisson4d:8", 1);
    check_bad("random-weak:8", 1);
    check_bad("poisson3d", 1);

    /* a larger one may be named on the command line: tests/test_gen random:5000000,16 */
    time_random(argc > 1 ? argv[1] : "random:1000000,16");

    MPI_Finalize();
    return tap_done();
}
