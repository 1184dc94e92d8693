/* Build the kernels: the cl/ sources embedded at build time (or read from $CLCG_CL_DIR
 * during development), spmv.cl twice (plain and fused CG form); the log on failure. */
#include "cl_sources.h"
#include "ocl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const parts[] = {"common.cl", "vec.cl", "#define CLCG_FUSED 0\n", "spmv.cl",
                                    "#undef CLCG_FUSED\n#define CLCG_FUSED 1\n", "spmv.cl"};
enum { NPARTS = sizeof parts / sizeof parts[0] };

static clcg_status source_text(const char *name, char **text)
{
    const char *dir = getenv("CLCG_CL_DIR");
    *text = NULL;
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "rb");
        if (!f)
            return clcg_error(CLCG_ERR_IO, "%s: cannot open kernel source (CLCG_CL_DIR): %s", path, strerror(errno));
        fseek(f, 0, SEEK_END);
        long len = ftell(f);
        fseek(f, 0, SEEK_SET);
        clcg_status s = clcg_malloc(text, (size_t)len + 1, 1, "kernel source");
        if (s == CLCG_OK && fread(*text, 1, (size_t)len, f) != (size_t)len)
            s = clcg_error(CLCG_ERR_IO, "%s: read error", path);
        fclose(f);
        if (s != CLCG_OK) {
            free(*text);
            *text = NULL;
            return s;
        }
        (*text)[len] = '\0';
        return CLCG_OK;
    }
    for (const clcg_cl_source *c = clcg_cl_sources; c->name; c++)
        if (!strcmp(c->name, name))
            return clcg_malloc(text, strlen(c->text) + 1, 1, "kernel source") == CLCG_OK
                       ? (strcpy(*text, c->text), CLCG_OK) : CLCG_ERR_MEMORY;
    return clcg_error(CLCG_ERR_INTERNAL, "kernel source %s is not embedded", name);
}

clcg_status clcg_ocl_build(clcg_dev *d, const char *options)
{
    char *text[NPARTS] = {0};
    clcg_status st = CLCG_OK;
    cl_int e;
    for (int i = 0; i < NPARTS; i++) {
        if (parts[i][0] == '#') {
            st = clcg_malloc(&text[i], strlen(parts[i]) + 1, 1, "kernel source");
            if (st != CLCG_OK)
                goto out;
            strcpy(text[i], parts[i]);
        } else {
            CLCG_CHECK(st, source_text(parts[i], &text[i]), out);
        }
    }
    d->prog = clCreateProgramWithSource(d->ctx, NPARTS, (const char **)text, NULL, &e);
    if (e != CL_SUCCESS) {
        st = clcg_cl_fail(__FILE__, __LINE__, "clCreateProgramWithSource", e);
        goto out;
    }
    e = clBuildProgram(d->prog, 1, &d->info.device, options, NULL, NULL);
    /* PoCL's kernel cache is shared by the processes of a node, and several ranks building the
     * same program into it for the first time at once can fail with an empty log ("failed to
     * build the program", pocl/pocl#1480): a CPU device's build is tried twice more, a little
     * later, before it counts as failed (a real error in the source fails every time). */
    for (int retry = 0; e == CL_BUILD_PROGRAM_FAILURE && !d->info.is_gpu && retry < 2; retry++) {
        nanosleep(&(struct timespec){0, 200000000L}, NULL);
        e = clBuildProgram(d->prog, 1, &d->info.device, options, NULL, NULL);
    }
    if (e != CL_SUCCESS || getenv("CLCG_CL_OPTIONS")) {
        size_t len = 0;
        char *log = NULL;
        clGetProgramBuildInfo(d->prog, d->info.device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
        if (clcg_malloc(&log, len + 1, 1, "build log") == CLCG_OK) {
            clGetProgramBuildInfo(d->prog, d->info.device, CL_PROGRAM_BUILD_LOG, len, log, NULL);
            log[len] = '\0';
            fprintf(stderr, "clcg-mpi: OpenCL build log for '%s' (options: %s):\n%s\n", d->info.name,
                    options ? options : "", log);
            free(log);
        }
        if (e == CL_SUCCESS)
            goto out;
        char hint[4400] = "";
        if (!d->info.is_gpu && strstr(d->info.platform_name, "Portable Computing Language"))
            clcg_pocl_cache_hint(hint, sizeof hint);
        st = clcg_error(CLCG_ERR_OPENCL, "building the kernels for '%s' failed: clBuildProgram -> %s (log above)%s",
                        d->info.name, clcg_cl_error_name(e), hint);
    }
out:
    for (int i = 0; i < NPARTS; i++)
        free(text[i]);
    return st;
}
