# Runs inside the VM (busybox sh) that tests/vm/stack boots: bio-based
# disks (device-mapper, md) over request-based ones, what iodig says of each
# layer and what the kernel counted (/sys/block/*/stat), between markers.
. /iodig/guest-lib.sh
export DM_DISABLE_UDEV=1
dm() { /peer/dmsetup --noudevsync "$@"; }

for i in 0 1 2; do
	truncate -s 64M /dev/shm/d$i.img
	losetup /dev/loop$i /dev/shm/d$i.img
done
# md writes its superblock by itself (marking the array active at the first
# write, clean 200 ms after the last): the counts are taken with it clean
settle() {
	t=0
	while [ "$(cat /sys/block/md0/md/array_state)" != clean ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
	sleep 0.5
}

begin setup
$I probe --json > /tmp/probe.out 2>&1; kv probe.rc $?
kv stacked "$(grep -o '"stacked":"[^"]*"' /tmp/probe.out)"
kv atomic_fetch "$(grep -o '"atomic_fetch":[a-z]*' /tmp/probe.out | cut -d: -f2)"
kv owners "$(grep -o '"owners":"[^"]*"' /tmp/probe.out | cut -d'"' -f4)"
# dm-0: linear over loop0; dm-1: 10 ms of delay over nullb0 (2 ms a request)
dm create lin --table "0 $(blockdev --getsz /dev/loop0) linear /dev/loop0 0"; kv lin.rc $?
dm create dly --table "0 $(blockdev --getsz /dev/nullb0) delay /dev/nullb0 0 10"; kv dly.rc $?
# md0: raid1 over loop1 and loop2, no resync (its I/O would be counted)
/peer/mdadm --create /dev/md0 --level=1 --raid-devices=2 --metadata=1.2 --assume-clean --run \
	/dev/loop1 /dev/loop2 > /tmp/md.out 2>&1; kv md.rc $?
put md.out /tmp/md.out
kv lin.name "$(basename "$(readlink -f /sys/block/dm-0/dm/name 2>/dev/null)") $(cat /sys/block/dm-0/dm/name)"
kv dly.name "$(cat /sys/block/dm-1/dm/name)"
kv slaves.dm-0 "$(ls /sys/block/dm-0/slaves)"
kv slaves.md0 "$(ls /sys/block/md0/slaves | tr '\n' ' ')"
sleep 1
end setup

begin lat
# lat -D -F over every layer at once: each disk's reads and writes against
# its own /sys/block/*/stat
start lat lat -D -F --json
settle
for d in dm-0 dm-1 md0 loop0 loop1 loop2 nullb0; do kv before.$d "$(stat_of $d)"; done
dd if=/dev/dm-0 of=/dev/null bs=4k count=300 iflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/dm-0 bs=4k count=200 oflag=direct 2>/dev/null
dd if=/dev/dm-1 of=/dev/null bs=4k count=40 iflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/md0 bs=4k count=100 oflag=direct 2>/dev/null
dd if=/dev/md0 of=/dev/null bs=4k count=100 iflag=direct 2>/dev/null
sleep 0.5; settle
for d in dm-0 dm-1 md0 loop0 loop1 loop2 nullb0; do kv after.$d "$(stat_of $d)"; done
stop lat
end lat

begin lat_d
# -d on a bio-based disk: its bios alone
start ld lat -d dm-1 --json
kv before "$(stat_of dm-1)"
dd if=/dev/dm-1 of=/dev/null bs=4k count=20 iflag=direct 2>/dev/null
sleep 1
kv after "$(stat_of dm-1)"
stop ld
end lat_d

begin slow
# slow -d on dm-delay: each bio with the null_blk request it became
start sl slow -d dm-1 5 --json
dd if=/dev/dm-1 of=/dev/null bs=4k count=20 iflag=direct 2>/dev/null
sleep 0.5
stop sl
start st slow -d dm-1 5
dd if=/dev/dm-1 of=/dev/null bs=4k count=3 iflag=direct 2>/dev/null
sleep 0.5
stop st
# the flight recorder on dm-delay: its bios (10 ms and more) fire a p99>5ms
# trigger; the file written holds each bio with its request below
start fr record -o /tmp/fr --keep 5 --trigger p99\>5ms -d dm-1
kv frbefore "$(stat_of dm-1)"
dd if=/dev/dm-1 of=/dev/null bs=4k count=20 skip=300 iflag=direct 2>/dev/null
kv frafter "$(stat_of dm-1)"
sleep 2.2	# the trigger is judged each second; each file holds what it wrote
stop fr
rc=0; for f in /tmp/fr-*.rec; do $I replay --json $f || rc=1; done > /tmp/frj.out 2>&1; kv replay.rc $rc
put frj.out /tmp/frj.out
end slow

begin snoop_md
# snoop -d md0: each raid1 write with its two legs, each read with its one
start sm snoop -d md0 --json
settle
kv before "$(stat_of md0)"
dd if=/dev/zero of=/dev/md0 bs=4k count=50 seek=1000 oflag=direct 2>/dev/null
dd if=/dev/md0 of=/dev/null bs=4k count=50 skip=1000 iflag=direct 2>/dev/null
sleep 0.5; settle
kv after "$(stat_of md0)"
stop sm
end snoop_md

begin crypt
# dm-crypt over loop4 (aes-cbc-plain64: the kernel's built-in AES and CBC).
# Its reads are clones, its writes new bios of encrypted pages that its own
# write thread sends down; both through dm_submit_bio_remap (a remap event).
# snoop, then top, on it.
truncate -s 64M /dev/shm/d4.img
losetup /dev/loop4 /dev/shm/d4.img
dm create cr --table "0 $(blockdev --getsz /dev/loop4) crypt aes-cbc-plain64 \
	000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f 0 /dev/loop4 0"; kv cr.rc $?
c=$(dm_named cr)
kv dev "$c"
kv slaves "$(ls /sys/block/$c/slaves | tr "\n" " ")"
snoop_rw cs $c 40
start ct top -d $c --json 1
kv tbefore "$(stat_of $c)"
dd if=/dev/$c of=/dev/null bs=4k count=30 iflag=direct 2>/dev/null &
rd=$!
dd if=/dev/zero of=/dev/$c bs=4k count=20 seek=100 oflag=direct 2>/dev/null
wait $rd
sleep 1.2
kv tafter "$(stat_of $c)"
stop ct
end crypt

begin span
# dm-linear of two targets on loop5, the first 2052 sectors long: an 8 KiB
# read at sector 2048 spans both, and dm clones it once a target
truncate -s 16M /dev/shm/d5.img
losetup /dev/loop5 /dev/shm/d5.img
printf '0 2052 linear /dev/loop5 0\n2052 2044 linear /dev/loop5 8192\n' | dm create span; kv span.rc $?
c=$(dm_named span)
kv dev "$c"
start sp snoop -d $c --json
kv before "$(stat_of $c)"
for i in 1 2 3 4 5 6 7 8 9 10; do dd if=/dev/$c of=/dev/null bs=8192 count=1 skip=128 iflag=direct 2>/dev/null; done
sleep 0.5
kv after "$(stat_of $c)"
stop sp
end span

begin lvm
# LVM: a volume group on loop6, one logical volume (dm-linear made by lvm,
# no udev: it makes its own device nodes)
truncate -s 64M /dev/shm/d6.img
losetup /dev/loop6 /dev/shm/d6.img
mkdir -p /run/lock/lvm /run/lvm
lv() { /peer/lvm "$@" --config 'activation { udev_sync = 0 udev_rules = 0 } devices { obtain_device_list_from_udev = 0 }'; }
{ lv pvcreate -ff -y /dev/loop6 && lv vgcreate vg0 /dev/loop6 && lv lvcreate -y -L 32M -n lv0 vg0; } > /tmp/lvm.out 2>&1; kv lvm.rc $?
put lvm.out /tmp/lvm.out
c=$(dm_named vg0-lv0)
kv dev "$c"
kv slaves "$(ls /sys/block/$c/slaves | tr "\n" " ")"
snoop_rw lv $c 25
end lvm

begin seed
# Seed 000: bcache over a slow backing disk (nullb1: 20 ms a request, kept in
# memory so that bcache finds its superblock) with a fast cache (loop3); an
# OSD commits 4 KiB writes with fdatasync while udevadm re-writes the
# backing disk's scheduler, which freezes its queue each time.
mount -t configfs none /sys/kernel/config 2>/dev/null
n=/sys/kernel/config/nullb/nullb1
mkdir $n && echo 128 > $n/size && echo 1 > $n/memory_backed && echo 2 > $n/irqmode &&
	echo 20000000 > $n/completion_nsec && echo 2 > $n/queue_mode && echo 1 > $n/power; kv nullb1.rc $?
truncate -s 128M /dev/shm/d3.img
losetup /dev/loop3 /dev/shm/d3.img
# both at once: the backing disk is made with the cache set's UUID, attached
/peer/make-bcache --bucket 64k -B /dev/nullb1 -C /dev/loop3 > /tmp/mb.out 2>&1; kv make-bcache.rc $?
echo /dev/loop3 > /sys/fs/bcache/register; echo /dev/nullb1 > /sys/fs/bcache/register
t=0; while [ "$(cat /sys/block/bcache0/bcache/state 2>/dev/null)" != clean ] && [ $t -lt 50 ]; do sleep 0.1; t=$((t + 1)); done
kv state "$(cat /sys/block/bcache0/bcache/state)"
kv cache_mode "$(cat /sys/block/bcache0/bcache/cache_mode)"
kv slaves "$(ls /sys/block/bcache0/slaves | tr "\n" " ")"
put mb.out /tmp/mb.out
start sd slow -d bcache0 10 --json
start dj doctor --json 600
/peer/udevadm attrs /sys/block/nullb1/queue/scheduler 6 200 mq-deadline none > /tmp/ud.out & ud=$!
kv udevadm.pid $ud
/peer/ceph-osd write /dev/bcache0 60 > /tmp/osd.out; kv osd.rc $?
wait $ud; kv udevadm.rc $?
sleep 0.5
stop sd
stop dj
put osd.out /tmp/osd.out
put ud.out /tmp/ud.out
# the same in text, for the README
start st slow -d bcache0 10
start dt doctor 600
# (6 writes over the OSD's 30: with 2 over 10, the first could come before
# the OSD's first write and the second between two, stalling none: seen;
# with 4 over 20, once in 8 runs no stall was named)
/peer/udevadm attrs /sys/block/nullb1/queue/scheduler 6 80 mq-deadline none > /dev/null & ud=$!
/peer/ceph-osd write /dev/bcache0 30 > /dev/null
wait $ud
sleep 0.5
stop st
stop dt
end seed

begin layers
# the tree and what each layer adds: dm-delay over null_blk
start ly layers --json 1
start dl doctor -d dm-1 --json 600
kv before.dm-1 "$(stat_of dm-1)"; kv before.nullb0 "$(stat_of nullb0)"
dd if=/dev/dm-1 of=/dev/null bs=4k count=30 iflag=direct 2>/dev/null
sleep 1.2
kv after.dm-1 "$(stat_of dm-1)"; kv after.nullb0 "$(stat_of nullb0)"
stop ly
stop dl
start lt layers 2 1
dd if=/dev/dm-1 of=/dev/null bs=4k count=30 iflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/md0 bs=4k count=30 seek=2000 oflag=direct 2>/dev/null
sleep 2.5
stop lt
end layers

begin iostat
# iostat -d on dm-delay: diskstats' reads, and beside them the bios' own
start io iostat -d dm-1 --json 1
dd if=/dev/dm-1 of=/dev/null bs=4k count=30 iflag=direct 2>/dev/null
sleep 1.5
stop io
end iostat

begin ustack
# user stacks at block I/O submission: dd's 50 O_DIRECT reads (busybox,
# static, no frame pointers), walked by iodig or, on 5.10, by the kernel
kv probe "$(grep -o '"user_stacks":"[^"]*"' /tmp/probe.out | cut -d'"' -f4)"
kv kprobe "$(grep -o '"kernel_stacks":"[^"]*"' /tmp/probe.out | cut -d'"' -f4)"
start us stacks -U -d loop0 -n 0 --json
dd if=/dev/loop0 of=/dev/null bs=4k count=50 iflag=direct 2>/dev/null
sleep 0.5
stop us
# kernel stacks from memos of their path (kmemo.bpf.h): dd's 50 reads
start ks stacks -K -d loop0 -n 0 --json
dd if=/dev/loop0 of=/dev/null bs=4k count=50 iflag=direct 2>/dev/null
sleep 0.5
stop ks
end ustack

begin btf
# vmlinux BTF cut to what iodig's objects use (src/lib/btfslim.c) against the
# whole: lat's and slow's CO-RE relocations as libbpf logs them (-v), and
# the enumerators and request flags set-up reads (-v), a count and an md5
# each way, the line that says what was cut, and the peak RSS
relos() { grep -E 'relo #[0-9]+: (matching candidate|patched)' "$1" | sed 's/^iodig [a-z]*: //'; }
setup() { grep -E '^iodig [a-z]*: (enumerator |request ops and flags from BTF: )' "$1"; }
for c in lat slow; do
	for m in slim full; do
		export IODIG_VMLINUX_BTF=$m
		case $c in lat) start b lat -D -v ;; *) start b slow 10 -v ;; esac
		kv $c.$m.hwm "$(awk '/^VmHWM/ {print $2}' /proc/$pid_b/status 2>/dev/null)"
		kill -INT $pid_b 2>/dev/null; wait $pid_b; kv $c.$m.rc $?
		kv $c.$m "$(relos /tmp/b.err | wc -l) $(relos /tmp/b.err | md5sum | cut -d' ' -f1)"
		kv $c.$m.setup "$(setup /tmp/b.err | wc -l) $(setup /tmp/b.err | md5sum | cut -d' ' -f1)"
		[ $m = slim ] && kv $c.line "$(grep -m1 'vmlinux BTF' /tmp/b.err)"
	done
	unset IODIG_VMLINUX_BTF
done
end btf
