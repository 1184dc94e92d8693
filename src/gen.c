/* Generated model problems: 2D/3D Poisson (5-, 7- and 27-point), built row by row. */
#include "clcg_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int parse_dims(const char *s, int64_t *d, int maxd)
{
    int k = 0;
    while (*s) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (end == s || errno || v < 1 || v > 100000000LL || k == maxd)
            return -1;
        d[k++] = v;
        s = end;
        if (*s == ',' || *s == 'x')
            s++;
        else if (*s)
            return -1;
    }
    return k;
}

clcg_status clcg_gen_parse(const char *spec, int nranks, clcg_gen *g)
{
    const char *colon = strchr(spec, ':');
    int64_t d[3] = {0, 0, 0};
    int k;
    memset(g, 0, sizeof *g);
    if (!colon)
        return clcg_error(CLCG_ERR_USAGE,
                          "--generate %s: expected KIND:SIZE, e.g. poisson3d:64 or poisson2d:100", spec);
    size_t klen = (size_t)(colon - spec);
    k = parse_dims(colon + 1, d, 3);
    if (klen == 9 && !strncmp(spec, "poisson2d", klen)) {
        if (k != 1 && k != 2)
            return clcg_error(CLCG_ERR_USAGE, "--generate %s: poisson2d takes N or NX,NY (positive)", spec);
        g->kind = CLCG_GEN_POISSON2D;
        g->nx = d[0];
        g->ny = k == 2 ? d[1] : d[0];
        g->nz = 1;
    } else if ((klen == 9 && !strncmp(spec, "poisson3d", klen)) ||
               (klen == 11 && !strncmp(spec, "poisson3d27", klen))) {
        if (k != 1 && k != 3)
            return clcg_error(CLCG_ERR_USAGE, "--generate %s: %.*s takes N or NX,NY,NZ (positive)",
                              spec, (int)klen, spec);
        g->kind = klen == 9 ? CLCG_GEN_POISSON3D : CLCG_GEN_POISSON3D27;
        g->nx = d[0];
        g->ny = k == 3 ? d[1] : d[0];
        g->nz = k == 3 ? d[2] : d[0];
    } else {
        return clcg_error(CLCG_ERR_USAGE,
                          "--generate %s: unknown kind '%.*s' (poisson2d, poisson3d, poisson3d27)",
                          spec, (int)klen, spec);
    }
    (void)nranks;
    if (g->nx > INT32_MAX / g->ny || g->nx * g->ny > INT64_MAX / 27 / g->nz)
        return clcg_error(CLCG_ERR_USAGE, "--generate %s: problem too large", spec);
    g->n = g->nx * g->ny * g->nz;
    snprintf(g->name, sizeof g->name, "%.*s:%" PRId64 ",%" PRId64 ",%" PRId64, (int)klen, spec,
             g->nx, g->ny, g->nz);
    return CLCG_OK;
}

int64_t clcg_gen_row_nnz(const clcg_gen *g, int64_t i)
{
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
    for (int64_t i = row0; i < row0 + nrows; i++)
        nnz += clcg_gen_row_nnz(g, i);
    out->n = g->n;
    out->symmetric = 0;
    CLCG_CALL(clcg_coo_reserve(out, out->len + nnz));
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
                        CLCG_CALL(clcg_coo_push(out, i, j, j == i ? 26.0 : -1.0));
                    }
            continue;
        }
        /* 5/7-point stencil, columns ascending */
        double diag = g->kind == CLCG_GEN_POISSON2D ? 4.0 : 6.0;
        if (z > 0) CLCG_CALL(clcg_coo_push(out, i, i - sxy, -1.0));
        if (y > 0) CLCG_CALL(clcg_coo_push(out, i, i - nx, -1.0));
        if (x > 0) CLCG_CALL(clcg_coo_push(out, i, i - 1, -1.0));
        CLCG_CALL(clcg_coo_push(out, i, i, diag));
        if (x < nx - 1) CLCG_CALL(clcg_coo_push(out, i, i + 1, -1.0));
        if (y < ny - 1) CLCG_CALL(clcg_coo_push(out, i, i + nx, -1.0));
        if (z < nz - 1) CLCG_CALL(clcg_coo_push(out, i, i + sxy, -1.0));
    }
    return CLCG_OK;
}
