# iodig readahead on reads whose readahead is known, counted against fincore:
# every page of a file dropped from the cache and then read is one readahead
# added (DEMAND, SYNC or ASYNC), so their sum is what fincore sees cached.
# A whole-file sequential read uses every page read ahead; 20 short
# sequential starts 1 MiB apart waste what readahead read beyond them once
# the file is dropped again; FADV_RANDOM turns readahead off (every call
# RANDOM, nothing read ahead) and FADV_SEQUENTIAL doubles the limit.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v fincore >/dev/null || skip "needs fincore (util-linux)"
PAT="$TOP/tests/helpers/rapattern.py"
L=$(loopdev 64); d=${L#/dev/}
echo 128 > "/sys/block/$d/queue/read_ahead_kb"	# a limit of 32 pages
mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 "$L" || die mkfs
mkdir "$T/mnt"; mount "$L" "$T/mnt" || die mount; defer "umount $T/mnt"
head -c 16M /dev/urandom > "$T/mnt/f"; sync
INO=$(stat -c %i "$T/mnt/f")
# run ADVICE: the pattern under iodig readahead --by file; $T/ADVICE.json
# holds the file's row (summed over intervals), $T/ADVICE.out the pattern's
# pid and fincore's pages before it dropped the file
run() {
	rm -f "$T/go.$1"
	/usr/bin/python3 "$PAT" "$T/go.$1" "$T/mnt/f" "$1" > "$T/$1.out" & P=$!
	for i in $(seq 100); do [ -s "$T/$1.out" ] && break; sleep 0.02; done
	start_iodig "$T/$1.all" readahead --by file -n 0 --json 1
	touch "$T/go.$1"; wait $P || die "the $1 pattern failed"
	stop_iodig
	jq -s -c "[.[] | select(.type == \"readahead\" and .ino == $INO)] | {
		calls: (map(.sync_calls) | add), random: (map(.random_reads) | add),
		sync: (map(.sync_pages) | add), async: (map(.async_pages) | add), demand: (map(.demand_pages) | add),
		used: (map(.used) | add), wasted: (map(.wasted) | add), pending: .[-1].pending,
		limit: (map(.ra_max) | max), uses: (map(.to_use.count) | add)}" "$T/$1.all" > "$T/$1.json"
	cached=$(sed -n 2p "$T/$1.out" | tr -d ' ')
}
get() { jq ".$2" "$T/$1.json"; }

run sequential
assert_eq "$(( $(get sequential demand) + $(get sequential sync) + $(get sequential async) ))" "$cached" "sequential: pages added by readahead = fincore's $cached (the whole file: 4096)"
ra=$(( $(get sequential sync) + $(get sequential async) ))
[ "$ra" -gt 3000 ] || die "sequential: only $ra pages read ahead"
assert_eq "$(get sequential used)" "$ra" "sequential: every page read ahead used"
assert_eq "$(get sequential wasted)/$(get sequential pending)" "0/0" "sequential: wasted/pending"
assert_eq "$(get sequential limit)" 64 "FADV_SEQUENTIAL: the limit doubled (32 pages by read_ahead_kb, 64)"
[ "$(get sequential uses)" -gt 0 ] || die "sequential: no time to first use"
ok "sequential: time to first use of $(get sequential uses) folios"

run normal
assert_eq "$(( $(get normal demand) + $(get normal sync) + $(get normal async) ))" "$cached" "short starts: pages added by readahead = fincore's $cached"
ra=$(( $(get normal sync) + $(get normal async) ))
w=$(get normal wasted)
# the helper reads 64 KiB at each of 20 starts 1 MiB apart; 16 of them lie
# inside the 16 MiB file: 16 x 16 = 256 pages asked for.  Every other page
# fincore saw cached was read ahead and never used, so it is wasted when
# the helper drops the file
[ "$ra" -ge 100 ] || die "short starts: only $ra pages read ahead: $(cat "$T/normal.json")"
assert_eq "$w" "$(( cached - 256 ))" "short starts: pages wasted = fincore's $cached cached less the 256 the helper read"
assert_eq "$(( w + $(get normal used) ))" "$ra" "short starts: wasted + used = the $ra pages read ahead"
assert_eq "$(get normal limit)" 32 "the limit of read_ahead_kb 128"

run random
assert_eq "$(get random sync)/$(get random async)" "0/0" "FADV_RANDOM: pages read ahead"
assert_eq "$(get random random)" "$(get random calls)" "FADV_RANDOM: every readahead call a random one"
[ "$(get random calls)" -gt 0 ] || die "FADV_RANDOM: no call seen"
assert_eq "$(get random demand)" "$cached" "FADV_RANDOM: pages read = fincore's $cached (only what was asked)"

"$IODIG" readahead --by inode 2>"$T/e"; assert_eq "$?" 2 "--by inode: a usage error"
