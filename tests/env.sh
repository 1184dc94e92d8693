# Environment for the test suite: Open MPI as root and oversubscribed, PoCL caches.
OMPI_ALLOW_RUN_AS_ROOT=1; export OMPI_ALLOW_RUN_AS_ROOT
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
OMPI_MCA_rmaps_base_oversubscribe=1; export OMPI_MCA_rmaps_base_oversubscribe
# Containers often forbid cross-memory attach; copy through shared memory instead.
OMPI_MCA_btl_vader_single_copy_mechanism=none; export OMPI_MCA_btl_vader_single_copy_mechanism
OMPI_MCA_btl=self,vader; export OMPI_MCA_btl
# Tests run on the CPU device (PoCL); keep its kernel cache inside the build tree.
CLCG_DEVICE_TYPE=${CLCG_DEVICE_TYPE:-cpu}; export CLCG_DEVICE_TYPE
POCL_CACHE_DIR=${POCL_CACHE_DIR:-${abs_top_builddir:-.}/.pocl-cache}; export POCL_CACHE_DIR
XDG_CACHE_HOME=${XDG_CACHE_HOME:-${abs_top_builddir:-.}/.cache}; export XDG_CACHE_HOME
# --variant auto takes single-reduction where several GPUs hold few rows each; the tests
# compare the standard form's iterates across ranks and devices, so they keep it (the rule
# itself is tested in test_mpi.sh)
CLCG_SR_ROWS=${CLCG_SR_ROWS:-0}; export CLCG_SR_ROWS
LC_NUMERIC=C; export LC_NUMERIC   # the checks read numbers with awk
