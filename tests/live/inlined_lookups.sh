# The map lookups of the programs that run for every request (and why's
# for every call) are inlined by the verifier, as the engines' costs
# assume (docs/PERFORMANCE.md): a lookup on an array the program names
# becomes a few instructions, where one on a map picked at run time stays
# a helper call (bpf_map_lookup_elem, through the map's ops).  The compiler
# made one such call of the rows' two epochs (hist.bpf.h, HIST_ROW_AT),
# unseen until perf and `bpftool prog dump xlated` showed it: 30-40 ns a
# request.  Here the loaded programs of the request engine's commands, lat
# and why, as the kernel runs them: every call of the generic lookup must
# come from a line allowed to make one (a key's value just made).
. "$(dirname "$0")/../lib.sh"
need_root_bpf
command -v bpftool >/dev/null || die "needs bpftool"
A=$(loopdev 64); a=${A#/dev/}
# the source lines (bpftool's linum) that may call it: hist_get()'s second
# lookup, of the key it has just made (a new disk's or process's first)
allowed='^; return bpf_map_lookup_elem\(map, key\); \[file:[^]]*/hist\.bpf\.h '
checked=0
for cmd in "lat -D" "lat --phases" "top -b 1" "snoop" "slow 10" "export --listen 127.0.0.1:$(free_port)" "why"; do
	case $cmd in why) start_iodig "$T/out" $cmd ;; *) start_iodig "$T/out" $cmd -d "$a" ;; esac
	ids=$(own_ids "$IODIG_PID" prog_id)
	[ -n "$ids" ] || die "$cmd: no programs of its own"
	for id in ${ids//,/ }; do
		name=$(bpftool prog show id "$id" -j | jq -r .name)
		case $name in lat_*|life_*|why_*) ;; *) continue ;; esac
		bpftool prog dump xlated id "$id" linum > "$T/x" || die "$cmd: dump of $name"
		bad=$(allowed=$allowed awk '/^;/ { src = $0 } /call bpf_map_lookup_elem#/ && src !~ ENVIRON["allowed"] { print src }' "$T/x")
		[ -z "$bad" ] || die "$cmd: $name calls bpf_map_lookup_elem (not inlined) at: $bad"
		checked=$((checked + 1))
	done
	stop_iodig
done
[ "$checked" -ge 12 ] || die "only $checked programs checked"
ok "$checked per-request (and why's per-call) programs of 7 commands: no lookup left a helper call but hist_get()'s of a key just made"
