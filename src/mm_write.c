/* Matrix Market output: a dense vector (array n x 1) or a CSR matrix (coordinate),
 * formatted into a large buffer, written to PATH.tmp.PID and renamed to PATH
 * only when complete, so a partial file never exists under PATH (a device or FIFO is
 * written in place; a symbolic link's target is replaced, not the link). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "mm.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MM_WBUF ((size_t)4 << 20)    /* bytes formatted before each write() */
#define MM_LINE 96                   /* room for one entry line */

typedef struct {
    const char *path;   /* the name given */
    char *target;       /* the file renamed onto: path, or where its link points */
    char *tmp;          /* TARGET.tmp.PID; NULL when writing path in place */
    int fd;
    char *buf;
    size_t len;
} mm_out;

/* The descriptor an output name stands for (/dev/stdout 1, /dev/stderr 2, /dev/fd/N and
 * /proc/self/fd/N: N), or -1.  Such outputs are written through a duplicate of it, sharing
 * its offset, never reopened (a redirected /dev/stdout would start at the file's start)
 * nor replaced. */
static int out_descriptor(const char *path)
{
    const char *d = !strncmp(path, "/dev/fd/", 8) ? path + 8 : !strncmp(path, "/proc/self/fd/", 14) ? path + 14 : NULL;
    char *end;
    long v;
    if (!strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    if (!d || *d < '0' || *d > '9')
        return -1;
    v = strtol(d, &end, 10);
    return *end || v > 65535 ? -1 : (int)v;
}

int clcg_out_is_descriptor(const char *path)
{
    return out_descriptor(path) >= 0;
}

int clcg_out_open_direct(const char *path)
{
    int fd = out_descriptor(path);
    fflush(NULL);   /* what went to stdout before comes before it */
    if (fd >= 0)
        return dup(fd);
    do   /* a FIFO's open waits for its reader: a signal that a library handles may come */
        fd = open(path, O_WRONLY);
    while (fd < 0 && errno == EINTR);
    return fd;
}

char *clcg_link_end(const char *path)
{
    char *cur = strdup(path);
    for (int depth = 0; cur; depth++) {
        struct stat sl;
        char link[4096], *next;
        if (lstat(cur, &sl) != 0 || !S_ISLNK(sl.st_mode))
            return cur;   /* nothing there (the name the file is made under; one too long is
                             named by the caller's checks), or no link */
        if (depth == 40) {   /* as many as the kernel follows before ELOOP */
            free(cur);
            errno = ELOOP;
            return NULL;
        }
        if ((next = realpath(cur, NULL))) {   /* the chain ends at a file that exists */
            free(cur);
            return next;
        }
        /* a dangling link: the name it holds, beside the link when relative */
        const ssize_t k = readlink(cur, link, sizeof link - 1);
        if (k <= 0) {
            const int e = k < 0 ? errno : ENOENT;
            free(cur);
            errno = e;
            return NULL;
        }
        link[k] = '\0';
        const char *slash = strrchr(cur, '/');
        const size_t dir = link[0] != '/' && slash ? (size_t)(slash - cur) + 1 : 0;
        next = malloc(dir + (size_t)k + 1);
        if (next) {
            memcpy(next, cur, dir);
            memcpy(next + dir, link, (size_t)k + 1);
        }
        free(cur);
        cur = next;
    }
    errno = ENOMEM;   /* strdup or malloc failed */
    return NULL;
}

/* Written in place, with no temporary name: a descriptor name, or what exists and is no
 * regular file (a device, a FIFO) */
static int in_place(const char *path, const struct stat *sf, int exists)
{
    return out_descriptor(path) >= 0 || (exists && !S_ISREG(sf->st_mode));
}

clcg_status clcg_out_target(const char *path, char **target, int *direct)
{
    struct stat sf;
    const int exists = stat(path, &sf) == 0;
    *target = NULL;
    *direct = 0;
    if (exists && S_ISDIR(sf.st_mode))
        return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: it is a directory", path);
    if (in_place(path, &sf, exists)) {
        *direct = 1;
        return CLCG_OK;
    }
    if (!(*target = clcg_link_end(path)))
        return clcg_error(errno == ENOMEM ? CLCG_ERR_MEMORY : CLCG_ERR_IO, "%s: cannot create the file: %s", path,
                          strerror(errno));
    return CLCG_OK;
}

void clcg_dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else if (slash == path)
        snprintf(buf, size, "/");
    else
        snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

const char *clcg_base_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void clcg_tmp_name(const char *target, long pid, char *out, size_t len)
{
    const char *base = clcg_base_of(target);
    if (strlen(base) + 24 <= 255) {   /* NAME_MAX on common file systems */
        snprintf(out, len, "%s.tmp.%ld", target, pid);
    } else {   /* a name near the limit: a short one beside it, told apart by the name's hash
                  (the outputs of one run are held at once) */
        uint64_t hash = 1469598103934665603ULL;   /* FNV-1a */
        for (const unsigned char *c = (const unsigned char *)base; *c; c++)
            hash = (hash ^ *c) * 1099511628211ULL;
        snprintf(out, len, "%.*s.clcg-%ld-%016" PRIx64 ".tmp", (int)(base - target), target, pid, hash);
    }
}

int clcg_tmp_create(const char *tmp)
{
    const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = open(tmp, flags, 0666);
    if (fd < 0 && errno == EEXIST && (unlink(tmp) == 0 || errno == ENOENT))   /* the name, never what a link names */
        fd = open(tmp, flags, 0666);
    return fd;
}

void clcg_tmp_expect(const char *path)
{
    struct stat sf;
    const long pid0 = clcg_tmp_pid0();
    if (!path || pid0 <= 0 || in_place(path, &sf, stat(path, &sf) == 0))
        return;   /* written in place: no temporary name */
    char *target = clcg_link_end(path);
    const size_t n = target ? strlen(target) + 32 : 0;
    char *tmp = target ? malloc(n) : NULL;
    if (tmp) {
        clcg_tmp_name(target, pid0, tmp, n);
        clcg_tmp_peer(tmp);
    }
    free(tmp);
    free(target);
}

static clcg_status out_open(mm_out *o, const char *path)
{
    clcg_status st;
    int direct;

    memset(o, 0, sizeof *o);
    o->path = path;
    o->fd = -1;
    CLCG_CALL(clcg_out_target(path, &o->target, &direct));
    st = clcg_malloc(&o->buf, MM_WBUF, 1, "the Matrix Market write buffer");
    if (st == CLCG_OK && !direct) {
        size_t n = strlen(o->target) + 32;
        st = clcg_malloc(&o->tmp, n, 1, "a file name");
        if (st == CLCG_OK)
            clcg_tmp_name(o->target, (long)getpid(), o->tmp, n);
    }
    if (st == CLCG_OK) {
        o->fd = direct ? clcg_out_open_direct(path) : clcg_tmp_create(o->tmp);
        if (o->fd < 0)
            st = clcg_error(CLCG_ERR_IO, "%s: cannot create the file: %s", path, strerror(errno));
        else if (!direct)
            clcg_tmp_file(o->tmp);
    }
    if (st != CLCG_OK) {
        free(o->target);
        free(o->tmp);
        free(o->buf);
        o->target = o->tmp = o->buf = NULL;
    }
    return st;
}

static clcg_status out_flush(mm_out *o)
{
    const char *p = o->buf;
    size_t left = o->len;
    while (left > 0) {
        ssize_t w = write(o->fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return clcg_error(CLCG_ERR_IO, "%s: cannot write: %s", o->path,
                              w < 0 ? strerror(errno) : "no progress");
        p += w;
        left -= (size_t)w;
    }
    o->len = 0;
    return CLCG_OK;
}

/* Finish: on success flush, sync, close and rename (with held: hand the temporary file and
 * its target over instead); on any failure remove the temporary file.  Returns the first
 * failure. */
static clcg_status out_close_held(mm_out *o, clcg_status st, clcg_held *held)
{
    if (st == CLCG_OK)
        st = out_flush(o);
    if (st == CLCG_OK && o->tmp && fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS)
        st = clcg_error(CLCG_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
    if (o->fd >= 0 && close(o->fd) != 0 && st == CLCG_OK)
        st = clcg_error(CLCG_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
    o->fd = -1;
    if (st == CLCG_OK && o->tmp && held) {
        clcg_held_keep(held, o->tmp, o->target, o->path);
        o->tmp = o->target = NULL;
    }
    if (st == CLCG_OK && o->tmp && clcg_rename_into_place(o->tmp, o->target) != 0)
        st = clcg_error(CLCG_ERR_IO, "%s: cannot rename %s into place: %s", o->path, o->tmp,
                        strerror(errno));
    if (st != CLCG_OK && o->tmp)
        unlink(o->tmp);
    clcg_tmp_file(NULL);
    free(o->target);
    free(o->tmp);
    free(o->buf);
    o->target = o->tmp = o->buf = NULL;
    return st;
}

int clcg_rename_into_place(const char *tmp, const char *target)
{
    struct stat sb;
    if (stat(target, &sb) == 0 && S_ISREG(sb.st_mode))
        (void)chmod(tmp, sb.st_mode & 0777);   /* should it fail, the new file keeps the umask's bits */
    return rename(tmp, target);
}

void clcg_held_keep(clcg_held *h, char *tmp, char *target, const char *path)
{
    h->tmp = tmp;
    h->target = target;
    h->path = path;
    h->slot = clcg_tmp_hold(tmp);
    clcg_tmp_file(NULL);   /* no longer the file being written */
}

static void held_free(clcg_held *h)
{
    clcg_tmp_release(h->slot);
    free(h->tmp);
    free(h->target);
    memset(h, 0, sizeof *h);
}

clcg_status clcg_held_commit(clcg_held *h)
{
    if (h->tmp && clcg_rename_into_place(h->tmp, h->target) != 0) {
        const clcg_status st = clcg_error(CLCG_ERR_IO, "%s: cannot rename %s into place: %s", h->path, h->tmp,
                                          strerror(errno));
        clcg_held_drop(h);
        return st;
    }
    held_free(h);
    return CLCG_OK;
}

void clcg_held_drop(clcg_held *h)
{
    if (h->tmp)
        unlink(h->tmp);
    held_free(h);
}

static clcg_status out_room(mm_out *o)
{
    if (o->len + MM_LINE > MM_WBUF)
        return out_flush(o);
    return CLCG_OK;
}

static char *put_u64(char *p, uint64_t v)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k)
        *p++ = t[--k];
    return p;
}

/* %.17g, with integers (the common case in assembled operators) done by hand:
 * both read back bit-exact. */
static char *put_double(char *p, double v)
{
    if (v == 0.0) {
        if (signbit(v))
            *p++ = '-';
        *p++ = '0';
        return p;
    }
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) {
        if (v < 0) {
            *p++ = '-';
            v = -v;
        }
        return put_u64(p, (uint64_t)v);
    }
    return p + snprintf(p, 32, "%.17g", v);
}

static clcg_status put_text(mm_out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n > MM_WBUF)
        CLCG_CALL(out_flush(o));
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    return CLCG_OK;
}

clcg_status clcg_mm_write_vector(const char *path, const double *x, int64_t n)
{
    return clcg_mm_write_vector_held(path, x, n, NULL);
}

clcg_status clcg_mm_write_vector_held(const char *path, const double *x, int64_t n, clcg_held *held)
{
    mm_out o;
    clcg_status st = CLCG_OK;
    char head[64];
    int64_t i;

    if (!path || (!x && n > 0) || n < 0)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_write_vector: bad argument");
    for (i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return clcg_error(CLCG_ERR_INPUT, "%s: not written: x(%" PRId64 ") = %g is not "
                              "finite", path, i + 1, x[i]);
    CLCG_CALL(out_open(&o, path));
    snprintf(head, sizeof head, "%" PRId64 " 1\n", n);
    CLCG_CHECK(st, put_text(&o, "%%MatrixMarket matrix array real general\n"), done);
    CLCG_CHECK(st, put_text(&o, head), done);
    for (i = 0; i < n; i++) {
        char *p;
        CLCG_CHECK(st, out_room(&o), done);
        p = put_double(o.buf + o.len, x[i]);
        *p++ = '\n';
        o.len = (size_t)(p - o.buf);
    }
done:
    return out_close_held(&o, st, held);
}

clcg_status clcg_mm_write_csr(const char *path, const clcg_csr *a, int sym)
{
    return clcg_mm_write_csr_held(path, a, sym, NULL);
}

clcg_status clcg_mm_write_csr_held(const char *path, const clcg_csr *a, int sym, clcg_held *held)
{
    mm_out o;
    clcg_status st = CLCG_OK;
    char head[96];
    int64_t i, k, count = 0;

    if (!path || !a || (a->nrows > 0 && (!a->rowptr || (a->nnz > 0 && (!a->colind || !a->val)))))
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_write_csr: bad argument");
    if (a->row0 != 0 || a->nrows != a->n || a->ncols != a->n)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_write_csr: %s: needs the whole matrix on "
                          "one rank (n = %" PRId64 ", rows %" PRId64 " from %" PRId64 ", columns %"
                          PRId64 ")", path, a->n, a->nrows, a->row0, a->ncols);
    for (i = 0; i < a->nrows; i++)
        for (k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            if (!isfinite(a->val[k]))
                return clcg_error(CLCG_ERR_INPUT, "%s: not written: A(%" PRId64 ",%" PRId64
                                  ") = %g is not finite", path, i + 1,
                                  (int64_t)a->colind[k] + 1, a->val[k]);
            count += !sym || a->colind[k] <= i;
        }

    CLCG_CALL(out_open(&o, path));
    snprintf(head, sizeof head, "%%%%MatrixMarket matrix coordinate real %s\n",
             sym ? "symmetric" : "general");
    CLCG_CHECK(st, put_text(&o, head), done);
    snprintf(head, sizeof head, "%" PRId64 " %" PRId64 " %" PRId64 "\n", a->n, a->n, count);
    CLCG_CHECK(st, put_text(&o, head), done);
    for (i = 0; i < a->nrows; i++) {
        for (k = a->rowptr[i]; k < a->rowptr[i + 1]; k++) {
            char *p;
            if (sym && a->colind[k] > i)
                continue;
            CLCG_CHECK(st, out_room(&o), done);
            p = o.buf + o.len;
            p = put_u64(p, (uint64_t)i + 1);
            *p++ = ' ';
            p = put_u64(p, (uint64_t)a->colind[k] + 1);
            *p++ = ' ';
            p = put_double(p, a->val[k]);
            *p++ = '\n';
            o.len = (size_t)(p - o.buf);
        }
    }
done:
    return out_close_held(&o, st, held);
}
