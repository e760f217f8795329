/*===- tessel-compile.c - Tessel's ahead-of-time compiler driver ---------===*
 *
 *   tessel-compile in.mlir --target=cpu|nvgpu|amdgpu -o out.{so,o,s,bc,ll,mlir}
 *
 * Parses an MLIR module (linalg / tensor / arith / math / memref / tosa),
 * runs Tessel's pipeline for the target (tesselGetPipelineStage), or the
 * one given with --pass-pipeline, one top-level stage at a time, translates
 * the LLVM dialect to LLVM IR, optimizes it with LLVM's new pass manager,
 * emits an object for the host (or, for target=cpu, for the machine the
 * module's #tessel.target describes) and links a shared library with a clang
 * driver. Next to the output it writes a C header that declares every entry
 * point (_mlir_ciface_<name>).
 *
 * Plain C11 on the MLIR C API (exported by libTessel.so) and the LLVM C API
 * (libLLVM.so); no C++.
 *
 *===----------------------------------------------------------------------===*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, posix_spawnp, strdup, mkstemps */
#endif

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/GPU.h"
#include "mlir-c/Dialect/LLVM.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"
#include "mlir-c/Support.h"
#include "mlir-c/Target/LLVMIR.h"
#include "tessel-c/Tessel.h"

#include "llvm-c/BitWriter.h"
#include "llvm-c/Core.h"
#include "llvm-c/Error.h"
#include "llvm-c/Support.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"
#include "llvm-c/Transforms/PassBuilder.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* LLVM 22's X86 "avoid store-forwarding blocks" pass aborts ("Cannot
 * implicitly convert a scalable size to a fixed-width size") on some
 * functions with masked vector loads and stores (the matmul kernel of a
 * 31x45x33 product accumulating into its argument: test/driver/
 * x86_backend_workaround.test). It only splits copies that follow narrower
 * stores to the same bytes, so turning it off costs little. The option may
 * be given once per process, and the compiler may run many times in one
 * (Python): parsed on the first x86 compilation only. */
static void disableAvoidStoreForwardingBlocks(void) {
  const char *args[] = {"tessel-compile", "-x86-disable-avoid-SFB"};
  LLVMParseCommandLineOptions(2, args, NULL);
}

/* Whether paths `a` and `b` name one existing file (also through links
 * or different spellings). */
static bool sameFile(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* A shared library exports only the ABI's entry points, _mlir_ciface_<name>:
 * the functions behind them are hidden and renamed __tessel_<name>. Under
 * their source names, an entry point named malloc would interpose the C
 * library's for the whole process, and one named exp would receive the
 * library's own calls to libm's exp (LLVM lowers llvm.exp to them). */
static void hideInternalFunctions(LLVMModuleRef module) {
  static const char kEntryPrefix[] = "_mlir_ciface_";
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn) || LLVMGetLinkage(fn) != LLVMExternalLinkage)
      continue;
    size_t length = 0;
    const char *name = LLVMGetValueName2(fn, &length);
    if (length >= sizeof kEntryPrefix - 1 &&
        !strncmp(name, kEntryPrefix, sizeof kEntryPrefix - 1))
      continue;
    LLVMSetVisibility(fn, LLVMHiddenVisibility);
    static const char kHiddenPrefix[] = "__tessel_";
    size_t renamedLength = sizeof kHiddenPrefix - 1 + length;
    char *renamed = malloc(renamedLength + 1);
    if (!renamed)
      continue;
    memcpy(renamed, kHiddenPrefix, sizeof kHiddenPrefix - 1);
    memcpy(renamed + sizeof kHiddenPrefix - 1, name, length);
    renamed[renamedLength] = '\0';
    LLVMSetValueName2(fn, renamed, renamedLength);
    free(renamed);
  }
}

static void disableBrokenBackendPasses(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, disableAvoidStoreForwardingBlocks);
}

extern char **environ;

static const char *kProgram = "tessel-compile";

/* Built twice: as the tessel-compile executable and, with
 * TESSEL_COMPILE_LIBRARY, into libTesselCompiler.so, whose
 * tesselCompilerRun() (tessel-c/Compiler.h) runs the same driver in the
 * caller's process. In the library, messages go to a per-call log instead of
 * stderr, and fatal errors unwind to tesselCompilerRun instead of exiting. */
static FILE *gLog = NULL;
static jmp_buf *gFatalJump = NULL;
static int gEarlyExitCode = 1;

static FILE *errStream(void) { return gLog ? gLog : stderr; }

/* Ends the compilation with an exit code: exit() in the executable, a jump
 * back to tesselCompilerRun in the library. */
static void finish(int code) __attribute__((noreturn));
static void finish(int code) {
  if (gFatalJump) {
    gEarlyExitCode = code;
    longjmp(*gFatalJump, 1);
  }
  exit(code);
}

/* The CPU ABI contract, stated verbatim in every generated header. */
static const char *kAbiContract =
    " * ABI contract (target cpu; the host side of GPU targets is the same):\n"
    " * input functions over memrefs (linalg in destination-passing style) or\n"
    " * over tensors; tensors are bufferized with identity layouts at function\n"
    " * boundaries; tensor results become trailing output memref parameters the\n"
    " * caller supplies; each public function gets _mlir_ciface_<name> taking\n"
    " * pointers to upstream strided memref descriptors\n"
    " *   (struct { T *allocated; T *aligned; int64_t offset;\n"
    " *             int64_t sizes[R]; int64_t strides[R]; })\n"
    " * in argument order, followed by one pointer per tensor result; scalar\n"
    " * args by value. A single scalar result is returned by value (functions\n"
    " * returning several scalars are rejected). Output buffers must be\n"
    " * allocated by the caller with exactly the result's static shape and\n"
    " * identity (row-major) strides.\n";

/*===----------------------------------------------------------------------===*
 * Small utilities
 *===----------------------------------------------------------------------===*/

static void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *gTempObject = NULL; /* removed at exit */

/* Remarks explain the optimizer's choices (tile sizes, what was fused); they
 * are shown only on request (--remarks). */
static bool gShowRemarks = false;

static void cleanupTemps(void) {
  if (gTempObject) {
    unlink(gTempObject);
    free(gTempObject);
    gTempObject = NULL;
  }
}

static void vreport(const char *severity, const char *fmt, va_list ap) {
  fprintf(errStream(), "%s: %s: ", kProgram, severity);
  vfprintf(errStream(), fmt, ap);
  fputc('\n', errStream());
}

static void errorf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", fmt, ap);
  va_end(ap);
}

static void warnf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("warning", fmt, ap);
  va_end(ap);
}

static void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport("error", fmt, ap);
  va_end(ap);
  finish(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    fatal("out of memory");
  return p;
}

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p)
    fatal("out of memory");
  return p;
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d)
    fatal("out of memory");
  return d;
}

static char *xstrndup(const char *s, size_t n) {
  char *d = xmalloc(n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

/* A growable string. */
typedef struct StrBuf {
  char *data;
  size_t len, cap;
} StrBuf;

static void sbAppendN(StrBuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
      cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void sbAppend(StrBuf *b, const char *s) { sbAppendN(b, s, strlen(s)); }

static void sbVPrintf(StrBuf *b, const char *fmt, va_list ap) {
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0)
    return;
  char *tmp = xmalloc((size_t)n + 1);
  vsnprintf(tmp, (size_t)n + 1, fmt, ap);
  sbAppendN(b, tmp, (size_t)n);
  free(tmp);
}

static void sbPrintf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sbPrintf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sbVPrintf(b, fmt, ap);
  va_end(ap);
}

static const char *sbStr(const StrBuf *b) { return b->data ? b->data : ""; }

static void sbFree(StrBuf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* MlirStringCallback that appends to a StrBuf. */
static void appendToStrBuf(MlirStringRef chunk, void *user) {
  sbAppendN((StrBuf *)user, chunk.data, chunk.length);
}

/* MlirStringCallback that writes to a FILE. */
static void writeToFile(MlirStringRef chunk, void *user) {
  fwrite(chunk.data, 1, chunk.length, (FILE *)user);
}

static char *typeToString(MlirType type) {
  StrBuf b = {0};
  mlirTypePrint(type, appendToStrBuf, &b);
  return b.data ? b.data : xstrdup("");
}

static double nowSeconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool endsWith(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool fileExists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* mkdir -p. Returns false (errno set) on failure. */
static bool makeDirs(const char *path) {
  char *p = xstrdup(path);
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/')
    p[--n] = '\0';
  for (char *s = p + 1; *s; ++s) {
    if (*s != '/')
      continue;
    *s = '\0';
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      free(p);
      return false;
    }
    *s = '/';
  }
  bool ok = mkdir(p, 0777) == 0 || errno == EEXIST;
  struct stat st;
  if (ok && (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))) {
    errno = ENOTDIR;
    ok = false;
  }
  free(p);
  return ok;
}

static char *joinPath(const char *dir, const char *name) {
  StrBuf b = {0};
  sbAppend(&b, dir);
  if (b.len && b.data[b.len - 1] != '/')
    sbAppend(&b, "/");
  sbAppend(&b, name);
  return b.data;
}

/* Directory part of a path ("." when there is none). */
static char *dirName(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return xstrdup(".");
  if (slash == path)
    return xstrdup("/");
  return xstrndup(path, (size_t)(slash - path));
}

static const char *baseName(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* `path` with its extension (if any, after the last '/') replaced by `ext`
 * (which includes the dot). */
static char *replaceExtension(const char *path, const char *ext) {
  const char *base = baseName(path);
  const char *dot = strrchr(base, '.');
  size_t keep = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  StrBuf b = {0};
  sbAppendN(&b, path, keep);
  sbAppend(&b, ext);
  return b.data;
}

/* First executable `name` on $PATH, or NULL. */
static char *findOnPath(const char *name) {
  if (strchr(name, '/'))
    return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path)
    return NULL;
  const char *start = path;
  for (;;) {
    const char *colon = strchr(start, ':');
    size_t n = colon ? (size_t)(colon - start) : strlen(start);
    char *dir = n ? xstrndup(start, n) : xstrdup(".");
    char *candidate = joinPath(dir, name);
    free(dir);
    struct stat st;
    if (access(candidate, X_OK) == 0 && stat(candidate, &st) == 0 &&
        S_ISREG(st.st_mode))
      return candidate;
    free(candidate);
    if (!colon)
      return NULL;
    start = colon + 1;
  }
}

/*===----------------------------------------------------------------------===*
 * Options
 *===----------------------------------------------------------------------===*/

typedef enum OutputKind {
  OUT_SHARED, /* .so */
  OUT_OBJECT, /* .o */
  OUT_ASM,    /* .s */
  OUT_BITCODE,/* .bc */
  OUT_LLVMIR, /* .ll */
  OUT_MLIR    /* .mlir: the IR after the pipeline (LLVM dialect) */
} OutputKind;

typedef struct Options {
  const char *input;
  const char *target;
  const char *output;
  const char *header; /* NULL: next to the output */
  bool noHeader;
  bool printIRAfterStage;
  const char *dumpDir;
  bool timeStages;
  bool printPipeline;
  const char *deviceAsmDir;
  const char *targetOptions; /* tessel-attach-target options, or NULL */
  const char *passPipeline;  /* replaces the target's pipeline, or NULL */
  int optLevel;
  const char *cc;
} Options;

static void printUsage(FILE *out) {
  fprintf(out,
      "OVERVIEW: Tessel ahead-of-time compiler (MLIR linalg/tensor/tosa -> native code)\n"
      "\n"
      "USAGE: tessel-compile <input.mlir> --target=cpu|nvgpu|amdgpu -o <output> [options]\n"
      "\n"
      "The output kind follows the extension of -o:\n"
      "  .so    shared library (object linked with the --cc driver)\n"
      "  .o     relocatable object        .s   assembly\n"
      "  .ll    optimized LLVM IR (text)  .bc  optimized LLVM bitcode\n"
      "  .mlir  the MLIR after Tessel's pipeline (LLVM dialect)\n"
      "\n"
      "OPTIONS:\n"
      "  --target=<t>            cpu (default), nvgpu or amdgpu\n"
      "  -o <file>               output file (required unless --print-pipeline)\n"
      "  --header=<file>         C header declaring the entry points\n"
      "                          (default: the output path with .h)\n"
      "  --no-header             do not write a header\n"
      "  -O0 | -O1 | -O2 | -O3   LLVM optimization and codegen level (default -O3)\n"
      "  --cc=<path>             linker driver for .so (default: clang-22 on PATH,\n"
      "                          else /usr/lib/llvm-22/bin/clang)\n"
      "  --print-pipeline        print the target's builtin.module(...) pipeline and exit\n"
      "  --pass-pipeline=<p>     run the builtin.module(...) pipeline <p> instead of the\n"
      "                          target's; translation, optimization and linking stay\n"
      "                          the same (e.g. the --print-pipeline string with a\n"
      "                          pass left out)\n"
      "  --print-ir-after-stage  print the IR after each pipeline stage to stderr\n"
      "  --dump-dir=<dir>        write <dir>/NN-<stage>.mlir after each stage and the\n"
      "                          translated and optimized LLVM IR\n"
      "  --remarks               print the optimizer's remarks (chosen tile sizes\n"
      "                          and why, what was left alone and why)\n"
      "  --time-stages           print wall time per stage, translation, optimization,\n"
      "                          codegen and link to stderr\n"
      "  --target-options=<o>    describe another machine than the default with\n"
      "                          tessel-attach-target options, e.g. 'chip=sm_90a'\n"
      "                          or 'vector-bits=256 cores=8'\n"
      "  --emit-device-asm=<dir> GPU targets: write each gpu.binary object to\n"
      "                          <dir>/<module>.ptx (nvgpu) or .hsaco/.s (amdgpu)\n"
      "  -h, --help              this help\n");
}

/* Matches `--name=value` or `--name value`; returns the value or NULL. */
static const char *matchValueOption(int argc, char **argv, int *i,
                                    const char *name) {
  size_t n = strlen(name);
  const char *arg = argv[*i];
  if (strncmp(arg, name, n) != 0)
    return NULL;
  if (arg[n] == '=')
    return arg + n + 1;
  if (arg[n] == '\0') {
    if (*i + 1 >= argc)
      fatal("option '%s' needs a value", name);
    return argv[++*i];
  }
  return NULL;
}

static Options parseOptions(int argc, char **argv) {
  Options o;
  memset(&o, 0, sizeof o);
  o.target = "cpu";
  o.optLevel = 3;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *v;
    if (!strcmp(arg, "-h") || !strcmp(arg, "--help") || !strcmp(arg, "-help")) {
      printUsage(gLog ? gLog : stdout);
      finish(0);
    } else if (!strcmp(arg, "-o")) {
      if (i + 1 >= argc)
        fatal("option '-o' needs a value");
      o.output = argv[++i];
    } else if (!strncmp(arg, "-o", 2) && arg[2] != '-' && arg[2]) {
      o.output = arg + 2;
    } else if ((v = matchValueOption(argc, argv, &i, "--output"))) {
      o.output = v;
    } else if ((v = matchValueOption(argc, argv, &i, "--target"))) {
      o.target = v;
    } else if ((v = matchValueOption(argc, argv, &i, "--header"))) {
      o.header = v;
    } else if (!strcmp(arg, "--no-header")) {
      o.noHeader = true;
    } else if (!strcmp(arg, "--print-ir-after-stage")) {
      o.printIRAfterStage = true;
    } else if ((v = matchValueOption(argc, argv, &i, "--dump-dir"))) {
      o.dumpDir = v;
    } else if (!strcmp(arg, "--remarks")) {
      gShowRemarks = true;
    } else if (!strcmp(arg, "--time-stages")) {
      o.timeStages = true;
    } else if (!strcmp(arg, "--print-pipeline")) {
      o.printPipeline = true;
    } else if ((v = matchValueOption(argc, argv, &i, "--emit-device-asm"))) {
      o.deviceAsmDir = v;
    } else if ((v = matchValueOption(argc, argv, &i, "--target-options"))) {
      o.targetOptions = v;
    } else if ((v = matchValueOption(argc, argv, &i, "--pass-pipeline"))) {
      o.passPipeline = v;
    } else if ((v = matchValueOption(argc, argv, &i, "--cc"))) {
      o.cc = v;
    } else if (arg[0] == '-' && arg[1] == 'O' && arg[2] >= '0' &&
               arg[2] <= '3' && arg[3] == '\0') {
      o.optLevel = arg[2] - '0';
    } else if (!strcmp(arg, "-")) {
      if (o.input)
        fatal("more than one input file ('%s' and '%s')", o.input, arg);
      o.input = arg;
    } else if (arg[0] == '-') {
      fatal("unknown option '%s' (see --help)", arg);
    } else {
      if (o.input)
        fatal("more than one input file ('%s' and '%s')", o.input, arg);
      o.input = arg;
    }
  }
  return o;
}

static OutputKind outputKindFor(const char *path) {
  if (endsWith(path, ".so"))
    return OUT_SHARED;
  if (endsWith(path, ".o"))
    return OUT_OBJECT;
  if (endsWith(path, ".s"))
    return OUT_ASM;
  if (endsWith(path, ".bc"))
    return OUT_BITCODE;
  if (endsWith(path, ".ll"))
    return OUT_LLVMIR;
  if (endsWith(path, ".mlir"))
    return OUT_MLIR;
  fatal("cannot tell the output kind of '%s' from its extension "
        "(use .so, .o, .s, .bc, .ll or .mlir)", path);
}

/*===----------------------------------------------------------------------===*
 * Diagnostics
 *===----------------------------------------------------------------------===*/

/* The most useful file:line:col inside a location, or false. */
static bool findFileLocation(MlirLocation loc, StrBuf *out) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    MlirStringRef file =
        mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc));
    sbAppendN(out, file.data, file.length);
    sbPrintf(out, ":%d:%d", mlirLocationFileLineColRangeGetStartLine(loc),
             mlirLocationFileLineColRangeGetStartColumn(loc));
    return true;
  }
  if (mlirLocationIsAName(loc))
    return findFileLocation(mlirLocationNameGetChildLoc(loc), out);
  if (mlirLocationIsACallSite(loc))
    return findFileLocation(mlirLocationCallSiteGetCallee(loc), out) ||
           findFileLocation(mlirLocationCallSiteGetCaller(loc), out);
  if (mlirLocationIsAFused(loc)) {
    unsigned n = mlirLocationFusedGetNumLocations(loc);
    if (n == 0)
      return false;
    MlirLocation *locs = xmalloc(n * sizeof *locs);
    mlirLocationFusedGetLocations(loc, locs);
    bool found = false;
    for (unsigned i = 0; i < n && !found; ++i)
      found = findFileLocation(locs[i], out);
    free(locs);
    return found;
  }
  return false;
}

static void formatDiagnostic(MlirDiagnostic diag, StrBuf *out, int depth) {
  MlirLocation loc = mlirDiagnosticGetLocation(diag);
  size_t mark = out->len;
  if (!findFileLocation(loc, out)) {
    out->len = mark;
    if (out->data)
      out->data[mark] = '\0';
    StrBuf l = {0};
    mlirLocationPrint(loc, appendToStrBuf, &l);
    if (strcmp(sbStr(&l), "loc(unknown)") != 0)
      sbAppend(out, sbStr(&l));
    sbFree(&l);
  }
  if (out->len > mark)
    sbAppend(out, ": ");
  const char *severity = "error";
  switch (mlirDiagnosticGetSeverity(diag)) {
  case MlirDiagnosticError: severity = "error"; break;
  case MlirDiagnosticWarning: severity = "warning"; break;
  case MlirDiagnosticNote: severity = "note"; break;
  case MlirDiagnosticRemark: severity = "remark"; break;
  }
  sbAppend(out, depth > 0 ? "note" : severity);
  sbAppend(out, ": ");
  mlirDiagnosticPrint(diag, appendToStrBuf, out);
  sbAppend(out, "\n");
  intptr_t notes = mlirDiagnosticGetNumNotes(diag);
  for (intptr_t i = 0; i < notes; ++i) {
    MlirDiagnostic note = mlirDiagnosticGetNote(diag, i);
    /* The pass manager attaches the whole failing op in generic form; for a
     * function that is its entire body. The location says where it is. */
    StrBuf text = {0};
    mlirDiagnosticPrint(note, appendToStrBuf, &text);
    bool isOpDump = !strncmp(sbStr(&text), "see current operation:", 22);
    sbFree(&text);
    if (!isOpDump)
      formatDiagnostic(note, out, depth + 1);
  }
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diag, void *user) {
  (void)user;
  if (mlirDiagnosticGetSeverity(diag) == MlirDiagnosticRemark && !gShowRemarks)
    return mlirLogicalResultSuccess();
  StrBuf b = {0};
  formatDiagnostic(diag, &b, 0);
  fputs(sbStr(&b), errStream());
  sbFree(&b);
  return mlirLogicalResultSuccess();
}

/*===----------------------------------------------------------------------===*
 * Stages
 *===----------------------------------------------------------------------===*/

/* The stage without its builtin.module( ) anchor. */
static char *stageBody(const char *stage) {
  const char *prefix = "builtin.module(";
  size_t n = strlen(stage);
  if (strncmp(stage, prefix, strlen(prefix)) == 0 && n > strlen(prefix) &&
      stage[n - 1] == ')')
    return xstrndup(stage + strlen(prefix), n - strlen(prefix) - 1);
  return xstrdup(stage);
}

/* Length of the pass or op name at the start of `s`. */
static size_t nameLength(const char *s) {
  size_t n = 0;
  while (s[n] && s[n] != '{' && s[n] != '(' && s[n] != ')' && s[n] != ',' &&
         s[n] != ' ')
    ++n;
  return n;
}

/* A short display name: `pass` or `op(first-pass,...)`. */
static char *stageDisplayName(const char *stage) {
  char *body = stageBody(stage);
  const char *s = body;
  while (*s == ' ')
    ++s;
  size_t n = nameLength(s);
  StrBuf b = {0};
  sbAppendN(&b, s, n);
  if (s[n] == '(') {
    const char *inner = s + n + 1;
    while (*inner == ' ')
      ++inner;
    size_t m = nameLength(inner);
    sbAppend(&b, "(");
    sbAppendN(&b, inner, m);
    /* Does the nested list have more than one element? */
    int depth = 0;
    bool more = false;
    for (const char *p = inner; *p; ++p) {
      if (*p == '(' || *p == '{')
        ++depth;
      else if (*p == ')' || *p == '}') {
        if (depth == 0)
          break;
        --depth;
      } else if (*p == ',' && depth == 0) {
        more = true;
        break;
      }
    }
    sbAppend(&b, more ? ",...)" : ")");
  }
  free(body);
  return b.data;
}

/* A file-name-safe slug: `pass` or `op-first-pass`. */
static char *stageSlug(const char *stage) {
  char *display = stageDisplayName(stage);
  StrBuf b = {0};
  for (const char *p = display; *p; ++p) {
    char c = *p;
    if (c == '(')
      sbAppend(&b, "-");
    else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
             (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')
      sbAppendN(&b, &c, 1);
    else if (c == ',')
      break;
  }
  free(display);
  return b.data ? b.data : xstrdup("stage");
}

/* The pipeline the driver runs: the target's, or --pass-pipeline. */
typedef struct Pipeline {
  const char *text;   /* the whole builtin.module(...) string */
  char **stages;      /* its top-level elements, each anchored */
  int numStages;
  const char *origin; /* "cpu pipeline", "--pass-pipeline", ... for messages */
} Pipeline;

/* Splits `pipeline` (builtin.module(a,b{..},op(c,d))) into its top-level
 * elements, each anchored again (builtin.module(a)), the way the targets'
 * pipelines are split into stages (tessel::splitPipelineStages). Returns
 * false when `pipeline` is not anchored on builtin.module or its brackets do
 * not balance. */
static bool splitStages(const char *pipeline, Pipeline *out) {
  const char *prefix = "builtin.module(";
  while (*pipeline == ' ')
    ++pipeline;
  size_t n = strlen(pipeline);
  while (n && (pipeline[n - 1] == ' ' || pipeline[n - 1] == '\n'))
    --n;
  if (strncmp(pipeline, prefix, strlen(prefix)) != 0 || n == 0 ||
      pipeline[n - 1] != ')')
    return false;
  const char *body = pipeline + strlen(prefix);
  size_t len = n - strlen(prefix) - 1;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; ++i) {
    char c = i < len ? body[i] : ',';
    if (c == '(' || c == '{')
      ++depth;
    else if (c == ')' || c == '}')
      --depth;
    if (depth < 0)
      return false;
    if (c != ',' || depth != 0)
      continue;
    size_t a = start, b = i;
    while (a < b && body[a] == ' ')
      ++a;
    while (b > a && body[b - 1] == ' ')
      --b;
    if (b > a) {
      StrBuf stage = {0};
      sbAppend(&stage, prefix);
      sbAppendN(&stage, body + a, b - a);
      sbAppend(&stage, ")");
      out->stages = xrealloc(out->stages, (size_t)(out->numStages + 1) *
                                              sizeof *out->stages);
      out->stages[out->numStages++] = stage.data;
    }
    start = i + 1;
  }
  return depth == 0;
}

typedef struct Timing {
  char *label;
  char *index; /* stage number or "-" */
  double seconds;
} Timing;

typedef struct Timings {
  Timing *items;
  size_t count;
} Timings;

static void addTiming(Timings *t, const char *index, const char *label,
                      double seconds) {
  t->items = xrealloc(t->items, (t->count + 1) * sizeof *t->items);
  t->items[t->count].label = xstrdup(label);
  t->items[t->count].index = xstrdup(index);
  t->items[t->count].seconds = seconds;
  ++t->count;
}

static void printTimings(const Timings *t, const char *target, double total) {
  size_t width = strlen("step");
  for (size_t i = 0; i < t->count; ++i)
    if (strlen(t->items[i].label) > width)
      width = strlen(t->items[i].label);
  if (width > 60)
    width = 60;
  int w = (int)width;
  fprintf(errStream(), "===%.*s===\n", w + 28,
          "----------------------------------------------------------------"
          "----------------------------------------------------------------");
  fprintf(errStream(), "  tessel-compile timing report (target %s)\n", target);
  fprintf(errStream(), "===%.*s===\n", w + 28,
          "----------------------------------------------------------------"
          "----------------------------------------------------------------");
  fprintf(errStream(), "  %3s  %-*s  %12s  %6s\n", "#", w, "step", "wall (ms)", "%");
  for (size_t i = 0; i < t->count; ++i)
    fprintf(errStream(), "  %3s  %-*.*s  %12.3f  %5.1f%%\n", t->items[i].index, w, w,
            t->items[i].label, 1e3 * t->items[i].seconds,
            total > 0 ? 100.0 * t->items[i].seconds / total : 0.0);
  fprintf(errStream(), "  %3s  %-*s  %12.3f  %5.1f%%\n", "", w, "total", 1e3 * total,
          100.0);
}

/*===----------------------------------------------------------------------===*
 * Entry points and the C header
 *===----------------------------------------------------------------------===*/

typedef enum ParamKind { PARAM_MEMREF, PARAM_SCALAR } ParamKind;

typedef struct Param {
  ParamKind kind;
  char *ctype;      /* scalar: its C type; memref: the descriptor type name */
  char *name;       /* arg0, ..., result0, ... */
  char *mlirType;   /* as written in the input */
} Param;

typedef struct EntryPoint {
  char *name;       /* the func.func symbol */
  char *signature;  /* func.func @name(types) -> types */
  Param *params;
  size_t numParams;
  size_t numArgs;   /* leading params that are arguments */
  char *returnType; /* "void" or a scalar C type */
  char *returnMlirType;
} EntryPoint;

typedef struct Descriptor {
  char *tag;   /* f32, i8, index, ... */
  char *ctype; /* element type in C */
  int64_t rank;
} Descriptor;

typedef struct Interface {
  EntryPoint *entries;
  size_t count;
  Descriptor *descriptors;
  size_t numDescriptors;
  bool ok;
} Interface;

/* Element tag and C storage type of a memref/tensor element, or false. */
static bool elementInfo(MlirType t, const char **tag, const char **ctype) {
  if (mlirTypeIsAF32(t)) { *tag = "f32"; *ctype = "float"; return true; }
  if (mlirTypeIsAF64(t)) { *tag = "f64"; *ctype = "double"; return true; }
  /* Half types are passed as their bit patterns in memory. */
  if (mlirTypeIsAF16(t)) { *tag = "f16"; *ctype = "uint16_t"; return true; }
  if (mlirTypeIsABF16(t)) { *tag = "bf16"; *ctype = "uint16_t"; return true; }
  if (mlirTypeIsAIndex(t)) { *tag = "index"; *ctype = "int64_t"; return true; }
  if (mlirTypeIsAInteger(t)) {
    switch (mlirIntegerTypeGetWidth(t)) {
    case 1: *tag = "i1"; *ctype = "bool"; return true;
    case 8: *tag = "i8"; *ctype = "int8_t"; return true;
    case 16: *tag = "i16"; *ctype = "int16_t"; return true;
    case 32: *tag = "i32"; *ctype = "int32_t"; return true;
    case 64: *tag = "i64"; *ctype = "int64_t"; return true;
    default: return false;
    }
  }
  return false;
}

/* C type of a scalar passed or returned by value, or NULL. */
static const char *scalarCType(MlirType t) {
  if (mlirTypeIsAF32(t)) return "float";
  if (mlirTypeIsAF64(t)) return "double";
  if (mlirTypeIsAF16(t)) return "_Float16";
  /* __bf16 needs clang or GCC 13+; writeHeader emits a check. */
  if (mlirTypeIsABF16(t)) return "__bf16";
  if (mlirTypeIsAIndex(t)) return "int64_t";
  if (mlirTypeIsAInteger(t)) {
    switch (mlirIntegerTypeGetWidth(t)) {
    case 1: return "bool";
    case 8: return "int8_t";
    case 16: return "int16_t";
    case 32: return "int32_t";
    case 64: return "int64_t";
    default: return NULL;
    }
  }
  return NULL;
}

static bool isRankedBuffer(MlirType t) {
  return mlirTypeIsARankedTensor(t) || mlirTypeIsAMemRef(t);
}

static void useDescriptor(Interface *iface, const char *tag, const char *ctype,
                          int64_t rank) {
  for (size_t i = 0; i < iface->numDescriptors; ++i)
    if (!strcmp(iface->descriptors[i].tag, tag) &&
        iface->descriptors[i].rank == rank)
      return;
  iface->descriptors = xrealloc(iface->descriptors, (iface->numDescriptors + 1) *
                                                        sizeof *iface->descriptors);
  Descriptor *d = &iface->descriptors[iface->numDescriptors++];
  d->tag = xstrdup(tag);
  d->ctype = xstrdup(ctype);
  d->rank = rank;
}

static void addParam(EntryPoint *e, ParamKind kind, const char *ctype,
                     const char *name, MlirType type) {
  e->params = xrealloc(e->params, (e->numParams + 1) * sizeof *e->params);
  Param *p = &e->params[e->numParams++];
  p->kind = kind;
  p->ctype = xstrdup(ctype);
  p->name = xstrdup(name);
  p->mlirType = typeToString(type);
}

/* Problems with entry points are recorded while the input is analyzed and
 * reported (at the function's location) only if the pipeline succeeds: the
 * pipeline's own input validation names the offending op more precisely. */
typedef struct EntryError {
  MlirLocation loc;
  char *message;
} EntryError;

static EntryError *gEntryErrors = NULL;
static size_t gNumEntryErrors = 0;

static void entryError(MlirOperation func, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void entryError(MlirOperation func, const char *fmt, ...) {
  StrBuf b = {0};
  va_list ap;
  va_start(ap, fmt);
  sbVPrintf(&b, fmt, ap);
  va_end(ap);
  char *msg = b.data ? b.data : xstrdup("");
  gEntryErrors = xrealloc(gEntryErrors, (gNumEntryErrors + 1) * sizeof *gEntryErrors);
  gEntryErrors[gNumEntryErrors].loc = mlirOperationGetLocation(func);
  gEntryErrors[gNumEntryErrors].message = msg;
  ++gNumEntryErrors;
}

static void reportEntryErrors(void) {
  for (size_t i = 0; i < gNumEntryErrors; ++i)
    mlirEmitError(gEntryErrors[i].loc, gEntryErrors[i].message);
}

/* A memref/tensor parameter (argument or result #index of @func): records
 * its descriptor type; false (after recording an entry error) when its
 * element type has no C mapping. */
static bool addBufferParam(Interface *iface, EntryPoint *e, MlirOperation op,
                           MlirType t, const char *what, intptr_t index,
                           const char *func, const char *pname) {
  const char *tag, *ctype;
  if (!elementInfo(mlirShapedTypeGetElementType(t), &tag, &ctype)) {
    char *ts = typeToString(t);
    entryError(op, "%s #%ld of @%s has type %s, whose element type has no C ABI mapping",
               what, (long)index, func, ts);
    free(ts);
    return false;
  }
  int64_t rank = mlirShapedTypeGetRank(t);
  useDescriptor(iface, tag, ctype, rank);
  char dname[64];
  snprintf(dname, sizeof dname, "tessel_memref_%s_%ldd", tag, (long)rank);
  addParam(e, PARAM_MEMREF, dname, pname, t);
  return true;
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

static bool isPublicDefinition(MlirOperation func) {
  MlirAttribute vis = mlirOperationGetAttributeByName(func, str("sym_visibility"));
  if (!mlirAttributeIsNull(vis) && mlirAttributeIsAString(vis)) {
    MlirStringRef v = mlirStringAttrGetValue(vis);
    if (!(v.length == 6 && !strncmp(v.data, "public", 6)))
      return false;
  }
  MlirRegion body = mlirOperationGetFirstRegion(func);
  return !mlirRegionIsNull(body) && !mlirBlockIsNull(mlirRegionGetFirstBlock(body));
}

static bool opIsNamed(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !strncmp(n.data, name, n.length);
}

static char *symbolName(MlirOperation op) {
  MlirAttribute sym = mlirOperationGetAttributeByName(
      op, mlirSymbolTableGetSymbolAttributeName());
  if (mlirAttributeIsNull(sym) || !mlirAttributeIsAString(sym))
    return NULL;
  MlirStringRef s = mlirStringAttrGetValue(sym);
  return xstrndup(s.data, s.length);
}

/* Collects the public functions of the input module and their C signatures.
 * Errors (types without a C mapping, several scalar results) are reported as
 * MLIR diagnostics at the function; iface->ok says whether there were any. */
static Interface analyzeInterface(MlirModule module) {
  Interface iface;
  memset(&iface, 0, sizeof iface);
  iface.ok = true;
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!opIsNamed(op, "func.func") || !isPublicDefinition(op))
      continue;
    MlirAttribute typeAttr =
        mlirOperationGetAttributeByName(op, str("function_type"));
    if (mlirAttributeIsNull(typeAttr))
      continue;
    MlirType fnType = mlirTypeAttrGetValue(typeAttr);
    char *name = symbolName(op);
    if (!name)
      continue;

    EntryPoint e;
    memset(&e, 0, sizeof e);
    e.name = name;
    char *typeText = typeToString(fnType);
    StrBuf sig = {0};
    sbPrintf(&sig, "func.func @%s%s", name, typeText);
    free(typeText);
    e.signature = sig.data;
    bool ok = true;

    intptr_t numInputs = mlirFunctionTypeGetNumInputs(fnType);
    for (intptr_t i = 0; i < numInputs; ++i) {
      MlirType t = mlirFunctionTypeGetInput(fnType, i);
      char pname[32];
      snprintf(pname, sizeof pname, "arg%ld", (long)i);
      if (isRankedBuffer(t)) {
        ok &= addBufferParam(&iface, &e, op, t, "argument", i, name, pname);
      } else if (scalarCType(t)) {
        addParam(&e, PARAM_SCALAR, scalarCType(t), pname, t);
      } else {
        char *ts = typeToString(t);
        entryError(op, "argument #%ld of @%s has type %s, which has no C ABI mapping (use ranked tensors or memrefs, or integer/float scalars)", (long)i, name, ts);
        free(ts);
        ok = false;
      }
    }
    e.numArgs = e.numParams;

    intptr_t numResults = mlirFunctionTypeGetNumResults(fnType);
    intptr_t scalarResults = 0;
    MlirType scalarResult = {0};
    for (intptr_t i = 0; i < numResults; ++i) {
      MlirType t = mlirFunctionTypeGetResult(fnType, i);
      char pname[32];
      snprintf(pname, sizeof pname, "result%ld", (long)i);
      if (isRankedBuffer(t)) {
        ok &= addBufferParam(&iface, &e, op, t, "result", i, name, pname);
      } else if (scalarCType(t)) {
        ++scalarResults;
        scalarResult = t;
      } else {
        char *ts = typeToString(t);
        entryError(op, "result #%ld of @%s has type %s, which has no C ABI mapping", (long)i, name, ts);
        free(ts);
        ok = false;
      }
    }
    if (scalarResults > 1) {
      entryError(op, "@%s returns %ld scalar values; the C ABI returns at most one scalar by value (return them in a tensor, or split the function)", name, (long)scalarResults);
      ok = false;
    }
    if (scalarResults == 1) {
      e.returnType = xstrdup(scalarCType(scalarResult));
      e.returnMlirType = typeToString(scalarResult);
    } else {
      e.returnType = xstrdup("void");
    }
    if (!ok)
      iface.ok = false;
    iface.entries = xrealloc(iface.entries, (iface.count + 1) * sizeof *iface.entries);
    iface.entries[iface.count++] = e;
  }
  return iface;
}

/* Checks the lowered module against the contract: each entry point has a
 * _mlir_ciface_ wrapper with as many parameters as the header declares and a
 * matching (void or not) result. Catches pipelines that change the ABI. */
static bool checkLoweredInterface(MlirModule module, const Interface *iface,
                                  bool customPipeline) {
  /* With the target's own pipeline a mismatch is Tessel's bug; with
   * --pass-pipeline it is the given pipeline's doing. */
  const char *prefix = customPipeline ? "" : "internal error: ";
  bool ok = true;
  MlirBlock body = mlirModuleGetBody(module);
  for (size_t i = 0; i < iface->count; ++i) {
    const EntryPoint *e = &iface->entries[i];
    StrBuf want = {0};
    sbPrintf(&want, "_mlir_ciface_%s", e->name);
    MlirOperation found = {0};
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
      if (!opIsNamed(op, "llvm.func"))
        continue;
      char *sym = symbolName(op);
      bool match = sym && !strcmp(sym, sbStr(&want));
      free(sym);
      if (match) {
        found = op;
        break;
      }
    }
    if (mlirOperationIsNull(found)) {
      errorf("%sthe lowered module has no '%s' for public function @%s (the "
             "%s did not emit its C interface)",
             prefix, sbStr(&want), e->name,
             customPipeline ? "--pass-pipeline" : "pipeline");
      ok = false;
      sbFree(&want);
      continue;
    }
    MlirAttribute typeAttr =
        mlirOperationGetAttributeByName(found, str("function_type"));
    if (!mlirAttributeIsNull(typeAttr)) {
      MlirType fnType = mlirTypeAttrGetValue(typeAttr);
      intptr_t n = mlirLLVMFunctionTypeGetNumInputs(fnType);
      MlirType ret = mlirLLVMFunctionTypeGetReturnType(fnType);
      bool isVoid = mlirTypeEqual(ret, mlirLLVMVoidTypeGet(mlirTypeGetContext(ret)));
      bool wantVoid = !strcmp(e->returnType, "void");
      if ((size_t)n != e->numParams || isVoid != wantVoid) {
        char *ts = typeToString(fnType);
        errorf("%s'%s' was lowered to %s (%ld parameters, %s "
               "result) but the ABI contract for %s gives %zu parameters and "
               "a %s result",
               prefix, sbStr(&want), ts, (long)n, isVoid ? "no" : "a", e->signature,
               e->numParams, wantVoid ? "void" : e->returnType);
        free(ts);
        ok = false;
      }
    }
    sbFree(&want);
  }
  return ok;
}

/* Must list the tags of the typedefs in runtime/include/tessel/runtime.h. */
static const char *kCoveredByRuntime[] = {"f32", "f64", "i8", "i16", "i32", "i64"};

static bool coveredByRuntimeHeader(const Descriptor *d) {
  if (d->rank > 4)
    return false;
  for (size_t i = 0; i < sizeof kCoveredByRuntime / sizeof *kCoveredByRuntime; ++i)
    if (!strcmp(kCoveredByRuntime[i], d->tag))
      return true;
  return false;
}

static char *upperIdentifier(const char *s) {
  StrBuf b = {0};
  for (const char *p = s; *p; ++p) {
    char c = *p;
    if (c >= 'a' && c <= 'z')
      c = (char)(c - 'a' + 'A');
    else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      c = '_';
    sbAppendN(&b, &c, 1);
  }
  return b.data ? b.data : xstrdup("X");
}

/* Writes `text` into a C comment, defusing any comment terminator. */
static void writeCommentText(FILE *f, const char *text) {
  for (const char *p = text; *p; ++p) {
    if (p[0] == '*' && p[1] == '/') {
      fputs("* /", f);
      ++p;
    } else {
      fputc(*p, f);
    }
  }
}

static bool writeHeader(const char *path, const Interface *iface,
                        const Options *o) {
  FILE *f = fopen(path, "w");
  if (!f) {
    errorf("cannot write header '%s': %s", path, strerror(errno));
    return false;
  }
  /* The guard names the file and its entry points, so two generated headers
   * with the same file name (say cpu/add.h and gpu/add.h) can be included
   * together. */
  StrBuf guardText = {0};
  sbAppend(&guardText, baseName(path));
  for (size_t i = 0; i < iface->count; ++i)
    sbPrintf(&guardText, "_%s", iface->entries[i].name);
  char *guard = upperIdentifier(sbStr(&guardText));
  sbFree(&guardText);
  fprintf(f, "/* Generated by tessel-compile from ");
  writeCommentText(f, strcmp(o->input, "-") ? o->input : "<stdin>");
  fprintf(f, " (target %s); do not edit.\n *\n", o->target);
  fputs(kAbiContract, f);
  fprintf(f, " */\n#ifndef TESSEL_GENERATED_%s\n#define TESSEL_GENERATED_%s\n\n",
          guard, guard);
  fprintf(f, "#include <stdbool.h>\n#include <stdint.h>\n\n");
  bool usesBf16 = false;
  for (size_t i = 0; i < iface->count; ++i) {
    const EntryPoint *e = &iface->entries[i];
    usesBf16 |= !strcmp(e->returnType, "__bf16");
    for (size_t j = 0; j < e->numParams; ++j)
      usesBf16 |= !strcmp(e->params[j].ctype, "__bf16");
  }
  if (usesBf16)
    fprintf(f, "#if !defined(__clang__) && !(defined(__GNUC__) && __GNUC__ >= 13)\n"
               "#error \"bf16 scalars are passed as __bf16, which needs clang or GCC 13+\"\n"
               "#endif\n\n");
  fprintf(f,
          "/* The descriptor typedefs below have the same names and layout as\n"
          " * those of Tessel's runtime header; reuse its definitions when it is\n"
          " * on the include path so both headers can be included together. */\n"
          "#if defined(__has_include)\n"
          "#if __has_include(<tessel/runtime.h>)\n"
          "#include <tessel/runtime.h>\n"
          "#endif\n"
          "#endif\n\n");
  fprintf(f, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");

  if (iface->numDescriptors)
    fprintf(f, "/* Upstream MLIR strided memref descriptors (StridedMemRefType<T, R>). */\n");
  for (size_t i = 0; i < iface->numDescriptors; ++i) {
    const Descriptor *d = &iface->descriptors[i];
    char *macro = upperIdentifier(d->tag);
    fprintf(f, "#ifndef TESSEL_MEMREF_%s_%ldD_DEFINED\n", macro, (long)d->rank);
    fprintf(f, "#define TESSEL_MEMREF_%s_%ldD_DEFINED\n", macro, (long)d->rank);
    if (coveredByRuntimeHeader(d))
      fprintf(f, "#ifndef TESSEL_RUNTIME_H\n");
    fprintf(f, "typedef struct tessel_memref_%s_%ldd {\n", d->tag, (long)d->rank);
    fprintf(f, "  %s *allocated;\n  %s *aligned;\n  int64_t offset;\n", d->ctype,
            d->ctype);
    if (d->rank > 0)
      fprintf(f, "  int64_t sizes[%ld];\n  int64_t strides[%ld];\n", (long)d->rank,
              (long)d->rank);
    fprintf(f, "} tessel_memref_%s_%ldd;\n", d->tag, (long)d->rank);
    if (coveredByRuntimeHeader(d))
      fprintf(f, "#endif\n");
    fprintf(f, "#endif\n\n");
    free(macro);
  }

  for (size_t i = 0; i < iface->count; ++i) {
    const EntryPoint *e = &iface->entries[i];
    fprintf(f, "/* MLIR: ");
    writeCommentText(f, e->signature);
    fprintf(f, "\n");
    for (size_t p = 0; p < e->numParams; ++p) {
      const Param *q = &e->params[p];
      fprintf(f, " *   %-9s ", q->name);
      writeCommentText(f, q->mlirType);
      if (p >= e->numArgs)
        fprintf(f, " (output: caller-allocated, written by the call)");
      fprintf(f, "\n");
    }
    if (e->returnMlirType) {
      fprintf(f, " *   returns   ");
      writeCommentText(f, e->returnMlirType);
      fprintf(f, " by value\n");
    }
    fprintf(f, " */\n%s _mlir_ciface_%s(", e->returnType, e->name);
    if (e->numParams == 0)
      fprintf(f, "void");
    for (size_t p = 0; p < e->numParams; ++p) {
      const Param *q = &e->params[p];
      if (p)
        fprintf(f, ", ");
      if (q->kind == PARAM_MEMREF)
        fprintf(f, "%s *%s", q->ctype, q->name);
      else
        fprintf(f, "%s %s", q->ctype, q->name);
    }
    fprintf(f, ");\n\n");
  }
  fprintf(f, "#ifdef __cplusplus\n}\n#endif\n\n#endif /* TESSEL_GENERATED_%s */\n",
          guard);
  free(guard);
  if (fclose(f) != 0) {
    errorf("cannot write header '%s': %s", path, strerror(errno));
    return false;
  }
  return true;
}

/*===----------------------------------------------------------------------===*
 * Leftovers
 *===----------------------------------------------------------------------===*/

/* After the pipeline only the LLVM dialect may remain, plus gpu.binary and
 * gpu.launch_func, which the GPU offloading translation lowers itself.
 * Anything else would make the translation fail with a message about the
 * op's unrealized casts; naming the op that was not lowered is clearer. */
typedef struct Leftovers {
  MlirOperation *ops;
  size_t count;
  size_t casts;
} Leftovers;

static MlirWalkResult collectLeftovers(MlirOperation op, void *user) {
  Leftovers *l = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  /* omp.* ops are translated to LLVM IR (OpenMP runtime calls) by the
   * OpenMP translation, like llvm.* ops by the LLVM one. */
  if ((name.length > 5 && !strncmp(name.data, "llvm.", 5)) ||
      (name.length > 4 && !strncmp(name.data, "omp.", 4)) ||
      opIsNamed(op, "builtin.module"))
    return MlirWalkResultAdvance;
  if (opIsNamed(op, "gpu.binary"))
    return MlirWalkResultSkip;
  if (opIsNamed(op, "gpu.launch_func"))
    return MlirWalkResultAdvance;
  if (opIsNamed(op, "builtin.unrealized_conversion_cast")) {
    ++l->casts;
    return MlirWalkResultAdvance;
  }
  l->ops = xrealloc(l->ops, (l->count + 1) * sizeof *l->ops);
  l->ops[l->count++] = op;
  return MlirWalkResultAdvance;
}

static bool checkFullyLowered(MlirModule module, const Options *o,
                              const Pipeline *pipeline) {
  Leftovers l = {0};
  mlirOperationWalk(mlirModuleGetOperation(module), collectLeftovers, &l,
                    MlirWalkPreOrder);
  if (l.count == 0) {
    free(l.ops);
    return true; /* casts alone: let the translation report them */
  }
  const size_t shown = l.count < 10 ? l.count : 10;
  for (size_t i = 0; i < shown; ++i) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(l.ops[i]));
    StrBuf msg = {0};
    sbAppend(&msg, "'");
    sbAppendN(&msg, name.data, name.length);
    sbPrintf(&msg, "' was not lowered to the LLVM dialect by the %s",
             pipeline->origin);
    mlirEmitError(mlirOperationGetLocation(l.ops[i]), sbStr(&msg));
    sbFree(&msg);
  }
  if (l.count > shown)
    errorf("... and %zu more ops that were not lowered", l.count - shown);
  errorf("the %s left %zu non-LLVM op(s) in the module (see above); "
         "cannot translate '%s' to LLVM IR",
         pipeline->origin, l.count, o->input);
  free(l.ops);
  return false;
}

/*===----------------------------------------------------------------------===*
 * GPU binaries
 *===----------------------------------------------------------------------===*/

typedef struct BinaryCollector {
  MlirOperation *ops;
  size_t count;
} BinaryCollector;

static MlirWalkResult collectBinaries(MlirOperation op, void *user) {
  BinaryCollector *c = user;
  if (opIsNamed(op, "gpu.binary")) {
    c->ops = xrealloc(c->ops, (c->count + 1) * sizeof *c->ops);
    c->ops[c->count++] = op;
    return MlirWalkResultSkip;
  }
  return MlirWalkResultAdvance;
}

static const char *deviceObjectExtension(const char *target, uint32_t format) {
  /* gpu::CompilationTarget: Offload = 1, Assembly = 2, Binary = 3, Fatbin = 4 */
  bool nv = !strcmp(target, "nvgpu");
  switch (format) {
  case 1: return "bc";
  case 2: return nv ? "ptx" : "s";
  case 3: return nv ? "cubin" : "hsaco";
  case 4: return "fatbin";
  default: return "bin";
  }
}

static bool emitDeviceObjects(MlirModule module, const Options *o) {
  if (!strcmp(o->target, "cpu")) {
    warnf("--emit-device-asm has no effect for target cpu");
    return true;
  }
  if (!makeDirs(o->deviceAsmDir)) {
    errorf("cannot create directory '%s': %s", o->deviceAsmDir, strerror(errno));
    return false;
  }
  BinaryCollector c = {0};
  mlirOperationWalk(mlirModuleGetOperation(module), collectBinaries, &c,
                    MlirWalkPreOrder);
  if (c.count == 0)
    warnf("no gpu.binary in the compiled module: nothing written to '%s'",
          o->deviceAsmDir);
  bool ok = true;
  for (size_t i = 0; i < c.count; ++i) {
    char *name = symbolName(c.ops[i]);
    MlirAttribute objects = mlirOperationGetAttributeByName(c.ops[i], str("objects"));
    if (mlirAttributeIsNull(objects) || !mlirAttributeIsAArray(objects)) {
      warnf("gpu.binary @%s has no objects", name ? name : "?");
      free(name);
      continue;
    }
    intptr_t n = mlirArrayAttrGetNumElements(objects);
    for (intptr_t k = 0; k < n; ++k) {
      MlirAttribute obj = mlirArrayAttrGetElement(objects, k);
      if (!mlirAttributeIsAGPUObjectAttr(obj))
        continue;
      uint32_t format = mlirGPUObjectAttrGetFormat(obj);
      MlirStringRef data = mlirGPUObjectAttrGetObject(obj);
      StrBuf file = {0};
      if (n > 1)
        sbPrintf(&file, "%s.%ld.%s", name ? name : "kernels", (long)k,
                 deviceObjectExtension(o->target, format));
      else
        sbPrintf(&file, "%s.%s", name ? name : "kernels",
                 deviceObjectExtension(o->target, format));
      char *path = joinPath(o->deviceAsmDir, sbStr(&file));
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(data.data, 1, data.length, f) != data.length) {
        errorf("cannot write '%s': %s", path, strerror(errno));
        ok = false;
      }
      if (f && fclose(f) != 0) {
        errorf("cannot write '%s': %s", path, strerror(errno));
        ok = false;
      }
      free(path);
      sbFree(&file);
    }
    free(name);
  }
  free(c.ops);
  return ok;
}

/*===----------------------------------------------------------------------===*
 * Linking
 *===----------------------------------------------------------------------===*/

/* Directory that holds libTessel.so (and the runtimes built with it). */
static char *tesselLibraryDir(void) {
  void *sym = dlsym(RTLD_DEFAULT, "tesselGetPipeline");
  if (!sym)
    sym = (void *)&tesselGetPipeline;
  Dl_info info;
  if (!dladdr(sym, &info) || !info.dli_fname)
    return NULL;
  char resolved[PATH_MAX];
  const char *path = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
  return dirName(path);
}

static char *defaultLinkerDriver(void) {
  char *cc = findOnPath("clang-22");
  if (cc)
    return cc;
  if (access("/usr/lib/llvm-22/bin/clang", X_OK) == 0)
    return xstrdup("/usr/lib/llvm-22/bin/clang");
  return NULL;
}

static int runCommand(char *const argv[]) {
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  if (rc != 0) {
    errorf("cannot run '%s': %s", argv[0], strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      errorf("waiting for '%s': %s", argv[0], strerror(errno));
      return -1;
    }
  }
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  if (WIFSIGNALED(status))
    errorf("'%s' was killed by signal %d", argv[0], WTERMSIG(status));
  return -1;
}

static bool linkSharedLibrary(const Options *o, const char *object,
                              const char *output) {
  char *cc = o->cc ? xstrdup(o->cc) : defaultLinkerDriver();
  if (!cc) {
    errorf("no linker driver: clang-22 is not on PATH and "
           "/usr/lib/llvm-22/bin/clang does not exist (use --cc=PATH)");
    return false;
  }
  const char *argv[32];
  int argc = 0;
  argv[argc++] = cc;
  argv[argc++] = "-shared";
  argv[argc++] = "-fPIC";
  /* The ABI contract's link line; --as-needed keeps libomp out of objects
   * that have no parallel loops. */
  argv[argc++] = "-Wl,--as-needed";
  argv[argc++] = "-fopenmp=libomp";
  /* Unresolved symbols (say, a runtime function some lowering calls) are a
   * link error here rather than a dlopen failure later. */
  argv[argc++] = "-Wl,-z,defs";
  argv[argc++] = object;
  argv[argc++] = "-o";
  argv[argc++] = output;
  char *libFlag = NULL, *rpathFlag = NULL, *runtimeFlag = NULL;
  bool gpu = strcmp(o->target, "cpu") != 0;
  if (gpu) {
    const char *runtime = !strcmp(o->target, "nvgpu") ? "tessel_cuda_runtime"
                                                      : "tessel_hip_runtime";
    char *dir = tesselLibraryDir();
    if (!dir) {
      errorf("cannot locate libTessel.so to find lib%s.so next to it", runtime);
      free(cc);
      return false;
    }
    StrBuf lib = {0};
    sbPrintf(&lib, "%s/lib%s.so", dir, runtime);
    if (!fileExists(sbStr(&lib))) {
      errorf("target %s needs the GPU runtime '%s', which is not built (looked "
             "next to libTessel.so in '%s'; build the CMake target %s)",
             o->target, sbStr(&lib), dir, runtime);
      sbFree(&lib);
      free(dir);
      free(cc);
      return false;
    }
    sbFree(&lib);
    StrBuf b = {0};
    sbPrintf(&b, "-L%s", dir);
    libFlag = b.data;
    StrBuf r = {0};
    sbPrintf(&r, "-Wl,-rpath,%s", dir);
    rpathFlag = r.data;
    StrBuf l = {0};
    sbPrintf(&l, "-l%s", runtime);
    runtimeFlag = l.data;
    argv[argc++] = libFlag;
    argv[argc++] = runtimeFlag;
    argv[argc++] = rpathFlag;
    free(dir);
  }
  argv[argc++] = "-lm";
  argv[argc] = NULL;
  int rc = runCommand((char *const *)argv);
  if (rc != 0) {
    StrBuf cmd = {0};
    for (int i = 0; i < argc; ++i)
      sbPrintf(&cmd, "%s%s", i ? " " : "", argv[i]);
    if (rc > 0)
      errorf("linking '%s' failed (exit code %d): %s", output, rc, sbStr(&cmd));
    else
      errorf("linking '%s' failed: %s", output, sbStr(&cmd));
    sbFree(&cmd);
  }
  free(libFlag);
  free(rpathFlag);
  free(runtimeFlag);
  free(cc);
  return rc == 0;
}

/*===----------------------------------------------------------------------===*
 * Printing IR
 *===----------------------------------------------------------------------===*/

static bool writeModuleToPath(MlirModule module, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    errorf("cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  mlirOperationPrint(mlirModuleGetOperation(module), writeToFile, f);
  fputc('\n', f);
  if (fclose(f) != 0) {
    errorf("cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  return true;
}

static bool dumpModule(const Options *o, int index, const char *slug,
                       MlirModule module) {
  StrBuf name = {0};
  sbPrintf(&name, "%02d-%s.mlir", index, slug);
  char *path = joinPath(o->dumpDir, sbStr(&name));
  bool ok = writeModuleToPath(module, path);
  free(path);
  sbFree(&name);
  return ok;
}

static bool dumpLLVMModule(const Options *o, int index, const char *slug,
                           LLVMModuleRef mod) {
  StrBuf name = {0};
  sbPrintf(&name, "%02d-%s.ll", index, slug);
  char *path = joinPath(o->dumpDir, sbStr(&name));
  char *err = NULL;
  bool ok = !LLVMPrintModuleToFile(mod, path, &err);
  if (!ok)
    errorf("cannot write '%s': %s", path, err ? err : "unknown error");
  if (err)
    LLVMDisposeMessage(err);
  free(path);
  sbFree(&name);
  return ok;
}

/*===----------------------------------------------------------------------===*
 * Driver
 *===----------------------------------------------------------------------===*/

/* The module's #tessel.target as last seen. tessel-finalize-target moves it
 * onto the LLVM functions at the end of the pipeline, so the driver records it
 * after every stage. */
typedef struct TargetInfo {
  bool seen;
  char *triple, *chip, *features;
} TargetInfo;

static void snapshotTarget(MlirModule module, TargetInfo *info) {
  MlirAttribute t = tesselModuleGetTarget(module);
  if (mlirAttributeIsNull(t) || !tesselAttributeIsATarget(t))
    return;
  MlirStringRef triple = tesselTargetGetTriple(t);
  MlirStringRef chip = tesselTargetGetChip(t);
  MlirStringRef features = tesselTargetGetFeatures(t);
  free(info->triple);
  free(info->chip);
  free(info->features);
  info->triple = xstrndup(triple.data, triple.length);
  info->chip = xstrndup(chip.data, chip.length);
  info->features = xstrndup(features.data, features.length);
  info->seen = true;
}

static void printSupportedTargets(FILE *f) {
  for (int i = 0, n = tesselGetPipelineTargetCount(); i < n; ++i)
    fprintf(f, "%s%s", i ? ", " : "", tesselGetPipelineTarget(i));
}

static int driverMain(int argc, char **argv) {
  Options o = parseOptions(argc, argv);

  const char *targetPipeline = tesselGetPipeline(o.target);
  if (!targetPipeline) {
    fprintf(errStream(), "%s: error: unsupported target '%s' (supported: ", kProgram,
            o.target);
    printSupportedTargets(errStream());
    fprintf(errStream(), ")\n");
    return 1;
  }
  /* The options go inside tessel-attach-target{...}: braces or
   * parentheses could close it and splice other passes into the pipeline,
   * quotes would smuggle spaces into a value. Option values need no more
   * than names, numbers and feature lists ('features=+avx2,+fma'). */
  if (o.targetOptions &&
      o.targetOptions[strspn(o.targetOptions,
                             "abcdefghijklmnopqrstuvwxyz"
                             "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_.,+=:- ")] != '\0')
    fatal("--target-options='%s' may only hold space-separated key=value "
          "options of tessel-attach-target", o.targetOptions);
  /* The pipeline to run: the target's, split into stages by libTessel, or
   * the user's, split here the same way. */
  Pipeline pipeline = {0};
  StrBuf targetOrigin = {0};
  if (o.passPipeline) {
    pipeline.text = o.passPipeline;
    pipeline.origin = "--pass-pipeline";
    if (!splitStages(o.passPipeline, &pipeline))
      fatal("--pass-pipeline='%s' is not a pipeline on the module: write "
            "builtin.module(pass1,pass2,op(pass3),...)", o.passPipeline);
  } else {
    pipeline.text = targetPipeline;
    sbPrintf(&targetOrigin, "%s pipeline", o.target);
    pipeline.origin = sbStr(&targetOrigin);
    pipeline.numStages = tesselGetPipelineStageCount(o.target);
    pipeline.stages = xmalloc((size_t)pipeline.numStages * sizeof *pipeline.stages);
    for (int i = 0; i < pipeline.numStages; ++i)
      pipeline.stages[i] = xstrdup(tesselGetPipelineStage(o.target, i));
  }
  if (o.printPipeline) {
    if (o.targetOptions)
      fprintf(gLog ? gLog : stdout,
             "builtin.module(tessel-attach-target{kind=%s force %s},%s\n",
             o.target, o.targetOptions,
             strchr(pipeline.text, '(') + 1);
    else
      fprintf(gLog ? gLog : stdout, "%s\n", pipeline.text);
    return 0;
  }
  if (!o.input)
    fatal("no input file (usage: tessel-compile in.mlir --target=cpu -o out.so; see --help)");
  if (!o.output)
    fatal("no output file: use -o out.{so,o,s,bc,ll,mlir}");
  OutputKind kind = outputKindFor(o.output);
  char *headerPath = NULL;
  if (!o.noHeader)
    headerPath = o.header ? xstrdup(o.header) : replaceExtension(o.output, ".h");
  if (headerPath && !strcmp(headerPath, o.output))
    fatal("the header path '%s' is the output path; use --header=<other path> or --no-header", headerPath);

  if (strcmp(o.input, "-") != 0) {
    FILE *probe = fopen(o.input, "r");
    if (!probe)
      fatal("cannot open input file '%s': %s", o.input, strerror(errno));
    fclose(probe);
    if (sameFile(o.input, o.output))
      fatal("the output path '%s' is the input file; choose another -o",
            o.output);
    if (headerPath && sameFile(o.input, headerPath))
      fatal("the header path '%s' is the input file; use --header=<other path> "
            "or --no-header",
            headerPath);
  }
  if (o.dumpDir && !makeDirs(o.dumpDir))
    fatal("cannot create dump directory '%s': %s", o.dumpDir, strerror(errno));

  Timings timings = {0};
  double tStart = nowSeconds();

  /* Context with every upstream dialect and extension, Tessel's dialect, the
   * LLVM IR translations, and every pass and named pipeline. */
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  tesselRegisterDialect(registry);
  MlirContext ctx = mlirContextCreateWithRegistry(registry, /*threading=*/true);
  mlirDialectRegistryDestroy(registry);
  mlirRegisterAllLLVMTranslations(ctx);
  /* Once per process: the library runs the driver many times. */
  static bool passesRegistered = false;
  if (!passesRegistered) {
    mlirRegisterAllPasses();
    tesselRegisterPassesAndPipelines();
    passesRegistered = true;
  }
  mlirContextAttachDiagnosticHandler(ctx, handleDiagnostic, NULL, NULL);
  double t0 = nowSeconds();
  addTiming(&timings, "-", "setup (registration)", t0 - tStart);

  MlirModule module = mlirModuleCreateParseFromFile(ctx, str(o.input));
  double t1 = nowSeconds();
  addTiming(&timings, "-", "parse", t1 - t0);
  if (mlirModuleIsNull(module))
    fatal("cannot parse '%s' as MLIR (see the diagnostics above)", o.input);
  if (o.dumpDir && !dumpModule(&o, 0, "input", module))
    return 1;

  /* Entry points, from the signatures the user wrote (errors are reported
   * after the pipeline, see entryError). */
  Interface iface = analyzeInterface(module);

  /* A --pass-pipeline is parsed whole first, so that its errors name the
   * string the user wrote. */
  if (o.passPipeline) {
    MlirPassManager pm = mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
    StrBuf err = {0};
    if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(pm), str(o.passPipeline),
            appendToStrBuf, &err)))
      fatal("--pass-pipeline does not parse: %s\n  pipeline: %s", sbStr(&err),
            o.passPipeline);
    sbFree(&err);
    mlirPassManagerDestroy(pm);
  }

  /* The pipeline, one top-level stage at a time. */
  const int numStages = pipeline.numStages;
  MlirPassManager *pms = xmalloc((size_t)(numStages ? numStages : 1) * sizeof *pms);
  for (int i = 0; i < numStages; ++i) {
    const char *stage = pipeline.stages[i];
    pms[i] = mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
    StrBuf err = {0};
    if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(pms[i]), str(stage),
            appendToStrBuf, &err)))
      fatal("stage %d of the %s does not parse: %s\n  stage: %s",
            i + 1, pipeline.origin, sbStr(&err), stage);
    sbFree(&err);
  }
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  /* A described machine goes on first; the pipeline's own attach step then
   * keeps it (docs/TargetDescription.md). */
  if (o.targetOptions) {
    StrBuf spec = {0};
    /* The user asked for this machine explicitly: it replaces a target the
     * input may carry. */
    sbPrintf(&spec, "builtin.module(tessel-attach-target{kind=%s force %s})",
             o.target, o.targetOptions);
    MlirPassManager pm =
        mlirPassManagerCreateOnOperation(ctx, str("builtin.module"));
    StrBuf err = {0};
    if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(pm), str(sbStr(&spec)),
            appendToStrBuf, &err)))
      fatal("--target-options='%s' are not tessel-attach-target options: %s",
            o.targetOptions, sbStr(&err));
    if (mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, moduleOp)))
      fatal("--target-options='%s' do not describe a valid %s target (see "
            "above)", o.targetOptions, o.target);
    mlirPassManagerDestroy(pm);
    sbFree(&err);
    sbFree(&spec);
  }
  TargetInfo target = {0};
  snapshotTarget(module, &target);
  for (int i = 0; i < numStages; ++i) {
    const char *stage = pipeline.stages[i];
    char *display = stageDisplayName(stage);
    char index[16];
    snprintf(index, sizeof index, "%d", i + 1);
    double s0 = nowSeconds();
    MlirLogicalResult result = mlirPassManagerRunOnOp(pms[i], moduleOp);
    double s1 = nowSeconds();
    addTiming(&timings, index, display, s1 - s0);
    if (mlirLogicalResultIsFailure(result)) {
      errorf("%s stage %d/%d '%s' failed on '%s'\n  stage: %s",
             pipeline.origin, i + 1, numStages, display, o.input, stage);
      return 1;
    }
    snapshotTarget(module, &target);
    if (o.printIRAfterStage) {
      fprintf(errStream(), "// -----// IR after stage %d/%d: %s //----- //\n", i + 1,
              numStages, stage);
      mlirOperationPrint(moduleOp, writeToFile, errStream());
      fprintf(errStream(), "\n\n");
    }
    if (o.dumpDir) {
      char *slug = stageSlug(stage);
      bool ok = dumpModule(&o, i + 1, slug, module);
      free(slug);
      if (!ok)
        return 1;
    }
    free(display);
  }
  for (int i = 0; i < numStages; ++i)
    mlirPassManagerDestroy(pms[i]);
  free(pms);

  if (!iface.ok) {
    reportEntryErrors();
    fatal("'%s' has public functions without a C ABI (see above)", o.input);
  }
  if (kind != OUT_MLIR && !checkFullyLowered(module, &o, &pipeline))
    return 1;
  /* A --pass-pipeline written to .mlir may stop anywhere (to look at the IR
   * after some passes); everything else must have the C interface. */
  if (!(o.passPipeline && kind == OUT_MLIR) &&
      !checkLoweredInterface(module, &iface, o.passPipeline != NULL))
    return 1;
  if (o.deviceAsmDir && !emitDeviceObjects(module, &o))
    return 1;

  if (kind == OUT_MLIR) {
    if (!writeModuleToPath(module, o.output))
      return 1;
  } else {
    /* MLIR LLVM dialect -> LLVM IR. */
    LLVMInitializeAllTargetInfos();
    LLVMInitializeAllTargets();
    LLVMInitializeAllTargetMCs();
    LLVMInitializeAllAsmPrinters();
    LLVMInitializeAllAsmParsers();

    double l0 = nowSeconds();
    LLVMContextRef llctx = LLVMContextCreate();
    LLVMModuleRef llmod = mlirTranslateModuleToLLVMIR(moduleOp, llctx);
    double l1 = nowSeconds();
    addTiming(&timings, "-", "translate to LLVM IR", l1 - l0);
    if (!llmod)
      fatal("translating '%s' to LLVM IR failed (see the diagnostics above)",
            o.input);

    /* The machine: for cpu, the one #tessel.target describes; for GPU
     * targets the host side runs on a generic CPU of the host triple. */
    char *triple = NULL, *cpu = NULL, *features = NULL;
    bool isCpu = !strcmp(o.target, "cpu");
    if (isCpu) {
      if (target.seen) {
        if (*target.triple)
          triple = xstrdup(target.triple);
        cpu = xstrdup(target.chip);
        features = xstrdup(target.features);
      } else {
        warnf("the compiled module has no #tessel.target; using the host CPU");
        char *h = LLVMGetHostCPUName();
        cpu = xstrdup(h);
        LLVMDisposeMessage(h);
        char *hf = LLVMGetHostCPUFeatures();
        features = xstrdup(hf);
        LLVMDisposeMessage(hf);
      }
    } else {
      cpu = xstrdup("generic");
      features = xstrdup("");
    }
    if (!triple) {
      char *dt = LLVMGetDefaultTargetTriple();
      triple = xstrdup(dt);
      LLVMDisposeMessage(dt);
    }
    LLVMTargetRef llTarget;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &llTarget, &err))
      fatal("no LLVM backend for triple '%s': %s", triple, err ? err : "");
    static const LLVMCodeGenOptLevel levels[] = {
        LLVMCodeGenLevelNone, LLVMCodeGenLevelLess, LLVMCodeGenLevelDefault,
        LLVMCodeGenLevelAggressive};
    if (!strncmp(triple, "x86_64", 6) || !strncmp(triple, "i686", 4) ||
        !strncmp(triple, "i386", 4))
      disableBrokenBackendPasses();
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        llTarget, triple, cpu, features, levels[o.optLevel], LLVMRelocPIC,
        LLVMCodeModelDefault);
    if (!tm)
      fatal("cannot create an LLVM target machine for %s (cpu '%s', features "
            "'%s')", triple, cpu, features);
    LLVMSetTarget(llmod, triple);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(llmod, layout);
    LLVMDisposeTargetData(layout);
    if (o.dumpDir && !dumpLLVMModule(&o, numStages + 1, "llvm-translated", llmod))
      return 1;

    /* LLVM's new pass manager. */
    char passes[32];
    snprintf(passes, sizeof passes, "default<O%d>", o.optLevel);
    LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
    double p0 = nowSeconds();
    LLVMErrorRef perr = LLVMRunPasses(llmod, passes, tm, pbo);
    double p1 = nowSeconds();
    LLVMDisposePassBuilderOptions(pbo);
    char label[64];
    snprintf(label, sizeof label, "LLVM optimize (%s)", passes);
    addTiming(&timings, "-", label, p1 - p0);
    if (perr) {
      char *msg = LLVMGetErrorMessage(perr);
      errorf("LLVM optimization (%s) failed: %s", passes, msg);
      LLVMDisposeErrorMessage(msg);
      return 1;
    }
    if (o.dumpDir && !dumpLLVMModule(&o, numStages + 2, "llvm-optimized", llmod))
      return 1;

    bool ok = true;
    if (kind == OUT_LLVMIR) {
      if (LLVMPrintModuleToFile(llmod, o.output, &err)) {
        errorf("cannot write '%s': %s", o.output, err ? err : "");
        ok = false;
      }
    } else if (kind == OUT_BITCODE) {
      if (LLVMWriteBitcodeToFile(llmod, o.output) != 0) {
        errorf("cannot write '%s'", o.output);
        ok = false;
      }
    } else {
      const char *objectPath = o.output;
      if (kind == OUT_SHARED) {
        hideInternalFunctions(llmod);
        const char *tmpdir = getenv("TMPDIR");
        StrBuf tmpl = {0};
        sbPrintf(&tmpl, "%s/tessel-compile-XXXXXX.o",
                 tmpdir && *tmpdir ? tmpdir : "/tmp");
        int fd = mkstemps(tmpl.data, 2);
        if (fd < 0)
          fatal("cannot create a temporary object file '%s': %s", sbStr(&tmpl),
                strerror(errno));
        close(fd);
        gTempObject = tmpl.data;
        objectPath = gTempObject;
      }
      double c0 = nowSeconds();
      err = NULL;
      if (LLVMTargetMachineEmitToFile(tm, llmod, (char *)objectPath,
                                      kind == OUT_ASM ? LLVMAssemblyFile
                                                      : LLVMObjectFile,
                                      &err)) {
        errorf("code generation for %s (cpu '%s') into '%s' failed: %s", triple,
               cpu, objectPath, err ? err : "");
        ok = false;
      }
      double c1 = nowSeconds();
      addTiming(&timings, "-", kind == OUT_ASM ? "codegen (assembly)" : "codegen (object)",
                c1 - c0);
      if (ok && kind == OUT_SHARED) {
        double k0 = nowSeconds();
        ok = linkSharedLibrary(&o, objectPath, o.output);
        double k1 = nowSeconds();
        addTiming(&timings, "-", "link (shared library)", k1 - k0);
      }
    }
    if (err)
      LLVMDisposeMessage(err);
    LLVMDisposeModule(llmod);
    LLVMContextDispose(llctx);
    LLVMDisposeTargetMachine(tm);
    free(triple);
    free(cpu);
    free(features);
    if (!ok)
      return 1;
  }

  if (headerPath) {
    double h0 = nowSeconds();
    if (!writeHeader(headerPath, &iface, &o))
      return 1;
    addTiming(&timings, "-", "write header", nowSeconds() - h0);
  }
  if (o.timeStages)
    printTimings(&timings, o.target, nowSeconds() - tStart);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  free(headerPath);
  for (int i = 0; i < pipeline.numStages; ++i)
    free(pipeline.stages[i]);
  free(pipeline.stages);
  sbFree(&targetOrigin);
  return 0;
}

#ifdef TESSEL_COMPILE_LIBRARY
#include "tessel-c/Compiler.h"

int tesselCompilerRun(int argc, const char *const *argv, char **log) {
  /* One compilation at a time: the driver keeps its state in globals. */
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  char *buffer = NULL;
  size_t size = 0;
  gLog = open_memstream(&buffer, &size);
  gShowRemarks = false;
  gEntryErrors = NULL;
  gNumEntryErrors = 0;
  jmp_buf jump;
  volatile int rc;
  gFatalJump = &jump;
  /* A fatal error jumps back here; what the aborted compilation allocated
   * is not reclaimed (error paths only). */
  if (setjmp(jump) == 0)
    rc = driverMain(argc, (char **)argv);
  else
    rc = gEarlyExitCode;
  gFatalJump = NULL;
  cleanupTemps();
  if (gLog)
    fclose(gLog);
  gLog = NULL;
  if (log)
    *log = buffer;
  else
    free(buffer);
  pthread_mutex_unlock(&lock);
  return rc;
}

void tesselCompilerFreeLog(char *log) { free(log); }
#else
int main(int argc, char **argv) {
  atexit(cleanupTemps);
  return driverMain(argc, argv);
}
#endif
