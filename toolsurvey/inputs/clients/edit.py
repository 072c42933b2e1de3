"""Change a client's config files in place: each file read once (its text and fingerprint kept), the
edits applied to the text (JSON with or without comments through `core.jsonc_edit`, TOML through
tomlkit, so other keys, comments and order survive), a unified diff, and a write that is all or
nothing: every file checked unchanged and writable first, each written atomically beside a backup,
the ones already written put back if a later one fails."""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...core import jsonc_edit
from ...core.files import read_text
from ...core.jsonc import strip_comments
from ...core.writing import atomic_write
from ...errors import InputError

BACKUP_SUFFIX = ".toolsurvey-backup"


@dataclass(frozen=True)
class Edit:
    """One change at a key path: append an item to a list, set a value, or remove a key."""

    op: str  # append, set, remove
    path: tuple[str, ...]
    value: Any = None


@dataclass
class FileChange:
    """A file's text as read, its fingerprint, and its text after the edits."""

    path: Path
    syntax: str  # json, jsonc or toml
    shown: str
    old: str | None  # None: the file does not exist yet
    digest: str | None
    new: str = ""
    edits: list[Edit] = field(default_factory=list)

    def diff(self) -> str:
        """The change as a unified diff (the file as it is, and as it would be)."""
        old = (self.old or "").splitlines(keepends=True)
        new = self.new.splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.shown}" if self.old is not None else "/dev/null",
                                            f"b/{self.shown}"))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load(path: str | os.PathLike, syntax: str, shown: str | None = None) -> FileChange:
    """A file to change, read now; a missing file is an empty object to create."""
    p = Path(path)
    old = read_text(p) if p.exists() else None
    return FileChange(p, syntax, shown or str(p), old, _digest(old) if old is not None else None,
                      new=old if old is not None else "")


def apply(change: FileChange, edit: Edit) -> None:
    """Apply `edit` to the change's new text. Raises InputError when the file's shape is not the one
    the client reads (a list where an object should be, a comment in a file that takes none, ...)."""
    where = change.shown
    if change.syntax == "toml":
        change.new = _toml(change.new, edit, where)
    else:
        text = change.new or "{}\n"
        if change.syntax == "json" and strip_comments(text) != text:
            line = next(n for n, (a, b) in enumerate(zip(text.splitlines(), strip_comments(text).splitlines(),
                                                       strict=False), 1) if a != b)
            raise InputError(f"{where}: line {line}: a comment or trailing comma, which the client does not accept "
                             "in this file; remove it and run fix again")
        op = {"append": jsonc_edit.append, "set": jsonc_edit.set_value}.get(edit.op)
        change.new = (op(text, edit.path, edit.value, where) if op else jsonc_edit.remove(text, edit.path, where))
    change.edits.append(edit)


def _toml(text: str, edit: Edit, where: str) -> str:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as e:
        raise InputError(f"{where}: not valid TOML ({e})") from None
    node: Any = doc
    for i, key in enumerate(edit.path[:-1]):
        if key not in node:
            node[key] = tomlkit.table(is_super_table=i == 0)
        node = node[key]
        if not isinstance(node, dict):
            raise InputError(f"{where}: expected a table at {'.'.join(edit.path[:i + 1])}, found "
                             f"{type(node).__name__}")
    last = edit.path[-1]
    if edit.op == "append":
        current = node.get(last)
        if current is None:
            node[last] = tomlkit.array()
            current = node[last]
        elif not isinstance(current, list):
            raise InputError(f"{where}: expected a list at {'.'.join(edit.path)}, found {type(current).__name__}")
        current.append(edit.value)
    elif edit.op == "set":
        node[last] = edit.value
    elif last in node:
        del node[last]
    return tomlkit.dumps(doc)


def unchanged(change: FileChange) -> bool:
    """Whether the file is as it was read (its content, or its absence)."""
    if not change.path.exists():
        return change.old is None
    return change.old is not None and _digest(read_text(change.path)) == change.digest


def write_all(changes: list[FileChange]) -> list[Path]:
    """Write every changed file, or none: each checked unchanged since it was read and writable before
    any is written; each written atomically after a copy of it is kept as `<file>.toolsurvey-backup`;
    when one fails, the files already written are put back. Returns the backups made.

    Raises InputError for a file changed since it was read, or one that cannot be written.
    """
    todo = [c for c in changes if c.new != (c.old or "")]
    for c in todo:
        if not unchanged(c):
            raise InputError(f"{c.shown} changed since it was read; nothing was written: run fix again")
        target = c.path if c.path.exists() else c.path.parent
        if not os.access(target, os.W_OK) or (c.path.exists() and not os.access(c.path.parent, os.W_OK)):
            raise InputError(f"{c.shown}: cannot write {'the file' if c.path.exists() else 'its folder'} "
                             "(read-only); nothing was written")
    done: list[FileChange] = []
    backups: list[Path] = []
    try:
        for c in todo:
            if c.old is not None:
                backup = c.path.with_name(c.path.name + BACKUP_SUFFIX)
                shutil.copy2(c.path, backup)
                backups.append(backup)
            else:
                c.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(c.path, c.new)
            done.append(c)
    except OSError as e:
        for c in done:
            if c.old is None:
                c.path.unlink(missing_ok=True)
            else:
                atomic_write(c.path, c.old)
        raise InputError(f"writing failed ({e}); the files written before it were put back") from None
    return backups
