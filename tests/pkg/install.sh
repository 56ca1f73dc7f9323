# make install into a DESTDIR: every command's -h and probe from there; the
# man pages and the completion made from the same tables as -h, checked
# against it option by option; groff -man -ww reports nothing; bash's
# compgen completes commands, options, disks, pids, cgroups and picked
# values; the units pass systemd-analyze verify; uninstall leaves no file.
. "$(dirname "$0")/../lib.sh"
for c in groff systemd-analyze zsh; do command -v $c >/dev/null || skip "needs $c (make test-deps)"; done
[ -x "$IODIG" ] || die "no $IODIG: run make first"
D=$T/root
make -s -C "$TOP" install DESTDIR="$D" PREFIX=/usr >"$T/make.out" 2>&1 || die "make install: $(tail -5 "$T/make.out")"
I=$D/usr/sbin/iodig
[ -x "$I" ] || die "no $I"
man8=$D/usr/share/man/man8
cmds=$("$I" help --commands)
[ "$(echo $cmds | wc -w)" -ge 19 ] || die "help --commands: $cmds"

# options as -h lists them, as a page lists them, as completion offers them
h_opts() { "$I" "$1" -h | sed -n 's/^  \(-., \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p; s/^      --\([a-z][a-z-]*\).*/\1/p' | sort -u; }
m_opts() { sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$man8/iodig-$1.8" | grep -o '\\fB\\-\\-[a-z\\-]*\\fR' | sed 's/\\fB//; s/\\fR//; s/\\-/-/g; s/^--//' | sort -u; }
. "$D/usr/share/bash-completion/completions/iodig"
complete_line() {	# WORDS...: what bash offers for the last word
	COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMPREPLY=()
	_iodig
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}
for c in $cmds; do
	"$I" "$c" -h > "$T/h" || die "$c -h from $D exited $?"
	[ -s "$T/h" ] || die "$c -h printed nothing"
	h=$(h_opts "$c"); m=$(m_opts "$c")
	[ -n "$h" ] && [ "$h" = "$m" ] || die "$c: -h and iodig-$c(8) list different options: $(diff <(echo "$h") <(echo "$m") | tr '\n' ' ')"
	b=$(complete_line iodig "$c" -- | sed -n 's/^--//p')
	[ "$h" = "$b" ] || die "$c: bash completion offers other options than -h: $(diff <(echo "$h") <(echo "$b") | tr '\n' ' ')"
	w=$(groff -man -ww -z "$man8/iodig-$c.8" 2>&1)
	[ -z "$w" ] || die "groff warns on iodig-$c.8: $w"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -q "^\.SH $s\$" "$man8/iodig-$c.8" || die "iodig-$c.8 has no $s"
	done
done
ok "$(echo $cmds | wc -w) commands: -h from the installed binary, each option in -h, the man page and bash completion alike, groff -man -ww silent, each page with EXAMPLES and EXIT STATUS"
w=$(groff -man -ww -z "$man8/iodig.8" 2>&1); [ -z "$w" ] || die "groff warns on iodig.8: $w"
MANPATH=$D/usr/share/man man iodig-slow 2>/dev/null | grep -q "^ *iodig-slow - block requests slower" || die "man iodig-slow does not show the page"
ok "man iodig-slow shows the page (MANPATH into DESTDIR)"
# the examples are the README's own lines
grep -q '^# iodig lat \\-D \\-F \\-d loop0 3 1$' "$man8/iodig-lat.8" || die "iodig-lat.8's EXAMPLES are not the README's"

# completion beyond options
assert_eq "$(complete_line iodig sl)" "slow" "bash: iodig sl<TAB>"
L=$(loopdev 8); d=${L#/dev/}
complete_line iodig lat -d "${d%?}" | grep -qx "$d" || die "bash: lat -d ${d%?}<TAB> does not offer $d"
complete_line iodig slow -p "$$" | grep -qx "$$" || die "bash: slow -p $$<TAB> does not offer the pid"
assert_eq "$(complete_line iodig top --by '' | tr '\n' ' ')" "cgroup disk process " "bash: top --by <TAB>"
cg=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$cg" ] || die "no cgroup2 mount"
mkdir "$cg/iodig-compl-$$" && defer "rmdir $cg/iodig-compl-$$"
complete_line iodig why -c "$cg/iodig-co" | grep -qx "$cg/iodig-compl-$$" || die "bash: why -c $cg/iodig-co<TAB> offers no cgroup"
complete_line iodig why --comm "$(cut -c1-3 /proc/$$/comm)" | grep -qx "$(cat /proc/$$/comm)" || die "bash: --comm offers no running name"
assert_eq "$(complete_line iodig help --completion '' | tr '\n' ' ')" "bash zsh " "bash: help --completion <TAB>"
assert_eq "$(complete_line iodig help --man s | tr '\n' ' ')" "schema size slow snoop stacks sysfs " "bash: help --man s<TAB>"
zsh -n "$D/usr/share/zsh/vendor-completions/_iodig" || die "zsh cannot parse _iodig"
ok "completion: commands, disks from /sys/class/block, pids, --by's values, cgroup directories, running names; _iodig parses in zsh"

# probe and version from there
"$I" probe > "$T/probe" || die "probe from $D exited $?"
grep -q "lat" "$T/probe" || die "probe printed: $(head -3 "$T/probe")"
"$I" version > "$T/v" || die version
want=$(git -C "$TOP" describe --always --dirty 2>/dev/null | tr - .)
head -1 "$T/v" | grep -qx "iodig 0\.1\.0+g$want" || die "version says '$(head -1 "$T/v")', git describe '$want'"
grep -q "^libbpf [0-9]*\.[0-9]* " "$T/v" || die "version: no libbpf line"
ok "probe and version from the installed binary ($(head -1 "$T/v"))"

# the units: systemd-analyze verify, with the installed binary and pages
mkdir -p "$T/units"
for u in iodig-export iodig-record; do
	sed "s|^ExecStart=/usr/sbin/iodig|ExecStart=$I|" "$D/usr/lib/systemd/system/$u.service" > "$T/units/$u.service"
	grep -q "^ExecStart=$I " "$T/units/$u.service" || die "$u.service does not start /usr/sbin/iodig"
done
(cd "$T/units" && MANPATH=$D/usr/share/man systemd-analyze verify iodig-export.service iodig-record.service) > "$T/verify" 2>&1 \
	|| die "systemd-analyze verify: $(cat "$T/verify")"
[ -s "$T/verify" ] && die "systemd-analyze verify said: $(cat "$T/verify")"
ok "systemd-analyze verify passes both units"

make -s -C "$TOP" uninstall DESTDIR="$D" PREFIX=/usr >/dev/null 2>&1 || die "make uninstall"
left=$(find "$D" ! -type d)
[ -z "$left" ] || die "uninstall left: $left"
ok "make uninstall leaves no file"
