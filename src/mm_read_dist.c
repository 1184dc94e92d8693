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
 *              Only what other ranks own is sent: a rank's own records are taken from
 *              its triplets in the assembly; on one rank there is no exchange at all.
 *              While it runs a rank holds its triplets and the records it sends and
 *              receives (a shuffled general file with the symmetry check: about 3-4
 *              nnz/P entries; a file sorted by row or column: about nnz/P).
 *   assemble   the block owner sorts by (row, column) (threads place records by row,
 *              then sort each row by column and arrival: duplicates summed in file
 *              order), checks symmetry against the mirrors, then empty rows and
 *              diagonals, with clcg_csr_from_coo's messages.
 *   partition  row counts -> distributed prefix sums -> the split points of
 *              clcg_partition_by_nnz, identical to the one-process partition.
 *   exchange 2 assembled rows move to their final owners; they arrive sorted; the rows a
 *              rank keeps (most: the split is near the even one) are copied across, or
 *              kept in place where they are the block's first rows and nothing arrives.
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
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* Development aid: CLCG_LOAD_TRACE=1 prints each rank's time per loading step to stderr
 * (lap), and within a step the time since the step's start or the last sub-step (sub). */
static int trace_on = -1, trace_rank;
static double trace_sub;

static void lap(int rank, const char *step, double *t)
{
    if (trace_on < 0) {
        const char *e = getenv("CLCG_LOAD_TRACE");
        trace_on = e && *e && strcmp(e, "0") != 0;
    }
    const double now = MPI_Wtime();
    if (trace_on > 0 && step)
        fprintf(stderr, "load trace: rank %d: %-22s %.3f s\n", rank, step, now - *t);
    *t = trace_sub = now;
    trace_rank = rank;
}

static void sub(const char *step)
{
    if (trace_on > 0) {
        const double now = MPI_Wtime();
        fprintf(stderr, "load trace: rank %d:   %-20s %.3f s\n", trace_rank, step, now - trace_sub);
        trace_sub = now;
    }
}

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


/* Newlines in buf[0..len), counted by parallel threads in NL_PIECES pieces. */
#define NL_PIECES 64
typedef struct {
    const char *buf;
    size_t len;
    int64_t n[NL_PIECES];
} nl_job;

static void count_nl_pieces(void *arg, int64_t lo, int64_t hi)
{
    nl_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        size_t a = (size_t)clcg_block_begin((int64_t)j->len, NL_PIECES, (int)p);
        size_t b = (size_t)clcg_block_begin((int64_t)j->len, NL_PIECES, (int)p + 1);
        j->n[p] = clcg_mm_count_newlines(j->buf + a, b - a);
    }
}

static int64_t count_newlines_par(const char *buf, size_t len)
{
    nl_job j = {buf, len, {0}};
    int64_t c = 0;
    clcg_parallel_for(NL_PIECES, count_nl_pieces, &j);
    for (int p = 0; p < NL_PIECES; p++)
        c += j.n[p];
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
    int64_t at[PARSE_PIECES];              /* where each piece's room starts in out */
} parse_job;

static void count_pieces(void *arg, int64_t lo, int64_t hi)
{
    parse_job *j = arg;
    for (int64_t p = lo; p < hi; p++)
        j->lines[p] = clcg_mm_count_newlines(j->buf + j->start[p], j->start[p + 1] - j->start[p]);
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

/* clcg_mm_parse_entries of a coordinate text into an empty coo, in PARSE_PIECES line-aligned
 * pieces parsed by parallel threads straight into their places in coo: a piece of L
 * newlines holds at most L entries, one more when its last line has no newline, so each gets
 * that much room (a fixed view that cannot grow), and the pieces are moved together
 * afterwards only where blank or comment lines left gaps.  Returns 0 when it did not do it
 * (small text, an array, any piece that fails: the caller then parses serially and reports
 * the first bad line as always), with coo left empty. */
static int parse_parallel(const char *path, const clcg_mm_header *open_h, const char *buf, size_t len,
                          int64_t first_line, clcg_coo *coo, int64_t *k)
{
    parse_job *j = NULL;
    int done = 0;
    int64_t room = 0, total = 0, line = first_line;
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
        const size_t e = j->start[p + 1];
        j->lines[p] = line;
        line += nl;
        j->at[p] = room;
        room += nl + (e > j->start[p] && buf[e - 1] != '\n');   /* an unterminated last line */
    }
    if (clcg_coo_reserve(coo, room) != CLCG_OK) {
        clcg_error_clear();
        free(j);
        return 0;
    }
    for (int p = 0; p < PARSE_PIECES; p++) {
        const int64_t at = j->at[p], cap = (p + 1 < PARSE_PIECES ? j->at[p + 1] : room) - at;
        j->part[p] = (clcg_coo){.n = coo->n, .cap = cap, .row = coo->row + at, .col = coo->col + at,
                                .val = coo->val + at, .symmetric = coo->symmetric, .fixed = 1};
    }
    clcg_parallel_for(PARSE_PIECES, parse_pieces, j);
    done = 1;
    for (int p = 0; p < PARSE_PIECES; p++)
        done &= j->ok[p];
    if (done) {
        *k = 0;
        for (int p = 0; p < PARSE_PIECES; p++) {   /* close the gaps, in order */
            const int64_t n = j->part[p].len;
            if (j->at[p] != total) {
                memmove(coo->row + total, coo->row + j->at[p], (size_t)n * sizeof *coo->row);
                memmove(coo->col + total, coo->col + j->at[p], (size_t)n * sizeof *coo->col);
                memmove(coo->val + total, coo->val + j->at[p], (size_t)n * sizeof *coo->val);
            }
            total += n;
            *k += j->count[p];
            if (!coo->line_below)
                coo->line_below = j->part[p].line_below;
            if (!coo->line_above)
                coo->line_above = j->part[p].line_above;
        }
        coo->len = total;
    } else {
        clcg_coo_free(coo);
    }
    free(j);
    return done;
}

/* A mapped file that shrinks while it is read (another process truncating it) faults on
 * the pages past its new end (SIGBUS).  While this rank parses its mapped share (armed: the
 * local passes over the text, not the collective steps between them) the fault ends it with
 * one message and the status of bad input (3), as a file found short when read does; the
 * launcher ends the others.  A SIGBUS at any other time goes where it went before. */
static char bus_msg[4400];
static size_t bus_len;
static struct sigaction bus_before;
static volatile sig_atomic_t bus_on, bus_armed;

static void bus_fault(int sig)
{
    if (!bus_armed) {   /* not the map's: to the handler before ours (a fault comes again) */
        sigaction(SIGBUS, &bus_before, NULL);
        raise(sig);
        return;
    }
    ssize_t w = write(STDERR_FILENO, bus_msg, bus_len);
    (void)w;
    _exit(CLCG_EXIT_INPUT);
}

static void bus_guard(const char *path, int rank, int on)
{
    struct sigaction sa;
    bus_armed = 0;
    if (!on) {
        if (bus_on)
            sigaction(SIGBUS, &bus_before, NULL);
        bus_on = 0;
        return;
    }
    if (rank == 0)
        snprintf(bus_msg, sizeof bus_msg, "clcg-mpi: %.4000s: the file changed while it was read (it is shorter now)\n",
                 path);
    else
        snprintf(bus_msg, sizeof bus_msg,
                 "clcg-mpi: rank %d: %.4000s: the file changed while it was read (it is shorter now)\n", rank, path);
    bus_len = strlen(bus_msg);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = bus_fault;
    sigemptyset(&sa.sa_mask);
    bus_on = sigaction(SIGBUS, &sa, &bus_before) == 0;
}

/* armed while the mapped text is read here (no-op without a map) */
static void bus_arm(int armed)
{
    bus_armed = bus_on && armed;
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
    bus_arm(1);
    if (parse_parallel(path, &open_h, buf, len, first_line, coo, &k))
        st = CLCG_OK;
    else
        st = clcg_mm_parse_entries(path, &open_h, buf, len, first_line, coo, &k);
    bus_arm(0);
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
        bus_arm(1);
        st = clcg_mm_parse_entries(path, h, buf, len, first_line, &scratch, &c);
        bus_arm(0);
        clcg_coo_free(&scratch);
        if (st == CLCG_OK)
            st = clcg_error(CLCG_ERR_INTERNAL, "%s: entry count across ranks is inconsistent", path);
    }
    *base += total;
    return clcg_agree(comm, st, NULL);
}

/* Bytes [start, start+len) of the file mapped read-only (the page cache itself: no copy,
 * no fresh memory for the system to clear), from the page holding start.  0 when it was
 * not mapped (nothing to map, or mmap refused): the caller reads it instead. */
static int map_text(int fd, int64_t start, size_t len, char **map, size_t *maplen, const char **text)
{
    const int64_t page = sysconf(_SC_PAGESIZE), at = start / page * page;
    void *m;
    if (len == 0 || clcg_env_on("CLCG_NO_MMAP"))
        return 0;
    m = mmap(NULL, len + (size_t)(start - at), PROT_READ, MAP_PRIVATE, fd, (off_t)at);
    if (m == MAP_FAILED)
        return 0;
    posix_madvise(m, len + (size_t)(start - at), POSIX_MADV_WILLNEED);
    *map = m;
    *maplen = len + (size_t)(start - at);
    *text = (const char *)m + (start - at);
    return 1;
}

#define EARLY_CHECK ((size_t)1 << 20)   /* bytes of rank 0's share parsed before the rest */

/* The file's first lines parsed alone first (rank 0, before any rank looks for the start
 * of its share): a fault there (binary data, a bad value) is the file's first, and is said
 * at once, not after every rank has gone through its share of a file of hundreds of GB. */
static clcg_status early_check(const char *path, int fd, const clcg_mm_header *h, int64_t size)
{
    const int64_t d = size - h->data_offset;
    const size_t w = d < (int64_t)EARLY_CHECK ? (size_t)(d > 0 ? d : 0) : EARLY_CHECK;
    size_t e = w, b;
    char *buf = NULL;
    clcg_coo scratch = {0};
    int64_t c = 0;
    clcg_status st;
    if (w == 0)
        return CLCG_OK;
    CLCG_CALL(clcg_malloc(&buf, w, 1, "the first lines of the matrix"));
    st = pread_all(fd, path, buf, w, h->data_offset);
    while (e > 0 && buf[e - 1] != '\n')
        e--;
    if (st == CLCG_OK && e > 0)
        st = clcg_mm_parse_entries(path, h, buf, e, h->data_line, &scratch, &c);
    /* the line the window ends in: one that starts with a byte no text has (a file of zeros
     * after its first lines) is refused as the parser would, from its first bytes */
    for (b = e; b < w && (buf[b] == ' ' || buf[b] == '\t'); b++)
        ;
    if (st == CLCG_OK && b < w && clcg_mm_binary_byte(buf[b])) {
        char head[64];
        const size_t m = w - e < sizeof head - 1 ? w - e : sizeof head - 1;
        memcpy(head, buf + e, m);
        head[m] = '\n';
        st = clcg_mm_parse_entries(path, h, head, m + 1, h->data_line + clcg_mm_count_newlines(buf, e), &scratch, &c);
    }
    /* a NUL byte anywhere in that line (zeros after an entry, or in a comment) is no text
     * either: refused from the window, not after a search for the line's end */
    if (st == CLCG_OK && e < w && memchr(buf + e, '\0', w - e))
        st = clcg_mm_binary_error(path, h->data_line + clcg_mm_count_newlines(buf, e), 0);
    clcg_coo_free(&scratch);
    free(buf);
    return st;
}

/* Plain coordinate file: my byte range of the data part, parsed. */
static clcg_status read_plain(MPI_Comm comm, const char *path, const clcg_mm_header *h,
                              int64_t size, clcg_coo *coo, int64_t *count, int64_t *last_line)
{
    int rank, nranks, fd = -1;
    clcg_status st = CLCG_OK;
    int64_t *starts = NULL, start = 0, end, nl = 0, before = 0, mine[2], all[2];
    char *own = NULL, *map = NULL;
    const char *buf = NULL;
    size_t len = 0, maplen = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    {
        int64_t d = size - h->data_offset;
        int64_t s = h->data_offset + clcg_block_begin(d > 0 ? d : 0, nranks, rank);
        fd = open(path, O_RDONLY);
        if (fd < 0)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        else if (rank == 0)
            st = early_check(path, fd, h, size);
        st = clcg_agree(comm, st, NULL);
        if (st == CLCG_OK && s > h->data_offset && s < size)
            st = line_start(fd, path, s, size, &start);
        else if (st == CLCG_OK)
            start = s < size ? s : size;
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
    if (map_text(fd, start, len, &map, &maplen, &buf)) {
        st = CLCG_OK;
        bus_guard(path, rank, 1);
    }
    else if ((st = clcg_malloc(&own, len + 1, 1, "the text of the matrix")) == CLCG_OK) {
        st = pread_all(fd, path, own, len, start);
        buf = own;
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    sub("map");
    bus_arm(1);
    if (map && clcg_fault_armed(rank, "bus"))   /* tests: the fault of a file cut short while mapped */
        raise(SIGBUS);
    nl = count_newlines_par(buf, len);
    const int ends_nl = len > 0 && buf[len - 1] == '\n';
    bus_arm(0);
    sub("newlines");
    CLCG_CHECK(st, mpi_ok(MPI_Exscan(&nl, &before, 1, MPI_INT64_T, MPI_SUM, comm),
                          "MPI_Exscan of the line counts"), out);
    if (rank == 0)
        before = 0;
    /* the file's last line: from the rank whose range ends it */
    mine[0] = len > 0 ? h->data_line + before + nl - ends_nl : 0;
    mine[1] = 0;
    CLCG_CHECK(st, mpi_ok(MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MAX, comm),
                          "MPI_Allreduce of the line counts"), out);
    *last_line = all[0] > 0 ? all[0] : h->data_line - 1;
    *count = 0;
    CLCG_CHECK(st, parse_round(comm, path, h, buf, len, h->data_line + before, coo, count), out);
out:
    if (fd >= 0)
        close(fd);
    if (map) {
        munmap(map, maplen);
        bus_guard(path, rank, 0);
    }
    free(own);
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
                              clcg_gz_message(path, zmsg));
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
                if (take == 0 && memchr(buf, '\0', have))   /* zeros, not a long line */
                    st = clcg_mm_binary_error(path, line, 0);
                else if (take == 0)
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
                l += clcg_mm_count_newlines(buf + prev, s - prev);
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
            line += clcg_mm_count_newlines(buf, take);
            memmove(buf, buf + take, have - take);
            have -= take;
        }
    }
    if (rank == 0)
        *last_line = ended_nl ? line - 1 : line;
out:
    if (st == CLCG_ERR_INPUT) {   /* text that made no sense (agreed): corrupt data, rank 0 can tell? */
        const int corrupt = rank == 0 && g && !eof && clcg_gz_blame(g, path);
        const clcg_status s0 = clcg_agree_from(comm, 0, corrupt ? CLCG_ERR_INPUT : CLCG_OK);
        if (s0 != CLCG_OK)
            st = s0;
    }
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

/* Send sbuf (scount[r] records for rank r, in rank order) and receive *rbuf (*rlen records,
 * in source rank order, *rlow of them from lower ranks).  This rank's own records
 * (scount[rank]) do not travel: they stay in sbuf, and the caller takes them from there
 * (copying them would cost fresh memory, which the system must first clear, and a pass).
 * Collective; the status is agreed. */
static clcg_status exchange(MPI_Comm comm, MPI_Datatype rt, const rec *sbuf, const int64_t *scount,
                            rec **rbuf, int64_t *rlen, int64_t *rlow, int64_t *held)
{
    int nranks, rank;
    int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
    int64_t ssum = 0, rsum = 0;
    clcg_status st = CLCG_OK;

    MPI_Comm_size(comm, &nranks);
    MPI_Comm_rank(comm, &rank);
    *rbuf = NULL;
    *rlen = *rlow = 0;
    st = clcg_malloc(&sc, (size_t)nranks * 4, sizeof *sc, "exchange counts");
    if (st == CLCG_OK) {
        sd = sc + nranks;
        rc = sd + nranks;
        rd = rc + nranks;
        for (int r = 0; r < nranks; r++) {
            sd[r] = (int)(ssum < INT_MAX ? ssum : INT_MAX);
            ssum += scount[r];
            sc[r] = r == rank ? 0 : (int)scount[r];
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
        if (r < rank)
            *rlow += rc[r];
    }
    if (rsum > INT_MAX)
        st = clcg_error(CLCG_ERR_MEMORY, "%" PRId64 " matrix entries to receive on one rank: "
                        "more than one MPI exchange can count (2^31-1); use more ranks", rsum);
    else
        st = clcg_malloc(rbuf, (size_t)rsum + 1, sizeof **rbuf, "matrix entries received");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (rsum + scount[rank] > *held)
        *held = rsum + scount[rank];
    st = mpi_ok(MPI_Alltoallv(sbuf, sc, sd, rt, *rbuf, rc, rd, rt, comm), "MPI_Alltoallv of the entries");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    *rlen = rsum;
out:
    if (st != CLCG_OK) {
        free(*rbuf);
        *rbuf = NULL;
        *rlen = *rlow = 0;
    }
    free(sc);
    return st;
}

/* The records triplet k of coo stands for, in the order exchange 1 sends them: (i, j), then,
 * for an off-diagonal when expanding, its transpose (j, i), a mirror record (column -1-i)
 * unless the file is symmetric.  Returns how many (1 or 2). */
static inline int coo_records(const clcg_coo *coo, int64_t k, int expand, int symmetric, rec out[2])
{
    const int64_t i = coo->row[k], j = coo->col[k];
    out[0] = (rec){i, j, coo->val[k]};
    if (i == j || !expand)
        return 1;
    out[1] = (rec){j, symmetric ? i : -1 - i, coo->val[k]};
    return 2;
}

/* Records of coo cut into CHUNKS contiguous pieces, counted and placed by parallel
 * threads; the places follow from the counts so that every rank's records keep coo's order,
 * as a serial pass would leave them. */
#define CHUNKS 256

typedef struct {
    const clcg_coo *coo;
    blocks bl;
    int nranks, rank, symmetric, expand;
    int64_t *cnt;           /* [chunk][rank]: counts, then first places */
    rec *sbuf;
} spread_job;

/* Chunks [lo, hi) of coo: count each record's destination (place == 0), or put it at its
 * destination's next place (place == 1: cnt then holds the chunk's first places).  This
 * rank's own records are skipped: the assembly takes them from coo itself. */
static void spread_chunks(spread_job *j, int64_t lo, int64_t hi, int place)
{
    for (int64_t c = lo; c < hi; c++) {
        int64_t *pos = j->cnt + c * j->nranks;
        int64_t k0 = j->coo->len * c / CHUNKS, k1 = j->coo->len * (c + 1) / CHUNKS;
        for (int64_t k = k0; k < k1; k++) {
            rec x[2];
            const int nx = coo_records(j->coo, k, j->expand, j->symmetric, x);
            for (int t = 0; t < nx; t++) {
                const int o = block_owner(&j->bl, x[t].i);
                if (o == j->rank)
                    continue;
                if (place)
                    j->sbuf[pos[o]] = x[t];
                pos[o]++;
            }
        }
    }
}

static void spread_count(void *arg, int64_t lo, int64_t hi)
{
    spread_chunks(arg, lo, hi, 0);
}

static void spread_place(void *arg, int64_t lo, int64_t hi)
{
    spread_chunks(arg, lo, hi, 1);
}

/* The records of a row block after exchange 1: those from lower ranks, this rank's own
 * (the records of its triplets, which stay in coo), those from higher ranks; that is their
 * order in the file. */
typedef struct {
    rec *recv;               /* the buffer, freed by whoever assembles */
    const rec *seg[2];       /* from lower ranks, from higher ranks */
    int64_t n[2];
} block_recs;

/* Exchange 1: the records of coo's triplets (symmetric expansion and, with mirrors,
 * transposed copies of off-diagonal entries) that other ranks' row blocks hold, to them;
 * coo itself stays for the assembly, which takes this rank's records from it. */
static clcg_status to_blocks(MPI_Comm comm, MPI_Datatype rt, int64_t n, clcg_coo *coo,
                             int symmetric, int mirrors, block_recs *out, int64_t *held)
{
    int nranks, rank;
    int64_t *cnt = NULL, *tot = NULL, total = 0, m = 0, low = 0;
    spread_job job;
    clcg_status st;

    MPI_Comm_size(comm, &nranks);
    MPI_Comm_rank(comm, &rank);
    memset(out, 0, sizeof *out);
    job = (spread_job){coo, blocks_make(n, nranks), nranks, rank, symmetric, symmetric || mirrors, NULL, NULL};
    st = clcg_calloc(&cnt, (size_t)nranks * (CHUNKS + 1), sizeof *cnt, "exchange counts");
    if (st == CLCG_OK) {
        job.cnt = cnt;
        tot = cnt + (size_t)nranks * CHUNKS;
        clcg_parallel_for(CHUNKS, spread_count, &job);
        for (int r = 0; r < nranks; r++) {      /* rank-major: rank r's records, chunk by chunk */
            for (int64_t c = 0; c < CHUNKS; c++) {
                int64_t k = cnt[c * nranks + r];
                cnt[c * nranks + r] = total;
                total += k;
                tot[r] += k;
            }
        }
        st = clcg_malloc(&job.sbuf, (size_t)total + 1, sizeof *job.sbuf, "matrix entries to send");
    }
    if (st == CLCG_OK) {
        if (coo->len + total > *held)
            *held = coo->len + total;
        clcg_parallel_for(CHUNKS, spread_place, &job);
    }
    sub("count and pack");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), done);
    sub("wait for all");
    st = exchange(comm, rt, job.sbuf, tot, &out->recv, &m, &low, held);
    if (st == CLCG_OK) {
        out->seg[0] = out->recv;
        out->n[0] = low;
        out->seg[1] = out->recv + low;
        out->n[1] = m - low;
        if (coo->len + total + m > *held)   /* the triplets, the records sent and received */
            *held = coo->len + total + m;
    }
done:
    free(job.sbuf);
    free(cnt);
    return st;
}

/* ---- assembling a block of rows ---- */

/* Exclusive prefix sums of n counts, in parallel threads: out[i] = in[0] + ... + in[i-1]
 * for i = 0..n, the total returned.  out may be in itself (each entry is read before it is
 * written), not a shifted view of it. */
#define SCAN_CHUNKS 64

typedef struct {
    const int64_t *in;
    int64_t *out, n;
    int64_t sum[SCAN_CHUNKS];
} scan_job;

static void scan_sums(void *arg, int64_t lo, int64_t hi)
{
    scan_job *j = arg;
    for (int64_t c = lo; c < hi; c++) {
        int64_t t = 0;
        for (int64_t i = j->n * c / SCAN_CHUNKS; i < j->n * (c + 1) / SCAN_CHUNKS; i++)
            t += j->in[i];
        j->sum[c] = t;
    }
}

static void scan_fill(void *arg, int64_t lo, int64_t hi)
{
    scan_job *j = arg;
    for (int64_t c = lo; c < hi; c++) {
        int64_t t = j->sum[c];
        for (int64_t i = j->n * c / SCAN_CHUNKS; i < j->n * (c + 1) / SCAN_CHUNKS; i++) {
            const int64_t x = j->in[i];
            j->out[i] = t;
            t += x;
        }
    }
}

static int64_t scan_par(const int64_t *in, int64_t *out, int64_t n)
{
    scan_job j = {in, out, n, {0}};
    int64_t t = 0;
    clcg_parallel_for(SCAN_CHUNKS, scan_sums, &j);
    for (int c = 0; c < SCAN_CHUNKS; c++) {
        const int64_t x = j.sum[c];
        j.sum[c] = t;
        t += x;
    }
    clcg_parallel_for(SCAN_CHUNKS, scan_fill, &j);
    out[n] = t;
    return t;
}

/* Records of a block are counted and placed by row in parallel threads, each claiming its
 * place with an atomic add, so a row's records arrive in any order; each record's i then
 * holds its index in the received order, and rows are sorted by (column, that index):
 * the order a stable sort by column gives, so duplicates are summed in file order. */

static inline int rec_before(const rec *a, const rec *b)
{
    return a->j < b->j || (a->j == b->j && a->i < b->i);
}

static int rec_cmp(const void *x, const void *y)
{
    return rec_before(x, y) ? -1 : rec_before(y, x);
}

/* a[0..n) sorted by (column, index): insertion for short rows, else qsort (the keys are
 * distinct, so any sort gives the same order) */
static void sort_by_col(rec *a, int64_t n)
{
    if (n > SHORT_ROW) {
        qsort(a, (size_t)n, sizeof *a, rec_cmp);
        return;
    }
    for (int64_t k = 1; k < n; k++) {
        rec x = a[k];
        int64_t m = k;
        for (; m > 0 && rec_before(&x, &a[m - 1]); m--)
            a[m] = a[m - 1];
        a[m] = x;
    }
}

typedef struct {
    const block_recs *r;    /* the records other ranks sent (or NULL: one rank) */
    rec *s;                 /* the records placed by row */
    const clcg_coo *coo;    /* this rank's triplets, expanded as they are placed; with several
                               ranks only the records of rows in this block are taken */
    int expand, symmetric;  /* coo: off-diagonals also as (j, i), a mirror unless symmetric */
    int64_t m, row0, nrows, ma;
    int64_t *pa, *pm;       /* counts at [li], then row starts (mirrors: after ma) */
    int64_t *next;          /* cursors: rows, then mirror rows */
    int64_t *len;           /* rows' lengths after summing duplicates */
    rows_t *out;            /* the rows being summed */
    int mirror;             /* they are the mirror rows */
    int bad;                /* a record of a row not in this block */
} asm_job;

/* the row of a record and where it counts (pa: a row, pm: a mirror row) */
static inline void asm_tally(asm_job *j, int64_t i, int mirror)
{
    int64_t li = i - j->row0;
    if (li < 0 || li >= j->nrows)
        j->bad = 1;
    else
        __atomic_fetch_add(mirror ? &j->pm[li] : &j->pa[li], 1, __ATOMIC_RELAXED);
}

static inline int in_block(const asm_job *j, int64_t i)
{
    return i >= j->row0 && i - j->row0 < j->nrows;
}

/* Item k of the block in file order: a record from a lower rank, one of this rank's
 * triplets (its records in this block), a record from a higher rank.  Its records go to x
 * (0 to 2 of them), numbered in seq in arrival order (numbers unique and increasing, not
 * dense).  A received record outside the block is an error (asm_tally); a triplet's
 * records outside it went to other ranks. */
static inline int asm_records(const asm_job *j, int64_t k, rec x[2], int64_t seq[2])
{
    const int64_t n0 = j->r ? j->r->n[0] : 0, nc = j->coo->len;
    if (k < n0) {
        x[0] = j->r->seg[0][k];
        seq[0] = k;
        return 1;
    }
    if (k - n0 >= nc) {
        x[0] = j->r->seg[1][k - n0 - nc];
        seq[0] = k + nc;
        return 1;
    }
    rec y[2];
    const int64_t t = k - n0;
    const int ny = coo_records(j->coo, t, j->expand, j->symmetric, y);
    int nx = 0;
    for (int u = 0; u < ny; u++)
        if (!j->r || in_block(j, y[u].i)) {
            x[nx] = y[u];
            seq[nx++] = n0 + 2 * t + u;
        }
    return nx;
}

/* record (row i, column jj, value v), number seq in arrival order, to its row's next place */
static inline void asm_put(asm_job *j, int64_t i, int64_t jj, double v, int mirror, int64_t seq)
{
    int64_t li = i - j->row0;
    int64_t *cur = mirror ? &j->next[j->nrows + li] : &j->next[li];
    j->s[__atomic_fetch_add(cur, 1, __ATOMIC_RELAXED)] = (rec){seq, jj, v};
}

/* Chunks [lo, hi) of the block's items: count each record's row (place == 0), or put it at
 * its row's next place (place == 1). */
static void asm_chunks(asm_job *j, int64_t lo, int64_t hi, int place)
{
    for (int64_t k = j->m * lo / CHUNKS; k < j->m * hi / CHUNKS; k++) {
        rec x[2];
        int64_t seq[2];
        const int nx = asm_records(j, k, x, seq);
        for (int t = 0; t < nx; t++) {
            if (place)
                asm_put(j, x[t].i, x[t].j >= 0 ? x[t].j : -1 - x[t].j, x[t].v, x[t].j < 0, seq[t]);
            else
                asm_tally(j, x[t].i, x[t].j < 0);
        }
    }
}

/* each row's next place: its start (mirror rows after the rows) */
static void asm_cursors(void *arg, int64_t lo, int64_t hi)
{
    asm_job *j = arg;
    for (int64_t i = lo; i < hi; i++) {
        j->next[i] = j->pa[i];
        j->next[j->nrows + i] = j->ma + j->pm[i];
    }
}

static void asm_count(void *arg, int64_t lo, int64_t hi)
{
    asm_chunks(arg, lo, hi, 0);
}

static void asm_place(void *arg, int64_t lo, int64_t hi)
{
    asm_chunks(arg, lo, hi, 1);
}

/* each row sorted, and its length once duplicates are summed */
static void asm_sort(void *arg, int64_t lo, int64_t hi)
{
    asm_job *j = arg;
    for (int64_t i = lo; i < hi; i++) {
        int64_t a = j->pa[i], n = j->pa[i + 1] - a, d = 0;
        int64_t b = j->ma + j->pm[i], nm = j->pm[i + 1] - j->pm[i], dm = 0;
        sort_by_col(j->s + a, n);
        sort_by_col(j->s + b, nm);
        for (int64_t k = 1; k < n; k++)
            d += j->s[a + k].j != j->s[a + k - 1].j;
        for (int64_t k = 1; k < nm; k++)
            dm += j->s[b + k].j != j->s[b + k - 1].j;
        j->len[i] = n ? d + 1 : 0;
        j->len[j->nrows + i] = nm ? dm + 1 : 0;
    }
}

/* the sorted records of rows [lo, hi) summed into out (row starts already in out->ptr) */
static void compact_rows(const rec *s, const int64_t *ptr, rows_t *out, int64_t lo, int64_t hi)
{
    for (int64_t i = lo; i < hi; i++) {
        int64_t w = out->ptr[i], rs = w;
        for (int64_t k = ptr[i]; k < ptr[i + 1]; k++) {
            if (w > rs && out->col[w - 1] == s[k].j) {
                out->val[w - 1] += s[k].v;
            } else {
                out->col[w] = s[k].j;
                out->val[w] = s[k].v;
                w++;
            }
        }
    }
}

static void asm_compact(void *arg, int64_t lo, int64_t hi)
{
    asm_job *j = arg;
    if (j->mirror)
        compact_rows(j->s + j->ma, j->pm, j->out, lo, hi);
    else
        compact_rows(j->s, j->pa, j->out, lo, hi);
}

/* Row starts from lengths len[0..nrows), and room for the entries. */
static clcg_status rows_alloc(rows_t *a, int64_t row0, int64_t nrows, const int64_t *len)
{
    int64_t w;
    a->row0 = row0;
    a->nrows = nrows;
    CLCG_CALL(clcg_malloc(&a->ptr, (size_t)nrows + 1, sizeof *a->ptr, "row pointers"));
    w = scan_par(len, a->ptr, nrows);
    CLCG_CALL(clcg_malloc(&a->col, (size_t)w + 1, sizeof *a->col, "column indices"));
    CLCG_CALL(clcg_malloc(&a->val, (size_t)w + 1, sizeof *a->val, "matrix values"));
    return CLCG_OK;
}

static void drop_input(block_recs *r, clcg_coo *coo)
{
    if (r) {
        free(r->recv);
        memset(r, 0, sizeof *r);
    }
    clcg_coo_free(coo);
}

/* The records of my block as sorted, summed rows a, and the mirror records as rows mir
 * (A(j,i) filed under row i, column j; left empty where there are none: a symmetric file, or
 * no symmetry check): those in coo's triplets and those other ranks sent (r; NULL on one
 * rank).  Both inputs are freed here. */
static clcg_status assemble_block(block_recs *r, clcg_coo *coo, int expand, int symmetric,
                                  int64_t row0, int64_t nrows, rows_t *a, rows_t *mir, int64_t *held)
{
    asm_job j = {r, NULL, coo, expand, symmetric, coo->len + (r ? r->n[0] + r->n[1] : 0),
                 row0, nrows, 0, NULL, NULL, NULL, NULL, NULL, 0, 0};
    const int mirrors = expand && !symmetric;   /* else there are no mirror rows */
    rows_t out[2] = {{0}, {0}};
    clcg_status st = CLCG_OK;

    CLCG_CHECK(st, clcg_calloc(&j.pa, (size_t)nrows + 1, sizeof *j.pa, "assembly counts"), out);
    CLCG_CHECK(st, clcg_calloc(&j.pm, (size_t)nrows + 1, sizeof *j.pm, "assembly counts"), out);
    CLCG_CHECK(st, clcg_malloc(&j.next, (size_t)nrows * 2 + 1, sizeof *j.next, "assembly cursors"), out);
    clcg_parallel_for(CHUNKS, asm_count, &j);
    sub("count");
    if (j.bad) {
        st = clcg_error(CLCG_ERR_INTERNAL, "a matrix entry was sent to the wrong rank");
        goto out;
    }
    j.ma = scan_par(j.pa, j.pa, nrows);
    if (mirrors)
        scan_par(j.pm, j.pm, nrows);
    if (j.ma + j.pm[nrows] > *held)
        *held = j.ma + j.pm[nrows];
    clcg_parallel_for(nrows, asm_cursors, &j);
    sub("row starts");
    CLCG_CHECK(st, clcg_malloc(&j.s, (size_t)(j.ma + j.pm[nrows]) + 1, sizeof *j.s, "assembly scratch"), out);
    sub("scratch");
    clcg_parallel_for(CHUNKS, asm_place, &j);
    sub("place");
    drop_input(r, coo);        /* placed: the inputs are no longer needed */
    sub("free input");
    j.len = j.next;          /* the cursors are spent: lengths of rows, then mirror rows */
    clcg_parallel_for(nrows, asm_sort, &j);
    sub("sort");
    CLCG_CHECK(st, rows_alloc(&out[0], row0, nrows, j.len), out);
    sub("rows alloc");
    j.out = &out[0];
    clcg_parallel_for(nrows, asm_compact, &j);
    sub("compact");
    *a = out[0];
    out[0] = (rows_t){0};
    if (!mirrors)
        goto out;
    CLCG_CHECK(st, rows_alloc(&out[1], row0, nrows, j.len + nrows), out);
    j.out = &out[1];
    j.mirror = 1;
    clcg_parallel_for(nrows, asm_compact, &j);
    *mir = out[1];
    out[1] = (rows_t){0};
    sub("mirrors");
out:
    drop_input(r, coo);
    free(j.s);
    free(j.pa);
    free(j.pm);
    free(j.next);
    rows_free(&out[0]);
    rows_free(&out[1]);
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
            if (!isfinite(x) || !isfinite(y))   /* duplicates summed past double: the row checks name it */
                continue;
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

/* Rows [lo, hi) of a block: 0, or 1 + the first row (local) that is empty, holds a value
 * that is not finite (duplicates summed past double range: *bad_col its column) or whose
 * diagonal is not positive (*bad_col -1) or missing (*bad_col -2). */
static int64_t first_bad_row(int64_t row0, int64_t lo, int64_t hi, const int64_t *rowptr, const clcg_gidx *gcol,
                             const int32_t *col32, const double *val, double *dval, int64_t *bad_col)
{
    for (int64_t li = lo; li < hi; li++) {
        int64_t i = row0 + li, a = rowptr[li], b = rowptr[li + 1], end = b;
        *bad_col = -1;
        if (a == b) {
            *dval = 0.0;
            return li + 1;
        }
        for (int64_t k = a; k < end; k++)
            if (!isfinite(val[k])) {
                *dval = val[k];
                *bad_col = gcol ? gcol[k] : col32[k];
                return li + 1;
            }
        while (a < b) {
            int64_t mid = a + (b - a) / 2;
            if ((gcol ? gcol[mid] : col32[mid]) < i)
                a = mid + 1;
            else
                b = mid;
        }
        const int has = a < end && (gcol ? gcol[a] : col32[a]) == i;
        const double d = has ? val[a] : 0.0;
        if (!(d > 0)) {
            *dval = d;
            *bad_col = has ? -1 : -2;
            return li + 1;
        }
    }
    return 0;
}

typedef struct {
    int64_t row0, nrows;
    const int64_t *rowptr;
    const clcg_gidx *gcol;
    const int32_t *col32;
    const double *val;
    int64_t bad[CHUNKS];     /* per piece: first_bad_row */
    double dval[CHUNKS];
    int64_t bad_col[CHUNKS];
} rowcheck_job;

static void rowcheck_pieces(void *arg, int64_t lo, int64_t hi)
{
    rowcheck_job *j = arg;
    for (int64_t c = lo; c < hi; c++)
        j->bad[c] = first_bad_row(j->row0, j->nrows * c / CHUNKS, j->nrows * (c + 1) / CHUNKS, j->rowptr, j->gcol,
                                  j->col32, j->val, &j->dval[c], &j->bad_col[c]);
}

clcg_status clcg_dist_check_rows(const char *path, int64_t row0, int64_t nrows,
                                 const int64_t *rowptr, const clcg_gidx *gcol, const int32_t *col32,
                                 const double *val)
{
    /* pieces checked by parallel threads; the first failing row is reported */
    rowcheck_job *j;
    CLCG_CALL(clcg_calloc(&j, 1, sizeof *j, "row checks"));
    *j = (rowcheck_job){row0, nrows, rowptr, gcol, col32, val, {0}, {0}, {0}};
    clcg_parallel_for(CHUNKS, rowcheck_pieces, j);
    clcg_status st = CLCG_OK;
    for (int c = 0; c < CHUNKS && st == CLCG_OK; c++) {
        if (!j->bad[c])
            continue;
        const int64_t li = j->bad[c] - 1, i = row0 + li;
        char sd[32];
        if (rowptr[li] == rowptr[li + 1])
            st = clcg_error(CLCG_ERR_NOT_SPD, "%s: row %" PRId64 " is empty: the matrix is singular", path, i + 1);
        else if (j->bad_col[c] == -2)
            st = clcg_error(CLCG_ERR_NOT_SPD, "%s: row %" PRId64 " has no diagonal entry: the matrix is not "
                            "positive definite", path, i + 1);
        else if (j->bad_col[c] >= 0)
            st = clcg_error(CLCG_ERR_INPUT, "%s: A(%" PRId64 ",%" PRId64 ") = %s: its duplicate entries sum "
                            "beyond double precision", path, i + 1, j->bad_col[c] + 1,
                            clcg_show_double(j->dval[c], sd));
        else
            st = clcg_error(CLCG_ERR_NOT_SPD, "%s: diagonal entry A(%" PRId64 ",%" PRId64
                            ") = %s is not positive: the matrix is not positive definite",
                            path, i + 1, i + 1, clcg_show_double(j->dval[c], sd));
    }
    free(j);
    return st;
}

/* Exchange 2, in parallel threads: the block's rows that other ranks own as records (their
 * order is already the owners' order), the rows this rank keeps copied straight across, and
 * the records received (sorted by row and column) unpacked as CSR.  A segment of records
 * fills rows [row0, row0+nrows) of rowptr from entry off on. */
typedef struct {
    const rows_t *b;
    int64_t klo, khi, kept;  /* rows of b kept here, and their entries */
    rec *sbuf;
    const rec *rbuf;
    int64_t m, row0, nrows, off;
    int64_t *rowptr;
    clcg_gidx *gcol;
    double *val;
    int bad;
} owners_job;

static void owners_pack(void *arg, int64_t lo, int64_t hi)
{
    owners_job *j = arg;
    for (int64_t li = lo; li < hi; li++) {
        if (li >= j->klo && li < j->khi)
            continue;
        const int64_t shift = li >= j->khi ? j->kept : 0;
        for (int64_t k = j->b->ptr[li]; k < j->b->ptr[li + 1]; k++)
            j->sbuf[k - shift] = (rec){j->b->row0 + li, j->b->col[k], j->b->val[k]};
    }
}

/* The kept rows klo..khi of b into A's rows from rowptr on, entries from off on: chunk c of
 * CHUNKS of the rows' starts, and of their entries (one contiguous stretch). */
static void owners_keep(void *arg, int64_t lo, int64_t hi)
{
    owners_job *j = arg;
    const int64_t base = j->b->ptr[j->klo], nk = j->khi - j->klo;
    for (int64_t c = lo; c < hi; c++) {
        const int64_t t0 = nk * c / CHUNKS, t1 = nk * (c + 1) / CHUNKS;
        const int64_t e0 = j->kept * c / CHUNKS, e1 = j->kept * (c + 1) / CHUNKS;
        for (int64_t t = t0; t < t1; t++)
            j->rowptr[t] = j->off + j->b->ptr[j->klo + t] - base;
        memcpy(j->gcol + j->off + e0, j->b->col + base + e0, (size_t)(e1 - e0) * sizeof *j->gcol);
        memcpy(j->val + j->off + e0, j->b->val + base + e0, (size_t)(e1 - e0) * sizeof *j->val);
    }
}

/* rows are non-empty (checked before): row r starts where its first record is */
static void owners_unpack(void *arg, int64_t c0, int64_t c1)
{
    owners_job *j = arg;
    for (int64_t k = j->m * c0 / CHUNKS; k < j->m * c1 / CHUNKS; k++) {
        const rec *x = &j->rbuf[k];
        const int64_t li = x->i - j->row0, prev = k > 0 ? x[-1].i - j->row0 : -1;
        if (li < 0 || li >= j->nrows || li < prev || (k > 0 && li == prev && x->j <= x[-1].j)) {
            j->bad = 1;
            return;
        }
        for (int64_t r = prev + 1; r <= li; r++)
            j->rowptr[r] = j->off + k;
        if (k == j->m - 1)
            for (int64_t r = li + 1; r <= j->nrows; r++)
                j->rowptr[r] = j->off + j->m;
        j->gcol[j->off + k] = x->j;
        j->val[j->off + k] = x->v;
    }
}

static inline int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* Records rbuf[0..m) into rows [row0, row0+nrows) of A (rowptr from there), entries from off. */
static int unpack_segment(owners_job *j, const rec *rbuf, int64_t m, int64_t row0, int64_t nrows, int64_t off,
                          int64_t *rowptr)
{
    j->rbuf = rbuf;
    j->m = m;
    j->row0 = row0;
    j->nrows = nrows;
    j->off = off;
    j->rowptr = rowptr;
    if (m == 0) {
        rowptr[0] = off;
        return nrows == 0;   /* rows without entries: something went astray */
    }
    clcg_parallel_for(CHUNKS, owners_unpack, j);
    return !j->bad;
}

/* The assembled arrays of b become A's rows and global columns as they are (b lets go of them);
 * A's local column indices get room, to be filled by clcg_halo_setup. */
static clcg_status adopt_rows(rows_t *b, clcg_csr *A, clcg_gidx **gcol)
{
    CLCG_CALL(clcg_malloc(&A->colind, (size_t)A->nnz + 1, sizeof *A->colind, "column indices"));
    A->rowptr = b->ptr;
    A->val = b->val;
    *gcol = b->col;
    b->ptr = NULL;
    b->val = NULL;
    b->col = NULL;
    return CLCG_OK;
}

/* Exchange 2: the assembled block rows (freed here) to their final owners, where they
 * arrive in (row, column) order: my rows as A and gcol.  The rows that stay on this rank
 * (most of them: the split by nonzeros is near the even one) do not travel. */
static clcg_status to_owners(MPI_Comm comm, MPI_Datatype rt, rows_t *b, const int64_t *row_begin,
                             clcg_csr *A, clcg_gidx **gcol, int64_t *held)
{
    int rank, nranks;
    int64_t *cnt = NULL, total, m = 0, f0, f1, g0, g1, split = 0;
    rec *sbuf = NULL, *rbuf = NULL;
    owners_job j;
    clcg_status st;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    total = b->ptr[b->nrows];
    if (nranks == 1) {   /* every row stays: the assembled arrays become the rank's */
        A->row0 = 0;
        A->nrows = b->nrows;
        A->nnz = total;
        st = adopt_rows(b, A, gcol);
        if (total > *held)
            *held = total;
        return st;
    }
    /* my rows [f0, f1): [f0, g0) from lower ranks, [g0, g1) kept (rows klo..khi of my block),
       [g1, f1) from higher ranks; rows of my block before klo go down, from khi on go up */
    f0 = row_begin[rank];
    f1 = row_begin[rank + 1];
    g0 = clamp64(b->row0, f0, f1);
    g1 = clamp64(b->row0 + b->nrows, g0, f1);
    memset(&j, 0, sizeof j);
    j.b = b;
    j.klo = clamp64(g0 - b->row0, 0, b->nrows);
    j.khi = clamp64(g1 - b->row0, j.klo, b->nrows);
    j.kept = b->ptr[j.khi] - b->ptr[j.klo];
    st = clcg_calloc(&cnt, (size_t)nranks, sizeof *cnt, "exchange counts");
    if (st == CLCG_OK)
        st = clcg_malloc(&sbuf, (size_t)(total - j.kept) + 1, sizeof *sbuf, "matrix entries to send");
    if (st == CLCG_OK) {
        for (int o = 0; o < nranks; o++) {   /* owner o's rows: [row_begin[o], row_begin[o+1]) */
            int64_t lo = row_begin[o] - b->row0, hi = row_begin[o + 1] - b->row0;
            lo = lo < 0 ? 0 : lo > b->nrows ? b->nrows : lo;
            hi = hi < 0 ? 0 : hi > b->nrows ? b->nrows : hi;
            cnt[o] = o != rank && hi > lo ? b->ptr[hi] - b->ptr[lo] : 0;
        }
        j.sbuf = sbuf;
        clcg_parallel_for(b->nrows, owners_pack, &j);
    }
    sub("pack");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    sub("wait for all");
    CLCG_CHECK(st, exchange(comm, rt, sbuf, cnt, &rbuf, &m, &split, held), out);
    free(sbuf);
    sbuf = NULL;
    sub("alltoallv");

    /* received: rows below the kept ones (from lower ranks), then rows above them */
    A->row0 = f0;
    A->nrows = f1 - f0;
    A->nnz = m + j.kept;
    if (g0 == f0 && j.klo == 0 && m == 0) {
        /* my rows are the first rows of my block and nothing arrived: its arrays become mine
           as they are (the rows that went up leave room unused at their ends; growing or
           moving them would cost more than the copy saves) */
        st = adopt_rows(b, A, gcol);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
        goto out;
    }
    st = clcg_calloc(&A->rowptr, (size_t)A->nrows + 1, sizeof *A->rowptr, "row pointers");
    if (st == CLCG_OK)
        st = clcg_malloc(&A->val, (size_t)A->nnz + 1, sizeof *A->val, "matrix values");
    if (st == CLCG_OK)
        st = clcg_malloc(gcol, (size_t)A->nnz + 1, sizeof **gcol, "global column indices");
    if (st == CLCG_OK)      /* filled by clcg_halo_setup */
        st = clcg_malloc(&A->colind, (size_t)A->nnz + 1, sizeof *A->colind, "column indices");
    sub("alloc");
    if (st == CLCG_OK) {
        int good;
        j.gcol = *gcol;
        j.val = A->val;
        good = unpack_segment(&j, rbuf, split, f0, g0 - f0, 0, A->rowptr);
        j.rowptr = A->rowptr + (g0 - f0);
        j.off = split;
        clcg_parallel_for(CHUNKS, owners_keep, &j);
        good = good && unpack_segment(&j, rbuf + split, m - split, g1, f1 - g1, split + j.kept, A->rowptr + (g1 - f0));
        if (!good)
            st = clcg_error(CLCG_ERR_INTERNAL, "matrix entries arrived out of order");
    }
    sub("unpack and keep");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    rows_free(b);
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
    block_recs blk = {0};
    rows_t a = {0}, mir = {0};
    int64_t fsize = -1, count = 0, last_line = 0, b0, nb, *row_nnz = NULL;
    MPI_Datatype rt = MPI_DATATYPE_NULL;
    double t0 = MPI_Wtime(), tl = t0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    lap(rank, NULL, &tl);
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
        /* fewer entries than rows leaves a diagonal entry out: refused before anything of size n, once
           the entries themselves (few) are read, so that a fault of the file is named first */
        if (st == CLCG_OK && clcg_mm_too_few_entries(&h)) {
            if (!whole)
                st = clcg_mm_read_matrix(path, NULL, &coo);
            clcg_coo_free(&coo);
            whole = 0;
            if (st == CLCG_OK)
                st = clcg_mm_enough_entries(path, &h);
        }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, comm), "MPI_Bcast of the header"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&fsize, 1, MPI_INT64_T, 0, comm), "MPI_Bcast of the file size"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Bcast(&whole, 1, MPI_INT, 0, comm), "MPI_Bcast"), out);
    lap(rank, "header", &tl);
    symmetric = clcg_mm_is_symmetric(&h);
    mirrors = check_symmetry && !symmetric;
    st = clcg_rows_fit(h.nrows, nranks, path);
    if (st == CLCG_OK) {   /* the peak of reading: a symmetric file's entries mirrored (its diagonal once) */
        char what[4200];
        const double e = (double)h.nentries, n = (double)h.nrows;
        const double stored = symmetric ? 2.0 * e - (e < n ? e : n) : e;
        double need = (mirrors ? CLCG_PEAK_MTX_CHECKED_ENTRY : CLCG_PEAK_MTX_ENTRY) * stored + CLCG_PEAK_MTX_ROW * n;
        if (clcg_mm_is_array(&h))   /* its zeros are not kept: the matrix alone, as if every position were one */
            need = 12.0 * stored + 8.0 * n;
        if (h.gz)   /* and the inflated text rank 0 deals out a round at a time (twice: read, sent) */
            need += 2.0 * (double)chunk_size() * nranks;
        snprintf(what, sizeof what, "%s (n = %" PRId64 ", %" PRId64 " entries)", path, h.nrows, h.nentries);
        st = clcg_memory_check(need, nranks, what);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
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
    if (symmetric) {   /* one triangle: the first line of each side over all ranks */
        int64_t first[2] = {coo.line_below ? coo.line_below : INT64_MAX, coo.line_above ? coo.line_above : INT64_MAX};
        CLCG_CHECK(st, mpi_ok(MPI_Allreduce(MPI_IN_PLACE, first, 2, MPI_INT64_T, MPI_MIN, comm), "MPI_Allreduce"), out);
        if (rank == 0 && first[0] < INT64_MAX && first[1] < INT64_MAX)
            st = clcg_mm_one_triangle(path, first[0], first[1]);
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    }
    info->held = coo.len;
    info->unchecked = !symmetric && !check_symmetry;
    lap(rank, "parse", &tl);
    info->t_read = MPI_Wtime() - t0;
    t0 = MPI_Wtime();

    /* exchange 1, assembly and checks on the row blocks */
    CLCG_CHECK(st, mpi_ok(MPI_Type_contiguous((int)sizeof(rec), MPI_BYTE, &rt), "MPI_Type_contiguous"), out);
    CLCG_CHECK(st, mpi_ok(MPI_Type_commit(&rt), "MPI_Type_commit"), out);
    b0 = clcg_block_begin(h.nrows, nranks, rank);
    nb = clcg_block_begin(h.nrows, nranks, rank + 1) - b0;
    if (nranks > 1) {
        CLCG_CHECK(st, to_blocks(comm, rt, h.nrows, &coo, symmetric, mirrors, &blk, &info->held), out);
        lap(rank, "exchange 1", &tl);
    }
    st = assemble_block(nranks > 1 ? &blk : NULL, &coo, symmetric || mirrors, symmetric, b0, nb, &a, &mir,
                        &info->held);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    lap(rank, "assemble", &tl);
    if (mirrors)
        st = check_symmetric(path, &a, &mir);
    rows_free(&mir);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = clcg_dist_check_rows(path, a.row0, a.nrows, a.ptr, a.col, NULL, a.val);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    lap(rank, "check rows", &tl);

    /* partition by nonzeros, then exchange 2 to the final owners */
    st = clcg_malloc(&row_nnz, (size_t)nb + 1, sizeof *row_nnz, "row counts");
    for (int64_t i = 0; st == CLCG_OK && i < nb; i++)
        row_nnz[i] = a.ptr[i + 1] - a.ptr[i];
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_partition_by_nnz_dist(comm, h.nrows, b0, nb, row_nnz, row_begin), out);
    lap(rank, "partition", &tl);
    CLCG_CHECK(st, to_owners(comm, rt, &a, row_begin, A, gcol, &info->held), out);
    lap(rank, "exchange 2", &tl);
    info->t_exchange = MPI_Wtime() - t0;
out:
    if (rt != MPI_DATATYPE_NULL)
        MPI_Type_free(&rt);
    clcg_coo_free(&coo);
    free(blk.recv);
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
