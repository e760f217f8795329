/* Harness for attention.mlir: softmax(Q K^T s) V against a double-precision
 * reference, batched and unbatched, plus the unfused case that also
 * returns the probabilities. */
#include "harness.h"

/* out[b][i][:] = softmax_j(scale * sum_d q[b][i][d] k(b, j, d)) v[b][j][:],
 * with K given as k[b][j][d] (kt == 0) or as K^T, kt[b][d][j]; probs (may
 * be NULL) receives the probabilities. */
static double *attention_reference(const float *q, const float *k, int kt,
                                   const float *v, int64_t batch, int64_t sq,
                                   int64_t d, int64_t skv, int64_t dv,
                                   double scale, double *probs) {
  double *out = alloc_f64((size_t)(batch * sq * dv));
  double *row = alloc_f64((size_t)skv);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < sq; ++i) {
      const float *qi = q + (b * sq + i) * d;
      double mx = -INFINITY, sum = 0.0;
      for (int64_t j = 0; j < skv; ++j) {
        double s = 0.0;
        for (int64_t p = 0; p < d; ++p)
          s += (double)qi[p] * (double)(kt ? k[(b * d + p) * skv + j]
                                           : k[(b * skv + j) * d + p]);
        row[j] = s * scale;
        if (row[j] > mx)
          mx = row[j];
      }
      for (int64_t j = 0; j < skv; ++j)
        sum += (row[j] = exp(row[j] - mx));
      double *o = out + (b * sq + i) * dv;
      for (int64_t c = 0; c < dv; ++c)
        o[c] = 0.0;
      for (int64_t j = 0; j < skv; ++j) {
        double p = row[j] / sum;
        if (probs)
          probs[(b * sq + i) * skv + j] = p;
        for (int64_t c = 0; c < dv; ++c)
          o[c] += p * (double)v[(b * skv + j) * dv + c];
      }
    }
  harness_free(row);
  return out;
}

/* Rows whose scores grow from one key block to the next (the running max
 * and the rescaling of what was accumulated are exercised) and one row
 * whose scores would overflow a naive exp. */
static void shape_scores(float *q, float *k, int kt, int64_t batch,
                         int64_t sq, int64_t d, int64_t skv) {
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t p = 0; p < d; ++p)
      q[(b * sq + 5) * d + p] *= 40.0f;
    for (int64_t j = 0; j < skv; ++j) {
      float ramp = 1.0f + 3.0f * (float)j / (float)skv;
      for (int64_t p = 0; p < d; ++p)
        k[kt ? (b * d + p) * skv + j : (b * skv + j) * d + p] *= ramp;
    }
  }
}

static void run_batched(void) {
  const int64_t b = 4, s = 256, d = 64;
  const size_t n = (size_t)(b * s * d);
  float *q = random_f32(n, 81, -1.0f, 1.0f), *k = random_f32(n, 82, -1.0f, 1.0f);
  float *v = random_f32(n, 83, -1.0f, 1.0f), *o = alloc_f32(n);
  shape_scores(q, k, 0, b, s, d, s);
  poison_f32(o, n);
  double *ref = attention_reference(q, k, 0, v, b, s, d, s, d, 0.125, NULL);
  tessel_memref_f32_3d dq, dk, dv, dout;
  tessel_memref_f32_init_3d(&dq, q, b, s, d);
  tessel_memref_f32_init_3d(&dk, k, b, s, d);
  tessel_memref_f32_init_3d(&dv, v, b, s, d);
  tessel_memref_f32_init_3d(&dout, o, b, s, d);
  _mlir_ciface_attention_batched(&dq, &dk, &dv, &dout);
  check_f32("attention_batched", "4x256x64", o, ref, n, 1e-4, 1e-5);
  harness_free(q); harness_free(k); harness_free(v); harness_free(o);
  harness_free(ref);
}

static void run_single(void) {
  const int64_t sq = 128, d = 40, skv = 192, dv = 48;
  float *q = random_f32((size_t)(sq * d), 84, -1.0f, 1.0f);
  float *kt = random_f32((size_t)(d * skv), 85, -1.0f, 1.0f);
  float *v = random_f32((size_t)(skv * dv), 86, -1.0f, 1.0f);
  float *o = alloc_f32((size_t)(sq * dv));
  shape_scores(q, kt, 1, 1, sq, d, skv);
  poison_f32(o, (size_t)(sq * dv));
  double *ref = attention_reference(q, kt, 1, v, 1, sq, d, skv, dv,
                                    1.0 / 6.32455532, NULL);
  tessel_memref_f32_2d dq, dk, dvv, dout;
  tessel_memref_f32_init_2d(&dq, q, sq, d);
  tessel_memref_f32_init_2d(&dk, kt, d, skv);
  tessel_memref_f32_init_2d(&dvv, v, skv, dv);
  tessel_memref_f32_init_2d(&dout, o, sq, dv);
  _mlir_ciface_attention_single(&dq, &dk, &dvv, &dout);
  check_f32("attention_single", "128x40x192x48", o, ref, (size_t)(sq * dv),
            1e-4, 1e-5);
  harness_free(q); harness_free(kt); harness_free(v); harness_free(o);
  harness_free(ref);
}

static void run_weights(void) {
  const int64_t b = 2, sq = 32, d = 16, skv = 64, dv = 16;
  float *q = random_f32((size_t)(b * sq * d), 87, -1.0f, 1.0f);
  float *kt = random_f32((size_t)(b * d * skv), 88, -1.0f, 1.0f);
  float *v = random_f32((size_t)(b * skv * dv), 89, -1.0f, 1.0f);
  float *o = alloc_f32((size_t)(b * sq * dv));
  float *p = alloc_f32((size_t)(b * sq * skv));
  poison_f32(o, (size_t)(b * sq * dv));
  poison_f32(p, (size_t)(b * sq * skv));
  double *pref = alloc_f64((size_t)(b * sq * skv));
  double *ref = attention_reference(q, kt, 1, v, b, sq, d, skv, dv, 1.0, pref);
  tessel_memref_f32_3d dq, dk, dvv, dout, dp;
  tessel_memref_f32_init_3d(&dq, q, b, sq, d);
  tessel_memref_f32_init_3d(&dk, kt, b, d, skv);
  tessel_memref_f32_init_3d(&dvv, v, b, skv, dv);
  tessel_memref_f32_init_3d(&dout, o, b, sq, dv);
  tessel_memref_f32_init_3d(&dp, p, b, sq, skv);
  _mlir_ciface_attention_weights(&dq, &dk, &dvv, &dout, &dp);
  check_f32("attention_weights", "output 2x32x16", o, ref,
            (size_t)(b * sq * dv), 1e-4, 1e-5);
  check_f32("attention_weights", "probabilities 2x32x64", p, pref,
            (size_t)(b * sq * skv), 1e-4, 1e-7);
  harness_free(q); harness_free(kt); harness_free(v); harness_free(o);
  harness_free(p); harness_free(ref); harness_free(pref);
}

int main(int argc, char **argv) {
  harness_init(argc, argv);
  run_batched();
  run_single();
  run_weights();
  return harness_finish();
}
