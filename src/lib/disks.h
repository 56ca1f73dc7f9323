/* SPDX-License-Identifier: GPL-2.0 */
/* Block devices by name and number, from /sys/class/block. */
#ifndef IODIG_DISKS_H
#define IODIG_DISKS_H

#include <stdint.h>

/* dev_t as the kernel encodes it inside (MKDEV: major << 20 | minor). */
#define KDEV(ma, mi)	(((uint32_t)(ma) << 20) | (uint32_t)(mi))
#define KDEV_MAJOR(d)	((d) >> 20)
#define KDEV_MINOR(d)	((d) & ((1U << 20) - 1))

struct disk {
	char name[32];
	uint32_t dev;		/* this device */
	uint32_t disk_dev;	/* the whole disk it belongs to (itself for a disk) */
};

int disks__load(void);
/* "sda", "/dev/sda1", "loop0": the whole disk's kernel dev_t and name;
 * -ENOENT when there is no such block device. */
int disks__resolve(const char *arg, uint32_t *disk_dev, char *name, int name_len);
/* The name of a device, or "major:minor" when it is unknown. */
const char *disks__name(uint32_t dev);

#endif
