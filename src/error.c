/* Error protocol: one recorded user-facing message, status and outcome name tables. */
#include "clcg.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static char clcg_msg[4096];
static int clcg_msg_set;

static const char *const status_names[CLCG_ERR_COUNT] = {
    "CLCG_OK", "CLCG_ERR_USAGE", "CLCG_ERR_INPUT", "CLCG_ERR_NOT_SPD",
    "CLCG_ERR_MEMORY", "CLCG_ERR_IO", "CLCG_ERR_OPENCL", "CLCG_ERR_DEVICE",
    "CLCG_ERR_MPI", "CLCG_ERR_INTERNAL", "CLCG_ERR_PEER"};

static const char *const outcome_names[CLCG_OUTCOME_COUNT] = {
    "CONVERGED", "DIVERGED_ITS", "DIVERGED_INDEFINITE", "DIVERGED_NANORINF",
    "DIVERGED_BREAKDOWN"};

static const char *const outcome_messages[CLCG_OUTCOME_COUNT] = {
    "converged",
    "iteration limit reached before the tolerance",
    "matrix is not positive definite (p'Ap <= 0)",
    "NaN or Inf in the iteration",
    "breakdown: preconditioned residual r'z <= 0 (preconditioner not positive definite)"};

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
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(clcg_msg, sizeof clcg_msg, fmt, ap);
        va_end(ap);
        clcg_msg_set = 1;
    }
    return s;
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
clcg_status clcg_fault_point(int rank, const char *phase)
{
    const char *f = getenv("CLCG_FAULT");
    char *colon;
    if (!f || !*f)
        return CLCG_OK;
    long r = strtol(f, &colon, 10);
    if (*colon == ':' && r == rank && !strcmp(colon + 1, phase))
        return clcg_error(CLCG_ERR_DEVICE, "fault injected by CLCG_FAULT=%s", f);
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

clcg_status clcg_malloc(void *pptr, size_t count, size_t size, const char *what)
{
    void **p = (void **)pptr;
    CLCG_CALL(size_check(count, size, what));
    size_t bytes = count * size;
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        return clcg_error(CLCG_ERR_MEMORY, "out of host memory allocating %s (%zu bytes)",
                          what, bytes);
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
    return CLCG_OK;
}
