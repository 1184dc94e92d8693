/* Coordinate triplet storage: a growable (row, col, val) list. */
#include "clcg.h"

#include <stdlib.h>

void clcg_coo_free(clcg_coo *a)
{
    if (!a)
        return;
    if (a->fixed) {
        *a = (clcg_coo){0};
        return;
    }
    free(a->row);
    free(a->col);
    free(a->val);
    a->row = a->col = NULL;
    a->val = NULL;
    a->len = a->cap = 0;
}

clcg_status clcg_coo_reserve(clcg_coo *a, int64_t cap)
{
    if (cap <= a->cap)
        return CLCG_OK;
    if (a->fixed)
        return clcg_error(CLCG_ERR_INTERNAL, "more matrix entries than a fixed list holds (%lld)",
                          (long long)a->cap);
    CLCG_CALL(clcg_realloc(&a->row, (size_t)cap, sizeof *a->row, "matrix row indices"));
    CLCG_CALL(clcg_realloc(&a->col, (size_t)cap, sizeof *a->col, "matrix column indices"));
    CLCG_CALL(clcg_realloc(&a->val, (size_t)cap, sizeof *a->val, "matrix values"));
    a->cap = cap;
    return CLCG_OK;
}

clcg_status clcg_coo_push(clcg_coo *a, clcg_gidx i, clcg_gidx j, double v)
{
    if (a->len == a->cap)
        CLCG_CALL(clcg_coo_reserve(a, a->cap ? 2 * a->cap : 1024));
    a->row[a->len] = i;
    a->col[a->len] = j;
    a->val[a->len] = v;
    a->len++;
    return CLCG_OK;
}
