#!/usr/bin/env bash
# `make test`: every suite, in 20 minutes on two cores. The suites run one after another in the foreground, each
# timed; the three instrumented builds they need later (AddressSanitizer, ThreadSanitizer, libFuzzer, in the order
# their suites come) are made meanwhile in the background, from the start, at the lowest CPU priority, one after
# another, so they take only the time the foreground leaves idle (the release build's serial steps; suites waiting on
# real-time audio, servers and child processes) and never slow a real-time test. The fuzz targets' fixed runs
# (reproducible: seeded, counted) follow their build there too, and then the QML module's AddressSanitizer test (its
# own instrumented build and run). The Python suites are spread over processes (pytest-xdist, `-n`); tests sharing a
# costly fixture stay in one (bindings/python/tests/conftest.py).
#   scripts/test.sh MAKE PYTHON BUILD
# A failure stops the run, naming the stage (or the background build and its log); with VOICENOTE_TEST_KEEP_GOING=1
# every later suite still runs, and the run fails at the end naming every stage that failed.
set -euo pipefail
make=${1:?usage: test.sh MAKE PYTHON BUILD}
python=${2:?usage: test.sh MAKE PYTHON BUILD}
build=${3:?usage: test.sh MAKE PYTHON BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

# How many processes a Python suite is spread over: twice the cores (its tests wait more than they compute).
workers=${VOICENOTE_TEST_WORKERS:-$(( $(nproc) * 2 ))}
export VOICENOTE_PYTEST_ARGS="-n $workers --dist loadgroup --durations=15"  # the slowest tests shown in the log
# The longest any background job may take before the run gives up on it.
build_limit_seconds=3600

started=$(date +%s)
failed=()
# A stage's CPU seconds (user and system, its processes' and theirs): the machine's two cores are busy through most
# of a run, so a stage's CPU, not its wall time, is what it costs the whole. `counted FILE COMMAND...` runs the
# command in a subshell of its own, whose `times` then counts that command alone, writes that to FILE and returns
# the command's status; `cpu_seconds FILE` reads the seconds from it. The background builder (below) uses both too.
counted() {
    local record=$1
    shift
    (
        code=0
        "$@" || code=$?
        times >"$record"
        exit "$code"
    )
}
cpu_seconds() {
    awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d", u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$1"
}
export -f counted cpu_seconds
cpu_record=$(mktemp "${TMPDIR:-/tmp}/voicenote-test-cpu.XXXXXX")
trap 'rm -f "$cpu_record"' EXIT
stage() {
    local name=$1 start status=0
    start=$(date +%s)
    counted "$cpu_record" "$make" --no-print-directory "$name" || status=$?
    if [[ $status != 0 ]]; then
        echo "make test: $name FAILED after $(( $(date +%s) - start )) s"
        [[ ${VOICENOTE_TEST_KEEP_GOING:-} == 1 ]] || exit "$status"
        failed+=("$name")
        return 0
    fi
    echo "make test: $name passed in $(( $(date +%s) - start )) s (CPU $(cpu_seconds "$cpu_record") s)"
}

stage test-self-contained
# The package's dependencies are resolved once (Package.resolved written) before builds in four scratch paths run at
# the same time.
stage resolve

# The instrumented builds, in the background from the start, beside the release build (whose serial steps leave a
# core idle): each reports its exit status on a pipe of its own, which the foreground reads (bounded) when it needs
# that build. The jobs that run against the release build (the QML module's AddressSanitizer test links build/lib)
# wait for it: the foreground leaves a mark once it is built.
state=$(mktemp -d "${TMPDIR:-/tmp}/voicenote-test.XXXXXX")
logs=$build/test-logs
mkdir -p "$logs"
jobs=(build-asan build-tsan build-fuzz test-fuzz test-qml-asan)
for job in "${jobs[@]}"; do
    mkfifo "$state/$job"
done
exec {tsan_done}<>"$state/build-tsan" {asan_done}<>"$state/build-asan" {fuzz_done}<>"$state/build-fuzz" \
    {fuzzed_done}<>"$state/test-fuzz" {qml_asan_done}<>"$state/test-qml-asan"
# setsid gives the builds a session of their own, and with it (kernel.sched_autogroup_enabled, on by default) a
# scheduling group that competes with the foreground's as an equal whatever its processes' nice values: the builder
# makes its group nice 19 first, so the builds take only what the foreground leaves idle.
setsid nice -n 19 bash -c '
    echo 19 >/proc/self/autogroup 2>/dev/null || true
    make=$1 state=$2 logs=$3
    shift 3
    for job in "$@"; do
        if [[ $job == test-qml-asan ]]; then
            waited=0
            until [[ -e $state/release-built ]] || (( waited >= 3600 )); do
                sleep 5
                waited=$(( waited + 5 ))
            done
        fi
        start=$(date +%s)
        status=0
        counted "$logs/$job.cpu" "$make" --no-print-directory "$job" >"$logs/$job.log" 2>&1 || status=$?
        echo "$status $(( $(date +%s) - start )) $(cpu_seconds "$logs/$job.cpu")" >"$state/$job"
    done' background-builds "$make" "$state" "$logs" "${jobs[@]}" &
builder=$!
cleanup() {
    kill -- -"$builder" 2>/dev/null || true
    rm -rf "$state" "$cpu_record"
}
trap cleanup EXIT

stage build
touch "$state/release-built"

# Waits for a background job (a build, or the fuzz runs), looking every few seconds whether the builder still runs:
# fails, showing its log's end, if the job failed, if the builder ended without reporting it, or if it did not end in
# time. A suite's log is shown whole once it passed, as a foreground stage's output would be.
wait_for_background() {
    local job=$1 fd=$2 status seconds cpu waited=0 poll=5
    until read -r -t "$poll" status seconds cpu <&"$fd"; do
        waited=$(( waited + poll ))
        if ! kill -0 "$builder" 2>/dev/null && ! read -r -t 1 status seconds cpu <&"$fd"; then
            echo "make test: the background jobs ended before $job reported (log: $logs/$job.log)"
            exit 1
        elif [[ -n ${status:-} ]]; then
            break
        fi
        if (( waited >= build_limit_seconds )); then
            echo "make test: $job did not end within $build_limit_seconds s (log: $logs/$job.log)"
            exit 1
        fi
    done
    if [[ $status != 0 ]]; then
        tail -n 60 "$logs/$job.log"
        echo "make test: $job (background) FAILED after $seconds s (log: $logs/$job.log)"
        [[ $job == test-* && ${VOICENOTE_TEST_KEEP_GOING:-} == 1 ]] || exit 1
        failed+=("$job")
        return 0
    fi
    if [[ $job == test-* ]]; then
        cat "$logs/$job.log"
        echo "make test: $job (background) passed in $seconds s (CPU ${cpu:-?} s)"
    else
        echo "make test: $job (background) built in $seconds s (CPU ${cpu:-?} s)"
    fi
}

stage test-abi
stage docs

stage test-c
stage test-cpp
stage test-glib
stage test-glib-leaks
stage test-gtk
stage test-qml
stage test-python
stage test-install
# The AddressSanitizer suite before the ThreadSanitizer one: it waits on real-time devices more, and the background
# jobs still to come (the ThreadSanitizer build, the fuzz runs, the QML AddressSanitizer test) fill the time it
# leaves idle; the ThreadSanitizer suite, last, keeps both cores busy on its own.
wait_for_background build-asan "$asan_done"
stage test-asan
wait_for_background build-tsan "$tsan_done"
stage test-tsan
wait_for_background build-fuzz "$fuzz_done"
wait_for_background test-fuzz "$fuzzed_done"
wait_for_background test-qml-asan "$qml_asan_done"
if ((${#failed[@]})); then
    echo "make test: FAILED: ${failed[*]} (after $(( $(date +%s) - started )) s)"
    exit 1
fi
echo "make test: all suites passed in $(( $(date +%s) - started )) s"
