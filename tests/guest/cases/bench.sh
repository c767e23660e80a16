#!/bin/sh
# One benchmark run: bench_mode=disk|zswap|ramster, bench_mult=N (workload
# of N x RAM).  zswap is enabled on the command line by the host.  Run by
# tests/bench.sh, not by tests/run.sh (no "# results:" header).
mode=disk
mult=3
# shellcheck disable=SC2013  # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	bench_mode=*) mode=${arg#bench_mode=} ;;
	bench_mult=*) mult=${arg#bench_mult=} ;;
	esac
done
swap_on
[ "$mode" = ramster ] && load_ramster
run_workload $(( $(ram_mib) * mult )) -q -p 2 -s 11; rc=$?
show_stats
echo "BENCH: mode=$mode mult=$mult rc=$rc $(cut -d' ' -f3- /tmp/workload.result)"
check bench_run "rc=$rc" test "$rc" = 0 -a "$(bad_pages)" = 0
