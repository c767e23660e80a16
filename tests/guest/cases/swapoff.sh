#!/bin/sh
# swapoff while ramster holds pages of a live process.
#
# results: shrink_to_target swapoff_with_stored_pages
# results: swapoff_no_kernel_warnings
# memory: 256M
# timeout: 600
# swap disk: yes
swap_on
load_ramster max_pool_percent=50
run_workload 96 -H $(( $(ram_mib) + 64 )) -r /tmp/ready & workload=$!
while [ ! -e /tmp/ready ] && kill -0 $workload 2>/dev/null; do sleep 0.2; done
held=$(stat_of stored_pages)
show_stats

# frontswap_shrink() through the admin knob: half, then nearly all.  Pages
# still in the swap cache or shared may stay: allow a small margin.
margin=$(( held / 20 + 256 ))
half=$(( held / 2 ))
if echo "$half" > "$CONTROL/shrink_target"; then shrink_rc=0; else shrink_rc=1; fi
after_half=$(fs_stat curr_pages)
echo 0 > "$CONTROL/shrink_target"
after_zero=$(fs_stat curr_pages)
dmesg | grep 'ramster: shrink to'
show_stats
check shrink_to_target "held=$held rc=$shrink_rc target=$half -> $after_half, target=0 -> $after_zero, margin=$margin, shrink_pages=$(stat_of shrink_pages)" \
	test "$held" -gt 0 -a "$shrink_rc" = 0 \
	-a "$after_half" -le $(( half + margin )) \
	-a "$after_half" -ge $(( half - margin )) \
	-a "$after_zero" -le "$margin" -a "$(stat_of shrink_runs)" = 2

# Swap the held pages out again, so that swapoff has work to do.
/bin/workload -m $(( $(ram_mib) + 64 )) -p 1 -q > /dev/null
held=$(stat_of stored_pages)
swapoff /dev/vda; swapoff_rc=$?
after=$(stat_of stored_pages)
curr=$(fs_stat curr_pages)
touch /tmp/ready.go
wait $workload; rc=$?
show_stats
check swapoff_with_stored_pages "held=$held swapoff_rc=$swapoff_rc stored_after=$after curr_pages=$curr rc=$rc bad=$(bad_pages)" \
	test "$held" -gt 0 -a "$swapoff_rc" = 0 -a "$after" = 0 \
	-a "$curr" = 0 -a "$rc" = 0 -a "$(bad_pages)" = 0
check swapoff_no_kernel_warnings "see dmesg" dmesg_clean
