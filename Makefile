# RAMster for Linux 6.1: top-level driver.
#
#   make demo     boot a 3-node cluster, swap one node to 3x its RAM across it
#   make test     build everything and run the QEMU test suite
#   make bench    disk swap vs zswap vs zram vs ramster vs NBD vs clusters
#   make check    checkpatch --strict on the series and the module, shellcheck
#   make test-debug  the same tests on the debug kernel (lockdep, KASAN,
#                 kmemleak, ...): build/kernel-debug, module-debug,
#                 initramfs-debug.cpio.gz; TESTS="NAME..." for a subset
#   make cluster-up [CONFIG=...] / cluster-stat / cluster-down
#
# Everything generated goes under build/ (ignored by git).

SHELL := /bin/bash
TOP := $(CURDIR)
BUILD := $(TOP)/build
KERNEL_DIR := $(BUILD)/kernel
VANILLA_DIR := $(BUILD)/kernel-vanilla
MODULE_DIR := $(BUILD)/module
INITRAMFS := $(BUILD)/initramfs.cpio.gz
# The debug flavour: the same series with kernel-patches/debug.fragment.
DEBUG_KERNEL_DIR := $(BUILD)/kernel-debug
DEBUG_MODULE_DIR := $(BUILD)/module-debug
DEBUG_INITRAMFS := $(BUILD)/initramfs-debug.cpio.gz

MODULE_SRCS := $(wildcard ramster/*.c ramster/*.h) ramster/Kbuild
# What the initramfs is made of: the product (tools/) and the tests.
TOOL_SRCS := tools/guest/init tools/guest/ramster-node \
	$(wildcard tools/*.c tools/guest/*.c) $(wildcard cluster-configs/*.conf)
TEST_GUEST_SRCS := $(wildcard tests/guest/*.c tests/guest/cases/*.sh)

.PHONY: all deps kernel kernel-vanilla module initramfs check check-bisect \
	test demo bench cluster-up cluster-stat cluster-down clean distclean \
	kernel-debug module-debug initramfs-debug test-debug

all: kernel module initramfs

deps:
	@scripts/deps.sh

# The kernel scripts decide themselves what is stale (content stamps and
# make's own dependency tracking), so they always run.
kernel: deps
	@scripts/build-kernel.sh $(KERNEL_DIR) kernel-patches/series

# Options of the series' own (CONFIG_CLEANCACHE) do not exist there.
kernel-vanilla: deps
	@RAMSTER_FRAGMENT_LATER_OK=1 scripts/build-kernel.sh $(VANILLA_DIR)

kernel-debug: deps
	@scripts/build-kernel.sh $(DEBUG_KERNEL_DIR) kernel-patches/series \
		kernel-patches/debug.fragment

# Built in a copy under build/ so that no object lands in the source tree.
module: kernel
	@mkdir -p $(MODULE_DIR)
	@cp -a ramster/. $(MODULE_DIR)/
	@echo "[module] building ramster.ko and ramster_kunit.ko"
	@$(MAKE) -s -C $(KERNEL_DIR)/obj M=$(MODULE_DIR) modules

module-debug: kernel-debug
	@mkdir -p $(DEBUG_MODULE_DIR)
	@cp -a ramster/. $(DEBUG_MODULE_DIR)/
	@echo "[module-debug] building ramster.ko and ramster_kunit.ko"
	@$(MAKE) -s -C $(DEBUG_KERNEL_DIR)/obj M=$(DEBUG_MODULE_DIR) modules

# Phony (always rebuilt, it takes a second); the sources are listed so
# that the rule says what goes in.
initramfs: module $(TOOL_SRCS) $(TEST_GUEST_SRCS)
	@scripts/build-initramfs.sh $(INITRAMFS) $(MODULE_DIR)

initramfs-debug: module-debug $(TOOL_SRCS) $(TEST_GUEST_SRCS)
	@scripts/build-initramfs.sh $(DEBUG_INITRAMFS) $(DEBUG_MODULE_DIR)

check: deps
	@scripts/check.sh

# Every prefix of the series builds (slow: one kernel build per patch).
check-bisect: deps
	@scripts/check-bisect.sh

test: deps all
	@tests/run.sh

# The debug kernel: every splat (lockdep, KASAN, list or object debugging,
# slub, VM_BUG_ON) and every kmemleak leak fails the test that caused it.
# TESTS: what to run (tests/run.sh's arguments; default: everything).
TESTS ?=
test-debug: deps kernel-debug module-debug initramfs-debug
	@RAMSTER_KERNEL_FLAVOR=debug tests/run.sh $(TESTS)

demo: deps all
	@scripts/demo.sh

bench: deps all kernel-vanilla
	@tests/bench.sh

# The cluster launcher (see ./ramster-cluster for the rest of its commands).
CONFIG ?= cluster-configs/peers-3.conf
cluster-up: deps all
	@./ramster-cluster up $(CONFIG)

cluster-stat:
	@./ramster-cluster stat

cluster-down:
	@./ramster-cluster down

clean:
	rm -rf $(MODULE_DIR) $(INITRAMFS) $(BUILD)/test-logs $(BUILD)/bench \
		$(DEBUG_MODULE_DIR) $(DEBUG_INITRAMFS) $(BUILD)/test-logs-debug

distclean:
	rm -rf $(BUILD)
