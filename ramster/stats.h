/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - counters, their debugfs files and the one-line summary
 */
#ifndef _RAMSTER_STATS_H
#define _RAMSTER_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * Every counter, in summary column order; ramster_stat_names[] in stats.c
 * has their names.  The summary is parsed by scripts, so its columns are
 * only ever appended: add new counters just before RAMSTER_NR_STATS, never
 * reorder, rename or remove (the KUnit suite enforces this).  Gauges
 * (stored_pages, pool_total_size, same_filled_pages) go up and down; all
 * others only count up.  There is one reject_* counter per reason a store
 * can be refused, and one load_* per way a load can fail.
 */
enum ramster_stat {
	RAMSTER_STAT_STORED_PAGES,
	RAMSTER_STAT_POOL_TOTAL_SIZE,
	RAMSTER_STAT_SAME_FILLED_PAGES,
	RAMSTER_STAT_LOADS,
	RAMSTER_STAT_STORES,
	RAMSTER_STAT_INVALIDATES,
	RAMSTER_STAT_INVALIDATE_AREAS,
	RAMSTER_STAT_DUPLICATE_ENTRY,
	RAMSTER_STAT_REJECT_POOL_LIMIT,
	RAMSTER_STAT_REJECT_COMPRESS_POOR,
	RAMSTER_STAT_REJECT_COMPRESS_FAIL,
	RAMSTER_STAT_REJECT_ALLOC_FAIL,
	RAMSTER_STAT_REJECT_KMEMCACHE_FAIL,
	RAMSTER_STAT_REJECT_NO_AREA,
	RAMSTER_STAT_REJECT_UNLOADING,
	RAMSTER_STAT_LOAD_NOT_FOUND,
	RAMSTER_STAT_LOAD_DECOMPRESS_FAIL,
	RAMSTER_STAT_SHRINK_RUNS,
	RAMSTER_STAT_SHRINK_PAGES,
	RAMSTER_NR_STATS
};

extern atomic64_t ramster_stat_values[RAMSTER_NR_STATS];
extern const char * const ramster_stat_names[RAMSTER_NR_STATS];

static inline void ramster_stat_inc(enum ramster_stat stat)
{
	atomic64_inc(&ramster_stat_values[stat]);
}

static inline void ramster_stat_add(enum ramster_stat stat, u64 n)
{
	atomic64_add(n, &ramster_stat_values[stat]);
}

static inline void ramster_stat_dec(enum ramster_stat stat)
{
	atomic64_dec(&ramster_stat_values[stat]);
}

static inline void ramster_stat_set(enum ramster_stat stat, u64 value)
{
	atomic64_set(&ramster_stat_values[stat], value);
}

static inline u64 ramster_stat_read(enum ramster_stat stat)
{
	return atomic64_read(&ramster_stat_values[stat]);
}

int ramster_stats_init(void (*refresh)(void));
void ramster_stats_exit(void);
struct dentry *ramster_stats_debugfs_root(void);
int ramster_stats_summary(char *buf, size_t size, const u64 *values);

#endif /* _RAMSTER_STATS_H */
