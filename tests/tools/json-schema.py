#!/usr/bin/env python3
"""The JSON schema of --format json (Documentation/json-schema.json), without external modules.

  json-schema.py SCHEMA check KIND FILE...   validate documents of KIND (dump-tree, dump-super)
  json-schema.py SCHEMA rst                  write Documentation/json.rst from the schema

The schema names objects; each has a description and fields, each field a type:
"integer", "string", "boolean", "object:NAME", "array:TYPE", and "optional": true when it
may be absent.  An item's "data" ("object:*") is the object item_data names for its
key.type_name.  check exits 1 and prints each violation (path and reason) when a document
has a field the schema does not list, lacks a field it requires, or holds a value of another
type (or a string that is none of the field's "values"); every object of the schema must also be reachable from a document.
"""
import json
import sys

SCALARS = {'integer': int, 'string': str, 'boolean': bool}


class Checker:
    def __init__(self, schema):
        self.schema = schema
        self.objects = schema['objects']
        self.errors = []

    def err(self, path, msg):
        if len(self.errors) < 50:
            self.errors.append('%s: %s' % (path, msg))

    def value(self, v, t, path, values=None):
        if t.startswith('array:'):
            if not isinstance(v, list):
                return self.err(path, 'not an array')
            for i, x in enumerate(v):
                self.value(x, t[6:], '%s[%d]' % (path, i), values)
        elif t.startswith('object:'):
            if not isinstance(v, dict):
                return self.err(path, 'not an object')
            self.obj(v, t[7:], path)
        else:
            want = SCALARS[t]
            if not isinstance(v, want) or (want is int and isinstance(v, bool)):
                self.err(path, 'not %s: %r' % (t, v))
            elif values is not None and v not in values:
                self.err(path, '%r is none of %s' % (v, ', '.join(values)))

    def obj(self, v, name, path):
        fields = self.objects[name]['fields']
        for k, x in v.items():
            if k not in fields:
                self.err(path, 'field "%s" is not in object %s' % (k, name))
            elif fields[k]['type'] == 'object:*':
                self.item_data(v, x, path + '.' + k)
            else:
                self.value(x, fields[k]['type'], path + '.' + k, fields[k].get('values'))
        for k, f in fields.items():
            if not f.get('optional') and k not in v:
                self.err(path, 'object %s lacks field "%s"' % (name, k))

    def item_data(self, item, data, path):
        type_name = item.get('key', {}).get('type_name')
        name = self.schema['item_data'].get(type_name)
        if name is None:
            return self.err(path, 'no object for the data of %s items' % type_name)
        if not isinstance(data, dict):
            return self.err(path, 'not an object')
        self.obj(data, name, path)


def reachable(schema):
    seen, todo = set(), list(schema['documents'].values()) + list(schema['item_data'].values())
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for f in schema['objects'][name]['fields'].values():
            t = f['type']
            while t.startswith('array:'):
                t = t[6:]
            if t.startswith('object:') and t != 'object:*':
                todo.append(t[7:])
    return seen


def rst(schema):
    out = ['JSON output', '===========', '',
           'Commands that take the global option ``--format json`` (``inspect-internal dump-tree``,',
           '``inspect-internal dump-super``) write one JSON document.  This page is generated from',
           '``Documentation/json-schema.json`` by ``tests/tools/json-schema.py SCHEMA rst``;',
           '``tests/cli/023-json-schema.sh`` checks every corpus dump against that schema and this',
           'page against it.  Numbers are JSON integers (64-bit values in full), UUIDs are their',
           '36-character strings, byte strings (checksums, hashes) ``"0x"`` and hex digits, flag sets',
           'arrays of names (a bit without a name as ``"0x..."``).  A field marked optional is written',
           'only where the text output would show it.', '', 'Documents', '---------', '']
    for cmd, name in schema['documents'].items():
        out.append('- ``%s``: object ``%s``' % (cmd, name))
    out += ['', 'Item data', '---------', '',
            'An item\'s ``data`` is the object named for its key\'s ``type_name``:', '']
    for tn, name in schema['item_data'].items():
        out.append('- ``%s``: ``%s``' % (tn, name))
    out += ['', 'Objects', '-------', '']
    for name, o in schema['objects'].items():
        out += ['``%s``' % name, '~' * (len(name) + 4), '', o['description'], '']
        for k, f in o['fields'].items():
            t = f['type'].replace('object:*', 'item data (above)')
            out.append('- ``%s``: %s%s%s' % (k, t, ', optional' if f.get('optional') else '',
                                          ', one of ' + ', '.join('``%s``' % x for x in f['values'])
                                          if 'values' in f else ''))
        out.append('')
    return '\n'.join(out)


def main(argv):
    schema = json.load(open(argv[1]))
    if argv[2] == 'rst':
        sys.stdout.write(rst(schema))
        return 0
    unused = set(schema['objects']) - reachable(schema)
    if unused:
        print('objects no document reaches: %s' % ', '.join(sorted(unused)))
        return 1
    kind, files = argv[3], argv[4:]
    bad = 0
    for f in files:
        c = Checker(schema)
        c.obj(json.load(open(f)), schema['documents'][kind], '$')
        for e in c.errors:
            print('%s: %s' % (f, e))
        bad += bool(c.errors)
    print('%d %s documents, %d not valid' % (len(files), kind, bad))
    return 1 if bad or not files else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
