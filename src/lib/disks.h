/* SPDX-License-Identifier: GPL-2.0 */
/* Block devices by name and number, from /sys/class/block. */
#ifndef IODIG_DISKS_H
#define IODIG_DISKS_H

#include <stdbool.h>
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

/* What -d asked for: a whole disk, or a partition and its disk. */
struct disk_sel {
	uint32_t disk;		/* the whole disk's kernel dev_t */
	uint32_t part;		/* the partition's, or 0 for a whole disk */
	char name[32];		/* its own name: "sda1", "loop0" (never a path) */
	char disk_name[32];	/* the whole disk's: "sda" */
};

int disks__load(void);
/* Every device as "major:minor name" lines (kernel numbers), malloc'd: for a
 * recording.  And a table from such text, which from then on is the only
 * one (a replay names devices as the recording machine did). */
char *disks__to_text(void);
int disks__from_text(const char *text, size_t len);
/* "sda", "/dev/sda1", "loop0p1": what it is; -ENOENT when there is no such
 * block device. */
int disks__resolve(const char *arg, struct disk_sel *sel);
/* Column widths that fit every disk now present: its name, and the largest
 * sector number (from /sys/block/DISK/size).  At least the given minimums. */
void disks__widths(int *name_w, int *sector_w);
/* A whole disk with no request queue (dm, md, bcache, zram, nvme's
 * multipath head) and a size (an unset zram has none): its bios are its
 * I/O.  Known by the absence of blk-mq's /sys/dev/block/MAJ:MIN/mq.  And
 * whether any disk present is one. */
bool disks__bio_based(uint32_t dev);
/* A whole disk with a request queue (blk-mq's /sys/dev/block/MAJ:MIN/mq;
 * a partition has none of its own): the disks block_rq_complete fires for. */
bool disks__request_based(uint32_t dev);
bool disks__any_bio_based(void);
/* Each disk with the disks under it (/sys/block/X/slaves: dm, md, bcache
 * hold their lower disks there; a partition counts as its disk): fn(upper,
 * lower) for each pair, dev_t's.  Returns the pairs. */
int disks__stacked(void (*fn)(uint32_t upper, uint32_t lower, void *ctx), void *ctx);
/* The name of a device, or "major:minor" when it is unknown. */
const char *disks__name(uint32_t dev);

#endif
