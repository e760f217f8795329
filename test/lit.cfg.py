# lit configuration for Tessel. Run through the build tree's lit.site.cfg.py.
import glob
import os
import subprocess
import sys

import lit.formats

config.name = "Tessel"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessel_obj_root, "test")

# Stock LLVM 22 tools first, then Tessel's own binaries.
path = [config.llvm_tools_dir, os.path.join(config.tessel_obj_root, "bin")]
config.environment["PATH"] = os.pathsep.join(path + [config.environment.get("PATH", os.environ["PATH"])])
for var in ("HOME", "TMPDIR", "OMP_NUM_THREADS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# Emulated GPU blocks are OpenMP teams of up to 256 threads; on a 2-core CI
# host, threads spinning at a barrier take the cores from the ones they wait
# for (measured: the attention test's binary 143 s spinning, 63 s sleeping).
# No test measures time, so waiting threads sleep.
config.environment["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY", "passive")

plugin = config.tessel_plugin
config.substitutions.append(("%tessel_plugin", plugin))
# `tessel-opt` is the stock mlir-opt-22 with the plugin loaded both ways.
config.substitutions.append(
    ("%tessel-opt", f"mlir-opt --load-dialect-plugin={plugin} --load-pass-plugin={plugin}"))
config.substitutions.append(("%tessel_src", config.tessel_src_root))
config.substitutions.append(("%tessel_bin", os.path.join(config.tessel_obj_root, "bin")))
config.substitutions.append(("%tessel_lib", os.path.join(config.tessel_obj_root, "lib")))
config.substitutions.append(("%rocm_path", config.tessel_rocm_path))
runtime_inc = os.path.join(config.tessel_src_root, "runtime", "include")
# _DEFAULT_SOURCE: the harnesses' guard pages need mmap (POSIX), which
# strict C11 does not declare.
config.substitutions.append(
    ("%cc", f"clang -O2 -std=c11 -D_DEFAULT_SOURCE -I{runtime_inc} -I{os.path.join(config.tessel_obj_root, 'include')}"))

config.substitutions.append(("%python", sys.executable))

# The GPU runtime libraries are optional build products (they need cuda.h, or
# the HIP headers and libamdhip64); tests that use one require its feature.
for library, feature in (("libtessel_cuda_runtime.so", "tessel-cuda-runtime"),
                         ("libtessel_hip_runtime.so", "tessel-hip-runtime")):
    if os.path.exists(os.path.join(config.tessel_obj_root, "lib", library)):
        config.available_features.add(feature)
# The stand-in libamdhip64 (runtime/CMakeLists.txt builds it where the real
# library's symbol versions allow).
if glob.glob(os.path.join(config.tessel_obj_root, "fake-hip", "libamdhip64.so.*")):
    config.available_features.add("tessel-fake-hip")

# The CPU tests' remark checks name AVX-512 decisions (512-bit vectors,
# 32 registers); on a host without it the same programs compile for AVX2
# and are still run and checked against their references.
def _host_has_avx512():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return any(line.startswith("flags") and " avx512f" in line for line in cpuinfo)
    except OSError:
        return False

if _host_has_avx512():
    config.available_features.add("host-avx512")
else:
    lit_config.note("host without AVX-512: remark checks of AVX-512 code generation are skipped")

ptxas = config.tessel_ptxas
if ptxas and os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

def _has_nvidia_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=20).returncode == 0
    except Exception:
        return False

if _has_nvidia_gpu():
    config.available_features.add("cuda-gpu")
else:
    lit_config.note("no NVIDIA GPU: GPU execution tests are skipped (they are marked REQUIRES: cuda-gpu)")
