#!/bin/sh
# configfs membership (o2nm rules): cluster.conf applied with ramster-conf,
# then every ordering and uniqueness rule broken once.
#
# results: membership_needs_cluster_key membership_from_cluster_conf
# results: membership_rules_enforced
# results: membership_pins_module membership_no_kernel_warnings
# memory: 128M
# timeout: 120
# swap disk: no
CFG=/sys/kernel/config/ramster
load_ramster

# try EXPECTED FILE VALUE: the write must fail with EXPECTED ("ok" = succeed)
problems=
try() {
	local want=$1 file=$2 value=$3 got
	if got=$(sh -c "echo '$value' > '$file'" 2>&1); then got=ok; fi
	case "$want:$got" in
	ok:ok) ;;
	ok:*) problems="$problems [$file=$value: $got]" ;;
	*:ok) problems="$problems [$file=$value accepted, wanted $want]" ;;
	*) echo "$got" | grep -qi "$want" ||
		problems="$problems [$file=$value: '$got', wanted $want]" ;;
	esac
}

# Setting "local" starts listening on node 2's address: it must be here.
ip link set lo up
ip addr add 10.213.0.2/32 dev lo

# No cluster key (and no insecure=1): the node refuses to start its links,
# says why, and is left as it was (not local), ready for a key.
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
keyless=ok
if /bin/ramster-conf apply /etc/ramster/peers-3.conf 2 2>/dev/null; then
	keyless="started without a key"
fi
[ "$(cat $CFG/node2/local)" = 0 ] || keyless="$keyless, left local"
dmesg | grep -q 'ramster: no cluster key: write one to' ||
	keyless="$keyless, no message"
try "invalid argument" $CFG/key 0123                # too short
try "invalid argument" $CFG/key "${KEY%?}g"         # not hex
try "invalid argument" $CFG/key 0000000000000000000000000000000000000000000000000000000000000000
try ok $CFG/key "$KEY"
if cat $CFG/key >/dev/null 2>&1; then keyless="$keyless, key readable"; fi
check membership_needs_cluster_key "$keyless" test "$keyless" = ok
rc=0
sh -c "echo 1 > $CFG/node2/local" || rc=1
for n in node1 node2 node3; do
	echo "$n: num=$(cat $CFG/$n/num) addr=$(cat $CFG/$n/ipv4_address):$(cat $CFG/$n/ipv4_port) role=$(cat $CFG/$n/role) capacity=$(cat $CFG/$n/capacity) local=$(cat $CFG/$n/local)"
done
check membership_from_cluster_conf "rc=$rc local=$(cat $CFG/node2/local) node3.num=$(cat $CFG/node3/num)" \
	test "$rc" = 0 -a "$(cat $CFG/node2/local)" = 1 \
	-a "$(cat $CFG/node1/local)" = 0 -a "$(cat $CFG/node3/num)" = 3 \
	-a "$(cat $CFG/node3/ipv4_address)" = 10.213.0.3

mkdir $CFG/extra
try "invalid argument" $CFG/extra/num 9            # before address and port
try "invalid argument" $CFG/extra/ipv4_address 10.213.0.300
try ok $CFG/extra/ipv4_address 10.213.0.1
try ok $CFG/extra/ipv4_port 7777
try "exists" $CFG/extra/num 9                      # node1's address:port
rmdir $CFG/extra
mkdir $CFG/extra
try ok $CFG/extra/ipv4_address 10.213.0.9
try ok $CFG/extra/ipv4_port 7777
try "exists" $CFG/extra/num 1                      # node1's number
try "out of range" $CFG/extra/num 255
try ok $CFG/extra/num 9
try "busy" $CFG/extra/num 10                       # written once
try "invalid argument" $CFG/extra/role leader
try "invalid argument" $CFG/extra/local 1          # role not set yet
try ok $CFG/extra/role server
try "busy" $CFG/extra/local 1                      # node2 is local
try "busy" $CFG/node2/role server                  # local: frozen
try "busy" $CFG/key "$KEY"                         # links running
try ok $CFG/node2/capacity 5                       # ... but for capacity
try ok $CFG/extra/capacity 5
try "busy" $CFG/extra/capacity 6                   # once for the others
[ "$(cat $CFG/node2/capacity)" = 5 ] || problems="$problems [capacity not changed]"
dmesg | grep -q 'ramster: local node 2 (node2), 10.213.0.2:7777, role peer' ||
	problems="$problems [no local-node message]"
dmesg | grep -q 'ramster: node 2 (peer): listening on 10.213.0.2:7777, 2 links' ||
	problems="$problems [not listening with 2 links]"
check membership_rules_enforced "$problems" test -z "$problems"

# The node directories pin the module; once removed, rmmod works.
if rmmod ramster 2>/dev/null; then pinned=no; else pinned=yes; fi
for d in "$CFG"/*; do rmdir "$d"; done
rmmod ramster; rc=$?
check membership_pins_module "pinned=$pinned rmmod_after_rmdir=$rc" \
	test "$pinned" = yes -a "$rc" = 0
check membership_no_kernel_warnings "see dmesg" dmesg_clean
