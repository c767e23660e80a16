/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - counters, their debugfs files and the one-line summary
 */
#ifndef _RAMSTER_STATS_H
#define _RAMSTER_STATS_H

#include <linux/atomic.h>
#include <linux/types.h>

/*
 * Every counter, in summary column order.  The summary is parsed by
 * scripts, so its columns are only ever appended: add new counters at the
 * end, never reorder, rename or remove (the KUnit suite enforces this).
 * Gauges (stored_pages, same_filled_pages, pool_total_size) go up and
 * down; all others only count up.  There is one reject_* counter per
 * reason a store can be refused, and one load_* per way a load can fail.
 */
#define RAMSTER_STATS(X)					\
	X(STORED_PAGES,		stored_pages)			\
	X(POOL_TOTAL_SIZE,	pool_total_size)		\
	X(SAME_FILLED_PAGES,	same_filled_pages)		\
	X(LOADS,		loads)				\
	X(STORES,		stores)				\
	X(INVALIDATES,		invalidates)			\
	X(INVALIDATE_AREAS,	invalidate_areas)		\
	X(DUPLICATE_ENTRY,	duplicate_entry)		\
	X(REJECT_POOL_LIMIT,	reject_pool_limit)		\
	X(REJECT_COMPRESS_POOR,	reject_compress_poor)		\
	X(REJECT_COMPRESS_FAIL,	reject_compress_fail)		\
	X(REJECT_ALLOC_FAIL,	reject_alloc_fail)		\
	X(REJECT_KMEMCACHE_FAIL, reject_kmemcache_fail)		\
	X(REJECT_NO_AREA,	reject_no_area)			\
	X(REJECT_UNLOADING,	reject_unloading)		\
	X(LOAD_NOT_FOUND,	load_not_found)			\
	X(LOAD_DECOMPRESS_FAIL,	load_decompress_fail)

#define RAMSTER_STAT_ENUM(id, name)	RAMSTER_STAT_##id,
enum ramster_stat {
	RAMSTER_STATS(RAMSTER_STAT_ENUM)
	RAMSTER_NR_STATS
};
#undef RAMSTER_STAT_ENUM

extern atomic64_t ramster_stat_values[RAMSTER_NR_STATS];
extern const char * const ramster_stat_names[RAMSTER_NR_STATS];

static inline void ramster_stat_inc(enum ramster_stat stat)
{
	atomic64_inc(&ramster_stat_values[stat]);
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
