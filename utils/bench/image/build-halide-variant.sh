#!/bin/sh
# Builds one Halide variant of the image benchmark: runs the generator of one
# workload with one autoscheduler plugin and links the object into a shared
# library that tessel-image-bench dlopens. An autoscheduler that fails (or a
# link that fails) is recorded in the status file instead of failing the
# build, so the other variants still run and the harness reports why this one
# is missing.
#
#   build-halide-variant.sh GENERATOR WORKLOAD SCHEDULER PLUGIN OUT_DIR \
#                           TARGET MACHINE_PARAMS CC
#
# Writes OUT_DIR/<workload>_<scheduler, lower case>.{so,o,h,schedule.h,log}
# and .status: key=value lines (status=ok|failed, reason=..., scheduler,
# target, machine_params, seconds, warning).
set -u
generator=$1 workload=$2 scheduler=$3 plugin=$4 out=$5 target=$6
machine_params=$7 cc=$8

name="${workload}_$(echo "$scheduler" | tr 'A-Z' 'a-z')"
log="$out/$name.log"
status="$out/$name.status"
rm -f "$out/$name.so" "$status"

write_status() { # status reason
  {
    echo "status=$1"
    echo "reason=$2"
    echo "scheduler=$scheduler"
    echo "target=$resolved_target"
    echo "machine_params=$machine_params"
    echo "seconds=$seconds"
    echo "warning=$warning"
  } >"$status.tmp" && mv "$status.tmp" "$status"
}

elapsed() { awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }

resolved_target=$target
seconds=0
warning=
start=$(date +%s.%N)
if [ ! -f "$plugin" ]; then
  echo "no plugin $plugin" >"$log"
  write_status failed "plugin $plugin not found"
  exit 0
fi
# auto_schedule=true with -s picks the autoscheduler the plugin registered;
# machine_params = parallelism,last-level cache bytes,balance (Halide 14).
# no_runtime: the variant uses the shared runtime library instead of a copy
# of its own (whose thread count and error handler nobody would set).
if ! "$generator" -g "$workload" -f "$name" -e object,c_header,schedule \
    -o "$out" -p "$plugin" -s "$scheduler" "target=$target-no_runtime" \
    auto_schedule=true "machine_params=$machine_params" >"$log" 2>&1; then
  seconds=$(elapsed)
  reason=$(grep -m1 -i 'error' "$log" | cut -c1-200)
  write_status failed "$scheduler did not schedule $workload: ${reason:-generator failed, see $log}"
  exit 0
fi
seconds=$(elapsed)
# The schedule header names the target the host string resolved to.
resolved=$(sed -n 's|^// for target=\([^ ]*\).*|\1|p' "$out/$name.schedule.h" 2>/dev/null | head -1)
[ -n "$resolved" ] && resolved_target=$resolved
# Halide proves some schedules wrong when it compiles them; the harness shows
# this next to the variant (and the run then reports Halide's error).
if grep -q 'guaranteed to fail an assertion at runtime' "$log"; then
  warning="Halide warned when compiling it: a pipeline is guaranteed to fail an assertion at runtime (see $log)"
fi
# One shared Halide runtime (thread pool, halide_set_num_threads) for all
# variants; found next to the variant through $ORIGIN.
if ! "$cc" -shared -o "$out/$name.so.tmp" "$out/$name.o" -L"$out" \
    -ltessel_halide_runtime '-Wl,-rpath,$ORIGIN' >>"$log" 2>&1; then
  write_status failed "linking $name.so failed, see $log"
  exit 0
fi
mv "$out/$name.so.tmp" "$out/$name.so"
write_status ok ""
