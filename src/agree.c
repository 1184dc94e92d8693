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
    struct { int status; char msg[2048]; } m;
    memset(&m, 0, sizeof m);
    if (rank == first) {
        m.status = st;
        strncpy(m.msg, clcg_error_message(), sizeof m.msg - 1);
    }
    MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, comm);
    agreed_rank = first;
    if (rank != first) {
        clcg_error_clear();
        clcg_error((clcg_status)m.status, "%s", m.msg);
    }
    return (clcg_status)m.status;
}
