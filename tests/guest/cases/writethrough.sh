#!/bin/sh
# Writethrough: every page ramster stores is also written to the device.
#
# results: writethrough_writes_device writethrough_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
swap_on
load_ramster writethrough=1 max_pool_percent=60
stores_before=$(fs_stat succ_stores)
out_before=$(vmstat_of pswpout)
run_workload $(( $(ram_mib) * 3 )); rc=$?
show_stats
stored=$(( $(fs_stat succ_stores) - stores_before ))
written=$(( $(vmstat_of pswpout) - out_before ))
check writethrough_writes_device "rc=$rc bad=$(bad_pages) stored=$stored written_to_device=$written" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$stored" -gt 0 \
	-a "$written" -ge "$stored"
check writethrough_no_kernel_warnings "see dmesg" dmesg_clean
