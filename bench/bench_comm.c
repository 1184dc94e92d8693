/* Parameters of the scaling model, measured: MPI latency and bandwidth between ranks 0
 * and 1 (ping-pong), the time of the halo's exchange (ranks 0 and 1 send each other 512 KB
 * at once, as the neighbour exchange does, from malloc'd and from pinned buffers),
 * MPI_Allreduce of one double, and host<->device copy rates through pinned (mapped
 * CL_MEM_ALLOC_HOST_PTR) and pageable memory on each rank's first device.  On 3 or more
 * ranks also the slab halo of every rank at once (each sends 512 KB to each neighbour, rank
 * - 1 and rank + 1, and receives as much: the neighbour exchange of inner slabs), the
 * slowest rank's time.
 * usage: mpiexec -n 2 bench_comm      (prints one JSON object) */
#include "ocl.h"

#include <stdlib.h>
#include <string.h>

static double pingpong(int rank, size_t bytes, int reps)
{
    char *buf = calloc(bytes ? bytes : 1, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = (MPI_Wtime() - t0) / reps / 2;   /* one way */
    free(buf);
    return t;
}

/* Seconds for ranks 0 and 1 to send each other `bytes` at once (Irecv, Isend, Waitall). */
static double exchange(int rank, void *send, void *recv, size_t bytes, int reps)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps && rank < 2; i++) {
        MPI_Request rq[2];
        MPI_Irecv(recv, (int)bytes, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(send, (int)bytes, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    return (MPI_Wtime() - t0) / reps;
}

/* Seconds for every rank to exchange `bytes` with each neighbour (rank - 1, rank + 1, where
 * they exist) at once; the slowest rank's mean over reps. */
static double slab_halo(int rank, int size, size_t bytes, int reps)
{
    char *buf = calloc(4 * bytes, 1);
    int have = buf != NULL;   /* every rank, or none: a neighbour would wait for it */
    MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!have) {
        free(buf);
        return 0.0;
    }
    double t0 = 0.0;
    for (int i = -1; i < reps; i++) {   /* i = -1: untimed, each pair's first contact */
        if (i == 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        MPI_Request rq[4];
        int n = 0;
        for (int side = -1; side <= 1; side += 2) {
            int peer = rank + side;
            if (peer < 0 || peer >= size)
                continue;
            char *b = buf + (side < 0 ? 0 : 2 * bytes);
            MPI_Irecv(b, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[n++]);
            MPI_Isend(b + bytes, (int)bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &rq[n++]);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    }
    double t = (MPI_Wtime() - t0) / reps;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    free(buf);
    return t;
}

/* xpin: the exchange of `bytes` between two pinned buffers of the device's context (0 on 1 rank) */
static clcg_status copy_rates(size_t bytes, double *h2d_pin, double *d2h_pin, double *h2d_page, double *d2h_page,
                              double *xpin)
{
    clcg_devinfo *list;
    int m;
    cl_int e;
    CLCG_CALL(clcg_ocl_find_devices(getenv("CLCG_DEVICE_TYPE"), NULL, &list, &m));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    clcg_devinfo *d = &list[rank % m];
    cl_context ctx = clCreateContext(NULL, 1, &d->device, NULL, NULL, &e);
    CLCG_CL(e);
    cl_command_queue q = clCreateCommandQueue(ctx, d->device, 0, &e);
    CLCG_CL(e);
    cl_mem dev = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    CLCG_CL(e);
    cl_mem pin = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    CLCG_CL(e);
    void *hp = clEnqueueMapBuffer(q, pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
    CLCG_CL(e);
    cl_mem pin2 = clCreateBuffer(ctx, CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &e);
    CLCG_CL(e);
    void *hp2 = clEnqueueMapBuffer(q, pin2, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, NULL, NULL, &e);
    CLCG_CL(e);
    void *pg = malloc(bytes);
    memset(pg, 1, bytes);
    memset(hp, 1, bytes);
    memset(hp2, 1, bytes);
    *xpin = exchange(rank, hp, hp2, bytes, 200);   /* main() runs on 2 ranks or more */
    void *src[2] = {hp, pg};
    double *out[2][2] = {{h2d_pin, d2h_pin}, {h2d_page, d2h_page}};
    for (int k = 0; k < 2; k++) {
        CLCG_CL(clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, src[k], 0, NULL, NULL));
        double t0 = MPI_Wtime();
        for (int r = 0; r < 10; r++)
            CLCG_CL(clEnqueueWriteBuffer(q, dev, CL_TRUE, 0, bytes, src[k], 0, NULL, NULL));
        *out[k][0] = 10.0 * (double)bytes / (MPI_Wtime() - t0);
        t0 = MPI_Wtime();
        for (int r = 0; r < 10; r++)
            CLCG_CL(clEnqueueReadBuffer(q, dev, CL_TRUE, 0, bytes, src[k], 0, NULL, NULL));
        *out[k][1] = 10.0 * (double)bytes / (MPI_Wtime() - t0);
    }
    clEnqueueUnmapMemObject(q, pin, hp, 0, NULL, NULL);
    clEnqueueUnmapMemObject(q, pin2, hp2, 0, NULL, NULL);
    clFinish(q);
    clReleaseMemObject(pin);
    clReleaseMemObject(pin2);
    clReleaseMemObject(dev);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(pg);
    free(list);
    return CLCG_OK;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {   /* its figures are between ranks: one rank has none to give */
        fprintf(stderr, "bench_comm: needs 2 or more ranks (mpiexec -n 2 bench_comm)\n");
        MPI_Finalize();
        return 2;
    }
    double lat = pingpong(rank, 8, 2000);
    double t512k = pingpong(rank, 512 * 1024, 200);
    double t16m = pingpong(rank, 16 << 20, 20);
    double tx, txpin = 0.0, txbig = 0.0, tslab = 0.0;
    if (size > 2)
        tslab = slab_halo(rank, size, 512 * 1024, 200);
    char *a = calloc(512 * 1024, 1), *b = calloc(512 * 1024, 1);
    tx = exchange(rank, a, b, 512 * 1024, 200);
    free(a);
    free(b);
    double v = 1.0, t0;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < 2000; i++)
        MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double tall = (MPI_Wtime() - t0) / 2000;
    double r[8] = {0};
    int failed = 0;
    if (copy_rates(512 * 1024, &r[0], &r[1], &r[2], &r[3], &txpin) != CLCG_OK ||
        copy_rates(64 << 20, &r[4], &r[5], &r[6], &r[7], &txbig) != CLCG_OK) {
        fprintf(stderr, "bench_comm: rank %d: %s\n", rank, clcg_error_message());
        failed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed) {   /* no record with rates that were not measured */
        MPI_Finalize();
        return 1;
    }
    if (rank == 0)
        printf("{\"ranks\": %d, \"mpi_latency_s\": %.3e, \"mpi_512k_GBps\": %.3f, \"mpi_16m_GBps\": %.3f, "
               "\"allreduce_1_double_s\": %.3e, \"h2d_pinned_512k_GBps\": %.2f, \"d2h_pinned_512k_GBps\": %.2f, "
               "\"h2d_pageable_512k_GBps\": %.2f, \"d2h_pageable_512k_GBps\": %.2f, \"h2d_pinned_64m_GBps\": %.2f, "
               "\"d2h_pinned_64m_GBps\": %.2f, \"h2d_pageable_64m_GBps\": %.2f, \"d2h_pageable_64m_GBps\": %.2f, "
               "\"exchange_512k_s\": %.3e, \"exchange_512k_pinned_s\": %.3e, \"exchange_64m_pinned_s\": %.3e",
               size, lat, 512 * 1024 / t512k / 1e9, (16 << 20) / t16m / 1e9, tall,
               r[0] / 1e9, r[1] / 1e9, r[2] / 1e9, r[3] / 1e9, r[4] / 1e9, r[5] / 1e9, r[6] / 1e9, r[7] / 1e9, tx,
               txpin, txbig);
    if (rank == 0 && size > 2)
        printf(", \"slab_halo_512k_s\": %.3e", tslab);
    if (rank == 0)
        printf("}\n");
    MPI_Finalize();
    return 0;
}
