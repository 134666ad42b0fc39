"""crc32c (Castagnoli, reflected 0x82F63B78) for the Python test tools: the
checksum of btrfs tree blocks and superblocks of crc32c filesystems.

    from crc32c import crc32c      (tests/lib on sys.path)
    crc32c(data)                   the block checksum: seed ~0, result inverted
    crc32c(data, crc)              continued from another seed
"""

POLY = 0x82F63B78
TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ POLY if _c & 1 else _c >> 1
    TABLE.append(_c)


def crc32c(data, crc=0xFFFFFFFF):
    t = TABLE
    for b in data:
        crc = t[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
