// SPDX-License-Identifier: GPL-2.0
/*
 * params.c - module parameters that refuse values that cannot work
 *
 * A zero interval makes a thread spin, a zero timeout makes links flap:
 * such values are refused when they are set (at insmod or through
 * /sys/module/ramster/parameters/), with a message naming the range.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "ramster.h"

/**
 * ramster_param_set_uint_range - set an unsigned parameter within bounds
 * @val: the text written
 * @kp: the parameter
 * @min: smallest value that works
 * @max: largest
 *
 * Return: 0, or -EINVAL (logged) and the parameter unchanged.
 */
int ramster_param_set_uint_range(const char *val, const struct kernel_param *kp,
				 unsigned int min, unsigned int max)
{
	unsigned int v;

	if (kstrtouint(val, 10, &v) || v < min || v > max) {
		pr_err("%s=%s: must be a whole number from %u to %u\n",
		       kp->name, val, min, max);
		return -EINVAL;
	}
	WRITE_ONCE(*(unsigned int *)kp->arg, v);
	return 0;
}

static int ramster_uint_range_set(const char *val, const struct kernel_param *kp)
{
	const struct ramster_uint_range *range = kp->arg;
	struct kernel_param var = *kp;

	var.arg = range->var;
	return ramster_param_set_uint_range(val, &var, range->min, range->max);
}

static int ramster_uint_range_get(char *buf, const struct kernel_param *kp)
{
	const struct ramster_uint_range *range = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*range->var));
}

const struct kernel_param_ops ramster_uint_range_ops = {
	.set = ramster_uint_range_set,
	.get = ramster_uint_range_get,
};
