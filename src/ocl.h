/* OpenCL device layer: platforms and devices, contexts, programs, checked calls. */
#ifndef CLCG_OCL_H
#define CLCG_OCL_H

#include "clcg.h"

#include <CL/cl.h>

const char *clcg_cl_error_name(cl_int err);

/* Check an OpenCL return code: on failure record "file:line: call -> CL_NAME" and return. */
#define CLCG_CL(call)                                                                   \
    do {                                                                                \
        cl_int clcg_e_ = (call);                                                        \
        if (clcg_e_ != CL_SUCCESS)                                                      \
            return clcg_cl_fail(__FILE__, __LINE__, #call, clcg_e_);                   \
    } while (0)
clcg_status clcg_cl_fail(const char *file, int line, const char *call, cl_int err);
#define clcg_cl_fail_if(e, call) ((e) == CL_SUCCESS ? CLCG_OK : clcg_cl_fail(__FILE__, __LINE__, call, (e)))

/* Slots of the device scalar buffer (mirror cl/common.cl). */
enum { S_STOP = 0, S_ITS, S_TOL2, S_RR, S_ALPHA, S_BETA, S_RZ, S_PQ, S_GROW2, S_COUNT };
enum { STOP_NONE = 0, STOP_CONVERGED, STOP_INDEFINITE, STOP_NANORINF, STOP_BREAKDOWN, STOP_GREW };

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    char name[256], vendor[128], driver[128], platform_name[256], version[128];
    cl_uint compute_units;
    size_t max_wg;
    cl_ulong global_mem, max_alloc, local_mem;
    int is_gpu, has_fp64;
} clcg_devinfo;

/* All devices of the given type ("gpu", "cpu", "all" or NULL: GPUs when any, else CPUs),
 * on platforms whose name contains `platform` (NULL: any).  *list malloc'd. */
/* Where PoCL's kernel cache cannot be written (or its disk is full): ": PoCL needs ..." in
 * out, else out left as it is. */
void clcg_pocl_cache_hint(char *out, size_t len);
clcg_status clcg_ocl_find_devices(const char *type, const char *platform, clcg_devinfo **list,
                                  int *count);
clcg_status clcg_ocl_list(FILE *out, const char *type, const char *platform);

/* One device in use: its context, in-order queue (profiling optional) and program. */
typedef struct {
    clcg_devinfo info;
    cl_context ctx;
    cl_command_queue queue;
    cl_program prog;
    int profiling;
    int fence_device;       /* the kernels' FENCE_DEVICE orders global memory for the whole
                               device (NVIDIA's PTX fence; CPU devices), so one work-group may
                               read what the others of its launch wrote (cl/common.cl) */
    cl_ulong allocated;     /* bytes of buffers created through clcg_dev_alloc */
} clcg_dev;

/* Takes what this rank's CPU devices may keep in host memory (nine tenths of its share of
 * what the node can still give); called by every rank at one point, after its devices are
 * open and before their buffers are made (else taken at the first buffer). */
void clcg_dev_host_room(void);
clcg_status clcg_dev_open(const clcg_devinfo *info, int profiling, const char *build_options,
                          clcg_dev *d);
void clcg_dev_close(clcg_dev *d);
/* A device buffer of `bytes`; a clear error when the device cannot hold it. */
clcg_status clcg_dev_alloc(clcg_dev *d, cl_mem_flags flags, size_t bytes, void *host,
                           const char *what, cl_mem *out);
clcg_status clcg_dev_kernel(clcg_dev *d, const char *name, cl_kernel *k);
/* Build the embedded kernels (or those in $CLCG_CL_DIR) for d; prints the build log on failure. */
clcg_status clcg_ocl_build(clcg_dev *d, const char *options);

#endif
