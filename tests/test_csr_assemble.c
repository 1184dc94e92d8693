/* Triplets -> CSR against a dense reference; the symmetry, empty-row and diagonal
 * checks; Matrix Market write -> read round trips. */
#include "csr.h"
#include "mm.h"
#include "tap.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t rand_below(int64_t n)
{
    return (int64_t)(next_rand() % (uint64_t)n);
}

/* A double with random sign, exponent and all 52 mantissa bits. */
static double rand_double(void)
{
    double m = (double)(next_rand() >> 11) / 9007199254740992.0;
    return (next_rand() & 1 ? -1 : 1) * ldexp(0.5 + m / 2, (int)rand_below(80) - 40);
}

/* CSR well-formed: row pointers monotone, columns strictly increasing per row. */
static int csr_sorted(const clcg_csr *c)
{
    int64_t i, k;
    if (c->rowptr[0] != 0 || c->rowptr[c->nrows] != c->nnz)
        return 0;
    for (i = 0; i < c->nrows; i++) {
        if (c->rowptr[i + 1] < c->rowptr[i])
            return 0;
        for (k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
            if (c->colind[k] < 0 || c->colind[k] >= c->ncols ||
                (k > c->rowptr[i] && c->colind[k] <= c->colind[k - 1]))
                return 0;
    }
    return 1;
}

/* Random triplets with duplicates, unsorted, both triangles or one, and exact
 * (small integer) values so that any summation order gives the same result;
 * compared with a dense sum. */
static void test_random(void)
{
    int trial, bad = 0;
    for (trial = 0; trial < 300 && !bad; trial++) {
        int64_t n = 1 + rand_below(trial < 250 ? 12 : 90), len = rand_below(4 * n * n / 3 + 2);
        int sym = (int)(trial & 1);
        double *dense = calloc((size_t)(n * n), sizeof *dense);
        char *hit = calloc((size_t)(n * n), 1);
        clcg_coo a;
        clcg_csr c;
        clcg_status st;
        int64_t k, i;

        memset(&a, 0, sizeof a);
        a.n = n;
        a.symmetric = sym;
        for (k = 0; k < len + n; k++) {     /* len random entries, then the diagonal */
            int64_t r, col;
            double v;
            if (k < len) {
                r = rand_below(n);
                col = rand_below(n);
                if (trial >= 250 && k % 3 == 0)
                    r = 0;          /* one long row, for the merge sort */
                v = (double)(rand_below(19) - 9);
            } else {
                r = col = k - len;
                v = (double)(10 * (len + 1));
            }
            if (sym && col > r) {
                int64_t t = r;
                r = col;
                col = t;
            }
            clcg_coo_push(&a, r, col, v);
        }
        /* shuffle, so that the diagonal is not last */
        for (k = a.len - 1; k > 0; k--) {
            int64_t m = rand_below(k + 1);
            int64_t tr = a.row[k], tc = a.col[k];
            double tv = a.val[k];
            a.row[k] = a.row[m];
            a.col[k] = a.col[m];
            a.val[k] = a.val[m];
            a.row[m] = tr;
            a.col[m] = tc;
            a.val[m] = tv;
        }
        for (k = 0; k < a.len; k++) {
            dense[a.row[k] * n + a.col[k]] += a.val[k];
            hit[a.row[k] * n + a.col[k]] = 1;
            if (sym && a.row[k] != a.col[k]) {
                dense[a.col[k] * n + a.row[k]] += a.val[k];
                hit[a.col[k] * n + a.row[k]] = 1;
            }
        }
        clcg_error_clear();
        st = clcg_csr_from_coo("rand.mtx", &a, 0, &c);
        if (st != CLCG_OK) {
            tap_diag("trial %d: %s", trial, clcg_error_message());
            bad = 1;
        } else {
            int64_t stored = 0;
            bad = !csr_sorted(&c) || c.n != n || c.nrows != n || c.ncols != n || c.row0 != 0 ||
                  c.ghost != NULL;
            for (i = 0; i < n && !bad; i++)
                for (k = c.rowptr[i]; k < c.rowptr[i + 1]; k++) {
                    int64_t j = c.colind[k];
                    if (!hit[i * n + j] || c.val[k] != dense[i * n + j])
                        bad = 1;
                    stored++;
                }
            for (k = 0; k < n * n; k++)
                stored -= hit[k];
            if (stored != 0)
                bad = 1;
            if (bad)
                tap_diag("trial %d (n %lld, %s) differs from the dense sum", trial,
                         (long long)n, sym ? "symmetric" : "general");
            clcg_csr_free(&c);
        }
        clcg_coo_free(&a);
        free(dense);
        free(hit);
    }
    tap_ok(!bad, "300 random triplet sets (duplicates, unsorted, symmetric expansion, long "
                 "rows) match the dense sum");
}

static clcg_status build(const char *name, int64_t n, int sym, const double *t, int nt,
                         int check, clcg_csr *c)
{
    clcg_coo a;
    clcg_status st;
    int k;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.symmetric = sym;
    for (k = 0; k < nt; k++)
        clcg_coo_push(&a, (int64_t)t[3 * k] - 1, (int64_t)t[3 * k + 1] - 1, t[3 * k + 2]);
    clcg_error_clear();
    st = clcg_csr_from_coo(name, &a, check, c);
    clcg_coo_free(&a);
    return st;
}

static void test_checks(void)
{
    static const double unsym[] = {1, 1, 4, 1, 2, -1, 2, 1, 0.5, 2, 2, 4};
    static const double missing[] = {1, 1, 4, 3, 1, 2, 2, 2, 4, 3, 3, 4};
    static const double empty[] = {1, 1, 4, 2, 2, 4};
    static const double zero_diag[] = {1, 1, 4, 3, 3, 0, 2, 2, 1, 3, 2, 1};
    static const double no_diag[] = {1, 1, 4, 2, 2, 1, 3, 2, 1};
    static const double neg_diag[] = {1, 1, -2.5, 2, 2, 1};
    static const double cancel[] = {1, 1, 4, 2, 2, 3, 2, 2, -3};
    double near[] = {1, 1, 4, 1, 2, 1, 2, 1, 1 + 8 * DBL_EPSILON, 2, 2, 4};
    double far[] = {1, 1, 4, 1, 2, 1, 2, 1, 1 + 1e-10, 2, 2, 4};
    clcg_csr c;
    clcg_status st;
    clcg_coo big;

    st = build("u.mtx", 2, 0, unsym, 4, 1, &c);
    tap_ok(st == CLCG_ERR_INPUT &&
               strcmp(clcg_error_message(), "u.mtx: matrix is not symmetric: A(1,2) = -1 but "
                                            "A(2,1) = 0.5 (use --no-symmetry-check to solve "
                                            "anyway)") == 0,
           "unsymmetric refused: %s", clcg_error_message());
    st = build("u.mtx", 2, 0, unsym, 4, 0, &c);
    tap_ok(st == CLCG_OK && c.nnz == 4, "unsymmetric accepted without the check");
    if (st == CLCG_OK)
        clcg_csr_free(&c);
    st = build("m.mtx", 3, 0, missing, 4, 1, &c);
    tap_ok(st == CLCG_ERR_INPUT && strstr(clcg_error_message(), "A(3,1) = 2 but A(1,3) = 0"),
           "missing mirror entry: %s", clcg_error_message());
    st = build("n.mtx", 2, 0, near, 4, 1, &c);
    tap_ok(st == CLCG_OK, "symmetric within 64 eps: accepted");
    if (st == CLCG_OK)
        clcg_csr_free(&c);
    st = build("f.mtx", 2, 0, far, 4, 1, &c);
    tap_ok(st == CLCG_ERR_INPUT && strstr(clcg_error_message(), "A(2,1) = 1.0000000001"),
           "asymmetry of 1e-10 refused: %s", clcg_error_message());
    st = build("e.mtx", 3, 1, empty, 2, 1, &c);
    tap_ok(st == CLCG_ERR_NOT_SPD &&
               strcmp(clcg_error_message(), "e.mtx: row 3 is empty: the matrix is singular") == 0,
           "empty row: %s", clcg_error_message());
    st = build("z.mtx", 3, 1, zero_diag, 4, 1, &c);
    tap_ok(st == CLCG_ERR_NOT_SPD &&
               strcmp(clcg_error_message(), "z.mtx: diagonal entry A(3,3) = 0 is not positive: "
                                            "the matrix is not positive definite") == 0,
           "zero diagonal: %s", clcg_error_message());
    st = build("d.mtx", 3, 1, no_diag, 3, 1, &c);
    tap_ok(st == CLCG_ERR_NOT_SPD && strcmp(clcg_error_message(), "d.mtx: row 3 has no diagonal entry: the "
                                                                 "matrix is not positive definite") == 0,
           "missing diagonal: %s", clcg_error_message());
    st = build("g.mtx", 2, 0, neg_diag, 2, 1, &c);
    tap_ok(st == CLCG_ERR_NOT_SPD && strstr(clcg_error_message(), "A(1,1) = -2.5 is not"),
           "negative diagonal: %s", clcg_error_message());
    st = build("c.mtx", 2, 0, cancel, 3, 1, &c);
    tap_ok(st == CLCG_ERR_NOT_SPD && strstr(clcg_error_message(), "A(2,2) = 0 is not"),
           "duplicates summing to a zero diagonal: %s", clcg_error_message());

    memset(&big, 0, sizeof big);
    big.n = (int64_t)1 << 31;
    clcg_error_clear();
    st = clcg_csr_from_coo("big.mtx", &big, 1, &c);
    tap_ok(st == CLCG_ERR_INPUT && strstr(clcg_error_message(), "2^31"),
           "n = 2^31 refused: %s", clcg_error_message());
}

/* Random SPD-looking CSR with full-precision values. */
static clcg_status random_csr(int64_t n, clcg_csr *c)
{
    clcg_coo a;
    clcg_status st;
    int64_t i, k;
    memset(&a, 0, sizeof a);
    a.n = n;
    a.symmetric = 1;
    for (i = 0; i < n; i++) {
        clcg_coo_push(&a, i, i, fabs(rand_double()) + 100);
        for (k = 0; k < 3; k++) {
            int64_t j = rand_below(i + 1);
            if (j < i)
                clcg_coo_push(&a, i, j, rand_double());
        }
    }
    st = clcg_csr_from_coo("random", &a, 1, c);
    clcg_coo_free(&a);
    return st;
}

static int csr_equal(const clcg_csr *x, const clcg_csr *y)
{
    return x->n == y->n && x->nnz == y->nnz &&
           memcmp(x->rowptr, y->rowptr, (size_t)(x->n + 1) * sizeof *x->rowptr) == 0 &&
           memcmp(x->colind, y->colind, (size_t)x->nnz * sizeof *x->colind) == 0 &&
           memcmp(x->val, y->val, (size_t)x->nnz * sizeof *x->val) == 0;
}

static void test_round_trips(void)
{
    char path[128], tmp[160];
    clcg_csr c, d;
    clcg_coo a;
    clcg_mm_header h;
    clcg_status st;
    double x[64], *y = NULL;
    int sym, k, same;

    snprintf(path, sizeof path, "%s/A.mtx", dir);
    if (random_csr(300, &c) != CLCG_OK) {
        tap_ok(0, "random matrix: %s", clcg_error_message());
        return;
    }
    for (sym = 1; sym >= 0; sym--) {
        clcg_error_clear();
        st = clcg_mm_write_csr(path, &c, sym);
        if (st == CLCG_OK)
            st = clcg_mm_read_matrix(path, &h, &a);
        if (st == CLCG_OK) {
            st = clcg_csr_from_coo(path, &a, 1, &d);
            clcg_coo_free(&a);
        }
        tap_ok(st == CLCG_OK && h.type[3] == (sym ? 'S' : 'G') && csr_equal(&c, &d),
               "write_csr (%s) -> read -> assemble is bit-exact %s",
               sym ? "symmetric" : "general", clcg_error_message());
        if (st == CLCG_OK)
            clcg_csr_free(&d);
    }
    clcg_csr_free(&c);

    x[0] = 0.0;
    x[1] = -0.0;
    x[2] = 0.1;
    x[3] = DBL_MAX;
    x[4] = -DBL_MIN;
    x[5] = 4.9e-324;
    x[6] = 9007199254740993.0;
    x[7] = -3;
    x[8] = 1e22;
    x[9] = 1.0 / 3;
    for (k = 10; k < 64; k++)
        x[k] = rand_double();
    snprintf(path, sizeof path, "%s/x.mtx", dir);
    clcg_error_clear();
    st = clcg_mm_write_vector(path, x, 64);
    if (st == CLCG_OK)
        st = clcg_mm_read_vector(path, 64, &y);
    same = st == CLCG_OK;
    for (k = 0; same && k < 64; k++)
        same = memcmp(&x[k], &y[k], sizeof x[k]) == 0;
    tap_ok(same, "write_vector -> read_vector is bit-exact %s", clcg_error_message());
    free(y);

    /* failures leave neither the file nor the temporary behind */
    snprintf(path, sizeof path, "%s/nan.mtx", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    x[5] = NAN;
    clcg_error_clear();
    st = clcg_mm_write_vector(path, x, 64);
    tap_ok(st != CLCG_OK && access(path, F_OK) != 0 && access(tmp, F_OK) != 0,
           "a NaN is not written: %s", clcg_error_message());
    snprintf(path, sizeof path, "%s/no/such/folder/x.mtx", dir);
    clcg_error_clear();
    st = clcg_mm_write_vector(path, x, 4);
    tap_ok(st == CLCG_ERR_IO && strstr(clcg_error_message(), path),
           "unwritable path: %s", clcg_error_message());
    snprintf(path, sizeof path, "%s/x.mtx", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/A.mtx", dir);
    unlink(path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    snprintf(dir, sizeof dir, "%s/clcg-csr-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        tap_skip_all("cannot create a temporary folder");
        MPI_Finalize();
        return 0;
    }
    test_random();
    test_checks();
    test_round_trips();
    rmdir(dir);
    MPI_Finalize();
    return tap_done();
}
