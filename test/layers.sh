#!/bin/sh
# layers.sh: the runtime does not depend on the queue layer (docs/architecture.md).
# The layers are a line, examples/bench -> queue (src/queue) -> runtime (src/mpi_rma) ->
# transports -> MPI: the runtime's sources include no queue header and call no queue
# routine; the queue layer reaches the runtime through shmemi.h, and the runtime reaches
# the queue layer only through what it registered (progress hooks, modules, a context's
# batch operations). Fails, naming the lines, when a runtime source does either.
src="${srcdir:-$(dirname "$0")/..}"
status=0
rt="$src/src/mpi_rma"
# a queue header: comm_queue.h, data_queue.h, queue.h, or anything under src/queue
inc=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]*/)?(queue|comm_queue|data_queue)\.h"|^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*queue/' \
      "$rt"/*.c "$rt"/*.h)
if [ -n "$inc" ]; then
  echo "FAIL: src/mpi_rma includes a queue-layer header:"
  echo "$inc"
  status=1
fi
# a call of a queue-layer routine (its prefixes, and the public queue API)
calls=$(grep -nE '\b(shmemi_queue_|shmemi_session_|shmemi_dataq_|shmemi_dq_|cq_|dq_|shmem_queue_|shmemx_queue_|shmem_[a-z0-9]+_queue_|shmem_ctx_session_)[a-z0-9_]*[[:space:]]*\(' \
        "$rt"/*.c "$rt"/*.h | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$calls" ]; then
  echo "FAIL: src/mpi_rma calls the queue layer by name:"
  echo "$calls"
  status=1
fi
[ $status -eq 0 ] && echo "layers: src/mpi_rma neither includes nor calls src/queue"
exit $status
