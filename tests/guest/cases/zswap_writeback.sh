#!/bin/sh
# zswap writes pages back: with a zpool that can evict (zbud, then z3fold;
# zsmalloc cannot in 6.1) and a pool of 10% of RAM, a workload of 3x RAM
# fills the pool and zswap_writeback_entry() writes its oldest entries to
# their swap slots.  6.1's shrink worker reclaims one zpool page per store
# that finds the pool full, and stores resume only below
# accept_threshold_percent of the limit: at 100 they resume at once, so
# the pool keeps filling and writing back, instead of a handful of times.  That calls frontswap_written_back() (kernel patch 9),
# which clears the page's frontswap bit.  Patch 9 has no counter of its own:
# what it moves is frontswap's count of held pages (curr_pages).  So, once
# the workload has filled its pages and waits, frontswap must hold exactly
# what zswap holds (curr_pages = zswap stored_pages), and the pages it let
# go without an invalidate (succ_stores - invalidates - curr_pages) must be
# more than 0.  Without patch 9, curr_pages stays higher by every
# written-back page, and the next load of such a page asks zswap for an
# entry it freed: patch 10 makes that a failed load and a SIGBUS.  The
# passes after the pause read every page again (and rewrite a quarter of
# them each pass, so a stale copy is caught): 0 failed loads, 0 bad.
#
# results: zswap_writeback_zbud_written_back zswap_writeback_zbud_frontswap_released
# results: zswap_writeback_zbud_no_failed_loads zswap_writeback_zbud_verify
# results: zswap_writeback_z3fold_written_back zswap_writeback_z3fold_frontswap_released
# results: zswap_writeback_z3fold_no_failed_loads zswap_writeback_z3fold_verify
# results: zswap_writeback_no_kernel_warnings
# memory: 128M
# timeout: 900
# swap disk: yes
# kernel args: zswap.enabled=1 zswap.compressor=lz4 zswap.zpool=zbud zswap.max_pool_percent=10 zswap.accept_threshold_percent=100
ZSWAP=$DBG/zswap
zs_stat() { cat "$ZSWAP/$1"; }
# Lines patch 10 logs for a held page frontswap could not produce.
lost_lines() { dmesg | grep -c 'frontswap cannot produce the page'; }
# check_figures NAME FIGURES COMMAND...: check, with FIGURES on the result
# line (and the console) whether it passes or not.
check_figures() {
	local name=$1 figures=$2
	shift 2
	echo "$name: $figures"
	if "$@"; then ok "$name # $figures"; else not_ok "$name" "$figures"; fi
}

swap_on
mib=$(( $(ram_mib) * 3 ))
seed=1
for pool in zbud z3fold; do
	if [ "$(cat /sys/module/zswap/parameters/zpool)" != "$pool" ]; then
		echo "$pool" > /sys/module/zswap/parameters/zpool
	fi
	in_use=$(cat /sys/module/zswap/parameters/zpool)
	wb0=$(zs_stat written_back_pages)
	fl0=$(fs_stat failed_loads)
	ld0=$(fs_stat loads)
	st0=$(fs_stat succ_stores)
	inv0=$(fs_stat invalidates)
	cur0=$(fs_stat curr_pages)
	in0=$(vmstat_of pswpin)
	lost0=$(lost_lines)
	rm -f /tmp/ready /tmp/ready.go
	watch_max "$ZSWAP/pool_total_size" /tmp/max_pool & watcher=$!
	run_workload "$mib" -s "$seed" -p 3 -r /tmp/ready & workload=$!
	while [ ! -e /tmp/ready ] && kill -0 $workload 2>/dev/null; do
		sleep 0.2
	done

	# The pages are filled and sit in zswap or on the disk.  zswap's
	# shrink worker may still be writing back: wait until frontswap and
	# zswap agree, or 10 s.
	tries=0
	while :; do
		stored=$(zs_stat stored_pages)
		curr=$(fs_stat curr_pages)
		[ "$curr" = "$stored" ] && [ "$(zs_stat stored_pages)" = "$stored" ] && break
		tries=$(( tries + 1 ))
		[ $tries -ge 20 ] && break
		sleep 0.5
	done
	wb_pause=$(( $(zs_stat written_back_pages) - wb0 ))
	released=$(( $(fs_stat succ_stores) - st0 - ($(fs_stat invalidates) - inv0) - (curr - cur0) ))
	show_stats
	grep -r . "$ZSWAP/" | sed 's|.*/zswap/||' | tr '\n' ' '; echo
	touch /tmp/ready.go
	wait $workload; rc=$?
	kill $watcher

	wb=$(( $(zs_stat written_back_pages) - wb0 ))
	failed=$(( $(fs_stat failed_loads) - fl0 ))
	loads=$(( $(fs_stat loads) - ld0 ))
	pswpin=$(( $(vmstat_of pswpin) - in0 ))
	lost=$(( $(lost_lines) - lost0 ))
	show_stats
	grep -r . "$ZSWAP/" | sed 's|.*/zswap/||' | tr '\n' ' '; echo
	check_figures "zswap_writeback_${pool}_written_back" "zpool $in_use, written_back_pages=$wb (by the pause $wb_pause) since boot: pool_limit_hit=$(zs_stat pool_limit_hit) reject_reclaim_fail=$(zs_stat reject_reclaim_fail), max_pool_bytes=$(cat /tmp/max_pool)" \
		test "$in_use" = "$pool" -a "$wb" -gt 0
	check_figures "zswap_writeback_${pool}_frontswap_released" "after filling: zswap written back $wb_pause, frontswap curr_pages=$curr zswap stored_pages=$stored, frontswap released $released pages (succ_stores - invalidates - curr_pages)" \
		test "$wb_pause" -gt 0 -a "$curr" = "$stored" -a "$released" -gt 0
	check_figures "zswap_writeback_${pool}_no_failed_loads" "failed_loads=$failed deferred_loads=$(fs_stat deferred_loads) loads=$loads pswpin=$pswpin lost-page lines=$lost" \
		test "$failed" = 0 -a "$lost" = 0 -a "$loads" -gt 0 -a "$pswpin" -gt 0
	check_figures "zswap_writeback_${pool}_verify" "rc=$rc bad=$(bad_pages) pages=$(sed -n 's/.* pages=\([0-9]*\).*/\1/p' /tmp/workload.result)" \
		test "$rc" = 0 -a "$(bad_pages)" = 0
	seed=$(( seed + 1 ))
done
swapoff "$(swap_dev)"
check zswap_writeback_no_kernel_warnings "see dmesg" dmesg_clean
