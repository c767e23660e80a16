// SPDX-License-Identifier: GPL-2.0
/*
 * local.c - the local tier: compressed pages in this node's zsmalloc pool
 *
 * A page is kept as one of:
 *  - a same-filled page: the repeated word, in the entry, no pool memory;
 *  - compressed with the module's compressor, in a zsmalloc object;
 *  - raw: a page that compresses above max_compressed_percent is kept as
 *    it is, PAGE_SIZE bytes in zsmalloc's largest class, and loaded with
 *    a copy (store_raw; without it such pages are refused as before).
 *    Compressing it further would save little pool memory and cost a
 *    decompression at every load; refusing it sends it to the disk.
 * Each refusal has its own counter (reject_*), and a refused page goes to
 * the swap device: refusing is always safe, storing something that cannot
 * be produced again never is.
 *
 * Stores run in reclaim context.  Nothing here enters direct reclaim or
 * does I/O: allocations use STORE_GFP, which at most wakes kswapd, and
 * fail rather than wait.
 */
#include <linux/crypto.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/zsmalloc.h>

#include "ramster.h"
#include "compress.h"
#include "index.h"
#include "local.h"
#include "policy.h"
#include "stats.h"

#define STORE_GFP	(__GFP_NORETRY | __GFP_NOWARN | __GFP_KSWAPD_RECLAIM)

static struct zs_pool *ramster_pool;

/**
 * ramster_local_init - create the pool and the compressors
 * @compressor: crypto API name of the compressor
 *
 * Return: 0, -ENOENT for an unknown compressor, -ENOMEM.
 */
int ramster_local_init(const char *compressor)
{
	int ret;

	ret = ramster_comp_init(compressor);
	if (ret)
		return ret;
	ramster_pool = zs_create_pool(RAMSTER_NAME);
	if (!ramster_pool) {
		ret = -ENOMEM;
		goto err_exit_comp;
	}
	return 0;

err_exit_comp:
	ramster_comp_exit();
	return ret;
}

void ramster_local_exit(void)
{
	zs_destroy_pool(ramster_pool);
	ramster_pool = NULL;
	ramster_comp_exit();
}

u64 ramster_local_pool_bytes(void)
{
	return (u64)zs_get_total_pages(ramster_pool) << PAGE_SHIFT;
}

/* Has the pool reached its share of RAM? */
bool ramster_local_full(const struct ramster_local_limits *limits)
{
	return ramster_pool_limit_hit(zs_get_total_pages(ramster_pool),
				      totalram_pages(),
				      limits->max_pool_percent);
}

/*
 * Keep @page as it is (raw) in the pool; on success fill @entry's data
 * fields.  The pool limit is the caller's, as for any page: a raw page
 * costs a whole page of it.  A raw page the pool cannot allocate is
 * refused as compressing poorly (the page went nowhere because of that).
 */
static int ramster_local_store_raw(struct ramster_entry *entry,
				   struct page *page)
{
	unsigned long handle;
	void *dst;

	handle = zs_malloc(ramster_pool, PAGE_SIZE, STORE_GFP);
	if (IS_ERR_VALUE(handle)) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_COMPRESS_POOR);
		return -ENOMEM;
	}
	dst = zs_map_object(ramster_pool, handle, ZS_MM_WO);
	memcpy_from_page(dst, page, 0, PAGE_SIZE);
	zs_unmap_object(ramster_pool, handle);

	entry->handle = handle;
	entry->length = PAGE_SIZE;
	entry->flags |= RAMSTER_ENTRY_LOCAL | RAMSTER_ENTRY_RAW;
	ramster_stat_inc(RAMSTER_STAT_RAW_STORES);
	ramster_stat_inc(RAMSTER_STAT_RAW_PAGES);
	return 0;
}

/*
 * Compress @page into the pool; on success fill @entry's data fields.  A
 * page that compresses poorly is kept raw (store_raw) or refused.
 */
static int ramster_local_compress(struct ramster_entry *entry,
				  struct page *page,
				  const struct ramster_local_limits *limits)
{
	struct ramster_comp_ctx *ctx;
	unsigned int dlen = 2 * PAGE_SIZE;
	unsigned long handle;
	bool raw = false;
	void *src, *dst;
	int ret;

	ctx = ramster_comp_get();
	src = kmap_local_page(page);
	ret = crypto_comp_compress(ctx->tfm, src, PAGE_SIZE, ctx->buf, &dlen);
	kunmap_local(src);
	if (ret) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_COMPRESS_FAIL);
		ret = -EINVAL;
		goto out_put_ctx;
	}
	if (ramster_compressed_too_big(dlen, limits->max_compressed_percent)) {
		raw = limits->store_raw;
		if (!raw)
			ramster_stat_inc(RAMSTER_STAT_REJECT_COMPRESS_POOR);
		ret = -E2BIG;
		goto out_put_ctx;
	}

	handle = zs_malloc(ramster_pool, dlen, STORE_GFP);
	if (IS_ERR_VALUE(handle)) {
		ramster_stat_inc(RAMSTER_STAT_REJECT_ALLOC_FAIL);
		ret = -ENOMEM;
		goto out_put_ctx;
	}
	dst = zs_map_object(ramster_pool, handle, ZS_MM_WO);
	memcpy(dst, ctx->buf, dlen);
	zs_unmap_object(ramster_pool, handle);

	entry->handle = handle;
	entry->length = dlen;
	entry->flags |= RAMSTER_ENTRY_LOCAL;
out_put_ctx:
	ramster_comp_put(ctx);
	/* Without the compressor's context: a copy needs none. */
	if (raw)
		ret = ramster_local_store_raw(entry, page);
	return ret;
}

/**
 * ramster_local_store - keep a page in the local tier
 * @entry: new entry; its data fields are filled on success
 * @page: the page, locked by the caller
 * @limits: what to accept
 *
 * The pool limit is the caller's check (it must be made before an entry
 * is allocated).
 *
 * Return: 0, or a negative errno with the matching reject_* counted.
 */
int ramster_local_store(struct ramster_entry *entry, struct page *page,
			const struct ramster_local_limits *limits)
{
	unsigned long value;
	bool same;
	void *src;

	if (limits->same_filled) {
		src = kmap_local_page(page);
		same = ramster_same_filled(src, &value);
		kunmap_local(src);
		if (same) {
			entry->flags |= RAMSTER_ENTRY_SAME_FILLED;
			entry->value = value;
			entry->length = 0;
			ramster_stat_inc(RAMSTER_STAT_SAME_FILLED_PAGES);
			return 0;
		}
	}
	return ramster_local_compress(entry, page, limits);
}

/* Decompress with a context the caller holds (it may not sleep then). */
static int ramster_local_decompress_ctx(struct ramster_comp_ctx *ctx,
					const void *src, unsigned int len,
					struct page *page)
{
	unsigned int dlen = PAGE_SIZE;
	void *dst;
	int ret;

	dst = kmap_local_page(page);
	ret = crypto_comp_decompress(ctx->tfm, src, len, dst, &dlen);
	kunmap_local(dst);

	if (ret || dlen != PAGE_SIZE) {
		ramster_stat_inc(RAMSTER_STAT_LOAD_DECOMPRESS_FAIL);
		return -EIO;
	}
	return 0;
}

/**
 * ramster_local_unpack - produce a page from an entry's data in a buffer
 * @entry: the entry, referenced by the caller
 * @src: its data (entry->length bytes), back from another node
 * @page: the page to fill
 *
 * A raw entry's data is copied, any other's decompressed.
 *
 * Return: 0, or -EIO if the data does not decompress to exactly one page
 * (or a raw entry is not one page long); the page's contents are then
 * undefined and must not be used.
 */
int ramster_local_unpack(const struct ramster_entry *entry, const void *src,
			 struct page *page)
{
	struct ramster_comp_ctx *ctx;
	int ret;

	if (entry->flags & RAMSTER_ENTRY_RAW) {
		if (entry->length != PAGE_SIZE) {
			ramster_stat_inc(RAMSTER_STAT_LOAD_DECOMPRESS_FAIL);
			return -EIO;
		}
		memcpy_to_page(page, 0, src, PAGE_SIZE);
		return 0;
	}
	ctx = ramster_comp_get();
	ret = ramster_local_decompress_ctx(ctx, src, entry->length, page);
	ramster_comp_put(ctx);
	return ret;
}

/**
 * ramster_local_load - produce a stored page again from the local copy
 * @entry: the entry, referenced by the caller, with a local copy
 * @page: the page to fill
 *
 * The compressor's mutex is taken before the pool object is mapped: a
 * mapping disables preemption until it is unmapped.
 *
 * Return: 0 or -EIO (see ramster_local_unpack()).
 */
int ramster_local_load(const struct ramster_entry *entry, struct page *page)
{
	struct ramster_comp_ctx *ctx;
	void *src, *dst;
	int ret;

	if (entry->flags & RAMSTER_ENTRY_SAME_FILLED) {
		dst = kmap_local_page(page);
		ramster_fill_page(dst, entry->value);
		kunmap_local(dst);
		return 0;
	}
	if (entry->flags & RAMSTER_ENTRY_RAW) {
		src = zs_map_object(ramster_pool, entry->handle, ZS_MM_RO);
		memcpy_to_page(page, 0, src, PAGE_SIZE);
		zs_unmap_object(ramster_pool, entry->handle);
		return 0;
	}

	ctx = ramster_comp_get();
	src = zs_map_object(ramster_pool, entry->handle, ZS_MM_RO);
	ret = ramster_local_decompress_ctx(ctx, src, entry->length, page);
	zs_unmap_object(ramster_pool, entry->handle);
	ramster_comp_put(ctx);
	return ret;
}

/* Copy an entry's local data (entry->length bytes, raw or not) to @buf. */
void ramster_local_copy(const struct ramster_entry *entry, void *buf)
{
	void *src = zs_map_object(ramster_pool, entry->handle, ZS_MM_RO);

	memcpy(buf, src, entry->length);
	zs_unmap_object(ramster_pool, entry->handle);
}

/*
 * Keep compressed data that came back from another node; returns its
 * zsmalloc handle, or 0 if the pool has no room.
 */
unsigned long ramster_local_adopt(const void *data, unsigned int len)
{
	unsigned long handle = zs_malloc(ramster_pool, len, STORE_GFP);
	void *dst;

	if (IS_ERR_VALUE(handle))
		return 0;
	dst = zs_map_object(ramster_pool, handle, ZS_MM_WO);
	memcpy(dst, data, len);
	zs_unmap_object(ramster_pool, handle);
	return handle;
}

void ramster_local_release(unsigned long handle)
{
	zs_free(ramster_pool, handle);
}

/*
 * Move objects out of sparse zspages so emptied ones go back to the
 * system; eviction frees objects all over the pool.  Sleeps.
 */
unsigned long ramster_local_compact(void)
{
	return zs_compact(ramster_pool);
}

/* Pages the pool uses now. */
unsigned long ramster_local_pool_pages(void)
{
	return zs_get_total_pages(ramster_pool);
}

/*
 * Release an entry's local data; called under the tree lock, must not
 * sleep.  An entry whose data lives only elsewhere has none.
 */
void ramster_local_free(struct ramster_entry *entry)
{
	/* A raw page is counted as long as it is stored, wherever. */
	if (entry->flags & RAMSTER_ENTRY_RAW)
		ramster_stat_dec(RAMSTER_STAT_RAW_PAGES);
	if (entry->flags & RAMSTER_ENTRY_SAME_FILLED) {
		ramster_stat_dec(RAMSTER_STAT_SAME_FILLED_PAGES);
	} else if (entry->flags & RAMSTER_ENTRY_LOCAL) {
		zs_free(ramster_pool, entry->handle);
		entry->flags &= ~RAMSTER_ENTRY_LOCAL;
	}
}
