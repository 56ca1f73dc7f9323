# vm_kernel [SERIES]: the directory of the newest Debian cloud kernel of a
# series (6.1 by default; 6.12 too in Debian 12's archive; 5.10 from Debian
# 11's) in apt's lists, downloaded once into $VM (build/vm) and unpacked; or
# a message.  Debian 11 (bullseye) has its own sources list, lists and cache
# under $VM/apt-bullseye, passed to apt on the command line: the system's
# sources are never touched.  Newest first, the first that downloads (the
# mirror here lists bullseye-security's newest kernels but serves only some).
vm_apt() {
	if [ "$1" = 5.10 ]; then
		local d=$VM/apt-bullseye
		shift
		if [ ! -f "$d/sources.list" ]; then
			mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
			printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/%s main\n' \
				"debian bullseye" "debian-security bullseye-security" > "$d/sources.list"
		fi
		"$@" -o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
			-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
			-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
	else
		shift
		"$@"
	fi
}
# vm_fetch SERIES PACKAGE: the package unpacked in $VM/PACKAGE, downloaded
# if it is not yet (called under $VM/.apt-lock: tests/run boots two VMs at
# once, and both may want a kernel)
vm_fetch() {
	local rc
	[ -d "$VM/$2" ] && return 0
	rm -rf "$VM/dl" "$VM/$2.new"; mkdir -p "$VM/dl"
	( cd "$VM/dl" && vm_apt "$1" apt-get download "$2" >/dev/null 2>&1 ) \
		&& dpkg-deb -x "$VM/dl/$2"_*.deb "$VM/$2.new" && mv "$VM/$2.new" "$VM/$2"
	rc=$?
	rm -rf "$VM/dl" "$VM/$2.new"
	return $rc
}
vm_kernel() {
	local series=${1:-6.1} pkg= p re
	re="^linux-image-${series}\\.[0-9]+(-[0-9]+|\\+deb1[12])-cloud-amd64-unsigned\$"
	list() { vm_apt "$series" apt-cache search --names-only "$re" | cut -d' ' -f1 | grep -E "$re" | sort -V | tac; }
	[ -n "$(list)" ] || ( flock 9; vm_apt "$series" apt-get update -qq >/dev/null 2>&1 ) 9>"$VM/.apt-lock"
	[ -n "$(list)" ] || { echo "no cloud kernel of $series (linux-image-$series*-cloud-amd64-unsigned) in apt's lists"; return 1; }
	for p in $(list); do
		if ( flock 9; vm_fetch "$series" "$p" ) 9>"$VM/.apt-lock"; then pkg=$p; break; fi
	done
	[ -n "$pkg" ] || { echo "apt-get download: none of $(list | tr '\n' ' ')downloads"; return 1; }
	echo "$VM/$pkg"
}

# vm_module KERNEL_DIR PATH DEST: a module (kernel/PATH without .ko), as a
# plain .ko in DEST (6.12's are xz-compressed; busybox insmod takes plain)
vm_module() {
	local base
	base=$(ls -d "$1"/lib/modules/*/kernel)/$2
	if [ -f "$base.ko" ]; then cp "$base.ko" "$3/"
	elif [ -f "$base.ko.xz" ]; then xz -dc "$base.ko.xz" > "$3/$(basename "$2").ko"
	else return 1; fi
}
