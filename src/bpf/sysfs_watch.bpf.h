/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue-attribute watcher: writes to /sys/block/<disk>/queue/<attr>,
 * which freeze the queue and stall Q2G.  Two objects watch: the life engine
 * through the write family's own syscall events (life_sysfs.bpf.c), and why
 * from the raw sys_enter/sys_exit it runs anyway (why.bpf.c), so a command
 * never pays for both.  Each passes its table of writes under way, their
 * count, the ring the records go to (the life engine's: a request stalled by
 * a write is matched in the order the ring gives) and its lost counter.
 */
#ifndef IODIG_SYSFS_WATCH_BPF_H
#define IODIG_SYSFS_WATCH_BPF_H

#include "life.h"

struct sysfs_write {
	__u64 start;
	struct life_sysfs rec;
};

#define SYSFS_WRITES_MAP(name)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, 1024);				\
		__type(key, __u32);		/* tid */		\
		__type(value, struct sysfs_write);			\
	} name SEC(".maps")

#define SYSFS_MAGIC 0x62656572

static __always_inline int dname(struct dentry *d, char *buf, int len)
{
	return bpf_probe_read_kernel_str(buf, len, BPF_CORE_READ(d, d_name.name));
}

static __always_inline bool streq(const char *a, const char *b, int n)
{
	for (int i = 0; i < n; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			return true;
	}
	return true;
}

/* The current task's file at fd, or NULL. */
static __always_inline struct file *sysfs_file_of(unsigned int fd)
{
	struct file **fds, *file = NULL;
	struct task_struct *task;
	struct fdtable *fdt;

	/* bpf_get_current_task_btf() is from 3ca1032ab7ab (5.11); before it,
	 * the same walk through probe reads */
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		task = bpf_get_current_task_btf();
		fdt = task->files->fdt;
		if (fd >= fdt->max_fds)
			return NULL;
		fds = fdt->fd;
	} else {
		task = (struct task_struct *)bpf_get_current_task();
		fdt = BPF_CORE_READ(task, files, fdt);
		if (fd >= BPF_CORE_READ(fdt, max_fds))
			return NULL;
		fds = BPF_CORE_READ(fdt, fd);
	}
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	return file;
}

/*
 * The file operations of sysfs files (kernfs_file_fops, every kernfs
 * regular file's), learnt from a read of a sysfs file by iodig itself: a
 * file whose f_op is not that is let go after two helper calls instead of
 * four (its super block's magic).  Kernel data symbols are in kallsyms only
 * with CONFIG_KALLSYMS_ALL, so the address is taken from the file.
 */
static __always_inline void sysfs_learn(__u64 *fops, unsigned int fd)
{
	struct file *file = sysfs_file_of(fd);

	if (file && BPF_CORE_READ(file, f_inode, i_sb, s_magic) == SYSFS_MAGIC)
		*fops = (__u64)BPF_CORE_READ(file, f_op);
}

/* Is file a queue attribute (queue/<attr> or queue/iosched/<attr>)?  Its
 * dentry and the queue directory's in *de and *parent. */
static __always_inline bool sysfs_queue_attr(struct file *file, __u64 *fops, struct dentry **de,
					     struct dentry **parent)
{
	char pname[8];

	if (!file)
		return false;
	if (fops && *fops && (__u64)BPF_CORE_READ(file, f_op) != *fops)
		return false;
	if (BPF_CORE_READ(file, f_inode, i_sb, s_magic) != SYSFS_MAGIC)
		return false;
	*de = BPF_CORE_READ(file, f_path.dentry);
	*parent = BPF_CORE_READ(*de, d_parent);
	dname(*parent, pname, sizeof(pname));
	if (streq(pname, "iosched", sizeof(pname))) {	/* queue/iosched/<attr> */
		*parent = BPF_CORE_READ(*parent, d_parent);
		dname(*parent, pname, sizeof(pname));
	}
	return streq(pname, "queue", sizeof(pname));
}

/*
 * Writes to queue attributes: write(2), pwrite64(2), writev(2), pwritev(2)
 * and pwritev2(2).  The life engine takes each by its own syscall event, so
 * other system calls run no program (raw sys_enter/sys_exit would run one
 * for every call on the machine: +150 ns a getppid(2) here); why calls these
 * from the raw ones it runs anyway.  Costs are in docs/PERFORMANCE.md;
 * what makes them is the number of helper calls before a write to anything
 * else is let go: plain loads through the task's BTF pointer where the
 * verifier allows them, helpers only for the fd slot and the file.
 * fops: what sysfs_learn() learnt (0: not yet), or NULL (not learning).
 */
static __always_inline int sysfs_enter(void *writes, __s64 *pending, void *ring, __u64 *lost, __u64 *fops,
				       unsigned int fd, __u64 buf, __u64 len, bool vec)
{
	struct task_struct *task;
	struct sysfs_write w;	/* zeroed once the write is known to be one
				 * (here, before the checks, it was 25 stores
				 * on every write on the machine) */
	struct file *file = sysfs_file_of(fd);
	struct dentry *de, *parent;
	__u64 id;
	__u32 tid;

	if (!sysfs_queue_attr(file, fops, &de, &parent))
		return 0;
	__builtin_memset(&w, 0, sizeof(w));
	dname(BPF_CORE_READ(parent, d_parent), w.rec.disk, sizeof(w.rec.disk));
	dname(de, w.rec.attr, sizeof(w.rec.attr));
	if (vec) {	/* the value is in the first iovec (echo and shells write one) */
		struct iovec iov = {};

		if (!len || bpf_probe_read_user(&iov, sizeof(iov), (void *)buf))
			return 0;
		buf = (__u64)iov.iov_base;
		len = iov.iov_len;
	}
	len = len < SYSFS_VALUE_LEN - 1 ? len : SYSFS_VALUE_LEN - 1;
	bpf_probe_read_user(w.rec.value, len & (SYSFS_VALUE_LEN - 1), (void *)buf);
	id = bpf_get_current_pid_tgid();
	tid = (__u32)id;
	w.rec.pid = id >> 32;
	w.rec.tid = tid;
	task = (struct task_struct *)bpf_get_current_task();
	w.rec.ppid = BPF_CORE_READ(task, real_parent, tgid);
	bpf_get_current_comm(w.rec.comm, sizeof(w.rec.comm));
	w.rec.start = bpf_ktime_get_ns();
	w.rec.type = REC_SYSFS_START;
	if (!bpf_map_update_elem(writes, &tid, &w, BPF_ANY))
		__sync_fetch_and_add(pending, 1);
	/* Told at once: a request stalled by this write may complete before
	 * the write returns. */
	if (bpf_ringbuf_output(ring, &w.rec, sizeof(w.rec), BPF_RB_FORCE_WAKEUP))
		__sync_fetch_and_add(lost, 1);
	return 0;
}

static __always_inline int sysfs_exit(void *writes, __s64 *pending, void *ring, __u64 *lost, long ret)
{
	struct sysfs_write *w;
	__u32 tid;

	if (!*pending)	/* no queue write under way: nothing to look up */
		return 0;
	tid = (__u32)bpf_get_current_pid_tgid();
	w = bpf_map_lookup_elem(writes, &tid);
	if (!w)
		return 0;
	w->rec.type = REC_SYSFS_END;
	w->rec.end = bpf_ktime_get_ns();
	w->rec.ret = ret;
	if (bpf_ringbuf_output(ring, &w->rec, sizeof(w->rec), BPF_RB_FORCE_WAKEUP))
		__sync_fetch_and_add(lost, 1);
	if (!bpf_map_delete_elem(writes, &tid))
		__sync_fetch_and_add(pending, -1);
	return 0;
}

#endif
