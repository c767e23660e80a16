#!/bin/sh
# Swap pages before clean pages.  Clean pages of a file set fill the pool
# (max_pool_percent=20), the limit is halved, and an anonymous workload of
# 1.2x RAM swaps, then the file set is read again.  Clean pages give way:
# swap stores evict them, swap and clean pages together stay within the
# limit while swap pages are held, and a swap page is refused for the
# limit only once swap pages alone fill the pool; every page and every
# file verifies.  (Under memory pressure the shrinker also takes clean
# pages: its count is in the figures.)  evict_high_percent=100: swap
# pages are not written back before the limit, so the largest swap pool
# sampled is the one a refusal met (the evict case covers write-back).
#
# results: cleancache_swap_pages_first cleancache_priority_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
# data disk: ext4 256M
swap_on
load_ramster evict_high_percent=100
mount_data 0 /mnt || echo "cannot mount data disk 0"
mkdir -p /mnt/set
files=$(( $(ram_mib) * 3 / 2 / 4 ))
/bin/fileset create /mnt/set "$files" 1024 31
evict
/bin/fileset read /mnt/set "$files" 1024 31 forward
clean_before=$(stat_of clean_pool_size)
clean_pages_before=$(stat_of clean_pages)
# Half the pool for both from now on: the clean pages already fill twice
# that, so the first swap pages stored must make room by evicting them.
echo 10 > /sys/module/ramster/parameters/max_pool_percent
limit=$(( $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) * 1024 / 10 ))
echo "pool limit now $limit bytes, clean pages use $clean_before"

# While swap pages are held: the largest swap pool, and swap and clean
# pools together.
echo "0 0" > /tmp/max_pools
(
	both=0 swap=0
	while :; do
		if [ "$(stat_of stored_pages)" -gt 0 ]; then
			s=$(stat_of pool_total_size)
			v=$((s + $(stat_of clean_pool_size)))
			[ "$s" -gt "$swap" ] && swap=$s
			[ "$v" -gt "$both" ] && both=$v
			echo "$swap $both" > /tmp/max_pools
		fi
		sleep 0.2
	done
) & watcher=$!
run_workload $(( $(ram_mib) * 6 / 5 )) -p 1; rc=$?
/bin/fileset read /mnt/set "$files" 1024 31 shuffled; rc_read=$?
kill $watcher
show_stats
read -r max_swap max_both < /tmp/max_pools
evicted=$(stat_of clean_evicted_for_swap)
shrunk=$(stat_of clean_shrunk)
refused=$(stat_of reject_pool_limit)
# Slack: zsmalloc grows by whole zspages (up to 4 pages a class).
slack=$((64 * 4096))
figures="clean pages before $clean_before bytes, evicted for swap $evicted (shrinker $shrunk of $clean_pages_before), swap pages refused for the limit $refused, largest swap pool $max_swap, both $max_both, limit $limit"
problem=
[ "$rc" = 0 ] && [ "$(bad_pages)" = 0 ] && [ "$rc_read" = 0 ] ||
	problem="rc=$rc bad=$(bad_pages) read=$rc_read"
[ "$clean_before" -gt "$limit" ] || problem="$problem pool-not-full-of-clean-pages"
# Clean pages give way by one path or the other: swap stores evict them,
# or the shrinker took every one of them before the first swap store
# came (memory pressure starts both; on a slow host the shrinker may win).
# Either way the two checks below hold: together within the limit, and
# no swap page refused while clean pages kept the room.
[ "$evicted" -gt 0 ] || [ "$shrunk" -ge "$clean_pages_before" ] ||
	problem="$problem no-clean-page-gave-way"
[ "$max_both" -le $((limit + slack)) ] || problem="$problem over-the-limit-together"
[ "$refused" = 0 ] || [ "$max_swap" -ge $((limit - slack)) ] ||
	problem="$problem refused-before-swap-filled-the-pool"
if [ -z "$problem" ]; then
	ok "cleancache_swap_pages_first # $figures"
else
	not_ok cleancache_swap_pages_first "$problem; $figures"
fi
umount /mnt
check cleancache_priority_no_kernel_warnings "see dmesg" dmesg_clean
