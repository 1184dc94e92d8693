/* The neighbour exchange between ranks of one node through shared memory: each rank copies
 * what it sends into its own window, a message of no bytes tells each peer, and the peer
 * copies its part straight into its ghosts.  MPI's shared-memory transport without a
 * single-copy mechanism moves the same data through its own buffers in fragments, with a
 * handshake for each (2 H200 of one host: 97-101 us for 512 KB each way at once).
 *
 * A window slot is written again two exchanges later; by then the peer has taken it, since
 * it sent its own message of the exchange in between after copying.  That holds where the
 * two ranks send to each other, so only such pairs use the window (a structurally
 * symmetric matrix gives nothing else); any other pair goes through MPI as before. */
#include "clcg_impl.h"

#include <stdlib.h>
#include <string.h>

static int env_int(const char *name, int def)
{
    const char *e = getenv(name);
    if (!e || !*e)
        return def;
    char *end;
    long v = strtol(e, &end, 10);
    return *end || v < 0 || v > 1 << 20 ? def : (int)v;
}

static int in_sorted(const int *v, int n, int r)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == r;
}

static clcg_status mpi_ok(int rc, const char *what)
{
    return rc == MPI_SUCCESS ? CLCG_OK : clcg_error(CLCG_ERR_MPI, "%s failed (halo window)", what);
}

/* Whether rc is MPI_SUCCESS on every rank. */
static int agreed_ok(const clcg_halo *h, int rc)
{
    int ok = rc == MPI_SUCCESS;
    if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, h->comm) != MPI_SUCCESS)
        ok = 0;
    return ok;
}

/* Node ranks of the listed ranks of h->comm (MPI_UNDEFINED: elsewhere). */
static clcg_status node_ranks(const clcg_halo *h, const int *ranks, int n, int *out)
{
    MPI_Group g, gn;
    clcg_status st = mpi_ok(MPI_Comm_group(h->comm, &g), "MPI_Comm_group");
    if (st != CLCG_OK)
        return st;
    st = mpi_ok(MPI_Comm_group(h->node_comm, &gn), "MPI_Comm_group");
    const int have_gn = st == CLCG_OK;
    if (st == CLCG_OK && n > 0)
        st = mpi_ok(MPI_Group_translate_ranks(g, n, ranks, gn, out), "MPI_Group_translate_ranks");
    if (have_gn)
        MPI_Group_free(&gn);
    MPI_Group_free(&g);
    return st;
}

clcg_status clcg_halo_shm_setup(clcg_halo *h)
{
    clcg_status st = CLCG_OK;
    int *nr_send = NULL, *nr_recv = NULL, node_size = 1;
    int64_t *offs = NULL, *mine = NULL;
    MPI_Request *rq = NULL;
    const int64_t total = h->nsend ? h->send_ptr[h->nsend] : 0;

    /* every rank takes the same way: the switches as every rank sees them */
    int sw[3] = {env_int("CLCG_HALO_SHM", 1) != 0, env_int("CLCG_SHM_RANKS", 0), 0};
    sw[2] = -sw[1];
    CLCG_CALL(mpi_ok(MPI_Allreduce(MPI_IN_PLACE, sw, 3, MPI_INT, MPI_MIN, h->comm), "MPI_Allreduce"));
    if (!sw[0] || sw[1] != -sw[2] || h->mode != CLCG_EXCHANGE_NEIGHBOR || h->size == 1)
        return CLCG_OK;

    int rank_node;
    /* no node communicator on some rank: no window, MPI carries every pair */
    const int rc_split = MPI_Comm_split_type(h->comm, MPI_COMM_TYPE_SHARED, h->rank, MPI_INFO_NULL, &h->node_comm);
    if (!agreed_ok(h, rc_split)) {
        if (rc_split == MPI_SUCCESS)
            MPI_Comm_free(&h->node_comm);
        return CLCG_OK;
    }
    h->shm = CLCG_SHM_COMM;
    MPI_Comm_rank(h->node_comm, &rank_node);
    if (sw[1] > 0) {   /* tests: nodes of CLCG_SHM_RANKS ranks */
        MPI_Comm part;
        st = mpi_ok(MPI_Comm_split(h->node_comm, rank_node / sw[1], rank_node, &part), "MPI_Comm_split");
        CLCG_CALL(clcg_agree(h->comm, st, NULL));
        MPI_Comm_free(&h->node_comm);
        h->node_comm = part;
    }
    MPI_Comm_size(h->node_comm, &node_size);
    const int alone = node_size == 1;   /* no window, but a part in every step over h->comm */

#define LOCAL(call) do { if (st == CLCG_OK) st = (call); } while (0)
    LOCAL(clcg_calloc(&h->send_shm, (size_t)h->nsend + 1, 1, "halo window"));
    LOCAL(clcg_calloc(&h->recv_shm, (size_t)h->nrecv + 1, 1, "halo window"));
    LOCAL(clcg_calloc(&h->recv_src, (size_t)h->nrecv + 1, sizeof *h->recv_src, "halo window"));
    LOCAL(clcg_calloc(&h->recv_stride, (size_t)h->nrecv + 1, sizeof *h->recv_stride, "halo window"));
    LOCAL(clcg_calloc(&h->recv_off, (size_t)h->nrecv + 1, sizeof *h->recv_off, "halo window"));
    LOCAL(clcg_malloc(&nr_send, (size_t)h->nsend + 1, sizeof *nr_send, "halo window"));
    LOCAL(clcg_malloc(&nr_recv, (size_t)h->nrecv + 1, sizeof *nr_recv, "halo window"));
    LOCAL(clcg_malloc(&offs, 2 * ((size_t)h->nrecv + 1), sizeof *offs, "halo window"));
    LOCAL(clcg_malloc(&mine, 2 * ((size_t)h->nsend + 1), sizeof *mine, "halo window"));
    LOCAL(clcg_malloc(&rq, (size_t)(h->nsend + h->nrecv) + 1, sizeof *rq, "halo window"));
    LOCAL(node_ranks(h, h->send_rank, h->nsend, nr_send));
    LOCAL(node_ranks(h, h->recv_rank, h->nrecv, nr_recv));
    CLCG_CHECK(st, clcg_agree(h->comm, st, NULL), out);

    /* a pair goes through the window where both are on this node and each sends to the other */
    for (int j = 0; j < h->nsend; j++)
        h->send_shm[j] = nr_send[j] != MPI_UNDEFINED && in_sorted(h->recv_rank, h->nrecv, h->send_rank[j]);
    for (int i = 0; i < h->nrecv; i++) {
        h->recv_shm[i] = nr_recv[i] != MPI_UNDEFINED && in_sorted(h->send_rank, h->nsend, h->recv_rank[i]);
        h->nshm_links += h->recv_shm[i];
    }

    /* my window (collective over the node), and where my part starts in each sender's */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "alloc_shared_noncontig", "true");
    int rc = alone ? MPI_SUCCESS
                   : MPI_Win_allocate_shared((MPI_Aint)(2 * total * (int64_t)sizeof(double)), (int)sizeof(double),
                                             info, h->node_comm, &h->shm_mine, &h->win);
    MPI_Info_free(&info);
    if (rc == MPI_SUCCESS && !alone)
        h->shm |= CLCG_SHM_WIN;
    if (rc == MPI_SUCCESS && clcg_fault_point(h->rank, "window") != CLCG_OK) {   /* tests */
        clcg_error_clear();
        rc = MPI_ERR_NO_MEM;
    }
    if (!agreed_ok(h, rc))
        goto no_window;
    if (!alone) {
        MPI_Win_set_errhandler(h->win, MPI_ERRORS_RETURN);
        rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win);
        if (rc == MPI_SUCCESS)
            h->shm |= CLCG_SHM_LOCKED;   /* unlocked before it is freed */
    }
    if (!agreed_ok(h, rc))
        goto no_window;
    /* each sender tells where my part starts in its slot, and its slot's length */
    /* every call made even after one fails (that request left null), as in the exchange
       itself: a rank that skipped its sends would leave its neighbours in MPI_Waitall */
    for (int i = 0; i < h->nrecv; i++)
        if (MPI_Irecv(&offs[2 * i], 2, MPI_INT64_T, h->recv_rank[i], 2, h->comm, &rq[i]) != MPI_SUCCESS) {
            rq[i] = MPI_REQUEST_NULL;
            LOCAL(mpi_ok(MPI_ERR_OTHER, "MPI_Irecv"));
        }
    for (int j = 0; j < h->nsend; j++) {
        mine[2 * j] = h->send_ptr[j];
        mine[2 * j + 1] = total;
        if (MPI_Isend(&mine[2 * j], 2, MPI_INT64_T, h->send_rank[j], 2, h->comm, &rq[h->nrecv + j]) != MPI_SUCCESS) {
            rq[h->nrecv + j] = MPI_REQUEST_NULL;
            LOCAL(mpi_ok(MPI_ERR_OTHER, "MPI_Isend"));
        }
    }
    if (MPI_Waitall(h->nrecv + h->nsend, rq, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        LOCAL(mpi_ok(MPI_ERR_OTHER, "MPI_Waitall"));
    for (int i = 0; st == CLCG_OK && i < h->nrecv; i++) {
        if (!h->recv_shm[i])
            continue;
        MPI_Aint bytes;
        int unit;
        double *base;
        st = mpi_ok(MPI_Win_shared_query(h->win, nr_recv[i], &bytes, &unit, &base), "MPI_Win_shared_query");
        const int64_t off = offs[2 * i], stride = offs[2 * i + 1];
        const int64_t cnt = h->recv_ptr[i + 1] - h->recv_ptr[i];
        if (st == CLCG_OK && (off < 0 || off + cnt > stride || 2 * stride * (int64_t)sizeof(double) > (int64_t)bytes))
            st = clcg_error(CLCG_ERR_INTERNAL, "halo window: rank %d holds %lld entries a slot in %lld bytes, "
                            "not %lld from %lld", h->recv_rank[i], (long long)stride, (long long)bytes,
                            (long long)cnt, (long long)off);
        if (st == CLCG_OK) {
            h->recv_src[i] = base + off;
            h->recv_off[i] = off;
            h->recv_stride[i] = stride;
        }
    }
    st = clcg_agree(h->comm, st, NULL);
    goto out;
no_window:   /* no window to be had here or on some rank (a full /dev/shm, say): MPI carries
                every pair, as the record's count of links through shared memory then says.
                Every rank comes here at the same step; the window is freed (collective over
                the node) where every rank of the node has it, else left to MPI_Finalize. */
    {
        int all = (h->shm & CLCG_SHM_WIN) != 0;
        if (MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, h->node_comm) == MPI_SUCCESS && all) {
            if (h->shm & CLCG_SHM_LOCKED)
                MPI_Win_unlock_all(h->win);
            MPI_Win_free(&h->win);
        }
    }
    memset(h->send_shm, 0, (size_t)h->nsend + 1);
    memset(h->recv_shm, 0, (size_t)h->nrecv + 1);
    h->nshm_links = 0;
    h->shm &= ~(CLCG_SHM_WIN | CLCG_SHM_LOCKED);
#undef LOCAL
out:
    free(nr_send);
    free(nr_recv);
    free(offs);
    free(mine);
    free(rq);
    return st;
}

void clcg_halo_shm_free(clcg_halo *h)
{
    if (h->shm & CLCG_SHM_LOCKED)
        MPI_Win_unlock_all(h->win);
    if (h->shm & CLCG_SHM_WIN)
        MPI_Win_free(&h->win);
    if (h->shm & CLCG_SHM_COMM)
        MPI_Comm_free(&h->node_comm);
    free(h->send_shm);
    free(h->recv_shm);
    free(h->recv_src);
    free(h->recv_stride);
    free(h->recv_off);
    h->recv_off = NULL;
    h->shm = 0;
    h->nshm_links = 0;
    h->send_shm = h->recv_shm = NULL;
    h->recv_src = NULL;
    h->recv_stride = NULL;
}
