/* Binary matrix files: the assembled matrix (both triangles, summed, global indices),
 * written and read in parallel with MPI-IO, each rank touching only its rows.
 *
 * Layout (native byte order; a byte-order mark refuses a file from the other order):
 *   0    header, 64 bytes:
 *          0  magic "CLCGBIN\0"              8  uint32 version (1)
 *         12  uint32 flags (bit 0: column indices are int32, used when n < 2^31; bit 1: the
 *                                   values were never checked for symmetry, written
 *                                   from a general file under --no-symmetry-check)
 *         16  int64 n                        24  int64 nnz
 *         32  uint32 checksum block (elements) 36 uint32 byte-order mark 0x01020304
 *         40  two uint64 reserved (0)        56  uint64 FNV-1a 64 of bytes 0..55
 *   64   row pointers, int64[n+1]
 *        column indices, int32 or int64 [nnz], ascending within a row
 *        values, double[nnz]
 *        checksums, uint64: one per block of `block` elements of each section above,
 *        in section order.
 * The file size follows from n and nnz exactly, so truncation is caught before reading.
 *
 * Checksum of a block: the sum mod 2^64 over its elements e_k (k the element's index in
 * its section) of mix(bits(e_k) + salt + k * golden), mix the splitmix64 finalizer (a
 * bijection).  Changing any element changes its term; moving one changes its key.  A sum
 * is used rather than a CRC because the writers' partial sums for a block that spans
 * ranks combine by addition (one MPI_Reduce), and a reader verifies every block that
 * overlaps its rows (reading at most one extra block at each end of each range), so the
 * readers together verify the whole file and each one everything it uses. */
#include "dist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define BIN_MAGIC "CLCGBIN"          /* 7 letters and a NUL: 8 bytes */
#define BIN_VERSION 1u
#define BIN_HEADER 64
#define BIN_BOM 0x01020304u
#define BIN_FLAG_INT32 1u
#define BIN_FLAG_UNCHECKED 2u
#define BIN_BLOCK 65536              /* elements per checksum block when writing */
#define BIN_LIMIT ((int64_t)1 << 56) /* n, nnz beyond this: a corrupt header */
#define IO_CHUNK ((int64_t)1 << 30)  /* bytes per MPI-IO call (int counts) */
#define CHECK_CHUNK ((int64_t)64 << 20) /* bytes read back at once after writing */

enum { SEC_ROWPTR, SEC_COLIND, SEC_VAL, SEC_COUNT };
static const char *const sec_name[SEC_COUNT] = {"row pointers", "column indices", "values"};

typedef struct {
    int64_t n, nnz, block;
    uint32_t flags;
    int64_t off[SEC_COUNT], len[SEC_COUNT], es[SEC_COUNT];  /* bytes, elements, bytes each */
    int64_t tbl[SEC_COUNT];      /* first checksum of the section, in the table */
    int64_t nblocks;             /* checksums in all */
    int64_t tbl_off, size;       /* table offset, file size */
} layout;

static uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t elem_hash(int sec, int64_t k, uint64_t bits)
{
    return mix64(bits + (uint64_t)(sec + 1) * 0xd1b54a32d192ed03ull +
                 (uint64_t)k * 0x9e3779b97f4a7c15ull);
}

static uint64_t elem_bits(const unsigned char *p, int64_t es)
{
    if (es == 4) {
        uint32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* Add the terms of elements [k0, k0+cnt) of section sec (bytes at p) to sums[block]. */
static void add_hashes(const layout *L, int sec, int64_t k0, int64_t cnt, const void *p, uint64_t *sums)
{
    const unsigned char *b = p;
    for (int64_t t = 0; t < cnt; t++) {
        int64_t k = k0 + t;
        sums[L->tbl[sec] + k / L->block] += elem_hash(sec, k, elem_bits(b + t * L->es[sec], L->es[sec]));
    }
}

static uint64_t fnv1a(const unsigned char *p, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t k = 0; k < len; k++) {
        h ^= p[k];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Sections and sizes from n, nnz, flags and block; -1 if they overflow. */
static int make_layout(int64_t n, int64_t nnz, uint32_t flags, int64_t block, layout *L)
{
    int64_t off = BIN_HEADER;
    memset(L, 0, sizeof *L);
    if (n <= 0 || n > BIN_LIMIT || nnz < 0 || nnz > BIN_LIMIT || block <= 0 || block > ((int64_t)1 << 30))
        return -1;
    L->n = n;
    L->nnz = nnz;
    L->flags = flags;
    L->block = block;
    L->len[SEC_ROWPTR] = n + 1;
    L->len[SEC_COLIND] = nnz;
    L->len[SEC_VAL] = nnz;
    L->es[SEC_ROWPTR] = 8;
    L->es[SEC_COLIND] = (flags & BIN_FLAG_INT32) ? 4 : 8;
    L->es[SEC_VAL] = 8;
    for (int s = 0; s < SEC_COUNT; s++) {
        L->off[s] = off;
        off += L->len[s] * L->es[s];
        L->tbl[s] = L->nblocks;
        L->nblocks += (L->len[s] + block - 1) / block;
    }
    L->tbl_off = off;
    L->size = off + 8 * L->nblocks;
    return 0;
}

static clcg_status mpi_err(int rc, const char *path, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return CLCG_OK;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    return clcg_error(CLCG_ERR_IO, "%s: %s: %s", path, what, msg);
}

/* Write (collective: every rank makes the same number of calls) or read (each rank on its
 * own) of bytes [off, off+bytes) at buf; ranks may give 0 bytes. */
static clcg_status io_all(MPI_Comm comm, MPI_File fh, const char *path, int write, int64_t off,
                          void *buf, int64_t bytes)
{
    int64_t rounds = (bytes + IO_CHUNK - 1) / IO_CHUNK, most = rounds;
    clcg_status st = CLCG_OK;
    if (write && MPI_Allreduce(&rounds, &most, 1, MPI_INT64_T, MPI_MAX, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce failed in file input/output");
    for (int64_t r = 0; r < most; r++) {
        int64_t at = r * IO_CHUNK, cnt = bytes - at;
        MPI_Status ms;
        int rc, got = 0;
        cnt = cnt < 0 ? 0 : cnt > IO_CHUNK ? IO_CHUNK : cnt;
        if (write)
            rc = MPI_File_write_at_all(fh, (MPI_Offset)(off + at), (char *)buf + (cnt ? at : 0),
                                       (int)cnt, MPI_BYTE, &ms);
        else   /* each rank on its own: Open MPI 4.1's OMPIO, its collective reads gathered by
                  aggregators (fcoll vulcan, dynamic), gave wrong bytes where ranks read the same
                  few bytes and others none (a 3-row file on 5 ranks: "checksum mismatch") */
            rc = MPI_File_read_at(fh, (MPI_Offset)(off + at), (char *)buf + (cnt ? at : 0), (int)cnt, MPI_BYTE, &ms);
        if (st != CLCG_OK)
            continue;
        if (rc != MPI_SUCCESS)
            st = mpi_err(rc, path, write ? "write failed" : "read failed");
        else if (cnt > 0 && (MPI_Get_count(&ms, MPI_BYTE, &got) != MPI_SUCCESS || got != cnt))
            st = write ? clcg_error(CLCG_ERR_IO, "%s: short write (disk full?)", path)
                       : clcg_error(CLCG_ERR_INPUT, "%s: the file ended early: truncated", path);
    }
    return st;
}

clcg_status clcg_dist_probe_binary(MPI_Comm comm, const char *path, int *is_binary)
{
    int rank, yes = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        char b[sizeof BIN_MAGIC - 1];
        struct stat sb;
        int fd = -1;
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode))   /* a pipe is read once, as text */
            fd = open(path, O_RDONLY);
        if (fd >= 0) {
            yes = read(fd, b, sizeof b) == (ssize_t)sizeof b && !memcmp(b, BIN_MAGIC, sizeof b);
            close(fd);
        }
    }
    if (MPI_Bcast(&yes, 1, MPI_INT, 0, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Bcast failed probing the matrix file");
    *is_binary = yes;
    return CLCG_OK;
}

/* ---- writing ---- */

static void put32(unsigned char *h, int at, uint32_t v) { memcpy(h + at, &v, 4); }
static void put64(unsigned char *h, int at, uint64_t v) { memcpy(h + at, &v, 8); }
static uint32_t get32(const unsigned char *h, int at) { uint32_t v; memcpy(&v, h + at, 4); return v; }
static uint64_t get64(const unsigned char *h, int at) { uint64_t v; memcpy(&v, h + at, 8); return v; }

/* Bytes [at, at+bytes) of the open file read back (independently, in chunks) and compared
 * with buf. */
static clcg_status verify_part(MPI_File fh, const char *path, int64_t at, const void *buf, int64_t bytes)
{
    char *chunk = NULL;
    clcg_status st = CLCG_OK;
    if (bytes <= 0)
        return CLCG_OK;
    CLCG_CALL(clcg_malloc(&chunk, (size_t)(bytes < CHECK_CHUNK ? bytes : CHECK_CHUNK), 1, "read-back buffer"));
    for (int64_t done = 0; done < bytes && st == CLCG_OK;) {
        const int64_t cnt = bytes - done < CHECK_CHUNK ? bytes - done : CHECK_CHUNK;
        MPI_Status ms;
        int got = 0;
        if (MPI_File_read_at(fh, (MPI_Offset)(at + done), chunk, (int)cnt, MPI_BYTE, &ms) != MPI_SUCCESS ||
            MPI_Get_count(&ms, MPI_BYTE, &got) != MPI_SUCCESS || got != cnt ||
            memcmp(chunk, (const char *)buf + done, (size_t)cnt) != 0)
            st = clcg_error(CLCG_ERR_IO, "%s: what was written does not read back (disk full?)", path);
        done += cnt;
    }
    free(chunk);
    return st;
}

/* Every rank must write the same file: rank 0 creates PATH.tmp.PID with a token in it and
 * each other rank reads the token back.  A directory local to each node (or a relative path
 * from different working directories) passes every rank's own access check, and MPI_File_open
 * then waits forever for ranks that opened other files. */
static clcg_status same_file_everywhere(MPI_Comm comm, int rank, const char *path, const char *tmp)
{
    unsigned char token[24] = {0};
    clcg_status st = CLCG_OK;
    if (rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        const int64_t t[3] = {(int64_t)getpid(), (int64_t)ts.tv_sec, (int64_t)ts.tv_nsec};
        memcpy(token, t, sizeof t);
        int fd = clcg_tmp_create(tmp);
        if (fd >= 0)
            clcg_tmp_file(tmp);
        if (fd < 0 || write(fd, token, sizeof token) != (ssize_t)sizeof token)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot create %s: %s", path, tmp, strerror(errno));
        if (fd >= 0 && close(fd) != 0 && st == CLCG_OK)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot write %s: %s", path, tmp, strerror(errno));
    }
    CLCG_CALL(clcg_agree(comm, st, NULL));
    CLCG_CALL(mpi_err(MPI_Bcast(token, (int)sizeof token, MPI_BYTE, 0, comm), path, "MPI_Bcast failed"));
    if (rank != 0) {
        int same = 0;
        for (int tries = 0; tries < 20 && !same; tries++) {   /* up to 2 s for a shared file system's caches */
            unsigned char seen[sizeof token];
            int fd = open(tmp, O_RDONLY);
            if (fd >= 0) {
                same = pread(fd, seen, sizeof seen, 0) == (ssize_t)sizeof seen && !memcmp(seen, token, sizeof seen);
                close(fd);
            }
            if (!same)
                nanosleep(&(struct timespec){0, 100000000L}, NULL);
        }
        if (!same)
            st = clcg_error(CLCG_ERR_IO, "%s: this rank does not see the file that rank 0 created (%s): the "
                            "directory is not the same one on every rank (a directory local to each node, or a "
                            "relative path from different working directories); give a path that every rank shares",
                            path, tmp);
    }
    return clcg_agree(comm, st, NULL);
}

clcg_status clcg_dist_write_binary(MPI_Comm comm, const char *path, const int64_t *row_begin,
                                   const clcg_csr *A, const clcg_gidx *gcol, int checked, clcg_held *held)
{
    int rank, size, opened = 0, named = 0;
    clcg_status st = CLCG_OK;
    int64_t off = 0, nnz = 0, nrp;
    long pid;
    layout L;
    int64_t *rp = NULL;
    void *ci = NULL;
    uint64_t *sums = NULL, *table = NULL;
    unsigned char head[BIN_HEADER];
    char *tmp = NULL, *target = NULL;
    long tlen = 0;
    MPI_File fh = MPI_FILE_NULL;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (A->row0 != row_begin[rank] || A->row0 + A->nrows != row_begin[rank + 1])
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_dist_write_binary: rows do not match the partition");
    if (MPI_Exscan(&A->nnz, &off, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
        MPI_Allreduce(&A->nnz, &nnz, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Exscan of the nonzero counts failed");
    if (rank == 0)
        off = 0;
    /* 32-bit columns where they fit (tests: CLCG_BINARY_WIDE=1 writes 64-bit ones, as a matrix
       of 2^31 rows or more has, so that reading them is tested on small files) */
    int wide = A->n > INT32_MAX || (getenv("CLCG_BINARY_WIDE") && *getenv("CLCG_BINARY_WIDE") == '1');
    MPI_Bcast(&wide, 1, MPI_INT, 0, comm);   /* rank 0's header decides for all */
    if (make_layout(A->n, nnz, (wide ? 0 : BIN_FLAG_INT32) | (checked ? 0 : BIN_FLAG_UNCHECKED), BIN_BLOCK, &L) != 0)
        return clcg_error(CLCG_ERR_INPUT, "%s: the matrix (n = %" PRId64 ", nnz = %" PRId64
                          ") is too large for the binary format", path, A->n, nnz);

    /* my elements: row pointers of my rows (the last rank also the final one) */
    nrp = A->nrows + (rank == size - 1);
    st = clcg_malloc(&rp, (size_t)nrp + 1, sizeof *rp, "row pointers to write");
    if (st == CLCG_OK)
        st = clcg_malloc(&ci, (size_t)A->nnz + 1, (size_t)L.es[SEC_COLIND], "column indices to write");
    if (st == CLCG_OK)
        st = clcg_calloc(&sums, (size_t)L.nblocks + 1, sizeof *sums, "checksums");
    if (st == CLCG_OK && rank == 0)
        st = clcg_calloc(&table, (size_t)L.nblocks + 1, sizeof *table, "checksums");
    /* the file renamed onto: path, or where its link points (rank 0's view, for all) */
    if (st == CLCG_OK && rank == 0) {
        int direct = 0;
        st = clcg_out_target(path, &target, &direct);
        if (st == CLCG_OK && direct)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot write a binary matrix there: not a regular file", path);
        tlen = st == CLCG_OK ? (long)strlen(target) : 0;
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_err(MPI_Bcast(&tlen, 1, MPI_LONG, 0, comm), path, "MPI_Bcast failed"), out);
    if (rank != 0)
        st = clcg_malloc(&target, (size_t)tlen + 1, 1, "file name");
    if (st == CLCG_OK)
        st = clcg_malloc(&tmp, (size_t)tlen + 32, 1, "file name");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_err(MPI_Bcast(target, (int)tlen + 1, MPI_CHAR, 0, comm), path, "MPI_Bcast failed"), out);
    for (int64_t k = 0; k < nrp; k++)
        rp[k] = off + A->rowptr[k];
    for (int64_t k = 0; k < A->nnz; k++) {
        if (L.es[SEC_COLIND] == 4)
            ((int32_t *)ci)[k] = (int32_t)gcol[k];
        else
            ((int64_t *)ci)[k] = gcol[k];
    }
    add_hashes(&L, SEC_ROWPTR, A->row0, nrp, rp, sums);
    add_hashes(&L, SEC_COLIND, off, A->nnz, ci, sums);
    add_hashes(&L, SEC_VAL, off, A->nnz, A->val, sums);
    CLCG_CHECK(st, mpi_err(MPI_Reduce(sums, table, (int)L.nblocks, MPI_UINT64_T, MPI_SUM, 0, comm),
                           path, "MPI_Reduce of the checksums failed"), out);

    memset(head, 0, sizeof head);
    memcpy(head, BIN_MAGIC, sizeof BIN_MAGIC);
    put32(head, 8, BIN_VERSION);
    put32(head, 12, L.flags);
    put64(head, 16, (uint64_t)L.n);
    put64(head, 24, (uint64_t)L.nnz);
    put32(head, 32, (uint32_t)L.block);
    put32(head, 36, BIN_BOM);
    put64(head, 56, fnv1a(head, 56));

    /* PATH.tmp.PID (rank 0's pid), renamed when every rank has written */
    pid = (long)getpid();
    CLCG_CHECK(st, mpi_err(MPI_Bcast(&pid, 1, MPI_LONG, 0, comm), path, "MPI_Bcast failed"), out);
    clcg_tmp_name(target, pid, tmp, (size_t)tlen + 32);
    {   /* every rank must reach the directory: MPI_File_open would wait for one that cannot */
        char dir[4096];
        clcg_dir_of(tmp, dir, sizeof dir);
        if (access(dir, W_OK | X_OK) != 0)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot write in %s on this rank: %s", path, dir, strerror(errno));
        /* a disk too full for the whole file is said so before anything is written (a full
         * disk met inside the collective writes is found too, but with the MPI library's
         * own messages beside ours; CLCG_NO_ROOM_CHECK=1 lets the tests meet it there) */
        struct rlimit fsize;   /* a write past ulimit -f, likewise, on any rank */
        if (st == CLCG_OK && getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
            (uint64_t)L.size > (uint64_t)fsize.rlim_cur)
            st = clcg_error(CLCG_ERR_IO, "%s: the file takes %" PRId64 " bytes, past the file-size limit of %" PRIu64
                            " bytes (ulimit -f)", path, L.size, (uint64_t)fsize.rlim_cur);
        struct statvfs fs;
        if (st == CLCG_OK && rank == 0 && !getenv("CLCG_NO_ROOM_CHECK") && statvfs(dir, &fs) == 0 && fs.f_frsize > 0) {
            const uint64_t avail = geteuid() == 0 ? fs.f_bfree : fs.f_bavail;   /* root: the reserve too */
            if (avail < ((uint64_t)L.size + fs.f_frsize - 1) / fs.f_frsize)
                st = clcg_error(CLCG_ERR_IO, "%s: no room for the file: it takes %" PRId64 " bytes, its file "
                                "system has %" PRIu64 " free", path, L.size, avail * fs.f_frsize);
        }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    named = 1;
    if (rank != 0)   /* rank 0's name: guarded on every rank */
        clcg_tmp_peer(tmp);
    CLCG_CHECK(st, same_file_everywhere(comm, rank, path, tmp), out);
    st = mpi_err(MPI_File_open(comm, tmp, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
                 path, "cannot create");
    opened = st == CLCG_OK;
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = mpi_err(MPI_File_set_size(fh, (MPI_Offset)L.size), path, "cannot set the size");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    {   /* every collective write on every rank, even after a failure (a rank skipping one
         * would leave the others waiting in it) */
        const struct { int64_t at; void *buf; int64_t bytes; } part[5] = {
            {0, head, rank == 0 ? BIN_HEADER : 0},
            {L.off[SEC_ROWPTR] + 8 * A->row0, rp, 8 * nrp},
            {L.off[SEC_COLIND] + L.es[SEC_COLIND] * off, ci, L.es[SEC_COLIND] * A->nnz},
            {L.off[SEC_VAL] + 8 * off, A->val, 8 * A->nnz},
            {L.tbl_off, table, rank == 0 ? 8 * L.nblocks : 0}};
        for (int i = 0; i < 5; i++) {
            clcg_status w = io_all(comm, fh, path, 1, part[i].at, part[i].buf, part[i].bytes);
            if (st == CLCG_OK)
                st = w;
        }
        /* Synced, then read back and compared: a full disk can be lost inside a collective
         * write (seen with Open MPI: "exit 0" and a file of holes).  Each rank syncs with
         * fsync on a descriptor of its own: MPI_File_sync holds a barrier that a rank whose
         * sync failed leaves early, and the others then wait in it forever. */
        int sfd = open(tmp, O_RDONLY);
        if (sfd >= 0) {
            if (fsync(sfd) != 0 && errno != EINVAL && errno != EROFS && st == CLCG_OK)
                st = clcg_error(CLCG_ERR_IO, "%s: cannot sync the file: %s", path, strerror(errno));
            close(sfd);
        }
        for (int i = 0; i < 5 && st == CLCG_OK; i++)
            st = verify_part(fh, path, part[i].at, part[i].buf, part[i].bytes);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    opened = 0;
    st = mpi_err(MPI_File_close(&fh), path, "close failed");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    if (rank == 0 && held) {   /* complete and checked: renamed by the caller */
        clcg_held_keep(held, tmp, target, path);
        tmp = target = NULL;
    } else if (rank == 0 && clcg_rename_into_place(tmp, target) != 0) {
        st = clcg_error(CLCG_ERR_IO, "%s: cannot rename %s to it: %s", path, tmp, strerror(errno));
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    if (opened)
        MPI_File_close(&fh);
    if (st != CLCG_OK && rank == 0 && named && tmp)
        unlink(tmp);
    if (named)
        clcg_tmp_file(NULL);
    free(rp);
    free(ci);
    free(sums);
    free(table);
    free(tmp);
    free(target);
    return st;
}

/* ---- reading ---- */

/* Rank 0: the header of path, checked against the file's size. */
static clcg_status read_header(const char *path, layout *L)
{
    unsigned char h[BIN_HEADER];
    struct stat sb;
    ssize_t got;
    uint32_t version, bom, flags;
    int64_t n, nnz, block;
    int fd = open(path, O_RDONLY);

    if (fd < 0)
        return clcg_error(CLCG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return clcg_error(CLCG_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    got = pread(fd, h, sizeof h, 0);
    close(fd);
    if (got < 0)
        return clcg_error(CLCG_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (got < BIN_HEADER)
        return clcg_error(CLCG_ERR_INPUT, "%s: truncated binary matrix: %zd bytes, less than its "
                          "%d-byte header", path, got, BIN_HEADER);
    if (memcmp(h, BIN_MAGIC, sizeof BIN_MAGIC) != 0)
        return clcg_error(CLCG_ERR_INPUT, "%s: not a clcg binary matrix (wrong magic)", path);
    bom = get32(h, 36);
    if (bom != BIN_BOM)
        return clcg_error(CLCG_ERR_INPUT, "%s: the binary matrix was written with the other "
                          "byte order, or its header is corrupt", path);
    version = get32(h, 8);
    if (version != BIN_VERSION)
        return clcg_error(CLCG_ERR_INPUT, "%s: binary matrix format version %" PRIu32 "; this "
                          "program reads version %u", path, version, BIN_VERSION);
    if (get64(h, 56) != fnv1a(h, 56))
        return clcg_error(CLCG_ERR_INPUT, "%s: header checksum mismatch: the file is corrupt", path);
    flags = get32(h, 12);
    n = (int64_t)get64(h, 16);
    nnz = (int64_t)get64(h, 24);
    block = get32(h, 32);
    if ((flags & ~(BIN_FLAG_INT32 | BIN_FLAG_UNCHECKED)) || ((flags & BIN_FLAG_INT32) && n > INT32_MAX) ||
        make_layout(n, nnz, flags, block, L) != 0)
        return clcg_error(CLCG_ERR_INPUT, "%s: corrupt header (n = %" PRId64 ", nnz = %" PRId64
                          ", flags = %" PRIu32 ", block = %" PRId64 ")", path, n, nnz, flags, block);
    if ((int64_t)sb.st_size != L->size)
        return clcg_error(CLCG_ERR_INPUT, "%s: the file has %lld bytes but its header (n = %"
                          PRId64 ", nnz = %" PRId64 ") needs %" PRId64 ": %s", path,
                          (long long)sb.st_size, n, nnz, L->size,
                          (int64_t)sb.st_size < L->size ? "truncated" : "trailing data or a corrupt header");
    return CLCG_OK;
}

/* Bytes [off, off+bytes) of the file into buf.  fd >= 0 (every rank could open the file
 * itself): read by parallel threads with pread, no collective call; else through MPI-IO,
 * collectively (io_all). */
#define READ_PIECES 64
typedef struct {
    int fd;
    char *buf;
    int64_t off, bytes;
    int err[READ_PIECES];          /* errno, or -1: the file ended early */
} pread_job;

static void pread_pieces(void *arg, int64_t lo, int64_t hi)
{
    pread_job *j = arg;
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = j->bytes * p / READ_PIECES, b = j->bytes * (p + 1) / READ_PIECES;
        j->err[p] = 0;
        while (a < b) {
            ssize_t r = pread(j->fd, j->buf + a, (size_t)(b - a < IO_CHUNK ? b - a : IO_CHUNK), (off_t)(j->off + a));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                j->err[p] = r < 0 ? errno : -1;
                break;
            }
            a += r;
        }
    }
}

static clcg_status read_bytes(MPI_Comm comm, MPI_File fh, int fd, const char *path, int64_t off,
                              void *buf, int64_t bytes)
{
    pread_job j;
    if (fd < 0)
        return io_all(comm, fh, path, 0, off, buf, bytes);
    if (bytes <= 0)
        return CLCG_OK;
    j.fd = fd;
    j.buf = buf;
    j.off = off;
    j.bytes = bytes;
    clcg_parallel_for(READ_PIECES, pread_pieces, &j);
    for (int p = 0; p < READ_PIECES; p++) {
        if (j.err[p] == -1)
            return clcg_error(CLCG_ERR_INPUT, "%s: the file ended early: truncated", path);
        if (j.err[p] > 0)
            return clcg_error(CLCG_ERR_IO, "%s: read error: %s", path, strerror(j.err[p]));
    }
    return CLCG_OK;
}

/* Elements [a, b) of a section, held in three pieces: [a, lo) in head, [lo, hi) in out
 * (where the caller wants them), [hi, b) in tail; the checksums of blocks [0, nb) from a. */
typedef struct {
    const unsigned char *head, *out, *tail;
    int64_t a, lo, hi, b, blk, es;
    int sec;
    uint64_t *got;
} block_sums;

static uint64_t sum_piece(const block_sums *c, int64_t k0, int64_t k1, const unsigned char *p, int64_t first)
{
    uint64_t s = 0;
    for (int64_t k = k0; k < k1; k++)
        s += elem_hash(c->sec, k, elem_bits(p + (k - first) * c->es, c->es));
    return s;
}

static void sum_blocks(void *arg, int64_t lo, int64_t hi)
{
    const block_sums *c = arg;
    for (int64_t t = lo; t < hi; t++) {
        int64_t k0 = c->a + t * c->blk, k1 = k0 + c->blk < c->b ? k0 + c->blk : c->b;
        uint64_t s = 0;
        if (k0 < c->lo)
            s += sum_piece(c, k0, k1 < c->lo ? k1 : c->lo, c->head, c->a);
        if (k1 > c->lo && k0 < c->hi)
            s += sum_piece(c, k0 > c->lo ? k0 : c->lo, k1 < c->hi ? k1 : c->hi, c->out, c->lo);
        if (k1 > c->hi)
            s += sum_piece(c, k0 > c->hi ? k0 : c->hi, k1, c->tail, c->hi);
        c->got[t] = s;
    }
}

/* Collective: elements [lo, hi) of section sec read straight into out, and every checksum
 * block they touch verified (the parts of the first and last blocks outside [lo, hi) are
 * read beside; the blocks' sums in parallel threads).  Status agreed. */
static clcg_status read_section(MPI_Comm comm, MPI_File fh, int fd, const char *path, const layout *L,
                                int sec, int64_t lo, int64_t hi, void *out)
{
    const int64_t es = L->es[sec], blk = L->block;
    int64_t a = lo / blk * blk, b = (hi + blk - 1) / blk * blk, nb;
    unsigned char *head = NULL, *tail = NULL;
    uint64_t *sums = NULL, *got = NULL;
    clcg_status st = CLCG_OK;

    if (hi <= lo)
        a = b = lo = hi = 0;
    if (b > L->len[sec])
        b = L->len[sec];
    nb = (b - a + blk - 1) / blk;
    st = clcg_malloc(&head, (size_t)((lo - a) * es) + 1, 1, sec_name[sec]);
    if (st == CLCG_OK)
        st = clcg_malloc(&tail, (size_t)((b - hi) * es) + 1, 1, sec_name[sec]);
    if (st == CLCG_OK)
        st = clcg_malloc(&sums, (size_t)nb + 1, sizeof *sums, "checksums");
    if (st == CLCG_OK)
        st = clcg_malloc(&got, (size_t)nb + 1, sizeof *got, "checksums");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = read_bytes(comm, fh, fd, path, L->off[sec] + lo * es, out, (hi - lo) * es);
    if (st == CLCG_OK)
        st = read_bytes(comm, fh, fd, path, L->off[sec] + a * es, head, (lo - a) * es);
    if (st == CLCG_OK)
        st = read_bytes(comm, fh, fd, path, L->off[sec] + hi * es, tail, (b - hi) * es);
    if (st == CLCG_OK)
        st = read_bytes(comm, fh, fd, path, L->tbl_off + 8 * (L->tbl[sec] + a / blk), sums, 8 * nb);
    if (st == CLCG_OK) {
        block_sums c = {head, out, tail, a, lo, hi, b, blk, es, sec, got};
        clcg_parallel_for(nb, sum_blocks, &c);
    }
    for (int64_t t = 0; st == CLCG_OK && t < nb; t++) {
        int64_t k0 = a + t * blk, k1 = k0 + blk < b ? k0 + blk : b;
        if (got[t] != sums[t])
            st = clcg_error(CLCG_ERR_INPUT, "%s: checksum mismatch in the %s (elements %" PRId64
                            "..%" PRId64 "): the file is corrupt", path, sec_name[sec], k0, k1 - 1);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
out:
    free(head);
    free(tail);
    free(sums);
    free(got);
    return st;
}

/* Row pointers p[0..cnt) for rows starting at row0: ascending, within 0..nnz, p = 0 at
 * row 0 and nnz at row n. */
static clcg_status check_rowptr(const char *path, const layout *L, int64_t row0, const int64_t *p,
                                int64_t cnt)
{
    for (int64_t k = 0; k < cnt; k++) {
        int64_t i = row0 + k;
        if (p[k] < 0 || p[k] > L->nnz || (k > 0 && p[k] < p[k - 1]) || (i == 0 && p[k] != 0) ||
            (i == L->n && p[k] != L->nnz))
            return clcg_error(CLCG_ERR_INPUT, "%s: row pointer %" PRId64 " = %" PRId64 " is out of "
                              "order: the file is corrupt", path, i, p[k]);
    }
    return CLCG_OK;
}

/* Rows of A in ROW_CHUNKS pieces: 32-bit columns widened into gcol (narrow, unless gcol
 * is NULL: one rank, the 32-bit columns kept), then each
 * entry checked (column in range and ascending, value finite); the first bad row and entry
 * of each piece, or -1. */
#define ROW_CHUNKS 256
typedef struct {
    const clcg_csr *A;
    clcg_gidx *gcol;
    int narrow;
    int64_t n;
    int64_t bad[ROW_CHUNKS], badk[ROW_CHUNKS];
} rows_job;

static inline clcg_gidx column(const rows_job *j, int64_t k)
{
    return j->gcol ? j->gcol[k] : j->A->colind[k];
}

static void check_entries(void *arg, int64_t c0, int64_t c1)
{
    rows_job *j = arg;
    const clcg_csr *A = j->A;
    for (int64_t c = c0; c < c1; c++) {
        const int64_t r0 = A->nrows * c / ROW_CHUNKS, r1 = A->nrows * (c + 1) / ROW_CHUNKS;
        j->bad[c] = -1;
        if (j->narrow && j->gcol)
            for (int64_t k = A->rowptr[r0]; k < A->rowptr[r1]; k++)
                j->gcol[k] = A->colind[k];
        for (int64_t i = r0; i < r1 && j->bad[c] < 0; i++)
            for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
                const clcg_gidx g = column(j, k), gp = k > A->rowptr[i] ? column(j, k - 1) : -1;
                if (g < 0 || g >= j->n || g <= gp || !isfinite(A->val[k])) {
                    j->bad[c] = i;
                    j->badk[c] = k;
                    break;
                }
            }
    }
}

clcg_status clcg_dist_read_binary(MPI_Comm comm, const char *path, int check_symmetry, int64_t *row_begin,
                                  clcg_csr *A, clcg_gidx **gcol, clcg_dist_info *info)
{
    int rank, size, opened = 0, fd = -1, narrow;
    clcg_status st = CLCG_OK;
    layout L;
    int64_t hv[4] = {0, 0, 0, 0}, b0, nb, *p = NULL, *row_nnz = NULL, base;
    void *ci = NULL;
    MPI_File fh = MPI_FILE_NULL;
    double t0 = MPI_Wtime();

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    memset(A, 0, sizeof *A);
    memset(info, 0, sizeof *info);
    *gcol = NULL;
    if (rank == 0) {
        st = read_header(path, &L);
        if (st == CLCG_OK && check_symmetry && (L.flags & BIN_FLAG_UNCHECKED))
            st = clcg_error(CLCG_ERR_INPUT, "%s: written from a general file under --no-symmetry-check: its "
                            "symmetry was never checked (pass --no-symmetry-check to use it as it is)", path);
        hv[0] = L.n;
        hv[1] = L.nnz;
        hv[2] = L.flags;
        hv[3] = L.block;
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, mpi_err(MPI_Bcast(hv, 4, MPI_INT64_T, 0, comm), path, "MPI_Bcast failed"), out);
    make_layout(hv[0], hv[1], (uint32_t)hv[2], hv[3], &L);
    info->unchecked = (L.flags & BIN_FLAG_UNCHECKED) != 0;
    A->n = L.n;
    /* what the header asks for, refused before anything of its size is made */
    st = clcg_rows_fit(L.n, size, path);
    if (st == CLCG_OK) {
        char what[4200];
        snprintf(what, sizeof what, "%s (n = %" PRId64 ", nnz = %" PRId64 ")", path, L.n, L.nnz);
        st = clcg_memory_check((size > 1 ? CLCG_PEAK_BIN_ENTRY_RANKS : CLCG_PEAK_BIN_ENTRY) * (double)L.nnz +
                                   CLCG_PEAK_BIN_ROW * (double)L.n, size, what);
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    /* Every rank opens the file itself first: one that cannot (a path local to another
     * node) is named, where MPI_File_open would wait for it forever.  Threads then read with
     * pread; MPI-IO only under CLCG_MPIIO_ONLY (tests). */
    fd = open(path, O_RDONLY);
    if (fd < 0)
        st = clcg_error(CLCG_ERR_INPUT, "%s: cannot open on this rank: %s", path, strerror(errno));
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    int mpiio = clcg_env_on("CLCG_MPIIO_ONLY"), any = 0;   /* all ranks alike */
    MPI_Allreduce(&mpiio, &any, 1, MPI_INT, MPI_MAX, comm);
    if (any) {
        close(fd);
        fd = -1;
        st = mpi_err(MPI_File_open(comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), path, "cannot open");
        opened = st == CLCG_OK;
        CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    }

    /* partition: an even block of row pointers each, split points from their counts */
    b0 = clcg_block_begin(L.n, size, rank);
    nb = clcg_block_begin(L.n, size, rank + 1) - b0;
    st = clcg_malloc(&p, (size_t)nb + 2, sizeof *p, "row pointers");
    if (st == CLCG_OK)
        st = clcg_malloc(&row_nnz, (size_t)nb + 1, sizeof *row_nnz, "row counts");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, read_section(comm, fh, fd, path, &L, SEC_ROWPTR, b0, b0 + nb + 1, p), out);
    st = check_rowptr(path, &L, b0, p, nb + 1);
    for (int64_t i = 0; st == CLCG_OK && i < nb; i++)
        row_nnz[i] = p[i + 1] - p[i];
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, clcg_partition_by_nnz_dist(comm, L.n, b0, nb, row_nnz, row_begin), out);
    free(p);
    free(row_nnz);
    p = row_nnz = NULL;

    /* my rows */
    A->row0 = row_begin[rank];
    A->nrows = row_begin[rank + 1] - A->row0;
    st = clcg_malloc(&A->rowptr, (size_t)A->nrows + 1, sizeof *A->rowptr, "row pointers");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    CLCG_CHECK(st, read_section(comm, fh, fd, path, &L, SEC_ROWPTR, A->row0, A->row0 + A->nrows + 1,
                                A->rowptr), out);
    st = check_rowptr(path, &L, A->row0, A->rowptr, A->nrows + 1);
    base = A->rowptr[0];
    A->nnz = A->rowptr[A->nrows] - base;
    for (int64_t i = 0; i <= A->nrows; i++)
        A->rowptr[i] -= base;
    narrow = L.es[SEC_COLIND] == 4;
    if (st == CLCG_OK && !(narrow && size == 1))   /* one rank: 32-bit columns are the local ones */
        st = clcg_malloc(gcol, (size_t)A->nnz + 1, sizeof **gcol, "global column indices");
    if (st == CLCG_OK)
        st = clcg_malloc(&A->val, (size_t)A->nnz + 1, sizeof *A->val, "matrix values");
    if (st == CLCG_OK)      /* filled by clcg_halo_setup; 32-bit file columns pass through it */
        st = clcg_malloc(&A->colind, (size_t)A->nnz + 1, sizeof *A->colind, "column indices");
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    info->held = A->nnz;
    ci = narrow ? (void *)A->colind : (void *)*gcol;
    CLCG_CHECK(st, read_section(comm, fh, fd, path, &L, SEC_COLIND, base, base + A->nnz, ci), out);
    CLCG_CHECK(st, read_section(comm, fh, fd, path, &L, SEC_VAL, base, base + A->nnz, A->val), out);

    /* what a checksum cannot promise: the file was made by this program (rows checked by
       threads, the first bad one reported) */
    {
        rows_job rj = {A, *gcol, narrow, L.n, {0}, {0}};
        clcg_parallel_for(ROW_CHUNKS, check_entries, &rj);
        for (int c = 0; c < ROW_CHUNKS && st == CLCG_OK; c++)
            if (rj.bad[c] >= 0) {
                const int64_t i = rj.bad[c], k = rj.badk[c];
                st = clcg_error(CLCG_ERR_INPUT, "%s: row %" PRId64 ": entry %" PRId64 " (column %"
                                PRId64 ") is out of range, out of order or not finite: the file "
                                "is corrupt", path, A->row0 + i + 1, k - A->rowptr[i] + 1, column(&rj, k) + 1);
            }
    }
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    st = clcg_dist_check_rows(path, A->row0, A->nrows, A->rowptr, *gcol, A->colind, A->val);
    CLCG_CHECK(st, clcg_agree(comm, st, NULL), out);
    info->t_read = MPI_Wtime() - t0;
out:
    if (opened)
        MPI_File_close(&fh);
    if (fd >= 0)
        close(fd);
    free(p);
    free(row_nnz);
    if (st != CLCG_OK) {
        clcg_csr_free(A);
        free(*gcol);
        *gcol = NULL;
    }
    return st;
}
