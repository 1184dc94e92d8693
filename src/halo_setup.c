/* Plan the ghost exchange once: which owned entries each rank needs from me, where my
 * ghosts go (after the owned rows, ascending global index, so grouped by owner), and
 * the local column numbering of A.
 *
 * Distinct sorted indices (the ghosts; the entries others ask of me) come from a bitmap
 * over the span of the values, with the count of set bits before each word: a value's
 * position in the list is then a count, not a search.  The passes over A's entries run
 * in parallel threads (clcg_parallel_for; the bits are set with the GCC atomic built-ins,
 * which Clang has too). */
#include "clcg_impl.h"

#include <stdlib.h>
#include <string.h>

#define SET_CHUNKS 256   /* pieces of the value list, for per-piece results in parallel passes */

/* The distinct values of v[0..n) outside [skip0, skip1), ascending. */
typedef struct {
    clcg_gidx lo;        /* bit b of word w stands for lo + 64 w + b */
    int64_t nwords;
    uint64_t *bits;
    int64_t *before;     /* set bits in the words before w */
    int64_t count;
} index_set;

typedef struct {
    const clcg_gidx *v;
    int64_t n;
    clcg_gidx skip0, skip1;
    clcg_gidx cmin[SET_CHUNKS], cmax[SET_CHUNKS];   /* per piece; cmin > cmax: none */
    index_set *s;
    clcg_gidx *list;
} set_job;

static int64_t chunk_begin(int64_t n, int64_t c)
{
    return n / SET_CHUNKS * c + (c < n % SET_CHUNKS ? c : n % SET_CHUNKS);
}

static void set_span(void *arg, int64_t c0, int64_t c1)
{
    set_job *j = arg;
    for (int64_t c = c0; c < c1; c++) {
        clcg_gidx lo = INT64_MAX, hi = INT64_MIN;
        for (int64_t k = chunk_begin(j->n, c); k < chunk_begin(j->n, c + 1); k++) {
            const clcg_gidx g = j->v[k];
            if (g < j->skip0 || g >= j->skip1) {
                lo = g < lo ? g : lo;
                hi = g > hi ? g : hi;
            }
        }
        j->cmin[c] = lo;
        j->cmax[c] = hi;
    }
}

static void set_mark(void *arg, int64_t c0, int64_t c1)
{
    set_job *j = arg;
    index_set *s = j->s;
    for (int64_t c = c0; c < c1; c++) {
        if (j->cmin[c] > j->cmax[c])
            continue;
        for (int64_t k = chunk_begin(j->n, c); k < chunk_begin(j->n, c + 1); k++) {
            const clcg_gidx g = j->v[k];
            if (g < j->skip0 || g >= j->skip1) {
                const uint64_t d = (uint64_t)(g - s->lo), bit = (uint64_t)1 << (d % 64);
                uint64_t *w = &s->bits[d / 64];
                if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
                    __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
            }
        }
    }
}

static void set_list(void *arg, int64_t w0, int64_t w1)
{
    set_job *j = arg;
    const index_set *s = j->s;
    for (int64_t w = w0; w < w1; w++) {
        int64_t at = s->before[w];
        for (uint64_t b = s->bits[w]; b; b &= b - 1)
            j->list[at++] = s->lo + 64 * w + __builtin_ctzll(b);
    }
}

/* Position of g (in the set) in the ascending list. */
static inline int64_t index_set_rank(const index_set *s, clcg_gidx g)
{
    const uint64_t d = (uint64_t)(g - s->lo);
    return s->before[d / 64] + __builtin_popcountll(s->bits[d / 64] & (((uint64_t)1 << (d % 64)) - 1));
}

static void index_set_free(index_set *s)
{
    free(s->bits);
    free(s->before);
    memset(s, 0, sizeof *s);
}

/* s = the distinct values of v[0..n) outside [skip0, skip1); *list (allocated here, at
 * least one element) receives them ascending. */
static clcg_status index_set_build(const clcg_gidx *v, int64_t n, clcg_gidx skip0, clcg_gidx skip1,
                                   index_set *s, clcg_gidx **list, const char *what)
{
    set_job *j = NULL;
    clcg_gidx lo = INT64_MAX, hi = INT64_MIN;
    clcg_status st = CLCG_OK;

    memset(s, 0, sizeof *s);
    *list = NULL;
    CLCG_CHECK(st, clcg_malloc(&j, 1, sizeof *j, what), out);
    j->v = v;
    j->n = n;
    j->skip0 = skip0;
    j->skip1 = skip1;
    j->s = s;
    clcg_parallel_for(SET_CHUNKS, set_span, j);
    for (int c = 0; c < SET_CHUNKS; c++) {
        lo = j->cmin[c] < lo ? j->cmin[c] : lo;
        hi = j->cmax[c] > hi ? j->cmax[c] : hi;
    }
    if (lo <= hi) {
        s->lo = lo;
        s->nwords = (int64_t)((uint64_t)(hi - lo) / 64 + 1);
        CLCG_CHECK(st, clcg_calloc(&s->bits, (size_t)s->nwords, sizeof *s->bits, what), out);
        CLCG_CHECK(st, clcg_malloc(&s->before, (size_t)s->nwords, sizeof *s->before, what), out);
        clcg_parallel_for(SET_CHUNKS, set_mark, j);
        for (int64_t w = 0; w < s->nwords; w++) {
            s->before[w] = s->count;
            s->count += __builtin_popcountll(s->bits[w]);
        }
    }
    CLCG_CHECK(st, clcg_malloc(list, (size_t)s->count + 1, sizeof **list, what), out);
    j->list = *list;
    clcg_parallel_for(s->nwords, set_list, j);
out:
    if (st != CLCG_OK) {
        index_set_free(s);
        free(*list);
        *list = NULL;
    }
    free(j);
    return st;
}

/* Local column numbers: owned columns first, ghosts after, in the order of the ghost set. */
typedef struct {
    const clcg_gidx *gcol;
    int32_t *colind;
    clcg_gidx row0, row1;
    int64_t nrows;
    const index_set *ghosts;
} colind_job;

static void number_columns(void *arg, int64_t lo, int64_t hi)
{
    const colind_job *j = arg;
    for (int64_t k = lo; k < hi; k++) {
        const clcg_gidx g = j->gcol[k];
        j->colind[k] = (g >= j->row0 && g < j->row1) ? (int32_t)(g - j->row0)
                                                     : (int32_t)(j->nrows + index_set_rank(j->ghosts, g));
    }
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
    index_set gs = {0}, ws = {0};

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(h, 0, sizeof *h);
    h->comm = comm;
    h->rank = rank;
    h->size = size;
    h->mode = mode;
    h->n = A->n;
    h->nrows = A->nrows;
    const int64_t row0 = row_begin[rank], row1 = row_begin[rank + 1];

    /* Every rank reaches every collective below: what can fail on one rank alone (memory, a
       rank with too many columns) is agreed on before the next one (AGREE). */
#define AGREE() CLCG_CHECK(st, clcg_agree(comm, st, NULL), out)
#define LOCAL(call) do { if (st == CLCG_OK) st = (call); } while (0)
    LOCAL(clcg_malloc(&h->row_begin, (size_t)size + 1, sizeof *h->row_begin, "partition"));
    if (st == CLCG_OK)
        memcpy(h->row_begin, row_begin, ((size_t)size + 1) * sizeof *row_begin);
    /* the whole vector in one MPI_Allgatherv: int displacements (the same on every rank) */
    if (st == CLCG_OK && mode == CLCG_EXCHANGE_ALLGATHER && A->n > INT32_MAX)
        st = clcg_error(CLCG_ERR_USAGE, "--exchange allgather: %lld rows, more than the 2^31 - 1 that one "
                        "MPI_Allgatherv gathers; use --exchange neighbor (the default) or needed", (long long)A->n);

    /* ghosts: distinct columns outside my rows, ascending; none when gcol is NULL (one rank
       whose reader left the columns, global = local, in A->colind) */
    if (st == CLCG_OK && !gcol && size != 1)
        st = clcg_error(CLCG_ERR_INTERNAL, "halo setup: no global columns on %d ranks", size);
    if (gcol)
        LOCAL(index_set_build(gcol, A->nnz, row0, row1, &gs, &A->ghost, "ghost list"));
    else
        LOCAL(clcg_malloc(&A->ghost, 1, sizeof *A->ghost, "ghost list"));
    nghost = gs.count;
    if (st == CLCG_OK && A->nrows + nghost > INT32_MAX)
        st = clcg_error(CLCG_ERR_INPUT, "rank %d: %lld local columns exceed 32-bit indices; use more ranks",
                        rank, (long long)(A->nrows + nghost));
    if (st == CLCG_OK) {
        h->nghost = nghost;
        A->ncols = A->nrows + nghost;
    }
    if (st == CLCG_OK && gcol) {
        colind_job cj = {gcol, A->colind, row0, row1, A->nrows, &gs};
        clcg_parallel_for(A->nnz, number_columns, &cj);
    }

    /* receive side: ghosts grouped by owner */
    LOCAL(clcg_calloc(&scount, (size_t)size, sizeof *scount, "halo counts"));
    LOCAL(clcg_calloc(&rcount, (size_t)size, sizeof *rcount, "halo counts"));
    LOCAL(clcg_calloc(&sdispl, (size_t)size + 1, sizeof *sdispl, "halo displacements"));
    LOCAL(clcg_calloc(&rdispl, (size_t)size + 1, sizeof *rdispl, "halo displacements"));
    AGREE();
    for (int64_t k = 0; k < nghost; k++)
        rcount[owner_of(row_begin, size, A->ghost[k])]++;
    CLCG_CHECK(st, mpi_ok(MPI_Alltoall(rcount, 1, MPI_INT, scount, 1, MPI_INT, comm), "MPI_Alltoall"), out);
    {   /* what the others ask of me, in all: counted by int displacements */
        int64_t asked_all = 0;
        for (int r = 0; r < size; r++)
            asked_all += scount[r];
        if (asked_all > INT32_MAX)
            st = clcg_error(CLCG_ERR_INPUT, "rank %d: the other ranks ask it for %lld values in all, more than the "
                            "2^31 - 1 one exchange counts; use more ranks", rank, (long long)asked_all);
    }
    AGREE();
    for (int r = 0; r < size; r++) {
        rdispl[r + 1] = rdispl[r] + rcount[r];
        sdispl[r + 1] = sdispl[r] + scount[r];
        h->nrecv += rcount[r] > 0;
        h->nsend += scount[r] > 0;
    }
    /* ask the owners for the ghosts; they learn what to send me */
    LOCAL(clcg_malloc(&asked, (size_t)sdispl[size], sizeof *asked, "halo requests"));
    AGREE();
    CLCG_CHECK(st, mpi_ok(MPI_Alltoallv(A->ghost, rcount, rdispl, MPI_INT64_T, asked, scount, sdispl,
                                        MPI_INT64_T, comm), "MPI_Alltoallv"), out);

    LOCAL(clcg_malloc(&h->recv_rank, (size_t)h->nrecv + 1, sizeof *h->recv_rank, "halo"));
    LOCAL(clcg_malloc(&h->recv_ptr, (size_t)h->nrecv + 1, sizeof *h->recv_ptr, "halo"));
    LOCAL(clcg_malloc(&h->send_rank, (size_t)h->nsend + 1, sizeof *h->send_rank, "halo"));
    LOCAL(clcg_malloc(&h->send_ptr, (size_t)h->nsend + 1, sizeof *h->send_ptr, "halo"));
    LOCAL(clcg_malloc(&h->send_idx, (size_t)sdispl[size] + 1, sizeof *h->send_idx, "halo"));
    if (st == CLCG_OK) {
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
    for (int64_t k = 0; st == CLCG_OK && k < sdispl[size]; k++) {
        if (asked[k] < row0 || asked[k] >= row1)
            st = clcg_error(CLCG_ERR_INTERNAL, "halo setup: rank %d asked for row %lld it does not own",
                            rank, (long long)asked[k]);
        else
            h->send_idx[k] = (int32_t)(asked[k] - row0);
    }

    /* needed mode: the union of what anyone asks of me, and where each ghost sits in the gather */
    {
        int64_t nexp = 0;
        LOCAL(index_set_build(asked, sdispl[size], 0, 0, &ws, &want, "halo"));
        if (st == CLCG_OK)
            nexp = ws.count;
        LOCAL(clcg_malloc(&h->export_idx, (size_t)nexp + 1, sizeof *h->export_idx, "halo"));
        for (int64_t k = 0; st == CLCG_OK && k < nexp; k++)
            h->export_idx[k] = (int32_t)(want[k] - row0);
        h->nexport = nexp;
        LOCAL(clcg_malloc(&pos_back, (size_t)sdispl[size] + 1, sizeof *pos_back, "halo"));
        for (int64_t k = 0; st == CLCG_OK && k < sdispl[size]; k++)
            pos_back[k] = index_set_rank(&ws, asked[k]);
        LOCAL(clcg_malloc(&pos_mine, (size_t)nghost + 1, sizeof *pos_mine, "halo"));
        LOCAL(clcg_malloc(&h->gather_counts, (size_t)size, sizeof *h->gather_counts, "halo"));
        LOCAL(clcg_malloc(&h->gather_displs, (size_t)size + 1, sizeof *h->gather_displs, "halo"));
        AGREE();
        CLCG_CHECK(st, mpi_ok(MPI_Alltoallv(pos_back, scount, sdispl, MPI_INT64_T, pos_mine, rcount,
                                            rdispl, MPI_INT64_T, comm), "MPI_Alltoallv"), out);
        int ne = (int)nexp;
        CLCG_CHECK(st, mpi_ok(MPI_Allgather(&ne, 1, MPI_INT, h->gather_counts, 1, MPI_INT, comm),
                              "MPI_Allgather"), out);
        /* needed mode gathers every rank's exports in one MPI_Allgatherv: int displacements
           (the same total on every rank) */
        int64_t gathered = 0;
        for (int r = 0; r < size; r++)
            gathered += h->gather_counts[r];
        if (gathered > INT32_MAX && mode == CLCG_EXCHANGE_NEEDED)
            st = clcg_error(CLCG_ERR_USAGE, "--exchange needed: the ranks' exports add up to %lld values, more than "
                            "the 2^31 - 1 that one MPI_Allgatherv gathers; use --exchange neighbor (the default)",
                            (long long)gathered);
        if (st != CLCG_OK)
            goto out;
        h->gather_displs[0] = 0;
        for (int r = 0; r < size; r++)   /* used by needed mode alone: elsewhere they need not fit */
            h->gather_displs[r + 1] = gathered > INT32_MAX ? 0 : h->gather_displs[r] + h->gather_counts[r];
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
#undef AGREE
#undef LOCAL
out:
    free(scount);
    free(rcount);
    free(sdispl);
    free(rdispl);
    free(want);
    free(asked);
    free(pos_back);
    free(pos_mine);
    index_set_free(&gs);
    index_set_free(&ws);
    return st;
}
