/* Error protocol: one recorded user-facing message, status and outcome name tables; the
 * checked allocators. */
#define _GNU_SOURCE   /* madvise, sched_getaffinity */
#include "clcg.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <unistd.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* per thread: worker threads (the parallel parse) may fail on their own; the main thread
 * then redoes their work to report the failure itself */
#define MSG_MAX 2000   /* below the 2048 bytes of a message sent to rank 0 (agree.c) */
static _Thread_local char clcg_msg[4096];
static _Thread_local int clcg_msg_set;

static const char *const status_names[CLCG_ERR_COUNT] = {
    "CLCG_OK", "CLCG_ERR_USAGE", "CLCG_ERR_INPUT", "CLCG_ERR_NOT_SPD",
    "CLCG_ERR_MEMORY", "CLCG_ERR_IO", "CLCG_ERR_OPENCL", "CLCG_ERR_DEVICE",
    "CLCG_ERR_MPI", "CLCG_ERR_INTERNAL", "CLCG_ERR_PEER"};

static const char *const outcome_names[CLCG_OUTCOME_COUNT] = {
    "CONVERGED", "DIVERGED_ITS", "DIVERGED_INDEFINITE", "DIVERGED_NANORINF",
    "DIVERGED_BREAKDOWN", "DIVERGED_RESIDUAL_GAP", "DIVERGED_SINGULAR"};

static const char *const outcome_messages[CLCG_OUTCOME_COUNT] = {
    "converged",
    "iteration limit reached before the tolerance",
    "matrix is not positive definite (p'Ap <= 0)",
    "NaN or Inf in the iteration",
    "breakdown: preconditioned residual r'z <= 0 (preconditioner not positive definite)",
    "the iterates are wrong: the recurrences met --rtol, ||b-Ax|| did not follow",
    "the matrix is singular to double precision"};

const char *clcg_status_name(clcg_status s)
{
    return (s >= 0 && s < CLCG_ERR_COUNT) ? status_names[s] : "CLCG_ERR_UNKNOWN";
}

const char *clcg_outcome_name(clcg_outcome o)
{
    return (o >= 0 && o < CLCG_OUTCOME_COUNT) ? outcome_names[o] : "UNKNOWN";
}

const char *clcg_outcome_message(clcg_outcome o)
{
    return (o >= 0 && o < CLCG_OUTCOME_COUNT) ? outcome_messages[o] : "unknown outcome";
}

int clcg_exit_code_status(clcg_status s)
{
    switch (s) {
    case CLCG_OK: return CLCG_EXIT_CONVERGED;
    case CLCG_ERR_USAGE: return CLCG_EXIT_USAGE;
    case CLCG_ERR_INPUT:
    case CLCG_ERR_IO: return CLCG_EXIT_INPUT;
    case CLCG_ERR_NOT_SPD: return CLCG_EXIT_NOT_SPD;
    default: return CLCG_EXIT_RUNTIME;
    }
}

int clcg_exit_code_outcome(clcg_outcome o)
{
    switch (o) {
    case CLCG_CONVERGED: return CLCG_EXIT_CONVERGED;
    case CLCG_DIVERGED_ITS: return CLCG_EXIT_NOT_CONVERGED;
    default: return CLCG_EXIT_NOT_SPD;
    }
}

clcg_status clcg_error(clcg_status s, const char *fmt, ...)
{
    if (!clcg_msg_set) {        /* keep the first, innermost message */
        va_list ap, aq;
        va_start(ap, fmt);
        va_copy(aq, ap);
        const int len = vsnprintf(clcg_msg, sizeof clcg_msg, fmt, ap);
        va_end(ap);
        /* Too long (a path of thousands of characters in it, maybe twice): each word of more
         * than 240 characters is cut to its start and end, so that every word saying what is
         * wrong stays; should that not do, the start and the end of the message, with the
         * middle left out.  Within MSG_MAX, which the message keeps on its way to rank 0. */
        char *full = len >= MSG_MAX ? malloc((size_t)len + 1) : NULL;
        if (full) {
            vsnprintf(full, (size_t)len + 1, fmt, aq);
            char *cut = malloc((size_t)len + 1);
            size_t k = 0;
            for (const char *w = full; cut && *w;) {   /* the words, long ones cut */
                const size_t wl = strcspn(w, " ");
                if (wl > 240) {
                    memcpy(cut + k, w, 100);
                    memcpy(cut + k + 100, "...", 3);
                    memcpy(cut + k + 103, w + wl - 100, 100);
                    k += 203;
                } else {
                    memcpy(cut + k, w, wl);
                    k += wl;
                }
                w += wl;
                if (*w == ' ')
                    cut[k++] = *w++;
            }
            if (cut && k < MSG_MAX) {
                memcpy(clcg_msg, cut, k);
                clcg_msg[k] = '\0';
            } else {
                snprintf(clcg_msg, sizeof clcg_msg, "%.*s ... %s", MSG_MAX / 2 - 8, full, full + len - (MSG_MAX / 2 - 8));
            }
            free(cut);
            free(full);
        } else if (len >= MSG_MAX) {
            clcg_msg[MSG_MAX - 1] = '\0';
        }
        va_end(aq);
        /* one line, whatever a path or an argument held: a newline or another control
           character in it (a terminal's escape too) is shown as '?' */
        for (char *c = clcg_msg; *c; c++)
            if (((unsigned char)*c < 0x20 && *c != '\t') || *c == 0x7f)
                *c = '?';
        clcg_msg_set = 1;
    }
    return s;
}

const char *clcg_show_double(double v, char out[32])
{
    /* from 6 digits: %g drops trailing zeros, so this is no longer than needed, and 40
       stays 40 (at 1 digit, %g gives 4e+01, which reads back as 40 too) */
    for (int p = 6; p <= 17; p++) {
        snprintf(out, 32, "%.*g", p, v);
        if (strtod(out, NULL) == v || v != v)
            break;
    }
    return out;
}

const char *clcg_error_message(void)
{
    return clcg_msg_set ? clcg_msg : "";
}

void clcg_error_clear(void)
{
    clcg_msg_set = 0;
    clcg_msg[0] = '\0';
}

/* Testing aid: CLCG_FAULT=RANK:PHASE makes rank RANK fail at PHASE (load, device, solve),
 * so the tests can show that a fault on one rank ends every rank. */
int clcg_fault_armed(int rank, const char *phase)
{
    static const char *f;   /* read once: "halo" is asked at every exchange */
    static int read;
    char *colon;
    if (!read) {
        f = getenv("CLCG_FAULT");
        read = 1;
    }
    if (!f || !*f)
        return 0;
    long r = strtol(f, &colon, 10);
    return *colon == ':' && r == rank && !strcmp(colon + 1, phase);
}

clcg_status clcg_fault_point(int rank, const char *phase)
{
    if (clcg_fault_armed(rank, phase))
        return clcg_error(CLCG_ERR_DEVICE, "fault injected by CLCG_FAULT=%s", getenv("CLCG_FAULT"));
    return CLCG_OK;
}

void clcg_error_trace(const char *file, int line, const char *call, clcg_status s)
{
    static int trace = -1;
    if (trace < 0) {
        const char *e = getenv("CLCG_TRACE");
        trace = e && *e && strcmp(e, "0") != 0;
    }
    if (trace)
        fprintf(stderr, "%s:%d: %s -> %s\n", file, line, call, clcg_status_name(s));
}

static clcg_status size_check(size_t count, size_t size, const char *what)
{
    if (size && count > SIZE_MAX / size)
        return clcg_error(CLCG_ERR_MEMORY, "cannot allocate %s: %zu x %zu bytes overflows",
                          what, count, size);
    return CLCG_OK;
}

/* Large blocks (a matrix's entries: gigabytes) are first touched page by page; asking for
 * transparent huge pages turns 512 page faults into one (where the system grants them on
 * request, as with the common "madvise" setting).  Only a hint: failure changes nothing. */
#define BIG_BLOCK ((size_t)8 << 20)
static void big_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p && bytes >= BIG_BLOCK) {
        const uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)p;
        const uintptr_t lo = (a + pg - 1) / pg * pg, hi = (a + bytes) / pg * pg;
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

/* The first touch of fresh memory makes the system clear it, page by page, on one core:
 * on the virtual machines we measured that costs about 3 s per GB, more than parsing the
 * matrix.  A new block of PREFAULT_MIN bytes or more is therefore touched once by as many
 * threads as this process may run on (its CPU affinity; one under an mpirun that binds each
 * rank to a core), so the clearing runs in parallel. */
#define PREFAULT_MIN ((size_t)64 << 20)
#define MAX_THREADS 32

typedef struct {
    void (*fn)(void *, int64_t, int64_t);
    void *ctx;
    int64_t lo, hi;
} range_job;

static void *run_range(void *arg)
{
    range_job *j = arg;
    j->fn(j->ctx, j->lo, j->hi);
    return NULL;
}

/* slot 0: the file being written; 1 and 2: files written, whose renames wait for the others;
 * 3 to 6: files a peer (rank 0) writes (clcg_tmp_peer) */
#define NSLOTS 7
#define PEER0 3
static char tmp_path[NSLOTS][4096];
static volatile sig_atomic_t tmp_set[NSLOTS];
static long tmp_pid0;

/* The signals whose default ends the process and that a job may be sent (scancel, a time
 * limit, SLURM's --signal without B:, a CPU or file size limit).  All are taken before
 * MPI_Init, where they would end the process, so that they lie beneath any handler a library
 * installs there (tmp_remove): one that ends the process by putting back the handler before
 * it and raising the signal again (PoCL's LLVM does so for SIGUSR2) comes to ours, and one
 * that lets the process go on (an OpenCL runtime's SIGUSR1) keeps the file being written, as
 * it must.  The first NALWAYS are also taken over the libraries' handlers after MPI_Init and
 * whenever a file is written (tmp_remove_top, which passes the signal on to the handler it
 * found): those end the process.  A library that handles another signal, goes on, and puts
 * back what it found beneath itself (PoCL's LLVM, sent SIGQUIT) leaves them to the handler
 * beneath, which still removes the file.  Two handlers, so that each passes the signal on to
 * the one it was put over: the one beneath to what the program started with, the one on top
 * to the library's.  Once taken they stay: with no temporary file, ours does what was there
 * before. */
static const int guarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ,
                              SIGPIPE};   /* the last: standard output's reader gone (| head) */
#define NGUARDED ((int)(sizeof guarded / sizeof guarded[0]))
#define NALWAYS 3
static struct sigaction before_top[NGUARDED];   /* on top: the library's handler it was put over */
static int ignored[NGUARDED];   /* ignored when the program started (a background job's SIGINT) */

static volatile sig_atomic_t top_passes[NGUARDED];

int clcg_env_on(const char *name)
{
    const char *e = getenv(name);
    return e && *e && strcmp(e, "0") != 0;
}

static void tmp_remove_as(int sig, int top)
{
    const int saved = errno;   /* should the handler before ours return */
    for (int k = 0; k < NSLOTS; k++)
        if (tmp_set[k]) {
            atomic_thread_fence(memory_order_acquire);   /* the name that the flag stands for */
            unlink(tmp_path[k]);
        }
    for (int i = 0; i < NGUARDED; i++) {
        if (guarded[i] != sig)
            continue;
        /* on top, once: the library's handler, which may come back to ours (a handler of ours
           that it was put over since); then, or beneath (taken only over the default), the
           default */
        if (top && top_passes[i]++ == 0) {
            sigaction(sig, &before_top[i], NULL);
        } else {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof dfl);
            dfl.sa_handler = SIG_DFL;
            sigaction(sig, &dfl, NULL);
        }
    }
    raise(sig);   /* pending until this handler returns, then to what was there before */
    errno = saved;
}

static void tmp_remove(int sig)
{
    tmp_remove_as(sig, 0);
}

static void tmp_remove_top(int sig)
{
    tmp_remove_as(sig, 1);
}

static void install(int i, void (*fn)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(guarded[i], &sa, NULL);
}

/* beneath (what is there is the start's default) or, for the first NALWAYS, on top */
static void take(int i, int top)
{
    struct sigaction cur;
    if (ignored[i] || sigaction(guarded[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN)
        return;
    if (!(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == tmp_remove || cur.sa_handler == tmp_remove_top))
        return;   /* ours is what the signal reaches first */
    if (top && i < NALWAYS) {
        before_top[i] = cur;
        install(i, tmp_remove_top);
    } else if (cur.sa_handler == SIG_DFL && !(cur.sa_flags & SA_SIGINFO)) {
        install(i, tmp_remove);
    }
}

void clcg_tmp_ignored(void)
{
    /* a write past the file-size limit (ulimit -f) fails with EFBIG and is reported as any
       write error, its file removed, rather than ending the process without a word */
    signal(SIGXFSZ, SIG_IGN);
    for (int i = 0; i < NGUARDED; i++) {
        struct sigaction sa;
        ignored[i] = sigaction(guarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
    }
    for (int i = 0; i < NGUARDED; i++)   /* beneath what MPI_Init's libraries install */
        take(i, 0);
}

void clcg_tmp_guard(void)
{
    for (int i = 0; i < NGUARDED; i++)
        /* ignored from the start but taken over since (the OpenCL runtime's LLVM, loaded
           inside MPI_Init, installs handlers that end the process): ignored again */
        if (ignored[i])
            signal(guarded[i], SIG_IGN);
    for (int i = 0; i < NALWAYS; i++)
        take(i, 1);
}

static void tmp_slot(int k, const char *path)
{
    /* fences of the processor, not only the compiler's: the handler may run on another
       thread (an MPI or OpenCL one) of a weakly ordered machine */
    tmp_set[k] = 0;
    atomic_thread_fence(memory_order_seq_cst);   /* the flag off before the name changes */
    if (path && strlen(path) < sizeof tmp_path[k]) {
        memcpy(tmp_path[k], path, strlen(path) + 1);
        atomic_thread_fence(memory_order_release);   /* the name before the flag */
        tmp_set[k] = 1;
    }
    int any = 0;
    for (int j = 0; j < NSLOTS; j++)
        any |= tmp_set[j] != 0;
    if (any)
        for (int i = 0; i < NGUARDED; i++)   /* as they stand now */
            take(i, 1);
}

void clcg_tmp_file(const char *path)
{
    tmp_slot(0, path);
}

int clcg_tmp_hold(const char *path)
{
    for (int k = 1; k < PEER0; k++)
        if (!tmp_set[k]) {
            tmp_slot(k, path);
            return tmp_set[k] ? k : 0;
        }
    return 0;
}

void clcg_tmp_release(int slot)
{
    if (slot > 0 && slot < PEER0)
        tmp_slot(slot, NULL);
}

void clcg_tmp_set_pid0(long pid)
{
    tmp_pid0 = pid;
}

long clcg_tmp_pid0(void)
{
    return tmp_pid0;
}

void clcg_tmp_peer(const char *path)
{
    for (int k = PEER0; k < NSLOTS && path; k++) {
        if (tmp_set[k] && !strcmp(tmp_path[k], path))
            return;
        if (!tmp_set[k]) {
            tmp_slot(k, path);
            return;
        }
    }
}

static int sharers = 1;   /* processes of this job on this node */

void clcg_threads_share(int n)
{
    sharers = n > 1 ? n : 1;
}

void clcg_parallel_for(int64_t n, void (*fn)(void *ctx, int64_t lo, int64_t hi), void *ctx)
{
    cpu_set_t set;
    int nt = 1;
    pthread_t th[MAX_THREADS];
    range_job job[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    if (n <= 0)
        return;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        nt = CPU_COUNT(&set);
    if (sharers > 1 && nt >= sysconf(_SC_NPROCESSORS_ONLN))   /* not bound: a fair share */
        nt = nt / sharers > 1 ? nt / sharers : 1;
    if (nt > MAX_THREADS)
        nt = MAX_THREADS;
    if ((int64_t)nt > n)
        nt = (int)n;
    if (nt < 2) {
        fn(ctx, 0, n);
        return;
    }
    for (int t = 0; t < nt; t++) {
        job[t] = (range_job){fn, ctx, n * t / nt, n * (t + 1) / nt};
        if (t > 0)
            started[t] = pthread_create(&th[t], NULL, run_range, &job[t]) == 0;
    }
    run_range(&job[0]);
    for (int t = 1; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            run_range(&job[t]);   /* no thread: done here */
    }
}

/* A number of bytes from the first line of a file ("max" and the like: -1). */
static double file_bytes(const char *path)
{
    FILE *f = fopen(path, "r");
    double v = -1;
    char line[64];
    if (f) {
        if (fgets(line, sizeof line, f) && line[0] >= '0' && line[0] <= '9')
            v = strtod(line, NULL);
        fclose(f);
    }
    return v;
}

/* The value of `key` in a memory.stat file, or 0. */
static double stat_field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[256], k[64];
    double v, out = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%63s %lf", k, &v) == 2 && !strcmp(k, key))
            out = v;
    fclose(f);
    return out;
}

/* What the memory cgroups of this process leave it, in bytes (-1: no limit seen): from its
 * own group up to the root, the least of limit - (usage - page cache, which the system
 * reclaims), cgroup v2 or the v1 memory controller. */
static double cgroup_room(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[600], path[2][512] = {"", ""};
    double room = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        line[strcspn(line, "\n")] = 0;
        *c2 = 0;
        if (!strcmp(line, "0") && c1[1] == 0)                       /* 0::/path (v2) */
            snprintf(path[0], sizeof path[0], "%s", c2 + 1);
        else if (strstr(c1 + 1, "memory"))                          /* N:...memory...:/path (v1) */
            snprintf(path[1], sizeof path[1], "%s", c2 + 1);
    }
    fclose(f);
    for (int v = 0; v < 2; v++) {
        char *p = path[v];
        if (!p[0])
            continue;
        for (;;) {
            char d[1100], fmax[1200], fcur[1200], fstat[1200];
            snprintf(d, sizeof d, "/sys/fs/cgroup%s%s", v ? "/memory" : "", strcmp(p, "/") ? p : "");
            snprintf(fmax, sizeof fmax, "%s/%s", d, v ? "memory.limit_in_bytes" : "memory.max");
            snprintf(fcur, sizeof fcur, "%s/%s", d, v ? "memory.usage_in_bytes" : "memory.current");
            snprintf(fstat, sizeof fstat, "%s/memory.stat", d);
            const double max = file_bytes(fmax), cur = file_bytes(fcur);
            if (max >= 0 && max < 1e18 && cur >= 0) {   /* v1 says "no limit" with about 2^63 */
                double used = cur - stat_field(fstat, v ? "total_cache" : "file"), r;
                r = max - (used > 0 ? used : 0);
                if (room < 0 || r < room)
                    room = r > 0 ? r : 0;
            }
            char *slash = strrchr(p, '/');
            if (!slash || slash == p) {
                if (!strcmp(p, "/") || !p[0])
                    break;
                p[1] = 0;   /* up to the root itself */
                p[0] = '/';
                continue;
            }
            *slash = 0;
        }
    }
    return room;
}

/* What this node can still give, in bytes, or -1 when unknown.  CLCG_MEM_AVAILABLE=BYTES
 * stands in for it (tests: the checks below without filling the machine). */
static double node_memory(void)
{
    {
        const char *e = getenv("CLCG_MEM_AVAILABLE");
        char *end;
        const double v = e && *e ? strtod(e, &end) : -1.0;
        if (v >= 0 && !*end)
            return v;
    }
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double avail = -1, swap = 0;
    long long v;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %lld kB", &v) == 1)
            avail = (double)v * 1024;
        else if (sscanf(line, "SwapFree: %lld kB", &v) == 1)
            swap = (double)v * 1024;
    }
    fclose(f);
    if (avail < 0)
        return -1;
    avail += swap;
    /* a job's cgroup limits, as under SLURM's --mem */
    {
        const double room = cgroup_room();
        if (room >= 0 && room < avail)
            avail = room;
    }
    return avail;
}

/* bytes as "12.3 GB", "456 MB" under a gigabyte, "789 kB" under a megabyte, "12 bytes" */
static const char *size_text(double bytes, char *buf, size_t len)
{
    if (bytes < 1e3)
        snprintf(buf, len, "%.0f byte%s", bytes, bytes == 1 ? "" : "s");
    else if (bytes < 1e6)
        snprintf(buf, len, "%.0f kB", bytes / 1e3);
    else if (bytes < 1e9)
        snprintf(buf, len, "%.0f MB", bytes / 1e6);
    else
        snprintf(buf, len, "%.1f GB", bytes / 1e9);
    return buf;
}

clcg_status clcg_memory_check(double total, int nranks, const char *what)
{
    return clcg_memory_check_advice(total, nranks, what, "use more nodes");
}

clcg_status clcg_memory_check_advice(double total, int nranks, const char *what, const char *advice)
{
    const double avail = node_memory();
    const int here = sharers < nranks ? sharers : nranks;
    const double need = total * here / (nranks > 0 ? nranks : 1);
    char a[32], b[32];
    if (avail >= 0 && need > avail)
        return clcg_error(CLCG_ERR_MEMORY, "%s needs at least %s of host memory on this node "
                          "(%d of %d rank%s here), but it has %s available: %s",
                          what, size_text(need, a, sizeof a), here, nranks, nranks == 1 ? "" : "s",
                          size_text(avail, b, sizeof b), advice);
    return CLCG_OK;
}

double clcg_host_share(void)
{
    const double avail = node_memory();
    return avail < 0 ? -1.0 : avail / sharers;
}

clcg_status clcg_rows_fit(int64_t n, int nranks, const char *what)
{
    if ((n + nranks - 1) / nranks > INT32_MAX - 1)   /* the largest even share */
        return clcg_error(CLCG_ERR_USAGE, "%s: %" PRId64 " rows are too many for %d rank%s (at most %d a "
                          "rank); use more ranks", what, n, nranks, nranks == 1 ? "" : "s", INT32_MAX - 1);
    return CLCG_OK;
}

typedef struct {
    volatile char *p;
    size_t bytes, page;
} touch_ctx;

static void touch(void *arg, int64_t lo, int64_t hi)
{
    const touch_ctx *c = arg;
    for (int64_t pg = lo; pg < hi; pg++)
        c->p[(size_t)pg * c->page] = 0;
}

/* p: a new block whose contents are undefined or zero (writing zeros changes nothing) */
static void prefault(void *p, size_t bytes)
{
    if (!p || bytes < PREFAULT_MIN)
        return;
    touch_ctx c = {p, bytes, (size_t)sysconf(_SC_PAGESIZE)};
    clcg_parallel_for((int64_t)((bytes + c.page - 1) / c.page), touch, &c);
}

clcg_status clcg_malloc(void *pptr, size_t count, size_t size, const char *what)
{
    void **p = (void **)pptr;
    CLCG_CALL(size_check(count, size, what));
    size_t bytes = count * size;
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        return clcg_error(CLCG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes)",
                          what, bytes);
    big_pages(*p, bytes);
    prefault(*p, bytes);
    return CLCG_OK;
}

clcg_status clcg_calloc(void *pptr, size_t count, size_t size, const char *what)
{
    void **p = (void **)pptr;
    CLCG_CALL(size_check(count, size, what));
    *p = calloc(count ? count : 1, size ? size : 1);
    if (!*p)
        return clcg_error(CLCG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes)",
                          what, count * size);
    big_pages(*p, count * size);
    prefault(*p, count * size);
    return CLCG_OK;
}

clcg_status clcg_realloc(void *pptr, size_t count, size_t size, const char *what)
{
    void **p = (void **)pptr;
    CLCG_CALL(size_check(count, size, what));
    size_t bytes = count * size;
    void *q = realloc(*p, bytes ? bytes : 1);
    if (!q)
        return clcg_error(CLCG_ERR_MEMORY, "out of host memory growing %s (%zu bytes)",
                          what, bytes);
    *p = q;
    big_pages(q, bytes);
    return CLCG_OK;
}
