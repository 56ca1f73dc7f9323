# A task named with an escape sequence, a newline and bytes that are not
# UTF-8: text output shows them escaped (nothing reaches the terminal raw,
# no line is forged), JSON stays valid and keeps every byte.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
L=$(loopdev 32); n=${L#/dev/}
attr=/sys/block/$n/queue/read_ahead_kb
start_iodig "$T/s.txt" snoop -d "$n"
start_iodig "$T/s.json" snoop -d "$n" --json
start_iodig "$T/w.txt" sysfs -d "$n"
start_iodig "$T/w.json" sysfs -d "$n" --json
start_iodig "$T/y.txt" why 0 --syscalls openat,pwrite64
start_iodig "$T/y.json" why 0 --syscalls openat,pwrite64 --json
mkdir "$T/d"
python3 "$(dirname "$0")/../helpers/hostile.py" "$L" "$attr" "$T/d" || die "hostile.py"
sleep 0.3
stop_all_iodig
for f in s.txt w.txt y.txt; do
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f-\xff]' "$T/$f" && die "$f has raw control or non-ASCII bytes: $(cat -v "$T/$f")"
done
ok "text output: no raw control bytes, no raw bytes past ASCII"
want='\x1b[2J\x0a\xff\xc2\x9bx'
[ "$(grep -cF "$want" "$T/s.txt")" = 1 ] || die "snoop text: want one line with $want: $(cat "$T/s.txt")"
ok "snoop text names the reader as $want, on one line"
grep -F "$want" "$T/w.txt" | grep -qF '= "12\x1b]0;pwned\x07"' || die "sysfs text: $(cat "$T/w.txt")"
ok "sysfs text: writer and value escaped"
jq -e . "$T/s.json" "$T/w.json" >/dev/null || die "JSON does not parse"
# jq decodes the escapes: the bytes come back (0xff as U+00FF, C1 as U+009B)
assert_eq "$(jq -r -s '[.[] | select(.type == "request") | .comm] | unique[]' "$T/s.json" | od -An -c | tr -s ' ')" \
	"$(printf '\033[2J\n\303\277\302\233x\n' | od -An -c | tr -s ' ')" "snoop JSON comm, decoded"
assert_eq "$(jq -r -s '.[0].value' "$T/w.json" | od -An -c | tr -s ' ')" \
	"$(printf '12\033]0;pwned\a\n' | od -An -c | tr -s ' ')" "sysfs JSON value, decoded"
# why: the call's process name and its file's path (from the open's argument
# and from /proc/PID/fd) escaped in text, every byte kept in JSON
path="$T/d/f"'\x1b[31m\x0aevil\xff'
for sc in openat pwrite64; do
	grep -F "$want" "$T/y.txt" | grep -qF "] $sc($path" || die "why text: no $sc line of $want on $path: $(grep -F "$want" "$T/y.txt" | head -5)"
done
ok "why text: the caller and the file escaped, for the open and the write"
for sc in openat pwrite64; do
	assert_eq "$(jq -r -s '[.[] | select(.type == "call" and .syscall == "'$sc'" and (.comm | startswith("\u001b[2J")) and (.file | contains("/d/f")))][0] | .comm + "|" + .file' "$T/y.json" | od -An -c | tr -s ' ')" \
		"$(printf '\033[2J\n\303\277\302\233x|%s/d/f\033[31m\nevil\303\277\n' "$T" | od -An -c | tr -s ' ')" "why JSON $sc: comm and file, decoded"
done
