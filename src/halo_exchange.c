/* Fill the ghost entries x[nrows..nrows+nghost) from their owners, by the plan's mode:
 * allgather (whole vector), needed (packed entries anyone needs), neighbor (point to point). */
#include "clcg_impl.h"

#include <stdlib.h>

/* Each rank does its whole part of the exchange even where one of its calls fails (that
 * request is left null), so no neighbour waits for it; the fault is returned, and every rank
 * learns of it at the next reduction. */
clcg_status clcg_halo_post_recv(clcg_halo *h, double *ghost)
{
    clcg_status st = CLCG_OK;
    for (int i = 0; i < h->nrecv; i++) {
        int64_t off = h->recv_ptr[i], cnt = h->recv_ptr[i + 1] - off;
        if (MPI_Irecv(ghost + off, (int)cnt, MPI_DOUBLE, h->recv_rank[i], 0, h->comm,
                      &h->req[i]) != MPI_SUCCESS) {
            h->req[i] = MPI_REQUEST_NULL;
            if (st == CLCG_OK)
                st = clcg_error(CLCG_ERR_MPI, "MPI_Irecv of ghost entries failed");
        }
    }
    if (st == CLCG_OK)   /* tests: a failed call here, after which this rank still sends */
        st = clcg_fault_point(h->rank, "halo");
    return st;
}

clcg_status clcg_halo_send_wait(clcg_halo *h, const double *send)
{
    clcg_status st = CLCG_OK;
    for (int i = 0; i < h->nsend; i++) {
        int64_t off = h->send_ptr[i], cnt = h->send_ptr[i + 1] - off;
        if (MPI_Isend(send + off, (int)cnt, MPI_DOUBLE, h->send_rank[i], 0, h->comm,
                      &h->req[h->nrecv + i]) != MPI_SUCCESS) {
            h->req[h->nrecv + i] = MPI_REQUEST_NULL;
            if (st == CLCG_OK)
                st = clcg_error(CLCG_ERR_MPI, "MPI_Isend of boundary entries failed");
        }
    }
    if (MPI_Waitall(h->nrecv + h->nsend, h->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && st == CLCG_OK)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Waitall of the halo exchange failed");
    return st;
}

static clcg_status exchange_neighbor(clcg_halo *h, double *x)
{
    clcg_status st = clcg_halo_post_recv(h, x + h->nrows);
    for (int64_t k = 0; k < h->send_ptr[h->nsend]; k++)
        h->send_buf[k] = x[h->send_idx[k]];
    clcg_status e = clcg_halo_send_wait(h, h->send_buf);
    return st != CLCG_OK ? st : e;
}

static clcg_status exchange_needed(clcg_halo *h, double *x)
{
    for (int64_t k = 0; k < h->nexport; k++)
        h->send_buf[k] = x[h->export_idx[k]];
    if (MPI_Allgatherv(h->send_buf, (int)h->nexport, MPI_DOUBLE, h->gather_buf,
                       h->gather_counts, h->gather_displs, MPI_DOUBLE, h->comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allgatherv of the needed entries failed");
    for (int64_t k = 0; k < h->nghost; k++)
        x[h->nrows + k] = h->gather_buf[h->ghost_src[k]];
    return CLCG_OK;
}

static clcg_status exchange_allgather(clcg_halo *h, double *x)
{
    if (MPI_Allgatherv(x, (int)h->nrows, MPI_DOUBLE, h->full_buf, h->full_counts,
                       h->full_displs, MPI_DOUBLE, h->comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allgatherv of the whole vector failed");
    for (int64_t k = 0; k < h->nghost; k++)
        x[h->nrows + k] = h->full_buf[h->ghost_src[k]];
    return CLCG_OK;
}

clcg_status clcg_halo_exchange(clcg_halo *h, double *x)
{
    if (h->size == 1)
        return CLCG_OK;
    switch (h->mode) {
    case CLCG_EXCHANGE_NEIGHBOR: return exchange_neighbor(h, x);
    case CLCG_EXCHANGE_NEEDED: return exchange_needed(h, x);
    default: return exchange_allgather(h, x);
    }
}

void clcg_halo_free(clcg_halo *h)
{
    free(h->row_begin);
    free(h->send_rank);
    free(h->recv_rank);
    free(h->send_ptr);
    free(h->send_idx);
    free(h->recv_ptr);
    free(h->send_buf);
    free(h->req);
    free(h->export_idx);
    free(h->gather_counts);
    free(h->gather_displs);
    free(h->ghost_src);
    free(h->gather_buf);
    free(h->full_counts);
    free(h->full_displs);
    free(h->full_buf);
}
