#!/bin/bash
# The layer rule (ARCHITECTURE.md): a file includes only from its own layer or
# the layers below it, a private header (NAME-internal.h, such as the write
# engine's kernel-shared/engine/engine-internal.h) only from its own folder, and
# library code never ends the process.  Run by
# make test (tests/cli/003-layers.sh); prints each violation and exits 1 when any.
#   tests/tools/layers.sh [OBJDIR]   OBJDIR (default .obj/default) for the symbol check
set -u
cd "$(dirname "$0")/../.."
objdir=${1:-.obj/default}
# Layer of a path: a number; folders on one line are siblings, which may not
# include each other (each stands on the layers below it alone).
layer_of() {
	case $1 in
	crypto/*) echo 0 ;;
	kernel-shared/format/*) echo 1 ;;
	kernel-shared/read/*) echo 2 ;;
	kernel-shared/engine/*) echo 3 ;;
	common/*) echo 4 ;;
	print/*|mkfs/*|balance/*|check/*|image/*) echo 5 ;;
	cmds/*) echo 6 ;;
	btrfs.c) echo 7 ;;
	*) echo "" ;;
	esac
}
bad=0
while IFS= read -r file; do
	from=$(layer_of "$file")
	while IFS= read -r inc; do
		case $inc in
		*-internal.h)
			if [ "$(dirname "$inc")" != "$(dirname "$file")" ]; then
				echo "layer: $file includes $inc (private to $(dirname "$inc")/)"
				bad=1
			fi ;;
		esac
		[ -n "$from" ] || continue
		to=$(layer_of "$inc")
		[ -n "$to" ] || continue
		if [ "$to" -gt "$from" ] || { [ "$to" -eq "$from" ] && [ "$(dirname "$inc")" != "$(dirname "$file")" ]; }; then
			echo "layer: $file includes $inc (a layer above it, or a sibling)"
			bad=1
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(git ls-files '*.c' '*.h' '*.def')

# Below cmds/ nothing may end the process: errors go back as negative errnos.
if [ -d "$objdir" ]; then
	for o in $(find "$objdir" -name '*.o' \( -path "$objdir/crypto/*" -o -path "$objdir/kernel-shared/*" \
			-o -path "$objdir/common/*" -o -path "$objdir/print/*" -o -path "$objdir/mkfs/*" \
			-o -path "$objdir/balance/*" -o -path "$objdir/check/*" -o -path "$objdir/image/*" \) | sort); do
		syms=$(nm "$o" | awk '$1 == "U" && $2 ~ /^(exit|_exit|_Exit|abort|__assert_fail|quick_exit)$/ {print $2}' | tr '\n' ' ')
		if [ -n "$syms" ]; then
			echo "layer: ${o#"$objdir"/} calls $syms(library code returns an error instead)"
			bad=1
		fi
	done
else
	echo "layer: no $objdir to check symbols in (build first)"
	bad=1
fi
# One place writes to devices (kernel-shared/read/dev-write.c, where the write log is):
# no other object calls pwrite, fsync, fdatasync or fallocate.
if [ -d "$objdir" ]; then
	for o in $(find "$objdir" -name '*.o' -not -path "$objdir/tests/*" \
			-not -path "$objdir/kernel-shared/read/dev-write.o" | sort); do
		syms=$(nm "$o" | awk '$1 == "U" && $2 ~ /^(pwrite|pwrite64|pwritev|pwritev2|fsync|fdatasync|fallocate|fallocate64|sync_file_range|syncfs)$/ {print $2}' | tr '\n' ' ')
		if [ -n "$syms" ]; then
			echo "layer: ${o#"$objdir"/} calls $syms(devices are written through kernel-shared/read/dev-write.h)"
			bad=1
		fi
	done
fi
[ $bad -eq 0 ] && echo "layers ok"
exit $bad
