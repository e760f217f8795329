/* The streams a GPU runtime keeps for generated code (private header).
 * Generated host code creates a stream on every call, launches on it,
 * waits for it and destroys it; creating and destroying a stream costs
 * microseconds each, a sizeable part of a call whose kernel takes 50 us.
 * So a runtime keeps the streams it is given back (at most the count its
 * environment variable sets, default 16, 0 for none) and hands a kept one
 * of the same device out again. A kept stream may still have work queued
 * (code that destroys a stream without waiting for it); a later user's
 * work then runs after that work, an ordering the driver would have let it
 * skip but no program can rely on either way. The pool only keeps books:
 * the runtime makes and destroys the streams (on their own devices). */
#ifndef TESSEL_RUNTIME_GPU_STREAM_POOL_H
#define TESSEL_RUNTIME_GPU_STREAM_POOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum { TESSEL_MAX_POOLED_STREAMS = 64 };

typedef struct tessel_pooled_stream {
  void *stream;
  int32_t device;
} tessel_pooled_stream;

typedef struct tessel_stream_pool {
  pthread_mutex_t mutex;
  const char *limit_variable; /* TESSEL_CUDA_POOLED_STREAMS, say */
  const char *reporter;       /* "tessel-cuda", say */
  int limit;                  /* -1 until read from limit_variable */
  /* Streams the runtime made and handed out, with their devices (a stream
   * is kept with the device it belongs to, whatever the default device is
   * when it is destroyed). */
  tessel_pooled_stream *live;
  size_t live_count, live_capacity;
  tessel_pooled_stream parked[TESSEL_MAX_POOLED_STREAMS];
  int parked_count;
} tessel_stream_pool;

#define TESSEL_STREAM_POOL_INITIALIZER(limit_variable, reporter)               \
  {                                                                            \
    PTHREAD_MUTEX_INITIALIZER, limit_variable, reporter, -1, NULL, 0, 0,       \
        {{0}}, 0                                                               \
  }

/* A kept stream of `device`, handed out now; NULL when there is none. */
void *tessel_stream_pool_take(tessel_stream_pool *pool, int32_t device);

/* Books `stream`, just made on `device`, as handed out (when out of host
 * memory it is not booked, and is destroyed for real when given back). */
void tessel_stream_pool_track(tessel_stream_pool *pool, void *stream,
                              int32_t device);

typedef enum tessel_stream_return {
  TESSEL_STREAM_KEPT,
  TESSEL_STREAM_TO_DESTROY,      /* by the runtime, on *device */
  TESSEL_STREAM_DESTROYED_TWICE, /* kept already: report, do not destroy */
} tessel_stream_return;

/* What to do with `stream`, which generated code destroys. `*device` is
 * the default device on entry; for a stream the pool made and has no room
 * for, it becomes that stream's own device. */
tessel_stream_return tessel_stream_pool_give_back(tessel_stream_pool *pool,
                                                  void *stream,
                                                  int32_t *device);

#endif /* TESSEL_RUNTIME_GPU_STREAM_POOL_H */
