/* Make a failure on any rank everybody's failure: the lowest failing rank's status and
 * message reach all ranks at this collective, so no rank waits on a peer that gave up. */
#include "clcg_impl.h"

#include <string.h>

static int agreed_rank = -1;   /* the rank whose failure every rank already holds */

clcg_status clcg_agree(MPI_Comm comm, clcg_status st, int *failed_rank)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = (st == CLCG_OK || st == CLCG_ERR_PEER) ? size : agreed_rank >= 0 ? agreed_rank : rank;
    if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Allreduce of the error flag failed");
    if (failed_rank)
        *failed_rank = first < size ? first : -1;
    if (first == size)
        return st == CLCG_ERR_PEER ? clcg_error(CLCG_ERR_INTERNAL, "a rank stopped without a reason") : CLCG_OK;
    /* the first failing rank's status and message, to every rank */
    return clcg_agree_from(comm, first, st);
}

clcg_status clcg_agree_from(MPI_Comm comm, int root, clcg_status st)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct { int status; char msg[2048]; } m;
    memset(&m, 0, sizeof m);
    if (rank == root) {
        m.status = st;
        if (st != CLCG_OK)
            strncpy(m.msg, clcg_error_message(), sizeof m.msg - 1);
    }
    if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, root, comm) != MPI_SUCCESS)
        return clcg_error(CLCG_ERR_MPI, "MPI_Bcast of a failure failed");
    if (m.status == CLCG_OK)
        return CLCG_OK;
    agreed_rank = root;
    if (rank != root) {
        clcg_error_clear();
        clcg_error((clcg_status)m.status, "%s", m.msg);
    }
    return (clcg_status)m.status;
}
