# vmlinux BTF cut to what iodig's BPF objects use (src/lib/btfslim.c)
# against the whole (IODIG_VMLINUX_BTF=full), in every command that cuts it:
# libbpf resolves every CO-RE relocation to the same target type ID, access
# and offset, and patches the same instructions the same way (its own log,
# -v); tp_btf programs attach by the same IDs (they load and attach in both);
# set-up reads the same enumerators and request flags (-v says each: the cut
# keeps only the enums it names, scripts/btf-roots).
# And what it is for: lat's peak RSS lower with the cut.
. "$(dirname "$0")/../lib.sh"
need_root_bpf
A=$(loopdev 64); a=${A#/dev/}
relos() { grep -E "relo #[0-9]+: (matching candidate|patched)" "$1" | sed 's/^iodig [a-z]*: //'; }
setup() { grep -E "^iodig [a-z]*: (enumerator |request ops and flags from BTF: )" "$1"; }
for c in "lat -d $a" "lat --phases" "snoop -d $a" "slow 10" "top -b 1" "export --listen 127.0.0.1:$(free_port)" \
	 "record -o $T/rec" "iostat 1" "size" "layers 1" "sysfs"; do
	for m in slim full; do
		export IODIG_VMLINUX_BTF=$m
		start_iodig "$T/$m.out" $c -v
		awk '/^VmHWM/ {print $2}' /proc/$IODIG_PID/status > "$T/$m.hwm"
		stop_iodig
		relos "$T/$m.out.err" > "$T/$m.relos"
		setup "$T/$m.out.err" > "$T/$m.setup"
	done
	unset IODIG_VMLINUX_BTF
	n=$(grep -c . "$T/slim.relos")
	[ "$n" -gt 0 ] || die "$c: no CO-RE relocation in libbpf's log (-v)"
	cmp -s "$T/slim.relos" "$T/full.relos" || die "$c: relocations differ, cut against whole: $(diff "$T/slim.relos" "$T/full.relos" | head -6)"
	cmp -s "$T/slim.setup" "$T/full.setup" || die "$c: set-up read other enumerators or flags, cut against whole: $(diff "$T/slim.setup" "$T/full.setup" | head -6)"
	line=$(grep -m1 'vmlinux BTF (' "$T/slim.out.err") || die "$c: the cut was not made (-v says: $(grep -m1 'vmlinux BTF' "$T/slim.out.err"))"
	grep -q 'vmlinux BTF (' "$T/full.out.err" && die "$c: cut with IODIG_VMLINUX_BTF=full"
	ok "$c: $n relocation lines, the same cut and whole ($(grep -c 'patched insn' "$T/slim.relos") instructions patched), and $(grep -c . "$T/slim.setup") set-up lookups"
	case "$c" in lat\ -d*) lat_hwm="$(cat "$T/slim.hwm") $(cat "$T/full.hwm")"; lat_line=$line ;; esac
done
ok "${lat_line#iodig lat: }"
# sysfs maps it since 6.16: then nothing of the file is in our RSS
v=$(uname -r | awk -F. '{print $1 * 1000 + $2}')
if [ "$v" -ge 6016 ]; then
	case "$lat_line" in *"(mapped,"*) ;; *) die "kernel $(uname -r): vmlinux BTF not mapped: $lat_line" ;; esac
fi
set -- $lat_hwm
[ "$1" -lt $(($2 - 512)) ] || die "lat's peak RSS: $1 kB cut, $2 kB whole (want 512 kB less at least)"
[ "$1" -le 8192 ] || die "lat's peak RSS: $1 kB, over issue #23's 8 MB"
ok "lat's peak RSS: $1 kB with the cut, $2 kB with the whole"
