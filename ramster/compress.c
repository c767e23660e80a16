// SPDX-License-Identifier: GPL-2.0
/*
 * compress.c - per-CPU compressors from the kernel crypto API
 *
 * One crypto_comp transform and one output buffer per possible CPU,
 * allocated at module load (so the store path never allocates them) and
 * guarded by a per-context mutex.  Any compressor the kernel provides as a
 * crypto "compression" algorithm works: lz4, lzo, lzo-rle, zstd, deflate.
 */
#include <linux/crypto.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ramster.h"
#include "compress.h"
#include "wire.h"

static struct ramster_comp_ctx __percpu *ramster_comp_ctxs;
static char ramster_comp_alg[CRYPTO_MAX_ALG_NAME];

static void ramster_comp_free_all(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct ramster_comp_ctx *ctx = per_cpu_ptr(ramster_comp_ctxs, cpu);

		if (!IS_ERR_OR_NULL(ctx->tfm))
			crypto_free_comp(ctx->tfm);
		kfree(ctx->buf);
	}
	free_percpu(ramster_comp_ctxs);
	ramster_comp_ctxs = NULL;
}

/**
 * ramster_comp_init - set up a compressor on every CPU
 * @name: crypto API name of the algorithm
 *
 * Return: 0, -ENOENT if the kernel has no such compressor, -ENOMEM.
 */
int ramster_comp_init(const char *name)
{
	int cpu;

	if (!crypto_has_comp(name, 0, 0))
		return -ENOENT;
	strscpy(ramster_comp_alg, name, sizeof(ramster_comp_alg));

	ramster_comp_ctxs = alloc_percpu(struct ramster_comp_ctx);
	if (!ramster_comp_ctxs)
		return -ENOMEM;

	for_each_possible_cpu(cpu) {
		struct ramster_comp_ctx *ctx = per_cpu_ptr(ramster_comp_ctxs, cpu);

		mutex_init(&ctx->lock);
		ctx->buf = kmalloc_node(2 * PAGE_SIZE, GFP_KERNEL,
					cpu_to_node(cpu));
		if (!ctx->buf)
			goto err_free_all;
		ctx->tfm = crypto_alloc_comp(name, 0, 0);
		if (IS_ERR(ctx->tfm))
			goto err_free_all;
	}
	return 0;

err_free_all:
	ramster_comp_free_all();
	return -ENOMEM;
}

void ramster_comp_exit(void)
{
	ramster_comp_free_all();
}

/* Lock and return a compressor context; may sleep. */
struct ramster_comp_ctx *ramster_comp_get(void)
{
	struct ramster_comp_ctx *ctx = raw_cpu_ptr(ramster_comp_ctxs);

	mutex_lock(&ctx->lock);
	return ctx;
}

void ramster_comp_put(struct ramster_comp_ctx *ctx)
{
	mutex_unlock(&ctx->lock);
}

const char *ramster_comp_name(void)
{
	return ramster_comp_alg;
}

/*
 * The compressor's id in frames (enum ramster_wire_compressor), or 0 for
 * one without an id: its pages stay on this node.
 */
u8 ramster_comp_wire_id(void)
{
	if (!strcmp(ramster_comp_alg, "lz4"))
		return RAMSTER_COMP_LZ4;
	if (!strcmp(ramster_comp_alg, "lzo"))
		return RAMSTER_COMP_LZO;
	if (!strcmp(ramster_comp_alg, "zstd"))
		return RAMSTER_COMP_ZSTD;
	return 0;
}
