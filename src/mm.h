/* Matrix Market input and output: header, entries, vectors, CSR writer.
 *
 * Compatible with the NIST mmio typecodes: four letters
 *   type[0] 'M' matrix
 *   type[1] 'C' coordinate | 'A' array
 *   type[2] 'R' real | 'I' integer | 'P' pattern | 'C' complex
 *   type[3] 'G' general | 'S' symmetric | 'H' hermitian | 'K' skew-symmetric
 * The reader accepts real, integer and pattern fields with general or symmetric
 * storage; complex, hermitian and skew-symmetric files are refused, since CG here
 * solves real symmetric positive definite systems.
 *
 * Every input error is recorded once with clcg_error() as "FILE:LINE: what is
 * wrong" and returned as CLCG_ERR_INPUT; a file that cannot be read is
 * CLCG_ERR_IO.  Plain and gzip-compressed files (recognised by their magic bytes)
 * are both read in one pass, in large blocks. */
#ifndef CLCG_MM_H
#define CLCG_MM_H

#include "clcg.h"

typedef struct {
    char type[4];       /* NIST mmio typecode letters (not NUL-terminated) */
    int64_t nrows, ncols;
    int64_t nentries;   /* coordinate: the size line's count; array: nrows*ncols
                           (general) or n(n+1)/2 (symmetric) */
    int64_t data_offset;/* byte offset, in the uncompressed stream, of the first byte
                           after the size line */
    int64_t data_line;  /* 1-based number of the line after the size line */
    int gz;             /* the file is gzip-compressed */
} clcg_mm_header;

#define clcg_mm_is_coordinate(h) ((h)->type[1] == 'C')
#define clcg_mm_is_array(h) ((h)->type[1] == 'A')
#define clcg_mm_is_pattern(h) ((h)->type[2] == 'P')
#define clcg_mm_is_integer(h) ((h)->type[2] == 'I')
#define clcg_mm_is_symmetric(h) ((h)->type[3] == 'S')

/* Read a whole square matrix on one process.  a receives 0-based triplets,
 * a->n = size, a->symmetric set when the file stores one triangle; then every
 * off-diagonal entry is normalized to the lower triangle (max(i,j), min(i,j)), so
 * an upper-triangle entry is mirrored, never doubled.  Duplicates are kept as
 * separate triplets (assembly sums them).  Array files keep their zeros (+0)
 * out of the triplets.  a is overwritten (its old contents are not freed); on error it
 * is left empty. */
clcg_status clcg_mm_read_matrix(const char *path, clcg_mm_header *h, clcg_coo *a);

/* Header only (banner, comments, size line) of the matrix file at path, checked
 * as clcg_mm_read_matrix checks it: supported type, square, sizes the file and
 * the memory can hold. */
clcg_status clcg_mm_read_header(const char *path, clcg_mm_header *h);

/* Same from the first len bytes of a file held in memory (h->gz is set to 0).
 * whole != 0: buf is the whole file.  whole == 0: buf is a prefix, which must
 * hold the complete size line; the check against the file size is skipped.
 * path is only for messages. */
clcg_status clcg_mm_parse_header(const char *path, const char *buf, size_t len, int whole,
                                 clcg_mm_header *h);

/* A byte no Matrix Market text holds (control bytes but blanks and newlines, and DEL): the
 * parser's test. */
int clcg_mm_binary_byte(int c);
clcg_status clcg_mm_binary_error(const char *path, int64_t line, int byte);
/* Newlines in b[0..len). */
int64_t clcg_mm_count_newlines(const char *b, size_t len);

/* Parse the entry lines held in buf[0..len) (need not be NUL-terminated), whose
 * first line has number first_line.  Appends 0-based triplets, normalized as in
 * clcg_mm_read_matrix, to out and adds the number of entries seen to *count.
 * Coordinate files: *count on entry is only used to refuse more entries than
 * the header declares.  Array files: *count on entry must be the number of
 * entries before buf (it gives the position in column-major order).  Blank and
 * '%' lines are skipped.  Every error names path:line. */
clcg_status clcg_mm_parse_entries(const char *path, const clcg_mm_header *h, const char *buf,
                                  size_t len, int64_t first_line, clcg_coo *out,
                                  int64_t *count);

/* zlib's message without its "<fd:N>: " (a descriptor opened with gzdopen) or "PATH: "
 * prefix: the same words on every rank count, the file named once. */
const char *clcg_gz_message(const char *path, const char *zmsg);

/* After text inflated from gzip made no sense (gz: a gzFile, read part of the way): the rest
 * inflated to its end, so that corrupt data, which inflates to garbage until the checksum at
 * the end gives it away, is named as such instead of the garbage.  1: it was corrupt, the
 * error is now that (CLCG_ERR_INPUT); 0: sound, the error stands. */
int clcg_gz_blame(void *gz, const char *path);

/* A symmetric file stores one triangle; upper entries are mirrored, so one that also has
 * lower ones may give a pair twice: refused (with the first line of each side, 0 none). */
clcg_status clcg_mm_one_triangle(const char *path, int64_t line_below, int64_t line_above);

/* A square coordinate file with fewer entries than rows leaves a diagonal entry out (not
 * positive definite): clcg_mm_enough_entries refuses it (CLCG_ERR_NOT_SPD, the size line
 * named), before anything of the size of its rows is made. */
#define clcg_mm_too_few_entries(h) \
    (clcg_mm_is_coordinate(h) && (h)->nrows == (h)->ncols && (h)->nentries < (h)->nrows)
clcg_status clcg_mm_enough_entries(const char *path, const clcg_mm_header *h);

/* Right-hand side: an array n x 1 (real or integer, general) or a coordinate
 * n x 1 (missing entries are 0, duplicates summed).  It must have exactly n rows.
 * *x is allocated with clcg_malloc; the caller frees it. */
clcg_status clcg_mm_read_vector(const char *path, int64_t n, double **x);

/* Write x as "%%MatrixMarket matrix array real general", n x 1, with %.17g
 * values.  Output goes to PATH.tmp.PID, renamed to PATH when complete, so no
 * partial file ever exists under PATH.  Non-finite values are refused. */
clcg_status clcg_mm_write_vector(const char *path, const double *x, int64_t n);

/* An output written in full but not yet in place: its temporary file, renamed onto target
 * by clcg_held_commit or removed by clcg_held_drop (both do nothing when tmp is NULL, as for
 * an output written in place: a descriptor, a pipe, a device). */
typedef struct {
    char *tmp, *target;
    const char *path;
    int slot;   /* of the signal guard (clcg_tmp_hold) */
} clcg_held;

/* rename(tmp, target), an existing file at target first giving its permission bits to tmp, so
 * that a file made private (or shared with a group) stays so when a run replaces it. */
int clcg_rename_into_place(const char *tmp, const char *target);

/* Hand tmp and target (malloc'd; owned by h from here) to h, guarded as a held file. */
void clcg_held_keep(clcg_held *h, char *tmp, char *target, const char *path);

/* clcg_mm_write_vector, but with held != NULL the rename is left to clcg_held_commit, so that
 * a run that fails after it (its --json) leaves a file of the same name as it was. */
clcg_status clcg_mm_write_vector_held(const char *path, const double *x, int64_t n, clcg_held *held);
clcg_status clcg_held_commit(clcg_held *h);
void clcg_held_drop(clcg_held *h);

/* Write a single-rank CSR matrix as coordinate real: the lower triangle with
 * "symmetric" if sym != 0, else every entry with "general".  Same temporary file
 * and rename rule. */
clcg_status clcg_mm_write_csr(const char *path, const clcg_csr *a, int sym);
/* The same, with the rename left to clcg_held_commit (held != NULL). */
clcg_status clcg_mm_write_csr_held(const char *path, const clcg_csr *a, int sym, clcg_held *held);

/* Bytes the reader reads at a time (default 16 MiB), which is also the longest
 * line it accepts.  Returns the previous value.  Tests set it small to put line
 * breaks at block boundaries. */
size_t clcg_mm_set_block_size(size_t bytes);

#endif
