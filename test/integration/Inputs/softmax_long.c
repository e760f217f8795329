/* Harness for softmax_long.mlir against the double-precision reference. */
#include "harness.h"

/* The rows the program was compiled for (sed'd copies take more). */
#ifndef SOFTMAX_ROWS
#define SOFTMAX_ROWS 6
#endif
#define STRINGIFY(x) #x
#define SHAPE(rows) STRINGIFY(rows) "x3001"

int main(int argc, char **argv) {
  harness_init(argc, argv);
  check_softmax_at(SHAPE(SOFTMAX_ROWS), SOFTMAX_ROWS, 3001, 91,
                   _mlir_ciface_softmax, 0);
  return harness_finish();
}
