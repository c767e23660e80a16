#!/bin/sh
# Races: two verifying workloads in parallel on two CPUs (stores, loads,
# duplicate stores and invalidations of two address spaces interleave),
# while frontswap_shrink() runs again and again underneath them.
#
# results: concurrent_workloads_with_shrink stress_counters_back_to_zero
# results: stress_no_kernel_warnings
# memory: 128M
# timeout: 900
# swap disk: yes
swap_on
load_ramster max_pool_percent=30
mib=$(( $(ram_mib) * 3 / 2 ))
/bin/workload -m "$mib" -p 3 -s 101 -q > /tmp/w1.out 2>&1 & w1=$!
/bin/workload -m "$mib" -p 3 -s 202 -q > /tmp/w2.out 2>&1 & w2=$!
shrinks=0
while kill -0 $w1 2>/dev/null || kill -0 $w2 2>/dev/null; do
	sleep 2
	held=$(fs_stat curr_pages)
	echo $(( held / 2 )) > "$CONTROL/shrink_target" && shrinks=$((shrinks + 1))
done
wait $w1; rc1=$?
wait $w2; rc2=$?
cat /tmp/w1.out /tmp/w2.out
show_stats
bad1=$(bad_pages /tmp/w1.out)
bad2=$(bad_pages /tmp/w2.out)
check concurrent_workloads_with_shrink "rc=$rc1,$rc2 bad=$bad1,$bad2 shrinks=$shrinks shrink_pages=$(stat_of shrink_pages) loads=$(stat_of loads) duplicate_entry=$(stat_of duplicate_entry)" \
	test "$rc1" = 0 -a "$rc2" = 0 -a "$bad1" = 0 -a "$bad2" = 0 \
	-a "$shrinks" -gt 0 -a "$(stat_of loads)" -gt 0
swapoff /dev/vda
check stress_counters_back_to_zero "stored_pages=$(stat_of stored_pages) curr_pages=$(fs_stat curr_pages)" \
	test "$(stat_of stored_pages)" = 0 -a "$(fs_stat curr_pages)" = 0
check stress_no_kernel_warnings "see dmesg" dmesg_clean
