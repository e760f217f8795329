/* A stand-in for tessel-gpu-bench that prints its row through stdio (block
 * buffered into a pipe, unless the caller asks for lines) and then hangs,
 * as a kernel that never finishes would: gpu_bench_bars.test checks that
 * run-gpu-bench.sh keeps such a row. */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv) {
  printf("%s 4096x4096x4096 0.250 549.7 660.0 0.833 PASS (then hangs)\n",
         argc > 1 ? argv[1] : "row");
  sleep(60);
  return 0;
}
