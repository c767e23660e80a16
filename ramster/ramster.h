/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ramster.h - definitions shared by the parts of the ramster module
 *
 * The module is split by responsibility:
 *
 *   main.c      module parameters, init/exit, frontswap ops glue
 *   index.c     per-swap-type index: offset -> entry, generations, refcounts
 *   local.c     the local tier: compression and the zsmalloc pool
 *   compress.c  per-CPU crypto API compressors
 *   stats.c     counters, debugfs files and the one-line summary
 *   shrink.c    bringing pages home with frontswap_shrink() (for the controls, suction, recalls)
 *   suction.c   ... and by itself once memory pressure has subsided
 *   wire.c      validation of received frames; wire.h is the protocol
 *   cluster.c   membership: the nodes in configfs (o2nm style)
 *   transport.c kernel TCP links to the other nodes, one per peer
 *   remote.c    the remote tier: remotification, remote loads, invalidations
 *   foreign.c   pages held for other nodes
 *   recall.c    giving borrowed memory back: recalls, leaving, draining
 *   writeback.c writing pages we hold to their swap slots (eviction,
 *               recalls whose pages cannot come home)
 *   params.c    module parameters that refuse values that cannot work
 *   policy.h    pure decisions (same-filled pages, size limits, recall
 *               shares)
 *
 * An entry records where its copies live (the local pool, holders[]), so a
 * page held on several nodes is a list, not a rewrite.
 */
#ifndef _RAMSTER_H
#define _RAMSTER_H

#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched/signal.h>

#define RAMSTER_NAME "ramster"

/*
 * Should a long loop give up?  A kernel thread when it is stopped, a
 * process (an administrator's write to a control) when it is killed.
 */
static inline bool ramster_should_stop(void)
{
	if (current->flags & PF_KTHREAD)
		return kthread_should_stop();
	return fatal_signal_pending(current);
}

int ramster_param_set_uint_range(const char *val, const struct kernel_param *kp,
				 unsigned int min, unsigned int max);

/**
 * struct ramster_uint_range - an unsigned module parameter with bounds
 * @var: the variable
 * @min: smallest value that works
 * @max: largest
 *
 * module_param_cb(name, &ramster_uint_range_ops, &its_range, perm)
 * refuses, with a message, values outside [@min, @max] (params.c).
 */
struct ramster_uint_range {
	unsigned int *var;
	unsigned int min;
	unsigned int max;
};

extern const struct kernel_param_ops ramster_uint_range_ops;

#endif /* _RAMSTER_H */
