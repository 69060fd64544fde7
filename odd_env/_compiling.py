"""Numba's ``njit`` for the rules kernels, with one line to stderr when they are first compiled.

The kernels are compiled on first use (about 10 s, a minute or more on a busy machine) and cached
on disk (``cache=True``), so later processes load them in a moment. A process that finds the cache
cold says so once, on stderr, before the first compile, instead of seeming to hang: where the cache
goes and, if that folder cannot be written (a package installed read-only, for which numba falls
back to another folder or compiles in every process), to set ``NUMBA_CACHE_DIR`` to a writable one.
``ODD_ENV_QUIET_COMPILE=1`` silences it.

:func:`stack_buffer` gives kernels small scratch arrays on the stack, so that a step allocates nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
from numba import config, from_dtype, njit, types
from numba.core import cgutils, event
from numba.extending import intrinsic

__all__ = ["njit", "stack_buffer"]

_said = False


def _writable(folder: Path) -> bool:
    """Whether ``folder`` can be written, or made in its nearest existing ancestor."""
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return os.access(folder, os.W_OK | os.X_OK)


def compile_notice(dispatcher: Any) -> str:
    """The line said before the first compile of ``dispatcher``'s function (a kernel of this package)."""
    cache = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    line = "odd_env: compiling the game rules with numba, once: about 10 s (a minute or more on a busy machine)"
    if cache is None:
        return line
    if not _writable(Path(cache)):
        return (f"{line}; the cache folder {cache} is not writable, so every run compiles again: "
                "set NUMBA_CACHE_DIR to a writable folder to keep them")
    where = "NUMBA_CACHE_DIR" if os.environ.get("NUMBA_CACHE_DIR") else "set NUMBA_CACHE_DIR to move it"
    return f"{line}; later runs load them from the cache in {cache} ({where})"


class _FirstCompile(event.Listener):
    def on_start(self, ev: Any) -> None:
        global _said
        if _said or os.environ.get("ODD_ENV_QUIET_COMPILE"):
            return
        dispatcher = (ev.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if module.split(".")[0] != "odd_env":
            return
        _said = True
        try:
            print(compile_notice(dispatcher), file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed: nothing to say it on
            pass

    def on_end(self, ev: Any) -> None:
        pass


event.register("numba:compile", _FirstCompile())


def stack_buffer(dtype: type, count: int):
    """A numba intrinsic ``buffer()`` returning a fresh ``dtype[count]`` array on the calling kernel's stack.

    It costs nothing at run time (the space is reserved in the kernel's frame once, not per call) and
    its contents start undefined, like ``np.empty``. The array lives as long as the kernel that called
    ``buffer()``: use it there and in what it calls, never return it. With ``NUMBA_DISABLE_JIT=1``
    ``buffer()`` is ``np.empty(count, dtype)``.
    """
    nb_type = from_dtype(np.dtype(dtype))
    array_type = types.Array(nb_type, 1, "C")
    if config.DISABLE_JIT:
        return lambda: np.empty(count, dtype)

    @intrinsic
    def buffer(typingctx):
        def codegen(context, builder, signature, args):
            item = context.get_value_type(nb_type)
            data = cgutils.alloca_once(builder, item, size=count)
            array = context.make_array(array_type)(context, builder)
            itemsize = context.get_abi_sizeof(item)
            context.populate_array(array, data=data, shape=[context.get_constant(types.intp, count)],
                                   strides=[context.get_constant(types.intp, itemsize)],
                                   itemsize=context.get_constant(types.intp, itemsize), meminfo=None)
            return array._getvalue()

        return array_type(), codegen

    return buffer
