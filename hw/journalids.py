"""Which file each journaled attribute was: a restore writes only into that file.

Why: the journal kept paths only.  Between the daemon's death (``kill -9``, a power cut on
the daemon but not the board) and ``thermogov restore`` or the next start's recovery, a
regular file or a link planted at an owned path took the journaled value: the restore owned
whatever was there.  The daemon alive refuses such a file (:mod:`thermogov.hw.confine`:
device and inode recorded at ``own``); the journal now carries the same identity, so the
restore refuses it too.

What is recorded, per owned attribute, is its device and inode (``st_dev``, ``st_ino``): on
sysfs an attribute is a kernfs node, whose inode number is the node's id for its lifetime
(kernfs makes a removed node's number unusable for the rest of the boot on 64-bit ``ino_t``:
``kernfs_ino``/``kernfs_gen``, fs/kernfs/kernfs-internal.h,
https://github.com/torvalds/linux/blob/master/fs/kernfs/kernfs-internal.h), and userspace
cannot create, rename or link anything in sysfs.  Across a reboot the numbers repeat (the same
nodes made in the same order), which is why the journal's ``boot_id`` is compared first and a
journal of an earlier boot is never written (:func:`thermogov.hw.journal.recover`).

At restore, each attribute is owned first (its identity taken there is the only file the write
may reach: no window between this check and the write), then compared with the journaled one:

* the same file: written as before;
* another file on the same sysfs mount: the kernel removed the node and made it again (a driver
  reprobed); its limits were reset with it, so the journaled value is stale: said, not written,
  not an error;
* both files of a limit window other inodes in place, on their mount (the kernel makes a
  member's folder whole; the running daemon's rule, hw/limits.py ``kernel_removed``): the same,
  on any tree;
* anything else (a file on another mount, or one file of a pair in a tree that is not sysfs,
  where nothing says it is the kernel's): refused, named, not written; the rest is restored and
  the restore ends incomplete (exit 1, the journal kept).

A journal written before these identities (no ``identities`` field) is restored as before, and
the restore says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from thermogov.hw.confine import FileId
from thermogov.hw.sysfs import SysfsTree

# Said once per restore of a journal that records no identity.
UNRECORDED = (
    "the journal records no file identities (written by a thermogov before session 30): "
    "each value was written to the file at its path, unchecked"
)


def record(tree: SysfsTree, rels: Iterable[str]) -> dict[str, tuple[int, int]]:
    """(device, inode) of each attribute in ``rels``: an owned one as owned (never a fresh look
    that could bless a file swapped since start-up); one not owned yet, the regular file at its
    path now.  That is a member joining mid-run (hw/lateclusters.py ``adopt``: journaled before
    it is owned, just after :meth:`~thermogov.hw.sysfs.SysfsTree.unownable` judged the same path);
    a file swapped between this look and the ``own`` only makes a later restore refuse it.  One
    that is no regular file now is left out (restored unchecked, as a journal of before)."""
    out: dict[str, tuple[int, int]] = {}
    for rel in rels:
        ident = tree.owned_identity(rel) or tree.identity_now(rel)
        if ident is not None:
            out[rel] = (ident.dev, ident.ino)
    return out


def parse(raw: object) -> dict[str, tuple[int, int]] | None:
    """The journal's ``identities`` field checked for shape (None: not recorded); ``ValueError``
    naming what is wrong (the corrupt-journal line: nothing written)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ValueError("identities is not an object")
    out: dict[str, tuple[int, int]] = {}
    for rel, pair in raw.items():
        if not isinstance(pair, list) or len(pair) != 2 or not all(_whole(v) for v in pair):
            raise ValueError(f"identities[{rel!r}] is {pair!r}, not [device, inode]")
        out[rel] = (pair[0], pair[1])
    return out


def _whole(v: object) -> bool:
    return type(v) is int and 0 <= v < (1 << 64)


class IdentityCheck:
    """The restore's judge of each attribute it is about to write (see the module doc)."""

    def __init__(self, tree: SysfsTree, recorded: Mapping[str, tuple[int, int]] | None) -> None:
        self.tree = tree
        self.recorded = recorded
        self.remade: list[str] = []  # said (the kernel's reset), not errors

    def window(self, min_rel: str, max_rel: str) -> tuple[tuple[bool, str], tuple[bool, str]]:
        """The verdicts of a limit window's two files (both already owned by the restore).

        The kernel removes and makes a member's folder whole (a driver unbound and bound again,
        a cpufreq driver reloaded): both files other inodes, in place, on the mount they were
        on.  That is the running daemon's rule for a member made again (hw/limits.py
        ``kernel_removed``), so it is the restore's too, on any tree: said, not written, not an
        error.  One file of the pair replaced while its twin is still the file journaled is no
        removal of the kernel's (a file planted in a tree): refused, as :meth:`verdict` says."""
        both = (self._other_in_place(min_rel), self._other_in_place(max_rel))
        if all(both):
            self.remade.append(
                f"{self.tree.show(min_rel.rpartition('/')[0])}: both limit files are other files than "
                "the ones journaled, in place (the kernel made the member again since: a driver "
                "reprobed); its limits were reset with it: the journaled window is stale, not written"
            )
            return (False, ""), (False, "")
        return self.verdict(min_rel), self.verdict(max_rel)

    def _other_in_place(self, rel: str) -> bool:
        """Whether ``rel`` is now another regular file than journaled, on the same mount."""
        if self.recorded is None or rel not in self.recorded:
            return False
        now = self.tree.owned_identity(rel)
        dev, ino = self.recorded[rel]
        return now is not None and now.dev == dev and now.ino != ino

    def verdict(self, rel: str) -> tuple[bool, str]:
        """(may ``rel`` be written, why it is refused: "" when it is not an error).

        ``rel`` is already owned by the restore, so the identity compared is the one its write
        is confined to.  A file the kernel made again is not written and not an error: it is
        added to :attr:`remade`, said by the caller."""
        if self.recorded is None or rel not in self.recorded:
            return True, ""
        now = self.tree.owned_identity(rel)
        dev, ino = self.recorded[rel]
        if now is None or now == FileId(dev, ino):
            return True, ""
        if now.dev == dev and self.tree.on_sysfs(now.dev):
            self.remade.append(
                f"{self.tree.show(rel)}: the kernel made this attribute again since the journal was "
                "written (a driver reprobed); its limit was reset with it: the journaled value is "
                "stale, not written"
            )
            return False, ""
        return False, (
            f"{self.tree.show(rel)}: is not the file journaled (device {dev}, inode {ino}; now device "
            f"{now.dev}, inode {now.ino}): replaced since the journal was written; refusing to write "
            "into it (check who changed the tree, then delete the journal)"
        )
