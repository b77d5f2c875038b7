"""The kernel cache: where numba keeps compiled kernels, what makes a cached kernel stale,
and one compiler per kernel among all the processes that share a cache.

numba checks a cached function against its own source file only, not against the functions
it calls.  Here a kernel's cache entry is keyed by what its compiled code can depend on:
- its module's *closure*: the module's source and that of every puzzledb module it imports
  (an import statement anywhere in the file, followed transitively), which numba's index
  keeps as its source stamp (an edit to any of them empties the kernel's index);
- for each tables type among its argument types, the closures of the modules that define
  the type and of those that register kernels for it (compiled.register and the sweeps'
  registries): the generic loops reach a family's kernels through those registries, not
  through imports, so this digest is a part of each entry's key.
So an edit recompiles exactly the kernels whose code it can reach, and an edit to a module
no kernel imports (the CLI, the report) recompiles nothing.  Digests are of the files'
contents, not their times, so two checkouts of the same source share one cache.

A process that misses a kernel takes a lock on the kernel's index before it compiles, and
looks again once it holds it: another process (a test worker, a parallel compile, a cluster
job on a shared cache) that compiled it meanwhile has saved it, and it is loaded instead of
compiled twice.  The locks are flock()s, released by the kernel when a process dies.
"""

import fcntl
import hashlib
import json
import os
import pickle
import re
import shutil
import tempfile
import time
from functools import cache
from pathlib import Path

import numba
from numba.core import event, types
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    UserProvidedCacheLocator,
)

PACKAGE = Path(__file__).resolve().parent.parent  # the whole puzzledb package
STALE_DAYS = 7  # directories of earlier cache layouts unused this long are removed

# `from puzzledb.a.b import c, d` (c and d may be modules) and `import puzzledb.a.b`
_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(puzzledb(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)"
    r"|import[ \t]+(puzzledb(?:\.\w+)*))", re.M)

_DEPENDS = {}  # tables type -> names of the modules whose kernels are registered for it
# modules every kernel imports (through compiled) that hold no code a kernel runs: how
# kernels are cached and compiled (numba_copies: the same machine code either way); an edit
# of them recompiles nothing
_NOT_RUN = frozenset({"puzzledb.compiled.caching", "puzzledb.compiled.compiling",
                      "puzzledb.compiled.numba_copies"})


def cache_root():
    """PUZZLEDB_CACHE_DIR, else $XDG_CACHE_HOME/puzzledb/numba (~/.cache by default)."""
    if os.environ.get("PUZZLEDB_CACHE_DIR"):
        return Path(os.environ["PUZZLEDB_CACHE_DIR"])
    home = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(home) / "puzzledb" / "numba"


@cache
def cache_directory():
    """The kernel cache of this numba, made on first use (by the first kernel decorated,
    not when compiled is imported: a process that compiles nothing, the Snakefile's parse,
    makes nothing); a private directory in the system's temp where the home is not
    writable.  Directories of the cache's earlier layouts (one per source digest,
    numba<version>-<digest>) unused for STALE_DAYS are removed."""
    root = cache_root()
    here = root / f"numba{numba.__version__}"
    try:
        here.mkdir(parents=True, exist_ok=True)
    except OSError:
        root = Path(tempfile.gettempdir()) / f"puzzledb-numba-{os.getuid()}"
        here = root / here.name
        here.mkdir(parents=True, exist_ok=True)
    old = time.time() - STALE_DAYS * 86400
    for other in root.glob("numba*-*"):
        if other.is_dir() and other.stat().st_mtime < old:
            shutil.rmtree(other, ignore_errors=True)
    if os.environ.get("PUZZLEDB_COMPILE_LOG"):
        event.register("numba:compile", _Recorder(os.environ["PUZZLEDB_COMPILE_LOG"]))
    return here


class _Recorder(event.Listener):
    """Appends a JSON line to a file for every kernel numba compiles in this process: its
    module, name, argument types, seconds, how deep inside another compile it ran and when
    it ended (benchmarks/bench_compile.py tabulates them).  Set by PUZZLEDB_COMPILE_LOG=FILE."""

    def __init__(self, path):
        self.path, self.started = path, []

    def on_start(self, ev):
        self.started.append(time.perf_counter())

    def on_end(self, ev):
        seconds = time.perf_counter() - self.started.pop()
        function = ev.data["dispatcher"].py_func
        line = dict(pid=os.getpid(), module=function.__module__, kernel=function.__name__,
                    args=[str(t) for t in ev.data["args"]], seconds=round(seconds, 4),
                    depth=len(self.started), ended=round(time.time(), 3))
        with open(self.path, "a") as out:
            out.write(json.dumps(line) + "\n")


def size(directory):
    """The bytes of the files under `directory`."""
    return sum(path.stat().st_size for path in Path(directory).rglob("*") if path.is_file())


def depends(tables_type, module):
    """Record that kernels for tables of `tables_type` come from `module` (a name): a
    registry the generic loops dispatch through calls this for each kernel it is given."""
    _DEPENDS.setdefault(tables_type, set()).add(module)


def _path_of(module):
    """The source file of a puzzledb module (a package's __init__.py), or None."""
    parts = module.split(".")[1:]
    path = PACKAGE.joinpath(*parts)
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return None


@cache
def _imports(module, path=None):
    """The puzzledb modules `module`'s source imports (its own import statements); `path`:
    its file, for a module outside the package (a test's kernels)."""
    found = set()
    path = path or _path_of(module)
    for frm, names, plain in _IMPORT.findall(Path(path).read_text() if path else ""):
        if plain:
            found.add(plain)
            continue
        found.add(frm)
        for name in re.findall(r"\w+", names.split("#")[0]):
            if _path_of(f"{frm}.{name}"):  # an imported submodule
                found.add(f"{frm}.{name}")
    found.discard(module)
    return frozenset(m for m in found if _path_of(m) and m not in _NOT_RUN)


@cache
def closure(module):
    """`module` and every puzzledb module it imports, transitively."""
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_imports(name))
    return frozenset(seen)


def _digest(modules):
    digest = hashlib.sha256()
    for name in sorted(modules):
        path = _path_of(name)
        digest.update(name.encode() + b"\0" + (path.read_bytes() if path else b"") + b"\0")
    return digest.hexdigest()[:20]


@cache
def module_digest(module):
    """The digest of `module`'s closure: a kernel of it is stale when this changes."""
    return _digest(closure(module))


def _type_modules(numba_type, found):
    """Add to `found` the modules whose closures a kernel compiled for an argument of
    `numba_type` depends on beyond its own module's: those of its tables types."""
    if isinstance(numba_type, (types.NamedTuple, types.NamedUniTuple)):
        cls = numba_type.instance_class
        found.add(cls.__module__)
        found.update(_DEPENDS.get(cls, ()))
    if isinstance(numba_type, types.BaseTuple):
        for item in numba_type.types:
            _type_modules(item, found)
    elif isinstance(numba_type, types.Dispatcher):
        found.add(numba_type.dispatcher.py_func.__module__)


def signature_digest(signature):
    """The digest of the closures a kernel's entry for `signature` depends on through the
    types of its arguments (empty when none is a tables type)."""
    modules = set()
    for item in getattr(signature, "args", signature):
        _type_modules(item, modules)
    modules = {m for m in modules if m.startswith("puzzledb.")}
    everything = set().union(*(closure(m) for m in modules)) if modules else set()
    return _digest(everything) if everything else ""


class _Locator(UserProvidedCacheLocator):
    """A kernel's place in the cache (a directory per module, named after it, so that the
    same source shares one entry wherever it is installed) and its source stamp: its
    module's closure digest, not the file's time.  A kernel outside the package (a test's)
    is stamped by its own file and the closures of the puzzledb modules it imports."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._module = py_func.__module__
        self._cache_path = str(cache_directory() / self._module)

    def get_source_stamp(self):
        if self._module.startswith("puzzledb"):
            return module_digest(self._module)
        used = set().union(*(closure(m) for m in _imports(self._module, self._py_file)))
        own = hashlib.sha256(Path(self._py_file).read_bytes()).hexdigest()[:20]
        return f"{own}-{_digest(used)}"

    @classmethod
    def from_function(cls, py_func, py_file):
        if not os.path.exists(py_file):  # no file (an interactive session): not cached
            return None
        self = cls(py_func, py_file)
        self.ensure_cache_path()
        return self


class _Impl(CompileResultCacheImpl):
    _locator_classes = [_Locator]


class _IndexFile(IndexDataCacheFile):
    """numba's index of a kernel's entries, read as a miss when it no longer unpickles: its
    keys hold the argument types, so an index written before a tables type moved to another
    module (or by another numba) names a class that is gone.  numba reads the index before it
    checks the source stamp, so such an index would raise where it is only stale."""

    def _load_index(self):
        try:
            return super()._load_index()
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
            return {}


_held = {}  # lock path -> [open file, depth]: the kernels this process is compiling


class KernelCache(FunctionCache):
    """numba's cache of one kernel, keyed as this module's docstring says, with a lock
    across processes around each compile."""

    _impl_class = _Impl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file = _IndexFile(self._cache_path, self._impl.filename_base,
                                      self._cache_file._source_stamp)

    def _index_key(self, sig, codegen):
        return super()._index_key(sig, codegen) + (signature_digest(sig),)

    def _lock_path(self):
        return os.path.join(self._cache_path, self._cache_file._index_name + ".lock")

    def load_overload(self, sig, target_context):
        found = super().load_overload(sig, target_context)
        if found is not None or not self._enabled:
            return found
        self.lock()
        found = super().load_overload(sig, target_context)  # saved meanwhile by another
        if found is not None:
            self.unlock()
        return found  # None: this process compiles it, holding the lock until it saves

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
            self._forget_other_entries(sig, data.codegen)
        finally:
            self.unlock()

    def _forget_other_entries(self, sig, codegen):
        """Drop the index's entries for this signature made under other dependencies (an
        edit since), and their data files: the cache does not grow with every edit."""
        key = self._index_key(sig, codegen)
        index = self._cache_file._load_index()
        stale = [k for k in index if k[:2] == key[:2] and k != key]
        if stale:
            for k in stale:
                Path(self._cache_file._data_path(index.pop(k))).unlink(missing_ok=True)
            self._cache_file._save_index(index)

    def lock(self):
        path = self._lock_path()
        held = _held.get(path)
        if held is None:
            held = _held[path] = [open(path, "a"), 0]
            fcntl.flock(held[0], fcntl.LOCK_EX)
        held[1] += 1

    def unlock(self):
        path = self._lock_path()
        held = _held.get(path)
        if held is None:
            return
        held[1] -= 1
        if held[1] == 0:
            del _held[path]
            held[0].close()  # releases the flock


class _Failures(event.Listener):
    """A compile that raises (numba tries signatures that fail to type) saves nothing: its
    lock is released here."""

    def on_start(self, ev):
        pass

    def on_end(self, ev):
        # the exception it carries (numba's Event.is_failed answers the opposite)
        if getattr(ev, "_exc_details", None) is not None:
            kernel_cache = getattr(ev.data["dispatcher"], "_cache", None)
            if isinstance(kernel_cache, KernelCache):
                kernel_cache.unlock()


event.register("numba:compile", _Failures())


def enable(dispatcher):
    """Give a kernel (a numba dispatcher) this cache: numba's cache=True, keyed as above."""
    dispatcher._cache = KernelCache(dispatcher.py_func)
    return dispatcher


def in_cache(kernel, signature):
    """Whether the cache holds `kernel` for `signature`: its index read, nothing loaded.
    Through numba's own cache methods (the key load_overload looks up), so a numba that
    changes them gives False, and the kernel is loaded as before."""
    try:
        cache_ = kernel._cache
        key = cache_._index_key(signature, kernel.targetctx.codegen())
        return key in cache_._cache_file._load_index()
    except AttributeError:
        return False
