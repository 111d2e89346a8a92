#!/bin/sh
# agent.sh: the node agent's start, stop and failure (issue 21; test/agent.c has the
# cases). Runs through test/run-mpi.sh (the configured mpiexec) with a time limit:
#   start     shmemq_info's node_agent line says on or off as the policy says, at 1, 2 and
#             4 PEs, on one node, every PE its own node and nodes of two, by default and
#             with SHMEMQ_ASYNC_PROGRESS=1/0; agent.c's "where": exactly the leaders (the
#             lowest PE of each node) run one agent thread, and a PE that computes gets
#             every add of its peers (every PE its own node)
#   stop      agent.c's "finalize": finalize with the agent running and traffic in flight
#   failure   agent.c's "funneled" (the program initialises MPI at FUNNELED) with
#             SHMEMQ_ASYNC_PROGRESS=1 and by default across nodes: each leader says once
#             that the agent cannot start and why, and the job completes (no hang)
top="${top_builddir:-.}"
prog="$top/test/agent"
info="$top/shmemq_info"
bound=60 # seconds: MPI start-up and teardown
status=0
# run, verdict (run <np> [env assignments...] <command...>: sets out, took)
. "${srcdir:-$(dirname "$0")/..}/test/run_bounded.sh"
count() { echo "$out" | grep -c -- "$1"; }
# nodes <np> <node pes or empty>: how many nodes the job spans
nodes() { if [ -z "$2" ]; then echo 1; else echo $((($1 + $2 - 1) / $2)); fi; }
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)

for np in 1 2 4; do
  for k in "" 1 2; do
    nn=$(nodes $np "$k")
    for mode in "" 1 0; do
      run $np ${k:+SHMEMQ_NODE_PES=$k} ${mode:+SHMEMQ_ASYNC_PROGRESS=$mode} sh "$top/test/run-mpi.sh" "$info"
      line=$(echo "$out" | grep '^node_agent ')
      # an unbound agent defers where the PEs and the agents (one per node, all on this
      # machine) outnumber the cores (agent.c, "Deferral")
      defer=""
      if echo "$line" | grep -q ', unbound ' && [ $((np + nn)) -gt "$cores" ]; then
        defer=", defers to its process's own progress \\(PEs and agents outnumber the cores\\)"
      fi
      case "$mode" in
        0) want='^node_agent +off: SHMEMQ_ASYNC_PROGRESS=0$' ;;
        1) want="^node_agent +on PE 0 \\(SHMEMQ_ASYNC_PROGRESS=1\\), (PU [0-9]+|unbound) .*idle sleep up to 500 us$defer\$" ;;
        *) if [ "$nn" -gt 1 ]; then
             want="^node_agent +on PE 0 \\(job spans $nn nodes\\), (PU [0-9]+|unbound) .*idle sleep up to 500 us$defer\$"
           else
             want='^node_agent +off: one-node job$'
           fi ;;
      esac
      f=""
      echo "$out" | grep -q '=== FAILED' && f="$f; shmemq_info failed"
      echo "$line" | grep -Eq -- "$want" || f="$f; node_agent line '$line' does not match '$want'"
      verdict "start: $np PE(s), SHMEMQ_NODE_PES=${k:-unset}, SHMEMQ_ASYNC_PROGRESS=${mode:-unset}" "$f"
    done
    # the threads: one in each leader's process (world rank a multiple of k), none elsewhere
    run $np ${k:+SHMEMQ_NODE_PES=$k} sh "$top/test/run-mpi.sh" "$prog" where
    f=""
    echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
    pe=0
    while [ $pe -lt $np ]; do
      want=0
      [ "$nn" -gt 1 ] && [ $((pe % ${k:-$np})) -eq 0 ] && want=1
      echo "$out" | grep -q "^PE $pe: agent threads $want\$" || f="$f; PE $pe does not run $want agent thread(s)"
      pe=$((pe + 1))
    done
    [ "$np" -gt 1 ] && { echo "$out" | grep -q "^PE [0-9]*: computed while" || f="$f; the computing PE said nothing"; }
    verdict "start: $np PE(s), SHMEMQ_NODE_PES=${k:-unset}: agent threads where the policy says" "$f"
  done
done

for np in 2 4; do
  for k in 1 2; do
    run $np SHMEMQ_NODE_PES=$k sh "$top/test/run-mpi.sh" "$prog" finalize
    f=""
    echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
    [ "$(count ': finalized, [0-9]* adds received (want [0-9]*), block right')" -eq $np ] ||
      f="$f; not every PE finalized with what it was sent"
    verdict "stop: $np PEs, SHMEMQ_NODE_PES=$k, finalize with the agent running" "$f"
  done
  for mode in 1 ""; do
    run $np SHMEMQ_NODE_PES=1 ${mode:+SHMEMQ_ASYNC_PROGRESS=$mode} sh "$top/test/run-mpi.sh" "$prog" funneled
    f=""
    echo "$out" | grep -q '=== FAILED' && f="$f; the job failed"
    [ "$(count 'shmem_init: the node agent (.*) cannot start: MPI provides MPI_THREAD_FUNNELED, it needs MPI_THREAD_MULTIPLE.* Going on without it')" -eq $np ] ||
      f="$f; not said exactly once by each leader (every PE)"
    [ "$(count ': MPI level [0-9]*, counter 50 (want 50), block right')" -eq $np ] || f="$f; a PE got wrong data"
    verdict "failure: $np PEs, SHMEMQ_NODE_PES=1, SHMEMQ_ASYNC_PROGRESS=${mode:-unset}, MPI at FUNNELED" "$f"
  done
done
exit $status
