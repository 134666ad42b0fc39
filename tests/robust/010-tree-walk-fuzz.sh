#!/bin/bash
# Hostile images (fuzz-images, fsck-images): opening and walking every tree
# must end by itself (no hang: 60 s each) and never crash (exit >= 128 or a
# sanitizer report); refusing the image with an error is fine.
. "$TOP/tests/lib/common.sh"
tool=$TOOL_DIR/tree-walk
[ -x "$tool" ] || _fail "no $tool (make unit-bins)"
[ -d "$SHARED/fuzz-images" ] || _skip "no ../shared/fuzz-images"
run_img() { # image
	local rc
	timeout 60 "$tool" --noscan "$1" > "$T/out" 2> "$T/err"; rc=$?
	[ $rc -ne 124 ] || _fail "tree-walk hangs on $1"
	[ $rc -lt 128 ] || { tail -20 "$T/err" >&2; _fail "tree-walk crashed (exit $rc) on $1"; }
	! grep -qE 'runtime error|Sanitizer' "$T/err" || { tail -20 "$T/err" >&2; _fail "sanitizer report on $1"; }
	echo "exit $rc $(basename "$1")"
}
for x in "$SHARED"/fuzz-images/*.xz; do
	img=$T/$(basename "$x" .xz)
	xz -dc "$x" | dd of="$img" bs=64k conv=sparse status=none || _fail "cannot decompress $x"
	run_img "$img"
	rm -f "$img"
done
for d in "$SHARED"/fsck-images/*/; do
	[ -f "$d/restored.raw.tar.xz" ] || continue
	mkdir -p "$T/fsck"
	tar -xSJf "$d/restored.raw.tar.xz" -C "$T/fsck" || _fail "cannot extract $d"
	for img in "$T"/fsck/*; do run_img "$img"; done
	rm -rf "$T/fsck"
done
