// SPDX-License-Identifier: GPL-2.0
/*
 * tagring MAJ:MIN: makes a loop device (LOOP_CTL_ADD, at a free minor from
 * 64 up) whose requests share the ring of tag grants of the disk MAJ:MIN
 * (src/life.h life_tag_ring), and prints its minor.
 * tagring -r MINOR: removes that loop device again (LOOP_CTL_REMOVE).
 */
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "../../src/life.h"

#define DEV(ma, mi) ((__u32)(ma) << 20 | (mi))

int main(int argc, char **argv)
{
	unsigned ma, mi;
	int fd = open("/dev/loop-control", O_RDWR);

	if (fd < 0) {
		perror("tagring: /dev/loop-control");
		return 1;
	}
	if (argc == 3 && argv[1][0] == '-' && argv[1][1] == 'r')
		return ioctl(fd, LOOP_CTL_REMOVE, atoi(argv[2])) < 0;
	if (argc != 2 || sscanf(argv[1], "%u:%u", &ma, &mi) != 2) {
		fprintf(stderr, "usage: tagring MAJ:MIN | tagring -r MINOR\n");
		return 2;
	}
	for (unsigned n = 64; n < 4096; n++) {
		char path[64];

		if (life_tag_ring(DEV(7, n)) != life_tag_ring(DEV(ma, mi)))
			continue;
		snprintf(path, sizeof(path), "/sys/block/loop%u", n);
		if (!access(path, F_OK) || ioctl(fd, LOOP_CTL_ADD, n) < 0)
			continue;
		printf("%u\n", n);
		return 0;
	}
	fprintf(stderr, "tagring: no free loop minor on the ring of %u:%u\n", ma, mi);
	return 1;
}
