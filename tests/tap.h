/* Minimal TAP producer for the C tests (Automake TAP driver reads stdout). */
#ifndef CLCG_TAP_H
#define CLCG_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

static void tap_ok(int cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), unused))
#endif
    ;
static void tap_ok(int cond, const char *fmt, ...)
{
    va_list ap;
    tap_count++;
    if (!cond)
        tap_failed++;
    printf("%sok %d - ", cond ? "" : "not ", tap_count);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

#if defined(__GNUC__)
__attribute__((unused))
#endif
static void tap_skip_all(const char *why)
{
    printf("1..0 # SKIP %s\n", why);
    fflush(stdout);
}

#if defined(__GNUC__)
__attribute__((unused))
#endif
static void tap_diag(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* Print the plan last; returns the exit status for main(). */
#if defined(__GNUC__)
__attribute__((unused))
#endif
static int tap_done(void)
{
    printf("1..%d\n", tap_count);
    fflush(stdout);
    return 0;   /* failures are reported through "not ok" lines */
}

#endif
