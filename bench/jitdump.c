// SPDX-License-Identifier: GPL-2.0
/*
 * build/bench/jitdump ID FILE: the machine code the kernel's JIT made of BPF
 * program ID, raw, into FILE (bpf_prog_info's jited_prog_insns), for
 * objdump; and its kallsyms name and address on stdout.  Debian's bpftool
 * dumps it only through a disassembler it is not built with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info), n;
	void *code;
	FILE *f;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: jitdump PROG_ID FILE\n");
		return 2;
	}
	fd = bpf_prog_get_fd_by_id(atoi(argv[1]));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len) || !info.jited_prog_len) {
		perror("jitdump: program info");
		return 1;
	}
	n = info.jited_prog_len;
	if (!(code = malloc(n)))
		return 1;
	memset(&info, 0, sizeof(info));
	info.jited_prog_len = n;
	info.jited_prog_insns = (__u64)(unsigned long)code;
	len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || !(f = fopen(argv[2], "w")) || fwrite(code, 1, n, f) != n) {
		perror("jitdump");
		return 1;
	}
	fclose(f);
	printf("bpf_prog_%02x%02x%02x%02x%02x%02x%02x%02x_%s\n", info.tag[0], info.tag[1], info.tag[2], info.tag[3],
	       info.tag[4], info.tag[5], info.tag[6], info.tag[7], info.name);
	free(code);
	close(fd);
	return 0;
}
