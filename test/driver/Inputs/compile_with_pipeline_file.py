"""Runs tessel-compile with --pass-pipeline= set to the pipeline string in a
file, e.g. the one `tessel-compile --print-pipeline` wrote (lit's internal
shell has no command substitution):

  compile_with_pipeline_file.py PIPELINE_FILE TESSEL_COMPILE ARGS...
"""
import subprocess
import sys

pipeline_file, compiler = sys.argv[1:3]
with open(pipeline_file) as f:
    pipeline = f.read().strip()
result = subprocess.run([compiler, f"--pass-pipeline={pipeline}"] + sys.argv[3:])
sys.exit(result.returncode)
