/* SPDX-License-Identifier: GPL-2.0 */
/*
 * local.h - the local tier: compressed pages in this node's zsmalloc pool
 */
#ifndef _RAMSTER_LOCAL_H
#define _RAMSTER_LOCAL_H

#include <linux/types.h>

struct page;
struct ramster_entry;

/**
 * struct ramster_local_limits - what the local tier accepts
 * @max_pool_percent: pool size limit, in percent of RAM
 * @max_compressed_percent: largest compressed page, in percent of a page
 * @same_filled: store same-filled pages as one word
 * @store_raw: keep a page that compresses above @max_compressed_percent
 *	as it is (a full page of the pool) rather than refuse it
 */
struct ramster_local_limits {
	unsigned int max_pool_percent;
	unsigned int max_compressed_percent;
	bool same_filled;
	bool store_raw;
};

int ramster_local_init(const char *compressor);
void ramster_local_exit(void);
bool ramster_local_full(const struct ramster_local_limits *limits);
int ramster_local_store(struct ramster_entry *entry, struct page *page,
			const struct ramster_local_limits *limits);
int ramster_local_load(const struct ramster_entry *entry, struct page *page);
int ramster_local_unpack(const struct ramster_entry *entry, const void *src,
			 struct page *page);
void ramster_local_copy(const struct ramster_entry *entry, void *buf);
unsigned long ramster_local_pool_pages(void);
unsigned long ramster_local_compact(void);
unsigned long ramster_local_adopt(const void *data, unsigned int len);
void ramster_local_release(unsigned long handle);
void ramster_local_free(struct ramster_entry *entry);
u64 ramster_local_pool_bytes(void);

#endif /* _RAMSTER_LOCAL_H */
