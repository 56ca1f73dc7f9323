# A request that fails carries its status by name: a loop device on a full
# tmpfs fails writes with BLK_STS_NOSPC; snoop says "nospc" in JSON and text,
# for as many requests as failed, and the rest are "ok".
. "$(dirname "$0")/../lib.sh"
need_root_bpf
mkdir "$T/small"
mount -t tmpfs -o size=1M tmpfs "$T/small" || die "mount tmpfs"
defer "umount $T/small"
truncate -s 16M "$T/small/img"
L=$(losetup -f --show "$T/small/img") || die losetup
defer "losetup -d $L"
n=${L#/dev/}
start_iodig "$T/s.json" snoop -d "$n" --json
start_iodig "$T/s.txt" snoop -d "$n"
# 4 MiB of direct writes into 1 MiB of room: the first ones fit, then NOSPC
dd if=/dev/zero of="$L" bs=64k count=64 oflag=direct 2>/dev/null && die "dd did not fail"
sleep 0.3
stop_all_iodig
bad=$(jq -s '[.[] | select(.type == "request" and .status == "nospc")] | length' "$T/s.json")
[ "$bad" -ge 1 ] || die "no request failed with nospc: $(grep request "$T/s.json" | head -3)"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .status == "nospc" and .error != 3)] | length' "$T/s.json")" 0 "nospc records whose number is not 3"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .status != "ok" and .status != "nospc")] | length' "$T/s.json")" 0 "records with another status"
assert_eq "$(grep -c ' error=nospc$' "$T/s.txt")" "$bad" "text lines saying error=nospc"
assert_eq "$(jq -s '[.[] | select(.type == "request" and .status == "ok")] | length' "$T/s.json")" "$(grep '^[0-9]' "$T/s.txt" | grep -vc ' error=')" "requests that succeeded, JSON and text"
