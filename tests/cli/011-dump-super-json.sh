#!/bin/bash
# dump-super --format json: one valid JSON document whose values agree with
# the text output (every corpus layout: csum types, multi-device, raid).
. "$TOP/tests/lib/common.sh"
check_prereq corpus python3

check_case() { # case
	local dir devs
	dir=$(corpus_case "$1")
	devs=$(cd "$dir" && ls dev*.img | sort -V)
	(cd "$dir" && "$BTRFS" --format json inspect-internal dump-super -f -a $devs) > "$T/json" ||
		_fail "$1: json exit $?"
	(cd "$dir" && "$BTRFS" inspect-internal dump-super -f -a $devs) > "$T/text" ||
		_fail "$1: text exit $?"
	python3 - "$T/json" "$T/text" "$1" <<'PY' || _fail "$1: JSON and text disagree"
import json, sys, re
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
blocks = [b for b in text.split("superblock: bytenr=")[1:]]
sbs = doc["superblocks"]
assert len(sbs) == len(blocks), (len(sbs), len(blocks))
for sb, blk in zip(sbs, blocks):
    f = {}
    for line in blk.splitlines():
        m = re.match(r"^([a-z_.]+(?: \(deprecated\))?)\t+(.*)$", line)
        if m:
            f.setdefault(m.group(1), m.group(2))
    hdr = blk.splitlines()[0]
    assert hdr == "%d, device=%s" % (sb["superblock_bytenr"], sb["device"]), hdr
    nums = {"generation": "generation", "root": "root", "sys_array_size": "sys_chunk_array_size",
            "chunk_root_generation": "chunk_root_generation", "root_level": "root_level",
            "chunk_root": "chunk_root", "log_root": "log_root", "total_bytes": "total_bytes",
            "bytes_used": "bytes_used", "sectorsize": "sectorsize", "nodesize": "nodesize",
            "leafsize (deprecated)": "leafsize", "stripesize": "stripesize",
            "root_dir": "root_dir_objectid", "num_devices": "num_devices", "bytenr": "bytenr",
            "cache_generation": "cache_generation", "uuid_tree_generation": "uuid_tree_generation",
            "csum_size": "csum_size"}
    for t, j in nums.items():
        assert int(f[t]) == sb[j], (t, f[t], sb[j])
        assert isinstance(sb[j], int)
    assert f["fsid"] == sb["fsid"] and f["metadata_uuid"] == sb["metadata_uuid"]
    assert f["csum"] == sb["csum"] + " [match]" and sb["csum_match"] is True
    assert f["csum_type"] == "%d (%s)" % (sb["csum_type"], sb["csum_type_name"])
    assert f["magic"] == sb["magic"] + " [match]"
    d = sb["dev_item"]
    assert f["dev_item.uuid"] == d["uuid"] and int(f["dev_item.devid"]) == d["devid"]
    assert int(f["dev_item.total_bytes"]) == d["total_bytes"]
    for t, j in (("flags", "flags"), ("compat_ro_flags", "compat_ro_flags"),
                 ("incompat_flags", "incompat_flags")):
        m = re.search(r"^%s\t+0x[0-9a-f]+\n((?:\t\t\t[( ] .*\n)*)" % t, blk, re.M)
        names = re.findall(r"[A-Z][A-Z0-9_]+", m.group(1))
        assert names == sb[j], (t, names, sb[j])
    chunks = re.findall(r"^\titem \d+ key \(FIRST_CHUNK_TREE CHUNK_ITEM (\d+)\)\n\t\tlength (\d+) owner \d+ stripe_len \d+ type (\S+)\n(?:.*\n){2}((?:\t\t\t.*\n)*)", blk, re.M)
    assert len(chunks) == len(sb["sys_chunk_array"]) > 0
    for (off, length, typ, stripes), c in zip(chunks, sb["sys_chunk_array"]):
        assert int(off) == c["key"]["offset"] and c["key"]["type"] == 228
        assert int(length) == c["chunk"]["length"]
        assert [x for x in typ.split("|") if x != "single"] == c["chunk"]["type"]
        devids = [int(x) for x in re.findall(r"devid (\d+)", stripes)]
        assert devids == [s["devid"] for s in c["chunk"]["stripe"]]
    roots = re.findall(r"backup_tree_root:\t(\d+)\tgen: (\d+)", blk)
    assert [(int(a), int(b)) for a, b in roots] == \
        [(r["tree_root"], r["tree_root_gen"]) for r in sb["super_roots"] if r["tree_root"] or r["tree_root_gen"]]
print("ok", sys.argv[3], len(sbs), "copies")
PY
}

for c in default-rich csum-sha256 raid1c3-raid1c4 legacy-features; do
	check_case "$c"
done

# Errors still leave one valid document, and a non-zero exit.
truncate -s 1M "$T/zeros.img"
expect_exit 1 "$BTRFS" --format json inspect-internal dump-super "$T/zeros.img" > "$T/json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["superblocks"] == []' "$T/json" ||
	_fail "invalid JSON after an error"
# A hostile label still gives valid JSON (escaped, valid UTF-8).
dir=$(corpus_case empty-defaults)
cp --sparse=always "$dir/dev1.img" "$T/label.img"
printf 'a"b\\c\x01\xff\xc3\xa9' | dd of="$T/label.img" bs=1 seek=$((65536 + 299)) conv=notrunc status=none
"$BTRFS" --format json inspect-internal dump-super "$T/label.img" > "$T/json" || _fail "json exit $?"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); l=d["superblocks"][0]["label"]; assert l == "a\"b\\c\x01\xff\u00e9", repr(l)' "$T/json" ||
	_fail "label not escaped as expected"
echo "json ok"
