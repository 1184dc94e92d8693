/* OpenCL platforms and devices: enumeration, choice, contexts and queues, checked calls. */
#include "ocl.h"

#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <string.h>
#include <ctype.h>

const char *clcg_cl_error_name(cl_int e)
{
    switch (e) {
#define E(x) case x: return #x;
    E(CL_SUCCESS) E(CL_DEVICE_NOT_FOUND) E(CL_DEVICE_NOT_AVAILABLE) E(CL_COMPILER_NOT_AVAILABLE)
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE) E(CL_OUT_OF_RESOURCES) E(CL_OUT_OF_HOST_MEMORY)
    E(CL_PROFILING_INFO_NOT_AVAILABLE) E(CL_MEM_COPY_OVERLAP) E(CL_IMAGE_FORMAT_MISMATCH)
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED) E(CL_BUILD_PROGRAM_FAILURE) E(CL_MAP_FAILURE)
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET) E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    E(CL_COMPILE_PROGRAM_FAILURE) E(CL_LINKER_NOT_AVAILABLE) E(CL_LINK_PROGRAM_FAILURE)
    E(CL_DEVICE_PARTITION_FAILED) E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) E(CL_INVALID_VALUE)
    E(CL_INVALID_DEVICE_TYPE) E(CL_INVALID_PLATFORM) E(CL_INVALID_DEVICE) E(CL_INVALID_CONTEXT)
    E(CL_INVALID_QUEUE_PROPERTIES) E(CL_INVALID_COMMAND_QUEUE) E(CL_INVALID_HOST_PTR)
    E(CL_INVALID_MEM_OBJECT) E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) E(CL_INVALID_IMAGE_SIZE)
    E(CL_INVALID_SAMPLER) E(CL_INVALID_BINARY) E(CL_INVALID_BUILD_OPTIONS) E(CL_INVALID_PROGRAM)
    E(CL_INVALID_PROGRAM_EXECUTABLE) E(CL_INVALID_KERNEL_NAME) E(CL_INVALID_KERNEL_DEFINITION)
    E(CL_INVALID_KERNEL) E(CL_INVALID_ARG_INDEX) E(CL_INVALID_ARG_VALUE) E(CL_INVALID_ARG_SIZE)
    E(CL_INVALID_KERNEL_ARGS) E(CL_INVALID_WORK_DIMENSION) E(CL_INVALID_WORK_GROUP_SIZE)
    E(CL_INVALID_WORK_ITEM_SIZE) E(CL_INVALID_GLOBAL_OFFSET) E(CL_INVALID_EVENT_WAIT_LIST)
    E(CL_INVALID_EVENT) E(CL_INVALID_OPERATION) E(CL_INVALID_GL_OBJECT) E(CL_INVALID_BUFFER_SIZE)
    E(CL_INVALID_MIP_LEVEL) E(CL_INVALID_GLOBAL_WORK_SIZE) E(CL_INVALID_PROPERTY)
#undef E
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform: is an ICD installed?)";
    default: return "CL_UNKNOWN_ERROR";
    }
}

clcg_status clcg_cl_fail(const char *file, int line, const char *call, cl_int err)
{
    clcg_status s = (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES)
                        ? CLCG_ERR_DEVICE : CLCG_ERR_OPENCL;
    clcg_error(s, "%s:%d: %s -> %s (%d)", file, line, call, clcg_cl_error_name(err), err);
    clcg_error_trace(file, line, call, s);
    return s;
}

static clcg_status dev_info(cl_platform_id p, cl_device_id d, clcg_devinfo *o)
{
    cl_device_type t;
    char ext[8192];
    size_t len = 0;
    memset(o, 0, sizeof *o);
    o->platform = p;
    o->device = d;
    CLCG_CL(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof o->platform_name - 1, o->platform_name, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof o->name - 1, o->name, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof o->vendor - 1, o->vendor, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof o->driver - 1, o->driver, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof o->version - 1, o->version, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof o->compute_units, &o->compute_units, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof o->max_wg, &o->max_wg, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof o->global_mem, &o->global_mem, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof o->max_alloc, &o->max_alloc, NULL));
    CLCG_CL(clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof o->local_mem, &o->local_mem, NULL));
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, &len) != CL_SUCCESS)
        len = 0;
    ext[len < sizeof ext ? len : sizeof ext - 1] = '\0';
    o->has_fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    o->is_gpu = (t & CL_DEVICE_TYPE_GPU) != 0;
    return CLCG_OK;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

static int type_matches(const clcg_devinfo *d, const char *type)
{
    if (!type || !strcmp(type, "all"))
        return 1;
    return !strcmp(type, "gpu") ? d->is_gpu : !d->is_gpu;
}

static int platform_matches(const clcg_devinfo *d, const char *platform)
{
    return !platform || contains_nocase(d->platform_name, platform);
}

/* The type a run picks: the one given, else GPUs where the matching platforms have any,
 * else CPUs. */
static const char *run_type(const clcg_devinfo *d, int n, const char *type, const char *platform)
{
    for (int i = 0; !type && i < n; i++)
        if (d[i].is_gpu && platform_matches(&d[i], platform))
            return "gpu";
    return type ? type : "cpu";
}

/* PoCL lists no device, or fails to build, when the folder of its kernel cache cannot be
 * made or written (POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl), or
 * its disk is full: then that is said.  Tried for real (a file made and removed there, or a
 * folder in its nearest parent that exists): access() passes for root even in /proc. */
void clcg_pocl_cache_hint(char *out, size_t len)
{
    const char *pd = getenv("POCL_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char dir[4096], probe[4200];
    struct stat sb;
    if (pd && *pd)
        snprintf(dir, sizeof dir, "%s", pd);
    else if (xdg && *xdg)
        snprintf(dir, sizeof dir, "%s/pocl", xdg);
    else if (home && *home)
        snprintf(dir, sizeof dir, "%s/.cache/pocl", home);
    else
        return;
    char want[4096];
    memcpy(want, dir, sizeof want);
    for (;;) {   /* the folder, or the nearest of its parents that exists */
        if (stat(dir, &sb) == 0) {
            const int itself = !strcmp(dir, want);
            char why[4400] = "";
            snprintf(probe, sizeof probe, "%s/.clcg-probe.%ld", dir, (long)getpid());
            if (!S_ISDIR(sb.st_mode)) {
                snprintf(why, sizeof why, "%s is not a folder", dir);
            } else if (itself) {   /* the folder itself: a file made in it */
                const int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
                if (fd >= 0) {
                    close(fd);
                    unlink(probe);
                } else if (errno != EEXIST) {   /* one of that name (another node's): writable */
                    snprintf(why, sizeof why, "%s is not writable (%s)", dir, strerror(errno));
                }
            } else if (mkdir(probe, 0700) == 0) {   /* a parent: a folder made in it */
                rmdir(probe);
            } else if (errno != EEXIST) {
                snprintf(why, sizeof why, "%s cannot be made in %s (%s)", want, dir, strerror(errno));
            }
            struct statvfs fs;
            if (!*why && statvfs(dir, &fs) == 0 && (geteuid() == 0 ? fs.f_bfree : fs.f_bavail) == 0)
                snprintf(why, sizeof why, "%s is on a full disk", dir);   /* root: the reserve too */
            if (*why)
                snprintf(out, len, ": PoCL needs a writable folder for its kernel cache, and %s; set POCL_CACHE_DIR "
                         "(or XDG_CACHE_HOME) to one", why);
            return;
        }
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return;
        *slash = '\0';
    }
}

clcg_status clcg_ocl_find_devices(const char *type, const char *platform, clcg_devinfo **list,
                                  int *count)
{
    cl_uint np = 0;
    cl_platform_id plats[32];
    clcg_devinfo *all = NULL;
    int n = 0, cap = 0;
    *list = NULL;
    *count = 0;
    int pocl_empty = 0;   /* PoCL's platform is there and lists no device */
    cl_int e = clGetPlatformIDs(32, plats, &np);
    clcg_tmp_guard();   /* the runtimes just loaded may have taken signals (PoCL's LLVM) */
    if (e == -1001 || (e == CL_SUCCESS && np == 0)) {
        /* a loader that cannot open the vendors' files or libraries finds none either */
        struct rlimit files;
        char few[160] = "";
        if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur != RLIM_INFINITY && files.rlim_cur < 256)
            snprintf(few, sizeof few, "; or too few open files allowed (ulimit -n is %llu here)",
                     (unsigned long long)files.rlim_cur);
        return clcg_error(CLCG_ERR_DEVICE,
                          "no OpenCL platform found: install an ICD (apt-get install pocl-opencl-icd for CPUs), "
                          "or check OCL_ICD_FILENAMES / /etc/OpenCL/vendors (an installed one that cannot be "
                          "loaded, e.g. under a memory limit, counts as none)%s", few);
    }
    CLCG_CL(e);
    for (cl_uint i = 0; i < np && i < 32; i++) {
        char pname[256] = "";
        cl_uint nd = 0;
        cl_device_id devs[64];
        clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        if (platform && !contains_nocase(pname, platform))
            continue;
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_ALL, 64, devs, &nd) != CL_SUCCESS || nd == 0) {
            pocl_empty |= contains_nocase(pname, "Portable Computing Language");
            continue;
        }
        for (cl_uint j = 0; j < nd && j < 64; j++) {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                clcg_status s = clcg_realloc(&all, (size_t)cap, sizeof *all, "device list");
                if (s != CLCG_OK) {
                    free(all);
                    return s;
                }
            }
            clcg_status s = dev_info(plats[i], devs[j], &all[n]);
            if (s != CLCG_OK) {
                free(all);
                return s;
            }
            n++;
        }
    }
    type = run_type(all, n, type, NULL);   /* the platforms left are the matching ones */
    int m = 0;
    for (int i = 0; i < n; i++)
        if (type_matches(&all[i], type))
            all[m++] = all[i];
    if (m == 0) {
        char hint[4400] = "";
        free(all);
        if (pocl_empty && (!strcmp(type, "cpu") || !strcmp(type, "all")))   /* PoCL's device is a CPU */
            clcg_pocl_cache_hint(hint, sizeof hint);
        return clcg_error(CLCG_ERR_DEVICE, "no OpenCL %s%sdevice found%s%s (see --list-devices)%s",
                          !strcmp(type, "all") ? "" : type, !strcmp(type, "all") ? "" : " ",
                          platform ? " on a platform matching " : "", platform ? platform : "", hint);
    }
    *list = all;
    *count = m;
    return CLCG_OK;
}

/* Every device OpenCL sees, each with the number that --device gives it among those a run
 * with these --device-type and --platform would pick from ("-": not among them). */
clcg_status clcg_ocl_list(FILE *out, const char *type, const char *platform)
{
    clcg_devinfo *d;
    int n, m = 0;
    CLCG_CALL(clcg_ocl_find_devices("all", NULL, &d, &n));
    const char *t = run_type(d, n, type, platform);
    fprintf(out, "%-3s %-4s %-40s %-28s %5s %9s %5s  %s\n", "#", "type", "device", "platform", "CUs",
            "memory", "fp64", "driver");
    for (int i = 0; i < n; i++) {
        char num[16] = "-";
        if (type_matches(&d[i], t) && platform_matches(&d[i], platform))
            snprintf(num, sizeof num, "%d", m++);
        fprintf(out, "%-3s %-4s %-40.40s %-28.28s %5u %6.1f GiB %5s  %s\n", num, d[i].is_gpu ? "gpu" : "cpu",
                d[i].name, d[i].platform_name, d[i].compute_units, (double)d[i].global_mem / (1 << 30),
                d[i].has_fp64 ? "yes" : "no", d[i].driver);
    }
    fprintf(out, "%s: %s%s%s%s%s%s\n", m ? "# counts the devices a run picks from" : "no device matches",
            !strcmp(t, "all") ? "all devices" : t, !strcmp(t, "all") ? "" : " devices",
            platform ? " on platforms matching '" : "", platform ? platform : "", platform ? "'" : "",
            type ? "" : platform ? " (the default: GPUs where those have any, else CPUs)"
                                 : " (the default: GPUs when there are any, else CPUs)");
    free(d);
    return CLCG_OK;
}

clcg_status clcg_dev_open(const clcg_devinfo *info, int profiling, const char *build_options, clcg_dev *d)
{
    cl_int e;
    memset(d, 0, sizeof *d);
    d->info = *info;
    d->profiling = profiling;
    if (!info->has_fp64)
        return clcg_error(CLCG_ERR_DEVICE,
                          "device '%s' (%s) lacks cl_khr_fp64: double precision is required",
                          info->name, info->platform_name);
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)info->platform, 0};
    d->ctx = clCreateContext(props, 1, &info->device, NULL, NULL, &e);
    CLCG_CL(e);
    d->queue = clCreateCommandQueue(d->ctx, info->device, profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &e);
    CLCG_CL(e);
    {   /* NVIDIA: the matrix streams through the caches marked evict-first (cl/common.cl) */
        char opts[1024];
        const int nv = (strstr(info->platform_name, "NVIDIA") || strstr(info->vendor, "NVIDIA")) &&
                       !clcg_env_on("CLCG_NO_PTX");
        const char *extra = getenv("CLCG_CL_OPTIONS");   /* development: more build options, log shown */
        d->fence_device = nv || !info->is_gpu;   /* elsewhere OpenCL 1.2's mem_fence: one work-item's order */
        if (snprintf(opts, sizeof opts, "%s%s%s%s", build_options ? build_options : "", nv ? " -DCLCG_NV_PTX=1" : "",
                     extra ? " " : "", extra ? extra : "") >= (int)sizeof opts)
            return clcg_error(CLCG_ERR_DEVICE, "CLCG_CL_OPTIONS is too long (%zu characters; at most %zu)",
                              strlen(extra ? extra : ""), sizeof opts - 64);
        CLCG_CALL(clcg_ocl_build(d, opts));
    }
    return CLCG_OK;
}

/* Host memory that CPU devices' buffers may take (host_buffer_room; -2 until first asked),
 * and what those open take now. */
static double room = -2.0, taken = 0.0;

void clcg_dev_close(clcg_dev *d)
{
    if (d->prog)
        clReleaseProgram(d->prog);
    if (d->queue)
        clReleaseCommandQueue(d->queue);
    if (d->ctx)
        clReleaseContext(d->ctx);
    if (!d->info.is_gpu)   /* its buffers are given back */
        taken = taken > (double)d->allocated ? taken - (double)d->allocated : 0.0;
    memset(d, 0, sizeof *d);
}

/* A CPU device's buffers are host memory, which its global memory size (the machine's) does
 * not bound: they are held to this rank's share of what the node can still give, taken
 * once every rank has loaded its rows and built its kernels (clcg_dev_host_room), with a
 * tenth kept for the host's own vectors.  All CPU devices of the process draw on it
 * together. */
void clcg_dev_host_room(void)
{
    const double share = clcg_host_share();
    room = share < 0 ? -1.0 : 0.9 * share;
}

static clcg_status host_buffer_room(const clcg_dev *d, size_t bytes, const char *what)
{
    if (room == -2.0)   /* not taken at a common point (clcg_dev_host_room): now */
        clcg_dev_host_room();
    if (room >= 0 && taken + (double)bytes > room)
        return clcg_error(CLCG_ERR_MEMORY,
                          "device '%s' keeps its buffers in host memory: %s needs %.1f MiB (%.1f MiB in use), "
                          "more than this rank may give them (%.1f MiB, nine tenths of its share of what the node "
                          "could still give): use more nodes",
                          d->info.name, what, (double)bytes / 1048576.0, taken / 1048576.0, room / 1048576.0);
    taken += (double)bytes;
    return CLCG_OK;
}

clcg_status clcg_dev_alloc(clcg_dev *d, cl_mem_flags flags, size_t bytes, void *host, const char *what,
                           cl_mem *out)
{
    cl_int e;
    if (bytes == 0) {   /* an empty share: a small buffer, nothing to copy */
        bytes = 8;
        flags &= ~(cl_mem_flags)CL_MEM_COPY_HOST_PTR;
        host = NULL;
    }
    if (!d->info.is_gpu)
        CLCG_CALL(host_buffer_room(d, bytes, what));
    if (bytes > d->info.max_alloc || d->allocated + bytes > d->info.global_mem)
        return clcg_error(CLCG_ERR_DEVICE,
                          "device '%s' out of memory: %s needs %.1f MiB (%.1f MiB in use); the device has %.1f MiB "
                          "(largest buffer %.1f MiB): use more ranks or devices",
                          d->info.name, what, (double)bytes / 1048576.0, (double)d->allocated / 1048576.0,
                          (double)d->info.global_mem / 1048576.0, (double)d->info.max_alloc / 1048576.0);
    *out = clCreateBuffer(d->ctx, flags, bytes, host, &e);
    if (e == CL_MEM_OBJECT_ALLOCATION_FAILURE || e == CL_OUT_OF_RESOURCES || e == CL_OUT_OF_HOST_MEMORY)
        return clcg_error(CLCG_ERR_DEVICE, "device '%s' out of memory: %s needs %.1f MiB (%.1f MiB in use of %.1f MiB)",
                          d->info.name, what, (double)bytes / 1048576.0, (double)d->allocated / 1048576.0,
                          (double)d->info.global_mem / 1048576.0);
    CLCG_CL(e);
    d->allocated += bytes;
    return CLCG_OK;
}

clcg_status clcg_dev_kernel(clcg_dev *d, const char *name, cl_kernel *k)
{
    cl_int e;
    *k = clCreateKernel(d->prog, name, &e);
    CLCG_CL(e);
    return CLCG_OK;
}
