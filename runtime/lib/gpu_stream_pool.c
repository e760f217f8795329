/* The stream pool shared by the CUDA and HIP runtimes; see
 * gpu_stream_pool.h. */
#include "gpu_stream_pool.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_common.h"

/* The count from 0 to `most` that the environment variable `name` sets,
 * or `fallback` when it is unset or empty; a value that is not such a count
 * is reported (as `reporter`, "tessel-cuda" say, says of the `what` it
 * limits) and `fallback` kept. */
static int env_count(const char *name, int fallback, int most,
                     const char *reporter, const char *what) {
  const char *text = getenv(name);
  if (!text || !*text)
    return fallback;
  char *end = NULL;
  long count = isdigit((unsigned char)text[0]) ? strtol(text, &end, 10) : -1;
  if (end && *end == '\0' && count >= 0 && count <= most)
    return (int)count;
  fprintf(stderr,
          "%s: %s='%s' is not a count from 0 to %d; keeping at most %d %s\n",
          reporter, name, text, most, fallback, what);
  return fallback;
}

/* Called with the pool's mutex held. */
static int pool_limit(tessel_stream_pool *pool) {
  if (pool->limit < 0)
    pool->limit = env_count(pool->limit_variable, 16, TESSEL_MAX_POOLED_STREAMS,
                            pool->reporter, "streams");
  return pool->limit;
}

/* Called with the pool's mutex held; false when out of memory. */
static bool track_live(tessel_stream_pool *pool, tessel_pooled_stream entry) {
  tessel_pooled_stream *grown = tessel_with_room_for_one(
      pool->live, pool->live_count, &pool->live_capacity, sizeof *pool->live);
  if (!grown)
    return false;
  pool->live = grown;
  pool->live[pool->live_count++] = entry;
  return true;
}

void *tessel_stream_pool_take(tessel_stream_pool *pool, int32_t device) {
  void *stream = NULL;
  pthread_mutex_lock(&pool->mutex);
  for (int i = pool->parked_count - 1; i >= 0; --i) {
    tessel_pooled_stream entry = pool->parked[i];
    if (entry.device != device)
      continue;
    if (!track_live(pool, entry))
      break; /* out of memory: the runtime makes an untracked one */
    pool->parked[i] = pool->parked[--pool->parked_count];
    stream = entry.stream;
    break;
  }
  pthread_mutex_unlock(&pool->mutex);
  return stream;
}

void tessel_stream_pool_track(tessel_stream_pool *pool, void *stream,
                              int32_t device) {
  pthread_mutex_lock(&pool->mutex);
  track_live(pool, (tessel_pooled_stream){stream, device});
  pthread_mutex_unlock(&pool->mutex);
}

tessel_stream_return tessel_stream_pool_give_back(tessel_stream_pool *pool,
                                                  void *stream,
                                                  int32_t *device) {
  tessel_stream_return what = TESSEL_STREAM_TO_DESTROY;
  pthread_mutex_lock(&pool->mutex);
  size_t i = 0;
  while (i < pool->live_count && pool->live[i].stream != stream)
    ++i;
  if (i < pool->live_count) {
    tessel_pooled_stream entry = pool->live[i];
    pool->live[i] = pool->live[--pool->live_count];
    if (pool->parked_count < pool_limit(pool)) {
      pool->parked[pool->parked_count++] = entry;
      what = TESSEL_STREAM_KEPT;
    } else {
      *device = entry.device;
    }
  } else {
    /* A kept stream destroyed again would be handed out destroyed. */
    for (int j = 0; j < pool->parked_count; ++j)
      if (pool->parked[j].stream == stream)
        what = TESSEL_STREAM_DESTROYED_TWICE;
  }
  pthread_mutex_unlock(&pool->mutex);
  return what;
}
