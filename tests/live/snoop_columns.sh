# Text columns hold for every disk present: a 600 TiB (sparse) loop device
# has 13-digit sectors, and every line of snoop and slow still lines up
# under its header.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
f=$(mktemp /dev/shm/iodig-huge.XXXXXX)
truncate -s 600T "$f"
L=$(losetup -f --show "$f") || die losetup
defer "losetup -d $L; rm -f $f"
n=${L#/dev/}
start_iodig "$T/s.txt" snoop -d "$n"
start_iodig "$T/w.txt" slow 0 -d "$n"
for skip in 0 $(( 600 * 1024 * 1024 * 256 - 8 )); do	# 4 KiB blocks: first and last
	dd if="$L" of=/dev/null bs=4k count=1 skip=$skip iflag=direct status=none || die dd
done
sleep 0.3
stop_all_iodig
for f in s.txt w.txt; do
	# header columns 1-7 and 13 are left-aligned (a field starts where its
	# header does), 8-12 right-aligned (it ends where its header does)
	awk 'function edges(s, st, en,   i, k) { k = 0; for (i = 1; i <= length(s); i++) { if (substr(s, i, 1) != " " && (i == 1 || substr(s, i - 1, 1) == " ")) st[++k] = i; if (substr(s, i, 1) != " " && (i == length(s) || substr(s, i + 1, 1) == " ")) en[k] = i } return k }
	     NR == 1 { nc = edges($0, hs, he); next }
	     /^[0-9]/ { lines++; k = edges($0, ds, de)
		if (k != nc) { print "line " NR ": " k " fields, header has " nc; bad++ }
		for (c = 1; c <= nc; c++) if ((c >= 8 && c <= 12) ? de[c] != he[c] : ds[c] != hs[c]) { print "line " NR " column " c ": " $0; bad++; break } }
	     END { if (lines != 2) { print lines " request lines, want 2"; bad++ } exit bad > 0 }' "$T/$f" ||
		die "$f does not line up: $(cat "$T/$f")"
	grep -q "  *1288490188[0-9]* " "$T/$f" || die "$f: no 13-digit sector: $(cat "$T/$f")"
done
ok "snoop and slow: 13-digit sectors line up under the header"
