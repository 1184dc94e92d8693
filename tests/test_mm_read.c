/* Matrix Market reader: every accepted form, one hostile file per error class,
 * then the shared matrices ($CLCG_MATRICES: bad/ against bad/INDEX.md, spd/,
 * not-spd/) when that folder exists. */
#include "csr.h"
#include "mm.h"
#include "tap.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static char dir[64];

typedef struct {
    int64_t i, j;   /* 0-based */
    double v;
} trip;

static const char *file_path(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static const char *put(const char *name, const char *text, size_t len)
{
    const char *path = file_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
        tap_diag("cannot write %s", path);
        exit(1);
    }
    return path;
}

static const char *put_text(const char *name, const char *text)
{
    return put(name, text, strlen(text));
}

static const char *put_gz(const char *name, const char *text, size_t len)
{
    const char *path = file_path(name);
    gzFile g = gzopen(path, "wb");
    if (!g || gzwrite(g, text, (unsigned)len) != (int)len || gzclose(g) != Z_OK) {
        tap_diag("cannot write %s", path);
        exit(1);
    }
    return path;
}

/* The message names path, then ":line:" (line > 0) or ": " (line == 0), and
 * holds needle. */
static int message_ok(const char *path, int line, const char *needle)
{
    const char *m = clcg_error_message();
    size_t n = strlen(path);
    char where[32];
    if (strncmp(m, path, n) != 0)
        return 0;
    if (line > 0)
        snprintf(where, sizeof where, ":%d: ", line);
    else
        snprintf(where, sizeof where, ": ");
    if (strncmp(m + n, where, strlen(where)) != 0)
        return 0;
    return !needle || strstr(m, needle) != NULL;
}

static int same_triplets(const clcg_coo *a, const trip *t, int nt)
{
    int k;
    if (a->len != nt)
        return 0;
    for (k = 0; k < nt; k++)
        if (a->row[k] != t[k].i || a->col[k] != t[k].j || a->val[k] != t[k].v)
            return 0;
    return 1;
}

static void expect_read(const char *what, const char *path, int64_t n, int sym, const trip *t,
                        int nt)
{
    clcg_mm_header h;
    clcg_coo a;
    clcg_status st;
    clcg_error_clear();
    st = clcg_mm_read_matrix(path, &h, &a);
    tap_ok(st == CLCG_OK && a.n == n && a.symmetric == sym && same_triplets(&a, t, nt),
           "%s reads (%s)", what, st == CLCG_OK ? "ok" : clcg_error_message());
    if (st == CLCG_OK && !same_triplets(&a, t, nt)) {
        int64_t k;
        for (k = 0; k < a.len; k++)
            tap_diag("  got (%lld,%lld) %.17g", (long long)a.row[k], (long long)a.col[k],
                     a.val[k]);
    }
    if (st == CLCG_OK)
        clcg_coo_free(&a);
}

static void expect_error(const char *what, const char *path, clcg_status code, int line,
                         const char *needle)
{
    clcg_mm_header h;
    clcg_coo a;
    clcg_status st;
    clcg_error_clear();
    st = clcg_mm_read_matrix(path, &h, &a);
    tap_ok(st == code && message_ok(path, line, needle) && a.len == 0 && a.row == NULL,
           "%s: %s -> %s", what, clcg_error_message(), clcg_status_name(st));
    if (st == CLCG_OK)
        clcg_coo_free(&a);
}

/* ---- accepted forms ---- */

static void test_valid(void)
{
    static const trip general[] = {{0, 0, 4}, {1, 0, -1}, {1, 1, 4}, {2, 2, 0.5}, {0, 1, -1}};
    static const trip sym[] = {{0, 0, 4}, {1, 0, -1}, {1, 1, 4}, {2, 2, 4}};
    static const trip pattern_sym[] = {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {2, 1, 1}, {2, 2, 1}};
    static const trip dup[] = {{0, 0, 4}, {0, 0, 1}, {1, 1, 5}, {0, 0, 0}, {2, 2, 5}};
    static const trip arr_gen[] = {{0, 0, 4}, {1, 0, 1}, {1, 1, 3}};
    static const trip arr_sym[] = {{0, 0, 4}, {1, 0, -1}, {1, 1, 5}, {2, 1, 2}, {2, 2, 6}};
    static const trip arr_zdiag[] = {{0, 0, 4}, {1, 0, 1}, {1, 1, 0}};
    const char *text, *p;
    char *big;
    size_t k;

    p = put_text("general.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                "3 3 5\n1 1 4.0\n2 1 -1\n2 2 4e0\n3 3 .5\n1 2 -1.0e+00\n");
    expect_read("coordinate real general", p, 3, 0, general, 5);

    p = put_text("integer.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n"
                                "3 3 4\n1 1 4\n2 1 -1\n2 2 +4\n3 3 4\n");
    expect_read("coordinate integer symmetric", p, 3, 1, sym, 4);
    p = put_text("plus.mtx", "%%MatrixMarket matrix coordinate integer symmetric\n"
                             "3 3 4\n+1 +1 4\n2 +1 -1\n+2 2 +4\n3 3 4\n");
    expect_read("indices with a + sign, as C's scanf reads them", p, 3, 1, sym, 4);

    p = put_text("pattern.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                "3 3 5\n1 1\n1 2\n2 2\n3 2\n3 3\n");
    expect_read("coordinate pattern symmetric, upper entry mirrored", p, 3, 1, pattern_sym, 5);

    p = put_text("pattern-gen.mtx", "%%MatrixMarket matrix coordinate pattern general\n"
                                    "2 2 2\n1 1\n2 2\n");
    {
        static const trip t[] = {{0, 0, 1}, {1, 1, 1}};
        expect_read("coordinate pattern general", p, 2, 0, t, 2);
    }

    text = "%%matrixmarket MATRIX Coordinate REAL Symmetric  \r\n"
           "% a comment\r\n"
           "\r\n"
           "   % indented comment\r\n"
           "3 3 4\r\n"
           "1 1 4.0\r\n"
           "\r\n"
           "2\t1\t-1.0\r\n"
           "% comment among entries\r\n"
           "  2 2 4.0  \r\n"
           "3 3 4.0";                        /* no final newline */
    p = put_text("crlf.mtx", text);
    expect_read("CRLF, comments, blank lines, tabs, case, no final newline", p, 3, 1, sym, 4);
    p = put_gz("crlf.mtx.gz", text, strlen(text));
    expect_read("the same gzip-compressed", p, 3, 1, sym, 4);
    p = put_gz("gz-without-suffix.mtx", text, strlen(text));
    expect_read("gzip told by its magic bytes, not its name", p, 3, 1, sym, 4);

    p = put_text("dup.mtx", "%%MatrixMarket matrix coordinate real general\n"
                            "3 3 5\n1 1 4\n1 1 1\n2 2 5\n1 1 0\n3 3 5\n");
    expect_read("duplicates and explicit zeros kept as triplets", p, 3, 0, dup, 5);

    p = put_text("array.mtx", "%%MatrixMarket matrix array real general\n"
                              "% column-major\n2 2\n4.0\n1.0\n0\n3.0\n");
    expect_read("array real general, zeros left out", p, 2, 0, arr_gen, 3);

    p = put_text("array-sym.mtx", "%%MatrixMarket matrix array integer symmetric\n"
                                  "3 3\n4\n-1\n0\n5\n2\n6\n");
    expect_read("array integer symmetric (lower triangle by columns)", p, 3, 1, arr_sym, 5);
    p = put_text("array-zero-diag.mtx", "%%MatrixMarket matrix array real symmetric\n"
                                        "2 2\n4\n1\n0\n");
    expect_read("array: a zero on the diagonal is kept (so it is named as zero, not missing)",
                p, 2, 1, arr_zdiag, 3);

    p = put_text("values.mtx", "%%MatrixMarket matrix coordinate real general\n"
                               "3 3 7\n1 1 0.1\n1 1 -0.30000000000000004\n"
                               "1 1 1.7976931348623157e308\n1 1 4.9e-324\n"
                               "1 1 123456789012345678901234567890\n1 1 -0\n"
                               "1 1 0x1p-3\n");
    {
        trip t[7];
        for (k = 0; k < 7; k++)
            t[k].i = t[k].j = 0;
        t[0].v = 0.1;
        t[1].v = -0.30000000000000004;
        t[2].v = 1.7976931348623157e308;
        t[3].v = 4.9e-324;
        t[4].v = 123456789012345678901234567890.0;
        t[5].v = -0.0;
        t[6].v = 0.125;
        expect_read("values: rounding, extremes, hex", p, 3, 0, t, 7);
    }
    /* a nonzero value below the least double would read as 0: refused like an overflow */
    p = put_text("underflow.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e-400\n");
    expect_error("a value that underflows", p, CLCG_ERR_INPUT, 4, "underflows a double");
    p = put_text("zero-exp.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0e-400\n");
    {
        static const trip t[] = {{0, 0, 0.0}};
        expect_read("zero with a large negative exponent is zero", p, 1, 0, t, 1);
    }

    /* an entry spread over 1 MB of blanks */
    big = malloc(2 << 20);
    if (big) {
        size_t n = (size_t)sprintf(big, "%%%%MatrixMarket matrix coordinate real general\n"
                                         "2 2 2\n1 1");
        memset(big + n, ' ', 1 << 20);
        n += 1 << 20;
        n += (size_t)sprintf(big + n, "4.0\n2 2 4.0\n");
        p = put("long-line.mtx", big, n);
        {
            static const trip t[] = {{0, 0, 4}, {1, 1, 4}};
            expect_read("a 1 MB line", p, 2, 0, t, 2);
        }
        /* zeros after the point, then an exponent: 99 999 zeros and e1000000 (4e900000)
           overflow, though the fast path caps what it reads of the exponent; 99 999 zeros and
           e100000 make 4; 100 000 zeros and e100001, past the cap on digits after the
           point, make 4 too */
        static const struct {
            int zeros;
            const char *tail, *name;
        } lz[] = {{99999, "4e1000000\n", "long-zeros-overflow.mtx"},
                  {99999, "4e100000\n", "long-zeros.mtx"},
                  {100000, "4e100001\n", "longer-zeros.mtx"}};
        for (size_t c = 0; c < sizeof lz / sizeof lz[0]; c++) {
            n = (size_t)sprintf(big, "%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.");
            memset(big + n, '0', (size_t)lz[c].zeros);
            n += (size_t)lz[c].zeros;
            n += (size_t)sprintf(big + n, "%s", lz[c].tail);
            p = put(lz[c].name, big, n);
            if (c > 0) {
                static const trip t[] = {{0, 0, 4}};
                expect_read(lz[c].name, p, 1, 0, t, 1);
            } else {
                expect_error("99 999 zeros after the point, then e1000000", p, CLCG_ERR_INPUT, 3,
                             "overflows a double");
            }
        }
        free(big);
    }
}

/* Header: data_offset and data_line, from a file and from memory. */
static void test_header(void)
{
    const char *text = "%%MatrixMarket matrix coordinate real symmetric\n% c\n\n5 5 2\n"
                       "1 1 2\n5 5 3\n";
    const char *p = put_text("hdr.mtx", text), *gz = put_gz("hdr.mtx.gz", text, strlen(text));
    const int64_t off = (int64_t)(strstr(text, "5 5 2\n") - text) + 6;
    clcg_mm_header h, hm;
    clcg_coo a;
    int64_t count = 0;
    char *copy;
    clcg_status st;

    clcg_error_clear();
    st = clcg_mm_read_header(p, &h);
    tap_ok(st == CLCG_OK && memcmp(h.type, "MCRS", 4) == 0 &&
               h.nrows == 5 && h.ncols == 5 && h.nentries == 2 && h.data_offset == off &&
               h.data_line == 5 && !h.gz,
           "read_header: type %.4s, %lld entries, data at byte %lld, line %lld", h.type,
           (long long)h.nentries, (long long)h.data_offset, (long long)h.data_line);
    tap_ok(clcg_mm_read_header(gz, &h) == CLCG_OK && h.gz && h.data_offset == off &&
               h.data_line == 5,
           "read_header of a gzip file: gz set, same offsets");
    tap_ok(clcg_mm_parse_header("mem", text, strlen(text), 1, &hm) == CLCG_OK &&
               hm.data_offset == off && hm.data_line == 5 && hm.nentries == 2,
           "parse_header from memory");
    clcg_error_clear();
    st = clcg_mm_parse_header("mem", text, 20, 0, &hm);
    tap_ok(st == CLCG_ERR_INPUT && strstr(clcg_error_message(), "longer than"),
           "parse_header on a prefix without the size line: %s", clcg_error_message());

    /* entries from a buffer that is not NUL-terminated, in two pieces */
    copy = malloc(strlen(text) - (size_t)off);
    memcpy(copy, text + off, strlen(text) - (size_t)off);
    memset(&a, 0, sizeof a);
    tap_ok(clcg_mm_parse_entries("mem", &h, copy, 6, 5, &a, &count) == CLCG_OK &&
               clcg_mm_parse_entries("mem", &h, copy + 6, 6, 6, &a, &count) == CLCG_OK &&
               count == 2 && a.len == 2 && a.row[1] == 4 && a.val[1] == 3.0,
           "parse_entries on an unterminated buffer, in pieces");
    clcg_error_clear();
    count = 0;
    st = clcg_mm_parse_entries("mem", &h, "1 1 x", 5, 42, &a, &count);
    tap_ok(st == CLCG_ERR_INPUT && strncmp(clcg_error_message(), "mem:42: ", 8) == 0,
           "parse_entries names path:line: %s", clcg_error_message());
    clcg_coo_free(&a);
    free(copy);
}

/* Lines split at every place by a small read block. */
static void test_blocks(void)
{
    char *text = malloc(1 << 16);
    size_t n, old;
    int k, ok = 1;
    const char *p;
    clcg_coo a, b;
    clcg_mm_header h;

    n = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate real general\n"
                              "%% comment\n300 300 300\n");
    for (k = 0; k < 300; k++)
        n += (size_t)sprintf(text + n, "%s%d %d %.17g\n%s", k % 7 ? "" : "\n", k + 1,
                             (k * 7) % 300 + 1, 1.0 / (k + 1), k % 11 ? "" : "% c\n");
    p = put("blocks.mtx", text, n);
    clcg_error_clear();
    ok = clcg_mm_read_matrix(p, &h, &a) == CLCG_OK;
    old = clcg_mm_set_block_size(96);
    ok = ok && clcg_mm_read_matrix(p, &h, &b) == CLCG_OK;
    tap_ok(ok && a.len == 300 && b.len == 300 &&
               memcmp(a.row, b.row, 300 * sizeof *a.row) == 0 &&
               memcmp(a.col, b.col, 300 * sizeof *a.col) == 0 &&
               memcmp(a.val, b.val, 300 * sizeof *a.val) == 0,
           "96-byte read blocks give the same triplets (%s)", clcg_error_message());
    if (ok) {
        clcg_coo_free(&a);
        clcg_coo_free(&b);
    }
    p = put_gz("blocks.mtx.gz", text, n);
    ok = clcg_mm_read_matrix(p, &h, &b) == CLCG_OK;
    tap_ok(ok && b.len == 300, "96-byte blocks, gzip (%s)", clcg_error_message());
    if (ok)
        clcg_coo_free(&b);

    /* an error line number past many blocks */
    text[n - 2] = 'x';
    p = put("blocks-bad.mtx", text, n);
    {
        int line = 1;
        size_t i;
        for (i = 0; i + 1 < n; i++)
            line += text[i] == '\n';
        expect_error("error after many blocks", p, CLCG_ERR_INPUT, line, "not a number");
    }
    /* a line longer than the block */
    p = put_text("long-for-block.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                       "1 1 1\n1 1 1.000000000000000000000000000000000000"
                                       "00000000000000000000000000000000000000000000000"
                                       "00000000000000000000000000000000000000000000000\n");
    expect_error("line longer than the read block", p, CLCG_ERR_INPUT, 3, "longer than");
    clcg_mm_set_block_size(old);
    free(text);
}

/* ---- one hostile file per error class ---- */

static void test_errors(void)
{
    static const struct {
        const char *name, *text;
        int line;
        const char *needle;
    } cases[] = {
        {"no-banner.mtx", "3 3 1\n1 1 1\n", 1, "no Matrix Market banner"},
        {"bom.mtx", "\xef\xbb\xbf%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", 1,
         "starts with a UTF-8 byte-order mark"},
        {"cr-only.mtx", "%%MatrixMarket matrix coordinate real general\r1 1 1\r1 1 1\r", 1,
         "lines end in a carriage return alone"},
        {"banner-word.mtx", "%%MatrixMarketX matrix coordinate real general\n1 1 1\n1 1 1\n",
         1, "banner"},
        {"complex.mtx", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
         "complex matrices are not supported: CG here solves real SPD systems"},
        {"hermitian.mtx", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1,
         "hermitian"},
        {"skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1\n", 1,
         "skew-symmetric"},
        {"vector.mtx", "%%MatrixMarket vector coordinate real general\n2 1\n1 1\n", 1,
         "'vector'"},
        {"format.mtx", "%%MatrixMarket matrix sparse real general\n1 1 1\n1 1 1\n", 1,
         "unknown format 'sparse'"},
        {"field.mtx", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", 1,
         "unknown field"},
        {"symmetry.mtx", "%%MatrixMarket matrix coordinate real weird\n1 1 1\n1 1 1\n", 1,
         "unknown symmetry"},
        {"incomplete.mtx", "%%MatrixMarket matrix coordinate\n1 1 1\n1 1 1\n", 1,
         "incomplete banner"},
        {"banner-extra.mtx", "%%MatrixMarket matrix coordinate real general yes\n1 1 1\n", 1,
         "'yes'"},
        {"array-pattern.mtx", "%%MatrixMarket matrix array pattern general\n1 1\n1\n", 1,
         "array pattern"},
        {"non-square.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1\n", 2,
         "2 x 3: CG needs a square matrix"},
        {"no-size.mtx", "%%MatrixMarket matrix coordinate real general\n% only\n\n", 4,
         "no size line"},
        {"size-missing.mtx", "%%MatrixMarket matrix coordinate real general\n% c\n3 3\n", 3,
         "found only 2"},
        {"size-negative.mtx", "%%MatrixMarket matrix coordinate real general\n-3 -3 1\n", 2,
         "negative size -3"},
        {"size-nonnum.mtx", "%%MatrixMarket matrix coordinate real general\n3 x 1\n", 2,
         "'x' is not an integer"},
        {"size-float.mtx", "%%MatrixMarket matrix coordinate real general\n3 3.0 1\n", 2,
         "'3.0' is not an integer"},
        {"size-extra.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1 7\n1 1 1\n", 2,
         "extra field '7'"},
        {"size-array-extra.mtx", "%%MatrixMarket matrix array real general\n2 2 4\n1\n", 2,
         "extra field '4'"},
        {"size-overflow.mtx", "%%MatrixMarket matrix coordinate real general\n"
                              "99999999999999999999 99999999999999999999 1\n", 2, "too large"},
        {"size-zero.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 2, "0 x 0"},
        {"huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                     "1000000000000 1000000000000 1000000000000000000\n1 1 1\n", 2,
         "declares 1000000000000000000 entries but the file holds only 6 bytes"},
        {"array-overflow.mtx", "%%MatrixMarket matrix array real general\n"
                               "4000000000 4000000000\n1\n", 2, "more entries than can be"},
        {"array-huge.mtx", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", 2,
         "file holds only"},
        {"row-range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
                          "4 3 1\n", 4, "row index 4 is out of range 1..3"},
        {"col-range.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
                          "3 9 1\n", 4, "column index 9 is out of range 1..3"},
        {"zero-index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 0 1\n", 3,
         "entries are 1-based"},
        {"neg-index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 -1 1\n", 3,
         "column index -1 is out of range"},
        {"big-index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n"
                          "99999999999999999999999 1 1\n", 3, "out of range"},
        {"text-index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 b 1\n", 3,
         "column index 'b' is not a positive integer"},
        {"float-index.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1.0 1 1\n",
         3, "row index '1.0' is not a positive integer"},
        {"value-text.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", 3,
         "value 'abc' is not a number"},
        {"value-partial.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                              "1 1 1.5x\n", 3, "value '1.5x' is not a number"},
        {"value-nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n", 3,
         "is NaN"},
        {"value-inf.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 -inf\n",
         3, "is infinite"},
        {"value-overflow.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                               "1 1 1e400\n", 3, "overflows a double"},
        {"value-overflow2.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n"
                                "1 1 -1e999999\n", 3, "overflows a double"},
        {"integer-float.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n"
                              "1 1 1.5\n", 3, "not an integer"},
        {"too-few.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\n2 2\n", 4,
         "too few fields"},
        {"too-few2.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1\n", 3,
         "too few fields"},
        {"junk.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 4.0 7.0\n", 3,
         "trailing junk '7.0'"},
        {"junk-pattern.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n"
                             "1 1 4.0\n", 3, "trailing junk"},
        {"junk-array.mtx", "%%MatrixMarket matrix array real general\n1 1\n1 2\n", 3,
         "trailing junk"},
        {"cr-mid.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4\r2 2 4\n", 3,
         "a carriage return inside the line, before '2'"},
        {"cr-mid-array.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n4\n1\r4\n", 4,
         "a carriage return inside the line, before '4'"},
        {"ctrl-z.mtx", "%%MatrixMarket matrix coordinate real general\r\n1 1 1\r\n1 1 4\r\n\x1a", 4,
         "a Ctrl-Z byte (0x1a), the end-of-file mark of DOS text files"},
        {"cr-size.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\r1 1 4\n2 2 4\n", 2,
         "a carriage return inside the size line, before '1'"},
        {"truncated.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 4\n"
                          "2 2 4\n3 3 4\n", 5, "truncated: 3 entries of 5 declared"},
        {"truncated-nonl.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 4\n"
                               "\n2 2 4", 5, "truncated: 2 entries of 3 declared"},
        {"truncated-empty.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n", 2,
         "truncated: 0 entries of 2 declared"},
        {"truncated-array.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 5,
         "truncated: 3 entries of 4 declared"},
        {"extra.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 4\n\n2 2 4\n",
         5, "more entries than the 1 declared"},
        {"extra-array.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n0\n1\n1\n", 6,
         "more entries than the 3 that the size line's array holds"},
    };
    size_t k;
    const char *p;
    static const char garbage[] = "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
                                  "1 1 4\n2 \0\x13\xff 4\n";
    unsigned char noise[600];

    for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        p = put_text(cases[k].name, cases[k].text);
        expect_error(cases[k].name, p, CLCG_ERR_INPUT, cases[k].line, cases[k].needle);
    }

    {   /* other compressed forms named by their magic bytes; gzip inside gzip too */
        static const struct { const char *name, *bytes, *needle; } z[] = {
            {"m.mtx.bz2", "BZh91AY&SY\x01\x02", "bzip2-compressed: decompress it"},
            {"m.mtx.xz", "\xfd" "7zXZ\x01\x02", "xz-compressed: decompress it"},
            {"m.mtx.zst", "\x28\xb5\x2f\xfd\x01", "zstd-compressed: decompress it"},
            {"m.zip", "PK\x03\x04\x14", "a zip archive: extract the file"}};
        for (k = 0; k < sizeof z / sizeof z[0]; k++) {
            p = put_text(z[k].name, z[k].bytes);
            expect_error(z[k].name, p, CLCG_ERR_INPUT, 0, z[k].needle);
        }
        p = put_gz("twice.mtx.gz", "\x1f\x8b\x08\x00 more", 9);
        expect_error("gzip inside gzip", p, CLCG_ERR_INPUT, 0, "gzip data inside gzip (compressed twice)");
    }
    p = put("empty.mtx", "", 0);
    expect_error("empty file", p, CLCG_ERR_INPUT, 0, "empty");
    p = put_gz("empty.mtx.gz", "", 0);
    expect_error("empty gzip file", p, CLCG_ERR_INPUT, 0, "empty");
    p = put("nul-in-entry.mtx", garbage, sizeof garbage - 1);
    expect_error("NUL byte in an entry", p, CLCG_ERR_INPUT, 4, "binary data (byte 0x00)");
    for (k = 0; k < sizeof noise; k++)
        noise[k] = (unsigned char)((k * 2654435761u) >> 13);
    noise[100] = 0;
    p = put("noise.mtx", (const char *)noise, sizeof noise);
    expect_error("random bytes", p, CLCG_ERR_INPUT, 0, "binary data");

    {   /* a gzip stream cut in the middle */
        char text[4096];
        size_t n = (size_t)sprintf(text, "%%%%MatrixMarket matrix coordinate real general\n"
                                         "100 100 100\n");
        FILE *f;
        long size;
        char *bytes;
        for (k = 0; k < 100; k++)
            n += (size_t)sprintf(text + n, "%zu %zu %zu.25\n", k + 1, k + 1, k * 7919 % 1000);
        p = put_gz("cut.mtx.gz", text, n);
        f = fopen(p, "rb");
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        rewind(f);
        bytes = malloc((size_t)size);
        if (fread(bytes, 1, (size_t)size, f) != (size_t)size)
            size = 0;
        fclose(f);
        p = put("cut.mtx.gz", bytes, (size_t)size * 2 / 3);
        expect_error("gzip stream cut short", p, CLCG_ERR_INPUT, 0, "gzip");
        free(bytes);
    }

    p = file_path("does-not-exist.mtx");
    expect_error("missing file", p, CLCG_ERR_IO, 0, "No such file");
    expect_error("a directory", dir, CLCG_ERR_IO, 0, "directory");
}

/* ---- vectors ---- */

static void test_vectors(void)
{
    const char *p;
    double *x = NULL;
    clcg_status st;

    p = put_text("b.mtx", "%%MatrixMarket matrix array real general\n% rhs\n3 1\n1.5\n0\n-2\n");
    st = clcg_mm_read_vector(p, 3, &x);
    tap_ok(st == CLCG_OK && x[0] == 1.5 && x[1] == 0 && x[2] == -2, "array vector");
    free(x);
    x = NULL;
    p = put_text("bc.mtx", "%%MatrixMarket matrix coordinate integer general\n4 1 3\n"
                           "3 1 7\n1 1 2\n3 1 1\n");
    st = clcg_mm_read_vector(p, 4, &x);
    tap_ok(st == CLCG_OK && x[0] == 2 && x[1] == 0 && x[2] == 8 && x[3] == 0,
           "coordinate vector: missing entries 0, duplicates summed");
    free(x);
    x = NULL;
    clcg_error_clear();
    st = clcg_mm_read_vector(p, 5, &x);
    tap_ok(st == CLCG_ERR_INPUT && x == NULL && message_ok(p, 2, "has 4 rows but the matrix has 5"),
           "vector of the wrong length: %s", clcg_error_message());
    p = put_text("b2.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
    clcg_error_clear();
    st = clcg_mm_read_vector(p, 2, &x);
    tap_ok(st == CLCG_ERR_INPUT && message_ok(p, 2, "single column"),
           "two-column vector: %s", clcg_error_message());
    p = put_text("b3.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n");
    clcg_error_clear();
    st = clcg_mm_read_vector(p, 3, &x);
    tap_ok(st == CLCG_ERR_INPUT && message_ok(p, 4, "truncated"), "short vector: %s",
           clcg_error_message());
}

/* ---- the shared matrices ---- */

/* Dense contents of the valid files whose contents are known. */
static const struct {
    const char *name;
    int n;
    double a[16];
} known[] = {
    {"crlf-valid.mtx", 3, {4, -1, 0, -1, 4, 0, 0, 0, 4}},
    {"duplicate-entries-valid.mtx", 3, {5, 0, 0, 0, 5, 0, 0, 0, 5}},
    {"array-dense-valid.mtx", 2, {4, 1, 1, 3}},
    {"integer-valid.mtx", 3, {4, -1, 0, -1, 4, 0, 0, 0, 4}},
    {"blank-lines-valid.mtx", 2, {4, 0, 0, 4}},
    {"diag-valid.mtx", 4, {4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4}},
    {"symmetric-upper-entry.mtx", 3, {4, -1, 0, -1, 4, 0, 0, 0, 4}},
    {"long-line.mtx", 2, {4, 0, 0, 4}},
};

/* Errors that only assembly or the solver can see: the reader may accept them. */
static const char *const semantic[] = {"unsymmetric.mtx", "indefinite.mtx",
                                       "negative-definite.mtx", "zero-diagonal.mtx",
                                       "pattern.mtx", "all-zero.mtx"};

static int dense_equal(const clcg_csr *c, int n, const double *a)
{
    int i, j;
    int64_t k;
    double d[16];
    if (c->n != n || n > 4)
        return 0;
    memset(d, 0, sizeof d);
    for (i = 0; i < n; i++)
        for (k = c->rowptr[i]; k < c->rowptr[i + 1]; k++)
            d[i * n + c->colind[k]] += c->val[k];
    for (j = 0; j < n * n; j++)
        if (d[j] != a[j])
            return 0;
    return 1;
}

/* Read and assemble; 0: both fine, 1: reader refused, 2: assembly refused. */
static int read_assemble(const char *path, clcg_csr *c, clcg_status *st)
{
    clcg_mm_header h;
    clcg_coo a;
    clcg_error_clear();
    *st = clcg_mm_read_matrix(path, &h, &a);
    if (*st != CLCG_OK)
        return 1;
    *st = clcg_csr_from_coo(path, &a, 1, c);
    clcg_coo_free(&a);
    return *st != CLCG_OK ? 2 : 0;
}

static void test_shared_bad(const char *root)
{
    char index[512], line[1024];
    FILE *f;
    int files = 0;

    snprintf(index, sizeof index, "%s/bad/INDEX.md", root);
    f = fopen(index, "r");
    if (!f) {
        tap_ok(1, "# SKIP no %s", index);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        char name[256], expect[64], path[1024];
        const char *p = line, *q;
        size_t k, len;
        int r, is_sem = 0, valid, error;
        clcg_csr c;
        clcg_status st;

        /* "| file.mtx | expected | what |" */
        if (*p++ != '|')
            continue;
        while (*p == ' ')
            p++;
        q = strchr(p, '|');
        if (!q)
            continue;
        len = (size_t)(q - p);
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len < 5 || len >= sizeof name || strncmp(p + len - 4, ".mtx", 4) != 0)
            continue;
        memcpy(name, p, len);
        name[len] = '\0';
        p = q + 1;
        while (*p == ' ')
            p++;
        q = strchr(p, '|');
        if (!q)
            continue;
        len = (size_t)(q - p);
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if (len >= sizeof expect)
            continue;
        memcpy(expect, p, len);
        expect[len] = '\0';
        valid = strstr(expect, "valid") != NULL;
        error = strstr(expect, "error") != NULL;

        snprintf(path, sizeof path, "%s/bad/%s", root, name);
        for (k = 0; k < sizeof semantic / sizeof semantic[0]; k++)
            is_sem |= strcmp(name, semantic[k]) == 0;
        files++;
        r = read_assemble(path, &c, &st);
        if (r == 0) {
            int checked = 0, good = 1;
            for (k = 0; k < sizeof known / sizeof known[0]; k++)
                if (strcmp(name, known[k].name) == 0) {
                    checked = 1;
                    good = dense_equal(&c, known[k].n, known[k].a);
                }
            tap_ok((valid || is_sem) && good, "bad/%s (%s): read%s", name, expect,
                   checked ? (good ? ", matrix right" : ", WRONG matrix") : "");
            clcg_csr_free(&c);
        } else {
            const char *m = clcg_error_message();
            tap_ok((error || is_sem) && strstr(m, path) == m &&
                       (st == CLCG_ERR_INPUT || st == CLCG_ERR_NOT_SPD || st == CLCG_ERR_MEMORY),
                   "bad/%s (%s): %s refuses: %s", name, expect, r == 1 ? "reader" : "assembly",
                   m);
        }
    }
    fclose(f);
    tap_ok(files >= 30, "INDEX.md listed %d files", files);
}

static void test_shared_dir(const char *root, const char *sub, int must_read)
{
    char d[512];
    DIR *dp;
    struct dirent *e;

    snprintf(d, sizeof d, "%s/%s", root, sub);
    dp = opendir(d);
    if (!dp) {
        tap_ok(1, "# SKIP no %s", d);
        return;
    }
    while ((e = readdir(dp)) != NULL) {
        char path[1024], first[256] = "";
        size_t len = strlen(e->d_name), k;
        int r, refuse;
        clcg_csr c;
        clcg_status st;
        FILE *f;

        if (len < 5 || strcmp(e->d_name + len - 4, ".mtx") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", d, e->d_name);
        f = fopen(path, "r");
        if (f) {
            if (!fgets(first, sizeof first, f))
                first[0] = '\0';
            fclose(f);
        }
        for (k = 0; first[k]; k++)
            first[k] = (char)(first[k] >= 'A' && first[k] <= 'Z' ? first[k] - 'A' + 'a'
                                                                    : first[k]);
        refuse = strstr(first, "complex") != NULL || strncmp(e->d_name, "rect", 4) == 0;
        r = read_assemble(path, &c, &st);
        if (must_read)
            tap_ok(r == 0, "%s/%s reads and assembles%s%s", sub, e->d_name, r ? ": " : "",
                   r ? clcg_error_message() : "");
        else if (refuse)
            tap_ok(r != 0 && st == CLCG_ERR_INPUT, "%s/%s refused: %s", sub, e->d_name,
                   clcg_error_message());
        else
            tap_ok(1, "%s/%s: %s", sub, e->d_name, r ? clcg_error_message() : "reads");
        if (r == 0)
            clcg_csr_free(&c);
    }
    closedir(dp);
}

int main(int argc, char **argv)
{
    const char *root = getenv("CLCG_MATRICES");
    struct stat sb;

    MPI_Init(&argc, &argv);
    snprintf(dir, sizeof dir, "%s/clcg-mm-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        tap_skip_all("cannot create a temporary folder");
        MPI_Finalize();
        return 0;
    }

    test_valid();
    test_header();
    test_blocks();
    test_errors();
    test_vectors();
    if (root && *root && stat(root, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        test_shared_bad(root);
        test_shared_dir(root, "spd", 1);
        test_shared_dir(root, "not-spd", 0);
    } else {
        tap_diag("CLCG_MATRICES not set or not a folder: shared matrices skipped");
    }

    {   /* remove the temporary folder */
        DIR *dp = opendir(dir);
        struct dirent *e;
        while (dp && (e = readdir(dp)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                unlink(file_path(e->d_name));
        if (dp)
            closedir(dp);
        rmdir(dir);
    }
    MPI_Finalize();
    return tap_done();
}
