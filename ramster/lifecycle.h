/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lifecycle.h - the node's part in the cluster: starting, leaving,
 * draining, and the administrator's controls
 */
#ifndef _RAMSTER_LIFECYCLE_H
#define _RAMSTER_LIFECYCLE_H

#include <linux/types.h>

int ramster_lifecycle_init(void);
void ramster_lifecycle_exit(void);
bool ramster_lifecycle_draining(void);

#endif /* _RAMSTER_LIFECYCLE_H */
