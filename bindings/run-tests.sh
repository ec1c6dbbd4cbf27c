#!/usr/bin/env bash
# Runs a binding's test programs one after another, each under `timeout` and timed, and fails naming every one that
# failed (bindings/glib and bindings/gtk call it from `make test`):
#   bindings/run-tests.sh LABEL TIMEOUT_SECONDS 'NAME COMMAND...' ...
# Each argument after the second is a test's name, a space, and the command line that runs it (as the shell reads
# it: quotes group words).
set -uo pipefail
label=${1:?usage: run-tests.sh LABEL TIMEOUT_SECONDS 'NAME COMMAND...' ...}
limit=${2:?usage: run-tests.sh LABEL TIMEOUT_SECONDS 'NAME COMMAND...' ...}
shift 2
failed=() names=()
for test in "$@"; do
    name=${test%% *}
    names+=("$name")
    echo "== $label/$name"
    start=$(date +%s%N)
    timeout --kill-after=10 "$limit" bash -c "exec ${test#* }"
    rc=$?
    echo "   $name: exit $rc after $(( ($(date +%s%N) - start) / 1000000 )) ms"
    if [[ $rc == 124 || $rc == 137 ]]; then echo "$name: timed out after $limit s"; fi
    if [[ $rc != 0 ]]; then failed+=("$name"); fi
done
if ((${#failed[@]})); then
    echo "$label tests failed: ${failed[*]}"
    exit 1
fi
echo "$label tests: all passed (${names[*]})"
