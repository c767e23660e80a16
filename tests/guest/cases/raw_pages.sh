#!/bin/sh
# Incompressible pages are stored raw: a workload of 90% random pages, 2x
# RAM, rewritten between passes (a stale copy is caught, not only a lost
# one), goes through the pool as raw pages (raw_stores) rather than to the
# disk (reject_compress_poor), and comes back bit-exact.  The raw_pages
# gauge goes back to 0 with the pages.  With store_raw=0 such pages are
# refused again, as before.
#
# results: raw_pages_stored_and_verified raw_pages_gauge_back_to_zero
# results: raw_pages_store_raw_off_refuses raw_pages_no_kernel_warnings
# memory: 128M
# timeout: 900
# swap disk: yes
swap_on
load_ramster max_pool_percent=30
mib=$(( $(ram_mib) * 2 ))
watch_max "$RAMSTER/raw_pages" /tmp/max_raw & watcher=$!
run_workload "$mib" -R 90 -p 3; rc=$?
kill $watcher
show_stats
stores=$(stat_of stores)
raw_stores=$(stat_of raw_stores)
poor=$(stat_of reject_compress_poor)
figures="rc=$rc bad=$(bad_pages) stores=$stores raw_stores=$raw_stores max_raw_pages=$(cat /tmp/max_raw) reject_compress_poor=$poor loads=$(stat_of loads)"
echo "raw_pages: $figures"
# "Near 0": a raw page is refused only when zsmalloc cannot allocate it.
check raw_pages_stored_and_verified "$figures" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$raw_stores" -gt 0 \
	-a "$raw_stores" -gt $(( stores / 2 )) \
	-a "$(cat /tmp/max_raw)" -gt 0 -a "$(( poor * 100 ))" -le "$raw_stores" \
	-a "$(stat_of loads)" -gt 0

swapoff "$(swap_dev)"
check raw_pages_gauge_back_to_zero "after swapoff: raw_pages=$(stat_of raw_pages) stored_pages=$(stat_of stored_pages)" \
	test "$(stat_of raw_pages)" = 0 -a "$(stat_of stored_pages)" = 0
rmmod ramster

# The old behaviour on request: poorly compressing pages go to the disk.
swap_on
load_ramster max_pool_percent=30 store_raw=0
run_workload $(( $(ram_mib) * 3 / 2 )) -R 90 -p 2; rc=$?
show_stats
figures="rc=$rc bad=$(bad_pages) raw_stores=$(stat_of raw_stores) reject_compress_poor=$(stat_of reject_compress_poor)"
echo "raw_pages, store_raw=0: $figures"
check raw_pages_store_raw_off_refuses "$figures" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$(stat_of raw_stores)" = 0 \
	-a "$(stat_of reject_compress_poor)" -gt 0
check raw_pages_no_kernel_warnings "see dmesg" dmesg_clean
