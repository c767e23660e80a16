#!/bin/sh
# Evict, don't refuse: a pool of 8% of RAM takes a workload of 1.5x RAM,
# rewritten between passes (-p 3: a stale copy is caught, not only a lost
# one).  Once the pool passes evict_high_percent of its limit, the coldest
# entries are written back to their swap slots (frontswap_writeback(),
# kernel patch 0018) and new pages keep being stored: stores go on far
# beyond what the pool holds, refusals at the limit stay rare, and every
# page comes back bit-exact, from the pool or from the disk, with no
# failed load (a written-back page whose frontswap bit stayed set, or
# that was not filled, would show as one, or as a bad page).
#
# results: evict_keeps_storing evict_no_kernel_warnings
# memory: 128M
# timeout: 900
# swap disk: yes
swap_on
load_ramster max_pool_percent=8
mib=$(( $(ram_mib) * 3 / 2 ))
run_workload "$mib" -p 3; rc=$?
show_stats
stores=$(stat_of stores)
rejected=$(stat_of reject_pool_limit)
evicted=$(stat_of evicted_written_back)
failed_loads=$(fs_stat failed_loads)
figures="rc=$rc bad=$(bad_pages) stores=$stores reject_pool_limit=$rejected evicted_written_back=$evicted evict_writeback_failed=$(stat_of evict_writeback_failed) evict_skipped_busy=$(stat_of evict_skipped_busy) loads=$(stat_of loads) failed_loads=$failed_loads pswpout=$(vmstat_of pswpout)"
echo "evict: $figures"
# Rare: under a tenth of the stores are refused at the limit.
check evict_keeps_storing "$figures" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$failed_loads" = 0 \
	-a "$evicted" -gt 0 -a "$stores" -gt 0 \
	-a "$(( rejected * 10 ))" -lt "$stores"
swapoff "$(swap_dev)"
rmmod ramster
check evict_no_kernel_warnings "see dmesg" dmesg_clean
