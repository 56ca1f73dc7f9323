# iodig size on fio jobs with known sizes and patterns: a sequential read
# of 16 KiB blocks on one loop device, random 4 KiB reads on another; every
# bio in its size bucket, exact counts, sequential share above 95% and
# below 5%.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 64); B=$(loopdev 64); a=${A#/dev/}; b=${B#/dev/}
start_iodig "$T/s.json" size --json
start_iodig "$T/s.txt" size -d "$a"
fio --name=seq --filename="$A" --direct=1 --rw=read --bs=16k --size=32M --number_ios=1000 --ioengine=psync >/dev/null || die fio
fio --name=rnd --filename="$B" --direct=1 --rw=randread --bs=4k --size=64M --number_ios=1000 --ioengine=psync >/dev/null || die fio
stop_all_iodig
row() { jq -s -c "[.[] | select(.type == \"size\" and .comm == \"fio\" and .disk == \"$1\" and .op == \"read\")]
	| [(map(.count) | add), (map(.sequential) | add), (map(.buckets[]) | group_by(.[0]) | map([.[0][0], (map(.[2]) | add)]))]" "$T/s.json"; }
read -r n s bk <<<"$(row "$a" | jq -r '"\(.[0]) \(.[1]) \(.[2] | tostring)"')"
assert_eq "$n $bk" '1000 [[16384,1000]]' "$a: 1000 reads, all in the 16 KiB bucket"
[ "$s" -ge 950 ] || die "$a: only $s of 1000 sequential"
ok "$a: $s of 1000 sequential (> 95%)"
read -r n s bk <<<"$(row "$b" | jq -r '"\(.[0]) \(.[1]) \(.[2] | tostring)"')"
assert_eq "$n $bk" '1000 [[4096,1000]]' "$b: 1000 reads, all in the 4 KiB bucket"
[ "$s" -lt 50 ] || die "$b: $s of 1000 sequential"
ok "$b: $s of 1000 sequential (< 5%)"
grep -q "^fio \[[0-9]*\] $a read: 1000 I/Os, 16384000 bytes" "$T/s.txt" || die "text: $(head -5 "$T/s.txt")"
grep -q "$b" "$T/s.txt" && die "-d $a showed $b"
ok "text, -d $a: the one disk"
