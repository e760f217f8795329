"""AOT: a .so and a .h callable from C, with no Python in the process."""
import shutil
import subprocess

import numpy as np
import pytest

import tessel

C_MAIN = r"""
#include <math.h>
#include <stdio.h>
#include "scale_shift.h"
int main(void) {
  float x[2][3], y[2][3];
  for (int i = 0; i < 6; ++i) x[i / 3][i % 3] = (float)i;
  tessel_memref_f32_2d in = {&x[0][0], &x[0][0], 0, {2, 3}, {3, 1}};
  tessel_memref_f32_2d out = {&y[0][0], &y[0][0], 0, {2, 3}, {3, 1}};
  _mlir_ciface_scale_shift(&in, &out);
  for (int i = 0; i < 6; ++i)
    if (fabsf(y[i / 3][i % 3] - (2.0f * i + 1.0f)) > 1e-6f) { printf("bad %d\n", i); return 1; }
  printf("ok\n");
  return 0;
}
"""


def scale_shift(x):
    return x * 2.0 + 1.0


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_aot_library_is_callable_from_c(tmp_path, framework):
    cc = shutil.which("clang-22") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    if framework == "torch":
        torch = pytest.importorskip("torch")
        example = (torch.zeros(2, 3),)
    else:
        pytest.importorskip("jax")
        example = (np.zeros((2, 3), np.float32),)
    so, header = tessel.aot_compile(scale_shift, example, target="cpu", output=tmp_path / "scale_shift.so")
    assert so.exists() and header.exists()
    assert "_mlir_ciface_scale_shift(" in header.read_text()
    (tmp_path / "main.c").write_text(C_MAIN)
    exe = tmp_path / "main"
    subprocess.run([cc, "-O1", str(tmp_path / "main.c"), "-I", str(tmp_path), str(so), "-lm",
                    f"-Wl,-rpath,{tmp_path}", "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout == "ok\n"


def test_aot_zero_d_numpy_input(tmp_path):
    # A numpy scalar traces as a 0-d array, and the literal beside it as a
    # rank-0 constant.
    import ctypes
    pytest.importorskip("jax")

    def double_plus_one(x):
        return x * 2 + 1
    so, header = tessel.aot_compile(double_plus_one, (np.float32(0),), output=tmp_path / "d.so")
    assert "tessel_memref_f32_0d *arg0" in header.read_text()

    class Memref0d(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64)]
    x, y = np.array(3.0, np.float32), np.zeros((), np.float32)
    descs = [Memref0d(a.ctypes.data, a.ctypes.data, 0) for a in (x, y)]
    ctypes.CDLL(str(so))._mlir_ciface_double_plus_one(*(ctypes.byref(d) for d in descs))
    assert y == double_plus_one(x)
