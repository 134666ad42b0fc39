#!/bin/bash
# dump-tree --format json is one valid document whose blocks, items and
# inode sizes agree with the text output.
. "$TOP/tests/lib/common.sh"
check_prereq python3 corpus
dir=$(corpus_case default-rich)
(cd "$dir" && run_check "$BTRFS" inspect-internal dump-tree --noscan dev1.img) > "$T/text"
(cd "$dir" && run_check "$BTRFS" --format json inspect-internal dump-tree --noscan dev1.img) > "$T/json"
python3 - "$T/text" "$T/json" <<'PY' || _fail "json does not match the text output"
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
doc = json.load(open(sys.argv[2]))
tblocks = [(int(m[1]), int(m[2]), int(m[3])) for m in
           (re.match(r'(?:leaf|node) (\d+) (?:level \d+ )?items (\d+) free space -?\d+ generation (\d+)', l) for l in text) if m]
jblocks = [(b['bytenr'], b['nritems'], b['generation']) for t in doc['trees'] for b in t['blocks']]
assert tblocks == jblocks, (len(tblocks), len(jblocks))
tsizes = [int(m[1]) for m in (re.match(r'\t\tgeneration \d+ transid \d+ size (\d+) nbytes', l) for l in text) if m]
jsizes = [i['data']['inode_item']['size'] for t in doc['trees'] for b in t['blocks']
          for i in b.get('items', []) if i['key']['type'] == 1 and 'data' in i]
assert tsizes == jsizes, (len(tsizes), len(jsizes))
assert doc['total_bytes'] == int(text[-3].split()[-1])
print("ok", len(jblocks), "blocks", len(jsizes), "inodes")
PY

# -R: the roots (-r) and the backup roots of the text, as members of the JSON document.
(cd "$dir" && run_check "$BTRFS" inspect-internal dump-tree --noscan -R dev1.img) > "$T/text-R"
(cd "$dir" && run_check "$BTRFS" --format json inspect-internal dump-tree --noscan -R dev1.img) > "$T/json-R"
python3 - "$T/text-R" "$T/json-R" <<'PY' || _fail "dump-tree -R json does not match the text output"
import json, re, sys
text = open(sys.argv[1]).read()
doc = json.load(open(sys.argv[2]))
troots = re.findall(r'^(.+?)(?:: | key \(.*\) )(\d+) level (\d+)$', text, re.M)
jroots = [(t['name'], str(t['bytenr']), str(t['level'])) for t in doc['trees']]
assert troots and [(n.replace(' tree key', ''), b, l) for n, b, l in troots] == jroots, (troots, jroots)
tb = re.findall(r'^\t+(\w+) root gen (\d+) block (\d+)$', text, re.M)
names = {'tree': 'tree_root', 'extent': 'extent_root', 'chunk': 'chunk_root', 'device': 'dev_root',
         'csum': 'csum_root', 'fs': 'fs_root'}
jb = [(w, str(b[names[w] + '_gen']), str(b[names[w]])) for b in doc['backup_roots'] for w in names]
assert len(tb) == 24 and tb == jb, (tb, jb)
assert [b['slot'] for b in doc['backup_roots']] == [0, 1, 2, 3]
assert doc['total_bytes'] == int(re.search(r'^total bytes (\d+)$', text, re.M)[1])
print("ok", len(jroots), "roots", len(doc['backup_roots']), "backup slots")
PY

# Every corpus case: one document, no duplicate keys, same blocks and items,
# decoded values and flag arrays agreeing with the text (tests/lib/json-vs-text.py).
for c in $(cd "$SHARED/corpus" && ls); do
	dir=$(corpus_case "$c")
	devs=$(cd "$dir" && ls dev*.img | sort -V)
	(cd "$dir" && "$BTRFS" inspect-internal dump-tree --noscan $devs) > "$T/$c.text" 2>/dev/null ||
		_fail "$c: dump-tree failed"
	(cd "$dir" && "$BTRFS" --format json inspect-internal dump-tree --noscan $devs) > "$T/$c.json" 2>/dev/null ||
		_fail "$c: dump-tree --format json failed"
	python3 "$TOP/tests/lib/json-vs-text.py" "$T/$c.json" "$T/$c.text" ||
		_fail "$c: json does not match the text output"
done
