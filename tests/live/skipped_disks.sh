# skipped over every disk (no -d) while a disk is made, used and removed:
# its share counts from 0 where it began and stays as of the last read
# when it goes (skipped.h).  Counted against the programs' running total
# alone, the disk's 20,000 or so requests would leave skipped that far
# negative once its diskstats line is gone; counted from the first read
# after it appeared, as far positive.  lat -D's count for the disk is what
# diskstats counted there before it went, less what skipped says.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v fio >/dev/null || skip "needs fio"
L=$(loopdev 64)
# loopctl add|remove MINOR: LOOP_CTL_ADD (0x4C80), LOOP_CTL_REMOVE (0x4C81)
loopctl() { python3 -c 'import fcntl, os, sys
fd = os.open("/dev/loop-control", os.O_RDWR)
print(fcntl.ioctl(fd, 0x4C80 if sys.argv[1] == "add" else 0x4C81, int(sys.argv[2])))' "$@"; }
start_iodig "$T/lat.json" lat -D --json
minor=""
for m in $(shuf -i 300-999 -n 20); do loopctl add "$m" >/dev/null 2>&1 && { minor=$m; break; }; done
[ -n "$minor" ] || die "LOOP_CTL_ADD found no free minor"
N=loop$minor
defer "losetup -d /dev/$N 2>/dev/null; python3 -c 'import fcntl, os; fcntl.ioctl(os.open(\"/dev/loop-control\", os.O_RDWR), 0x4C81, $minor)' 2>/dev/null; rm -f /dev/$N"
[ -b /dev/$N ] || mknod /dev/$N b 7 "$minor"
f=$(mktemp /dev/shm/iodig-test.XXXXXX); defer "rm -f $f"; truncate -s 64M "$f"
losetup /dev/$N "$f" || die "losetup /dev/$N"
fio --name=x --filename=/dev/$N --direct=1 --rw=randrw --bs=4k --size=64M --ioengine=libaio \
    --iodepth=16 --runtime=2 --time_based >/dev/null || die "fio on $N"
settle /dev/$N
# lat reads both counts a second apart at most (skipped__poll): one read
# after the disk's last completion, so that the share it keeps holds them
# all (a completion the programs missed in the disk's last second, unread
# before it went, is in neither count: CI run 68, lat -D 16 short with
# skipped 0, the 16 its last second's)
sleep 1.2
want=$(awk -v d="$N" '$3 == d { print $4 + $8 + $15 + $19 }' /proc/diskstats)
losetup -d /dev/$N && loopctl remove "$minor" >/dev/null || die "removing $N"
! grep -qw "$N" /proc/diskstats || die "$N still in /proc/diskstats"
# the next reads find it gone; more I/O elsewhere meanwhile
fio --name=y --filename="$L" --direct=1 --rw=randread --bs=4k --size=64M --ioengine=psync \
    --number_ios=2000 >/dev/null || die "fio on $L"
sleep 2.2
stop_iodig
# named as major:minor where it was gone by the time lat printed it
got=$(jcount "$T/lat.json" ".disk == \"$N\" or .disk == \"7:$minor\"")
sk=$(jq -s '[.[] | select(.type == "interval_end") | .skipped] | add' "$T/lat.json")
[ "$want" -ge 20000 ] || die "fio reached $N only $want times"
# the bound of skipped.sh (1 in 10,000), and a few low at worst (skipped.h)
[ "$sk" -ge -8 ] && [ $(( sk * 10000 )) -le "$want" ] || die "skipped $sk with $want requests on a disk made and removed"
[ "$got" -le "$want" ] && [ $(( want - got )) -le $(( sk > 0 ? sk : 0 )) ] || die "$N: lat -D $got, diskstats $want, skipped $sk"
ok "$N made and removed while tracing: lat -D $got of diskstats' $want, skipped $sk"
