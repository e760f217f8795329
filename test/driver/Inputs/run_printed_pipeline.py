"""Runs mlir-opt with the plugin and the pipeline string that
`tessel-compile --print-pipeline` wrote to a file, on an input file, and
prints the result (lit's internal shell has no command substitution)."""
import subprocess
import sys

pipeline_file, input_file, mlir_opt, plugin = sys.argv[1:5]
with open(pipeline_file) as f:
    pipeline = f.read().strip()
result = subprocess.run(
    [mlir_opt, f"--load-dialect-plugin={plugin}", f"--load-pass-plugin={plugin}",
     f"--pass-pipeline={pipeline}", input_file])
sys.exit(result.returncode)
