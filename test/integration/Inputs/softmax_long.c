/* Harness for softmax_long.mlir against the double-precision reference. */
#include "harness.h"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  check_softmax_at("6x3001", 6, 3001, 91, _mlir_ciface_softmax, 0);
  return harness_finish();
}
