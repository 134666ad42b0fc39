#!/bin/bash
# The main job on sparse image files in a scratch folder, one step per command of the toolsuite:
# mkfs --rootdir on four devices, dump-super, dump-tree, check, image dump and restore, offline
# convert, and (where built) an authenticated filesystem checked with a key from a session
# keyring. Each step says in one line what it shows. The whole demo takes well under a minute.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
btrfs=$top/btrfs
mkfs=$top/mkfs.btrfs
dir=${DEMO_DIR:-$top/tests/.scratch/demo}
rm -rf "$dir"; mkdir -p "$dir"
devs=("$dir"/dev{1,2,3,4}.img)
step() { printf '\n== %s\n   $ %s\n' "$1" "$2"; }
run() { "$@" || { echo "demo: '$*' failed (exit $?)" >&2; exit 1; }; }

echo "== scratch folder: $dir ($("$btrfs" --version))"
for d in "${devs[@]}"; do truncate -s 1G "$d"; done

# A small generated tree: directories, empty and small files, a larger file, a symlink.
src=$dir/source
mkdir -p "$src"
for d in 1 2 3 4 5; do
	mkdir -p "$src/dir$d/sub"
	for f in $(seq 1 40); do printf 'file %s of dir %s\n' "$f" "$d" > "$src/dir$d/file$f.txt"; done
	: > "$src/dir$d/sub/empty"
done
head -c 8M /dev/urandom > "$src/random.bin"
ln -s dir1/file1.txt "$src/link"

step "mkfs: a filesystem on four sparse images, data raid1c3, metadata raid1c4, filled from a folder" \
	"mkfs.btrfs -d raid1c3 -m raid1c4 --rootdir source dev1..4.img"
run "$mkfs" -q -f -d raid1c3 -m raid1c4 --rootdir "$src" "${devs[@]}"
ls -ls "${devs[@]}" | awk '{ printf "   %s: %d KiB allocated of 1 GiB\n", $NF, $1 }'

step "dump-super: the superblock as btrfs-progs prints it (first lines)" \
	"btrfs inspect-internal dump-super dev1.img"
run "$btrfs" inspect-internal dump-super "${devs[0]}" > "$dir/super.txt"
sed -n '1,12p' "$dir/super.txt"

step "dump-tree: the chunk tree, every chunk with its profile and stripes (excerpt)" \
	"btrfs inspect-internal dump-tree -t chunk dev1..4.img"
run "$btrfs" inspect-internal dump-tree -t chunk "${devs[@]}" > "$dir/chunk.txt"
grep -E '^[[:space:]]+length' "$dir/chunk.txt"

step "check: every tree and every data checksum verified" \
	"btrfs check --check-data-csum dev1..4.img"
run "$btrfs" check --check-data-csum "${devs[@]}" > "$dir/check.txt" 2>&1
grep -E '^\[|found' "$dir/check.txt"

step "image: dump the metadata (zlib level 9), restore it onto four new files, check the restore" \
	"btrfs image -c9 dev1.img meta.dump && btrfs image -m meta.dump r1..4.img"
# Image files are not found by a device scan: the dump reads the metadata from dev1.img alone
# (raid1c4 keeps a copy on every device) and says the others are missing.
run "$btrfs" image -c9 "${devs[0]}" "$dir/meta.dump" 2> "$dir/dump.err"
run "$btrfs" image -m "$dir/meta.dump" "$dir"/r{1,2,3,4}.img
echo "   dump: $(stat -c %s "$dir/meta.dump") bytes; restored: $(du -ck "$dir"/r?.img | tail -n 1 | cut -f1) KiB allocated"
"$btrfs" check "$dir"/r{1,2,3,4}.img > "$dir/check-restored.txt" 2>&1 || { cat "$dir/check-restored.txt"; exit 1; }
grep found "$dir/check-restored.txt"

step "offline convert: data raid1c3 -> raid10 on the unmounted devices, then verify every data checksum" \
	"btrfs balance start -dconvert=raid10 dev1..4.img"
run "$btrfs" balance start -dconvert=raid10 "${devs[@]}" 2>&1 | tail -n 2
run "$btrfs" inspect-internal dump-tree -t chunk "${devs[@]}" | grep -o 'type DATA|[A-Z0-9]*' | sort | uniq -c
run "$btrfs" check --check-data-csum "${devs[@]}" > "$dir/check-converted.txt" 2>&1
echo "   check --check-data-csum after the convert: $(grep found "$dir/check-converted.txt")"

if "$mkfs" --help 2>&1 | grep -q 'auth-sha256' && command -v keyctl > /dev/null; then
	step "authenticated checksums: HMAC-SHA256 with a key from a session keyring; a wrong key is told apart from damage" \
		"keyctl session - ... mkfs.btrfs --csum auth-sha256 --auth-key demo-key; btrfs --auth-key demo-key check"
	auth=$dir/auth.img
	truncate -s 512M "$auth"
	keyctl session - bash -c '
		set -e
		keyctl add user demo-key "demo secret" @s > /dev/null
		"$1" -q -f --csum auth-sha256 --auth-key demo-key --rootdir "$3" "$4" 2>/dev/null
		"$2" --auth-key demo-key check --check-data-csum "$4" > "$4.out" 2>&1
		echo "   with the key: $(grep found "$4.out")"
		keyctl add user other-key "not the secret" @s > /dev/null
		rc=0; "$2" --auth-key other-key check "$4" > "$4.out" 2>&1 || rc=$?
		[ $rc -eq 4 ] || { echo "wrong key: exit $rc, expected 4"; exit 1; }
		echo "   with another key: $(grep -m1 -i key "$4.out") (exit 4)"
	' demo "$mkfs" "$btrfs" "$src/dir1" "$auth" || exit 1
fi
echo
echo "== done"
