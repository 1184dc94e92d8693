/* Kernel sources embedded at build time from the cl folder (see scripts/cl2c.sh). */
#ifndef CLCG_CL_SOURCES_H
#define CLCG_CL_SOURCES_H

typedef struct {
    const char *name;   /* file name, e.g. "spmv.cl" */
    const char *text;   /* OpenCL C source */
} clcg_cl_source;

extern const clcg_cl_source clcg_cl_sources[];   /* ends with {0, 0} */

#endif
