/* libtessel_cuda_runtime.so's reuse of freed device blocks, run against
 * fake_cuda_driver.c (linked as libcuda.so.1, which the runtime then finds
 * already loaded): which mgpuMemAlloc / mgpuMemFree calls reach the
 * driver. `tessel-cuda-block-reuse LIMIT` expects
 * TESSEL_CUDA_CACHED_BYTES=LIMIT in the environment (unset: the default);
 * `misuse` (default limit) checks the errors it reports, `tensor-maps` and
 * `tensor-maps-launch` the cache of TMA descriptors' device copies,
 * `constants` the device copies of constants that TMA reads. Prints one
 * line per check and "ALL CHECKS PASSED" or "FAILED". */
#include "tessel/gpu_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int fake_cuda_device_allocs, fake_cuda_managed_allocs, fake_cuda_frees,
    fake_cuda_failing_allocs, fake_cuda_failing_uploads, fake_cuda_uploads;

extern int fake_cuda_stream_creates, fake_cuda_stream_destroys;
extern int fake_cuda_module_loads[2], fake_cuda_module_unloads[2],
    fake_cuda_launches[2], fake_cuda_wrong_context_uses,
    fake_cuda_function_attribute_sets;
extern int fake_cuda_hold_work, fake_cuda_track_pointer_params,
    fake_cuda_hazards, fake_cuda_stream_syncs, fake_cuda_event_records,
    fake_cuda_event_syncs, fake_cuda_stream_waits, fake_cuda_live_events;
int fake_cuda_unfinished_launches(void);
void fake_cuda_finish_work(void);

static int failures;

static void expect(int ok, const char *what) {
  printf("%s %s (driver: %d allocations, %d managed, %d frees)\n",
         ok ? "PASS" : "FAIL", what, fake_cuda_device_allocs,
         fake_cuda_managed_allocs, fake_cuda_frees);
  failures += !ok;
}

/* The default limit (1 GiB) and count (16 blocks). */
static void default_limit(void) {
  void *a = mgpuMemAlloc(1000, NULL, false);
  mgpuMemFree(a, NULL);
  expect(fake_cuda_device_allocs == 1 && fake_cuda_frees == 0,
         "a freed block stays allocated");
  void *again = mgpuMemAlloc(1000, NULL, false);
  expect(again == a && fake_cuda_device_allocs == 1,
         "an allocation of its size takes it back");
  void *other = mgpuMemAlloc(2000, NULL, false);
  expect(other != a && fake_cuda_device_allocs == 2,
         "another size gets a block of its own");
  memset(again, 1, 1000); /* both usable at once */
  memset(other, 2, 2000);
  mgpuMemFree(again, NULL);
  mgpuMemFree(other, NULL);
  void *managed = mgpuMemAlloc(1000, NULL, true);
  expect(managed != a && fake_cuda_managed_allocs == 1,
         "managed memory never takes a device block");
  mgpuMemFree(managed, NULL);
  expect(fake_cuda_frees == 1, "managed memory is freed at once");
  /* 17 more sizes: with the two cached blocks, 19 offered to a cache of
   * 16, so the 3 oldest (1000, 2000 and the first new one) are freed. */
  void *blocks[17];
  for (int i = 0; i < 17; ++i)
    blocks[i] = mgpuMemAlloc((uint64_t)(3000 + i), NULL, false);
  for (int i = 0; i < 17; ++i)
    mgpuMemFree(blocks[i], NULL);
  expect(fake_cuda_device_allocs == 19 && fake_cuda_frees == 4,
         "at most 16 blocks are kept, the oldest freed first");
  void *first = mgpuMemAlloc(1000, NULL, false);
  void *newest = mgpuMemAlloc(3016, NULL, false);
  expect(fake_cuda_device_allocs == 20 && newest == blocks[16],
         "an evicted size is allocated again; a kept one is reused");
  mgpuMemFree(first, NULL);
  mgpuMemFree(newest, NULL);
  mgpuMemFree(NULL, NULL);
  expect(fake_cuda_frees == 5, "freeing NULL does nothing");
  /* 16 blocks are kept now: when the driver runs out of memory they go
   * back to it and the allocation is tried again (nothing reported). */
  fake_cuda_failing_allocs = 1;
  void *retried = mgpuMemAlloc(5000, NULL, false);
  expect(retried != NULL && fake_cuda_frees == 21 &&
             fake_cuda_device_allocs == 21,
         "out of memory, kept blocks are freed and the allocation retried");
  mgpuMemFree(retried, NULL);
}

/* Errors: out of memory with nothing kept, and a block freed twice. */
static void misuse(void) {
  fake_cuda_failing_allocs = 1;
  void *none = mgpuMemAlloc(1000, NULL, false);
  expect(none == NULL && fake_cuda_device_allocs == 0,
         "out of memory with nothing kept fails");
  void *a = mgpuMemAlloc(1000, NULL, false);
  mgpuMemFree(a, NULL);
  mgpuMemFree(a, NULL);
  expect(fake_cuda_frees == 0, "a block freed twice is reported, not freed");
  void *b = mgpuMemAlloc(1000, NULL, false);
  void *c = mgpuMemAlloc(1000, NULL, false);
  expect(b == a && c != a && fake_cuda_device_allocs == 2,
         "and it is handed out only once");
  mgpuMemFree(b, NULL);
  mgpuMemFree(c, NULL);
}

/* TESSEL_CUDA_CACHED_BYTES=1500: a 1000-byte block is kept, a 2000-byte
 * one is freed at once, and a second 1000-byte block pushes the first out. */
static void small_limit(void) {
  void *a = mgpuMemAlloc(1000, NULL, false);
  void *b = mgpuMemAlloc(2000, NULL, false);
  mgpuMemFree(b, NULL);
  expect(fake_cuda_frees == 1, "a block over the limit is freed at once");
  void *c = mgpuMemAlloc(1000, NULL, false);
  mgpuMemFree(a, NULL);
  mgpuMemFree(c, NULL);
  expect(fake_cuda_frees == 2, "kept bytes stay under the limit");
  void *d = mgpuMemAlloc(1000, NULL, false);
  expect(d == c && fake_cuda_device_allocs == 3,
         "the newest block is the one kept");
  mgpuMemFree(d, NULL);
}

/* TESSEL_CUDA_CACHED_BYTES=0: nothing is kept. */
static void no_reuse(void) {
  void *a = mgpuMemAlloc(1000, NULL, false);
  mgpuMemFree(a, NULL);
  mgpuMemAlloc(1000, NULL, false);
  expect(fake_cuda_device_allocs == 2 && fake_cuda_frees == 1,
         "with a limit of 0 every free reaches the driver");
}

/* The tensor map (UINT8, 64x128 boxes) of a 64x128 view starting `offset`
 * bytes into `buffer`: one distinct map per offset. */
static char map_buffer[1 << 20];

static void *map_at(int64_t offset) {
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } view = {map_buffer, map_buffer, offset, {64, 128}, {128, 1}};
  int64_t box[2] = {64, 128};
  return mgpuTensorMapEncodeTiledMemref(2, &view, 0, 0, 3, 0, 0, box);
}

static void *map_from_another_thread(void *offset) {
  return map_at((int64_t)(intptr_t)offset);
}

/* As generated code: the map's kernel is waited for before the thread
 * exits. */
static void *map_and_wait_on_another_thread(void *offset) {
  void *map = map_at((int64_t)(intptr_t)offset);
  mgpuStreamSynchronize(NULL);
  return map;
}

/* The runtime keeps 256 device copies of tensor maps: a known map is not
 * uploaded again, and past 256 the least recently used idle map has its
 * copy overwritten, whichever thread made it, never one two threads
 * used. */
static void tensor_maps(void) {
  void *maps[256];
  int distinct = 1;
  for (int i = 0; i < 256; ++i) {
    maps[i] = map_at(16 * i);
    for (int j = 0; j < i; ++j)
      distinct &= maps[j] != maps[i];
  }
  /* As after a kernel that read them: they may be overwritten now. */
  mgpuStreamSynchronize(NULL);
  expect(distinct && fake_cuda_device_allocs == 256 && fake_cuda_uploads == 256,
         "256 maps get a device copy each");
  expect(map_at(0) == maps[0] && fake_cuda_uploads == 256,
         "a known map is not uploaded again");
  void *next = map_at(16 * 256);
  expect(next == maps[1] && fake_cuda_device_allocs == 256 &&
             fake_cuda_uploads == 257 &&
             *(char **)next == map_buffer + 16 * 256,
         "map 257 overwrites the least recently used copy (map 1)");
  expect(map_at(16) == maps[2] && fake_cuda_uploads == 258,
         "an overwritten map is encoded again, into the next oldest copy");
  /* Another thread uses map 3: it is never overwritten now. */
  pthread_t thread;
  void *seen = NULL;
  pthread_create(&thread, NULL, map_from_another_thread,
                 (void *)(intptr_t)(16 * 3));
  pthread_join(thread, &seen);
  for (int i = 0; i < 300; ++i) {
    map_at(16 * (1000 + i));
    mgpuStreamSynchronize(NULL);
  }
  int uploads = fake_cuda_uploads;
  expect(seen == maps[3] && map_at(16 * 3) == maps[3] &&
             fake_cuda_uploads == uploads && fake_cuda_device_allocs == 256,
         "a map two threads used keeps its copy");
  /* Another thread's new map takes the least recently used copy that no
   * kernel reads, one the main thread made (map 1045: the table holds map
   * 3 and maps 1045-1299). */
  void *main_copy = map_at(16 * 1045);
  mgpuStreamSynchronize(NULL);
  for (int i = 1046; i < 1300; ++i)
    map_at(16 * i);
  mgpuStreamSynchronize(NULL);
  pthread_create(&thread, NULL, map_and_wait_on_another_thread,
                 (void *)(intptr_t)(16 * 5000));
  pthread_join(thread, &seen);
  void *dead_threads_copy = seen;
  expect(seen == main_copy && fake_cuda_device_allocs == 256 &&
             fake_cuda_uploads == uploads + 1,
         "another thread takes an idle copy the main thread made");
  /* The main thread hands out all its maps again (1046-1299) and does not
   * wait: they are in use. The next thread's map takes the exited
   * thread's copy, whose kernel it waited for. */
  for (int i = 1046; i < 1300; ++i)
    map_at(16 * i);
  pthread_create(&thread, NULL, map_from_another_thread,
                 (void *)(intptr_t)(16 * 5001));
  pthread_join(thread, &seen);
  expect(seen == dead_threads_copy && fake_cuda_device_allocs == 256,
         "an exited thread's idle copy is taken");
  /* That thread did not wait (as if its kernel were still queued): with
   * every copy in use or shared, the next map gets a copy apart. */
  pthread_create(&thread, NULL, map_from_another_thread,
                 (void *)(intptr_t)(16 * 5002));
  pthread_join(thread, &seen);
  expect(seen != NULL && seen != dead_threads_copy &&
             fake_cuda_device_allocs == 257,
         "with no copy idle, a new map gets a copy apart");
  mgpuStreamSynchronize(NULL);
}

/* A thread makes a kernel's three maps (`out[0..2]`, and the addresses
 * their copies hold when the kernel would run in `out[4..6]`), then
 * synchronizes and makes one more (`out[3]`). */
static void *three_maps_then_one(void *maps) {
  void **out = maps;
  for (int i = 0; i < 3; ++i)
    out[i] = map_at(16 * (2000 + i));
  for (int i = 0; i < 3; ++i)
    out[4 + i] = *(void **)out[i];
  mgpuStreamSynchronize(NULL);
  out[3] = map_at(16 * 2003);
  return NULL;
}

/* The maps of one launch never share a copy: with the table full of the
 * main thread's maps but one, all handed out since its last wait (in use),
 * a second thread's first map takes the last slot, and its next two, made
 * before it synchronizes, may not overwrite that one (its kernel is not
 * launched yet): they get copies of their own. After it synchronizes, its
 * next map reuses the slot. */
static void tensor_maps_of_one_launch(void) {
  for (int i = 0; i < 255; ++i)
    map_at(16 * i);
  void *maps[7];
  pthread_t thread;
  pthread_create(&thread, NULL, three_maps_then_one, maps);
  pthread_join(thread, NULL);
  expect(maps[0] != maps[1] && maps[1] != maps[2] && maps[0] != maps[2] &&
             maps[4] == map_buffer + 16 * 2000 &&
             maps[5] == map_buffer + 16 * 2001 &&
             maps[6] == map_buffer + 16 * 2002 &&
             fake_cuda_device_allocs == 258,
         "a launch's maps made before a synchronization get copies apart");
  expect(maps[3] == maps[0] && *(char **)maps[3] == map_buffer + 16 * 2003 &&
             fake_cuda_device_allocs == 258,
         "after it, the thread's own least recently used copy is reused");
}

/* Device copies of constants (tesselTensorMapEncodeTiledConstant): a
 * constant's bytes are uploaded once per module slot and device, and each
 * map describes the view of the copy that the host view describes of the
 * constant. */
static char constant_bytes[4096];

/* The map (UINT8, boxes of 16x128) of rows `row` .. row + 15 of the 32x128
 * constant above, as compiled code passes it: a view of the host bytes. */
static void *constant_map(uint64_t *slot, int64_t row, int64_t bytes) {
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } view = {constant_bytes, constant_bytes, row * 128, {16, 128}, {128, 1}};
  int64_t box[2] = {16, 128};
  return tesselTensorMapEncodeTiledConstant(slot, constant_bytes, bytes, 2,
                                            &view, 0, 0, 3, 0, 0, box);
}

static void constants(void) {
  for (int i = 0; i < 4096; ++i)
    constant_bytes[i] = (char)(i * 7);
  uint64_t slot = 0;
  void *map = constant_map(&slot, 8, 4096);
  char *copy = map ? *(char **)map - 8 * 128 : NULL;
  expect(map && slot != 0 && fake_cuda_device_allocs == 2 &&
             fake_cuda_uploads == 2 && copy != constant_bytes &&
             memcmp(copy, constant_bytes, 4096) == 0,
         "the first map uploads the constant, and describes the copy");
  void *rows0 = constant_map(&slot, 0, 4096);
  expect(rows0 && *(char **)rows0 == copy && fake_cuda_device_allocs == 3 &&
             fake_cuda_uploads == 3,
         "another view of it reads the same copy (only its map is new)");
  expect(constant_map(&slot, 8, 4096) == map && fake_cuda_uploads == 3,
         "a known map of it costs nothing");
  uint64_t reloaded = 0;
  void *other = constant_map(&reloaded, 8, 4096);
  expect(other && reloaded != slot && *(char **)other != copy + 8 * 128 &&
             fake_cuda_uploads == 5,
         "a module loaded again (a fresh slot) gets a copy of its own");
  mgpuSetDefaultDevice(1);
  void *second = constant_map(&slot, 8, 4096);
  expect(second && *(char **)second != copy + 8 * 128 && fake_cuda_uploads == 7,
         "another device gets a copy of its own");
  mgpuSetDefaultDevice(0);
  expect(constant_map(&slot, 8, 4096) == map && fake_cuda_uploads == 7,
         "and the first device still has its copy");
  int allocs = fake_cuda_device_allocs;
  expect(constant_map(&slot, 24, 4096) == NULL &&
             fake_cuda_device_allocs == allocs,
         "a view past the constant's end is refused");
  uint64_t failing = 0;
  fake_cuda_failing_allocs = 1;
  expect(constant_map(&failing, 0, 4096) == NULL && failing != 0,
         "a failed allocation for the copy is reported");
  fake_cuda_failing_uploads = 1;
  expect(constant_map(&failing, 0, 4096) == NULL && fake_cuda_frees == 1,
         "a failed upload is reported, and its block freed");
  void *retried = constant_map(&failing, 0, 4096);
  expect(retried && *(char **)retried != copy && fake_cuda_frees == 1,
         "and tried again on the next call");
  int uploads = fake_cuda_uploads;
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } other_view = {constant_bytes, constant_bytes, 0, {16, 128}, {128, 1}};
  int64_t box[2] = {16, 128};
  expect(tesselTensorMapEncodeTiledConstant(&slot, constant_bytes, 2048, 2,
                                            &other_view, 0, 0, 3, 0, 0,
                                            box) == NULL &&
             fake_cuda_uploads == uploads,
         "a slot used for another constant is reported, not read");
}

static void *create_stream_on_thread(void *result) {
  void *stream = mgpuStreamCreate();
  *(void **)result = stream;
  mgpuStreamDestroy(stream);
  return NULL;
}

/* Streams: kept from one call of generated code (create, launch, wait,
 * destroy) to the next, per device; a stream lent to the thread is used
 * instead and never destroyed. */
static void streams(void) {
  void *first = mgpuStreamCreate();
  mgpuStreamDestroy(first);
  void *again = mgpuStreamCreate();
  expect(first && again == first && fake_cuda_stream_creates == 1 &&
             fake_cuda_stream_destroys == 0,
         "a destroyed stream is handed out again");
  void *second = mgpuStreamCreate();
  expect(second && second != again && fake_cuda_stream_creates == 2,
         "two streams in use at once are two streams");
  mgpuStreamDestroy(second);
  mgpuStreamDestroy(again);
  mgpuSetDefaultDevice(1);
  void *other_device = mgpuStreamCreate();
  expect(other_device != first && other_device != second &&
             fake_cuda_stream_creates == 3,
         "another device never gets them");
  mgpuSetDefaultDevice(0);
  mgpuStreamDestroy(other_device); /* kept for device 1, whatever is current */
  mgpuSetDefaultDevice(1);
  expect(mgpuStreamCreate() == other_device && fake_cuda_stream_creates == 3,
         "a stream is kept for its own device");
  mgpuStreamDestroy(other_device);
  mgpuSetDefaultDevice(0);
  /* 20 at once on device 0: the 2 kept ones and 18 new; destroyed, 15
   * join device 1's kept one and 5 go back to the driver. */
  void *many[20];
  for (int i = 0; i < 20; ++i)
    many[i] = mgpuStreamCreate();
  for (int i = 0; i < 20; ++i)
    mgpuStreamDestroy(many[i]);
  expect(fake_cuda_stream_creates == 21 && fake_cuda_stream_destroys == 5,
         "at most 16 streams are kept");
  void *lent = malloc(1);
  tessel_cuda_set_stream(lent);
  int creates = fake_cuda_stream_creates;
  void *used = mgpuStreamCreate();
  mgpuStreamDestroy(used);
  expect(used == lent && tessel_cuda_stream() == lent &&
             fake_cuda_stream_creates == creates &&
             fake_cuda_stream_destroys == 5,
         "a lent stream is used and never destroyed");
  pthread_t thread;
  void *elsewhere = NULL;
  expect(pthread_create(&thread, NULL, create_stream_on_thread, &elsewhere) ==
                 0 &&
             pthread_join(thread, NULL) == 0 && elsewhere && elsewhere != lent,
         "a stream is lent to one thread only");
  mgpuSetDefaultDevice(1);
  void *on_device_1 = mgpuStreamCreate();
  expect(on_device_1 && on_device_1 != lent,
         "nor used on another device than it was lent on");
  mgpuStreamDestroy(on_device_1);
  /* With the pool full (15 of device 0's, 1 of device 1's), a stream of
   * device 1 destroyed while device 0 is the default goes back to the
   * driver in device 1's context (the stand-in fails it in another). */
  void *kept_one = mgpuStreamCreate(), *new_one = mgpuStreamCreate();
  mgpuSetDefaultDevice(0);
  mgpuStreamDestroy(kept_one);
  mgpuStreamDestroy(new_one);
  expect(fake_cuda_stream_destroys == 6 && fake_cuda_wrong_context_uses == 0,
         "a stream no longer kept is destroyed in its own device's context");
  mgpuStreamDestroy((void *)1); /* CU_STREAM_LEGACY */
  expect(fake_cuda_stream_destroys == 6,
         "the legacy default stream is never destroyed");
  tessel_cuda_set_stream(NULL);
  void *own = mgpuStreamCreate();
  expect(own && own != lent && tessel_cuda_stream() == NULL,
         "taken back, the runtime's own streams are used again");
  mgpuStreamDestroy(own);
  free(lent);
}

/* TESSEL_CUDA_POOLED_STREAMS=0: every stream goes back to the driver. */
static void streams_unpooled(void) {
  void *first = mgpuStreamCreate();
  mgpuStreamDestroy(first);
  void *second = mgpuStreamCreate();
  mgpuStreamDestroy(second);
  expect(first && second && fake_cuda_stream_creates == 2 &&
             fake_cuda_stream_destroys == 2,
         "no stream is kept");
}

/* A kept stream destroyed again is reported and stays kept once. */
static void streams_misuse(void) {
  void *stream = mgpuStreamCreate();
  mgpuStreamDestroy(stream);
  mgpuStreamDestroy(stream);
  void *first = mgpuStreamCreate();
  void *second = mgpuStreamCreate();
  expect(first == stream && second != stream && fake_cuda_stream_destroys == 0,
         "a stream destroyed twice is reported, and handed out once");
}

static void launch_on_default_device(void *function, int32_t shared_bytes) {
  mgpuLaunchKernel(function, 1, 1, 1, 32, 1, 1, shared_bytes, NULL, NULL, NULL,
                   0);
}

static void *launch_on_thread(void *function) {
  mgpuSetDefaultDevice(1);
  launch_on_default_device(function, 0);
  return NULL;
}

/* Modules: loaded on the default device at once, on another device at the
 * first launch there; functions found by name once per device; each
 * launch in the context of the device it runs on. */
static void modules(void) {
  static const char ptx[] = "//\n.version 8.3\n";
  char image[] = "cubin image";
  void *module = mgpuModuleLoadJIT((void *)ptx, 2);
  expect(module && fake_cuda_module_loads[0] == 1 &&
             fake_cuda_module_loads[1] == 0,
         "a module is loaded on the default device");
  void *kernel = mgpuModuleGetFunction(module, "kernel");
  expect(kernel && mgpuModuleGetFunction(module, "kernel") == kernel,
         "a kernel's handle is found again by its name");
  expect(mgpuModuleGetFunction(module, "missing") == NULL,
         "a kernel the module lacks is reported");
  launch_on_default_device(kernel, 0);
  launch_on_default_device(kernel, 0);
  expect(fake_cuda_launches[0] == 2 && fake_cuda_module_loads[1] == 0 &&
             fake_cuda_function_attribute_sets == 0,
         "launches on the default device load nothing more");
  mgpuSetDefaultDevice(1);
  launch_on_default_device(kernel, 1000);
  launch_on_default_device(kernel, 1000);
  launch_on_default_device(kernel, 500);
  expect(fake_cuda_launches[1] == 3 && fake_cuda_module_loads[1] == 1 &&
             fake_cuda_module_loads[0] == 1,
         "the first launch on another device loads the module there");
  expect(fake_cuda_function_attribute_sets == 1,
         "dynamic shared memory is allowed once per size it grows to");
  launch_on_default_device(kernel, 2000);
  expect(fake_cuda_function_attribute_sets == 2 && fake_cuda_launches[1] == 4,
         "and again when a launch asks for more");
  launch_on_default_device(kernel, 1500);
  expect(fake_cuda_function_attribute_sets == 2 && fake_cuda_launches[1] == 5,
         "the limit is never lowered");
  mgpuSetDefaultDevice(0);
  pthread_t thread;
  expect(pthread_create(&thread, NULL, launch_on_thread, kernel) == 0 &&
             pthread_join(thread, NULL) == 0 && fake_cuda_launches[1] == 6 &&
             fake_cuda_module_loads[1] == 1,
         "another thread's launch on that device uses its copy");
  expect(fake_cuda_wrong_context_uses == 0,
         "every launch is in its own device's context");
  mgpuModuleUnload(module);
  expect(fake_cuda_module_unloads[0] == 1 && fake_cuda_module_unloads[1] == 1 &&
             fake_cuda_wrong_context_uses == 0,
         "unloading unloads every device's copy in its own context");
  void *cubin = mgpuModuleLoad(image, sizeof image);
  memset(image, 0, sizeof image); /* the runtime keeps its own copy */
  void *cubin_kernel = mgpuModuleGetFunction(cubin, "kernel");
  mgpuSetDefaultDevice(1);
  launch_on_default_device(cubin_kernel, 0);
  mgpuSetDefaultDevice(0);
  expect(cubin && cubin_kernel && fake_cuda_module_loads[1] == 2 &&
             fake_cuda_launches[1] == 7,
         "a cubin's image is copied: loaded later from the copy");
  mgpuModuleUnload(cubin);
  expect(mgpuModuleLoad("bad image", 10) == NULL,
         "an image the driver rejects is reported at load");
  expect(mgpuModuleLoadJIT((void *)"//\n.version 9.1\n", 2) == NULL &&
             tessel_cuda_driver_version() == 12020,
         "PTX newer than the driver: both versions are named");
  expect(mgpuModuleGetFunction(NULL, "kernel") == NULL,
         "a module that failed to load has no kernels");
  launch_on_default_device(NULL, 0);
  expect(fake_cuda_launches[0] == 2, "nor launches");
  /* Errors are counted per thread, the last one kept; on a lent stream an
   * error stops the call's later launches until the next lending. */
  uint64_t errors = tessel_cuda_error_count();
  expect(errors == 6 && strcmp(tessel_cuda_last_error(),
                               "mgpuLaunchKernel: no kernel (its lookup "
                               "failed)") == 0,
         "each reported error is counted, the last one kept");
  void *again = mgpuModuleLoadJIT((void *)ptx, 2);
  void *kernel_again = mgpuModuleGetFunction(again, "kernel");
  void *lent = malloc(1);
  tessel_cuda_set_stream(lent);
  launch_on_default_device(kernel_again, 0);
  fake_cuda_failing_allocs = 1;
  expect(mgpuMemAlloc(4096, lent, false) == NULL &&
             tessel_cuda_error_count() == errors + 1,
         "a failed allocation is counted");
  launch_on_default_device(kernel_again, 0);
  expect(fake_cuda_launches[0] == 3,
         "after it, the call on a lent stream launches nothing more");
  tessel_cuda_set_stream(lent);
  launch_on_default_device(kernel_again, 0);
  expect(fake_cuda_launches[0] == 4, "until the stream is lent again");
  tessel_cuda_set_stream(NULL);
  mgpuModuleUnload(again);
  free(lent);
}

/* What generated code does for one op that uses a temporary of `bytes`
 * (0: none) and, with map_offset >= 0, a TMA map: allocate, make the map,
 * launch, free, each step on a stream of its own that it waits for. The
 * kernel's params name the temporary and the map's copy, so that the
 * stand-in driver can tell when they are freed or overwritten too early. */
static void *async_kernel;

static void generated_op(uint64_t bytes, int64_t map_offset) {
  void *stream = mgpuStreamCreate();
  void *temporary = bytes ? mgpuMemAlloc(bytes, stream, false) : NULL;
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  void *map = map_offset >= 0 ? map_at(map_offset) : NULL;
  void *params[3] = {NULL, NULL, NULL};
  int count = 0;
  if (temporary)
    params[count++] = &temporary;
  if (map)
    params[count++] = &map;
  stream = mgpuStreamCreate();
  mgpuLaunchKernel(async_kernel, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL, 0);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  if (temporary) {
    stream = mgpuStreamCreate();
    mgpuMemFree(temporary, stream);
    mgpuStreamSynchronize(stream);
    mgpuStreamDestroy(stream);
  }
}

/* Loads generated_op's kernel, and has the stand-in hold launches
 * unfinished and tell which pointers they use. */
static void hold_work_with_async_kernel(void) {
  static const char ptx[] = "//\n.version 8.3\n";
  async_kernel =
      mgpuModuleGetFunction(mgpuModuleLoadJIT((void *)ptx, 2), "kernel");
  fake_cuda_track_pointer_params = 1;
  fake_cuda_hold_work = 1;
}

/* Streams lent with tessel_cuda_set_stream_async: calls return with their
 * kernels queued (the stand-in holds every launch unfinished until it is
 * waited for), and nothing the runtime reuses afterwards is reused before
 * the kernels that used it are done. */
static void async_streams(void) {
  hold_work_with_async_kernel();
  /* Streams of the stand-in's own (made before lending: while a stream
   * is lent, mgpuStreamCreate returns it). */
  void *lent = mgpuStreamCreate(), *other = mgpuStreamCreate();
  tessel_cuda_set_stream_async(lent);
  int syncs = fake_cuda_stream_syncs;
  generated_op(0, -1);
  expect(tessel_cuda_stream() == lent && fake_cuda_stream_syncs == syncs &&
             fake_cuda_unfinished_launches() == 1,
         "a call on an async lent stream returns with its kernel queued");

  int allocs = fake_cuda_device_allocs, records = fake_cuda_event_records;
  generated_op(4096, -1);
  expect(fake_cuda_device_allocs == allocs + 1 && fake_cuda_frees == 0 &&
             fake_cuda_event_records == records + 1 &&
             fake_cuda_stream_syncs == syncs,
         "its temporary is kept, with an event after its kernels, unwaited");
  int waits = fake_cuda_stream_waits;
  generated_op(4096, -1);
  expect(fake_cuda_device_allocs == allocs + 1 &&
             fake_cuda_stream_waits == waits + 1 &&
             fake_cuda_stream_syncs == syncs && fake_cuda_event_syncs == 0,
         "the next call reuses it after the event, on the GPU, not the host");
  fake_cuda_finish_work();
  waits = fake_cuda_stream_waits;
  generated_op(4096, -1);
  expect(fake_cuda_device_allocs == allocs + 1 &&
             fake_cuda_stream_waits == waits,
         "once the kernels are done, with no wait at all");

  /* Freed by an async call on one stream, reused by an async call on
   * another: that stream waits for the event, on the GPU. */
  generated_op(4096, -1);
  tessel_cuda_set_stream_async(other);
  waits = fake_cuda_stream_waits;
  generated_op(4096, -1);
  expect(fake_cuda_device_allocs == allocs + 1 &&
             fake_cuda_stream_waits == waits + 1 &&
             fake_cuda_event_syncs == 0 && fake_cuda_hazards == 0,
         "another async stream waits for the event, on the GPU");
  tessel_cuda_set_stream_async(lent);

  /* A call that waits, on the runtime's own stream, after an async one
   * whose kernel is queued: the block is reused after the host waits for
   * its event (it may be used on another stream than its allocation's). */
  generated_op(4096, -1);
  tessel_cuda_set_stream(NULL);
  int event_syncs = fake_cuda_event_syncs;
  generated_op(4096, -1);
  expect(fake_cuda_device_allocs == allocs + 1 &&
             fake_cuda_event_syncs == event_syncs + 1 &&
             fake_cuda_hazards == 0 && fake_cuda_unfinished_launches() == 0,
         "a call on another stream reuses it after waiting for the event");

  /* 17 sizes freed by async calls: the two oldest blocks leave the cache
   * of 16, the 4096-byte one (freed by the waiting call: at once) and the
   * first of the 17 (once its event has passed). */
  tessel_cuda_set_stream_async(lent);
  event_syncs = fake_cuda_event_syncs;
  for (int i = 0; i < 17; ++i)
    generated_op(8192 + (uint64_t)i, -1);
  expect(fake_cuda_frees == 2 && fake_cuda_event_syncs == event_syncs + 1 &&
             fake_cuda_hazards == 0 && fake_cuda_unfinished_launches() == 1,
         "a block leaving the cache is freed after its kernels, not before");

  /* Device memory the runtime did not allocate (the stand-in's is host
   * memory), freed in an async call: after the stream. */
  fake_cuda_finish_work();
  void *elsewhere = malloc(100);
  void *params[2] = {&elsewhere, NULL};
  mgpuLaunchKernel(async_kernel, 1, 1, 1, 32, 1, 1, 0, lent, params, NULL, 0);
  syncs = fake_cuda_stream_syncs;
  mgpuMemFree(elsewhere, lent);
  expect(fake_cuda_stream_syncs == syncs + 1 && fake_cuda_hazards == 0,
         "memory the runtime does not keep is freed after the stream");

  /* Memory the host reads after a kernel: generated code loads a full
   * reduction's result from managed memory right after the kernel's wait.
   * While the thread has such memory, or registered host memory, waits
   * are real. */
  void *shared = mgpuMemAlloc(4, lent, true);
  params[0] = &shared;
  mgpuLaunchKernel(async_kernel, 1, 1, 1, 32, 1, 1, 0, lent, params, NULL, 0);
  syncs = fake_cuda_stream_syncs;
  mgpuStreamSynchronize(lent);
  expect(fake_cuda_stream_syncs == syncs + 1 &&
             fake_cuda_unfinished_launches() == 0,
         "a wait is real while the thread has managed memory");
  mgpuMemFree(shared, lent);
  static char registered[64];
  mgpuMemHostRegister(registered, sizeof registered);
  syncs = fake_cuda_stream_syncs;
  records = fake_cuda_event_records;
  generated_op(0, 16 * 800);
  /* Its two waits and the new map's upload. */
  expect(fake_cuda_stream_syncs == syncs + 3 &&
             fake_cuda_event_records == records + 1,
         "and while it has registered host memory (which still ends the "
         "epoch of the maps made)");
  mgpuMemHostUnregister(registered);
  syncs = fake_cuda_stream_syncs;
  generated_op(0, -1);
  expect(fake_cuda_stream_syncs == syncs &&
             fake_cuda_unfinished_launches() == 1,
         "skipped again once both are gone");

  /* Tensor maps. One async call makes 256 maps for one kernel, which
   * stays queued: the next call's new map may overwrite none of their
   * copies and gets one apart; once the kernel is done, it takes the
   * least recently used. One event per call that made maps, however
   * many waits it skips. */
  fake_cuda_finish_work();
  static void *copies[257];
  void *map_params[257];
  for (int i = 0; i < 256; ++i) {
    copies[i] = map_at(16 * i);
    map_params[i] = &copies[i];
  }
  map_params[256] = NULL;
  records = fake_cuda_event_records;
  mgpuLaunchKernel(async_kernel, 1, 1, 1, 32, 1, 1, 0, lent, map_params, NULL,
                   0);
  for (int wait = 0; wait < 3; ++wait)
    mgpuStreamSynchronize(lent);
  expect(fake_cuda_event_records == records + 1,
         "a call that made maps records one event, at its first wait");
  allocs = fake_cuda_device_allocs;
  int uploads = fake_cuda_uploads;
  generated_op(0, 16 * 300);
  expect(fake_cuda_device_allocs == allocs + 1 &&
             fake_cuda_uploads == uploads + 1 && fake_cuda_hazards == 0,
         "a map made while all 256 copies are queued gets one apart");
  fake_cuda_finish_work();
  allocs = fake_cuda_device_allocs;
  void *next = map_at(16 * 301);
  expect(fake_cuda_device_allocs == allocs && next == copies[0] &&
             fake_cuda_hazards == 0,
         "once the kernel is done, the oldest copy is overwritten");
  /* 40 kernels with a map each, queued on one stream: one event each up
   * to 32 outstanding; past that the newest event is recorded again,
   * after the stream waits for it, and the host does not wait. Once they
   * are done, their copies may be overwritten. */
  event_syncs = fake_cuda_event_syncs;
  waits = fake_cuda_stream_waits;
  for (int i = 0; i < 40; ++i)
    generated_op(0, 16 * (400 + i));
  expect(fake_cuda_event_syncs == event_syncs &&
             fake_cuda_stream_waits >= waits + 8 &&
             fake_cuda_unfinished_launches() == 1 && fake_cuda_hazards == 0,
         "past 32 outstanding events the newest covers more, unwaited");
  fake_cuda_finish_work();
  allocs = fake_cuda_device_allocs;
  for (int i = 0; i < 40; ++i)
    map_at(16 * (500 + i));
  expect(fake_cuda_device_allocs == allocs && fake_cuda_hazards == 0,
         "and once their kernels are done, their copies are taken");
  /* The ring full of one stream's events, then a map-making kernel on
   * another lent stream: the host waits for the oldest event. */
  for (int i = 0; i < 33; ++i)
    generated_op(0, 16 * (600 + i));
  tessel_cuda_set_stream_async(other);
  event_syncs = fake_cuda_event_syncs;
  generated_op(0, 16 * 700);
  expect(fake_cuda_event_syncs == event_syncs + 1 && fake_cuda_hazards == 0 &&
             fake_cuda_wrong_context_uses == 0,
         "on another stream, the host waits for the oldest event");
  fake_cuda_finish_work();

  /* Lent to wait (tessel_cuda_set_stream): calls wait as before. */
  tessel_cuda_set_stream(lent);
  syncs = fake_cuda_stream_syncs;
  generated_op(4096, -1);
  expect(fake_cuda_stream_syncs == syncs + 3 &&
             fake_cuda_unfinished_launches() == 0,
         "a stream lent with tessel_cuda_set_stream is still waited for");
  tessel_cuda_set_stream(NULL);
}

/* A thread that calls on an async lent stream: one op with a map per
 * offset in `offsets` (up to the -1 that ends it), its kernels finished
 * before it exits or not. */
typedef struct {
  void *stream;
  const int64_t *offsets;
  int finish;
  void *copies[300];
} async_thread_calls;

static void *async_calls_on_thread(void *arg) {
  async_thread_calls *calls = arg;
  tessel_cuda_set_stream_async(calls->stream);
  for (int i = 0; calls->offsets[i] >= 0; ++i) {
    calls->copies[i] = map_at(calls->offsets[i]);
    generated_op(0, calls->offsets[i]);
  }
  if (calls->finish) /* as torch.cuda.synchronize() */
    fake_cuda_finish_work();
  return NULL;
}

/* A thread's async state goes with it: its epoch events are destroyed when
 * it exits, and its maps' copies are left to other threads once its
 * kernels are done, but not while they are queued. */
static void thread_exit(void) {
  hold_work_with_async_kernel();
  void *lent = mgpuStreamCreate();
  int live = fake_cuda_live_events;
  /* 256 maps, the whole table, kernels finished before the exit. */
  static int64_t filling[257];
  for (int i = 0; i < 256; ++i)
    filling[i] = 16 * i;
  filling[256] = -1;
  static async_thread_calls first = {.finish = 1};
  first.stream = lent;
  first.offsets = filling;
  pthread_t thread;
  pthread_create(&thread, NULL, async_calls_on_thread, &first);
  pthread_join(thread, NULL);
  expect(fake_cuda_live_events == live && fake_cuda_device_allocs == 256,
         "an exited thread's epoch events are destroyed");
  int allocs = fake_cuda_device_allocs;
  void *taken = map_at(16 * 1000);
  mgpuStreamSynchronize(NULL);
  expect(taken == first.copies[0] && fake_cuda_device_allocs == allocs,
         "its copies, whose kernels are done, are taken by another thread");
  /* A thread exits with its kernels queued: its events are destroyed all
   * the same, and the main thread's maps do not overwrite its copies. */
  static int64_t queued[11];
  for (int i = 0; i < 10; ++i)
    queued[i] = 16 * (2000 + i);
  queued[10] = -1;
  static async_thread_calls second = {.finish = 0};
  second.stream = lent;
  second.offsets = queued;
  pthread_create(&thread, NULL, async_calls_on_thread, &second);
  pthread_join(thread, NULL);
  expect(fake_cuda_live_events == live && fake_cuda_unfinished_launches() > 0,
         "a thread exiting with queued kernels has its events destroyed");
  for (int i = 0; i < 300; ++i) {
    map_at(16 * (3000 + i));
    mgpuStreamSynchronize(NULL);
  }
  expect(fake_cuda_hazards == 0,
         "and its copies are not overwritten while its kernels are queued");
  fake_cuda_finish_work();
}

int main(int argc, char **argv) {
  /* In order with the runtime's reports on stderr. */
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *limit = argc > 1 ? argv[1] : "default";
  if (strcmp(limit, "default") == 0)
    default_limit();
  else if (strcmp(limit, "1500") == 0)
    small_limit();
  else if (strcmp(limit, "0") == 0)
    no_reuse();
  else if (strcmp(limit, "misuse") == 0)
    misuse();
  else if (strcmp(limit, "tensor-maps") == 0)
    tensor_maps();
  else if (strcmp(limit, "tensor-maps-launch") == 0)
    tensor_maps_of_one_launch();
  else if (strcmp(limit, "constants") == 0)
    constants();
  else if (strcmp(limit, "streams") == 0)
    streams();
  else if (strcmp(limit, "modules") == 0)
    modules();
  else if (strcmp(limit, "streams-unpooled") == 0)
    streams_unpooled();
  else if (strcmp(limit, "streams-misuse") == 0)
    streams_misuse();
  else if (strcmp(limit, "async") == 0)
    async_streams();
  else if (strcmp(limit, "thread-exit") == 0)
    thread_exit();
  else {
    fprintf(stderr,
            "usage: %s [default|1500|0|misuse|tensor-maps|tensor-maps-launch|"
            "constants|streams|streams-unpooled|streams-misuse|modules|async|"
            "thread-exit]\n",
            argv[0]);
    return 2;
  }
  puts(failures ? "FAILED" : "ALL CHECKS PASSED");
  return failures != 0;
}
