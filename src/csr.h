/* Assembly of coordinate triplets into compressed sparse rows (one process). */
#ifndef CLCG_CSR_H
#define CLCG_CSR_H

#include "clcg.h"

/* A = sum of the triplets of a (0-based, all held here), as CSR: 0-based, columns
 * sorted within each row, symmetric storage (a->symmetric) expanded to both
 * triangles, duplicates summed.  out->n = nrows = ncols = a->n, row0 = 0,
 * ghost = NULL.  path is only used in messages, whose indices are 1-based.
 *
 * check_symmetry != 0: a general matrix must be symmetric to
 * |aij - aji| <= 64 eps max(|aij|, |aji|), else CLCG_ERR_INPUT naming one pair.
 * Then every row must be non-empty and hold a positive diagonal entry, else
 * CLCG_ERR_NOT_SPD.  n >= 2^31 is refused (int32 column indices).  On error out
 * is left empty. */
clcg_status clcg_csr_from_coo(const char *path, const clcg_coo *a, int check_symmetry,
                              clcg_csr *out);

/* The symmetry test above on an assembled square matrix (global columns, ascending in each
 * row): CLCG_ERR_INPUT naming the first pair that differs, and hint in brackets after it. */
clcg_status clcg_csr_check_symmetric(const char *path, const clcg_csr *a, const char *hint);

#endif
