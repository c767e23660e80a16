/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compress.h - per-CPU compressors from the kernel crypto API
 */
#ifndef _RAMSTER_COMPRESS_H
#define _RAMSTER_COMPRESS_H

#include <linux/mutex.h>
#include <linux/types.h>

struct crypto_comp;

/**
 * struct ramster_comp_ctx - one CPU's compressor
 * @lock: serialises users of @tfm and @buf.  A task may migrate while it
 *	holds the context of the CPU it started on; the mutex, not preemption,
 *	is what keeps the context to one user (as in zswap).
 * @tfm: the compressor
 * @buf: output buffer of two pages: some compressors write past the end
 *	of a page for incompressible input before they give up
 */
struct ramster_comp_ctx {
	struct mutex lock;		/* see above */
	struct crypto_comp *tfm;
	u8 *buf;
};

int ramster_comp_init(const char *name);
void ramster_comp_exit(void);
struct ramster_comp_ctx *ramster_comp_get(void);
void ramster_comp_put(struct ramster_comp_ctx *ctx);
const char *ramster_comp_name(void);
u8 ramster_comp_wire_id(void);

#endif /* _RAMSTER_COMPRESS_H */
