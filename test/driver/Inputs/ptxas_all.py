"""Runs ptxas on every .ptx file in a folder and fails on any it rejects,
that spills registers, or that has more than 16 bytes of static shared
memory (the tensor-core kernels keep all of theirs in the dynamic buffer,
which must start at the block's shared window for its 32-byte alignment):
`ptxas_all.py PTXAS ARCH DIR [STATIC_SMEM_LIMIT]`. The wgmma kernels align
their buffer at run time and keep their mbarriers in static shared memory:
they pass a larger limit. A kernel whose wgmma instructions ptxas
serializes (a warning, not an error: it would run at a fraction of the
tensor cores' rate) fails too, and so does a kernel whose dynamic shared
memory is declared as a static variable (`.shared .b8 __dynamic_shmem__0;`,
upstream's lowering) rather than `.extern .shared .b8 ...[]`: ptxas may
place static shared variables inside the range the kernel uses as its
dynamic buffer (tessel-externalize-dynamic-shared-memory). Prints one line
per kernel:
`OK <kernel> <registers> registers` or `FAIL <kernel>: <why>`."""
import os
import re
import subprocess
import sys

ptxas, arch, folder = sys.argv[1:4]
static_limit = int(sys.argv[4]) if len(sys.argv) > 4 else 16
files = sorted(f for f in os.listdir(folder) if f.endswith(".ptx"))
if not files:
    print(f"FAIL: no .ptx files in {folder}")
    sys.exit(1)
failed = 0
for name in files:
    kernel = name[: -len(".ptx")]
    run = subprocess.run([ptxas, f"-arch={arch}", "-v", os.path.join(folder, name),
                          "-o", os.devnull], capture_output=True, text=True)
    report = run.stdout + run.stderr
    with open(os.path.join(folder, name)) as ptx:
        static_dynamic = re.search(
            r"^[ \t]*\.shared[^;\n]*\b(__dynamic_shmem__\w*)\s*;", ptx.read(), re.M)
    spills = [int(n) for n in re.findall(r"(\d+) bytes spill stores", report)]
    registers = re.findall(r"Used (\d+) registers", report)
    static_smem = [int(n) for n in re.findall(r"(\d+) bytes smem", report)]
    if run.returncode != 0:
        failed += 1
        print(f"FAIL {kernel}: ptxas rejected it:\n{report}")
    elif static_dynamic:
        failed += 1
        print(f"FAIL {kernel}: its dynamic shared memory {static_dynamic.group(1)} "
              "is a static variable, which other static shared variables may follow")
    elif any(spills):
        failed += 1
        print(f"FAIL {kernel}: {max(spills)} bytes of register spills")
    elif static_smem and max(static_smem) > static_limit:
        failed += 1
        print(f"FAIL {kernel}: {max(static_smem)} bytes of static shared memory")
    elif "serialized" in report:
        failed += 1
        print(f"FAIL {kernel}: ptxas serializes its wgmma instructions:\n{report}")
    else:
        print(f"OK {kernel} {registers[0] if registers else '?'} registers")
sys.exit(1 if failed else 0)
