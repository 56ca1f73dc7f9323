# vm_kernel [SERIES]: the directory of the newest Debian cloud kernel of a
# series (6.1 by default; 6.12 too in Debian 12's archive) in apt's lists,
# downloaded once into $VM (build/vm) and unpacked; or a message.
vm_kernel() {
	local pkg re="^linux-image-${1:-6.1}\\.[0-9]+(-[0-9]+|\\+deb12)-cloud-amd64-unsigned\$"
	pkg=$(apt-cache search --names-only "$re" | cut -d' ' -f1 | grep -E "$re" | sort -V | tail -1)
	[ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1; pkg=$(apt-cache search --names-only "$re" | cut -d' ' -f1 | grep -E "$re" | sort -V | tail -1); }
	[ -n "$pkg" ] || { echo "no cloud kernel of ${1:-6.1} (linux-image-${1:-6.1}*-cloud-amd64-unsigned) in apt's lists"; return 1; }
	if [ ! -d "$VM/$pkg" ]; then
		( cd "$VM" && rm -f ./*.deb && apt-get download "$pkg" >/dev/null 2>&1 ) || { echo "apt-get download $pkg"; return 1; }
		dpkg-deb -x "$VM"/"$pkg"_*.deb "$VM/$pkg" || { echo "dpkg-deb -x"; return 1; }
		rm -f "$VM"/*.deb
	fi
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
