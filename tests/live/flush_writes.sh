# Writes that go through the flush machinery (O_DSYNC on a disk with a
# write-back cache: FUA becomes data + post-flush) keep their bytes: the
# request's last completion has no bio and 0 bytes left, so what its data
# step completed is carried to it.  Held against dd's own count and the
# sectors /proc/diskstats says were written.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 64); d=${L#/dev/}
[ "$(cat /sys/block/$d/queue/write_cache)" = "write back" ] || die "$d has no write-back cache: $(cat /sys/block/$d/queue/write_cache)"
start_iodig "$T/s.json" snoop --json -d "$d"
# top: its first request makes three new histogram keys at once (hist.bpf.h)
start_iodig "$T/t.json" top --json -d "$d" 1
w0=$(diskstat "$d" 5); s0=$(diskstat "$d" 7)
dd if=/dev/zero of="$L" bs=64k count=10 seek=16 oflag=direct,dsync status=none || die dd
sleep 1.3
w1=$(diskstat "$d" 5); s1=$(diskstat "$d" 7)
stop_all_iodig
# the kernel: 10 data writes (the empty flush writes at close count as
# writes of 0 sectors), 1280 sectors
assert_eq "$((s1 - s0))" 1280 "sectors written (/proc/diskstats)"
got=$(jq -s -c '[.[] | select(.type == "request" and .op == "write" and .bytes > 0) | [.sector, .bytes]]' "$T/s.json")
assert_eq "$got" "$(python3 -c "print(str([[2048 + 128 * i, 65536] for i in range(10)]).replace(' ', ''))")" \
	"snoop: the 10 O_DSYNC writes, each at its sector with its 65536 bytes"
# a flush has no sector: null in JSON, "-" in text (it was the kernel's
# (sector_t)-1, 18446744073709551615); an empty preflush write keeps its bio's
start_iodig "$T/fl.txt" snoop -d "$d"
start_iodig "$T/fl.json" snoop --json -d "$d"
dd if=/dev/zero of="$L" bs=4k count=1 oflag=direct,dsync status=none || die dd
sync "$L"
sleep 1.3
stop_all_iodig
assert_eq "$(jq -s -c '[.[] | select(.type == "request" and .op == "flush") | .sector] | unique' "$T/fl.json")" "[null]" \
	"snoop: the flushes have no sector"
grep -qE '^[0-9.]+ +[^ ]+ +[0-9]+ +'"$d"' +flush +- ' "$T/fl.txt" || die "snoop text: no flush with '-' for its sector: $(grep flush "$T/fl.txt" | head -2)"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .op == "write")] | length' "$T/s.json")" "$((w1 - w0))" \
	"snoop: write records = /proc/diskstats' writes"
assert_eq "$(jq -s '[.[] | select(.type == "top" and .comm == "dd") | .write_bytes] | add' "$T/t.json")" 655360 \
	"top: dd's bytes written = 10 x 64 KiB"
assert_eq "$(jq -s '[.[] | select(.type == "top" and .comm == "dd") | .writes] | add' "$T/t.json")" "$((w1 - w0))" \
	"top: dd's writes = /proc/diskstats' writes"
assert_eq "$(jq -s '[.[] | select(.type == "interval_end") | .map_full] | add' "$T/t.json")" 0 \
	"top: nothing lost for want of a histogram (new keys spilled, then folded in)"
