/* Inputs of the tensor-core harnesses (gpu_conv.c, gpu_conv_nchw.c,
 * gpu_matmul_nk.c): f16 and i8 buffers of pseudo-random values and their
 * exact values as doubles, for double-precision references. Include after
 * harness.h. */
#ifndef TESSEL_TEST_TENSOR_CORE_INPUTS_H
#define TESSEL_TEST_TENSOR_CORE_INPUTS_H

#include <stdint.h>
#include <string.h>

static __attribute__((unused)) uint16_t to_f16(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, sizeof bits);
  return bits;
}

static __attribute__((unused)) double f16_value(const void *p, size_t i) {
  _Float16 h;
  memcpy(&h, (const uint16_t *)p + i, sizeof h);
  return (double)h;
}

static __attribute__((unused)) double i8_value(const void *p, size_t i) {
  return (double)((const int8_t *)p)[i];
}

typedef double (*value_fn)(const void *, size_t);

/* Values in [-1, 1) as f16, or in [-127, 127] as i8. */
static __attribute__((unused)) void *random_input(size_t count, uint64_t seed,
                                                  int is_i8) {
  float *f = random_f32(count, seed, -1.0f, 1.0f);
  void *out = harness_alloc(count, is_i8 ? 1 : 2);
  for (size_t i = 0; i < count; ++i) {
    if (is_i8)
      ((int8_t *)out)[i] = (int8_t)(f[i] * 127.0f);
    else
      ((uint16_t *)out)[i] = to_f16(f[i]);
  }
  harness_free(f);
  return out;
}

#endif /* TESSEL_TEST_TENSOR_CORE_INPUTS_H */
