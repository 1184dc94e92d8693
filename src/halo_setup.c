/* Plan the ghost exchange once: which owned entries each rank needs from me, where my
 * ghosts go (after the owned rows, ascending global index, so grouped by owner), and
 * the local column numbering of A. */
#include "clcg_impl.h"

#include <stdlib.h>
#include <string.h>

static int cmp_gidx(const void *a, const void *b)
{
    clcg_gidx x = *(const clcg_gidx *)a, y = *(const clcg_gidx *)b;
    return (x > y) - (x < y);
}

static int owner_of(const int64_t *row_begin, int size, clcg_gidx g)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {   /* last r with row_begin[r] <= g */
        int mid = (lo + hi + 1) / 2;
        if (row_begin[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Position of g in the ascending v[0..n), or -1. */
int64_t clcg_find_sorted(const clcg_gidx *v, int64_t n, clcg_gidx g)
{
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (v[mid] < g)
            lo = mid + 1;
        else if (v[mid] > g)
            hi = mid - 1;
        else
            return mid;
    }
    return -1;
}

static clcg_status mpi_ok(int rc, const char *call)
{
    return rc == MPI_SUCCESS ? CLCG_OK : clcg_error(CLCG_ERR_MPI, "%s failed in the halo setup", call);
}

clcg_status clcg_halo_setup(MPI_Comm comm, clcg_exchange mode, const int64_t *row_begin,
                            const clcg_gidx *gcol, clcg_csr *A, clcg_halo *h)
{
    int rank, size;
    clcg_status st = CLCG_OK;
    int *scount = NULL, *rcount = NULL, *sdispl = NULL, *rdispl = NULL;
    clcg_gidx *want = NULL, *asked = NULL;
    int64_t *pos_back = NULL, *pos_mine = NULL;
    int64_t nghost = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(h, 0, sizeof *h);
    h->comm = comm;
    h->rank = rank;
    h->size = size;
    h->mode = mode;
    h->n = A->n;
    h->nrows = A->nrows;
    CLCG_CALL(clcg_malloc(&h->row_begin, (size_t)size + 1, sizeof *h->row_begin, "partition"));
    memcpy(h->row_begin, row_begin, ((size_t)size + 1) * sizeof *row_begin);
    const int64_t row0 = row_begin[rank], row1 = row_begin[rank + 1];

    /* ghosts: distinct columns outside my rows, ascending */
    CLCG_CHECK(st, clcg_malloc(&A->ghost, (size_t)A->nnz, sizeof *A->ghost, "ghost list"), out);
    for (int64_t k = 0; k < A->nnz; k++)
        if (gcol[k] < row0 || gcol[k] >= row1)
            A->ghost[nghost++] = gcol[k];
    qsort(A->ghost, (size_t)nghost, sizeof *A->ghost, cmp_gidx);
    {
        int64_t u = 0;
        for (int64_t k = 0; k < nghost; k++)
            if (u == 0 || A->ghost[u - 1] != A->ghost[k])
                A->ghost[u++] = A->ghost[k];
        nghost = u;
    }
    if (A->nrows + nghost > INT32_MAX) {
        st = clcg_error(CLCG_ERR_INPUT, "rank %d: %lld local columns exceed 32-bit indices; use more ranks",
                        rank, (long long)(A->nrows + nghost));
        goto out;
    }
    h->nghost = nghost;
    A->ncols = A->nrows + nghost;
    for (int64_t k = 0; k < A->nnz; k++) {
        clcg_gidx g = gcol[k];
        A->colind[k] = (g >= row0 && g < row1) ? (int32_t)(g - row0)
                                               : (int32_t)(A->nrows + clcg_find_sorted(A->ghost, nghost, g));
    }

    /* receive side: ghosts grouped by owner */
    CLCG_CHECK(st, clcg_calloc(&scount, (size_t)size, sizeof *scount, "halo counts"), out);
    CLCG_CHECK(st, clcg_calloc(&rcount, (size_t)size, sizeof *rcount, "halo counts"), out);
    CLCG_CHECK(st, clcg_calloc(&sdispl, (size_t)size + 1, sizeof *sdispl, "halo displacements"), out);
    CLCG_CHECK(st, clcg_calloc(&rdispl, (size_t)size + 1, sizeof *rdispl, "halo displacements"), out);
    for (int64_t k = 0; k < nghost; k++)
        rcount[owner_of(row_begin, size, A->ghost[k])]++;
    CLCG_CHECK(st, mpi_ok(MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, comm), "MPI_Alltoall"), out);
    for (int r = 0; r < size; r++) {
        rdispl[r + 1] = rdispl[r] + rcount[r];
        sdispl[r + 1] = sdispl[r] + scount[r];
        h->nrecv += rcount[r] > 0;
        h->nsend += scount[r] > 0;
    }
    /* ask the owners for the ghosts; they learn what to send me */
    CLCG_CHECK(st, clcg_malloc(&asked, (size_t)sdispl[size], sizeof *asked, "halo requests"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Alltoallv(A->ghost, rcount, rdispl, MPI_INT64_T, asked, scount, sdispl,
                                        MPI_INT64_T, comm), "MPI_Alltoallv"), out);

    CLCG_CHECK(st, clcg_malloc(&h->recv_rank, (size_t)h->nrecv + 1, sizeof *h->recv_rank, "halo"), out);
    CLCG_CHECK(st, clcg_malloc(&h->recv_ptr, (size_t)h->nrecv + 1, sizeof *h->recv_ptr, "halo"), out);
    CLCG_CHECK(st, clcg_malloc(&h->send_rank, (size_t)h->nsend + 1, sizeof *h->send_rank, "halo"), out);
    CLCG_CHECK(st, clcg_malloc(&h->send_ptr, (size_t)h->nsend + 1, sizeof *h->send_ptr, "halo"), out);
    CLCG_CHECK(st, clcg_malloc(&h->send_idx, (size_t)sdispl[size] + 1, sizeof *h->send_idx, "halo"), out);
    {
        int i = 0, j = 0;
        h->recv_ptr[0] = h->send_ptr[0] = 0;
        for (int r = 0; r < size; r++) {
            if (rcount[r]) {
                h->recv_rank[i] = r;
                h->recv_ptr[i + 1] = rdispl[r + 1];
                i++;
            }
            if (scount[r]) {
                h->send_rank[j] = r;
                h->send_ptr[j + 1] = sdispl[r + 1];
                j++;
            }
        }
    }
    for (int64_t k = 0; k < sdispl[size]; k++) {
        if (asked[k] < row0 || asked[k] >= row1) {
            st = clcg_error(CLCG_ERR_INTERNAL, "halo setup: rank %d asked for row %lld it does not own",
                            rank, (long long)asked[k]);
            goto out;
        }
        h->send_idx[k] = (int32_t)(asked[k] - row0);
    }

    /* needed mode: the union of what anyone asks of me, and where each ghost sits in the gather */
    {
        int64_t nexp = 0;
        CLCG_CHECK(st, clcg_malloc(&h->export_idx, (size_t)sdispl[size] + 1, sizeof *h->export_idx, "halo"), out);
        CLCG_CHECK(st, clcg_malloc(&want, (size_t)sdispl[size] + 1, sizeof *want, "halo"), out);
        memcpy(want, asked, (size_t)sdispl[size] * sizeof *want);
        qsort(want, (size_t)sdispl[size], sizeof *want, cmp_gidx);
        for (int64_t k = 0; k < sdispl[size]; k++)
            if (nexp == 0 || want[nexp - 1] != want[k])
                want[nexp++] = want[k];
        for (int64_t k = 0; k < nexp; k++)
            h->export_idx[k] = (int32_t)(want[k] - row0);
        h->nexport = nexp;
        CLCG_CHECK(st, clcg_malloc(&pos_back, (size_t)sdispl[size] + 1, sizeof *pos_back, "halo"), out);
        for (int64_t k = 0; k < sdispl[size]; k++)
            pos_back[k] = clcg_find_sorted(want, nexp, asked[k]);
        CLCG_CHECK(st, clcg_malloc(&pos_mine, (size_t)nghost + 1, sizeof *pos_mine, "halo"), out);
        CLCG_CHECK(st, mpi_ok(MPI_Alltoallv(pos_back, scount, sdispl, MPI_INT64_T, pos_mine, rcount,
                                            rdispl, MPI_INT64_T, comm), "MPI_Alltoallv"), out);
        CLCG_CHECK(st, clcg_malloc(&h->gather_counts, (size_t)size, sizeof *h->gather_counts, "halo"), out);
        CLCG_CHECK(st, clcg_malloc(&h->gather_displs, (size_t)size + 1, sizeof *h->gather_displs, "halo"), out);
        int ne = (int)nexp;
        CLCG_CHECK(st, mpi_ok(MPI_Allgather(&ne, 1, MPI_INT, h->gather_counts, 1, MPI_INT, comm),
                              "MPI_Allgather"), out);
        h->gather_displs[0] = 0;
        for (int r = 0; r < size; r++)
            h->gather_displs[r + 1] = h->gather_displs[r] + h->gather_counts[r];
        CLCG_CHECK(st, clcg_malloc(&h->ghost_src, (size_t)nghost + 1, sizeof *h->ghost_src, "halo"), out);
        for (int64_t k = 0; k < nghost; k++) {
            int o = owner_of(row_begin, size, A->ghost[k]);
            h->ghost_src[k] = mode == CLCG_EXCHANGE_ALLGATHER ? A->ghost[k]
                                                              : h->gather_displs[o] + pos_mine[k];
        }
    }
    {
        int64_t nsendbuf = sdispl[size] > h->nexport ? sdispl[size] : h->nexport;
        CLCG_CHECK(st, clcg_malloc(&h->send_buf, (size_t)nsendbuf + 1, sizeof *h->send_buf, "halo buffer"), out);
        CLCG_CHECK(st, clcg_malloc(&h->req, (size_t)(h->nsend + h->nrecv) + 1, sizeof *h->req, "halo requests"), out);
    }
    switch (mode) {
    case CLCG_EXCHANGE_NEEDED:
        CLCG_CHECK(st, clcg_malloc(&h->gather_buf, (size_t)h->gather_displs[size] + 1,
                                   sizeof *h->gather_buf, "gather buffer"), out);
        h->bytes_sent = 8 * h->nexport * (size - 1);
        break;
    case CLCG_EXCHANGE_ALLGATHER:
        CLCG_CHECK(st, clcg_malloc(&h->full_counts, (size_t)size, sizeof *h->full_counts, "halo"), out);
        CLCG_CHECK(st, clcg_malloc(&h->full_displs, (size_t)size, sizeof *h->full_displs, "halo"), out);
        for (int r = 0; r < size; r++) {
            h->full_counts[r] = (int)(row_begin[r + 1] - row_begin[r]);
            h->full_displs[r] = (int)row_begin[r];
        }
        CLCG_CHECK(st, clcg_malloc(&h->full_buf, (size_t)A->n, sizeof *h->full_buf, "whole vector"), out);
        h->bytes_sent = 8 * A->nrows * (size - 1);
        break;
    default:
        h->bytes_sent = 8 * sdispl[size];
        break;
    }
out:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(want);
    free(asked);
    free(pos_back);
    free(pos_mine);
    return st;
}
