/* Matrix Market reader: banner, size line and entries, in one pass over large blocks.
 *
 * The file (plain or gzip, told apart by zlib from the magic bytes) is read in
 * blocks (16 MiB by default); the complete lines of a block are parsed, and a
 * partial last line is carried over to the next block.  Indices are parsed by
 * hand; values by a correctly rounded fast path (at most 19 significant digits,
 * mantissa below 2^53, decimal exponent within +-22: one exact product or
 * quotient, hence one rounding), on x86-64 a second one for the other mantissas
 * below 2^64 and exponents within +-27 (through the 64-bit x87 significand, see
 * wide_value), and strtod for everything else. */
#include "mm.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define MM_BLOCK_DEFAULT ((size_t)16 << 20)
#define MM_GZ_RATIO 1032             /* deflate never expands data more than this */
#define MM_SHOW 40                   /* characters of a bad field quoted in messages */

enum { MM_MATRIX, MM_VECTOR };       /* what a file is read as */

static size_t mm_block = MM_BLOCK_DEFAULT;  /* bytes read at a time; also the longest line */

size_t clcg_mm_set_block_size(size_t bytes)
{
    size_t old = mm_block;
    mm_block = bytes < 64 ? 64 : bytes;
    return old;
}

/* ---- characters ---- */

static int is_blank(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int is_binary(int c)
{
    unsigned char u = (unsigned char)c;
    return (u < 0x20 && !is_blank(u) && u != '\n') || u == 0x7f;
}

#define IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)
#define FIELD_END(p, end) ((p) >= (end) || *(p) == '\n' || is_blank(*(p)))

/* Printable copy of the field at p (at most MM_SHOW characters) for messages. */
static const char *show_field(const char *p, const char *end, char out[MM_SHOW + 4])
{
    size_t k = 0;
    while (!FIELD_END(p, end) && k < MM_SHOW) {
        unsigned char c = (unsigned char)*p++;
        out[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (!FIELD_END(p, end)) {
        memcpy(out + k, "...", 3);
        k += 3;
    }
    out[k] = '\0';
    return out;
}

int clcg_mm_binary_byte(int c)
{
    return is_binary(c);
}

/* The first binary byte of the field at p, or -1. */
static int field_binary(const char *p, const char *end)
{
    for (; p < end && *p != '\n' && !is_blank(*p); p++)
        if (is_binary(*p))
            return (unsigned char)*p;
    return -1;
}

static clcg_status binary_error(const char *path, int64_t line, int byte)
{
    if (byte == 0x1a)   /* Ctrl-Z: how DOS and CP/M marked the end of a text file */
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": a Ctrl-Z byte (0x1a), the end-of-file mark of DOS "
                          "text files: remove it (Matrix Market text has none)", path, line);
    return clcg_error(CLCG_ERR_INPUT,
                      "%s:%" PRId64 ": binary data (byte 0x%02x): this is not a text "
                      "Matrix Market file", path, line, byte);
}

clcg_status clcg_mm_binary_error(const char *path, int64_t line, int byte)
{
    return binary_error(path, line, byte);
}

int64_t clcg_mm_count_newlines(const char *b, size_t len)
{
    int64_t c = 0;
    const char *end = b + len;
    while (b < end && (b = memchr(b, '\n', (size_t)(end - b))) != NULL) {
        c++;
        b++;
    }
    return c;
}

/* ---- numbers ---- */

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

enum { NUM_OK, NUM_BAD, NUM_NOT_INT, NUM_NAN, NUM_INF, NUM_OVERFLOW, NUM_UNDERFLOW, NUM_MEMORY };

#if defined(__GNUC__)
#define MM_NOINLINE __attribute__((noinline))
#else
#define MM_NOINLINE
#endif

static int scan_value_slow(const char **pp, const char *end, int integer, int any,
                           double *v) MM_NOINLINE;

#if defined(__x86_64__) && defined(__GNUC__) && LDBL_MANT_DIG == 64
#define MM_WIDE 1
static const long double pow10_wide[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* x = m * 10^e10 correctly rounded, for m < 2^64 and |e10| <= 27 (5^27 < 2^64, so
 * 10^e10 is exact in a 64-bit significand, as m is): the product or quotient is
 * rounded once to the 64 bits of the x87 unit, then to the 53 of a double.  Rounding
 * twice gives the correctly rounded result except when the first rounding lands
 * exactly on a midpoint between two doubles (a double midpoint that lay strictly
 * between the exact value and the first result would have been nearer to the exact
 * value).  Returns 0 in that case (low 11 bits 10000000000), and when the x87 unit
 * rounds to fewer than 64 bits (its precision control lowered): strtod decides. */
static int wide_value(uint64_t m, int e10, double *x) MM_NOINLINE;
static int wide_value(uint64_t m, int e10, double *x)
{
    volatile long double big = 9223372036854775808.0L, one = 1.0L;   /* 2^63 */
    long double r;
    uint64_t sig;

    if ((big + one) - big != one)
        return 0;
    r = (long double)m;
    r = e10 < 0 ? r / pow10_wide[-e10] : r * pow10_wide[e10];
    memcpy(&sig, &r, sizeof sig);       /* x87 layout: the 64-bit significand first */
    if ((sig & 0x7ff) == 0x400)
        return 0;
    *x = (double)r;
    return 1;
}
#endif

/* Parse the number field at *pp; on NUM_OK *pp points after it.  integer:
 * only [+-]digits is accepted.  The common forms take the exact fast path. */
static inline int scan_value(const char **pp, const char *end, int integer, double *v)
{
    const char *s = *pp, *p = s;
    int neg = 0, any = 0, slow = 0, nd = 0, e10 = 0;
    uint64_t m = 0;

    if (p < end && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    for (; p < end && IS_DIGIT(*p); p++) {
        any = 1;
        if (nd < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            nd += m != 0;
        } else {
            slow = 1;
        }
    }
    if (p < end && *p == '.') {
        if (integer)
            return NUM_NOT_INT;
        for (p++; p < end && IS_DIGIT(*p); p++) {
            any = 1;
            if (nd < 19 && e10 > -100000) {
                m = m * 10 + (uint64_t)(*p - '0');
                nd += m != 0;
                e10--;
            } else {
                slow = 1;
            }
        }
    }
    if (any && p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, ex = 0;
        const char *q = p + 1;
        if (integer)
            return NUM_NOT_INT;
        if (q < end && (*q == '-' || *q == '+'))
            eneg = *q++ == '-';
        if (q >= end || !IS_DIGIT(*q))
            return NUM_BAD;
        for (; q < end && IS_DIGIT(*q); q++)   /* a longer exponent: strtod decides */
            if (ex < 100000)
                ex = ex * 10 + (*q - '0');
            else
                slow = 1;
        e10 += eneg ? -ex : ex;
        p = q;
    }
    if (any && !slow && FIELD_END(p, end)) {
        if (m == 0) {
            *v = neg ? -0.0 : 0.0;
            *pp = p;
            return NUM_OK;
        }
        if (m <= ((uint64_t)1 << 53) && e10 >= -22 && e10 <= 22) {
            double x = (double)m;
            x = e10 < 0 ? x / pow10_exact[-e10] : x * pow10_exact[e10];
            *v = neg ? -x : x;
            *pp = p;
            return NUM_OK;
        }
#ifdef MM_WIDE
        if (e10 >= -27 && e10 <= 27) {
            double x;
            if (wide_value(m, e10, &x)) {
                *v = neg ? -x : x;
                *pp = p;
                return NUM_OK;
            }
        }
#endif
    }

    return scan_value_slow(pp, end, integer, any, v);
}

/* strtod on a NUL-terminated copy of the whole field at *pp.  any: the fast
 * path saw digits. */
static int scan_value_slow(const char **pp, const char *end, int integer, int any, double *v)
{
    const char *s = *pp, *t = s;
    char small[128], *tmp = small, *stop;
    size_t len;
    double x;
    int r = NUM_OK;

    while (!FIELD_END(t, end))
        t++;
    len = (size_t)(t - s);
    if (len == 0)
        return NUM_BAD;
    if (integer) {
        const char *q = s + (*s == '-' || *s == '+');
        if (q == t)
            return NUM_BAD;
        for (; q < t; q++)
            if (!IS_DIGIT(*q))
                return (*q == '.' || *q == 'e' || *q == 'E') && any ? NUM_NOT_INT : NUM_BAD;
    }
    if (len >= sizeof small) {
        tmp = malloc(len + 1);
        if (!tmp)
            return NUM_MEMORY;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    x = strtod(tmp, &stop);
    if (stop != tmp + len)
        r = NUM_BAD;
    else if (isnan(x))
        r = NUM_NAN;
    else if (isinf(x))
        r = errno == ERANGE ? NUM_OVERFLOW : NUM_INF;
    else if (x == 0.0 && errno == ERANGE)
        r = NUM_UNDERFLOW;  /* nonzero, yet below the least double: 0 would change the matrix */
    if (tmp != small)
        free(tmp);
    if (r == NUM_OK) {
        *v = x;
        *pp = t;
    }
    return r;
}

/* The run of decimal digits at p: its value in *x (unless it overflows: *ovf set, *x then
 * meaningless); returns the end of the run.  Indices take eight digits at a time where
 * eight bytes can be read: the first byte that is not a digit is found, and the digits
 * before it converted, with a few 64-bit operations (little-endian machines). */
static inline const char *scan_index(const char *p, const char *end, uint64_t *x, int *ovf)
{
    uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && defined(__GNUC__)
    if (end - p >= 8) {
        uint64_t w, nd;
        int n;
        memcpy(&w, p, 8);
        w ^= 0x3030303030303030ull;               /* digit bytes become 0..9 */
        /* high bit of each byte that is not 0..9 (a carry out of such a byte can only
           mark bytes after it, which do not count) */
        nd = ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
        n = nd ? __builtin_ctzll(nd) / 8 : 8;
        if (n > 0) {
            w <<= 8 * (8 - n);                      /* the n digits, after leading zeros */
            w = (w * 2561) >> 8 & 0x00ff00ff00ff00ffull;
            w = (w * 6553601) >> 16 & 0x0000ffff0000ffffull;
            v = (w * 42949672960001ull) >> 32 & 0xffffffffull;
        }
        p += n;
        if (n < 8) {
            *x = v;
            return p;
        }
    }
#endif
    for (; p < end && IS_DIGIT(*p); p++) {
        if (v > (UINT64_MAX - 9) / 10)
            *ovf = 1;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    }
    *x = v;
    return p;
}

static clcg_status value_error(const char *path, int64_t line, int r, const char *p,
                               const char *end)
{
    char tok[MM_SHOW + 4];
    int b = field_binary(p, end);
    if (b >= 0)
        return binary_error(path, line, b);
    show_field(p, end, tok);
    switch (r) {
    case NUM_NOT_INT:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' is not an integer "
                          "(the banner says integer)", path, line, tok);
    case NUM_NAN:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' is NaN", path, line, tok);
    case NUM_INF:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' is infinite", path, line,
                          tok);
    case NUM_OVERFLOW:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' overflows a double",
                          path, line, tok);
    case NUM_UNDERFLOW:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' underflows a double (nonzero, "
                          "below 4.9e-324)", path, line, tok);
    case NUM_MEMORY:
        return clcg_error(CLCG_ERR_MEMORY, "%s:%" PRId64 ": out of host memory copying a "
                          "value", path, line);
    default:
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": value '%s' is not a number", path,
                          line, tok);
    }
}

/* Message for an index field at p that is not an integer in 1..max. */
static clcg_status index_error(const char *path, int64_t line, const char *what, const char *p,
                               const char *end, int64_t max, const char *expect)
{
    char tok[MM_SHOW + 4];
    const char *q = p + (p < end && *p == '-');
    int b;

    if (p >= end || *p == '\n')
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": too few fields: expected '%s'",
                          path, line, expect);
    b = field_binary(p, end);
    if (b >= 0)
        return binary_error(path, line, b);
    show_field(p, end, tok);
    if (q < end && IS_DIGIT(*q)) {
        while (q < end && IS_DIGIT(*q))
            q++;
        if (FIELD_END(q, end)) {
            int zero = 1;
            for (q = p + (*p == '-'); q < end && IS_DIGIT(*q); q++)
                zero &= *q == '0';
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": %s index %s is out of range "
                              "1..%" PRId64 "%s", path, line, what, tok, max,
                              (zero || *p == '-') ? ": entries are 1-based" : "");
        }
    }
    return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": %s index '%s' is not a positive "
                      "integer", path, line, what, tok);
}

/* ---- entries ---- */

static void array_position(const clcg_mm_header *h, int64_t k, int64_t *i, int64_t *j)
{
    if (h->type[3] == 'S') {
        int64_t c = 0;
        while (c < h->ncols && k >= h->nrows - c) {
            k -= h->nrows - c;
            c++;
        }
        *j = c;
        *i = c + k;
    } else {
        *j = k / h->nrows;
        *i = k % h->nrows;
    }
}

/* Room for one more triplet, growing geometrically but not past the declared
 * number of entries. */
static clcg_status coo_room(clcg_coo *a, int64_t declared)
{
    int64_t cap = a->cap < 512 ? 1024 : 2 * a->cap;
    if (a->len < declared && cap > declared)
        cap = declared;
    if (cap <= a->len)
        cap = a->len + 1;
    return clcg_coo_reserve(a, cap);
}

static clcg_status parse_entries(const char *path, const clcg_mm_header *h, const char *buf,
                                 size_t len, int64_t first_line, clcg_coo *out,
                                 int64_t *count, int64_t *next_line)
{
    const char *p = buf, *end = buf + len;
    const int coord = h->type[1] == 'C', pattern = h->type[2] == 'P';
    const int integer = h->type[2] == 'I', sym = h->type[3] == 'S';
    const int64_t nr = h->nrows, nc = h->ncols, ne = h->nentries;
    const char *expect = !coord ? "value" : pattern ? "row column" : "row column value";
    int64_t line = first_line, k = *count, ai = 0, aj = 0;
    clcg_status st = CLCG_OK;

    if (!coord && k < ne)
        array_position(h, k, &ai, &aj);

    while (p < end) {
        int64_t i, j;
        double v = 1.0;
        int r;

        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        if (*p == '\n') {
            p++;
            line++;
            continue;
        }
        if (*p == '%') {   /* a comment: any text, but a NUL byte is no text */
            const char *c = p;
            p = memchr(p, '\n', (size_t)(end - p));
            if (memchr(c, '\0', (size_t)((p ? p : end) - c)))
                return binary_error(path, line, 0);
            if (!p) {
                p = end;
                break;
            }
            p++;
            line++;
            continue;
        }
        if (k >= ne) {
            int b = field_binary(p, end);
            if (b >= 0)
                return binary_error(path, line, b);
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": more entries than the %" PRId64
                              " %s (line %" PRId64 ")", path, line, ne,
                              coord ? "declared on the size line" : "that the size line's array holds",
                              h->data_line - 1);
        }

        if (coord) {
            uint64_t x;
            const char *f = p;
            int ovf = 0;
            p += p + 1 < end && *p == '+' && IS_DIGIT(p[1]);   /* "+1", as C's scanf reads it */
            p = scan_index(p, end, &x, &ovf);
            if (p == f || !FIELD_END(p, end) || ovf || x == 0 || x > (uint64_t)nr)
                return index_error(path, line, "row", f, end, nr, expect);
            i = (int64_t)x - 1;
            while (p < end && is_blank(*p))
                p++;
            f = p;
            p += p + 1 < end && *p == '+' && IS_DIGIT(p[1]);
            p = scan_index(p, end, &x, &ovf);
            if (p == f || !FIELD_END(p, end) || ovf || x == 0 || x > (uint64_t)nc)
                return index_error(path, line, "column", f, end, nc, expect);
            j = (int64_t)x - 1;
            if (!pattern) {
                while (p < end && is_blank(*p))
                    p++;
                if (p >= end || *p == '\n')
                    return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": too few fields: "
                                      "expected '%s'", path, line, expect);
                f = p;
                r = scan_value(&p, end, integer, &v);
                if (r != NUM_OK)
                    return value_error(path, line, r, f, end);
            }
            if (sym && j > i) {
                int64_t t = i;
                i = j;
                j = t;
                out->line_above = out->line_above ? out->line_above : line;
            } else if (sym && j < i) {
                out->line_below = out->line_below ? out->line_below : line;
            }
        } else {
            const char *f = p;
            r = scan_value(&p, end, integer, &v);
            if (r != NUM_OK)
                return value_error(path, line, r, f, end);
            i = ai;
            j = aj;
            if (++ai == nr) {
                aj++;
                ai = sym ? aj : 0;
            }
        }

        const char *gap = p;
        while (p < end && is_blank(*p))
            p++;
        if (p < end && *p != '\n') {
            char tok[MM_SHOW + 4];
            int b = field_binary(p, end);
            if (b >= 0)
                return binary_error(path, line, b);
            if (memchr(gap, '\r', (size_t)(p - gap)))   /* a line end of CR alone, mid-file */
                return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": a carriage return inside the line, "
                                  "before '%s': lines must end in a newline (LF or CR LF), not CR alone",
                                  path, line, show_field(p, end, tok));
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": trailing junk '%s' after the "
                              "entry (expected '%s')", path, line, show_field(p, end, tok),
                              expect);
        }
        k++;
        if (coord || v != 0.0 || signbit(v) || i == j) {   /* arrays: +0 left out, but on the diagonal */
            if (out->len == out->cap) {
                st = coo_room(out, ne);
                if (st != CLCG_OK)
                    return st;
            }
            out->row[out->len] = i;
            out->col[out->len] = j;
            out->val[out->len] = v;
            out->len++;
        }
        if (p < end) {
            p++;
            line++;
        }
    }
    *count = k;
    *next_line = line;
    return CLCG_OK;
}

clcg_status clcg_mm_parse_entries(const char *path, const clcg_mm_header *h, const char *buf,
                                  size_t len, int64_t first_line, clcg_coo *out,
                                  int64_t *count)
{
    int64_t next_line;
    if (!path || !h || (!buf && len) || !out || !count)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_parse_entries: NULL argument");
    return parse_entries(path, h, buf, len, first_line, out, count, &next_line);
}

const char *clcg_gz_message(const char *path, const char *zmsg)
{
    const size_t n = strlen(path);
    const char *q = zmsg && !strncmp(zmsg, "<fd:", 4) ? strstr(zmsg, ">: ") : NULL;
    if (!zmsg)
        return "zlib error";
    if (q)
        return q + 3;
    return !strncmp(zmsg, path, n) && !strncmp(zmsg + n, ": ", 2) ? zmsg + n + 2 : zmsg;
}

int clcg_gz_blame(void *gz, const char *path)
{
    char scratch[1 << 15];   /* what is inflated is only checked, not kept */
    int zerr = Z_OK;
    while (gzread((gzFile)gz, scratch, sizeof scratch) > 0)
        ;
    const char *zmsg = gzerror((gzFile)gz, &zerr);
    if (zerr == Z_OK || zerr == Z_ERRNO)   /* sound to its end (or unreadable): the text's fault stands */
        return 0;
    clcg_error_clear();
    clcg_error(CLCG_ERR_INPUT, "%s: corrupt or truncated gzip data (%s)", path, clcg_gz_message(path, zmsg));
    return 1;
}

clcg_status clcg_mm_one_triangle(const char *path, int64_t line_below, int64_t line_above)
{
    if (!line_below || !line_above)
        return CLCG_OK;
    return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": an entry above the diagonal, and line %" PRId64 " holds "
                      "one below it: a symmetric file stores one triangle (mirrored, a pair given on both "
                      "sides would count twice)", path, line_above, line_below);
}

clcg_status clcg_mm_enough_entries(const char *path, const clcg_mm_header *h)
{
    if (!clcg_mm_too_few_entries(h))
        return CLCG_OK;
    return clcg_error(CLCG_ERR_NOT_SPD, "%s:%" PRId64 ": %" PRId64 " rows but %" PRId64 " entries: a diagonal entry "
                      "is missing, so the matrix is not positive definite", path, h->data_line - 1, h->nrows,
                      h->nentries);
}

/* ---- header ---- */

/* Lower-case copy of the blank-separated word at *pp (at most 31 characters
 * kept); *pp moves past it. */
static void next_word(const char **pp, const char *end, char word[32])
{
    const char *p = *pp;
    size_t k = 0;
    while (p < end && is_blank(*p))
        p++;
    while (p < end && !is_blank(*p)) {
        char c = *p++;
        if (k < 31)
            word[k++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    word[k] = '\0';
    *pp = p;
}

static void printable(char *w)
{
    for (; *w; w++)
        if ((unsigned char)*w < 0x20 || (unsigned char)*w >= 0x7f)
            *w = '?';
}

#define MM_BANNER_HELP "'%%%%MatrixMarket matrix coordinate|array real|integer|pattern " \
                       "general|symmetric'"

static clcg_status parse_banner(const char *path, const char *p, const char *end,
                                clcg_mm_header *h)
{
    char w[32];
    for (const char *c = p; c < end; c++)   /* words are compared as C strings: no NUL inside */
        if (is_binary(*c))
            return clcg_error(CLCG_ERR_INPUT, "%s:1: control byte 0x%02x in the banner", path,
                              (unsigned char)*c);
    next_word(&p, end, w);      /* "%%matrixmarket", checked by the caller */
    next_word(&p, end, w);
    printable(w);
    if (!w[0])
        return clcg_error(CLCG_ERR_INPUT, "%s:1: incomplete banner: expected " MM_BANNER_HELP,
                          path);
    if (strcmp(w, "matrix") != 0)
        return clcg_error(CLCG_ERR_INPUT, "%s:1: Matrix Market object '%s' is not supported: "
                          "the file must hold a 'matrix'", path, w);
    h->type[0] = 'M';

    next_word(&p, end, w);
    printable(w);
    if (strcmp(w, "coordinate") == 0)
        h->type[1] = 'C';
    else if (strcmp(w, "array") == 0)
        h->type[1] = 'A';
    else if (!w[0])
        return clcg_error(CLCG_ERR_INPUT, "%s:1: incomplete banner: expected " MM_BANNER_HELP,
                          path);
    else
        return clcg_error(CLCG_ERR_INPUT, "%s:1: unknown format '%s' in the banner: expected "
                          "coordinate or array", path, w);

    next_word(&p, end, w);
    printable(w);
    if (strcmp(w, "real") == 0 || strcmp(w, "double") == 0)
        h->type[2] = 'R';
    else if (strcmp(w, "integer") == 0)
        h->type[2] = 'I';
    else if (strcmp(w, "pattern") == 0)
        h->type[2] = 'P';
    else if (strcmp(w, "complex") == 0)
        h->type[2] = 'C';
    else if (!w[0])
        return clcg_error(CLCG_ERR_INPUT, "%s:1: incomplete banner: expected " MM_BANNER_HELP,
                          path);
    else
        return clcg_error(CLCG_ERR_INPUT, "%s:1: unknown field '%s' in the banner: expected "
                          "real, integer or pattern", path, w);

    next_word(&p, end, w);
    printable(w);
    if (strcmp(w, "general") == 0)
        h->type[3] = 'G';
    else if (strcmp(w, "symmetric") == 0)
        h->type[3] = 'S';
    else if (strcmp(w, "hermitian") == 0)
        h->type[3] = 'H';
    else if (strcmp(w, "skew-symmetric") == 0)
        h->type[3] = 'K';
    else if (!w[0])
        return clcg_error(CLCG_ERR_INPUT, "%s:1: incomplete banner: expected " MM_BANNER_HELP,
                          path);
    else
        return clcg_error(CLCG_ERR_INPUT, "%s:1: unknown symmetry '%s' in the banner: expected "
                          "general or symmetric", path, w);

    next_word(&p, end, w);
    printable(w);
    if (w[0])
        return clcg_error(CLCG_ERR_INPUT, "%s:1: unexpected '%s' after the banner's symmetry",
                          path, w);

    if (h->type[2] == 'C')
        return clcg_error(CLCG_ERR_INPUT, "%s:1: complex matrices are not supported: CG here "
                          "solves real SPD systems", path);
    if (h->type[3] == 'H')
        return clcg_error(CLCG_ERR_INPUT, "%s:1: 'hermitian' needs a complex field, and complex "
                          "matrices are not supported: CG here solves real SPD systems", path);
    if (h->type[3] == 'K')
        return clcg_error(CLCG_ERR_INPUT, "%s:1: skew-symmetric matrices are not supported: a "
                          "skew-symmetric matrix is never positive definite", path);
    if (h->type[1] == 'A' && h->type[2] == 'P')
        return clcg_error(CLCG_ERR_INPUT, "%s:1: 'array pattern' is not a valid combination: "
                          "an array lists values", path);
    return CLCG_OK;
}

/* Parse the size line [p, end) (line number line) into h. */
static clcg_status parse_size_line(const char *path, int64_t line, const char *p,
                                   const char *end, clcg_mm_header *h)
{
    const int want = h->type[1] == 'C' ? 3 : 2;
    const char *form = want == 3 ? "rows columns entries" : "rows columns";
    int64_t v[3] = {0, 0, 0};
    char tok[MM_SHOW + 4];
    int k;

    for (k = 0; k < want; k++) {
        const char *f;
        uint64_t x = 0;
        int neg = 0, ovf = 0;
        while (p < end && is_blank(*p))
            p++;
        if (p >= end)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the size line must hold '%s' "
                              "(%d integers), found only %d", path, line, form, want, k);
        f = p;
        if (*p == '-' || *p == '+')
            neg = *p++ == '-';
        if (p >= end || !IS_DIGIT(*p)) {
            int b = field_binary(f, end);
            if (b >= 0)
                return binary_error(path, line, b);
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": size line: '%s' is not an "
                              "integer (expected '%s')", path, line, show_field(f, end, tok),
                              form);
        }
        for (; p < end && IS_DIGIT(*p); p++) {
            if (x > ((uint64_t)INT64_MAX - 9) / 10)
                ovf = 1;
            else
                x = x * 10 + (uint64_t)(*p - '0');
        }
        if (!FIELD_END(p, end))
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": size line: '%s' is not an "
                              "integer (expected '%s')", path, line, show_field(f, end, tok),
                              form);
        if (ovf)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": size line: %s is too large",
                              path, line, show_field(f, end, tok));
        if (neg && x != 0)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": size line: negative size %s",
                              path, line, show_field(f, end, tok));
        v[k] = (int64_t)x;
    }
    const char *gap = p;
    while (p < end && is_blank(*p))
        p++;
    if (p < end && memchr(gap, '\r', (size_t)(p - gap)))
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": a carriage return inside the size line, "
                          "before '%s': lines must end in a newline (LF or CR LF), not CR alone",
                          path, line, show_field(p, end, tok));
    if (p < end)
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": size line: extra field '%s' "
                          "(expected '%s')", path, line, show_field(p, end, tok), form);
    h->nrows = v[0];
    h->ncols = v[1];
    h->nentries = v[2];
    return CLCG_OK;
}

/* Banner, comments and size line from buf[0..len); at_eof: nothing follows.
 * *more is set when the size line is not complete yet. */
static clcg_status parse_header(const char *path, const char *buf, size_t len, int at_eof,
                                clcg_mm_header *h, int *more)
{
    const char *p = buf, *end = buf + len, *nl;
    int64_t line = 1;
    static const char banner[] = "%%matrixmarket";
    size_t k;

    *more = 0;
    memset(h, 0, sizeof *h);
    if (len == 0 && at_eof)
        return clcg_error(CLCG_ERR_INPUT, "%s: the file is empty (expected a Matrix Market "
                          "header)", path);
    nl = len ? memchr(p, '\n', len) : NULL;
    if (!nl && !at_eof && len < sizeof banner) {
        *more = 1;
        return CLCG_OK;
    }
    for (k = 0; k + 1 < sizeof banner; k++) {
        char c = k < len ? buf[k] : '\0';
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != banner[k])
            break;
    }
    if (k + 1 < sizeof banner || (len > k && !is_blank(buf[k]) && buf[k] != '\n')) {
        size_t b, lim = len < 512 ? len : 512;
        if (len >= 8 && !memcmp(buf, "CLCGBIN", 8))   /* binary_io.c's magic: gzip'd, piped, or --rhs */
            return clcg_error(CLCG_ERR_INPUT, "%s: a clcg binary matrix, which is read only as the matrix, "
                              "uncompressed, from a regular file (not through gzip or a pipe, not as --rhs)", path);
        {   /* other compressed forms, by their magic bytes (gzip itself is read: here, one inside it) */
            static const struct { const char *magic; size_t len; const char *what; } z[] = {
                {"\x1f\x8b", 2, "gzip data inside gzip (compressed twice): decompress it once first"},
                {"BZh", 3, "bzip2-compressed: decompress it (bunzip2), or compress it with gzip"},
                {"\xfd" "7zXZ", 5, "xz-compressed: decompress it (unxz), or compress it with gzip"},
                {"\x28\xb5\x2f\xfd", 4, "zstd-compressed: decompress it (unzstd), or compress it with gzip"},
                {"PK\x03\x04", 4, "a zip archive: extract the file from it"}};
            for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
                if (len >= z[i].len && !memcmp(buf, z[i].magic, z[i].len))
                    return clcg_error(CLCG_ERR_INPUT, "%s: %s", path, z[i].what);
        }
        for (b = 0; b < lim; b++)
            if (is_binary(buf[b]))
                return clcg_error(CLCG_ERR_INPUT, "%s: binary data (byte 0x%02x at offset %zu):"
                                  " this is not a text Matrix Market file", path,
                                  (unsigned char)buf[b], b);
        if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
            return clcg_error(CLCG_ERR_INPUT, "%s:1: the file starts with a UTF-8 byte-order mark, "
                              "before the banner: save it without one", path);
        return clcg_error(CLCG_ERR_INPUT, "%s:1: no Matrix Market banner: the first line must "
                          "start with '%%%%MatrixMarket matrix'", path);
    }
    {   /* lines ended by CR alone (old Mac files): the banner would run into the next line */
        const char *e1 = nl ? nl : end, *cr = memchr(p, '\r', (size_t)(e1 - p)), *q = cr;
        while (q && q < e1 && is_blank(*q))
            q++;
        if (cr && q < e1)
            return clcg_error(CLCG_ERR_INPUT, "%s:1: lines end in a carriage return alone: convert "
                              "them to newlines (LF or CR LF)", path);
    }
    if (!nl && !at_eof) {
        *more = 1;
        return CLCG_OK;
    }
    CLCG_CALL(parse_banner(path, p, nl ? nl : end, h));
    p = nl ? nl + 1 : end;
    line = 2;

    for (;;) {                  /* comments and blank lines, then the size line */
        const char *q = p;
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && !at_eof) {
            *more = 1;
            return CLCG_OK;
        }
        while (q < end && q != nl && is_blank(*q))
            q++;
        if (q == end && !nl)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": no size line: the file ends "
                              "after the banner and comments", path, line);
        if (q < end && *q == '%' && memchr(q, '\0', (size_t)((nl ? nl : end) - q)))
            return binary_error(path, line, 0);
        if (q == nl || *q == '%') {
            if (!nl)
                return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": no size line: the file ends "
                                  "after the banner and comments", path, line);
            p = nl + 1;
            line++;
            continue;
        }
        CLCG_CALL(parse_size_line(path, line, q, nl ? nl : end, h));
        p = nl ? nl + 1 : end;
        break;
    }
    h->data_offset = (int64_t)(p - buf);
    h->data_line = line + 1;
    return CLCG_OK;
}

/* n(n+1)/2, the places of one triangle with its diagonal; n*n must not overflow. */
static int64_t half_square(int64_t n)
{
    return n % 2 == 0 ? n / 2 * (n + 1) : (n + 1) / 2 * n;
}

static int64_t physical_memory(void)
{
#ifdef _SC_PHYS_PAGES
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0 && pages < INT64_MAX / size)
        return (int64_t)pages * size;
#endif
    return -1;
}

/* Checks of a parsed header before anything is allocated from it.  avail: bytes
 * the file can hold after the size line, or -1 if unknown.  n: for a vector,
 * the rows it must have. */
/* The most entries avail bytes after the size line can hold (avail < 0: unknown). */
static int64_t entry_bound(const clcg_mm_header *h, int64_t avail)
{
    int64_t minb = h->type[1] == 'A' ? 2 : h->type[2] == 'P' ? 4 : 6;
    return avail < 0 ? INT64_MAX : (avail + 1) / minb;
}

static clcg_status check_header(const char *path, clcg_mm_header *h, int kind, int64_t n,
                                int64_t avail)
{
    const int64_t sl = h->data_line - 1;        /* the size line */
    const int64_t nr = h->nrows, nc = h->ncols;
    int64_t mem, need;

    if (kind == MM_MATRIX) {
        if (nr != nc)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the matrix is %" PRId64 " x %"
                              PRId64 ": CG needs a square matrix", path, sl, nr, nc);
        if (nr == 0)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the matrix is 0 x 0", path, sl);
    } else {
        /* 1 x 1 marked symmetric (scipy's mmwrite does so) is the same vector */
        if (h->type[2] == 'P' || (h->type[3] != 'G' && !(h->type[3] == 'S' && nr == 1 && nc == 1)))
            return clcg_error(CLCG_ERR_INPUT, "%s:1: a vector must be 'real general' or "
                              "'integer general'", path);
        if (nc != 1)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": a vector must be a single "
                              "column, this is %" PRId64 " x %" PRId64, path, sl, nr, nc);
        if (nr != n)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the vector has %" PRId64
                              " rows but the matrix has %" PRId64, path, sl, nr, n);
    }

    if (h->type[1] == 'A') {
        if (nr != 0 && nc > INT64_MAX / nr)
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the array is %" PRId64 " x %"
                              PRId64 ": more entries than can be counted", path, sl, nr, nc);
        h->nentries = h->type[3] == 'S' ? half_square(nr) : nr * nc;
    }
    /* A coordinate file may declare more entries than the matrix has places: duplicates are
     * summed (as NIST mmio's readers and scipy do).  The count is still bounded, below, by
     * what the file can hold and by memory. */

    /* Refuse a count the file cannot possibly hold, with some slack (twice the
       count, plus 1024) so that a file cut short reads as "truncated" at the line
       where it ends; the allocation itself is bounded by entry_bound(). */
    if (avail >= 0 && h->nentries / 2 > entry_bound(h, avail) + 1024)
        return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": the size line declares %" PRId64
                          " entries but the file holds only %" PRId64 " bytes after it%s",
                          path, sl, h->nentries, avail, h->gz ? " (at most, uncompressed)" : "");

    mem = physical_memory();
    need = kind == MM_VECTOR ? 8 : 24;
    if (mem > 0 && h->nentries > mem / need)
        return clcg_error(CLCG_ERR_MEMORY, "%s:%" PRId64 ": the size line declares %" PRId64
                          " entries, which need %.1f GiB of memory; this machine has %.1f GiB",
                          path, sl, h->nentries, (double)h->nentries * need / 1073741824.0,
                          (double)mem / 1073741824.0);
    return CLCG_OK;
}

clcg_status clcg_mm_parse_header(const char *path, const char *buf, size_t len, int whole,
                                 clcg_mm_header *h)
{
    int more;
    if (!path || !h || (!buf && len))
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_parse_header: NULL argument");
    CLCG_CALL(parse_header(path, buf, len, whole, h, &more));
    if (more)
        return clcg_error(CLCG_ERR_INPUT, "%s: the header is longer than the %zu bytes given",
                          path, len);
    return check_header(path, h, MM_MATRIX, 0, whole ? (int64_t)len - h->data_offset : -1);
}

/* ---- the file ---- */

typedef struct {
    const char *path;
    gzFile gz;
    int64_t size;       /* bytes on disk, -1 if not a regular file */
    char *buf;
    size_t cap, pos, end;
    int eof;
} mm_src;

static clcg_status src_open(mm_src *s, const char *path)
{
    struct stat st;
    int fd;

    memset(s, 0, sizeof *s);
    s->path = path;
    fd = open(path, O_RDONLY);
    if (fd < 0)
        return clcg_error(CLCG_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return clcg_error(CLCG_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return clcg_error(CLCG_ERR_IO, "%s: is a directory, not a Matrix Market file", path);
    }
    s->size = S_ISREG(st.st_mode) ? (int64_t)st.st_size : -1;
    s->gz = gzdopen(fd, "rb");
    if (!s->gz) {
        close(fd);
        return clcg_error(CLCG_ERR_MEMORY, "%s: out of memory opening the file", path);
    }
    gzbuffer(s->gz, 1u << 20);
    s->cap = mm_block;
    if (s->size >= 0 && (uint64_t)s->size + 1 < s->cap)
        s->cap = (size_t)s->size + 1;   /* a plain small file needs no more; gzip grows */
    return clcg_malloc(&s->buf, s->cap, 1, "the Matrix Market read buffer");
}

static void src_close(mm_src *s)
{
    if (s->gz)
        gzclose(s->gz);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

/* Move the unread bytes to the front and read until the buffer is full or the
 * file ends.  A full buffer of unread bytes is grown (up to mm_block). */
static clcg_status src_fill(mm_src *s)
{
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->end - s->pos);
        s->end -= s->pos;
        s->pos = 0;
    }
    if (s->end == s->cap && s->cap < mm_block) {
        size_t cap = s->cap * 4 < mm_block ? s->cap * 4 : mm_block;
        CLCG_CALL(clcg_realloc(&s->buf, cap, 1, "the Matrix Market read buffer"));
        s->cap = cap;
    }
    while (!s->eof && s->end < s->cap) {
        size_t want = s->cap - s->end;
        int r = gzread(s->gz, s->buf + s->end, (unsigned)(want < (1u << 30) ? want : (1u << 30)));
        int zerr = Z_OK;
        const char *zmsg = NULL;
        if (r < 0 || r == 0)
            zmsg = gzerror(s->gz, &zerr);
        if (zerr == Z_ERRNO)
            return clcg_error(CLCG_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
        if (zerr != Z_OK)
            return clcg_error(CLCG_ERR_INPUT, "%s: corrupt or truncated gzip data (%s)",
                              s->path, clcg_gz_message(s->path, zmsg));
        if (r <= 0)
            s->eof = 1;
        else
            s->end += (size_t)r;
    }
    return CLCG_OK;
}

/* Bytes of b[0..n) through its last '\n'; 0 if there is none. */
static size_t through_last_newline(const char *b, size_t n)
{
    while (n > 0 && b[n - 1] != '\n')
        n--;
    return n;
}

/* Open path and parse and check its header; s stays open for the entries.
 * *avail: bytes the file can hold after the size line (-1 unknown). */
static clcg_status open_header(mm_src *s, const char *path, int kind, int64_t n,
                               clcg_mm_header *h, int64_t *avail)
{
    int more;

    *avail = -1;
    CLCG_CALL(src_open(s, path));
    CLCG_CALL(src_fill(s));
    for (;;) {
        CLCG_CALL(parse_header(path, s->buf, s->end, s->eof, h, &more));
        if (!more)
            break;
        if (s->end == s->cap && s->cap >= mm_block) {   /* the line it stops in, for the message */
            return clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": no size line in the first %zu bytes: the banner, "
                              "comments and size line must fit in them", path,
                              1 + clcg_mm_count_newlines(s->buf, s->end), mm_block);
        }
        CLCG_CALL(src_fill(s));
    }
    h->gz = !gzdirect(s->gz);
    if (s->size >= 0) {
        int64_t total = s->size;
        if (h->gz)
            total = s->size > INT64_MAX / MM_GZ_RATIO ? INT64_MAX : s->size * MM_GZ_RATIO;
        *avail = total > h->data_offset ? total - h->data_offset : 0;
    }
    return check_header(path, h, kind, n, *avail);
}

static clcg_status read_file(const char *path, int kind, int64_t n, clcg_mm_header *h,
                             clcg_coo *a)
{
    mm_src s;
    clcg_status st;
    int ended_nl = 1, body = 0;   /* body: past the header (a fault there is not put to the stream) */
    int64_t line, count = 0, avail, cap, most;

    memset(a, 0, sizeof *a);
    CLCG_CHECK(st, open_header(&s, path, kind, n, h, &avail), done);
    body = 1;
    if (s.cap < mm_block && !s.eof) {   /* more to come: read in full blocks */
        CLCG_CHECK(st, clcg_realloc(&s.buf, mm_block, 1, "the Matrix Market read buffer"), done);
        s.cap = mm_block;
    }

    /* triplets: all at once for a plain regular file (its size bounds the count); for
       gzip, and for what has no size (a pipe: the size line's count is unchecked there),
       grow as they come */
    cap = h->nentries;
    most = h->gz || avail < 0 ? (1 << 20) : entry_bound(h, avail);
    CLCG_CHECK(st, clcg_coo_reserve(a, cap < most ? cap : most), done);
    a->n = h->nrows;
    a->symmetric = h->type[3] == 'S';

    s.pos = (size_t)h->data_offset;
    line = h->data_line;
    for (;;) {
        const char *b = s.buf + s.pos;
        size_t take = s.end - s.pos;
        if (!s.eof) {
            take = through_last_newline(b, take);
            if (take == 0) {
                if (s.pos == 0 && s.end == s.cap && s.cap >= mm_block) {
                    st = memchr(b, '\0', s.end - s.pos) ? binary_error(path, line, 0)   /* zeros, not a long line */
                         : clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": line longer than the %zu-byte read block", path,
                                      line, mm_block);
                    goto done;
                }
                CLCG_CHECK(st, src_fill(&s), done);
                continue;
            }
        }
        if (take > 0) {
            CLCG_CHECK(st, parse_entries(path, h, b, take, line, a, &count, &line), done);
            ended_nl = b[take - 1] == '\n';
            s.pos += take;
        }
        if (s.eof)
            break;
        CLCG_CHECK(st, src_fill(&s), done);
    }
    if (count < h->nentries)
        st = clcg_error(CLCG_ERR_INPUT, "%s:%" PRId64 ": truncated: %" PRId64 " entries of %"
                        PRId64 " declared", path, ended_nl ? line - 1 : line, count,
                        h->nentries);

done:
    if (body && st == CLCG_ERR_INPUT && s.gz && !gzdirect(s.gz) && !s.eof)
        clcg_gz_blame(s.gz, path);   /* corrupt data: the message says so (the status stays) */
    src_close(&s);
    if (st != CLCG_OK)
        clcg_coo_free(a);
    return st;
}

clcg_status clcg_mm_read_matrix(const char *path, clcg_mm_header *h, clcg_coo *a)
{
    clcg_mm_header tmp;
    if (!path || !a)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_read_matrix: NULL argument");
    CLCG_CALL(read_file(path, MM_MATRIX, 0, h ? h : &tmp, a));
    return CLCG_OK;
}

clcg_status clcg_mm_read_header(const char *path, clcg_mm_header *h)
{
    mm_src s;
    clcg_status st;
    int64_t avail;

    if (!path || !h)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_read_header: NULL argument");
    st = open_header(&s, path, MM_MATRIX, 0, h, &avail);
    src_close(&s);
    if (st != CLCG_OK)
        clcg_error_trace(__FILE__, __LINE__, "open_header(...)", st);
    return st;
}

clcg_status clcg_mm_read_vector(const char *path, int64_t n, double **x)
{
    clcg_mm_header h;
    clcg_coo a;
    clcg_status st;
    char *seen = NULL;
    int64_t k;

    if (!path || !x || n < 0)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_mm_read_vector: bad argument");
    *x = NULL;
    CLCG_CALL(read_file(path, MM_VECTOR, n, &h, &a));
    CLCG_CHECK(st, clcg_calloc(x, (size_t)n, sizeof **x, "the vector"), done);
    CLCG_CHECK(st, clcg_calloc(&seen, (size_t)n, 1, "the vector"), done);
    for (k = 0; k < a.len; k++) {       /* assign, then sum duplicates: keeps -0 */
        int64_t i = a.row[k];
        (*x)[i] = seen[i] ? (*x)[i] + a.val[k] : a.val[k];
        seen[i] = 1;
    }
    for (k = 0; k < n; k++)
        if (!isfinite((*x)[k])) {   /* each value is finite: duplicates summed past double */
            st = clcg_error(CLCG_ERR_INPUT, "%s: entry %" PRId64 ": its duplicate entries sum beyond "
                            "double precision", path, k + 1);
            goto done;
        }
done:
    free(seen);
    if (st != CLCG_OK) {
        free(*x);
        *x = NULL;
    }
    clcg_coo_free(&a);
    return st;
}
