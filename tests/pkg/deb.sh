# make deb: the package lintian finds no error or warning in (its two
# overrides, a static binary, say why), holding the binary, a page per
# command, completion, units, dashboard and copyright; unpacked into a
# throwaway root, its iodig runs probe and says its version.  (The package
# installed with dpkg and its services started by systemd: tests/vm/systemd.)
. "$(dirname "$0")/../lib.sh"
for c in lintian dpkg-deb; do command -v $c >/dev/null || skip "needs $c (make test-deps)"; done
make -s -C "$TOP" deb > "$T/make.out" 2>&1 || die "make deb: $(tail -5 "$T/make.out")"
want=$(git -C "$TOP" describe --always --dirty 2>/dev/null | tr - .)
deb=$TOP/build/iodig_0.1.0+g${want}_amd64.deb
[ -s "$deb" ] || die "no $deb: $(ls "$TOP"/build/*.deb)"
lintian --tag-display-limit 0 "$deb" > "$T/lintian" 2>&1
grep -E "^[EW]: " "$T/lintian" && die "lintian: $(grep -E '^[EW]: ' "$T/lintian" | head -5)"
ok "lintian: no error, no warning ($(grep -c '^[IN]: ' "$T/lintian") notes)"
dpkg-deb --contents "$deb" | awk '{ print $6 }' | sed 's|^\./||' > "$T/files"
for f in usr/sbin/iodig usr/share/man/man8/iodig.8.gz usr/share/man/man8/iodig-slow.8.gz \
	 usr/share/bash-completion/completions/iodig usr/share/zsh/vendor-completions/_iodig \
	 usr/lib/systemd/system/iodig-export.service usr/lib/systemd/system/iodig-record.service \
	 usr/share/iodig/grafana/iodig.json usr/share/doc/iodig/copyright usr/share/doc/iodig/changelog.gz; do
	grep -qx "$f" "$T/files" || die "the package has no $f"
done
assert_eq "$(grep -c '^usr/share/man/man8/iodig-.*\.8\.gz$' "$T/files")" "$("$IODIG" help --commands | wc -l)" "pages in the package, one per command"
dpkg-deb -x "$deb" "$T/root" || die "dpkg-deb -x"
"$T/root/usr/sbin/iodig" probe > "$T/probe" 2>&1 || die "probe from the package: $(tail -3 "$T/probe")"
"$T/root/usr/sbin/iodig" version | head -1 | grep -qx "iodig 0\.1\.0+g$want" || die "version from the package: $("$T/root/usr/sbin/iodig" version | head -1)"
grep -q "ExecStart=/usr/sbin/iodig export --listen 127.0.0.1:9436$" "$T/root/usr/lib/systemd/system/iodig-export.service" \
	|| die "iodig-export.service does not start /usr/sbin/iodig on loopback"
ok "unpacked: probe runs, version $(git -C "$TOP" describe --always --dirty), the exporter's unit on loopback"
