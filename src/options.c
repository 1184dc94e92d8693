/* Command-line parsing (getopt_long, GNU style) and --help text. */
#include "options.h"
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: clcg-mpi [OPTION]... MATRIX.mtx[.gz]\n"
    "       clcg-mpi [OPTION]... --generate KIND:SIZE\n"
    "Solve A x = b for a sparse symmetric positive definite A by Conjugate Gradient\n"
    "on OpenCL devices, distributed over MPI ranks.  b defaults to A*1, so the\n"
    "error against the known solution x = 1 is reported too.\n"
    "\n"
    "Problem:\n"
    "      --generate KIND:SIZE   build a model problem instead of reading a file:\n"
    "                             poisson2d:N | poisson2d:NX,NY | poisson3d:N |\n"
    "                             poisson3d:NX,NY,NZ (7-point) | poisson3d27:N |\n"
    "                             poisson3d27:NX,NY,NZ (27-point); -weak forms grow\n"
    "                             with the ranks (poisson3d-weak:N: N x N x N*P);\n"
    "                             random:N[,AVG[,SEED]] (power-law rows, AVG entries\n"
    "                             a row, 3..256, default 16)\n"
    "      --write-matrix FILE    write the matrix as Matrix Market and stop\n"
    "      --write-binary FILE    write the matrix in clcg's binary format (read back\n"
    "                             in parallel when given as MATRIX) and stop\n"
    "      --rhs FILE             right-hand side (Matrix Market array or vector)\n"
    "      --no-symmetry-check    accept a 'general' file whose values are not symmetric\n"
    "Solver:\n"
    "      --rtol X               stop when ||r||/||b|| <= X (default 1e-8)\n"
    "      --max-iterations N     iteration limit (default 10000)\n"
    "      --precond none|jacobi  preconditioner (default jacobi)\n"
    "      --jacobi-scaled        one device: run Jacobi as CG on D^-1/2 A D^-1/2 (fewer\n"
    "                             memory passes; the same iterates up to rounding)\n"
    "      --reference            solve with the host reference code (no OpenCL)\n"
    "      --variant auto|standard|single-reduction|pipelined  CG variant (default auto:\n"
    "                             standard; single-reduction where several GPUs hold\n"
    "                             fewer than 6 million rows each)\n"
    "Devices:\n"
    "      --list-devices         list OpenCL platforms and devices, numbered as\n"
    "                             --device counts the matching ones, then stop\n"
    "      --device-type gpu|cpu|all  (default: GPUs if there are any, else CPUs)\n"
    "      --platform SUBSTRING   only platforms whose name contains SUBSTRING\n"
    "      --device N             use device N of the matching ones (default: by\n"
    "                             node-local rank)\n"
    "Output:\n"
    "  -o, --output FILE          write the solution (Matrix Market array), only on success\n"
    "      --monitor              print the residual every iteration\n"
    "      --json FILE            write one JSON record of the run\n"
    "      --profile              per-kernel timing table\n"
    "  -q, --quiet                print nothing but errors\n"
    "Distribution and performance:\n"
    "      --exchange allgather|needed|neighbor  ghost exchange between ranks (default neighbor)\n"
    "      --devices-per-rank N   devices each rank drives (default 1)\n"
    "      --format auto|csr-scalar|csr-vector|sell|csr-adaptive|csr-stream  device storage\n"
    "      --tune, --no-tune, --tune-cache FILE  work-group shape search and cache\n"
    "                             (--autotune, --no-autotune: the same; Open MPI's mpirun\n"
    "                             takes --tune for itself)\n"
    "      --load-only            read, partition and set up, then stop\n"
    "      --repeat N             solve N times (up to 64) after a warm-up; report the\n"
    "                             median time\n"
    "Other:\n"
    "  -h, --help                 this text\n"
    "      --version              version\n"
    "\n"
    "Exit status: 0 converged, 1 iteration limit reached, 2 usage error, 3 bad input,\n"
    "4 matrix not positive definite or singular to double precision, or breakdown,\n"
    "5 device, MPI or runtime error.\n";

enum {
    OPT_RTOL = 256, OPT_MAXIT, OPT_PRECOND, OPT_RHS, OPT_MONITOR, OPT_VERSION, OPT_GENERATE,
    OPT_WRITE_MATRIX, OPT_NO_SYMCHECK, OPT_REFERENCE, OPT_LIST_DEVICES, OPT_DEVICE_TYPE,
    OPT_PLATFORM, OPT_DEVICE, OPT_DEVICES_PER_RANK, OPT_JSON, OPT_PROFILE, OPT_EXCHANGE,
    OPT_FORMAT, OPT_VARIANT, OPT_TUNE, OPT_TUNE_CACHE, OPT_NO_TUNE, OPT_LOAD_ONLY, OPT_REPEAT,
    OPT_WRITE_BINARY, OPT_JACOBI_SCALED
};

#define SHORT_OPTS ":o:qh"   /* leading ":": a missing argument is told apart */
static const struct option long_opts[] = {
    {"rtol", required_argument, 0, OPT_RTOL},
    {"max-iterations", required_argument, 0, OPT_MAXIT},
    {"precond", required_argument, 0, OPT_PRECOND},
    {"rhs", required_argument, 0, OPT_RHS},
    {"output", required_argument, 0, 'o'},
    {"monitor", no_argument, 0, OPT_MONITOR},
    {"quiet", no_argument, 0, 'q'},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, OPT_VERSION},
    {"generate", required_argument, 0, OPT_GENERATE},
    {"write-matrix", required_argument, 0, OPT_WRITE_MATRIX},
    {"write-binary", required_argument, 0, OPT_WRITE_BINARY},
    {"no-symmetry-check", no_argument, 0, OPT_NO_SYMCHECK},
    {"reference", no_argument, 0, OPT_REFERENCE},
    {"list-devices", no_argument, 0, OPT_LIST_DEVICES},
    {"device-type", required_argument, 0, OPT_DEVICE_TYPE},
    {"platform", required_argument, 0, OPT_PLATFORM},
    {"device", required_argument, 0, OPT_DEVICE},
    {"devices-per-rank", required_argument, 0, OPT_DEVICES_PER_RANK},
    {"json", required_argument, 0, OPT_JSON},
    {"profile", no_argument, 0, OPT_PROFILE},
    {"exchange", required_argument, 0, OPT_EXCHANGE},
    {"format", required_argument, 0, OPT_FORMAT},
    {"variant", required_argument, 0, OPT_VARIANT},
    {"tune", no_argument, 0, OPT_TUNE},
    {"autotune", no_argument, 0, OPT_TUNE},       /* the spelling mpirun leaves alone */
    {"no-autotune", no_argument, 0, OPT_NO_TUNE},
    {"tune-cache", required_argument, 0, OPT_TUNE_CACHE},
    {"no-tune", no_argument, 0, OPT_NO_TUNE},
    {"load-only", no_argument, 0, OPT_LOAD_ONLY},
    {"repeat", required_argument, 0, OPT_REPEAT},
    {"jacobi-scaled", no_argument, 0, OPT_JACOBI_SCALED},
    {0, 0, 0, 0}};

/* A long option given by a prefix that two or more of ours start with ("--re"): one usage
 * error naming them, where getopt_long, told to be silent, says no more than '?'. */
static clcg_status ambiguous(const char *arg)
{
    char names[512] = "";
    size_t len, used = 0;
    int n = 0;
    if (strncmp(arg, "--", 2) != 0)
        return CLCG_OK;
    arg += 2;
    len = strcspn(arg, "=");
    for (int i = 0; long_opts[i].name; i++)
        if (len > 0 && !strncmp(long_opts[i].name, arg, len)) {
            if (strlen(long_opts[i].name) == len)
                return CLCG_OK;   /* an exact name: not a matter of prefixes */
            n++;
            if (used + strlen(long_opts[i].name) + 5 < sizeof names)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s--%s", used ? ", " : "",
                                         long_opts[i].name);
        }
    if (n < 2)
        return CLCG_OK;
    return clcg_error(CLCG_ERR_USAGE, "option '--%.*s' is ambiguous: it may be %s (see --help)", (int)len, arg,
                      names);
}

static clcg_status parse_int(const char *opt, const char *s, long long lo, long long hi, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    while (end != s && (*end == ' ' || *end == '\t'))   /* " 5 " as strtoll reads " 5", as --rtol */
        end++;
    if (end == s || *end || errno || x < lo || x > hi)
        return clcg_error(CLCG_ERR_USAGE, "--%s: '%s' is not a whole number in [%lld, %lld]", opt, s, lo, hi);
    *v = x;
    return CLCG_OK;
}

static clcg_status parse_choice(const char *opt, const char *s, const char *const *names, int *v)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(s, names[i])) {
            *v = i;
            return CLCG_OK;
        }
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    return clcg_error(CLCG_ERR_USAGE, "--%s: '%s' is not one of %s", opt, s, list);
}

/* The settings the README gives users through the environment: a value that cannot be meant
 * is refused, not read as the default (CLCG_HALO_SHM=off would otherwise leave the window on). */
static clcg_status check_env(void)
{
    const char *e = getenv("CLCG_HALO_SHM");
    if (e && *e && strcmp(e, "0") && strcmp(e, "1") && strcmp(e, "2"))
        return clcg_error(CLCG_ERR_USAGE, "CLCG_HALO_SHM=%.100s: expected 0 (MPI), 1 (the shared-memory window) or 2 "
                          "(the window by host copies)", e);
    e = getenv("CLCG_SHM_RANKS");
    if (e && *e) {
        char *end;
        errno = 0;
        long v = strtol(e, &end, 10);
        if (*end || errno || v < 0 || v > 1 << 20)
            return clcg_error(CLCG_ERR_USAGE, "CLCG_SHM_RANKS=%.100s: expected a whole number of ranks a node, 0 for "
                              "the whole node", e);
    }
    e = getenv("CLCG_SR_ROWS");
    if (e && *e) {
        char *end;
        double v = strtod(e, &end);
        if (*end || !(v >= 0) || !isfinite(v))
            return clcg_error(CLCG_ERR_USAGE, "CLCG_SR_ROWS=%.100s: expected a number of rows a device, 0 or more", e);
    }
    /* the development switches of the README, likewise */
    static const struct { const char *name, *one_of[4]; } words[] = {
        {"CLCG_P_PASS", {"split", "fused", 0}}, {"CLCG_PACK_FIRST", {"0", "1", 0}},
        {"CLCG_WARMUP", {"0", "1", 0}}, {"CLCG_SIDE", {"0", "1", 0}}, {"CLCG_HALO_COPY", {"0", "1", 0}},
        {"CLCG_FINISH", {"0", "1", 0}}, {"CLCG_HOST_PATH", {"0", "1", 0}}, {"CLCG_NO_PTX", {"0", "1", 0}},
        {"CLCG_NO_MMAP", {"0", "1", 0}}, {"CLCG_MPIIO_ONLY", {"0", "1", 0}}, {"CLCG_BINARY_WIDE", {"0", "1", 0}},
        {"CLCG_TRACE", {"0", "1", 0}}, {"CLCG_LOAD_TRACE", {"0", "1", 0}}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        e = getenv(words[i].name);
        int known = !e || !*e;
        for (int k = 0; !known && words[i].one_of[k]; k++)
            known = !strcmp(e, words[i].one_of[k]);
        if (!known)
            return clcg_error(CLCG_ERR_USAGE, "%s=%.100s: expected %s or %s", words[i].name, e, words[i].one_of[0],
                              words[i].one_of[1]);
    }
    e = getenv("CLCG_X_SPLIT");
    if (e && *e) {
        char *end;
        double v = strtod(e, &end);
        if (*end || !(v > 0.0 && v < 1.0))
            return clcg_error(CLCG_ERR_USAGE, "CLCG_X_SPLIT=%.100s: expected a share of the rows in (0, 1)", e);
    }
    e = getenv("CLCG_MEM_AVAILABLE");
    if (e && *e) {
        char *end;
        double v = strtod(e, &end);
        if (*end || !(v >= 0) || !isfinite(v))
            return clcg_error(CLCG_ERR_USAGE, "CLCG_MEM_AVAILABLE=%.100s: expected a number of bytes, 0 or more", e);
    }
    e = getenv("CLCG_PROF_TIMELINE");
    if (e && *e) {
        char *end;
        errno = 0;
        const long v = strtol(e, &end, 10);
        if (*end || errno || !isdigit((unsigned char)*e) || v > 1000000)
            return clcg_error(CLCG_ERR_USAGE, "CLCG_PROF_TIMELINE=%.100s: expected a number of kernels, 0 to 1000000",
                              e);
    }
    static const struct { const char *name; unsigned long long least; } sizes[] = {
        {"CLCG_READ_CHUNK", 64}, {"CLCG_PARSE_MIN", 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        e = getenv(sizes[i].name);
        if (e && *e) {
            char *end;
            errno = 0;
            const unsigned long long v = strtoull(e, &end, 10);
            if (*end || errno || !isdigit((unsigned char)*e) || v < sizes[i].least)
                return clcg_error(CLCG_ERR_USAGE, "%s=%.100s: expected a whole number of bytes, %llu or more",
                                  sizes[i].name, e, sizes[i].least);
        }
    }
    e = getenv("CLCG_FAULT");
    if (e && *e) {
        static const char *const phases[] = {"load", "device", "solve", "halo", "ghost", "window", "bus", "place", 0};
        int size = 1, known = 0;
        char *colon;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        errno = 0;
        const long r = strtol(e, &colon, 10);
        for (int k = 0; !known && *colon == ':' && !errno && isdigit((unsigned char)*e) && r < size && phases[k]; k++)
            known = !strcmp(colon + 1, phases[k]);
        if (!known)
            return clcg_error(CLCG_ERR_USAGE, "CLCG_FAULT=%.100s: expected RANK:PHASE, a rank below %d and a phase of "
                              "load, device, solve, halo, ghost, window, bus, place", e, size);
    }
    return CLCG_OK;
}

#define DEFAULT_RTOL 1e-8
#define DEFAULT_MAX_IT 10000
#define DEFAULT_PRECOND CLCG_PRECOND_JACOBI
#define DEFAULT_EXCHANGE CLCG_EXCHANGE_NEIGHBOR

clcg_status clcg_options_parse(int argc, char **argv, int rank, clcg_options *o, int *exit_now)
{
    static const char *const precond_names[] = {"none", "jacobi", 0};
    static const char *const exchange_names[] = {"allgather", "needed", "neighbor", 0};
    static const char *const devtype_names[] = {"gpu", "cpu", "all", 0};
    static const char *const format_names[] = {"auto", "csr-scalar", "csr-vector", "sell", "csr-adaptive", "csr-stream", 0};
    static const char *const variant_names[] = {"auto", "standard", "single-reduction", "pipelined", 0};
    int c, choice;
    int64_t v;

    memset(o, 0, sizeof *o);
    o->rtol = DEFAULT_RTOL;
    o->max_it = DEFAULT_MAX_IT;
    o->precond = DEFAULT_PRECOND;
    o->symmetry_check = 1;
    o->exchange = DEFAULT_EXCHANGE;
    o->device = -1;
    o->format = "auto";
    o->variant = "auto";
    o->repeat = 1;
    o->device_type = getenv("CLCG_DEVICE_TYPE");
    if (o->device_type && !*o->device_type)
        o->device_type = NULL;
    if (o->device_type) {   /* checked like --device-type */
        int known = 0;
        for (int i = 0; devtype_names[i]; i++)
            known |= !strcmp(o->device_type, devtype_names[i]);
        if (!known)
            return clcg_error(CLCG_ERR_USAGE, "CLCG_DEVICE_TYPE=%s: not one of gpu, cpu, all", o->device_type);
    }
    *exit_now = 0;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, SHORT_OPTS, long_opts, NULL)) != -1) {
        switch (c) {
        case OPT_RTOL: {
            char *end;
            errno = 0;
            o->rtol = strtod(optarg, &end);
            while (end != optarg && (*end == ' ' || *end == '\t'))   /* " 1e-8 " as strtod reads " 1e-8" */
                end++;
            if (errno == ERANGE && o->rtol > 0.0)   /* a subnormal such as 4.9e-324: taken as read */
                errno = 0;
            if (end == optarg || *end || errno || !(o->rtol > 0.0) || !(o->rtol < 1.0))
                return clcg_error(CLCG_ERR_USAGE, "--rtol: '%s' is not a number in (0, 1)", optarg);
            break;
        }
        case OPT_MAXIT:
            CLCG_CALL(parse_int("max-iterations", optarg, 0, INT64_MAX / 2, &o->max_it));
            break;
        case OPT_PRECOND:
            CLCG_CALL(parse_choice("precond", optarg, precond_names, &choice));
            o->precond = (clcg_precond)choice;
            break;
        case OPT_RHS: o->rhs = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_MONITOR: o->monitor = 1; break;
        case 'q': o->quiet = 1; break;
        case 'h':
            if (rank == 0)
                fputs(usage_text, stdout);
            *exit_now = 1;
            return CLCG_OK;
        case OPT_VERSION:
            if (rank == 0)
                printf("clcg-mpi %s\n", PACKAGE_VERSION);
            *exit_now = 1;
            return CLCG_OK;
        case OPT_GENERATE:   /* one problem, as one matrix file */
            if (o->generate)
                return clcg_error(CLCG_ERR_USAGE, "--generate given twice ('%s', then '%s'): one problem a run",
                                  o->generate, optarg);
            o->generate = optarg;
            break;
        case OPT_WRITE_MATRIX: o->write_matrix = optarg; break;
        case OPT_WRITE_BINARY: o->write_binary = optarg; break;
        case OPT_NO_SYMCHECK: o->symmetry_check = 0; break;
        case OPT_REFERENCE: o->backend = CLCG_BACKEND_REFERENCE; break;
        case OPT_LIST_DEVICES: o->list_devices = 1; break;
        case OPT_DEVICE_TYPE:
            CLCG_CALL(parse_choice("device-type", optarg, devtype_names, &choice));
            o->device_type = optarg;
            break;
        case OPT_PLATFORM: o->platform = optarg; break;
        case OPT_DEVICE:
            CLCG_CALL(parse_int("device", optarg, 0, 1023, &v));
            o->device = (int)v;
            break;
        case OPT_DEVICES_PER_RANK:
            CLCG_CALL(parse_int("devices-per-rank", optarg, 1, 64, &v));
            o->devices_per_rank = (int)v;
            break;
        case OPT_JSON: o->json = optarg; break;
        case OPT_PROFILE: o->profile = 1; break;
        case OPT_EXCHANGE:
            CLCG_CALL(parse_choice("exchange", optarg, exchange_names, &choice));
            o->exchange = (clcg_exchange)choice;
            break;
        case OPT_FORMAT:
            CLCG_CALL(parse_choice("format", optarg, format_names, &choice));
            o->format = format_names[choice];
            break;
        case OPT_VARIANT:
            CLCG_CALL(parse_choice("variant", optarg, variant_names, &choice));
            o->variant = variant_names[choice];
            break;
        case OPT_TUNE: o->tune = 1; break;
        case OPT_JACOBI_SCALED: o->jacobi_scaled = 1; break;
        case OPT_TUNE_CACHE: o->tune_cache = optarg; break;
        case OPT_NO_TUNE: o->no_tune = 1; break;
        case OPT_LOAD_ONLY: o->load_only = 1; break;
        case OPT_REPEAT:
            CLCG_CALL(parse_int("repeat", optarg, 1, CLCG_MAX_REPEATS, &v));   /* the record keeps each time */
            o->repeat = (int)v;
            break;
        case ':':
            return clcg_error(CLCG_ERR_USAGE, "option '%s' needs an argument (see --help)", argv[optind - 1]);
        default:   /* a letter that is no short option ("-m.mtx", "-qm"): named alone, as getopt
                      may still be in its argument; a letter of ours comes from a long option
                      given a value ("--quiet=1"), named as given */
            if (optopt > 0 && optopt < 128 && isgraph(optopt) && !strchr(SHORT_OPTS, optopt))
                return clcg_error(CLCG_ERR_USAGE, "unknown option '-%c' (see --help)", optopt);
            CLCG_CALL(ambiguous(argv[optind - 1]));
            return clcg_error(CLCG_ERR_USAGE, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (o->list_devices) {   /* it lists and stops: what would go to a solve does nothing */
        const char *idle = optind < argc ? argv[optind] : o->generate ? "--generate" : o->rhs ? "--rhs"
                         : o->output ? "-o" : o->json ? "--json" : o->write_matrix ? "--write-matrix"
                         : o->write_binary ? "--write-binary" : o->load_only ? "--load-only"
                         : o->backend == CLCG_BACKEND_REFERENCE ? "--reference" : NULL;
        if (idle)
            return clcg_error(CLCG_ERR_USAGE, "--list-devices lists the devices and stops, so %s%s%s would do "
                              "nothing: give them in separate runs", optind < argc ? "'" : "", idle,
                              optind < argc ? "'" : "");
        return CLCG_OK;
    }
    if (optind < argc)
        o->matrix = argv[optind++];
    if (optind < argc)
        return clcg_error(CLCG_ERR_USAGE, "unexpected argument '%s': give one matrix (see --help)", argv[optind]);
    if (!o->matrix && !o->generate)
        return clcg_error(CLCG_ERR_USAGE, "no matrix: give MATRIX.mtx or --generate KIND:SIZE (see --help)");
    if (o->matrix && o->generate)
        return clcg_error(CLCG_ERR_USAGE, "give either MATRIX.mtx or --generate, not both");
    if (o->no_tune && o->tune)
        return clcg_error(CLCG_ERR_USAGE, "--tune and --no-tune contradict each other");
    if (o->device >= 0 && o->devices_per_rank > 1)
        return clcg_error(CLCG_ERR_USAGE, "--device %d picks one device a rank, --devices-per-rank %d more: give one",
                          o->device, o->devices_per_rank);
    /* modes that stop before the solve would leave the other outputs unwritten: say so */
    const char *stop = o->write_matrix ? "--write-matrix" : o->write_binary ? "--write-binary"
                     : o->load_only ? "--load-only" : NULL, *other = NULL;
    if (o->write_matrix && o->write_binary)
        other = "--write-binary";
    else if ((o->write_matrix || o->write_binary) && o->load_only)
        other = "--load-only";
    else if ((o->write_matrix || o->write_binary) && o->rhs)
        other = "--rhs";
    else if (o->output)
        other = "-o";
    else if (o->json)
        other = "--json";
    if (stop && other)
        return clcg_error(CLCG_ERR_USAGE, "%s stops before the solve, so %s would do nothing: give them in separate runs",
                          stop, other);
    return check_env();
}

/* ---- paths ---- */

typedef struct {
    const char *opt, *path;
    int out;   /* 1: an output; 2: an output made on demand (the tune cache: its directories
                * are created, and a cache that cannot be written only costs a search) */
} named_path;

/* a and b name one file: both exist as the same regular file (devices such as /dev/null
 * and descriptors are written through, so two outputs may share one), or neither exists
 * and they name the same entry of the same directory, once dangling symbolic links are
 * followed to the names the files will be made under */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0, same = 0;
    char da[4096], db[4096];
    if (ea || eb)
        return ea && eb && S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode) && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
    char *ra = clcg_link_end(a), *rb = clcg_link_end(b);
    if (ra && rb) {
        clcg_dir_of(ra, da, sizeof da);
        clcg_dir_of(rb, db, sizeof db);
        same = !strcmp(clcg_base_of(ra), clcg_base_of(rb)) && stat(da, &sa) == 0 && stat(db, &sb) == 0 && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
    }
    free(ra);
    free(rb);
    return same;
}

/* The tuning cache: FILE of --tune-cache, else $XDG_CACHE_HOME/clcg-mpi/tune.txt, else
 * $HOME/.cache/clcg-mpi/tune.txt. */
void clcg_tune_cache_path(const char *given, char *out, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (given)
        snprintf(out, len, "%s", given);
    else if (xdg && *xdg)
        snprintf(out, len, "%s/clcg-mpi/tune.txt", xdg);
    else
        snprintf(out, len, "%s/.cache/clcg-mpi/tune.txt", home && *home ? home : ".");
}

#define TMP_EXTRA 24   /* what a temporary name adds to a path (".tmp." and a pid) */

static clcg_status check_paths(const clcg_options *o)
{
    /* the default tuning cache, where a device solve will read and write it */
    char cache[4096];
    const int tunes = !o->tune_cache && !o->no_tune && o->backend != CLCG_BACKEND_REFERENCE && !o->load_only &&
                      !o->write_matrix && !o->write_binary;
    clcg_tune_cache_path(NULL, cache, sizeof cache);
    const named_path all[] = {
        {"the matrix", o->matrix, 0}, {"--rhs", o->rhs, 0}, {"-o", o->output, 1}, {"--json", o->json, 1},
        {"--write-matrix", o->write_matrix, 1}, {"--write-binary", o->write_binary, 1},
        {"--tune-cache", o->tune_cache, 2}, {"the tuning cache", tunes ? cache : NULL, 0},
    };
    const int n = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < n; i++) {
        struct stat sb;
        char dir[4096];
        if (!all[i].path)
            continue;
        if (!*all[i].path)   /* an input's too: "cannot open ''" would not say what is wrong */
            return clcg_error(CLCG_ERR_USAGE, "%s: the file name is empty", all[i].opt);
        if (!all[i].out)
            continue;
        if (strlen(all[i].path) + TMP_EXTRA >= PATH_MAX)   /* the temporary PATH.tmp.PID too */
            return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: the path has %zu characters, more than "
                              "the %d the system allows (with a temporary name beside it)", all[i].path,
                              strlen(all[i].path), PATH_MAX - 1 - TMP_EXTRA);
        for (int k = 0; k < n; k++)
            if (k != i && all[k].path && *all[k].path && (k < i || !all[k].out) && same_file(all[i].path, all[k].path))
                return clcg_error(CLCG_ERR_USAGE, "%s %s: the same file as %s%s%s: give another name",
                                  all[i].opt, all[i].path, all[k].opt, all[k].out ? " " : "",
                                  all[k].out ? all[k].path : "");
        if (all[i].out == 2) {   /* the tuning cache: a text file read to its end and appended to */
            if (stat(all[i].path, &sb) == 0 && !S_ISREG(sb.st_mode))
                return clcg_error(CLCG_ERR_USAGE, "--tune-cache %s: not a regular file", all[i].path);
            continue;
        }
        if (stat(all[i].path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode))
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: it is a directory", all[i].path);
            if (!S_ISREG(sb.st_mode) && all[i].path == o->write_binary)
                return clcg_error(CLCG_ERR_IO, "%s: cannot write a binary matrix there: not a regular file",
                                  all[i].path);
            if (!S_ISREG(sb.st_mode))
                continue;   /* a device or FIFO: written in place */
            /* a file its owner made read-only (or made immutable) is not replaced behind that,
               as the rename into place would (it needs only the directory's permission) */
            if (access(all[i].path, W_OK) != 0 && errno != EROFS)
                return clcg_error(CLCG_ERR_IO, "%s: cannot replace the file: %s", all[i].path, strerror(errno));
        }
        if (clcg_out_is_descriptor(all[i].path))
            continue;       /* /dev/stdout redirected to a file: written through the descriptor */
        {   /* a symbolic link: the file is made where its chain ends, under that name; a
               path or name too long for it would fail only after the solve */
            char *end = clcg_link_end(all[i].path);
            if (!end)
                return clcg_error(errno == ENOMEM ? CLCG_ERR_MEMORY : CLCG_ERR_IO, "%s: cannot create the file: %s",
                                  all[i].path, strerror(errno));
            const size_t plen = strlen(end), blen = strlen(clcg_base_of(end));
            clcg_dir_of(end, dir, sizeof dir);
            free(end);
            if (plen + TMP_EXTRA >= PATH_MAX)
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: where its links lead, the path has %zu "
                                  "characters, more than the %d the system allows (with a temporary name beside "
                                  "it)", all[i].path, plen, PATH_MAX - 1 - TMP_EXTRA);
            if (stat(dir, &sb) != 0 && errno != ENOENT && errno != ENOTDIR)   /* EACCES: a folder above it closed */
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: directory %s: %s", all[i].path, dir,
                                  strerror(errno));
            if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: no directory %s", all[i].path, dir);
            const long name_max = pathconf(dir, _PC_NAME_MAX);
            if (name_max > 0 && (long)blen > name_max)
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: its name has %zu characters, "
                                  "more than the %ld its directory allows", all[i].path, blen, name_max);
        }
        if (access(dir, W_OK | X_OK) != 0)
            return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: directory %s is not writable: %s",
                              all[i].path, dir, strerror(errno));
        {   /* the permissions may allow what the file system does not (read-only, /proc): try */
            char probe[4200];
            int fd = -1;
            for (int k = 0; k < 8 && fd < 0; k++) {   /* a name another job's probe has: the next */
                snprintf(probe, sizeof probe, "%s/.clcg-probe.%ld.%d", dir, (long)getpid(), k);
                fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
                if (fd < 0 && errno != EEXIST)
                    break;
            }
            if (fd < 0)
                return clcg_error(CLCG_ERR_IO, "%s: cannot create the file: a file cannot be made in %s: %s",
                                  all[i].path, dir, strerror(errno));
            close(fd);
            unlink(probe);
        }
    }
    return CLCG_OK;
}

clcg_status clcg_options_check_paths(MPI_Comm comm, const clcg_options *o)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    return clcg_agree(comm, rank == 0 ? check_paths(o) : CLCG_OK, NULL);
}

/* Options given (told from their defaults) that this run has no use for: one warning on rank
 * 0, so that none is dropped in silence.  The host reference has no use for the device ones;
 * a run that stops before the solve, for the solver's too. */
void clcg_options_warn_idle(const clcg_options *o, int rank)
{
    const char *stop = o->write_matrix ? "--write-matrix" : o->write_binary ? "--write-binary"
                     : o->load_only ? "--load-only" : NULL;
    const int ref = o->backend == CLCG_BACKEND_REFERENCE;
    if (rank != 0 || o->quiet || !(stop || ref))
        return;
    const struct { int given; const char *name; } opt[] = {
        {stop && ref, "--reference"}, {stop && o->rtol != DEFAULT_RTOL, "--rtol"},
        {stop && o->max_it != DEFAULT_MAX_IT, "--max-iterations"},
        {stop && o->monitor, "--monitor"},
        /* --load-only checks the diagonal for Jacobi and sets the halo up */
        {stop && !o->load_only && o->precond != DEFAULT_PRECOND, "--precond"},
        {stop && !o->load_only && o->exchange != DEFAULT_EXCHANGE, "--exchange"},
        {strcmp(o->variant, "auto") && (stop || strcmp(o->variant, "standard")), "--variant"},
        {strcmp(o->format, "auto") != 0, "--format"}, {o->jacobi_scaled, "--jacobi-scaled"},
        {o->repeat > 1, "--repeat"}, {o->profile, "--profile"}, {o->device >= 0, "--device"},
        {o->devices_per_rank > 0, "--devices-per-rank"}, {o->platform != NULL, "--platform"},
        {o->tune, "--tune"}, {o->tune_cache != NULL, "--tune-cache"}, {o->no_tune, "--no-tune"}};
    char idle[400] = "";
    int n = 0;
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (opt[i].given) {
            const size_t len = strlen(idle);
            snprintf(idle + len, sizeof idle - len, "%s%s", n++ ? ", " : "", opt[i].name);
        }
    if (n && stop)
        fprintf(stderr, "clcg-mpi: warning: %s stops before the solve: %s %s nothing\n", stop, idle,
                n > 1 ? "do" : "does");
    else if (n)
        fprintf(stderr, "clcg-mpi: warning: --reference runs the host's standard CG: %s %s not apply\n", idle,
                n > 1 ? "do" : "does");
}
