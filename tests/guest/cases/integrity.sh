#!/bin/sh
# A workload of 3x RAM through ramster, loaded after swapon; rmmod while
# pages are stored is refused; after swapoff the pages are gone and rmmod
# works.
#
# results: integrity_3x_ram rmmod_refused_with_pages_then_works
# results: integrity_no_kernel_warnings
# memory: 128M
# timeout: 600
# swap disk: yes
swap_on
load_ramster        # after swapon: registration must init the area
mib=$(( $(ram_mib) * 3 ))
watch_max "$RAMSTER/stored_pages" /tmp/max_stored & watcher=$!

run_workload "$mib" -r /tmp/ready & workload=$!
while [ ! -e /tmp/ready ] && kill -0 $workload 2>/dev/null; do sleep 0.2; done
held=$(stat_of stored_pages)
if rmmod ramster 2>/tmp/rmmod.err; then rmmod_refused=no; else rmmod_refused=yes; fi
echo "while holding $held pages: rmmod refused: $rmmod_refused ($(cat /tmp/rmmod.err))"
touch /tmp/ready.go
wait $workload; rc=$?
kill $watcher
show_stats

check integrity_3x_ram "rc=$rc bad=$(bad_pages) max_stored=$(cat /tmp/max_stored) loads=$(stat_of loads)" \
	test "$rc" = 0 -a "$(bad_pages)" = 0 -a "$(cat /tmp/max_stored)" -gt 0 \
	-a "$(stat_of loads)" -gt 0

swapoff /dev/vda
after=$(stat_of stored_pages)
rmmod ramster; rmmod_rc=$?
check rmmod_refused_with_pages_then_works "held=$held refused=$rmmod_refused after_swapoff=$after rmmod_rc=$rmmod_rc" \
	test "$held" -gt 0 -a "$rmmod_refused" = yes -a "$after" = 0 \
	-a "$rmmod_rc" = 0
check integrity_no_kernel_warnings "see dmesg" dmesg_clean
