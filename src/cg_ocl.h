/* The rank's rows on its OpenCL devices: matrix formats, buffers, kernels, launches. */
#ifndef CLCG_CG_OCL_H
#define CLCG_CG_OCL_H

#include "ocl.h"
#include "solve.h"

#define CLCG_MAX_DEVS 16

typedef enum { FMT_CSR_SCALAR = 0, FMT_CSR_VECTOR, FMT_SELL, FMT_CSR_ADAPTIVE, FMT_CSR_STREAM } clcg_fmt;

/* csr-stream: entries of a block of short rows held in local memory at once (mirrors
 * STREAM_CAP in cl/spmv.cl); also the most rows in one block */
#define CLCG_STREAM_CAP 2048
/* csr-stream: rows of up to this many entries are summed in entry order, longer ones in 32
 * strided lanes and a tree (mirrors STREAM_SEQ in cl/spmv.cl; the tests emulate both) */
#define CLCG_STREAM_SEQ 128

/* csr-adaptive: rows binned by length, each bin multiplied by the kernel that suits it */
enum { NBINS = 3 };
#define BIN_SHORT_MAX 32     /* rows up to this length: a team of 4 per row */
#define BIN_MEDIUM_MAX 1024  /* up to this: a team of 32; longer: a whole work-group */

/* kernels, in profile-table order */
enum {
    K_SPMV_CG = 0, K_SPMV, K_UPDATE_P_CG, K_UPDATE_XR, K_UPDATE_P, K_UPDATE_P_LIST, K_UPDATE_SR, K_UPDATE_PIPE, K_RESIDUAL_INIT,
    K_REDUCE, K_CHECK, K_PACK, K_DOT, K_JACOBI, K_UPDATE_R, K_AXPY, K_COUNT
};

enum { EXT_U, EXT_W, EXT_Z, EXT_Q, EXT_S, EXT_COUNT };   /* vectors of the other CG variants */

typedef struct {
    size_t wg, ng;          /* local size, number of work-groups */
    size_t off;             /* global offset (0: none): the first work-item's number */
} clcg_launch;

/* One device's share of the rank's rows. */
typedef struct {
    clcg_dev dev;
    int64_t row_lo, nrows, ncols, nnz;   /* rank-local first row, owned rows, + ghosts */
    clcg_fmt fmt;
    unsigned vs, C;                      /* CSR vector team size, SELL slice height */
    cl_mem ptr, col, val;                /* CSR row pointers or SELL slice pointers */
    cl_mem x, r, q, b, dinv, p[2];
    cl_mem part_pq, part_rz[2], part_rr[2], red, g_rz[2], g_pq, g_rr, scal;
    cl_mem glob;                         /* g_rz[0], g_rz[1], g_rr, g_pq: slots 0-3 of it, gstep bytes apart */
    size_t gstep;
    cl_mem pack_idx, pack_buf, rows_int, rows_bnd;
    cl_mem ext[EXT_COUNT];                /* allocated for the variant in use */
    cl_mem sp_in, sp_out;                /* what the exchange + SpMV step multiplies */
    const double *scale;                 /* set before upload: solve D^-1/2 A D^-1/2 (Jacobi by scaling) */
    cl_mem wrr;                          /* then d_i, the weights of r'r */
    cl_mem bin_rows[NBINS];              /* csr-adaptive row lists */
    int64_t bin_n[NBINS];
    unsigned bin_vs[NBINS];
    cl_kernel kbin_dot[NBINS], kbin_cg[2][NBINS];
    int nbins_used;                      /* non-empty bins (launches per SpMV) */
    cl_mem blk;                          /* csr-stream: first row of each block, then nrows; then
                                          * each block's longer rows (clcg_stream_longs) */
    int64_t nblk;
    cl_mem hpin_pack, hpin_ghost, hpin_red, hpin_glob;  /* pinned host staging */
    double *hpack, *hghost, *hred, *hglob;              /* their mapped pointers */
    int64_t npack, nint, nbnd;
    int64_t int_first, bnd_first;        /* the first interior / boundary row when those rows
                                          * are one run, else -1 */
    cl_mem rows_pb;                      /* boundary rows and rows others need: p formed first */
    int64_t npb;
    cl_event pack_ev;                    /* the boundary read of this iteration */
    cl_event red_ev;                     /* the read of a reduction point's sums */
    cl_event sum_ev;                     /* a launch whose last work-group summed them into red */
    cl_mem ticket;                       /* its count of finished work-groups (one uint, 0 between launches) */
    cl_event packed_ev;                  /* update_p_pack of this iteration (the pack read waits) */
    cl_event int_ev;                     /* the interior SpMV, while the ghosts' arrival is watched */
    cl_event side_ev;                    /* the boundary SpMV on xq, beside the interior one (what
                                            comes after the reduction on the device queue waits) */
    cl_event p_ev;                       /* update_p where its pack went first or there is none
                                            (the boundary SpMV beside waits for it) */
    int pf_seen, pf_late;                /* iterations watched, and those whose ghosts came when
                                            the interior SpMV had already ended (cg_ocl.c: pack_first) */
    cl_command_queue xq;                 /* ghost writes, beside the interior SpMV (made on first use) */
    int64_t *pack_dst;       /* pack entry k -> rank-local row */
    int64_t *ghost_src;      /* device ghost k -> rank-local column */
    cl_kernel k[K_COUNT];
    cl_kernel kcg[2], kxr[2], kpc[2];    /* fused-path kernels, args preset per parity */
    clcg_launch spmv, vec;
    size_t nparts;                       /* room for partial sums (per half) */
    size_t npq_parts;                    /* p'q partial sums written this iteration */
} clcg_slice;

/* profiling events waiting to be read */
typedef struct {
    cl_event *ev;
    int *kid;
    int n, cap;
    double time[K_COUNT];
    int64_t calls[K_COUNT];
    double bytes[K_COUNT];
} clcg_prof;

/* Rows [lo,hi) of the rank's A on this device; needed[i] marks rank-local rows whose p
 * entries leave the device.  The ghost pack holds those rows in ascending order, or, when
 * order is given, the rows order[0..norder) in that order (repeats allowed). */
clcg_status clcg_slice_upload(clcg_slice *s, const clcg_csr *A, int64_t lo, int64_t hi,
                              const unsigned char *needed, const int32_t *order, int64_t norder,
                              clcg_fmt fmt, int jacobi);
void clcg_slice_free(clcg_slice *s);
/* Row-length statistics that choose the storage form: of one rank's rows, or summed (and the
 * longest row) over all ranks. */
typedef struct {
    int64_t nrows, nnz, maxlen;
} clcg_row_stats;
void clcg_row_stats_of(const clcg_csr *A, clcg_row_stats *st);
/* The kernels' build options for a matrix of these row statistics, in buf. */
void clcg_build_options(const clcg_row_stats *st, char *buf, size_t size);
clcg_fmt clcg_format_choose(const clcg_row_stats *st, const char *name, const clcg_devinfo *d,
                            unsigned *vs);
const char *clcg_format_name(clcg_fmt f);
int64_t clcg_stream_blocks(const cl_uint *ptr, int64_t n, cl_uint *blk);
int64_t clcg_stream_longs(const cl_uint *ptr, int64_t nb, cl_uint *blk);
const char *clcg_kernel_name(int kid);
double clcg_kernel_bytes(const clcg_slice *s, int kid, int jacobi);

/* Enqueue kernel kid with the slice's launch shape; profiled when prof != NULL. */
cl_uint clcg_fin_arg(clcg_fmt fmt);
clcg_status clcg_set_fin(cl_kernel k, cl_uint i, cl_mem fin, cl_mem ticket);
clcg_status clcg_set_fin_n(cl_kernel k, cl_uint i, cl_mem fin, cl_mem ticket, cl_uint n);
clcg_status clcg_launch_kernel(clcg_slice *s, cl_kernel k, int kid, const clcg_launch *L,
                               clcg_prof *prof);
/* The same, with the launch's event in *out (the caller releases it). */
clcg_status clcg_launch_kernel_ev(clcg_slice *s, cl_kernel k, int kid, const clcg_launch *L,
                                  clcg_prof *prof, cl_event *out);
/* The same on queue q, after event `after` (or NULL). */
clcg_status clcg_launch_kernel_q(cl_command_queue q, cl_kernel k, int kid, const clcg_launch *L, clcg_prof *prof,
                                 cl_event after, cl_event *out);
clcg_status clcg_prof_harvest(clcg_prof *prof, const clcg_slice *s, int jacobi);

/* Work-group shapes: defaults, or tuned and cached (tune.c). */
clcg_status clcg_tune(clcg_slice *s, const char *cache, int force, int jacobi, char *how, size_t howlen,
                      double *seconds);
void clcg_tune_defaults(clcg_slice *s);

#endif
