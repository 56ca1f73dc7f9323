#!/bin/bash
# The unit tests and the readers of recordings (replay, --perfetto, report,
# schema) under AddressSanitizer and UBSan (make asan): good recordings read
# with exit 0, damaged ones (cut anywhere, bits flipped, frame sizes absurd)
# refused with exit 1, and no sanitizer report in any (their exit code 99).
set -u
cd "$(dirname "$0")/.."
B=build-asan
if [ ! -x "$B/iodig-asan" ]; then
	echo "SKIP: $B/iodig-asan not built (make asan)"
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
export ASAN_OPTIONS=exitcode=99:detect_leaks=1 UBSAN_OPTIONS=exitcode=99:halt_on_error=1:print_stacktrace=1
T=$(mktemp -d /tmp/iodig-asan.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for t in "$B"/tests/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] || continue
	"$t" > "$T/out" 2>&1 || bad "$(basename "$t") under the sanitizers: $(tail -20 "$T/out")"
done
echo "  ok: unit tests under ASan and UBSan"
"$B/iodig-asan" schema --check tests/schema > "$T/out" 2>&1 || bad "schema --check: $(tail -20 "$T/out")"
# read FILE WANT: every reader of FILE exits WANT, none with a sanitizer's 99
read_all() {
	local f=$1 want=$2 rc
	for cmd in "replay" "replay --json" "replay --perfetto $T/p.json" "report -o $T/r.html"; do
		# shellcheck disable=SC2086
		"$B/iodig-asan" $cmd "$f" > "$T/out" 2>&1; rc=$?
		[ "$rc" = "$want" ] || { bad "$cmd $(basename "$f"): exit $rc, want $want: $(tail -5 "$T/out")"; return; }
	done
}
n=0
for f in tests/data/recordings/*.rec; do
	read_all "$f" 0
	python3 - "$f" "$T/bad" <<'PY'
import random, struct, sys
data = open(sys.argv[1], "rb").read()
rnd = random.Random(sys.argv[1])
out = []
for k in (1, 5, 12, 16, 20, len(data) // 3, len(data) // 2, len(data) - 1):   # cut anywhere
    out.append(data[:k])
for _ in range(40):                                                  # bits flipped
    b = bytearray(data)
    for _ in range(rnd.randrange(1, 6)):
        i = rnd.randrange(len(b))
        b[i] ^= 1 << rnd.randrange(8)
    out.append(bytes(b))
for size in (0xffffffff, 0x7fffffff, 1 << 20 | 1):                   # a frame size absurd
    b = bytearray(data)
    struct.pack_into("<I", b, 12 + 4, size)
    out.append(bytes(b))
for i, d in enumerate(out):
    open("%s.%d.rec" % (sys.argv[2], i), "wb").write(d)
PY
	for g in "$T"/bad.*.rec; do
		read_all "$g" 1
		n=$((n + 1))
		rm -f "$g"
	done
done
[ "$n" -gt 0 ] || bad "no damaged recording was made"
# what tests/fuzz-recordings.sh once found crashing: read without a crash now
for f in tests/data/crashers/*.rec; do
	[ -e "$f" ] || continue
	for cmd in "replay" "replay --json" "replay --perfetto $T/p.json" "report -o $T/r.html"; do
		# shellcheck disable=SC2086
		"$B/iodig-asan" $cmd "$f" > "$T/out" 2>&1; rc=$?
		[ "$rc" -le 1 ] || bad "$cmd $(basename "$f") (a crasher kept): exit $rc: $(tail -5 "$T/out")"
	done
done
[ "$fail" = 0 ] && echo "  ok: recordings read under ASan and UBSan: the good ones, and $n damaged copies refused by every reader"
exit "$fail"
