/* Generated model problems, built row by row: 2D/3D Poisson (5-, 7- and 27-point, fixed or
 * per-rank "weak" sizes) and a random SPD graph Laplacian A = L + I with power-law rows.
 *
 * random:N,AVG,SEED.  Off-diagonal a_ij = -w_ij, w_ij in (0.5, 1.5] a hash of {i,j};
 * a_ii = s_i + sum_j w_ij with s_i in (0.5, 1.5] a hash of i, so A is symmetric and strictly
 * diagonally dominant, hence SPD.  (A constant shift would make the ones vector, and so
 * b = A*1, an eigenvector: CG would stop after one step.)
 * The edges come from three rules, each one decidable in O(1) from either end:
 *   path   (i, i+1) for every i, so no row is empty and the graph is connected;
 *   long   (i, i+d_k) when hash_k(i) < p, for a few offsets d_k >= 4096 drawn from the seed
 *          (log-uniform up to N/2): the low-degree bulk and the long-range coupling;
 *   hub    levels L = 0..7 cut the rows into aligned blocks of 32<<L rows.  In each block
 *          one row whose index is L mod 32 is the hub (its place within the block hashed);
 *          a row j with j mod 32 >= 8 joins the hub of its level-L block when
 *          hash_L(j) < q and |j - hub| >= 2.  A level-L hub has about 24*2^L*q entries,
 *          and there are half as many hubs at each level up: P(degree >= k) ~ 1/k up to
 *          about 3072*q.  Rows j mod 32 < 8 that are no hub keep only path and long edges.
 * The three sets are disjoint (distance 1; 2..4095 within a block; >= 4096), hubs of
 * different levels are different rows and never members, so a row has no duplicate
 * columns and comes out sorted without a sort.  A member row tests 8 levels in O(1)
 * each; a hub row scans its block, O(block) = O(its entries / q).  Summed over all rows
 * that is O(N) per level, so clcg_gen_row_nnz over all rows stays linear. */
#include "clcg_impl.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define RND_PERIOD 32                                      /* hub residues 0..LEVELS-1 */
#define RND_BLOCK_BITS 5                                   /* level-L block: 32 << L rows */
#define RND_SPAN (1 << (RND_BLOCK_BITS + CLCG_GEN_LEVELS - 1)) /* widest block, 4096 */
#define RND_HUB_SHARE 0.7                                  /* of the edges beyond the path */
#define RND_MAX_Q 0.9
#define RND_MAX_AVG 256.0

static const char gen_usage[] =
    "kinds: poisson2d:N | poisson2d:NX,NY; poisson3d:N | poisson3d:NX,NY,NZ (7-point); "
    "poisson3d27:N | poisson3d27:NX,NY,NZ (27-point); the same with -weak "
    "(poisson3d-weak:N is N x N x N*P on P ranks, an N^3 slab each); "
    "random:N[,AVG[,SEED]] (SPD, power-law rows, AVG entries per row, 3..256, default 16)";

static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static inline uint64_t hash_key(uint64_t key, uint64_t x)
{
    return mix64(x * 0x9e3779b97f4a7c15ull ^ key);
}

/* hash_key(key, x) below a probability threshold given in units of 2^-53 */
static inline int hash_below(uint64_t key, uint64_t x, uint64_t thr)
{
    return (hash_key(key, x) >> 11) < thr;
}

static uint64_t prob_threshold(double p)
{
    if (p <= 0)
        return 0;
    if (p >= 1)
        return (uint64_t)1 << 53;
    return (uint64_t)(p * 9007199254740992.0);
}

/* strtoll and strtod skip leading white space (isspace): a size is refused with it before
 * the number as after it */
static int parse_dims(const char *s, int64_t *d, int maxd)
{
    int k = 0;
    while (*s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v < 1 || v > 100000000LL || k == maxd || isspace((unsigned char)*s))
            return -1;
        d[k++] = v;
        s = end;
        if (*s == ',' || *s == 'x') {
            if (!*++s)
                return -1;   /* a separator ends the sizes */
        } else if (*s) {
            return -1;
        }
    }
    return k;
}

/* ---- random: hubs, long offsets, weights ---- */

/* The hub of the level-L block holding row i (may be >= n in the last block). */
static inline int64_t rnd_hub(const clcg_gen *g, int L, int64_t i)
{
    int64_t b = i >> (RND_BLOCK_BITS + L);
    uint64_t slot = hash_key(g->hub_key[L], (uint64_t)b) & (((uint64_t)1 << L) - 1);
    return (b << (RND_BLOCK_BITS + L)) + (int64_t)(slot << RND_BLOCK_BITS) + L;
}

static inline int rnd_member_of(const clcg_gen *g, int L, int64_t j, int64_t h)
{
    return h < g->n && (j - h >= 2 || h - j >= 2) &&
           hash_below(g->member_key[L], (uint64_t)j, g->hub_thr);
}

static inline int rnd_long(const clcg_gen *g, int k, int64_t lower)
{
    return hash_below(g->long_key[k], (uint64_t)lower, g->long_thr);
}

/* w in (0.5, 1.5] for the edge {a, b}, a < b */
static inline double rnd_weight(const clcg_gen *g, int64_t a, int64_t b)
{
    uint64_t h = mix64(mix64((uint64_t)a ^ g->weight_key) ^ (uint64_t)b * 0x9e3779b97f4a7c15ull);
    return 1.5 - (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* The next row after j that can be a member (j mod 32 >= LEVELS). */
static inline int64_t rnd_next_member(int64_t j)
{
    return (j & (RND_PERIOD - 1)) == RND_PERIOD - 1 ? j + CLCG_GEN_LEVELS + 1 : j + 1;
}

/* s_i in (0.5, 1.5]: the diagonal's margin over the row's off-diagonals */
static inline double rnd_shift(const clcg_gen *g, int64_t i)
{
    uint64_t h = hash_key(g->weight_key ^ 0x5bd1e9955bd1e995ull, (uint64_t)i);
    return 1.5 - (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* Row i is a hub at level L = i mod 32 (< LEVELS) when it is its block's chosen row. */
static inline int rnd_hub_level(const clcg_gen *g, int64_t i)
{
    int L = (int)(i & (RND_PERIOD - 1));
    return L < CLCG_GEN_LEVELS && rnd_hub(g, L, i) == i ? L : -1;
}

/* Offsets from the seed: log-uniform integers in [4096, max(4096, n/2)], distinct, ascending. */
static void rnd_draw_offsets(clcg_gen *g, int m)
{
    int64_t lo = RND_SPAN, hi = g->n / 2 > lo ? g->n / 2 : lo;
    int emin = 0, emax = 0;
    while (((int64_t)1 << (emin + 1)) <= lo)
        emin++;
    while (((int64_t)1 << (emax + 1)) <= hi)
        emax++;
    uint64_t key = mix64(g->seed ^ 0x6c6f6e67ull);
    for (int k = 0; k < m; k++) {
        uint64_t h = hash_key(key, (uint64_t)k);
        int e = emin + (int)(h % (uint64_t)(emax - emin + 1));
        int64_t d = ((int64_t)1 << e) + (int64_t)((h >> 20) & (((uint64_t)1 << e) - 1));
        d = d < lo ? lo : d > hi ? hi : d;
        int pos = k;   /* insertion sort: m is small and this runs once */
        while (pos > 0 && g->long_off[pos - 1] > d) {
            g->long_off[pos] = g->long_off[pos - 1];
            pos--;
        }
        g->long_off[pos] = d;
    }
    for (int k = 1; k < m; k++)
        if (g->long_off[k] <= g->long_off[k - 1])
            g->long_off[k] = g->long_off[k - 1] + 1;
    for (int k = 0; k < m; k++)
        g->long_key[k] = mix64(g->seed * 0xd1342543de82ef95ull + (uint64_t)(k + 1));
    g->nlong = m;
}

/* Pick q (hub edges) and p with the number of long offsets so that nnz/n is near AVG:
 * E[nnz/n] = 1 + 2 + 2*(3/4)*LEVELS*q + 2*p*sum_k (n - d_k)/n. */
static void rnd_setup(clcg_gen *g)
{
    const double member_frac = (double)(RND_PERIOD - CLCG_GEN_LEVELS) / RND_PERIOD;
    const double per_q = 2 * member_frac * CLCG_GEN_LEVELS;
    double rest = g->avg_degree - 3;
    double hub = RND_HUB_SHARE * rest;
    if (hub > per_q * RND_MAX_Q)
        hub = per_q * RND_MAX_Q;
    double q = hub / per_q, p = 0;
    rest -= hub;
    g->weight_key = mix64(g->seed ^ 0x77656967ull);
    for (int L = 0; L < CLCG_GEN_LEVELS; L++) {
        g->member_key[L] = mix64(g->seed * 0xa0761d6478bd642full + 2 * (uint64_t)L + 1);
        g->hub_key[L] = mix64(g->seed * 0xa0761d6478bd642full + 2 * (uint64_t)L + 2);
    }
    g->hub_thr = prob_threshold(q);
    g->nlong = 0;
    if (rest > 0 && g->n > RND_SPAN) {
        for (int m = 1; m <= CLCG_GEN_MAX_LONG; m++) {
            double reach = 0;
            rnd_draw_offsets(g, m);
            for (int k = 0; k < m; k++)
                if (g->long_off[k] < g->n)
                    reach += (double)(g->n - g->long_off[k]) / (double)g->n;
            p = reach > 0 ? rest / (2 * reach) : 1;
            if (p <= 0.5)
                break;
        }
    }
    g->long_thr = prob_threshold(g->nlong ? p : 0);
}

static int64_t rnd_row_nnz(const clcg_gen *g, int64_t i)
{
    const int64_t n = g->n;
    int64_t c = 1 + (i > 0) + (i < n - 1);
    for (int k = 0; k < g->nlong; k++) {
        int64_t d = g->long_off[k];
        if (i + d >= n && i - d < 0)
            break;
        c += i + d < n && rnd_long(g, k, i);
        c += i - d >= 0 && rnd_long(g, k, i - d);
    }
    int L = rnd_hub_level(g, i);
    if (L >= 0) {
        int64_t b0 = i & ~(((int64_t)RND_PERIOD << L) - 1);
        int64_t b1 = b0 + ((int64_t)RND_PERIOD << L) < n ? b0 + ((int64_t)RND_PERIOD << L) : n;
        for (int64_t j = b0 + CLCG_GEN_LEVELS; j < b1; j = rnd_next_member(j))
            c += rnd_member_of(g, L, j, i);
    } else if ((i & (RND_PERIOD - 1)) >= CLCG_GEN_LEVELS) {
        for (L = 0; L < CLCG_GEN_LEVELS; L++)
            if (hash_below(g->member_key[L], (uint64_t)i, g->hub_thr)) {
                int64_t h = rnd_hub(g, L, i);
                c += h < n && (i - h >= 2 || h - i >= 2);
            }
    }
    return c;
}

static inline void put(clcg_coo *out, int64_t i, int64_t j, double v)
{
    out->row[out->len] = i;
    out->col[out->len] = j;
    out->val[out->len] = v;
    out->len++;
}

/* Off-diagonal (i, j) of random: appended, its weight added to *sum. */
static inline void put_edge(const clcg_gen *g, clcg_coo *out, int64_t i, int64_t j, double *sum)
{
    double w = i < j ? rnd_weight(g, i, j) : rnd_weight(g, j, i);
    *sum += w;
    put(out, i, j, -w);
}

/* Row i of random, columns ascending: long below, hub edges below, i-1, i, i+1, hub edges
 * above, long above (hub edges lie at distance 2..4095, long ones at >= 4096). */
static void rnd_row(const clcg_gen *g, int64_t i, clcg_coo *out)
{
    const int64_t n = g->n;
    int64_t near[CLCG_GEN_LEVELS];
    int nnear = 0, L = rnd_hub_level(g, i);
    double sum = 0;
    for (int k = g->nlong - 1; k >= 0; k--) {
        int64_t j = i - g->long_off[k];
        if (j >= 0 && rnd_long(g, k, j))
            put_edge(g, out, i, j, &sum);
    }
    if (L < 0 && (i & (RND_PERIOD - 1)) >= CLCG_GEN_LEVELS) {
        for (int l = 0; l < CLCG_GEN_LEVELS; l++)
            if (hash_below(g->member_key[l], (uint64_t)i, g->hub_thr)) {
                int64_t h = rnd_hub(g, l, i);
                if (h < n && (i - h >= 2 || h - i >= 2)) {
                    int pos = nnear++;
                    while (pos > 0 && near[pos - 1] > h) {
                        near[pos] = near[pos - 1];
                        pos--;
                    }
                    near[pos] = h;
                }
            }
    }
    int64_t b0 = 0, b1 = 0, j = 0;
    int t = 0;
    if (L >= 0) {
        b0 = i & ~(((int64_t)RND_PERIOD << L) - 1);
        b1 = b0 + ((int64_t)RND_PERIOD << L) < n ? b0 + ((int64_t)RND_PERIOD << L) : n;
        for (j = b0 + CLCG_GEN_LEVELS; j < i; j = rnd_next_member(j))
            if (rnd_member_of(g, L, j, i))
                put_edge(g, out, i, j, &sum);
    }
    for (; t < nnear && near[t] < i; t++)
        put_edge(g, out, i, near[t], &sum);
    if (i > 0)
        put_edge(g, out, i, i - 1, &sum);
    int64_t diag = out->len;
    put(out, i, i, 0);
    if (i < n - 1)
        put_edge(g, out, i, i + 1, &sum);
    if (L >= 0) {
        for (; j < b1; j = rnd_next_member(j))
            if (rnd_member_of(g, L, j, i))
                put_edge(g, out, i, j, &sum);
    }
    for (; t < nnear; t++)
        put_edge(g, out, i, near[t], &sum);
    for (int k = 0; k < g->nlong; k++) {
        int64_t jj = i + g->long_off[k];
        if (jj >= n)
            break;
        if (rnd_long(g, k, i))
            put_edge(g, out, i, jj, &sum);
    }
    out->val[diag] = rnd_shift(g, i) + sum;
}

/* ---- parsing ---- */

static int kind_is(const char *spec, size_t klen, const char *name)
{
    return strlen(name) == klen && !strncmp(spec, name, klen);
}

static clcg_status parse_random(const char *spec, const char *s, clcg_gen *g)
{
    char *end;
    errno = 0;
    long long n = strtoll(s, &end, 10);
    if (end == s || errno || n < 1 || n > ((long long)1 << 40) || isspace((unsigned char)*s))
        goto bad;
    g->n = n;
    g->avg_degree = 16;
    g->seed = 1;
    if (*end == ',') {
        s = end + 1;
        errno = 0;
        double avg = strtod(s, &end);
        if (end == s || errno || !(avg >= 3 && avg <= RND_MAX_AVG) || isspace((unsigned char)*s))
            goto bad;
        g->avg_degree = avg;
        if (*end == ',') {
            s = end + 1;
            errno = 0;
            if (*s == '-' || *s == '+' || isspace((unsigned char)*s))
                goto bad;
            unsigned long long seed = strtoull(s, &end, 10);
            if (end == s || errno)
                goto bad;
            g->seed = seed;
        }
    }
    if (*end)
        goto bad;
    g->kind = CLCG_GEN_RANDOM;
    rnd_setup(g);
    /* AVG as the shortest form that reads back as the same double: the name (the report's,
     * the record's "matrix") must give this very matrix again, and a tiny change of AVG can
     * change the long-range offsets drawn (random:5000,27.9614004 is not random:5000,27.9614) */
    char avg[32];
    snprintf(g->name, sizeof g->name, "random:%" PRId64 ",%s,%" PRIu64, g->n,
             clcg_show_double(g->avg_degree, avg), g->seed);
    return CLCG_OK;
bad:
    return clcg_error(CLCG_ERR_USAGE,
                      "--generate %s: random takes N[,AVG[,SEED]]: N in [1, 2^40] rows, AVG in [3, 256] "
                      "entries per row (default 16), SEED an unsigned integer (default 1)", spec);
}

static clcg_status gen_parse(const char *spec, int nranks, clcg_gen *g)
{
    const char *colon = strchr(spec, ':');
    int64_t d[3] = {0, 0, 0};
    int k;
    memset(g, 0, sizeof *g);
    if (!colon)
        return clcg_error(CLCG_ERR_USAGE, "--generate %s: expected KIND:SIZE; %s", spec, gen_usage);
    size_t klen = (size_t)(colon - spec);
    if (kind_is(spec, klen, "random"))
        return parse_random(spec, colon + 1, g);
    g->weak = klen > 5 && !strncmp(spec + klen - 5, "-weak", 5);
    size_t base = g->weak ? klen - 5 : klen;
    k = parse_dims(colon + 1, d, 3);
    if (kind_is(spec, base, "poisson2d")) {
        if (k != 1 && k != 2)
            return clcg_error(CLCG_ERR_USAGE, "--generate %s: %.*s takes N or NX,NY (each in 1..100000000)%s",
                              spec, (int)klen, spec, g->weak ? ", the size on each rank" : "");
        g->kind = CLCG_GEN_POISSON2D;
        g->nx = d[0];
        g->ny = k == 2 ? d[1] : d[0];
        g->nz = 1;
        if (g->weak)
            g->ny *= nranks;
    } else if (kind_is(spec, base, "poisson3d") || kind_is(spec, base, "poisson3d27")) {
        if (k != 1 && k != 3)
            return clcg_error(CLCG_ERR_USAGE, "--generate %s: %.*s takes N or NX,NY,NZ (each in 1..100000000)%s",
                              spec, (int)klen, spec, g->weak ? ", the size on each rank" : "");
        g->kind = base == 9 ? CLCG_GEN_POISSON3D : CLCG_GEN_POISSON3D27;
        g->nx = d[0];
        g->ny = k == 3 ? d[1] : d[0];
        g->nz = k == 3 ? d[2] : d[0];
        if (g->weak)
            g->nz *= nranks;
    } else {
        return clcg_error(CLCG_ERR_USAGE, "--generate %s: unknown kind '%.*s'; %s", spec,
                          (int)klen, spec, gen_usage);
    }
    if (g->nx > INT32_MAX / g->ny)
        return clcg_error(CLCG_ERR_USAGE, "--generate %s: NX x NY = %" PRId64 " x %" PRId64 " is more than 2^31 - 1 "
                          "(the limit of the Poisson generators)", spec, g->nx, g->ny);
    if (g->nx * g->ny > INT64_MAX / 27 / g->nz)
        return clcg_error(CLCG_ERR_USAGE, "--generate %s: problem too large", spec);
    g->n = g->nx * g->ny * g->nz;
    /* the sizes as --generate takes them: NX,NY for poisson2d, NX,NY,NZ for the others */
    char sizes[64];
    if (g->kind == CLCG_GEN_POISSON2D)
        snprintf(sizes, sizeof sizes, "%" PRId64 ",%" PRId64, g->nx, g->ny);
    else
        snprintf(sizes, sizeof sizes, "%" PRId64 ",%" PRId64 ",%" PRId64, g->nx, g->ny, g->nz);
    if (g->weak)
        snprintf(g->name, sizeof g->name, "%.*s:%s (weak, %d rank%s)", (int)base, spec, sizes, nranks,
                 nranks == 1 ? "" : "s");
    else
        snprintf(g->name, sizeof g->name, "%.*s:%s", (int)klen, spec, sizes);
    return CLCG_OK;
}

/* A rank's rows are numbered with 32-bit indices on its devices: more rows than ranks can
 * hold that way is refused here, before any rank walks all of them to partition. */
clcg_status clcg_gen_parse(const char *spec, int nranks, clcg_gen *g)
{
    if (nranks < 1)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_gen_parse: %d ranks", nranks);
    CLCG_CALL(gen_parse(spec, nranks, g));
    char what[4200];
    snprintf(what, sizeof what, "--generate %s", spec);
    return clcg_rows_fit(g->n, nranks, what);
}

/* ---- rows ---- */

int64_t clcg_gen_row_nnz(const clcg_gen *g, int64_t i)
{
    if (g->kind == CLCG_GEN_RANDOM)
        return rnd_row_nnz(g, i);
    int64_t x = i % g->nx, y = (i / g->nx) % g->ny, z = i / (g->nx * g->ny);
    int cx = 1 + (x > 0) + (x < g->nx - 1);
    int cy = 1 + (y > 0) + (y < g->ny - 1);
    int cz = 1 + (z > 0) + (z < g->nz - 1);
    switch (g->kind) {
    case CLCG_GEN_POISSON2D:
        return cx + cy - 1;
    case CLCG_GEN_POISSON3D:
        return cx + cy + cz - 2;
    case CLCG_GEN_POISSON3D27:
        return (int64_t)cx * cy * cz;
    default:
        return 0;
    }
}

clcg_status clcg_gen_rows(const clcg_gen *g, int64_t row0, int64_t nrows, clcg_coo *out)
{
    int64_t nnz = 0;
    if (row0 < 0 || nrows < 0 || row0 > g->n - nrows)
        return clcg_error(CLCG_ERR_INTERNAL, "clcg_gen_rows: rows [%" PRId64 ", %" PRId64
                          ") outside [0, %" PRId64 ")", row0, row0 + nrows, g->n);
    for (int64_t i = row0; i < row0 + nrows; i++)
        nnz += clcg_gen_row_nnz(g, i);
    out->n = g->n;
    out->symmetric = 0;
    CLCG_CALL(clcg_coo_reserve(out, out->len + nnz));
    if (g->kind == CLCG_GEN_RANDOM) {
        int64_t len0 = out->len;
        for (int64_t i = row0; i < row0 + nrows; i++)
            rnd_row(g, i, out);
        if (out->len - len0 != nnz)
            return clcg_error(CLCG_ERR_INTERNAL, "clcg_gen_rows: %" PRId64 " entries for %"
                              PRId64 " counted", out->len - len0, nnz);
        return CLCG_OK;
    }
    const int64_t nx = g->nx, ny = g->ny, nz = g->nz, sxy = nx * ny;
    for (int64_t i = row0; i < row0 + nrows; i++) {
        int64_t x = i % nx, y = (i / nx) % ny, z = i / sxy;
        if (g->kind == CLCG_GEN_POISSON3D27) {
            for (int dz = -1; dz <= 1; dz++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int64_t X = x + dx, Y = y + dy, Z = z + dz;
                        if (X < 0 || X >= nx || Y < 0 || Y >= ny || Z < 0 || Z >= nz)
                            continue;
                        int64_t j = X + nx * Y + sxy * Z;
                        put(out, i, j, j == i ? 26.0 : -1.0);
                    }
            continue;
        }
        /* 5/7-point stencil, columns ascending */
        double diag = g->kind == CLCG_GEN_POISSON2D ? 4.0 : 6.0;
        if (z > 0) put(out, i, i - sxy, -1.0);
        if (y > 0) put(out, i, i - nx, -1.0);
        if (x > 0) put(out, i, i - 1, -1.0);
        put(out, i, i, diag);
        if (x < nx - 1) put(out, i, i + 1, -1.0);
        if (y < ny - 1) put(out, i, i + nx, -1.0);
        if (z < nz - 1) put(out, i, i + sxy, -1.0);
    }
    return CLCG_OK;
}
