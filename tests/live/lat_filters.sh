# lat -d: only that disk, a partition counting toward its disk;
# -c: only I/O charged to that cgroup.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 128 2048 100000); B=$(loopdev 64)
a=${A#/dev/}; b=${B#/dev/}
[ -b "${A}p1" ] || die "no partition ${A}p1"

r0=$(diskstat $a 1)
start_iodig "$T/d.json" lat -d "${a}p1" -D --json
fio --name=p --filename=${A}p1 --direct=1 --rw=randread --bs=4k --size=40M --number_ios=1500 --ioengine=psync >/dev/null || die fio
fio --name=o --filename=$B --direct=1 --rw=randread --bs=4k --size=40M --number_ios=1000 --ioengine=psync >/dev/null || die fio
stop_iodig
r=$(( $(diskstat $a 1) - r0 ))
assert_eq "$(jcount "$T/d.json" ".disk == \"$a\"")" "$r" "-d ${a}p1 counts $a's reads"
assert_eq "$(jcount "$T/d.json" ".disk != \"$a\"")" "0" "other disks filtered out"

# cgroup: the hierarchy that carries the io (v2) or blkio (v1) controller
if grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	CG=/sys/fs/cgroup/iodig-test-$$
	echo +io > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
elif [ -d /sys/fs/cgroup/blkio ]; then
	CG=/sys/fs/cgroup/blkio/iodig-test-$$
else
	skip "no cgroup hierarchy with the io/blkio controller"
fi
mkdir "$CG" || die "mkdir $CG"
defer "rmdir $CG"
start_iodig "$T/c.json" lat -c "$CG" -D --json
w0=$(diskstat $b 5)
bash -c "echo \$\$ > $CG/cgroup.procs && exec fio --name=in --filename=$B --direct=1 --rw=randwrite --bs=4k --size=40M --number_ios=1200 --ioengine=psync --output-format=json" > "$T/fio-in.json" || die "fio in cgroup"
fio --name=out --filename=$B --direct=1 --rw=randwrite --bs=4k --size=40M --number_ios=700 --ioengine=psync >/dev/null || die fio
stop_iodig
w=$(( $(diskstat $b 5) - w0 ))
assert_eq "$w" "1900" "diskstats writes on $b (both fio runs)"
fio_in=$(jq '.jobs[0].write.total_ios' "$T/fio-in.json")
assert_eq "$(jcount "$T/c.json" ".disk == \"$b\"")" "$fio_in" "-c counts only the cgroup's writes (fio total_ios)"
"$IODIG" lat -c /tmp >/dev/null 2>"$T/err"; rc=$?
assert_eq "$rc" 1 "-c on a non-cgroup directory exits 1"
