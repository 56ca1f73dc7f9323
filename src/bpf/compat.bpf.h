/* SPDX-License-Identifier: GPL-2.0 */
/* CO-RE shims for kernel structures that changed shape.  Each says why. */
#ifndef IODIG_COMPAT_BPF_H
#define IODIG_COMPAT_BPF_H

#include <bpf/bpf_core_read.h>

/* Kernel commit f3fa33acca9f ("block: remove the ->rq_disk field in struct
 * request", 5.17): the disk is reached through rq->q->disk since. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

/*
 * These take BTF pointers (tp_btf/raw_tp arguments) and read them directly:
 * no bpf_probe_read_kernel() call per field, which is most of the cost of a
 * cheap program.  A NULL pointer reads as 0 through the exception table.
 */
static __always_inline struct gendisk *rq_gendisk(struct request *rq)
{
	if (bpf_core_field_exists(((struct request___old *)0)->rq_disk))
		return ((struct request___old *)rq)->rq_disk;
	return rq->q->disk;
}

/* dev_t of the whole disk, in the kernel's MKDEV encoding. */
static __always_inline __u32 gendisk_dev(struct gendisk *disk)
{
	return ((__u32)disk->major << 20) | (__u32)disk->first_minor;
}

/* cgroup (v2) id an I/O is charged to: bio->bi_blkg->blkcg->css.cgroup.
 * kernfs_node.id became a u64 in 5.5 (67c0496e87d1), which we require. */
static __always_inline __u64 bio_cgroup_id(struct bio *bio)
{
	if (!bio || !bpf_core_field_exists(bio->bi_blkg))
		return 0;
	return bio->bi_blkg->blkcg->css.cgroup->kn->id;
}

/* The op in cmd_flags: REQ_OP_BITS has been 8 since 4.10 (ef295ecf090d). */
#define REQ_OP_MASK_ 0xff

static __always_inline __u32 req_op_flush(void)
{
	/* enum req_op since 6.0, enum req_opf before; FLUSH has always been 2 */
	if (bpf_core_enum_value_exists(enum req_op, REQ_OP_FLUSH))
		return bpf_core_enum_value(enum req_op, REQ_OP_FLUSH);
	return 2;
}

static __always_inline __u32 req_op_write(void)
{
	/* the same enums; WRITE has always been 1 */
	if (bpf_core_enum_value_exists(enum req_op, REQ_OP_WRITE))
		return bpf_core_enum_value(enum req_op, REQ_OP_WRITE);
	return 1;
}

/*
 * A passthrough request (SG_IO, NVMe admin commands): made by a driver, no
 * bio of it went through block_bio_queue or block_getrq.  Its ops are the
 * last of the enum: REQ_OP_DRV_IN, REQ_OP_DRV_OUT (34, 35; enum req_op
 * since 6.0), and before 5.14 also REQ_OP_SCSI_IN, REQ_OP_SCSI_OUT (32, 33;
 * dropped by Christoph Hellwig's "block: remove REQ_OP_SCSI_{IN,OUT}",
 * linux-block, June 2021), below them: where enum req_op is absent, 32.
 */
static __always_inline bool rq_passthrough(struct request *rq)
{
	__u32 first = 32;

	if (bpf_core_enum_value_exists(enum req_op, REQ_OP_DRV_IN))
		first = bpf_core_enum_value(enum req_op, REQ_OP_DRV_IN);
	return (rq->cmd_flags & REQ_OP_MASK_) >= first;
}

/*
 * A data request sent through the flush machinery (REQ_PREFLUSH/REQ_FUA on a
 * queue with a volatile cache) completes twice: once with RQF_FLUSH_SEQ when
 * its data is written, and once more when the flush sequence is done, which
 * is when /proc/diskstats counts it.  RQF_* were #defines (RQF_FLUSH_SEQ was
 * 1 << 4, as in the Debian 6.1 kernel) until 5f89154e8e9e ("block: Use enum
 * to define RQF_x bit indexes", 6.11) made them bits of an enum, which has no
 * name in 6.12 (named rqf_flags later): CO-RE cannot look an enumerator up
 * in an enum without a name, so the user side finds __RQF_FLUSH_SEQ by its
 * own name in vmlinux BTF (bpfenv__enumerator) and sets the bit here; 4
 * where it is a #define.  (Bit 4 read on 6.12 counted the data step of each
 * md superblock write as a write of its own: tests/vm/stack.)
 */
const volatile __u32 rqf_flush_seq_bit __weak = 4;	/* weak: one in each object linked */

static __always_inline __u32 rqf_flush_seq(void)
{
	return 1U << (rqf_flush_seq_bit & 31);
}

static __always_inline bool rq_data_in_flush_seq(struct request *rq)
{
	if (!(rq->rq_flags & rqf_flush_seq()))
		return false;
	return (rq->cmd_flags & REQ_OP_MASK_) != req_op_flush();
}

/*
 * RQF_IO_STAT: the request is accounted in /proc/diskstats.  1 << 13 while
 * RQF_* were #defines (5.10 to 6.10); a bit of the enum since 5f89154e8e9e
 * (6.11), found by name as __RQF_FLUSH_SEQ is.
 */
const volatile __u32 rqf_io_stat_bit __weak = 13;

/*
 * Does /proc/diskstats count this block_rq_complete hit?  A request's last
 * completion when it carries RQF_IO_STAT (blk_account_io_done(), which
 * leaves out a flush sequence's data step and requests with RQF_FLUSH_SEQ),
 * and the flush machinery's own flush request, which carries RQF_FLUSH_SEQ
 * and is counted with the flushes (blk_account_io_flush()).
 */
static __always_inline bool rq_in_diskstats(struct request *rq, unsigned int nr_bytes)
{
	__u32 f = rq->rq_flags;

	if (f & rqf_flush_seq())
		return (rq->cmd_flags & REQ_OP_MASK_) == req_op_flush();
	return nr_bytes >= rq->__data_len && (f & (1U << (rqf_io_stat_bit & 31)));
}

/* Is this block_rq_complete the request's last?  Not when it completed only
 * part of its bytes, nor for a flush sequence's data step (see above). */
static __always_inline bool rq_final_completion(struct request *rq, unsigned int nr_bytes)
{
	return nr_bytes >= rq->__data_len && !rq_data_in_flush_seq(rq);
}

/*
 * Block tracepoints whose first arguments went away.  Christoph Hellwig's
 * tracepoint cleanups in 5.11 removed the request_queue argument of
 * block_rq_insert, block_rq_issue and block_rq_requeue (a54895fa057c; in
 * 5.10.137 too, by the stable series), of block_bio_queue, block_getrq,
 * block_split and block_bio_remap, and both the queue and the request of
 * block_bio_backmerge and block_bio_frontmerge.  BLOCK_PROG(name, tp,
 * args...) is BPF_PROG whose arguments start after tp_lead__<tp> leading
 * ones, which the user side reads from the tracepoint's own BTF prototype
 * (bpfenv__set_tp_leads: the parameters before the first struct bio or
 * struct request), never from a kernel version.  They are constants at
 * load, so the verifier walks only the branch the running kernel's
 * prototype takes; `ctx` stays the program's own context.
 */
#define TP_LEAD(tp) const volatile __u32 tp_lead__##tp __weak
TP_LEAD(block_rq_insert);
TP_LEAD(block_rq_issue);
TP_LEAD(block_rq_requeue);
TP_LEAD(block_bio_queue);
TP_LEAD(block_getrq);
TP_LEAD(block_split);
TP_LEAD(block_bio_remap);
TP_LEAD(block_bio_backmerge);
TP_LEAD(block_bio_frontmerge);

#define ___block_rest(x) ___block_rest_(x)
#define ___block_rest_(ctx0, rest...) rest
#define BLOCK_PROG(name, tp, args...)					    \
name(unsigned long long *ctx);						    \
static __always_inline typeof(name(0))					    \
____##name(unsigned long long *ctx, ##args);				    \
typeof(name(0)) name(unsigned long long *ctx)				    \
{									    \
	unsigned long long *ctx0 = ctx;					    \
	_Pragma("GCC diagnostic push")					    \
	_Pragma("GCC diagnostic ignored \"-Wint-conversion\"")		    \
	_Pragma("GCC diagnostic ignored \"-Wshadow\"")			    \
	if (tp_lead__##tp == 1) {						    \
		unsigned long long *ctx = ctx0 + 1;			    \
		return ____##name(ctx0, ___block_rest(___bpf_ctx_cast(args))); \
	}								    \
	if (tp_lead__##tp == 2) {						    \
		unsigned long long *ctx = ctx0 + 2;			    \
		return ____##name(ctx0, ___block_rest(___bpf_ctx_cast(args))); \
	}								    \
	return ____##name(___bpf_ctx_cast(args));			    \
	_Pragma("GCC diagnostic pop")					    \
}									    \
static __always_inline typeof(name(0))					    \
____##name(unsigned long long *ctx, ##args)

/*
 * The whole disk a bio is for, and whether its queue makes requests at all:
 * bio-based drivers (zram, dm, md) see block_bio_queue and no request.
 * bio->bi_bdev is from 309dca309fc3 ("block: store a block_device pointer in
 * struct bio", 5.12), which replaced bi_disk and bi_partno.
 */
struct bio___bi_disk {
	struct gendisk *bi_disk;
	__u8 bi_partno;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *bio_gendisk(struct bio *bio)
{
	if (bpf_core_field_exists(((struct bio___bi_disk *)bio)->bi_disk))
		return ((struct bio___bi_disk *)bio)->bi_disk;
	return bio->bi_bdev->bd_disk;
}

static __always_inline __u32 bio_dev(struct bio *bio)
{
	return gendisk_dev(bio_gendisk(bio));
}

/* The partition (or the whole disk) a bio or a request is for: bi_bdev is
 * the partition's block_device, kept through the remap to disk sectors, and
 * blk_mq_bio_to_request() copies it to rq->part.  0 for a request with no
 * bio (a flush).  Before 5.12, a partition was bi_partno minors above its
 * disk (not for the extended minors of a disk with more than its minors'
 * partitions) and rq->part a struct hd_struct, until the series of
 * 8446fe9255be ("block: switch partition lookup to use struct
 * block_device") made partitions block_devices. */
static __always_inline __u32 bio_part_dev(struct bio *bio)
{
	if (bpf_core_field_exists(((struct bio___bi_disk *)bio)->bi_disk))
		return bio_dev(bio) + ((struct bio___bi_disk *)bio)->bi_partno;
	return bio->bi_bdev->bd_dev;
}

struct hd_struct___old {
	struct device __dev;
} __attribute__((preserve_access_index));

struct request___hd {
	struct hd_struct___old *part;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_part_dev(struct request *rq)
{
	if (bpf_core_type_exists(struct hd_struct___old)) {
		struct hd_struct___old *hd = ((struct request___hd *)rq)->part;

		return hd ? hd->__dev.devt : 0;
	}
	struct block_device *part = rq->part;

	return part ? part->bd_dev : 0;
}

static __always_inline bool bio_to_mq(struct bio *bio)
{
	return bio_gendisk(bio)->queue->mq_ops != NULL;
}

/*
 * The kernel's own Q stamp of a bio: blkcg_bio_issue_init() sets it in
 * submit_bio_noacct_nocheck(), right before block_bio_queue.  It is
 * bio->issue_time_ns since "block: cleanup bio_issue" (Yu Kuai, 2025; in
 * 6.18 here: blk_time_get_ns(), the plug-cached clock that struct request's
 * stamps use too); before, the low 51 bits of bio->bi_issue.value (struct
 * bio_issue, added with blk-iolatency in 4.19; ktime_get_ns()), which `now`,
 * taken later, restores.
 * 0 when the kernel keeps neither (no CONFIG_BLK_CGROUP) or did not stamp
 * this bio (a bio split off another is a fresh bio).
 */
struct bio___issue {
	struct {
		__u64 value;
	} bi_issue;
} __attribute__((preserve_access_index));

#define BIO_ISSUE_TIME_BITS 51

static __always_inline __u64 q_stamp_restore(__u64 v, __u64 now)
{
	__u64 mask = (1ULL << BIO_ISSUE_TIME_BITS) - 1, t;

	v &= mask;
	if (!v)
		return 0;
	t = (now & ~mask) | v;
	return t > now ? t - (1ULL << BIO_ISSUE_TIME_BITS) : t;
}

/* For a BTF pointer (a tracepoint argument): direct loads. */
static __always_inline __u64 bio_q_stamp(struct bio *bio, __u64 now)
{
	if (bpf_core_field_exists(bio->issue_time_ns))
		return bio->issue_time_ns;
	if (bpf_core_field_exists(((struct bio___issue *)bio)->bi_issue))
		return q_stamp_restore(((struct bio___issue *)bio)->bi_issue.value, now);
	return 0;
}

/* Is q, restored by bio_q_stamp() earlier, this bio's stamp still? */
static __always_inline bool bio_q_stamp_is(struct bio *bio, __u64 q)
{
	__u64 mask = (1ULL << BIO_ISSUE_TIME_BITS) - 1;

	if (bpf_core_field_exists(bio->issue_time_ns))
		return bio->issue_time_ns == q;
	if (bpf_core_field_exists(((struct bio___issue *)bio)->bi_issue))
		return ((((struct bio___issue *)bio)->bi_issue.value ^ q) & mask) == 0;
	return true;
}

/* For a pointer the verifier knows only as a number (bio->bi_private). */
static __always_inline __u64 bio_q_stamp_read(const void *bio, __u64 now)
{
	if (bpf_core_field_exists(((struct bio *)bio)->issue_time_ns))
		return BPF_CORE_READ((struct bio *)bio, issue_time_ns);
	if (bpf_core_field_exists(((struct bio___issue *)bio)->bi_issue))
		return q_stamp_restore(BPF_CORE_READ((struct bio___issue *)bio, bi_issue.value), now);
	return 0;
}

/*
 * folio_nr_pages(): a small folio has no PG_head; a large one keeps its
 * order in a field of its own up to 6.5 (_folio_order, 6.1's), then in the
 * low byte of _flags_1 (Matthew Wilcox's "free up a word in the first tail
 * page" series, August 2023, in 6.6).  flags is an unsigned long, or since
 * 6.18 ("mm: introduce memdesc_flags_t") a struct holding one: a field of
 * another type does not relocate, so each shape has its flavour, read as
 * bytes.
 */
struct folio___order {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

struct folio___ulong {
	unsigned long flags;
} __attribute__((preserve_access_index));

static __always_inline __u32 folio_pages(struct folio *folio)
{
	struct folio___order *old = (void *)folio;
	struct folio___ulong *ul = (void *)folio;
	unsigned long flags = 0, f1 = 0;
	unsigned char order = 0;

	if (bpf_core_field_exists(ul->flags))
		bpf_core_read(&flags, sizeof(flags), &ul->flags);
	else
		bpf_core_read(&flags, sizeof(flags), &folio->flags);
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(old->_folio_order)) {
		bpf_core_read(&order, sizeof(order), &old->_folio_order);
		return 1U << order;
	}
	bpf_core_read(&f1, sizeof(f1), &folio->_flags_1);
	return 1U << (f1 & 0xff);
}

/*
 * The address_space of the file a page is in (0 if none, or anonymous: its
 * mapping has a low bit set).  A bio can start inside a large folio, at a
 * tail page, whose `mapping` is not the file's (TAIL_MAPPING): the folio's
 * head holds it, found through compound_head with bit 0 set (1d798ca3f164,
 * "mm: make compound_head() robust", 4.4).
 */
static __always_inline __u64 page_file_mapping(struct page *page)
{
	unsigned long head = BPF_CORE_READ(page, compound_head);
	__u64 mapping;

	if (head & 1)
		page = (struct page *)(head - 1);
	mapping = (__u64)BPF_CORE_READ(page, mapping);
	return mapping & 3 ? 0 : mapping;
}

#endif
