#!/bin/sh
# make demo (single node for now): swap 3x RAM through ramster, with the
# summary line printed while it runs and every counter at the end.
swap_on
load_ramster max_pool_percent="${DEMO_POOL_PERCENT:-25}"
echo "demo: $(ram_mib) MiB of RAM, workload of $(( $(ram_mib) * 3 )) MiB"
( while sleep 3; do echo "stats: $(stat_of summary)"; done ) & ticker=$!
run_workload $(( $(ram_mib) * 3 )); rc=$?
kill $ticker
echo "demo: final counters"
for f in "$RAMSTER"/*; do
	case "${f##*/}" in summary|shrink_target) continue ;; esac
	printf '  %-24s %s\n' "${f##*/}" "$(cat "$f")"
done
show_stats
check demo_workload_verified "rc=$rc bad=$(bad_pages)" test "$rc" = 0 -a "$(bad_pages)" = 0
