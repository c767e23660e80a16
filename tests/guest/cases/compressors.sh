#!/bin/sh
# The workload through each compressor the kernel has.
#
# results: compressor_lz4 compressor_lzo compressor_zstd
# results: compressors_no_kernel_warnings
# memory: 128M
# timeout: 900
# swap disk: yes
mib=$(( $(ram_mib) * 3 / 2 ))
for c in lz4 lzo zstd; do
	if ! grep -q "^name *: $c\$" /proc/crypto; then
		skip "compressor_$c" "not in this kernel"
		continue
	fi
	swap_on
	load_ramster compressor="$c"
	in_use=$(cat /sys/module/ramster/parameters/compressor)
	watch_max "$RAMSTER/stored_pages" /tmp/max_stored & watcher=$!
	# Compressed data in the pool: pages that were not same-filled.
	watch_max "$RAMSTER/pool_total_size" /tmp/max_pool & pool_watcher=$!
	run_workload "$mib" -p 2 -s 7; rc=$?
	kill $watcher $pool_watcher
	show_stats
	check "compressor_$c" "in use $in_use, rc=$rc bad=$(bad_pages) max_stored=$(cat /tmp/max_stored) max_pool_bytes=$(cat /tmp/max_pool) loads=$(stat_of loads)" \
		test "$in_use" = "$c" -a "$rc" = 0 -a "$(bad_pages)" = 0 \
		-a "$(cat /tmp/max_stored)" -gt 0 -a "$(cat /tmp/max_pool)" -gt 0 \
		-a "$(stat_of loads)" -gt 0
	swapoff /dev/vda
	rmmod ramster
done
check compressors_no_kernel_warnings "see dmesg" dmesg_clean
