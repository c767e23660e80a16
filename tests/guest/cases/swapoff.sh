#!/bin/sh
# swapoff while ramster holds pages of a live process.
swap_on
load_ramster max_pool_percent=50
run_workload 96 -H $(( $(ram_mib) + 64 )) -r /tmp/ready & workload=$!
while [ ! -e /tmp/ready ] && kill -0 $workload 2>/dev/null; do sleep 0.2; done
held=$(stat_of stored_pages)
show_stats
swapoff /dev/vda; swapoff_rc=$?
after=$(stat_of stored_pages)
curr=$(cat $FRONTSWAP/curr_pages)
touch /tmp/ready.go
wait $workload; rc=$?
show_stats
check swapoff_with_stored_pages "held=$held swapoff_rc=$swapoff_rc stored_after=$after curr_pages=$curr rc=$rc bad=$(bad_pages)" \
	test "$held" -gt 0 -a "$swapoff_rc" = 0 -a "$after" = 0 \
	-a "$curr" = 0 -a "$rc" = 0 -a "$(bad_pages)" = 0
check swapoff_no_kernel_warnings "see dmesg" dmesg_clean
