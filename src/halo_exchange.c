/* Fill the ghost entries x[nrows..nrows+nghost) from their owners, by the plan's mode:
 * allgather (whole vector), needed (packed entries anyone needs), neighbor (point to point). */
#include "clcg_impl.h"

#include <stdlib.h>
#include <string.h>

/* Each rank does its whole part of the exchange even where one of its calls fails (that
 * request is left null), so no neighbour waits for it; the fault is returned, and every rank
 * learns of it at the next reduction. */
/* The receives into ghost[] (requests 0..nrecv) and the sends of send[] (after them), one
 * message a neighbour: a pair on the window only words that its entries are there (no bytes,
 * tag 1); plain: every pair's entries, tag CLCG_TAG_PLAIN. */
static clcg_status post_recvs(clcg_halo *h, double *ghost, int plain)
{
    clcg_status st = CLCG_OK;
    for (int i = 0; i < h->nrecv; i++) {
        int64_t off = h->recv_ptr[i], cnt = h->recv_ptr[i + 1] - off;
        const int win = !plain && h->recv_shm && h->recv_shm[i];
        if (MPI_Irecv(win ? NULL : ghost + off, win ? 0 : (int)cnt, MPI_DOUBLE, h->recv_rank[i],
                      plain ? CLCG_TAG_PLAIN : win, h->comm, &h->req[i]) != MPI_SUCCESS) {
            h->req[i] = MPI_REQUEST_NULL;
            if (st == CLCG_OK)
                st = clcg_error(CLCG_ERR_MPI, "MPI_Irecv of ghost entries failed");
        }
    }
    return st;
}

static clcg_status post_sends(clcg_halo *h, const double *send, int plain)
{
    clcg_status st = CLCG_OK;
    for (int i = 0; i < h->nsend; i++) {
        int64_t off = h->send_ptr[i], cnt = h->send_ptr[i + 1] - off;
        const int win = !plain && h->send_shm && h->send_shm[i];
        if (MPI_Isend(win ? NULL : send + off, win ? 0 : (int)cnt, MPI_DOUBLE, h->send_rank[i],
                      plain ? CLCG_TAG_PLAIN : win, h->comm, &h->req[h->nrecv + i]) != MPI_SUCCESS) {
            h->req[h->nrecv + i] = MPI_REQUEST_NULL;
            if (st == CLCG_OK)
                st = clcg_error(CLCG_ERR_MPI, "MPI_Isend of boundary entries failed");
        }
    }
    return st;
}

clcg_status clcg_halo_post_recv(clcg_halo *h, double *ghost)
{
    h->ghost_dst = ghost;
    clcg_status st = post_recvs(h, ghost, 0);
    if (st == CLCG_OK)   /* tests: a failed call here, after which this rank still sends */
        st = clcg_fault_point(h->rank, "halo");
    return st;
}

double *clcg_halo_send_slot(const clcg_halo *h)
{
    return h->nshm_links ? h->shm_mine + (h->parity & 1) * h->send_ptr[h->nsend] : NULL;
}

static clcg_status send_wait(clcg_halo *h, const double *send, int copy_out)
{
    clcg_status st = CLCG_OK;
    const unsigned slot = h->slot = h->parity++ & 1;
    if (h->settle)   /* whatever path exchanges now, no read of a peer's earlier slot is pending */
        h->settle(h->settle_arg);
    if (h->nsend && h->send_ptr[h->nsend] && clcg_fault_armed(h->rank, "ghost")) {
        /* tests (CLCG_FAULT=R:ghost): one value a step late, as a slot read too early would be */
        static double late;
        const double now = send[0];
        ((double *)send)[0] = late;
        late = now;
    }
    if (h->nshm_links) {   /* peers on this node find theirs in my window (halo_shm.c) */
        double *mine = h->shm_mine + slot * h->send_ptr[h->nsend];
        for (int i = 0; i < h->nsend && send != mine; i++)
            if (h->send_shm[i])
                memcpy(mine + h->send_ptr[i], send + h->send_ptr[i],
                       (size_t)(h->send_ptr[i + 1] - h->send_ptr[i]) * sizeof *send);
        if (MPI_Win_sync(h->win) != MPI_SUCCESS)
            st = clcg_error(CLCG_ERR_MPI, "MPI_Win_sync of the halo window failed");
    }
    const clcg_status sent = post_sends(h, send, 0);
    if (st == CLCG_OK)
        st = sent;
    if (MPI_Waitall(h->nrecv + h->nsend, h->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && st == CLCG_OK)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Waitall of the halo exchange failed");
    if (h->nshm_links && st == CLCG_OK) {
        if (MPI_Win_sync(h->win) != MPI_SUCCESS)
            st = clcg_error(CLCG_ERR_MPI, "MPI_Win_sync of the halo window failed");
        for (int i = 0; i < h->nrecv && st == CLCG_OK && copy_out; i++)
            if (h->recv_shm[i])
                memcpy(h->ghost_dst + h->recv_ptr[i], h->recv_src[i] + slot * h->recv_stride[i],
                       (size_t)(h->recv_ptr[i + 1] - h->recv_ptr[i]) * sizeof *send);
    }
    return st;
}

clcg_status clcg_halo_send_wait(clcg_halo *h, const double *send)
{
    return send_wait(h, send, 1);
}

clcg_status clcg_halo_send_wait_keep(clcg_halo *h, const double *send)
{
    return send_wait(h, send, 0);
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

clcg_status clcg_halo_exchange_plain(clcg_halo *h, double *x)
{
    if (h->size == 1)
        return CLCG_OK;
    if (h->mode != CLCG_EXCHANGE_NEIGHBOR)   /* collectives: no window, no test hook there */
        return clcg_halo_exchange(h, x);
    clcg_status st = post_recvs(h, x + h->nrows, 1);
    for (int64_t k = 0; k < h->send_ptr[h->nsend]; k++)
        h->send_buf[k] = x[h->send_idx[k]];
    const clcg_status sent = post_sends(h, h->send_buf, 1);
    if (st == CLCG_OK)
        st = sent;
    if (MPI_Waitall(h->nrecv + h->nsend, h->req, MPI_STATUSES_IGNORE) != MPI_SUCCESS && st == CLCG_OK)
        st = clcg_error(CLCG_ERR_MPI, "MPI_Waitall of the halo exchange failed");
    return st;
}

void clcg_halo_free(clcg_halo *h)
{
    clcg_halo_shm_free(h);
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
