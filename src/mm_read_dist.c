/* Distributed Matrix Market input: A = sum of the file's triplets, each rank ending with
 * its own rows, partitioned by nonzeros, and no rank ever holding the whole matrix.
 *
 *   header     rank 0 reads the banner and size line (clcg_mm_read_header), broadcasts it.
 *   read       plain coordinate file: rank r takes bytes [D*r/P, D*(r+1)/P) of the D bytes
 *              after the size line, moved forward to the next line start (so its end is
 *              where rank r+1's first line starts); it counts its newlines, gets the
 *              number of its first line by MPI_Exscan and parses its lines, so messages
 *              name FILE:LINE.  gzip: rank 0 inflates a chunk (64 MiB) at a time and
 *              scatters line-aligned pieces of it, round after round.  array (dense,
 *              small): rank 0 reads it.
 *   count      entries are counted across ranks (MPI_Exscan, MPI_Allreduce): the rank
 *              holding entry number nentries+1 reports "more entries than declared" at
 *              its line; fewer than declared is "truncated" at the last line.
 *   exchange 1 entries go to an even block distribution of the rows (MPI_Alltoallv);
 *              a symmetric file's (i,j) goes to block(i) and (j,i) to block(j); with
 *              the symmetry check, a general file's off-diagonal (i,j) also goes to
 *              block(j) as a mirror record, so each row's owner sees the transpose.
 *   assemble   the block owner sorts by (row, column) (stable: duplicates summed in
 *              file order), checks symmetry against the mirrors, then empty rows and
 *              diagonals, with clcg_csr_from_coo's messages.
 *   partition  row counts -> distributed prefix sums -> the split points of
 *              clcg_partition_by_nnz, identical to the one-process partition.
 *   exchange 2 assembled rows move to their final owners; they arrive sorted.
 *
 * A failure on any rank ends every rank at the next clcg_agree, with the message of the
 * lowest failing rank; byte ranges are in rank order, so that is the first bad line of
 * the file, as a one-process read would report it.  Memory per rank: its share of the
 * text and its triplets, then the entries of its block of rows: O(nnz/P) when the
 * nonzeros are spread over the rows (a block of n/P consecutive rows holds them all). */
#include "dist.h"
#include "mm.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define GZ_CHUNK_DEFAULT ((size_t)64 << 20)   /* inflated bytes rank 0 deals out per round */
#define GZ_CHUNK_MAX ((size_t)1 << 30)        /* MPI counts are int */
#define SCAN_BLOCK 65536                      /* bytes read at a time looking for a newline */
#define SHORT_ROW 32                          /* rows up to this length are insertion-sorted */

typedef struct {
    int64_t i, j;   /* global row and column; j < 0: a mirror record of A(-1-j, i) */
    double v;
} rec;

typedef struct {            /* sorted, summed rows [row0, row0+nrows) with global columns */
    int64_t row0, nrows;
    int64_t *ptr;           /* nrows+1 */
    clcg_gidx *col;
    double *val;
} rows_t;

static void rows_free(rows_t *a)
{
    free(a->ptr);
    free(a->col);
    free(a->val);
    a->ptr = NULL;
    a->col = NULL;
    a->val = NULL;
}

static clcg_status mpi_ok(int rc, const char *what)
{
    return rc == MPI_SUCCESS ? CLCG_OK : clcg_error(CLCG_ERR_MPI, "%s failed while reading the matrix", what);
}

const char *clcg_show_double(double v, char out[32])
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, 32, "%.*g", p, v);
        if (strtod(out, NULL) == v || v != v)
            break;
    }
    return out;
}

int64_t clcg_block_begin(int64_t n, int size, int r)
{
    int64_t q = n / size, rem = n % size;
    return q * r + (r < rem ? r : rem);
}

/* The even block distribution of n rows over size ranks, for finding the owner of every
 * entry without a division (they are slow): a floating-point guess, corrected exactly. */
typedef struct {
    int64_t n, q, rem;
    int size;
    double scale;
} blocks;

static blocks blocks_make(int64_t n, int size)
{
    blocks b = {n, n / size, n % size, size, n > 0 ? (double)size / (double)n : 0.0};
    return b;
}

static inline int64_t blocks_begin(const blocks *b, int r)
{
    return b->q * r + (r < b->rem ? r : b->rem);
}

static inline int block_owner(const blocks *b, int64_t i)
{
    int r = (int)((double)i * b->scale);
    if (r >= b->size)
        r = b->size - 1;
    while (r > 0 && blocks_begin(b, r) > i)
        r--;
    while (r + 1 < b->size && blocks_begin(b, r + 1) <= i)
        r++;
    return r;
}

/* The rank owning row g under row_begin (the last r with row_begin[r] <= g). */
static int final_owner(const int64_t *row_begin, int size, int64_t g)
{
    int lo = 0, hi = size - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (row_begin[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* ---- reading ---- */

static clcg_status pread_all(int fd, const char *path, char *buf, size_t len, int64_t off)
{
    while (len > 0) {
        ssize_t r = pread(fd, buf, len < ((size_t)1 << 30) ? len : ((size_t)1 << 30), (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return clcg_error(CLCG_ERR_IO, "%s: read error: %s", path, strerror(errno));
        if (r == 0)
            return clcg_error(CLCG_ERR_IO, "%s: the file became shorter while it was read", path);
        buf += r;
        len -= (size_t)r;
        off += r;
    }
    return CLCG_OK;
}

/* The first line start at or after byte s > 0 of the file: s if byte s-1 is a newline,
 * else just past the next newline, or size if there is none. */
static clcg_status line_start(int fd, const char *path, int64_t s, int64_t size, int64_t *out)
{
    char b[SCAN_BLOCK];
    int64_t p = s - 1;
    while (p < size) {
        size_t want = size - p < SCAN_BLOCK ? (size_t)(size - p) : SCAN_BLOCK;
        const char *nl;
        CLCG_CALL(pread_all(fd, path, b, want, p));
        nl = memchr(b, '\n', want);
        if (nl) {
            *out = p + (nl - b) + 1;
            return CLCG_OK;
        }
        p += (int64_t)want;
    }
    *out = size;
    return CLCG_OK;
}

static int64_t count_newlines(const char *b, size_t len)
{
    int64_t c = 0;
    const char *end = b + len;
    while (b < end && (b = memchr(b, '\n', (size_t)(end - b))) != NULL) {
        c++;
        b++;
    }
    return c;
}

/* Start of piece r of buf[0..take) cut in nranks, moved to a line start. */
static size_t piece_start(const char *buf, size_t take, int nranks, int r)
{
    size_t s = (size_t)clcg_block_begin((int64_t)take, nranks, r);
    const char *nl;
    if (s == 0 || s >= take || buf[s - 1] == '\n')
        return s < take ? s : take;
    nl = memchr(buf + s, '\n', take - s);
    return nl ? (size_t)(nl - buf) + 1 : take;
}

/* ---- parsing a rank's text in parallel ---- */

#define PARSE_PIECES 64                    /* line-aligned pieces, spread over the threads */
#define PARSE_PARALLEL_MIN ((size_t)16 << 20)

typedef struct {
    const char *path;
    const clcg_mm_header *h;               /* nentries: unlimited (counted by the caller) */
    const char *buf;
    size_t start[PARSE_PIECES + 1];
    int64_t lines[PARSE_PIECES];           /* newlines in each piece, then its first line */
    clcg_coo part[PARSE_PIECES];
    int64_t count[PARSE_PIECES];
    int ok[PARSE_PIECES];
    clcg_coo *out;
    int64_t at[PARSE_PIECES];              /* where each piece's triplets go in out */
} parse_job;

static void count_pieces(void *arg, int64_t lo, int64_t hi)
{
    parse_job *j = arg;
    for (int64_t p = lo; p < hi; p++)
        j->lines[p] = count_newlines(j->buf + j->start[p], j->start[p + 1] - j->start[p]);
}

static void parse_pieces(void *arg, int64_t lo, int64_t hi)
{
    parse_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        j->count[p] = 0;
        j->ok[p] = clcg_mm_parse_entries(j->path, j->h, j->buf + j->start[p], j->start[p + 1] - j->start[p],
                                         j->lines[p], &j->part[p], &j->count[p]) == CLCG_OK;
        clcg_error_clear();   /* this thread's; the main thread redoes a failed parse */
    }
}

static void join_pieces(void *arg, int64_t lo, int64_t hi)
{
    parse_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        const clcg_coo *c = &j->part[p];
        memcpy(j->out->row + j->at[p], c->row, (size_t)c->len * sizeof *c->row);
        memcpy(j->out->col + j->at[p], c->col, (size_t)c->len * sizeof *c->col);
        memcpy(j->out->val + j->at[p], c->val, (size_t)c->len * sizeof *c->val);
    }
}

/* clcg_mm_parse_entries of a coordinate text into an empty coo, in PARSE_PIECES line-aligned
 * pieces parsed by parallel threads and joined in order.  Returns 0 when it did not do it
 * (small text, an array, any piece that fails: the caller then parses serially and reports
 * the first bad line as always), with coo left empty. */
static int parse_parallel(const char *path, const clcg_mm_header *open_h, const char *buf, size_t len,
                          int64_t first_line, clcg_coo *coo, int64_t *k)
{
    parse_job *j = NULL;
    int done = 0;
    int64_t total = 0, line = first_line;
    size_t min = PARSE_PARALLEL_MIN;
    const char *e = getenv("CLCG_PARSE_MIN");   /* tests: the parallel parse on small files */
    if (e && *e)
        min = (size_t)strtoull(e, NULL, 10);
    if (len < min || len == 0 || open_h->type[1] != 'C' || coo->len != 0)
        return 0;
    if (clcg_calloc(&j, 1, sizeof *j, "parse pieces") != CLCG_OK) {
        clcg_error_clear();
        return 0;
    }
    j->path = path;
    j->h = open_h;
    j->buf = buf;
    j->out = coo;
    for (int p = 0; p <= PARSE_PIECES; p++)
        j->start[p] = p == PARSE_PIECES ? len : piece_start(buf, len, PARSE_PIECES, p);
    clcg_parallel_for(PARSE_PIECES, count_pieces, j);
    for (int p = 0; p < PARSE_PIECES; p++) {
        const int64_t nl = j->lines[p];
        j->lines[p] = line;
        line += nl;
    }
    clcg_parallel_for(PARSE_PIECES, parse_pieces, j);
    done = 1;
    for (int p = 0; p < PARSE_PIECES; p++) {
        done &= j->ok[p];
        j->at[p] = total;
        total += j->part[p].len;
    }
    if (done && clcg_coo_reserve(coo, total > 0 ? total : 1) != CLCG_OK) {
        clcg_error_clear();
        done = 0;
    }
    if (done) {
        clcg_parallel_for(PARSE_PIECES, join_pieces, j);
        coo->len = total;
        *k = 0;
        for (int p = 0; p < PARSE_PIECES; p++)
            *k += j->count[p];
    }
    for (int p = 0; p < PARSE_PIECES; p++)
        clcg_coo_free(&j->part[p]);
    free(j);
    return done;
}

/* One round: every rank parses its piece buf[0..len) (first line first_line) into coo;
 * *base, the entries of all earlier rounds, grows by this round's.  The rank whose piece
 * holds entry number nentries+1 reports it (its own later errors come after it in the
 * file).  Collective; the status is agreed. */
static clcg_status parse_round(MPI_Comm comm, const char *path, const clcg_mm_header *h,
                               const char *buf, size_t len, int64_t first_line, clcg_coo *coo,
                               int64_t *base)
{
    clcg_mm_header open_h = *h;
    clcg_status st;
    int64_t before = coo->len, k = 0, prefix = 0, total = 0, g;
    int rank;

    MPI_Comm_rank(comm, &rank);
    open_h.nentries = INT64_MAX;     /* count here; the declared count is checked below */
    if (parse_parallel(path, &open_h, buf, len, first_line, coo, &k))
        st = CLCG_OK;
    else
        st = clcg_mm_parse_entries(path, &open_h, buf, len, first_line, coo, &k);
    if (st != CLCG_OK)
        k = coo->len - before;       /* the entries before the bad line */
    if (MPI_Exscan(&k, &prefix, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&k, &total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Exscan of the entry counts failed");
    if (rank == 0)
        prefix = 0;
    g = *base + prefix;
    if (g <= h->nentries && g + k > h->nentries) {
        clcg_coo scratch = {0};
        int64_t c = g;
        clcg_error_clear();
        st = clcg_mm_parse_entries(path, h, buf, len, first_line, &scratch, &c);
        clcg_coo_free(&scratch);
        if (st == CLCG_OK)
            st = clcg_error(CLCG_ERR_INTERNAL, "%s: entry count across ranks is inconsistent", path);
    }
    *base += total;
    return clcg_agree(comm, st, NULL);
}

/* Plain coordinate file: my byte range of the data part, parsed. */
static clcg_status read_plain(MPI_Comm comm, const char *path, const clcg_mm_header *h,
                              int64_t size, clcg_coo *coo, int64_t *count, int64_t *last_line)
{
    int rank, nranks, fd = -1;
    clcg_status st = CLCG_OK;
    int64_t *starts = NULL, start = 0, end, nl = 0, before = 0, mine[2], all[2];
    char *buf = NULL;
    size_t len = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    {
        int64_t d = size - h->data_offset;
        int64_t s = h->data_offset + clcg_block_begin(d > 0 ? d : 0, nranks, rank);
        fd = open(path, O_RDONLY);
        if (fd < 0)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        else if (s <= h->data_offset || s >= size)
            start = s < size ? s : size;
        else
            st = line_start(fd, path, s, size, &start);
    }
    if (st == CLCG_OK)
        st = clcg_malloc(&starts, (size_t)nranks, sizeof *starts, "read ranges");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_ok(MPI_Allgather(&start, 1, MPI_INT64_T, starts, 1, MPI_INT64_T, comm),
                          "MPI_Allgather of the read ranges"), out);
    end = rank + 1 < nranks ? starts[rank + 1] : size;
    if (end < start)
        end = start;
    len = (size_t)(end - start);
    st = clcg_malloc(&buf, len + 1, 1, "the text of the matrix");
    if (st == CLCG_OK)
        st = pread_all(fd, path, buf, len, start);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);

    nl = count_newlines(buf, len);
    CLCG_CHECK(st, mpi_ok(MPI_Exscan(&nl, &before, 1, MPI_INT64_T, MPI_SUM, comm),
                          "MPI_Exscan of the line counts"), out);
    if (rank == 0)
        before = 0;
    /* the file's last line: from the rank whose range ends it */
    mine[0] = len > 0 ? h->data_line + before + nl - (buf[len - 1] == '\n') : 0;
    mine[1] = 0;
    CLCG_CHECK(st, mpi_ok(MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm),
                          "MPI_Allreduce of the line counts"), out);
    *last_line = all[0] > 0 ? all[0] : h->data_line - 1;
    *count = 0;
    CLCG_CHECK(st, parse_round(comm, path, h, buf, len, h->data_line + before, coo, count), out);
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    free(starts);
    return st;
}

static size_t chunk_size(void)
{
    const char *e = getenv("CLCG_READ_CHUNK");   /* tests: small rounds */
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (*end == '\0' && v >= 64)
            return v < GZ_CHUNK_MAX ? (size_t)v : GZ_CHUNK_MAX;
    }
    return GZ_CHUNK_DEFAULT;
}

/* Rank 0: fill buf[*have .. cap) from the gzip stream. */
static clcg_status gz_fill(gzFile g, const char *path, char *buf, size_t cap, size_t *have, int *eof)
{
    while (!*eof && *have < cap) {
        int r = gzread(g, buf + *have, (unsigned)(cap - *have));
        int zerr = Z_OK;
        const char *zmsg = NULL;
        if (r <= 0)
            zmsg = gzerror(g, &zerr);
        if (zerr == Z_ERRNO)
            return clcg_error(CLCG_ERR_IO, "%s: read error: %s", path, strerror(errno));
        if (zerr != Z_OK)
            return clcg_error(CLCG_ERR_INPUT, "%s: corrupt or truncated gzip data (%s)", path,
                              zmsg ? zmsg : "zlib error");
        if (r <= 0)
            *eof = 1;
        else
            *have += (size_t)r;
    }
    return CLCG_OK;
}


/* gzip file: rank 0 inflates a chunk at a time and scatters line-aligned pieces. */
static clcg_status read_gz(MPI_Comm comm, const char *path, const clcg_mm_header *h,
                           clcg_coo *coo, int64_t *count, int64_t *last_line)
{
    int rank, nranks, eof = 0, ended_nl = 1;
    clcg_status st = CLCG_OK;
    gzFile g = NULL;
    char *buf = NULL, *piece = NULL;
    size_t cap = chunk_size(), have = 0, piece_cap = 0;
    int64_t line = h->data_line, *lines = NULL;
    int *counts = NULL, *displs = NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    *count = 0;
    if (rank == 0) {
        int64_t skip = h->data_offset;
        g = gzopen(path, "rb");
        if (!g)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        if (st == CLCG_OK)
            st = clcg_malloc(&buf, cap, 1, "the inflated matrix chunk");
        if (st == CLCG_OK)
            st = clcg_malloc(&counts, (size_t)nranks, sizeof *counts, "read pieces");
        if (st == CLCG_OK)
            st = clcg_malloc(&displs, (size_t)nranks, sizeof *displs, "read pieces");
        if (st == CLCG_OK)
            st = clcg_malloc(&lines, (size_t)nranks * 2, sizeof *lines, "read pieces");
        while (st == CLCG_OK && skip > 0) {       /* the header, already parsed */
            size_t want = skip < (int64_t)cap ? (size_t)skip : cap;
            have = 0;
            st = gz_fill(g, path, buf, want, &have, &eof);
            if (st == CLCG_OK && have < want)
                st = clcg_error(CLCG_ERR_INPUT, "%s: the file ended inside its header", path);
            skip -= (int64_t)have;
        }
        have = 0;
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);

    for (;;) {
        int more = 0;
        size_t take = 0;
        int64_t mine[2];    /* my piece: bytes, first line */
        if (rank == 0) {
            st = gz_fill(g, path, buf, cap, &have, &eof);
            if (st == CLCG_OK && have > 0) {
                take = have;
                if (!eof)
                    while (take > 0 && buf[take - 1] != '\n')
                        take--;
                if (take == 0)
                    st = clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": line longer than the %zu-"
                                    "byte read chunk", path, line, cap);
                more = 1;
            }
        }
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
        CLCG_CHECK(st, mpi_ok(MPI_Bcast(&more, 1, MPI_INT, 0, comm), "MPI_Bcast"), out);
        if (!more)
            break;
        if (rank == 0) {
            int64_t l = line;
            size_t prev = 0;
            for (int r = 0; r < nranks; r++) {
                size_t s = piece_start(buf, take, nranks, r);
                size_t e = r + 1 < nranks ? piece_start(buf, take, nranks, r + 1) : take;
                l += count_newlines(buf + prev, s - prev);
                prev = s;
                displs[r] = (int)s;
                counts[r] = (int)(e - s);
                lines[2 * r] = (int64_t)(e - s);
                lines[2 * r + 1] = l;
            }
        }
        CLCG_CHECK(st, mpi_ok(MPI_Scatter(lines, 2, MPI_INT64_T, mine, 2, MPI_INT64_T, 0, comm),
                              "MPI_Scatter of the pieces"), out);
        if (rank != 0 && (size_t)mine[0] + 1 > piece_cap) {
            free(piece);
            piece = NULL;
            piece_cap = (size_t)mine[0] + 1;
            st = clcg_malloc(&piece, piece_cap, 1, "a piece of the matrix text");
            if (st != CLCG_OK)
                piece_cap = 0;
        }
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
        if (rank == 0)
            st = mpi_ok(MPI_Scatterv(buf, counts, displs, MPI_CHAR, MPI_IN_PLACE, 0, MPI_CHAR, 0,
                                     comm), "MPI_Scatterv of the pieces");
        else
            st = mpi_ok(MPI_Scatterv(NULL, NULL, NULL, MPI_CHAR, piece, (int)mine[0], MPI_CHAR, 0,
                                     comm), "MPI_Scatterv of the pieces");
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
        CLCG_CHECK(st, parse_round(comm, path, h, rank == 0 ? buf + displs[0] : piece,
                                   (size_t)mine[0], mine[1], coo, count), out);
        if (rank == 0) {
            ended_nl = buf[take - 1] == '\n';
            line += count_newlines(buf, take);
            memmove(buf, buf + take, have - take);
            have -= take;
        }
    }
    if (rank == 0)
        *last_line = ended_nl ? line - 1 : line;
out:
    if (g)
        gzclose(g);
    free(buf);
    free(piece);
    free(counts);
    free(displs);
    free(lines);
    return st;
}

/* ---- moving entries ---- */

/* Send *sbuf (scount[r] records for rank r, in rank order) and receive *rbuf (*rlen
 * records, in source rank order).  On one rank the records stay where they are: *rbuf
 * takes *sbuf over (no copy into fresh memory, which the system must first clear) and
 * *sbuf becomes NULL.  Collective; the status is agreed. */
static clcg_status exchange(MPI_Comm comm, MPI_Datatype rt, rec **sbufp,
                            const int64_t *scount, rec **rbuf, int64_t *rlen, int64_t *held)
{
    int nranks;
    int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    int64_t ssum = 0, rsum = 0;
    clcg_status st = CLCG_OK;
    const rec *sbuf = *sbufp;

    MPI_Comm_size(comm, &nranks);
    *rbuf = NULL;
    *rlen = 0;
    if (nranks == 1) {
        *rbuf = *sbufp;
        *sbufp = NULL;
        *rlen = scount[0];
        return CLCG_OK;
    }
    st = clcg_malloc(&sc, (size_t)nranks * 4, sizeof *sc, "exchange counts");
    if (st == CLCG_OK) {
        sd = sc + nranks;
        rc = sd + nranks;
        rd = rc + nranks;
        for (int r = 0; r < nranks; r++) {
            sd[r] = (int)ssum;
            ssum += scount[r];
            sc[r] = (int)scount[r];
        }
        if (ssum > INT_MAX)
            st = clcg_error(CLCG_ERR_MEMORY, "%" PRId64 " matrix entries to send from one rank: "
                            "more than one MPI exchange can count (2^31-1); use more ranks", ssum);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_ok(MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm), "MPI_Alltoall"), out);
    for (int r = 0; r < nranks; r++) {
        rd[r] = (int)(rsum < INT_MAX ? rsum : INT_MAX);
        rsum += rc[r];
    }
    if (rsum > INT_MAX)
        st = clcg_error(CLCG_ERR_MEMORY, "%" PRId64 " matrix entries to receive on one rank: "
                        "more than one MPI exchange can count (2^31-1); use more ranks", rsum);
    else
        st = clcg_malloc(rbuf, (size_t)rsum + 1, sizeof **rbuf, "matrix entries received");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (rsum > *held)
        *held = rsum;
    st = mpi_ok(MPI_Alltoallv(sbuf, sc, sd, rt, *rbuf, rc, rd, rt, comm), "MPI_Alltoallv of the entries");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    *rlen = rsum;
out:
    if (st != CLCG_OK) {
        free(*rbuf);
        *rbuf = NULL;
    }
    free(sc);
    return st;
}

/* Exchange 1: the triplets of coo (freed here) to the block owners of their rows, with
 * symmetric expansion and (mirrors) transposed copies of off-diagonal entries. */
static clcg_status to_blocks(MPI_Comm comm, MPI_Datatype rt, int64_t n, clcg_coo *coo,
                             int symmetric, int mirrors, rec **out, int64_t *nout, int64_t *held)
{
    int nranks;
    int64_t *cnt = NULL, *pos = NULL, total = 0;
    rec *sbuf = NULL;
    clcg_status st;
    blocks bl;

    MPI_Comm_size(comm, &nranks);
    bl = blocks_make(n, nranks);
    st = clcg_calloc(&cnt, (size_t)nranks * 2, sizeof *cnt, "exchange counts");
    if (st == CLCG_OK) {
        pos = cnt + nranks;
        for (int64_t k = 0; k < coo->len; k++) {
            int64_t i = coo->row[k], j = coo->col[k];
            cnt[block_owner(&bl, i)]++;
            if (i != j && (symmetric || mirrors))
                cnt[block_owner(&bl, j)]++;
        }
        for (int r = 0; r < nranks; r++) {
            pos[r] = total;
            total += cnt[r];
        }
        st = clcg_malloc(&sbuf, (size_t)total + 1, sizeof *sbuf, "matrix entries to send");
    }
    if (st == CLCG_OK) {
        if (total > *held)
            *held = total;
        for (int64_t k = 0; k < coo->len; k++) {
            int64_t i = coo->row[k], j = coo->col[k];
            double v = coo->val[k];
            rec *r = &sbuf[pos[block_owner(&bl, i)]++];
            r->i = i;
            r->j = j;
            r->v = v;
            if (i != j && (symmetric || mirrors)) {
                r = &sbuf[pos[block_owner(&bl, j)]++];
                r->i = j;
                r->j = symmetric ? i : -1 - i;
                r->v = v;
            }
        }
    }
    clcg_coo_free(coo);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), done);
    st = exchange(comm, rt, &sbuf, cnt, out, nout, held);
done:
    free(sbuf);
    free(cnt);
    return st;
}

/* ---- assembling a block of rows ---- */

/* Stable sort of a[0..n) by column; tmp: scratch of n records. */
static void sort_by_col(rec *a, int64_t n, rec *tmp)
{
    if (n <= SHORT_ROW) {
        for (int64_t k = 1; k < n; k++) {
            rec x = a[k];
            int64_t m = k;
            for (; m > 0 && a[m - 1].j > x.j; m--)
                a[m] = a[m - 1];
            a[m] = x;
        }
        return;
    }
    for (int64_t lo = 0; lo < n; lo += SHORT_ROW)
        sort_by_col(a + lo, n - lo < SHORT_ROW ? n - lo : SHORT_ROW, tmp);
    for (int64_t w = SHORT_ROW; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi)
                tmp[o++] = a[y].j < a[x].j ? a[y++] : a[x++];
            while (x < mid)
                tmp[o++] = a[x++];
            while (y < hi)
                tmp[o++] = a[y++];
        }
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
}

/* Sorted, duplicate-summed rows from the records s[ptr[i]..ptr[i+1]) of each row. */
static clcg_status compact(const rec *s, const int64_t *ptr, int64_t row0, int64_t nrows, rows_t *a)
{
    int64_t w = 0, m = ptr[nrows];
    a->row0 = row0;
    a->nrows = nrows;
    CLCG_CALL(clcg_malloc(&a->ptr, (size_t)nrows + 1, sizeof *a->ptr, "row pointers"));
    CLCG_CALL(clcg_malloc(&a->col, (size_t)m + 1, sizeof *a->col, "column indices"));
    CLCG_CALL(clcg_malloc(&a->val, (size_t)m + 1, sizeof *a->val, "matrix values"));
    for (int64_t i = 0; i < nrows; i++) {
        int64_t rs = w;
        a->ptr[i] = w;
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            if (w > rs && a->col[w - 1] == s[k].j) {
                a->val[w - 1] += s[k].v;
            } else {
                a->col[w] = s[k].j;
                a->val[w] = s[k].v;
                w++;
            }
        }
    }
    a->ptr[nrows] = w;
    return CLCG_OK;
}

/* The records of my block (freed here) as sorted, summed rows a, and the mirror
 * records as rows mir (A(j,i) filed under row i, column j). */
static clcg_status assemble_block(rec *r, int64_t m, int64_t row0, int64_t nrows, rows_t *a,
                                  rows_t *mir)
{
    int64_t *pa = NULL, *pm = NULL, *next = NULL, ma;
    rec *s = NULL;
    clcg_status st = CLCG_OK;

    CLCG_CHECK(st, clcg_calloc(&pa, (size_t)nrows + 1, sizeof *pa, "assembly counts"), out);
    CLCG_CHECK(st, clcg_calloc(&pm, (size_t)nrows + 1, sizeof *pm, "assembly counts"), out);
    CLCG_CHECK(st, clcg_malloc(&next, (size_t)nrows * 2 + 1, sizeof *next, "assembly cursors"), out);
    for (int64_t k = 0; k < m; k++) {
        int64_t li = r[k].i - row0;
        if (li < 0 || li >= nrows) {
            st = clcg_error(CLCG_ERR_INTERNAL, "row %" PRId64 " sent to the wrong rank", r[k].i + 1);
            goto out;
        }
        if (r[k].j >= 0)
            pa[li + 1]++;
        else
            pm[li + 1]++;
    }
    for (int64_t i = 0; i < nrows; i++) {
        pa[i + 1] += pa[i];
        pm[i + 1] += pm[i];
    }
    ma = pa[nrows];
    for (int64_t i = 0; i < nrows; i++) {
        next[i] = pa[i];
        next[nrows + i] = ma + pm[i];
    }
    CLCG_CHECK(st, clcg_malloc(&s, (size_t)m + 1, sizeof *s, "assembly scratch"), out);
    for (int64_t k = 0; k < m; k++) {       /* counting sort by row, stable */
        int64_t li = r[k].i - row0;
        if (r[k].j >= 0) {
            s[next[li]++] = r[k];
        } else {
            rec x = r[k];
            x.j = -1 - x.j;
            s[next[nrows + li]++] = x;
        }
    }
    for (int64_t i = 0; i < nrows; i++) {   /* each row by column; r is the scratch */
        sort_by_col(s + pa[i], pa[i + 1] - pa[i], r);
        sort_by_col(s + ma + pm[i], pm[i + 1] - pm[i], r);
    }
    free(r);
    r = NULL;
    CLCG_CHECK(st, compact(s, pa, row0, nrows, a), out);
    CLCG_CHECK(st, compact(s + ma, pm, row0, nrows, mir), out);
out:
    free(r);
    free(s);
    free(pa);
    free(pm);
    free(next);
    return st;
}

/* A general file must be symmetric: every stored A(i,j) against the mirrored A(j,i). */
static clcg_status check_symmetric(const char *path, const rows_t *a, const rows_t *mir)
{
    for (int64_t li = 0; li < a->nrows; li++) {
        int64_t i = a->row0 + li, km = mir->ptr[li], em = mir->ptr[li + 1];
        for (int64_t k = a->ptr[li]; k < a->ptr[li + 1]; k++) {
            int64_t j = a->col[k];
            double x = a->val[k], y;
            if (j == i)
                continue;
            while (km < em && mir->col[km] < j)
                km++;
            y = (km < em && mir->col[km] == j) ? mir->val[km] : 0.0;
            if (!(fabs(x - y) <= 64 * DBL_EPSILON * fmax(fabs(x), fabs(y)))) {
                char sx[32], sy[32];
                return clcg_error(CLCG_ERR_INPUT, "%s: matrix is not symmetric: A(%" PRId64 ",%"
                                  PRId64 ") = %s but A(%" PRId64 ",%" PRId64 ") = %s (use "
                                  "--no-symmetry-check to solve anyway)", path, i + 1, j + 1,
                                  clcg_show_double(x, sx), j + 1, i + 1, clcg_show_double(y, sy));
            }
        }
    }
    return CLCG_OK;
}

clcg_status clcg_dist_check_rows(const char *path, int64_t row0, int64_t nrows,
                                 const int64_t *rowptr, const clcg_gidx *gcol, const double *val)
{
    for (int64_t li = 0; li < nrows; li++) {
        int64_t i = row0 + li, lo = rowptr[li], hi = rowptr[li + 1], end = hi;
        double d;
        char sd[32];
        if (lo == hi)
            return clcg_error(CLCG_ERR_NOT_SPD, "%s: row %" PRId64 " is empty: the matrix is "
                              "singular", path, i + 1);
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (gcol[mid] < i)
                lo = mid + 1;
            else
                hi = mid;
        }
        d = (lo < end && gcol[lo] == i) ? val[lo] : 0.0;
        if (!(d > 0))
            return clcg_error(CLCG_ERR_NOT_SPD, "%s: diagonal entry A(%" PRId64 ",%" PRId64
                              ") = %s is not positive: the matrix is not positive definite",
                              path, i + 1, i + 1, clcg_show_double(d, sd));
    }
    return CLCG_OK;
}

/* Exchange 2: the assembled block rows (freed here) to their final owners, where they
 * arrive in (row, column) order: my rows as A and gcol. */
static clcg_status to_owners(MPI_Comm comm, MPI_Datatype rt, rows_t *b, const int64_t *row_begin,
                             clcg_csr *A, clcg_gidx **gcol, int64_t *held)
{
    int rank, nranks;
    int64_t *cnt = NULL, total, m = 0;
    rec *sbuf = NULL, *rbuf = NULL;
    clcg_status st;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    total = b->ptr[b->nrows];
    if (nranks == 1) {   /* every row stays: the assembled arrays become the rank's */
        A->row0 = 0;
        A->nrows = b->nrows;
        A->nnz = total;
        A->rowptr = b->ptr;
        A->val = b->val;
        *gcol = b->col;
        b->ptr = NULL;
        b->val = NULL;
        b->col = NULL;
        st = clcg_malloc(&A->colind, (size_t)total + 1, sizeof *A->colind, "column indices");
        if (total > *held)
            *held = total;
        return st;
    }
    st = clcg_calloc(&cnt, (size_t)nranks, sizeof *cnt, "exchange counts");
    if (st == CLCG_OK)
        st = clcg_malloc(&sbuf, (size_t)total + 1, sizeof *sbuf, "matrix entries to send");
    if (st == CLCG_OK) {
        for (int64_t li = 0; li < b->nrows; li++) {
            int64_t i = b->row0 + li;
            int o = final_owner(row_begin, nranks, i);
            cnt[o] += b->ptr[li + 1] - b->ptr[li];
            for (int64_t k = b->ptr[li]; k < b->ptr[li + 1]; k++) {
                sbuf[m].i = i;
                sbuf[m].j = b->col[k];
                sbuf[m].v = b->val[k];
                m++;
            }
        }
    }
    rows_free(b);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, exchange(comm, rt, &sbuf, cnt, &rbuf, &m, held), out);
    free(sbuf);
    sbuf = NULL;

    A->row0 = row_begin[rank];
    A->nrows = row_begin[rank + 1] - row_begin[rank];
    A->nnz = m;
    st = clcg_calloc(&A->rowptr, (size_t)A->nrows + 1, sizeof *A->rowptr, "row pointers");
    if (st == CLCG_OK)
        st = clcg_malloc(&A->val, (size_t)m + 1, sizeof *A->val, "matrix values");
    if (st == CLCG_OK)
        st = clcg_malloc(gcol, (size_t)m + 1, sizeof **gcol, "global column indices");
    if (st == CLCG_OK)      /* filled by clcg_halo_setup */
        st = clcg_malloc(&A->colind, (size_t)m + 1, sizeof *A->colind, "column indices");
    for (int64_t k = 0; st == CLCG_OK && k < m; k++) {
        int64_t li = rbuf[k].i - A->row0;
        if (li < 0 || li >= A->nrows || (k > 0 && (rbuf[k].i < rbuf[k - 1].i ||
                                                   (rbuf[k].i == rbuf[k - 1].i && rbuf[k].j <= rbuf[k - 1].j)))) {
            st = clcg_error(CLCG_ERR_INTERNAL, "matrix entries arrived out of order");
            break;
        }
        A->rowptr[li + 1]++;
        (*gcol)[k] = rbuf[k].j;
        A->val[k] = rbuf[k].v;
    }
    for (int64_t i = 0; st == CLCG_OK && i < A->nrows; i++)
        A->rowptr[i + 1] += A->rowptr[i];
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    free(sbuf);
    free(rbuf);
    free(cnt);
    return st;
}

clcg_status clcg_dist_read_mm(MPI_Comm comm, const char *path, int check_symmetry,
                              int64_t *row_begin, clcg_csr *A, clcg_gidx **gcol,
                              clcg_dist_info *info)
{
    int rank, nranks, symmetric, mirrors, whole = 0;
    clcg_status st = CLCG_OK;
    clcg_mm_header h;
    clcg_coo coo = {0};
    rec *blk = NULL;
    rows_t a = {0}, mir = {0};
    int64_t fsize = -1, count = 0, last_line = 0, m = 0, b0, nb, *row_nnz = NULL;
    MPI_Datatype rt = MPI_DATATYPE_NULL;
    double t0 = MPI_Wtime();

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    memset(A, 0, sizeof *A);
    memset(info, 0, sizeof *info);
    *gcol = NULL;
    memset(&h, 0, sizeof h);

    /* header: rank 0 reads and checks it, everyone gets it.  What is not a regular file
       (a pipe) can be read only once: rank 0 reads all of it now. */
    if (rank == 0) {
        struct stat sb;
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            st = clcg_mm_read_matrix(path, &h, &coo);
            whole = 1;
        } else {
            st = clcg_mm_read_header(path, &h);
            fsize = (int64_t)sb.st_size;
        }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, comm), "MPI_Bcast of the header"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&fsize, 1, MPI_INT64_T, 0, comm), "MPI_Bcast of the file size"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&whole, 1, MPI_INT, 0, comm), "MPI_Bcast"), out);
    symmetric = clcg_mm_is_symmetric(&h);
    mirrors = check_symmetry && !symmetric;
    A->n = h.nrows;

    /* read: my share of the triplets */
    if (whole) {
        /* read by rank 0 above */
    } else if (clcg_mm_is_array(&h)) {
        /* dense arrays (small): rank 0 reads, counting the column-major positions */
        clcg_mm_header h2;
        if (rank == 0)
            st = clcg_mm_read_matrix(path, &h2, &coo);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    } else {
        if (h.gz)
            st = read_gz(comm, path, &h, &coo, &count, &last_line);
        else
            st = read_plain(comm, path, &h, fsize, &coo, &count, &last_line);
        if (st != CLCG_OK)
        goto out;
        if (rank == 0 && count < h.nentries)
            st = clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": truncated: %" PRId64 " entries of %"
                            PRId64 " declared", path, last_line, count, h.nentries);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    }
    info->held = coo.len;
    info->t_read = MPI_Wtime() - t0;
    t0 = MPI_Wtime();

    /* exchange 1, assembly and checks on the row blocks */
    CLCG_CHECK(st, mpi_ok(MPI_Type_contiguous((int)sizeof(rec), MPI_BYTE, &rt), "MPI_Type_contiguous"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Type_commit(&rt), "MPI_Type_commit"), out);
    CLCG_CHECK(st, to_blocks(comm, rt, h.nrows, &coo, symmetric, mirrors, &blk, &m, &info->held), out);
    b0 = clcg_block_begin(h.nrows, nranks, rank);
    nb = clcg_block_begin(h.nrows, nranks, rank + 1) - b0;
    st = assemble_block(blk, m, b0, nb, &a, &mir);
    blk = NULL;
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (mirrors)
        st = check_symmetric(path, &a, &mir);
    rows_free(&mir);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = clcg_dist_check_rows(path, a.row0, a.nrows, a.ptr, a.col, a.val);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);

    /* partition by nonzeros, then exchange 2 to the final owners */
    st = clcg_malloc(&row_nnz, (size_t)nb + 1, sizeof *row_nnz, "row counts");
    for (int64_t i = 0; st == CLCG_OK && i < nb; i++)
        row_nnz[i] = a.ptr[i + 1] - a.ptr[i];
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_partition_by_nnz_dist(comm, h.nrows, b0, nb, row_nnz, row_begin), out);
    CLCG_CHECK(st, to_owners(comm, rt, &a, row_begin, A, gcol, &info->held), out);
    info->t_exchange = MPI_Wtime() - t0;
out:
    if (rt != MPI_DATATYPE_NULL)
        MPI_Type_free(&rt);
    clcg_coo_free(&coo);
    free(blk);
    free(row_nnz);
    rows_free(&a);
    rows_free(&mir);
    if (st != CLCG_OK) {
        clcg_csr_free(A);
        free(*gcol);
        *gcol = NULL;
    }
    return st;
}
