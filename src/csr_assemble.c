/* A = sum of triplets (i, j, a_ij), as CSR: a counting sort by row, a stable sort
 * of each row by column, duplicates summed; then the checks a CG matrix needs
 * (symmetry, no empty row, positive diagonal). */
#include "csr.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_ROW 32    /* rows up to this length are insertion-sorted */

void clcg_csr_free(clcg_csr *a)
{
    if (!a)
        return;
    free(a->rowptr);
    free(a->colind);
    free(a->val);
    free(a->ghost);
    memset(a, 0, sizeof *a);
}

/* Stable sort of c[0..n), v[0..n) by c; tc, tv: scratch of n entries. */
static void sort_row(int32_t *c, double *v, int64_t n, int32_t *tc, double *tv)
{
    int64_t w, lo, k;
    if (n <= SHORT_ROW) {
        for (k = 1; k < n; k++) {
            int32_t ck = c[k];
            double vk = v[k];
            int64_t m = k;
            for (; m > 0 && c[m - 1] > ck; m--) {
                c[m] = c[m - 1];
                v[m] = v[m - 1];
            }
            c[m] = ck;
            v[m] = vk;
        }
        return;
    }
    /* bottom-up merge sort: runs of SHORT_ROW by insertion, then merges */
    for (lo = 0; lo < n; lo += SHORT_ROW)
        sort_row(c + lo, v + lo, (n - lo < SHORT_ROW) ? n - lo : SHORT_ROW, tc, tv);
    for (w = SHORT_ROW; w < n; w *= 2) {
        for (lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                if (c[b] < c[a]) {
                    tc[o] = c[b];
                    tv[o++] = v[b++];
                } else {
                    tc[o] = c[a];
                    tv[o++] = v[a++];
                }
            }
            while (a < mid) {
                tc[o] = c[a];
                tv[o++] = v[a++];
            }
            while (b < hi) {
                tc[o] = c[b];
                tv[o++] = v[b++];
            }
        }
        memcpy(c, tc, (size_t)n * sizeof *c);
        memcpy(v, tv, (size_t)n * sizeof *v);
    }
}

/* Position of column j in row i of a, or -1. */
static int64_t find(const clcg_csr *a, int64_t i, int32_t j)
{
    int64_t lo = a->rowptr[i], hi = a->rowptr[i + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (a->colind[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < a->rowptr[i + 1] && a->colind[lo] == j) ? lo : -1;
}

clcg_status clcg_csr_check_symmetric(const char *path, const clcg_csr *a, const char *hint)
{
    int64_t i, k;
    for (i = 0; i < a->nrows; i++) {
        for (k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            int32_t j = a->colind[k];
            int64_t t;
            double x = a->val[k], y;
            if (j == i)
                continue;
            t = find(a, j, (int32_t)i);
            y = t >= 0 ? a->val[t] : 0.0;
            if (!isfinite(x) || !isfinite(y))   /* duplicates summed past double: the row checks name it */
                continue;
            if (!(fabs(x - y) <= 64 * DBL_EPSILON * fmax(fabs(x), fabs(y)))) {
                char sx[32], sy[32];
                return clcg_error(CLCG_ERR_INPUT, "%s: matrix is not symmetric: A(%" PRId64 ",%"
                                  PRId64 ") = %s but A(%" PRId64 ",%" PRId64 ") = %s (%s)", path, i + 1,
                                  (int64_t)j + 1, clcg_show_double(x, sx), (int64_t)j + 1, i + 1,
                                  clcg_show_double(y, sy), hint);
            }
        }
    }
    return CLCG_OK;
}

static clcg_status check_rows(const char *path, const clcg_csr *a)
{
    int64_t i;
    for (i = 0; i < a->nrows; i++) {
        int64_t t;
        double d;
        char sd[32];
        if (a->rowptr[i] == a->rowptr[i + 1])
            return clcg_error(CLCG_ERR_NOT_SPD, "%s: row %" PRId64 " is empty: the matrix is "
                              "singular", path, i + 1);
        for (t = a->rowptr[i]; t < a->rowptr[i + 1]; t++)
            if (!isfinite(a->val[t]))
                return clcg_error(CLCG_ERR_INPUT, "%s: A(%" PRId64 ",%" PRId64 ") = %s: its duplicate "
                                  "entries sum beyond double precision", path, i + 1,
                                  (int64_t)a->colind[t] + 1, clcg_show_double(a->val[t], sd));
        t = find(a, i, (int32_t)i);
        d = t >= 0 ? a->val[t] : 0.0;
        if (t < 0)
            return clcg_error(CLCG_ERR_NOT_SPD, "%s: row %" PRId64 " has no diagonal entry: the matrix is "
                              "not positive definite", path, i + 1);
        if (!(d > 0))
            return clcg_error(CLCG_ERR_NOT_SPD, "%s: diagonal entry A(%" PRId64 ",%" PRId64
                              ") = %s is not positive: the matrix is not positive definite",
                              path, i + 1, i + 1, clcg_show_double(d, sd));
    }
    return CLCG_OK;
}

clcg_status clcg_csr_from_coo(const char *path, const clcg_coo *a, int check_symmetry,
                              clcg_csr *out)
{
    clcg_status st = CLCG_OK;
    int64_t n, i, k, total, w, beg, maxlen = 0;
    int64_t *next = NULL;
    int32_t *tc = NULL;
    double *tv = NULL;

    if (!path || !a || !out || (a->len > 0 && (!a->row || !a->col || !a->val)))
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_csr_from_coo: bad argument");
    memset(out, 0, sizeof *out);
    n = a->n;
    if (n < 0 || n > INT32_MAX)
        return clcg_error(CLCG_ERR_INPUT, "%s: the matrix has %" PRId64 " rows; one process "
                          "assembles fewer than 2^31 (32-bit column indices)", path, n);
    out->n = out->nrows = out->ncols = n;
    out->row0 = 0;

    /* count per row (both triangles of a symmetric file) */
    CLCG_CHECK(st, clcg_calloc(&out->rowptr, (size_t)n + 1, sizeof *out->rowptr,
                               "matrix row pointers"), fail);
    for (k = 0; k < a->len; k++) {
        int64_t r = a->row[k], c = a->col[k];
        if (r < 0 || r >= n || c < 0 || c >= n) {
            st = clcg_error(CLCG_ERR_INPUT, "%s: entry (%" PRId64 ",%" PRId64 ") is outside the %"
                            PRId64 " x %" PRId64 " matrix", path, r + 1, c + 1, n, n);
            goto fail;
        }
        out->rowptr[r + 1]++;
        if (a->symmetric && r != c)
            out->rowptr[c + 1]++;
    }
    for (i = 0; i < n; i++) {
        int64_t len = out->rowptr[i + 1];
        if (len > maxlen)
            maxlen = len;
        out->rowptr[i + 1] += out->rowptr[i];
    }
    total = out->rowptr[n];

    /* scatter */
    CLCG_CHECK(st, clcg_malloc(&out->colind, (size_t)total, sizeof *out->colind,
                               "matrix column indices"), fail);
    CLCG_CHECK(st, clcg_malloc(&out->val, (size_t)total, sizeof *out->val, "matrix values"),
               fail);
    CLCG_CHECK(st, clcg_malloc(&next, (size_t)n, sizeof *next, "assembly row cursors"), fail);
    memcpy(next, out->rowptr, (size_t)n * sizeof *next);
    for (k = 0; k < a->len; k++) {
        int64_t r = a->row[k], c = a->col[k], p = next[r]++;
        out->colind[p] = (int32_t)c;
        out->val[p] = a->val[k];
        if (a->symmetric && r != c) {
            p = next[c]++;
            out->colind[p] = (int32_t)r;
            out->val[p] = a->val[k];
        }
    }
    free(next);
    next = NULL;

    /* sort each row, then sum duplicates in place */
    if (maxlen > SHORT_ROW) {
        CLCG_CHECK(st, clcg_malloc(&tc, (size_t)maxlen, sizeof *tc, "assembly scratch"), fail);
        CLCG_CHECK(st, clcg_malloc(&tv, (size_t)maxlen, sizeof *tv, "assembly scratch"), fail);
    }
    w = 0;
    beg = 0;
    for (i = 0; i < n; i++) {
        int64_t end = out->rowptr[i + 1], rs = w;
        sort_row(out->colind + beg, out->val + beg, end - beg, tc, tv);
        for (k = beg; k < end; k++) {
            if (w > rs && out->colind[w - 1] == out->colind[k]) {
                out->val[w - 1] += out->val[k];
            } else {
                out->colind[w] = out->colind[k];
                out->val[w] = out->val[k];
                w++;
            }
        }
        out->rowptr[i] = rs;
        beg = end;
    }
    out->rowptr[n] = w;
    out->nnz = w;
    free(tc);
    free(tv);
    tc = NULL;
    tv = NULL;
    if (w < total && w > 0) {   /* give back what merging freed; keep the old on failure */
        int32_t *c = realloc(out->colind, (size_t)w * sizeof *c);
        double *v;
        if (c)
            out->colind = c;
        v = realloc(out->val, (size_t)w * sizeof *v);
        if (v)
            out->val = v;
    }

    if (check_symmetry && !a->symmetric)
        CLCG_CHECK(st, clcg_csr_check_symmetric(path, out, "use --no-symmetry-check to solve anyway"), fail);
    CLCG_CHECK(st, check_rows(path, out), fail);
    return CLCG_OK;

fail:
    free(next);
    free(tc);
    free(tv);
    clcg_csr_free(out);
    return st;
}
