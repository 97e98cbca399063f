"""Run one command in a file system that shows only what it was given.

:func:`vado.verify.sandbox.run_limited` starts a confined command as
``unshare --mount --pid --net --ipc --uts --fork [--user --map-root-user] -- python -I -S _confine.py
--stage DIR --cwd DIR [--privileged] [--ro PATH]... [--rw PATH]... -- CMD...``:
in fresh mount, PID, network, IPC and UTS namespaces, this script builds a new
root on a tmpfs mounted over the stage (an empty directory the caller made),
switches to it with ``pivot_root`` and detaches the old one, then ``exec``s the
command, which is the namespace's PID 1: when it ends, the kernel kills whatever
it left running there. The new root holds:

- ``/usr`` read-only, and ``/bin``, ``/lib*``, ``/sbin`` as the host has them
  (links into ``/usr`` on a merged-/usr system);
- ``/etc`` with only what the dynamic loader and the toolchains read
  (``ld.so.cache``, ``ld.so.conf*``, ``alternatives``, ``perl``) and a
  ``passwd``/``group`` that name only root and nobody: no ``shadow``, no keys;
- ``/dev`` with ``null``, ``zero``, ``full``, ``random``, ``urandom``, a private
  ``/dev/shm``; ``/proc`` of the new PID namespace (so ``/proc/1/root`` is this
  root, not the host's); a private ``/tmp``; no ``/sys``, ``/home``, ``/root``;
- each ``--ro`` path read-only and each ``--rw`` path writable, at the same path
  as outside (a symlink to them is made again).

The command then runs in the ``--cwd`` directory. Unless ``--privileged``, the
capability bounding set is emptied but for reading and owning files, and
``no_new_privs`` is set, so the command cannot mount, ``chroot`` or gain rights
through a set-uid program; a toolchain that makes its own chroot (vado's ROCm
wrapper) runs privileged, inside this view all the same.

Standalone on purpose (``-S``, no vado import) and quick to start: it runs once
per compile, so it imports only ``ctypes`` (libc's functions are taken from the
interpreter's own process, not looked up with ``ldconfig``) and reads its
arguments without ``json``. Exit status: the command's; 125 with a message on
stderr when the confinement could not be built.
"""

import ctypes
import os
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MNT_DETACH = 2
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS = 24, 38
#: Capabilities a confined compiler keeps: read and own files (a root-owned tree stays readable).
KEEP_CAPS = {0, 1, 2, 3}  # CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
#: pivot_root's system call number; glibc has no wrapper. Unknown machines fall back to chroot.
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "ppc64": 203, "s390x": 217}
ETC_KEEP = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "perl", "localtime")
DEV_KEEP = ("null", "zero", "full", "random", "urandom")


def _load_libc():
    # The interpreter's own libc (dlopen(NULL)): no `ldconfig -p` run, as ctypes.util.find_library does.
    libc = ctypes.CDLL(None, use_errno=True)
    if all(hasattr(libc, name) for name in ("mount", "umount2", "syscall", "prctl")):
        return libc
    import ctypes.util as ctypes_util

    return ctypes.CDLL(ctypes_util.find_library("c") or "libc.so.6", use_errno=True)


_libc = _load_libc()


class ConfineError(Exception):
    pass


def _check(rc, what):
    if rc != 0:
        err = ctypes.get_errno()
        raise ConfineError("%s: %s" % (what, os.strerror(err)))


def _mount(src, dst, fstype, flags, data=None):
    _check(_libc.mount(src.encode() if src else None, dst.encode(), fstype.encode() if fstype else None,
                       ctypes.c_ulong(flags), data.encode() if data else None), "mount %s on %s" % (src or fstype, dst))


def _locked_flags(path):
    """Flags a read-only remount must keep (in a user namespace the kernel refuses to drop them)."""
    try:
        f = os.statvfs(path).f_flag
    except OSError:
        return 0
    out = 0
    for st, ms in ((os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                   (getattr(os, "ST_NOATIME", 1024), MS_NOATIME), (getattr(os, "ST_NODIRATIME", 2048), MS_NODIRATIME),
                   (getattr(os, "ST_RELATIME", 4096), MS_RELATIME)):
        if f & st:
            out |= ms
    return out


def _bind(src, dst, read_only):
    if os.path.isdir(src):
        os.makedirs(dst, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if not os.path.exists(dst):
            open(dst, "ab").close()
    _mount(src, dst, None, MS_BIND | MS_REC)
    if read_only:
        _mount(None, dst, None, MS_BIND | MS_REMOUNT | MS_RDONLY | _locked_flags(dst))


def _link_or_bind(new, path, read_only=True):
    """``path`` in the new root: the same link where the host has a link, else a bind mount."""
    if os.path.islink(path):
        os.makedirs(os.path.dirname(new + path), exist_ok=True)
        if not os.path.lexists(new + path):
            os.symlink(os.readlink(path), new + path)
        target = os.path.realpath(path)
        if not os.path.lexists(new + target) and os.path.exists(target):
            _link_or_bind(new, target, read_only)
    elif os.path.exists(path):
        _bind(path, new + path, read_only)


def _visible(new, path, read_only):
    """``path`` (any depth) visible in the new root: its links made again, its real place bound."""
    path = os.path.abspath(path)
    # Make every linked component of the path again, so the name the caller uses resolves.
    parts = path.strip("/").split("/")
    at = ""
    for part in parts:
        at += "/" + part
        if os.path.islink(at):
            if not os.path.lexists(new + at):
                os.makedirs(os.path.dirname(new + at), exist_ok=True)
                os.symlink(os.readlink(at), new + at)
            _visible(new, os.path.realpath(at) + path[len(at):], read_only)
            return
    if os.path.exists(path) and not _covered(new, path, read_only):
        _bind(path, new + path, read_only)


_BOUND = []


def _covered(new, path, read_only):
    """Whether an earlier bind of a directory above ``path`` already shows it as asked."""
    for p, ro in _BOUND:
        if (path == p or path.startswith(p.rstrip("/") + "/")) and (ro == read_only or not ro):
            return True
    _BOUND.append((path, read_only))
    return False


def build(spec):
    new = spec["stage"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    _bind("/usr", new + "/usr", True)
    _BOUND.append(("/usr", True))
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        _link_or_bind(new, top)
    os.makedirs(new + "/etc", mode=0o755)
    for name in ETC_KEEP:
        _link_or_bind(new, "/etc/" + name)
    with open(new + "/etc/passwd", "w") as fh:
        fh.write("root:x:0:0:root:/tmp:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    with open(new + "/etc/group", "w") as fh:
        fh.write("root:x:0:\nnogroup:x:65534:\n")
    os.makedirs(new + "/dev", mode=0o755)
    _mount("tmpfs", new + "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755")
    for name in DEV_KEEP:
        if os.path.exists("/dev/" + name):
            _bind("/dev/" + name, new + "/dev/" + name, False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, new + "/dev/" + name)
    os.makedirs(new + "/dev/shm")
    _mount("tmpfs", new + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    os.makedirs(new + "/tmp")
    _mount("tmpfs", new + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    os.makedirs(new + "/proc")
    _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY)
    # Parents before what lies inside them, so that a later bind is on top: a writable build directory
    # inside a read-only source tree stays writable. At one depth writable first: a read-only path a
    # writable bind already shows is covered by it.
    binds = [(path, False) for path in spec.get("rw", ())] + [(path, True) for path in spec.get("ro", ())]
    binds.sort(key=lambda b: os.path.abspath(b[0]).rstrip("/").count("/"))
    for path, read_only in binds:
        _visible(new, path, read_only)
    os.chdir(new)
    num = SYS_PIVOT_ROOT.get(os.uname().machine)
    if num is not None:
        _check(_libc.syscall(ctypes.c_long(num), b".", b"."), "pivot_root")
        _check(_libc.umount2(b".", ctypes.c_int(MNT_DETACH)), "detaching the old root")
    else:
        os.chroot(".")
    os.chdir("/")
    # The new root read-only at its top (its tmpfs directories are only mount points).
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def drop_privileges():
    for cap in range(64):
        if cap not in KEEP_CAPS:
            _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EINVAL past the last capability: ignored
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def parse_args(argv):
    """``--stage DIR --cwd DIR [--privileged] [--ro PATH]... [--rw PATH]... -- CMD...`` as (spec, cmd)."""
    spec = {"stage": "", "cwd": "", "ro": [], "rw": [], "privileged": False}
    i = 1
    while i < len(argv) and argv[i] != "--":
        opt = argv[i]
        if opt == "--privileged":
            spec["privileged"] = True
            i += 1
            continue
        if opt not in ("--stage", "--cwd", "--ro", "--rw") or i + 1 >= len(argv):
            raise ValueError("unknown or incomplete option %r" % opt)
        value = argv[i + 1]
        if opt in ("--ro", "--rw"):
            spec[opt[2:]].append(value)
        else:
            spec[opt[2:]] = value
        i += 2
    cmd = argv[i + 1:]
    if not spec["stage"] or not cmd:
        raise ValueError("no --stage or no command")
    return spec, cmd


def main(argv):
    try:
        spec, cmd = parse_args(argv)
    except ValueError as exc:
        sys.stderr.write("usage: _confine.py --stage DIR --cwd DIR [--privileged] [--ro PATH]... [--rw PATH]... "
                         "-- CMD [ARGS...] (%s)\n" % exc)
        return 125
    try:
        build(spec)
        if not spec.get("privileged"):
            drop_privileges()
        os.chdir(spec.get("cwd") or "/tmp")
    except (ConfineError, OSError, ValueError) as exc:
        sys.stderr.write("vado: the confinement could not be built: %s\n" % exc)
        return 125
    try:
        os.execvp(cmd[0], cmd)
    except OSError as exc:
        sys.stderr.write("vado: cannot start %s in the confinement: %s\n" % (cmd[0], exc.strerror))
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv))
