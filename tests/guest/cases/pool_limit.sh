#!/bin/sh
# A 1% pool: rejections are counted, the pages go to disk, nothing is lost,
# and the pool stays near its limit.
#
# results: pool_limit_rejects_to_disk pool_limit_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
swap_on
# evict_high_percent=100: no eviction before the limit, so the refusal
# path (what is left when eviction falls behind) is what this tests.
load_ramster max_pool_percent=1 evict_high_percent=100
out_before=$(vmstat_of pswpout)
watch_max "$RAMSTER/pool_total_size" /tmp/max_pool & watcher=$!
run_workload $(( $(ram_mib) * 3 )); rc=$?
kill $watcher
show_stats
ram_bytes=$(awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo)
# The limit is checked before each store: allow 1 MiB of overshoot.
allowed=$(( ram_bytes / 100 + 1048576 ))
written=$(( $(vmstat_of pswpout) - out_before ))
check pool_limit_rejects_to_disk "rc=$rc bad=$(bad_pages) reject_pool_limit=$(stat_of reject_pool_limit) pswpout=$written max_pool=$(cat /tmp/max_pool) allowed=$allowed" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 \
	-a "$(stat_of reject_pool_limit)" -gt 0 -a "$written" -gt 0 \
	-a "$(cat /tmp/max_pool)" -le "$allowed" -a "$(cat /tmp/max_pool)" -gt 0
check pool_limit_no_kernel_warnings "see dmesg" dmesg_clean
