#!/bin/sh
# No backend at all: the patched kernel swaps to disk as before.
#
# results: no_backend_disk_swap nobackend_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
swap_on
run_workload $(( $(ram_mib) * 3 )); rc=$?
show_stats
check no_backend_disk_swap "rc=$rc bad=$(bad_pages) pswpout=$(vmstat_of pswpout) frontswap_stores=$(fs_stat succ_stores)" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$(vmstat_of pswpout)" -gt 0 \
	-a "$(fs_stat succ_stores)" = 0
check nobackend_no_kernel_warnings "see dmesg" dmesg_clean
